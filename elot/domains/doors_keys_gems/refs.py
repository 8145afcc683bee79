"""The LaBToM dataset's plans and the gridworld's scenario files as a study reads them:
:class:`PlanRef`, a scenario by reference that any worker loads (a dataset plan of an
experiment, a ``.scn`` file travelling with its text, a PDDL file, an example name), the
plans a scenario argument names (``all``, plan ids, globs, files; :func:`expand`), each
plan's statements in its experiment with their annotated factors (:func:`plan_items`), and
the files a study over them reads (:func:`input_files`)."""

from __future__ import annotations

import dataclasses
import glob as globmod
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from elot.errors import ScenarioError, csv_rows, read_text
from elot.statements import Statement
from elot.settings import MODES

#: The annotated factors of the dataset's statements (a study table has a column for each).
FACTORS = ("possibility", "probability", "compositional", "knowledge")

#: Dataset experiments: ``exp2`` is both of its conditions.
EXPERIMENTS = ("exp1", "exp2_current", "exp2_initial")
EXPERIMENT_ALIASES = {"exp2": ("exp2_current", "exp2_initial"), "all": EXPERIMENTS}


@dataclass(frozen=True)
class PlanRef:
    """A scenario by reference, loadable in any worker: a dataset plan (``exp`` and plan
    id, under ``root``), a file path, or an example name. ``name`` is the table's
    ``scenario`` column. A ``.scn`` file travels with its ``text``, so that workers on
    other machines need no copy of it (dataset plans and PDDL files are read where the
    task runs)."""

    name: str
    exp: str | None = None
    plan_id: str | None = None
    root: str | None = None
    text: str | None = None

    @classmethod
    def of_path(cls, path: str) -> "PlanRef":
        if path.endswith(".scn") and Path(path).is_file():
            return cls(path, text=read_text(path, "scenario"))
        return cls(path)

    def load(self):
        return _load_ref(self)

    @property
    def map(self) -> str:
        if self.plan_id is not None:
            return self.plan_id.split("_")[0]
        return self.load().name


@lru_cache(maxsize=128)
def _load_ref(ref: PlanRef):
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan
    from elot.domains.doors_keys_gems.load import load_scenario
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    if ref.text is not None:
        return parse_scn_text(ref.text, ref.name)
    if ref.plan_id is None:
        return load_scenario(ref.name)
    scenario = load_dataset_plan(ref.root, ref.plan_id, exp=ref.exp)
    return dataclasses.replace(scenario, statements=())  # the study's own statements: dataset_items


def item(statement_id: str, text: str, mode: str, factors: tuple[tuple[str, str], ...] = ()) -> Statement:
    return Statement(text, mode, id=statement_id, factors=factors)


def dataset_items(ref: PlanRef) -> tuple[Statement, ...]:
    """A dataset plan's statements in its experiment, with their annotated factors (an
    exp2 plan's: its statements file read as every statements file is, ids by line)."""
    from elot.domains.doors_keys_gems.dataset import dataset_root
    from elot.statements import read_statements

    root = dataset_root(ref.root)
    items: list[Statement] = []
    if ref.exp == "exp1":
        for mode in MODES:
            rows = [r for r in _read_csv(_exp1_statements(root, mode)) if r.get("plan_id") == ref.plan_id]
            for n, row in enumerate(rows, 1):
                items.append(item(f"{mode}-{n}", row["statement"].strip(), mode, _factors(row)))
        return tuple(items)
    mode = "initial" if ref.exp == "exp2_initial" else "current"
    path, annotations = _exp2_statements(root, mode, ref.plan_id)
    notes = {(r.get("plan_id"), r.get("statement_id")): r for r in _read_csv(annotations)}
    if path.is_file():
        for s in read_statements(path, mode):
            items.append(item(str(s.line), s.text, s.mode, _factors(notes.get((ref.plan_id, str(s.line)), {}))))
    return tuple(items)


def _exp1_statements(root: Path, mode: str) -> Path:
    return root / "statements" / "exp1" / f"exp1_{mode}.csv"


def _exp2_statements(root: Path, mode: str, plan_id: str) -> tuple[Path, Path]:
    """An exp2 plan's statements file and the experiment's annotations file."""
    return (root / "statements" / f"exp2_{mode}" / f"{plan_id}.txt",
            root / "statements" / f"exp2_{mode}_annotations.csv")


