"""Sally–Anne (Baron-Cohen, Leslie & Frith 1985; after Wimmer & Perner 1983): first- and
second-order false belief, and the variant where Sally peeks, as a domain of elot's engine.

Sally puts her marble in the basket and goes out; while she is away Anne moves it to the
box (world ``moved``) or leaves it (world ``stays``); Sally comes back and looks for it. The
observed agent is Sally: her path is ``room -> away -> back`` and then her looks. She may
see the move (the percept ``saw-move``, the event ``move``): in layout ``out`` she is out of
the room and peeks with probability 0.1 (Anne, who moved it, thinks 0.2); in layout
``present`` she stays and watches (the true-belief control). When she looks into a
container she sees whether the marble is there. Anne is a witness: she does not act, and she
knows whether she moved it.

    elot run --domain examples/domains/tom/sally_anne.py examples/domains/tom/sally_anne.json:1 \\
        -s "current: believes(sally, formula(inside(marble, box)))"

``QUESTIONS`` are the classic questions with the answers the literature expects; the tests
and ``benchmarks/tom_battery.py`` run them.
"""

from __future__ import annotations

import numpy as np

from elot.embedding import declare
from elot.engine import BeliefSpace, Case, DesireSpace, Events, Tables, Witness

STATES = ("room", "away", "back", "basket", "box", "done")
ROOM, AWAY, BACK, BASKET, BOX, DONE = range(len(STATES))
ACTIONS = ("leave", "return", "look-basket", "look-box", "take", "wait")
LEAVE, RETURN, LOOK_BASKET, LOOK_BOX, TAKE, WAIT = range(len(ACTIONS))
WORLDS = ("stays", "moved")
STAYS, MOVED = range(len(WORLDS))
PERCEPTS = ("nothing", "saw-move", "marble-there", "container-empty")
NOTHING, SAW_MOVE, THERE, EMPTY = range(len(PERCEPTS))
#: How likely Sally is to see the move, in each layout, and how likely Anne thinks it is.
SEES = {"out": 0.1, "present": 1.0}
ANNE_THINKS = {"out": 0.2, "present": 1.0}


def sally_sees(layout: str, p: float) -> np.ndarray:
    """Sally's percepts: the move seen with probability ``p`` as she goes away (where Anne
    moves it), what is in a container as she looks into it."""
    obs = np.zeros((len(WORLDS), len(STATES), len(PERCEPTS)))
    obs[:, :, NOTHING] = 1.0
    obs[MOVED, AWAY] = 0.0
    obs[MOVED, AWAY, SAW_MOVE], obs[MOVED, AWAY, NOTHING] = p, 1.0 - p
    obs[:, BASKET] = obs[:, BOX] = 0.0
    obs[STAYS, BASKET, THERE] = obs[MOVED, BOX, THERE] = 1.0
    obs[MOVED, BASKET, EMPTY] = obs[STAYS, BOX, EMPTY] = 1.0
    return obs


