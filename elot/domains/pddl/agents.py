"""The agent models a PDDL domain offers (``--model``), each with its parameters, and the
tables of one scene they read: the one place that says how each model weighs the observed
actions, for ``elot run``, ``batch``, ``fit`` and the Alanqary et al. (2021) benchmarks
alike (:mod:`elot.domains.pddl.fitting` searches their parameters over a grid).

Every model is an agent of :mod:`elot.engine.agents` (which names no domain) on a table of
costs-to-go of the scene (:class:`Tables`):

* **exact** — the fewest actions left to each goal; where a goal can no longer be reached,
  the relaxed plan's length (the agent does not see that it is lost): ``fallback``;
  ``capped``, one more than the largest finite cost instead;
* **relaxed** — the length of a relaxed plan (h_FF): what a planner guided by the delete
  relaxation sees as close.

A model's parameters besides β are named (``epsilon``, ``weight``, ``horizon``, ``gamma``:
:data:`PARAMETERS`); each model takes some of them (:attr:`AgentModel.params`) and has its
own defaults (:attr:`AgentModel.defaults`, β first), round values that fit both Alanqary
data sets reasonably (docs/pddl.md gives the values fitted on each).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from elot.domains.pddl.goals import GoalTask, permutations_of
from elot.engine.agents import Boltzmann, GoalNoise, Lapse, PartialPlans, Reach, cost_to_go, distances
from elot.engine.agents.graph import Path, StateGraph, horizon_costs
from elot.engine.agents.models import blend

#: The models' parameters besides β, each with what it is.
PARAMETERS = {
    "epsilon": "the chance of a lapse: a uniformly chosen applicable action instead (0 to 1)",
    "weight": "how far the agent's estimates lean on the relaxed plan's length (0: exact costs, 1: relaxed only)",
    "horizon": "how many actions ahead the agent looks (horizon) or plans before planning again (partial-plans)",
    "gamma": "the chance, before each action, that the agent's current goal is redrawn among its confusions",
}


@dataclass(eq=False)
class Tables:
    """One scene's tables (see the module docstring): its ``task`` (grounded problem,
    reachable states, candidate goals) and observed ``path``; each table of costs is made
    when a model first asks for it and kept on the task (shared by every path on it)."""

    task: GoalTask
    path: Path

    @property
    def graph(self) -> StateGraph:
        return self._graph

    @cached_property
    def _graph(self) -> StateGraph:
        return self.task.graph

    def _kept(self, key, make: Callable[[], np.ndarray]):
        cache = self.task._cache
        if key not in cache:
            cache[key] = make()
        return cache[key]

    @property
    def exact(self) -> np.ndarray:
        """``float64[G, n]``: the fewest actions to each goal (``inf`` where it is lost)."""
        return self._kept("exact", self.task.exact)

    @property
    def relaxed(self) -> np.ndarray:
        """The relaxed plan's length to each goal, finite everywhere (:func:`cost_to_go`)."""
        return self._kept("relaxed", lambda: cost_to_go(self.task.relaxed(kind="ff")))

    @property
    def fallback(self) -> np.ndarray:
        """Exact costs, the relaxed plan's length where a goal is lost."""
        return self._kept("fallback", lambda: cost_to_go(self.exact, self.relaxed))

    @property
    def capped(self) -> np.ndarray:
        """Exact costs, one more than the largest finite cost where a goal is lost."""
        return self._kept("capped", lambda: cost_to_go(self.exact))

    def blended(self, weight: float) -> np.ndarray:
        """``(1 − w)`` fallback ``+ w`` relaxed (w 0 and 1: the tables themselves)."""
        if weight == 0:
            return self.fallback
        if weight == 1:
            return self.relaxed
        return self._kept(("blend", float(weight)), lambda: blend(self.fallback, self.relaxed, weight))

    def horizon(self, h: int) -> np.ndarray:
        """An ``h``-step exact lookahead with relaxed-plan leaves."""
        return self._kept(("horizon", int(h)),
                          lambda: horizon_costs(self.task.graph, self.task.goal_masks, self.relaxed, h))

    @cached_property
    def reach(self) -> Reach:
        """What the partial-plan agent needs of the path, whatever its parameters."""
        return Reach.of(self.graph, self.path)

    @property
    def confusions(self) -> tuple[list | None, np.ndarray | None, np.ndarray | None]:
        """The goals each candidate may be mistaken for: its objects permuted (a misspelt
        word), with their exact (relaxed where lost) and relaxed costs; where no candidate
        has two objects to permute, None: the other candidates (:class:`GoalNoise`'s own)."""
        return self._kept("confusions", self._confusions)

    def _confusions(self):
        task = self.task
        groups, forms = [], []
        for goal in task.goals:
            perms = permutations_of(goal.formula)
            groups.append(list(range(len(forms), len(forms) + len(perms))))
            forms += perms
        if not forms:
            return None, None, None
        relaxed = cost_to_go(task.relaxed(forms, kind="ff"))
        return groups, cost_to_go(distances(task.graph, task.masks(forms)), relaxed), relaxed


