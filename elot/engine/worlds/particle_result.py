"""What particle inference gives (SPEC §8), over any world model: the particles
(:class:`Particles`; their space is :class:`~elot.engine.worlds.spaces.ParticleSpace`), their
beliefs made dense as exact inference filters them (:func:`dense_beliefs`), and the
result :class:`ParticleInference`, read as an exact :class:`~elot.engine.worlds.exact.Inference`
is: the rows a statement is judged on, as arrays (:mod:`elot.domains.rows` makes them ELoT
rows), its diagnostics (effective sample sizes, degeneracy warnings) and how it ran.
:class:`~elot.engine.worlds.particles.ParticleFilter` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from btom_ext.reference import EPSILON
from elot.engine.worlds.spaces import ParticleSpace
from elot.engine.worlds.trajectory import Trajectory
from elot.numeric import dot_columns
from elot.output import count
from elot.settings import FEW_EFFECTIVE

#: An effective sample size (copies of one hypothesis pooled) below which a run says the
#: filter degenerated: the normal approximation behind the standard errors needs more.
FEW_DISTINCT = FEW_EFFECTIVE
#: ... while the ESS over particles counts this many times as many: copies look like
#: independent draws.
DEGENERATE_RATIO = 4
#: Fewer effective islands than this (their weights ``Z_i / Σ Z`` held by a few) and the
#: standard errors are not to be trusted: a run warns.
FEW_ISLANDS = 4


@dataclass(frozen=True, eq=False)
class Particles:
    """N weighted hypotheses: ``goal (N,)``, ``state (N,)``, ``beliefs (N, k)``, ``logw (N,)``."""

    goal: np.ndarray
    state: np.ndarray
    beliefs: np.ndarray
    logw: np.ndarray

    def distinct(self) -> int:
        """How many distinct hypotheses the particles hold (the measure of collapse)."""
        table = np.stack([self.goal, self.state, *np.sort(self.beliefs, axis=1).T], axis=1)
        return len(unique_rows(table, int(max(self.goal.max(), self.state.max(), self.beliefs.max())) + 1))

    def weights(self) -> np.ndarray:
        logw = np.asarray(self.logw, dtype=np.float64)
        top = logw.max()
        w = np.exp(logw - top)
        return w / w.sum()

    def kept(self) -> "Particles":
        """These particles as a step's record keeps them: the log weights relative to their
        largest, in float32 (4 bytes a particle instead of 8; a weight within e^-20 of the
        largest moves by less than 2e-6 of itself), the rest shared."""
        logw = self.logw
        top = logw.max() if np.isfinite(logw).any() else 0.0
        return Particles(self.goal, self.state, self.beliefs, (logw - top).astype(np.float32))


def unique_rows(table: np.ndarray, radix: int, **asked):
    """``np.unique(table, axis=0, **asked)`` of a table of non-negative integers below
    ``radix`` (hypotheses as rows of goal, state and belief indices); where a row fits in
    62 bits as one integer in base ``radix``, a flat sort of those (much faster), whose
    unique values are then the integers rather than the rows."""
    if radix ** table.shape[1] < 2**62:
        flat = np.zeros(len(table), dtype=np.int64)
        for column in table.T:
            flat = flat * radix + column
        return np.unique(flat, **asked)
    return np.unique(table, axis=0, **asked)


def effective_size(weights: np.ndarray) -> float:
    """Kish's effective sample size ``1 / Σ w²`` of normalized weights."""
    return float(1.0 / np.square(weights).sum())


