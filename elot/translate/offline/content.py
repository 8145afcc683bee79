"""Content: what an attitude holds, a base formula under at most one modal or comparison.

``box 2 might hold the red key``, ``there is a good chance that ...``, ``box 1 is more
likely than box 2 to ...``, ``box 3 is the most likely to ...``, ``equally likely``, ``...
but leans towards box 1``, and two contents joined (``box 2 is empty, and box 3 might
hold a key``). The constructions are the table :data:`_CONTENTS` (its modal clauses the
table :data:`_MODAL_CLAUSES`), each row a pattern and the builder of its content, tried in
order by :func:`~elot.translate.offline.rules.apply`; the base formulas inside come from
:class:`~elot.translate.offline.clauses.ClauseParser`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from elot.lang.operators import POSSIBILITY
from elot.lang.syntax import Call, Term, call
from elot.translate.offline.clauses import IN, ClauseParser, contains
from elot.translate.offline.phrases import Boxes, Keys, parse_boxes
from elot.translate.offline.rules import ANY_TEXT, NoParse, Rule, apply, rule
from elot.translate.offline.terms import LIKELY, B, K, conj, const, disj, neg

# -- modals ------------------------------------------------------------------------------

_MODAL_WORDS = {
    "might": "might", "may": "may", "could": "could", "must": "must", "should": "should",
    "can": "can", "probably": "likely", "likely": "likely", "possibly": "might",
    "perhaps": "might", "maybe": "might", "unlikely": "unlikely", "surely": "must",
    "certainly": "must", "presumably": "likely",
}


@dataclass(frozen=True)
class Modal:
    """A modal found in a clause: its ELoT name (``most`` for the adverb ``most likely``)."""

    name: str
    negated: bool = False


#: Modal phrasings, tried in order: (pattern, the modal it means, or None to read it off
#: group 1 through ``_MODAL_WORDS``).
_MODAL_PATTERNS: tuple[tuple[re.Pattern, Modal | None], ...] = tuple((re.compile(p), fixed) for p, fixed in (
    (r"\b(?:is|are|was|were) most (?:likely|probably) (?=(?:not )?(?:in|inside|empty)\b)", Modal("most")),
    (r"\b(?:is|are|was|were) (?:most|very|highly|quite) (?:likely|probably) (?:to (?:be )?)?", Modal("likely")),
    (r"\bmost (?:likely|probably) ", Modal("most")),
    (r"\b(?:is|are|was|were) (un)?likely to ", None),
    (r"\b(?:is|are|was|were) (probably|likely) (?=(?:not )?(?:in|inside|empty)\b)", None),
    (r"\b(?:has|have|had) (?:a )?(?:good |high |big |strong )chance (?:of|at) ", Modal("likely")),
    (r"\b(?:has|have|had) (?:a )?(?:decent |some |small |slight |fair )?chance (?:of|at) ", Modal("might")),
    (r"\b(might|may|could|must|should|can)(?: not)? ", None),
    (r"\b(probably|likely|possibly|perhaps|maybe|unlikely|surely|certainly|presumably)(?: not)? ", None),
))


def extract_modal(s: str) -> tuple[Modal | None, str]:
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
        modal = Modal("unlikely" if m.group(1) else "likely")
    else:
        modal = Modal(_MODAL_WORDS[m.group(1)], negated)
    rest = s[: m.start()] + s[m.end():]
    if "chance" in text:
        rest = s[: m.start()] + "has " + s[m.end():]
        rest = re.sub(r"\bhas (?:having|containing|holding|hiding|housing) ", "has ", rest)
        rest = re.sub(r"\bhas being ", "is ", rest)
    if text.startswith(("is ", "are ", "was ", "were ")) and re.search(r"\b(?:in|inside|empty)\b", s[m.end():m.end() + 8]):
        rest = s[: m.start()] + "is " + re.sub(r"^be ", "", s[m.end():])
    # a second modal word in the same clause is more than this parser reads
    if re.search(r"\b(?:might|may|could|must|should)\b", rest):
        raise NoParse(s)
    return modal, re.sub(r"\s+", " ", rest).strip()


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
    return call("exists", conds.pop(), disj(*bodies))


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

# -- the builders (each gets the parser and the match) -----------------------------------

_MODAL_WORD = r"\b(?:might|may|could|must|should|can|likely|probably)\b"


def _plain_then_modal(p: "ContentParser", m: re.Match) -> Content:
    """``box 2 is empty, and box 3 might hold a key``: a plain clause, then a modal one."""
    s = m.string
    for word in (", and ", ", but "):
        for index in [w.start() for w in re.finditer(re.escape(word), s)]:
            left, right = s[:index], s[index + len(word):]
            if not re.search(_MODAL_WORD, right) or re.search(_MODAL_WORD, left):
                continue
            try:
                return Content(p.content(left).parts + p.content(right).parts)
            except NoParse:
                continue
    raise NoParse(s)


def _leaning(p: "ContentParser", m: re.Match) -> Content:
    """``box 1 or 2 has the blue key, but leans more towards box 1``."""
    phi = p.base(m.group("c"))
    if not (isinstance(phi, Call) and phi.name == "exists" and isinstance(phi.args[1], Call)
            and phi.args[1].name == "or"):
        raise NoParse(m.string)
    cond, options = phi.args[0], phi.args[1].args
    favoured = call("inside", K, const(parse_boxes(m.group("a"), p.vocab).names[0]))
    if favoured not in options:
        raise NoParse(m.string)
    others = [o for o in options if o != favoured]
    split = disj(*(call("exists", cond, o) for o in options))
    more = call("more", LIKELY, call("exists", cond, favoured), call("exists", cond, disj(*others)))
    return Content((call("formula", split), more))


def _box_formula(p: "ContentParser", boxes_text: str, keys: Keys) -> Term:
    boxes = parse_boxes(re.sub(r"^(?:in|inside|for|to) ", "", boxes_text), p.vocab)
    if boxes.kind == "list":
        boxes = Boxes("list", boxes.names, "or")
    return contains(boxes, keys)


def _comparative(p: "ContentParser", m: re.Match) -> Content:
    """``more(likely, a, b)`` from boxes ``a`` and ``b`` and keys ``k``."""
    b_text = m.group("b") if m.group("b") else (m.groupdict().get("b0") or "")
    if not b_text:
        raise NoParse(m.string)
    b_text = re.sub(r"^(?:it is|it is for|for|in|inside|that of|in either) ", "", b_text)
    b_text = re.sub(r" (?:is|does|would|will)$", "", b_text)
    keys = p.keys(re.sub(r"^(?:finding|seeing|getting) ", "", m.group("k")))
    a = _box_formula(p, m.group("a"), keys)
    b = _box_formula(p, b_text, keys)
    return Content((call(m.group("m"), LIKELY, a, b),))


def _superlative(p: "ContentParser", m: re.Match) -> Content:
    """``most(likely, box, B, box(B), ...)`` from box ``a`` and keys ``k``."""
    keys = p.keys(m.group("k"))
    box = parse_boxes(m.group("a"), p.vocab)
    body = call("exists", keys.cond, call("inside", K, B))
    return Content((call(m.group("m"), LIKELY, const(box.names[0]), B, call("box", B), body),))


def _equal(p: "ContentParser", m: re.Match) -> Content:
    """``equal(likely, ...)`` over two or three listed boxes ``b`` and keys ``k``."""
    keys = p.keys(m.group("k"))
    boxes = parse_boxes(m.group("b"), p.vocab)
    if boxes.kind != "list" or not 2 <= len(boxes.names) <= 3:
        raise NoParse(m.string)
    each = [call("exists", keys.cond, call("inside", K, const(b))) for b in boxes.names]
    return Content((call("equal", LIKELY, *each),))


def _chance(p: "ContentParser", m: re.Match) -> Content:
    """``there is a (good, slim, ...) chance that φ``: the degree says the modal."""
    inner = re.sub(r"^of (?:finding|seeing|getting) (?P<k>.+?) (?P<b>(?:in|inside|from) .+)$",
                   r"there is \g<k> \g<b>", m.group("c"))
    degree = (m.group("d") or "").strip()
    name = "likely" if degree in ("good", "high", "big", "strong") else (
        "unlikely" if degree in ("little", "slim", "low") else "might")
    return p.wrap(Modal(name), p.base(inner))


def _it_is(p: "ContentParser", m: re.Match) -> Content:
    """``it is possible (likely, certain, ...) that φ``."""
    m = re.match(r"^(?P<w>\w+) (?P<c>.+)$", f"{m.group('w')} {_finding(m.group('c'))}")
    name = {"possible": "might", "probable": "likely", "certain": "must", "improbable": "unlikely"}.get(
        m.group("w"), m.group("w"))
    return p.wrap(Modal(name), p.base(m.group("c")))


def _nested(p: "ContentParser", m: re.Match) -> Content:
    """``sally thinks that the marble is in the basket`` as what another attitude holds: the
    clause read as a sentence of its own (:attr:`ContentParser.nested`), quoted: a belief
    about a belief, ``formula(believes(sally, formula(...)))`` (SPEC §10)."""
    if p.nested is None:
        raise NoParse(m.string)
    return Content((call("formula", p.nested(m.string)),))


def _plain(p: "ContentParser", m: re.Match) -> Content:
    return Content((call("formula", p.base(m.string)),))


def _modal_word(p: "ContentParser", m: re.Match) -> Content:
    """``box 2 might hold a key``: the one modal word taken out, the clause read under it."""
    modal, rest = extract_modal(m.string)
    if modal is None:
        raise NoParse(m.string)
    return p.wrap(modal, p.base(rest))


def _content_join(word: str) -> Rule[Content]:
    """``A word B``: two contents (one ``formula(and(A, B))`` when both are plain)."""
    def joined(p: "ContentParser", m: re.Match) -> Content:
        s = m.string
        for index in [w.start() for w in re.finditer(re.escape(word), s)]:
            try:
                left, right = p.content(s[:index]), p.content(s[index + len(word):])
            except NoParse:
                continue
            if left.proposition is not None and right.proposition is not None:
                return Content((call("formula", conj(left.proposition, right.proposition)),))
            return Content(left.parts + right.parts)
        raise NoParse(s)
    return rule(rf"(?s)^(?=.*?{re.escape(word)})", build=joined)


# -- the tables --------------------------------------------------------------------------

#: A clause around one modal; a final row's reading stands once its pattern matches.
_MODAL_CLAUSES: tuple[Rule[Content], ...] = (
    rule(r"^(?:there is|there was|there'?s|it is|it was) (?:a |some )?(?P<d>good |high |big |strong |decent |small "
         r"|slight |fair |little |slim |low )?(?:chance|possibility|probability)(?: that)? (?P<c>.+)$",
         build=_chance, final=True),
    rule(r"^it (?:is|was) (?P<w>possible|likely|probable|unlikely|certain|improbable) (?:that )?(?P<c>.+)$",
         build=_it_is, final=True),
    Rule((ANY_TEXT,), _plain),
    Rule((ANY_TEXT,), _modal_word),
)

_MORE_VERBS = r"(?:contain|have|hold|house|include|be holding|be hiding|hide|be)"
_MOST_VERBS = r"(?:contain|have|hold|house|include|be holding|hide|be)"

#: What an attitude holds, tried in order; within a row, the first alternative that
#: matches is the one read.
_CONTENTS: tuple[Rule[Content], ...] = (
    Rule((ANY_TEXT,), _nested),
    rule(r"(?s)^(?=.*?, (?:and|but) )", build=_plain_then_modal),
    rule(r"^(?P<c>.+?),? (?:but|and) (?:is )?(?:leans|leaning|favou?rs|favou?ring|more strongly suspects)"
         r"(?: more)?(?: towards?| to)? (?P<a>box \d+)$", build=_leaning),
    # box a is more likely than box b to hold k
    rule(rf"^(?P<a>.+?) (?:is|are|was|were|seems|seemed) (?P<m>more|less) likely (?:than (?P<b0>.+?) )?to {_MORE_VERBS} (?P<k>.+?)(?: than (?P<b>.+))?$",
         build=_comparative),
    rule(rf"^(?P<a>.+?) (?P<m>more|less) likely {_MORE_VERBS}s? (?P<k>.+?) than (?P<b>.+)$", build=_comparative),
    rule(rf"^there (?:is|are|was|were) (?P<m>more|less) likely to be (?P<k>.+?) {IN} (?P<a>.+?) than (?P<b>.+)$",
         build=_comparative),
    rule(rf"^(?:it is )?(?P<m>more|less) likely (?:that )?(?:there is )?(?P<k>.+?) (?:is |was )?{IN} (?P<a>.+?) than (?P<b>.+)$",
         build=_comparative),
    rule(rf"^(?P<k>.+?) (?:is|are|was|were) (?P<m>more|less) likely (?:to be )?{IN} (?P<a>.+?) than (?P<b>.+)$",
         build=_comparative),
    # box a is the most likely to hold k
    rule(rf"^(?P<a>box \d+) (?:is|was) (?:the )?(?P<m>most|least) likely(?: box| one| place)?(?: of (?:all )?the boxes)? to {_MOST_VERBS} (?P<k>.+)$",
         build=_superlative),
    rule(rf"^(?P<k>.+?) (?:is|was) (?P<m>most|least) likely (?:to be )?{IN} (?P<a>box \d+)$", build=_superlative),
    rule(r"^(?:the )?(?P<m>most|least) likely (?:box|place|location|spot) (?:for|of|to (?:find|contain|have|hold)) (?P<k>.+?) (?:is|was) (?P<a>box \d+)$",
         build=_superlative),
    rule(r"^(?P<a>box \d+) (?:is|was) (?:the )?(?P<m>most|least) likely (?:box|place|location|spot) (?:for|of|to (?:find|contain|have|hold)) (?P<k>.+)$",
         build=_superlative),
    # k is equally likely in boxes b
    rule(rf"^(?:there (?:is|was) )?an? (?:equal|even|same|similar) (?:chance|likelihood|probability|odds) "
         rf"(?:of|that|for) (?P<k>.+?) (?:being|is|to be|was) {IN} (?P<b>.+)$",
         r"^(?P<b>.+?) (?:are|were|is|was) (?:all |both )?equally likely to (?:contain|have|hold) (?P<k>.+)$",
         rf"^(?P<k>.+?) (?:is|was) equally likely (?:to be )?{IN} (?P<b>.+)$",
         build=_equal),
    Rule((ANY_TEXT,), lambda p, m: apply(_MODAL_CLAUSES, m.string, p)),
    _content_join(", and "),
    _content_join(" and "),
    _content_join(", but "),
    _content_join(" but "),
    _content_join("; "),
)


class ContentParser(ClauseParser):
    """Content: base formulas under at most one modal or comparative, or another agent's
    attitude (a nested belief) read by :attr:`nested`."""

    #: Reads a clause that is a sentence of its own about an agent (``sally thinks that φ``,
    #: ``sally saw the marble being moved``) to its formula, :class:`NoParse` if it is not
    #: one; set by :func:`elot.translate.offline.read` (None: no nesting).
    nested = None

    def content(self, s: str) -> Content:
        """The content of an attitude (:class:`NoParse` if no construction reads it)."""
        s = s.strip(" ,")
        s = _ability(re.sub(r"^that ", "", s))
        return apply(_CONTENTS, s, self)

    def wrap(self, modal: Modal, phi: Term) -> Content:
        """``modal(phi)`` as a content (``most(likely, phi)`` for the adverb)."""
        if modal.name in POSSIBILITY and not modal.negated:
            phi = _possibly_any(phi)
        if modal.negated:
            phi = neg(phi)
        if modal.name == "most":
            return Content((call("most", LIKELY, phi),))
        return Content((call(modal.name, phi),))
