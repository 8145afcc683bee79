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


@dataclass(frozen=True)
class Node:
    """What every term, formula and effect carries: the span it was read from, where the
    reader knows it (keyword-only, and no part of equality or of the repr)."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


# -- terms ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var(Node):
    """A variable ``?name`` (stored without the ``?``)."""

    name: str


@dataclass(frozen=True)
class Obj(Node):
    """An object or constant by name."""

    name: str


@dataclass(frozen=True)
class Num(Node):
    """An integer literal (elot grounds integer fluents only)."""

    value: int


@dataclass(frozen=True)
class Fluent(Node):
    """A numeric function applied to terms: ``(xdiff ?d)``, ``xpos``."""

    name: str
    args: tuple["Term", ...] = ()


@dataclass(frozen=True)
class Arith(Node):
    """``(op left right)`` with op one of ``+ - * /`` (``-`` with one argument negates)."""

    op: str
    args: tuple["Term", ...]


Term = Union[Var, Obj, Num, Fluent, Arith]

# -- formulas ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Atom(Node):
    """``(pred args...)``: a predicate (or a derived predicate) applied to terms."""

    pred: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True)
class Eq(Node):
    """``(= a b)``: objects the same, or numbers equal."""

    left: Term
    right: Term


@dataclass(frozen=True)
class Cmp(Node):
    """``(op a b)`` with op one of ``< <= > >=``."""

    op: str
    left: Term
    right: Term


@dataclass(frozen=True)
class Not(Node):
    body: "Formula"


@dataclass(frozen=True)
class And(Node):
    parts: tuple["Formula", ...] = ()


@dataclass(frozen=True)
class Or(Node):
    parts: tuple["Formula", ...] = ()


@dataclass(frozen=True)
class Imply(Node):
    cond: "Formula"
    then: "Formula"


@dataclass(frozen=True)
class Quant(Node):
    """``(exists (?x - t ...) body)`` or ``(forall ...)``."""

    kind: str
    params: tuple[tuple[str, str], ...]
    body: "Formula"


Formula = Union[Atom, Eq, Cmp, Not, And, Or, Imply, Quant]
TRUE = And(())

# -- effects -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit(Node):
    """An atom made true (``positive``) or false."""

    atom: Atom
    positive: bool = True


@dataclass(frozen=True)
class Update(Node):
    """``(op fluent value)`` with op ``assign``, ``increase``, ``decrease``, ``scale-up``, ``scale-down``."""

    op: str
    fluent: Fluent
    value: Term


@dataclass(frozen=True)
class AndE(Node):
    parts: tuple["Effect", ...] = ()


@dataclass(frozen=True)
class ForallE(Node):
    params: tuple[tuple[str, str], ...]
    body: "Effect"


@dataclass(frozen=True)
class When(Node):
    cond: Formula
    body: "Effect"


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
