"""Particle inference (sequential Monte Carlo) over the BToM hypotheses of SPEC §5 and §8,
for any world model (:class:`elot.engine.worlds.protocol.WorldModel`).

:class:`ParticleFilter` implements the filter protocol of :mod:`elot.engine.worlds.filters` for the
same target as :class:`~elot.engine.worlds.exact.ExactFilter` — the posterior over goals ×
initial states × the agent's initial beliefs, under the same uniform prior and the same
Boltzmann QMDP action likelihoods — without enumerating beliefs: a particle is ``(goal,
true initial state, k belief particles)``, the initial states being enumerated as for
exact inference (the world model's ``hypotheses()``).

* **Prior**: goals uniform, true state uniform, belief uniform over multisets of k states
  (drawn by stars and bars), as exact inference enumerates them (:mod:`elot.engine.worlds.spaces`).
* **Step**: each particle is weighted by the probability of the observed action under its
  policy (``btom_ext.particles.step_loglik``). A true state that disagrees with what is
  seen after it is drawn again among the live states (its exact conditional: the policy
  sees the true state only through which states are live), except under true-belief,
  where the belief is the true state and such a particle is ruled out (weight 0); when
  all are, N particles are drawn again from the prior among the live states and weighted
  by the whole history (importance sampling). Each particle also keeps the history's
  likelihood under every goal, so the goal posterior is averaged exactly over goals given
  each particle's state and belief (Rao–Blackwellized).
* **Resampling** (systematic) when the effective sample size falls below
  ``ess_threshold × N``, or when the particles' goals drift from what their per-goal
  likelihoods say (:data:`GOAL_DRIFT`), followed by **rejuvenation**: Metropolis–Hastings
  moves that redraw the true state (among the live ones) and :data:`BELIEF_MOVES` belief
  particles in turn, accepted by the likelihood of the whole history so far, then the goal
  drawn from its full conditional (Gibbs), so that copies made by resampling spread out
  again. The history is kept across calls (``btom_ext.particles.History``): its terms
  summed per epoch (a run of steps with the same live states) and per kept belief
  multiset, a move reading only the epochs where the old and new kept sets differ and
  rejected as soon as it is sure to be. The moves leave the posterior at t invariant; the
  belief moves run at geometrically spaced resamplings (:data:`BELIEF_MOVE_SPACING`), so
  their cost is O(N) per action.
* **Islands**: with ``islands=M`` the particles are M independent sub-filters, each
  resampling and moving its own particles and keeping its total weight (its likelihood
  estimate) through its resampling; one by default (:data:`ISLANDS`).
* **Uncertainty**: the ESS after every step; a statement's L carries a standard error
  (delta method from ``Var π = π(1−π)/M`` and the variance of P: the larger of
  ``P̃(1−P̃)/ESS`` and the spread between groups of particles — the islands, or with one
  island the particles' lineages :data:`LINEAGE_LAG` resamplings back; see
  :func:`elot.judging.between_runs_variance`). The ESS is computed again with the copies
  resampling leaves pooled (``ess_distinct``: particles holding one (true state, belief)
  count once, with their summed weight); where that falls below :data:`FEW_DISTINCT`
  while the ESS reads :data:`DEGENERATE_RATIO` times more, or a few islands hold all the
  weight, the run warns that the filter may have degenerated
  (:meth:`~elot.engine.worlds.particle_result.ParticleInference.warnings`).
* **π**: the statement prior is estimated from ``M = max(N,`` :data:`PRIOR_DRAWS` ``)``
  independent draws of the prior (the rows of :func:`elot.domains.rows.judged`
  that carry prior mass), never from the particles, whose prior is no longer uniform
  once they have been weighted and resampled.

The particles (:class:`~elot.engine.worlds.particle_result.Particles`) and the result scoring
reads (:class:`~elot.engine.worlds.particle_result.ParticleInference`) are
:mod:`elot.engine.worlds.particle_result`'s; the worlds, their stepping and what the agent sees
in them are the world model's, which also refuses, before any work, a run that would not
fit (its ``check_particle_cost``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from btom_ext.reference import Q_FLOOR
from elot.engine.settings import fresh_seed
from elot.engine.tables.smc import kernels as _kernels   # one loader of the particle kernels, both engines'
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES
from elot.engine.worlds.methods import FilterConfig, ParticleError, check_particles
from elot.engine.worlds.particle_result import ParticleInference, Particles, effective_size, unique_rows
from elot.engine.worlds.spaces import SAMPLED_VARIANTS, ParticleSpace
from elot.engine.worlds.protocol import WorldModel
from elot.output import count

#: Resample and rejuvenate when the particles' goals disagree with their own per-goal
#: likelihoods by more than this total variation. When every particle holds one goal the
#: weights stay equal and the ESS at N while later actions favour a goal no particle holds
#: any more (the non-planning model on one built-in scenario: stuck at one goal
#: while the exact posterior moved to another); the likelihood of every goal, kept per particle, sees it.
GOAL_DRIFT = 0.05
#: Least number of prior draws π is estimated from (N when there are more particles): π's
#: standard error is then at most 0.005, and the draws cost only the statement's truth
#: value in their distinct (state, belief) rows.
PRIOR_DRAWS = 10_000
#: Belief particles redrawn per sweep (each a Metropolis–Hastings move; at most k).
BELIEF_MOVES = 3
#: Belief moves are accepted by the likelihood of the whole history, O(N t) at time t, so
#: they run at a resampling only once the history has grown by this fraction since they
#: last ran (and always at the first): their total cost over T actions is then at most
#: ``(1 + 1/SPACING)`` N T history terms, O(N) per action whatever T is. The other moves
#: (the true state, and the goal from its full conditional) need no history pass and run
#: at every resampling.
BELIEF_MOVE_SPACING = 0.25


#: Independent sub-filters the particles are split into by default (each resamples and
#: moves only its own particles, and carries its own likelihood estimate; with several, the
#: spread between their estimates is what a statement's standard error is taken from). One:
#: on a 446,400-hypothesis map, 16 islands of 625 particles carried the bias of a
#: 625-particle filter (−0.11 on one statement, z = 14 over seeds) into the 10⁴-particle
#: estimate; the standard error of one filter comes from its lineages (:data:`LINEAGE_LAG`).
ISLANDS = 1
#: The standard error of one filter (Olsson & Douc's fixed-lag estimator, after Chan & Lai):
#: particles are grouped by their ancestor this many resamplings back, and the spread of
#: the groups' contributions ``Σ_g (Σ_{i in g} w_i (f_i − P))²`` estimates Var P. Copies that
#: resampling made of one particle are counted as one draw, as they are.
LINEAGE_LAG = 4
#: Fewest particles an island is given by default (fewer islands when N is small).
MIN_ISLAND = 50


def check_islands(islands: Any, particles: int) -> int:
    """How many islands N particles are split into: ``islands`` (None: :data:`ISLANDS`, or
    fewer so that each holds at least :data:`MIN_ISLAND` particles, and at least one)."""
    if islands is None:
        return max(1, min(ISLANDS, particles // MIN_ISLAND))
    if isinstance(islands, bool) or not isinstance(islands, (int, np.integer)) or not 1 <= islands <= particles:
        raise ParticleError(f"the number of islands must be a whole number from 1 to the particles ({particles:,}), "
                            f"not {islands!r}", hint=f"use e.g. islands={ISLANDS}")
    return int(islands)


def sample_multisets(rng: np.random.Generator, n_states: int, k: int, size: int, kernels=None) -> np.ndarray:
    """``size`` multisets of k states drawn uniformly among all ``C(n+k−1, k)`` (the prior
    over initial beliefs), as sorted rows ``(size, k)``: a uniform k-subset of
    ``range(n+k−1)`` (the k smallest of uniform draws, ``kernels.smallest``; the NumPy
    reference's when ``kernels`` is None), sorted, minus ``0..k−1`` (stars and bars)."""
    if k == 1:
        return rng.integers(0, n_states, size=(size, 1), dtype=np.int32)
    draws = rng.random((size, n_states + k - 1))
    chosen = (kernels or _kernels("reference")).smallest(draws, k) if n_states + k - 1 > k else \
        np.tile(np.arange(k), (size, 1))
    return (chosen - np.arange(k)).astype(np.int32)


def _classes(views: Sequence, previous: np.ndarray | None) -> np.ndarray:
    """Class ids of states that agreed on every view so far: ``alive[s, j]`` of exact
    inference is ``cls[s] == cls[j]``, without the n × n table."""
    ids: dict = {}
    prev = [0] * len(views) if previous is None else previous.tolist()
    return np.array([ids.setdefault((p, v), len(ids)) for p, v in zip(prev, views)], dtype=np.int32)


def _logsumexp(values: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis, row by row (-inf where a row is all -inf)."""
    top = values.max(axis=-1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(values - safe[..., None]).sum(axis=-1))


class ParticleFilter:
    """Sequential Monte Carlo over BToM hypotheses (see the module) on a
    :class:`~elot.engine.worlds.protocol.WorldModel`; implements :class:`~elot.engine.worlds.filters.Filter`.
    ``particles`` N, ``seed`` for the generator (None: fresh entropy), ``ess_threshold`` and
    ``moves`` as in the module."""

    def __init__(self, world_model: WorldModel, config: FilterConfig, *, ess_threshold: float = DEFAULT_ESS_THRESHOLD,
                 moves: int = DEFAULT_MOVES, prior_draws: int | None = None, goal_drift: float = GOAL_DRIFT,
                 islands: int | None = None) -> None:
        model, k, conventions = config.variant, config.k, config.conventions
        if model not in SAMPLED_VARIANTS:
            raise ParticleError(f"the {model} model reproduces an artifact of the reference's "
                                "exact enumeration; particle inference does not run it",
                                hint="use --inference exact with this model")
        self.world_model = world = world_model
        self.n = config.particles
        self.prior_draws = max(self.n, PRIOR_DRAWS) if prior_draws is None else check_particles(prior_draws)
        world.check_particle_cost(particles=self.n, prior_draws=self.prior_draws)
        self.core = world.core   # the backend, its limits checked
        self.model, self.beta, self.backend = model, config.beta, config.backend
        self.conventions = conventions
        self.kernels = _kernels(config.backend)
        goals, states, family = world.hypotheses()
        self.space = ParticleSpace(model, goals, states, k, conventions, family, world.goal_sort)
        # None: a fresh seed from the OS, drawn here and reported with the results, so any
        # run can be repeated (--seed N) once its numbers turn out interesting
        self.seed = fresh_seed() if config.seed is None else config.seed
        self.config = config.ran("smc", seed=self.seed)
        self.ess_threshold, self.moves = ess_threshold, moves
        self.goal_drift = goal_drift
        self.n_islands = check_islands(islands, self.n)
        # Island i holds the particles island_bounds[i]:island_bounds[i+1].
        self.island_bounds = np.linspace(0, self.n, self.n_islands + 1).astype(np.intp)
        self.island_of = np.repeat(np.arange(self.n_islands), np.diff(self.island_bounds))
        self.island_size = np.diff(self.island_bounds)
        world.plan(goals)
        self.goal_columns = world.goal_columns

    # -- the prior ------------------------------------------------------------------------

    def _draw(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        space = self.space
        goal = rng.integers(0, space.n_goals, size=size, dtype=np.int32)
        state = rng.integers(0, space.n_states, size=size, dtype=np.int32)
        if self.model == "true-belief":
            beliefs = np.repeat(state[:, None], space.k, axis=1)
        else:
            beliefs = sample_multisets(rng, space.n_states, space.k, size, self.kernels)
        return goal, state, np.ascontiguousarray(beliefs, dtype=np.int32)

    def init(self) -> None:
        """N draws of the prior, weighted by what is seen in the true initial state, and
        M = max(N, :data:`PRIOR_DRAWS`) more (kept apart) from which statement priors π are
        estimated."""
        self.rng = np.random.default_rng(self.seed)
        goal, state, beliefs = self._draw(self.rng, self.n)
        self.prior_sample = self._draw(self.rng, self.prior_draws)
        self.actions: list[tuple[str, ...]] = []
        labels = self.world_model.start(self.space.states)
        self.cls = _classes(labels[:-1].tolist(), None)
        self.live = (labels[:-1] == labels[-1]).astype(np.uint8)
        state = self._keep_live(state)
        logw = np.where(self.live[state] > 0, 0.0, -np.inf)
        # The history's log-likelihood under every goal, per particle (N, G): the goal's
        # full conditional, for Gibbs moves, and the goal posterior given the rest.
        self.hist_goals = np.repeat(logw[:, None], self.space.n_goals, axis=1)
        # Every step so far, with its log-likelihood terms summed per epoch and kept across
        # calls, for the history likelihood of rejuvenation moves.
        self.past = self.kernels.History(self.live, self.space.n_goals, self.space.k, self.beta)
        self.history_live = [self.live]
        self.history_cls = [self.cls]
        self.history_worlds = [self.world_model.worlds]
        self.ess: list[float] = []
        self.ess_distinct: list[float] = []
        self._ids_of: tuple | None = None
        self.resampled: list[bool] = []
        self.accepted: list[float] = []
        self.distinct: list[int] = []
        self.goal_probs: list[np.ndarray] = []
        self.island_mass: list[np.ndarray] = []
        # each particle's ancestor 1, 2, ... LINEAGE_LAG resamplings back (its index then)
        self.lineage: list[np.ndarray] = []
        self.groups: list[np.ndarray] = []
        self.restarts = 0
        # when belief moves last ran in each island (see BELIEF_MOVE_SPACING)
        self.belief_moves_at = np.zeros(self.n_islands)
        self.current = Particles(goal, state, beliefs, logw)
        self._after_update(0)
        self.history = [self.current.kept()]
        self.distinct.append(self.current.distinct())

    # -- a step ---------------------------------------------------------------------------

    def _values(self, options: Sequence[tuple[str, ...]]) -> np.ndarray:
        """``Q[g, j, a]`` for the live states j (:data:`Q_FLOOR` elsewhere): the live worlds
        after each option (every live world looks like the real one, so each option is
        possible there), then their path costs (the world model's ``path_costs``)."""
        live_states = np.flatnonzero(self.live)
        options = tuple(options)
        h = np.full((len(self.goal_columns), self.space.n_states, len(options)), -1, dtype=np.int32)
        if len(live_states):
            costs = self.world_model.path_costs(live_states, options).reshape(len(live_states), len(options), -1)
            h[:, live_states, :] = costs[:, :, self.goal_columns].transpose(2, 0, 1)
        values = np.full(h.shape, Q_FLOOR)
        values[:, live_states, :] = np.where(h[:, live_states] < 0, Q_FLOOR,
                                             np.maximum(-1.0 - h[:, live_states], Q_FLOOR))
        return values

    def step(self, action: tuple[str, ...]) -> None:
        """Weight the particles by ``action``, rule out those that disagree with what is seen
        after it, and resample and rejuvenate when the effective sample size is low."""
        action = tuple(action)
        t = len(self.actions) + 1
        world = self.world_model
        options, chosen = world.options(action)
        values = self._values(options)
        live_states = self.live > 0
        fallback = np.ascontiguousarray(values[:, live_states, :].mean(axis=1))
        reached = 1 - world.open_goals(self.space.goals)
        p = self.current
        by_goal = self.kernels.step_loglik(values, fallback, chosen, self.beta, p.state, p.beliefs, self.live, reached)
        loglik = by_goal[np.arange(self.n), p.goal]
        labels = world.advance(action)   # the worlds after the action
        self.actions.append(action)
        if labels is not None:
            self.cls = _classes(labels[:-1].tolist(), self.cls)
            self.live = self.live & (labels[:-1] == labels[-1]).astype(np.uint8)
        p = Particles(p.goal, self._keep_live(p.state), p.beliefs, p.logw)
        consistent = self.live[p.state] > 0
        logw = np.where(consistent, p.logw + loglik, -np.inf)
        # in place (the table is the filter's own): no (N, G) temporaries per step
        np.add(self.hist_goals, by_goal, out=self.hist_goals)
        self.hist_goals[~consistent] = -np.inf
        self.past.add_step(values, fallback, chosen, reached, self.live)
        self.history_live.append(self.live)
        self.history_cls.append(self.cls)
        self.history_worlds.append(world.worlds)
        self.current = Particles(p.goal, p.state, p.beliefs, logw)
        self._after_update(t)
        self.history.append(self.current.kept())
        # Only resampling and its moves change which hypotheses the particles hold.
        self.distinct.append(self.current.distinct() if self.resampled[-1] else self.distinct[-1])

    def _keep_live(self, state: np.ndarray) -> np.ndarray:
        """The true states, those ruled out by what was just seen redrawn among the live ones.

        Under the full and non-planning models the agent's policy depends on its goal and
        belief, and on the true state only through which states are live; so given the rest
        the true state is uniform over the live states (the prior is uniform). A particle
        whose state is ruled out draws it again from that conditional (a Gibbs step) instead
        of dying: an observation never empties the particles unless it rules out every
        state. Under true-belief the belief is the true state, so such particles die."""
        dead = self.live[state] == 0
        live_states = np.flatnonzero(self.live)
        if self.model == "true-belief" or not dead.any() or not len(live_states):
            return state
        state = state.copy()
        state[dead] = live_states[self.rng.integers(0, len(live_states), size=int(dead.sum()))]
        return state

    def _restart(self) -> None:
        """Every particle was ruled out: draw N anew from the prior restricted to the live
        states and weight each by the likelihood of the whole history (importance sampling
        from the prior: valid, and its ESS says how noisy). Only true-belief particles die
        (see :meth:`_keep_live`), when no particle's state agrees with an observation."""
        live_states = np.flatnonzero(self.live).astype(np.int32)
        if not len(live_states):
            return
        goal, _, beliefs = self._draw(self.rng, self.n)
        state = live_states[self.rng.integers(0, len(live_states), size=self.n)]
        if self.model == "true-belief":
            beliefs = np.ascontiguousarray(np.repeat(state[:, None], self.space.k, axis=1))
        self.hist_goals = self.past.loglik_goals(state, beliefs)
        self.current = Particles(goal, state, beliefs, self.hist_goals[np.arange(self.n), goal].copy())
        self.lineage = []   # fresh draws: no common ancestors
        self.restarts += 1

    def _after_update(self, t: int) -> None:
        if not np.isfinite(self.current.logw).any():
            self._restart()
        logw = self.current.logw
        if not np.isfinite(logw).any():
            where = "the initial observation" if t == 0 else f"action {t} ({' '.join(self.actions[-1])})"
            if not self.live.any():
                raise ParticleError(
                    f"no hypothesis explains the observations up to {where}: no initial state the "
                    "hypotheses allow agrees with what was seen",
                    hint=self.world_model.hint("prior"),
                )
            raise ParticleError(
                f"particle inference lost every particle at {where}: no hypothesis drawn from the prior "
                f"({count(self.n, 'particle')}, then as many again) agrees with what was seen",
                hint=self.world_model.hint("particles"),
            )
        weights = self.current.weights()
        ess = effective_size(weights)
        self.ess.append(ess)
        # The same with the copies resampling left pooled: particles that hold one (state,
        # belief) are one judged row however many they are, so an ESS near N while the
        # particles share a few hypotheses shows here (and in the run's warning).
        self.ess_distinct.append(effective_size(np.bincount(self._judged_ids(), weights=weights)))
        # Each island decides alone (its ESS, its goals' drift) and resamples among its own
        # particles, so the islands stay independent runs; the weights' total of an island
        # (its likelihood estimate Z_i) is kept through its resampling.
        given, mass, square, drift = self.kernels.island_summary(self.hist_goals, weights, self.current.goal,
                                                                 self.island_of, self.n_islands)
        self.island_mass.append(mass)
        with np.errstate(divide="ignore", invalid="ignore"):
            island_ess = np.square(mass) / square
            drift = 0.5 * drift / mass
        need = (mass > 0) & ((island_ess < self.ess_threshold * self.island_size)
                             | (self.moves > 0 and t > 0 and drift > self.goal_drift))
        resample = bool(need.any())
        self.resampled.append(resample)
        self.accepted.append(np.nan)
        if resample:
            chosen = np.flatnonzero(need)
            self._resample(chosen)
            if self.moves > 0 and t > 0:
                # belief moves in an island only once its history grew enough since they last ran there
                due = t >= self.belief_moves_at * (1 + BELIEF_MOVE_SPACING)
                rates = []
                for beliefs_too in (True, False):
                    group = chosen[due[chosen] == beliefs_too]
                    if len(group):
                        rates.append((self._rejuvenate_rows(self._rows_of(group), beliefs_too), len(group)))
                self.belief_moves_at[chosen[due[chosen]]] = t
                self.accepted[-1] = sum(r * m for r, m in rates) / sum(m for _, m in rates)
            given = self._goal_given_rest(self.current.weights())
        self.goal_probs.append(given)
        # the particles' lineage groups (shared with the step before when nothing was resampled)
        if self.groups and not self.resampled[-1]:
            self.groups.append(self.groups[-1])
        else:
            group = self.lineage[-1] if self.lineage else np.arange(self.n)
            if self.n_islands > 1:   # islands are the groups: independent runs
                group = self.island_of
            self.groups.append(group.astype(np.int32))

    def _judged_ids(self) -> np.ndarray:
        """One integer per particle, equal for particles holding the same (true state,
        belief multiset); recomputed only when the particles changed."""
        p = self.current
        if self._ids_of is not None and self._ids_of[0] is p.state and self._ids_of[1] is p.beliefs:
            return self._ids_of[2]
        table = np.concatenate([p.state[:, None], np.sort(p.beliefs, axis=1)], axis=1)
        ids = unique_rows(table, self.space.n_states + 1, return_inverse=True)[1].ravel()
        self._ids_of = (p.state, p.beliefs, ids)
        return ids

    def _goal_given_rest(self, weights: np.ndarray) -> np.ndarray:
        """The goal posterior as Σ_i w_i p(goal | particle i's state, belief, history): the
        goal prior is uniform and independent of the rest, so that conditional is the
        normalized likelihood of each goal (Rao–Blackwellized: no noise from sampled goals)."""
        return self.kernels.goal_posterior(self.hist_goals, weights)

    def _resample(self, islands: np.ndarray) -> None:
        """Systematic resampling inside each of ``islands``, each particle then carrying its
        island's mean weight (so the island's total, its likelihood estimate, stays)."""
        p = self.current
        idx = np.arange(self.n)
        logw = p.logw.copy()
        for i in islands:
            lo, hi = self.island_bounds[i], self.island_bounds[i + 1]
            block = p.logw[lo:hi]
            top = block.max()
            w = np.exp(block - top)
            total = w.sum()
            idx[lo:hi] = lo + self.kernels.systematic_resample(w / total, float(self.rng.random()))
            logw[lo:hi] = top + np.log(total / (hi - lo))
        logw -= logw.max()   # only ratios count: keep the numbers near 0
        self.lineage = [idx] + [older[idx] for older in self.lineage[:LINEAGE_LAG - 1]]
        self.hist_goals = self.hist_goals[idx]
        self.current = Particles(p.goal[idx], p.state[idx], np.ascontiguousarray(p.beliefs[idx]), logw)

    def _rows_of(self, islands: np.ndarray) -> np.ndarray:
        """The particles of ``islands``."""
        return np.concatenate([np.arange(self.island_bounds[i], self.island_bounds[i + 1]) for i in islands])

    def _rejuvenate_rows(self, rows: np.ndarray, beliefs_too: bool) -> float:
        """:meth:`_rejuvenate` on the particles ``rows`` alone (those just resampled)."""
        if len(rows) == self.n:
            return self._rejuvenate(beliefs_too)
        whole, hist, n = self.current, self.hist_goals, self.n
        self.current = Particles(whole.goal[rows], whole.state[rows], np.ascontiguousarray(whole.beliefs[rows]),
                                 whole.logw[rows])
        self.hist_goals, self.n = np.ascontiguousarray(hist[rows]), len(rows)
        try:
            rate = self._rejuvenate(beliefs_too)
            part = self.current
            goal, state, beliefs = whole.goal.copy(), whole.state.copy(), whole.beliefs.copy()
            goal[rows], state[rows], beliefs[rows] = part.goal, part.state, part.beliefs
            hist = hist.copy()
            hist[rows] = self.hist_goals
        finally:
            self.n = n
        self.current, self.hist_goals = Particles(goal, state, beliefs, whole.logw), hist
        return rate

    # -- rejuvenation ---------------------------------------------------------------------

    def _tables(self) -> tuple:
        """The steps so far as ``history_loglik`` takes them (for checks against it)."""
        return self.past.tables()

    def _rejuvenate(self, beliefs_too: bool = True) -> float:
        """Moves on every particle that leave the posterior invariant: a new true state among
        the live ones, k belief particles redrawn one at a time (Metropolis–Hastings,
        accepted by the likelihood of the whole history; only when ``beliefs_too``), then
        the goal drawn from its full conditional (Gibbs). Each is a kernel that leaves the
        posterior at t invariant, so any of them may be skipped at any resampling (see
        :data:`BELIEF_MOVE_SPACING`). The MH moves' acceptance rate."""
        space, rng, n = self.space, self.rng, self.n
        rows = np.arange(n)
        live_states = np.flatnonzero(self.live).astype(np.int32)
        accepted = tried = 0
        kinds = [("state", None)] * (len(live_states) > 1)
        if self.model != "true-belief" and beliefs_too:
            # belief particles in turn (slots of a tuple shuffled first: random ones)
            kinds += [("belief", i) for i in range(min(space.k, BELIEF_MOVES))]
        for _ in range(self.moves):
            sweep_start, start_hist = self.current, self.hist_goals.copy()
            if self.model != "true-belief" and beliefs_too:
                # The scan below redraws slot 0, 1, ..., k-1 of the tuple each particle
                # stores its multiset in; shuffling the tuple first (which changes no
                # hypothesis) makes the sweep depend on the multiset alone, as it must.
                p = self.current
                self.current = Particles(p.goal, p.state, np.ascontiguousarray(rng.permuted(p.beliefs, axis=1)),
                                         p.logw)
            for kind, slot in kinds:
                p = self.current
                state, beliefs = p.state, p.beliefs
                hist = self.hist_goals[rows, p.goal]
                log_hastings = 0.0
                if kind == "state":
                    state = live_states[rng.integers(0, len(live_states), size=n)]
                    if self.model == "true-belief":
                        beliefs = np.ascontiguousarray(np.repeat(state[:, None], space.k, axis=1))
                else:
                    new = rng.integers(0, space.n_states, size=n, dtype=np.int32)
                    old = beliefs[:, slot]
                    # Redrawing one slot is symmetric between ordered k-tuples, whose
                    # (exchangeable) target is the multiset's probability over its number of
                    # orderings (multisets are uniform a priori): hence c'(new) / c(old).
                    before_count = (beliefs == old[:, None]).sum(axis=1)
                    beliefs = beliefs.copy()
                    beliefs[:, slot] = new
                    after_count = (beliefs == new[:, None]).sum(axis=1)
                    log_hastings = np.log(after_count) - np.log(before_count)
                if kind == "state" and self.model == "true-belief":
                    # The belief is the true state, so a hypothesis is (goal, state) and the
                    # state's posterior with the goal summed out is the same for every
                    # particle: draw it from there (a Gibbs step from the exact conditional).
                    # A move judged under the particle's own goal mixes too slowly when that
                    # goal explains two states equally and another goal tells them apart.
                    goals = np.repeat(np.arange(space.n_goals, dtype=np.int32), len(live_states))
                    states = np.tile(live_states, space.n_goals)
                    every = self.past.loglik(
                        goals, states, np.ascontiguousarray(np.repeat(states[:, None], space.k, axis=1))
                    ).reshape(space.n_goals, len(live_states))
                    marginal = _logsumexp(every.T)
                    weights = np.exp(marginal - marginal.max())
                    pick = rng.choice(len(live_states), size=n, p=weights / weights.sum())
                    state = live_states[pick]
                    self.hist_goals = np.ascontiguousarray(every.T[pick])
                    self.current = Particles(p.goal, state.astype(np.int32),
                                             np.ascontiguousarray(np.repeat(state[:, None], space.k, axis=1),
                                                                  dtype=np.int32), p.logw)
                    tried += n
                    accepted += int((state != p.state).sum())
                    continue
                log_u = np.log(rng.random(n))
                if kind == "state":
                    # The policy depends on the true state only through which states are
                    # live, and a state live now was live before: the move keeps the
                    # history's likelihood under every goal, so it is always accepted.
                    proposed = hist
                else:
                    # The old history plus the difference over the epochs where the kept sets
                    # differ; -inf as soon as the new history is sure to be rejected (the
                    # acceptance test log u < new - old + log Hastings, decided early).
                    proposed = self.past.propose(p.goal, p.beliefs, beliefs, hist, log_u - log_hastings)
                with np.errstate(invalid="ignore"):
                    log_alpha = proposed - hist + log_hastings
                take = log_u < log_alpha
                tried += n
                accepted += int(take.sum())
                # Under the particle's own goal; the other goals' likelihoods are stale
                # until the Gibbs draw below recomputes them all.
                self.hist_goals[rows, p.goal] = np.where(take, proposed, hist)
                self.current = Particles(p.goal, np.where(take, state, p.state).astype(np.int32),
                                         np.ascontiguousarray(np.where(take[:, None], beliefs, p.beliefs),
                                                              dtype=np.int32),
                                         p.logw)
            # Gibbs: the goal from its full conditional, which needs the history under every
            # goal for the particles as they are now. A particle whose belief no move changed
            # keeps its row of hist_goals (kept step by step, the same sum in the same order
            # as history_loglik's, and a new true state keeps it); for the others, each
            # goal's history at the sweep's start plus the steps where the beliefs differ.
            p = self.current
            changed = np.flatnonzero((np.sort(p.beliefs, axis=1) != np.sort(sweep_start.beliefs, axis=1)).any(axis=1))
            if len(changed):
                self.hist_goals[changed] = self.past.change(None, sweep_start.beliefs[changed], p.beliefs[changed],
                                                            start_hist[changed])
            top = self.hist_goals.max(axis=1, keepdims=True)
            cumulative = np.cumsum(np.exp(self.hist_goals - top), axis=1)
            u = rng.random(n) * cumulative[:, -1]
            goal = np.minimum((cumulative < u[:, None]).sum(axis=1), space.n_goals - 1).astype(np.int32)
            self.current = Particles(goal, p.state, p.beliefs, p.logw)
        return accepted / tried if tried else np.nan

    # -- the protocol's other half ---------------------------------------------------------

    def result(self) -> "ParticleInference":
        """The :class:`ParticleInference` of the actions so far."""
        return ParticleInference(
            scenario=self.world_model.scenario, space=self.space, config=self.config, actions=tuple(self.actions),
            real=tuple(self.world_model.real), worlds_by_step=tuple(self.history_worlds),
            particles_by_step=tuple(self.history), classes=np.stack(self.history_cls),
            live=np.stack(self.history_live), ess=np.array(self.ess), ess_distinct=np.array(self.ess_distinct),
            resampled=np.array(self.resampled),
            acceptance=np.array(self.accepted), distinct=np.array(self.distinct),
            goal_probs=np.array(self.goal_probs), restarts=self.restarts, prior_sample=self.prior_sample,
            island_of=self.island_of, island_mass=np.array(self.island_mass),
            groups=tuple(self.groups),
        )
