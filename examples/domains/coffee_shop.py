"""A third domain, written only against elot's public domain protocol (docs/domains.md).

A corridor of five cells, 0 (west) to 4 (east). A vending machine at cell 0 always sells
soda; a coffee shop at cell 4 is open or closed (the hidden world). The shop's sign is seen
for sure from cells 3 and 4 and half the time from cell 2. Buying ends the episode and earns
the agent's utility for what it bought; buying at a closed shop does nothing.

    from elot.engine import Case, Engine
    engine = Engine(CoffeeShop())
    [[result]] = engine.run([Case("corridor", (2, 3, 3, 2, 1, 0, 5), world=1)])
"""

from __future__ import annotations

import itertools

import numpy as np

from elot.engine import BeliefSpace, DesireSpace, Tables
from elot.lang.signature import Signature

CELLS = 5
DONE = CELLS                     # the absorbing state after buying
ACTIONS = ("stay", "west", "east", "buy")
WORLDS = ("shop-open", "shop-closed")
PERCEPTS = ("sign-open", "sign-closed", "sign-not-seen")
SIGN_SEEN = (0.0, 0.0, 0.5, 1.0, 1.0)   # from each cell


class CoffeeShop:
    name = "coffee-shop"
    default_planner = "belief-vi"

    def tables(self, layout: str) -> Tables:
        n_s = CELLS + 1
        trans = np.zeros((2, n_s, 4), dtype=np.int32)
        outcomes = np.full((2, n_s, 4), -1, dtype=np.int32)
        obs = np.zeros((2, n_s, 3))
        for world in range(2):
            for cell in range(CELLS):
                trans[world, cell] = [cell, max(cell - 1, 0), min(cell + 1, CELLS - 1), cell]
                if cell == 0:                            # the machine always sells soda
                    trans[world, cell, 3], outcomes[world, cell, 3] = DONE, 1
                if cell == CELLS - 1 and world == 0:     # the shop sells coffee when open
                    trans[world, cell, 3], outcomes[world, cell, 3] = DONE, 0
                obs[world, cell, world] = SIGN_SEEN[cell]
                obs[world, cell, 2] = 1.0 - SIGN_SEEN[cell]
            trans[world, DONE] = DONE
            obs[world, DONE, 2] = 1.0
        states = tuple(f"cell{c}" for c in range(CELLS)) + ("done",)
        return Tables(states, WORLDS, ACTIONS, PERCEPTS, ("coffee", "soda"),
                      np.array([0.0, 1.0, 1.0, 1.0]), trans, obs, outcomes)

    def desires(self) -> DesireSpace:
        levels = (0.0, 10.0, 20.0)
        utilities = np.array(list(itertools.product(levels, levels)))   # (coffee, soda)
        return DesireSpace(("coffee", "soda"), utilities, np.full(len(utilities), 1 / len(utilities)))

    def initial_beliefs(self, layout: str) -> BeliefSpace:
        beliefs = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
        return BeliefSpace(beliefs, np.full(3, 1 / 3))

    def signature(self) -> Signature:
        return Signature.from_objects(
            {"visitor": "agent", "shop": "place", "machine": "place"}, agent="visitor",
            predicates={"open": ("place",)}, types={"place": "object"}, derived=())

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return frozenset({("open", "machine")} | ({("open", "shop")} if world == 0 else set()))
