"""``elot plan`` in a PDDL world: a scenario's actions continued by the agent, written as a
plan that names its problem (a scenario elot reads back).

The agent is the Boltzmann agent of :mod:`elot.domains.pddl.agents` on exact costs (the
relaxed plan's length where its goal is lost), at β (``--beta``; default the model's): from
where the scenario's actions end, it takes an applicable action with probability ∝
``exp(β Q(s, a))`` (``--policy optimal``: a best one, ties broken by the seed) until its
goal holds or ``--max-steps`` actions are taken. Its goal is ``--goal`` (a candidate goal
by name), else the problem's own ``:goal``.

Judgment points: ``--judge T,...`` (numbers of actions), or ``auto``: where the goal
posterior of the same agent moves most as it is watched (the largest changes, never two
adjacent, at most ``--points`` of them) and the end.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from elot.domains.front import Episode, Planned, PlanRequest
from elot.domains.pddl.agents import Tables, goal_posterior_of
from elot.domains.pddl.goals import Goal
from elot.engine.agents import cost_to_go, distances
from elot.errors import ArgumentError, ScenarioError
from elot.output import count


def _goal(scene, wanted: str | None) -> Goal:
    """The goal the agent acts toward: the candidate named ``wanted`` (its name or its
    object in the signature), else the problem's own goal."""
    if wanted is None:
        true = scene.true_goal
        return next((g for g in scene.goals if g.name == true), None) or Goal("goal", scene.problem.goal)
    for goal, obj in zip(scene.goals, scene.language.goals):
        if wanted in (goal.name, obj):
            return goal
    raise ArgumentError(f"--goal {wanted!r} is no candidate goal of {scene.name}",
                        hint="its candidate goals: " + ", ".join(g.name for g in scene.goals))


def _costs(scene, goal: Goal) -> tuple[np.ndarray, np.ndarray]:
    """The agent's costs-to-go toward ``goal`` (``float64[n]``) and where it holds."""
    task = scene.task
    mask = task.masks([goal.formula])
    exact = distances(task.graph, mask)
    return cost_to_go(exact, cost_to_go(task.relaxed([goal.formula], kind="ff")))[0], mask[0]


def walk(scene, goal: Goal, beta: float, policy: str, seed: int | None, max_steps: int) -> tuple[list[int], bool]:
    """The action indices the agent takes from where the scenario's actions end, and
    whether its goal holds at the end."""
    task = scene.task
    graph = task.graph
    costs, holds = _costs(scene, goal)
    state = int(scene.tables.path.states[-1])
    if not np.isfinite(task.exact([goal.formula])[0, state]):
        raise ScenarioError(f"{scene.name}: the goal {goal.name} cannot be reached from where its actions end",
                            hint="choose another --goal, or a scenario whose actions leave it reachable")
    rng = np.random.default_rng(seed)
    taken: list[int] = []
    while not holds[state] and len(taken) < max_steps:
        lo, hi = int(graph.indptr[state]), int(graph.indptr[state + 1])
        if hi == lo:
            break
        q = -(1.0 + costs[graph.successors[lo:hi]])
        if policy == "optimal":
            best = np.flatnonzero(q == q.max())
            edge = lo + int(best[rng.integers(len(best))])
        else:
            p = np.exp(beta * (q - q.max()))
            edge = lo + int(rng.choice(hi - lo, p=p / p.sum()))
        taken.append(int(graph.actions[edge]))
        state = int(graph.successors[edge])
    return taken, bool(holds[state])


def auto_points(posterior: np.ndarray, points: int) -> list[int]:
    """Where a goal posterior (``[T + 1, G]``) moves most: the times t whose step changes
    it most (total variation), the largest first, never two adjacent, at most ``points``;
    and the end."""
    steps = len(posterior) - 1
    change = 0.5 * np.abs(np.diff(posterior, axis=0)).sum(axis=1)
    chosen: list[int] = []
    for t in (np.argsort(-change, kind="stable") + 1):
        t = int(t)
        if len(chosen) >= points or change[t - 1] <= 1e-9:
            break
        if t < steps and all(abs(t - c) > 1 for c in chosen):
            chosen.append(t)
    return sorted(set(chosen) | {steps})


def plan(front, episode: Episode, request: PlanRequest) -> Planned:
    """The scenario's actions, then the agent's (see the module docstring), as a plan file."""
    scene = episode.detail
    goal = _goal(scene, request.goal)
    beta = front.model_beta("boltzmann") if request.beta is None else float(request.beta)
    taken, reached = walk(scene, goal, beta, request.policy, request.seed, request.max_steps)
    g = scene.task.grounded
    steps = [step.text() for step in scene.steps] + [g.action_text(a) for a in taken]
    if request.judge == "events":
        raise ArgumentError("--judge events: a PDDL world has no events to judge after",
                            hint="give auto, or the judgment points as numbers of actions (4,9,15)")
    if request.judge == "auto":
        path = scene.task.path(tuple(_steps(scene, taken)))
        posterior = goal_posterior_of("boltzmann", Tables(scene.task, path), {"beta": beta})
        judged = auto_points(posterior, request.points)
    else:
        judged = sorted(set(int(t) for t in request.judge))
        bad = [t for t in judged if t > len(steps)]
        if bad:
            raise ArgumentError(f"--judge {bad[0]} is past the plan's {count(len(steps), 'action')}",
                                hint=f"judgment points are numbers of actions, 0 to {len(steps)}")
    # as the paths were given (links kept): a plan written beside its problem names it beside
    where = os.path.dirname(os.path.abspath(request.output)) if request.output else os.getcwd()
    named = Path(os.path.relpath(os.path.abspath(scene.problem.path), where)).as_posix()
    lines = [f"; problem: {named}", *([f"; goal: {goal.name}"] if goal in scene.goals else []),
             f"; {count(len(steps), 'action')}: {count(len(scene.steps), 'action')} of {scene.name}, then "
             f"{count(len(taken), 'action')} of the boltzmann agent (β {beta:g}, policy {request.policy}, seed "
             f"{request.seed}) toward {goal.name}"]
    if 0 in judged:
        lines.append(";")
    for k, text in enumerate(steps, 1):
        lines.append(text)
        if k in judged:
            lines.append(";")
    notes = () if reached else (f"warning: {scene.name}: the agent did not reach {goal.name} within "
                                f"{request.max_steps} actions; its plan is written unfinished",)
    return Planned("\n".join(lines) + "\n", notes,
                   f"{count(len(taken), 'action')} simulated toward {goal.name}, {count(len(steps), 'action')} in "
                   f"all; judgment points ({'auto' if request.judge == 'auto' else 'given'}): "
                   + ", ".join(map(str, judged)))


def _steps(scene, taken: list[int]):
    """The scenario's plan steps and the agent's, as plan steps."""
    from elot.domains.pddl.read import PlanStep

    g = scene.task.grounded
    return list(scene.steps) + [PlanStep(g.actions[a][0], tuple(g.actions[a][1])) for a in taken]
