"""What a user tells ``elot plan`` about a domain's simulated agent, read from the command
line's text: its utility for each object (``--utilities name=U,...``) and its initial
belief over the worlds (``--belief uniform``, ``true`` or ``name=P,...``), by the names in
the domain's tables; and where every domain's ``elot plan`` suggests judgment points
(:func:`choose_points`)."""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np

from elot.engine.tables.protocol import MAX_UTILITY
from elot.errors import ArgumentError


def named_numbers(text: str, option: str, names: Sequence[str], hint: str) -> dict[str, float]:
    """``a=1,b=-2.5`` as ``{name: value}`` for names among ``names`` (matched without
    regard to case, returned as ``names`` spells them); each at most once, each finite."""
    spelled = {str(n).lower(): str(n) for n in names}
    out: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        found = re.fullmatch(r"([A-Za-z_][\w.-]*)\s*[=:]\s*(\S+)", part)
        if not found:
            raise ArgumentError(f"{option}: {part!r} is not NAME=NUMBER", hint=hint)
        name = spelled.get(found.group(1).lower())
        if name is None:
            raise ArgumentError(f"{option}: unknown name {found.group(1)!r}",
                                hint=f"the names are {', '.join(map(str, names))}; {hint}")
        if name in out:
            raise ArgumentError(f"{option} gives {name} twice", hint=hint)
        try:
            value = float(found.group(2))
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ArgumentError(f"{option}: {name}={found.group(2)} is not a finite number", hint=hint)
        out[name] = value
    return out


def utilities_of(text: str, objects: Sequence[str], hint: str) -> np.ndarray:
    """``--utilities``: a number for every object, ``float64[len(objects)]`` in their order."""
    values = named_numbers(text, "--utilities", objects, hint)
    missing = [str(o) for o in objects if str(o) not in values]
    if missing:
        raise ArgumentError(f"--utilities gives no utility for {', '.join(missing)}", hint=hint)
    big = [f"{n}={v:g}" for n, v in values.items() if abs(v) > MAX_UTILITY]
    if big:
        raise ArgumentError(f"--utilities: {big[0]} is too large: a utility must be between {-MAX_UTILITY:g} and "
                            f"{MAX_UTILITY:g} (the planner adds them over many steps, and they would overflow)",
                            hint=hint)
    return np.array([values[str(o)] for o in objects])


def belief_of(text: str, worlds: Sequence[str], world: int, hint: str,
              names: dict[str, int] | None = None) -> np.ndarray:
    """``--belief``: ``uniform``, ``true`` (the agent knows the true ``world``) or weights
    over the named worlds (left out: 0) summing to 1. ``names`` are the names weights are
    given by, each the index of its world (default: the worlds' own; two names of one world
    may not both weigh it)."""
    word = text.strip().lower()
    if word == "uniform":
        return np.full(len(worlds), 1.0 / len(worlds))
    if word == "true":
        return np.eye(len(worlds))[world]
    names = names or {str(w): n for n, w in enumerate(worlds)}
    belief = np.zeros(len(worlds))
    for name, value in named_numbers(text, "--belief", tuple(names), hint).items():
        if value < 0:
            raise ArgumentError(f"--belief: {name}={value:g} is negative", hint=hint)
        if belief[names[name]]:
            raise ArgumentError(f"--belief gives {worlds[names[name]]} twice ({name})", hint=hint)
        belief[names[name]] = value
    if abs(belief.sum() - 1.0) > 1e-6:
        raise ArgumentError(f"--belief sums to {belief.sum():g}, not 1", hint=hint)
    return belief / belief.sum()


#: Least movement a suggested judgment point needs: the observer's posteriors change by at
#: least a percentage point there (smaller changes are nothing a participant could judge).
STILL = 0.01


def choose_points(move: np.ndarray, n: int, aimless: Sequence[bool] = (), still: float = STILL) -> tuple[int, ...]:
    """At most ``n`` times in 1..T-1 where ``move`` is largest (earlier first among equals),
    never two adjacent, none where it moves less than ``still`` (:data:`STILL`), and none right after
    a move that gained nothing (``aimless[t - 1]``: a participant asked there would judge
    a whim of the simulation, not the agent's mind)."""
    T = len(move) - 1
    chosen: list[int] = []
    for t in sorted(range(1, T), key=lambda t: (-move[t], t)):
        if len(chosen) >= n or move[t] < still:
            break
        if t <= len(aimless) and aimless[t - 1]:
            continue
        if all(abs(t - c) > 1 for c in chosen):
            chosen.append(t)
    return tuple(sorted(chosen))
