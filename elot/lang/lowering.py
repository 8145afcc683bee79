"""Lowering: epistemic operators → comparisons of probabilities with thresholds (SPEC §3).

Each operator has one small function whose docstring's first line is its rewrite
equation (shown by ``lower(..., explain=True)``). ``Bel(A, φ)`` abbreviates
``>=(prob_of(A, φ), threshold(believes))``; ``M·A`` applies a modal ``M : E/A`` to the
agent ``A``; ``deg(likely, A, φ) = prob_of(A, φ)`` and
``deg(unlikely, A, φ) = -(prob_of(A, φ))``.

The desire operators (``wants``, ``likes``, ``dislikes``, ``prefers``, ``likes_best``,
``likes_least``; past the paper, docs/language.md) lower the same way, to comparisons of
``utility_of(A, o)`` and ``prob_goal(A, o)`` with thresholds.

A content (what a probability is taken of: the φ of ``formula(φ)``, of a modal, of
``knows_about``, ...) may itself be epistemic, a belief about a belief (SPEC §10); it is
lowered in place (:meth:`_Lowerer.inner`), so every φ on the right of a rule stands for
``lower(φ)``: ``believes(anne, formula(believes(sally, formula(ψ))))`` ⟶
``>=(prob_of(anne, >=(prob_of(sally, ψ), threshold(believes))), threshold(believes))``.

Lowering is total on well-typed formulas; its output contains no epistemic operator
and typechecks again. Every generated node carries the span of the source node it came
from, so errors and explanations about the lowered form point back into the original.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from elot.lang.bindings import infer_bindings
from elot.lang.checker import check
from elot.lang.operators import ADJECTIVES, EPISTEMIC_OPERATORS, MODALS
from elot.errors import Span
from elot.lang.signature import Signature
from elot.lang.syntax import QUANTIFIERS, Call, Const, Term, Var, binding, fresh, subterms, substitute, variables


class Step(NamedTuple):
    """One rewrite: where it happened, which operator, and the rule that fired (a tuple
    ``(span, operator, rule)``)."""

    span: Span | None
    operator: str
    rule: str


class _Lowerer:
    """One lowering run; records the rules that fire when asked to explain."""

    def __init__(self, explain: bool, signature: Signature | None = None) -> None:
        self.explain = explain
        self.signature = Signature.given(signature)
        self.steps: list[Step] = []
        # The variables bound around the node being lowered: a condition binds only the
        # variables not already bound (SPEC §2), which most/least's rewrite must respect.
        self.bound: frozenset[str] = frozenset()
        # Their domain types (likes_best ranges over the objects of its object's type).
        self.types: dict[str, str | None] = {}

    # -- helpers -------------------------------------------------------------------------

    def note(self, node: Call, rule: Callable, name: str | None = None) -> None:
        if self.explain:
            text = (rule.__doc__ or "").strip().splitlines()[0]
            if name is not None:
                text = text.replace("M(", f"{name}(").replace("threshold(M)", f"threshold({name})")
            self.steps.append(Step(node.span, node.name, text))

    @staticmethod
    def at(node: Term) -> Callable[..., Call]:
        """A node builder whose nodes carry ``node``'s span."""

        def make(name: str, *args: Term) -> Call:
            return Call(name=name, args=tuple(args), span=node.span)

        return make

    @staticmethod
    def const(name: str, node: Term) -> Const:
        return Const(name=name, span=node.span)

    def prob(self, node: Term, agent: Term, phi: Term) -> Call:
        return self.at(node)("prob_of", agent, phi)

    def threshold(self, node: Term, name: str | Term) -> Call:
        arg = self.const(name, node) if isinstance(name, str) else name
        return self.at(node)("threshold", arg)

    def bel(self, node: Term, agent: Term, phi: Term, name: str = "believes") -> Call:
        """``>=(prob_of(A, φ), threshold(name))``."""
        return self.at(node)(">=", self.prob(node, agent, phi), self.threshold(node, name))

    def deg(self, node: Term, adjective: Term, agent: Term, phi: Term) -> Term:
        """``deg(likely, A, φ) = prob_of(A, φ)``, ``deg(unlikely, A, φ) = -(prob_of(A, φ))``."""
        p = self.prob(node, agent, phi)
        return self.at(node)("-", p) if adjective.name == "unlikely" else p

    # -- traversal -----------------------------------------------------------------------

    def lower(self, node: Term) -> Term:
        """Lower every epistemic operator in ``node``; base formulas are left as they are."""
        if not isinstance(node, Call):
            return node
        rule = _RULES.get((node.name, len(node.args))) or _RULES.get((node.name, None))
        if rule is not None:
            return rule(self, node)
        if node.name in QUANTIFIERS:
            cond, body = node.args
            outer, outer_types = self.bound, self.types
            self.bound = binding(node, outer).inner
            if any(isinstance(n, Call) and n.name in ("likes_best", "likes_least") for n in subterms(body)):
                self.types = {**outer_types, **infer_bindings(cond, [body], self.signature, outer)}
            try:
                return Call(name=node.name, args=(cond, self.lower(body)), span=node.span)
            finally:
                self.bound, self.types = outer, outer_types
        if is_lowered(node):
            return node
        return Call(name=node.name, args=tuple(self.lower(a) for a in node.args), span=node.span)

    def inner(self, phi: Term, node: Call | None = None) -> Term:
        """A content ``φ`` (what a probability is taken of) lowered: a base formula stays as
        it is; a nested epistemic formula is lowered in place, in the scope of what ``node``
        (a binding operator around it, if given) binds."""
        if node is None:
            return self.lower(phi)
        outer = self.bound
        found = binding(node, outer)
        self.bound = outer if found is None else found.inner
        try:
            return self.lower(phi)
        finally:
            self.bound = outer

    def content(self, node: Call, agent: Term, x: Term, prop_rule, name: str = "believes") -> Term:
        """Lower one argument of an attitude: ``formula(φ)`` or a modal applied to ``A``."""
        if isinstance(x, Call) and x.name == "formula":
            self.note(node, prop_rule)
            return self.bel(node, agent, self.inner(x.args[0]), name)
        self.note(node, _Lowerer.attitude_modal)
        return self.apply(x, agent)

    def apply(self, modal: Call, agent: Term) -> Term:
        """``M·A``: apply a modal to an agent."""
        rule = _MODAL_RULES.get((modal.name, len(modal.args)))
        if rule is None:  # pragma: no cover - excluded by the typechecker
            raise ValueError(f"not a modal: {modal.name}")
        return rule(self, modal, agent)

    # -- belief, certainty, hope --------------------------------------------------------

    def believes(self, node: Call) -> Term:
        """believes(A, formula(φ)) ⟶ >=(prob_of(A, φ), threshold(believes))"""
        agent, *xs = node.args
        if len(xs) > 1:
            self.note(node, _Lowerer.believes_many)
            parts = [self.content(node, agent, x, _Lowerer.believes) for x in xs]
            return self.at(node)("and", *parts)
        return self.content(node, agent, xs[0], _Lowerer.believes)

    def believes_many(self, node: Call) -> Term:  # pragma: no cover - documentation only
        """believes(A, X1, ..., Xn) ⟶ and(believes(A, X1), ..., believes(A, Xn))"""
        raise NotImplementedError

    def attitude_modal(self, node: Call) -> Term:  # pragma: no cover - documentation only
        """believes(A, M) ⟶ M·A  (likewise certain(A, M), hopes(A, M))"""
        raise NotImplementedError

    def certain(self, node: Call) -> Term:
        """certain(A, formula(φ)) ⟶ >=(prob_of(A, φ), threshold(certain))"""
        agent, x = node.args
        return self.content(node, agent, x, _Lowerer.certain, "certain")

    def hopes(self, node: Call) -> Term:
        """hopes(A, formula(φ)) ⟶ >=(prob_of(A, φ), threshold(hopes))"""
        agent, x = node.args
        return self.content(node, agent, x, _Lowerer.hopes, "hopes")

    # -- knowledge ----------------------------------------------------------------------

    def knows_that(self, node: Call) -> Term:
        """knows_that(A, formula(φ)) ⟶ and(Bel(A, φ), φ)"""
        self.note(node, _Lowerer.knows_that)
        agent, phi = node.args[0], self.inner(node.args[1].args[0])
        return self.at(node)("and", self.bel(node, agent, phi), phi)

    def knows_if(self, node: Call) -> Term:
        """knows_if(A, formula(φ)) ⟶ or(and(Bel(A, φ), φ), and(Bel(A, not(φ)), not(φ)))"""
        self.note(node, _Lowerer.knows_if)
        make = self.at(node)
        agent, phi = node.args[0], self.inner(node.args[1].args[0])
        neg = make("not", phi)
        return make("or", make("and", self.bel(node, agent, phi), phi), make("and", self.bel(node, agent, neg), neg))

    def not_knows_that(self, node: Call) -> Term:
        """not_knows_that(A, formula(φ)) ⟶ and(not(Bel(A, φ)), φ)"""
        self.note(node, _Lowerer.not_knows_that)
        make = self.at(node)
        agent, phi = node.args[0], self.inner(node.args[1].args[0])
        return make("and", make("not", self.bel(node, agent, phi)), phi)

    def not_knows_if(self, node: Call) -> Term:
        """not_knows_if(A, formula(φ)) ⟶ not(knows_if(A, formula(φ)))  (deviation: the reference's rule is malformed)"""
        self.note(node, _Lowerer.not_knows_if)
        quoted = Call(name="knows_if", args=node.args, span=node.span)
        return self.at(node)("not", self.knows_if(quoted))

    def knows_about(self, node: Call) -> Term:
        """knows_about(A, C, φ) ⟶ exists(C, and(Bel(A, φ), φ))"""
        self.note(node, _Lowerer.knows_about)
        make = self.at(node)
        agent, cond, phi = node.args[0], node.args[1], self.inner(node.args[2], node)
        return make("exists", cond, make("and", self.bel(node, agent, phi), phi))

    def not_knows_about(self, node: Call) -> Term:
        """not_knows_about(A, C, φ) ⟶ forall(C, or(not(Bel(A, φ)), not(φ)))"""
        self.note(node, _Lowerer.not_knows_about)
        make = self.at(node)
        agent, cond, phi = node.args[0], node.args[1], self.inner(node.args[2], node)
        return make("forall", cond, make("or", make("not", self.bel(node, agent, phi)), make("not", phi)))

    # -- certainty about, uncertainty ----------------------------------------------------

    def certain_about(self, node: Call) -> Term:
        """certain_about(A, C, φ) ⟶ exists(C, >=(prob_of(A, φ), threshold(certain)))"""
        self.note(node, _Lowerer.certain_about)
        agent, cond, phi = node.args[0], node.args[1], self.inner(node.args[2], node)
        return self.at(node)("exists", cond, self.bel(node, agent, phi, "certain"))

    def uncertain(self, node: Term, agent: Term, phi: Term) -> Call:
        return self.at(node)("<", self.prob(node, agent, phi), self.threshold(node, "uncertain"))

    def uncertain_about(self, node: Call) -> Term:
        """uncertain_about(A, C, φ) ⟶ forall(C, <(prob_of(A, φ), threshold(uncertain)))"""
        self.note(node, _Lowerer.uncertain_about)
        agent, cond, phi = node.args[0], node.args[1], self.inner(node.args[2], node)
        return self.at(node)("forall", cond, self.uncertain(node, agent, phi))

    def uncertain_if_both(self, node: Call) -> Term:
        """uncertain_if(A, formula(φ), formula(ψ)) ⟶ and(<(prob_of(A, φ), threshold(uncertain)), <(prob_of(A, ψ), threshold(uncertain)))"""
        self.note(node, _Lowerer.uncertain_if_both)
        agent, phi, psi = node.args[0], self.inner(node.args[1].args[0]), self.inner(node.args[2].args[0])
        return self.at(node)("and", self.uncertain(node, agent, phi), self.uncertain(node, agent, psi))

    def uncertain_if_one(self, node: Call) -> Term:
        """uncertain_if(A, formula(φ)) ⟶ uncertain_if(A, formula(φ), formula(not(φ)))  (deviation: the reference compares φ twice)"""
        self.note(node, _Lowerer.uncertain_if_one)
        make = self.at(node)
        agent, quoted = node.args
        negated = make("formula", make("not", quoted.args[0]))
        return self.uncertain_if_both(make("uncertain_if", agent, quoted, negated))

    def uncertain_if_about(self, node: Call) -> Term:
        """uncertain_if(A, C, φ, ψ) ⟶ exists(C, and(<(prob_of(A, φ), threshold(uncertain)), <(prob_of(A, ψ), threshold(uncertain))))"""
        self.note(node, _Lowerer.uncertain_if_about)
        make = self.at(node)
        agent, cond = node.args[0], node.args[1]
        phi, psi = self.inner(node.args[2], node), self.inner(node.args[3], node)
        return make("exists", cond, make("and", self.uncertain(node, agent, phi), self.uncertain(node, agent, psi)))

    # -- modals (applied to an agent) ---------------------------------------------------

    def threshold_modal(self, modal: Call, agent: Term) -> Term:
        """M(φ)·A ⟶ >=(prob_of(A, φ), threshold(M))"""
        self.note(modal, _Lowerer.threshold_modal, modal.name)
        return self.bel(modal, agent, self.inner(modal.args[0]), modal.name)

    def unlikely(self, modal: Call, agent: Term) -> Term:
        """unlikely(φ)·A ⟶ <=(prob_of(A, φ), threshold(unlikely))  (deviation: the reference's rule is always true)"""
        self.note(modal, _Lowerer.unlikely)
        return self.at(modal)("<=", self.prob(modal, agent, self.inner(modal.args[0])), self.threshold(modal, "unlikely"))

    def comparative(self, modal: Call, agent: Term, op: str, cond: Term | None) -> Term:
        adjective = modal.args[0]
        scope = modal if cond is not None else None
        phi, psi = self.inner(modal.args[-2], scope), self.inner(modal.args[-1], scope)
        make = self.at(modal)
        body = make(op, self.deg(modal, adjective, agent, phi), self.deg(modal, adjective, agent, psi))
        return body if cond is None else make("exists", cond, body)

    def more(self, modal: Call, agent: Term) -> Term:
        """more(P, φ, ψ)·A ⟶ >(deg(P, A, φ), deg(P, A, ψ))"""
        self.note(modal, _Lowerer.more)
        return self.comparative(modal, agent, ">", None)

    def less(self, modal: Call, agent: Term) -> Term:
        """less(P, φ, ψ)·A ⟶ <(deg(P, A, φ), deg(P, A, ψ))"""
        self.note(modal, _Lowerer.less)
        return self.comparative(modal, agent, "<", None)

    def more_about(self, modal: Call, agent: Term) -> Term:
        """more(P, C, φ, ψ)·A ⟶ exists(C, >(deg(P, A, φ), deg(P, A, ψ)))"""
        self.note(modal, _Lowerer.more_about)
        return self.comparative(modal, agent, ">", modal.args[1])

    def less_about(self, modal: Call, agent: Term) -> Term:
        """less(P, C, φ, ψ)·A ⟶ exists(C, <(deg(P, A, φ), deg(P, A, ψ)))"""
        self.note(modal, _Lowerer.less_about)
        return self.comparative(modal, agent, "<", modal.args[1])

    def equal(self, modal: Call, agent: Term) -> Term:
        """equal(P, φ, ψ)·A ⟶ ==(deg(P, A, φ), deg(P, A, ψ)); equal(P, φ, ψ, χ)·A ⟶ and(==(deg φ, deg ψ), ==(deg ψ, deg χ))"""
        self.note(modal, _Lowerer.equal)
        make = self.at(modal)
        adjective, *phis = modal.args
        degs = [self.deg(modal, adjective, agent, self.inner(phi)) for phi in phis]
        pairs = [make("==", a, b) for a, b in zip(degs, degs[1:])]
        return pairs[0] if len(pairs) == 1 else make("and", *pairs)

    def superlative(self, modal: Call, agent: Term, op: str, extremum: str) -> Term:
        make = self.at(modal)
        adjective, obj, var, cond, phi = modal.args
        assert isinstance(var, Var)
        inner = binding(modal, self.bound).inner
        chosen = substitute(phi, {var.name: obj}, inner)
        if var.name in self.bound:
            # most's X shadows an outer X, but maximum(C, ...) binds only what is not bound
            # outside (SPEC §2): rename X so that the extremum still ranges over it.
            renamed = Var(name=fresh(var.name, self.bound | variables(modal)), span=var.span)
            cond = substitute(cond, {var.name: renamed}, inner)
            phi = substitute(phi, {var.name: renamed}, inner)
        outer = self.bound
        try:
            self.bound = inner
            chosen = self.lower(chosen)
            self.bound = binding(make(extremum, cond, phi), outer).inner
            phi = self.lower(phi)
        finally:
            self.bound = outer
        return make(op, self.deg(modal, adjective, agent, chosen),
                    make(extremum, cond, self.deg(modal, adjective, agent, phi)))

    def most(self, modal: Call, agent: Term) -> Term:
        """most(P, o, X, C, φ)·A ⟶ >=(deg(P, A, φ[X:=o]), maximum(C, deg(P, A, φ)))"""
        self.note(modal, _Lowerer.most)
        return self.superlative(modal, agent, ">=", "maximum")

    def least(self, modal: Call, agent: Term) -> Term:
        """least(P, o, X, C, φ)·A ⟶ <=(deg(P, A, φ[X:=o]), minimum(C, deg(P, A, φ)))"""
        self.note(modal, _Lowerer.least)
        return self.superlative(modal, agent, "<=", "minimum")

    def most_strong(self, modal: Call, agent: Term) -> Term:
        """most(P, φ)·A ⟶ >=(deg(P, A, φ), threshold(most(P))); for the downward unlikely: <=(prob_of(A, φ), threshold(most(unlikely)))"""
        self.note(modal, _Lowerer.most_strong)
        make = self.at(modal)
        adjective, phi = modal.args[0], self.inner(modal.args[1])
        strong = self.threshold(modal, make("most", self.const(adjective.name, adjective)))
        if adjective.name == "unlikely":
            # threshold(most(unlikely)) = θ_unlikely/α is an upper bound on the probability
            # (SPEC §3); comparing -(prob) with -(θ) would say the same less readably.
            return make("<=", self.prob(modal, agent, phi), strong)
        return make(">=", self.deg(modal, adjective, agent, phi), strong)

    def least_strong(self, modal: Call, agent: Term) -> Term:
        """least(P, φ)·A ⟶ most(antonym(P), φ)·A  (deviation: undefined in the reference)"""
        self.note(modal, _Lowerer.least_strong)
        adjective, phi = modal.args
        antonym = self.const(ADJECTIVES[adjective.name], adjective)
        return self.most_strong(self.at(modal)("most", antonym, phi), agent)


    # -- desires (past the paper) ------------------------------------------------------

    def desire_value(self, node: Call, name: str, obj: Term) -> Call:
        """``utility_of(A, o)`` or ``prob_goal(A, o)`` with ``node``'s span."""
        return self.at(node)(name, node.args[0], obj)

    def wants(self, node: Call) -> Term:
        """wants(A, o) ⟶ >=(prob_goal(A, o), threshold(wants))"""
        self.note(node, _Lowerer.wants)
        return self.at(node)(">=", self.desire_value(node, "prob_goal", node.args[1]), self.threshold(node, "wants"))

    def likes(self, node: Call) -> Term:
        """likes(A, o) ⟶ >=(utility_of(A, o), threshold(likes))"""
        self.note(node, _Lowerer.likes)
        return self.at(node)(">=", self.desire_value(node, "utility_of", node.args[1]), self.threshold(node, "likes"))

    def dislikes(self, node: Call) -> Term:
        """dislikes(A, o) ⟶ <=(utility_of(A, o), threshold(dislikes))"""
        self.note(node, _Lowerer.dislikes)
        return self.at(node)("<=", self.desire_value(node, "utility_of", node.args[1]),
                             self.threshold(node, "dislikes"))

    def prefers(self, node: Call) -> Term:
        """prefers(A, o1, o2) ⟶ >(utility_of(A, o1), utility_of(A, o2))"""
        self.note(node, _Lowerer.prefers)
        _, first, second = node.args
        return self.at(node)(">", self.desire_value(node, "utility_of", first),
                             self.desire_value(node, "utility_of", second))

    def extreme_desire(self, node: Call, op: str, extremum: str) -> Term:
        make = self.at(node)
        obj = node.args[1]
        if isinstance(obj, Var):
            domain = self.types.get(obj.name) or "object"
        else:
            domain = self.signature.object_types.get(obj.name, "object")
        x = Var(name=fresh("X", self.bound | variables(node)), span=node.span)
        return make(op, self.desire_value(node, "utility_of", obj),
                    make(extremum, make(domain, x), self.desire_value(node, "utility_of", x)))

    def likes_best(self, node: Call) -> Term:
        """likes_best(A, o) ⟶ >=(utility_of(A, o), maximum(d(X), utility_of(A, X)))  (d: the type of o)"""
        self.note(node, _Lowerer.likes_best)
        return self.extreme_desire(node, ">=", "maximum")

    def likes_least(self, node: Call) -> Term:
        """likes_least(A, o) ⟶ <=(utility_of(A, o), minimum(d(X), utility_of(A, X)))  (d: the type of o)"""
        self.note(node, _Lowerer.likes_least)
        return self.extreme_desire(node, "<=", "minimum")


