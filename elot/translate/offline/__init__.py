"""Deterministic English → ELoT for what people say about boxes, keys and colours, and
about what an agent wants or likes in any domain whose signature names its objects.

The parser works in three steps, each a small function over normalized text:

1. :func:`~elot.translate.offline.normalize.normalize` lowercases, expands contractions,
   spells numbers as digits (``box number three`` → ``box 3``, ``the first box`` → ``box
   1``) and drops fillers.
2. The *attitude* (``believes``, ``is sure``, ``knows``, ``is unsure which box``, ...) is
   read off after the subject; a past-tense attitude or ``initially`` makes the statement
   one about the agent's *initial* belief.
3. The *content* is parsed into base formulas (``empty``, ``exists(and(key(K), ...),
   inside(K, box))``, their negations, conjunctions, disjunctions and conditionals) and
   the modal or comparative around them (``might``, ``likely``, ``more(likely, ...)``,
   ``most(likely, box2, B, box(B), ...)``).

Every grammar is a table of rows, a pattern and the builder of its reading, tried in
order by one loop (:func:`~elot.translate.offline.rules.apply`):

* ``rules``: that loop; ``terms``: the ELoT terms the builders make;
* ``normalize``: step 1; ``attitudes``: step 2, the attitude verbs and the questions
  they take (``desires``: wanting, liking, preferring, tried first);
* ``content``: step 3's modals and comparisons (:class:`~.content.ContentParser`) over
  ``clauses``: base formulas and connectives (:class:`~.clauses.ClauseParser`) over
  ``phrases``: the boxes and keys a clause names, and any domain's objects and atoms
  (from its signature and the words it gives them, ``Signature.with_words``).

Every rule either matches completely or not at all; when none does, :func:`read`
raises :class:`~elot.errors.TranslationError` naming the part it did not understand. It
never guesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from elot.errors import ElotError, TranslationError
from elot.lang.english import constant, english
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.translate.offline.attitudes import ATTITUDES, is_past
from elot.translate.offline.content import ContentParser
from elot.translate.offline.normalize import INITIAL, normalize
from elot.translate.offline.phrases import Vocabulary
from elot.translate.offline.rules import NoParse, Unknown, apply
from elot.translate.offline.terms import about

#: The words naming the observed agent in any domain.
_ANYONE = "the player|player|the agent|the human|the person|they|he|she"
_SUBJECT = re.compile(rf"^(?:{_ANYONE})\b\s*")


def _subject(signature: Signature | None) -> re.Pattern:
    """The words naming the observed agent: ``the player``, ``she``, ..., and the domain's
    own (its name, ``the student``, and the phrases the signature gives it); and those naming
    its other agents (``anne``), in the group ``other``."""
    if signature is None:
        return _SUBJECT
    agent = signature.agent
    names = {agent.replace("_", " "), f"the {agent.replace('_', ' ')}"}
    names |= {" ".join(p.lower().split()) for p in signature.phrases(agent)}
    extra = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    others = _others(signature)
    other = "|".join(re.escape(n) for n in sorted(others, key=len, reverse=True))
    return re.compile(rf"^(?:{f'(?P<other>{other})|' if other else ''}{extra}|{_ANYONE})\b\s*")


def _others(signature: Signature) -> dict[str, str]:
    """The words naming the agents other than the observed one: phrase → agent."""
    return {phrase: name for phrase, name in Vocabulary.of(signature).agents if name != signature.agent}


def _named(signature: Signature) -> re.Pattern:
    """The words naming an agent explicitly (no pronoun): the subject of a nested clause."""
    names = {phrase for phrase, _ in Vocabulary.of(signature).agents} | {"the player", "player"}
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"^(?P<who>{alternatives})\b\s*")


def _nested(clause: str, parser: ContentParser, signature: Signature) -> Term:
    """A clause that is a sentence about an agent (``sally thinks that φ``, ``anne saw the
    marble being moved``) read as one, said of that agent by name: what another attitude
    holds (a nested belief). :class:`NoParse` if it is not one."""
    m = _named(signature).match(clause)
    if m is None:
        raise NoParse(clause)
    agent = parser.vocab.agent(m.group("who"))
    rest, _ = _tense(_TRUTH_COMMENT.sub("", clause[m.end():]))
    term, _ = apply(ATTITUDES, rest, parser)
    return about(term, agent)

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
    initial, text, rest, agent = _split(sentence, signature)
    if not text:
        raise TranslationError("empty sentence", hint=f"write a sentence such as '{example_sentence(signature)}'")
    if rest is None:
        agent = constant(signature.agent, signature)
        raise TranslationError(
            f"cannot tell whose belief this is: {sentence.strip()!r}",
            hint=f"start the sentence with '{agent[:1].upper() + agent[1:]}', e.g. '{example_sentence(signature)}'",
        )
    parser = ContentParser(vocab)
    parser.nested = lambda clause: _nested(clause, parser, signature)
    rest, tense_mode = _tense(rest)
    try:
        term, verb = apply(ATTITUDES, rest, parser)
    except NoParse:
        term = None
    except Unknown as error:
        refusal = TranslationError(f"{error.message}: {sentence.strip()!r}", hint=error.hint)
        refusal.definite = True  # about the sentence, not a gap in the rules: no fallback
        raise refusal from None
    if term is None:
        raise TranslationError(_explain(sentence, rest))
    mode = "initial" if initial or is_past(verb) else "current"
    if tense_mode is not None and not initial:
        mode = tense_mode
    return Reading(term if agent is None else about(term, agent), mode)


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


def _split(sentence: str, signature: Signature | None = None) -> tuple[bool, str, str | None, str | None]:
    """Whether the sentence says ``initially``; its normalized text without that word; what
    follows its subject, without a comment on the belief's truth (``None`` when it has no
    subject); and the subject when it is an agent other than the observed one (else None)."""
    text = normalize(sentence)
    initial = bool(INITIAL.search(text))
    text = re.sub(r"\s+", " ", INITIAL.sub("", text)).strip(" ,")
    m = _subject(signature).match(text)
    other = m.groupdict().get("other") if m else None
    agent = _others(signature)[other] if other else None
    return initial, text, (_TRUTH_COMMENT.sub("", text[m.end():]) if m else None), agent


def _explain(sentence: str, rest: str) -> str:
    """What the parser did not understand (the error message; the hint is :data:`_HINT`)."""
    for attitude in ATTITUDES:
        am = attitude.match(rest)
        if am:
            attitude = rest[: am.start("rest")].strip(" ,")
            return f"understood the attitude {attitude!r} but not what follows it: {am.group('rest')!r}"
    first = rest.split(" ")[0] if rest else ""
    return f"no attitude verb understood after the subject (at {first!r}) in {sentence.strip()!r}"


#: The attitudes the hint of every error that has none of its own lists.
_ATTITUDES = "believes, thinks, knows, is sure, is unsure, wonders, does not know"


def example_sentence(signature: Signature) -> str:
    """A sentence in the domain's words the translator reads: the observed agent believing
    the first atom its signature can say ("The player believes that box 1 is empty.", "The
    visitor believes that the coffee shop is open.")."""
    for predicate, types in signature.predicate_types.items():
        args = [signature.objects_of(t) for t in types]
        if types and all(args) and not signature.is_percept(predicate):
            atom = f"{predicate}({', '.join(a[0] for a in args)})"
            try:
                return english(f"believes({signature.agent}, formula({atom}))", signature=signature)
            except ElotError:
                continue
    return "The player believes that box 1 is empty."


def parse_sentence(sentence: str, signature: Signature | None = None) -> Reading:
    """Like :func:`read`, with the general hint added to every error."""
    try:
        return read(sentence, signature)
    except TranslationError as error:
        if error.hint is None:
            error.hint = f"say who believes what, e.g. '{example_sentence(signature or Signature.default())}' " \
                         f"(attitudes: {_ATTITUDES})"
        raise


def statement_mode(sentence: str, signature: Signature | None = None) -> str:
    """``initial`` for a statement about the agent's initial belief (``initially``, or a
    past-tense attitude such as ``believed``), else ``current``."""
    initial, text, rest, _ = _split(sentence, signature)
    if initial:
        return "initial"
    if rest is not None:
        rest, tense_mode = _tense(rest)
        if tense_mode is not None:
            return tense_mode
    for attitude in ATTITUDES:
        m = attitude.match(text if rest is None else rest)
        if m:
            return "initial" if is_past(m.group("v")) else "current"
    return "current"
