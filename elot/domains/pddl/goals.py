"""A PDDL problem as a goal-inference task: its reachable states, candidate goals with a prior,
and an observed plan, in the form the agent models of :mod:`elot.engine.agents` read.

``GoalTask.load(domain_path, problem_path, goals)`` reads and grounds the problem; each
candidate goal is a PDDL condition (``(has gem2)``, a word's tower) with a prior weight
(uniform by default); :meth:`GoalTask.path` follows a plan (``.dat`` steps) through the
states; :meth:`GoalTask.costs` gives the cost-to-go tables the models weigh actions by.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from elot.domains.front import SettingRefused
from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError
from elot.domains.pddl.ground import Grounded, condition_rows, ground
from elot.domains.pddl.read import PlanStep, parse_goal, read_domain, read_problem
from elot.domains.pddl.space import StateSpace, state_space
from elot.engine.agents.graph import (Path, RelaxedPlans, StateGraph, distances, follow, relaxed_costs,
                                      relaxed_plans)
from elot.engine.budget import Limits
from elot.errors import ArgumentError, nearest


@dataclass(frozen=True)
class Goal:
    """A candidate goal: its name (``gem2``, ``pear``), its condition, its prior weight."""

    name: str
    formula: t.Formula
    prior: float = 1.0


#: How a goal prior is written on the command line (``--goal-prior``).
GOAL_PRIOR_HINT = "write NAME=WEIGHT,... with a positive weight for each candidate named (gem1=2,gem2=1); " \
                  "a candidate not named weighs 1"


def goal_weight(value, what: str, path: str | None = None) -> float:
    """A goal's prior weight: a positive finite number, else a :class:`PddlError` saying
    ``what`` it is (``the prior of gem2``) and what is accepted."""
    try:
        weight = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        weight = math.nan
    if not (math.isfinite(weight) and weight > 0):
        raise PddlError(f"{what} is {value!r}, not a positive number", path=path,
                        hint="a prior weight is relative: 2 is twice as probable as 1 (a goal the agent cannot "
                             "have is no candidate: leave it out)")
    return weight


def parse_goal_prior(text: str) -> tuple[tuple[str, float], ...]:
    """``--goal-prior``'s ``NAME=WEIGHT,...`` as ``(name, weight)`` pairs, each name once."""
    pairs: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not part:
            raise SettingRefused(f"--goal-prior: {text!r} has an empty part", hint=GOAL_PRIOR_HINT)
        if not sep or not name:
            raise SettingRefused(f"--goal-prior: {part!r} is not NAME=WEIGHT", hint=GOAL_PRIOR_HINT)
        if name in pairs:
            raise SettingRefused(f"--goal-prior: {name} is given twice", hint="give each candidate goal once")
        try:
            pairs[name] = goal_weight(value.strip(), f"--goal-prior: the weight of {name}")
        except PddlError as error:
            raise SettingRefused(error.message, hint=GOAL_PRIOR_HINT) from None
    return tuple(pairs.items())


def weighted(goals: tuple[Goal, ...], prior: tuple[tuple[str, float], ...], scenario: str) -> tuple[Goal, ...]:
    """``goals`` with the weights ``prior`` gives them (``--goal-prior``: by name; the
    others keep theirs); a name that is no candidate of ``scenario`` is an error naming the
    candidates."""
    if not prior:
        return goals
    names = [g.name for g in goals]
    for name, _ in prior:
        if name not in names:
            close = nearest(name, names)
            raise SettingRefused(f"--goal-prior: {name} is no candidate goal of {scenario}"
                                 + (f" (did you mean {close}?)" if close else ""),
                                 hint=f"its candidates: {', '.join(names)}")
    given = dict(prior)
    return tuple(replace(g, prior=given[g.name]) if g.name in given else g for g in goals)


