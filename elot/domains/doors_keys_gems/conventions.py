"""Named sets of conventions: how elot computes (``elot``, SPEC §4–§5, the default) or what
the reference pipeline behind the paper's Table does (``paper``, SPEC §7).

``paper`` changes three things, each documented where it is implemented:

1. π counts hypotheses ruled out by time t as false (:func:`elot.domains.doors_keys_gems.scoring.score`);
2. accuracy in the in-vs-out comparison is the literal float comparison
   (:func:`elot.domains.doors_keys_gems.experiments.in_vs_out` reports it as ``strict``, beside the tie-tolerant one);
3. initial states come in the reference's order, with its key names
   (:func:`elot.domains.doors_keys_gems.hypotheses.initial_states`).

The reference's True Belief artifact (§7.4) is a model of its own, ``true-belief-paper``
(:data:`elot.settings.REPRODUCTION_VARIANTS`), not part of the conventions.
"""

from __future__ import annotations

from typing import Literal

from elot.errors import ElotError

CONVENTIONS = ("elot", "paper")
Conventions = Literal["elot", "paper"]


class ConventionsError(ElotError, ValueError):
    """An unknown conventions name."""


def check_conventions(name: str) -> Conventions:
    """Return ``name`` if it names a set of conventions, else raise :class:`ConventionsError`."""
    if name not in CONVENTIONS:
        raise ConventionsError(f"unknown conventions {name!r}",
                               hint=f"use one of: {', '.join(CONVENTIONS)}")
    return name  # type: ignore[return-value]