class SallyAnne:
    name = "sally-anne"
    default_planner = "qmdp"
    default_beta = 2.0

    def tables(self, layout: str) -> Tables:
        trans = np.tile(np.arange(len(STATES))[None, :, None], (len(WORLDS), 1, len(ACTIONS)))
        outcomes = np.full(trans.shape, -1)
        trans[:, ROOM, LEAVE] = AWAY
        trans[:, AWAY, RETURN] = BACK
        for here in (BACK, BASKET, BOX):
            trans[:, here, LOOK_BASKET] = BASKET
            trans[:, here, LOOK_BOX] = BOX
        trans[STAYS, BASKET, TAKE] = trans[MOVED, BOX, TAKE] = DONE
        outcomes[STAYS, BASKET, TAKE] = outcomes[MOVED, BOX, TAKE] = 0
        costs = np.array([1.0, 1.0, 3.0, 3.0, 1.0, 1.0])    # walking to a container costs more
        return Tables(STATES, WORLDS, ACTIONS, PERCEPTS, ("marble",), costs, trans,
                      sally_sees(layout, SEES[layout]), outcomes)

    def desires(self) -> DesireSpace:
        utilities = np.array([[10.0], [20.0]])
        return DesireSpace(("marble",), utilities, np.full(2, 0.5))

    def initial_beliefs(self, layout: str) -> BeliefSpace:
        # she expects the marble to stay where she left it
        return BeliefSpace(np.array([[0.9, 0.1], [0.98, 0.02]]), np.full(2, 0.5))

    def events(self, layout: str) -> Events:
        happened = np.zeros((len(WORLDS), len(STATES), 1), dtype=bool)
        happened[MOVED, AWAY:, 0] = True
        anne_obs = np.zeros((len(WORLDS), len(STATES), 2))
        anne_obs[:, :, 0] = 1.0
        anne_obs[MOVED, AWAY] = (0.0, 1.0)                   # she moved it
        anne = Witness("anne", ("nothing", "moved-it"), anne_obs, {"moved-it": "move"}, np.array([0.5, 0.5]),
                       thinks={"sally": sally_sees(layout, ANNE_THINKS[layout])})
        return Events(("move",), happened, {"saw-move": "move"}, (anne,), agent="sally")

    def signature(self):
        return declare(objects={"agent": ["sally", "anne"], "container": ["basket", "box"], "thing": ["marble"]},
                       predicates={"inside": ("thing", "container")}, events=["move"], agent="sally").with_words(
            {"sally": "Sally", "anne": "Anne", "marble": "the marble", "basket": "the basket", "box": "the box",
             "move": "the marble being moved"})

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return self.world_atoms_at(layout, world, ROOM)

    def world_atoms_at(self, layout: str, world: int, state: int) -> frozenset:
        where = "box" if world == MOVED and state != ROOM else "basket"
        return frozenset({("inside", "marble", where)})

    def cases(self) -> dict:
        return {name: Case(layout, path, world, name) for name, (layout, path, world) in CASES.items()}


#: name -> (layout, path, true world)
CASES = {
    "false-belief": ("out", (ROOM, AWAY, BACK, BASKET, BOX, DONE), MOVED),
    "peek": ("out", (ROOM, AWAY, BACK, BOX, DONE), MOVED),
    "true-belief": ("present", (ROOM, AWAY, BACK, BOX, DONE), MOVED),
}

#: (case, t, mode, statement, expected answer, what it asks). t = 2: Sally is back and has
#: not looked yet; t = 3: after her first look.
QUESTIONS = [
    ("false-belief", 2, "current", "believes(sally, formula(inside(marble, basket)))", True,
     "Sally thinks the marble is in the basket (false belief)"),
    ("false-belief", 2, "current", "believes(sally, formula(inside(marble, box)))", False,
     "Sally thinks the marble is in the box"),
    ("false-belief", 2, "current", "knows_about(anne, container(C), inside(marble, C))", True,
     "Anne knows where the marble is"),
    ("false-belief", 2, "current", "believes(anne, formula(believes(sally, formula(inside(marble, basket)))))",
     True, "Anne thinks Sally thinks it is in the basket (second order)"),
    ("false-belief", 3, "current", "believes(sally, formula(inside(marble, box)))", True,
     "after finding the basket empty, she thinks it is in the box"),
    ("false-belief", 3, "current", "observed(sally, move)", False, "Sally saw the marble being moved"),
    ("peek", 3, "current", "observed(sally, move)", True, "she went straight to the box: she saw the move"),
    ("peek", 3, "initial", "believes(sally, formula(inside(marble, basket)))", True,
     "before the move she thought it was in the basket"),
    ("true-belief", 2, "current", "believes(sally, formula(inside(marble, basket)))", False,
     "control: she watched the move; she thinks it is in the basket"),
    ("true-belief", 2, "current", "believes(sally, formula(inside(marble, box)))", True,
     "control: she thinks it is in the box"),
    ("true-belief", 2, "current", "believes(anne, formula(believes(sally, formula(inside(marble, box)))))", True,
     "control: Anne thinks Sally thinks it is in the box"),
]

domain = SallyAnne()
