"""Seeing leads to knowing (Pratt & Bryant 1990; Wimmer, Hogrefe & Perner 1988): who knows
what is in the box, the one who looked or the one who did not, as a domain of elot's engine.

A box holds a ball (world ``ball``) or a block (world ``block``). Mary, the observed agent,
looks inside and then takes the ball or leaves. John is a witness: in layout ``apart`` he
does not look (he only sees Mary look); in layout ``together`` he looks with her (the
true-belief control). The event ``look`` is the look inside the box.

    elot run --domain examples/domains/tom/seeing.py apart \\
        -s "current: knows_about(john, thing(T), inside(T, box))" \\
        -s "current: believes(mary, formula(not_knows_about(john, thing(T), inside(T, box))))"

``QUESTIONS`` are the classic questions with the answers the literature expects.
"""

from __future__ import annotations

import numpy as np

from elot.embedding import declare
from elot.engine import BeliefSpace, Case, DesireSpace, Events, Tables, Witness

STATES = ("start", "looked", "done", "walked-away")
START, LOOKED, DONE, AWAY = range(len(STATES))
ACTIONS = ("look", "take", "leave", "wait")
LOOK, TAKE, LEAVE, WAIT = range(len(ACTIONS))
WORLDS = ("ball", "block")
BALL, BLOCK = range(len(WORLDS))
PERCEPTS = ("nothing", "see-ball", "see-block")


def looking(sees: bool) -> np.ndarray:
    """The percepts of someone who looks inside when Mary does (``sees``), or who does not."""
    obs = np.zeros((len(WORLDS), len(STATES), len(PERCEPTS)))
    obs[:, :, 0] = 1.0
    if sees:
        obs[:, LOOKED] = 0.0
        obs[BALL, LOOKED, 1] = obs[BLOCK, LOOKED, 2] = 1.0
    return obs


class Seeing:
    name = "seeing-leads-to-knowing"
    default_planner = "qmdp"
    default_beta = 2.0

    def tables(self, layout: str) -> Tables:
        trans = np.tile(np.arange(len(STATES))[None, :, None], (len(WORLDS), 1, len(ACTIONS)))
        outcomes = np.full(trans.shape, -1)
        trans[:, START, LOOK] = LOOKED
        trans[:, START, LEAVE] = AWAY
        trans[:, LOOKED, LEAVE] = DONE
        trans[BALL, LOOKED, TAKE], outcomes[BALL, LOOKED, TAKE] = DONE, 0
        return Tables(STATES, WORLDS, ACTIONS, PERCEPTS, ("ball",), np.ones(len(ACTIONS)), trans, looking(True),
                      outcomes)

    def desires(self) -> DesireSpace:
        return DesireSpace(("ball",), np.array([[5.0], [20.0]]), np.full(2, 0.5))

    def initial_beliefs(self, layout: str) -> BeliefSpace:
        return BeliefSpace(np.array([[0.5, 0.5]]), np.ones(1))

    def events(self, layout: str) -> Events:
        happened = np.zeros((len(WORLDS), len(STATES), 1), dtype=bool)
        happened[:, [LOOKED, DONE], 0] = True
        seen = {"see-ball": "look", "see-block": "look"}
        john = Witness("john", PERCEPTS, looking(layout == "together"), seen, np.array([0.5, 0.5]))
        return Events(("look",), happened, seen, (john,), agent="mary")

    def signature(self):
        return declare(objects={"agent": ["mary", "john"], "container": ["box"], "thing": ["ball", "block"]},
                       predicates={"inside": ("thing", "container")}, events=["look"], agent="mary").with_words(
            {"mary": "Mary", "john": "John", "box": "the box", "ball": "the ball", "block": "the block",
             "look": "the look inside the box"})

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return frozenset({("inside", WORLDS[world], "box")})

    def cases(self) -> dict:
        return {name: Case(layout, path, world, name) for name, (layout, path, world) in CASES.items()}


#: name -> (layout, path, true world): Mary looks and takes the ball.
CASES = {
    "apart": ("apart", (START, LOOKED, DONE), BALL),
    "together": ("together", (START, LOOKED, DONE), BALL),
}

#: (case, t, mode, statement, expected answer, what it asks). t = 1: Mary has looked.
QUESTIONS = [
    ("apart", 1, "current", "knows_about(mary, thing(T), inside(T, box))", True, "Mary, who looked, knows"),
    ("apart", 1, "current", "knows_about(john, thing(T), inside(T, box))", False, "John, who did not look, knows"),
    ("apart", 1, "current", "observed(john, look)", False, "John saw inside the box"),
    ("apart", 1, "current", "believes(mary, formula(not_knows_about(john, thing(T), inside(T, box))))", True,
     "Mary thinks John does not know"),
    ("together", 1, "current", "knows_about(john, thing(T), inside(T, box))", True,
     "control: John looked too, and knows"),
    ("together", 1, "current", "believes(mary, formula(knows_about(john, thing(T), inside(T, box))))", True,
     "control: Mary thinks John knows"),
]

domain = Seeing()
