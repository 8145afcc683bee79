"""The hypothesis spaces the filters run over, written once for any world model.

A hypothesis is ``(goal g, true initial state s, initial belief b)``. The world model
(:class:`elot.engine.worlds.protocol.WorldModel`) says which goals and initial states there are;
what is generic lives here:

* **Initial beliefs** (SPEC §5): every multiset of ``k`` particles over the states
  (:func:`particle_counts`); a state's weight is its particle count / k, or
  :data:`~btom_ext.reference.EPSILON` when it has none (:func:`belief_weights`). How each
  variant holds its initial belief is data (:data:`INITIAL_BELIEFS`): ``multiset``, or
  ``true``, one belief per true state, certain of it.
* :class:`HypothesisSpace`, the enumerated space of exact inference (hypothesis ``i`` is
  ``(g * n_s + s) * n_b + b``), and :class:`ParticleSpace`, the space particles are drawn
  from (beliefs not enumerated).
* :func:`exact_estimate`: what exact inference over a space would allocate, counted array
  by array before anything is, for the one budget (:mod:`elot.engine.budget`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from math import comb
from typing import Any

import numpy as np

from btom_ext.reference import EPSILON
from elot.engine.budget import Estimate, footprint

# -- how each variant holds its initial belief ----------------------------------------------

#: Each BToM variant's initial beliefs (SPEC §5, §7.4): ``multiset``, every multiset of k
#: particles over the initial states; ``true``, one belief per true state, certain of it.
INITIAL_BELIEFS = {"full": "multiset", "non-planning": "multiset", "true-belief": "true", "true-belief-paper": "true"}
#: The variants particle inference runs (true-belief-paper reproduces an artifact of the
#: reference's exact enumeration, which sampling does not have).
SAMPLED_VARIANTS = ("full", "non-planning", "true-belief")


def certain(variant: str) -> bool:
    """Whether the variant's agent starts certain of the true state (one belief per state)."""
    return INITIAL_BELIEFS[variant] == "true"


def n_beliefs(variant: str, n_states: int, k: int) -> int:
    """How many initial beliefs a hypothesis of the variant may hold: 1 per true state if
    :func:`certain`, else ``C(n_states + k - 1, k)`` multisets of k states."""
    return 1 if certain(variant) else comb(n_states + k - 1, k)


def particle_counts(n_states: int, k: int) -> np.ndarray:
    """Every multiset of ``k`` particles over ``n_states`` states as counts, ``(C(n+k-1, k), n)``."""
    size = comb(n_states + k - 1, k)
    combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations_with_replacement(range(n_states), k)),
                         dtype=np.intp, count=size * k).reshape(size, k)
    counts = np.zeros((size, n_states), dtype=np.int32)
    rows = np.arange(size)
    for particle in range(k):   # one particle per row each time: no index repeats within a column
        counts[rows, combos[:, particle]] += 1
    return counts


def belief_weights(counts: np.ndarray, k: int) -> np.ndarray:
    """Initial belief weights: count / k, or :data:`EPSILON` for states with no particle."""
    return np.where(counts > 0, counts / k, EPSILON)


def initial_beliefs(variant: str, n_states: int, k: int) -> np.ndarray:
    """``initial[s, b, j]``: the initial weight of state j in belief b of a hypothesis whose
    true state is s. Multisets: the same beliefs for every true state (a read-only view, not
    n copies of ``n^2 n_b`` floats); certain: all k particles on the true state (ε elsewhere)."""
    if certain(variant):
        held = belief_weights(k * np.eye(n_states, dtype=np.int32), k)
        return np.ascontiguousarray(held.reshape(n_states, 1, n_states))
    counts = particle_counts(n_states, k)
    assert len(counts) == comb(n_states + k - 1, k)
    weights = belief_weights(counts, k)
    return np.broadcast_to(weights, (n_states, *weights.shape))


class Sizes:
    """How large a space of ``goals × states × n_beliefs`` hypotheses is."""

    goals: tuple[str, ...]
    states: tuple[Any, ...]
    n_beliefs: int

    @property
    def n_goals(self) -> int:
        return len(self.goals)

    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def size(self) -> int:
        """The number of hypotheses (``len`` too, up to ``sys.maxsize``; this has no limit)."""
        return self.n_goals * self.n_states * self.n_beliefs

    def __len__(self) -> int:
        return self.size


