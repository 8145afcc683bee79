"""Deterministic English → ELoT for what people say about boxes, keys and colours.

The parser works in three steps, each a small function over normalized text:

1. :func:`normalize` lowercases, expands contractions, spells numbers as digits
   (``box number three`` → ``box 3``, ``the first box`` → ``box 1``) and drops fillers.
2. The *attitude* (``believes``, ``is sure``, ``knows``, ``is unsure which box``, ...) is
   read off after the subject; a past-tense attitude or ``initially`` makes the statement
   one about the agent's *initial* belief.
3. The *content* is parsed into base formulas (``empty``, ``exists(and(key(K), ...),
   inside(K, box))``, their negations, conjunctions, disjunctions and conditionals) and
   the modal or comparative around them (``might``, ``likely``, ``more(likely, ...)``,
   ``most(likely, box2, B, box(B), ...)``).

Every rule either matches completely or not at all; when none does, :func:`read`
raises :class:`~elot.errors.TranslationError` naming the part it did not understand. It
never guesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable

from elot.errors import TranslationError
from elot.lang.signature import PLAYER, Signature
from elot.lang.syntax import Call, Const, Term, Var, call

# -- terms -------------------------------------------------------------------------------

K, B, C = Var(name="K"), Var(name="B"), Var(name="C")
AGENT = Const(name=PLAYER)
LIKELY = Const(name="likely")


def _c(name: str) -> Const:
    return Const(name=name)


def _and(*args: Term) -> Term:
    return args[0] if len(args) == 1 else call("and", *args)


def _or(*args: Term) -> Term:
    return args[0] if len(args) == 1 else call("or", *args)


def _not(term: Term) -> Term:
    if isinstance(term, Call) and term.name == "not":
        return term.args[0]
    return call("not", term)


# -- normalization -----------------------------------------------------------------------

_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}
_NUMBER_WORD = "|".join(_NUMBERS)
_ORDINAL_WORD = "|".join(_ORDINALS)

# Words that change nothing in what is claimed about the boxes.
_FILLERS = re.compile(
    r"\b(?:currently|now|still|really|actually|definitely|truly|also|already|right now|"
    r"at the moment|at this point|for sure|for certain|strongly|firmly|indeed|clearly)\b"
)
_INITIAL = re.compile(
    r"\b(?:initially|originally|at first|at the (?:start|beginning)|in the beginning|"
    r"to begin with|before (?:moving|starting|opening any box(?:es)?))\b,?"
)
# Number words after a box word or inside a list of boxes ("box one or two").
_NUMBER_AFTER_BOX = re.compile(rf"(\bbox(?:es)?|\band|\bor|\bnor|,)\s+({_NUMBER_WORD})\b(?! of\b)")


def normalize(sentence: str) -> str:
    """Lowercase text with contractions expanded, numbers as digits and fillers dropped."""
    s = sentence.strip().lower()
    s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "").replace("\u201d", "")
    s = re.sub(r"[\"]", "", s)
    s = re.sub(r"[.!?;]+$", "", s).strip()
    s = re.sub(r"\bwon't\b", "will not", s)
    s = re.sub(r"\bcan't\b|\bcannot\b", "can not", s)
    s = re.sub(r"\b(\w+)n't\b", r"\1 not", s)
    s = re.sub(r"\b(there|it|what|that|where)'s\b", r"\1 is", s)
    s = re.sub(r"\b(there|it)'ll\b", r"\1 will", s)
    s = re.sub(r"\bthey key\b", "the key", s)
    s = re.sub(r"\bcolour", "color", s)
    s = re.sub(r"\b(box(?:es)?)\s*(?:number|no\.?|#)\s*", r"\1 ", s)
    s = re.sub(r"#\s*(\d)", r"\1", s)
    s = re.sub(rf"\bthe ({_ORDINAL_WORD}) box\b", lambda m: f"box {_ORDINALS[m.group(1)]}", s)
    while _NUMBER_AFTER_BOX.search(s):
        s = _NUMBER_AFTER_BOX.sub(lambda m: f"{m.group(1)} {_NUMBERS[m.group(2)]}", s)
    s = re.sub(r"\b(box(?:es)?) (\d+)(?:st|nd|rd|th)\b", r"\1 \2", s)
    s = re.sub(r"(?<!box )(?<!and )(?<!or )\b1 (of (?:the|these|those) boxes)\b", r"one \1", s)
    s = re.sub(r"\b(?:the )?likeliest\b", "the most likely", s)
    s = re.sub(r"\b(most|least) probable\b", r"\1 likely", s)
    s = _FILLERS.sub("", s)
    s = re.sub(r"\s+,", ",", s)
    return re.sub(r"\s+", " ", s).strip(" ,")


# -- the vocabulary of a scenario --------------------------------------------------------

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


class _NoParse(Exception):
    """This rule does not apply (internal; the next rule is tried)."""


class _Unknown(Exception):
    """The sentence names something the scenario lacks (reported to the user)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


# -- noun phrases ------------------------------------------------------------------------

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


_BOX_LIST = re.compile(
    r"^(?P<pre>either |both |neither )?(?:the )?(?:box|boxes) (?P<first>\d+)"
    r"(?P<rest>(?:(?:,|,? and|,? or|,? nor| and| or| nor|,? as well as) (?:box )?\d+)*)$"
)
_SOME_BOX = re.compile(
    r"^(?:(?:any|either|some|at least) )?(?:one )?of (?:the|these|those) (?:\d+ )?boxes|"
    r"^(?:a|some|any|another|one|at least one|a single) box|^some boxes$"
)
_ALL_BOXES = re.compile(
    r"^(?:(?:all|both|each|every one) (?:of )?(?:the )?(?:\d+ )?boxes(?: both| all)?|every box|each box|"
    r"(?:the|these|those) (?:\d+ )?boxes(?: both| all)?|(?:the )?(?:two|three|\d+) boxes|all (?:the )?boxes)$"
)
_NO_BOX = re.compile(r"^(?:none of the boxes|no box(?:es)?|neither box|neither of the boxes)$")


