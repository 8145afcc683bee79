"""Goal inference over a PDDL study, its models' parameters chosen on the dev split by a grid.

Each **family** is one of the PDDL front's agent models (:mod:`elot.domains.pddl.agents`:
what it assumes, its parameters, the tables it weighs actions by) with a small grid of its
parameters; every prediction is the front's own run of the stimulus under the model
(:meth:`elot.domains.pddl.front.PddlFront.run`: its goal posterior), so ``elot run``,
``elot batch`` and ``elot fit`` give what the benchmarks fit. The families:

* ``boltzmann-exact`` — Boltzmann on exact costs; a lost goal costs one more than the
  largest finite cost (the README's "large finite cap");
* ``boltzmann`` — Boltzmann on exact costs (relaxed where lost): elot's BToM agent;
* ``boltzmann-ff`` — Boltzmann on the relaxed plan's length: ``birl``'s model, its values
  taken from the heuristic without RTDP's rollouts;
* ``lapse`` — Boltzmann on exact costs with lapses ε (a uniform applicable action);
* ``heuristic`` — lapse-Boltzmann on ``(1 − w) C + w h_FF``: estimates leaning on the
  relaxed plan with weight w (mistakes toward what looks close);
* ``horizon`` — lapse-Boltzmann on an H-step exact lookahead with relaxed-plan leaves;
* ``partial-plans`` — commits to a partial plan to a waypoint up to H actions away, chosen
  by a softmax (β) of its estimated total cost on the blended costs (w), replans on arrival
  or after a slip (ε): the paper's bounded planner with its search made exact;
* ``goal-noise`` — lapse-Boltzmann toward a current goal redrawn with probability γ from the
  true goal's confusions (its objects permuted: a misspelt word), when ``confusions`` is on.

:func:`fit` evaluates every grid point on the dev split (Pearson r over every stimulus ×
judgment point × goal), picks each family's best, and reports, for a reader to judge the
fit, the r per category and leave-one-stimulus-out r (each dev stimulus predicted with the
parameters chosen on the other dev stimuli); :func:`choose` picks the family the same way
and says how the whole choice (family and parameters) does when each dev stimulus is left
out of it. Held-out stimuli never enter a choice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from elot.domains.front import Episode
from elot.domains.pddl.agents import MODELS, Tables
from elot.domains.pddl.dataset import Study, Stimulus
from elot.domains.pddl.front import PddlFront
from elot.numeric import dot, fsum


@dataclass
class Prepared:
    """One stimulus as the front reads it: the stimulus, its episode and the front."""

    stimulus: Stimulus
    episode: Episode
    front: PddlFront

    @property
    def tables(self) -> Tables:
        return self.episode.detail.tables


def prepare(study: Study, confusions: bool = False, backend: str = "core") -> list[Prepared]:
    """Every stimulus of ``study`` read by a PDDL front of its domain, its tables of exact
    and relaxed costs made now (and the goals' confusions, with ``confusions``)."""
    if backend != "core":
        from elot.domains.pddl.errors import PddlError

        raise PddlError(f"the study is read with the compiled grounding kernels, not {backend!r}",
                        hint="leave backend out")
    front = PddlFront(study.root / "domain.pddl", data=str(study.root))
    out = []
    for s in study.stimuli:
        item = Prepared(s, front.episode(s.id), front)
        tables = item.tables
        tables.fallback, tables.capped     # the tables every family reads, made before the search
        if confusions:
            tables.confusions
        out.append(item)
    return out


@dataclass(frozen=True)
class Family:
    """A model family: a model of the front (``name``), its parameter grid and what it
    assumes (in words)."""

    name: str
    grid: dict
    what: str


#: The grids searched, by model (the models are the front's: :data:`elot.domains.pddl.agents.MODELS`).
GRIDS = {
    "boltzmann-exact": {"beta": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)},
    "boltzmann": {"beta": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)},
    "boltzmann-ff": {"beta": (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0, 8.0)},
    "lapse": {"beta": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0), "epsilon": (0.0, 0.02, 0.05, 0.1, 0.2, 0.4)},
    "heuristic": {"beta": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0), "epsilon": (0.0, 0.02, 0.05, 0.1, 0.2, 0.4),
                  "weight": (0.1, 0.2, 0.3, 0.5, 1.0)},
    "horizon": {"beta": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0), "epsilon": (0.0, 0.02, 0.05, 0.1, 0.2, 0.4),
                "horizon": (1, 2, 3, 4, 6, 8)},
    "partial-plans": {"horizon": (1, 2, 3, 4, 6), "beta": (0.5, 1.0, 2.0, 4.0), "epsilon": (0.01, 0.05, 0.2),
                      "weight": (0.0, 0.2, 0.5, 1.0)},
    "goal-noise": {"beta": (0.5, 1.0, 2.0, 4.0), "epsilon": (0.0, 0.05, 0.2, 0.4), "gamma": (0.01, 0.05, 0.2, 0.4),
                   "weight": (0.0, 1.0)},
}

