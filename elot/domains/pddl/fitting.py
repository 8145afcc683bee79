"""Goal inference over a PDDL study, its models' parameters chosen on the dev split by a grid.

Each **family** is an agent model of :mod:`elot.engine.agents` with the cost-to-go it weighs
actions by and a small grid of interpretable parameters:

* ``boltzmann-exact`` — Boltzmann on exact costs; a lost goal costs one more than the
  largest finite cost (the README's "large finite cap");
* ``boltzmann`` — Boltzmann on exact costs, where a goal is lost the delete relaxation's
  cost (the agent does not see that it is lost): elot's BToM agent (``birl``'s family);
* ``lapse`` — the same with lapses ε (a uniform applicable action);
* ``heuristic`` — lapse-Boltzmann on ``(1 − w) C + w h``: estimates leaning on the relaxed
  heuristic with weight w (mistakes toward what looks close);
* ``horizon`` — lapse-Boltzmann on the costs of an H-step exact lookahead with relaxed leaves;
* ``goal-noise`` — lapse-Boltzmann toward a current goal redrawn with probability γ from the
  true goal's confusions (its objects permuted: a misspelt word), when ``confusions`` is on.

:func:`fit` evaluates every grid point on the dev split (Pearson r over every stimulus ×
judgment point × goal), picks each family's best, and reports, for a reader to judge the
fit, the r per category and leave-one-stimulus-out r (each dev stimulus predicted with the
parameters chosen on the other dev stimuli). Held-out stimuli never enter a choice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from elot.domains.pddl.dataset import Study, Stimulus
from elot.domains.pddl.goals import GoalTask, permutations_of
from elot.engine.agents import Boltzmann, GoalNoise, Lapse, cost_to_go, distances, goal_posterior
from elot.engine.agents.graph import horizon_costs
from elot.engine.agents.models import blend


@dataclass
class Prepared:
    """One stimulus's tables: its task, path, exact and relaxed costs (and confusions')."""

    stimulus: Stimulus
    task: GoalTask
    path: object
    exact: np.ndarray
    relaxed: np.ndarray
    fallback: np.ndarray
    capped: np.ndarray
    confusions: list | None = None
    confusion_costs: np.ndarray | None = None
    horizons: dict = field(default_factory=dict)


def prepare(study: Study, confusions: bool = False, backend: str = "core") -> list[Prepared]:
    out = []
    for s in study.stimuli:
        task = GoalTask.load(study.root / "domain.pddl", s.problem, s.goals, backend=backend, domain=study.domain)
        exact, relaxed = task.exact(), task.relaxed()
        item = Prepared(s, task, task.path(s.plan), exact, relaxed, cost_to_go(exact, relaxed), cost_to_go(exact))
        if confusions:
            groups, forms = [], []
            for goal in task.goals:
                perms = permutations_of(goal.formula)
                groups.append(list(range(len(forms), len(forms) + len(perms))))
                forms += perms
            item.confusions = groups
            item.confusion_costs = cost_to_go(distances(task.graph, task.masks(forms)), task.relaxed(forms))
        out.append(item)
    return out


@dataclass(frozen=True)
class Family:
    name: str
    grid: dict
    what: str


def families(confusions: bool) -> list[Family]:
    betas = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    eps = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4)
    fams = [
        Family("boltzmann-exact", {"beta": betas}, "Boltzmann, exact costs, a lost goal capped"),
        Family("boltzmann", {"beta": betas}, "Boltzmann, exact costs, relaxed cost where lost (elot's BToM agent)"),
        Family("lapse", {"beta": betas, "epsilon": eps}, "+ lapses (uniform applicable action)"),
        Family("heuristic", {"beta": betas, "epsilon": eps, "weight": (0.1, 0.2, 0.3, 0.5, 1.0)},
               "+ estimates leaning on the relaxed heuristic"),
        Family("horizon", {"beta": betas, "epsilon": eps, "horizon": (1, 2, 3, 4, 6, 8)},
               "+ H-step lookahead, relaxed leaves"),
    ]
    if confusions:
        fams.append(Family("goal-noise", {"beta": (0.5, 1.0, 2.0, 4.0), "epsilon": (0.0, 0.05, 0.2, 0.4),
                                          "gamma": (0.05, 0.1, 0.2, 0.4)},
                           "+ goal noise over permuted goals (misspellings)"))
    return fams


def posterior(item: Prepared, family: str, params: dict) -> np.ndarray:
    """``float64[T + 1, G]``: the goal posterior after each prefix of the stimulus's plan."""
    graph, path, prior = item.task.graph, item.path, item.task.prior
    beta, eps = params["beta"], params.get("epsilon", 0.0)
    if family == "boltzmann-exact":
        lik = Boltzmann(beta).step_likelihoods(graph, item.capped, path)
    elif family == "boltzmann":
        lik = Boltzmann(beta).step_likelihoods(graph, item.fallback, path)
    elif family == "lapse":
        lik = Lapse(beta, eps).step_likelihoods(graph, item.fallback, path)
    elif family == "heuristic":
        lik = Lapse(beta, eps).step_likelihoods(graph, blend(item.fallback, item.relaxed, params["weight"]), path)
    elif family == "horizon":
        h = params["horizon"]
        if h not in item.horizons:
            item.horizons[h] = horizon_costs(graph, item.task.goal_masks, item.relaxed, h)
        lik = Lapse(beta, eps).step_likelihoods(graph, item.horizons[h], path)
    elif family == "goal-noise":
        lik = GoalNoise(beta, eps, params["gamma"]).step_likelihoods(
            graph, item.fallback, path, confusions=item.confusions, confusion_costs=item.confusion_costs)
    else:
        raise ValueError(family)
    return goal_posterior(lik, prior)


