"""Sequential Monte Carlo over a tabular domain's hypotheses, in parts: a step that
reweighs, a resampling scheme, and a rejuvenation kernel, driven along the path by :func:`run`.

The target at step t is the posterior over the pool (:class:`~elot.engine.tables.sampling.Pool`)
given the path's first t steps, ``prior(world) prior(belief) prior(desire) L[t, world,
belief, desire]``, the likelihoods read from the table of every prefix
(:func:`~elot.engine.tables.sampling.prefix_tables`).

A particle (:class:`State`) is a hidden world and an initial belief, with a weight. The
desire is summed out exactly (Rao–Blackwellized): the inversion gives the likelihood of
every planned utility vector at once, one column each, so a particle's weight follows
``M[t, world, belief] = Σ_u prior(u) L[t, world, belief, u]`` (:func:`marginal`) and the
desire posterior is the particles' mean of ``P(u | world, belief, path)``
(:func:`desire_mass`). Sampling the desire as well would add noise and, worse, lose it: a
desire of tiny posterior mass is dropped by resampling, and when the next step makes it
the likely one, every particle's weight changes alike, the ESS stays high, and all of them
are wrong (found on a random path of a tiny domain; the gridworld filter keeps the
likelihood of every goal per particle for the same reason).

* **Start**: the draws' worlds and beliefs, each weighted by ``M[0]`` (the initial observation).
* **Step** (:func:`reweight`): each weight multiplied by ``M[t] / M[t-1]`` of its particle,
  the probability of the next step of the path given the ones before.
* **Resampling** (:func:`resample`, systematic, the gridworld filter's kernel) when Kish's
  effective sample size ``(Σw)² / Σw²`` falls below ``ess_threshold × N``; the weights are
  then equal.
* **Rejuvenation** (:func:`move`), ``moves`` sweeps after each resampling: the world and
  the initial belief drawn in turn from their full conditional given the other and the
  path so far (Gibbs: ``prior × M[t]`` along one axis). Each draw leaves the target at t
  invariant, so the copies resampling made spread out again without changing what they
  estimate.
* **Drift**: reweighing cannot bring back a value no particle holds any more, so the moves
  also run, without resampling, at a step where the particles' conditionals put more than
  :data:`DRIFT` of the posterior on such values (:func:`drift`). A move after the step's
  reweighing keeps weighted particles weighted right for the target at t.

With ``ess_threshold`` 0 nothing is resampled: the particles are importance sampling from
the prior (each weight the likelihood of the whole path under its draw, the desire summed out).

Randomness: the start is the draws (:class:`~elot.engine.tables.sampling.Draws`); step t
(0 for the initial observation) draws from its own stream, the seed's child t
(:func:`step_rngs`): first the resampling's uniform, then per sweep N uniforms for each axis
moved (the world, then the belief, those with more than one value), and at the last step
N uniforms for the desires each particle holds in the result's rows (:func:`draw_desires`).
A path's prefix thus runs the same steps with the same numbers, and its result is the
longer path's at that time. The sums that decide (the ESS against its threshold, the
cumulative weights of a draw) are correctly rounded (:func:`elot.numeric.fsum`) or
sequential (``cumsum``, sums over a leading axis), so the same seed gives the same
particles on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from btom_ext import particle_kernels
from elot.errors import compiled
from elot.numeric import fsum

#: Moves run, without resampling, at a step where the particles have lost sight of more
#: than this share of the posterior (:func:`drift`). In the runs of
#: benchmarks/engine_particles.py it never passes 0.012, even with 200 particles (whose
#: worlds and beliefs the moves keep spread out), so the moves run there only after
#: resampling; a belief that a step makes likely after resampling dropped it would pass it.
DRIFT = 0.05


def kernels(backend: str):
    """The particle kernels of ``backend`` (the resampling scheme; the world models' filter,
    :mod:`elot.engine.worlds.particles`, loads its kernels here too), or elot's error
    saying how to build them."""
    return compiled(particle_kernels, backend)


@dataclass(frozen=True, eq=False)
class State:
    """The particles: each one's world position and belief position (in its world's pooled
    beliefs), and its weight (unnormalised; 0: ruled out)."""

    world: np.ndarray
    belief: np.ndarray
    weight: np.ndarray

    def __len__(self) -> int:
        return len(self.weight)

    def at(self, layer: np.ndarray) -> np.ndarray:
        """Each particle's entry (or row) of ``layer[world, belief, ...]``."""
        return layer[self.world, self.belief]

    def take(self, index: np.ndarray, weight: np.ndarray) -> "State":
        return State(self.world[index], self.belief[index], weight)


@dataclass(frozen=True, eq=False)
class Priors:
    """The pool's prior along each axis: worlds ``(W,)``, beliefs per world ``(W, B)``,
    desires ``(D,)``."""

    world: np.ndarray
    belief: np.ndarray
    desire: np.ndarray


