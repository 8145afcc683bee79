"""Models of an agent that acts toward a goal, rationally or with mistakes.

Each model is a small frozen object with named parameters (a planner with its settings, not
a code path) and one method, :meth:`step_likelihoods`: for an observed path, the probability
of each observed action given the actions before it, under each candidate goal,
``P(a_t | a_<t, g)`` as ``float64[T, G]``. The path's likelihood under a goal is their product
and the goal posterior follows by Bayes (:func:`elot.engine.agents.inference.goal_posterior`).
Every likelihood here is exact (no sampling).

What the models share: at state ``s`` the agent weighs each applicable action ``a`` (edge to
``s'``) by ``Q_g(s, a) = -(1 + C_g(s'))``, where ``C_g`` is a cost-to-go table the caller
gives: the exact number of actions left, with a finite stand-in where the goal can no longer
be reached (:func:`cost_to_go`), or an estimate such as a relaxed plan's length
(:func:`elot.engine.agents.graph.relaxed_plans`: what a heuristic planner sees as close).

* :class:`Boltzmann` — ``π(a | s, g) ∝ exp(β Q_g(s, a))`` (elot's BToM agent; ``birl``'s family).
* :class:`Lapse` — with probability ε the agent lapses and takes an applicable action
  uniformly at random, else it is Boltzmann: ``(1 − ε) π_β + ε / |A(s)|``. Every applicable
  action keeps probability at least ``ε / |A(s)|`` under every goal.
* :class:`GoalNoise` — the agent's *current* goal may differ from its true one: at the start
  and before each action, with probability ``γ`` it is redrawn uniformly from the goal's
  confusions (goals it may be mistaken for: the other candidates, or the same goal with its
  objects permuted, a misspelt word), else kept; the agent acts by :class:`Lapse` toward its
  current goal. The current goal is summed out exactly (a forward filter per true goal).
* :class:`PartialPlans` — a bounded planner that commits to partial plans: when it plans, it
  picks a waypoint within ``horizon`` actions by a softmax of its estimated total cost (the
  actions to the waypoint plus ``C_g`` there), follows a shortest path to it, and plans again
  on arrival or when an action slips (probability ε: a uniform applicable action). The
  waypoint is summed out exactly (a forward filter over the states it may be).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from elot.engine.agents.graph import Path, StateGraph, distances_from
from elot.errors import ArgumentError


def cost_to_go(exact: np.ndarray, fallback: np.ndarray | None = None, penalty: float = 0.0) -> np.ndarray:
    """``float64[G, n]``: ``exact`` where finite; where a goal can no longer be reached,
    ``fallback`` (a relaxed cost, finite where the goal is not lost even in the relaxation)
    plus ``penalty``; where that too is infinite, one more than the largest finite cost plus
    ``penalty``. Every entry is finite, so no path has likelihood zero."""
    exact = np.asarray(exact, dtype=np.float64)
    out = exact.copy()
    finite = np.isfinite(exact)
    cap = (exact[finite].max() if finite.any() else 0.0) + 1.0
    lost = ~finite
    if fallback is not None:
        fb = np.asarray(fallback, dtype=np.float64)
        out[lost] = fb[lost] + penalty
        lost &= ~np.isfinite(fb)
    out[lost] = cap + penalty
    return out


def blend(costs: np.ndarray, heuristic: np.ndarray, weight: float) -> np.ndarray:
    """``(1 − w) C + w h``: the cost-to-go of an agent whose estimates lean, with weight ``w``,
    on a heuristic ``h`` (the delete relaxation's cost: what looks close when obstacles and
    consumed resources are ignored). ``w = 0`` is the exact planner; ``w = 1`` the myopic one."""
    weight = _check("weight", weight, 0.0, 1.0)
    return (1.0 - weight) * np.asarray(costs, dtype=np.float64) + weight * np.asarray(heuristic, dtype=np.float64)


def _check(name: str, value: float, low: float, high: float | None = None) -> float:
    value = float(value)
    if not (value == value and value >= low and (high is None or value <= high)):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ArgumentError(f"{name} must be {bound}, not {value}")
    return value


def _edge_policies(graph: StateGraph, costs: np.ndarray, state: int, beta: float, epsilon: float) -> np.ndarray:
    """``float64[G, k]``: the lapse-Boltzmann policy over state's ``k`` edges, per goal row of ``costs``."""
    lo, hi = int(graph.indptr[state]), int(graph.indptr[state + 1])
    q = -(1.0 + costs[:, graph.successors[lo:hi]])          # [G, k]
    z = beta * (q - q.max(axis=1, keepdims=True))
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    k = hi - lo
    return (1.0 - epsilon) * p + epsilon / k