def parse_boxes(text: str, vocab: Vocabulary) -> Boxes:
    """``box 1``, ``boxes 1 and 2``, ``box 1, box 2, or box 3``, ``one of the boxes``, ..."""
    text = text.strip()
    if text == "__box__":
        return Boxes("var")
    if _NO_BOX.match(text):
        return Boxes("none")
    if _ALL_BOXES.match(text):
        return Boxes("all")
    if _SOME_BOX.match(text) and re.fullmatch(r"[a-z ]+boxe?s?|[a-z ]+ box", text):
        return Boxes("some")
    m = _BOX_LIST.match(text)
    if not m:
        raise _NoParse(text)
    numbers = [m.group("first")] + re.findall(r"\d+", m.group("rest"))
    names = tuple(f"box{n}" for n in numbers)
    for name in names:
        if vocab.boxes and name not in vocab.boxes:
            known = ", ".join(sorted(vocab.boxes))
            raise _Unknown(f"there is no {name} in this scenario", f"its boxes are {known}")
    rest = m.group("rest")
    pre = (m.group("pre") or "").strip()
    conj = "or" if (" or" in rest or pre == "either") else "and"
    return Boxes("list", names, conj, negated=(pre == "neither" or " nor" in rest))


def _check_color(word: str, vocab: Vocabulary) -> str:
    if word not in vocab.colors:
        known = ", ".join(sorted(vocab.colors))
        raise _Unknown(f"there is no colour {word!r} in this scenario", f"its colours are {known}")
    return word


# Colour-like words that are not colours of this scenario still get a clear message.
_ANY_COLOR = (
    "red|blue|yellow|green|pink|purple|orange|white|black|brown|gray|grey|gold|silver|"
    "cyan|magenta|violet"
)


def _iscolor(color: str) -> Term:
    return call("iscolor", K, _c(color))


def parse_keys(text: str, vocab: Vocabulary) -> Keys:
    """``a key``, ``the red key``, ``no blue key``, ``a red or blue key``, ``either a red
    key or a blue key``, ``keys``."""
    text = re.sub(r"\s+(?:inside|inside of it|in it|within)$", "", text.strip())
    negated = False
    m = re.match(r"^(?:no|not any|not a|none of the) (.+)$", text)
    if m:
        negated, text = True, m.group(1)
    colors = rf"(?:{vocab.color_pattern}|{_ANY_COLOR})"
    det = r"(?:(?:a|an|the|any|some|one|another|its|their) )?"
    m = re.match(rf"^(?:either )?{det}({colors}) keys? or {det}({colors}) keys?$", text)
    if m:
        first, second = (_check_color(c, vocab) for c in m.groups())
        return Keys(_or(_and(call("key", K), _iscolor(first)), _and(call("key", K), _iscolor(second))), negated)
    m = re.match(rf"^(?:either )?{det}((?:{colors})(?:(?:,| or|, or| and) (?:{colors}))*)? ?(?:keys?|one)$", text)
    if m:
        if not m.group(1):
            if text.endswith("one"):
                raise _NoParse(text)
            return Keys(call("key", K), negated)
        found = re.findall(colors, m.group(1))
        found = [_check_color(c, vocab) for c in found]
        if len(found) == 1:
            return Keys(_and(call("key", K), _iscolor(found[0])), negated)
        return Keys(_and(call("key", K), _or(*(_iscolor(c) for c in found))), negated)
    m = re.match(rf"^{det}keys? (?:of|in|with) (?:the )?colou?r ({colors})$", text)
    if m:
        return Keys(_and(call("key", K), _iscolor(_check_color(m.group(1), vocab))), negated)
    raise _NoParse(text)


# -- base formulas -----------------------------------------------------------------------

def _inside(boxes: Boxes) -> Term:
    """The body ``inside(K, ...)`` for a box reference (disjunction for lists)."""
    if boxes.kind == "var":
        return call("inside", K, B)
    if boxes.kind == "list":
        return _or(*(call("inside", K, _c(b)) for b in boxes.names))
    return call("exists", call("box", B), call("inside", K, B))


def contains(boxes: Boxes, keys: Keys, negated: bool = False) -> Term:
    """``boxes`` contain ``keys`` (or not), in the dataset's style."""
    negated = negated ^ keys.negated ^ boxes.negated
    cond = keys.cond
    if boxes.kind == "all":
        body = call("forall", call("box", B), call("exists", cond, call("inside", K, B)))
        return _not(body) if negated else body
    if boxes.kind == "none":
        body = call("exists", cond, call("exists", call("box", B), call("inside", K, B)))
        return body if negated else _not(body)
    if boxes.kind == "list" and len(boxes.names) > 1 and (boxes.conj == "and" or negated):
        each = [call("exists", cond, call("inside", K, _c(b))) for b in boxes.names]
        return _and(*(_not(e) if negated else e for e in each))
    body = call("exists", cond, _inside(boxes))
    return _not(body) if negated else body


def emptiness(boxes: Boxes, negated: bool = False) -> Term:
    """``boxes`` are empty (or not)."""
    negated = negated ^ boxes.negated
    if boxes.kind == "var":
        body = call("empty", B)
    elif boxes.kind == "list":
        each = [call("empty", _c(b)) for b in boxes.names]
        if negated:
            each = [_not(e) for e in each]
        return (_or if boxes.conj == "or" and not boxes.negated else _and)(*each)
    elif boxes.kind == "all":
        body = call("forall", call("box", B), call("empty", B))
    elif boxes.kind == "none":
        body = _not(call("exists", call("box", B), call("empty", B)))
    else:
        body = call("exists", call("box", B), call("empty", B))
    return _not(body) if negated else body


_HAVE = (
    r"(?:contains?|contained|containing|has|have|had|having|holds?|held|holding|hides?|hid|hiding|"
    r"hidden|includes?|included|keeps?|kept|houses?|housed|gets?|got|stores?|stored|carr(?:y|ies|ied))"
)
_AUX_NEG = r"(?:(?:does|do|did|will|would|is|was|are|were) not |not )"
_AUX = r"(?:(?:does|do|did|will|would|is going to|was going to) )"
_BE = (
    r"(?:is|are|was|were|be|been|being|will be|would be|is going to be|was going to be|"
    r"remains?|remained|stays?|stayed|turns? out to be|turned out to be|seems? to be|seemed to be)"
)
_LOC_VERB = (
    r"(?:is|are|was|were|be|being|will be|would be|lies|lay|sits|sat|can be found|could be found|"
    r"(?:is|was|are|were|be|being|will be|would be) (?:located|hidden|found|placed|kept|stored|put|sitting|lying))"
)
_IN = r"(?:in|inside|inside of|within|in either|in one of|inside one of)"


