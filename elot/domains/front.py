"""What the command line needs of a domain beyond the engine's protocol: how a user names a
scenario, the models (``--model``) it offers, the ELoT signature with its English, and the
outputs a run prints. :class:`Front` gives every domain a generic answer; food trucks have
their own (:class:`FoodTrucksFront`).

**Scenarios of a domain.** A domain read from a file may define

* ``read_case(path)`` — a :class:`elot.engine.Case` (or a list of them) from a file of its own
  format, and/or
* ``cases()`` — a mapping of names to cases;

otherwise (and always) a JSON file works: ``{"layout": ..., "world": ..., "path": [...]}``,
with the world and the path's states by their names in the domain's tables (or indices),
``"world": null`` when the observer does not know the true world, and an optional
``"name"`` and ``"judgments"`` (the times judged; default: the path's end). A list of such
objects holds several; ``FILE:NAME`` (or ``FILE:N``, from 1) picks one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from elot.engine import Case, EngineConfig
from elot.engine.tables.protocol import DomainError, ask, check_tables
from elot.errors import ElotError, ScenarioError, load_json, read_text

#: The models every domain offers (``--model``), as engine settings; ``full`` is the first.
GENERIC_VARIANTS = {
    "btom": EngineConfig(),
    "true-belief": EngineConfig(true_belief=True),
    "no-cost": EngineConfig(costs=False),
}
#: The gridworld's name of its full model, read as a domain's first model.
FULL = "full"


@dataclass(frozen=True)
class DomainScenario:
    """One observed path of a domain, ready to run: its ``case`` (layout, states, true
    world), a ``name``, the times judged (default: the path's end) and the domain's own
    scenario value (``detail``), if any."""

    name: str
    case: Case
    judgments: tuple[int, ...] = ()
    detail: Any = field(default=None, compare=False)
    ref: str = ""      # what reads this scenario back (a batch table's scenario column)

    @property
    def horizon(self) -> int:
        """The last time step (the path has ``horizon + 1`` states)."""
        return len(self.case.path) - 1

    @property
    def judged(self) -> tuple[int, ...]:
        return self.judgments or (self.horizon,)


class Front:
    """The command line's view of a domain (generic: any object implementing the protocol)."""

    def __init__(self, domain: Any, origin: str = ""):
        self.domain = domain
        self.origin = origin or str(getattr(domain, "name", type(domain).__name__))

    @property
    def name(self) -> str:
        return str(getattr(self.domain, "name", type(self.domain).__name__))

    # -- models ----------------------------------------------------------------------------

    def variants(self) -> dict[str, EngineConfig]:
        """The models ``--model`` may name: btom, true-belief (the agent knows the true
        world) and no-cost (every action free)."""
        return dict(GENERIC_VARIANTS)

    def config(self, model: str | None, **changes) -> EngineConfig:
        """The engine config of ``model`` (None or ``full``: the domain's first) with
        ``changes`` (beta, planner, ...: None values are left as the model has them)."""
        variants = self.variants()
        name = next(iter(variants)) if model in (None, FULL) else model
        if name not in variants:
            raise ElotError(f"the {self.name} domain has no model {model!r}",
                            hint=f"choose one of {', '.join(variants)} (full, the gridworld's name, means "
                                 f"{next(iter(variants))})")
        return replace(variants[name], **{k: v for k, v in changes.items() if v is not None})

    def model_name(self, model: str | None) -> str:
        variants = self.variants()
        return next(iter(variants)) if model in (None, FULL) else str(model)

    # -- language --------------------------------------------------------------------------

    def signature(self):
        return ask(self.domain, "signature")

    # -- scenarios -------------------------------------------------------------------------

    def scenario(self, spec: str | None, data: str | None = None) -> DomainScenario:
        """The scenario ``spec`` names (see the module docstring)."""
        if spec is None:
            raise ScenarioError(f"which scenario of the {self.name} domain?",
                                hint="give a scenario: a JSON case file (docs/domains.md)"
                                     + (", or one of " + ", ".join(self._case_names()) if self._case_names() else ""))
        path, pick = _split_pick(spec)
        if not Path(path).is_file():
            named = self._named_case(spec)
            if named is not None:
                return named
            raise ScenarioError(f"no scenario {spec!r} for the {self.name} domain: no such file"
                                + (" or case name" if self._case_names() else ""),
                                hint="give a JSON case file (docs/domains.md)"
                                     + (f" or one of {', '.join(self._case_names())}" if self._case_names() else ""))
        if callable(getattr(self.domain, "read_case", None)) and not path.endswith(".json"):
            found = ask(self.domain, "read_case", path)
            cases = list(found) if isinstance(found, (list, tuple)) else [found]
            checked = [self._checked(c, f"{self.name}.read_case({path})") for c in cases]
            return _pick_one(self._with_refs(checked, path), pick, path)
        return _pick_one(self._json_cases(path), pick, path)

    def _with_refs(self, scenarios: list[DomainScenario], path: str) -> list[DomainScenario]:
        if len(scenarios) == 1:
            return [replace(scenarios[0], ref=path)]
        return [replace(s, ref=f"{path}:{n + 1}") for n, s in enumerate(scenarios)]

    def expand(self, spec: str, data: str | None = None) -> list[DomainScenario]:
        """Every scenario ``spec`` names, for a batch: a file of several gives them all."""
        path, pick = _split_pick(spec)
        if pick is None and Path(path).is_file() and path.endswith(".json"):
            return self._json_cases(path)
        if pick is None and Path(path).is_file() and callable(getattr(self.domain, "read_case", None)):
            found = ask(self.domain, "read_case", path)
            cases = list(found) if isinstance(found, (list, tuple)) else [found]
            return self._with_refs([self._checked(c, f"{self.name}.read_case({path})") for c in cases], path)
        return [self.scenario(spec, data)]

    def _case_names(self) -> list[str]:
        if not callable(getattr(self.domain, "cases", None)):
            return []
        found = ask(self.domain, "cases")
        if not isinstance(found, dict):
            raise DomainError(f"{self.name}.cases: returned {type(found).__name__}, not a dict of name -> Case")
        return [str(k) for k in found]

    def _named_case(self, spec: str) -> DomainScenario | None:
        if not self._case_names():
            return None
        found = {str(k): v for k, v in ask(self.domain, "cases").items()}
        if spec not in found:
            return None
        return replace(self._checked(found[spec], f"{self.name}.cases()[{spec!r}]", spec), ref=spec)

    def _checked(self, case: Any, where: str, name: str | None = None) -> DomainScenario:
        if isinstance(case, DomainScenario):
            return case
        if not isinstance(case, Case):
            raise DomainError(f"{where}: returned {type(case).__name__}, not elot.engine.Case",
                              hint="return Case(layout, path, world, name) (docs/domains.md)")
        return DomainScenario(name or case.name or "case", case)

    def _json_cases(self, path: str) -> list[DomainScenario]:
        data = load_json(read_text(path, "case file"), path=path, hint=CASE_HINT)
        items = data if isinstance(data, list) else [data]
        return self._with_refs([self._json_case(item, path, n) for n, item in enumerate(items)], path)

    def _json_case(self, item: Any, path: str, n: int) -> DomainScenario:
        where = f"{path}: case {n + 1}"
        if not isinstance(item, dict):
            raise ScenarioError(f"{where}: not a JSON object", hint=CASE_HINT)
        missing = [k for k in ("layout", "path") if k not in item]
        if missing:
            raise ScenarioError(f"{where}: no {' or '.join(missing)}", hint=CASE_HINT)
        layout = item["layout"]
        if isinstance(layout, list):
            layout = tuple(layout)
        tables = check_tables(self.domain, ask(self.domain, "tables", layout))
        name = str(item.get("name") or f"case {n + 1}")
        world = item.get("world")
        if world is not None:
            world = _index(world, tables.worlds, f"{where}: world", "world")
        steps = item["path"]
        if not isinstance(steps, list) or not steps:
            raise ScenarioError(f"{where}: path must be a non-empty list of states", hint=CASE_HINT)
        states = tuple(_index(s, tables.states, f"{where}: path step {i}", "state") for i, s in enumerate(steps))
        judgments = item.get("judgments", [])
        if not (isinstance(judgments, list) and all(isinstance(t, int) and 0 <= t < len(states) for t in judgments)):
            raise ScenarioError(f"{where}: judgments must be a list of times 0..{len(states) - 1}", hint=CASE_HINT)
        return DomainScenario(name, Case(layout, states, world, name), tuple(judgments))

    # -- outputs ---------------------------------------------------------------------------

    def outputs(self, result) -> list[tuple[str, str, float]]:
        """``(judgment, option, value)`` rows a run prints and tabulates: the posterior mean
        utility of each object, and of the agent's initial belief in each world."""
        tables = check_tables(self.domain, ask(self.domain, "tables", result.layout))
        mean_u = result.mean_utility()
        mean_b = result.mean_belief()
        return ([("desire", o, float(v)) for o, v in zip(result.desire_space.objects, mean_u)]
                + [("belief", w, float(v)) for w, v in zip(tables.worlds, mean_b)])

    def describe_outputs(self) -> str:
        return "desire: the posterior mean utility of each object; belief: the agent's initial belief in each world"

    def step_labels(self, scenario: DomainScenario) -> list[str]:
        """What happened at each step t = 1..T: the actions that take the path's state at
        t - 1 to its state at t (in the true world, or any world when it is unknown)."""
        case = scenario.case
        tables = check_tables(self.domain, ask(self.domain, "tables", case.layout))
        trans = np.asarray(tables.transitions)
        worlds = range(len(tables.worlds)) if case.world is None else [case.world]
        out = []
        for before, after in zip(case.path, case.path[1:]):
            acts = [tables.actions[a] for a in range(len(tables.actions))
                    if any(trans[w, before, a] == after for w in worlds)]
            out.append("/".join(acts[:2]) + ("/..." if len(acts) > 2 else "") if acts else "(no action leads here)")
        return out


CASE_HINT = ('a case file is JSON: {"layout": ..., "world": NAME or null, "path": [STATE, ...]} with the '
             "world and states named as in the domain's tables (docs/domains.md)")


def _index(value: Any, names: tuple[str, ...], where: str, what: str) -> int:
    if isinstance(value, bool):
        value = str(value)
    if isinstance(value, int):
        if 0 <= value < len(names):
            return value
        raise ScenarioError(f"{where}: {what} {value} is not one of 0..{len(names) - 1}", hint=CASE_HINT)
    if isinstance(value, str) and value in names:
        return names.index(value)
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    raise ScenarioError(f"{where}: no {what} {value!r} (the domain's {what}s are {shown})", hint=CASE_HINT)


def _split_pick(spec: str) -> tuple[str, str | None]:
    """``FILE:PICK`` -> (FILE, PICK) when FILE exists and PICK has no slash."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and tail and "/" not in tail and Path(head).is_file() and not Path(spec).is_file():
        return head, tail
    return spec, None


def _pick_one(scenarios: list[DomainScenario], pick: str | None, path: str) -> DomainScenario:
    if pick is None:
        if len(scenarios) == 1:
            return scenarios[0]
        raise ScenarioError(f"{path} holds {len(scenarios)} scenarios",
                            hint=f"pick one: {path}:NAME or {path}:N (1..{len(scenarios)}); names: "
                                 + ", ".join(s.name for s in scenarios[:8]))
    for s in scenarios:
        if s.name == pick:
            return s
    if pick.isdigit() and 1 <= int(pick) <= len(scenarios):
        return scenarios[int(pick) - 1]
    raise ScenarioError(f"{path} has no scenario {pick!r}",
                        hint=f"names: {', '.join(s.name for s in scenarios[:8])}; or a number 1..{len(scenarios)}")


# -- food trucks ---------------------------------------------------------------------------------


class FoodTrucksFront(Front):
    """Food trucks: scenarios by experiment id (``12``, ``foodtrucks:12``, from
    ``scenarios.json`` under ``data``), ``.trucks`` files, or a JSON file in the
    experiment's shape; the authors' models; desires K, L, M (1-7) and beliefs L, M, N."""

    PREFIX = "foodtrucks:"

    def variants(self) -> dict[str, EngineConfig]:
        from elot.domains.foodtrucks.model import VARIANTS

        return dict(VARIANTS)

    def signature(self):
        from elot.domains.foodtrucks.language import signature

        return signature().with_words(WORDS)

    def scenario(self, spec: str | None, data: str | None = None) -> DomainScenario:
        from elot.domains.foodtrucks.scenarios import data_root, read_scenarios
        from elot.domains.foodtrucks.trucksfile import read_trucks

        if spec is None:
            raise ScenarioError("which food-truck scenario?",
                                hint="give an experiment scenario's id (elot run 12 --domain foodtrucks, or "
                                     "foodtrucks:12) or a .trucks file")
        ref = spec[len(self.PREFIX):] if spec.lower().startswith(self.PREFIX) and not Path(spec).is_file() else spec
        path, pick = _split_pick(ref)
        if Path(path).is_file():
            if path.endswith(".json"):
                found = read_scenarios(path)
                return replace(self._one(found, pick, path), ref=ref)
            return replace(self._one(read_trucks(path), pick, path, by_name=True), ref=ref)
        if ref.isdigit():
            file = data_root(data) / "scenarios.json"
            return replace(self._one(read_scenarios(file), ref, str(file)), ref=ref)
        raise ScenarioError(f"no food-truck scenario {spec!r}: not a file, nor an experiment scenario's id",
                            hint="give a .trucks file, a scenarios.json-shaped file (FILE:ID), or an id of the "
                                 "experiment (1-78) as 12 or foodtrucks:12")

    def expand(self, spec: str, data: str | None = None) -> list[DomainScenario]:
        """Every scenario ``spec`` names, for a batch: ``all`` (the experiment's 78), or a
        file's scenarios (all of them, unless one is picked)."""
        from elot.domains.foodtrucks.scenarios import data_root, read_scenarios
        from elot.domains.foodtrucks.trucksfile import read_trucks

        ref = spec[len(self.PREFIX):] if spec.lower().startswith(self.PREFIX) and not Path(spec).is_file() else spec
        if ref == "all":
            file = data_root(data) / "scenarios.json"
            return [replace(self._one([s], None, str(file)), ref=str(s.id)) for s in read_scenarios(file)]
        path, pick = _split_pick(ref)
        if pick is None and Path(path).is_file():
            json_file = path.endswith(".json")
            found = read_scenarios(path) if json_file else read_trucks(path)
            return [replace(self._one([s], None, path),
                            ref=path if len(found) == 1 else f"{path}:{s.id if json_file else s.name}")
                    for s in found]
        return [self.scenario(spec, data)]

    def _one(self, found: list, pick: str | None, path: str, by_name: bool = False) -> DomainScenario:
        def made(s) -> DomainScenario:
            name = s.name or f"scenario {s.id}"
            return DomainScenario(name, Case(s.map, s.states, s.world, name), s.judgments, s)

        if pick is None:
            if len(found) == 1:
                return made(found[0])
            raise ScenarioError(f"{path} holds {len(found)} scenarios",
                                hint=f"pick one: {path}:NAME or {path}:N; names: "
                                     + ", ".join(s.name or str(s.id) for s in found[:8]))
        for s in found:
            if (by_name and s.name == pick) or (not by_name and pick.isdigit() and s.id == int(pick)):
                return made(s)
        if by_name and pick.isdigit() and 1 <= int(pick) <= len(found):
            return made(found[int(pick) - 1])
        ids = [str(s.id) for s in found]
        raise ScenarioError(f"{path} has no scenario {pick!r}",
                            hint=("names: " + ", ".join(s.name for s in found[:8])) if by_name
                            else f"the ids run {ids[0]}..{ids[-1]}")

    def outputs(self, result) -> list[tuple[str, str, float]]:
        from elot.domains.foodtrucks.model import BELIEF_OPTIONS, DESIRE_OPTIONS
        from elot.domains.foodtrucks.domain import levels

        desire = result.mean_utility(levels(result.desire_space.utilities))
        belief = result.mean_belief()
        return ([("desire", o, float(v)) for o, v in zip(DESIRE_OPTIONS, desire)]
                + [("belief", o, float(v)) for o, v in zip(BELIEF_OPTIONS, belief)])

    def describe_outputs(self) -> str:
        return ("desire K, L, M: how much the student likes the Korean, Lebanese and Mexican truck (1-7); "
                "belief L, M, N: its initial belief that spot 2 held the Lebanese truck, the Mexican one, nothing")


#: English for the food-truck signature (what the offline translator reads, and English output says).
WORDS = {
    "student": "the student",
    "korean": ["the Korean truck", "the Korean food truck"],
    "lebanese": ["the Lebanese truck", "the Lebanese food truck"],
    "mexican": ["the Mexican truck", "the Mexican food truck"],
    "at(_, spot1)": ["in view of the start", "near the start"],
    "at(_, spot2)": ["behind the building", "around the corner"],
}

def front_of(domain: Any, origin: str = "") -> Front:
    """The command line's view of ``domain``."""
    from elot.domains.foodtrucks.domain import FoodTrucks

    if isinstance(domain, FoodTrucks):
        return FoodTrucksFront(domain, origin)
    return Front(domain, origin)
