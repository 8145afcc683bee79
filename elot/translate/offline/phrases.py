"""Noun phrases: the boxes and the keys a clause is about.

``box 1``, ``boxes 1 and 2``, ``neither box 1 nor 2``, ``one of the boxes``, ``every box``
(:func:`parse_boxes`); ``a key``, ``no blue key``, ``the red or blue key`` (:func:`parse_keys`).
Each is a table of :class:`~elot.translate.offline.rules.Rule` s tried in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from elot.lang.signature import EVENT, Signature
from elot.lang.syntax import Term, call
from elot.translate.offline.rules import NoParse, Rule, Unknown, apply, rule
from elot.translate.offline.terms import K, conj, disj, iscolor


@dataclass(frozen=True)
class Vocabulary:
    """The boxes and colours a sentence may mention (from the signature), and, for any
    domain, the noun phrases naming its objects and the phrases saying its atoms
    (:func:`domain_words`)."""

    boxes: frozenset[str]
    colors: tuple[str, ...]
    signature: Signature | None = None
    #: noun phrase → object ("the mexican truck" → mexican, "spot 2" → spot2)
    nouns: tuple[tuple[str, str], ...] = ()
    #: complement → atom about ``_`` ("behind the building" → at(_, spot2))
    complements: tuple[tuple[str, str], ...] = ()
    #: noun phrase → agent ("anne" → anne, "the student" → student): who a clause is about
    agents: tuple[tuple[str, str], ...] = ()

    @staticmethod
    @lru_cache(maxsize=32)
    def of(signature: Signature) -> "Vocabulary":
        """The vocabulary of ``signature``, built once: every sentence over it shares it."""
        nouns, complements = domain_words(signature)
        return Vocabulary(
            boxes=frozenset(signature.objects_of("box")),
            colors=tuple(sorted(signature.objects_of("color"), key=len, reverse=True)),
            signature=signature, nouns=nouns, complements=complements, agents=agent_words(signature),
        )

    @cached_property
    def color_pattern(self) -> str:
        """The colours as a regex alternation, longest first (matching nothing if none)."""
        return "|".join(re.escape(c) for c in self.colors) or r"(?!x)x"

    @cached_property
    def noun_table(self) -> dict[str, str]:
        return dict(self.nouns)

    @cached_property
    def complement_table(self) -> dict[str, str]:
        return dict(self.complements)

    @cached_property
    def agent_table(self) -> dict[str, str]:
        return dict(self.agents)

    def agent(self, text: str) -> str:
        """The agent a noun phrase names (``anne``, ``the student``, ``the player``);
        :class:`NoParse` if none."""
        text = text.strip(" ,")
        if text in ("the player", "player") and self.signature is not None:
            return self.signature.agent
        found = self.agent_table.get(text)
        if found is None:
            raise NoParse(text)
        return found

    def event(self, text: str) -> str:
        """The event a noun phrase names (an object of type ``event``: ``the move``, ``the
        marble being moved``); :class:`NoParse` if it names none."""
        sig = self.signature
        name = self.noun_table.get(text.strip(" ,"))
        if sig is None or name is None or not sig.is_subdomain(sig.object_types[name], EVENT):
            raise NoParse(text)
        return name

    @cached_property
    def happenings(self) -> dict[tuple[str, str], str]:
        """An event said as a passive clause, (subject, participle) → the event: ``the marble
        was moved`` for an event the domain calls ``the marble being moved`` (as
        :func:`elot.lang.english.english` says ``happened(move)``)."""
        out = {}
        for phrase, name in self.nouns:
            m = re.fullmatch(r"(.+?) being (.+)", phrase)
            sig = self.signature
            if m and sig is not None and sig.is_subdomain(sig.object_types[name], EVENT):
                out.setdefault((m.group(1), m.group(2)), name)
        return out

    def object(self, text: str) -> str:
        """The object a noun phrase names (``the mexican truck``, ``gem 1``, ``spot 2``);
        :class:`NoParse` if none; :class:`Unknown` for ``the thai truck`` when the domain
        has trucks but no ``thai``."""
        text = re.sub(r"^(?:the )?(?:one|thing) called ", "", text.strip(" ,"))
        found = self.noun_table.get(text)
        if found is not None:
            return found
        m = re.fullmatch(r"(?:the )?(\w+) (\w+)", text) or re.fullmatch(r"(?:the )?([a-z]+) ?(\d+)", text)
        sig = self.signature
        named = m and sig is not None and m.group(2) in sig.domains and m.group(2) not in ("object", "agent") \
            and not all(re.fullmatch(rf"{m.group(2)}_?\d+", o) for o in sig.objects_of(m.group(2)))
        if named:   # trucks have names, so "the thai truck" names none (keys are described, not named)
            known = ", ".join(constant_phrase(o, sig) for o in sig.objects_of(m.group(2)))
            raise Unknown(f"there is no {m.group(1)} {m.group(2)} in this scenario", f"its {m.group(2)}s are: {known}")
        if m and sig is not None and m.group(1) in sig.domains and m.group(2).isdigit():
            known = ", ".join(constant_phrase(o, sig) for o in sig.objects_of(m.group(1)))
            raise Unknown(f"there is no {text} in this scenario", f"its {m.group(1)}s are: {known}")
        raise NoParse(text)


def constant_phrase(name: str, signature: Signature) -> str:
    """How the translator's messages name an object: its first phrase, else its name."""
    given = signature.phrases(name)
    return given[0] if given else name


def _words(phrase: str) -> str:
    return " ".join(re.sub(r"[.,!?]", "", phrase.lower()).split())


@lru_cache(maxsize=32)
def domain_words(signature: Signature) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The noun phrases naming the signature's objects and the phrases saying its atoms.

    Every object is named by its name (``mexican``, ``the mexican``), by its name and type
    (``the mexican truck``), as ``<type> <n>`` when its name is a type and a number
    (``spot2``: ``spot 2``, ``gem1``: ``gem 1``) and by the phrases the domain gives it
    (:meth:`~elot.lang.signature.Signature.with_words`); an atom about ``_`` by its phrases
    (``behind the building`` → ``at(_, spot2)``). The observed agent is not a noun here
    (the subject of a sentence is read apart)."""
    nouns: dict[str, str] = {}
    for name, kind in signature.objects:
        if kind == "agent" or name == signature.agent:
            continue
        said = [name, f"the {name}", f"{name} {kind}", f"the {name} {kind}"]
        m = re.fullmatch(r"([a-z]+)_?(\d+)", name)
        if m:
            said += [f"{m.group(1)} {m.group(2)}", f"the {m.group(1)} {m.group(2)}", f"{m.group(1)} number {m.group(2)}"]
        said += [_words(p) for p in signature.phrases(name)]
        for phrase in said:
            nouns.setdefault(phrase.replace("_", " "), name)
    complements = {}
    for key, phrase in signature.words:
        if "(" in key:
            complements.setdefault(_words(phrase), key)
    return tuple(nouns.items()), tuple(complements.items())


@lru_cache(maxsize=32)
def agent_words(signature: Signature) -> tuple[tuple[str, str], ...]:
    """The noun phrases naming the signature's agents: each agent's name, ``the`` and its
    name, and the phrases the domain gives it (``Sally``, ``the student``)."""
    out: dict[str, str] = {}
    for name, kind in signature.objects:
        if not signature.is_subdomain(kind, "agent"):
            continue
        said = [name, f"the {name}"] + [_words(p) for p in signature.phrases(name)]
        for phrase in said:
            out.setdefault(phrase.replace("_", " "), name)
    return tuple(out.items())


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
