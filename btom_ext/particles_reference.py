"""Plain NumPy reference of the particle kernels (the specification of ``btom_ext.particles``).

A particle is one hypothesis of SPEC §5 — goal ``g``, true initial state ``s`` (an index
into the enumerated initial states) and the agent's initial belief as ``k`` particles
``b[0..k-1]`` over those states (a multiset; order does not matter) — so beliefs are never
enumerated. Before action t a particle's belief keeps its belief particles that are still
*live* (agree with all that was seen: for a live true state that is the same as agreeing
with it), each weighing 1/(number kept), their action values summed in state order; when none is kept the belief is uniform over the
live states (the ε fallback of SPEC §5), whose action values ``fallback[g, a]`` are shared
by all particles. The policy is the Boltzmann QMDP policy of :func:`btom_ext.reference.qmdp_loglik`.
"""

from __future__ import annotations

import math

import numpy as np


def _loglik(values, fallback, chosen, beta, live, g, row) -> float:
    kept = sorted(int(j) for j in row if live[j])   # summed in state order
    if kept:
        qbar = np.zeros(values.shape[2])
        for j in kept:
            qbar = qbar + values[g, j]
        qbar = qbar / len(kept)
    else:
        qbar = np.asarray(fallback[g], dtype=np.float64)
    logits = beta * qbar
    top = logits.max()
    total = 0.0
    for x in logits:
        total += math.exp(x - top)
    return float(logits[chosen] - (top + math.log(total)))


