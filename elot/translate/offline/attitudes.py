"""Attitudes: the verb after the subject (``believes``, ``is sure``, ``knows``, ``wonders
which box``, ...) and what it makes of the content that follows.

:data:`ATTITUDES` is the table, each row a pattern for the verb and the handler of what
follows it; ``knows`` / ``is unsure`` / ``does not know`` also take questions (``which
box has the red key``, ``the colour of the key in box 2``, ``whether φ``), read by the
tables :data:`_KNOWS`, :data:`_UNSURE` and :data:`_NOT_KNOWS`.
"""

from __future__ import annotations

import re
from typing import Callable

from elot.lang.syntax import Call, Term, Var, call
from elot.translate.offline.clauses import IN, NOT_SAW, SAW, contains
from elot.translate.offline.content import ContentParser, extract_modal
from elot.translate.offline.desires import DESIRES
from elot.translate.offline.phrases import Boxes, Vocabulary, parse_boxes
from elot.translate.offline.rules import ANY_TEXT, NoParse, Rule, Unknown, apply, rule
from elot.translate.offline.terms import AGENT, B, C, K, conj, const, neg

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


def is_past(verb: str) -> bool:
    """Whether the attitude verb is in the past tense (the statement is then about the
    agent's initial belief)."""
    first = verb.split(" ")[0]
    return first in _PAST_FIRST_WORDS or first.endswith("ed")


# -- questions: which box, what colour, whether ------------------------------------------

# "about which box ...", "of the colour ...": the preposition adds nothing
_ABOUT = r"^(?:(?:about|of|as to|on|regarding) )?"


def _about(op: str) -> tuple[Rule[Term], ...]:
    """``op(player, ...)`` for the questions an attitude can be about (``op`` is
    ``knows_about``, ``uncertain_about`` or ``not_knows_about``)."""

    def colors(parser: ContentParser, m: re.Match) -> Term:
        boxes = parse_boxes(m.group("b"), parser.vocab)
        if boxes.kind != "list":
            raise NoParse(m.string)
        each = [
            call(op, AGENT, call("color", C),
                 call("exists", conj(call("key", K), call("inside", K, const(b))), call("iscolor", K, C)))
            for b in boxes.names
        ]
        return conj(*each)

    def which_box(parser: ContentParser, m: re.Match) -> Term:
        if m.groupdict().get("vp"):
            _, vp = extract_modal("__box__ " + m.group("vp"))
            phi = parser.base(vp)
        else:
            keys = parser.keys(m.group("k"))
            phi = contains(Boxes("var"), keys)
        if not (isinstance(phi, Call) and phi.name == "exists"):
            raise NoParse(m.string)
        return call(op, AGENT, call("box", B), phi)

    return (
        # the domain's own objects: "where the marble is", "which container the marble is in",
        # "which container holds the marble" (any domain; keys and boxes decline, read below)
        rule(_ABOUT + r"where (?P<o>.+?) (?:is|was|will be|would be|might be|could be|is located|was located|"
                      r"is hidden|was hidden|ended up|is now|went)$",
             _ABOUT + r"(?:which|what) (?P<t>[a-z][a-z ]*?) (?P<o>.+?) (?:is|was|will be|would be|might be|could be) "
                      r"(?P<prep>in|inside|at|on)$",
             _ABOUT + r"(?:in|at|on) (?:which|what) (?P<t>[a-z][a-z ]*?) (?P<o>.+?) (?:is|was|will be|would be)$",
             _ABOUT + r"(?:which|what) (?P<t>[a-z][a-z ]*?) (?:holds|has|contains|is holding|has got|held|had|"
                      r"contained|is hiding|hides|hid) (?P<o>.+)$",
             build=lambda parser, m: _where(op, parser, m)),
        # "which thing is in the tube": the object is the place, the thing asked about
        rule(_ABOUT + r"(?:which|what) (?P<t>[a-z][a-z ]*?) (?:is|was|will be|would be|might be|could be) "
                      r"(?P<prep>in|inside|at|on) (?P<o>.+)$",
             build=lambda parser, m: _where(op, parser, m, inverse=True)),
        # the colour of the key in each of the boxes named
        rule(_ABOUT + r"(?:the )?contents? of (?P<b>.+)$",
             _ABOUT + rf"what (?:is|was|will be|would be|might be|lies|is hidden) {IN} (?P<b>.+)$",
             _ABOUT + rf"what (?:is )?{IN} (?P<b>.+?)(?: is| was)?$",
             _ABOUT + rf"(?:what|which) colou?r (?:of )?(?:the )?key {IN} (?P<b>.+?) (?:is|was|will be|would be|might be|"
             rf"could be|has)(?: if there (?:is|was) (?:one|a key))?$",
             _ABOUT + rf"(?:what|which) colou?r (?:the )?key (?:is|was|will be|would be) {IN} (?P<b>.+)$",
             _ABOUT + rf"(?:what|which) colou?r key (?:is|was|will be|would be|might be) {IN} (?P<b>.+)$",
             _ABOUT + r"(?:what|which) colou?r key (?P<b>.+?) (?:has|holds|contains|had|held|contained|will have|would have)$",
             _ABOUT + rf"(?:the )?colou?r of (?:the )?key {IN} (?P<b>.+)$",
             _ABOUT + r"what (?P<b>.+?) (?:holds|contains|has|held|contained|had)$",
             build=colors, final=True),
        # the box that holds the keys
        rule(_ABOUT + r"(?:which|what) (?:box|one of the boxes|of the boxes) (?P<vp>.+)$",
             _ABOUT + r"(?:in )?which box (?P<k>.+?) (?:is|was|will be|would be|might be|could be|is hidden|is located) ?(?:in)?$",
             _ABOUT + r"where (?P<k>.+?) (?:is|was|will be|would be|might be|could be|is hidden|is located)$",
             build=which_box, final=True),
    )


