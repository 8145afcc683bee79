"""Particle inference for tabular domains: importance sampling from the prior.

``N`` hypotheses (hidden world, initial belief, desire) are drawn from the domain's
independent priors with the config's seed; each is weighted by the exact likelihood of the
observed path under it, P(path | world, b0, u), computed by the same inversion programs as
exact inference (:mod:`elot.engine.tables.inversion`), evaluated only for the drawn initial
beliefs (rows) and the drawn utility vectors (columns). Only the *distinct* utility vectors
drawn are planned, which is what makes a large desire space affordable: the budget is
counted, and work refused, on that number.

The posterior of any quantity f is then the self-normalised importance-sampling estimate
``Σ_n L_n f(h_n) / Σ_n L_n`` (the proposal is the prior, so a particle's weight is its
likelihood). It is consistent as N grows, with a bias of order 1/N; its precision is
measured by Kish's effective sample size ``(Σ L)² / Σ L²``. There is no resampling or
rejuvenation: the whole path is weighed at once, so a long or surprising path leaves few
particles with weight (a small ESS), which the result reports.

The draws are made once per engine from uniforms of the seed (:class:`Draws`), by inverting
each prior's cumulative distribution: the same seed draws the same desires for every case
and every prefix of a path, so the plans are shared and results at successive times agree
on their particles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.engine.tables.inversion import Inverter, Program
from elot.engine.tables.protocol import BeliefSpace, DesireSpace


def fresh_seed() -> int:
    """A seed from the operating system's entropy (what a run without one draws, and reports)."""
    return int(np.random.SeedSequence().entropy % 2**32)


def inverse_cdf(prior: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """The index each uniform in [0, 1) falls on in ``prior``'s cumulative distribution
    (an entry of prior mass 0 is never drawn)."""
    cdf = np.cumsum(np.asarray(prior, dtype=np.float64))
    cdf /= cdf[-1]
    return np.minimum(np.searchsorted(cdf, uniforms, side="right"), len(cdf) - 1).astype(np.intp)


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
class SampledCase:
    """One case's particles: the hidden worlds it considers and their prior, the initial
    belief space, each particle's world (a position in ``worlds``) and initial belief, and
    one program per drawn world: ``(particles, belief rows, each particle's row, program)``."""

    worlds: tuple[int, ...]
    world_prior: np.ndarray
    space: BeliefSpace
    world_of: np.ndarray
    belief_of: np.ndarray
    programs: tuple[tuple[np.ndarray, np.ndarray, np.ndarray, Program], ...]


def build(inverter: Inverter, path: list[int], worlds: tuple[int, ...], world_prior: np.ndarray,
          space: BeliefSpace, draws: Draws, known_world: bool, true_belief: bool) -> SampledCase:
    """Draw each particle's world (unless the observer knows it) and initial belief, and
    build the inversion of ``path`` for the drawn beliefs of each drawn world."""
    n = len(draws.desire_of)
    world_of = (np.zeros(n, dtype=np.intp) if known_world
                else inverse_cdf(world_prior, draws.uniforms[2]))
    if true_belief and not known_world:
        belief_of = np.asarray(worlds, dtype=np.intp)[world_of]   # the agent knows its world
    else:
        belief_of = inverse_cdf(space.prior, draws.uniforms[1])
    beliefs = np.asarray(space.beliefs, dtype=np.float64)
    programs = []
    for position in np.unique(world_of):
        members = np.flatnonzero(world_of == position)
        rows, row_of = np.unique(belief_of[members], return_inverse=True)
        programs.append((members, rows, row_of.reshape(-1),
                         inverter.build(beliefs[rows], path, worlds[position])))
    return SampledCase(worlds, world_prior, space, world_of, belief_of, tuple(programs))


def likelihood(inverter: Inverter, case: SampledCase, policies: np.ndarray, draws: Draws,
               backend: str) -> np.ndarray:
    """``float64[particles]``: P(path | each particle's hypothesis), the drawn rows and
    columns of the exact likelihood table."""
    out = np.zeros(len(draws.desire_of))
    for members, _, row_of, program in case.programs:
        table = inverter.likelihood(program, policies, backend)    # [drawn beliefs, distinct desires]
        out[members] = table[row_of, draws.column[members]]
    return out