@dataclass(eq=False)
class GoalTask:
    """A grounded problem with candidate goals (see the module docstring)."""

    grounded: Grounded
    space: StateSpace
    goals: tuple[Goal, ...]
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, domain_path, problem_path, goals, backend: str = "core", limits: Limits | None = None,
             domain: t.Domain | None = None) -> "GoalTask":
        """``goals``: ``(name, condition text)`` pairs or :class:`Goal` values."""
        domain = domain or read_domain(domain_path)
        problem = read_problem(problem_path, domain)
        g = ground(domain, problem)
        made = tuple(x if isinstance(x, Goal) else Goal(x[0], parse_goal(x[1], domain)) for x in goals)
        if not made:
            raise PddlError("a goal-inference task needs at least one candidate goal", path=str(problem_path),
                            hint="give the candidate goals as (name, PDDL condition) pairs")
        return cls(g, state_space(g, backend, limits), made)

    @property
    def graph(self) -> StateGraph:
        return StateGraph(self.space.indptr, self.space.actions, self.space.successors)

    @property
    def prior(self) -> np.ndarray:
        w = np.array([goal.prior for goal in self.goals], dtype=np.float64)
        return w / w.sum()

    def path(self, steps: tuple[PlanStep, ...]) -> Path:
        """The states a plan visits; an unknown or inapplicable step is a :class:`PddlError` at its line."""
        index = self.grounded.action_index()
        ids = []
        for step in steps:
            key = (step.name, step.args)
            found = index.get(key) or next((i for k, i in index.items()
                                            if k[0].lower() == step.name.lower()
                                            and tuple(a.lower() for a in k[1]) == tuple(a.lower() for a in step.args)),
                                           None)
            if found is None:
                raise PddlError(f"the plan's action {step.text()} is no action of the domain",
                                span=step.span, hint="name a domain action and objects of the problem")
            ids.append(found)
        failed: list[int] = []

        def described(i: int) -> str:      # follow names the step it cannot take
            failed.append(i)
            return steps[i].text()

        try:
            return follow(self.graph, ids, describe=described)
        except ArgumentError as error:      # re-raised at the step's line
            raise PddlError(error.message, span=steps[failed[-1]].span, hint=error.hint) from None

    # -- goals over the states -------------------------------------------------------------

    def masks(self, formulas) -> np.ndarray:
        """``bool[len(formulas), n]``: where each condition holds."""
        g = self.grounded
        states = self.space.states
        words = g.words
        bits = states[:, :words]
        vals = states[:, words:]
        out = np.zeros((len(formulas), len(states)), dtype=bool)
        uniq, inverse = np.unique(vals, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        for i, f in enumerate(formulas):
            for u, row in enumerate(uniq):
                sel = inverse == u
                values = dict(zip(g.fluents, (int(v) for v in row)))
                for pos, neg in condition_rows(g, f, values):
                    ok = np.all((bits[sel] & pos) == pos, axis=1) & np.all((bits[sel] & neg) == 0, axis=1)
                    out[i, np.flatnonzero(sel)[ok]] = True
        return out

    @cached_property
    def goal_masks(self) -> np.ndarray:
        return self.masks([goal.formula for goal in self.goals])

    def exact(self, formulas=None) -> np.ndarray:
        """``float64[G, n]``: the fewest actions from each state to each goal (``inf``: lost)."""
        masks = self.goal_masks if formulas is None else self.masks(formulas)
        return distances(self.graph, masks)

    # -- the delete relaxation -------------------------------------------------------------

    @cached_property
    def _relaxed_task(self) -> tuple:
        """The delete relaxation over every state: ``(facts bool[n, atoms + cells], pre_ptr,
        pre_facts, add_ptr, add_facts)``, a fluent valuation being one more fact (its cell)."""
        g = self.grounded
        states = self.space.states
        n, n_atoms = len(states), len(g.atoms)
        cells = max(1, len(g.cell_rows) - 1)
        words = states[:, : g.words].view(np.uint64)
        facts = np.zeros((n, n_atoms + cells), dtype=bool)
        for i in range(n_atoms):
            facts[:, i] = (words[:, i >> 6] >> np.uint64(i & 63)) & np.uint64(1)
        facts[np.arange(n), n_atoms + self._cells(states[:, g.words:])] = True
        pos_bits = g.pre_pos.view(np.uint64)
        add_bits = g.add.view(np.uint64)
        row_cells = np.repeat(np.arange(cells), np.diff(g.cell_rows))
        new_cells = self._cells(g.new_fluents)
        pre, add = [], []
        for r in range(len(g.row_action)):
            pre.append([i for i in range(n_atoms) if (int(pos_bits[r, i >> 6]) >> (i & 63)) & 1]
                       + [n_atoms + int(row_cells[r])])
            add.append([i for i in range(n_atoms) if (int(add_bits[r, i >> 6]) >> (i & 63)) & 1]
                       + ([n_atoms + int(new_cells[r])] if new_cells[r] >= 0 else []))
        ptr = lambda lists: np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
        flat = lambda lists: np.array(list(itertools.chain.from_iterable(lists)), dtype=np.int64)
        return facts, ptr(pre), flat(pre), ptr(add), flat(add)

    @cached_property
    def _relaxed_facts(self) -> np.ndarray:
        """``float64[n, atoms + cells]``: h_add costs of every atom and fluent valuation."""
        return relaxed_costs(*self._relaxed_task, "add")

    @cached_property
    def _relaxed_plans(self) -> RelaxedPlans:
        return relaxed_plans(*self._relaxed_task)

    def _cells(self, values: np.ndarray) -> np.ndarray:
        g = self.grounded
        values = np.atleast_2d(values)
        if not len(g.fluents):
            return np.zeros(len(values), dtype=np.int64)
        rel = values - g.fluent_lo
        inside = np.all((rel >= 0) & (rel < g.fluent_size), axis=1)
        cell = np.zeros(len(values), dtype=np.int64)
        for f in range(len(g.fluents)):
            cell = cell * g.fluent_size[f] + rel[:, f]
        return np.where(inside, cell, -1)

    def relaxed(self, formulas=None, kind: str = "add") -> np.ndarray:
        """``float64[G, n]``: each goal's cost in the delete relaxation from each state, its
        cheapest disjunct's positive atoms (negative ones dropped as the relaxation drops
        them): ``kind="add"`` sums their h_add costs, ``kind="ff"`` counts the actions of a
        relaxed plan reaching them all (h_FF, :func:`elot.engine.agents.graph.relaxed_plans`)."""
        if kind not in ("add", "ff"):
            raise PddlError(f"unknown relaxed cost {kind!r}", hint="choose add (h_add) or ff (a relaxed plan's length)")
        g = self.grounded
        formulas = [goal.formula for goal in self.goals] if formulas is None else formulas
        facts = self._relaxed_facts if kind == "add" else None
        plans = self._relaxed_plans if kind == "ff" else None
        index = g.atom_index()
        values = dict(zip(g.fluents, (int(v) for v in g.init[g.words:])))
        from elot.domains.pddl.ground import _Ctx, dnf

        ctx = _Ctx(g.domain, g.problem)
        out = np.full((len(formulas), len(self.space.states)), np.inf)
        for i, f in enumerate(formulas):
            for pos, _neg in dnf(ctx.simplify(f, {}, values)):
                if all(a in index for a in pos):
                    cols = [index[a] for a in sorted(pos)]
                    cost = plans.costs(cols) if plans is not None else (facts[:, cols].sum(axis=1) if cols else 0.0)
                    out[i] = np.minimum(out[i], cost)
        return out


def _substitute(f: t.Formula, names: dict) -> t.Formula:
    def term(x):
        return t.Obj(names.get(x.name, x.name)) if isinstance(x, t.Obj) else x

    if isinstance(f, t.Atom):
        return t.Atom(f.pred, tuple(term(a) for a in f.args))
    if isinstance(f, t.Eq):
        return t.Eq(term(f.left), term(f.right))
    if isinstance(f, t.Cmp):
        return t.Cmp(f.op, term(f.left), term(f.right))
    if isinstance(f, t.Not):
        return t.Not(_substitute(f.body, names))
    if isinstance(f, (t.And, t.Or)):
        return type(f)(tuple(_substitute(p, names) for p in f.parts))
    if isinstance(f, t.Imply):
        return t.Imply(_substitute(f.cond, names), _substitute(f.then, names))
    return t.Quant(f.kind, f.params, _substitute(f.body, names))


def _objects_of(f: t.Formula, out: list) -> list:
    if isinstance(f, t.Atom):
        out += [a.name for a in f.args if isinstance(a, t.Obj) and a.name not in out]
    elif isinstance(f, t.Not):
        _objects_of(f.body, out)
    elif isinstance(f, (t.And, t.Or)):
        for p in f.parts:
            _objects_of(p, out)
    return out


def permutations_of(goal: t.Formula, limit: int = 720) -> list[t.Formula]:
    """The goal with its objects permuted, every permutation but the identity, distinct, in a
    fixed order (a word's anagrams: the towers a speller may build by mistake); at most ``limit``."""
    objects = _objects_of(goal, [])
    out, seen = [], {goal}
    for perm in itertools.permutations(objects):
        if len(out) >= limit:
            break
        f = _substitute(goal, dict(zip(objects, perm)))
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out