class _Parser:
    """The content grammar, over one vocabulary; each method is one construction."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.last_keys: Keys | None = None

    # - atoms -

    def atom(self, s: str) -> Term:
        """One simple clause about boxes and keys (no connectives)."""
        for rule in (self._empty, self._have, self._located, self._there_is, self._key_color):
            try:
                return rule(s)
            except _NoParse:
                continue
        raise _NoParse(s)

    def _keys(self, text: str) -> Keys:
        if text in ("it", "one", "them", "one there", "it there"):
            if self.last_keys is None:
                raise _NoParse(text)
            return self.last_keys
        keys = parse_keys(text, self.vocab)
        self.last_keys = Keys(keys.cond)
        return keys

    def _empty(self, s: str) -> Term:
        m = re.match(
            rf"^(?P<boxes>.+?) (?:(?:both|all|each) )?{_BE}(?: both| all)?(?P<neg> not)?(?: both| all)?"
            r" (?:empty|without (?:a |any )?keys?|keyless)$",
            s,
        )
        if not m:
            m = re.match(r"^(?P<boxes>.+?) (?P<neg>)(?:(?:both|all) )?(?:is|are|was|were) (?:both |all )?empty$", s)
        if not m:
            m = re.match(rf"^(?P<boxes>.+?) (?P<neg>{_AUX_NEG}|)(?:is|are|was|were|be)? ?empty$", s)
        if not m:
            raise _NoParse(s)
        return emptiness(parse_boxes(m.group("boxes"), self.vocab), negated=bool(m.group("neg")))

    def _have(self, s: str) -> Term:
        m = re.match(
            rf"^(?P<boxes>.+?) (?:(?P<neg>{_AUX_NEG})|{_AUX})?(?:both |all |each )?{_HAVE} (?P<keys>.+)$", s
        )
        if not m:
            raise _NoParse(s)
        boxes = parse_boxes(m.group("boxes"), self.vocab)
        return contains(boxes, self._keys(m.group("keys")), negated=bool(m.group("neg")))

    def _located(self, s: str) -> Term:
        m = re.match(
            rf"^(?P<keys>.+?) (?P<verb>{_LOC_VERB})(?P<neg> not)? {_IN} (?P<boxes>.+)$", s
        )
        if not m:
            m = re.match(rf"^(?P<keys>.+?) (?P<neg>(?:does|did|do) not )(?:lie|sit) {_IN} (?P<boxes>.+)$", s)
        if not m:
            raise _NoParse(s)
        boxes = parse_boxes(m.group("boxes"), self.vocab)
        return contains(boxes, self._keys(m.group("keys")), negated=bool(m.group("neg")))

    def _there_is(self, s: str) -> Term:
        m = re.match(
            rf"^there (?:{_BE}|exists?|existed)(?P<neg> not)? (?P<keys>.+?) {_IN} (?P<boxes>.+)$", s
        )
        if not m:
            raise _NoParse(s)
        boxes = parse_boxes(m.group("boxes"), self.vocab)
        return contains(boxes, self._keys(m.group("keys")), negated=bool(m.group("neg")))

    def _key_color(self, s: str) -> Term:
        """``the key in box 2 is red``."""
        colors = self.vocab.color_pattern
        m = re.match(
            rf"^(?:the|any|a) keys? {_IN} (?P<boxes>.+?) (?:{_BE})(?P<neg> not)? (?P<color>{colors})$", s
        )
        if not m:
            raise _NoParse(s)
        keys = Keys(_and(call("key", K), _iscolor(m.group("color"))))
        return contains(parse_boxes(m.group("boxes"), self.vocab), keys, negated=bool(m.group("neg")))

    # - connectives -

    def base(self, s: str) -> Term:
        """A base formula: an atom, or atoms joined by if/then, and, or."""
        s = s.strip(" ,")
        s = re.sub(r"^(?:that|whether) ", "", s)
        try:
            return self.atom(s)
        except _NoParse:
            pass
        m = re.match(r"^if (?P<a>.+?),? then (?P<b>.+)$", s) or re.match(r"^if (?P<a>.+?), (?P<b>.+)$", s)
        if m:
            a = self.base(m.group("a"))
            return call("imply", a, self.consequent(m.group("b")))
        m = re.match(r"^(?P<b>.+?),? (?:if|provided that|assuming) (?P<a>.+)$", s)
        if m:
            try:
                b_first = self.consequent(m.group("b"))
                return call("imply", self.base(m.group("a")), b_first)
            except _NoParse:
                pass
        m = re.match(r"^(?P<a>.+?),? (?:otherwise|or else) (?P<b>.+)$", s)
        if m:
            return _or(self.base(m.group("a")), self.consequent(m.group("b")))
        for word, build in ((" or ", _or), (" and ", _and), (", but ", _and), (" but ", _and)):
            parts = self.split(s, word)
            if parts:
                return build(*parts)
        raise _NoParse(s)

    def consequent(self, s: str) -> Term:
        """The second half of a conditional: a modal there adds nothing (``then it must be``)."""
        s = re.sub(r"\b(?:must|would|will|should|has to|have to|is sure to|definitely) (?=\w)", "", s)
        return self.base(s)

    def split(self, s: str, word: str) -> list[Term] | None:
        """``A word B`` as two clauses; B may reuse A's subject (``box 3 is empty or has a key``)."""
        for index in [m.start() for m in re.finditer(re.escape(word), s)]:
            left, right = s[:index], s[index + len(word):]
            left = re.sub(r"\beither ", "", left)
            try:
                a = self.base(left)
            except _NoParse:
                continue
            elided = re.match(r"^(?P<s>.+?) (?P<be>is|was|are|were) not$", right)
            predicate = re.match(r"^.+? (?:is|was|are|were) (?P<p>(?!not\b).+)$", left)
            if elided and predicate:   # "box 4 is empty and box 5 is not"
                right = f"{elided.group('s')} {elided.group('be')} not {predicate.group('p')}"
            try:
                return [a, self.base(right)]
            except _NoParse:
                pass
            subject = self.subject(left)
            if subject:
                verb_left = left[len(subject):].strip()
                aux = re.match(r"^(will|would|is going to|must|might|should) (?:either )?", verb_left)
                right_full = f"{subject} {aux.group(1) + ' ' if aux else ''}{right}"
                try:
                    return [a, self.base(right_full)]
                except _NoParse:
                    continue
        return None

    def subject(self, clause: str) -> str | None:
        """The longest prefix of ``clause`` naming boxes or keys."""
        words = clause.split(" ")
        for n in range(len(words) - 1, 0, -1):
            prefix = " ".join(words[:n])
            for parse in (parse_boxes, parse_keys):
                try:
                    parse(prefix, self.vocab)
                    return prefix
                except _NoParse:
                    continue
        return None


