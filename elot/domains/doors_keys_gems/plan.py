"""New scenarios from a map: simulate the agent and suggest judgment points (``elot plan``).

:func:`plan` runs the model's own agent (:func:`elot.domains.doors_keys_gems.agent.run_agent`) in a map and
returns a complete ``.scn`` text — map, hidden state, goal, a description, the actions
one line per subgoal, judgment points — that ``elot run``, ``repl`` and ``batch`` read
back unchanged. Judgment points come

* ``"auto"``: at most ``points`` times where the observer's inference moves most
  (:func:`movement`), never two adjacent, never right after a move that gained nothing
  or a step back onto a cell walked since the agent last did something other than move
  (:func:`choose_points`, :func:`back_steps`);
* ``"events"``: right after a box is opened, a key picked up or a door unlocked
  (:func:`event_points`);
* or as given (times t = number of actions taken, in 0..T).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from elot.domains.agent import choose_points
from elot.domains.doors_keys_gems.agent import (DEFAULT_MAX_STEPS, Simulation, SimulationError, check_simulation_size,
                             describe_belief, describe_hidden, run_agent)
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.scn_write import format_scn
from elot.domains.doors_keys_gems.world import MOVES, Action, WorldState
from elot.errors import ElotError
from elot.settings import DEFAULT_BETA, DEFAULT_K, DEFAULT_POINTS, DEFAULT_VARIANT, JUDGE_MODES
#: The first line of every file ``elot plan`` writes (how one is recognized to replace it).
HEADER = "# elot plan:"


@dataclass(frozen=True)
class Subgoal:
    """Actions ``start:end`` of a plan, ending with the event they lead to, in words."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, eq=False)
class Plan:
    """What :func:`plan` made: the simulation, the scenario as ``text`` reads back, the
    ``.scn`` text, the subgoals and, with ``judge="auto"``, the movement at each t."""

    simulation: Simulation
    scenario: Scenario
    text: str
    subgoals: tuple[Subgoal, ...]
    judge: str
    movement: np.ndarray | None = None


# -- subgoals and events ----------------------------------------------------------------


def _event(state: WorldState, action: Action, goal: str | None) -> str | None:
    """The action in words when it is an event (open, pick up, unlock), else None."""
    name = action[0]
    if name == "open":
        inside = [state.key(k).colour for k in state.box_contents(action[1])]
        return f"open {action[1]}: " + (", ".join(f"a {c} key" for c in inside) if inside else "empty")
    if name == "pickup" and state.layout.is_key(action[1]):
        ks = state.key(action[1])
        where = f" from {ks.where[1]}" if ks.where[0] == "box" else ""
        return f"pick up the {ks.colour} key ({action[1]}){where}"
    if name == "pickup":
        return f"pick up {action[1]}" + (", the goal" if action[1] == goal else "")
    if name == "unlock":
        return f"unlock {action[2]} ({state.layout.door_colour(action[2])}) with {action[1]}"
    return None


def subgoals(initial: WorldState, actions: Sequence[Action], goal: str | None = None) -> tuple[Subgoal, ...]:
    """The actions cut after every event (opening a box, picking up a key or a gem,
    unlocking a door), each piece described by its event; moves after the last event
    are a piece of their own ("move")."""
    out: list[Subgoal] = []
    state, start = initial, 0
    for t, action in enumerate(actions):
        text = _event(state, action, goal)
        state = state.step(action)
        if text is not None:
            out.append(Subgoal(start, t + 1, text))
            start = t + 1
    if start < len(actions):
        out.append(Subgoal(start, len(actions), "move"))
    return tuple(out)


def event_points(initial: WorldState, actions: Sequence[Action]) -> tuple[int, ...]:
    """The times right after a box is opened, a key picked up or a door unlocked (not the
    end: picking up the goal ends the plan). Of two events one step apart (opening a box
    and taking its key) only the later is kept, so that every segment shows a move."""
    out: list[int] = []
    state = initial
    for t, action in enumerate(actions, 1):
        is_event = action[0] in ("open", "unlock") or (action[0] == "pickup" and state.layout.is_key(action[1]))
        state = state.step(action)
        if not is_event or t == len(actions):
            continue
        if out and out[-1] == t - 1:
            out[-1] = t
        else:
            out.append(t)
    return tuple(out)


# -- where the observer's inference moves ------------------------------------------------


def movement(inference) -> np.ndarray:
    """``m[t]`` for t = 0..T: how far the observer's inference moves with action t — the
    total variation distance between the posteriors after t-1 and t actions over the
    goal, over the agent's initial belief, and of the expected current belief, summed
    (``m[0] = 0``)."""
    space = inference.space
    out = np.zeros(inference.steps + 1)
    before = None
    for t in range(inference.steps + 1):
        post = inference.posterior(t).reshape(space.n_goals, space.n_states, space.n_beliefs)
        pair = post.sum(axis=0)
        now = (post.sum(axis=(1, 2)), pair.sum(axis=0), np.einsum("sb,sbj->j", pair, inference.beliefs(t)))
        if before is not None:
            out[t] = sum(0.5 * np.abs(a - b).sum() for a, b in zip(now, before))
        before = now
    return out


