"""What Doors-Keys-Gems work costs, counted before it starts: the cost models every caller
that asks "exact or particles, and does it fit?" reads (exact inference, particle
inference, the simulated agent, a batch's tasks), each an :class:`~elot.engine.budget.Estimate`
that :func:`elot.engine.budget.check` compares with the limits.

How a variant holds its initial belief is data (:data:`INITIAL_BELIEFS`): the size of a
space asks that table, not which variant it is.
"""

from __future__ import annotations

from elot.engine.budget import Estimate, Limits, OverBudget, check, footprint
from elot.errors import ScenarioError
from elot.judging import CHUNK_CELLS
from elot.engine.worlds.spaces import exact_estimate


#: What to run instead when exact enumeration is refused for its size.
SMC_ADVICE = "refused for exact enumeration; use `--inference smc` (particle inference: memory linear in particles)"


class SpaceTooLarge(OverBudget, ScenarioError):
    """A hypothesis space refused for exact enumeration; ``size`` says how large it is
    without the advice, which depends on what the caller can run instead."""


def check_exact(estimate: Estimate, limits: Limits) -> Estimate:
    """Refuse exact inference of :func:`exact_estimate` over ``limits`` (the hypotheses
    and memory it may take) with :class:`SpaceTooLarge`, pointing at particle inference."""
    return check(estimate, limits, error=SpaceTooLarge, advice=SMC_ADVICE,
                 hint="or `--inference auto`, or use a smaller --k or a map with fewer closed boxes, or raise the "
                      "limits with --max-hypotheses N and --max-memory SIZE (max_hypotheses=, max_bytes=) if the "
                      "machine has the memory")


def space_size(model: str, n_goals: int, n_states: int, k: int, *, steps: int = 0,
               belief_tables: int = 1) -> tuple[int, int]:
    """``(hypotheses, peak bytes)`` of :func:`exact_estimate`."""
    estimate = exact_estimate(model, n_goals, n_states, k, steps=steps, belief_tables=belief_tables)
    return estimate.size, estimate.bytes


# -- particle inference --------------------------------------------------------------------

#: Bytes of one initial state held as a world (its Python objects, its encoded row, view).
BYTES_PER_WORLD = 2048
#: Seconds of a particle's belief moves per step, per k²: 1.2e-8 (measured on the
#: default scenario: k = 200 ran 6.4 s, k = 400 32 s with 1000 particles).
SECONDS_PER_MOVE = 1.2e-8
#: The longest particle inference started: one estimated past it is refused.
MAX_SECONDS = 3600.0


def particle_estimate(n_states: int, n_goals: int, k: int, particles: int, prior_draws: int, steps: int,
                      actions: int = 6) -> Estimate:
    """Particle inference, counted before any work: the initial states as worlds; every
    step's action values ``Q[g, s, a]`` (float64), kept for the history; the history's
    table of sums (at most 80 MiB); the particles of every step (goal, state, float32
    weight, k beliefs) and their per-goal likelihoods; the prior draws; and scoring's rows
    (true state, k beliefs, weight, prior and live mass) of the particles and the prior
    draws, with a chunk of their dense beliefs over the states
    (:data:`~elot.judging.CHUNK_CELLS` cells, a few times over while a statement is
    evaluated). Time: the belief moves, k² per particle and step."""
    peak = footprint([(n_states, BYTES_PER_WORLD), (steps * n_goals * n_states * actions, 8),
                      (steps + 1, particles * (20 + 4 * k)), (3 * particles * n_goals, 8),
                      (prior_draws, 8 + 4 * k), (particles + prior_draws, 40 + 4 * k), (4 * CHUNK_CELLS, 8)],
                     fixed=64 * 2**20 + 80 * 2**20)
    what = (f"{particles:,} particles with k={k:,} over {n_states:,} initial states, {n_goals} goal(s) and "
            f"{steps} step(s)")
    return Estimate("particle inference", peak, seconds=SECONDS_PER_MOVE * particles * k * k * (steps + 1),
                    size=particles, unit="particles", detail=f"{what}; {prior_draws:,} prior draws")


#: What to do about particle inference over each limit.
PARTICLE_HINTS = {
    "bytes": "use fewer particles (--particles), a smaller --k, or a map with fewer closed boxes or hidden keys",
    "seconds": "use a smaller --k (k = 3 is the paper's) or fewer particles (--particles)",
}


# -- the simulated agent -------------------------------------------------------------------

#: Bytes a simulation holds per initial state the agent's belief ranges over and per map
#: cell: the planner's memo of subgoal values for that state's key configuration (cells x
#: locked doors x key statuses, per goal), the state itself and its encoded rows. Measured
#: 0.36-0.58 KB on generated maps of 55-77 cells with 6 gems, 4 doors and 4 hidden keys
#: (1,680-24,024 states); rounded up.
BYTES_PER_STATE_CELL = 640
#: What a simulation holds whatever the map (the interpreter, NumPy, the compiled core).
BASE_BYTES = 64 * 2**20


def simulation_estimate(cells: int, n_states: int, detail: str = "") -> Estimate:
    """Simulating the agent on a map of ``cells`` cells whose belief ranges over
    ``n_states`` initial states (see :data:`BYTES_PER_STATE_CELL`)."""
    return Estimate("simulating the agent", footprint([(n_states * cells, BYTES_PER_STATE_CELL)], fixed=BASE_BYTES),
                    size=n_states, unit="initial states", detail=detail)