# -- modals, comparatives, the whole content ---------------------------------------------

_MODAL_WORDS = {
    "might": "might", "may": "may", "could": "could", "must": "must", "should": "should",
    "can": "can", "probably": "likely", "likely": "likely", "possibly": "might",
    "perhaps": "might", "maybe": "might", "unlikely": "unlikely", "surely": "must",
    "certainly": "must", "presumably": "likely",
}


@dataclass(frozen=True)
class _Modal:
    """A modal found in a clause: its ELoT name (``most`` for the adverb ``most likely``)."""

    name: str
    negated: bool = False


#: Modal phrasings, tried in order: (pattern, the modal it means, or None to read it off
#: group 1 through ``_MODAL_WORDS``).
_MODAL_PATTERNS: tuple[tuple[re.Pattern, _Modal | None], ...] = tuple((re.compile(p), fixed) for p, fixed in (
    (r"\b(?:is|are|was|were) most (?:likely|probably) (?=(?:not )?(?:in|inside|empty)\b)", _Modal("most")),
    (r"\b(?:is|are|was|were) (?:most|very|highly|quite) (?:likely|probably) (?:to (?:be )?)?", _Modal("likely")),
    (r"\bmost (?:likely|probably) ", _Modal("most")),
    (r"\b(?:is|are|was|were) (un)?likely to ", None),
    (r"\b(?:is|are|was|were) (probably|likely) (?=(?:not )?(?:in|inside|empty)\b)", None),
    (r"\b(?:has|have|had) (?:a )?(?:good |high |big |strong )chance (?:of|at) ", _Modal("likely")),
    (r"\b(?:has|have|had) (?:a )?(?:decent |some |small |slight |fair )?chance (?:of|at) ", _Modal("might")),
    (r"\b(might|may|could|must|should|can)(?: not)? ", None),
    (r"\b(probably|likely|possibly|perhaps|maybe|unlikely|surely|certainly|presumably)(?: not)? ", None),
))


def _extract_modal(s: str) -> tuple[_Modal | None, str]:
    """Remove the one modal of a clause, returning it and the plain clause left."""
    s = re.sub(r"\b(might|may|could) (?:or|and) (?:might|may|could) not\b", r"\1", s)
    s = re.sub(r"\b(might|may|could|must|should) have been\b", r"\1 be", s)
    s = re.sub(r"\b(might|may|could|must|should|can) (?:possibly|well|perhaps|potentially|likely|probably) ", r"\1 ", s)
    s = re.sub(r"\b(?:possibly|potentially) (might|may|could|must|should|can)\b", r"\1", s)
    s = re.sub(r"^(?:it )?seems (?:that )?", "", s)
    for pattern, fixed in _MODAL_PATTERNS:
        m = pattern.search(s)
        if m:
            break
    else:
        return None, s
    text = m.group(0)
    negated = " not " in f" {text}"
    if fixed is not None:
        modal = fixed
    elif "to " in text and "likely" in text:
        modal = _Modal("unlikely" if m.group(1) else "likely")
    else:
        modal = _Modal(_MODAL_WORDS[m.group(1)], negated)
    rest = s[: m.start()] + s[m.end():]
    if "chance" in text:
        rest = s[: m.start()] + "has " + s[m.end():]
        rest = re.sub(r"\bhas (?:having|containing|holding|hiding|housing) ", "has ", rest)
        rest = re.sub(r"\bhas being ", "is ", rest)
    if text.startswith(("is ", "are ", "was ", "were ")) and re.search(r"\b(?:in|inside|empty)\b", s[m.end():m.end() + 8]):
        rest = s[: m.start()] + "is " + re.sub(r"^be ", "", s[m.end():])
    # a second modal word in the same clause is more than this parser reads
    if re.search(r"\b(?:might|may|could|must|should)\b", rest):
        raise _NoParse(s)
    return modal, re.sub(r"\s+", " ", rest).strip()


_POSSIBILITY = ("might", "may", "could", "can")


def _possibly_any(phi: Term) -> Term:
    """``boxes 2 and 3 might contain a red key``: one of them might, not both at once.

    ``and(exists(C, inside(K, b1)), exists(C, inside(K, b2)))`` under a possibility modal
    becomes ``exists(C, or(inside(K, b1), inside(K, b2)))``.
    """
    if not (isinstance(phi, Call) and phi.name == "and"):
        return phi
    conds, bodies = set(), []
    for arg in phi.args:
        if not (isinstance(arg, Call) and arg.name == "exists" and isinstance(arg.args[1], Call)
                and arg.args[1].name == "inside"):
            return phi
        conds.add(arg.args[0])
        bodies.append(arg.args[1])
    if len(conds) != 1:
        return phi
    return call("exists", conds.pop(), _or(*bodies))


