"""The engine: a domain and a config in, one result per observed path out.

:class:`Engine` asks the domain for its tables and hypothesis spaces (checked, see
:mod:`elot.engine.tables.protocol`), chooses how to infer (``exact``: every hypothesis, a
:class:`PathResult`; ``smc``: particles drawn from the priors, a :class:`SampledResult`,
see :mod:`elot.engine.tables.sampling`; ``auto``: exact when the budget allows it), checks the
budget before any work, plans each layout once (planning does not depend on beta), builds
each path's inversion once, and then evaluates every path for each beta asked. Nothing
here names a domain's objects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from elot.engine import budget
from elot.engine.settings import fresh_seed
from elot.settings import DEFAULT_BETA
from elot.engine.tables import current, sampling, smc
from elot.engine.tables.config import EngineConfig
from elot.engine.tables.inversion import Allowance, Inverter, align, inversion_bytes, stored_beliefs
from elot.engine.tables.planners import Plan, plan
from elot.errors import DomainError
from elot.engine.tables.protocol import (BeliefSpace, DesireSpace, Events, Tables, ask, check_beliefs,
                                         check_events, check_space, check_tables, check_utilities, seen_bits)
from elot.engine.tables.results import PathResult, SampledResult, Timings

#: A result of either method (what :meth:`Engine.run` returns per case).
Result = PathResult | SampledResult


@dataclass(frozen=True)
class Case:
    """One observed path: the layout it ran on, its states (indices into the layout's
    tables), and the true world's index, or None when the observer does not know it (the
    hidden world is then part of each hypothesis, with the domain's world prior)."""

    layout: Any
    path: tuple[int, ...]
    world: int | None
    name: str = ""



