"""``elot plan`` in a PDDL world: a scenario's actions continued by the agent, written as a
plan that names its problem (a scenario elot reads back).

The agent is a model of :mod:`elot.domains.pddl.agents` (``--model``, default ``boltzmann``:
exact costs, the relaxed plan's length where its goal is lost) at β (``--beta``; default the
model's) with its settings (``--param NAME=VALUE``). Each model's agent acts as the model
says it does: from where the scenario's actions end, its next action is drawn from the
model's own probability of each applicable action given every action before it and its
goal, ``P(a_t | a_<t, g)`` (:attr:`AgentModel.likelihoods` on the path extended by that
action), so a partial plan or a current goal carries over from step to step as the model
sums them out; ``--policy optimal`` takes a most probable action, ties broken by the seed. It
acts until its goal holds or ``--max-steps`` actions are taken. Its goal is ``--goal`` (a
candidate goal by name), else the problem's own ``:goal``.

Judgment points: ``--judge T,...`` (numbers of actions), or ``auto``: where the goal
posterior of the same model moves most as the agent is watched (the largest changes, never
two adjacent, at most ``--points`` of them) and the end.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from elot.domains.agent import choose_points
from elot.domains.front import Episode, Planned, PlanRequest
from elot.domains.pddl.agents import MODELS, AgentModel, Tables, goal_posterior_of
from elot.domains.pddl.goals import Goal, GoalTask
from elot.engine.agents.graph import Path as AgentPath
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


def _task(scene, goal: Goal) -> tuple[GoalTask, int]:
    """The task the agent's model reads (the scene's, with ``goal`` added where it is no
    candidate) and the row of ``goal`` in it."""
    if goal in scene.goals:
        return scene.task, scene.goals.index(goal)
    task = scene.task
    return GoalTask(task.grounded, task.space, (*scene.goals, goal)), len(scene.goals)


def next_action(model: AgentModel, values: dict, task: GoalTask, row: int, states: list[int],
                edges: list[int]) -> np.ndarray:
    """The model's probability of each action applicable where the path ``states`` /
    ``edges`` ends, toward goal ``row`` of ``task``, given every action before it: its
    likelihood of the path extended by that action, at the last step (only the last state
    for a model whose choice depends on nothing before it)."""
    graph = task.graph
    state = states[-1]
    lo, hi = int(graph.indptr[state]), int(graph.indptr[state + 1])
    before_states, before_edges = (states, edges) if not model.markov else ([state], [])
    p = np.empty(hi - lo)
    for j, edge in enumerate(range(lo, hi)):
        path = AgentPath(np.array([*before_states, int(graph.successors[edge])], dtype=np.int64),
                    np.array([*before_edges, edge], dtype=np.int64))
        p[j] = model.likelihoods(Tables(task, path), values)[-1, row]
    return p / p.sum()


def walk(scene, goal: Goal, beta: float, policy: str, seed: int | None, max_steps: int,
         model: str = "boltzmann", params: dict | None = None) -> tuple[list[int], bool]:
    """The action indices the agent of ``model`` (at ``beta``, with ``params``) takes from
    where the scenario's actions end, and whether its goal holds at the end."""
    task, row = _task(scene, goal)
    graph = task.graph
    holds = task.masks([goal.formula])[0]
    path = scene.tables.path
    states, edges = [int(x) for x in path.states], [int(x) for x in path.edges]
    if not np.isfinite(task.exact([goal.formula])[0, states[-1]]):
        raise ScenarioError(f"{scene.name}: the goal {goal.name} cannot be reached from where its actions end",
                            hint="choose another --goal, or a scenario whose actions leave it reachable")
    agent, values = MODELS[model], {"beta": beta, **(params or {})}
    rng = np.random.default_rng(seed)
    taken: list[int] = []
    while not holds[states[-1]] and len(taken) < max_steps:
        state = states[-1]
        lo, hi = int(graph.indptr[state]), int(graph.indptr[state + 1])
        if hi == lo:
            break
        p = next_action(agent, values, task, row, states, edges)
        if policy == "optimal":
            best = np.flatnonzero(p == p.max())
            edge = lo + int(best[rng.integers(len(best))])
        else:
            edge = lo + int(rng.choice(hi - lo, p=p))
        taken.append(int(graph.actions[edge]))
        edges.append(edge)
        states.append(int(graph.successors[edge]))
    return taken, bool(holds[states[-1]])


def auto_points(posterior: np.ndarray, points: int) -> list[int]:
    """Where a goal posterior (``[T + 1, G]``) moves most: the times t whose step changes
    it most (total variation), the largest first, never two adjacent, at most ``points``
    (:func:`~elot.domains.agent.choose_points`, any change above 1e-9); and the end."""
    change = 0.5 * np.abs(np.diff(posterior, axis=0)).sum(axis=1)
    # a change of at most 1e-9 is none: ``still`` is the next float above it
    return [*choose_points(np.concatenate([[0.0], change]), points, still=np.nextafter(1e-9, 1.0)),
            len(posterior) - 1]


def plan(front, episode: Episode, request: PlanRequest) -> Planned:
    """The scenario's actions, then the agent's (see the module docstring), as a plan file."""
    scene = episode.detail
    goal = _goal(scene, request.goal)
    settings = front.settings(request.model or "boltzmann", request.beta, **dict(request.params))
    model, beta, params = settings.model.name, float(settings.model.beta), dict(settings.model.params)
    taken, reached = walk(scene, goal, beta, request.policy, request.seed, request.max_steps, model, params)
    g = scene.task.grounded
    steps = [step.text() for step in scene.steps] + [g.action_text(a) for a in taken]
    if request.judge == "events":
        raise ArgumentError("--judge events: a PDDL world has no events to judge after",
                            hint="give auto, or the judgment points as numbers of actions (4,9,15)")
    if request.judge == "auto":
        path = scene.task.path(tuple(_steps(scene, taken)))
        posterior = goal_posterior_of(model, Tables(scene.task, path), {"beta": beta, **params})
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
             f"{count(len(taken), 'action')} of the {model} agent (β {beta:g}"
             + "".join(f", {k} {v:g}" for k, v in params.items())
             + f", policy {request.policy}, seed {request.seed}) toward {goal.name}"]
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