def back_steps(initial: WorldState, actions: Sequence[Action]) -> tuple[bool, ...]:
    """Per action: whether it is a move back onto a cell the agent stood on since its last
    action other than a move (what an observer sees as a step back with nothing done in
    between). No automatic judgment point follows one (:func:`plan`)."""
    state, since, out = initial, {initial.agent_pos}, []
    for action in actions:
        state = state.step(action)
        if action[0] in MOVES:
            out.append(state.agent_pos in since)
        else:
            since = set()
            out.append(False)
        since.add(state.agent_pos)
    return tuple(out)


# -- the scenario ---------------------------------------------------------------------


def _scn_form(scenario: Scenario) -> tuple[Scenario, dict[str, str]]:
    """The map of ``scenario`` as a ``.scn`` reads it (objects named in reading order),
    and the names of ``scenario``'s objects there; a start state the format cannot
    write (held items, open boxes, unlocked doors) is a :class:`SimulationError`."""
    state = scenario.initial
    layout = state.layout
    if state.held_gems or any(ks.where == ("held",) for _, ks in state.keys) \
            or state.closed != {b for b, _ in layout.boxes} or state.locked != {d for d, _, _ in layout.doors}:
        raise SimulationError(
            f"{scenario.name}: the agent starts holding something, or with a box open or a door unlocked, "
            "which a .scn map cannot say",
            hint="start from a map in which every box is closed, every door locked and nothing held")
    bare = replace(scenario, actions=(), judgments=(), markers=(), action_lines=())
    parsed = parse_scn_text(format_scn(bare))
    names: dict[str, str] = {}
    for mine, theirs in ((layout.gems, parsed.layout.gems), (layout.boxes, parsed.layout.boxes)):
        at = {pos: name for name, pos in theirs}
        names.update({name: at[pos] for name, pos in mine})
    at = {pos: name for name, pos, _ in parsed.layout.doors}
    names.update({name: at[pos] for name, pos, _ in layout.doors})
    placed = {(ks.where, ks.colour): k for k, ks in parsed.initial.keys if ks.where[0] in ("cell", "box")}
    names.update({k: placed[(ks.where, ks.colour)] for k, ks in state.keys if ks.where[0] in ("cell", "box")})
    if parsed.initial.render() != state.render():
        raise SimulationError(f"{scenario.name}: its map does not survive writing as .scn",
                              hint="this is a bug in elot; please report it with the map")
    return parsed, names


def _renamed_belief(belief, scenario: Scenario, names: dict[str, str]):
    """A belief given as text, read against ``scenario``'s objects and renamed as the
    ``.scn`` names them (keywords and weights are left as they are)."""
    from elot.domains.doors_keys_gems.agent import read_belief
    from elot.lang.states import Belief, State

    if isinstance(belief, str):
        belief = read_belief(belief, scenario.signature())
    if not isinstance(belief, Belief):
        return belief
    # key names stand for any key (elot.domains.doors_keys_gems.agent.initial_belief): only the others move
    keys = set(scenario.layout.keys)
    return Belief.of((State(frozenset((a[0], *(x if x in keys else names.get(x, x) for x in a[1:]))
                                      for a in state.atoms)), w)
                     for state, w in belief.support)


def _explicit_points(points: Sequence[int], T: int) -> tuple[int, ...]:
    for t in points:
        if not 0 <= t <= T:
            raise SimulationError(
                f"judgment point t={t} is past the end of the plan: the agent took {T} actions",
                hint=f"give judgment points in 0..{T}, or --judge auto")
    return tuple(sorted(set(points)))


def check_inference_size(scenario: Scenario, n_states: int) -> None:
    """Refuse ``judge="auto"`` where the observer's exact inference it runs would be
    refused for its size (:func:`elot.domains.doors_keys_gems.hypotheses.check_size`: the same limit and
    memory budget), before anything is simulated; the simulated plan's length is not
    known yet and is counted as none, a lower bound."""
    from elot.domains.doors_keys_gems.hypotheses import MAX_HYPOTHESES, check_size
    from elot.domains.doors_keys_gems.costs import space_size

    n_goals = len(scenario.layout.gems)
    try:
        check_size(DEFAULT_VARIANT, n_goals, n_states, DEFAULT_K, MAX_HYPOTHESES)
    except ElotError:
        hypotheses, peak = space_size(DEFAULT_VARIANT, n_goals, n_states, DEFAULT_K)
        raise SimulationError(
            f"--judge auto runs the observer's exact inference, and its hypothesis space is too large: "
            f"{hypotheses:,} hypotheses for {n_states:,} initial states, at least {peak / 2**30:,.1f} GiB "
            f"(the limit is {MAX_HYPOTHESES:,} hypotheses and half the memory available now)",
            hint="give the judgment points (--judge events, or times such as --judge 4,9,15), or use a map "
                 "with fewer closed boxes or fewer hidden keys") from None


