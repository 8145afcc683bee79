"""Random solvable Doors-Keys-Gems maps as ``.scn`` text, for tests and size benchmarks.

:func:`generate` draws a map from a seed (the same arguments always give the same text):

* a row of **alcoves** along the top, one per gem or door, each two cells deep, with the
  gem at its end and, for guarded alcoves, a locked **door** at its mouth (as the
  dataset's maps put gems behind doors);
* below them an open **hall** with random inner walls that never cut it in two, holding
  the agent, the **boxes** and the keys on the floor;
* one **key** per door, of the door's colour, and one more for each colour no door uses
  (so every requested colour is on the map); ``hidden`` of them (default: as many as the
  boxes and the dataset's prior allow, at most 2) are hidden in boxes, the rest lie on the
  floor of the hall.

Every key is in the hall, so every gem can be reached: the map is **solvable** for any
goal, which :func:`generate` checks with the compiled planner before returning. The true
goal is a random gem; with ``steps`` the agent's actions are an optimal plan to it in the
true map (ties broken by the seed), cut after ``steps`` actions, else there are none.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass

from elot.errors import ElotError

#: Colours in the order the ``.scn`` format knows them, then more (given legend characters).
COLOURS = ("red", "blue", "yellow", "green", "purple", "orange", "cyan", "pink", "brown",
           "grey", "white", "black", "gold")
#: The format's own characters for the first four colours: (door, key, box hiding a key).
_BUILTIN = {"red": ("R", "r", "F"), "blue": ("B", "b", "O"), "yellow": ("Y", "y", "U"),
            "green": ("E", "e", "Q")}
#: Legend characters for the colours past the first four.
_EXTRA_DOORS, _EXTRA_KEYS, _EXTRA_BOXES = "DIJKLMNPS", "dijklmnps", "123456789"


#: At most this many boxes, doors and gems: the compiled core's ``MAX_BOXES``,
#: ``MAX_DOORS`` and ``MAX_GEMS`` (one bit each of an int32 field of a world row).
MAX_EACH = 31


class GenerateError(ElotError):
    """Arguments no map can satisfy (negative counts, too many colours, ...)."""


@dataclass(frozen=True)
class Spec:
    """What to generate: object counts, the share of hall cells that are inner walls, and
    how many keys are hidden in boxes (None: ``min(boxes, keys, 2)``)."""

    boxes: int = 2
    colours: int = 1
    doors: int = 1
    gems: int = 2
    hidden: int | None = None
    wall_density: float = 0.15

    def check(self) -> "Spec":
        for name in ("boxes", "colours", "doors", "gems"):
            if getattr(self, name) < 0:
                raise GenerateError(f"--{name} must be at least 0, got {getattr(self, name)}")
        if self.gems < 1:
            raise GenerateError("a map needs at least one gem", hint="use --gems 1 or more")
        for name in ("boxes", "doors", "gems"):   # checked first: a huge count is refused at once
            if getattr(self, name) > MAX_EACH:
                raise GenerateError(f"at most {MAX_EACH} {name}, got {getattr(self, name):,}",
                                    hint="a world holds each door, box and gem as one bit of a 32-bit "
                                         "number (the compiled core's limit)")
        if self.colours > len(COLOURS):
            raise GenerateError(f"at most {len(COLOURS)} colours, got {self.colours}")
        if self.doors and self.colours < 1:
            raise GenerateError("doors need a colour", hint="use --colours 1 or more")
        if not 0 <= self.wall_density < 0.5:
            raise GenerateError(f"the wall density must be in [0, 0.5), got {self.wall_density}",
                                hint="give --walls the share of the hall that is inner walls, e.g. 0.2 (0: none)")
        keys = self.doors + max(self.colours - self.doors, 0)
        if self.hidden is not None and not 0 <= self.hidden <= min(self.boxes, keys):
            raise GenerateError(
                f"cannot hide {self.hidden} keys: there are {self.boxes} boxes and {keys} keys",
                hint="use --hidden between 0 and the smaller of the two")
        return self


def generate(spec: Spec, seed: int = 0, *, steps: int | None = None, name: str | None = None) -> str:
    """A solvable map drawn from ``seed`` as ``.scn`` text (see the module).

    ``steps``: include the first ``steps`` actions of an optimal plan to the true goal
    (``None`` or 0: no actions; the format allows a map without them).
    """
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    spec.check()
    rng = random.Random(f"elot-generate/{seed}")
    colours = list(COLOURS[: spec.colours])
    alcoves = max(spec.gems, spec.doors)
    door_colours = [colours[i % len(colours)] for i in range(spec.doors)]
    key_colours = door_colours + colours[spec.doors:]
    keys = len(key_colours)
    hidden = min(spec.boxes, keys, 2) if spec.hidden is None else spec.hidden
    floor_keys = keys - hidden
    width = max(2 * alcoves - 1, 7)
    hall_items = 1 + spec.boxes + floor_keys
    hall_rows = max(3, math.ceil(3 * hall_items / width))
    height = 2 + hall_rows

    grid = [["W"] * width for _ in range(2)] + [["."] * width for _ in range(hall_rows)]
    slots = list(range(alcoves))
    rng.shuffle(slots)
    gem_slots = set(slots[: spec.gems])
    # Doors guard gem alcoves first; a door past the gems guards an empty alcove.
    guarded = sorted(slots[: spec.doors])
    goal = rng.choice(sorted(gem_slots))
    for slot in range(alcoves):
        x = 2 * slot if alcoves > 1 else width // 2
        grid[0][x] = ("G" if slot == goal else "g") if slot in gem_slots else "."
        grid[1][x] = "."
    for colour, slot in zip(door_colours, guarded):
        x = 2 * slot if alcoves > 1 else width // 2
        grid[1][x] = "@" + colour  # resolved to a character below
    hall = [(x, y) for y in range(2, height) for x in range(width)]
    _add_inner_walls(grid, hall, width, height, spec.wall_density, rng)
    free = [(x, y) for x, y in hall if grid[y][x] == "."]
    if len(free) < hall_items:
        raise GenerateError("the hall is too small for the objects", hint="use a lower wall density")
    rng.shuffle(free)
    agent, rest = free[0], free[1:]
    grid[agent[1]][agent[0]] = "h"
    rng.shuffle(key_colours)
    hidden_colours, floor_colours = key_colours[:hidden], key_colours[hidden:]
    box_contents = hidden_colours + [None] * (spec.boxes - hidden)
    rng.shuffle(box_contents)
    for (x, y), colour in zip(rest, box_contents):
        grid[y][x] = "C" if colour is None else "#box" + colour
    for (x, y), colour in zip(rest[spec.boxes:], floor_colours):
        grid[y][x] = "#key" + colour

    legend: dict[str, str] = {}
    extra = {c: i for i, c in enumerate(colours[4:])}

    def char(kind: str, colour: str) -> str:
        index = {"door": 0, "key": 1, "box": 2}[kind]
        if colour in _BUILTIN:
            return _BUILTIN[colour][index]
        c = (_EXTRA_DOORS, _EXTRA_KEYS, _EXTRA_BOXES)[index][extra[colour]]
        legend[c] = f"{kind} {colour}"
        return c

    for row in grid:
        for x, cell in enumerate(row):
            if cell.startswith("@"):
                row[x] = char("door", cell[1:])
            elif cell.startswith("#box"):
                row[x] = char("box", cell[4:])
            elif cell.startswith("#key"):
                row[x] = char("key", cell[4:])
    title = name or f"random-{spec.boxes}b{spec.colours}c{spec.doors}d{spec.gems}g-{seed}"
    head = [f"name: {title}",
            f"description: generated by elot generate --boxes {spec.boxes} --colours {spec.colours} "
            f"--doors {spec.doors} --gems {spec.gems} --hidden {hidden} --seed {seed}",
            f"colours: {', '.join(colours)}" if colours else None]
    text = "\n".join(line for line in head if line) + "\n"
    if legend:
        text += "\nlegend:\n" + "".join(f"  {c} = {what}\n" for c, what in sorted(legend.items()))
    text += "\nmap:\n" + "".join("  " + "".join(row) + "\n" for row in grid)
    scenario = parse_scn_text(text, title)
    costs = _planner(scenario)
    _check_solvable(scenario, costs)
    if steps:
        plan = optimal_plan(scenario, rng, limit=steps, costs=costs)
        if plan:
            text += "\nactions:\n" + "".join(f"  {_format(a)}\n" for a in plan)
    return text


def _format(action) -> str:
    return " ".join(action)


def _add_inner_walls(grid, hall, width, height, density, rng) -> None:
    """Turn a share of the hall into walls, one at a time, never cutting it in two (the
    mouth of every alcove stays reachable)."""
    cells = list(hall)
    rng.shuffle(cells)
    target = int(density * len(hall))
    placed = 0
    mouths = [(x, 2) for x in range(width) if grid[1][x] != "W"]
    for x, y in cells:
        if placed >= target:
            break
        if (x, y) in mouths:
            continue
        grid[y][x] = "W"
        if _connected(grid, hall, width, height):
            placed += 1
        else:
            grid[y][x] = "."


def _connected(grid, hall, width, height) -> bool:
    open_cells = [(x, y) for x, y in hall if grid[y][x] != "W"]
    if not open_cells:
        return False
    seen = {open_cells[0]}
    queue = deque(seen)
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < width and 2 <= ny < height and (nx, ny) not in seen and grid[ny][nx] != "W":
                seen.add((nx, ny))
                queue.append((nx, ny))
    return len(seen) == len(open_cells)


def _planner(scenario):
    """Path costs of fully known worlds of ``scenario``'s map (one memo for every call)."""
    from btom_ext import backend
    from elot.domains.doors_keys_gems.encoding import Encoding

    enc = Encoding(scenario.layout)
    planner = enc.planner(backend("core"))
    return lambda states: planner.costs(enc.encode_many(states))


