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
    default_beta = 2.5

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
            {"visitor": "agent", "shop": "place", "machine": "place", "coffee": "drink", "soda": "drink"},
            agent="visitor", predicates={"open": ("place",)}, types={"place": "object", "drink": "object"},
            derived=()).with_words({"shop": "the coffee shop", "machine": "the vending machine"})

    def world_atoms(self, layout: str, world: int) -> frozenset:
        return frozenset({("open", "machine")} | ({("open", "shop")} if world == 0 else set()))

    # -- hooks: how elot draws and tells a scene (docs/domains.md, "Hooks") -----------------

    #: What the survey's page says the animations show.
    scene_words = ("A visitor walks along a corridor. At its west end a vending machine always sells soda; at "
                   "its east end a coffee shop may be open or closed. The visitor can read the shop's sign only "
                   "from near it.")

    def frame_cells(self, layout: str) -> tuple[int, int]:
        return CELLS, 1

    def draw_frame(self, ax, layout: str, path, world, t: int) -> None:
        """The corridor at step t: the machine at the west end, the shop at the east end
        (whether it is open is hidden, as from the observer), the visitor where it stands."""
        from matplotlib.patches import Circle, Rectangle

        ax.set_xlim(-0.5, CELLS - 0.5)
        ax.set_ylim(-0.5, 0.5)
        ax.set_aspect("equal")
        ax.axis("off")
        for cell in range(CELLS):
            ax.add_patch(Rectangle((cell - 0.5, -0.5), 1, 1, facecolor="0.95", edgecolor="0.6"))
        ax.text(0, 0.3, "soda", ha="center", va="center", fontsize=8, color="tab:blue")
        ax.text(CELLS - 1, 0.3, "coffee", ha="center", va="center", fontsize=8, color="saddlebrown")
        cell = _cell(path, t)
        ax.add_patch(Circle((cell, -0.1), 0.25, color="black"))

    #: What :map's letters are.
    map_legend = "S the vending machine (soda)   C the coffee shop   @ the visitor"

    def map_cells(self, layout: str, path, world, t: int) -> dict:
        """The corridor as text at step t (the REPL's :map): cells 1 to 5, west to east."""
        cells = {(1, 1): ("S", "bold blue"), (CELLS, 1): ("C", "bold yellow")}
        cells[(_cell(path, t) + 1, 1)] = ("@", "bold reverse")
        return cells

    def frame_caption(self, layout: str, path, world, t: int) -> str:
        bought = _bought(path, t)
        return f"bought {bought}" if bought else ""

    def tell(self, layout: str, path, world, t: int, condition: str) -> str:
        """What the visitor did up to step t: its moves (``plan``) or a short story."""
        moves = [_move(path, k) for k in range(1, t + 1)]
        start = f"The visitor starts in cell {path[0]} of the corridor (cells 0 to {CELLS - 1}, west to east)."
        if condition == "plan":
            return start + " Its actions so far: " + (", ".join(moves) if moves else "none") + "."
        story = [start] + [f"Then it {'buys ' + _bought(path, k) if m == 'buy' else _WORDS[m]}."
                           for k, m in enumerate(moves, 1)]
        return " ".join(story)


_WORDS = {"west": "walks one cell west", "east": "walks one cell east", "stay": "waits"}


def _cell(path, t: int) -> int:
    """Where the visitor stands at step t (after buying: where it bought)."""
    t = min(t, len(path) - 1)
    while t > 0 and path[t] == DONE:
        t -= 1
    return int(path[t])


def _move(path, k: int) -> str:
    """The action that took the visitor from step k - 1 to step k."""
    if path[k] == DONE:
        return "buy" if path[k - 1] != DONE else "stay"
    step = int(path[k]) - int(path[k - 1])
    return {-1: "west", 1: "east"}.get(step, "stay")


def _bought(path, t: int) -> str:
    """What the visitor bought by step t ('' before it buys)."""
    for k in range(1, min(t, len(path) - 1) + 1):
        if path[k] == DONE and path[k - 1] != DONE:
            return "soda" if path[k - 1] == 0 else "coffee"
    return ""
