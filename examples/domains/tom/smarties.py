"""Smarties, or unexpected contents (Perner, Leekam & Wimmer 1987; Gopnik & Astington 1988):
a belief before and after looking, and a friend who has not looked, as a domain of elot's
engine.

Sally is shown a Smarties tube; it holds candy (world ``candy``, the true-belief control) or
pencils (world ``pencils``). She opens it and sees what is inside, then eats the candy or
leaves. She expects candy (her initial belief). Anne, her friend, is a witness who never looks
inside. The event ``look`` is the look inside the tube: Sally sees it when she opens the tube.

    elot run --domain examples/domains/tom/smarties.py pencils \\
        -s "initial: believes(sally, formula(inside(candy, tube)))" \\
        -s "current: believes(sally, formula(believes(anne, formula(inside(candy, tube)))))"

``QUESTIONS`` are the classic questions with the answers the literature expects.
"""

from __future__ import annotations

import numpy as np

from elot.embedding import declare
from elot.engine import BeliefSpace, Case, DesireSpace, Events, Tables, Witness

STATES = ("closed", "open", "done", "walked-away")
CLOSED, OPEN, DONE, AWAY = range(len(STATES))
ACTIONS = ("open", "eat", "leave", "wait")
OPEN_IT, EAT, LEAVE, WAIT = range(len(ACTIONS))
WORLDS = ("candy", "pencils")
CANDY, PENCILS = range(len(WORLDS))
PERCEPTS = ("nothing", "see-candy", "see-pencils")


class Smarties:
    name = "smarties"
    default_planner = "qmdp"
    default_beta = 2.0

    def tables(self, layout: str) -> Tables:
        trans = np.tile(np.arange(len(STATES))[None, :, None], (len(WORLDS), 1, len(ACTIONS)))
        outcomes = np.full(trans.shape, -1)
        trans[:, CLOSED, OPEN_IT] = OPEN
        trans[:, CLOSED, LEAVE] = AWAY
        trans[:, OPEN, LEAVE] = DONE
        trans[CANDY, OPEN, EAT], outcomes[CANDY, OPEN, EAT] = DONE, 0
        obs = np.zeros((len(WORLDS), len(STATES), len(PERCEPTS)))
        obs[:, :, 0] = 1.0
        obs[:, OPEN] = 0.0
        obs[CANDY, OPEN, 1] = obs[PENCILS, OPEN, 2] = 1.0    # she sees what is inside
        return Tables(STATES, WORLDS, ACTIONS, PERCEPTS, ("candy",), np.ones(len(ACTIONS)), trans, obs, outcomes)

    def desires(self) -> DesireSpace:
        return DesireSpace(("candy",), np.array([[5.0], [20.0]]), np.full(2, 0.5))

    def initial_beliefs(self, layout: str) -> BeliefSpace:
        # a Smarties tube holds Smarties
        return BeliefSpace(np.array([[0.95, 0.05]]), np.ones(1))

    def events(self, layout: str) -> Events:
        happened = np.zeros((len(WORLDS), len(STATES), 1), dtype=bool)
        happened[:, [OPEN, DONE], 0] = True
        never = np.ones((len(WORLDS), len(STATES), 1))     # Anne never looks inside
        anne = Witness("anne", ("nothing",), never, {}, np.array([0.95, 0.05]))
        return Events(("look",), happened, {"see-candy": "look", "see-pencils": "look"}, (anne,), agent="sally")

    def signature(self):
        return declare(objects={"agent": ["sally", "anne"], "container": ["tube"], "thing": ["candy", "pencil"]},
                       predicates={"inside": ("thing", "container")}, events=["look"], agent="sally").with_words(
            {"sally": "Sally", "anne": "Anne", "tube": "the tube", "candy": "the candy", "pencil": "the pencil",
             "look": "the look inside the tube"})

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return frozenset({("inside", "candy" if world == CANDY else "pencil", "tube")})

    def cases(self) -> dict:
        return {name: Case(layout, path, world, name) for name, (layout, path, world) in CASES.items()}


#: name -> (layout, path, true world). Both open the tube; with candy Sally eats it.
CASES = {
    "pencils": ("tube", (CLOSED, OPEN, DONE), PENCILS),
    "candy": ("tube", (CLOSED, OPEN, DONE), CANDY),
}

#: (case, t, mode, statement, expected answer, what it asks). t = 0: before she opens the
#: tube; t = 1: she has looked inside.
QUESTIONS = [
    ("pencils", 0, "current", "believes(sally, formula(inside(candy, tube)))", True,
     "before looking, Sally thinks there is candy in the tube"),
    ("pencils", 1, "current", "believes(sally, formula(inside(pencil, tube)))", True,
     "after looking, she thinks there are pencils"),
    ("pencils", 1, "current", "believes(sally, formula(inside(candy, tube)))", False,
     "after looking, she thinks there is candy"),
    ("pencils", 1, "initial", "believes(sally, formula(inside(candy, tube)))", True,
     "what did she think was inside before she opened it? candy"),
    ("pencils", 1, "current", "believes(anne, formula(inside(candy, tube)))", True,
     "Anne, who has not looked, thinks there is candy"),
    ("pencils", 1, "current", "believes(sally, formula(believes(anne, formula(inside(candy, tube)))))", True,
     "Sally thinks Anne thinks there is candy"),
    ("pencils", 1, "current", "knows_that(sally, formula(not(observed(anne, look))))", True,
     "Sally knows Anne did not see inside the tube"),
    ("candy", 1, "current", "believes(sally, formula(inside(candy, tube)))", True,
     "control: after looking at candy, she thinks there is candy"),
    ("candy", 1, "current", "believes(sally, formula(inside(pencil, tube)))", False,
     "control: she thinks there are pencils"),
    ("candy", 1, "current", "believes(sally, formula(believes(anne, formula(inside(candy, tube)))))", True,
     "control: Sally thinks Anne thinks there is candy"),
]

domain = Smarties()