#: Predicates that say where a thing is, most likely first, for "where is ...?".
_LOCATIONS = ("inside", "in", "at", "on", "located_at", "location", "is_at", "under", "near")


def _where(op: str, parser: ContentParser, m: re.Match, inverse: bool = False) -> Term:
    """``op(player, T(X), p(o, X))`` for a question about where the object ``o`` is: ``p`` the
    domain's two-place predicate from o's type to ``T`` (the type asked about, else the place
    p puts o), e.g. ``knows_about(player, container(C), inside(marble, C))``; ``inverse``: a
    question about what is at ``o``, ``op(player, T(X), p(X, o))`` ("which thing is in the
    tube")."""
    sig = parser.vocab.signature
    if sig is None:
        raise NoParse(m.string)
    obj = parser.vocab.object(m.group("o"))
    kind = sig.object_types[obj]
    asked = (m.groupdict().get("t") or "").replace(" ", "_") or None
    if asked is not None and asked not in sig.domains:
        raise NoParse(m.string)
    mine, theirs = (1, 0) if inverse else (0, 1)
    candidates = [(name, types) for name, types in sig.predicates
                  if len(types) == 2 and name not in sig.derived and sig.meet(kind, types[mine]) is not None
                  and (asked is None or sig.meet(asked, types[theirs]) is not None)]
    prep = m.groupdict().get("prep")
    if prep:
        said = [c for c in candidates if c[0] == prep or (prep in ("in", "inside") and c[0] in ("inside", "in"))]
        candidates = said or candidates
    if len(candidates) > 1:
        preferred = [c for c in candidates if c[0] in _LOCATIONS]
        candidates = sorted(preferred, key=lambda c: _LOCATIONS.index(c[0]))[:1]
    if len(candidates) != 1:
        raise NoParse(m.string)
    name, types = candidates[0]
    domain = asked or types[theirs]
    var = Var(name=domain[0].upper())
    args = (var, const(obj)) if inverse else (const(obj), var)
    return call(op, AGENT, call(domain, var), call(name, *args))


