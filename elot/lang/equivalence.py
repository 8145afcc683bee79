"""Meaning of formulas by truth tables: are two formulas true in the same situations?

:func:`equivalent` compares ``⟦f⟧`` and ``⟦g⟧`` on every state of a signature (every
placement of up to two hidden keys in its boxes) crossed with a sample of beliefs over
those states (and, for formulas about desires, a desire row sampled with each belief),
using the vectorized evaluator. Formulas about several agents get a sampled belief for each
agent of the signature, and formulas that nest beliefs a sampled belief-in-situation table
for each (SPEC §10). It is a test, not a proof: equal on the
sample means equal on every state and on the sampled beliefs, which include point
masses, few-particle beliefs with ε weights and threshold-sized probabilities.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from elot.errors import EvaluationError, expect_int
from elot.lang.desires import DesireRow
from elot.lang.semantics import compile_formula
from elot.lang.states import Belief, State
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.lang.typesystem import NUMERIC

#: The weight BToM gives a state that holds no belief particle (SPEC §5): the smallest
#: positive double, so sampled beliefs have the same shape as the ones inference makes.
EPSILON = 5e-324


def states_for(signature: Signature | None = None, max_hidden_keys: int = 2) -> list[State]:
    """Every placement of 0..``max_hidden_keys`` of the signature's keys in distinct
    boxes, each placed key with one of the signature's colours, as States: every box
    closed, every door locked, placed keys hidden and inside their box, the other keys
    off the grid."""
    sig = Signature.given(signature)
    keys, boxes, colors = sig.objects_of("key"), sig.objects_of("box"), sig.objects_of("color")
    common = [("closed", b) for b in boxes] + [("locked", d) for d in sig.objects_of("door")]
    states = []
    for k in range(0, min(max_hidden_keys, len(keys), len(boxes)) + 1):
        for chosen in itertools.combinations(keys, k):
            for places in itertools.permutations(boxes, k):
                for paint in itertools.product(colors, repeat=k):
                    atoms = list(common)
                    for key, box, color in zip(chosen, places, paint):
                        atoms += [("inside", key, box), ("hidden", key), ("iscolor", key, color)]
                    atoms += [("offgrid", key) for key in keys if key not in chosen]
                    states.append(State.of(atoms))
    return states


def random_beliefs(states: list[State], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` beliefs over ``states`` as an (n, S) float64 array whose rows sum to 1.

    A mix that exercises thresholds and ties: point masses, beliefs of 2–4 equal
    particles with every other state at ε (as BToM builds them), sparse random weights
    on a few states, and the uniform belief.
    """
    size = len(states)
    out = np.zeros((n, size))
    for i in range(n):
        kind = i % 4
        if i == n - 1:
            out[i] = 1.0 / size
        elif kind == 0:
            out[i, rng.integers(size)] = 1.0
        elif kind == 1:
            k = int(rng.integers(2, 5))
            out[i] = EPSILON
            for j in rng.integers(size, size=k):
                out[i, j] += 1.0 / k  # ε vanishes in the sum, as in BToM's beliefs
        elif kind == 2:
            chosen = rng.choice(size, size=min(size, int(rng.integers(2, 6))), replace=False)
            out[i, chosen] = rng.dirichlet(np.ones(len(chosen)))
        else:
            chosen = rng.choice(size, size=min(size, int(rng.integers(1, 4))), replace=False)
            out[i, chosen] = 1.0 / len(chosen)
    return out


def desire_objects(signature: Signature) -> tuple[str, ...]:
    """The objects sampled desires are about: every object that is not an agent."""
    return tuple(name for name, kind in signature.objects if not signature.is_subdomain(kind, "agent"))


def random_desires(objects: tuple[str, ...], n: int, rng: np.random.Generator) -> DesireRow:
    """``n`` desire rows over ``objects`` on the desire scale, a mix that exercises ties
    and thresholds: a single goal (1 on one object, 0 elsewhere), utilities on a coarse
    grid (ties between objects; values at the thresholds 0.25 and 0.5), uniform random
    utilities, and an indifferent agent (every utility 0.5)."""
    out = np.zeros((n, len(objects)))
    for i in range(n):
        kind = i % 4
        if i == n - 1 or not objects:
            out[i] = 0.5
        elif kind == 0:
            out[i, rng.integers(len(objects))] = 1.0
        elif kind == 1:
            out[i] = rng.integers(0, 5, size=len(objects)) / 4
        else:
            out[i] = rng.random(len(objects))
    return DesireRow(objects, out)