def _check_solvable(scenario, costs) -> None:
    """Every gem can be reached in the true map (else the construction is wrong)."""
    if (costs([scenario.initial])[0] < 0).any():  # pragma: no cover - by construction
        raise GenerateError(f"generated map {scenario.name} is not solvable", hint="report this seed")


def optimal_plan(scenario, rng: random.Random | None = None, *, limit: int | None = None,
                 costs=None) -> list:
    """An optimal plan to ``scenario.true_goal`` in the true (fully known) map: at each
    step an action that lowers the planner's cost by one, ties broken by ``rng``."""
    from elot.domains.doors_keys_gems.encoding import Encoding

    rng = rng or random.Random(0)
    costs = costs or _planner(scenario)
    goal = Encoding(scenario.layout).gem_index(scenario.true_goal)
    state, plan = scenario.initial, []
    while scenario.true_goal not in state.held_gems and (limit is None or len(plan) < limit):
        options = [a for a in state.available_actions() if a[0] != "pickup" or a[1] == scenario.true_goal
                   or not scenario.layout.is_gem(a[1])]
        nexts = [state.step(a) for a in options]
        after = costs(nexts)[:, goal]
        here = costs([state])[0, goal]
        best = [i for i, c in enumerate(after) if c == here - 1]
        if not best:  # pragma: no cover - an optimal plan always has a next step
            raise GenerateError("no action makes progress", hint="report this seed")
        choice = rng.choice(best)
        plan.append(options[choice])
        state = nexts[choice]
    return plan
