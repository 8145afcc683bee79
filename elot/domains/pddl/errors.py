"""The errors of PDDL input: every one an :class:`~elot.errors.ElotError` with a place and a hint."""

from __future__ import annotations

from elot.errors import ElotSyntaxError, ScenarioError


class PddlSyntaxError(ElotSyntaxError):
    """A PDDL domain, problem or plan file does not parse (``file:line:column``)."""

    kind = "PDDL syntax error"


class PddlError(ScenarioError):
    """A PDDL file parses but does not make sense: an undeclared predicate, a wrong arity,
    a plan action that is not applicable, a problem for another domain."""

    kind = "PDDL error"


class UnsupportedPddl(PddlError):
    """The file uses a PDDL feature elot does not ground; ``feature`` names it."""

    kind = "unsupported PDDL"
    feature: str = ""


def unsupported(feature: str, message: str, *, hint: str, **where) -> UnsupportedPddl:
    """An :class:`UnsupportedPddl` naming ``feature``."""
    error = UnsupportedPddl(f"{feature}: {message}", hint=hint, **where)
    error.feature = feature
    return error