FAMILIES = {name: Family(name, grid, MODELS[name].what) for name, grid in GRIDS.items()}

#: The families whose agent is Boltzmann-rational on some table of costs (the authors' ``birl`` family).
BOLTZMANN = ("boltzmann", "boltzmann-ff")


def families(confusions: bool) -> list[Family]:
    return [f for name, f in FAMILIES.items() if confusions or name != "goal-noise"]


def posterior(item: Prepared, family: str, params: dict) -> np.ndarray:
    """``float64[T + 1, G]``: the goal posterior after each prefix of the stimulus's plan,
    the front's run of it under the model ``family`` with ``params`` (β and the rest)."""
    rest = {k: v for k, v in params.items() if k != "beta"}
    front = item.front
    return front.run(item.episode, front.settings(family, params["beta"], **rest)).posterior


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
    """Pearson's r, its sums correctly rounded (:mod:`elot.numeric`): the r that chooses a
    model's parameters is the same on every machine."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    x, y = x - fsum(x) / len(x), y - fsum(y) / len(y)
    return float(dot(x, y) / np.sqrt(dot(x, x) * dot(y, y)))


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
        per_category = _per_category((sid, a, b) for sid, (x, y, _) in per_stim.items() for a, b in zip(x, y))
        out.append(FamilyFit(fam, params, r, per_category, _loso(table, dev_ids), table))
    return out


def _loso(table: list, dev_ids: list) -> float:
    """Leave one dev stimulus out: the row of ``table`` (parameters, r, per-stimulus pairs)
    chosen on the other dev stimuli predicts the one left out; r over all of them."""
    lx, ly = [], []
    for sid in dev_ids:
        def r_without(row):
            xs = np.concatenate([row[2][o][0] for o in dev_ids if o != sid])
            ys = np.concatenate([row[2][o][1] for o in dev_ids if o != sid])
            return pearson(xs, ys)
        chosen = max(table, key=r_without)   # ties: the first
        lx.extend(chosen[2][sid][0])
        ly.extend(chosen[2][sid][1])
    return pearson(lx, ly)


@dataclass(frozen=True)
class Choice:
    """A family and its parameters chosen on dev among several families, the dev r, and the
    leave-one-stimulus-out r of the whole choice (family and parameters chosen without the
    stimulus predicted)."""

    fit: FamilyFit
    loso: float

    @property
    def r(self) -> float:
        return self.fit.r


def choose(fits: list[FamilyFit], names=None) -> Choice:
    """The best of ``fits`` (or of the families named) by dev r, ties to the first."""
    pool = [f for f in fits if names is None or f.family.name in names]
    best = max(pool, key=lambda f: f.r)
    dev_ids = list(pool[0].table[0][2])
    rows = [row for f in pool for row in f.table]
    return Choice(best, _loso(rows, dev_ids))


def stored_dev(study: Study, human: dict) -> dict:
    """Each stored model's dev r and per-category r."""
    out = {}
    for model, vals in study.stored().items():
        keys = [k for k in human if k in vals]
        out[model] = (pearson([vals[k] for k in keys], [human[k] for k in keys]), len(keys),
                      _per_category((k[0], vals[k], human[k]) for k in keys))
    return out


def _per_category(pairs) -> dict:
    """Pearson's r per category (C of a stimulus C_S) of ``(stimulus, x, y)`` triples."""
    cats: dict = {}
    for sid, x, y in pairs:
        xs, ys = cats.setdefault(int(sid.split("_")[0]), ([], []))
        xs.append(x)
        ys.append(y)
    return {c: pearson(a, b) for c, (a, b) in sorted(cats.items())}


def predictions(items: list[Prepared], family: str, params: dict) -> list[tuple[str, int, str, float]]:
    """``(scenario, t, goal, value)`` for every stimulus (dev and held-out) at its judgment points."""
    rows = []
    for item in items:
        post = posterior(item, family, params)
        for t in item.stimulus.times:
            for g, (name, _) in enumerate(item.stimulus.goals):
                rows.append((item.stimulus.id, t, name, float(post[t, g])))
    return rows
