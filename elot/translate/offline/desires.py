"""Desires: what follows the subject when a sentence says what the agent wants or likes.

``wants gem 1``, ``likes the mexican truck best``, ``prefers the korean truck to the
lebanese truck``, ``likes the korean truck more than the lebanese truck``, ``dislikes the
lebanese truck``, ``does not like the korean truck``. The objects are noun phrases of the
domain (:meth:`~elot.translate.offline.phrases.Vocabulary.object`: an object's name, its
name and type, ``gem 1``, or the words the signature gives it). :data:`DESIRES` is the
table, tried before the belief attitudes: a row whose object is not a noun phrase declines,
so ``wants box 1 to be empty`` is still read as a hope.
"""

from __future__ import annotations

import re
from typing import Callable

from elot.lang.syntax import Term, call
from elot.translate.offline.content import ContentParser
from elot.translate.offline.rules import NoParse
from elot.translate.offline.terms import AGENT, const, neg

Handler = Callable[[ContentParser, str], Term]

_LIKE = r"likes|liked|loves|loved|enjoys|enjoyed|is fond of|was fond of"
_AFTER = r"(?: of all(?: (?:the )?\w+)?)?"


def _one(op: str, negated: bool = False) -> Handler:
    """``op(player, o)`` for the noun phrase that follows the verb (or its negation)."""

    def handler(parser: ContentParser, rest: str) -> Term:
        term = call(op, AGENT, const(parser.vocab.object(rest)))
        return neg(term) if negated else term

    return handler


def _pair(words: str, reverse: bool = False) -> Handler:
    """``prefers(player, o1, o2)`` from ``o1 <words> o2`` (``reverse``: ``o2`` first)."""

    def handler(parser: ContentParser, rest: str) -> Term:
        for m in re.finditer(rf" (?:{words}) ", rest):
            try:
                first = parser.vocab.object(rest[:m.start()])
                second = parser.vocab.object(rest[m.end():])
            except NoParse:
                continue
            if reverse:
                first, second = second, first
            return call("prefers", AGENT, const(first), const(second))
        raise NoParse(rest)

    return handler


#: What a desire can be, tried in order: (the verb's pattern, ``v`` the verb and ``rest``
#: what follows it) → the handler of what follows.
DESIRES: tuple[tuple[str, Handler], ...] = (
    (rf"^(?P<v>{_LIKE}|prefers|preferred) (?P<rest>.+?) (?:the )?(?:best|most){_AFTER}$", _one("likes_best")),
    (rf"^(?P<v>{_LIKE}) (?P<rest>.+?) (?:the )?least{_AFTER}$", _one("likes_least")),
    (r"^(?P<v>prefers|preferred|would rather have|would have preferred|favors|favoured|favours|favored) "
     r"(?P<rest>.+)$", _pair("to|over|rather than|instead of")),
    (rf"^(?P<v>{_LIKE}) (?P<rest>.+)$", _pair("more than|better than")),
    (rf"^(?P<v>{_LIKE}) (?P<rest>.+)$", _pair("less than", reverse=True)),
    (r"^(?P<v>does not like|did not like|does not care for|did not care for|does not love|did not love) "
     r"(?P<rest>.+)$", _one("likes", negated=True)),
    (r"^(?P<v>dislikes|disliked|hates|hated|detests|detested) (?P<rest>.+)$", _one("dislikes")),
    (r"^(?P<v>does not want|did not want) (?:to (?:go to|get to|get|reach|eat at|have) )?(?P<rest>.+)$",
     _one("wants", negated=True)),
    (r"^(?P<v>wants|wanted|is looking for|was looking for|is after|was after|is going for|was going for|"
     r"is heading for|was heading for|is trying to get|was trying to get|is trying to reach|was trying to reach|"
     r"has the goal of reaching|had the goal of reaching) "
     r"(?:to (?:go to|get to|get|reach|eat at|have) )?(?P<rest>.+)$", _one("wants")),
    (rf"^(?P<v>{_LIKE}) (?P<rest>.+)$", _one("likes")),
)