def step_loglik(values, fallback, chosen, beta, state, beliefs, live, reached) -> np.ndarray:
    """Log-probability of the observed action under each particle's policy at one step, for
    every goal: ``(N, G)``.

    ``values[g, j, a]``: Q value of action a from live state j for goal g; ``fallback[g, a]``:
    the action values of the uniform belief over the live states; ``chosen``: the observed
    action's index; ``state`` ``(N,)`` and ``beliefs`` ``(N, k)``: the particles; ``live[j]``:
    state j agrees with all that was seen before the action; ``reached[g]``: goal g is
    already held (then 0). Particles whose true state is not live get 0 (the caller rules
    them out).
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros((len(state), values.shape[0]), dtype=np.float64)
    for i in range(len(state)):
        if not live[int(state[i])]:
            continue
        for g in range(values.shape[0]):
            if not reached[g]:
                out[i, g] = _loglik(values, fallback, chosen, beta, live, g, beliefs[i])
    return out


def history_loglik(values, fallback, n_actions, chosen, beta, live, reached, goal, state, beliefs) -> np.ndarray:
    """Log-likelihood of all T observed actions and observations for each particle.

    ``values (T, G, S, A)`` and ``fallback (T, G, A)``: each step's tables as for
    :func:`step_loglik`, padded to A actions of which ``n_actions[t]`` are real;
    ``chosen (T,)``; ``live (T+1, S)``: ``live[t]`` the states agreeing with all seen up to
    time t; ``reached (T, G)``. -inf for a particle whose true state is ruled out at some
    time 0..T, else the sum over steps of :func:`step_loglik`'s terms for the particle's
    ``goal``.
    """
    out = np.empty(len(goal), dtype=np.float64)
    for i in range(len(goal)):
        g, s = int(goal[i]), int(state[i])
        total = 0.0 if live[0][s] else -math.inf
        for t in range(len(chosen)):
            if total == -math.inf:
                break
            if not reached[t][g]:
                a = int(n_actions[t])
                total += _loglik(np.asarray(values[t])[:, :, :a], np.asarray(fallback[t])[:, :a],
                                 int(chosen[t]), beta, live[t], g, beliefs[i])
            if not live[t + 1][s]:
                total = -math.inf
        out[i] = total
    return out


def history_change(values, fallback, n_actions, chosen, beta, live, reached, goal, state, old_beliefs, new_beliefs,
                   base) -> np.ndarray:
    """:func:`history_loglik` of ``new_beliefs`` for particles whose ``old_beliefs`` have the
    history log-likelihood ``base``: the compiled kernel reads only the steps where the two
    beliefs' kept sets differ and adds the difference to ``base`` (equal up to rounding);
    this specification sums the new history from scratch."""
    return history_loglik(values, fallback, n_actions, chosen, beta, live, reached, goal, state, new_beliefs)


def _goal_softmax(row) -> list[float]:
    """One particle's goal posterior from its per-goal log-likelihoods (uniform goal
    prior), summed left to right as the kernel does."""
    top = max(row)
    p = [math.exp(x - top) for x in row]
    total = 0.0
    for x in p:
        total += x
    return [x / total for x in p]


def goal_posterior(hist_goals, weights) -> np.ndarray:
    """Σ_i w_i p(goal | particle i): each particle's goal given its state, belief and history
    is the softmax of its per-goal log-likelihoods ``hist_goals (N, G)`` (uniform goal
    prior); ``weights (N,)`` normalized. Particles of weight 0 are skipped."""
    hist_goals = np.asarray(hist_goals, dtype=np.float64)
    out = np.zeros(hist_goals.shape[1])
    for row, w in zip(hist_goals, weights):
        if w <= 0.0:
            continue
        for g, x in enumerate(_goal_softmax(row)):
            out[g] += w * x
    return out


def systematic_resample(weights, u: float) -> np.ndarray:
    """Indices of N particles drawn by systematic resampling from normalized ``weights``:
    particle j is taken for each position ``(u + i) / N`` (``0 <= u < 1``) that falls in
    its slice of the running sum (the last particle takes any rounding remainder)."""
    weights = np.asarray(weights, dtype=np.float64)
    n = len(weights)
    cum = np.cumsum(weights)
    positions = (u + np.arange(n)) / n
    return np.minimum(np.searchsorted(cum, positions, side="left"), n - 1).astype(np.int64)


def smallest(keys, k: int) -> np.ndarray:
    """Per row of ``keys (N, M)``, the column indices of its k smallest values, in increasing
    order of index, ``(N, k)`` int64; of equal values the one of lower index counts as
    smaller (as a stable sort orders them)."""
    keys = np.asarray(keys, dtype=np.float64)
    if not 0 <= k <= keys.shape[1]:
        raise ValueError(f"k = {k} outside 0..{keys.shape[1]}")
    return np.sort(np.argsort(keys, axis=1, kind="stable")[:, :k], axis=1).astype(np.int64)


class History:
    """The steps seen so far, for the history log-likelihood of particles as it grows (the
    specification of ``btom_ext.particles.History``, which keeps sums per epoch — a run of
    steps over which the live states do not change — across calls; here every call sums
    the steps from scratch with :func:`history_loglik`).

    ``live``: the states live at the start; ``add_step(values, fallback, chosen, reached,
    live_after)`` appends a step (tables as for :func:`step_loglik`); :meth:`loglik`,
    :meth:`loglik_goals` and :meth:`change` read the history of particles."""

    def __init__(self, live, n_goals: int, k: int, beta: float) -> None:
        self.n_states, self.n_goals, self.k, self.beta = len(live), n_goals, k, beta
        self.live_now = np.asarray(live, dtype=np.uint8).copy()
        self._steps: list[tuple] = []
        self._live = [self.live_now]

    @property
    def steps(self) -> int:
        return len(self._steps)

    @property
    def epochs(self) -> int:
        """How many runs of steps with the same live states the history holds."""
        return sum(1 for t in range(self.steps) if t == 0 or not np.array_equal(self._live[t], self._live[t - 1]))

    cached = 0

    def add_step(self, values, fallback, chosen: int, reached, live_after) -> None:
        values, fallback = np.asarray(values, dtype=np.float64), np.asarray(fallback, dtype=np.float64)
        if values.ndim != 3 or values.shape[:2] != (self.n_goals, self.n_states) or \
                fallback.shape != (self.n_goals, values.shape[2]) or len(reached) != self.n_goals or \
                len(live_after) != self.n_states:
            raise ValueError("the step's tables do not fit the history's goals and states")
        if not 0 <= chosen < values.shape[2]:
            raise ValueError(f"chosen action {chosen} out of range")
        self._steps.append((values, fallback, int(chosen), np.asarray(reached, dtype=np.uint8).copy()))
        self.live_now = np.asarray(live_after, dtype=np.uint8).copy()
        self._live.append(self.live_now)

    def tables(self) -> tuple:
        """The steps as :func:`history_loglik` takes them, padded to the most actions of a step."""
        width = max((v.shape[2] for v, *_ in self._steps), default=1)
        values = np.zeros((self.steps, self.n_goals, self.n_states, width))
        fallback = np.zeros((self.steps, self.n_goals, width))
        for t, (v, f, _, _) in enumerate(self._steps):
            values[t, :, :, : v.shape[2]] = v
            fallback[t, :, : f.shape[1]] = f
        return (values, fallback, np.array([v.shape[2] for v, *_ in self._steps], dtype=np.int32),
                np.array([c for _, _, c, _ in self._steps], dtype=np.int32), self.beta, np.stack(self._live),
                np.array([r for *_, r in self._steps], dtype=np.uint8).reshape(self.steps, self.n_goals))

    def _check(self, beliefs, n: int) -> np.ndarray:
        beliefs = np.asarray(beliefs, dtype=np.int32)
        if beliefs.shape != (n, self.k):
            raise ValueError(f"beliefs must be ({n}, {self.k})")
        if n and (beliefs.min() < 0 or beliefs.max() >= self.n_states):
            raise ValueError("a belief particle is out of range")
        return beliefs

    def loglik(self, goal, state, beliefs) -> np.ndarray:
        """:func:`history_loglik` of the steps added so far (-inf where the state is not live now)."""
        goal, state = np.asarray(goal, dtype=np.int32), np.asarray(state, dtype=np.int32)
        beliefs = self._check(beliefs, len(goal))
        if len(goal) and (goal.min() < 0 or goal.max() >= self.n_goals or state.min() < 0 or
                          state.max() >= self.n_states):
            raise ValueError("goal or state out of range")
        return history_loglik(*self.tables(), goal, state, beliefs)

    def loglik_goals(self, state, beliefs) -> np.ndarray:
        """:meth:`loglik` under every goal, ``(N, G)``."""
        state = np.asarray(state, dtype=np.int32)
        return np.stack([self.loglik(np.full(len(state), g, np.int32), state, beliefs)
                         for g in range(self.n_goals)], axis=1).reshape(len(state), self.n_goals)

    def change(self, goal, old_beliefs, new_beliefs, base) -> np.ndarray:
        """The history of ``new_beliefs`` for particles whose ``old_beliefs`` have the
        history ``base`` (same goal; a live true state): ``goal (N,)`` and ``base (N,)``, or
        ``goal`` None and ``base (N, G)`` for every goal. A ``base`` of -inf stays -inf.
        The compiled kernel adds to ``base`` the difference over the epochs where the two
        kept sets differ (equal up to rounding); this sums the new history from scratch."""
        base = np.asarray(base, dtype=np.float64)
        self._check(old_beliefs, len(base))
        new_beliefs = self._check(new_beliefs, len(base))
        state = np.flatnonzero(self.live_now)[:1].repeat(len(base)).astype(np.int32)   # any live state
        if goal is None:
            fresh = self.loglik_goals(state, new_beliefs) if len(state) == len(base) else np.full(base.shape, -np.inf)
        else:
            fresh = self.loglik(goal, state, new_beliefs) if len(state) == len(base) else np.full(base.shape, -np.inf)
        return np.where(np.isfinite(base), fresh, base)

    def propose(self, goal, old_beliefs, new_beliefs, base, threshold) -> np.ndarray:
        """:meth:`change` where the caller accepts only a new history above ``base +
        threshold``: -inf where it is not (the compiled kernel stops reading the history as
        soon as it is sure), else the new history."""
        fresh = self.change(goal, old_beliefs, new_beliefs, base)
        base = np.asarray(base, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(base) & (fresh - base < np.asarray(threshold)), -np.inf, fresh)


def island_summary(hist_goals, weights, goal, island, n_islands: int) -> tuple:
    """The goal posterior of :func:`goal_posterior` and, per island (``island (N,)`` each
    particle's), its weight ``mass``, its sum of squared weights ``square`` and ``drift``:
    Σ_g |Σ_{i in island} w_i (p(g | i) − [goal_i = g])|. ``(given, mass, square, drift)``."""
    hist_goals = np.asarray(hist_goals, dtype=np.float64)
    n_goals = hist_goals.shape[1]
    island = np.asarray(island, dtype=np.int64)
    if len(weights) != len(hist_goals) or len(goal) != len(hist_goals) or len(island) != len(hist_goals):
        raise ValueError("hist_goals, weights, goal and island disagree on the particles")
    if len(island) and (island.min() < 0 or island.max() >= n_islands or min(goal) < 0 or max(goal) >= n_goals):
        raise ValueError("island or goal out of range")
    mass, square = np.zeros(n_islands), np.zeros(n_islands)
    gap = np.zeros((n_islands, n_goals))
    for row, w, g, j in zip(hist_goals, weights, goal, island):
        if w <= 0.0:
            continue
        mass[j] += w
        square[j] += w * w
        for c, x in enumerate(_goal_softmax(row)):
            gap[j, c] += w * x
        gap[j, g] -= w
    drift = np.zeros(n_islands)
    for j in range(n_islands):
        for c in range(n_goals):
            drift[j] += abs(gap[j, c])
    return goal_posterior(hist_goals, weights), mass, square, drift
