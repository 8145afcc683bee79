"""The thresholds Θ of SPEC §3 that lowered formulas compare probabilities and utilities
with: :class:`Thresholds`, checked when made, with ``replace`` and the strong form ``most``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from elot.errors import EvaluationError, expect, nearest
from elot.lang.operators import THRESHOLD_NAMES


@dataclass(frozen=True)
class Thresholds:
    """The thresholds Θ of SPEC §3 (fitted values of the paper's Table 1b), those of the
    desire operators (``wants``, ``likes``, ``dislikes``: elot's own defaults, past the
    paper) and α_most.

    Override some with ``Thresholds().replace(might=0.25)``.
    ``threshold(most(likely)) = min(1, α·θ_likely)``; for the downward ``unlikely`` the
    strong form bounds the probability from above by ``θ_unlikely / α``.
    """

    believes: float = 0.75
    certain: float = 0.95
    uncertain: float = 0.70
    likely: float = 0.70
    unlikely: float = 0.40
    could: float = 0.20
    can: float = 0.30
    might: float = 0.20
    may: float = 0.30
    should: float = 0.80
    must: float = 0.95
    hopes: float = 0.25
    # Desires (past the paper; docs/language.md): ``wants`` bounds the probability that the
    # object is the agent's goal from below (0.5: the goal, or tied with one other object);
    # ``likes`` and ``dislikes`` bound the utility on the desire scale (0 the table's least
    # utility, 1 its most): at least its middle, at most its lowest quarter.
    wants: float = 0.50
    likes: float = 0.50
    dislikes: float = 0.25
    alpha_most: float = 1.5

    def __post_init__(self) -> None:
        # Checked here, so Thresholds(might=nan) fails at once instead of making every
        # comparison with it silently false.
        for field in dataclasses.fields(self):
            name, value = field.name, getattr(self, field.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise EvaluationError(f"threshold {name} must be a number, not {value!r}",
                                      hint=f"thresholds are probabilities, e.g. {name}=0.7")
            if name == "alpha_most" and value <= 0:
                raise EvaluationError("alpha_most must be positive", hint="e.g. alpha_most=1.5")
            if name != "alpha_most" and not 0 <= value <= 1:
                raise EvaluationError(f"threshold {name} must be between 0 and 1, not {value}",
                                      hint=f"thresholds are probabilities, e.g. {name}=0.7")
            object.__setattr__(self, name, float(value))

    @staticmethod
    def given(thresholds: "Thresholds | None", name: str = "thresholds") -> "Thresholds":
        """``thresholds``, or the defaults when None; anything else is an
        :class:`~elot.errors.ArgumentError` naming the argument."""
        if thresholds is None:
            return Thresholds()
        return expect(thresholds, Thresholds, name, hint="Thresholds(might=0.25) or Thresholds.parse(\"might=0.25\")")

    def replace(self, **changes: float) -> "Thresholds":
        """A copy with some values changed; unknown names and bad values are errors."""
        names = [f.name for f in dataclasses.fields(self)]
        for name in changes:
            if name not in names:
                guess = nearest(name, names)
                raise EvaluationError(
                    f"unknown threshold {name!r}",
                    hint=f"did you mean {guess!r}?" if guess else "known: " + ", ".join(names),
                )
        return dataclasses.replace(self, **changes)

    @staticmethod
    def parse(text: str) -> "Thresholds":
        """Overrides from text such as ``might=0.25,believes=0.8``."""
        expect(text, str, "Thresholds.parse's text", hint='e.g. "might=0.25,believes=0.8"')
        changes = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = item.partition("=")
            if not sep:
                raise EvaluationError(f"threshold override {item!r} has no value", hint="write name=value, e.g. might=0.25")
            try:
                changes[name.strip()] = float(value)
            except ValueError:
                raise EvaluationError(f"threshold {name.strip()} = {value!r} is not a number") from None
        return Thresholds().replace(**changes)

    def value(self, name: str) -> float:
        """θ for a threshold name (``believes``, ``might``, ...)."""
        if name not in THRESHOLD_NAMES:
            raise EvaluationError(f"unknown threshold {name!r}")
        return getattr(self, name)

    def most(self, adjective: str) -> float:
        """The strong form's threshold: ``min(1, α·θ_likely)`` or ``θ_unlikely / α``."""
        if adjective == "likely":
            return min(1.0, self.alpha_most * self.likely)
        if adjective == "unlikely":
            return self.unlikely / self.alpha_most
        raise EvaluationError(f"{adjective!r} is not an adjective")