def dense_beliefs(beliefs: np.ndarray, k: int, alive: np.ndarray) -> np.ndarray:
    """Rows of k belief particles ``(m, k)`` as the dense beliefs exact inference filters
    (``filter_beliefs`` of the initial weights count/k, ε elsewhere, with ``alive (m, S)``),
    bit for bit, in column-major order (the evaluator reads beliefs by world).

    ``filter_beliefs`` sums a row's kept weights in index order: the ε weights vanish in a
    sum with any particle's weight, so the total is the particles' (summed in state order)
    or, with no particle kept, (number kept) × ε exactly; ε rows are then filled with one
    division each instead of arithmetic on denormal numbers in every cell (each such
    operation costs ~100 times a normal one)."""
    m, n_s = alive.shape
    rows = np.arange(m)
    ordered = np.sort(beliefs, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    copies = (ordered[:, :, None] == ordered[:, None, :]).sum(axis=2)
    kept = first & alive[rows[:, None], ordered]
    weight = np.where(kept, copies / k, 0.0)
    total = np.zeros(m)
    for i in range(ordered.shape[1]):   # index order, as filter_beliefs sums
        total = total + weight[:, i]
    fallback = total == 0.0
    n_alive = alive.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(fallback, n_alive * EPSILON, total)
        fill = np.where(total > 0.0, EPSILON / np.where(total > 0.0, total, 1.0), 0.0)
    out = np.zeros((m, n_s), order="F")
    np.copyto(out, fill[:, None], where=alive)
    hit = kept & ~fallback[:, None]
    r, i = np.nonzero(hit)
    out[r, ordered[r, i]] = weight[r, i] / total[r]
    return out


@dataclass(eq=False)
class ParticleInference(Trajectory):
    """The result of particle inference, read as an exact :class:`~elot.engine.worlds.exact.Inference`
    is (goal and state posteriors, worlds, the rows scoring judges): particles are weighted
    hypotheses. ``ess[t]`` is the effective sample size after step t (before any
    resampling), ``resampled[t]`` whether the particles were resampled then,
    ``acceptance[t]`` the rejuvenation moves' acceptance rate and ``distinct[t]`` how many
    distinct hypotheses the particles hold after it (copies left by resampling count once)."""

    scenario: Any
    space: ParticleSpace
    #: The configuration that ran: ``smc``, with the seed drawn when none was given.
    config: Any
    actions: tuple[tuple[str, ...], ...]
    real: tuple
    worlds_by_step: tuple
    particles_by_step: tuple[Particles, ...] = field(repr=False)
    classes: np.ndarray = field(repr=False)   # (T+1, n_s): states agree up to t iff same class
    live: np.ndarray = field(repr=False)      # (T+1, n_s): state agrees with the real world up to t
    ess: np.ndarray = field(repr=False)
    #: The ESS with copies of one (true state, belief) pooled: at most ``ess``, and far below
    #: it when resampling left many copies of a few hypotheses.
    ess_distinct: np.ndarray = field(repr=False)
    resampled: np.ndarray = field(repr=False)
    acceptance: np.ndarray = field(repr=False)
    distinct: np.ndarray = field(repr=False)
    goal_probs: np.ndarray = field(repr=False)   # (T+1, G): Rao–Blackwellized goal posterior
    prior_sample: tuple = field(repr=False)
    restarts: int = 0      # times every particle was lost and drawn again from the prior
    #: Each particle's island (independent sub-filter), ``(N,)``.
    island_of: np.ndarray | None = field(default=None, repr=False)
    #: Each island's share of the weight ``Z_i / Σ Z`` after step t, ``(T+1, M)``.
    island_mass: np.ndarray | None = field(default=None, repr=False)
    #: Per step, each particle's group for the standard error: its island, or with one
    #: island its ancestor :data:`LINEAGE_LAG` resamplings back, ``(N,)``.
    groups: tuple = field(default=(), repr=False)
    note: str = ""
    _rows: dict = field(default_factory=dict, repr=False)
    _island_rows: dict = field(default_factory=dict, repr=False)

    @property
    def n_islands(self) -> int:
        return 1 if self.island_of is None else int(self.island_of.max()) + 1

    def islands_effective(self, t: int) -> float:
        """How many islands carry the weight at time t: ``1 / Σ (Z_i / Σ Z)²`` (M when they
        share it equally, 1 when one holds it all)."""
        if self.island_mass is None:
            return 1.0
        mass = self.island_mass[self.check_time(t)]
        return float(mass.sum() ** 2 / np.square(mass).sum())

    def warnings(self, t: int) -> list[str]:
        """What makes the estimates at time t doubtful: an effective sample size under
        :data:`FEW_DISTINCT` (too few particles carry the weight), the particles collapsed on
        few distinct hypotheses (:meth:`degenerate`), or a few islands hold all the weight (the
        spread between islands, which the standard errors come from, then rests on them)."""
        out = []
        if self.ess[self.check_time(t)] < FEW_DISTINCT and self.space.size > self.n_particles:
            out.append(f"the estimates rest on an effective sample size of {self.ess[t]:.0f} (under "
                       f"{FEW_DISTINCT}); give more --particles")
        elif self.degenerate(t):
            out.append(f"the particles hold few distinct hypotheses (effective sample size "
                       f"{self.ess_distinct[t]:.0f} with copies pooled, against {self.ess[t]:.0f})")
        if self.n_islands >= 2 * FEW_ISLANDS and self.islands_effective(t) < FEW_ISLANDS:
            out.append(f"{self.islands_effective(t):.1f} of {self.n_islands} islands carry the weight")
        return out

    @property
    def n_particles(self) -> int:
        return len(self.particles_by_step[0].goal)

    # -- what the result says about itself (see Trajectory) ----------------------------

    #: Scores carry a standard error (the particles are an estimate).
    estimated = True

    def describe(self, times: Sequence[int]) -> str:
        seed = "" if self.seed is None else f", seed {self.seed}"
        doubts = [(t, self.warnings(t)) for t in times]
        doubts = [f"at t={t}: {'; '.join(w)}" for t, w in doubts if w]
        warning = (f"; warning: the filter may have degenerated ({', '.join(doubts)}), and the standard errors "
                   "are then too small; compare a run with more particles or another seed" if doubts else "")
        islands = f"; {self.n_islands} islands" if self.n_islands > 1 else ""
        return (f"inference: smc, {count(self.n_particles, 'particle')}{seed}; effective sample size "
                + ", ".join(f"{self.ess[t]:.0f} at t={t}" for t in times) + islands
                + (f" ({self.note})" if self.note else "") + warning)

    def degenerate(self, t: int) -> bool:
        """Whether the ESS looks far better than the particles are at time t: fewer than
        :data:`FEW_DISTINCT` effective distinct hypotheses while the ESS counts
        :data:`DEGENERATE_RATIO` times as many (copies of a few hypotheses), in a space
        larger than the particles."""
        pooled = self.ess_distinct[self.check_time(t)]
        # In a space no larger than the particles, copies are what covering it looks like.
        return (pooled < FEW_DISTINCT and self.ess[t] >= DEGENERATE_RATIO * pooled
                and self.space.size > self.n_particles)

    def summary(self) -> str:
        return f"smc with {self.n_particles:,} particles"

    def report(self, times: Sequence[int]) -> dict:
        return {**super().report(times), "particles": self.n_particles, "seed": self.seed, "islands": self.n_islands,
                "ess": {str(t): float(self.ess[t]) for t in times},
                "warnings": {str(t): w for t in times if (w := self.warnings(t))}}

    def columns(self) -> dict:
        return {"inference": self.method, "particles": self.n_particles, "seed": "" if self.seed is None else self.seed}

    def diagnostics(self, t: int) -> dict:
        # the warnings run prints travel with the rows, so a batch table says which L to doubt
        return {"ess": float(self.ess[self.check_time(t)]), "warning": "; ".join(self.warnings(t))}

    def posterior(self, t: int) -> np.ndarray:
        """Normalized weights of the particles of time t, ``(N,)``."""
        return self.particles_by_step[self.check_time(t)].weights()

    def goal_posterior(self, t: int) -> dict[str, float]:
        """Posterior probability of each goal at time t: each particle's goal given its true
        state, belief and the history, averaged over the particles (Rao–Blackwellized)."""
        return {g: float(x) for g, x in zip(self.space.goals, self.goal_probs[self.check_time(t)])}

    def state_posterior(self, t: int) -> np.ndarray:
        p = self.particles_by_step[self.check_time(t)]
        return np.bincount(p.state, weights=p.weights(), minlength=self.space.n_states)

    def dense(self, state: np.ndarray, beliefs: np.ndarray, at: int) -> np.ndarray:
        """Beliefs at time ``at`` over :meth:`worlds` of the given (true state, k particles)
        rows: :func:`dense_beliefs` with the agreement of time ``at``."""
        cls = self.classes[self.check_time(at)]
        return dense_beliefs(beliefs, self.space.k, cls[state][:, None] == cls[None, :])

    @staticmethod
    def _distinct(state: np.ndarray, beliefs: np.ndarray, weights: np.ndarray, cls: np.ndarray,
                  inverse: bool = False, goal: np.ndarray | None = None):
        """The distinct judged rows of (true state, belief) pairs with their summed weights:
        two pairs are one row when they have the same true state and the same belief
        particles *kept* at the time judged (those agreeing with the true state then, by
        ``cls``; :func:`dense_beliefs` reads no other), so late in a plan, when most belief
        particles are ruled out, many initial beliefs are one row. With ``goal``, rows are
        (goal, true state, belief) triples instead, for statements about desires.
        ``(state, beliefs of one pair of each row, weight[, each pair's row])``, with the
        rows' goals after the weights when ``goal`` is given."""
        n_states = len(cls)
        masked = np.where(cls[beliefs] == cls[state][:, None], beliefs, n_states)
        table = np.concatenate(([] if goal is None else [goal[:, None]]) + [state[:, None], np.sort(masked, axis=1)],
                               axis=1)
        radix = max(n_states + 1, 0 if goal is None else int(goal.max(initial=0)) + 1)
        _, first, where = unique_rows(table, radix, return_index=True, return_inverse=True)
        where = where.ravel()
        out = (state[first], np.ascontiguousarray(beliefs[first]), np.bincount(where, weights=weights,
                                                                                minlength=len(first)))
        if goal is not None:
            out = out + (goal[first],)
        return out + (where,) if inverse else out

    def judged_rows(self, t: int, at: int, by_goal: bool = False) -> tuple:
        """The rows a statement is judged on at time t with the beliefs of time ``at`` (t, or
        0 for statements about the initial belief): the distinct particles of time t with
        their posterior weight (prior mass 0), then the distinct prior draws with their
        prior mass (posterior weight 0); ``live``: prior mass still consistent at t (see
        :func:`elot.domains.rows.judged`). Each row as its true state and its k
        belief particles, ``(state, beliefs (rows, k), weights, prior, live, ess, draws,
        goal)``: O(particles + prior draws) memory; the dense beliefs over the worlds are
        made a chunk of rows at a time (:meth:`dense`) when a statement is evaluated.
        ``by_goal``: the rows are (goal, true state, belief) triples, each particle's goal
        kept (``goal``, an index into the space's goals), for statements about desires;
        else ``goal`` is None and one row stands for every goal."""

        asked = (t, at, by_goal)
        if asked in self._rows:
            return self._rows[asked]
        p = self.particles_by_step[self.check_time(t)]
        cls = self.classes[self.check_time(at)]
        prior_goal, prior_state, prior_beliefs = self.prior_sample
        m = len(prior_state)
        if by_goal:
            s1, b1, w1, g1, inverse = self._distinct(p.state, p.beliefs, p.weights(), cls, inverse=True, goal=p.goal)
            s2, b2, w2, g2 = self._distinct(prior_state, prior_beliefs, np.full(m, 1.0 / m), cls, goal=prior_goal)
        else:
            s1, b1, w1, inverse = self._distinct(p.state, p.beliefs, p.weights(), cls, inverse=True)
            s2, b2, w2 = self._distinct(prior_state, prior_beliefs, np.full(m, 1.0 / m), cls)
        keep = w1 > 0
        s1, b1, w1 = s1[keep], b1[keep], w1[keep]
        state = np.concatenate([s1, s2]).astype(np.intp)
        beliefs = np.concatenate([b1, b2])
        weights = np.concatenate([w1, np.zeros(len(s2))])
        prior = np.concatenate([np.zeros(len(s1)), w2])
        live = prior * self.live[t][state]
        goal = np.concatenate([g1[keep], g2]).astype(np.intp) if by_goal else None
        rows = (state, beliefs, weights, prior, live, float(self.ess[t]), m, goal)
        if len(self._rows) >= 4:   # statements are judged at one or two (t, at) at a time
            self._rows.clear()
            self._island_rows.clear()
        self._rows[asked] = rows
        if self.groups:   # each weighted particle's row, group and weight
            weights_t = p.weights()
            weighted = weights_t > 0
            position = np.cumsum(keep) - 1
            self._island_rows[asked] = (position[inverse[weighted]], self.groups[t][weighted], weights_t[weighted])
        return rows

    def island_rows(self, t: int, at: int, by_goal: bool):
        """For :meth:`judged_rows` ``(t, at, by_goal)`` (made first), each weighted particle's
        row, group (its island, or its lineage) and weight, from whose spread between groups
        L's standard error is taken; None without groups."""
        return self._island_rows.get((t, at, by_goal))

    def average_belief(self, t: int) -> np.ndarray:
        """Σ_i p_i · b_i(t) over the worlds at t (the rows with posterior weight: the prior
        draws' weigh 0 and add nothing to the correctly rounded sums)."""
        state, beliefs, weights, *_ = self.judged_rows(t, t)
        weighted = np.flatnonzero(weights > 0)
        return dot_columns(weights[weighted], self.dense(state[weighted], beliefs[weighted], t))
