"""ELoT syntax trees: frozen, keyword-only dataclasses with a source span.

A term is a :class:`Call` (``name(arg, ...)``), a :class:`Const` (lowercase name), a
:class:`Var` (uppercase name) or a :class:`Num` (numeric literal). Equality and hashing
are structural and ignore spans, so a tree built by hand equals the one parsed from text.

The module also holds the few purely syntactic helpers every later stage needs (depth
guard, free variables, substitution); they are iterative or depth-guarded so that no
stage can hit Python's recursion limit on a deep tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from elot.errors import ElotSyntaxError, Span

#: The deepest nesting any stage accepts. Real formulas nest about 10 levels; the limit
#: keeps every recursive stage far below Python's recursion limit.
MAX_DEPTH = 200


@dataclass(frozen=True, kw_only=True)
class Var:
    """A variable such as ``K`` or ``B1`` (names start with an uppercase letter)."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class Const:
    """A name used as a constant: an object (``box1``), an adjective (``likely``), ..."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class Num:
    """A numeric literal such as ``0.75``."""

    value: float
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class Call:
    """An application ``name(arg, ..., arg)``; ``name`` may be an operator like ``>=``."""

    name: str
    args: tuple["Term", ...]
    span: Span | None = field(default=None, compare=False, repr=False)


Term = Union[Call, Const, Var, Num]


def call(name: str, *args: Term, span: Span | None = None) -> Call:
    """Shorthand for ``Call(name=name, args=args, span=span)``."""
    return Call(name=name, args=tuple(args), span=span)


def subterms(term: Term) -> Iterator[Term]:
    """Every node of ``term`` in pre-order (iterative: safe on any depth)."""
    stack = [term]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Call):
            stack.extend(reversed(node.args))


def depth(term: Term) -> int:
    """Nesting depth of ``term`` (a leaf has depth 1), computed iteratively."""
    best = 0
    stack = [(term, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        if isinstance(node, Call):
            stack.extend((arg, d + 1) for arg in node.args)
    return best


def guard_depth(term: Term, source: str | None = None) -> None:
    """Raise :class:`ElotSyntaxError` if ``term`` nests deeper than :data:`MAX_DEPTH`.

    Every stage calls this on trees it did not parse itself (trees built by hand), so
    that the recursive stages never overflow the Python stack.
    """
    if depth(term) > MAX_DEPTH:
        raise ElotSyntaxError(
            f"nesting too deep (more than {MAX_DEPTH} levels)",
            span=term.span,
            source=source,
            hint="split the formula into smaller parts; real formulas nest about 10 levels",
        )


#: Operators whose first argument is a condition binding the variables free in it.
QUANTIFIERS = frozenset({"exists", "forall", "maximum", "minimum"})


def free_variables(term: Term) -> set[str]:
    """Variables of ``term`` not bound by a quantifier inside it.

    Only the quantifiers of the base and lowered languages (:data:`QUANTIFIERS`) are
    considered here; the checker knows the binding structure of the epistemic operators.
    A condition binds every variable free in it (so a rebinding shadows an outer one).
    """
    if isinstance(term, Var):
        return {term.name}
    if not isinstance(term, Call):
        return set()
    if term.name in QUANTIFIERS and len(term.args) == 2:
        return free_variables(term.args[1]) - free_variables(term.args[0])
    out: set[str] = set()
    for arg in term.args:
        out |= free_variables(arg)
    return out


def substitute(term: Term, mapping: dict[str, Term]) -> Term:
    """Capture-free replacement of free variables by terms, ``φ[X:=o]``.

    A quantifier whose condition rebinds a variable shadows it: the substitution does
    not enter that quantifier for that variable.
    """
    if isinstance(term, Var):
        return mapping.get(term.name, term)
    if not isinstance(term, Call) or not mapping:
        return term
    if term.name in QUANTIFIERS and len(term.args) == 2:
        bound = free_variables(term.args[0])
        inner = {k: v for k, v in mapping.items() if k not in bound}
        return Call(
            name=term.name,
            args=(term.args[0], substitute(term.args[1], inner)),
            span=term.span,
        )
    return Call(name=term.name, args=tuple(substitute(a, mapping) for a in term.args), span=term.span)
