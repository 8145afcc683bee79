"""The ELoT typechecker (SPEC §2–3, and the desire operators past the paper:
``wants(A, o)``, ``prefers(A, o1, o2)``, ... take an agent and objects, docs/language.md).

``check(term, signature)`` infers the type of a term and collects *every* type error,
one per offending node, each with its span, a message in ELoT's terms and a hint. An
ill-typed term raises :class:`~elot.errors.ElotTypeError` whose ``errors`` lists them
all. Each rule's judgment is stated in the docstring of the method implementing it;
``Γ`` is the environment mapping bound variables to their domain types.

``Φ|E`` in a rule is what a probability is taken of (a *content*): a base formula, or an
epistemic formula that mentions no desire. An epistemic content is a *nested* formula, judged
in each situation the agent deems possible, with the other agents' beliefs there (SPEC §10):
``believes(anne, formula(believes(sally, formula(inside(marble, basket)))))`` is Anne's belief
about Sally's belief (:meth:`_Checker.content`). Conditions stay base formulas.

Variables are bound by *conditions*: the first argument of ``exists``/``forall`` (and
``maximum``/``minimum``), the condition ``C`` of ``knows_about``-style operators and of
``more``/``less``/``uncertain_if``/``most``/``least``. A condition binds every variable
free in it *that is not already bound outside* (SPEC §2): in
``forall(box(B), exists(and(key(K), inside(K, B)), φ))`` the inner condition binds only
``K``, and its ``inside(K, B)`` tests the outer ``B``, typed by its outer binding. The one
exception is the explicit ``X`` of ``most/least(P, o, X, C, φ)``, which is bound even if an
outer ``X`` is (it shadows it). The rule is :func:`elot.lang.syntax.binding`; every stage uses
it. Each newly bound variable's domain type is inferred from a type predicate
constraining it in the condition (``box(B)``), else from the argument types of the
predicates it appears in (``inside(K, B)``: ``K`` is an item, ``B`` a box), first in the
condition, then in the body (:mod:`elot.lang.bindings`).

The operator vocabulary the rules dispatch on is :mod:`elot.lang.operators`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable, Mapping

from elot.errors import ElotTypeError, Span, expect
from elot.lang.parser import parse
from elot.lang.signature import PLAYER, Signature
from elot.lang.syntax import (
    Call,
    Const,
    Num,
    Term,
    Var,
    call,
    free_variables,
    guard_depth,
    subterms,
)
from elot.lang.typesystem import (
    ADJECTIVE,
    BASE,
    EPISTEMIC,
    MODAL,
    NUMERIC,
    PROP,
    Obj,
    Type,
    describe,
)
from elot.lang.bindings import infer_bindings, meet_all, predicate_domains, scoped
from elot.lang.operators import (
    ABOUT,
    ADJECTIVES,
    ATTITUDES,
    CONNECTIVES,
    DESIRE_PRIMITIVES,
    DESIRES,
    KNOWLEDGE,
    MODALS,
    OPERATORS,
    THRESHOLD_NAMES,
    USAGE,
)


@dataclass(frozen=True)
class Checked:
    """A well-typed term with its type. With ``bind_free``, ``term`` has its free
    variables bound existentially at the top."""

    term: Term
    type: Type
    signature: Signature


Env = Mapping[str, str]  # variable name -> domain type


# -- the checker ------------------------------------------------------------------------


class _Checker:
    """One checking run: the signature, and the errors found so far."""

    def __init__(self, signature: Signature, source: str | None, free_ok: bool) -> None:
        self.sig = signature
        self.source = source
        self.errors: list[ElotTypeError] = []
        self.free_ok = free_ok
        self.free: dict[str, Span | None] = {}

    # -- reporting ---------------------------------------------------------------------

    def error(self, node: Term, message: str, hint: str | None = None) -> None:
        self.errors.append(ElotTypeError(message, span=node.span, hint=hint, source=self.source))

    def show(self, node: Term, limit: int = 60) -> str:
        from elot.lang.printer import pretty

        text = pretty(node)
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- dispatch ----------------------------------------------------------------------

    def infer(self, node: Term, env: Env) -> Type | None:
        """``Γ ⊢ t : τ``; returns None after reporting an error in ``t``."""
        if isinstance(node, Num):
            return NUMERIC
        if isinstance(node, Var):
            return self.var(node, env)
        if isinstance(node, Const):
            return self.const(node)
        name = node.name
        if name in self.sig.predicate_types:
            return self.predicate(node, env)
        if name in self.sig.domains and name not in OPERATORS:
            return self.type_predicate(node, env)
        method = _RULES.get(name)
        if method is None:
            return self.unknown_call(node)
        return method(self, node, env)

    def var(self, node: Var, env: Env) -> Type | None:
        """``X : d ∈ Γ ⟹ Γ ⊢ X : O[d]``."""
        if node.name in env:
            return Obj(env[node.name])
        if self.free_ok:
            self.free.setdefault(node.name, node.span)
            return Obj("object")
        self.error(
            node,
            f"variable {node.name} is not bound",
            f"bind it with a condition, e.g. exists(key({node.name}), ...), "
            "or bind free variables existentially with bind_free=True (--bind-free)",
        )
        return None

    def const(self, node: Const, expect: str | None = None) -> Type | None:
        """``o ∈ objects, type(o) = d ⟹ Γ ⊢ o : O[d]``; ``likely, unlikely : P``.

        ``expect`` is the domain type the context wants, to list the candidates."""
        if node.name in self.sig.object_types:
            return Obj(self.sig.object_types[node.name])
        if node.name in ADJECTIVES:
            return ADJECTIVE
        if node.name in MODALS or node.name in OPERATORS:
            self.error(node, f"{node.name} is an operator and needs arguments", f"write {USAGE.get(node.name, node.name + '(...)')}")
            return None
        candidates = self.sig.objects_of(expect) if expect else self.sig.object_types
        guess = self.sig.suggest(node.name, candidates) or self.sig.suggest(node.name, self.sig.object_types)
        if guess:
            hint = f"did you mean {guess!r}?"
        elif expect:
            hint = f"known objects of type {expect}: {', '.join(candidates)}"
        else:
            hint = f"known objects: {', '.join(sorted(candidates))}"
        self.error(node, f"unknown object {node.name!r}", hint)
        return None

    def unknown_call(self, node: Call) -> None:
        if node.name in self.sig.object_types:
            self.error(node, f"{node.name} is an object, not a predicate or operator", "objects take no arguments")
            return None
        names = set(self.sig.predicate_types) | set(self.sig.domains) | OPERATORS
        guess = self.sig.suggest(node.name, names)
        hint = f"did you mean {guess!r}?" if guess else (
            "known predicates: " + ", ".join(sorted(self.sig.predicate_types))
        )
        self.error(node, f"unknown predicate or operator {node.name!r}", hint)
        return None

    def arity(self, node: Call, allowed: Iterable[int] | None = None, at_least: int | None = None) -> bool:
        n = len(node.args)
        if (allowed is not None and n in allowed) or (at_least is not None and n >= at_least):
            return True
        usage = USAGE.get(node.name, node.name)
        self.error(node, f"{node.name} cannot take {n} argument{'s' if n != 1 else ''}", f"write {usage}")
        return False

    # -- expectations ------------------------------------------------------------------

    def formula(self, node: Term, env: Env, base: bool, where: str) -> Type | None:
        """Check that ``node`` is a formula: ``Φ`` if ``base``, else ``Φ`` or ``E``."""
        t = self.infer(node, env)
        if t is None:
            return None
        if t == BASE or (t == EPISTEMIC and not base):
            return t
        wanted = "a base formula (Φ)" if base else "a formula (Φ or E)"
        if t == EPISTEMIC:
            self.error(
                node,
                f"{where} must be {wanted}, but {self.show(node)} is an epistemic formula (E)",
                "belief operators cannot be nested inside a base formula; move it outside, "
                "e.g. and(believes(player, ...), φ)",
            )
        elif t == MODAL:
            self.error(
                node,
                f"{where} must be {wanted}, but {self.show(node)} is a modal (E/A) that needs an agent",
                f"apply it to the agent: believes(player, {self.show(node, 40)})",
            )
        elif t == PROP:
            self.error(
                node,
                f"{where} must be {wanted}, but {self.show(node)} is a quoted formula (Prop)",
                "formula(...) only appears as an argument of a belief operator; remove it here",
            )
        elif isinstance(t, Obj) or t == ADJECTIVE:
            self.error(node, f"{where} must be {wanted}, but {self.show(node)} is {describe(t)}",
                       "write a predicate such as empty(box1) or inside(K, box1)")
        else:
            self.error(node, f"{where} must be {wanted}, but {self.show(node)} is {describe(t)}",
                       "compare numbers with >=(x, y), <(x, y), ...")
        return None

    def content(self, node: Term, env: Env, where: str) -> Type | None:
        """What a probability is taken of (the argument of ``formula``, of a modal, of
        ``prob_of``, the formula of ``knows_about``, ...): ``Γ ⊢ φ : Φ``, or ``Γ ⊢ φ : E``
        mentioning no desire, a *nested* formula judged in each situation the agent deems
        possible (SPEC §10): ``believes(anne, formula(believes(sally, formula(φ))))``."""
        t = self.formula(node, env, base=False, where=where)
        if t == EPISTEMIC:
            wanting = next((n for n in subterms(node) if isinstance(n, Call)
                            and (n.name in DESIRES or n.name in DESIRE_PRIMITIVES or n.name == "prefers")), None)
            if wanting is not None:
                self.error(wanting, f"{where} is judged in each situation the agent deems possible, but "
                           f"{self.show(wanting)} is about what an agent wants, which is known only for the "
                           "observed agent in each hypothesis",
                           "state the desire outside the belief, e.g. and(wants(player, o), believes(player, ...))")
                return None
        return t

    def numeric(self, node: Term, env: Env, where: str) -> bool:
        t = self.infer(node, env)
        if t is None:
            return False
        if t == NUMERIC:
            return True
        self.error(node, f"{where} must be a number (Φ_F), but {self.show(node)} is {describe(t)}",
                   "numbers are prob_of(A, φ), threshold(name), maximum/minimum(C, x), -(x) or literals")
        return False

    def agent(self, node: Term, env: Env, where: str) -> bool:
        t = self.infer(node, env)
        if t is None:
            return False
        if isinstance(t, Obj) and self.sig.is_subdomain(t.domain, "agent"):
            return True
        self.error(node, f"{where} must be an agent (A), but {self.show(node)} is {describe(t)}",
                   f"the observed agent is called {PLAYER}")
        return False

    def desired(self, node: Term, env: Env, op: str, where: str) -> Obj | None:
        """Check that ``node`` is an object (``O[d]``), the thing a desire is about."""
        t = self.const(node) if isinstance(node, Const) else self.infer(node, env)
        if t is None:
            return None
        if isinstance(t, Obj):
            return t
        example = next(iter(self.sig.objects_of("gem") or self.sig.objects_of("object")), "o")
        if t in (BASE, EPISTEMIC, PROP):
            hint = f"a desire is about an object, not a state of affairs: write {op}(player, {example})"
        elif t == MODAL:
            hint = "modals are believed, not wanted: write believes(player, ...) for beliefs"
        else:
            hint = f"write {USAGE[op]}"
        self.error(node, f"{where} must be an object (O), but {self.show(node)} is {describe(t)}", hint)
        return None

    def adjective(self, node: Term, where: str) -> bool:
        if isinstance(node, Const) and node.name in ADJECTIVES:
            return True
        guess = self.sig.suggest(node.name, ADJECTIVES) if isinstance(node, (Const, Var)) else None
        self.error(node, f"{where} must be an adjective (P): likely or unlikely, not {self.show(node)}",
                   f"did you mean {guess!r}?" if guess else "write likely or unlikely")
        return False

    def attitude_content(self, node: Term, env: Env, op: str, modal_ok: bool) -> bool:
        """``formula(φ) : Prop`` or (if ``modal_ok``) a modal ``M : E/A``."""
        t = self.infer(node, env)
        if t is None:
            return False
        if t == PROP or (t == MODAL and modal_ok):
            return True
        wanted = "formula(...) or a modal such as might(...)" if modal_ok else "formula(...)"
        if t == BASE:
            self.error(
                node,
                f"{op} needs {wanted}, but {self.show(node)} is a base formula (Φ)",
                f"wrap it in formula(...): formula({self.show(node, 50)})",
            )
        elif t == MODAL:
            self.error(
                node,
                f"{op} needs formula(...), not a modal ({self.show(node)})",
                "use believes(A, M) for modals, or give the formula: formula(φ)",
            )
        elif t == EPISTEMIC:
            self.error(node, f"{op} needs {wanted}, but {self.show(node)} is an epistemic formula (E)",
                       f"to nest a belief, quote it: formula({self.show(node, 50)})")
        else:
            self.error(node, f"{op} needs {wanted}, but {self.show(node)} is {describe(t)}",
                       "write formula(φ) with a base formula φ")
        return False

    def bind(self, cond: Term, body: Iterable[Term], env: Env, where: str) -> Env | None:
        """``Γ ⊢ C : Φ`` binding ``Δ = vars(C) − dom(Γ)``: returns ``Γ, X1 : d1, ...``.

        Variables of C already in Γ are not rebound (SPEC §2): C tests them, and they keep
        their outer types. The condition is checked with its own variables bound (to their
        inferred types); a variable whose type cannot be inferred is an error.
        """
        body = list(body)
        if not isinstance(cond, Call):
            self.error(cond, f"the condition of {where} must be a base formula that binds its variables, "
                       f"not {self.show(cond)}", "write a condition such as key(K) or and(key(K), iscolor(K, red))")
            return None
        bindings = infer_bindings(cond, body, self.sig, frozenset(env))
        ok = True
        for var, domain in bindings.items():
            if domain is None:
                uses = {d for b in [cond, *body] for d in predicate_domains(b, var, self.sig, types=True)}
                span_node = next((n for n in scoped(cond, var) if isinstance(n, Var) and n.name == var), cond)
                if len(uses) > 1:
                    self.error(span_node, f"variable {var} is used with incompatible types ({', '.join(sorted(set(uses)))})",
                               "use a different variable for each kind of object")
                else:
                    self.error(span_node, f"cannot infer the type of variable {var} in {where}",
                               f"constrain it with a type predicate, e.g. and(key({var}), ...)")
                ok = False
        inner = {**env, **{v: d for v, d in bindings.items() if d is not None}}
        if not ok:
            inner = {**inner, **{v: "object" for v, d in bindings.items() if d is None}}
        t = self.formula(cond, inner, base=True, where=f"the condition of {where}")
        return inner if ok and t is not None else None

    # -- base language -----------------------------------------------------------------

    def predicate(self, node: Call, env: Env) -> Type | None:
        """``p(d1, ..., dn) ∈ Σ, Γ ⊢ xi : O[ei], ei ∩ di ≠ ∅ ⟹ Γ ⊢ p(x1, ..., xn) : Φ``."""
        types = self.sig.predicate_types[node.name]
        usage = f"{node.name}({', '.join(types)})"
        if len(node.args) != len(types):
            n = len(node.args)
            self.error(node, f"{node.name} takes {len(types)} argument{'s' if len(types) != 1 else ''}, got {n}",
                       f"write {usage}")
            return None
        actual = [self.const(a, d) if isinstance(a, Const) else self.infer(a, env) for a, d in zip(node.args, types)]
        if any(t is None for t in actual):
            return None
        fits = [self._fits(t, d) for t, d in zip(actual, types)]
        if all(fits):
            return BASE
        if len(types) == 2 and self._fits(actual[0], types[1]) and self._fits(actual[1], types[0]):
            self.error(node, f"the arguments of {node.name} are in the wrong order", f"write {usage}: "
                       f"{node.name}({self.show(node.args[1])}, {self.show(node.args[0])})")
            return None
        for arg, t, d, ok in zip(node.args, actual, types, fits):
            if not ok:
                self.error(arg, f"{node.name} expects {d} here, but {self.show(arg)} is {describe(t)}", f"write {usage}")
        return None

    def _fits(self, t: Type, domain: str) -> bool:
        # A variable of a wider type may denote an object of the narrower one (an item
        # may be a key), so overlapping domain types are accepted; disjoint ones are not.
        return isinstance(t, Obj) and self.sig.meet(t.domain, domain) is not None

    def type_predicate(self, node: Call, env: Env) -> Type | None:
        """``d a domain type, Γ ⊢ x : O[e] ⟹ Γ ⊢ d(x) : Φ``."""
        if len(node.args) != 1:
            self.error(node, f"the type predicate {node.name} takes 1 argument, got {len(node.args)}",
                       f"write {node.name}(X)")
            return None
        t = self.infer(node.args[0], env)
        if t is None:
            return None
        if not isinstance(t, Obj):
            self.error(node.args[0], f"{node.name}(...) applies to an object, but {self.show(node.args[0])} is {describe(t)}",
                       f"write {node.name}(X) with a variable or an object")
            return None
        return BASE

    def connective(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ φi : Φ ⟹ Γ ⊢ and(φ1, ..., φn) : Φ`` (n ≥ 2), likewise ``or``, ``not``,
        ``imply``; if some ``φi : E``, the result is ``E`` (``Φ <: E``)."""
        name = node.name
        if name in ("and", "or"):
            if not self.arity(node, at_least=2):
                return None
        elif not self.arity(node, [1] if name == "not" else [2]):
            return None
        types = [self.formula(a, env, base=False, where=f"an argument of {name}") for a in node.args]
        if any(t is None for t in types):
            return None
        return EPISTEMIC if EPISTEMIC in types else BASE

    def quantifier(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ C : Φ/O binding Δ, Γ,Δ ⊢ φ : Φ ⟹ Γ ⊢ exists(C, φ) : Φ`` (and ``forall``;
        with ``φ : E`` the result is ``E``)."""
        if len(node.args) != 2:
            hint = (f"write {node.name}(C, φ); to restrict the condition further, combine the parts: "
                    f"{node.name}(and(C1, C2), φ)") if len(node.args) > 2 else f"write {node.name}(C, φ)"
            self.error(node, f"{node.name} takes a condition and a formula, got {len(node.args)} arguments", hint)
            return None
        cond, body = node.args
        inner = self.bind(cond, [body], env, node.name)
        if inner is None:
            return None
        return self.formula(body, inner, base=False, where=f"the body of {node.name}")

    def equality(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ x, y : O ⟹ Γ ⊢ ==(x, y) : Φ``; ``Γ ⊢ x, y : Φ_F ⟹ Γ ⊢ ==(x, y) : E``."""
        if not self.arity(node, [2]):
            return None
        types = [self.infer(a, env) for a in node.args]
        if any(t is None for t in types):
            return None
        if all(isinstance(t, Obj) for t in types):
            return BASE
        if all(t == NUMERIC for t in types):
            return EPISTEMIC
        self.error(node, "== compares two objects or two numbers, "
                   f"not {describe(types[0])} and {describe(types[1])}", "write ==(x, y) with x and y of the same kind")
        return None

    def comparison(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ x, y : Φ_F ⟹ Γ ⊢ >=(x, y) : E`` (and ``>``, ``<``, ``<=``)."""
        if not self.arity(node, [2]):
            return None
        ok = [self.numeric(a, env, f"an argument of {node.name}") for a in node.args]
        return EPISTEMIC if all(ok) else None

    def negation(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ x : Φ_F ⟹ Γ ⊢ -(x) : Φ_F``."""
        if not self.arity(node, [1]):
            return None
        return NUMERIC if self.numeric(node.args[0], env, "the argument of -") else None

    def prob_of(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ φ : Φ|E ⟹ Γ ⊢ prob_of(A, φ) : Φ_F`` (with ``φ : E``, A's probability
        that φ holds in the situations it deems possible: a nested belief, SPEC §10)."""
        if not self.arity(node, [2]):
            return None
        a = self.agent(node.args[0], env, "the first argument of prob_of")
        f = self.content(node.args[1], env, "the formula of prob_of")
        return NUMERIC if a and f else None

    def threshold(self, node: Call, env: Env) -> Type | None:
        """``θ ∈ Θ ⟹ Γ ⊢ threshold(θ) : Φ_F``; ``P : P ⟹ Γ ⊢ threshold(most(P)) : Φ_F``."""
        if not self.arity(node, [1]):
            return None
        (arg,) = node.args
        if isinstance(arg, Const) and arg.name in THRESHOLD_NAMES:
            return NUMERIC
        if isinstance(arg, Call) and arg.name in ("most", "least") and len(arg.args) == 1:
            return NUMERIC if self.adjective(arg.args[0], f"the argument of {arg.name}") else None
        name = arg.name if isinstance(arg, (Const, Var, Call)) else ""
        guess = self.sig.suggest(name, THRESHOLD_NAMES)
        self.error(arg, f"unknown threshold {self.show(arg)}",
                   f"did you mean {guess!r}?" if guess else "known thresholds: " + ", ".join(THRESHOLD_NAMES)
                   + ", most(likely), most(unlikely)")
        return None

    def extremum(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ C binding Δ, Γ,Δ ⊢ x : Φ_F ⟹ Γ ⊢ maximum(C, x) : Φ_F`` (and ``minimum``)."""
        if not self.arity(node, [2]):
            return None
        inner = self.bind(node.args[0], [node.args[1]], env, node.name)
        if inner is None:
            return None
        return NUMERIC if self.numeric(node.args[1], inner, f"the value of {node.name}") else None

    # -- epistemic operators -----------------------------------------------------------

    def quote(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ φ : Φ|E ⟹ Γ ⊢ formula(φ) : Prop``: a quoted base formula, or a quoted epistemic
        formula (``formula(believes(sally, formula(φ)))``: a belief about a belief)."""
        if len(node.args) != 1:
            self.error(node, f"formula(...) quotes one base formula, got {len(node.args)}",
                       "combine them with and(...) inside formula(...), or give the belief operator "
                       "several arguments: believes(player, formula(φ), formula(ψ))")
            return None
        return PROP if self.content(node.args[0], env, "the argument of formula") else None

    def attitude(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ X : Prop ⟹ Γ ⊢ believes(A, X) : E``; likewise with ``X : E/A``;
        ``believes`` also takes ``n ≥ 1`` such arguments. Same for ``certain``, ``hopes``
        (exactly one)."""
        ok = self.arity(node, at_least=2) if node.name == "believes" else self.arity(node, [2])
        if not ok:
            return None
        results = [self.agent(node.args[0], env, f"the first argument of {node.name}")]
        results += [self.attitude_content(x, env, node.name, modal_ok=True) for x in node.args[1:]]
        return EPISTEMIC if all(results) else None

    def knowledge(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ X : Prop ⟹ Γ ⊢ knows_that(A, X) : E`` (and ``knows_if``,
        ``not_knows_that``, ``not_knows_if``)."""
        if not self.arity(node, [2]):
            return None
        a = self.agent(node.args[0], env, f"the first argument of {node.name}")
        x = self.attitude_content(node.args[1], env, node.name, modal_ok=False)
        return EPISTEMIC if a and x else None

    def about(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ C : Φ/O binding Δ, Γ,Δ ⊢ φ : Φ|E ⟹ Γ ⊢ knows_about(A, C, φ) : E``
        (and ``not_knows_about``, ``certain_about``, ``uncertain_about``)."""
        if not self.arity(node, [3]):
            return None
        a = self.agent(node.args[0], env, f"the first argument of {node.name}")
        inner = self.bind(node.args[1], node.args[2:], env, node.name)
        f = inner is not None and self.content(node.args[2], inner, f"the formula of {node.name}")
        return EPISTEMIC if a and f else None

    def uncertain_if(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ X : Prop ⟹ Γ ⊢ uncertain_if(A, X) : E``;
        ``Γ ⊢ X, Y : Prop ⟹ Γ ⊢ uncertain_if(A, X, Y) : E``;
        ``Γ ⊢ C binding Δ, Γ,Δ ⊢ φ, ψ : Φ|E ⟹ Γ ⊢ uncertain_if(A, C, φ, ψ) : E``."""
        if not self.arity(node, [2, 3, 4]):
            return None
        a = self.agent(node.args[0], env, "the first argument of uncertain_if")
        if len(node.args) < 4:
            xs = [self.attitude_content(x, env, "uncertain_if", modal_ok=False) for x in node.args[1:]]
            return EPISTEMIC if a and all(xs) else None
        inner = self.bind(node.args[1], node.args[2:], env, "uncertain_if")
        fs = inner is not None and all(
            [self.content(f, inner, "a formula of uncertain_if") for f in node.args[2:]]
        )
        return EPISTEMIC if a and fs else None

    def modal(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ φ : Φ|E ⟹ Γ ⊢ might(φ) : E/A`` (and every modal verb and adjective)."""
        if not self.arity(node, [1]):
            return None
        return MODAL if self.content(node.args[0], env, f"the argument of {node.name}") else None

    def comparative(self, node: Call, env: Env) -> Type | None:
        """``P : P, Γ ⊢ φ, ψ : Φ|E ⟹ Γ ⊢ more(P, φ, ψ) : E/A``;
        ``Γ ⊢ C binding Δ, Γ,Δ ⊢ φ, ψ : Φ|E ⟹ Γ ⊢ more(P, C, φ, ψ) : E/A`` (and ``less``)."""
        if not self.arity(node, [3, 4]):
            return None
        p = self.adjective(node.args[0], f"the first argument of {node.name}")
        scope = env
        if len(node.args) == 4:
            scope = self.bind(node.args[1], node.args[2:], env, node.name)
            if scope is None:
                return None
        fs = [self.content(f, scope, f"a formula of {node.name}") for f in node.args[-2:]]
        return MODAL if p and all(fs) else None

    def equal(self, node: Call, env: Env) -> Type | None:
        """``P : P, Γ ⊢ φ, ψ (, χ) : Φ|E ⟹ Γ ⊢ equal(P, φ, ψ (, χ)) : E/A``."""
        if not self.arity(node, [3, 4]):
            return None
        p = self.adjective(node.args[0], "the first argument of equal")
        fs = [self.content(f, env, "a formula of equal") for f in node.args[1:]]
        return MODAL if p and all(fs) else None

    def superlative(self, node: Call, env: Env) -> Type | None:
        """``P : P, Γ ⊢ φ : Φ|E ⟹ Γ ⊢ most(P, φ) : E/A``;
        ``P : P, Γ ⊢ o : O[d], C binds X : d' (d ∩ d' ≠ ∅), Γ,X ⊢ φ : Φ|E
        ⟹ Γ ⊢ most(P, o, X, C, φ) : E/A`` (and ``least``)."""
        if not self.arity(node, [2, 5]):
            return None
        p = self.adjective(node.args[0], f"the first argument of {node.name}")
        if len(node.args) == 2:
            f = self.content(node.args[1], env, f"the formula of {node.name}")
            return MODAL if p and f else None
        _, obj, var, cond, body = node.args
        usage = f"write {node.name}(P, o, X, C, φ), e.g. {node.name}(likely, box2, B, box(B), φ)"
        if not isinstance(var, Var):
            self.error(var, f"the third argument of {node.name} must be a variable (the X in φ), not {self.show(var)}", usage)
            return None
        t = self.infer(obj, env)
        if t is None:
            return None
        if not isinstance(t, Obj):
            self.error(obj, f"the second argument of {node.name} must be an object, but {self.show(obj)} is {describe(t)}", usage)
            return None
        # X is named explicitly: it is bound here even if an outer X is (it shadows it).
        outer = {k: d for k, d in env.items() if k != var.name}
        if var.name not in free_variables(cond, frozenset(outer)):
            self.error(cond, f"the condition of {node.name} must bind its variable {var.name}",
                       f"mention {var.name} in the condition, e.g. box({var.name})")
            return None
        inner = self.bind(cond, [body], outer, node.name)
        if inner is None:
            return None
        if self.sig.meet(t.domain, inner[var.name]) is None:
            self.error(obj, f"{self.show(obj)} is {describe(t)}, but {var.name} ranges over {inner[var.name]}", usage)
            return None
        f = self.content(body, inner, f"the formula of {node.name}")
        return MODAL if p and f else None


    # -- desires (past the paper) -------------------------------------------------------

    def desire(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ o : O[d] ⟹ Γ ⊢ wants(A, o) : E`` (and ``likes``, ``dislikes``,
        ``likes_best``, ``likes_least``)."""
        if not self.arity(node, [2]):
            return None
        a = self.agent(node.args[0], env, f"the first argument of {node.name}")
        o = self.desired(node.args[1], env, node.name, f"the second argument of {node.name}")
        return EPISTEMIC if a and o else None

    def prefers(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ o1 : O[d], Γ ⊢ o2 : O[e], d ∩ e ≠ ∅ ⟹ Γ ⊢ prefers(A, o1, o2) : E``."""
        if not self.arity(node, [3]):
            return None
        a = self.agent(node.args[0], env, "the first argument of prefers")
        o1 = self.desired(node.args[1], env, "prefers", "the second argument of prefers")
        o2 = self.desired(node.args[2], env, "prefers", "the third argument of prefers")
        if not (a and o1 and o2):
            return None
        if self.sig.meet(o1.domain, o2.domain) is None:
            self.error(node, f"prefers compares two things of one kind, but {self.show(node.args[1])} is "
                       f"{describe(o1)} and {self.show(node.args[2])} is {describe(o2)}",
                       f"compare two objects of the same type, e.g. prefers(player, {self.show(node.args[1])}, "
                       f"{next((x for x in self.sig.objects_of(o1.domain) if x != self.show(node.args[1])), 'o2')})")
            return None
        return EPISTEMIC

    def desire_value(self, node: Call, env: Env) -> Type | None:
        """``Γ ⊢ A : A, Γ ⊢ o : O[d] ⟹ Γ ⊢ utility_of(A, o) : Φ_F`` (and ``prob_goal``)."""
        if not self.arity(node, [2]):
            return None
        a = self.agent(node.args[0], env, f"the first argument of {node.name}")
        o = self.desired(node.args[1], env, node.name, f"the second argument of {node.name}")
        return NUMERIC if a and o else None


_RULES = {
    **{op: _Checker.desire for op in DESIRES},
    "prefers": _Checker.prefers,
    **{op: _Checker.desire_value for op in DESIRE_PRIMITIVES},
    **{op: _Checker.attitude for op in ATTITUDES},
    **{op: _Checker.knowledge for op in KNOWLEDGE},
    **{op: _Checker.about for op in ABOUT},
    **{m: _Checker.modal for m in MODALS},
    "uncertain_if": _Checker.uncertain_if,
    "more": _Checker.comparative,
    "less": _Checker.comparative,
    "equal": _Checker.equal,
    "most": _Checker.superlative,
    "least": _Checker.superlative,
    "formula": _Checker.quote,
    **{c: _Checker.connective for c in CONNECTIVES},
    "exists": _Checker.quantifier,
    "forall": _Checker.quantifier,
    "==": _Checker.equality,
    ">=": _Checker.comparison,
    ">": _Checker.comparison,
    "<": _Checker.comparison,
    "<=": _Checker.comparison,
    "-": _Checker.negation,
    "prob_of": _Checker.prob_of,
    "threshold": _Checker.threshold,
    "maximum": _Checker.extremum,
    "minimum": _Checker.extremum,
}


def _raise(errors: list[ElotTypeError], source: str | None) -> None:
    errors = sorted(errors, key=lambda e: (e.span.start if e.span else 0))
    first = errors[0]
    raise ElotTypeError(first.message, errors=errors, span=first.span, hint=first.hint, source=source)


def bind_free_variables(term: Term, signature: Signature, source: str | None = None) -> Term:
    """``exists(d1(X1), ... exists(dn(Xn), φ))``: bind the free variables of ``term``
    existentially at the top, each ranging over its type inferred from its uses (as the
    reference implementation does). A free variable of unknown type is an error."""
    scan = _Checker(signature, source, free_ok=True)
    scan.infer(term, {})
    if not scan.free:
        return term
    conditions = []
    errors = []
    for var, span in scan.free.items():
        domain = meet_all(predicate_domains(term, var, signature, types=True), signature)
        if domain is None:
            errors.append(ElotTypeError(
                f"cannot infer the type of the free variable {var}", span=span, source=source,
                hint=f"bind it with a condition, e.g. exists(key({var}), ...)",
            ))
            continue
        conditions.append(call(domain, Var(name=var, span=span), span=term.span))
    if errors:
        _raise(errors, source)
    cond = conditions[0] if len(conditions) == 1 else call("and", *conditions, span=term.span)
    return call("exists", cond, term, span=term.span)


def check_atoms(atoms: Iterable[Term], signature: Signature, *, source: str | None = None) -> None:
    """Typecheck the ground atoms of a state (SPEC §4) as formulas are checked.

    ``p(o1, ..., on)`` must name a stored predicate of ``signature`` applied to known
    objects of its argument types (``⊢ p(o1, ..., on) : Φ`` with every ``oi`` a
    constant). Derived predicates (``empty``) are computed, so listing one is an error; a
    type atom such as ``box(box1)`` is accepted when the signature agrees. Raises
    :class:`ElotTypeError` listing every bad atom (unknown predicate or object, wrong
    arity, argument order or types), each with its span and a hint.
    """
    checker = _Checker(signature, source, free_ok=False)
    predicates = sorted(signature.predicate_types)

    @functools.cache  # once, and only when some atom is not an atom
    def not_an_atom() -> str:
        return f"a state lists predicates applied to objects, e.g. {_example_atom(signature)}"

    for node in atoms:
        if isinstance(node, Const) and node.name in signature.object_types:
            checker.error(node, f"{node.name} is an object, not an atom", not_an_atom())
        elif not isinstance(node, Call) or any(not isinstance(a, Const) for a in node.args):
            checker.error(node, f"{checker.show(node)} is not a ground atom", not_an_atom())
        elif node.name in signature.derived:
            checker.error(node, f"{node.name} is derived from the other atoms, so a state does not list it",
                          f"leave {node.name}(...) out; it is computed when a formula asks")
        elif node.name in signature.predicate_types:
            checker.predicate(node, {})
        elif node.name in signature.domains and len(node.args) == 1:
            t = checker.type_predicate(node, {})
            if t is not None and not signature.is_subdomain(
                    signature.object_types[node.args[0].name], node.name):
                checker.error(node, f"{node.args[0].name} is a {signature.object_types[node.args[0].name]}, "
                              f"not a {node.name}", "types come from the signature; leave type atoms out")
        else:
            guess = signature.suggest(node.name, predicates)
            checker.error(node, f"unknown predicate {node.name!r}",
                          f"did you mean {guess!r}?" if guess else
                          "known predicates: " + (", ".join(
                              f"{p}({', '.join(signature.predicate_types[p])})" for p in predicates) or "none"))
    if checker.errors:
        _raise(checker.errors, source)


def _example_atom(signature: Signature) -> str:
    for name, types in signature.predicates:
        if name not in signature.derived and types and all(signature.objects_of(t) for t in types):
            return f"{name}({', '.join(signature.objects_of(t)[0] for t in types)})"
    return "inside(key1, box1)"


def check(term: Term | str, signature: Signature | None = None, *, bind_free: bool = False,
          source: str | None = None) -> Checked:
    """Typecheck ``term`` (text or tree) against ``signature`` (default Doors, Keys & Gems).

    Returns :class:`Checked` (the term and its type); raises :class:`ElotTypeError`
    listing every error. With ``bind_free``, free variables are bound existentially at
    the top first (SPEC §4) instead of being errors.
    """
    expect(bind_free, bool, "bind_free",
           hint="True binds free variables existentially (--bind-free); False, the default, makes them errors")
    if isinstance(term, str):
        source = term
        term = parse(term)
    guard_depth(term, source)
    signature = Signature.given(signature)
    if bind_free:
        term = bind_free_variables(term, signature, source)
    checker = _Checker(signature, source, free_ok=False)
    t = checker.infer(term, {})
    if checker.errors:
        _raise(checker.errors, source)
    assert t is not None
    return Checked(term=term, type=t, signature=signature)


__all__ = ["Checked", "check", "check_atoms", "bind_free_variables"]
