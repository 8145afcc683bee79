"""The ELoT terms the offline parser's builders make."""

from __future__ import annotations

from elot.lang.signature import PLAYER
from elot.lang.syntax import Call, Const, Term, Var, call

K, B, C = Var(name="K"), Var(name="B"), Var(name="C")
AGENT = Const(name=PLAYER)
LIKELY = Const(name="likely")


def const(name: str) -> Const:
    """The constant ``name`` (a box or a colour)."""
    return Const(name=name)


def conj(*args: Term) -> Term:
    """``and(...)``, or the one argument alone."""
    return args[0] if len(args) == 1 else call("and", *args)


def disj(*args: Term) -> Term:
    """``or(...)``, or the one argument alone."""
    return args[0] if len(args) == 1 else call("or", *args)


def neg(term: Term) -> Term:
    """``not(term)``, cancelling a double negation."""
    if isinstance(term, Call) and term.name == "not":
        return term.args[0]
    return call("not", term)


def iscolor(color: str) -> Term:
    """``iscolor(K, color)``."""
    return call("iscolor", K, const(color))



def about(term: Term, agent: str) -> Term:
    """``term`` (built about the observed agent, :data:`AGENT`) said of ``agent`` instead:
    every ``player`` in it becomes ``agent`` ("Anne thinks ..." is read as "the player
    thinks ..." first)."""
    if isinstance(term, Const) and term.name == AGENT.name:
        return Const(name=agent)
    if isinstance(term, Call):
        return Call(name=term.name, args=tuple(about(a, agent) for a in term.args))
    return term