def _pairs(items, predictions, human, which):
    xs, ys, keys = [], [], []
    for item, post in zip(items, predictions):
        s = item.stimulus
        if s.id not in which:
            continue
        for t in s.times:
            for g, (name, _) in enumerate(s.goals):
                key = (s.id, t, name)
                if key in human:
                    xs.append(post[t, g])
                    ys.append(human[key])
                    keys.append(key)
    return np.array(xs), np.array(ys), keys


def pearson(x, y) -> float:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    x, y = x - x.mean(), y - y.mean()
    return float(np.dot(x, y) / np.sqrt(np.dot(x, x) * np.dot(y, y)))


@dataclass
class FamilyFit:
    family: Family
    params: dict
    r: float
    per_category: dict
    loso: float
    table: list


def fit(items: list[Prepared], human: dict, fams: list[Family]) -> list[FamilyFit]:
    dev = [it for it in items if it.stimulus.dev]
    dev_ids = [it.stimulus.id for it in dev]
    out = []
    for fam in fams:
        names = sorted(fam.grid)
        table = []
        for combo in itertools.product(*(fam.grid[n] for n in names)):
            params = dict(zip(names, combo))
            preds = [posterior(it, fam.name, params) for it in dev]
            per_stim = {it.stimulus.id: _pairs([it], [p], human, {it.stimulus.id}) for it, p in zip(dev, preds)}
            x, y, _ = _pairs(dev, preds, human, set(dev_ids))
            table.append((params, pearson(x, y), per_stim))
        best = max(table, key=lambda row: row[1])   # ties: the first in grid order
        params, r, per_stim = best
        cats: dict = {}
        for sid, (x, y, _) in per_stim.items():
            c = int(sid.split("_")[0])
            cats.setdefault(c, ([], []))
            cats[c][0].extend(x)
            cats[c][1].extend(y)
        per_category = {c: pearson(a, b) for c, (a, b) in sorted(cats.items())}
        # leave one dev stimulus out: parameters chosen on the others, the left-out one predicted
        lx, ly = [], []
        for sid in dev_ids:
            def r_without(row):
                xs = np.concatenate([row[2][o][0] for o in dev_ids if o != sid])
                ys = np.concatenate([row[2][o][1] for o in dev_ids if o != sid])
                return pearson(xs, ys)
            chosen = max(table, key=r_without)
            lx.extend(chosen[2][sid][0])
            ly.extend(chosen[2][sid][1])
        out.append(FamilyFit(fam, params, r, per_category, pearson(lx, ly), table))
    return out


def stored_dev(study: Study, human: dict) -> dict:
    """Each stored model's dev r and per-category r."""
    out = {}
    for model, vals in study.stored().items():
        keys = [k for k in human if k in vals]
        cats: dict = {}
        for k in keys:
            c = int(k[0].split("_")[0])
            cats.setdefault(c, ([], []))
            cats[c][0].append(vals[k])
            cats[c][1].append(human[k])
        out[model] = (pearson([vals[k] for k in keys], [human[k] for k in keys]), len(keys),
                      {c: pearson(a, b) for c, (a, b) in sorted(cats.items())})
    return out


def predictions(items: list[Prepared], family: str, params: dict) -> list[tuple[str, int, str, float]]:
    """``(scenario, t, goal, value)`` for every stimulus (dev and held-out) at its judgment points."""
    rows = []
    for item in items:
        post = posterior(item, family, params)
        for t in item.stimulus.times:
            for g, (name, _) in enumerate(item.stimulus.goals):
                rows.append((item.stimulus.id, t, name, float(post[t, g])))
    return rows