@dataclass(frozen=True)
class Content:
    """Parsed content of an attitude: the arguments after the agent (``formula(φ)`` or a
    modal ``M : E/A``), and whether it is a single plain proposition."""

    parts: tuple[Term, ...]

    @property
    def proposition(self) -> Term | None:
        """φ when the content is one ``formula(φ)``."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Call) and self.parts[0].name == "formula":
            return self.parts[0].args[0]
        return None


_AGENT_WORDS = r"(?:they|he|she|the player|player|the agent|it|one|you)"
_GET = r"(?:get|find|obtain|retrieve|take|grab|pick up|see|discover|open)"


def _finding(text: str) -> str:
    """``to find a key in box 2`` → ``there is a key in box 2`` (what finding shows)."""
    m = re.match(rf"^(?:to |of )?(?:{_GET}|finding|getting|seeing) (?P<k>.+?) (?:in|inside|from|out of) (?P<b>.+)$", text)
    return f"there is {m.group('k')} in {m.group('b')}" if m else text


def _ability(text: str) -> str:
    """``they could get a key from box 2`` → ``there could be a key in box 2``: being able
    to get a key from a box is the key being there."""
    m = re.match(
        rf"^{_AGENT_WORDS} (?P<m>could|can|might|may|will|would|should|must)(?: (?:possibly|well|probably|likely))?"
        rf" (?:be able to )?{_GET} (?P<k>.+?) (?:from|in|inside|out of) (?P<b>.+)$", text)
    if not m:
        return text
    modal = "" if m.group("m") in ("will", "would") else m.group("m") + " "
    return f"there {modal}{'' if modal else 'is '}{'be ' if modal else ''}{m.group('k')} in {m.group('b')}".replace("  ", " ")


class _ContentParser(_Parser):
    """Content: base formulas under at most one modal or comparative."""

    def content(self, s: str) -> Content:
        s = s.strip(" ,")
        s = _ability(re.sub(r"^that ", "", s))
        for word in (", and ", ", but "):   # a plain clause, then a modal one: two contents
            for index in [m.start() for m in re.finditer(re.escape(word), s)]:
                left, right = s[:index], s[index + len(word):]
                if not re.search(r"\b(?:might|may|could|must|should|can|likely|probably)\b", right) or \
                        re.search(r"\b(?:might|may|could|must|should|can|likely|probably)\b", left):
                    continue
                try:
                    return Content(self.content(left).parts + self.content(right).parts)
                except _NoParse:
                    continue
        for rule in (self._leaning, self._comparative, self._superlative, self._equal, self._modal_clause):
            try:
                return rule(s)
            except _NoParse:
                continue
        for word in (", and ", " and ", ", but ", " but ", "; "):
            for index in [m.start() for m in re.finditer(re.escape(word), s)]:
                try:
                    left, right = self.content(s[:index]), self.content(s[index + len(word):])
                except _NoParse:
                    continue
                if left.proposition is not None and right.proposition is not None:
                    return Content((call("formula", _and(left.proposition, right.proposition)),))
                return Content(left.parts + right.parts)
        raise _NoParse(s)

    def _modal_clause(self, s: str) -> Content:
        m = re.match(
            r"^(?:there is|there was|there'?s|it is|it was) (?:a |some )?(?P<d>good |high |big |strong |decent |small "
            r"|slight |fair |little |slim |low )?(?:chance|possibility|probability)(?: that)? (?P<c>.+)$", s
        )
        if m:
            inner = re.sub(r"^of (?:finding|seeing|getting) (?P<k>.+?) (?P<b>(?:in|inside|from) .+)$",
                           r"there is \g<k> \g<b>", m.group("c"))
            degree = (m.group("d") or "").strip()
            name = "likely" if degree in ("good", "high", "big", "strong") else (
                "unlikely" if degree in ("little", "slim", "low") else "might")
            return self._wrap(_Modal(name), self.base(inner))
        m = re.match(r"^it (?:is|was) (?P<w>possible|likely|probable|unlikely|certain|improbable) (?:that )?(?P<c>.+)$", s)
        if m:
            m = re.match(r"^(?P<w>\w+) (?P<c>.+)$", f"{m.group('w')} {_finding(m.group('c'))}")
            name = {"possible": "might", "probable": "likely", "certain": "must", "improbable": "unlikely"}.get(
                m.group("w"), m.group("w"))
            return self._wrap(_Modal(name), self.base(m.group("c")))
        try:
            return Content((call("formula", self.base(s)),))
        except _NoParse:
            pass
        modal, rest = _extract_modal(s)
        if modal is None:
            raise _NoParse(s)
        return self._wrap(modal, self.base(rest))

    def _wrap(self, modal: _Modal, phi: Term) -> Content:
        if modal.name in _POSSIBILITY and not modal.negated:
            phi = _possibly_any(phi)
        if modal.negated:
            phi = _not(phi)
        if modal.name == "most":
            return Content((call("most", LIKELY, phi),))
        return Content((call(modal.name, phi),))

    # comparisons between boxes

    def _box_formula(self, boxes_text: str, keys: Keys) -> Term:
        boxes = parse_boxes(re.sub(r"^(?:in|inside|for|to) ", "", boxes_text), self.vocab)
        if boxes.kind == "list":
            boxes = Boxes("list", boxes.names, "or")
        return contains(boxes, keys)

    def _comparative(self, s: str) -> Content:
        verbs = r"(?:contain|have|hold|house|include|be holding|be hiding|hide|be)"
        patterns = [
            rf"^(?P<a>.+?) (?:is|are|was|were|seems|seemed) (?P<m>more|less) likely (?:than (?P<b0>.+?) )?to {verbs} (?P<k>.+?)(?: than (?P<b>.+))?$",
            rf"^(?P<a>.+?) (?P<m>more|less) likely {verbs}s? (?P<k>.+?) than (?P<b>.+)$",
            rf"^there (?:is|are|was|were) (?P<m>more|less) likely to be (?P<k>.+?) {_IN} (?P<a>.+?) than (?P<b>.+)$",
            rf"^(?:it is )?(?P<m>more|less) likely (?:that )?(?:there is )?(?P<k>.+?) (?:is |was )?{_IN} (?P<a>.+?) than (?P<b>.+)$",
            rf"^(?P<k>.+?) (?:is|are|was|were) (?P<m>more|less) likely (?:to be )?{_IN} (?P<a>.+?) than (?P<b>.+)$",
        ]
        for pattern in patterns:
            m = re.match(pattern, s)
            if not m:
                continue
            b_text = m.group("b") if m.group("b") else (m.groupdict().get("b0") or "")
            if not b_text:
                continue
            b_text = re.sub(r"^(?:it is|it is for|for|in|inside|that of|in either) ", "", b_text)
            b_text = re.sub(r" (?:is|does|would|will)$", "", b_text)
            try:
                keys = self._keys(re.sub(r"^(?:finding|seeing|getting) ", "", m.group("k")))
                a = self._box_formula(m.group("a"), keys)
                b = self._box_formula(b_text, keys)
            except _NoParse:
                continue
            return Content((call(m.group("m"), LIKELY, a, b),))
        raise _NoParse(s)

    def _superlative(self, s: str) -> Content:
        verbs = r"(?:contain|have|hold|house|include|be holding|hide|be)"
        patterns = [
            rf"^(?P<a>box \d+) (?:is|was) (?:the )?(?P<m>most|least) likely(?: box| one| place)?(?: of (?:all )?the boxes)? to {verbs} (?P<k>.+)$",
            rf"^(?P<k>.+?) (?:is|was) (?P<m>most|least) likely (?:to be )?{_IN} (?P<a>box \d+)$",
            r"^(?:the )?(?P<m>most|least) likely (?:box|place|location|spot) (?:for|of|to (?:find|contain|have|hold)) (?P<k>.+?) (?:is|was) (?P<a>box \d+)$",
            r"^(?P<a>box \d+) (?:is|was) (?:the )?(?P<m>most|least) likely (?:box|place|location|spot) (?:for|of|to (?:find|contain|have|hold)) (?P<k>.+)$",
        ]
        for pattern in patterns:
            m = re.match(pattern, s)
            if not m:
                continue
            try:
                keys = self._keys(m.group("k"))
                box = parse_boxes(m.group("a"), self.vocab)
            except _NoParse:
                continue
            body = call("exists", keys.cond, call("inside", K, B))
            return Content((call(m.group("m"), LIKELY, _c(box.names[0]), B, call("box", B), body),))
        raise _NoParse(s)

    def _equal(self, s: str) -> Content:
        m = re.match(
            rf"^(?:there (?:is|was) )?an? (?:equal|even|same|similar) (?:chance|likelihood|probability|odds) "
            rf"(?:of|that|for) (?P<k>.+?) (?:being|is|to be|was) {_IN} (?P<b>.+)$", s
        ) or re.match(
            r"^(?P<b>.+?) (?:are|were|is|was) (?:all |both )?equally likely to (?:contain|have|hold) (?P<k>.+)$", s
        ) or re.match(
            rf"^(?P<k>.+?) (?:is|was) equally likely (?:to be )?{_IN} (?P<b>.+)$", s
        )
        if not m:
            raise _NoParse(s)
        keys = self._keys(m.group("k"))
        boxes = parse_boxes(m.group("b"), self.vocab)
        if boxes.kind != "list" or not 2 <= len(boxes.names) <= 3:
            raise _NoParse(s)
        each = [call("exists", keys.cond, call("inside", K, _c(b))) for b in boxes.names]
        return Content((call("equal", LIKELY, *each),))

    def _leaning(self, s: str) -> Content:
        """``box 1 or 2 has the blue key, but leans more towards box 1``."""
        m = re.match(
            r"^(?P<c>.+?),? (?:but|and) (?:is )?(?:leans|leaning|favou?rs|favou?ring|more strongly suspects)"
            r"(?: more)?(?: towards?| to)? (?P<a>box \d+)$", s
        )
        if not m:
            raise _NoParse(s)
        phi = self.base(m.group("c"))
        if not (isinstance(phi, Call) and phi.name == "exists" and isinstance(phi.args[1], Call)
                and phi.args[1].name == "or"):
            raise _NoParse(s)
        cond, options = phi.args[0], phi.args[1].args
        favoured = call("inside", K, _c(parse_boxes(m.group("a"), self.vocab).names[0]))
        if favoured not in options:
            raise _NoParse(s)
        others = [o for o in options if o != favoured]
        split = _or(*(call("exists", cond, o) for o in options))
        more = call("more", LIKELY, call("exists", cond, favoured), call("exists", cond, _or(*others)))
        return Content((call("formula", split), more))


# -- attitudes ---------------------------------------------------------------------------

_SUBJECT = re.compile(r"^(?:the player|player|the agent|the human|the person|they|he|she)\b\s*")

_BELIEVE_VERBS = (
    r"believes|believed|thinks|thought|expects|expected|suspects|suspected|assumes|assumed|"
    r"guesses|guessed|supposes|supposed|feels|felt|reckons|reckoned|figures|figured|predicts|"
    r"predicted|imagines|imagined|is thinking|was thinking|is expecting|was expecting|"
    r"is assuming|was assuming|is believing|is suspecting|was suspecting|is guessing|was guessing|"
    r"is supposing|is figuring|was figuring|is imagining|was imagining|"
    r"is confident|was confident|is convinced|was convinced|is under the impression|"
    r"was under the impression|has a feeling|had a feeling|has a hunch|had a hunch|"
    r"concludes|concluded|infers|inferred|deduces|deduced|bets|bet|trusts|trusted"
)
_KNOW_VERBS = (
    r"knows|knew|is aware|was aware|has learned|had learned|learned|learnt|has realized|"
    r"realized|realised|has discovered|discovered|has found out|found out|has seen|saw|"
    r"can see|could see|has confirmed|confirmed|remembers|remembered"
)
_PAST_FIRST_WORDS = {"was", "were", "did", "had", "knew", "thought", "felt", "saw", "found", "bet", "learnt", "could"}


def _is_past(verb: str) -> bool:
    first = verb.split(" ")[0]
    return first in _PAST_FIRST_WORDS or first.endswith("ed")


_Attitude = Callable[[_ContentParser, str], Term]


def _about(parser: _ContentParser, op: str, rest: str) -> Term | None:
    """``which box has the red key``, ``the colour of the key in box 2``, ``whether ...``."""
    rest = re.sub(r"^(?:about|of|as to|on|regarding) ", "", rest)
    m = (
        re.match(r"^(?:the )?contents? of (?P<b>.+)$", rest)
        or re.match(rf"^what (?:is|was|will be|would be|might be|lies|is hidden) {_IN} (?P<b>.+)$", rest)
        or re.match(rf"^what (?:is )?{_IN} (?P<b>.+?)(?: is| was)?$", rest)
        or re.match(
            rf"^(?:what|which) colou?r (?:of )?(?:the )?key {_IN} (?P<b>.+?) (?:is|was|will be|would be|might be|"
            rf"could be|has)(?: if there (?:is|was) (?:one|a key))?$", rest)
        or re.match(rf"^(?:what|which) colou?r (?:the )?key (?:is|was|will be|would be) {_IN} (?P<b>.+)$", rest)
        or re.match(rf"^(?:what|which) colou?r key (?:is|was|will be|would be|might be) {_IN} (?P<b>.+)$", rest)
        or re.match(r"^(?:what|which) colou?r key (?P<b>.+?) (?:has|holds|contains|had|held|contained|will have|would have)$", rest)
        or re.match(rf"^(?:the )?colou?r of (?:the )?key {_IN} (?P<b>.+)$", rest)
        or re.match(r"^what (?P<b>.+?) (?:holds|contains|has|held|contained|had)$", rest)
    )
    if m:
        boxes = parse_boxes(m.group("b"), parser.vocab)
        if boxes.kind != "list":
            raise _NoParse(rest)
        each = [
            call(op, AGENT, call("color", C),
                 call("exists", _and(call("key", K), call("inside", K, _c(b))), call("iscolor", K, C)))
            for b in boxes.names
        ]
        return _and(*each)
    m = re.match(r"^(?:which|what) (?:box|one of the boxes|of the boxes) (?P<vp>.+)$", rest) or re.match(
        r"^(?:in )?which box (?P<k>.+?) (?:is|was|will be|would be|might be|could be|is hidden|is located) ?(?:in)?$", rest
    ) or re.match(r"^where (?P<k>.+?) (?:is|was|will be|would be|might be|could be|is hidden|is located)$", rest)
    if m:
        if m.groupdict().get("vp"):
            _, vp = _extract_modal("__box__ " + m.group("vp"))
            phi = parser.base(vp)
        else:
            keys = parser._keys(m.group("k"))
            phi = contains(Boxes("var"), keys)
        if not (isinstance(phi, Call) and phi.name == "exists"):
            raise _NoParse(rest)
        return call(op, AGENT, call("box", B), phi)
    return None


def _whether(parser: _ContentParser, rest: str) -> tuple[Term | None, Term]:
    """``whether φ``: the condition and two alternatives if φ is ``K in box a or box b``."""
    phi = parser.base(rest)
    if (isinstance(phi, Call) and phi.name == "exists" and isinstance(phi.args[1], Call)
            and phi.args[1].name == "or" and len(phi.args[1].args) == 2):
        return phi.args[0], phi
    return None, phi


def _uncertain(parser: _ContentParser, rest: str) -> Term:
    about = _about(parser, "uncertain_about", rest)
    if about is not None:
        return about
    m = re.match(r"^(?:about )?(?:whether|if) (?P<c>.+?)(?: or not)?$", rest)
    if not m:
        raise _NoParse(rest)
    cond, phi = _whether(parser, m.group("c"))
    if cond is not None:
        return call("uncertain_if", AGENT, cond, *phi.args[1].args)
    return call("uncertain_if", AGENT, call("formula", phi))


def _not_know(parser: _ContentParser, rest: str) -> Term:
    about = _about(parser, "not_knows_about", rest)
    if about is not None:
        return about
    m = re.match(r"^(?:whether|if) (?P<c>.+?)(?: or not)?$", rest)
    if m:
        return call("not_knows_if", AGENT, call("formula", parser.base(m.group("c"))))
    m = re.match(r"^that (?P<c>.+)$", rest)
    if m:
        return call("not_knows_that", AGENT, call("formula", parser.base(m.group("c"))))
    raise _NoParse(rest)


def _knows(parser: _ContentParser, rest: str) -> Term:
    about = _about(parser, "knows_about", rest)
    if about is not None:
        return about
    m = re.match(r"^(?:whether|if) (?P<c>.+?)(?: or not)?$", rest)
    if m:
        return call("knows_if", AGENT, call("formula", parser.base(m.group("c"))))
    content = parser.content(rest)
    if content.proposition is None:
        raise _Unknown(
            "'knows' is said of a plain fact, not of a possibility or a comparison",
            "say 'believes ... might ...' or 'knows that box 2 is empty'",
        )
    return call("knows_that", AGENT, call("formula", content.proposition))


def _small_clause(parser: _ContentParser, rest: str) -> str:
    """What an attitude verb's object says as a plain clause: ``to find a key in box 2``
    → ``there is a key in box 2``, ``box 3 to be empty`` → ``box 3 is empty``, ``a blue
    key in box 1`` (expecting) → ``there is a blue key in box 1``."""
    rest = re.sub(r"^(?:that|about) ", "", rest)
    m = re.match(r"^(?:to find|finding|to see|to get|to discover) (?P<k>.+?) (?P<b>(?:in|inside) .+)$", rest)
    if m:
        rest = f"there is {m.group('k')} {m.group('b')}"
    rest = re.sub(r"^(?P<s>.+?) to be (?P<p>.+)$", r"\g<s> is \g<p>", rest) if " to be " in rest and not re.search(r"likely to be", rest) else rest
    m = re.match(r"^(?P<s>.+?) to (?P<v>contain|have|hold) (?P<o>.+)$", rest)
    if m and _is_boxes(m.group("s"), parser.vocab):
        rest = f"{m.group('s')} {'has' if m.group('v') == 'have' else m.group('v') + 's'} {m.group('o')}"
    m = re.match(r"^(?P<k>(?:a|an|the|some|any) (?:\w+ )?keys?) "
                 r"(?P<b>(?:in|inside) (?:box|boxes) \d+(?:(?:,|,? and|,? or) (?:box )?\d+)*)$", rest)
    if m:
        rest = f"there is {m.group('k')} {m.group('b')}"
    return rest


def _attitude(op: str, modal: str | None = None) -> _Attitude:
    """``op(player, content)``; with ``modal``, a plain content is read under it (``doubts
    that φ`` → ``believes(player, unlikely(φ))``)."""
    def handle(parser: _ContentParser, rest: str) -> Term:
        content = parser.content(_small_clause(parser, rest))
        if modal is not None:
            if content.proposition is None:
                raise _NoParse(rest)
            return call(op, AGENT, call(modal, content.proposition))
        return call(op, AGENT, *content.parts)
    return handle


def _is_boxes(text: str, vocab: Vocabulary) -> bool:
    try:
        parse_boxes(text, vocab)
    except _NoParse:
        return False
    return True


def _disbelief(parser: _ContentParser, rest: str) -> Term:
    """``does not think φ``: read as thinking ``not φ`` (the usual neg-raising reading)."""
    content = parser.content(_small_clause(parser, rest))
    if content.proposition is not None:
        return call("believes", AGENT, call("formula", _not(content.proposition)))
    return _not(call("believes", AGENT, *content.parts))


_ATTITUDES: list[tuple[re.Pattern, _Attitude]] = [
    (re.compile(r"^(?P<v>is|was) (?:not sure|not certain|unsure|uncertain|undecided|not confident|torn|unclear)"
                r"(?:,)? (?P<rest>.+)$"), _uncertain),
    (re.compile(r"^(?P<v>wonders|wondered|is wondering|was wondering|is curious|was curious) (?P<rest>.+)$"), _uncertain),
    (re.compile(r"^(?P<v>does|did) not know (?P<rest>.+)$"), _not_know),
    (re.compile(r"^(?P<v>has|had) no (?:idea|clue) (?P<rest>.+)$"), _not_know),
    (re.compile(r"^(?P<v>is|was) not aware (?:of )?(?P<rest>.+)$"), _not_know),
    (re.compile(rf"^(?P<v>{_KNOW_VERBS})(?: that| for sure| for a fact)? (?P<rest>.+)$"), _knows),
    (re.compile(r"^(?P<v>is|was|feels|felt) (?:fairly|pretty|quite|reasonably|rather|somewhat|mostly|largely) "
                r"(?:sure|certain|confident|convinced)(?: that)? (?P<rest>.+)$"), _attitude("believes")),
    (re.compile(r"^(?P<v>doubts|doubted|is doubtful|was doubtful|has (?:little|low|not much) confidence|"
                r"had (?:little|low|not much) confidence)(?: that| whether| if)? (?P<rest>.+)$"),
     _attitude("believes", "unlikely")),
    (re.compile(r"^(?P<v>is|was|feels|felt) (?:sure|certain|positive|completely sure|absolutely sure|"
                r"very sure|100% sure|confident for sure)(?: that)? (?P<rest>.+)$"), _attitude("certain")),
    (re.compile(r"^(?P<v>does|did) not (?:believe|think|expect|suspect|feel)(?: that)? (?P<rest>.+)$"), _disbelief),
    (re.compile(r"^(?P<v>hopes|hoped|is hoping|was hoping|wishes|wished|wants|wanted)(?: that)? (?P<rest>.+)$"),
     _attitude("hopes")),
    (re.compile(rf"^(?P<v>{_BELIEVE_VERBS})(?: that)? (?P<rest>.+)$"), _attitude("believes")),
]


# The speaker's comment on whether the belief was true is not part of the belief.
_TRUTH_COMMENT = re.compile(
    r",? (?:but|and) (?:(?:it|its|it is|it was|that is|that was) (?:not|wrong|false)(?: there)?|"
    r"(?:was|is|were|turned out) (?:wrong|mistaken|incorrect|right|correct))$"
)


@dataclass(frozen=True)
class Reading:
    """The offline parser's result: the formula and the statement's mode."""

    term: Term
    mode: str


def read(sentence: str, signature: Signature | None = None) -> Reading:
    """Parse one English sentence; raise :class:`TranslationError` if it cannot."""
    signature = signature or Signature.default()
    vocab = Vocabulary.of(signature)
    initial, text, rest = _split(sentence)
    if not text:
        raise TranslationError("empty sentence", hint="write a sentence such as 'The player believes box 1 is empty.'")
    if rest is None:
        raise TranslationError(
            f"cannot tell whose belief this is: {sentence.strip()!r}",
            hint="start the sentence with 'The player', e.g. 'The player thinks box 2 is empty.'",
        )
    parser = _ContentParser(vocab)
    rest, tense_mode = _tense(rest)
    for pattern, handle in _ATTITUDES:
        am = pattern.match(rest)
        if not am:
            continue
        try:
            term = handle(parser, am.group("rest").strip())
        except _NoParse:
            continue
        except _Unknown as error:
            refusal = TranslationError(f"{error.message}: {sentence.strip()!r}", hint=error.hint)
            refusal.definite = True  # about the sentence, not a gap in the rules: no fallback
            raise refusal from None
        mode = "initial" if initial or _is_past(am.group("v")) else "current"
        if tense_mode is not None and not initial:
            mode = tense_mode
        return Reading(term, mode)
    raise TranslationError(_explain(sentence, rest))


_PARTICIPLES = {"known": "knew", "come to believe": "believed", "come to think": "thought", "been": "was"}
_PERFECT = re.compile(
    r"^(?P<aux>had|has|have) (?:(?P<been>been) (?P<ing>\w+ing|sure|certain|convinced|confident|aware|unsure|"
    r"uncertain|positive|doubtful|hoping|expecting)\b|(?P<part>known|come to (?:believe|think)|"
    r"(?:thought|believed|assumed|suspected|expected|guessed|figured|hoped|supposed|imagined|predicted|reckoned|"
    r"felt|concluded|inferred|deduced|realized|realised|learned|learnt|discovered|found out|seen|confirmed|"
    r"wondered|doubted|remembered|trusted))\b)"
)


def _tense(rest: str) -> tuple[str, str | None]:
    """The attitude with perfect aspect or ``used to`` reduced to a simple tense (``had
    been thinking`` → ``was thinking``, ``has assumed`` → ``assumed``), and the mode the
    tense says when the simple form does not (``has assumed``: now)."""
    m = re.match(r"^used to (think|believe|expect|assume|suspect)\b", rest)
    if m:
        past = {"think": "thought"}.get(m.group(1), m.group(1) + ("d" if m.group(1).endswith("e") else "ed"))
        return past + rest[m.end():], "initial"
    m = _PERFECT.match(rest)
    if not m:
        return rest, None
    now = m.group("aux") in ("has", "have")
    if m.group("been"):
        verb = ("is " if now else "was ") + m.group("ing")
    else:
        verb = _PARTICIPLES.get(m.group("part"), m.group("part"))
    rest = re.sub(r"^(\w+(?: \w+)?) all along\b", r"\1", verb + rest[m.end():])
    return rest, ("current" if now else "initial")


def _split(sentence: str) -> tuple[bool, str, str | None]:
    """Whether the sentence says ``initially``; its normalized text without that word; and
    what follows its subject, without a comment on the belief's truth (``None`` when it
    has no subject)."""
    text = normalize(sentence)
    initial = bool(_INITIAL.search(text))
    text = re.sub(r"\s+", " ", _INITIAL.sub("", text)).strip(" ,")
    m = _SUBJECT.match(text)
    return initial, text, (_TRUTH_COMMENT.sub("", text[m.end():]) if m else None)


def _explain(sentence: str, rest: str) -> str:
    """What the parser did not understand (the error message; the hint is :data:`_HINT`)."""
    for pattern, _ in _ATTITUDES:
        am = pattern.match(rest)
        if am:
            attitude = rest[: am.start("rest")].strip(" ,")
            return f"understood the attitude {attitude!r} but not what follows it: {am.group('rest')!r}"
    first = rest.split(" ")[0] if rest else ""
    return f"no attitude verb understood after the subject (at {first!r}) in {sentence.strip()!r}"


#: The hint of every error that has none of its own.
_HINT = (
    "say who believes what about boxes and keys, e.g. 'The player thinks box 2 might hold the "
    "red key.' (attitudes: believes, thinks, knows, is sure, is unsure, wonders, does not know)"
)


def parse_sentence(sentence: str, signature: Signature | None = None) -> Reading:
    """Like :func:`read`, with the general hint added to every error."""
    try:
        return read(sentence, signature)
    except TranslationError as error:
        if error.hint is None:
            error.hint = _HINT
        raise


def statement_mode(sentence: str) -> str:
    """``initial`` for a statement about the agent's initial belief (``initially``, or a
    past-tense attitude such as ``believed``), else ``current``."""
    initial, text, rest = _split(sentence)
    if initial:
        return "initial"
    if rest is not None:
        rest, tense_mode = _tense(rest)
        if tense_mode is not None:
            return tense_mode
    for pattern, _ in _ATTITUDES:
        m = pattern.match(text if rest is None else rest)
        if m:
            return "initial" if _is_past(m.group("v")) else "current"
    return "current"
