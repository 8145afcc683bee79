"""A PDDL domain and problem as elot holds them: frozen values, whichever reader made them.

Two readers make these values: the ``pddl`` package for standard PDDL
(:mod:`elot.domains.pddl.read_standard`) and elot's own reader of PDDL.jl's dialect
(:mod:`elot.domains.pddl.read_dialect`: function terms and arithmetic inside predicate
arguments, ``(= width 8)``), so the grounder (:mod:`elot.domains.pddl.ground`) reads one
form. Every node keeps the :class:`~elot.errors.Span` it was read from where the reader
knows it; spans take no part in equality, so a value printed
(:mod:`elot.domains.pddl.printer`) and read again is equal to the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from elot.errors import Span

# -- terms ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    """A variable ``?name`` (stored without the ``?``)."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Obj:
    """An object or constant by name."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Num:
    """An integer literal (elot grounds integer fluents only)."""

    value: int
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Fluent:
    """A numeric function applied to terms: ``(xdiff ?d)``, ``xpos``."""

    name: str
    args: tuple["Term", ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Arith:
    """``(op left right)`` with op one of ``+ - * /`` (``-`` with one argument negates)."""

    op: str
    args: tuple["Term", ...]
    span: Span | None = field(default=None, compare=False, repr=False)


Term = Union[Var, Obj, Num, Fluent, Arith]

# -- formulas ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Atom:
    """``(pred args...)``: a predicate (or a derived predicate) applied to terms."""

    pred: str
    args: tuple[Term, ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Eq:
    """``(= a b)``: objects the same, or numbers equal."""

    left: Term
    right: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Cmp:
    """``(op a b)`` with op one of ``< <= > >=``."""

    op: str
    left: Term
    right: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Not:
    body: "Formula"
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class And:
    parts: tuple["Formula", ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Or:
    parts: tuple["Formula", ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Imply:
    cond: "Formula"
    then: "Formula"
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Quant:
    """``(exists (?x - t ...) body)`` or ``(forall ...)``."""

    kind: str
    params: tuple[tuple[str, str], ...]
    body: "Formula"
    span: Span | None = field(default=None, compare=False, repr=False)


Formula = Union[Atom, Eq, Cmp, Not, And, Or, Imply, Quant]
TRUE = And(())

# -- effects -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    """An atom made true (``positive``) or false."""

    atom: Atom
    positive: bool = True
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Update:
    """``(op fluent value)`` with op ``assign``, ``increase``, ``decrease``, ``scale-up``, ``scale-down``."""

    op: str
    fluent: Fluent
    value: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class AndE:
    parts: tuple["Effect", ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ForallE:
    params: tuple[tuple[str, str], ...]
    body: "Effect"
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class When:
    cond: Formula
    body: "Effect"
    span: Span | None = field(default=None, compare=False, repr=False)


Effect = Union[Lit, Update, AndE, ForallE, When]

# -- the files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[tuple[str, str], ...]
    precondition: Formula
    effect: Effect
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Derived:
    """``(:derived (name ?x...) body)``."""

    name: str
    params: tuple[tuple[str, str], ...]
    body: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Domain:
    """A PDDL domain. ``types`` maps each declared type to its parent (``object`` at the
    top); ``predicates`` and ``functions`` give each name its argument types. ``reader``
    says which reader made it (``pddl`` or ``pddl.jl``); ``path`` and ``source`` locate errors."""

    name: str
    requirements: tuple[str, ...]
    types: tuple[tuple[str, str], ...]
    constants: tuple[tuple[str, str], ...]
    predicates: tuple[tuple[str, tuple[str, ...]], ...]
    functions: tuple[tuple[str, tuple[str, ...]], ...]
    derived: tuple[Derived, ...]
    actions: tuple[Action, ...]
    reader: str = field(default="pddl", compare=False)
    path: str | None = field(default=None, compare=False, repr=False)
    source: str | None = field(default=None, compare=False, repr=False)

    def predicate_types(self) -> dict[str, tuple[str, ...]]:
        return dict(self.predicates)

    def function_types(self) -> dict[str, tuple[str, ...]]:
        return dict(self.functions)

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)


@dataclass(frozen=True)
class Problem:
    """A PDDL problem: its objects (file order where the reader keeps it), the true ground
    atoms and fluent values of its initial state, its goal. ``ignored`` lists initial facts
    of predicates the domain does not declare (kept out of the state, said in ``notes``)."""

    name: str
    domain: str
    objects: tuple[tuple[str, str], ...]
    init: tuple[tuple[str, tuple[str, ...]], ...]
    fluents: tuple[tuple[tuple[str, tuple[str, ...]], int], ...]
    goal: Formula
    ignored: tuple[tuple[str, tuple[str, ...]], ...] = ()
    reader: str = field(default="pddl", compare=False)
    path: str | None = field(default=None, compare=False, repr=False)
    source: str | None = field(default=None, compare=False, repr=False)

    def notes(self) -> tuple[str, ...]:
        """What the reader left out, in words."""
        return tuple(f"initial fact ({' '.join((name,) + args)}) ignored: the domain declares no "
                     f"predicate {name}" for name, args in self.ignored)


def number_text(value: int) -> str:
    """An integer as it stands in a ground atom's arguments (``-1``, ``8``)."""
    return str(int(value))
