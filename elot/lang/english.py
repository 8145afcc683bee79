"""ELoT formula → an English sentence, for people and language models to read.

:func:`english` verbalizes a formula deterministically from its syntax tree, in the style
of the dataset's own sentences: ``believes(player, formula(exists(and(key(K),
iscolor(K, blue)), inside(K, box2))))`` reads "The player believes that box 2 has a blue
key." A statement about the initial belief (``mode="initial"``) is told in the past:
"The player initially believed that box 2 had a blue key." :func:`shown` is what a survey
or a prompt shows for a statement as written: English stays as written, ELoT becomes
English.

The verbalizer never typechecks and never fails on a parsed tree: a node it has no words
for (an unknown operator or predicate, a wrong number of arguments) is shown as its
formula text inside the sentence. Small clauses (a subject, ``be`` or ``have``, a
complement) are kept apart from finished text until the end, so that negation, modal
verbs ("might"), adverbs ("probably") and comparisons ("more likely to ... than ...")
go inside them where English puts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Union

from elot.errors import ElotError
from elot.lang.bindings import predicate_domains
from elot.lang import operators
from elot.lang.operators import ABOUT, KNOWLEDGE, POSSIBILITY
from elot.lang.parser import looks_like_formula, parse
from elot.lang.printer import pretty
from elot.lang.signature import PLAYER, Signature
from elot.lang.syntax import (
    Call,
    Const,
    Num,
    Term,
    Var,
    binding,
    guard_depth,
    subterms,
    variables,
)

#: Nouns of the domain types.
NOUNS = {"key": "key", "box": "box", "gem": "gem", "door": "door", "color": "colour", "item": "item",
         "agent": "agent", "physical": "object", "object": "thing"}
#: One-place predicates read as adjectives ("box 1 is empty", "an empty box").
ADJECTIVES = {"empty": "empty", "closed": "closed", "locked": "locked", "hidden": "hidden",
              "offgrid": "off the grid"}
#: Two-place atoms said as a clause about the first argument: the verb and its complement.
RELATIONS = {"inside": ("be", "in {}"), "iscolor": ("be", "{}"), "has": ("have", "{}"), "==": ("be", "{}")}
#: Modal verbs and their past forms (sequence of tenses: "initially believed it might ...").
MODAL_VERBS = {"might": "might", "may": "might", "could": "could", "can": "could", "should": "should",
               "must": "must"}
#: What an attitude is called, present and past (the past carries "initially").
ATTITUDES = {
    "believes": ("believes", "initially believed"),
    "thinks": ("thinks", "initially thought"),
    "certain": ("is certain", "was initially certain"),
    "hopes": ("hopes", "initially hoped"),
    "knows": ("knows", "initially knew"),
    "not_knows": ("does not know", "did not initially know"),
    "unsure": ("is unsure", "was initially unsure"),
    "wants": ("wants", "initially wanted"),
    "likes": ("likes", "initially liked"),
    "dislikes": ("dislikes", "initially disliked"),
    "prefers": ("prefers", "initially preferred"),
}
#: Desire operators ``op(A, o)``: the attitude and what follows the object.
DESIRES = {"wants": ("wants", ""), "likes": ("likes", ""), "dislikes": ("dislikes", ""),
           "likes_best": ("likes", "best"), "likes_least": ("likes", "least")}
#: Two-place predicates named by a preposition: ``at(van, park)`` reads "the van is at the park".
PREPOSITIONS = frozenset({"at", "in", "on", "under", "near", "behind", "above", "below", "beside"})
#: The verbs of what happened before the judgment (percepts and events, SPEC §10), told in the
#: past in either mode: the simple past, and the participle after a modal ("might have seen").
EVENT_VERBS = {"see": ("saw", "seen"), "happen": ("happened", "happened")}
PARTICIPLES = {"be": "been", "have": "had", **{v: p for v, (_, p) in EVENT_VERBS.items()}}
#: Operators whose formula is about an agent's mind: a belief quoting one is a nested belief.
MINDS = frozenset(operators.ATTITUDES + KNOWLEDGE + ABOUT + ("uncertain_if", "prob_of"))
COMPARISONS = {">=": "is at least", ">": "is greater than", "<": "is less than", "<=": "is at most",
               "==": "equals"}
HOLE = "\x00"   # marks a variable while a clause is built around it


def hole(var: str) -> str:
    """A stand-in for the variable ``var`` in text (one per variable: nested binders differ)."""
    return f"{HOLE}{var}{HOLE}"


class _Unsayable(Exception):
    """A node without words: the caller shows its formula text instead."""


def constant(name: str, signature: Signature | None = None) -> str:
    """How an object is named: ``box2`` → "box 2", ``player`` → "the player"."""
    signature = Signature.given(signature)
    given = signature.phrases(signature.resolve(name))
    if given:   # the domain's own words (Signature.with_words): "the Mexican truck"
        return given[0]
    agent = signature.resolve(name) == signature.agent   # the one watched, or its alias player
    if name == PLAYER and (agent or signature.resolve(name) == name):
        return "the player" if signature.agent == PLAYER else f"the {signature.agent.replace('_', ' ')}"
    if agent:                      # the one watched: a role ("the visitor", "the student")
        return f"the {signature.agent.replace('_', ' ')}"
    kind = signature.object_types.get(name)
    if kind is not None and signature.is_subdomain(kind, "agent"):   # another agent: a proper name
        return name.replace("_", " ").title()
    match = re.fullmatch(r"([a-z]+)_?(\d+)", name)
    if match:
        return f"{match[1]} {match[2]}"
    return name.replace("_", " ")


# -- clauses ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Clause:
    """``subject`` + ``be``/``have`` + ``complement``, or with ``there`` "there is
    <subject> <complement>". ``negative`` is the clause's own negation when English says
    it otherwise ("there is no red key in box 3", "not every box is empty")."""

    subject: str
    verb: str
    complement: str
    past: bool
    plural: bool = False
    negated: bool = False
    there: bool = False
    negative: "Clause | None" = None
    #: Told as what has happened (a percept, an event: SPEC §10): in the simple past in
    #: either mode, with "have" + participle after a modal or "to" ("might have seen").
    perfect: bool = False

    def negate(self) -> "Clause":
        if self.negative is not None:
            return replace(self.negative, negative=self)
        if self.there and not self.negated and re.match(r"(a|an|some) ", self.subject):
            return replace(self, subject="no " + self.subject.split(" ", 1)[1], negative=self)
        return replace(self, negated=not self.negated, negative=None)

    def text(self, modal: str | None = None) -> str:
        """The clause, with a modal verb (``might``), an adverb (``probably``) or a
        raising adjective (``unlikely`` → "is unlikely to") put in."""
        subject, rest = ("there", f"{self.subject} {self.complement}".strip()) if self.there \
            else (self.subject, self.complement)
        plural = self.plural and not self.there or self.there and _plural_np(self.subject)
        if modal is None:
            return _join(subject, self._finite(plural), rest)
        if modal in MODAL_VERBS:
            word = MODAL_VERBS[modal] if self.past else modal
            return _join(subject, word, "not" if self.negated else "", self._bare(), rest)
        if modal in ("probably", "most likely"):
            if self.verb in EVENT_VERBS:
                return _join(subject, modal, self._finite(plural), rest)
            if self.verb == "be" and self.perfect:   # "the marble was probably moved"
                return _join(subject, self._be(plural, True), modal, "not" if self.negated else "", rest)
            if self.verb == "be":
                return _join(subject, self._be(plural), modal, "not" if self.negated else "", rest)
            if self.negated:
                return _join(subject, modal, self._do(plural), "not", self.verb, rest)
            return _join(subject, modal, self._have(plural), rest)
        # a raising adjective: "box 1 is unlikely to have a key"
        return _join(subject, self._be(plural), modal, "to", "not" if self.negated else "", self._bare(), rest)

    def infinitive(self) -> str:
        """The verb phrase after "to": "have a red key", "not be empty"."""
        return _join("not" if self.negated else "", self._bare(), self.complement)

    def _bare(self) -> str:
        """The verb after a modal or "to": "be", or for what has happened "have seen"."""
        return f"have {PARTICIPLES.get(self.verb, self.verb)}" if self.perfect else self.verb

    def _be(self, plural: bool, past: bool | None = None) -> str:
        past = self.past if past is None else past
        return ("were" if plural else "was") if past else ("are" if plural else "is")

    def _have(self, plural: bool) -> str:
        return "had" if self.past else ("have" if plural else "has")

    def _do(self, plural: bool) -> str:
        return "did" if self.past else ("do" if plural else "does")

    def _finite(self, plural: bool) -> str:
        if self.verb in EVENT_VERBS:
            return f"did not {self.verb}" if self.negated else EVENT_VERBS[self.verb][0]
        if self.verb == "be":   # what happened is told in the past in either mode
            return self._be(plural, self.past or self.perfect) + (" not" if self.negated else "")
        if self.negated:
            return f"{self._do(plural)} not {self.verb}"
        return self._have(plural)


def _fill(text: str, names: dict[str, str]) -> str:
    """``text`` with the hole of each variable in ``names`` replaced by its words."""
    for var, words in names.items():
        text = text.replace(hole(var), words)
    return text


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _plural_np(text: str) -> bool:
    return " and " in text and not text.startswith(("a ", "an ", "no ", "every "))


def _article(core: str) -> str:
    return ("an " if core[:1] in "aeiou" else "a ") + core


def _list(parts: list[str], word: str) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} {word} {parts[-1]}"


#: What a base formula is said as: a clause (that negation and modals can enter) or text.
Said = Union[Clause, str]


def _text(said: Said) -> str:
    return said.text() if isinstance(said, Clause) else said


# -- the verbalizer -----------------------------------------------------------------------


@dataclass
class _Noun:
    """What a condition says about one variable: a noun with adjectives before it and
    phrases after it ("red key", "key in box 2", "box other than box 1")."""

    noun: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def core(self) -> str:
        return _join(*self.before, self.noun, *self.after)


class _Verbalizer:
    def __init__(self, signature: Signature, past: bool):
        self.signature = signature
        self.past = past
        self.attitudes = 0
        self.quoted = 0   # how deep inside a quoted formula (a nested belief) the words are

    # -- terms ----------------------------------------------------------------------

    def np(self, term: Term, env: dict[str, str]) -> str:
        if isinstance(term, Var):
            return env.get(term.name, term.name)
        if isinstance(term, Const):
            return constant(term.name, self.signature)
        if isinstance(term, Num):
            return pretty(term)
        return self.number(term, env)

    def safely(self, term: Term, env: dict[str, str], how: Callable[[Term, dict], Said]) -> Said:
        try:
            return how(term, env)
        except (_Unsayable, ElotError, IndexError, AttributeError, TypeError):
            # no words for it, or an ill-typed tree (a name where a formula belongs): the
            # sentence shows this part as formula text rather than failing
            return pretty(term)

    # -- base formulas ----------------------------------------------------------------

    def base(self, term: Term, env: dict[str, str]) -> Said:
        """A base formula as a clause where it is one, else as text."""
        if not isinstance(term, Call):
            raise _Unsayable
        name, args = term.name, term.args
        np = lambda t: self.np(t, env)  # noqa: E731
        if name == "not" and len(args) == 1 and isinstance(args[0], Call) \
                and (args[0].name in DESIRES and len(args[0].args) == 2 or args[0].name == "prefers" and len(args[0].args) == 3):
            # "the student does not like the Korean truck"
            inner = args[0]
            self.attitudes += 1
            verb = DESIRES.get(inner.name, ("prefers",))[0].removesuffix("s")   # the attitude's bare verb
            said = _join(self.np(inner.args[0], env), "did not initially" if self.past else "does not", verb,
                         self.np(inner.args[1], env))
            if inner.name == "prefers":
                return f"{said} to {self.np(inner.args[2], env)}"
            return _join(said, DESIRES[inner.name][1])
        if name == "not" and len(args) == 1:
            inner = self.safely(args[0], env, self.base)
            if isinstance(inner, Clause):
                return inner.negate()
            return f"it {'was' if self.past else 'is'} not the case that {inner}"
        if name in ("and", "or") and len(args) >= 2:
            return self.connect(name, [self.safely(a, env, self.base) for a in args])
        if name == "imply" and len(args) == 2:
            return f"if {_text(self.safely(args[0], env, self.base))}, then {_text(self.safely(args[1], env, self.base))}"
        if name in ("exists", "forall") and len(args) == 2:
            return self.quantified(term, env)
        if name in ADJECTIVES and len(args) == 1:
            return Clause(np(args[0]), "be", ADJECTIVES[name], self.past)
        if name in RELATIONS and len(args) == 2:
            verb, said = RELATIONS[name]
            return Clause(np(args[0]), verb, said.format(np(args[1])), self.past)
        if name in self.signature.domains and len(args) == 1:
            return Clause(np(args[0]), "be", _article(NOUNS.get(name, name)), self.past)
        if self.signature.is_percept(name) and len(args) == len(self.signature.predicate_types[name]):
            return self.percept(term, env)
        if name in self.signature.predicate_types and len(args) == len(self.signature.predicate_types[name]):
            if args and all(isinstance(a, Const) for a in args[1:]):
                # the domain's words for the atom about its first argument ("behind the building")
                phrases = self.signature.phrases(f"{name}({', '.join(['_'] + [a.name for a in args[1:]])})")
                if phrases:
                    return Clause(np(args[0]), "be", phrases[0], self.past)
            if len(args) == 1:
                return Clause(np(args[0]), "be", name.replace("_", " "), self.past)
            if len(args) == 2 and name in PREPOSITIONS:
                return Clause(np(args[0]), "be", f"{name} {np(args[1])}", self.past)
            return f"{name} holds of {_list([np(a) for a in args], 'and')}"
        return self.epistemic(term, env)

    def percept(self, term: Call, env: dict[str, str]) -> Clause:
        """``observed(A, e)``: "Sally saw the marble being moved"; ``happened(e)``: "the marble
        was moved" (an event said as "X being done", from the domain's words), else "the move
        happened". Both are told in the past: they happened before the judgment."""
        if term.name == "observed":
            return Clause(self.np(term.args[0], env), "see", self.np(term.args[1], env), self.past, perfect=True)
        said = self.np(term.args[0], env)
        passive = re.fullmatch(r"(.+?) being (\w+(?: .+)?)", said)
        if passive:
            return Clause(passive[1], "be", passive[2], self.past, plural=_plural_np(passive[1]), perfect=True)
        return Clause(said, "happen", "", self.past, perfect=True)

    def connect(self, name: str, parts: list[Said]) -> Said:
        """``and``/``or`` of clauses, sharing what they share: "box 1 and box 2 are empty",
        "the blue key is in box 3 or in box 1"."""
        word = "and" if name == "and" else "or"
        clauses = [p for p in parts if isinstance(p, Clause)]
        if len(clauses) == len(parts) and not any(c.there for c in clauses):
            first = clauses[0]
            subjects = [c.subject for c in clauses]
            if all((c.verb, c.complement, c.negated) == (first.verb, first.complement, first.negated) for c in clauses) \
                    and len(set(subjects)) == len(clauses) and not any(HOLE in c for c in subjects):
                merged = replace(first, subject=_list(subjects, word), plural=(word == "and"), negative=None)
                denied = "neither " + " nor ".join(subjects) if word == "or" else "not both " + _list(subjects, "and")
                return replace(merged, negative=replace(merged, subject=denied, plural=(word != "or")))
            if all((c.verb, c.subject, c.negated) == (first.verb, first.subject, first.negated) for c in clauses) \
                    and first.verb == "be" and not any(c.negative for c in clauses):
                complements = [c.complement for c in clauses]
                if all(c.startswith("in ") for c in complements):
                    return replace(first, complement="in " + _list([c[3:] for c in complements], word))
                return replace(first, complement=_list(complements, word))
        texts = [_text(p) for p in parts]
        if word == "or" and len(texts) == 2:
            return f"either {texts[0]} or {texts[1]}"
        return _list(texts, word)

    def describe(self, condition: Term, new: set[str], body: Term, env: dict[str, str]) -> tuple[dict[str, _Noun], list[Term]]:
        """What a condition says about each variable it binds, and the conjuncts that
        are not said that way (they become a "such that" clause)."""
        parts = list(condition.args) if isinstance(condition, Call) and condition.name == "and" else [condition]
        nouns: dict[str, _Noun] = {}
        for var in sorted(new):
            domains = (predicate_domains(condition, var, self.signature, types=True)
                       or predicate_domains(body, var, self.signature))
            best = domains[0] if domains else "object"
            for d in domains:
                if self.signature.is_subdomain(d, best):
                    best = d
            nouns[var] = _Noun(NOUNS.get(best, best))
        if len(new) == 1 and isinstance(condition, Call) and condition.name == "or" and len(condition.args) >= 2:
            (var,) = new
            options = [self.describe(part, new, body, env) for part in condition.args]
            if all(not rest and not n[var].after and n[var].noun == options[0][0][var].noun for n, rest in options):
                words = _list([_join(*n[var].before) for n, _ in options], "or")
                if all(n[var].before for n, _ in options):
                    return {var: _Noun(options[0][0][var].noun, (words,))}, []
        rest = []
        for part in parts:
            if not self.about(part, nouns, new, env):
                rest.append(part)
        return nouns, rest

    def about(self, part: Term, nouns: dict[str, _Noun], new: set[str], env: dict[str, str]) -> bool:
        """Add what ``part`` says to the noun of the one new variable it is about;
        False if it is not said that way."""
        if not isinstance(part, Call):
            return False
        if part.name == "not" and len(part.args) == 1 and isinstance(part.args[0], Call) \
                and part.args[0].name == "==" and len(part.args[0].args) == 2:   # "box other than box 1"
            ours = [a for a in part.args[0].args if isinstance(a, Var) and a.name in new]
            others = [a for a in part.args[0].args if not (isinstance(a, Var) and a.name in new)]
            if len(ours) == 1 and len(others) == 1:
                nouns[ours[0].name].after += (f"other than {self.np(others[0], env)}",)
                return True
            return False
        if part.name == "or" and all(isinstance(a, Call) and a.name == "iscolor" and len(a.args) == 2
                                     and isinstance(a.args[0], Var) and a.args[0].name in new
                                     and a.args[0] == part.args[0].args[0] and isinstance(a.args[1], Const)
                                     for a in part.args):   # "a red or blue key"
            nouns[part.args[0].args[0].name].before += (_list([self.np(a.args[1], env) for a in part.args], "or"),)
            return True
        mine = [a.name for a in part.args if isinstance(a, Var) and a.name in new]
        if len(mine) != 1 or len([a for a in part.args if isinstance(a, Var) and a.name in new]) != 1:
            return False
        var = mine[0]
        noun = nouns[var]
        other = [a for a in part.args if not (isinstance(a, Var) and a.name == var)]
        if part.name in self.signature.domains and len(part.args) == 1:
            return True   # the noun already says it
        if part.name in ADJECTIVES and part.name != "offgrid" and len(part.args) == 1:
            noun.before += (ADJECTIVES[part.name],)
            return True
        if part.name == "offgrid" and len(part.args) == 1:
            noun.after += ("off the grid",)
            return True
        if part.name == "iscolor" and len(part.args) == 2 and part.args[0] == Var(name=var):
            if isinstance(other[0], Const):
                noun.before += (self.np(other[0], env),)       # "a red key"
            else:
                noun.after += (f"of {self.np(other[0], env)}",)  # "a key of that colour"
            return True
        if part.name == "inside" and len(part.args) == 2:
            if part.args[0] == Var(name=var):
                noun.after += (f"in {self.np(other[0], env)}",)
            else:
                noun.after += (f"holding {self.np(other[0], env)}",)
            return True
        if part.name == "has" and len(part.args) == 2 and part.args[1] == Var(name=var):
            noun.after += (f"held by {self.np(other[0], env)}",)
            return True
        return False

    def bind(self, term: Call, env: dict[str, str]) -> tuple[list[str], dict[str, _Noun], str, dict[str, str]]:
        """The new variables of a binding operator, their nouns, a "such that" clause for
        the rest of its condition ('' if none), and the environment inside (each new
        variable as "that <noun>")."""
        found = binding(term, frozenset(env))
        new = sorted(found.new) if found else []
        condition = term.args[found.condition] if found else term.args[0]
        body = term.args[-1]
        nouns, rest = self.describe(condition, set(new), body, env)
        inner = dict(env)
        for var in new:
            inner[var] = f"that {nouns[var].noun}"
        such = ""
        if rest:
            such = "such that " + _text(self.connect("and", [self.safely(p, inner, self.base) for p in rest])) \
                if len(rest) > 1 else "such that " + _text(self.safely(rest[0], inner, self.base))
        return new, nouns, such, inner

    def quantified(self, term: Call, env: dict[str, str]) -> Said:
        universal = term.name == "forall"
        found = binding(term, frozenset(env))
        if found is not None and not found.new:   # a condition on outer variables only: a test
            test, body = (self.safely(a, env, self.base) for a in term.args)
            return f"if {_text(test)}, then {_text(body)}" if universal else self.connect("and", [test, body])
        new, nouns, such, inner = self.bind(term, env)
        # The body is said once, its variables as holes: a pattern below fills them in,
        # else the text does ("that box"). Saying it twice would cost 2^depth.
        said = self.safely(term.args[1], {**env, **{v: hole(v) for v in new}}, self.base)
        if len(new) == 1 and not such and isinstance(said, Clause) and not said.there:
            var = new[0]
            noun = nouns[var]
            if said.subject == hole(var) and hole(var) not in said.complement:
                if universal:
                    positive = replace(said, subject="every " + noun.core, plural=False)
                    return replace(positive, negative=replace(positive, subject="not every " + noun.core))
                return self.existential(said, noun)
            if said.subject == hole(var) and said.complement.startswith("in ") and said.verb == "be" \
                    and hole(var) not in said.complement[3:] and universal:   # "box 1 has every key"
                return replace(said, subject=said.complement[3:], verb="have", complement="every " + noun.core,
                               plural=" and " in said.complement)
            if said.complement.split(" ")[-1:] == [hole(var)] and hole(var) not in said.subject:
                head = said.complement[:-len(hole(var))]   # "the key is in some box"
                if universal:
                    return replace(said, complement=head + "every " + noun.core, negative=None)
                some = replace(said, complement=head + "some " + noun.core, negative=None)
                return replace(some, negative=replace(some, complement=head + "any " + noun.core, negated=True))
        what = _list([nouns[v].core for v in new], "and") if new else ""
        head = _join("for every" if universal else "for some", what, such)
        return f"{head}, {_fill(_text(said), {v: inner[v] for v in new})}"

    def existential(self, said: Clause, noun: _Noun) -> Clause:
        """``exists`` over one variable that is the subject of its body: "box 2 has a blue
        key" (with its negation "there is no blue key in box 2"), "there is a key that is
        red"."""
        indefinite = _article(noun.core)
        if said.verb == "be" and said.complement.startswith("in ") and not said.negated \
                and not said.complement.startswith("in every "):   # (that one keeps its scope below)
            holder = said.complement[3:]
            there = Clause(indefinite, "be", said.complement, self.past, there=True)
            if " and " in holder:
                return there
            have = Clause(holder, "have", indefinite, self.past, plural=False)
            if holder.startswith("some "):
                there = replace(there, complement="in any " + holder[5:])
            return replace(have, negative=there.negate())
        if said.verb == "be" and said.complement in ADJECTIVES.values() and not said.negated \
                and said.complement != "off the grid":
            return Clause(_article(_join(said.complement, noun.core)), "be", "", self.past, there=True)
        relative = _join("that", said._finite(False), said.complement)
        return Clause(_join(indefinite, relative), "be", "", self.past, there=True)

    # -- epistemic formulas -----------------------------------------------------------

    def attitude(self, word: str, agent: Term, env: dict[str, str]) -> str:
        self.attitudes += 1
        present, past = ATTITUDES[word]
        if self.quoted:   # a nested attitude takes its tense from the one around it
            past = past.replace("initially ", "").replace(" initially", "")
        return f"{self.np(agent, env)} {past if self.past else present}"

    def epistemic(self, term: Term, env: dict[str, str]) -> Said:
        if not isinstance(term, Call):
            raise _Unsayable
        name, args = term.name, term.args
        n = len(args)
        if name in ("believes", "certain", "hopes") and n >= 2:
            parts = [self.content(a, env) for a in args[1:]]
            word = name
            if name == "believes" and (self.quoted or any(_nests(a) for a in args[1:])
                                       or all(isinstance(a, Call) and a.name in POSSIBILITY for a in args[1:])):
                word = "thinks"   # "Anne thinks that Sally thinks that ...": beliefs about beliefs
            return f"{self.attitude(word, args[0], env)} {_list(['that ' + p for p in parts], 'and')}"
        if name in DESIRES and n == 2:
            word, after = DESIRES[name]
            return _join(self.attitude(word, args[0], env), self.np(args[1], env), after)
        if name == "prefers" and n == 3:
            return f"{self.attitude('prefers', args[0], env)} {self.np(args[1], env)} to {self.np(args[2], env)}"
        if name in KNOWLEDGE and n == 2:   # knows_that, knows_if and their negations
            who = self.attitude("not_knows" if name.startswith("not_") else "knows", args[0], env)
            return f"{who} {'that' if name.endswith('_that') else 'whether'} {self.content(args[1], env)}"
        if name in ABOUT and n == 3:
            word = {"knows_about": "knows", "not_knows_about": "not_knows", "certain_about": "certain",
                    "uncertain_about": "unsure"}[name]
            who = self.attitude(word, args[0], env)
            return f"{who} {'about ' if word == 'certain' else ''}{self.which(term, env)}"
        if name == "uncertain_if" and n in (2, 3):
            who = self.attitude("unsure", args[0], env)
            quoted = all(isinstance(a, Call) and a.name == "formula" and len(a.args) == 1 for a in args[1:])
            if n == 3 and quoted:
                said = self.connect("or", [self.safely(a.args[0], env, self.base) for a in args[1:]])
                return f"{who} whether {_text(said).removeprefix('either ')}"
            return f"{who} whether {_list([self.content(a, env) for a in args[1:]], 'or')}"
        if name == "uncertain_if" and n == 4:
            new, nouns, such, inner = self.bind(term, env)
            for var in new:
                inner[var] = "the " + nouns[var].core
            said = self.connect("or", [self.safely(a, inner, self.base) for a in args[2:]])
            who = self.attitude("unsure", args[0], env)
            mentioned = set().union(*(variables(a) for a in args[2:]))
            head = f", for {_list(['the ' + nouns[v].core for v in new], 'and')} {such}," \
                if such or not set(new) <= mentioned else ""
            return f"{who}{head} whether {_text(said).removeprefix('either ')}"
        if name in ("exists", "forall") and n == 2:
            new, nouns, such, inner = self.bind(term, env)
            what = _list([nouns[v].core for v in new], "and")
            return f"{_join('for every' if name == 'forall' else 'for some', what, such)}, " \
                   f"{_text(self.safely(args[1], inner, self.base))}"
        if name in COMPARISONS and n == 2:
            return f"{self.np(args[0], env)} {COMPARISONS[name]} {self.np(args[1], env)}"
        if name == "formula" and n == 1:
            return f"the statement that {_text(self.safely(args[0], env, self.base))}"
        if name in MODAL_VERBS or name in ("likely", "unlikely", "more", "less", "equal", "most", "least"):
            return f"{self.attitude('thinks' if name in POSSIBILITY else 'believes', Const(name=PLAYER), env)} " \
                   f"that {self.modal(term, env)}"
        raise _Unsayable

    def content(self, term: Term, env: dict[str, str]) -> str:
        """What follows "believes that": a quoted formula or a modal."""
        if isinstance(term, Call) and term.name == "formula" and len(term.args) == 1:
            self.quoted += 1
            try:
                return _text(self.safely(term.args[0], env, self.base))
            finally:
                self.quoted -= 1
        return self.safely(term, env, self.modal)

    def which(self, term: Call, env: dict[str, str]) -> str:
        """The question of ``knows_about(A, C, φ)``: "which box has a red key", "what
        colour the key in box 3 is"."""
        new, nouns, such, inner = self.bind(term, env)
        body = term.args[2]
        said = self.safely(body, {**env, **{v: hole(v) for v in new}}, self.base)
        if len(new) == 1 and not such:
            var = new[0]
            noun = nouns[var]
            if isinstance(said, Clause) and said.subject == hole(var) and hole(var) not in said.complement:
                return _join("which", noun.core, said._finite(False), said.complement)
            if isinstance(said, Clause) and not said.there and hole(var) not in said.subject \
                    and said.complement.endswith(hole(var)) and said.complement.count(hole(var)) == 1:
                # "which container the marble is in", "which key box 1 has"
                rest = said.complement[:-len(hole(var))]
                return _join("which", noun.core, said.subject, said._finite(said.plural), rest.strip())
            # "what colour the key in box 3 is"
            if isinstance(body, Call) and body.name == "exists" and len(body.args) == 2 \
                    and isinstance(body.args[1], Call) and body.args[1].name == "iscolor" \
                    and body.args[1].args[1] == Var(name=var):
                inner_new, inner_nouns, inner_such, _ = self.bind(body, {**env, var: hole(var)})
                if len(inner_new) == 1 and not inner_such and body.args[1].args[0] == Var(name=inner_new[0]):
                    be = "was" if self.past else "is"
                    return f"what {noun.core} the {inner_nouns[inner_new[0]].core} {be}"
            if isinstance(body, Call) and body.name == "iscolor" and body.args[1] == Var(name=var):
                return f"what {noun.core} {self.np(body.args[0], env)} {'was' if self.past else 'is'}"
        what = _list([nouns[v].core for v in new], "and")
        return f"for which {_join(what, such)} {_fill(_text(said), {v: inner[v] for v in new})}"

    def modal(self, term: Term, env: dict[str, str]) -> str:
        """A modal ``E/A`` as the clause after "believes that"."""
        if not isinstance(term, Call):
            raise _Unsayable
        name, args = term.name, term.args
        if (name in MODAL_VERBS or name in ("likely", "unlikely")) and len(args) == 1:
            said = self.safely(args[0], env, self.base)
            word = {"likely": "probably", "unlikely": "unlikely"}.get(name, name)
            if isinstance(said, Clause) and not (said.negated and name in ("could", "can")):
                return said.text(word)   # ("could not" would say it is impossible)
            said = _text(said)
            if name in MODAL_VERBS:
                verb = MODAL_VERBS[name] if self.past else name
                return f"it {verb} be the case that {said}"
            return f"it {'was' if self.past else 'is'} {name} that {said}"
        adjective = args[0].name if args and isinstance(args[0], Const) else None
        if name in ("more", "less") and len(args) in (3, 4) and adjective in ("likely", "unlikely"):
            up = (name == "more") == (adjective == "likely")
            words = "more likely" if up else "less likely"
            if len(args) == 4:
                new, nouns, such, inner = self.bind(term, env)
                what = _list([nouns[v].core for v in new], "and")
                return f"for some {_join(what, such)}, {self.compare(words, args[2:], inner, 'than')}"
            return self.compare(words, args[1:], env, "than")
        if name == "equal" and len(args) in (3, 4) and adjective in ("likely", "unlikely"):
            return self.compare("equally likely", args[1:], env, "as")
        if name in ("most", "least") and len(args) == 2 and adjective in ("likely", "unlikely"):
            up = (name == "most") == (adjective == "likely")
            said = self.safely(args[1], env, self.base)
            words = "most likely" if up else "very unlikely"
            if isinstance(said, Clause):
                return said.text(words)
            return f"it {'was' if self.past else 'is'} {words} that {said}"
        if name in ("most", "least") and len(args) == 5 and adjective in ("likely", "unlikely") \
                and isinstance(args[2], Var):
            up = (name == "most") == (adjective == "likely")
            words = "most likely" if up else "least likely"
            new, nouns, such, inner = self.bind(term, env)
            x = args[2].name
            noun = nouns.get(x, _Noun("one"))
            obj = self.np(args[1], env)
            said = self.safely(args[4], {**env, **{v: hole(v) for v in new}, x: hole(x)}, self.base)
            be = "was" if self.past else "is"
            if isinstance(said, Clause) and said.subject == hole(x) and hole(x) not in said.complement and not said.there:
                return f"{obj} {be} the {words} {_join(noun.core, such)} to {_fill(said.infinitive(), inner)}"
            return f"of every {_join(noun.core, such)}, {obj} {be} the {words} one: " \
                   f"{_fill(_text(said), {**{v: inner[v] for v in new}, x: obj})}"
        raise _Unsayable

    def compare(self, words: str, formulas: tuple[Term, ...], env: dict[str, str], than: str) -> str:
        """φ more/less/equally likely than ψ: with a shared verb phrase "box 3 is more
        likely to have a red key than box 1", with a shared subject "the key is more
        likely to be in box 1 than in box 2", else "it is more likely that φ than that ψ"."""
        said = [self.safely(f, env, self.base) for f in formulas]
        be = "was" if self.past else "is"
        clauses = [s for s in said if isinstance(s, Clause) and not s.there]
        if len(clauses) == len(said):
            first = clauses[0]
            if words == "equally likely":
                than = "and"
            if all(c.infinitive() == first.infinitive() for c in clauses) and len({c.subject for c in clauses}) == len(clauses):
                if than == "and":
                    return f"{_list([c.subject for c in clauses], 'and')} {'were' if self.past else 'are'} equally likely to {first.infinitive()}"
                return f"{first.subject} {be} {words} to {first.infinitive()} {than} {clauses[1].subject}"
            if all((c.subject, c.verb, c.negated) == (first.subject, first.verb, first.negated) for c in clauses) \
                    and than != "and" and len({c.complement for c in clauses}) == len(clauses):
                second = clauses[1].complement if first.complement.startswith("in ") else "to " + clauses[1].infinitive()
                return f"{first.subject} {be} {words} to {first.infinitive()} {than} {second}"
        texts = [_text(s) for s in said]
        if words == "equally likely":
            return f"it {be} equally likely that {_list(['that ' + t for t in texts], 'and').removeprefix('that ')}"
        return f"it {be} {words} that {texts[0]} than that {texts[1]}"

    # -- numbers (the lowered language) -----------------------------------------------

    def number(self, term: Call, env: dict[str, str]) -> str:
        name, args = term.name, term.args
        if name == "prob_of" and len(args) == 2:
            return f"the probability that {_text(self.safely(args[1], env, self.base))}, for {self.np(args[0], env)},"
        if name == "utility_of" and len(args) == 2:
            return f"how much {self.np(args[0], env)} likes {self.np(args[1], env)}"
        if name == "prob_goal" and len(args) == 2:
            return f"the probability that {self.np(args[1], env)} is the goal of {self.np(args[0], env)}"
        if name == "threshold" and len(args) == 1:
            return f"the threshold for {pretty(args[0])}"
        if name == "-" and len(args) == 1:
            return f"minus {self.np(args[0], env)}"
        if name in ("maximum", "minimum") and len(args) == 2:
            new, nouns, such, inner = self.bind(term, env)
            what = _list([nouns[v].core for v in new], "and")
            word = "largest" if name == "maximum" else "smallest"
            return f"the {word} value over every {_join(what, such)} of {self.np(args[1], inner)}"
        raise _Unsayable


