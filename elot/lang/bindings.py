"""Which variables a condition binds, and their domain types (SPEC §2).

A condition binds the variables free in it that are not already bound around it
(:func:`elot.lang.syntax.binding`). Each one's domain type is inferred from a type
predicate constraining it in the condition (``box(B)``: :func:`type_constraints`), else
from the argument types of the predicates it appears in (``inside(K, B)``:
:func:`predicate_domains`), first in the condition, then in the body
(:func:`infer_bindings`). The typechecker, the lowering, the evaluator and the English
renderer share these rules.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from elot.lang.signature import Signature
from elot.lang.syntax import CONDITION_POSITION, EXPLICIT_VARIABLE, Call, Const, Term, Var, free_variables

def scoped(term: Term, var: str) -> Iterator[Term]:
    """Subterms of ``term`` where the bound variable ``var`` still refers to the same
    binding (pre-order).

    A bound variable is rebound only by the explicit ``X`` of ``most/least(P, o, X, C, φ)``:
    a condition that merely mentions it tests it (SPEC §2). The rebinding operator's scope
    is skipped (its uses there are another variable).
    """
    stack: list[Term] = [term]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, Call):
            continue
        key = (node.name, len(node.args))
        explicit = EXPLICIT_VARIABLE.get(key)
        if explicit is not None and isinstance(node.args[explicit], Var) and node.args[explicit].name == var:
            pos = CONDITION_POSITION[key]
            stack.extend(reversed([a for i, a in enumerate(node.args[:pos]) if i != explicit]))
            continue
        stack.extend(reversed(node.args))


def predicate_domains(term: Term, var: str, signature: Signature, types: bool = False) -> list[str]:
    """Domain types of the predicate argument positions where ``var`` occurs (and, with
    ``types``, of the type predicates applied to it)."""
    out = []
    for node in scoped(term, var):
        if types and isinstance(node, Call) and node.name in signature.domains and len(node.args) == 1:
            if isinstance(node.args[0], Var) and node.args[0].name == var:
                out.append(node.name)
        elif isinstance(node, Call) and node.name in signature.predicate_types:
            arg_types = signature.predicate_types[node.name]
            if len(arg_types) == len(node.args):
                out += [t for a, t in zip(node.args, arg_types) if isinstance(a, Var) and a.name == var]
        elif isinstance(node, Call) and node.name == "==" and any(
            isinstance(a, Var) and a.name == var for a in node.args
        ):
            other = [a for a in node.args if not (isinstance(a, Var) and a.name == var)]
            if other and isinstance(other[0], Const) and other[0].name in signature.object_types:
                out.append(signature.object_types[other[0].name])
    return out


#: Marks a variable constrained to disjoint types (``and(key(K), box(K))``).
CONFLICT = "<conflict>"


def type_constraints(cond: Term, signature: Signature) -> dict[str, str]:
    """The domain a condition restricts each variable to through type predicates:
    ``d(X)`` gives ``d``; ``and`` the meet, ``or`` the join of its parts (a variable
    every part restricts); :data:`CONFLICT` where the types are disjoint. One pass over
    the condition for all its variables (a condition may bind thousands)."""
    if not isinstance(cond, Call):
        return {}
    if cond.name in signature.domains and len(cond.args) == 1:
        arg = cond.args[0]
        return {arg.name: cond.name} if isinstance(arg, Var) else {}
    if cond.name == "and":
        found: dict[str, list[str]] = {}
        for part in cond.args:
            for var, domain in type_constraints(part, signature).items():
                found.setdefault(var, []).append(domain)
        out = {}
        for var, domains in found.items():
            result: str | None = domains[0]
            for d in domains[1:]:
                result = signature.meet(result, d) if result and result != CONFLICT else CONFLICT
            out[var] = result or CONFLICT
        return out
    if cond.name == "or" and cond.args:
        parts = [type_constraints(part, signature) for part in cond.args]
        out = {}
        for var in set(parts[0]).intersection(*parts[1:]):
            domains = [part[var] for part in parts]
            if CONFLICT not in domains:
                result = domains[0]
                for d in domains[1:]:
                    result = signature.join(result, d)
                out[var] = result
        return out
    return {}


def infer_bindings(cond: Term, body: Iterable[Term], signature: Signature,
                   bound: Iterable[str] = frozenset()) -> dict[str, str | None]:
    """Variables that condition ``cond`` binds when the variables ``bound`` are bound
    around it, with their inferred domain types (None if the type cannot be inferred or
    is contradictory). By SPEC §2 these are ``vars(cond) − bound``: an outer-bound
    variable that ``cond`` mentions is not rebound (pass ``bound`` without an explicit
    ``X`` to have it rebound, as ``most/least(P, o, X, C, φ)`` does). Pure: the evaluator
    uses this too."""
    bound = frozenset(bound)
    out: dict[str, str | None] = {}
    constraints = type_constraints(cond, signature)
    for var in sorted(free_variables(cond, bound) - bound):
        domain = constraints.get(var)
        if domain == CONFLICT:
            out[var] = None
            continue
        if domain is None:
            domain = meet_all(predicate_domains(cond, var, signature), signature)
        if domain is None:
            uses = [d for b in body for d in predicate_domains(b, var, signature)]
            domain = meet_all(uses, signature)
        out[var] = domain
    return out


def meet_all(domains: list[str], signature: Signature) -> str | None:
    if not domains:
        return None
    result: str | None = domains[0]
    for d in domains[1:]:
        result = signature.meet(result, d) if result else None
    return result
