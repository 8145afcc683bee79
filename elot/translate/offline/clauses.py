"""Clauses: base formulas about boxes and keys, and the connectives between them.

An atom is one simple clause (``box 2 is empty``, ``box 1 has the red key``, ``the key
is in box 3``, ``there is no key in box 1 or 2``, ``the key in box 2 is red``); atoms
join by ``if ... then``, ``..., otherwise ...``, ``or``, ``and``, ``but``. The grammar is
one table (:data:`_ATOMS` then :data:`_CONNECTIVES`), each row a pattern and the builder
of its formula, tried in order by :func:`~elot.translate.offline.rules.apply`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from elot.lang.syntax import Term, call
from elot.translate.offline.phrases import Boxes, Keys, Vocabulary, parse_boxes, parse_keys
from elot.translate.offline.rules import NoParse, Rule, apply, rule
from elot.translate.offline.terms import B, K, const, conj, disj, iscolor, neg

# -- the formulas ------------------------------------------------------------------------

def _inside(boxes: Boxes) -> Term:
    """The body ``inside(K, ...)`` for a box reference (disjunction for lists)."""
    if boxes.kind == "var":
        return call("inside", K, B)
    if boxes.kind == "list":
        return disj(*(call("inside", K, const(b)) for b in boxes.names))
    return call("exists", call("box", B), call("inside", K, B))


def contains(boxes: Boxes, keys: Keys, negated: bool = False) -> Term:
    """``boxes`` contain ``keys`` (or not), in the dataset's style."""
    negated = negated ^ keys.negated ^ boxes.negated
    cond = keys.cond
    if boxes.kind == "all":
        body = call("forall", call("box", B), call("exists", cond, call("inside", K, B)))
        return neg(body) if negated else body
    if boxes.kind == "none":
        body = call("exists", cond, call("exists", call("box", B), call("inside", K, B)))
        return body if negated else neg(body)
    if boxes.kind == "list" and len(boxes.names) > 1 and (boxes.conj == "and" or negated):
        each = [call("exists", cond, call("inside", K, const(b))) for b in boxes.names]
        return conj(*(neg(e) if negated else e for e in each))
    body = call("exists", cond, _inside(boxes))
    return neg(body) if negated else body


def emptiness(boxes: Boxes, negated: bool = False) -> Term:
    """``boxes`` are empty (or not)."""
    negated = negated ^ boxes.negated
    if boxes.kind == "var":
        body = call("empty", B)
    elif boxes.kind == "list":
        each = [call("empty", const(b)) for b in boxes.names]
        if negated:
            each = [neg(e) for e in each]
        return (disj if boxes.conj == "or" and not boxes.negated else conj)(*each)
    elif boxes.kind == "all":
        body = call("forall", call("box", B), call("empty", B))
    elif boxes.kind == "none":
        body = neg(call("exists", call("box", B), call("empty", B)))
    else:
        body = call("exists", call("box", B), call("empty", B))
    return neg(body) if negated else body


# -- the words ---------------------------------------------------------------------------

_HAVE = (
    r"(?:contains?|contained|containing|has|have|had|having|holds?|held|holding|hides?|hid|hiding|"
    r"hidden|includes?|included|keeps?|kept|houses?|housed|gets?|got|stores?|stored|carr(?:y|ies|ied))"
)
_AUX_NEG = r"(?:(?:does|do|did|will|would|is|was|are|were) not |not )"
_AUX = r"(?:(?:does|do|did|will|would|is going to|was going to) )"
BE = (
    r"(?:is|are|was|were|be|been|being|will be|would be|is going to be|was going to be|"
    r"remains?|remained|stays?|stayed|turns? out to be|turned out to be|seems? to be|seemed to be)"
)
_LOC_VERB = (
    r"(?:is|are|was|were|be|being|will be|would be|lies|lay|sits|sat|can be found|could be found|"
    r"(?:is|was|are|were|be|being|will be|would be) (?:located|hidden|found|placed|kept|stored|put|sitting|lying))"
)
IN = r"(?:in|inside|inside of|within|in either|in one of|inside one of)"


# -- the builders (each gets the parser and the match) -----------------------------------

def _empty(p: "ClauseParser", m: re.Match) -> Term:
    return emptiness(parse_boxes(m.group("boxes"), p.vocab), negated=bool(m.group("neg")))


def _contains(p: "ClauseParser", m: re.Match) -> Term:
    boxes = parse_boxes(m.group("boxes"), p.vocab)
    return contains(boxes, p.keys(m.group("keys")), negated=bool(m.group("neg")))


def _key_color(p: "ClauseParser", m: re.Match) -> Term:
    keys = Keys(conj(call("key", K), iscolor(m.group("color"))))
    return contains(parse_boxes(m.group("boxes"), p.vocab), keys, negated=bool(m.group("neg")))