@dataclass(frozen=True)
class Counterexample:
    """A state and a belief (and, for formulas about desires, the agent's utilities on the
    desire scale) on which the two formulas differ, with their two values."""

    state: State
    belief: Belief
    f_value: bool | float
    g_value: bool | float
    desires: tuple[tuple[str, float], ...] | None = None
    #: The other agents' beliefs, when the formulas are about several agents.
    others: tuple[tuple[str, Belief], ...] = ()

    def __str__(self) -> str:
        shown = [(s, w) for s, w in self.belief.support if w > 1e-300]
        belief = " | ".join(f"{w:.6g}: {s}" for s, w in shown)
        rest = len(self.belief.support) - len(shown)
        if rest:
            belief += f"  (+ {rest} states at ε)"
        wants = "" if self.desires is None else "\ndesires: " + ", ".join(f"{o}={u:.6g}" for o, u in self.desires)
        others = "".join(f"\n{agent}'s belief: {b}" for agent, b in self.others)
        return f"state: {self.state}\nbelief: {belief}{others}{wants}\nfirst: {self.f_value}, second: {self.g_value}"


def equivalent(
    f: Term | str,
    g: Term | str,
    signature: Signature | None = None,
    *,
    n_beliefs: int = 64,
    seed: int = 0,
    bind_free: bool = False,
    thresholds: Thresholds | None = None,
    states: list[State] | None = None,
) -> tuple[bool, Counterexample | None]:
    """Whether ``f`` and ``g`` have the same meaning on every state of ``signature`` ×
    ``n_beliefs`` sampled beliefs; returns ``(True, None)`` or ``(False, counterexample)``."""
    sig = Signature.given(signature)
    expect_int(n_beliefs, "n_beliefs", minimum=1)
    expect_int(seed, "seed")
    cf = compile_formula(f, sig, thresholds, bind_free)
    cg = compile_formula(g, sig, thresholds, bind_free)
    if (cf.type == NUMERIC) != (cg.type == NUMERIC):
        raise EvaluationError("cannot compare a number with a formula")
    worlds = states if states is not None else states_for(sig)
    rng = np.random.default_rng(seed)
    beliefs = random_beliefs(worlds, n_beliefs, rng)
    # Formulas about desires: each sampled belief row comes with a sampled desire row.
    desires = random_desires(desire_objects(sig), n_beliefs, rng) \
        if cf.needs_desires or cg.needs_desires else None
    # Several agents: each gets a belief of its own (drawn after the observed agent's and the
    # desires, so that formulas about one agent are compared on the same sample as ever);
    # nested beliefs: each agent a belief in every situation.
    agents = [name for name, kind in sig.objects if sig.is_subdomain(kind, "agent") and name != sig.agent]
    given = beliefs
    if agents:
        given = {sig.agent: beliefs, **{agent: random_beliefs(worlds, n_beliefs, rng) for agent in agents}}
    tables = None
    if cf.nested or cg.nested:
        tables = {agent: random_beliefs(worlds, len(worlds), rng) for agent in [sig.agent, *agents]}
    if cf.type == NUMERIC:
        a = cf.value_grid(worlds, given, desires=desires, belief_tables=tables)
        b = cg.value_grid(worlds, given, desires=desires, belief_tables=tables)
    else:
        a = cf.truth_grid(worlds, given, desires=desires, belief_tables=tables)
        b = cg.truth_grid(worlds, given, desires=desires, belief_tables=tables)
    differ = np.argwhere(a != b)
    if not len(differ):
        return True, None
    i, j = differ[0]

    def row(rows: np.ndarray) -> Belief:
        return Belief(tuple((worlds[k], float(rows[i, k])) for k in np.flatnonzero(rows[i])))

    cast = float if cf.type == NUMERIC else bool
    wants = None if desires is None else tuple(zip(desires.objects, map(float, desires.utilities[i])))
    others = tuple((agent, row(given[agent])) for agent in agents)
    return False, Counterexample(worlds[j], row(beliefs), cast(a[i, j]), cast(b[i, j]), wants, others)


__all__ = ["states_for", "random_beliefs", "random_desires", "desire_objects", "equivalent", "Counterexample",
           "EPSILON"]
