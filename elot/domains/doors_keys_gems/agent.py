"""The agent of SPEC §5 run forward: simulate what it does in a map (SPEC §8).

Given its goal gem, the true hidden state of the map and its initial belief (weights over
the initial states the model considers, :func:`elot.domains.doors_keys_gems.hypotheses.initial_states`), the
agent repeats until it holds its goal:

1. it perceives: belief states that disagree with what it sees in the true world are
   ruled out, and the rest renormalized (``filter_beliefs`` of the BToM core);
2. it acts by the Boltzmann QMDP policy at β (``policy="boltzmann"``), or takes the action
   the policy likes best (``policy="optimal"``, ties broken by the seeded generator);
3. the world moves on.

A QMDP agent that has learnt nothing new can dither: under a belief spread over many
boxes the expected cost to go has local minima away from every box, where it steps back
and forth for ever (a 20×20 map with 12 boxes never saw its goal in 500 steps, whatever
the policy), and a Boltzmann agent steps back on a whim (``left, right``). The
*purposeful* agent (``purposeful=True``: ``elot plan``'s default, for stimuli; the default
here stays the model's own agent of SPEC §8, which model recovery needs) does not step
back on a whim: when the policy's action would take it back to a cell it has stood on
since it last learnt something (a box opened, an observation that ruled states out, a
key or gem picked up, a door unlocked), it commits to the world it believes most likely
(the cheapest to its goal among equally likely ones) and follows that world's shortest
plan until it learns something (among equally short steps, one that does not return to a
walked cell). Nor does it make a move it would take straight back (:func:`_undone`): a
move that can teach it nothing, after which the plan it would follow starts with the
reverse move, is replaced by following that plan from where it stands; so no move is
followed by its reverse with nothing learnt in between. The plan it follows never goes
in circles, and it ends by opening the box the world puts the key in,
which either succeeds or rules the world out: the agent always gets closer to its goal
and reaches it if it can.

Each step reads the path costs of :class:`~elot.domains.doors_keys_gems.engine.AgentPlanner` (through the
scenario's :class:`~elot.domains.doors_keys_gems.model.GridWorldModel`) and the action probabilities of
:func:`~elot.engine.worlds.acting.action_log_probabilities` (the loop is the engine's,
:func:`elot.engine.worlds.acting.act`): the code that
scores an observed action during inference, so that simulating and inverting are one
model. A state the belief leaves out keeps weight ε (as in the model's particle beliefs),
so an agent that sees every state it believed in ruled out falls back to the states
still possible.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from btom_ext.reference import AGENT, EPSILON
from elot.domains.doors_keys_gems import costs
from elot.engine.budget import Limits, OverBudget, check, format_bytes
from elot.domains.doors_keys_gems.hypotheses import Prior, count_model_states, initial_states
from elot.domains.doors_keys_gems.config import InferenceConfig
from elot.domains.doors_keys_gems.engine import check_backend_limits, load_backend, step_or_stay
from elot.domains.doors_keys_gems.model import GridWorldModel
from elot.engine.worlds.acting import Step, act, action_log_probabilities
from elot.domains.doors_keys_gems.world import MOVES, Action, WorldState
from elot.errors import ElotError
from elot.settings import DEFAULT_BETA, DEFAULT_MAX_STEPS, POLICIES

#: Belief keywords: uniform over the initial states, or certainty in the true one.
BELIEF_WORDS = ("uniform", "true")

class SimulationError(ElotError):
    """A simulation that cannot be run: no reachable goal, a belief that matches no initial
    state or makes the goal unreachable, an agent that does not reach its goal in time."""

    kind = "simulation error"


@dataclass(frozen=True, eq=False)
class Simulation:
    """One simulated agent: its goal, the initial states its belief ranges over (the
    model's, in the model's order), its initial belief over them, which of them is true,
    and what it did (each action with the log probability the policy gave it)."""

    scenario: object          # the input scenario with the simulated actions
    goal: str
    states: tuple[WorldState, ...]
    belief: np.ndarray        # initial weights over ``states`` (ε where none)
    true_state: int
    actions: tuple[Action, ...]
    log_probabilities: tuple[float, ...]
    beta: float
    policy: str
    seed: int
    #: per action: a move that gained nothing (not one of the best under the agent's belief
    #: then, or back onto a cell it stood on since it last learnt something; a purposeful
    #: agent's moves on the plan of the world it committed to gain something there)
    aimless: tuple[bool, ...] = ()
    purposeful: bool = False


def hidden_keys(state: WorldState) -> tuple[tuple[str, str | None], ...]:
    """``(box, colour)`` of every key inside a closed box, sorted."""
    return tuple(sorted((ks.where[1], ks.colour) for _, ks in state.keys
                        if ks.where[0] == "box" and ks.where[1] in state.closed))


def describe_hidden(state: WorldState) -> str:
    """What the closed boxes hold, in words: ``box1: red key, box2: empty``."""
    held = dict(hidden_keys(state))
    boxes = [b for b, _ in state.layout.boxes if b in state.closed]
    if not boxes:
        return "no closed boxes"
    return ", ".join(f"{b}: {held[b] + ' key' if b in held else 'empty'}" for b in boxes)


def model_states(true_state: WorldState, prior: Prior = Prior()) -> tuple[tuple[WorldState, ...], int]:
    """The initial states the model considers for a map (the ``prior``'s family, as
    inference uses it), and the index of the true one.

    A map whose true hidden keys are not among them (more than the family allows, or a
    colour no goal needs) is a :class:`SimulationError`: an observer running the model
    could not explain the agent."""
    family = prior.resolve(true_state)
    states = initial_states(true_state, family)
    truth = hidden_keys(true_state)
    for index, state in enumerate(states):
        if hidden_keys(state) == truth:
            return states, index
    raise SimulationError(
        f"the map's hidden keys ({describe_hidden(true_state)}) are not among the {len(states)} initial "
        "states the model considers, so no observer running the model could explain the agent",
        hint=f"hide at most {family.max_hidden} keys, of the colours some goal needs",
    )


class SimulationTooLarge(OverBudget, SimulationError):
    """A simulation refused before any work for its estimated memory."""


def check_simulation_size(true_state: WorldState, prior: Prior = Prior(), *,
                          max_bytes: int | None = None) -> int:
    """Refuse a simulation that would need more than ``max_bytes`` (default: half the
    memory available now, the budget inference uses), before any work, with the estimate
    and what to change; else the number of initial states."""
    n_states = count_model_states(true_state, prior)
    family = prior.resolve(true_state)
    closed = sum(1 for b, _ in true_state.layout.boxes if b in true_state.closed)
    layout = true_state.layout
    estimate = costs.simulation_estimate(
        layout.width * layout.height, n_states,
        f"its belief ranges over {n_states:,} initial states: {family.max_hidden} hidden key(s) in {closed} "
        "closed boxes")
    check(estimate, Limits(max_bytes=max_bytes), error=SimulationTooLarge,
          hint="use a map with fewer closed boxes or fewer hidden keys (elot generate --boxes N --hidden N), "
               "or free memory")
    return n_states


def read_belief(spec: str, signature=None):
    """A belief option's text: ``"uniform"`` or ``"true"`` as they are, else a
    :class:`~elot.lang.semantics.Belief` read by ``Belief.parse`` (errors point into the
    text, as ``--belief``); a single word that is neither keyword is an error."""
    from elot.lang.states import Belief

    word = spec.strip().lower()
    if word in BELIEF_WORDS:
        return word
    if ":" not in spec:
        close = difflib.get_close_matches(word, BELIEF_WORDS, n=1)
        raise SimulationError(f"unknown belief {spec.strip()!r}",
                              hint=(f"did you mean {close[0]}? " if close else "") + f"use uniform, true, or {_EXAMPLE}")
    return Belief.parse(spec, path="--belief", signature=signature)


_EXAMPLE = "weights over what the boxes hold: 0.5: inside(key1, box1), iscolor(key1, red) | 0.5: inside(key1, box2)"


def initial_belief(spec, states: tuple[WorldState, ...], true_state: int, signature=None) -> np.ndarray:
    """The agent's initial weights over ``states`` (ε where zero).

    ``spec`` is ``"uniform"``, ``"true"`` (certainty in ``states[true_state]``), a belief
    in the syntax of :meth:`elot.lang.semantics.Belief.parse` (text or a ``Belief``), or
    weights over ``states``. Each part ``weight: atoms`` of a belief says what the closed
    boxes hold, as a state lists its atoms: the boxes it puts no key ``inside`` are empty,
    a key without ``iscolor`` may be any colour, and key names stand for any key (keys are
    told apart by colour and place): ``1: inside(key1, box1), iscolor(key1, red)`` is "a
    red key in box 1 and nothing in the other boxes". Its weight is spread evenly over the
    initial states it describes; a part that describes none of them is an error.
    """
    n = len(states)
    if isinstance(spec, str):
        spec = read_belief(spec, signature)
        if spec == "uniform":
            return np.full(n, 1.0 / n)
        if spec == "true":
            return np.where(np.arange(n) == true_state, 1.0, EPSILON)
    if isinstance(spec, np.ndarray) or isinstance(spec, (list, tuple)):
        weights = np.asarray(spec, dtype=np.float64)
        if weights.shape != (n,) or not np.all(np.isfinite(weights)) or (weights < 0).any() \
                or abs(weights.sum() - 1.0) > 1e-9:
            raise SimulationError(f"a belief needs {n} non-negative weights summing to 1, one per initial state",
                                  hint=f"or give it as text: uniform, true, or {_EXAMPLE}")
    else:
        weights = _match(spec, states, signature)
    return np.where(weights > 0, weights, EPSILON)


def _match(belief, states: tuple[WorldState, ...], signature) -> np.ndarray:
    from elot.lang.semantics import evaluate
    from elot.lang.states import State

    worlds = [State(s.atoms()) for s in states]
    layout = states[0].layout
    keys = set(layout.keys)
    closed = states[0].closed
    filled = [{b for b, _ in hidden_keys(s)} for s in states]
    weights = np.zeros(len(states))
    for n, (part, weight) in enumerate(belief.support, 1):
        boxes = [a[2] for a in part.atoms if a[0] == "inside" and a[2] in closed]
        if len(boxes) != len(set(boxes)):
            raise SimulationError(f"part {n} of the belief ({weight:g}: {part}) puts two keys in one box",
                                  hint="the model's states hold at most one key per box")
        formula = _as_formula(part.atoms, keys)
        hits = [j for j, world in enumerate(worlds) if filled[j] == set(boxes)
                and (formula is None or evaluate(formula, world, signature=signature))]
        if not hits:
            listed = "; ".join(f"{j + 1}. {describe_hidden(s)}" for j, s in enumerate(states))
            raise SimulationError(
                f"part {n} of the belief ({weight:g}: {str(part) or 'every box empty'}) describes none of the initial "
                f"states the model considers: {listed}",
                hint=f"say what the agent believes the closed boxes hold, as {_EXAMPLE} "
                     "(boxes a part leaves out are empty)")
        weights[hits] += weight / len(hits)
    return weights


def _as_formula(atoms, keys: set[str]) -> str | None:
    """The atoms as one ELoT formula, every key name read as a variable bound to a key
    (None for no atoms: a part that holds in every state)."""
    names = sorted({a for atom in atoms for a in atom[1:] if a in keys})
    var = {k: f"K{i}" for i, k in enumerate(names, 1)}
    parts = [f"{a[0]}({', '.join(var.get(x, x) for x in a[1:])})" if len(a) > 1 else a[0] for a in sorted(atoms)]
    if not parts:
        return None
    body = parts[0] if len(parts) == 1 else f"and({', '.join(parts)})"
    if not names:
        return body
    conds = [f"key({var[k]})" for k in names]
    cond = conds[0] if len(conds) == 1 else f"and({', '.join(conds)})"
    return f"exists({cond}, {body})"


def describe_belief(states: tuple[WorldState, ...], belief: np.ndarray) -> str:
    """The belief in words: ``1/2 box1: red key; 1/2 box1: empty`` (states with weight ε
    left out)."""
    counted = belief[belief > EPSILON]
    if len(counted) == len(states) > 1 and np.all(counted == counted[0]):
        return f"uniform over the {len(states)} initial states the model considers"
    parts = []
    for state, w in zip(states, belief):
        if w > EPSILON:
            parts.append(f"{Fraction(float(w)).limit_denominator(1000)} {{{describe_hidden(state)}}}")
    return "; ".join(parts)


def check_goal(scenario, goal: str | None) -> str:
    """The goal to simulate: ``goal``, else the scenario's marked goal; an unknown gem or
    none at all is a :class:`SimulationError`."""
    gems = [g for g, _ in scenario.layout.gems]
    if goal is None:
        goal = scenario.true_goal
        if goal is None:
            raise SimulationError("the map marks no goal gem, and none was given",
                                  hint=f"give the goal: --goal GEM (gems: {', '.join(gems)}), or mark it G in the map")
    if goal not in gems:
        close = difflib.get_close_matches(goal, gems, n=1)
        raise SimulationError(f"unknown goal {goal!r}",
                              hint=(f"did you mean {close[0]}? " if close else "") + f"the map's gems: {', '.join(gems)}")
    return goal


def run_agent(
    scenario,
    *,
    goal: str | None = None,
    belief="uniform",
    beta: float = DEFAULT_BETA,
    policy: str = "boltzmann",
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    prior: Prior = Prior(),
    backend: str = "core",
    purposeful: bool = False,
) -> Simulation:
    """Simulate the agent of SPEC §5 in ``scenario``'s map (its actions, if any, are
    ignored) from its true initial state until it holds ``goal`` (default: the scenario's
    goal). ``belief`` is read by :func:`initial_belief`; ``purposeful`` keeps the agent from
    returning where it stood without having learnt anything (see the module; off, the
    agent is exactly the model's). Raises :class:`SimulationError`
    for an unknown goal, a goal that cannot be reached in the true map or in any state
    the belief counts, a belief that matches no initial state, or an agent that has not
    reached its goal after ``max_steps`` actions."""
    if policy not in POLICIES:
        raise SimulationError(f"unknown policy {policy!r}", hint=f"use one of: {', '.join(POLICIES)}")
    if not (np.isfinite(beta) and beta > 0):
        raise SimulationError(f"β must be a positive number, not {beta}", hint=f"e.g. {DEFAULT_BETA:.3g}, the default")
    if max_steps < 1:
        raise SimulationError(f"the step limit must be at least 1, not {max_steps}")
    goal = check_goal(scenario, goal)
    core = load_backend(backend)
    layout = scenario.layout
    check_backend_limits(core, backend, layout)
    real = scenario.initial
    n_states = check_simulation_size(real, prior)     # before any work
    try:
        return _simulate(scenario, core, goal, belief, beta, policy, seed, max_steps, prior, purposeful)
    except MemoryError as error:
        need = costs.simulation_estimate(layout.width * layout.height, n_states).bytes
        raise SimulationError(
            f"the simulation ran out of memory ({error}); it was estimated at about {format_bytes(need)} "
            f"for {n_states:,} initial states",
            hint="use a map with fewer closed boxes or fewer hidden keys, or free memory") from None


def _simulate(scenario, core, goal, belief, beta, policy, seed, max_steps, prior, purposeful) -> Simulation:
    layout = scenario.layout
    real = scenario.initial
    # The agent's own world model: the full model's planner, the map's own naming.
    model = GridWorldModel(scenario, InferenceConfig(), core=core)
    model.plan((goal,))
    planner, enc = model.planner, model.enc
    gems = [g for g, _ in layout.gems]
    g = enc.gem_index(goal)
    reachable = planner.path_costs(enc.encode(real)[None, :])[0]
    if (reachable < 0).all():
        raise SimulationError("no gem can be reached in the true map: the keys the doors need are not there",
                              hint="put keys of the doors' colours on the map or in boxes")
    if reachable[g] < 0:
        can = [gem for gem, h in zip(gems, reachable) if h >= 0]
        raise SimulationError(f"{goal} cannot be reached in the true map: the keys it needs are not there",
                              hint=f"gems the agent can reach: {', '.join(can)}")
    states, truth = model_states(real, prior)
    weights = initial_belief(belief, states, truth, scenario.signature())
    rows = enc.encode_many(states)
    believed = weights > EPSILON
    if (planner.path_costs(rows[believed])[:, g] < 0).all():
        raise SimulationError(
            f"the agent's belief makes {goal} unreachable: in every state it believes possible "
            f"({describe_belief(states, weights)}) no key opens the way",
            hint="give the agent a belief in which its goal can be reached (e.g. --belief uniform)")

    walk = _Walk(model, beta, purposeful)

    def too_long(done: list) -> SimulationError:
        opened = sum(1 for a in done if a[0] == "open")
        return _too_long(goal, max_steps, model.real[-1], opened, policy, beta, purposeful)

    actions, logps = act(model, states, weights, goal, beta=beta, policy=policy, rng=np.random.default_rng(seed),
                         max_steps=max_steps, too_long=too_long, steering=walk)
    simulated = replace(scenario, actions=tuple(actions), judgments=(), markers=(), action_lines=(), true_goal=goal)
    return Simulation(simulated, goal, states, weights, truth, tuple(actions), tuple(logps), beta, policy, seed,
                      tuple(walk.aimless), purposeful)


class _Walk:
    """How the agent walks (the engine's :class:`~elot.engine.worlds.acting.Steering`): the cells
    it has stood on since it last learnt something, whether each move was aimless (one
    back onto such a cell, or one the policy does not like best, when not following a
    plan), and, when ``purposeful``, the plan it commits to instead of stepping back (see
    the module)."""

    def __init__(self, model: GridWorldModel, beta: float, purposeful: bool) -> None:
        self.model, self.beta, self.purposeful = model, beta, purposeful
        self.visited = {model.scenario.initial.agent_pos}
        self.committed: int | None = None   # the world it follows (purposeful, after a would-be return)
        self.aimless: list[bool] = []

    def choose(self, step: Step, chosen: int) -> int:
        model, options = self.model, step.options
        real = model.real[-1]
        returns = np.array([_destination(real, o) in self.visited for o in options])
        following = self.purposeful and (self.committed is not None or returns[chosen])
        if self.purposeful and not following and options[chosen][0] in MOVES and _undone(
                model.planner, model.core, real, model.worlds, model.rows[:-1], step.belief, options[chosen],
                self.visited, model.goal_columns, self.beta):
            following = True      # a move it would take back: it commits here instead
        if following:
            if self.committed is None or step.belief[self.committed] <= 0:
                self.committed = _most_likely(step.belief, step.costs[0])
            chosen = _follow(step.costs[0, self.committed], step.logp, returns)
        # regret in cost units (the QMDP policy is a softmax of -β × expected cost); a move
        # on the committed world's shortest plan gains something in that world
        regret = (step.logp.max() - step.logp[chosen]) / self.beta
        self.aimless.append(options[chosen][0] in MOVES and not following and (returns[chosen] or regret > 1e-9))
        return chosen

    def after(self, action: Action, learnt: bool) -> None:
        if learnt:
            self.visited, self.committed = set(), None
        self.visited.add(self.model.real[-1].agent_pos)


def _destination(state: WorldState, action: Action):
    """The cell a move leads to (None for any other action)."""
    if action[0] not in MOVES:
        return None
    dx, dy = MOVES[action[0]]
    return state.agent_pos[0] + dx, state.agent_pos[1] + dy


def _most_likely(belief: np.ndarray, costs: np.ndarray) -> int:
    """The world a purposeful agent commits to: the most likely one under ``belief``, the
    cheapest to the goal among equally likely ones (``costs[j, a]``: path cost after
    action a in world j, -1 where the goal cannot be reached), then the first."""
    reach = np.where(costs >= 0, costs, np.iinfo(np.int32).max).min(axis=1)
    top = belief >= belief.max() * (1 - 1e-9)
    candidates = np.flatnonzero(top & (reach < np.iinfo(np.int32).max))
    if len(candidates) == 0:      # no likeliest world where the goal is reachable: any believed one
        candidates = np.flatnonzero((belief > 0) & (reach < np.iinfo(np.int32).max))
    return int(candidates[np.argmin(reach[candidates])])


def _follow(costs: np.ndarray, logp: np.ndarray, returns: np.ndarray | None = None) -> int:
    """The action of the shortest plan in one world (``costs[a]``): among equally short
    ones, one that does not go back onto a cell walked since the agent last learnt
    something (``returns[a]``) if there is one, then the one the policy likes most."""
    valid = costs >= 0
    best = np.flatnonzero(valid & (costs == costs[valid].min()))
    if returns is not None and not returns[best].all():
        best = best[~returns[best]]
    return int(best[np.argmax(logp[best])])


def _undone(planner, core, real: WorldState, worlds, rows: np.ndarray, belief: np.ndarray, move: Action,
            visited: set, goal_gems: np.ndarray, beta: float) -> bool:
    """Whether a purposeful agent that makes ``move`` would step straight back: the move
    can teach it nothing (every world it believes possible shows the same after it), and
    at the cell it leads to the plan it would follow there (the likeliest world's, as
    :func:`_most_likely` and :func:`_follow` choose it) begins with the reverse move.
    Such a move is not made: the agent commits to that plan where it stands instead."""
    after = real.step(move)
    believed = np.flatnonzero(belief > 0)
    stepped = tuple(step_or_stay(w, move) for w in worlds)
    if len({stepped[j].view() for j in believed}) > 1:
        return False       # what it sees there may rule worlds out: a reason to go and look
    dx, dy = MOVES[move[0]]
    moved = rows.copy()
    moved[:, AGENT] += dy * real.layout.width + dx
    options = after.available_actions()
    costs = planner.action_costs(stepped, moved, believed, options, goal_gems)
    if not (costs[0] >= 0).any():
        return False
    logp = action_log_probabilities(core, belief, costs, beta)
    walked = visited | {after.agent_pos}
    returns = np.array([_destination(after, o) in walked for o in options])
    back = _follow(costs[0, _most_likely(belief, costs[0])], logp, returns)
    return _destination(after, options[back]) == real.agent_pos


def _too_long(goal: str, max_steps: int, state: WorldState, opened: int, policy: str, beta: float,
              purposeful: bool) -> SimulationError:
    """Why the agent has not reached its goal in ``max_steps`` actions, and what to change."""
    closed = sum(1 for b, _ in state.layout.boxes if b in state.closed)
    done = f"it opened {opened} box(es), {closed} still closed, and holds " + (
        ", ".join(k for k, ks in state.keys if ks.where == ("held",)) or "no key")
    if purposeful:
        hint = "raise the limit (--max-steps): a map with many boxes can take the agent to each in turn"
    else:
        hint = "the agent is not purposeful: it can step back and forth for ever where its belief leaves it " \
               "undecided; leave it purposeful, or raise the limit (--max-steps)"
    return SimulationError(f"the agent did not reach {goal} within {max_steps} steps (the step limit): {done}",
                           hint=hint)
