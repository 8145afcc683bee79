"""Standard PDDL through the ``pddl`` package (AI-Planning/pddl, MIT, a lark grammar).

The package parses the text into its immutable logic values; this module turns them into
elot's (:mod:`elot.domains.pddl.task`). What the package does not do, elot does here:

* its parsers are built once and kept while they succeed (the package builds a new Lark
  parser on every call, 0.05 s each; its transformer keeps state from a failed parse, so
  after a failure they are built anew);
* its parse errors (lark's ``UnexpectedInput``) become a :class:`PddlSyntaxError` at
  ``file:line:column`` with the source line and a caret; its other errors (a type not
  declared, a missing requirement) are :class:`PddlError` naming the file;
* the interpreter's ``sys.tracebacklimit``, which the package sets to 0 while it parses and
  leaves at 0 after a parse error, is put back as it was.

The package keeps no positions and holds actions, predicates and the initial state as
sets: elot lists them sorted by name, and locates an action by its ``(:action NAME`` in
the text.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache

from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError, PddlSyntaxError, unsupported
from elot.errors import Span

READER = "pddl"


@lru_cache(maxsize=None)
def _parsers():
    from pddl.parser.domain import DomainParser
    from pddl.parser.problem import ProblemParser

    return DomainParser(), ProblemParser()


def _call(parser, text: str):
    had = hasattr(sys, "tracebacklimit")
    old = getattr(sys, "tracebacklimit", None)
    try:
        return parser(text)
    finally:
        if had:
            sys.tracebacklimit = old
        elif hasattr(sys, "tracebacklimit"):
            del sys.tracebacklimit


def _error(error: Exception, text: str, path: str | None, kind: str) -> PddlError:
    from lark.exceptions import UnexpectedInput

    if isinstance(error, UnexpectedInput):
        start = getattr(error, "pos_in_stream", None)
        if start is None:
            start = len(text)
        token = getattr(error, "token", None)
        shown = f" {str(token)!r}" if token is not None and str(token) else " end of file"
        expected = sorted(getattr(error, "expected", None) or getattr(error, "allowed", None) or ())
        exp = f"; expected {', '.join(expected[:6])}" if expected else ""
        return PddlSyntaxError(f"this {kind} file does not parse as PDDL: unexpected{shown}{exp}",
                               span=Span.of(text, start, start + max(1, len(str(token or " ")))),
                               source=text, path=path,
                               hint="check the parentheses and the section names near here (PDDL 3.1)")
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return PddlError(f"the pddl package refuses this {kind} file: {message}", path=path,
                     hint="declare every type, predicate and requirement the file uses")


def parse_domain(text: str, path: str | None = None) -> t.Domain:
    """The domain of standard PDDL ``text`` (a :class:`PddlError` where the package refuses it)."""
    try:
        raw = _call(_parsers()[0], text)
    except Exception as error:  # the package's exceptions have no common base
        _parsers.cache_clear()   # its transformer keeps state from a failed parse: build anew
        raise _error(error, text, path, "domain") from None
    conv = _Converter(text, path, functions={f.name for f in raw.functions})
    types = tuple(sorted((str(k), str(v) if v else "object") for k, v in raw.types.items()))
    constants = tuple(sorted((c.name, _one_type(c)) for c in raw.constants))
    predicates = tuple(sorted((p.name, tuple(_one_type(v) for v in p.terms)) for p in raw.predicates))
    functions = tuple(sorted((f.name, tuple(_one_type(v) for v in f.terms)) for f in raw.functions))
    derived = tuple(sorted((t.Derived(d.predicate.name, conv.params(d.predicate.terms), conv.formula(d.condition),
                                      span=conv.locate(r"\(:derived\s+\(" + re.escape(d.predicate.name)))
                            for d in raw.derived_predicates), key=lambda d: d.name))
    actions = tuple(sorted((conv.action(a) for a in raw.actions), key=lambda a: a.name))
    return t.Domain(str(raw.name), tuple(sorted(str(r).lstrip(":") for r in raw.requirements)), types, constants,
                    predicates, functions, derived, actions, reader=READER, path=path, source=text)


def parse_problem(text: str, domain: t.Domain, path: str | None = None) -> t.Problem:
    """The problem of standard PDDL ``text`` for ``domain``."""
    try:
        raw = _call(_parsers()[1], text)
    except Exception as error:
        _parsers.cache_clear()
        raise _error(error, text, path, "problem") from None
    conv = _Converter(text, path, functions={name for name, _ in domain.functions})
    objects = tuple(sorted((o.name, _one_type(o)) for o in raw.objects))
    declared = domain.predicate_types()
    init, fluents, ignored = [], [], []
    from pddl.logic.functions import EqualTo as FEq
    from pddl.logic.functions import NumericFunction, NumericValue
    from pddl.logic.predicates import Predicate

    for fact in raw.init:
        if isinstance(fact, Predicate):
            entry = (fact.name, tuple(c.name for c in fact.terms))
            (init if fact.name in declared else ignored).append(entry)
        elif isinstance(fact, FEq) and isinstance(fact.operands[0], NumericFunction) \
                and isinstance(fact.operands[1], NumericValue):
            fn = fact.operands[0]
            fluents.append(((fn.name, tuple(c.name for c in fn.terms)), conv.integer(fact.operands[1].value)))
        else:
            raise unsupported("initial fact", f"({fact}) is neither an atom nor (= (f args) number)",
                              hint="the initial state lists ground atoms and numeric fluent values", path=path)
    return t.Problem(str(raw.name), str(raw.domain_name), objects, tuple(sorted(init)), tuple(sorted(fluents)),
                     conv.formula(raw.goal), tuple(sorted(ignored)), reader=READER, path=path, source=text)


def _one_type(term) -> str:
    tags = sorted(term.type_tags)
    if len(tags) > 1:
        raise unsupported("either types", f"{term.name} has the types {' '.join(tags)}",
                          hint="give each object, constant and parameter one type")
    return str(tags[0]) if tags else "object"


class _Converter:
    """The package's logic values as elot's."""

    def __init__(self, text: str, path: str | None, functions: set[str]) -> None:
        self.text, self.path, self.functions = text, path, functions

    def locate(self, pattern: str) -> Span | None:
        found = re.search(pattern, self.text, re.IGNORECASE)
        return Span.of(self.text, found.start(), found.end()) if found else None

    def params(self, terms) -> tuple[tuple[str, str], ...]:
        return tuple((v.name, _one_type(v)) for v in terms)

    def integer(self, value) -> int:
        if float(value) != int(value):
            raise unsupported("non-integer fluent", f"the value {value} is not a whole number",
                              hint="elot grounds integer-valued fluents only", path=self.path)
        return int(value)

    def action(self, raw) -> t.Action:
        span = self.locate(r"\(:action\s+" + re.escape(raw.name) + r"(?![\w-])")
        pre = self.formula(raw.precondition) if raw.precondition is not None else t.TRUE
        eff = self.effect(raw.effect) if raw.effect is not None else t.AndE(())
        return t.Action(raw.name, self.params(raw.parameters), pre, eff, span=span)

    def term(self, raw) -> t.Term:
        from pddl.logic import functions as fn
        from pddl.logic.terms import Constant, Variable

        if isinstance(raw, Variable):
            return t.Var(raw.name)
        if isinstance(raw, Constant):
            return t.Obj(raw.name)
        if isinstance(raw, fn.NumericValue):
            return t.Num(self.integer(raw.value))
        if isinstance(raw, fn.NumericFunction):
            return t.Fluent(raw.name, tuple(self.term(a) for a in raw.terms))
        ops = {fn.Plus: "+", fn.Minus: "-", fn.Times: "*", fn.Divide: "/"}
        for cls, op in ops.items():
            if isinstance(raw, cls):
                return t.Arith(op, tuple(self.term(a) for a in raw.operands))
        if isinstance(raw, fn.UnaryMinus):
            return t.Arith("-", (self.term(raw.operand),))
        raise unsupported("term", f"{raw} ({type(raw).__name__})", hint="elot grounds objects, variables, "
                          "integers, numeric fluents and + - * /", path=self.path)

    def formula(self, raw) -> t.Formula:
        from pddl.logic import base, functions as fn
        from pddl.logic.predicates import DerivedPredicate, EqualTo, Predicate

        if isinstance(raw, Predicate):
            return t.Atom(raw.name, tuple(self.term(a) for a in raw.terms))
        if isinstance(raw, EqualTo):
            return t.Eq(self.term(raw.left), self.term(raw.right))
        if isinstance(raw, base.Not):
            return t.Not(self.formula(raw.argument))
        if isinstance(raw, base.And):
            return t.And(tuple(self.formula(p) for p in raw.operands))
        if isinstance(raw, base.Or):
            return t.Or(tuple(self.formula(p) for p in raw.operands))
        if isinstance(raw, base.Imply):
            left, right = raw.operands
            return t.Imply(self.formula(left), self.formula(right))
        if isinstance(raw, (base.ExistsCondition, base.ForallCondition)):
            kind = "exists" if isinstance(raw, base.ExistsCondition) else "forall"
            return t.Quant(kind, self.params(sorted(raw.variables, key=lambda v: v.name)), self.formula(raw.condition))
        comparisons = {fn.LesserThan: "<", fn.LesserEqualThan: "<=", fn.GreaterThan: ">",
                       fn.GreaterEqualThan: ">="}
        for cls, op in comparisons.items():
            if isinstance(raw, cls):
                left, right = raw.operands
                return t.Cmp(op, self.term(left), self.term(right))
        if isinstance(raw, fn.EqualTo):
            left, right = raw.operands
            return t.Eq(self.term(left), self.term(right))
        if isinstance(raw, DerivedPredicate):
            return self.formula(raw.predicate)
        raise unsupported(type(raw).__name__, f"the condition {raw} is not grounded by elot",
                          hint="use and, or, not, imply, exists, forall, =, comparisons and atoms", path=self.path)

    def effect(self, raw) -> t.Effect:
        from pddl.logic import base, effects, functions as fn
        from pddl.logic.predicates import Predicate

        if isinstance(raw, Predicate):
            return t.Lit(self.formula(raw), True)
        if isinstance(raw, base.Not) and isinstance(raw.argument, Predicate):
            return t.Lit(self.formula(raw.argument), False)
        if isinstance(raw, base.And):
            return t.AndE(tuple(self.effect(p) for p in raw.operands))
        if isinstance(raw, effects.Forall):
            return t.ForallE(self.params(sorted(raw.variables, key=lambda v: v.name)), self.effect(raw.effect))
        if isinstance(raw, effects.When):
            return t.When(self.formula(raw.condition), self.effect(raw.effect))
        updates = {fn.Assign: "assign", fn.Increase: "increase", fn.Decrease: "decrease",
                   fn.ScaleUp: "scale-up", fn.ScaleDown: "scale-down"}
        for cls, op in updates.items():
            if isinstance(raw, cls):
                target, value = raw.operands
                return t.Update(op, self.term(target), self.term(value))
        raise unsupported(type(raw).__name__, f"the effect {raw} is not grounded by elot",
                          hint="use atoms, not, and, forall, when and numeric updates", path=self.path)
