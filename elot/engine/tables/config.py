"""What a run of the engine is asked to do: one frozen value, kept whole on every result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from elot.engine.settings import check_inference, samples
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES
from elot.errors import ArgumentError
from elot.settings import DEFAULT_BETA, DEFAULT_PARTICLES

#: The planners a config may name (``elot.engine.tables.planners.PLANNERS`` implements them).
PLANNER_NAMES = ("qmdp", "belief-vi")


@dataclass(frozen=True)
class EngineConfig:
    """Settings of one run.

    ``planner`` (None: the domain's default), ``beta`` (the softmax rationality of the
    action likelihood; None: the domain's ``default_beta``, else elot's
    :data:`~elot.settings.DEFAULT_BETA`), ``gamma`` and ``sweeps`` (value iteration: Q of the last of
    ``sweeps`` backups from V = 0), ``grid`` (the belief grid's resolution for
    ``belief-vi``), ``costs`` (False: every action is free), ``true_belief`` (the agent
    knows the true world: its initial belief is that world), ``belief_quantum`` (the
    agent's beliefs in the inversion are rounded to multiples of it; 0: not rounded),
    ``backend`` (``core``: the compiled kernels; ``reference``: their NumPy twins) and
    ``memory_limit`` (bytes a run may use; None: the engine's default), ``method``
    (:data:`elot.settings.METHODS`: every hypothesis, ``exact``; ``particles``
    hypotheses drawn from the priors, ``smc``; exact when the budget allows it, ``auto``), ``particles`` (hypotheses drawn by ``smc``), ``seed`` (of the
    draws; None: a fresh one, which the engine fills in, so a result's config can be rerun),
    ``ess_threshold`` (particles are resampled when the effective sample size falls below
    this fraction of them) and ``moves`` (rejuvenation sweeps after each resampling).
    """

    planner: str | None = None
    beta: float | None = None
    gamma: float = 0.99
    sweeps: int = 50
    grid: int = 6
    costs: bool = True
    true_belief: bool = False
    belief_quantum: float = 2.0 ** -16
    backend: str = "core"
    memory_limit: int | None = None
    method: str = "exact"
    particles: int = DEFAULT_PARTICLES
    seed: int | None = None
    ess_threshold: float = DEFAULT_ESS_THRESHOLD
    moves: int = DEFAULT_MOVES

    def __post_init__(self) -> None:
        if self.planner is not None and self.planner not in PLANNER_NAMES:
            raise ArgumentError(f"unknown planner {self.planner!r}",
                                hint=f"choose one of {', '.join(PLANNER_NAMES)}")
        if self.beta is not None and not (self.beta == self.beta and 0 <= self.beta < float("inf")):
            raise ArgumentError(f"beta must be a finite number >= 0, not {self.beta}")
        if not 0 <= self.gamma <= 1:
            raise ArgumentError(f"gamma must be between 0 and 1, not {self.gamma}")
        if not (isinstance(self.sweeps, int) and self.sweeps >= 1):
            raise ArgumentError(f"sweeps must be a whole number >= 1, not {self.sweeps}")
        if not (isinstance(self.grid, int) and self.grid >= 1):
            raise ArgumentError(f"grid must be a whole number >= 1, not {self.grid}")
        check_inference(self)   # method, particles, seed, ess_threshold, moves, backend: as every run's settings
        if not 0 <= self.belief_quantum < 1:
            raise ArgumentError(f"belief_quantum must be in [0, 1), not {self.belief_quantum}")

    @property
    def may_sample(self) -> bool:
        """Whether a run may draw particles (method smc or auto)."""
        return samples(self.method)

    def resolved(self, default_planner: str, default_beta: float = DEFAULT_BETA) -> "EngineConfig":
        """This config with the planner and β filled in (what actually runs)."""
        return replace(self, planner=self.planner or default_planner,
                       beta=default_beta if self.beta is None else self.beta)

    def with_beta(self, beta: float) -> "EngineConfig":
        return replace(self, beta=float(beta))

    def as_dict(self) -> dict:
        return asdict(self)
