"""The public Python API of the ELoT language: parse, check, lower, evaluate, print.

Every function accepts formula text or a syntax tree. Errors are
:class:`~elot.errors.ElotError` subclasses carrying the source, a span and a hint.

>>> from elot import parse, check, lower, pretty
>>> pretty(lower("believes(player, might(empty(box1)))"))
'>=(prob_of(player, empty(box1)), threshold(might))'
>>> str(check("believes(player, might(empty(box1)))").type)
'E'
"""

from __future__ import annotations

from elot.lang.checker import Checked, check
from elot.errors import ElotError
from elot.lang.lowering import Step, is_lowered, rules
from elot.lang.lowering import lower as _lower
from elot.lang.parser import parse
from elot.lang.printer import pretty as _pretty
from elot.lang.signature import Signature
from elot.lang.syntax import Term


#: Names from the numeric half (semantics, equivalence: numpy), imported on first use so
#: that ``elot parse``, ``check``, ``lower`` and ``english`` start without numpy.
_LAZY = {
    **dict.fromkeys(("Belief", "CompiledFormula", "State", "Thresholds", "compile_formula", "evaluate"),
                    "elot.lang.semantics"),
    **dict.fromkeys(("equivalent", "random_beliefs", "states_for"), "elot.lang.equivalence"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'elot.api' has no attribute {name!r}")


def _tree(term: Term | str) -> tuple[Term, str | None]:
    return (parse(term), term) if isinstance(term, str) else (term, None)


def lower(term: Term | str, signature: Signature | None = None, *, explain: bool = False,
          bind_free: bool = False) -> Term | tuple[Term, list[Step]]:
    """Lower a formula to probabilities and thresholds (with ``explain``: also the rules
    that fired, as :class:`~elot.lang.lowering.Step` values)."""
    tree, source = _tree(term)
    try:
        return _lower(tree, signature, explain=explain, bind_free=bind_free)
    except ElotError as error:
        raise error.located(source=source)


def pretty(term: Term | str) -> str:
    """The canonical text of a formula: ``name(a, b)``, one space after each comma."""
    tree, _ = _tree(term)
    return _pretty(tree)


__all__ = [
    "parse", "check", "lower", "evaluate", "pretty", "compile_formula", "equivalent",
    "states_for", "random_beliefs", "rules", "is_lowered",
    "Checked", "CompiledFormula", "State", "Belief", "Thresholds", "Signature", "Step", "Term",
]