def _if_then(p: "ClauseParser", m: re.Match) -> Term:
    a = p.base(m.group("a"))
    return call("imply", a, p.consequent(m.group("b")))


def _then_if(p: "ClauseParser", m: re.Match) -> Term:
    b = p.consequent(m.group("b"))
    return call("imply", p.base(m.group("a")), b)


def _otherwise(p: "ClauseParser", m: re.Match) -> Term:
    return disj(p.base(m.group("a")), p.consequent(m.group("b")))


#: How a sentence says that an agent perceived an event (``observed(agent, event)``).
SAW = (r"(?:saw|has seen|had seen|have seen|sees|observed|has observed|had observed|have observed|noticed|"
       r"has noticed|have noticed|witnessed|has witnessed|have witnessed|watched|was watching)")
NOT_SAW = (r"(?:did not see|has not seen|had not seen|not have seen|does not see|never saw|did not observe|"
           r"has not observed|did not notice|has not noticed|did not witness|did not watch|missed)")


def _percept(p: "ClauseParser", m: re.Match) -> Term:
    """``sally saw the marble being moved``: ``observed(sally, move)`` (the subject an agent,
    the object an event of the domain, SPEC §10)."""
    sig = p.vocab.signature
    if sig is None or not sig.is_percept("observed"):
        raise NoParse(m.string)
    atom = call("observed", const(p.vocab.agent(m.group("subject"))), const(p.vocab.event(m.group("event"))))
    return neg(atom) if m.group("neg") else atom


def _happened(p: "ClauseParser", m: re.Match) -> Term:
    """``the marble was moved`` (an event the domain calls ``the marble being moved``), ``the
    move happened``: ``happened(move)``."""
    sig = p.vocab.signature
    if sig is None or not sig.is_percept("happened"):
        raise NoParse(m.string)
    groups = m.groupdict()
    if groups.get("participle"):
        event = p.vocab.happenings.get((m.group("subject"), m.group("participle")))
        if event is None:
            raise NoParse(m.string)
    else:
        event = p.vocab.event(m.group("subject"))
    atom = call("happened", const(event))
    return neg(atom) if m.group("neg") else atom


#: How a two-place predicate may be said before its second argument, besides its name:
#: ``the marble is in the basket`` for ``inside(marble, basket)``.
_SAID_AS = {"inside": ("in", "inside", "inside of", "within"), "in": ("in", "inside"), "at": ("at",), "on": ("on",)}


def _domain_atom(p: "ClauseParser", m: re.Match) -> Term:
    """``<object> is [not] <complement>`` over the domain's words and predicates: ``the
    lebanese truck is behind the building`` (a phrase the domain gives ``at(_, spot2)``),
    ``spot 2 is empty`` (a one-place predicate), ``the korean truck is at spot 1`` (a
    two-place predicate and an object)."""
    sig = p.vocab.signature
    if sig is None:
        raise NoParse(m.string)
    subject = p.vocab.object(m.group("subject"))
    complement = m.group("complement").strip()
    atom: Term | None = None
    template = p.vocab.complement_table.get(complement)
    if template is not None:
        name, rest = template.split("(", 1)
        others = [a.strip() for a in rest.rstrip(")").split(",")[1:]]
        atom = call(name, const(subject), *(const(o) for o in others))
    else:
        kind = sig.object_types[subject]
        for name, types in sig.predicates:
            if not types or sig.meet(kind, types[0]) is None:
                continue
            if len(types) == 1 and complement == name.replace("_", " "):
                atom = call(name, const(subject))
                break
            said = [w for w in (name.replace("_", " "), *_SAID_AS.get(name, ())) if complement.startswith(w + " ")]
            if len(types) == 2 and said:
                try:
                    other = p.vocab.object(complement[len(max(said, key=len)) + 1:])
                except NoParse:
                    continue
                if sig.meet(sig.object_types[other], types[1]) is not None:
                    atom = call(name, const(subject), const(other))
                    break
    if atom is None:
        raise NoParse(m.string)
    return neg(atom) if m.group("neg") else atom


def _join(word: str, build) -> Rule[Term]:
    """``A word B`` → ``build(A, B)`` (see :meth:`ClauseParser.split`)."""
    def joined(p: "ClauseParser", m: re.Match) -> Term:
        parts = p.split(m.string, word)
        if not parts:
            raise NoParse(m.string)
        return build(*parts)
    return rule(rf"(?s)^(?=.*?{re.escape(word)})", build=joined)


