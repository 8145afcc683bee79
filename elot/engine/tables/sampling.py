"""What particle inference on a tabular domain draws, and the likelihoods it reads.

``N`` hypotheses (hidden world, initial belief, desire) are drawn from the domain's
independent priors with the config's seed (:class:`Draws`), by inverting each prior's
cumulative distribution at uniforms of the seed: the same seed draws the same hypotheses
for every case and every prefix of a path, so the plans are shared and results at
successive times start from the same particles. Only the *distinct* utility vectors drawn
are planned, which is what makes a large desire space affordable: the budget is counted,
and work refused, on that number.

The draws fix a **pool** (:class:`Pool`): the case's hidden worlds, the distinct initial
beliefs drawn, and the distinct desires drawn. Particles (:mod:`elot.engine.tables.smc`)
start as the draws themselves and move only inside the pool, whose prior is the domain's
prior restricted to it; once N is large against the spaces the pool holds every
hypothesis and its posterior is the exact one, and it converges to it as N grows. The
likelihood of every prefix of the path under every pooled hypothesis,
``L[t, world, belief, desire]`` = P(first t steps | hypothesis), comes from one pass of the
same inversion programs exact inference uses (:meth:`Inverter.prefix_likelihoods`), built
once per hidden world for the pooled beliefs and evaluated for the planned desires only.

The pool is itself a sample: where it leaves out hypotheses of some prior mass, its
posterior differs from the exact one by an error the particles' weights do not see.
:func:`unpooled` estimates it (as the error of a ratio estimate over the pooled values, with
the finite-population correction ``1 − prior mass pooled``, which makes it vanish once the
pool holds every value), and the result's effective sample size counts it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.engine.tables.inversion import Inverter, Program, align
from elot.engine.tables.protocol import BeliefSpace, DesireSpace
from elot.numeric import fsum


def inverse_cdf(prior: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """The index each uniform in [0, 1) falls on in ``prior``'s cumulative distribution
    (an entry of prior mass 0 is never drawn)."""
    cdf = np.cumsum(np.asarray(prior, dtype=np.float64))
    cdf /= cdf[-1]
    return np.minimum(np.searchsorted(cdf, uniforms, side="right"), len(cdf) - 1).astype(np.intp)


def distinct_bound(prior: np.ndarray, particles: int) -> int:
    """The most distinct entries ``particles`` draws from ``prior`` can hold: the particles,
    or the entries of positive prior mass if fewer. What the budget counts the planning on
    before anything is drawn (drawing a billion particles to count them is the work the
    budget must refuse)."""
    return int(min(particles, np.count_nonzero(np.asarray(prior) > 0)))


#: Bytes per particle of the draws (:meth:`Draws.of`): three uniforms, the desire drawn, its
#: column, and the sort behind ``np.unique`` (a copy and its order).
DRAW_BYTES = 8 * 3 + 8 + 8 + 16


@dataclass(frozen=True, eq=False)
class Draws:
    """The uniforms of ``particles`` draws from ``seed`` (one row each for the desire, the
    initial belief and the hidden world), the drawn desires, and the distinct ones."""

    seed: int
    uniforms: np.ndarray
    desire_of: np.ndarray
    distinct: np.ndarray
    column: np.ndarray

    @classmethod
    def of(cls, seed: int, particles: int, desires: DesireSpace) -> "Draws":
        uniforms = np.random.default_rng(seed).random((3, particles))
        desire_of = inverse_cdf(desires.prior, uniforms[0])
        distinct, column = np.unique(desire_of, return_inverse=True)
        return cls(seed, uniforms, desire_of, distinct, column.reshape(-1))

    def planned(self, desires: DesireSpace) -> DesireSpace:
        """The desire space the planner solves: the distinct drawn utility vectors."""
        return DesireSpace(desires.objects, np.asarray(desires.utilities, dtype=np.float64)[self.distinct],
                           np.asarray(desires.prior, dtype=np.float64)[self.distinct])


@dataclass(frozen=True, eq=False)
class Pool:
    """The hypotheses one case's particles may hold, and where they start.

    ``worlds`` (the hidden worlds the case considers, with ``world_prior``); ``beliefs[w]``
    the rows of ``space`` pooled under world position w (the distinct drawn initial beliefs,
    the same for every world; under ``true_belief`` with the world unknown, the world's own
    row alone), with their prior ``belief_prior[w]``; the planned desires (the columns:
    :attr:`Draws.distinct`), with their prior ``desire_prior``. ``start`` is the draws as
    particles: each one's world position, belief position (in ``beliefs[w]``) and desire
    column. ``programs[w]``: the inversion of the path in world ``worlds[w]`` from
    ``beliefs[w]``. ``left_out``: the prior mass of the initial beliefs and of the desires
    the pool does not hold (0 when it holds every one of positive prior)."""

    worlds: tuple[int, ...]
    world_prior: np.ndarray
    space: BeliefSpace
    beliefs: np.ndarray
    belief_prior: np.ndarray
    desires: np.ndarray
    desire_prior: np.ndarray
    start: tuple[np.ndarray, np.ndarray, np.ndarray]
    programs: tuple[Program, ...]
    left_out: tuple[float, float]

    @property
    def steps(self) -> int:
        return self.programs[0].steps

    def hypotheses(self, world: np.ndarray, belief: np.ndarray, desire: np.ndarray) -> tuple:
        """Particles' (world position, belief row of the space, desire index of the space)."""
        return world, self.beliefs[world, belief], self.desires[desire]


