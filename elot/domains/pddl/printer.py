"""elot's PDDL values printed as PDDL text, which the same reader reads back to an equal value.

Standard constructs are printed as standard PDDL, so a domain read by the ``pddl`` package
prints as a file the package reads; what only PDDL.jl writes (a fluent or arithmetic as a
predicate's argument) is printed as the dialect writes it. Numeric fluents are always
printed in parentheses (``(= (width) 8)``), which both readers take.
"""

from __future__ import annotations

from elot.domains.pddl import task as t


def term(x: t.Term) -> str:
    if isinstance(x, t.Var):
        return "?" + x.name
    if isinstance(x, t.Obj):
        return x.name
    if isinstance(x, t.Num):
        return t.number_text(x.value)
    if isinstance(x, t.Fluent):
        return "(" + " ".join((x.name,) + tuple(term(a) for a in x.args)) + ")"
    return "(" + " ".join((x.op,) + tuple(term(a) for a in x.args)) + ")"


def params(ps: tuple[tuple[str, str], ...]) -> str:
    return " ".join(f"?{n} - {k}" for n, k in ps)


def formula(f: t.Formula) -> str:
    if isinstance(f, t.Atom):
        return "(" + " ".join((f.pred,) + tuple(term(a) for a in f.args)) + ")"
    if isinstance(f, t.Eq):
        return f"(= {term(f.left)} {term(f.right)})"
    if isinstance(f, t.Cmp):
        return f"({f.op} {term(f.left)} {term(f.right)})"
    if isinstance(f, t.Not):
        return f"(not {formula(f.body)})"
    if isinstance(f, (t.And, t.Or)):
        word = "and" if isinstance(f, t.And) else "or"
        return "(" + " ".join((word,) + tuple(formula(p) for p in f.parts)) + ")"
    if isinstance(f, t.Imply):
        return f"(imply {formula(f.cond)} {formula(f.then)})"
    return f"({f.kind} ({params(f.params)}) {formula(f.body)})"


def effect(e: t.Effect) -> str:
    if isinstance(e, t.Lit):
        return formula(e.atom) if e.positive else f"(not {formula(e.atom)})"
    if isinstance(e, t.Update):
        return f"({e.op} {term(e.fluent)} {term(e.value)})"
    if isinstance(e, t.AndE):
        return "(" + " ".join(("and",) + tuple(effect(p) for p in e.parts)) + ")"
    if isinstance(e, t.ForallE):
        return f"(forall ({params(e.params)}) {effect(e.body)})"
    return f"(when {formula(e.cond)} {effect(e.body)})"


def _typed(pairs) -> str:
    return " ".join(f"{n} - {k}" for n, k in pairs)


def _decl(name: str, types: tuple[str, ...]) -> str:
    return "(" + " ".join([name] + [f"?a{i} - {k}" for i, k in enumerate(types)]) + ")"


def domain(d: t.Domain) -> str:
    """``d`` as the text of a domain file."""
    out = [f"(define (domain {d.name})"]
    if d.requirements:
        out.append("  (:requirements " + " ".join(":" + r for r in d.requirements) + ")")
    if d.types:
        out.append("  (:types " + _typed(d.types) + ")")
    if d.constants:
        out.append("  (:constants " + _typed(d.constants) + ")")
    out.append("  (:predicates " + " ".join(_decl(n, k) for n, k in d.predicates) + ")")
    if d.functions:
        out.append("  (:functions " + " ".join(_decl(n, k) for n, k in d.functions) + ")")
    for x in d.derived:
        out.append(f"  (:derived ({x.name} {params(x.params)}) {formula(x.body)})")
    for a in d.actions:
        out.append(f"  (:action {a.name}\n    :parameters ({params(a.params)})\n"
                   f"    :precondition {formula(a.precondition)}\n    :effect {effect(a.effect)})")
    return "\n".join(out) + ")\n"


def problem(p: t.Problem) -> str:
    """``p`` as the text of a problem file (facts of undeclared predicates included, as read)."""
    out = [f"(define (problem {p.name})", f"  (:domain {p.domain})"]
    if p.objects:
        out.append("  (:objects " + _typed(p.objects) + ")")
    facts = ["(" + " ".join((n,) + a) + ")" for n, a in p.init + p.ignored]
    facts += [f"(= ({' '.join((n,) + a)}) {t.number_text(v)})" for (n, a), v in p.fluents]
    out.append("  (:init " + "\n         ".join(facts) + ")")
    out.append(f"  (:goal {formula(p.goal)})")
    return "\n".join(out) + ")\n"
