"""A PDDL domain's scenarios as elot reads them (its front's ``episode``): a problem, the
agent's observed actions, its judgment points and the candidate goals.

How a scenario is named (the front's ``--domain DOMAIN.pddl`` gives the domain):

* ``PROBLEM.pddl`` — a problem file; its actions are ``--plan PLAN`` (one ground action a
  line; a line holding only ``;`` is a judgment point after the actions above it, as
  LaBToM's plans mark them), else the data set's plan of that stimulus when the problem is
  one (``problems/scenario-C-S.pddl`` of a study folder), else none;
* ``PLAN`` — a plan file whose first lines name its problem: ``; problem: FILE.pddl``
  (relative to the plan's folder), and may name the candidate goal its agent pursued
  (``; goal: NAME``: the true goal), as ``elot plan`` writes them;
* ``C_S`` — a stimulus of the study folder (:mod:`elot.domains.pddl.dataset`: Alanqary et
  al. 2021's layout) that ``--data`` names, else the folder of the domain file when it
  is one; with its plan, judgment points and candidate goals; ``all`` and ``dev`` name
  every stimulus, and those of the dev split (C_1, C_3), for a batch.

**Candidate goals.** A study's stimulus has its own (``goals.json``, each a word and its
tower; else the gems ``(has gemN)`` of the problem). A problem elsewhere takes them from a
``goals.json`` in its folder or the one above (keyed by its file name without ``.pddl``),
else from its own ``:goal``: a goal that is one atom becomes one candidate per object of
its last object argument's type (``(has gem2)``: ``(has gem1)``, ``(has gem2)``,
``(has gem3)``); any other goal is the one candidate. The prior is uniform, but where a goal
of ``goals.json`` has a ``"prior"`` (a positive weight; 1 where left out) or the front's
``--goal-prior NAME=WEIGHT,...`` names it.

Everything is read and checked when the scenario is: a plan action that is no action of the
domain, or that is not applicable where the plan reaches it, is an error at its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from elot.domains.pddl import task as t
from elot.domains.pddl.agents import Tables
from elot.domains.pddl.dataset import Study, Stimulus, load_study
from elot.domains.pddl.errors import PddlError
from elot.domains.pddl.goals import Goal, GoalTask, goal_weight, weighted
from elot.domains.pddl.ground import ground
from elot.domains.pddl.language import PddlLanguage, signature_of
from elot.domains.pddl.read import PlanStep, parse_goal, parse_plan, parse_problem, plan_marks
from elot.domains.pddl.space import state_space
from elot.domains.pddl.words import words_of
from elot.errors import ScenarioError, load_json, read_text

#: A stimulus of a study folder: category and number (``1_3``).
STIMULUS = re.compile(r"\d+_\d+\Z")
#: A study's problem file of a stimulus (``scenario-1-3.pddl``).
STIMULUS_FILE = re.compile(r"scenario-(\d+)-(\d+)\Z")
#: How a plan file names its problem, and the goal its agent pursued (a candidate's name).
PROBLEM_LINE = re.compile(r"\s*;\s*problem:\s*(\S.*?)\s*\Z")
GOAL_LINE = re.compile(r"\s*;\s*goal:\s*(\S+)\s*\Z")


@dataclass(frozen=True, eq=False)
class Scene:
    """One scenario: its ``name``, ``problem``, observed ``steps`` (from ``plan``, a file,
    or none), candidate ``goals`` (each an object of the signature: ``language.goals``),
    whether they are named by words, its ``judgments`` (times t, 0 before any action), the
    grounded ``task`` with the ``tables`` the models read, and the study ``stimulus`` it is
    (None: a problem of its own)."""

    name: str
    problem: t.Problem
    steps: tuple[PlanStep, ...]
    goals: tuple[Goal, ...]
    judgments: tuple[int, ...]
    task: GoalTask
    tables: Tables
    language: PddlLanguage
    plan: str | None = None
    stimulus: str | None = None
    worded: bool = False
    #: The goal the agent pursued where its plan says (``; goal: NAME``), else None.
    pursued: str | None = None

    @property
    def domain(self) -> t.Domain:
        return self.task.grounded.domain

    @property
    def true_goal(self) -> str | None:
        """The candidate the plan says its agent pursued, else the one the problem's own
        ``:goal`` is, else None."""
        if self.pursued is not None:
            return self.pursued
        own = _canonical(self.problem.goal)
        return next((g.name for g in self.goals if _canonical(g.formula) == own), None)

    def state(self, time: int):
        """The grounded state row at time ``time`` of the path."""
        return self.task.space.states[int(self.tables.path.states[time])]

    @cached_property
    def states(self) -> tuple:
        """The ELoT state at each time of the path."""
        g = self.task.grounded
        return tuple(self.language.state(g.atoms_of(self.state(k))) for k in range(len(self.steps) + 1))


class Reader:
    """Reads the scenarios of one domain file (see the module docstring), each problem
    grounded once."""

    def __init__(self, domain_path: str, domain: t.Domain, data: str | None = None,
                 goal_prior: tuple[tuple[str, float], ...] = ()):
        self.domain_path = domain_path
        self.domain = domain
        self.data = data
        #: ``--goal-prior``: weights of candidate goals by name, over every scenario read
        self.goal_prior = goal_prior
        self._studies: dict[str, Study] = {}
        self._tasks: dict[tuple, GoalTask] = {}

    # -- the study folder --------------------------------------------------------------------

    def study_root(self) -> Path | None:
        """The study folder: ``data``, else the domain file's folder when it is one."""
        if self.data:
            return Path(self.data)
        here = Path(self.domain_path).parent
        return here if (here / "judgment_points.json").is_file() else None

    def study(self, why: str) -> Study:
        root = self.study_root()
        if root is None:
            raise ScenarioError(f"{why}: no study folder to find it in",
                                hint=f"give --data DIR, a folder holding judgment_points.json, problems/ and "
                                     f"actions/ (Alanqary et al.'s layout), or put {Path(self.domain_path).name} "
                                     "in one")
        if not (root / "judgment_points.json").is_file():
            raise ScenarioError(f"{root} is no study folder: it has no judgment_points.json",
                                hint="give --data the folder holding domain.pddl, judgment_points.json, problems/ "
                                     "and actions/")
        key = str(root.resolve())
        if key not in self._studies:
            self._studies[key] = load_study(root)
        return self._studies[key]

    def stimulus(self, name: str) -> tuple[Study, Stimulus]:
        """The study's stimulus ``name`` (``1_3``), with its study."""
        study = self.study(f"the stimulus {name}")
        for s in study.stimuli:
            if s.id == name:
                return study, s
        ids = [s.id for s in study.stimuli]
        raise ScenarioError(f"the study {study.root} has no stimulus {name}",
                            hint=f"its stimuli: {', '.join(ids[:16])}" + (", ..." if len(ids) > 16 else ""))

    def stimulus_of(self, problem: Path) -> tuple[Study, Stimulus] | None:
        """The study stimulus a problem file is (``ROOT/problems/scenario-C-S.pddl``), or None."""
        found = STIMULUS_FILE.match(problem.stem)
        folder = problem.resolve().parent
        root = folder.parent
        if not (found and folder.name == "problems" and (root / "judgment_points.json").is_file()):
            return None
        key = str(root)
        if key not in self._studies:
            self._studies[key] = load_study(root)
        study = self._studies[key]
        wanted = f"{found[1]}_{found[2]}"
        return next(((study, s) for s in study.stimuli if s.id == wanted), None)

    # -- scenarios -----------------------------------------------------------------------------

    def read(self, spec: str, plan: str | None = None) -> Scene:
        """The scenario ``spec`` names, with ``plan`` (``--plan``) for a problem file."""
        if STIMULUS.match(spec) and not Path(spec).exists():
            if plan:
                raise ScenarioError(f"--plan is for a problem file, and {spec} is a stimulus with its own plan",
                                    hint="give the problem file with --plan, or leave --plan out")
            return self._stimulus(*self.stimulus(spec))
        path = Path(spec)
        if not path.exists():
            raise ScenarioError(f"no scenario {spec!r}: not a file, nor a stimulus id (C_S) of a study",
                                hint="give a PDDL problem file (with --plan PLAN), a plan file that names its "
                                     "problem, or a stimulus id such as 1_1 with --data")
        text = read_text(path, "PDDL problem or plan")
        if _is_problem(text):
            return self._problem(path, text, plan)
        if plan:
            raise ScenarioError(f"{spec} is a plan, not a problem, and --plan gives another",
                                path=spec, hint="give the problem file with --plan, or the plan file alone")
        return self._plan(path, text)

    def _stimulus(self, study: Study, s: Stimulus) -> Scene:
        problem = parse_problem(read_text(s.problem, "PDDL problem"), self.domain, str(s.problem))
        return self._scene(s.id, problem, s.plan, self._stimulus_goals(study, s), s.times,
                           str(study.root / "actions" / f"{s.id}.dat"), s.id, worded=_worded(study))

    def _problem(self, path: Path, text: str, plan: str | None) -> Scene:
        problem = parse_problem(text, self.domain, str(path))
        found = self.stimulus_of(path)
        if plan is None and found is not None:
            return self._stimulus(*found)
        steps, marks = (), ()
        if plan is not None:
            plan_text = read_text(plan, "PDDL plan")
            steps = parse_plan(plan_text, plan)
            marks = plan_marks(plan_text, steps)
        goals, worded = self._goals_of(path, problem, found)
        return self._scene(Path(plan).stem if plan else path.stem, problem, steps, goals, marks, plan, None,
                           worded=worded)

    def _plan(self, path: Path, text: str) -> Scene:
        named = next((PROBLEM_LINE.match(line) for line in text.splitlines()[:20] if PROBLEM_LINE.match(line)), None)
        if named is None:
            raise ScenarioError(f"{path} is not a PDDL problem, and as a plan it names no problem",
                                path=str(path),
                                hint="give the problem file as the scenario and this file as --plan, or name the "
                                     "problem in the plan's first lines: ; problem: FILE.pddl")
        problem_path = path.parent / named[1]
        if not problem_path.is_file() and Path(named[1]).is_file():
            problem_path = Path(named[1])
        problem_text = read_text(problem_path, "PDDL problem")
        problem = parse_problem(problem_text, self.domain, str(problem_path))
        goals, worded = self._goals_of(problem_path, problem, self.stimulus_of(problem_path))
        steps = parse_plan(text, str(path))
        scene = self._scene(path.stem, problem, steps, goals, plan_marks(text, steps), str(path), None, worded=worded)
        said = next((GOAL_LINE.match(line) for line in text.splitlines()[:20] if GOAL_LINE.match(line)), None)
        if said is None:
            return scene
        if said[1] not in [g.name for g in goals]:
            raise ScenarioError(f"{path}: its goal {said[1]!r} is no candidate goal of its problem", path=str(path),
                                hint="candidates: " + ", ".join(g.name for g in goals))
        return replace(scene, pursued=said[1])

    def _stimulus_goals(self, study: Study, s: Stimulus) -> tuple[Goal, ...]:
        where = str(study.root / "goals.json") if _worded(study) else str(s.problem)
        priors = s.priors or (1.0,) * len(s.goals)
        return tuple(Goal(name, parse_goal(text, self.domain, where), prior)
                     for (name, text), prior in zip(s.goals, priors))

    def _goals_of(self, path: Path, problem: t.Problem, found) -> tuple[tuple[Goal, ...], bool]:
        """The candidate goals of a problem: its stimulus's, else its own (:meth:`_goals`)."""
        if found is not None:
            return self._stimulus_goals(*found), _worded(found[0])
        return self._goals(path, problem)

    def _goals(self, path: Path, problem: t.Problem) -> tuple[tuple[Goal, ...], bool]:
        """A problem's candidate goals (see the module docstring) and whether words name them."""
        for folder in (path.parent, path.parent.parent):
            listed = folder / "goals.json"
            if not listed.is_file():
                continue
            data = load_json(read_text(listed, "goals"), path=str(listed),
                             hint='a JSON object: problem name -> list of {"word": NAME, "pddl": CONDITION}')
            found = STIMULUS_FILE.match(path.stem)
            key = f"{found[1]}_{found[2]}" if found else path.stem
            if isinstance(data, dict) and key in data:
                return _listed(data[key], str(listed), key, self.domain), True
        return alternatives(problem), False

    def _scene(self, name: str, problem: t.Problem, steps, goals, judgments, plan: str | None, stimulus: str | None,
               *, worded: bool) -> Scene:
        goals = weighted(tuple(goals), self.goal_prior, name)
        key = (problem.path, problem.source, tuple((g.name, g.formula, g.prior) for g in goals))
        if key not in self._tasks:
            g = ground(self.domain, problem)
            self._tasks[key] = GoalTask(g, state_space(g), goals)
        task = self._tasks[key]
        try:
            path = task.path(tuple(steps))
        except PddlError as error:      # at its line of the plan file
            if plan is not None and error.path is None:
                error.located(source=read_text(plan, "PDDL plan"), path=plan)
            raise
        horizon = len(steps)
        bad = [k for k in judgments if not 0 <= k <= horizon]
        if bad:
            raise ScenarioError(f"{name}: judgment point t = {bad[0]} is outside its {horizon} actions", path=plan)
        names = [g.name for g in goals]
        language = signature_of(self.domain, problem, names)
        language = replace(language, signature=language.signature.with_words(words_of(language, names, worded)))
        return Scene(name, problem, tuple(steps), goals, tuple(judgments), task, Tables(task, path), language, plan,
                     stimulus, worded)


