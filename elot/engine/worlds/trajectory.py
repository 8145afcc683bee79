"""What every inference result answers the same way, exact or particles, whatever the
domain: the steps, the world of each initial state at every step, and how inference ran
(the settings of its ``config``, ``describe``, ``report``, ``columns``, ``diagnostics``).
A result's posteriors are arrays (its ``judged_rows``); the rows a statement is judged on
are made from them above the engine (:mod:`elot.domains.rows`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from elot.engine.worlds.protocol import as_worlds
from elot.errors import ArgumentError


class TimeError(ArgumentError, IndexError):
    """A time step outside 0..T (also an ``IndexError``, what it used to be)."""


class Trajectory:
    """What every inference result answers the same way, exact or particles: the steps and
    the world of each initial state at every step. A result holds ``scenario``, ``space``,
    ``config`` (the inference configuration that ran, a
    :class:`~elot.engine.worlds.methods.FilterConfig`), ``actions`` and ``worlds_by_step``."""

    # -- the settings that ran, read from ``config`` under the names a table row and the
    # command line use ---------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The BToM variant (``--model``)."""
        return self.config.variant

    @property
    def beta(self) -> float:
        return self.config.beta

    @property
    def k(self) -> int:
        return self.config.k

    @property
    def particles(self) -> int:
        return self.config.particles

    @property
    def method(self) -> str:
        """``exact`` or ``smc``: how this result was computed (what ``auto`` chose)."""
        return self.config.method

    @property
    def backend(self) -> str:
        return self.config.backend

    @property
    def seed(self) -> int | None:
        """The seed particle inference ran with (drawn when none was given); None if exact."""
        return self.config.seed if self.config.method == "smc" else None

    @property
    def conventions(self) -> str:
        """``elot`` or ``paper``: how the space was built; scores follow it by default."""
        return self.space.conventions

    @property
    def steps(self) -> int:
        """T, the number of observed actions."""
        return len(self.actions)

    @property
    def size(self) -> int:
        """The number of hypotheses (with no limit, unlike ``len``)."""
        return self.space.size

    def __len__(self) -> int:
        return self.space.size

    # -- what the result says about itself: the one hook through which commands show how
    # inference ran, so that none of them asks which method it was --------------------------

    #: Whether scores carry a standard error (estimated hypotheses, e.g. particles).
    estimated = False

    def describe(self, times: Sequence[int]) -> str:
        """A line saying how inference ran, for a run's header ('' when there is nothing
        to say beyond the hypothesis count)."""
        return f"inference: {self.method} ({self.note})" if self.note else ""

    def summary(self) -> str:
        """How inference ran in a few words, for a figure's title ('' for exact inference)."""
        return ""

    def report(self, times: Sequence[int]) -> dict:
        """How inference ran as data for a JSON report: the settings that ran
        (the config's ``described()``), the number of hypotheses,
        and why ``auto`` chose the method (``note``)."""
        out = {**self.config.described(), "hypotheses": self.size}
        if self.note:
            out["note"] = self.note
        return out

    def columns(self) -> dict:
        """The table columns that say how inference ran (``inference``, ``particles``,
        ``seed``; written only in tables where some task ran particles)."""
        return {"inference": self.method, "particles": "", "seed": ""}

    def diagnostics(self, t: int) -> dict:
        """Per-time diagnostics as table columns (particles: ``ess`` and ``warning``)."""
        return {}

    def check_time(self, t: int) -> int:
        """``t`` if it is a step of this result (0..T), else a :class:`TimeError`."""
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
            raise TimeError(f"time t must be a whole number, not {type(t).__name__} {t!r}",
                            hint=f"times run from 0 to {self.steps}")
        if not 0 <= t <= self.steps:
            raise TimeError(f"time {t} is outside 0..{self.steps}", hint=f"times run from 0 to {self.steps}")
        return t

    def worlds(self, t: int) -> tuple:
        """The world at time t of each initial state (one per state index)."""
        return as_worlds(self.worlds_by_step[self.check_time(t)])
