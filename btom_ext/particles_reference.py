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


def goal_posterior(hist_goals, weights) -> np.ndarray:
    """Σ_i w_i p(goal | particle i): each particle's goal given its state, belief and history
    is the softmax of its per-goal log-likelihoods ``hist_goals (N, G)`` (uniform goal
    prior); ``weights (N,)`` normalized. Particles of weight 0 are skipped."""
    hist_goals = np.asarray(hist_goals, dtype=np.float64)
    out = np.zeros(hist_goals.shape[1])
    for row, w in zip(hist_goals, weights):
        if w <= 0.0:
            continue
        top = max(row)
        p = [math.exp(x - top) for x in row]
        total = 0.0
        for x in p:
            total += x
        for g, x in enumerate(p):
            out[g] += w * (x / total)
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