class Engine:
    """Inverse planning over any domain (see the module docstring)."""

    def __init__(self, domain: Any, config: EngineConfig | None = None):
        self.domain = domain
        default = getattr(domain, "default_planner", "qmdp")
        config = config or EngineConfig()
        if config.true_belief and not config.planner:
            config = replace(config, planner="qmdp")  # a known world needs no belief planning
        self._seed_drawn = config.method != "exact" and config.seed is None
        if self._seed_drawn:
            config = replace(config, seed=fresh_seed())   # drawn now, reported with the results
        self.config = config.resolved(default, float(getattr(domain, "default_beta", DEFAULT_BETA)))
        self.timings = Timings()
        self._tables: dict[Any, Tables] = {}
        self._plans: dict[tuple[Any, str], Plan] = {}
        self._desires: DesireSpace | None = None
        self._draws: sampling.Draws | None = None
        self._events: dict[Any, Events | None] = {}
        self._beliefs: dict[Any, BeliefSpace] = {}
        self._world_priors: dict[Any, np.ndarray] = {}

    # -- what the domain says -----------------------------------------------------------

    def tables(self, layout: Any) -> Tables:
        if layout not in self._tables:
            self._tables[layout] = check_tables(self.domain, ask(self.domain, "tables", layout))
        return self._tables[layout]

    def desires(self) -> DesireSpace:
        if self._desires is None:
            space = ask(self.domain, "desires")
            if not isinstance(space, DesireSpace):
                raise DomainError(f"{getattr(self.domain, 'name', '?')}.desires: returned "
                                  f"{type(space).__name__}, not elot.engine.DesireSpace")
            check_space(self.domain, "desires", space.utilities, space.prior, len(space.objects))
            check_utilities(self.domain, space.utilities)
            self._desires = space
        return self._desires

    def initial_beliefs(self, layout: Any, world: int | None) -> BeliefSpace:
        """The domain's initial beliefs; with ``true_belief``, the true world (each world,
        when the observer does not know it). Asked and checked once per layout, as the
        tables are (a run asks for them per case, several times)."""
        n_w = len(self.tables(layout).worlds)
        if self.config.true_belief:
            if world is None:
                return BeliefSpace(np.eye(n_w), np.full(n_w, 1.0 / n_w))
            return BeliefSpace(np.eye(n_w)[[world]], np.ones(1))
        if layout not in self._beliefs:
            self._beliefs[layout] = check_beliefs(self.domain, ask(self.domain, "initial_beliefs", layout), n_w)
        return self._beliefs[layout]

    def events(self, layout: Any) -> Events | None:
        """The domain's ``events(layout)`` (checked; see :class:`Events`), or None when it has
        none: what happens besides the agent's moves, which percepts see it, and the other
        agents of the scene."""
        if layout not in self._events:
            found = None
            if callable(getattr(self.domain, "events", None)):
                found = check_events(self.domain, ask(self.domain, "events", layout), self.tables(layout))
            self._events[layout] = found
        return self._events[layout]

    def seen_bits(self, layout: Any) -> np.ndarray | None:
        """The events each of the agent's percepts sees (bit e: event e), or None."""
        events = self.events(layout)
        if events is None:
            return None
        tables = self.tables(layout)
        return seen_bits(self.domain, "the agent", events.seen, tables.percepts, tuple(events.names))

    def draws(self) -> sampling.Draws:
        """The particles' draws (``config.particles`` from ``config.seed``), made once."""
        if self._draws is None:
            self._draws = sampling.Draws.of(self.config.seed, self.config.particles, self.desires())
        return self._draws

    def _planned_count(self, method: str) -> int:
        """How many utility vectors ``method`` plans: all (exact); the distinct ones drawn,
        or before the draws are made, the most the particles could draw."""
        if method == "exact":
            return len(self.desires().utilities)
        if self._draws is None:
            return sampling.distinct_bound(self.desires().prior, self.config.particles)
        return len(self._draws.distinct)

    def planned_desires(self, method: str) -> DesireSpace:
        """The utility vectors planned under ``method``: all (exact), or the distinct ones drawn."""
        return self.desires() if method == "exact" else self.draws().planned(self.desires())

    # -- the work -----------------------------------------------------------------------

    def estimate(self, layouts: Iterable[Any], method: str | None = None) -> budget.Estimate:
        """What planning ``layouts`` needs under ``method`` (default: the config's; ``auto``:
        exact if that fits the budget, else particles). Asks the domain for tables; draws
        nothing (particles count as many distinct utility vectors as they could draw:
        :func:`~elot.engine.tables.sampling.distinct_bound`) and plans nothing."""
        layouts = list(dict.fromkeys(layouts))
        method = method or self.config.method
        if method == "auto":
            exact = self.estimate(layouts, "exact")
            return exact if self._fits(exact) else self.estimate(layouts, "smc")
        n_desires = self._planned_count(method)
        what = "utility vectors" if method == "exact" else \
            f"distinct utility vectors drawn by {self.config.particles:,} particles"
        if method != "exact" and self._draws is None:
            what += " (at most)"
        total = budget.planned(0, 0.0, 0, n_desires, what)
        for layout in layouts:
            if (layout, method) in self._plans:
                continue
            tables = self.tables(layout)
            one = budget.planning(self.config.planner, tables.shape, n_desires, self.config.grid, self.config.sweeps,
                                  objects=len(tables.objects), percepts=len(tables.percepts))
            total = budget.planned(total.bytes + one.bytes, total.seconds + one.seconds,
                                   total.size + one.size, n_desires, what)
        return total

    def check(self, layouts: Iterable[Any]) -> budget.Estimate:
        """Refuse, before any work, planning ``layouts`` over the budget under the config's
        method (``auto``: the one it would run); the estimate when it fits."""
        layouts = list(layouts)
        method = self.config.method
        if method == "auto":
            method = "exact" if self._fits(self.estimate(layouts, "exact")) else "smc"
        return budget.check_run(self.estimate(layouts, method), self.config.memory_limit, method)

    def plan(self, layout: Any, method: str = "exact") -> Plan:
        """The layout solved for the utility vectors ``method`` plans (see :meth:`planned_desires`)."""
        solved = (layout, "exact" if method == "exact" else "smc")
        if solved not in self._plans:
            start, cpu = time.perf_counter(), time.process_time()
            self._plans[solved] = plan(self.tables(layout), self.planned_desires(solved[1]), self.config)
            self.timings.planning += time.perf_counter() - start
            self.timings.cpu_planning += time.process_time() - cpu
        return self._plans[solved]

    def run(self, cases: Sequence[Case], betas: Sequence[float] | None = None,
            progress: Callable[[int, int], None] | None = None) -> list[list[Result]]:
        """For each beta (default: the config's), one result per case, in order.
        ``progress(done, total)`` is called as layouts are planned and betas evaluated."""
        betas = [self.config.beta] if betas is None else [float(b) for b in betas]
        prepared = self._prepare(cases, len(betas), progress, len(betas))
        return list(self._each_beta(cases, betas, progress, prepared))

    def each_beta(self, cases: Sequence[Case], betas: Sequence[float] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Iterator[list[Result]]:
        """:meth:`run`, one beta's results at a time (a caller that keeps only what it needs
        of each holds one beta's likelihood tables, not all of them). The checks, the
        budget and the planning happen before the first beta is handed out."""
        betas = [self.config.beta] if betas is None else [float(b) for b in betas]
        return self._each_beta(cases, betas, progress, self._prepare(cases, len(betas), progress, 1))

    def _fits(self, need: budget.Estimate) -> bool:
        return budget.over(need, budget.Limits(max_bytes=self.config.memory_limit)) is None

    def _need(self, cases, method: str, kept: int) -> budget.Estimate:
        """The run's estimate under ``method``: planning, and the results of ``kept`` betas
        held at once (exact: every hypothesis's likelihood; particles: a few numbers per
        particle and per step, and the largest table being evaluated: the likelihood of
        every prefix of its path under each pooled hypothesis, steps x hidden worlds x pooled
        initial beliefs x distinct desires)."""
        need = self.estimate((case.layout for case in cases), method)
        held = self._inversions(cases, method)
        if method == "exact":
            held += 8 * kept * len(self.desires().utilities) * sum(self._rows(case) for case in cases)
        else:
            n, distinct = self.config.particles, self._planned_count(method)
            table = max((len(case.path) * self._rows(case, min(n, len(self.initial_beliefs(case.layout,
                                                                                              case.world).beliefs)))
                         for case in cases), default=0)
            held += 8 * 10 * n * kept * len(cases) + 8 * 3 * table * distinct + sampling.DRAW_BYTES * n
            return replace(need, bytes=need.bytes + held,
                           detail=f"{need.detail}; {n:,} particles over {len(cases):,} path(s) of up to "
                                  f"{max(len(case.path) for case in cases) - 1:,} steps")
        return replace(need, bytes=need.bytes + held,
                       detail=f"{need.detail}; the inversion of {len(cases):,} path(s) of up to "
                              f"{max((len(case.path) for case in cases), default=1) - 1:,} steps")

    def _inversions(self, cases, method: str) -> int:
        """The least the cases' inversions hold (:func:`inversion_bytes`: a node per row and
        step), counted before any work; the build spends what it really makes against the
        budget as it goes (:class:`Allowance`)."""
        n_desires = self._planned_count(method)
        beliefs = (lambda case: None) if method == "exact" else \
            (lambda case: min(self.config.particles, len(self.initial_beliefs(case.layout, case.world).beliefs)))
        return sum(inversion_bytes(len(case.path) - 1, self._rows(case, beliefs(case)), n_desires) for case in cases)

    def _choose(self, cases, kept: int) -> tuple[str, str]:
        """How to infer (exact or smc) and why (a note under ``auto``); the budget is checked
        on the method chosen, and a run over it refused before any work."""
        method = self.config.method
        if method != "auto":
            budget.check_run(self._need(cases, method, kept), self.config.memory_limit, method)
            return method, ""
        exact = self._need(cases, "exact", kept)
        limit = budget.Limits(max_bytes=self.config.memory_limit).budget()
        n_desires = len(self.desires().utilities)
        if self._fits(exact):
            return "exact", (f"auto: exact ({n_desires:,} utility vectors need about "
                             f"{budget.format_bytes(exact.bytes)}, within the memory budget of "
                             f"{budget.format_bytes(limit)})")
        budget.check_run(self._need(cases, "smc", kept), self.config.memory_limit, "smc")
        return "smc", (f"auto: smc (exact inference over {n_desires:,} utility vectors would need about "
                       f"{budget.format_bytes(exact.bytes)}, over the memory budget of "
                       f"{budget.format_bytes(limit)}; {self.config.particles:,} particles plan "
                       f"{len(self.draws().distinct):,} of them)")

    def _prepare(self, cases, n_betas: int, progress, kept: int):
        """Check the cases, choose the method and check the budget (``kept`` betas' results
        held at once), plan every layout, build every inversion."""
        for case in cases:
            self._check_case(case)
        method, note = self._choose(cases, kept)
        layouts = list(dict.fromkeys(case.layout for case in cases))
        total = len(layouts) + n_betas
        limit = budget.Limits(max_bytes=self.config.memory_limit).budget()
        others = self._need(cases, method, kept).bytes - self._inversions(cases, method)
        allowance = Allowance(max(limit - others, 0), limit)
        inverters: dict[Any, Inverter] = {}
        for i, layout in enumerate(layouts):
            inverters[layout] = Inverter(self.tables(layout), self.plan(layout, method), self.config.belief_quantum,
                                         seen=self.seen_bits(layout), allowance=allowance)
            if progress:
                progress(i + 1, total)
        start, cpu = time.perf_counter(), time.process_time()
        build = self._build if method == "exact" else self._build_sampled
        built = [build(inverters[case.layout], case) for case in cases]
        self.timings.building += time.perf_counter() - start
        self.timings.cpu_building += time.process_time() - cpu
        ran = replace(self.config, method=method)
        if method == "exact" and self._seed_drawn:
            ran = replace(ran, seed=None)                 # auto ran exact: no draw was used
        return ran, note, inverters, built, len(layouts), total

    def _each_beta(self, cases, betas, progress, prepared):
        ran, note, inverters, built, n_layouts, total = prepared
        name = getattr(self.domain, "name", "?")
        for j, beta in enumerate(betas):
            start, cpu = time.perf_counter(), time.process_time()
            config = ran.with_beta(beta)
            policies = {layout: inv.policies(beta, config.backend) for layout, inv in inverters.items()}
            results = []
            for case, one in zip(cases, built):
                inverter = inverters[case.layout]
                if config.method == "exact":
                    worlds, world_prior, space, programs = one
                    likelihood = np.zeros((len(worlds), len(space.beliefs), len(self.desires().utilities)))
                    tables, exponents = zip(*(inverter.likelihood(program, policies[case.layout], config.backend)
                                              for _, program in programs))
                    tables, exponent = align(list(tables), list(exponents))
                    for i, ((rows, _), table) in enumerate(zip(programs, tables)):
                        likelihood[i, rows] = table
                    results.append(PathResult(
                        name, case.layout, worlds, world_prior, tuple(case.path), config, space, self.desires(),
                        stored_beliefs(space.beliefs, config.belief_quantum), likelihood, note=note, exponent=exponent,
                        nodes=self._nodes(inverter, case, programs, policies[case.layout], config.backend)))
                    continue
                results.append(self._particles(name, case, config, one, inverter, policies[case.layout], note))
            self.timings.evaluating.append(time.perf_counter() - start)
            self.timings.cpu_evaluating.append(time.process_time() - cpu)
            if progress:
                progress(n_layouts + j + 1, total)
            yield results

    def _particles(self, name: str, case: Case, config: EngineConfig, pool: sampling.Pool, inverter: Inverter,
                   policies: np.ndarray, note: str) -> SampledResult:
        """One case's particle run (:func:`elot.engine.tables.smc.run`) over the likelihoods
        of its path's prefixes under the pool's hypotheses."""
        table, exponent = sampling.prefix_tables(inverter, pool, policies, config.backend)
        priors = smc.Priors(pool.world_prior, pool.belief_prior, pool.desire_prior)
        trace = smc.run(table, priors, pool.start[:2], config.seed, config.ess_threshold, config.moves,
                        smc.kernels(config.backend))
        world, belief, desire = pool.hypotheses(trace.state.world, trace.state.belief, trace.desire)
        return SampledResult(
            name, case.layout, pool.worlds, pool.world_prior, tuple(case.path), config,
            world_of=world, belief_of=belief, desire_of=desire, weight=trace.state.weight,
            likelihood=table[-1][trace.state.world, trace.state.belief, trace.desire], pooled=pool.desires,
            desire_mass=trace.desire_mass, drawn=pool.hypotheses(*pool.start),
            drawn_likelihood=table[-1][pool.start], steps_ess=trace.ess, resampled=trace.resampled,
            drifted=trace.drifted, moved=trace.moved, restarted=trace.restarted,
            unpooled=sampling.unpooled(table[-1], pool), belief_space=pool.space, desire_space=self.desires(),
            beliefs=stored_beliefs(pool.space.beliefs, config.belief_quantum), note=note, exponent=exponent,
            nodes=self._nodes(inverter, case, [(pool.beliefs[w], program) for w, program in enumerate(pool.programs)],
                              policies, config.backend))

    def _nodes(self, inverter: Inverter, case: Case, programs: list, policies: np.ndarray, backend: str):
        """``nodes(every_world, models)``: the agent's states at the end of the case's path
        (:class:`~elot.engine.tables.current.Now`) from the final nodes of its programs (one
        per hidden world, over the initial belief rows ``rows``), with their likelihood under
        ``policies`` and their chance (under the true observation model and each of
        ``models``); with ``every_world``, the other worlds of the tables too, their programs
        built then for the same initial beliefs (chance only), their entries after the
        hidden worlds' (whose entry numbers are the same either way)."""
        path = list(case.path)

        def part(world: int, rows, program, lik: bool, models: tuple):
            rows = np.asarray(rows, dtype=np.intp)
            n_final = len(program.final_belief)
            owner = rows[program.node_owner[program.n_nodes - n_final:]] if n_final else rows[:0]
            chance = np.array([inverter.chances(program, path, backend, model) for model in (None, *models)])
            likelihood, exponent = inverter.node_likelihoods(program, policies, backend) if lik else (None, 0)
            return world, owner, program.final_belief, program.final_seen, chance.reshape(1 + len(models), -1), \
                likelihood, exponent

        def nodes(every_world: bool, models: tuple = ()) -> current.Now:
            worlds, tables = self._hidden(case)[0], self.tables(case.layout)
            parts = [part(worlds[i], rows, program, True, models) for i, (rows, program) in enumerate(programs)]
            # each world's likelihoods on one scale (a long path's are scaled: Inverter.likelihood)
            scaled, _ = align([p[-2] for p in parts], [p[-1] for p in parts])
            parts = [p[:-2] + (table,) for p, table in zip(parts, scaled)]
            if every_world:
                beliefs = np.asarray(self.initial_beliefs(case.layout, case.world).beliefs, dtype=np.float64)
                rows = programs[0][0]
                for world in range(len(tables.worlds)):
                    if world not in worlds:
                        parts.append(part(world, rows, inverter.build(beliefs[np.asarray(rows)], path, world),
                                          False, models)[:-1])
            # the hidden worlds' entries first, as in nodes(False): the same entry numbers
            return current.gather(parts, len(tables.worlds), policies.shape[1])

        return nodes

    def world_prior(self, layout: Any) -> np.ndarray:
        """The observer's prior over the hidden worlds: the domain's ``world_prior(layout)``
        if it has one, else uniform."""
        if layout in self._world_priors:
            return self._world_priors[layout]
        n_w = len(self.tables(layout).worlds)
        if not callable(getattr(self.domain, "world_prior", None)):
            return np.full(n_w, 1.0 / n_w)
        prior = np.asarray(ask(self.domain, "world_prior", layout), dtype=np.float64)
        check_space(self.domain, "world_prior", np.eye(n_w), prior, n_w)
        self._world_priors[layout] = prior
        return prior

    def _hidden(self, case: Case) -> tuple[tuple[int, ...], np.ndarray]:
        """The hidden worlds a case considers and their prior (the true one, if known)."""
        if case.world is not None:
            return (case.world,), np.ones(1)
        full = self.world_prior(case.layout)
        worlds = tuple(int(w) for w in np.flatnonzero(full > 0))
        return worlds, full[list(worlds)]

    def _build(self, inverter: Inverter, case: Case):
        """The hidden worlds a case considers, their prior, its initial beliefs, and for each
        world the rows of those beliefs it covers with their program."""
        worlds, prior = self._hidden(case)
        space = self.initial_beliefs(case.layout, case.world)
        beliefs = np.asarray(space.beliefs, dtype=np.float64)
        programs = []
        for world in worlds:
            # a known world (true_belief) is the only belief of its own world's rows
            rows = [world] if self.config.true_belief and case.world is None else list(range(len(beliefs)))
            programs.append((rows, inverter.build(beliefs[rows], list(case.path), world)))
        return worlds, prior, space, programs

    def _build_sampled(self, inverter: Inverter, case: Case) -> sampling.Pool:
        """The case's pool of hypotheses, where its particles start, and the programs of
        its pooled (world, initial belief) rows."""
        worlds, prior = self._hidden(case)
        return sampling.build(inverter, list(case.path), worlds, prior,
                              self.initial_beliefs(case.layout, case.world), self.draws(), self.desires().prior,
                              case.world is not None, self.config.true_belief)

    def _rows(self, case: Case, beliefs: int | None = None) -> int:
        """(hidden world, initial belief) rows of a case's result (``beliefs`` per world;
        default: every initial belief)."""
        worlds = 1 if case.world is not None else int((self.world_prior(case.layout) > 0).sum())
        return worlds * (len(self.initial_beliefs(case.layout, case.world).beliefs) if beliefs is None else beliefs)

    def _check_case(self, case: Case) -> None:
        tables = self.tables(case.layout)
        n_s, n_w = len(tables.states), len(tables.worlds)
        where = case.name or "a case"
        if not case.path:
            raise DomainError(f"{where}: the path is empty")
        if case.world is not None and not 0 <= case.world < n_w:
            raise DomainError(f"{where}: world {case.world} is not one of 0..{n_w - 1}")
        bad = [s for s in case.path if not 0 <= s < n_s]
        if bad:
            raise DomainError(f"{where}: state {bad[0]} is not one of 0..{n_s - 1}")
