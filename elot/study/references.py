"""What a study runs on: scenarios by reference (a dataset plan, a file, an example name),
loadable in any worker, and the statements scored on them (the dataset's statements files
with their annotated factors, the command line's, a scenario's own)."""

from __future__ import annotations

import dataclasses
import glob as globmod
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from elot.errors import ElotError, Span, csv_rows, read_text
from elot.judging import Statement, compile_statements, resolve_statements
from elot.output import count
from elot.settings import CURRENT, MODES
from elot.study.params import StudyError, read_input
from elot.study.tables import FACTORS

#: Dataset experiments: ``exp2`` is both of its conditions.
EXPERIMENTS = ("exp1", "exp2_current", "exp2_initial")
EXPERIMENT_ALIASES = {"exp2": ("exp2_current", "exp2_initial"), "all": EXPERIMENTS}


def item(statement_id: str, text: str, mode: str = CURRENT, factors: tuple[tuple[str, str], ...] = ()) -> Statement:
    """A statement to score in a study (the one statement record, :class:`elot.judging.Statement`):
    its id, text as written, mode, and known factors."""
    return Statement(text, mode, id=statement_id, factors=factors)


@dataclass(frozen=True)
class ScenarioRef:
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
    def of_path(cls, path: str) -> "ScenarioRef":
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
def _load_ref(ref: ScenarioRef):
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan
    from elot.domains.doors_keys_gems.load import load_scenario
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    if ref.text is not None:
        return parse_scn_text(ref.text, ref.name)
    if ref.plan_id is None:
        return load_scenario(ref.name)
    scenario = load_dataset_plan(ref.root, ref.plan_id, exp=ref.exp)
    return dataclasses.replace(scenario, statements=())  # the study's own statements: dataset_items


def dataset_items(ref: ScenarioRef) -> tuple[Statement, ...]:
    """A dataset plan's statements in its experiment, with their annotated factors (an
    exp2 plan's: its statements file read as every statements file is, ids by line)."""
    from elot.domains.doors_keys_gems.dataset import dataset_root, read_statements

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


def input_files(refs: Iterable[ScenarioRef]) -> list[str]:
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
    if not path.is_file():
        return []
    return csv_rows(read_input(path, "dataset statements"), path=str(path), what="dataset statements file")


def _factors(row: dict) -> tuple[tuple[str, str], ...]:
    return tuple((f, row[f].strip()) for f in FACTORS if row.get(f) is not None)


def expand_scenarios(specs: Sequence[str], *, root: str | None = None,
                     exps: Sequence[str] = ("exp1", "exp2")) -> list[ScenarioRef]:
    """Scenario arguments → references: ``all`` (every plan of each experiment in
    ``exps``), dataset plan ids (``1_1``, ``exp1/1_1``), ``.scn`` files or globs, and
    example names."""
    from elot.domains.doors_keys_gems.dataset import PLAN_ID, dataset_root
    from elot.domains.doors_keys_gems.examples import list_examples

    experiments = [e for name in exps for e in EXPERIMENT_ALIASES.get(name, (name,))]
    for exp in experiments:
        if exp not in EXPERIMENTS:
            raise StudyError(f"unknown dataset experiment {exp!r}",
                             hint=f"use {', '.join((*EXPERIMENTS, 'exp2'))}")
    refs: list[ScenarioRef] = []
    for spec in specs:
        if spec == "all":
            base = dataset_root(root)
            for exp in experiments:
                ids = sorted(p.stem for p in (base / "plans" / exp).glob("*.pddl") if p.stem != "demo")
                refs += [ScenarioRef(f"{exp}/{i}", exp, i, str(base)) for i in ids]
            continue
        match = PLAN_ID.match(spec)
        if match and not Path(spec).exists() and spec not in list_examples():
            base = dataset_root(root)
            for exp in ([match["exp"]] if match["exp"] else experiments):
                if (base / "plans" / exp / f"{match['id']}.pddl").is_file():
                    refs.append(ScenarioRef(f"{exp}/{match['id']}", exp, match["id"], str(base)))
            continue
        if any(c in spec for c in "*?[") and not Path(spec).exists():
            paths = sorted(globmod.glob(spec))
            if not paths:
                raise StudyError(f"no file matches {spec!r}", hint="check the pattern")
            refs += [ScenarioRef.of_path(p) for p in paths]
            continue
        refs.append(ScenarioRef.of_path(spec))
    if not refs:
        raise StudyError("no scenarios to run", hint="give .scn files, plan ids, or all (with the dataset)")
    for ref in dict.fromkeys(refs):
        ref.load()  # bad input is reported now, not in a worker
    return list(dict.fromkeys(refs))


