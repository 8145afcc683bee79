"""The inference methods a run may ask for, what the filters read of a configuration, and
the errors of particle inference.

:data:`elot.settings.METHODS` names them (``exact`` enumeration, ``smc`` particles, or ``auto``: exact
when the space fits the budget, particles otherwise; :func:`elot.engine.settings.check_method`
checks one); :func:`check_particles` checks a setting; :class:`ParticleError` is what particle inference
raises when it cannot go on or was asked wrongly. :class:`FilterConfig` is what the
filters read of a domain's configuration (a result reads its settings under the names a
table row uses: :class:`~elot.engine.worlds.trajectory.Trajectory`).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import numpy as np

from elot.errors import ElotError
from elot.settings import DEFAULT_PARTICLES

#: ``progress(t, T)``, called after each observed action.
Progress = Callable[[int, int], None]


class ParticleError(ElotError):
    """Particle inference cannot go on (every particle ruled out), or was asked wrongly."""


def check_particles(n: Any) -> int:
    """``n`` as a number of particles (an integer of at least 1), else :class:`ParticleError`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParticleError(f"the number of particles must be a whole number of at least 1, not {n!r}",
                            hint=f"use e.g. --particles {DEFAULT_PARTICLES} (particles={DEFAULT_PARTICLES})")
    return int(n)


class FilterConfig(Protocol):
    """What the engine's filters read of a domain's inference configuration (a frozen
    value the domain makes; the gridworld's is its ``config.InferenceConfig``).
    The result keeps ``ran(method, **resolved)``: the configuration that ran, its open
    choices resolved (the method ``auto`` chose, the seed drawn), whose ``described()`` a
    JSON report prints. ``ess_threshold`` and ``moves`` (the particle filter's resampling
    and rejuvenation) may be left out: the defaults of :mod:`elot.settings` then hold."""

    variant: str
    beta: float
    k: int
    conventions: str
    method: str
    particles: int
    seed: int | None
    backend: str
    max_hypotheses: int
    max_bytes: int | None
    ess_threshold: float
    moves: int

    def ran(self, method: str, **resolved: Any) -> "FilterConfig": ...

    def runs_particles(self, fits: bool) -> bool: ...

    def described(self) -> dict: ...