def input_files(refs: Iterable[PlanRef]) -> list[str]:
    """The files a batch over ``refs`` reads: scenario files, and each dataset plan's
    statements and annotations (never to be written over by the batch's output)."""
    from elot.domains.doors_keys_gems.dataset import dataset_root

    out: list[str] = []
    for ref in refs:
        if ref.plan_id is None:
            out.append(ref.name)
        elif ref.exp == "exp1":
            out += [str(_exp1_statements(dataset_root(ref.root), mode)) for mode in MODES]
        else:
            mode = "initial" if ref.exp == "exp2_initial" else "current"
            out += [str(p) for p in _exp2_statements(dataset_root(ref.root), mode, ref.plan_id)]
    return list(dict.fromkeys(out))


def _read_csv(path: Path) -> list[dict]:
    """The rows of a dataset statements file (none if it is not there). Each plan of an
    experiment reads the same file: it is parsed once while it stays the same (its size and
    modification time), and each caller gets its own list of its own dicts."""
    try:
        info = path.stat()
    except OSError:
        info = None
    if info is None or not path.is_file():
        return []
    return [dict(row) for row in _parsed_csv(str(path), info.st_mtime_ns, info.st_size)]


@lru_cache(maxsize=16)
def _parsed_csv(path: str, mtime_ns: int, size: int) -> tuple[dict, ...]:
    return tuple(csv_rows(read_text(path, "dataset statements"), path=path, what="dataset statements file"))


def _factors(row: dict) -> tuple[tuple[str, str], ...]:
    return tuple((f, row[f].strip()) for f in FACTORS if row.get(f) is not None)


def expand_scenarios(specs: Sequence[str], *, root: str | None = None,
                     exps: Sequence[str] = ("exp1", "exp2")) -> list[PlanRef]:
    """Scenario arguments → references: ``all`` (every plan of each experiment in
    ``exps``), dataset plan ids (``1_1``, ``exp1/1_1``), ``.scn`` files or globs, and
    example names."""
    from elot.domains.doors_keys_gems.dataset import PLAN_ID, dataset_root
    from elot.domains.doors_keys_gems.examples import list_examples

    experiments = [e for name in exps for e in EXPERIMENT_ALIASES.get(name, (name,))]
    for exp in experiments:
        if exp not in EXPERIMENTS:
            raise ScenarioError(f"unknown dataset experiment {exp!r}",
                             hint=f"use {', '.join((*EXPERIMENTS, 'exp2'))}")
    refs: list[PlanRef] = []
    for spec in specs:
        if spec == "all":
            base = dataset_root(root)
            for exp in experiments:
                ids = sorted(p.stem for p in (base / "plans" / exp).glob("*.pddl") if p.stem != "demo")
                refs += [PlanRef(f"{exp}/{i}", exp, i, str(base)) for i in ids]
            continue
        match = PLAN_ID.match(spec)
        if match and not Path(spec).exists() and spec not in list_examples():
            base = dataset_root(root)
            for exp in ([match["exp"]] if match["exp"] else experiments):
                if (base / "plans" / exp / f"{match['id']}.pddl").is_file():
                    refs.append(PlanRef(f"{exp}/{match['id']}", exp, match["id"], str(base)))
            continue
        if any(c in spec for c in "*?[") and not Path(spec).exists():
            paths = sorted(globmod.glob(spec))
            if not paths:
                raise ScenarioError(f"no file matches {spec!r}", hint="check the pattern")
            refs += [PlanRef.of_path(p) for p in paths]
            continue
        refs.append(PlanRef.of_path(spec))
    if not refs:
        raise ScenarioError("no scenarios to run", hint="give .scn files, plan ids, or all (with the dataset)")
    for ref in dict.fromkeys(refs):
        ref.load()  # bad input is reported now, not in a worker
    return list(dict.fromkeys(refs))


def plan_items(ref: PlanRef) -> tuple[Statement, ...]:
    """The scenario's own statements."""
    if ref.plan_id is not None:
        return dataset_items(ref)
    return tuple(item(str(s.line) if s.line is not None else f"s{n}", s.text, s.mode)
                 for n, s in enumerate(ref.load().statements, 1))