@dataclass(frozen=True, eq=False)
class HypothesisSpace(Sizes):
    """``goals × states × beliefs`` for one scenario and model.

    ``initial_beliefs[s, b, j]`` is the initial weight of state j in belief b of a
    hypothesis whose true state is s (independent of s except under ``true-belief``).
    ``judged_beliefs``, when set, replaces the agent's belief at every step when statements
    are judged (only ``true-belief-paper``: certainty in the reference's state #1).
    ``family`` is the prior family the states come from, as the world model describes it
    (its ``describe()`` is a line for a run's header); ``goal_sort`` the sort of the
    signature's objects the goals are (what a statement about desires ranges over).
    """

    model: str
    goals: tuple[str, ...]
    states: tuple[Any, ...]
    initial_beliefs: np.ndarray
    conventions: str = "elot"
    judged_beliefs: np.ndarray | None = None
    family: Any = None
    goal_sort: str = "goal"

    @property
    def n_beliefs(self) -> int:
        return self.initial_beliefs.shape[1]

    @cached_property
    def index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(goal, state, belief)`` index arrays (``int32``) of every hypothesis."""
        g, s, b = np.meshgrid(
            np.arange(self.n_goals), np.arange(self.n_states), np.arange(self.n_beliefs), indexing="ij"
        )
        return tuple(np.ascontiguousarray(a.ravel(), dtype=np.int32) for a in (g, s, b))


@dataclass(frozen=True, eq=False)
class ParticleSpace(Sizes):
    """The hypothesis space particles are drawn from: goals, enumerated initial states and
    k belief particles (beliefs are not enumerated; :attr:`n_beliefs` is how many there are)."""

    model: str
    goals: tuple[str, ...]
    states: tuple[Any, ...]
    k: int
    conventions: str = "elot"
    #: The prior family the states come from (as the world model describes it).
    family: Any = None
    goal_sort: str = "goal"

    @property
    def n_beliefs(self) -> int:
        return n_beliefs(self.model, self.n_states, self.k)


# -- what exact inference costs --------------------------------------------------------------

#: Bytes per hypothesis inference keeps or holds at once besides its log weights: the
#: (goal, state, belief) index arrays (3 x int32), and per step the likelihoods, the
#: active mask and the new weights (8 + 1 + 8) plus NumPy temporaries of the update.
BYTES_PER_HYPOTHESIS = 12 + 8 + 1 + 8 + 16


def exact_estimate(variant: str, n_goals: int, n_states: int, k: int, *, steps: int = 0,
                   belief_tables: int = 1) -> Estimate:
    """Exact inference over ``steps`` actions on a space of ``n_goals`` goals, ``n_states``
    initial states and the variant's beliefs, counted array by array: per hypothesis, the
    index arrays, one float64 log weight per step kept, and the step's temporaries; the
    initial beliefs (``n_beliefs x n_states``, shared by every true state); one filtered
    belief table ``n_states x n_beliefs x n_states`` per distinct ``alive`` table, of which
    there are at most ``belief_tables`` (1 + the actions that can reveal something); and
    the ``alive`` tables (``n_states^2`` bytes per step). Its size is the hypotheses."""
    beliefs = n_beliefs(variant, n_states, k)
    hypotheses = n_goals * n_states * beliefs
    initial = (n_states if beliefs == 1 else 1) * beliefs * n_states * 8
    peak = footprint([(hypotheses, BYTES_PER_HYPOTHESIS + 8 * (steps + 1)),
                      (belief_tables * n_states * beliefs, n_states * 8),
                      (steps + 1, n_states * n_states)], fixed=initial)
    said = "1 belief" if certain(variant) else f"{beliefs:,} beliefs (k={k})"
    return Estimate("the hypothesis space", peak, size=hypotheses, unit="hypotheses",
                    detail=f"{n_goals} goal(s) x {n_states:,} initial states x {said} = {hypotheses:,} hypotheses")
