"""The rows a statement is judged on (:class:`elot.judging.Hypotheses`), made from a
result of the world engine (:mod:`elot.engine.worlds`: exact or particle inference). The
engine returns posteriors as arrays, and knows neither the language nor judging; here its
worlds become ELoT states, its (true state, belief) pairs become rows with their posterior
weight and prior mass, and, for a statement about what the agent wants, its goals become
desires.

* :func:`judged` — the rows at time t with the beliefs of time ``at`` (t, or 0 for a
  statement about the initial belief): exact inference's every (true state, initial
  belief) pair, each standing for one hypothesis per goal of the uniform prior; particle
  inference's distinct particles (posterior weight) and prior draws (prior mass), their
  dense beliefs made a chunk of rows at a time when a statement is scored.
* :func:`goal_rows` — the same hypotheses one row per (goal, true state, belief), each
  with its goal as its desire, made only when a statement about desires is scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from weakref import WeakKeyDictionary

import numpy as np

from elot.judging import Desires, Hypotheses
from elot.lang.states import State

_STATES: WeakKeyDictionary = WeakKeyDictionary()


def signature(result):
    """The ELoT signature of the result's scenario (its agent aliased as ``player``)."""
    return result.scenario.signature()


def states(result, t: int) -> tuple[State, ...]:
    """The world at time t of each initial state, as ELoT states (made once per result and t)."""
    made = _STATES.setdefault(result, {})
    if t not in made:
        made[t] = tuple(State(w.atoms()) for w in result.worlds(t))
    return made[t]


def goal_objects(sig, space) -> tuple[str, ...]:
    """The objects a statement about desires ranges over: the signature's objects of the
    goals' sort (``space.goal_sort``), then any goal it lacks."""
    return tuple(dict.fromkeys(sig.objects_of(space.goal_sort) + tuple(space.goals)))


def judged(result, t: int, at: int | None = None) -> Hypotheses:
    """The hypotheses a statement is judged on at time t: their worlds and beliefs at time
    ``at`` (t, or 0 for a statement about the initial belief) weighted by the posterior at
    t, with their prior masses (see the module)."""
    t = result.check_time(t)
    at = t if at is None else result.check_time(at)
    if result.estimated:
        return _particle_rows(result, t, at, by_goal=False)
    sig = signature(result)
    beliefs, true_index, weights, prior, live, ess, draws = result.judged_rows(t, at)
    return Hypotheses(sig, states(result, at), true_index, {sig.agent: beliefs}, weights, prior, live, ess=ess,
                      prior_draws=draws, per_agent=False, desire_rows=cache(lambda: goal_rows(result, t, at)))


def goal_rows(result, t: int, at: int) -> Hypotheses:
    """Desires for statements about what the agent wants (``wants(player, g)``): the
    hypotheses one per (goal, true state, belief), not one per (true state, belief) pair as
    :func:`judged` gives them, each with its goal as its desire, 1 on that goal and 0 on
    the scenario's other goal objects (:func:`goal_objects`)."""
    if result.estimated:
        return _particle_rows(result, t, at, by_goal=True)
    space, sig = result.space, signature(result)
    beliefs, true_index = result.pairs(at)
    objects = goal_objects(sig, space)
    column = np.array([objects.index(g) for g in space.goals], dtype=np.intp)
    desires = Desires.goals(objects, column[space.index[0]])
    return Hypotheses(sig, states(result, at), np.tile(true_index, space.n_goals),
                      {sig.agent: np.tile(beliefs, (space.n_goals, 1))}, result.posterior(t),
                      np.ones(space.size), np.isfinite(result.log_weights[t]).astype(float),
                      per_agent=False, desires=desires)


def _particle_rows(result, t: int, at: int, by_goal: bool) -> Hypotheses:
    """Particle inference's rows (:meth:`~elot.engine.worlds.particle_result.ParticleInference.judged_rows`),
    with each particle's row, group (its island, or its lineage) and weight (``runs``), from
    whose spread between groups L's standard error is taken. With ``by_goal``, one row per
    (goal, true state, belief), each with its goal as its desire; else the rows beliefs are
    judged on, whose ``desire_rows`` are those. The rows' dense beliefs are made on demand
    (:attr:`~elot.judging.Hypotheses.belief_rows`)."""
    state, beliefs, weights, prior, live, ess, draws, goal = result.judged_rows(t, at, by_goal)
    sig = signature(result)

    def belief_rows(lo: int, hi: int) -> np.ndarray:
        return result.dense(state[lo:hi], beliefs[lo:hi], at)

    desires = desire_rows = None
    if by_goal:
        objects = goal_objects(sig, result.space)
        column = np.array([objects.index(g) for g in result.space.goals], dtype=np.intp)
        desires = Desires.goals(objects, column[goal])
    else:
        desire_rows = cache(lambda: _particle_rows(result, t, at, by_goal=True))
    return Hypotheses(sig, states(result, at), state, _BeliefsOnRead(sig.agent, belief_rows, len(state)), weights,
                      prior, live, ess=ess, prior_draws=draws, per_agent=False,
                      runs=result.island_rows(t, at, by_goal), belief_rows=belief_rows, desires=desires,
                      desire_rows=desire_rows)


class _BeliefsOnRead(Mapping):
    """``{agent: (N, S) beliefs}`` whose table is made when read (and not kept): scoring
    reads the rows in chunks instead (:attr:`~elot.judging.Hypotheses.belief_rows`)."""

    def __init__(self, agent: str, rows, n: int) -> None:
        self._agent, self._rows, self._n = agent, rows, n
        self._names = {agent: None}

    def __getitem__(self, agent: str) -> np.ndarray:
        self._names[agent]   # another name raises as a mapping's lookup does
        return self._rows(0, self._n)

    def __iter__(self):
        return iter((self._agent,))

    def __len__(self) -> int:
        return 1
