"""elot's own file format for food-truck scenarios (``.trucks``): a few lines per scenario.

::

    # the student checks behind the wall, finds it empty, and goes back
    scenario left-check-empty
    map 1                 # 1: open at both ends, 2: open on the right, 3: open on the left
    spot2 empty           # what is really at spot 2: lebanese, mexican or empty
    start 1 1             # the start cell (x y)
    moves W N N stay S S S eat
    judge 3 7             # optional: judgment points, moves made (default: the path's end)

Moves are ``N``, ``S``, ``E``, ``W`` (or north, south, east, west), ``stay`` and a final
``eat`` at a truck. A ``judge`` line names the times statements are judged at, increasing,
from 0 (the start) to the number of moves (eating counts as one). A file holds any number of scenarios, each from its ``scenario`` line;
an error names the file, line and column, and says how to fix it.
"""

from __future__ import annotations

import os
import re

from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import (MOVES, SPOT2_CONTENT, TRUCKS, FoodTruckMap, truck_at)
from elot.errors import ScenarioError, Span, read_text

MOVE_NAMES = {"N": "north", "S": "south", "E": "east", "W": "west", "north": "north", "south": "south",
              "east": "east", "west": "west", "stay": "stay", "eat": "eat"}
SPOT2_NAMES = {"lebanese": 0, "mexican": 1, "empty": 2}
FIELDS = ("map", "spot2", "start", "moves")
OPTIONAL = ("judge",)
JUDGE_HINT = "write increasing times from 0 (the start) to the number of moves, e.g. judge 3 7"


def read_trucks(path: str | os.PathLike) -> list[FoodTruckScenario]:
    """The scenarios of a ``.trucks`` file."""
    return parse_trucks(read_text(path, "food-truck scenarios file"), str(path))


def parse_trucks(text: str, path: str = "<trucks>") -> list[FoodTruckScenario]:
    blocks: list[tuple[str, dict]] = []
    for match in re.finditer(r"^[ \t]*([^\s#][^#\n]*)", text, flags=re.M):
        line = match.group(1).rstrip()
        word, _, rest = line.partition(" ")
        where = (match.start(1), match.start(1) + len(line))
        if word == "scenario":
            blocks.append((rest.strip() or str(len(blocks) + 1), {"@": where}))
        elif word in FIELDS + OPTIONAL:
            if not blocks:
                raise _error(text, path, where, f"'{word}' before any 'scenario' line",
                             "start each scenario with: scenario NAME")
            if word in blocks[-1][1]:
                raise _error(text, path, where, f"'{word}' given twice in scenario {blocks[-1][0]}")
            blocks[-1][1][word] = (rest.strip(), (match.start(1) + len(word) + 1, where[1]))
        else:
            raise _error(text, path, where, f"unknown line '{word}'",
                         f"lines are: scenario, {', '.join(FIELDS + OPTIONAL)} (and # comments)")
    if not blocks:
        raise _error(text, path, (0, 0), "no scenario in the file", "start with: scenario NAME")
    return [_scenario(text, path, i + 1, name, fields) for i, (name, fields) in enumerate(blocks)]