def _observed(graph: StateGraph, costs: np.ndarray, path: Path, beta: float, epsilon: float) -> np.ndarray:
    """``float64[T, G]``: the lapse-Boltzmann probability of each observed action, per goal row of ``costs``."""
    out = np.empty((path.steps, costs.shape[0]))
    for t in range(path.steps):
        s = int(path.states[t])
        out[t] = _edge_policies(graph, costs, s, beta, epsilon)[:, int(path.edges[t]) - int(graph.indptr[s])]
    return out


@dataclass(frozen=True)
class Lapse:
    """Boltzmann-rational with rate ``beta``, lapsing to a uniform applicable action with probability ``epsilon``."""

    beta: float = 1.0
    epsilon: float = 0.0
    name = "lapse"

    def __post_init__(self):
        _check("beta", self.beta, 0.0)
        _check("epsilon", self.epsilon, 0.0, 1.0)

    def params(self) -> dict:
        return asdict(self)

    def step_likelihoods(self, graph: StateGraph, costs: np.ndarray, path: Path, **_) -> np.ndarray:
        return _observed(graph, np.atleast_2d(costs), path, self.beta, self.epsilon)


@dataclass(frozen=True)
class Boltzmann(Lapse):
    """The Boltzmann-rational agent: ``π(a | s, g) ∝ exp(β Q_g(s, a))`` (no lapses)."""

    beta: float = 1.0
    epsilon: float = 0.0
    name = "boltzmann"

    def __post_init__(self):
        super().__post_init__()
        if self.epsilon:
            raise ArgumentError("a Boltzmann agent does not lapse", hint="use Lapse(beta, epsilon)")

    def params(self) -> dict:
        return {"beta": self.beta}


@dataclass(frozen=True)
class GoalNoise(Lapse):
    """A lapse-Boltzmann agent whose current goal is redrawn, with probability ``gamma`` at the
    start and before each action, uniformly from its true goal's confusions."""

    gamma: float = 0.1
    name = "goal-noise"

    def __post_init__(self):
        super().__post_init__()
        _check("gamma", self.gamma, 0.0, 1.0)

    def step_likelihoods(self, graph: StateGraph, costs: np.ndarray, path: Path, confusions=None,
                         confusion_costs: np.ndarray | None = None) -> np.ndarray:
        """``confusions[g]`` lists the rows of ``confusion_costs`` (``float64[K, n]``) goal ``g``
        may be mistaken for (by default the candidate goals themselves: ``costs``)."""
        costs = np.atleast_2d(costs)
        n_goals = costs.shape[0]
        if confusion_costs is None:
            confusion_costs = costs
            confusions = [list(range(n_goals))] * n_goals if confusions is None else confusions
        elif confusions is None:
            raise ArgumentError("confusion_costs need the confusions of each goal")
        # the current goal's prior under true goal g: g itself (row g of costs) or a confusion
        lik = _observed(graph, np.concatenate([costs, confusion_costs]), path, self.beta, self.epsilon)  # [T, G + K]
        out = np.empty((path.steps, n_goals))
        for g in range(n_goals):
            members = np.array([g] + [n_goals + k for k in confusions[g]], dtype=np.int64)
            m = len(members) - 1
            redraw = np.concatenate([[0.0], np.full(m, 1.0 / m)]) if m else np.array([1.0])
            belief = (1.0 - self.gamma) * np.eye(len(members))[0] + self.gamma * redraw
            for t in range(path.steps):
                step = lik[t, members]
                total = float(np.dot(belief, step))
                out[t, g] = total
                post = belief * step / total if total > 0 else belief
                belief = (1.0 - self.gamma) * post + self.gamma * redraw
        return out


@dataclass(frozen=True, eq=False)
class Reach:
    """What :class:`PartialPlans` needs of an observed path, whatever its parameters: for
    each step t, ``dist[t, w]`` the fewest actions from the path's state s_t to each state w,
    ``toward[t, w]`` whether the observed action starts a shortest path from s_t to w, and
    ``choices[t, w]`` how many of s_t's actions do. Made once per path (:meth:`of`)."""

    dist: np.ndarray
    toward: np.ndarray
    choices: np.ndarray

    @staticmethod
    def of(graph: StateGraph, path: Path) -> "Reach":
        states = [int(s) for s in path.states]
        succ = [int(graph.successors[e]) for s in states for e in range(graph.indptr[s], graph.indptr[s + 1])]
        sources = sorted(set(states) | set(succ))
        table = distances_from(graph, sources)
        row = {s: i for i, s in enumerate(sources)}
        dist = table[[row[s] for s in states]]
        toward = np.zeros((path.steps, graph.n_states), dtype=bool)
        choices = np.zeros((path.steps, graph.n_states), dtype=np.int64)
        for t in range(path.steps):
            s = states[t]
            closer = dist[t] - 1.0
            for e in range(graph.indptr[s], graph.indptr[s + 1]):
                on = table[row[int(graph.successors[e])]] == closer
                choices[t] += on
                if e == int(path.edges[t]):
                    toward[t] = on
        return Reach(dist, toward, choices)


