"""ELoT syntax tree → canonical text.

The canonical form is the dataset's style: ``name(a, b)`` with one space after each
comma and none elsewhere. ``parse(pretty(t)) == t`` for every tree (numbers print with
``repr``, which round-trips floats exactly).
"""

from __future__ import annotations

import math

from elot.lang.syntax import Call, Const, Num, Term, Var, guard_depth


def _number(value: float) -> str:
    if not math.isfinite(value):
        return repr(value)  # only a tree built by hand holds one: the parser rejects them
    if value == int(value) and abs(value) < 1e15:
        return str(int(value)) if value != 0 or str(value)[0] != "-" else "-0.0"
    return repr(value)


def pretty(term: Term) -> str:
    """The canonical text of ``term``."""
    guard_depth(term)
    return _pretty(term)


def _pretty(term: Term) -> str:
    if isinstance(term, (Var, Const)):
        return term.name
    if isinstance(term, Num):
        return _number(term.value)
    if isinstance(term, Call):
        return f"{term.name}({', '.join(_pretty(a) for a in term.args)})"
    raise TypeError(f"not an ELoT term: {term!r}")
