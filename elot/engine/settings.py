"""One run's settings as one value, in three parts, as numpyro keeps a kernel apart from its
driver: the **model** (what the agent is: its domain's model by name, β and the model's own
parameters), the **inference** (how the posterior is computed: exact enumeration or
particles, and the particle filter's knobs) and the **budget** (what a run may use).

A domain's front (:mod:`elot.domains.front`) makes a :class:`Settings` from what a user
gives, checking each part once (a setting the domain does not take is refused whatever its
value); a run keeps it whole, resolved (``auto``'s choice, the seed drawn), on its result,
and ``--json``, batch tables and the REPL read it from there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from btom_ext import BACKENDS
from elot.errors import ArgumentError, ElotError
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES, DEFAULT_PARTICLES, METHODS, check_number


def samples(method: str) -> bool:
    """Whether a run under ``method`` may draw particles (``smc``, or ``auto`` on a space too large)."""
    return method != "exact"


def fresh_seed() -> int:
    """A seed from the operating system's entropy (what a particle run of either engine draws
    when given none, and reports)."""
    import numpy as np   # here: the command line's parser reads this module without NumPy
    return int(np.random.SeedSequence().entropy % 2**32)


class InferenceMethodError(ElotError, ValueError):
    """An unknown inference method name."""


def check_method(name: str, error: type[ElotError] = InferenceMethodError) -> str:
    """Return ``name`` if it is one of :data:`~elot.settings.METHODS`, else raise ``error``
    (:class:`InferenceMethodError`, or the caller's kind of error): the one check of a
    method, whichever value holds it (:class:`InferenceSettings`, the tabular engine's
    config, the gridworld's)."""
    if name not in METHODS:
        raise error(f"unknown inference method {name!r}", hint=f"use one of: {', '.join(METHODS)}")
    return name


def check_backend(name: str, error: type[ElotError] = ArgumentError) -> str:
    """Return ``name`` if it names a numeric backend (``btom_ext.BACKENDS``: the compiled
    core or its NumPy reference), else raise ``error``."""
    if name not in BACKENDS:
        raise error(f"unknown backend {name!r}", hint=f"use one of: {', '.join(BACKENDS)}")
    return name


def check_inference(settings: Any, error: type[ElotError] = ArgumentError) -> None:
    """Check the inference settings a frozen value holds (its ``method``, ``particles``,
    ``seed``, None for one drawn later, ``ess_threshold``, ``moves`` and ``backend``), and
    write back each number as :func:`~elot.settings.check_number` reads it: the one check of
    each, for :class:`InferenceSettings` and the tabular engine's config alike; ``error``
    the kind raised."""
    check_method(settings.method, error)
    for name, number in (("particles", "particles"), ("seed", "seed"), ("ess_threshold", "ess-threshold"),
                         ("moves", "moves")):
        value = getattr(settings, name)
        if value is not None or name != "seed":
            try:
                object.__setattr__(settings, name, check_number(number, value))
            except ElotError as refused:
                raise error(refused.message, hint=refused.hint) from None
    check_backend(settings.backend, error)


@dataclass(frozen=True)
class ModelSettings:
    """What the agent is: ``name`` (one of its domain's models), ``beta`` (its rationality:
    the softmax of its action values) and ``params``, the domain's own parameters of its
    models (a belief size, a planner: whatever the domain's front declares), as
    ``(name, value)`` pairs in the order the front declares them."""

    name: str
    beta: float
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", float(check_number("beta", self.beta)))
        object.__setattr__(self, "params", tuple((str(k), v) for k, v in self.params))

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    def as_dict(self) -> dict:
        return {"name": self.name, "beta": self.beta, **dict(self.params)}


@dataclass(frozen=True)
class InferenceSettings:
    """How the posterior is computed: ``method`` (``exact`` enumeration, ``smc`` particles
    with resampling and rejuvenation, or ``auto``: exact when it fits the budget), the
    particle filter's ``particles``, ``seed`` (None: a fresh one, filled in when a run draws
    it), ``ess_threshold`` (resample when the effective sample size falls below this
    fraction of the particles) and ``moves`` (rejuvenation sweeps after each resampling),
    and the numeric ``backend`` (the compiled core or its NumPy reference)."""

    method: str = "exact"
    particles: int = DEFAULT_PARTICLES
    seed: int | None = None
    ess_threshold: float = DEFAULT_ESS_THRESHOLD
    moves: int = DEFAULT_MOVES
    backend: str = "core"

    def __post_init__(self) -> None:
        check_inference(self)

    @property
    def may_sample(self) -> bool:
        """Whether a run may draw particles (``smc``, or ``auto`` on a space too large)."""
        return samples(self.method)

    def described(self) -> dict:
        """As data: the method, and under particles the filter's settings and the seed."""
        out: dict[str, Any] = {"method": self.method, "backend": self.backend}
        if self.may_sample:
            out.update(particles=self.particles, seed=self.seed, ess_threshold=self.ess_threshold, moves=self.moves)
        return out


@dataclass(frozen=True)
class Budget:
    """What a run may use: ``max_bytes`` of memory (None: half the memory available) and,
    for exact enumeration, ``max_hypotheses`` (None: the domain's limit)."""

    max_bytes: int | None = None
    max_hypotheses: int | None = None


@dataclass(frozen=True)
class Settings:
    """One run's settings: the model, the inference and the budget (see the module)."""

    model: ModelSettings
    inference: InferenceSettings = field(default_factory=InferenceSettings)
    budget: Budget = field(default_factory=Budget)

    @property
    def beta(self) -> float:
        return self.model.beta

    def with_beta(self, beta: float) -> "Settings":
        return dataclasses.replace(self, model=dataclasses.replace(self.model, beta=float(beta)))

    def with_inference(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, inference=dataclasses.replace(self.inference, **changes))

    def described(self) -> dict:
        """What a reader needs to run it again (``--json``'s ``settings``)."""
        return {"model": self.model.as_dict(), "inference": self.inference.described(),
                "budget": dataclasses.asdict(self.budget)}
