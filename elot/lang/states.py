"""What a formula is evaluated in (SPEC §4): a world :class:`State` (the ground atoms that
hold) and the agent's :class:`Belief` (a finite distribution over states), each read from
text (``State.parse``, ``Belief.parse``) or built in Python (``State.of``, ``Belief.of``) and
typechecked against a signature on request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

import numpy as np

from elot.errors import ArgumentError, ElotError, EvaluationError, Span
from elot.lang.checker import check_atoms
from elot.lang.parser import parse_atoms
from elot.lang.signature import Signature
from elot.lang.syntax import Call, Const

Atom = tuple[str, ...]


@dataclass(frozen=True)
class State:
    """A world state: the set of ground atoms that hold, such as ``("inside", "key1",
    "box1")``. Type predicates come from the signature and ``empty`` is derived (no item
    inside), so neither needs to be listed."""

    atoms: frozenset[Atom]

    @staticmethod
    def of(atoms: Iterable[Iterable[str]] = ()) -> "State":
        """A state from atoms given as tuples (or lists) of strings."""
        hint = 'e.g. State.of([("inside", "key1", "box1")]), or State.parse("inside(key1, box1)")'
        if isinstance(atoms, (str, bytes)) or not isinstance(atoms, Iterable):
            raise ArgumentError(f"State.of needs atoms, tuples of names, not {type(atoms).__name__}", hint=hint)
        out = []
        for atom in atoms:
            if not isinstance(atom, (tuple, list)) or not atom or not all(isinstance(x, str) for x in atom):
                raise ArgumentError(f"an atom is a tuple of names such as (\"closed\", \"box1\"), not {atom!r:.60}",
                                    hint=hint)
            out.append(tuple(atom))
        return State(frozenset(out))

    @staticmethod
    def parse(text: str, *, path: str | None = None, signature: Signature | None = None) -> "State":
        """A state from text such as ``"inside(key1, box1), iscolor(key1, red)"``.

        With ``signature``, every atom is typechecked against it as formulas are (unknown
        predicate or object, arity, argument order and types): errors carry a caret and a
        hint. Without one only the syntax is checked (see :meth:`check`)."""
        atoms = []
        terms = parse_atoms(text, path=path)
        for term in terms:
            if isinstance(term, Const):
                atoms.append((term.name,))
            elif isinstance(term, Call) and all(isinstance(a, Const) for a in term.args):
                atoms.append((term.name, *(a.name for a in term.args)))
            else:
                raise EvaluationError(
                    "a state lists ground atoms: predicates applied to objects",
                    span=term.span, source=text, path=path,
                    hint="write atoms such as inside(key1, box1), without variables or operators",
                )
        if signature is not None:
            try:
                check_atoms(terms, signature, source=text)
            except ElotError as error:
                raise error.located(source=text, path=path)
        return State(frozenset(atoms))

    def check(self, signature: Signature, *, path: str | None = "<state>") -> "State":
        """This state, after typechecking its atoms against ``signature`` (for states
        built in Python): errors point into the state's text, ``str(state)``."""
        try:
            _check_state(self, signature)
        except ElotError as error:
            raise error.located(path=path)
        return self

    def __contains__(self, atom: object) -> bool:
        return atom in self.atoms

    def __str__(self) -> str:
        return ", ".join(f"{a[0]}({', '.join(a[1:])})" if len(a) > 1 else a[0] for a in sorted(self.atoms))


