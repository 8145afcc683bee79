"""The ice-cream van (Perner & Wimmer 1985): second-order false belief, as a domain of elot's
engine.

John and Mary see the ice-cream van in the park; Mary goes home. The van moves to the church
and its driver tells John so; on the way he may also tell Mary (world ``moved-told``), or not
(``moved-untold``); or the van stays (``stays``). Mary, the observed agent, then goes to buy
an ice cream. John is a witness: in layout ``unseen`` he does not see the driver tell Mary, so
he thinks that she still thinks the van is in the park; in layout ``seen`` he watches the
driver tell her (the true-belief control). Events: ``move`` (the van moving to the church)
and ``tell`` (the driver telling Mary).

    elot run --domain examples/domains/tom/ice_cream.py unseen \\
        -s "current: believes(john, formula(believes(mary, formula(at(van, park)))))"

``QUESTIONS`` are the classic questions with the answers the literature expects.
"""

from __future__ import annotations

import numpy as np

from elot.embedding import declare
from elot.engine import BeliefSpace, Case, DesireSpace, Events, Tables, Witness

STATES = ("park", "home", "at-park", "at-church", "done")
PARK, HOME, AT_PARK, AT_CHURCH, DONE = range(len(STATES))
ACTIONS = ("go-home", "go-park", "go-church", "buy", "wait")
GO_HOME, GO_PARK, GO_CHURCH, BUY, WAIT = range(len(ACTIONS))
WORLDS = ("stays", "moved-told", "moved-untold")
STAYS, TOLD, UNTOLD = range(len(WORLDS))
PERCEPTS = ("nothing", "told-church", "see-van", "no-van")


class IceCreamVan:
    name = "ice-cream-van"
    default_planner = "qmdp"
    default_beta = 2.0

    def tables(self, layout: str) -> Tables:
        trans = np.tile(np.arange(len(STATES))[None, :, None], (len(WORLDS), 1, len(ACTIONS)))
        outcomes = np.full(trans.shape, -1)
        trans[:, PARK, GO_HOME] = HOME
        for here in (HOME, AT_PARK, AT_CHURCH):
            trans[:, here, GO_PARK] = AT_PARK
            trans[:, here, GO_CHURCH] = AT_CHURCH
        trans[STAYS, AT_PARK, BUY], outcomes[STAYS, AT_PARK, BUY] = DONE, 0
        for moved in (TOLD, UNTOLD):
            trans[moved, AT_CHURCH, BUY], outcomes[moved, AT_CHURCH, BUY] = DONE, 0
        obs = np.zeros((len(WORLDS), len(STATES), len(PERCEPTS)))
        obs[:, :, 0] = 1.0
        obs[TOLD, HOME] = (0.0, 1.0, 0.0, 0.0)                  # the driver tells her
        obs[:, AT_PARK] = obs[:, AT_CHURCH] = 0.0
        obs[STAYS, AT_PARK, 2] = obs[STAYS, AT_CHURCH, 3] = 1.0
        obs[[TOLD, UNTOLD], AT_CHURCH, 2] = obs[[TOLD, UNTOLD], AT_PARK, 3] = 1.0
        costs = np.array([1.0, 3.0, 3.0, 1.0, 1.0])
        return Tables(STATES, WORLDS, ACTIONS, PERCEPTS, ("icecream",), costs, trans, obs, outcomes)

    def desires(self) -> DesireSpace:
        return DesireSpace(("icecream",), np.array([[10.0], [20.0]]), np.full(2, 0.5))

    def initial_beliefs(self, layout: str) -> BeliefSpace:
        # the van is in the park, and vans stay where they are
        return BeliefSpace(np.array([[0.9, 0.05, 0.05]]), np.ones(1))

    def events(self, layout: str) -> Events:
        happened = np.zeros((len(WORLDS), len(STATES), 2), dtype=bool)
        happened[[TOLD, UNTOLD], HOME:, 0] = True               # the van moved
        happened[TOLD, HOME:, 1] = True                         # the driver told Mary
        john_obs = np.zeros((len(WORLDS), len(STATES), 3))
        john_obs[:, :, 0] = 1.0
        john_obs[[TOLD, UNTOLD], HOME] = (0.0, 1.0, 0.0)        # the driver tells John
        if layout == "seen":
            john_obs[TOLD, HOME] = (0.0, 0.0, 1.0)               # ... and John sees him tell Mary
        john = Witness("john", ("nothing", "told-church", "saw-mary-told"), john_obs,
                       {"told-church": "move", "saw-mary-told": ("move", "tell")},
                       np.array([0.5, 0.05, 0.45]))              # John does not expect the driver to tell Mary
        return Events(("move", "tell"), happened, {"told-church": ("move", "tell")}, (john,), agent="mary")

    def signature(self):
        return declare(objects={"agent": ["mary", "john"], "vehicle": ["van"], "place": ["park", "church"],
                                "food": ["icecream"]},
                       predicates={"at": ("vehicle", "place")}, events=["move", "tell"], agent="mary").with_words(
            {"mary": "Mary", "john": "John", "van": "the ice-cream van", "park": "the park", "church": "the church",
             "icecream": "an ice cream", "move": "the van moving to the church",
             "tell": "the driver telling Mary"})

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return self.world_atoms_at(layout, world, PARK)

    def world_atoms_at(self, layout: str, world: int, state: int) -> frozenset:
        moved = world != STAYS and state != PARK
        return frozenset({("at", "van", "church" if moved else "park")})

    def cases(self) -> dict:
        return {name: Case(layout, path, world, name) for name, (layout, path, world) in CASES.items()}


#: name -> (layout, path, true world): Mary was told, and goes to the church.
CASES = {
    "unseen": ("unseen", (PARK, HOME, AT_CHURCH, DONE), TOLD),
    "seen": ("seen", (PARK, HOME, AT_CHURCH, DONE), TOLD),
}

#: (case, t, mode, statement, expected answer, what it asks). t = 1: Mary is at home and the
#: van has moved.
QUESTIONS = [
    ("unseen", 1, "current", "believes(mary, formula(at(van, church)))", True, "Mary thinks the van is at the church"),
    ("unseen", 1, "current", "believes(john, formula(at(van, church)))", True, "John thinks the van is at the church"),
    ("unseen", 1, "current", "believes(john, formula(believes(mary, formula(at(van, park)))))", True,
     "John thinks Mary thinks it is in the park (second-order false belief)"),
    ("unseen", 1, "current", "believes(john, formula(believes(mary, formula(at(van, church)))))", False,
     "John thinks Mary thinks it is at the church"),
    ("unseen", 1, "current", "believes(john, formula(not(observed(mary, tell))))", True,
     "John thinks Mary was not told"),
    ("seen", 1, "current", "believes(john, formula(believes(mary, formula(at(van, park)))))", False,
     "control: John saw her told; he thinks she thinks it is in the park"),
    ("seen", 1, "current", "believes(john, formula(believes(mary, formula(at(van, church)))))", True,
     "control: John thinks Mary thinks it is at the church"),
    ("seen", 1, "current", "knows_that(john, formula(observed(mary, tell)))", True,
     "control: John knows the driver told Mary"),
]

domain = IceCreamVan()