def plan(
    scenario: Scenario,
    *,
    goal: str | None = None,
    belief="uniform",
    beta: float = DEFAULT_BETA,
    policy: str = "boltzmann",
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    judge: str | Sequence[int] = "auto",
    points: int = DEFAULT_POINTS,
    name: str | None = None,
    backend: str = "core",
    purposeful: bool = True,
) -> Plan:
    """Simulate the agent in ``scenario``'s map (see :func:`elot.domains.doors_keys_gems.agent.run_agent` for
    ``goal``, ``belief``, ``beta``, ``policy``, ``seed`` and ``max_steps``) and write the
    result as a ``.scn`` text with judgment points (``judge``: ``"auto"`` with at most
    ``points`` points, ``"events"``, or the times). The agent is purposeful by default
    (it never returns to a cell without having learnt something, so that it looks like
    the paper's agents and reaches its goal on large maps); ``purposeful=False`` simulates
    the model's own agent exactly (SPEC §8). The scenario's statements are kept;
    its actions are replaced. Raises :class:`~elot.domains.doors_keys_gems.agent.SimulationError` for what
    the simulation refuses and for judgment points past the end."""
    if isinstance(judge, str) and judge not in JUDGE_MODES:
        raise SimulationError(f"unknown judgment mode {judge!r}",
                              hint="use auto, events, or times such as 4,9,15")
    if points < 1:
        raise SimulationError(f"the number of judgment points must be at least 1, not {points}")
    bare, names = _scn_form(scenario)
    n_states = check_simulation_size(bare.initial)      # before any work, as the inference below
    if judge == "auto":
        check_inference_size(bare, n_states)
    # Simulated in the map as the .scn names it, so that every name the simulation and its
    # errors use is one the written file uses too (the dataset's names are the same).
    simulation = run_agent(bare, goal=None if goal is None else names.get(goal, goal),
                          belief=_renamed_belief(belief, scenario, names), beta=beta, policy=policy,
                          seed=seed, max_steps=max_steps, backend=backend, purposeful=purposeful)
    actions, out_goal = simulation.actions, simulation.goal
    agent = "an optimal agent" if policy == "optimal" else f"a Boltzmann QMDP agent (β = {beta:.3g})"
    if purposeful:      # "a purposeful optimal agent", "a purposeful Boltzmann QMDP agent (β = 2.83)"
        agent = f"a purposeful {agent.split(' ', 1)[1]}, which never steps back without news,"
    description = (f"Simulated by elot plan: {agent} wants {out_goal} and initially believes "
                   f"{describe_belief(simulation.states, simulation.belief)}; the true state is "
                   f"{{{describe_hidden(simulation.states[simulation.true_state])}}}. Seed {seed}.")
    out = replace(bare, name=name or f"{scenario.name}-{out_goal}", description=description, actions=actions,
                  true_goal=out_goal, statements=scenario.statements, path=None)
    steps = tuple(subgoals(out.initial, actions, out_goal))
    move = None
    if judge == "auto":
        move = movement(infer(out, beta=beta, backend=backend))
        whims = [a or b for a, b in zip(simulation.aimless, back_steps(out.initial, actions))]
        chosen = choose_points(move, points, whims)
        how = f"auto: at most {points} points where the observer's inference moves most"
    elif judge == "events":
        chosen = event_points(out.initial, actions)
        how = "events: after a box is opened, a key picked up, a door unlocked"
    else:
        chosen = _explicit_points(judge, len(actions))
        how = "given"
    out = replace(out, judgments=chosen, markers=chosen)
    head = [f"{HEADER} {len(actions)} actions to {out_goal}, one line per subgoal.",
            f"# Judgment points ({how}): {', '.join(map(str, chosen)) or 'none'} "
            "(t = actions taken; `|` in the actions)."]
    if move is not None and chosen:
        head.append("# Movement of the observer's inference there: "
                    + ", ".join(f"t={t}: {move[t]:.2f}" for t in chosen) + ".")
    text = "\n".join(head) + "\n" + format_scn(out, [(s.start, s.end, s.text) for s in steps])
    read = parse_scn_text(text)
    if read.actions != actions or read.judgments != chosen or read.true_goal != out_goal:
        raise SimulationError("the written scenario does not read back as simulated",
                              hint="this is a bug in elot; please report it with the command")
    return Plan(simulation, read, text, steps, judge if isinstance(judge, str) else "given", move)
