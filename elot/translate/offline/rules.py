"""The one loop every table of the offline parser goes through.

A table is a tuple of :class:`Rule` s, each a pattern (or a few alternatives) and the
builder that turns a match into a result. :func:`apply` tries them in order: the first
rule whose pattern matches and whose builder accepts the match answers. A builder
declines with :class:`NoParse` (the next rule is tried); a *final* rule's answer stands
once its pattern matches, so its builder's :class:`NoParse` ends the table too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")

#: The pattern of a rule that applies to any text (its builder decides).
ANY_TEXT = re.compile("")


class NoParse(Exception):
    """This rule does not apply (internal; the next rule is tried)."""


class Unknown(Exception):
    """The sentence names something the scenario lacks (reported to the user)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


@dataclass(frozen=True)
class Rule(Generic[T]):
    """``patterns`` (alternatives: the first that matches is the one used) → ``build``.

    ``build(context, match)`` gets the parser (or vocabulary) the table runs over and the
    match; ``final`` makes a matching rule's answer, or its refusal, the table's.
    """

    patterns: tuple[re.Pattern, ...]
    build: Callable[[Any, re.Match], T]
    final: bool = False

    def match(self, text: str) -> re.Match | None:
        """The match of the first alternative that matches ``text`` (``None`` if none)."""
        for pattern in self.patterns:
            m = pattern.match(text)
            if m:
                return m
        return None


def rule(*patterns: str | re.Pattern, build: Callable[[Any, re.Match], T], final: bool = False) -> Rule[T]:
    """A :class:`Rule` from pattern strings (compiled once, here)."""
    return Rule(tuple(re.compile(p) for p in patterns), build, final)


def apply(rules: tuple[Rule[T], ...], text: str, context: Any) -> T:
    """The answer of the first rule that applies to ``text``; :class:`NoParse` if none does."""
    for r in rules:
        m = r.match(text)
        if m is None:
            continue
        if r.final:
            return r.build(context, m)
        try:
            return r.build(context, m)
        except NoParse:
            continue
    raise NoParse(text)
