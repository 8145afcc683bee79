"""Reading a rating out of a language model's answer, and the expected rating from token
probabilities.

The rules, in order (:func:`parse_rating`):

1. a JSON object anywhere in the answer with a ``rating`` (any case) that is a number or
   a one-number list: ``{"rating": 5}``, ``{"Rating": [5]}``;
2. ``rating`` followed by ``:`` or ``=`` or ``is`` and a number, bracketed or quoted or
   not: ``rating: [5]``, ``"rating": 5``, ``Rating = 6/7``;
3. otherwise the numbers of the answer, the scale's own mention left out (``1 to 7``,
   ``1-7``, ``out of 7``, ``/7``): exactly one distinct number is the rating; two
   different ones are *ambiguous* (``"5 or 6"``), none is *no number*.

A rating outside 1–7 (``rating: [75]``, an answer on another scale) is *out of scale*.
Nothing is ever replaced by a middle value: an answer that does not give one rating is
returned as such, with the reason, and counted.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Mapping

from elot.baseline.prompts import HIGH, LOW

#: Why an answer gave no rating (the statuses of a :class:`Parsed` without a value).
NO_NUMBER, AMBIGUOUS, OUT_OF_SCALE, REFUSED = "no number", "ambiguous", "out of scale", "refused"
#: An answer whose fields are not what the endpoint's API sends (a content that is not
#: text, token counts or log probabilities that are not numbers): no rating, never a guess.
MALFORMED = "malformed answer"
#: Every status an answer may have: ``ok`` (a rating) or a reason it has none.
STATUSES = ("ok", NO_NUMBER, AMBIGUOUS, OUT_OF_SCALE, REFUSED, MALFORMED)

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_KEYED = re.compile(r"\brating\b[\"']?\s*(?:[:=]|\bis\b)\s*[\[\(\"']?\s*(" + _NUMBER + r")", re.IGNORECASE)
_SCALE = re.compile(r"\b1\s*(?:-|–|to|through)\s*7\b|\bout of\s*7\b|/\s*7\b|\(\s*1\s*=|\b7\s*=", re.IGNORECASE)
_NUMBERS = re.compile(r"(?<![\w.])" + _NUMBER + r"(?!\w|\.\d)")
_JSON = re.compile(r"\{[^{}]*\}")
_REFUSAL = re.compile(r"^\s*(?:i'?m sorry|i cannot|i can'?t|i am unable|i'm unable|as an ai)", re.IGNORECASE)


@dataclass(frozen=True)
class Parsed:
    """A rating on 1–7, or None with the reason (``status``)."""

    rating: float | None
    status: str = "ok"

    @property
    def ok(self) -> bool:
        return self.rating is not None


def checked(value: float) -> Parsed:
    """``value`` as a rating: itself when it is a finite number on 1–7, else out of scale."""
    if not math.isfinite(value) or not LOW <= value <= HIGH:
        return Parsed(None, OUT_OF_SCALE)
    return Parsed(value)


def parse_rating(answer: str | None) -> Parsed:
    """The rating an answer gives, by the rules of this module's docstring."""
    if answer is None or not answer.strip():
        return Parsed(None, NO_NUMBER)
    for block in _JSON.findall(answer):
        try:
            data = json.loads(block)
        except ValueError:
            continue
        if isinstance(data, dict):
            value = next((v for k, v in data.items() if str(k).lower() == "rating"), None)
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            if isinstance(value, str):
                try:
                    value = float(value)
                except ValueError:
                    value = None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return checked(float(value))
    keyed = {float(m) for m in _KEYED.findall(answer)}
    if len(keyed) == 1:
        return checked(keyed.pop())
    if len(keyed) > 1:
        return Parsed(None, AMBIGUOUS)
    numbers = {float(m) for m in _NUMBERS.findall(_SCALE.sub(" ", answer))}
    if not numbers:
        return Parsed(None, REFUSED if _REFUSAL.search(answer) else NO_NUMBER)
    if len(numbers) > 1:
        return Parsed(None, AMBIGUOUS)
    return checked(numbers.pop())


def expected_rating(logprobs: Mapping[str, float]) -> tuple[float | None, float]:
    """The expected rating over 1–7 from the log probabilities of the next token (token
    text → log probability; tokens with spaces around a digit count as the digit), and
    the probability mass the seven ratings had together. ``(None, 0.0)`` when no rating
    token is among them."""
    mass: dict[int, float] = {}
    for token, logprob in logprobs.items():
        text = token.strip()
        if text.isdigit() and LOW <= int(text) <= HIGH and len(text) == 1:
            try:
                mass[int(text)] = mass.get(int(text), 0.0) + math.exp(logprob)
            except (OverflowError, TypeError):      # not a log probability: no expectation
                return None, 0.0
    total = math.fsum(mass.values())
    if not total > 0 or not math.isfinite(total):     # NaN or infinite log probabilities give no expectation
        return None, 0.0
    return math.fsum(r * p for r, p in mass.items()) / total, total


def normalized(rating: float) -> float:
    """A 1–7 rating on [0, 1] (1 → 0, 7 → 1), as the in-vs-out comparison and the study
    tables read a model's value."""
    return (rating - LOW) / (HIGH - LOW)
