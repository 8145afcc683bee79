"""``elot fit`` on a domain of the inference engine: Θ and β fitted to ratings of statements
about a domain's scenarios (food trucks, or a researcher's own), by the same search
(:mod:`elot.study.fit`), over the same tables of P and π.

A ratings file (or a batch table with a ``rating`` column) names each scenario as the
domain reads it (``12`` for the food-truck experiment, ``mine.trucks:NAME``, a case
file); :class:`DomainRef` is what :func:`elot.study.fit.read_ratings` loads it through.
:func:`tabulate` runs the engine once per scenario for every β (planning once per layout)
and evaluates each statement's truth once per grid point of its own thresholds: a row's
truth does not depend on β, only its posterior weight does.
"""

from __future__ import annotations

from functools import partial
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from elot.lang.thresholds import Thresholds
from elot.study.params import StudyError


@dataclass(frozen=True, eq=False)
class DomainRef:
    """A scenario of a domain by the name a table gives it; ``load()`` reads it (once)."""

    name: str
    front: Any
    data: str | None = None
    _loaded: list = field(default_factory=list, repr=False)

    def load(self) -> "_Loaded":
        if not self._loaded:
            self._loaded.append(_Loaded(self.front.scenario(self.name, self.data), self.front))
        return self._loaded[0]

    def __hash__(self) -> int:    # references.resolve caches by it
        return hash((self.name, id(self.front)))


class _Loaded:
    """What the ratings reader asks of a scenario: its last step ``T``, its judgment points
    and its signature (statements are translated and checked against it)."""

    def __init__(self, scenario, front):
        self.scenario, self.front = scenario, front
        self.T = scenario.horizon
        self.judgments = list(scenario.judged)
        self.statements = ()

    def signature(self):
        return self.front.signature()


def refs_for(front: Any, data: str | None) -> Callable[[str], DomainRef]:
    """``read_ratings``'s ``refs_from`` for a domain."""
    return lambda name: DomainRef(name, front, data)


def tabulator(planner: str | None = None):
    """:func:`elot.study.fit.fit`'s ``tabulate`` for a domain (with ``planner``)."""

    def tabulate(ratings, model: str, *, betas: Sequence[float], start: Thresholds | None = None,
                 progress: Callable[[int, int], None] | None = None, **_ignored):
        return domain_problem(ratings, model, betas=betas, start=start, planner=planner, progress=progress)

    return tabulate


def domain_problem(ratings, model: str, *, betas: Sequence[float], start: Thresholds | None = None,
                   planner: str | None = None, progress: Callable[[int, int], None] | None = None):
    """P (every β) and π of every rated key over its thresholds' grid (see the module)."""
    from elot.domains.source import DomainSource
    from elot.engine import Engine
    from elot.judging import compile_statement, holds, posterior_probability, prior_probability
    from elot.study.fit import by_formula, problem_of, tabulate_formula, tabulation_start

    start, grids, by_scenario, tables = tabulation_start(ratings, start)
    loaded = {name: ratings.refs[name].load() for name in by_scenario}
    front = next(iter(loaded.values())).front
    config = front.config(model, planner=planner)
    engine = Engine(front.domain, config)
    names_ = list(by_scenario)
    # every scenario's whole path for every β in one run: each layout planned once
    runs = engine.run([loaded[n].scenario.case for n in names_], list(betas))
    signature = front.signature()
    for done, (name, rows) in enumerate(by_scenario.items()):
        scenario = loaded[name].scenario
        sources = [DomainSource(front, scenario, config.with_beta(b), model, engine=engine,
                                results={scenario.horizon: runs[j][names_.index(name)]})
                   for j, b in enumerate(betas)]
        judged: dict[tuple[int, int], tuple[Any, np.ndarray]] = {}

        def rows_of(t: int, at: int):
            """The rows at (t, at) (the same for every β) and their weights under each β."""
            if (t, at) not in judged:
                every = [source.judged(t, at) for source in sources]
                judged[t, at] = (every[0], np.stack([r.weights for r in every], axis=1))
            return judged[t, at]

        def score(compiled, members):
            P, pi = [], []
            for i in members:
                key = ratings.keys[i]
                at = key.t if key.mode == "current" else 0
                if at > 0 and compiled.needs_belief:
                    raise StudyError(f"{ratings.path}: {key.formula} (scenario {key.scenario}, t = {key.t}) is "
                                     f"about the current belief, which the {front.name} model does not infer",
                                     hint="rate statements about the initial belief (mode initial) or the desires")
                first, weights = rows_of(key.t, at)
                truth = holds(compiled, first).astype(float)   # the rows are the same for every β
                P.append(posterior_probability(truth, weights))
                pi.append(prior_probability(truth, first.weights, "elot", prior=first.prior_mass()))
            return P, pi

        for formula, members in by_formula(ratings, rows).items():
            tabulate_formula(tables, members, grids, start, len(betas),
                             partial(compile_statement, formula, signature, bind_free=True), score)
        if progress:
            progress(done + 1, len(by_scenario))
    return problem_of(model, betas, start, grids, tables, len(ratings.keys))
