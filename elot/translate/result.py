"""What a translation returns: ranked candidate formulas with weights and a mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Candidate(NamedTuple):
    """One candidate translation: canonical ELoT text, its weight and its mode."""

    formula: str
    weight: float
    mode: str


@dataclass(frozen=True)
class Translation:
    """The translations of one sentence, best first; weights sum to 1.

    Every candidate parses and typechecks against the signature it was made for.
    ``backend`` names what produced them (``offline`` or ``llm:<model file>``);
    ``notes`` says what happened on the way (e.g. an LLM fallback); ``timings`` is where
    an LLM translation's seconds went (``load``, ``prompt``, ``generate``, ``overhead``)
    and its token counts (``prompt_tokens``, ``generated_tokens``, ``cached_tokens``).
    """

    sentence: str
    candidates: tuple[Candidate, ...]
    backend: str
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def best(self) -> Candidate:
        """The top-weighted candidate."""
        return self.candidates[0]

    @property
    def formula(self) -> str:
        """The best candidate's formula text."""
        return self.best.formula

    @property
    def mode(self) -> str:
        """The best candidate's mode (``current`` or ``initial``)."""
        return self.best.mode