def _scenario(text: str, path: str, number: int, name: str, fields: dict) -> FoodTruckScenario:
    for field in FIELDS:
        if field not in fields:
            raise _error(text, path, fields["@"], f"scenario {name} has no '{field}' line",
                         "each scenario needs map, spot2, start and moves")
    value, where = fields["map"]
    if value not in ("1", "2", "3"):
        raise _error(text, path, where, f"map {value!r} is not 1, 2 or 3")
    world_map = FoodTruckMap(int(value))
    value, where = fields["spot2"]
    if value not in SPOT2_NAMES:
        raise _error(text, path, where, f"spot2 {value!r} is not one of {', '.join(SPOT2_NAMES)}")
    world = SPOT2_NAMES[value]
    value, where = fields["start"]
    found = re.fullmatch(r"(\d+)[ ,]+(\d+)", value)
    if not found or not world_map.is_open(int(found.group(1)), int(found.group(2))):
        raise _error(text, path, where, f"start {value!r} is not a free cell of map {world_map.number}",
                     "write the cell as x y, with 0 <= x <= 14, 0 <= y <= 4, off the wall")
    cells = [(int(found.group(1)), int(found.group(2)))]
    finished = False
    value, where = fields["moves"]
    for token in re.finditer(r"\S+", value):
        at = (where[0] + token.start(), where[0] + token.end())
        move = MOVE_NAMES.get(token.group())
        if move is None:
            raise _error(text, path, at, f"unknown move {token.group()!r}",
                         "moves are N, S, E, W, stay and a final eat")
        if finished:
            raise _error(text, path, at, "a move after eating", "eat ends the scenario")
        x, y = cells[-1]
        if move == "eat":
            truck = truck_at(world, x, y)
            if truck is None:
                raise _error(text, path, at, f"no truck to eat at ({x}, {y}) with spot 2 "
                             f"{'empty' if SPOT2_CONTENT[world] is None else TRUCKS[SPOT2_CONTENT[world]]}")
            finished = True
            continue
        dx, dy = MOVES[move]
        if not world_map.is_open(x + dx, y + dy):
            raise _error(text, path, at, f"{token.group()} from ({x}, {y}) walks into a wall or off the map",
                         "a path only takes moves that can be made")
        cells.append((x + dx, y + dy))
    judgments = _judgments(text, path, fields, len(cells) - 1 + finished)
    return FoodTruckScenario(number, world_map.number, world, tuple(cells), finished, name=name,
                             judgments=judgments)


def _judgments(text: str, path: str, fields: dict, horizon: int) -> tuple[int, ...]:
    """The ``judge`` line's times, each 0..``horizon`` and increasing (none: ``()``)."""
    if "judge" not in fields:
        return ()
    value, where = fields["judge"]
    times: list[int] = []
    for token in re.finditer(r"\S+", value):
        at = (where[0] + token.start(), where[0] + token.end())
        if not token.group().isdigit() or int(token.group()) > horizon:
            raise _error(text, path, at, f"judgment point {token.group()!r} is not a time 0..{horizon} of "
                         "this path", JUDGE_HINT)
        if times and int(token.group()) <= times[-1]:
            raise _error(text, path, at, f"judgment point {token.group()} does not come after {times[-1]}",
                         JUDGE_HINT)
        times.append(int(token.group()))
    if not times:     # point at the word: the value's span starts past the line's end
        raise _error(text, path, (where[0] - len("judge "), where[0] - 1), "a judge line with no time", JUDGE_HINT)
    return tuple(times)


MOVE_LETTERS = {(0, 1): "N", (0, -1): "S", (1, 0): "E", (-1, 0): "W", (0, 0): "stay"}
SPOT2_WORDS = {v: k for k, v in SPOT2_NAMES.items()}


def format_trucks(scenarios) -> str:
    """The ``.trucks`` text of ``scenarios`` (what :func:`parse_trucks` reads back equal)."""
    blocks = []
    for s in scenarios:
        steps = [MOVE_LETTERS[(b[0] - a[0], b[1] - a[1])] for a, b in zip(s.cells, s.cells[1:])]
        moves = " ".join(steps + (["eat"] if s.finished else []))
        blocks.append(f"scenario {s.name or s.id}\nmap {s.map}\nspot2 {SPOT2_WORDS[s.world]}\n"
                      f"start {s.cells[0][0]} {s.cells[0][1]}\n" + (f"moves {moves}\n" if moves else "moves\n")
                      + (f"judge {' '.join(map(str, s.judgments))}\n" if s.judgments else ""))
    return "\n".join(blocks)


def _error(text: str, path: str, where: tuple[int, int], message: str, hint: str | None = None) -> ScenarioError:
    return ScenarioError(message, hint=hint, span=Span.of(text, *where), source=text, path=path)
