"""Plain Python/NumPy reference for the BToM core: the specification ``btom_ext.core`` is held to.

Every function here has a twin with the same name and signature in the compiled
``btom_ext.core``. This module is written to be obviously correct rather than fast: beliefs
are filtered and actions scored one hypothesis at a time (the loops of the paper's
Algorithm 1), and shortest paths are found by breadth-first search over the full planning
state space (agent cell x door locks x box lids x key statuses).

**Numeric encoding.** A layout is given by ``walls`` (``uint8[height * width]``, cell
``c = (y - 1) * width + (x - 1)``), ``door_cells``/``door_colours``, ``box_cells`` and
``gem_cells`` (``int32``). A world is one ``int32`` row (see :data:`AGENT` and friends)::

    [agent cell, locked-door mask, closed-box mask, held-gem mask,
     status of key 0..K-1, where of key 0..K-1, colour of key 0..K-1]

where a key's status is :data:`FLOOR` (``where`` = its cell), :data:`BOX` (``where`` = the
box index; reachable once the box is open), :data:`HELD` or :data:`GONE` (used or never on
the map; ``where`` = -1). ``elot.domains.doors_keys_gems.hypotheses`` builds these arrays from world states.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

#: Offsets into a world row.
AGENT, LOCKED, CLOSED, GEMS, KEYS = 0, 1, 2, 3, 4
#: Key statuses.
FLOOR, BOX, HELD, GONE = 0, 1, 2, 3
#: Path cost of a goal that cannot be reached.
UNREACHABLE = -1
#: Weight of a belief state that holds no particle (the smallest positive double).
EPSILON = 5e-324
#: Floor of a per-state action value (an unreachable goal costs this much).
Q_FLOOR = -100.0
#: Action codes of :meth:`Rules.apply`: an action is ``(code, a, b)`` with ``a`` the key,
#: gem or box index (``PICKUP_KEY``, ``PICKUP_GEM``, ``OPEN``) or the key and ``b`` the door
#: (``UNLOCK``); the moves take no index. ``NO_ACTION`` is possible nowhere.
UP, DOWN, LEFT, RIGHT, PICKUP_KEY, PICKUP_GEM, OPEN, UNLOCK, NO_ACTION = 0, 1, 2, 3, 4, 5, 6, 7, -1


def n_keys_of(worlds: np.ndarray) -> int:
    """Number of key objects encoded in world rows of this width."""
    width = worlds.shape[1] - KEYS
    if width < 0 or width % 3:
        raise ValueError(f"world rows must have 4 + 3*K columns, got {worlds.shape[1]}")
    return width // 3


class _Layout:
    """A layout's numeric encoding, as :class:`Planner` and :class:`Rules` take it: wall
    cells (a ``width``-wide grid), doors with their colours, boxes and gems by cell."""

    def __init__(self, walls, width, door_cells, door_colours, box_cells, gem_cells):
        self.walls = np.ascontiguousarray(walls, dtype=np.uint8).ravel()
        self.width = int(width)
        self.height = len(self.walls) // self.width
        self.door_cells = [int(c) for c in door_cells]
        self.door_colours = [int(c) for c in door_colours]
        self.box_cells = [int(c) for c in box_cells]
        self.gem_cells = [int(c) for c in gem_cells]


class Planner(_Layout):
    """Optimal path costs ``h_g`` in fully known worlds, by BFS over the planning state space.

    A planning state is (agent cell, locked-door mask, closed-box mask, key statuses); key
    positions and colours are fixed per world. Picking up a gem is the terminal event of
    goal g: it changes nothing else, so gems are left out of the state. For each group of
    worlds sharing key positions and colours, the states reachable from the queried worlds
    are enumerated once and distances to every goal are found by backward BFS over them.
    """

    def __init__(self, *layout):
        super().__init__(*layout)
        # config (where, colours) -> (distances per goal: dict state -> cost, set of states)
        self._graphs: dict[tuple, dict] = {}

    # -- the state graph ------------------------------------------------------------------
    def neighbours(self, cell: int) -> list[int]:
        """In-bounds 4-neighbours of a cell (walls included)."""
        x, y = cell % self.width, cell // self.width
        out = []
        if y > 0:
            out.append(cell - self.width)
        if y < self.height - 1:
            out.append(cell + self.width)
        if x > 0:
            out.append(cell - 1)
        if x < self.width - 1:
            out.append(cell + 1)
        return out

    def successors(self, where, colours, state):
        """Every state one primitive action (other than picking up a gem) leads to."""
        agent, locked, closed, status = state
        out = []
        for cell in self.neighbours(agent):
            blocked = any(
                locked >> d & 1 and self.door_cells[d] == cell for d in range(len(self.door_cells))
            )
            if not self.walls[cell] and not blocked:
                out.append((cell, locked, closed, status))
        for k, st in enumerate(status):
            if st == FLOOR and where[k] == agent or (
                st == BOX and self.box_cells[where[k]] == agent and not closed >> where[k] & 1
            ):
                out.append((agent, locked, closed, status[:k] + (HELD,) + status[k + 1 :]))
        for b, cell in enumerate(self.box_cells):
            if closed >> b & 1 and (cell == agent or cell in self.neighbours(agent)):
                out.append((agent, locked, closed & ~(1 << b), status))
        for k, st in enumerate(status):
            if st != HELD:
                continue
            for d, cell in enumerate(self.door_cells):
                if (
                    locked >> d & 1
                    and self.door_colours[d] == colours[k]
                    and cell in self.neighbours(agent)
                ):
                    used = status[:k] + (GONE,) + status[k + 1 :]
                    out.append((agent, locked & ~(1 << d), closed, used))
        return out

    def _graph(self, where, colours, start):
        key = (where, colours)
        graph = self._graphs.get(key)
        if graph is not None and start in graph["succ"]:
            return graph
        succ = graph["succ"] if graph else {}
        frontier = deque([start])
        succ.setdefault(start, None)
        while frontier:
            state = frontier.popleft()
            if succ[state] is not None:
                continue
            succ[state] = self.successors(where, colours, state)
            for nxt in succ[state]:
                if nxt not in succ:
                    succ[nxt] = None
                    frontier.append(nxt)
        # Backward BFS from the states where the gem can be picked up (cost 1).
        pred: dict[tuple, list] = {s: [] for s in succ}
        for s, nexts in succ.items():
            for n in nexts:
                pred[n].append(s)
        dist = []
        for gem in self.gem_cells:
            d = {s: 1 for s in succ if s[0] == gem}
            queue = deque(d)
            while queue:
                s = queue.popleft()
                for p in pred[s]:
                    if p not in d:
                        d[p] = d[s] + 1
                        queue.append(p)
            dist.append(d)
        graph = {"succ": succ, "dist": dist}
        self._graphs[key] = graph
        return graph

    def costs(self, worlds) -> np.ndarray:
        """``h[n, g]``: fewest actions from world n until gem g is held (-1 if impossible)."""
        worlds = np.ascontiguousarray(worlds, dtype=np.int32)
        n_keys = n_keys_of(worlds)
        out = np.empty((len(worlds), len(self.gem_cells)), dtype=np.int32)
        for n, row in enumerate(worlds.tolist()):
            status = tuple(row[KEYS : KEYS + n_keys])
            where = tuple(row[KEYS + n_keys : KEYS + 2 * n_keys])
            colours = tuple(row[KEYS + 2 * n_keys :])
            start = (row[AGENT], row[LOCKED], row[CLOSED], status)
            graph = self._graph(where, colours, start)
            for g in range(len(self.gem_cells)):
                if row[GEMS] >> g & 1:
                    out[n, g] = 0
                else:
                    out[n, g] = graph["dist"][g].get(start, UNREACHABLE)
        return out


class Rules(_Layout):
    """The domain's actions on world rows: each action's precondition and effect (SPEC §5;
    the same rules as :class:`elot.domains.doors_keys_gems.world.WorldState`'s ``why_not`` and ``step``, on the
    numeric encoding)."""

    def _near(self, a: int, b: int) -> int:
        """Manhattan distance between cells a and b."""
        return abs(a % self.width - b % self.width) + abs(a // self.width - b // self.width)

    def _step(self, row: list[int], n_keys: int, code: int, a: int, b: int) -> list[int]:
        """``row`` after one action, or ``row`` itself where the action is impossible."""
        agent = row[AGENT]
        if code in (UP, DOWN, LEFT, RIGHT):
            x, y = agent % self.width, agent // self.width
            dx, dy = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}[code]
            if not (0 <= x + dx < self.width and 0 <= y + dy < self.height):
                return row
            target = agent + dy * self.width + dx
            locked = [d for d, cell in enumerate(self.door_cells) if cell == target and row[LOCKED] >> d & 1]
            if self.walls[target] or locked:
                return row
            return [target, *row[1:]]
        out = list(row)
        named = {PICKUP_KEY: (n_keys, 1), PICKUP_GEM: (len(self.gem_cells), 1), OPEN: (len(self.box_cells), 1),
                 UNLOCK: (n_keys, len(self.door_cells))}.get(code, (0, 0))
        if not (0 <= a < named[0] and (code != UNLOCK or 0 <= b < named[1])):
            return row   # no such object: possible nowhere (NO_ACTION and unknown codes too)
        if code == PICKUP_KEY:
            status, where = row[KEYS + a], row[KEYS + n_keys + a]
            boxed = status == BOX and 0 <= where < len(self.box_cells)
            place = where if status == FLOOR else self.box_cells[where] if boxed else None
            if place != agent or (status == BOX and row[CLOSED] >> where & 1):
                return row
            out[KEYS + a], out[KEYS + n_keys + a] = HELD, -1
        elif code == PICKUP_GEM:
            if row[GEMS] >> a & 1 or self.gem_cells[a] != agent:
                return row
            out[GEMS] |= 1 << a
        elif code == OPEN:
            if not row[CLOSED] >> a & 1 or self._near(self.box_cells[a], agent) > 1:
                return row
            out[CLOSED] &= ~(1 << a)
        else:   # UNLOCK
            if (row[KEYS + a] != HELD or not row[LOCKED] >> b & 1
                    or row[KEYS + 2 * n_keys + a] != self.door_colours[b]
                    or self._near(self.door_cells[b], agent) != 1):
                return row
            out[KEYS + a], out[KEYS + n_keys + a] = GONE, -1
            out[LOCKED] &= ~(1 << b)
        return out

    def apply(self, worlds, states, actions) -> np.ndarray:
        """Every world ``worlds[states[i]]`` after each of its actions ``actions[i, a]``
        (``(code, a, b)`` triples, see :data:`UP` and friends; ``actions`` is ``(len(states),
        n_a, 3)``, or ``(1, n_a, 3)`` for the same actions in every world): row ``i * n_a +
        a`` of the result. A world in which an action is impossible is left as it is."""
        worlds = np.asarray(worlds, dtype=np.int32)
        actions = np.broadcast_to(np.asarray(actions, dtype=np.int32), (len(states), *np.shape(actions)[1:]))
        n_keys = n_keys_of(worlds)
        n_a = actions.shape[1]
        out = np.empty((len(states) * n_a, worlds.shape[1]), dtype=np.int32)
        for i, s in enumerate(states):
            row = worlds[s].tolist()
            for a in range(n_a):
                out[i * n_a + a] = self._step(row, n_keys, *actions[i, a].tolist())
        return out


def view_labels(worlds) -> np.ndarray:
    """One integer per world row, equal where the worlds look alike to the agent (what
    :meth:`elot.domains.doors_keys_gems.world.WorldState.view` compares), numbered in order of first
    appearance: the agent's cell, the held gems, the locked doors and closed boxes, and
    the multiset of visible keys as (status, where, colour): on the floor, held, or in an
    opened box (key objects are interchangeable)."""
    worlds = np.asarray(worlds, dtype=np.int32)
    n_keys = n_keys_of(worlds)
    labels: dict = {}
    out = np.empty(len(worlds), dtype=np.intp)
    for n, row in enumerate(worlds.tolist()):
        keys = []
        for k in range(n_keys):
            status, where, colour = row[KEYS + k], row[KEYS + n_keys + k], row[KEYS + 2 * n_keys + k]
            if status in (FLOOR, HELD) or (status == BOX and not row[CLOSED] >> where & 1):
                keys.append((status, where, colour))
        out[n] = labels.setdefault((row[AGENT], row[GEMS], row[LOCKED], row[CLOSED], tuple(sorted(keys))), len(labels))
    return out


def manhattan_costs(width, gem_cells, worlds) -> np.ndarray:
    """The non-planning ablation's ``h[n, g]``: Manhattan distance to gem g plus 1, 0 once held."""
    worlds = np.ascontiguousarray(worlds, dtype=np.int32)
    out = np.empty((len(worlds), len(gem_cells)), dtype=np.int32)
    for n, row in enumerate(worlds.tolist()):
        ax, ay = row[AGENT] % width, row[AGENT] // width
        for g, cell in enumerate(gem_cells):
            if row[GEMS] >> g & 1:
                out[n, g] = 0
            else:
                out[n, g] = abs(ax - cell % width) + abs(ay - cell // width) + 1
    return out


def filter_beliefs(initial, alive) -> np.ndarray:
    """Beliefs after perception, per (true state s, initial belief b) pair.

    ``initial[s, b, j]`` is the initial weight of state j (particle count / k, or
    :data:`EPSILON`); ``alive[s, j]`` says whether state j still agrees with everything seen
    in true state s. Ruled-out states get weight 0 and the rest are renormalized (summed in
    index order, then divided), so when every counted state is ruled out the EPSILON
    states become uniform.
    """
    initial = np.asarray(initial, dtype=np.float64)
    n_states, n_beliefs, _ = initial.shape
    out = np.zeros(initial.shape, dtype=np.float64)
    for s in range(n_states):
        for b in range(n_beliefs):
            kept = [initial[s, b, j] if alive[s, j] else 0.0 for j in range(n_states)]
            total = 0.0
            for w in kept:
                total += w
            if total > 0.0:
                out[s, b] = [w / total for w in kept]
    return out


def action_value(cost: int) -> float:
    """``Q_j(a) = -1 - h`` for the cost h after the action, floored at :data:`Q_FLOOR`."""
    if cost < 0:
        return Q_FLOOR
    return max(-1.0 - cost, Q_FLOOR)


def qmdp_loglik(beliefs, costs, action, beta, hyp_goal, hyp_state, hyp_belief, active) -> np.ndarray:
    """Log-probability of the observed action under each hypothesis's Boltzmann QMDP policy.

    ``beliefs[s, b, j]`` as returned by :func:`filter_beliefs`; ``costs[g, j, a]`` is the path
    cost to goal g after action a from belief state j (read only where the belief is
    positive); ``action`` indexes the observed action. For hypothesis i = (goal, true state,
    belief), ``Qbar(a) = sum_j w_j Q_j(a)`` and ``log pi(action) = beta Qbar(action) -
    logsumexp(beta Qbar)``. Inactive hypotheses (ruled out, or goal already reached) get 0.
    """
    beliefs = np.asarray(beliefs, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.int32)
    values = np.vectorize(action_value, otypes=[np.float64])(costs)  # values[g, j, a]
    out = np.zeros(len(hyp_goal), dtype=np.float64)
    for i in range(len(hyp_goal)):
        if not active[i]:
            continue
        g, s, b = int(hyp_goal[i]), int(hyp_state[i]), int(hyp_belief[i])
        weights = beliefs[s, b]
        held = weights > 0.0  # states ruled out may have no defined action values
        logits = beta * (weights[held] @ values[g][held])
        top = logits.max()
        out[i] = logits[action] - (top + math.log(np.exp(logits - top).sum()))
    return out


def update_weights(logw, loglik, consistent) -> np.ndarray:
    """The observer's update in log space: ``logw + loglik``, or -inf where inconsistent."""
    out = np.empty(len(logw), dtype=np.float64)
    for i in range(len(logw)):
        out[i] = logw[i] + loglik[i] if consistent[i] else -math.inf
    return out


def qmdp_table(beliefs, costs, action, beta, goal_on) -> np.ndarray:
    """:func:`qmdp_loglik` once per (goal, belief row): ``beliefs[r, j]`` are R filtered
    belief rows, ``goal_on[g]`` 0 for a goal whose gem is held. Returns ``table[g, r]``,
    the log-probability of ``action`` under row r and goal g (0 where the goal is off)."""
    beliefs = np.asarray(beliefs, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.int32)
    values = np.vectorize(action_value, otypes=[np.float64])(costs)  # values[g, j, a]
    out = np.zeros((costs.shape[0], len(beliefs)), dtype=np.float64)
    for g in range(costs.shape[0]):
        if not goal_on[g]:
            continue
        for r, weights in enumerate(beliefs):
            held = weights > 0.0
            logits = beta * (weights[held] @ values[g][held])
            top = logits.max()
            out[g, r] = logits[action] - (top + math.log(np.exp(logits - top).sum()))
    return out


def update_weights_table(logw, table, n_states, row_stride, live, goal_on, out=None) -> np.ndarray:
    """The observer's update of every hypothesis ``i = (g * n_states + s) * n_beliefs + b``
    from a :func:`qmdp_table`: it reads ``table[g, s * row_stride + b]`` where its
    goal is on and its weight finite, and is -inf where state s is not ``live`` (written
    into ``out`` when given)."""
    n_goals = len(table)
    n_beliefs = len(logw) // (n_goals * n_states)
    out = np.empty(len(logw), dtype=np.float64) if out is None else out
    for i in range(len(logw)):
        g, rest = divmod(i, n_states * n_beliefs)
        s, b = divmod(rest, n_beliefs)
        if not live[s]:
            out[i] = -math.inf
        elif goal_on[g] and math.isfinite(logw[i]):
            out[i] = logw[i] + table[g][s * row_stride + b]
        else:
            out[i] = logw[i] + 0.0
    return out


def qmdp_update(logw, beliefs, path_costs, states, goal_gems, action, beta, goal_on, n_states, row_stride,
                live, out=None) -> np.ndarray:
    """One exact step from the planner's answer: ``path_costs[i * n_a + a, gem]`` (worlds
    ``states[i]`` after action a, :meth:`Rules.apply`) read as ``costs[g, states[i], a]``
    for goal g's gem ``goal_gems[g]`` (-1 at the other states), then :func:`qmdp_table`
    over the belief rows and :func:`update_weights_table` with the ``live`` states."""
    path_costs = np.asarray(path_costs, dtype=np.int32)
    states = np.asarray(states, dtype=np.intp)
    goal_gems = np.asarray(goal_gems, dtype=np.intp)
    n_a = len(path_costs) // max(len(states), 1)
    costs = np.full((len(goal_gems), np.asarray(beliefs).shape[1], n_a), -1, dtype=np.int32)
    h = path_costs.reshape(len(states), n_a, -1)
    for i, s in enumerate(states):
        for g, gem in enumerate(goal_gems):
            costs[g, s, :] = h[i, :, gem]
    table = qmdp_table(beliefs, costs, action, beta, goal_on)
    return update_weights_table(logw, table, n_states, row_stride, live, goal_on, out)