_RULES: dict[tuple[str, int | None], Callable[[_Lowerer, Call], Term]] = {
    ("wants", 2): _Lowerer.wants,
    ("likes", 2): _Lowerer.likes,
    ("dislikes", 2): _Lowerer.dislikes,
    ("prefers", 3): _Lowerer.prefers,
    ("likes_best", 2): _Lowerer.likes_best,
    ("likes_least", 2): _Lowerer.likes_least,
    ("believes", None): _Lowerer.believes,
    ("certain", 2): _Lowerer.certain,
    ("hopes", 2): _Lowerer.hopes,
    ("knows_that", 2): _Lowerer.knows_that,
    ("knows_if", 2): _Lowerer.knows_if,
    ("not_knows_that", 2): _Lowerer.not_knows_that,
    ("not_knows_if", 2): _Lowerer.not_knows_if,
    ("knows_about", 3): _Lowerer.knows_about,
    ("not_knows_about", 3): _Lowerer.not_knows_about,
    ("certain_about", 3): _Lowerer.certain_about,
    ("uncertain_about", 3): _Lowerer.uncertain_about,
    ("uncertain_if", 2): _Lowerer.uncertain_if_one,
    ("uncertain_if", 3): _Lowerer.uncertain_if_both,
    ("uncertain_if", 4): _Lowerer.uncertain_if_about,
}