def given_items(statements: Sequence[str] = (), files: Sequence[str] = (), mode: str = "current") -> tuple[Statement, ...]:
    """Statements given on the command line (``s1``, ``s2``, ...) and in statements files
    (``FILE:LINE``, each keeping where it was written, so that an error points there)."""
    from elot.domains.doors_keys_gems.dataset import read_statements

    items = [item(f"s{n}", text, mode) for n, text in enumerate(statements, 1)]
    for path in files:
        items += [dataclasses.replace(s, id=f"{Path(path).name}:{s.line}") for s in read_statements(path, mode)]
    return tuple(items)


def scenario_items(ref: ScenarioRef) -> tuple[Statement, ...]:
    """The scenario's own statements."""
    if ref.plan_id is not None:
        return dataset_items(ref)
    return tuple(item(str(s.line) if s.line is not None else f"s{n}", s.text, s.mode)
                 for n, s in enumerate(ref.load().statements, 1))


@lru_cache(maxsize=4096)
def resolve(ref: ScenarioRef, text: str, mode: str) -> tuple[str, str]:
    """A statement's formula and mode (English is translated); raises ElotError."""
    from elot.translate import resolve_statement

    formula, mode, _ = resolve_statement(text, mode=mode, scenario=ref.load())
    return formula, mode


def checked(ref: ScenarioRef, scenario, statements: Sequence[Statement]) -> list[Statement]:
    """``statements`` resolved (English translated) and compiled against the scenario, as
    ``elot run`` does: each with its ``formula``, or its ``error``."""
    resolved = resolve_statements(statements, lambda text, mode: (resolve(ref, text, mode)[0], mode))
    return compile_statements(resolved, scenario.signature())


#: A statements file's line that starts with a word and a colon: a mode, or a mistaken one.
_PREFIX = re.compile(r"([A-Za-z][\w-]*)\s*:\s*\S")


def located(st: Statement, n: int) -> ElotError:
    """A given statement's error, pointed at its line in its statements file (or at
    ``<statement N>``, the N-th given); a line whose failure starts with an unknown mode
    (``sideways: ...``) is that error instead."""
    prefix = _PREFIX.match(st.text) if st.path is not None else None
    if prefix and prefix[1] not in MODES and st.source is not None and st.offset is not None:
        return StudyError(f"unknown mode {prefix[1]!r} before the statement", path=st.path, source=st.source,
                          span=Span.of(st.source, st.offset, st.offset + len(prefix[1])),
                          hint=f"a line may start with {' or '.join(m + ':' for m in MODES)} (else --initial "
                               "decides the mode)")
    error = st.locate(st.error) if st.path is not None else st.error
    return error.located(source=st.formula if st.formula is not None else st.text,
                         path=st.origin or f"<statement {n + 1}>")


class StatementErrors(StudyError):
    """Given statements that cannot be used: each one's own error (a syntax, type or
    translation error at its place, with the scenarios it fails in), then one line that
    sums them up, saying what the command would have done (``use``) and did not (``kept``)."""

    def __init__(self, errors: Sequence[ElotError], failed: int, total: int, *, use: str = "used",
                 kept: str = "nothing was done") -> None:
        which = "the statement given" if total == 1 else f"{failed} of the {total} statements given"
        super().__init__(f"{which} cannot be {use}; {kept}",
                         hint="fix the statements above (elot run SCENARIO -s STATEMENT shows the same errors)")
        self.errors = tuple(errors)

    def render(self) -> str:
        return "\n".join([e.render() for e in self.errors] + [super().render()])


def check_given(refs: Sequence[ScenarioRef], given: Sequence[Statement], *, use: str = "used",
                kept: str = "nothing was done") -> dict[str, list[Statement]]:
    """Each scenario's ``given`` statements, :func:`checked` against it (by ``ref.name``);
    if any fails in any scenario, :class:`StatementErrors` with every failure, once, naming
    the scenarios it fails in: nothing is done with a statement ``elot run`` would refuse."""
    out: dict[str, list[Statement]] = {}
    failed: dict[tuple[int, str], tuple[ElotError, list[str]]] = {}
    for ref in refs:
        out[ref.name] = statements = checked(ref, ref.load(), given)
        for n, st in enumerate(statements):
            if st.error is not None:
                error = located(st, n)
                failed.setdefault((n, error.render()), (error, []))[1].append(ref.name)
    if failed:
        errors = []
        for error, names in failed.values():
            if len(refs) > 1:
                shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                error.notes = (*error.notes, f"in {count(len(names), 'scenario')}: {shown}")
            errors.append(error)
        raise StatementErrors(errors, len({n for n, _ in failed}), len(given), use=use, kept=kept)
    return out