def build(inverter: Inverter, path: list[int], worlds: tuple[int, ...], world_prior: np.ndarray,
          space: BeliefSpace, draws: Draws, desire_prior: np.ndarray, known_world: bool,
          true_belief: bool) -> Pool:
    """Draw each particle's world (unless the observer knows it) and initial belief, pool
    them with the drawn desires, and build the inversion of ``path`` for the pooled beliefs
    in each world."""
    n = len(draws.desire_of)
    world_of = (np.zeros(n, dtype=np.intp) if known_world
                else inverse_cdf(world_prior, draws.uniforms[2]))
    belief_prior = space.prior_in(worlds)                 # [world position, belief]: per world when the domain says
    if true_belief and not known_world:
        # the agent knows its world: under world position w its belief is the space's row worlds[w]
        rows = np.asarray(worlds, dtype=np.intp)[:, None]
        belief_at = np.zeros(n, dtype=np.intp)
    else:
        if space.per_world:   # each draw's belief from the prior of its world
            drawn = np.zeros(n, dtype=np.intp)
            for w in range(len(worlds)):
                mine = world_of == w
                drawn[mine] = inverse_cdf(belief_prior[w], draws.uniforms[1][mine])
        else:
            drawn = inverse_cdf(space.prior, draws.uniforms[1])
        distinct, belief_at = np.unique(drawn, return_inverse=True)
        rows = np.tile(distinct, (len(worlds), 1))
        belief_at = belief_at.reshape(-1)
    beliefs = np.asarray(space.beliefs, dtype=np.float64)
    programs = tuple(inverter.build(beliefs[rows[w]], path, worlds[w]) for w in range(len(worlds)))
    desire_prior = np.asarray(desire_prior, dtype=np.float64)
    every_belief = true_belief and not known_world         # each world's own: nothing left out
    # the belief prior's mass left out, each world's weighed by its prior
    outside = fsum([p * _outside(belief_prior[w], rows[0]) for w, p in enumerate(world_prior)]) \
        if space.per_world else _outside(belief_prior[0], rows[0])
    left_out = (0.0 if every_belief else outside, _outside(desire_prior, draws.distinct))
    pooled_prior = np.take_along_axis(belief_prior, rows, axis=1) if not every_belief else np.ones(rows.shape)
    return Pool(tuple(worlds), np.asarray(world_prior, dtype=np.float64), space, rows,
                pooled_prior, draws.distinct, desire_prior[draws.distinct],
                (world_of, belief_at, draws.column.astype(np.intp)), programs, left_out)


def _outside(prior: np.ndarray, pooled: np.ndarray) -> float:
    """The prior mass of the entries not in ``pooled``."""
    outside = np.ones(len(prior), dtype=bool)
    outside[pooled] = False
    return fsum(prior[outside])


def prefix_tables(inverter: Inverter, pool: Pool, policies: np.ndarray, backend: str) -> tuple[np.ndarray, int]:
    """``(table, exponent)``: ``table`` is ``float64[steps + 1, worlds, pooled beliefs,
    planned desires]``, the likelihood of every prefix of the path under every pooled
    hypothesis, each step's layer times a power of two common to its worlds (1 unless the
    path is long enough to fall towards the smallest double; see
    :func:`~elot.engine.tables.inversion.align`); ``exponent`` is the last layer's. A
    factor common to a layer changes no ratio particles are reweighed by, drawn or moved
    with."""
    table = np.empty((pool.steps + 1, *pool.beliefs.shape, len(pool.desires)))
    exponents = np.zeros((pool.steps + 1, len(pool.programs)), dtype=np.int64)
    for w, program in enumerate(pool.programs):
        table[:, w], exponents[:, w] = inverter.prefix_likelihoods(program, policies, backend)
    exponent = 0
    for t in range(len(table)):
        if exponents[t].any():
            layers, exponent = align(list(table[t]), list(exponents[t]))
            table[t] = layers
    return table, int(exponent)


def unpooled(layer: np.ndarray, pool: Pool) -> float:
    """What the pool's sampling adds to ``1 / ESS``: for the beliefs and the desires, the
    prior mass the pool leaves out times ``1 / ESS`` of the pool posterior's marginal over
    the pooled values (Kish's, each value one draw; ``layer`` the likelihood of the whole
    path, ``[W, B, D]``). 0 when the pool holds every value of positive prior; about
    ``1 / ESS`` of importance sampling over the distinct values when it holds a small share."""
    n_w, n_b, n_d = layer.shape
    joint = layer * (pool.world_prior[:, None] * pool.belief_prior)[:, :, None] * pool.desire_prior
    # sums over the leading axis of a C-ordered array add whole rows in order: the same everywhere
    desire = joint.reshape(n_w * n_b, n_d).sum(axis=0)
    belief = np.ascontiguousarray(joint.transpose(0, 2, 1)).reshape(n_w * n_d, n_b).sum(axis=0)
    out = 0.0
    for marginal, outside in ((belief, pool.left_out[0]), (desire, pool.left_out[1])):
        total = fsum(marginal)
        if total > 0 and outside > 0:
            out += min(outside, 1.0) * fsum(np.square(marginal)) / (total * total)
    return out
