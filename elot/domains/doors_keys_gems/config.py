"""How to infer, as one value (:class:`InferenceConfig`), and the checks of its settings.

The command line builds one (:func:`elot.cli.options.inference_config`), the REPL's
session holds one, a batch task carries one; :func:`elot.domains.doors_keys_gems.inference.infer` passes it
whole to the filter it runs, and the filter keeps on its result the configuration that
actually ran, its open choices resolved (the method ``auto`` chose, the seed drawn when
none was given): a result's ``config``, which ``elot run --json`` and batch's columns
report.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from elot.engine.settings import check_backend, check_method
from elot.settings import check_conventions
from elot.domains.doors_keys_gems.hypotheses import Prior
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES
from elot.errors import ArgumentError, ElotError
from elot.settings import (DEFAULT_BETA, DEFAULT_K, DEFAULT_PARTICLES, DEFAULT_VARIANT, MAX_HYPOTHESES,
                           check_number, check_variant)
from elot.engine.worlds.methods import ParticleError, check_particles


class SettingError(ArgumentError, ParticleError, ValueError):
    """A setting of :class:`InferenceConfig` of the wrong type or out of range (also a
    :class:`ParticleError` and a ``ValueError``: what particle inference and NumPy raised
    for it before)."""


@dataclass(frozen=True)
class InferenceConfig:
    """How to infer, as one value: built once (by the command line's
    :func:`elot.cli.options.inference_config`, by the REPL's session, by a batch task) and
    passed whole to :func:`~elot.domains.doors_keys_gems.inference.infer` and on to its filter. Every field
    is checked when the value is made.

    ``variant``: the BToM model (``full``, ``true-belief``, ``non-planning`` or
    ``true-belief-paper``, SPEC §5, §7.4; ``--model`` on the command line); ``beta`` the
    agent's rationality; ``k`` particles per initial belief; ``conventions`` ``elot`` or
    ``paper`` (§7.3); ``prior`` the family of initial states; ``goals`` the goals
    considered (default: every gem); ``method`` ``exact``, ``smc`` or ``auto`` with
    ``particles`` and ``seed`` for particle inference; ``backend`` the numeric core;
    ``max_hypotheses`` and ``max_bytes`` the limits of exact inference; ``ess_threshold``
    and ``moves`` the particle filter's resampling threshold and rejuvenation sweeps.

    A result's ``config`` is the one that ran: ``method`` ``exact`` or ``smc`` (never
    ``auto``), and under ``smc`` the ``seed`` drawn when none was given (:meth:`ran`).
    """

    variant: str = DEFAULT_VARIANT
    beta: float = DEFAULT_BETA
    k: int = DEFAULT_K
    conventions: str = "elot"
    method: str = "exact"
    particles: int = DEFAULT_PARTICLES
    seed: int | None = None
    prior: Prior = Prior()
    goals: tuple[str, ...] | None = None
    backend: str = "core"
    max_hypotheses: int = MAX_HYPOTHESES
    max_bytes: int | None = None
    ess_threshold: float = DEFAULT_ESS_THRESHOLD
    moves: int = DEFAULT_MOVES

    def __post_init__(self) -> None:
        check_method(self.method)
        check_particles(self.particles)
        check_variant(self.variant)
        check_conventions(self.conventions)
        for name in ("beta", "k", "seed"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, np.number))):
                raise SettingError(f"{name} must be a number, not {type(value).__name__} {value!r}")
            try:
                if value is not None:
                    object.__setattr__(self, name, check_number(name, value))
            except ElotError as error:
                raise SettingError(error.message, hint=error.hint) from None
        object.__setattr__(self, "particles", int(self.particles))
        check_backend(self.backend, SettingError)
        if not isinstance(self.prior, Prior):
            raise SettingError(f"prior must be a Prior, not {type(self.prior).__name__} {self.prior!r}",
                               hint="e.g. Prior(max_hidden=2)")
        if self.goals is not None and not isinstance(self.goals, tuple):
            object.__setattr__(self, "goals", tuple(self.goals))

    def runs_particles(self, fits: bool) -> bool:
        """Whether inference runs particles on a space that ``fits`` exact enumeration or
        not: always under ``smc``, never under ``exact``, under ``auto`` when it does not fit."""
        return self.method == "smc" or (self.method == "auto" and not fits)

    @property
    def may_sample(self) -> bool:
        """Whether this inference may run particles (``smc``, or ``auto`` on a large space):
        its results may then carry diagnostics and standard errors."""
        return self.runs_particles(fits=False)

    def replace(self, **changes: Any) -> "InferenceConfig":
        """This configuration with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def ran(self, method: str, **resolved: Any) -> "InferenceConfig":
        """This configuration as it ran: ``method`` (``exact`` or ``smc``, what ``auto``
        chose) and the other values a filter resolved (``seed``, ``goals``)."""
        if method not in ("exact", "smc"):
            raise ArgumentError(f"a run is exact or smc, not {method!r}")
        if not resolved:   # nothing new to check: a copy with the method (every run makes one)
            ran = copy.copy(self)
            object.__setattr__(ran, "method", method)
            return ran
        return self.replace(method=method, **resolved)

    def described(self) -> dict:
        """The settings as data, for a JSON report: what a reader needs to run it again."""
        prior = {"max_hidden": self.prior.max_hidden,
                 "colours": None if self.prior.colours is None else list(self.prior.colours)}
        out = {"method": self.method, "model": self.variant, "beta": self.beta, "k": self.k,
               "conventions": self.conventions, "backend": self.backend, "prior": prior,
               "goals": None if self.goals is None else list(self.goals)}
        if self.method == "smc":
            out.update(particles=self.particles, seed=self.seed)
            if (self.ess_threshold, self.moves) != (DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES):
                out.update(ess_threshold=self.ess_threshold, moves=self.moves)
        return out


#: ``infer``'s keyword arguments that name a field of :class:`InferenceConfig` otherwise.
_KEYWORDS = {"model": "variant", "inference": "method"}


def infer_config(config: InferenceConfig | None = None, **settings: Any) -> InferenceConfig:
    """``config`` (default: the defaults) with ``settings`` given as :func:`infer`'s keyword
    arguments (``model=``, ``inference=``, ...; None leaves a setting as it is)."""
    changes = {_KEYWORDS.get(name, name): value for name, value in settings.items() if value is not None}
    fields = [f.name for f in dataclasses.fields(InferenceConfig)]
    unknown = sorted(set(changes) - set(fields))
    if unknown:
        raise ArgumentError(f"unknown inference setting {unknown[0]!r}",
                            hint="settings: " + ", ".join(sorted({*fields, *_KEYWORDS} - set(_KEYWORDS.values()))))
    config = config or InferenceConfig()
    return config.replace(**changes) if changes else config
