"""Food-truck scenarios: read from the experiment's ``scenarios.json`` (Baker et al. 2017)
and checked, each into a :class:`FoodTruckScenario` the engine can run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from elot.domains.foodtrucks.world import (ACTION_CODES, FINISHED, HEIGHT, WIDTH, FoodTruckMap,
                                           cell_index)
from elot.errors import ScenarioError, load_json, read_text

#: The experiment's files, under ``--data``.
SCENARIOS_FILE = "scenarios.json"


@dataclass(frozen=True)
class FoodTruckScenario:
    """One scenario: the map (1..3), the true world (0-based: 0 L at spot 2, 1 M, 2 empty),
    the cells walked, and whether the path ends by eating (then the engine's path ends in
    the absorbing ``finished`` state), and the times it is judged at (``()``: its end)."""

    id: int
    map: int
    world: int
    cells: tuple[tuple[int, int], ...]
    finished: bool
    excluded: bool = False
    split: str = ""
    group: int = 0
    name: str = ""
    judgments: tuple[int, ...] = ()

    @property
    def states(self) -> tuple[int, ...]:
        """The path as state indices of the map's tables."""
        path = tuple(cell_index(x, y) for x, y in self.cells)
        return path + (FINISHED,) if self.finished else path


def data_root(data: str | os.PathLike | None = None) -> Path:
    """Where the experiment's files are: ``data``, else ``$ELOT_BAKER2017_DATA`` is the
    caller's to pass; else ``shared/baker2017`` beside the working directory or above it."""
    if data is not None:
        root = Path(data)
    else:
        here = Path.cwd().resolve()
        root = next((p / "shared" / "baker2017" for p in (here, *here.parents)
                     if (p / "shared" / "baker2017").is_dir()), here / ".." / "shared" / "baker2017")
    if not (root / SCENARIOS_FILE).is_file():
        raise ScenarioError(f"no {SCENARIOS_FILE} in {root}",
                            hint="pass --data DIR (the folder of the food-truck experiment's files) "
                            "or set ELOT_BAKER2017_DATA")
    return root


def _fail(path: str, where: str, message: str) -> ScenarioError:
    return ScenarioError(f"{path}: {where}: {message}",
                         hint="each scenario needs id, map (1-3), true_world (1-3), path (cells "
                         "[x, y]) and finished (0/1)")


def read_scenarios(path: str | os.PathLike) -> list[FoodTruckScenario]:
    """The scenarios of a ``scenarios.json`` file, checked: walkable cells, unit steps."""
    name = str(path)
    data = load_json(read_text(path, "scenarios file"), path=name,
                     hint="a scenarios.json file of the food-truck experiment")
    items = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise _fail(name, "top level", "expected an object with a non-empty list 'scenarios'")
    return [scenario_from(item, name, i) for i, item in enumerate(items)]


def scenario_from(item: object, name: str, i: int) -> FoodTruckScenario:
    where = f"scenario {i + 1}"
    if not isinstance(item, dict):
        raise _fail(name, where, "not an object")
    where = f"scenario {item.get('id', i + 1)}"
    try:
        sid, map_number, world = int(item["id"]), int(item["map"]), int(item["true_world"])
        cells = tuple((int(x), int(y)) for x, y in item["path"])
        finished = bool(int(item.get("finished", 0)))
    except (KeyError, TypeError, ValueError) as error:
        raise _fail(name, where, f"missing or malformed field ({error})") from None
    if map_number not in (1, 2, 3) or world not in (1, 2, 3):
        raise _fail(name, where, f"map {map_number} / true_world {world} must be 1, 2 or 3")
    if not cells:
        raise _fail(name, where, "the path is empty")
    layout = FoodTruckMap(map_number)
    for step, (x, y) in enumerate(cells):
        if not (0 <= x < WIDTH and 0 <= y < HEIGHT) or not layout.is_open(x, y):
            raise _fail(name, where, f"cell {step + 1} ({x}, {y}) is off the grid or a wall of map {map_number}")
        if step and abs(x - cells[step - 1][0]) + abs(y - cells[step - 1][1]) > 1:
            raise _fail(name, where, f"step {step} ({cells[step - 1]} to {(x, y)}) is not a unit move or a stay")
    actions = item.get("actions")
    if actions is not None and any(a not in ACTION_CODES for a in actions):
        raise _fail(name, where, f"unknown action in {actions}")
    return FoodTruckScenario(sid, map_number, world - 1, cells, finished,
                             bool(int(item.get("excluded", 0))), str(item.get("split", "")),
                             int(item.get("group", 0) or 0))