_MODAL_RULES: dict[tuple[str, int], Callable[[_Lowerer, Call, Term], Term]] = {
    **{(m, 1): _Lowerer.threshold_modal for m in MODALS if m != "unlikely"},
    ("unlikely", 1): _Lowerer.unlikely,
    ("more", 3): _Lowerer.more,
    ("less", 3): _Lowerer.less,
    ("more", 4): _Lowerer.more_about,
    ("less", 4): _Lowerer.less_about,
    ("equal", 3): _Lowerer.equal,
    ("equal", 4): _Lowerer.equal,
    ("most", 5): _Lowerer.most,
    ("least", 5): _Lowerer.least,
    ("most", 2): _Lowerer.most_strong,
    ("least", 2): _Lowerer.least_strong,
}


def rules() -> list[tuple[str, str]]:
    """Every lowering rule as (operator, rewrite equation), in table order."""
    seen: list[tuple[str, str]] = []
    for (name, _), fn in list(_RULES.items()) + list(_MODAL_RULES.items()):
        text = (fn.__doc__ or "").strip().splitlines()[0]
        if (name, text) not in seen:
            seen.append((name, text))
    seen.insert(1, ("believes", (_Lowerer.believes_many.__doc__ or "").strip()))
    seen.insert(2, ("believes", (_Lowerer.attitude_modal.__doc__ or "").strip()))
    return seen


def is_lowered(term: Term) -> bool:
    """Whether ``term`` has no epistemic operator left (``threshold(most(P))`` names a
    threshold, not an operator)."""
    stack = [term]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.name != "threshold":
            if node.name in EPISTEMIC_OPERATORS:
                return False
            stack.extend(node.args)
    return True


def lower(
    term: Term | str,
    signature: Signature | None = None,
    *,
    explain: bool = False,
    bind_free: bool = False,
) -> Term | tuple[Term, list[Step]]:
    """Lower a formula (text or tree) to the lowered fragment (SPEC §3).

    The formula is typechecked first (ill-typed input raises
    :class:`~elot.errors.ElotTypeError`). With ``explain``, returns ``(lowered, steps)``
    where ``steps`` lists each rule that fired: its source span, operator and equation.
    """
    checked = check(term, signature, bind_free=bind_free)
    lowerer = _Lowerer(explain, checked.signature)
    out = lowerer.lower(checked.term)
    return (out, lowerer.steps) if explain else out
