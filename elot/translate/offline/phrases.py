"""Noun phrases: the boxes and the keys a clause is about.

``box 1``, ``boxes 1 and 2``, ``neither box 1 nor 2``, ``one of the boxes``, ``every box``
(:func:`parse_boxes`); ``a key``, ``no blue key``, ``the red or blue key`` (:func:`parse_keys`).
Each is a table of :class:`~elot.translate.offline.rules.Rule` s tried in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from elot.lang.signature import Signature
from elot.lang.syntax import Term, call
from elot.translate.offline.rules import NoParse, Rule, Unknown, apply, rule
from elot.translate.offline.terms import K, conj, disj, iscolor


@dataclass(frozen=True)
class Vocabulary:
    """The boxes and colours a sentence may mention (from the signature)."""

    boxes: frozenset[str]
    colors: tuple[str, ...]

    @staticmethod
    @lru_cache(maxsize=32)
    def of(signature: Signature) -> "Vocabulary":
        """The vocabulary of ``signature``, built once: every sentence over it shares it."""
        return Vocabulary(
            boxes=frozenset(signature.objects_of("box")),
            colors=tuple(sorted(signature.objects_of("color"), key=len, reverse=True)),
        )

    @cached_property
    def color_pattern(self) -> str:
        """The colours as a regex alternation, longest first (matching nothing if none)."""
        return "|".join(re.escape(c) for c in self.colors) or r"(?!x)x"


@dataclass(frozen=True)
class Boxes:
    """A reference to boxes: a list joined by ``and``/``or``, or a quantifier.

    ``kind`` is ``list``, ``some`` (one of the boxes), ``all`` (every box), ``none`` or
    ``var`` (the box a ``which box`` question asks about).
    """

    kind: str
    names: tuple[str, ...] = ()
    conj: str = "and"
    negated: bool = False


@dataclass(frozen=True)
class Keys:
    """A reference to keys: the condition binding ``K`` and whether it was ``no key``."""

    cond: Term
    negated: bool = False


# -- boxes -------------------------------------------------------------------------------

def _some_box(vocab: Vocabulary, m: re.Match) -> Boxes:
    # "one of the boxes" but not "one of the boxes 1 and 2" (a list, read below)
    if not re.fullmatch(r"[a-z ]+boxe?s?|[a-z ]+ box", m.string):
        raise NoParse(m.string)
    return Boxes("some")


def _box_list(vocab: Vocabulary, m: re.Match) -> Boxes:
    numbers = [m.group("first")] + re.findall(r"\d+", m.group("rest"))
    names = tuple(f"box{n}" for n in numbers)
    for name in names:
        if vocab.boxes and name not in vocab.boxes:
            known = ", ".join(sorted(vocab.boxes))
            raise Unknown(f"there is no {name} in this scenario", f"its boxes are {known}")
    rest = m.group("rest")
    pre = (m.group("pre") or "").strip()
    joined = "or" if (" or" in rest or pre == "either") else "and"
    return Boxes("list", names, joined, negated=(pre == "neither" or " nor" in rest))


#: What a box phrase can be, tried in order.
_BOX_RULES: tuple[Rule[Boxes], ...] = (
    rule(r"^__box__$", build=lambda vocab, m: Boxes("var")),
    rule(r"^(?:none of the boxes|no box(?:es)?|neither box|neither of the boxes)$",
         build=lambda vocab, m: Boxes("none")),
    rule(r"^(?:(?:all|both|each|every one) (?:of )?(?:the )?(?:\d+ )?boxes(?: both| all)?|every box|each box|"
         r"(?:the|these|those) (?:\d+ )?boxes(?: both| all)?|(?:the )?(?:two|three|\d+) boxes|all (?:the )?boxes)$",
         build=lambda vocab, m: Boxes("all")),
    rule(r"^(?:(?:any|either|some|at least) )?(?:one )?of (?:the|these|those) (?:\d+ )?boxes|"
         r"^(?:a|some|any|another|one|at least one|a single) box|^some boxes$", build=_some_box),
    rule(r"^(?P<pre>either |both |neither )?(?:the )?(?:box|boxes) (?P<first>\d+)"
         r"(?P<rest>(?:(?:,|,? and|,? or|,? nor| and| or| nor|,? as well as) (?:box )?\d+)*)$", build=_box_list),
)


def parse_boxes(text: str, vocab: Vocabulary) -> Boxes:
    """``box 1``, ``boxes 1 and 2``, ``box 1, box 2, or box 3``, ``one of the boxes``, ..."""
    return apply(_BOX_RULES, text.strip(), vocab)


# -- keys --------------------------------------------------------------------------------

def _check_color(word: str, vocab: Vocabulary) -> str:
    if word not in vocab.colors:
        known = ", ".join(sorted(vocab.colors))
        raise Unknown(f"there is no colour {word!r} in this scenario",
                      f"its colours are {known}" if known else "it has no colours: name the key without one")
    return word


# Colour-like words that are not colours of this scenario still get a clear message.
_ANY_COLOR = (
    "red|blue|yellow|green|pink|purple|orange|white|black|brown|gray|grey|gold|silver|"
    "cyan|magenta|violet"
)


@lru_cache(maxsize=32)
def _key_rules(color_pattern: str) -> tuple[Rule[Term], ...]:
    """What a key phrase can be over a scenario's colours (the condition binding ``K``)."""
    colors = rf"(?:{color_pattern}|{_ANY_COLOR})"
    det = r"(?:(?:a|an|the|any|some|one|another|its|their) )?"

    def either(vocab: Vocabulary, m: re.Match) -> Term:
        first, second = (_check_color(c, vocab) for c in m.groups())
        return disj(conj(call("key", K), iscolor(first)), conj(call("key", K), iscolor(second)))

    def listed(vocab: Vocabulary, m: re.Match) -> Term:
        if not m.group(1):
            if m.string.endswith("one"):
                raise NoParse(m.string)
            return call("key", K)
        found = [_check_color(c, vocab) for c in re.findall(colors, m.group(1))]
        if len(found) == 1:
            return conj(call("key", K), iscolor(found[0]))
        return conj(call("key", K), disj(*(iscolor(c) for c in found)))

    def of_color(vocab: Vocabulary, m: re.Match) -> Term:
        return conj(call("key", K), iscolor(_check_color(m.group(1), vocab)))

    return (
        rule(rf"^(?:either )?{det}({colors}) keys? or {det}({colors}) keys?$", build=either, final=True),
        rule(rf"^(?:either )?{det}((?:{colors})(?:(?:,| or|, or| and) (?:{colors}))*)? ?(?:keys?|one)$",
             build=listed, final=True),
        rule(rf"^{det}keys? (?:of|in|with) (?:the )?colou?r ({colors})$", build=of_color, final=True),
    )


def parse_keys(text: str, vocab: Vocabulary) -> Keys:
    """``a key``, ``the red key``, ``no blue key``, ``a red or blue key``, ``either a red
    key or a blue key``, ``keys``."""
    text = re.sub(r"\s+(?:inside|inside of it|in it|within)$", "", text.strip())
    negated = False
    m = re.match(r"^(?:no|not any|not a|none of the) (.+)$", text)
    if m:
        negated, text = True, m.group(1)
    return Keys(apply(_key_rules(vocab.color_pattern), text, vocab), negated)
