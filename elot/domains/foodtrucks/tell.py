"""A food-truck scenario in words (Baker et al. 2017; ``elot/domains/foodtrucks``), as an
observer saw it up to a judgment point: the *plan* and *narrative* conditions of
:mod:`elot.domains.doors_keys_gems.tell` for the second domain, generated from the scenario itself.

* :func:`plan_text` (*plan*): the campus as a map (the building, the two parking spots,
  the student), then the student's moves up to ``t``, one a line, each with what it could
  see of spot 2 from where it stood;
* :func:`narrative_text` (*narrative*): the same, told: where the building is open, what
  each spot may hold, and the walk as runs of moves ending where the student stopped,
  looked or ate.

Only what the student could see is told, as the experiment's display showed it: spot 2
is behind the building and its truck (or its emptiness) is told once the student has
stood where at least half of it is in view (``elot.domains.foodtrucks.draw.SEEN_FROM``); less than
that is told as a glimpse, with the part in view. Cells are ``(x, y)``, x from the west
(left), y from the south (bottom), as ``.trucks`` files write them.
"""

from __future__ import annotations

from elot.domains.telling import cell, run_words
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import (HEIGHT, SPOT1, SPOT2, SPOT2_CONTENT, TRUCKS, WALL_SPANS, WIDTH,
                                           FoodTruckMap, truck_at, visibility)
from elot.domains.foodtrucks.draw import SEEN_FROM

#: The legend of :func:`campus_map`.
LEGEND = "# building, . open ground, S the student, K the Korean truck (spot 1), ? spot 2 (not seen yet)"
_DIRECTIONS = {(0, 1): "north", (0, -1): "south", (1, 0): "east", (-1, 0): "west"}


def seen_words(truck: int | None, past: bool = False) -> str:
    """What the student sees at spot 2."""
    be = "was" if past else "is"
    return f"it {be} empty" if truck is None else f"the {TRUCKS[truck].capitalize()} truck {be} there"


def campus_map(scenario: FoodTruckScenario, where: tuple[int, int]) -> str:
    """The campus drawn from the north (top) row down, the student at ``where`` and spot 2
    a ``?``: the map as the observer saw it before the student looked."""
    layout = FoodTruckMap(scenario.map)
    rows = []
    for y in reversed(range(HEIGHT)):
        marks = []
        for x in range(WIDTH):
            marks.append("S" if (x, y) == where else "K" if (x, y) == SPOT1 else "?" if (x, y) == SPOT2
                         else "." if layout.is_open(x, y) else "#")
        rows.append("".join(marks))
    return "\n".join(rows)


def building_words(map_number: int) -> str:
    """Where the building runs and where it can be passed."""
    lo, hi = WALL_SPANS[map_number]
    gaps = [end for end, open_ in (("west (left)", lo > 0), ("east (right)", hi < WIDTH - 1)) if open_]
    return (f"A building runs along row y = 2 from x = {lo} to x = {hi}; it can be passed at its "
            + (" and ".join(gaps) + " end" + ("s" if len(gaps) > 1 else "")) + ".")


def _step(scenario: FoodTruckScenario, t: int) -> tuple[str, tuple[int, int]]:
    """What the student did at step ``t`` (1..) and where it stood after it."""
    cells = scenario.cells
    if t >= len(cells):     # the last step of a finished path: eating where it stood
        return "eat", cells[-1]
    before, after = cells[t - 1], cells[t]
    return _DIRECTIONS.get((after[0] - before[0], after[1] - before[1]), "stay"), after


class _Sight:
    """What the student has seen of spot 2 so far: told once as a glimpse, once in full,
    in the present (*plan*) or the past (*narrative*)."""

    def __init__(self, scenario: FoodTruckScenario, past: bool = False):
        self.table = visibility(scenario.map)
        self.content = SPOT2_CONTENT[scenario.world]
        self.past = past
        self.glimpsed = self.seen = False

    def at(self, pos: tuple[int, int], where: str = "") -> str:
        """What standing at ``pos`` shows that was not told before ('' when nothing new)."""
        where = where or ("from there" if self.past else "from here")
        sees, be = ("saw", "was") if self.past else ("sees", "is")
        v = float(self.table[pos[1], pos[0]])
        if v >= SEEN_FROM and not self.seen:
            self.seen = self.glimpsed = True
            return f"{where} it {sees} spot 2: {seen_words(self.content, self.past)}"
        if 0 < v < SEEN_FROM and not self.glimpsed and not self.seen:
            self.glimpsed = True
            return f"{where} about {v:.0%} of spot 2 {be} in view, too little to tell what {be} there"
        return ""