def _canonical(formula: t.Formula):
    """A condition with the order of its conjunctions' and disjunctions' parts left out
    (``(and (on r e) (on c o))`` is ``(and (on c o) (on r e))``)."""
    if isinstance(formula, (t.And, t.Or)):
        return type(formula).__name__, frozenset(_canonical(p) for p in formula.parts)
    if isinstance(formula, t.Not):
        return "not", _canonical(formula.body)
    return formula


def _worded(study: Study) -> bool:
    """Whether a study's goals are words (its ``goals.json``), not its problems' gems."""
    return (study.root / "goals.json").is_file()


def _is_problem(text: str) -> bool:
    """Whether a file's text is a PDDL problem (``(define (problem ...``), not a plan."""
    body = re.sub(r";[^\n]*", "", text)
    return re.match(r"\s*\(\s*define\s*\(\s*problem\b", body, flags=re.I) is not None


def _listed(items, path: str, key: str, domain: t.Domain) -> tuple[Goal, ...]:
    hint = 'each goal is {"word": NAME, "pddl": CONDITION}, with a "prior": WEIGHT where it is not 1'
    if not isinstance(items, list) or not items:
        raise ScenarioError(f"{path}: the goals of {key} are not a list of goals", path=path, hint=hint)
    out = []
    for item in items:
        if not (isinstance(item, dict) and isinstance(item.get("word"), str) and isinstance(item.get("pddl"), str)):
            raise ScenarioError(f"{path}: a goal of {key} is not a word and a PDDL condition", path=path, hint=hint)
        prior = goal_weight(item["prior"], f"{path}: the prior of {item['word']} ({key})", path) \
            if "prior" in item else 1.0
        out.append(Goal(item["word"], parse_goal(item["pddl"], domain, path), prior))
    return tuple(out)


def alternatives(problem: t.Problem) -> tuple[Goal, ...]:
    """The candidate goals of a problem's own ``:goal``: one atom with its last object
    argument replaced by each object of that argument's type, in the problem's order
    (``(has gem2)``: ``gem1``, ``gem2``, ``gem3``, each named by its object); else the goal
    itself, named ``goal``."""
    goal = problem.goal
    kinds = dict(problem.objects)
    if isinstance(goal, t.Atom):
        places = [i for i, a in enumerate(goal.args) if isinstance(a, t.Obj) and a.name in kinds]
        if places:
            at = places[-1]
            kind = kinds[goal.args[at].name]
            others = [name for name, k in problem.objects if k == kind]
            if len(others) > 1:
                return tuple(Goal(name, t.Atom(goal.pred, goal.args[:at] + (t.Obj(name),) + goal.args[at + 1:]))
                             for name in others)
    return (Goal("goal", goal),)
