"""The second domain protocol: a world model, for domains whose worlds are too many to
tabulate.

A tabular domain (:class:`elot.engine.tables.protocol.Domain`) hands the engine every state,
world and percept as tables. A domain whose hidden worlds are combinatorial instead
(the gridworld: every placement of hidden objects, each a whole world state) builds,
for one scenario and one inference configuration, an object with the methods of
:class:`WorldModel`; the engine's filters (:mod:`elot.engine.worlds.exact`,
:mod:`elot.engine.worlds.particles`) run the inference on it, written once: the weights, the
agreement tables, the belief filtering, the QMDP likelihood, the particles' resampling and
moves, the method choice. The domain keeps its worlds, how an action changes them, what
the agent sees and its planner's path costs; it may step and compare its worlds with
kernels of its own (the engine calls only the generic arithmetic kernels of ``btom_ext``).

The worlds the model hands back (:attr:`WorldModel.worlds`, :attr:`WorldModel.real`) are
read by the results: each has ``atoms()``, the ground atoms true in it, for ELoT. They may
be a :class:`LazyWorlds`, made only when read.
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from elot.engine.budget import Estimate


@runtime_checkable
class WorldModel(Protocol):
    """What the engine's filters need of a domain, for one scenario and configuration.

    Attributes: ``scenario`` (kept on the result: its ``signature()`` is the ELoT
    signature); ``actions`` (the observed actions, each a tuple of names); ``core`` (the
    ``btom_ext`` backend the configuration names: the generic kernels ``qmdp_update``,
    ``filter_beliefs``, ``qmdp_loglik``); ``goal_sort`` (the signature's sort of the goal
    objects); after :meth:`start`, ``worlds`` (every initial state's world now) and
    ``real`` (the real world at every step so far); after :meth:`plan`, ``goal_columns``
    (each goal's column of :meth:`path_costs`).

    The hypothesis space:

    * :meth:`hypotheses` — ``(goals, initial states, family)`` of the configuration: the
      goals, the hidden initial states the prior allows (each a world), and the prior
      family they come from (with ``describe()``);
    * :meth:`exact_space` — the :class:`~elot.engine.worlds.spaces.HypothesisSpace` of exact
      inference, refused before it is allocated when it does not fit the limits;
    * :meth:`exact_estimate` — what exact inference would allocate (for ``auto``);
    * :meth:`check_particle_cost` — refuse particle inference that would not fit;

    and the run:

    * :meth:`check_actions` — an observed action impossible in the real world fails
      before any inference;
    * :meth:`plan` — the agent's planner for the goals;
    * :meth:`start` — from the initial states: the view label of every state's world and
      of the real one (last); equal labels: the agent cannot tell the worlds apart;
    * :meth:`offered` — the actions the real world offers now; :meth:`options` — those,
      and the index of the observed one among them;
    * :meth:`path_costs` — the worlds of the live states after each option, and their path
      costs to every goal (QMDP's ``h``; -1: never);
    * :meth:`advance` — every world after the observed action: the new labels, or None
      when nothing seen can have changed (the same worlds agree as before);
    * :meth:`open_goals` — which goals are still to be reached in the real world;
    * :meth:`reveals` — whether an action can reveal anything (beliefs are refiltered
      only after those);
    * :meth:`hint` — what to do when no hypothesis explains the observations.
    """

    scenario: Any
    actions: tuple[tuple[str, ...], ...]
    core: Any
    goal_sort: str
    # and, once set (so not checked by ``isinstance``): worlds, real, goal_columns

    def hypotheses(self) -> tuple[tuple[str, ...], tuple[Any, ...], Any]: ...

    def exact_space(self, *, steps: int, belief_tables: int, max_bytes: int | None) -> Any: ...

    def exact_estimate(self, *, steps: int, belief_tables: int) -> Estimate: ...

    def check_particle_cost(self, *, particles: int, prior_draws: int) -> None: ...

    def check_actions(self) -> None: ...

    def plan(self, goals: Sequence[str], max_bytes: int | None = None) -> None: ...

    def start(self, states: Sequence[Any]) -> np.ndarray: ...

    def offered(self) -> tuple[tuple[str, ...], ...]: ...

    def options(self, action: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], int]: ...

    def path_costs(self, states: np.ndarray, options: Sequence[tuple[str, ...]]) -> np.ndarray: ...

    def advance(self, action: tuple[str, ...]) -> np.ndarray | None: ...

    def open_goals(self, goals: Sequence[str]) -> np.ndarray: ...

    def reveals(self, action: tuple[str, ...]) -> bool: ...

    def hint(self, case: str, family: Any = None) -> str: ...


class LazyWorlds(SequenceABC):
    """Worlds made when first read (:meth:`worlds`): a filter steps every hypothesized
    world at each action but reads the worlds themselves at few steps."""

    __slots__ = ("_worlds",)

    def worlds(self) -> tuple:
        if self._worlds is None:
            self._worlds = self._make()
        return self._worlds

    def _make(self) -> tuple:
        raise NotImplementedError

    def __getitem__(self, index):
        return self.worlds()[index]

    def __iter__(self):
        return iter(self.worlds())


def as_worlds(worlds: Sequence[Any]) -> tuple:
    """``worlds`` as a tuple (a :class:`LazyWorlds` made)."""
    return worlds.worlds() if isinstance(worlds, LazyWorlds) else tuple(worlds)