def marginal(table: np.ndarray, desire_prior: np.ndarray) -> np.ndarray:
    """``M[t, w, b] = Σ_u prior(u) L[t, w, b, u]`` of a ``[T+1, W, B, D]`` table, each sum
    taken over a leading axis (whole rows added in the desires' order: the same everywhere)."""
    out = np.empty(table.shape[:-1])
    for t in range(len(table)):
        terms = np.ascontiguousarray(np.moveaxis(table[t] * desire_prior, -1, 0))
        out[t] = terms.sum(axis=0)
    return out


def effective_size(weight: np.ndarray) -> float:
    """Kish's effective sample size ``(Σw)² / Σw²`` of unnormalised weights (0 when none
    has weight), each sum correctly rounded."""
    total = fsum(weight)
    if total <= 0:
        return 0.0
    return total * total / fsum(np.square(weight))


def reweight(state: State, before: np.ndarray, after: np.ndarray) -> State:
    """The step: each weight times ``after / before`` of its particle (the likelihood of
    one more step of the path), rescaled so that the largest is 1."""
    old, new = state.at(before), state.at(after)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(old > 0, state.weight * (new / old), 0.0)
    return replace(state, weight=_rescaled(weight))


def _rescaled(weight: np.ndarray) -> np.ndarray:
    top = weight.max(initial=0.0)
    return weight / top if top > 0 else weight


def resample(state: State, u: float, kernels) -> tuple[State, np.ndarray]:
    """Systematic resampling at the uniform ``u`` (``kernels.systematic_resample``, the
    compiled kernel or its NumPy twin): N copies drawn in proportion to the weights, each
    weighted 1. Also the index each copy was taken from."""
    index = kernels.systematic_resample(state.weight / fsum(state.weight), u)
    return state.take(index, np.ones(len(state))), index


def conditional_draw(rows: np.ndarray, group: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """For each particle, the index drawn from the distribution ``rows[group]`` (unnormalised,
    one row per group) at its uniform, by inverting the row's running sum (sequential, so
    the same on every machine); -1 where the row has no mass."""
    cumulative = np.cumsum(rows, axis=1)
    out = np.full(len(group), -1, dtype=np.intp)
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(rows) + 1))
    for k in range(len(rows)):
        mine = order[bounds[k]:bounds[k + 1]]
        total = cumulative[k, -1]
        if len(mine) and total > 0:
            picked = np.searchsorted(cumulative[k], uniforms[mine] * total, side="right")
            out[mine] = np.minimum(picked, rows.shape[1] - 1)
    return out


AXES = ("world", "belief")


def axes(layer: np.ndarray) -> list[str]:
    """The axes a sweep redraws: those of ``layer[world, belief]`` with more than one value."""
    return [name for name, size in zip(AXES, layer.shape) if size > 1]


def conditionals(layer: np.ndarray, priors: Priors, state: State, axis: str) -> tuple[np.ndarray, np.ndarray]:
    """The full conditional of ``axis`` (``world`` or ``belief``) given the particles' other
    one, under ``prior × layer`` (``layer[world, belief]``, the desire summed out):
    ``(rows, group)``, particle n's being ``rows[group[n]]`` (unnormalised), one row per distinct
    value of the other axis among the particles."""
    if axis == "belief":
        worlds, group = np.unique(state.world, return_inverse=True)
        rows = layer[worlds] * priors.belief[worlds]
    elif axis == "world":
        beliefs, group = np.unique(state.belief, return_inverse=True)
        rows = (layer[:, beliefs] * priors.belief[:, beliefs] * priors.world[:, None]).T
    else:
        raise ValueError(f"no axis {axis!r}")
    return np.ascontiguousarray(rows), group.reshape(-1)


def move(state: State, layer: np.ndarray, priors: Priors, rng: np.random.Generator) -> State:
    """One rejuvenation sweep: the world and the belief of every particle drawn in turn from
    its full conditional given the other (:func:`conditionals`), which leaves the posterior
    ``prior × layer`` invariant. The weights are kept."""
    for axis in axes(layer):
        rows, group = conditionals(layer, priors, state, axis)
        drawn = conditional_draw(rows, group, rng.random(len(state)))
        state = replace(state, **{axis: np.where(drawn >= 0, drawn, getattr(state, axis))})
    return state


def drift(state: State, layer: np.ndarray, priors: Priors) -> float:
    """The posterior mass the particles have lost sight of: over the axes, the largest
    weighted mean of the mass each particle's full conditional puts on values of the axis
    that no particle holds. Reweighing cannot see it (such a value gains weight in no
    particle), so a step that moves the posterior there leaves the ESS high while the
    particles are wrong; the moves bring them back."""
    weight = state.weight / fsum(state.weight)
    worst = 0.0
    for axis in axes(layer):
        rows, group = conditionals(layer, priors, state, axis)
        held = np.zeros(rows.shape[1], dtype=bool)
        held[getattr(state, axis)[weight > 0]] = True
        if held.all():
            continue
        total = np.cumsum(rows, axis=1)[:, -1]
        lost = np.cumsum(rows[:, ~held], axis=1)[:, -1]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(total > 0, lost / total, 0.0)
        worst = max(worst, fsum(weight * share[group]))
    return worst