#: One simple clause; within a row, the first alternative that matches is the one read.
_ATOMS: tuple[Rule[Term], ...] = (
    rule(rf"^(?P<boxes>.+?) (?:(?:both|all|each) )?{BE}(?: both| all)?(?P<neg> not)?(?: both| all)?"
         r" (?:empty|without (?:a |any )?keys?|keyless)$",
         r"^(?P<boxes>.+?) (?P<neg>)(?:(?:both|all) )?(?:is|are|was|were) (?:both |all )?empty$",
         rf"^(?P<boxes>.+?) (?P<neg>{_AUX_NEG}|)(?:is|are|was|were|be)? ?empty$",
         build=_empty),
    rule(rf"^(?P<boxes>.+?) (?:(?P<neg>{_AUX_NEG})|{_AUX})?(?:both |all |each )?{_HAVE} (?P<keys>.+)$",
         build=_contains),
    rule(rf"^(?P<keys>.+?) (?P<verb>{_LOC_VERB})(?P<neg> not)? {IN} (?P<boxes>.+)$",
         rf"^(?P<keys>.+?) (?P<neg>(?:does|did|do) not )(?:lie|sit) {IN} (?P<boxes>.+)$",
         build=_contains),
    rule(rf"^there (?:{BE}|exists?|existed)(?P<neg> not)? (?P<keys>.+?) {IN} (?P<boxes>.+)$",
         build=_contains),
    rule(rf"^(?P<subject>.+?) (?:(?P<neg>{NOT_SAW})|{SAW}) (?P<event>.+)$", build=_percept),
    rule(r"^(?P<subject>.+?) (?:was|were|has been|had been|have been|be|got)(?P<neg> not)? (?P<participle>.+)$",
         r"^(?P<subject>.+?) (?:(?P<neg>did not |has not |never )(?:happen|take place|occur)|"
         r"happened|has happened|had happened|took place|occurred)$",
         build=_happened),
    rule(rf"^(?P<subject>.+?) (?:{BE})(?P<neg> not)? (?:(?:parked|located|standing|sitting|found) )?(?P<complement>.+)$",
         build=_domain_atom),
)

#: Clauses joined; a final row's reading stands once its pattern matches.
_CONNECTIVES: tuple[Rule[Term], ...] = (
    rule(r"^if (?P<a>.+?),? then (?P<b>.+)$", r"^if (?P<a>.+?), (?P<b>.+)$", build=_if_then, final=True),
    rule(r"^(?P<b>.+?),? (?:if|provided that|assuming) (?P<a>.+)$", build=_then_if),
    rule(r"^(?P<a>.+?),? (?:otherwise|or else) (?P<b>.+)$", build=_otherwise, final=True),
    _join(" or ", disj),
    _join(" and ", conj),
    _join(", but ", conj),
    _join(" but ", conj),
)


@lru_cache(maxsize=32)
def _clause_rules(color_pattern: str) -> tuple[Rule[Term], ...]:
    """The whole table over a scenario's colours (``the key in box 2 is red`` names one)."""
    key_color = rule(rf"^(?:the|any|a) keys? {IN} (?P<boxes>.+?) (?:{BE})(?P<neg> not)? (?P<color>{color_pattern})$",
                     build=_key_color)
    return _ATOMS + (key_color,) + _CONNECTIVES


class ClauseParser:
    """Base formulas over one vocabulary; remembers the last keys named (for ``it``)."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.last_keys: Keys | None = None
        self._rules = _clause_rules(vocab.color_pattern)

    def keys(self, text: str) -> Keys:
        """A key phrase, or ``it``/``one``/``them`` for the keys named last."""
        if text in ("it", "one", "them", "one there", "it there"):
            if self.last_keys is None:
                raise NoParse(text)
            return self.last_keys
        keys = parse_keys(text, self.vocab)
        self.last_keys = Keys(keys.cond)
        return keys

    def base(self, s: str) -> Term:
        """A base formula: an atom, or atoms joined by if/then, and, or."""
        s = s.strip(" ,")
        s = re.sub(r"^(?:that|whether) ", "", s)
        return apply(self._rules, s, self)

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
            except NoParse:
                continue
            elided = re.match(r"^(?P<s>.+?) (?P<be>is|was|are|were) not$", right)
            predicate = re.match(r"^.+? (?:is|was|are|were) (?P<p>(?!not\b).+)$", left)
            if elided and predicate:   # "box 4 is empty and box 5 is not"
                right = f"{elided.group('s')} {elided.group('be')} not {predicate.group('p')}"
            try:
                return [a, self.base(right)]
            except NoParse:
                pass
            subject = self.subject(left)
            if subject:
                verb_left = left[len(subject):].strip()
                aux = re.match(r"^(will|would|is going to|must|might|should) (?:either )?", verb_left)
                right_full = f"{subject} {aux.group(1) + ' ' if aux else ''}{right}"
                try:
                    return [a, self.base(right_full)]
                except NoParse:
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
                except NoParse:
                    continue
        return None