@dataclass(frozen=True)
class Belief:
    """A finite distribution over states: ``(state, weight)`` pairs, weights summing to 1.

    Weights are float64 and may be as small as 5e-324 (the ε of SPEC §5); they are
    compared exactly, never rounded. ``support`` holds the pairs (not "particles": in
    elot those are particle inference's).
    """

    support: tuple[tuple[State, float], ...]

    def __post_init__(self) -> None:
        if not self.support:
            raise EvaluationError("a belief needs at least one state", hint="e.g. 1: inside(key1, box1)")
        total = 0.0
        for state, weight in self.support:
            if not isinstance(state, State):
                raise EvaluationError(f"a belief holds States, not {type(state).__name__}")
            if not (isinstance(weight, (int, float)) and math.isfinite(weight) and weight >= 0):
                raise EvaluationError(f"belief weight {weight!r} is not a non-negative number")
            total += weight
        if abs(total - 1.0) > 1e-9:
            raise EvaluationError(
                f"belief weights sum to {total:g}, not 1",
                hint="give weights that sum to 1 (fractions such as 1/3 are accepted in text)",
            )

    @staticmethod
    def of(pairs: Iterable[tuple[State, float]]) -> "Belief":
        """A belief from ``(state, weight)`` pairs."""
        hint = "e.g. Belief.of([(state1, 0.25), (state2, 0.75)]), or Belief.parse(text)"
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
            raise ArgumentError(f"Belief.of needs (state, weight) pairs, not {type(pairs).__name__}", hint=hint)
        out = []
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ArgumentError(f"a belief part is a (state, weight) pair, not {pair!r:.60}", hint=hint)
            state, weight = pair
            if not isinstance(weight, (int, float, np.number)) or isinstance(weight, bool):
                raise ArgumentError(f"a belief weight is a number, not {type(weight).__name__}", hint=hint)
            out.append((state, float(weight)))
        return Belief(tuple(out))

    @staticmethod
    def point(state: State) -> "Belief":
        """Certainty in one state."""
        return Belief(((state, 1.0),))

    @staticmethod
    def parse(text: str, *, path: str | None = None, signature: Signature | None = None) -> "Belief":
        """A belief from text: ``0.5: inside(key1, box1), iscolor(key1, red) | 0.5: ...``.

        Each part is ``weight: atoms``; weights may be decimals or fractions (``1/3``);
        parts are separated by ``|`` or newlines; ``#`` starts a comment. With
        ``signature``, each state's atoms are typechecked (see :meth:`State.parse`).
        Errors point at the part, atom or weight in ``text``.
        """
        if not isinstance(text, str):
            raise EvaluationError(f"expected the text of a belief, got {type(text).__name__}", path=path,
                                  hint='write it as text: "0.5: inside(key1, box1) | 0.5: inside(key1, box2)"')
        pairs, spans = [], []
        offset = 0
        for line in text.splitlines(keepends=True):
            body = line.split("#", 1)[0].rstrip("\r\n")
            start = offset
            for part in body.split("|"):
                stripped = part.strip()
                at = start + (len(part) - len(part.lstrip()))
                start += len(part) + 1
                if not stripped:
                    continue
                weight_text, sep, atoms = stripped.partition(":")
                if not sep:
                    raise EvaluationError(
                        f"belief part {stripped!r} has no weight", path=path, source=text,
                        span=Span.of(text, at, at + len(stripped)),
                        hint="write weight: atoms, e.g. 0.5: inside(key1, box1) | 0.5: inside(key1, box2)",
                    )
                weight_span = Span.of(text, at, at + len(weight_text.rstrip()))
                atoms_at = at + len(weight_text) + 1
                try:
                    state = State.parse(atoms, signature=signature)
                    weight = _weight(weight_text.strip())
                except ElotError as error:
                    if error.span is None:  # a bad weight: point at it
                        error.span = weight_span
                        raise error.located(source=text, path=path)
                    raise error.within(text, atoms_at, len(atoms), path)
                pairs.append((state, weight))
                spans.append(weight_span)
            offset += len(line)
        if pairs:
            total = sum(w for _, w in pairs)
            if abs(total - 1.0) > 1e-9:
                raise EvaluationError(
                    f"belief weights sum to {total:g}, not 1", path=path, source=text,
                    span=Span.of(text, spans[0].start, spans[-1].end) if spans[0].line == spans[-1].line
                    else spans[-1],
                    hint="give weights that sum to 1 (fractions such as 1/3 are accepted)",
                )
        return Belief.of(pairs)

    def check(self, signature: Signature, *, path: str | None = "<belief>") -> "Belief":
        """This belief, after typechecking every state's atoms against ``signature``."""
        for state, _ in self.support:
            state.check(signature, path=path)
        return self

    def states(self) -> list[State]:
        return [s for s, _ in self.support]

    def over(self, position: Mapping[State, int]) -> np.ndarray:
        """This belief as a row of weights over the worlds ``position`` numbers (a state
        listed twice adds its weights)."""
        row = np.zeros(len(position))
        for state, weight in self.support:
            row[position[state]] += weight
        return row

    def __str__(self) -> str:
        return " | ".join(f"{w:g}: {s}" for s, w in self.support)


def situation_table(agent: str, table: Mapping[State, Belief], position: Mapping[State, int], *,
                    error: type[ElotError], hint: str) -> np.ndarray:
    """``agent``'s belief in each situation, ``{situation: Belief}``, as an (S, S) array over
    the worlds ``position`` numbers (row s its belief when the situation is world s); a
    world the table gives no belief in is an ``error`` with ``hint``."""
    array = np.zeros((len(position), len(position)))
    for situation, n in position.items():
        if situation not in table:
            raise error(f"{agent}'s belief table gives no belief in the situation {situation}", hint=hint)
        array[n] = table[situation].over(position)
    return array


def _weight(text: str) -> float:
    try:
        if "/" in text:
            num, den = text.split("/", 1)
            value = float(num) / float(den)
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError):
        raise EvaluationError(f"belief weight {text!r} is not a number",
                              hint="write a decimal (0.25) or a fraction (1/4)") from None
    if not (math.isfinite(value) and value >= 0):
        raise EvaluationError(f"belief weight {text!r} is not a finite, non-negative number",
                              hint="weights are probabilities: 0.25, 1/4, ...")
    return value


@lru_cache(maxsize=4096)
def _check_state(state: State, signature: Signature) -> None:
    """Typecheck a state's atoms (cached: hypotheses share their states)."""
    text = str(state)
    check_atoms(parse_atoms(text), signature, source=text)