def redraw(layer: np.ndarray, priors: Priors, n: int, rng: np.random.Generator) -> State:
    """N particles drawn anew from the pool's prior, weighted by ``layer`` (the likelihood
    of the path so far): importance sampling, for when every particle was ruled out."""
    world = conditional_draw(priors.world[None, :], np.zeros(n, dtype=np.intp), rng.random(n))
    belief = conditional_draw(priors.belief, world, rng.random(n))
    state = State(world, belief, np.zeros(n))
    return replace(state, weight=_rescaled(state.at(layer)))


def desire_given(layer: np.ndarray, priors: Priors, state: State) -> tuple[np.ndarray, np.ndarray]:
    """``P(u | world, belief, path)`` for each distinct (world, belief) of the particles,
    from ``layer[world, belief, u]`` (the whole path's likelihoods): ``(rows, group)``,
    particle n's row being ``rows[group[n]]`` (normalised; zeros where nothing explains the path)."""
    n_b = layer.shape[1]
    pairs, group = np.unique(state.world * n_b + state.belief, return_inverse=True)
    rows = layer[pairs // n_b, pairs % n_b] * priors.desire
    total = np.cumsum(rows, axis=1)[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = np.where(total > 0, rows / total, 0.0)
    return rows, group.reshape(-1)


def desire_mass(layer: np.ndarray, priors: Priors, state: State) -> np.ndarray:
    """The desire posterior over the pooled desires, ``Σ_n w_n P(u | world_n, belief_n,
    path)`` with the normalised weights (each particle's desire summed out exactly)."""
    rows, group = desire_given(layer, priors, state)
    total = fsum(state.weight)
    if total <= 0:
        return np.zeros(layer.shape[2])
    share = np.bincount(group, state.weight / total, minlength=len(rows))
    return np.ascontiguousarray(share[:, None] * rows).sum(axis=0)


def draw_desires(layer: np.ndarray, priors: Priors, state: State, uniforms: np.ndarray) -> np.ndarray:
    """A desire for each particle, drawn from ``P(u | world, belief, path)`` at its uniform
    (0 where nothing explains the path)."""
    rows, group = desire_given(layer, priors, state)
    return np.maximum(conditional_draw(rows, group, uniforms), 0)


@dataclass(frozen=True, eq=False)
class Trace:
    """A run along the path: the particles at the end, with a desire drawn for each
    (``desire``) and the desire posterior (``desire_mass``, over the pooled desires), and at
    each step t (0: the initial observation) the ESS before the decision to resample,
    whether they were resampled, whether they had drifted (moved without resampling, see
    :data:`DRIFT`), how many of them hold another hypothesis after the moves than before
    (-1: no moves ran), and whether all had been ruled out and were drawn anew
    (``restarted``)."""

    state: State
    desire: np.ndarray
    desire_mass: np.ndarray
    ess: np.ndarray
    resampled: np.ndarray
    drifted: np.ndarray
    moved: np.ndarray
    restarted: np.ndarray


def step_rngs(seed: int, steps: int) -> list[np.random.Generator]:
    """Each step's own stream of the seed, for steps 0..steps - 1: the seed's children
    spawned once (spawning t + 1 of them at each step t made a long path's run quadratic in
    its length)."""
    return [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(steps)]


def run(table: np.ndarray, priors: Priors, start: tuple[np.ndarray, np.ndarray], seed: int,
        ess_threshold: float, moves: int, kernels) -> Trace:
    """The particles along the path, from ``start`` (the world and belief positions of the
    draws) through every layer of ``table`` (``[steps + 1, W, B, D]``, see the module)."""
    n = len(start[0])
    weights = marginal(table, priors.desire)
    state = State(*start, np.zeros(n))
    state = replace(state, weight=_rescaled(state.at(weights[0])))
    ess, resampled, drifted, moved, restarted = [], [], [], [], []
    for t, (layer, rng) in enumerate(zip(weights, step_rngs(seed, len(weights)))):
        if t > 0:
            state = reweight(state, weights[t - 1], layer)
        restart = not state.weight.any() and bool(layer.any())
        if restart:
            state = redraw(layer, priors, n, rng)
        restarted.append(restart)
        size = effective_size(state.weight)
        ess.append(size)
        again = 0 < size < ess_threshold * n
        resampled.append(again)
        if again:
            state, _ = resample(state, float(rng.random()), kernels)
        lost = moves > 0 and t > 0 and not again and size > 0 and drift(state, layer, priors) > DRIFT
        drifted.append(lost)
        changed = -1
        if moves > 0 and (again or lost):
            before = state
            for _ in range(moves):
                state = move(state, layer, priors, rng)
            changed = int(((state.world != before.world) | (state.belief != before.belief)).sum())
        moved.append(changed)
    desire = draw_desires(table[-1], priors, state, rng.random(n))
    return Trace(state, desire, desire_mass(table[-1], priors, state), np.array(ess),
                 np.array(resampled, dtype=bool), np.array(drifted, dtype=bool), np.array(moved),
                 np.array(restarted))