def _nests(term: Term) -> bool:
    """Whether ``term`` (what a belief holds) is about an agent's mind: a nested belief."""
    return isinstance(term, Call) and any(isinstance(n, Call) and n.name in MINDS
                                          for arg in term.args for n in subterms(arg))


def _finish(text: str) -> str:
    text = re.sub(f"{HOLE}([^{HOLE}]*){HOLE}", r"\1", text)   # never left over; the variable's name if it were
    text = re.sub(r"\s+", " ", text).strip()
    if not re.match(r"[a-z_]+\(|[<>=-]", text):   # formula text keeps its case
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def english(formula: str | Term, mode: str = "current", *, signature: Signature | None = None) -> str:
    """An English sentence saying what ``formula`` says (``mode="initial"``: about the
    agent's initial belief, in the past). Deterministic; a part without words shows as
    its formula text. Raises :class:`~elot.errors.ElotSyntaxError` only for text that
    does not parse."""
    term = parse(formula) if isinstance(formula, str) else formula
    guard_depth(term)
    signature = Signature.given(signature)
    verbalizer = _Verbalizer(signature, past=(mode == "initial"))
    try:
        text = _text(verbalizer.safely(term, {}, verbalizer.base))
    except RecursionError:   # not met within MAX_DEPTH; a sentence that long would say nothing anyway
        return pretty(term) + "."
    if mode == "initial" and not verbalizer.attitudes:
        text = "initially, " + text
    return _finish(text)


def shown(text: str, mode: str = "current", *, signature: Signature | None = None) -> str:
    """A statement as people and language models read it: English as written, ELoT as
    :func:`english` (a formula that does not parse, or a single word, stays as written)."""
    if not looks_like_formula(text):
        return text
    try:
        term = parse(text)
    except ElotError:
        return text
    # a single word ("Yes") is not a statement in ELoT: it stays as written
    return english(term, mode, signature=signature) if isinstance(term, Call) else text