def _whether(parser: ContentParser, rest: str) -> tuple[Term | None, Term]:
    """``whether φ``: the condition and two alternatives if φ is ``K in box a or box b``."""
    phi = parser.base(rest)
    if (isinstance(phi, Call) and phi.name == "exists" and isinstance(phi.args[1], Call)
            and phi.args[1].name == "or" and len(phi.args[1].args) == 2):
        return phi.args[0], phi
    return None, phi


def _uncertain_if(parser: ContentParser, m: re.Match) -> Term:
    cond, phi = _whether(parser, m.group("c"))
    if cond is not None:
        return call("uncertain_if", AGENT, cond, *phi.args[1].args)
    return call("uncertain_if", AGENT, call("formula", phi))


def _knows_that(parser: ContentParser, m: re.Match) -> Term:
    content = parser.content(m.string)
    if content.proposition is None:
        raise Unknown(
            "'knows' is said of a plain fact, not of a possibility or a comparison",
            "say 'believes ... might ...' or 'knows that box 2 is empty'",
        )
    return call("knows_that", AGENT, call("formula", content.proposition))


def _formula(op: str) -> Callable[[ContentParser, re.Match], Term]:
    """``op(player, formula(φ))`` for the clause ``c``: a base formula, or another agent's
    attitude (``that mary knows where the van is``: a nested belief)."""
    def build(parser: ContentParser, m: re.Match) -> Term:
        try:
            phi = parser.base(m.group("c"))
        except NoParse:
            if parser.nested is None:
                raise
            phi = parser.nested(re.sub(r"^(?:that|whether|if) ", "", m.group("c")))
        return call(op, AGENT, call("formula", phi))
    return build


_WHETHER = r"^(?:whether|if) (?P<c>.+?)(?: or not)?$"

#: What follows ``is unsure``, ``wonders``: a question.
_UNSURE: tuple[Rule[Term], ...] = _about("uncertain_about") + (
    rule(r"^(?:about )?(?:whether|if) (?P<c>.+?)(?: or not)?$", build=_uncertain_if, final=True),
)
#: What follows ``does not know``, ``has no idea``: a question, or ``that φ``.
_NOT_KNOWS: tuple[Rule[Term], ...] = _about("not_knows_about") + (
    rule(_WHETHER, build=_formula("not_knows_if"), final=True),
    rule(r"^that (?P<c>.+)$", build=_formula("not_knows_that"), final=True),
)
#: What follows ``knows``: a question, or a plain fact.
_KNOWS: tuple[Rule[Term], ...] = _about("knows_about") + (
    rule(_WHETHER, build=_formula("knows_if"), final=True),
    Rule((ANY_TEXT,), _knows_that, final=True),
)


#: What an attitude does with what follows its verb.
Handler = Callable[[ContentParser, str], Term]


def _asks(table: tuple[Rule[Term], ...]) -> Handler:
    """The handler reading what follows the verb with ``table``."""
    return lambda parser, rest: apply(table, rest, parser)


# -- beliefs -----------------------------------------------------------------------------

def _small_clause(parser: ContentParser, rest: str) -> str:
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


def _attitude(op: str, modal: str | None = None) -> Handler:
    """``op(player, content)``; with ``modal``, a plain content is read under it (``doubts
    that φ`` → ``believes(player, unlikely(φ))``)."""
    def handle(parser: ContentParser, rest: str) -> Term:
        content = parser.content(_small_clause(parser, rest))
        if modal is not None:
            if content.proposition is None:
                raise NoParse(rest)
            return call(op, AGENT, call(modal, content.proposition))
        return call(op, AGENT, *content.parts)
    return handle


def _is_boxes(text: str, vocab: Vocabulary) -> bool:
    try:
        parse_boxes(text, vocab)
    except NoParse:
        return False
    return True


def _disbelief(parser: ContentParser, rest: str) -> Term:
    """``does not think φ``: read as thinking ``not φ`` (the usual neg-raising reading)."""
    content = parser.content(_small_clause(parser, rest))
    if content.proposition is not None:
        return call("believes", AGENT, call("formula", neg(content.proposition)))
    return neg(call("believes", AGENT, *content.parts))


