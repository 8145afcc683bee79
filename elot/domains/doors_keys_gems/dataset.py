"""The LaBToM dataset: problems, plans and statements files, read into a
:class:`~elot.domains.doors_keys_gems.scenario.Scenario`.

* :func:`dataset_root` finds the dataset directory;
* :func:`load_dataset_plan` loads a plan by id (``"1_1"``) with its problem and statements;
* :func:`load_dataset_file` loads a problem or a plan ``.pddl`` file;
* :func:`load_dataset_scenario` takes a problem file, a plan file and statements files;

The problem and plan files are parsed by :mod:`elot.domains.doors_keys_gems.pddl`; the scenario is checked
as a ``.scn`` one is (:mod:`elot.domains.doors_keys_gems.scenario`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from elot.domains.doors_keys_gems import pddl
from elot.domains.doors_keys_gems.problem_world import world_from_problem
from elot.domains.doors_keys_gems.scenario import Scenario, check_gems_reachable, check_judgments, replay
from elot.statements import Statement, read_statements
from elot.domains.sexpr import line_span
from elot.domains.doors_keys_gems.world import Action
from elot.settings import MODES, Mode
from elot.errors import ScenarioError, read_text

#: A dataset plan id as commands take it: ``1_1``, ``demo``, or ``exp2_initial/1_1``
#: (``exp2_initial:1_1``) naming the experiment too.
PLAN_ID = re.compile(r"^(?:(?P<exp>exp\w+)[/:])?(?P<id>[A-Za-z0-9]+_[A-Za-z0-9]+|demo)$")


def _mode_of(path: Path) -> Mode:
    return "initial" if "initial" in path.parent.name or "initial" in path.name else "current"


def load_dataset_scenario(
    problem_path: str | Path,
    plan_path: str | Path | None = None,
    statements_paths: Sequence[str | Path | tuple[str | Path, Mode]] = (),
    *,
    name: str | None = None,
) -> Scenario:
    """A scenario from a dataset problem file, an optional plan file and statement files.

    A statement file's mode is ``initial`` when its directory or name says so, else
    ``current``; pass ``(path, mode)`` to say it explicitly. Judgment points are the
    plan's ``;`` markers, leaving out a marker at t = 0 or t = T when an interior one
    remains (the dataset's first and last markers are not judged); all markers stay in
    ``markers``. The true goal is the problem's ``(has agent gem)`` goal, else the last
    gem the plan picks up.
    """
    problem = pddl.read_problem(problem_path)
    layout, initial = world_from_problem(problem)
    ppath = str(problem_path)

    def problem_fail(message: str, gem: str, hint: str) -> ScenarioError:
        return ScenarioError(
            message, path=ppath, source=problem.source, span=line_span(problem.source, problem.lines.get(("xloc", gem))), hint=hint
        )

    check_gems_reachable(layout, initial.agent_pos, problem_fail)
    actions: tuple[Action, ...] = ()
    lines: tuple[int | None, ...] = ()
    markers: tuple[int, ...] = ()
    plan = None
    if plan_path is not None:
        plan = pddl.read_plan(plan_path)
        if plan.agent is not None and plan.agent != layout.agent:
            raise ScenarioError(
                f"the plan's agent is {plan.agent!r}, the problem's {layout.agent!r}",
                path=str(plan_path),
                source=plan.source,
                span=line_span(plan.source, plan.lines[0]),
                hint="plan and problem must come from the same puzzle",
            )
        actions, lines = plan.actions, plan.lines
        replay(
            initial, actions, [line_span(plan.source, l) for l in lines], path=str(plan_path), source=plan.source
        )
        markers = tuple(plan.judgments)

        def plan_fail(message: str, t: int, hint: str) -> ScenarioError:
            return ScenarioError(message, path=str(plan_path), hint=hint)

        markers = check_judgments(markers, len(actions), plan_fail)
    T = len(actions)
    interior = tuple(t for t in markers if 0 < t < T)
    judgments = interior if interior else markers
    statements: list[Statement] = []
    for item in statements_paths:
        spath, mode = (Path(item[0]), item[1]) if isinstance(item, tuple) else (Path(item), _mode_of(Path(item)))
        statements += read_statements(spath, mode)
    goal = problem.goal
    true_goal = None
    if isinstance(goal, tuple) and len(goal) == 3 and goal[0] == "has" and layout.is_gem(goal[2]):
        true_goal = goal[2]
    else:
        picked = [a[1] for a in actions if a[0] == "pickup" and layout.is_gem(a[1])]
        true_goal = picked[-1] if picked else None
    if name is None:
        stem = Path(problem_path).stem
        name = f"{Path(plan_path).parent.name}/{Path(plan_path).stem}" if plan_path is not None else stem
    return Scenario(
        name=name,
        layout=layout,
        initial=initial,
        actions=tuple(actions),
        judgments=judgments,
        statements=tuple(statements),
        true_goal=true_goal,
        path=str(plan_path if plan_path is not None else problem_path),
        description=f"LaBToM dataset problem {Path(problem_path).stem}",
        markers=markers,
        action_lines=tuple(lines),
    )


def dataset_root(root: str | Path | None = None) -> Path:
    """The LaBToM dataset directory: ``root`` if given (the command line's ``--labtom``,
    default ``$ELOT_LABTOM_DATA``), else a ``shared/labtom`` (or ``labtom``) directory
    beside the working directory or one of its parents. No environment variable is read
    here."""
    if root is not None:
        candidates = [Path(root)]
    else:
        here = Path.cwd().resolve()
        candidates = [p / sub for p in (here, *here.parents) for sub in ("labtom", "shared/labtom")]
    for candidate in candidates:
        if (candidate / "domain.pddl").is_file():
            return candidate
    given = getattr(root, "origin", "--labtom") if root is not None else None
    shown = candidates if len(candidates) <= 8 else [*candidates[:6], "...", *candidates[-2:]]
    raise ScenarioError(
        "LaBToM dataset not found: no domain.pddl " + (f"in {candidates[0]} (from {given})" if given else
                                                         f"in any of the {len(candidates)} places searched"),
        notes=() if given else tuple(f"searched {place}" for place in shown),
        hint="point elot at the dataset folder (the one holding domain.pddl, problems/, plans/): "
             "--labtom DIR or export ELOT_LABTOM_DATA=DIR on the command line; in Python, give the folder "
             "(root=...)",
    )


def load_dataset_plan(root: str | Path | None, plan_id: str, exp: str = "exp2_current") -> Scenario:
    """Dataset plan ``plan_id`` (e.g. ``"1_1"``) of experiment ``exp`` with the statements
    of ``statements/exp2_current/<id>.txt`` (current) and ``exp2_initial/<id>.txt``
    (initial) when present."""
    base = dataset_root(root)
    problem = base / "problems" / f"{plan_id}.pddl"
    plan = base / "plans" / exp / f"{plan_id}.pddl"
    for path, what in ((plan, "plan"), (problem, "problem")):
        if not path.is_file():
            known = sorted(p.stem for p in (base / "plans" / exp).glob("*.pddl")) if what == "plan" else []
            raise ScenarioError(
                f"dataset {what} file not found: {path}",
                path=str(path),
                hint=f"plan ids of {exp}: {', '.join(known)}" if known else "check the plan id and experiment",
            )
    statements: list[tuple[Path, Mode]] = []
    for mode in MODES:
        spath = base / "statements" / f"exp2_{mode}" / f"{plan_id}.txt"
        if spath.is_file():
            statements.append((spath, mode))  # type: ignore[arg-type]
    return load_dataset_scenario(problem, plan, statements, name=f"{exp}/{plan_id}")


def load_dataset_file(path: str | Path, plan: str | Path | None = None, exp: str = "exp2_current") -> Scenario:
    """A scenario from a dataset ``.pddl`` file: a problem (with ``plan``, a plan file or a
    plan id of ``exp``, and that plan's statements when it is the problem's own), or a plan
    (its problem is found in ``../../problems``)."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"file not found: {path}", path=str(path), hint="check the path")
    source = read_text(path, "PDDL")
    if "(define" in source.lower():
        return _load_problem(path, plan, exp)
    # no define: it must be a plan, and should read as one before its problem is sought
    try:
        read = pddl.parse_plan_text(source, str(path))
    except ScenarioError as error:
        error.notes = (*error.notes, "this .pddl file has no `(define`, so it was read as a plan")
        raise
    if not read.actions:
        raise ScenarioError(
            f"{path} is neither a PDDL problem (it has no `(define ...)`) nor a plan (it has no actions)",
            path=str(path), hint="a problem holds (define (problem NAME) ...); a plan one (action agent args) per line",
        )
    base = path.resolve().parent.parent.parent
    return _load_problem(base / "problems" / f"{path.stem}.pddl", path, path.parent.name)


def _load_problem(problem: Path, plan: str | Path | None, exp: str) -> Scenario:
    if plan is None:
        return load_dataset_scenario(problem)
    plan_path = Path(plan)
    base = problem.resolve().parent.parent
    if plan_path.suffix != ".pddl" and not plan_path.is_file():
        plan_path = base / "plans" / exp / f"{plan}.pddl"
    statements = []
    for mode in MODES:
        spath = base / "statements" / f"exp2_{mode}" / f"{plan_path.stem}.txt"
        if spath.is_file() and plan_path.stem == problem.stem:
            statements.append((spath, mode))
    return load_dataset_scenario(problem, plan_path, statements)