def _action_words(action: str, pos: tuple[int, int], world: int) -> str:
    if action == "eat":
        return f"eats at the {TRUCKS[truck_at(world, *pos)].capitalize()} truck"
    return f"stays at {cell(pos)}" if action == "stay" else f"goes {action} to {cell(pos)}"


def _scene(scenario: FoodTruckScenario) -> list[str]:
    start = scenario.cells[0]
    return [f"The campus ({WIDTH} columns, {HEIGHT} rows; a cell is (x, y), x counted from the west (left) "
            f"and y from the south (bottom), both from 0; {LEGEND}):", campus_map(scenario, start), "",
            building_words(scenario.map),
            f"Spot 1 at {cell(SPOT1)} holds the Korean truck, in view of the start. Spot 2 at {cell(SPOT2)}, "
            "behind the building, holds the Lebanese truck, the Mexican truck or nothing; the student sees it "
            "only from where the building does not block the view.",
            f"The student starts at {cell(start)}, hungry."]


def _opening(scenario: FoodTruckScenario, past: bool = False) -> tuple[list[str], _Sight]:
    """The scene's lines up to the first step (with what the start shows of spot 2), and
    what the student has seen so far."""
    lines = _scene(scenario)
    sight = _Sight(scenario, past)
    seen = sight.at(scenario.cells[0], "from the start")
    if seen:
        lines.append(seen[0].upper() + seen[1:] + ".")
    return lines + [""], sight


def plan_text(scenario: FoodTruckScenario, t: int) -> str:
    """The *plan* condition: the campus as a map, then the student's first ``t`` steps,
    one a line, with what each let it see of spot 2."""
    lines, sight = _opening(scenario)
    if not t:
        lines.append("The student has not moved yet.")
        return "\n".join(lines)
    lines.append(f"The student's steps so far ({t}):")
    for step in range(1, t + 1):
        action, pos = _step(scenario, step)
        seen = "" if action == "eat" else sight.at(pos)
        lines.append(f"{step}. {_action_words(action, pos, scenario.world)}" + (f" ({seen})" if seen else ""))
    return "\n".join(lines)


def narrative_text(scenario: FoodTruckScenario, t: int) -> str:
    """The *narrative* condition: the campus told, and the student's first ``t`` steps told
    as runs of moves, each ending where it stopped, saw spot 2 or ate."""
    lines, sight = _opening(scenario, past=True)
    if not t:
        lines.append("The student has not moved yet.")
        return "\n".join(lines)
    story: list[str] = []
    moves: list[str] = []
    waits = 0

    def flush(pos, seen: str = "") -> None:
        nonlocal moves, waits
        if moves:
            story.append(f"It went {run_words(moves)}, to {cell(pos)}" + (f"; {seen}." if seen else "."))
        elif waits:
            story.append(f"It waited {'a step' if waits == 1 else f'{waits} steps'} at {cell(pos)}"
                         + (f"; {seen}." if seen else "."))
        moves, waits = [], 0

    for step in range(1, t + 1):
        action, pos = _step(scenario, step)
        if action == "eat":
            flush(pos)
            story.append(f"Then it ate at the {TRUCKS[truck_at(scenario.world, *pos)].capitalize()} truck.")
            continue
        if (action == "stay") != bool(waits) and (moves or waits):     # a run of moves or of waits ends
            flush(_step(scenario, step - 1)[1])
        if action == "stay":
            waits += 1
        else:
            moves.append(action)
        seen = sight.at(pos)
        if seen:
            flush(pos, seen)
    flush(_step(scenario, t)[1])
    lines.append(f"What the student did so far ({t} steps): " + " ".join(story))
    return "\n".join(lines)


CONDITIONS = {"plan": plan_text, "narrative": narrative_text}
