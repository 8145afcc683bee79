"""What the agent wants, as the evaluator reads it (docs/language.md): utilities on the
desire scale (:func:`desire_scale`) and one row of them for a single evaluation
(:class:`DesireRow`, from ``{object: utility}`` or the command line's ``--desires``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from elot.errors import ArgumentError, EvaluationError, expect


def desire_scale(utilities: np.ndarray) -> np.ndarray:
    """Utilities on the desire scale that ``utility_of`` reads (docs/language.md):
    ``(u − lo) / (hi − lo)`` with ``lo`` and ``hi`` the least and the greatest utility in the
    whole table (every row, every object), so 0 is the least anything is wanted and 1 the
    most, and a goal row (1 on the goal, 0 elsewhere) stays as it is. A table whose
    utilities are all equal (an indifferent agent) is 0.5 everywhere."""
    table = np.asarray(utilities, dtype=np.float64)
    if not table.size:
        return table.copy()
    if not np.all(np.isfinite(table)):
        raise EvaluationError("a utility is not a finite number", hint="give every object a finite utility")
    lo, hi = float(table.min()), float(table.max())
    if hi == lo:
        return np.full(table.shape, 0.5)
    return np.clip((table - lo) / (hi - lo), 0.0, 1.0)


@dataclass(frozen=True)
class DesireRow:
    """Desires as the evaluator reads them: ``objects`` and ``utilities (rows, K)`` on the
    desire scale; one row for :func:`evaluate`, made from ``{object: utility}`` by
    :meth:`of`, or one per belief row of a grid (:func:`elot.lang.equivalence.random_desires`)."""

    objects: tuple[str, ...]
    utilities: np.ndarray

    @staticmethod
    def of(utilities: Mapping[str, float]) -> "DesireRow":
        """``{object: utility}`` (any scale) as one row on the desire scale."""
        if not isinstance(utilities, Mapping):
            raise ArgumentError(f"desires are a mapping {{object: utility}}, not {type(utilities).__name__}",
                                hint='e.g. desires={"gem1": 1, "gem2": 0}')
        values = []
        for name, value in utilities.items():
            if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise ArgumentError(f"a desire is an object name with a number, not {name!r}: {value!r}",
                                    hint='e.g. desires={"gem1": 1, "gem2": 0}')
            values.append(float(value))
        return DesireRow(tuple(utilities), desire_scale(np.array([values], dtype=np.float64).reshape(1, -1)))

    @staticmethod
    def parse(text: str) -> "DesireRow":
        """``gem1=1, gem2=0`` (the command line's ``--desires``) as one row."""
        expect(text, str, "the desires' text", hint='e.g. "gem1=1, gem2=0"')
        table: dict[str, float] = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = item.partition("=")
            name = name.strip()
            try:
                number = float(value) if sep else math.nan
            except ValueError:
                number = math.nan
            if not sep or not name or not math.isfinite(number):
                raise EvaluationError(f"desire {item!r} is not object=utility",
                                      hint="write each object's utility, e.g. gem1=1, gem2=0")
            if name in table:
                raise EvaluationError(f"desire for {name} given twice", hint="give each object once")
            table[name] = number
        if not table:
            raise EvaluationError("no desires were given", hint="write each object's utility, e.g. gem1=1, gem2=0")
        return DesireRow.of(table)