#: The attitudes, tried in order (the desires of elot.translate.offline.desires first): the
#: verb's pattern (``v`` the verb, its tense the statement's mode; ``rest`` what follows) →
#: the handler of what follows.
_ATTITUDES: tuple[tuple[str, Handler], ...] = DESIRES + (
    (r"^(?P<v>is|was) (?:not sure|not certain|unsure|uncertain|undecided|not confident|torn|unclear)"
     r"(?:,)? (?P<rest>.+)$", _asks(_UNSURE)),
    (r"^(?P<v>wonders|wondered|is wondering|was wondering|is curious|was curious) (?P<rest>.+)$", _asks(_UNSURE)),
    (r"^(?P<v>does|did) not know (?P<rest>.+)$", _asks(_NOT_KNOWS)),
    (r"^(?P<v>has|had) no (?:idea|clue) (?P<rest>.+)$", _asks(_NOT_KNOWS)),
    (r"^(?P<v>is|was) not aware (?:of )?(?P<rest>.+)$", _asks(_NOT_KNOWS)),
    (rf"^(?P<v>{_KNOW_VERBS})(?: that| for sure| for a fact)? (?P<rest>.+)$", _asks(_KNOWS)),
    (r"^(?P<v>is|was|feels|felt) (?:fairly|pretty|quite|reasonably|rather|somewhat|mostly|largely) "
     r"(?:sure|certain|confident|convinced)(?: that)? (?P<rest>.+)$", _attitude("believes")),
    (r"^(?P<v>doubts|doubted|is doubtful|was doubtful|has (?:little|low|not much) confidence|"
     r"had (?:little|low|not much) confidence)(?: that| whether| if)? (?P<rest>.+)$",
     _attitude("believes", "unlikely")),
    (r"^(?P<v>is|was|feels|felt) (?:sure|certain|positive|completely sure|absolutely sure|"
     r"very sure|100% sure|confident for sure)(?: that)? (?P<rest>.+)$", _attitude("certain")),
    (r"^(?P<v>does|did) not (?:believe|think|expect|suspect|feel)(?: that)? (?P<rest>.+)$", _disbelief),
    (r"^(?P<v>hopes|hoped|is hoping|was hoping|wishes|wished|wants|wanted)(?: that)? (?P<rest>.+)$",
     _attitude("hopes")),
    (rf"^(?P<v>{_BELIEVE_VERBS})(?: that)? (?P<rest>.+)$", _attitude("believes")),
)


def _reading(handler: Handler) -> Callable[[ContentParser, re.Match], tuple[Term, str]]:
    """A row's builder: the handler's formula for what follows the verb, and the verb."""
    return lambda parser, m: (handler(parser, m.group("rest").strip()), m.group("v"))


def _perceived(parser: ContentParser, m: re.Match) -> tuple[Term, str]:
    """``saw the marble being moved``: ``observed(player, move)`` (SPEC §10), a statement
    about now (what was perceived is part of the history the judgment is at), so the verb it
    answers is not a past one; what is not an event declines (``saw that box 2 was empty``
    is knowing)."""
    sig = parser.vocab.signature
    if sig is None or not sig.is_percept("observed"):
        raise NoParse(m.string)
    atom = call("observed", AGENT, const(parser.vocab.event(m.group("rest"))))
    return (neg(atom) if m.group("neg") else atom), ""


#: :data:`_ATTITUDES` as rules: each answers ``(formula, verb)``; a percept (``saw the
#: marble being moved``) is tried first.
ATTITUDES: tuple[Rule[tuple[Term, str]], ...] = (
    rule(rf"^(?P<v>)(?:(?P<neg>{NOT_SAW})|{SAW}) (?P<rest>.+)$", build=_perceived),
) + tuple(rule(p, build=_reading(h)) for p, h in _ATTITUDES)