def _confused(tables: Tables, p: dict) -> np.ndarray:
    groups, exact, relaxed = tables.confusions
    costs = tables.blended(p["weight"])
    if groups is None:
        return GoalNoise(p["beta"], p["epsilon"], p["gamma"]).step_likelihoods(tables.graph, costs, tables.path)
    weight = p["weight"]
    confused = exact if weight == 0 else relaxed if weight == 1 else blend(exact, relaxed, weight)
    return GoalNoise(p["beta"], p["epsilon"], p["gamma"]).step_likelihoods(
        tables.graph, costs, tables.path, confusions=groups, confusion_costs=confused)


@dataclass(frozen=True)
class AgentModel:
    """A model of the agent: its ``name`` (``--model``), what it assumes (``what``), the
    parameters it takes besides β (``params``), its defaults (``defaults``: β first) and
    ``likelihoods(tables, values)``: ``P(a_t | a_<t, g)`` as ``float64[T, G]``, which is also
    how its agent acts (``elot plan``: :mod:`elot.domains.pddl.simulate` draws each action
    from it)."""

    name: str
    what: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, float], ...]
    likelihoods: Callable[[Tables, dict], np.ndarray] = field(compare=False, repr=False)
    agent: Callable[[dict], object] = field(compare=False, repr=False, default=lambda p: Boltzmann(p["beta"]))
    #: Whether its choice at a state depends on nothing before it (the Boltzmann and lapse
    #: agents); a partial plan or a current goal carries over from step to step.
    markov: bool = True

    def check(self, values: dict) -> dict:
        """``values`` (β and this model's parameters) as the agent takes them, or the
        agent's own :class:`~elot.errors.ArgumentError` (a partial-plan agent that never
        slips, say)."""
        self.agent(values)
        return values


def _lapse(p: dict) -> Lapse:
    return Lapse(p["beta"], p["epsilon"])


MODELS: dict[str, AgentModel] = {m.name: m for m in (
    AgentModel("boltzmann", "Boltzmann-rational on exact costs (the relaxed plan's length where a goal is lost): "
               "elot's BToM agent", (), (("beta", 1.0),),
               lambda tab, p: Boltzmann(p["beta"]).step_likelihoods(tab.graph, tab.fallback, tab.path)),
    AgentModel("boltzmann-exact", "Boltzmann-rational on exact costs, a lost goal one more than the largest cost",
               (), (("beta", 1.0),),
               lambda tab, p: Boltzmann(p["beta"]).step_likelihoods(tab.graph, tab.capped, tab.path)),
    AgentModel("boltzmann-ff", "Boltzmann-rational on the relaxed plan's length (h_FF: birl's value function, "
               "without RTDP)", (), (("beta", 1.5),),
               lambda tab, p: Boltzmann(p["beta"]).step_likelihoods(tab.graph, tab.relaxed, tab.path)),
    AgentModel("lapse", "Boltzmann on exact costs, lapsing to a uniform applicable action (epsilon)", ("epsilon",),
               (("beta", 4.0), ("epsilon", 0.1)),
               lambda tab, p: _lapse(p).step_likelihoods(tab.graph, tab.fallback, tab.path), _lapse),
    AgentModel("heuristic", "lapse-Boltzmann on estimates leaning on the relaxed plan's length (weight)",
               ("epsilon", "weight"), (("beta", 2.0), ("epsilon", 0.05), ("weight", 0.2)),
               lambda tab, p: _lapse(p).step_likelihoods(tab.graph, tab.blended(p["weight"]), tab.path), _lapse),
    AgentModel("horizon", "lapse-Boltzmann on an exact lookahead of horizon actions with relaxed-plan leaves",
               ("epsilon", "horizon"), (("beta", 4.0), ("epsilon", 0.05), ("horizon", 3)),
               lambda tab, p: _lapse(p).step_likelihoods(tab.graph, tab.horizon(p["horizon"]), tab.path), _lapse),
    AgentModel("partial-plans", "partial plans to a waypoint up to horizon actions away, chosen by estimated cost "
               "(weight), replanning on arrival or after a slip (epsilon)", ("epsilon", "weight", "horizon"),
               (("beta", 2.0), ("epsilon", 0.05), ("weight", 0.2), ("horizon", 2)),
               lambda tab, p: PartialPlans(p["horizon"], p["beta"], p["epsilon"]).step_likelihoods(
                   tab.graph, tab.blended(p["weight"]), tab.path, goal_masks=tab.task.goal_masks, reach=tab.reach),
               lambda p: PartialPlans(p["horizon"], p["beta"], p["epsilon"]), markov=False),
    AgentModel("goal-noise", "lapse-Boltzmann toward a current goal redrawn (gamma) among the true goal's "
               "confusions (its objects permuted: a misspelt word), on exact costs (weight 0) or the relaxed "
               "plan's (weight 1)", ("epsilon", "gamma", "weight"),
               (("beta", 1.0), ("epsilon", 0.05), ("gamma", 0.05), ("weight", 1.0)),
               _confused, lambda p: GoalNoise(p["beta"], p["epsilon"], p["gamma"]), markov=False),
)}


def goal_posterior_of(model: str, tables: Tables, values: dict) -> np.ndarray:
    """``float64[T + 1, G]``: the goal posterior after each prefix of the scene's path
    under ``model`` with ``values`` (β and its parameters)."""
    from elot.engine.agents import goal_posterior

    return goal_posterior(MODELS[model].likelihoods(tables, values), tables.task.prior)