@dataclass(frozen=True)
class PartialPlans:
    """A planner that commits to partial plans (Alanqary et al. 2021's bounded agent, with
    its search replaced by an exact choice of where the partial plan ends).

    When it plans, at state s toward goal g, the agent picks a **waypoint** w among the
    states 1..``horizon`` actions away, with probability ∝ ``exp(−β (d(s, w) + C_g(w)))``:
    the total cost a best-first search would estimate for w (the actions to it plus the
    cost-to-go table there); ``β`` is the inverse of the search noise. It then follows a
    shortest path to w, each step chosen uniformly among the actions that start one, and
    plans again when it arrives. Each action slips with probability ``epsilon``: a uniform
    applicable action instead; a slip off every shortest path to w makes it plan again from
    where it lands. Where g already holds, nothing is left to do: it takes any applicable
    action uniformly and plans afresh once g no longer holds.

    ``horizon`` 1 is :class:`Lapse` (β, ε) where every action leads to a distinct state; a
    longer horizon makes the agent persist in a choice (building a misspelt word to its end).
    The waypoint is summed out by a forward filter over the states it may be, per goal."""

    horizon: int = 3
    beta: float = 1.0
    epsilon: float = 0.05
    name = "partial-plans"

    def __post_init__(self):
        if isinstance(self.horizon, bool) or int(self.horizon) != self.horizon or self.horizon < 1:
            raise ArgumentError(f"horizon must be a whole number of actions, at least 1, not {self.horizon}")
        _check("beta", self.beta, 0.0)
        _check("epsilon", self.epsilon, 0.0, 1.0)
        if self.horizon > 1 and not self.epsilon > 0:
            raise ArgumentError("a partial-plan agent that never slips cannot leave its plan, so a mistake "
                                "would have likelihood zero", hint="give epsilon above 0, or horizon 1")

    def params(self) -> dict:
        return asdict(self)

    def step_likelihoods(self, graph: StateGraph, costs: np.ndarray, path: Path, *, goal_masks=None,
                         reach: Reach | None = None, **_) -> np.ndarray:
        """``goal_masks`` (``bool[G, n]``, where each goal holds) default to where ``costs`` is
        0; ``reach`` (:meth:`Reach.of`) may be given to share it between parameter settings."""
        costs = np.atleast_2d(np.asarray(costs, dtype=np.float64))
        masks = costs == 0 if goal_masks is None else np.atleast_2d(np.asarray(goal_masks, dtype=bool))
        reach = Reach.of(graph, path) if reach is None else reach
        n_goals = costs.shape[0]
        out = np.empty((path.steps, n_goals))
        # the current waypoints' mass per goal, on the states ``held`` (all within the horizon
        # of the state reached: a waypoint followed comes one action closer at every step)
        held, plan = np.zeros(0, dtype=np.int64), np.zeros((n_goals, 0))
        where = np.full(graph.n_states, -1, dtype=np.int64)
        for t in range(path.steps):
            s = int(path.states[t])
            k = int(graph.indptr[s + 1] - graph.indptr[s])
            lands = int(graph.successors[int(path.edges[t])])
            dist = reach.dist[t]
            ball = np.flatnonzero((dist >= 1) & (dist <= self.horizon))
            score = -self.beta * (dist[ball] + costs[:, ball])
            top = score.max(axis=1, keepdims=True) if len(ball) else np.zeros((n_goals, 1))
            top = np.where(np.isfinite(top), top, 0.0)
            with np.errstate(invalid="ignore"):
                weight = np.where(np.isfinite(score), np.exp(score - top), 0.0)
            total = weight.sum(axis=1, keepdims=True)
            # a goal whose estimates are infinite on the whole ball: every waypoint alike
            weight = np.where(total > 0, weight / np.where(total > 0, total, 1.0), 1.0 / max(1, len(ball)))
            where[ball] = np.arange(len(ball))
            carried = np.zeros((n_goals, len(ball)))
            carried[:, where[held]] = plan
            where[ball] = -1
            current = carried + (1.0 - plan.sum(axis=1, keepdims=True)) * weight
            toward = reach.toward[t, ball]
            follow_step = np.where(toward, (1.0 - self.epsilon) / np.maximum(reach.choices[t, ball], 1), 0.0)
            joint = current * (follow_step + self.epsilon / k)
            lik = joint.sum(axis=1)
            done = masks[:, s]
            lik[done] = 1.0 / k
            out[t] = lik
            keep = toward & (ball != lands)
            held = ball[keep]
            plan = joint[:, keep] / np.where(lik > 0, lik, 1.0)[:, None]
            plan[done] = 0.0
        return out


#: The models by name, each made from its keyword parameters.
MODELS = {"boltzmann": Boltzmann, "lapse": Lapse, "goal-noise": GoalNoise, "partial-plans": PartialPlans}
