"""Exact inversion of an observed path: the likelihood of every (initial belief, desire) pair.

For an initial belief ``b0`` the agent's belief is followed forward through the path. At
each step ``s_t -> s_t+1`` every action ``a`` and percept ``o`` the true world allows
branches: the agent's belief becomes ``b'(w) ∝ b(w) [T(w, s_t, a) = s_t+1] O(w, s_t+1, o)``
and the branch's weight is multiplied by ``pi(a | b, s_t) [T(w*, s_t, a) = s_t+1]
O(w*, s_t+1, o)`` (the observer knows the true world ``w*``). Beliefs are rounded to
multiples of the config's quantum, renormalised, and equal beliefs of the same ``b0``
merged. ``L(b0, u)`` is the total weight left at the end.

None of this structure depends on the utilities or on beta: :class:`Inverter` builds it
once per path (a :class:`Program`: nodes, and terms ``node -> node`` each naming a policy
query and a factor), and a run evaluates the programs for one beta with two kernels:
softmax policies at every distinct (belief, state) query, then the weights pushed along
the terms, one column per utility vector.

The nodes of step t hold the weights of the path's first t steps, complete once the terms
into them are pushed; so one pass also gives the likelihood of every prefix of the path
(:meth:`Inverter.prefix_likelihoods`, what particle inference reweighs by step by step).

The nodes of the last step are the agent's possible states at the path's end: its belief
there (:attr:`Program.final_belief`), and the events it has seen (:attr:`Program.final_seen`,
when the domain says which percepts see events: equal beliefs are then merged only when
they have seen the same events). :meth:`Inverter.node_likelihoods` gives the likelihood of
the path through each, and :meth:`Inverter.chances` the probability of each from the
percepts alone (the action taken at a step, where several take it, counted as equally
likely): what the agent's *current* belief is judged on.
The pass holds two steps' weights at a time, and brings a step's weights back up by a
power of two before they fall towards the smallest double: a path of thousands of steps,
whose probability is far below 1e-308, keeps its posterior (likelihoods come with the
exponent of that power, :func:`align`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.engine.tables.planners import Plan, kernels
from elot.engine.tables.protocol import Tables


def quantise(beliefs: np.ndarray, quantum: float) -> np.ndarray:
    """Rows rounded to multiples of ``quantum`` (halves away from zero), not renormalised."""
    if not quantum:
        return beliefs
    return np.floor(beliefs / quantum + 0.5) * quantum


def normalise(beliefs: np.ndarray) -> np.ndarray:
    return beliefs / beliefs.sum(axis=1, keepdims=True)


def stored_beliefs(beliefs: np.ndarray, quantum: float) -> np.ndarray:
    """The form an initial belief is reported in: rounded, renormalised, rounded again
    (not renormalised, so a row may sum to 1 only within a few quanta)."""
    return quantise(normalise(quantise(np.asarray(beliefs, dtype=np.float64), quantum)), quantum)


#: Bytes a program holds per node (its step, initial belief and group, in the lists the build
#: gathers them in and once joined), per term (its five fields, likewise, and the checks the
#: evaluation makes on them), and per step whatever its size (the small arrays of each
#: list), while it is built and evaluated. Measured (tracemalloc) on paths of 6,000 and
#: 20,000 steps in a domain of 76 states: at most about 290 bytes per node, three terms to a node, and
#: rounded up so that the figures bound the peaks measured.
NODE_BYTES = 64
TERM_BYTES = 192     # 160 measured, and the percept and action count each term now keeps
STEP_BYTES = 512
#: Bytes of one policy query besides its row of the policy table (its belief, its entry).
QUERY_BYTES = 256
#: Bytes one branch of a step (an action and percept from a belief, before equal beliefs
#: merge) holds while the step is built, besides 24 per world (its belief, its quantised
#: and normalised copies): its index arrays, the merge's row, code and entry. Measured
#: (tracemalloc, the step's peak over what was held before it) on a domain of 12 worlds
#: whose beliefs branch: 500-527 bytes a branch, steps of 36,000 to 560,000 branches.
BRANCH_BYTES = 256


def inversion_bytes(steps: int, rows: int, n_desires: int) -> int:
    """The least an inversion of a path of ``steps`` steps from ``rows`` (hidden world,
    initial belief) rows holds: a node and a term per row and step, and the two steps'
    weights the evaluation holds per utility vector. A path whose beliefs branch needs
    more; the build counts what it makes against the budget (:class:`Allowance`)."""
    return (steps + 1) * (rows * (NODE_BYTES + TERM_BYTES) + STEP_BYTES) + 2 * rows * n_desires * 8


@dataclass
class Allowance:
    """What the inversions of one run may still hold, in bytes (None: no limit): each build
    spends its nodes, steps and new policy queries (each a row of ``n_actions`` x
    ``n_desires`` doubles per β evaluated) as it makes them, and is refused with its
    estimate the moment it passes the memory budget, rather than after it."""

    left: int | None
    budget: int = 0
    spent: int = 0

    def spend(self, bytes_: int, what: str) -> None:
        self.spent += bytes_
        self.ahead(0, what)

    def ahead(self, bytes_: int, what) -> None:
        """Refuse now if ``bytes_`` more, held for a while (a step being built), would pass
        what is left; nothing is spent. ``what`` may be a function giving the text (called
        only for a refusal: a long path asks at every step)."""
        if self.left is not None and self.spent + bytes_ > self.left:
            from elot.engine.budget import BudgetError, format_bytes

            what = what() if callable(what) else what

            raise BudgetError(
                f"the inversion would need more than {format_bytes(self.spent + bytes_)} ({what}), past the "
                f"{format_bytes(self.left)} the memory budget of {format_bytes(self.budget)} leaves it: "
                "refused before evaluating it",
                hint="judge a shorter path (or a prefix of it), use fewer utility vectors (--inference smc "
                     "with fewer particles), or raise --max-memory")


@dataclass(frozen=True, eq=False)
class Program:
    """The beta-free structure of one path's inversion."""

    n_nodes: int
    init_nodes: np.ndarray
    init_weights: np.ndarray
    term_from: np.ndarray
    term_to: np.ndarray
    term_query: np.ndarray
    term_action: np.ndarray
    term_factor: np.ndarray
    node_group: np.ndarray
    n_groups: int
    steps: int
    #: The step each node belongs to (0: after the initial observation) and its initial
    #: belief (a row of ``initial``): the prefixes' groups. A path impossible from step t on
    #: has nodes up to step t only, and no node in ``node_group``.
    node_step: np.ndarray
    node_owner: np.ndarray
    #: The nodes of the last step (the last ``len(final_belief)`` nodes; none when the path
    #: is impossible): each one's belief over the worlds and the events it has seen (bits).
    final_belief: np.ndarray | None = None
    final_seen: np.ndarray | None = None
    #: The percept of each initial branch (``init_branch`` its node) and of each term, and
    #: how many actions take that term's step in the program's world: what
    #: :meth:`Inverter.chances` reweighs by another observation model.
    init_branch: np.ndarray | None = None
    init_percept: np.ndarray | None = None
    term_percept: np.ndarray | None = None
    term_actions: np.ndarray | None = None
    world: int = -1


class Inverter:
    """Builds the programs of one layout's paths, sharing their policy queries."""

    def __init__(self, tables: Tables, plan: Plan, quantum: float, seen: np.ndarray | None = None,
                 allowance: Allowance | None = None):
        self.tables = tables
        self.plan = plan
        self.quantum = quantum
        #: each percept's events (bits), or None: no percept sees an event
        self.seen = None if seen is None or not np.any(seen) else np.asarray(seen, dtype=np.int64)
        self.allowance = allowance or Allowance(None)
        self._queries: dict[tuple[int, bytes], int] = {}
        self._beliefs: list[np.ndarray] = []
        self._states: list[int] = []
        self._events: dict[tuple[int, int, int], list] = {}

    # -- building -----------------------------------------------------------------------

    def _query(self, state: int, belief: np.ndarray) -> int:
        entry = (state, belief.tobytes())
        index = self._queries.get(entry)
        if index is None:
            index = self._queries[entry] = len(self._beliefs)
            self._beliefs.append(belief)
            self._states.append(state)
        return index

    def _queries_of(self, state: int, beliefs: np.ndarray) -> np.ndarray:
        """:meth:`_query` of each row of ``beliefs``, in order (the rows' bytes read at once)."""
        beliefs = np.ascontiguousarray(beliefs, dtype=np.float64)
        found = self._queries
        out = np.empty(len(beliefs), dtype=np.int64)
        for i, code in enumerate(_row_bytes(beliefs)):
            index = found.get((state, code))
            if index is None:
                index = found[(state, code)] = len(self._beliefs)
                self._beliefs.append(beliefs[i])
                self._states.append(state)
            out[i] = index
        return out

    def _step_events(self, here: int, there: int, world: int) -> list:
        """(action, agent's likelihood per world, observer's factor, percept) for ``here -> there``."""
        entry = (here, there, world)
        if entry not in self._events:
            trans = self.tables.transitions
            obs = np.asarray(self.tables.observations, dtype=np.float64)
            events = []
            for a in range(len(self.tables.actions)):
                reach = np.asarray(trans[:, here, a]) == there
                if not reach[world]:
                    continue
                for o in range(len(self.tables.percepts)):
                    factor = obs[world, there, o]
                    if factor > 0:
                        events.append((a, reach * obs[:, there, o], factor, o))
            self._events[entry] = events
        return self._events[entry]

    def build(self, initial: np.ndarray, path: list[int], world: int) -> Program:
        """The program of ``path`` (state indices) in ``world`` from initial beliefs ``initial``."""
        obs = np.asarray(self.tables.observations, dtype=np.float64)
        bits = self.seen
        n_b = len(initial)
        owners, beliefs, weights, percepts = [], [], [], []
        for o in np.flatnonzero(obs[world, path[0]] > 0):
            seen = initial * obs[:, path[0], o]
            mass = seen.sum(axis=1)
            ok = mass > 0
            owners.append(np.flatnonzero(ok))
            beliefs.append(seen[ok] / mass[ok, None])
            weights.append(np.full(ok.sum(), obs[world, path[0], o]))
            percepts.append(np.full(ok.sum(), o))
        owner = np.concatenate(owners)
        init_percept = np.concatenate(percepts)
        mask = None if bits is None else bits[init_percept]
        belief = normalise(quantise(np.concatenate(beliefs), self.quantum))
        owner, belief, inverse, mask = self._merge(owner, belief, mask)
        init_weight = np.zeros(len(owner))
        np.add.at(init_weight, inverse, np.concatenate(weights))
        init_branch = inverse
        init_nodes = np.arange(len(owner))
        n_nodes = len(owner)
        t_from, t_to, t_query, t_action, t_factor, t_percept, t_actions = [], [], [], [], [], [], []
        node_step, node_owner = [np.zeros(len(owner), dtype=np.int32)], [owner]
        query_row = len(self.tables.actions) * self.plan.q.shape[1]
        queried_before = len(self._beliefs)
        self.allowance.spend(n_nodes * NODE_BYTES + STEP_BYTES, f"{n_nodes:,} nodes at the start")
        possible = True
        for t in range(len(path) - 1):
            here, there = path[t], path[t + 1]
            queries = self._queries_of(here, belief)
            c_from, c_owner, c_belief, c_query, c_action, c_factor, c_percept = [], [], [], [], [], [], []
            steps = self._step_events(here, there, world)
            branches, per_branch = 0, BRANCH_BYTES + 24 * belief.shape[1]
            for action, agent, factor, percept in steps:
                joint = belief * agent
                mass = joint.sum(axis=1)
                ok = np.flatnonzero(mass > 0)
                # a step's branches are held at once while it is built (their beliefs, the
                # copies and the merge's codes): refused as they come, not after the step
                branches += len(ok)
                self.allowance.ahead(branches * per_branch + joint.nbytes,
                                     lambda n=branches, step=t + 1, made=n_nodes:
                                     f"{n:,} branches at step {step} of {len(path) - 1:,}, after {made:,} nodes")
                c_from.append(ok)
                c_owner.append(owner[ok])
                c_belief.append(joint[ok] / mass[ok, None])
                c_query.append(queries[ok])
                c_action.append(np.full(len(ok), action))
                c_factor.append(np.full(len(ok), factor))
                c_percept.append(np.full(len(ok), percept))
            if not c_from or not sum(len(c) for c in c_from):
                possible = False    # no node at step t + 1: every longer prefix has likelihood 0
                break
            froms, percepts = np.concatenate(c_from), np.concatenate(c_percept)
            new_mask = None if mask is None else mask[froms] | bits[percepts]
            new_belief = normalise(quantise(np.concatenate(c_belief), self.quantum))
            new_owner, new_belief, inverse, new_mask = self._merge(np.concatenate(c_owner), new_belief, new_mask)
            t_from.append(froms + (n_nodes - len(owner)))
            t_to.append(inverse + n_nodes)
            t_query.append(np.concatenate(c_query))
            t_action.append(np.concatenate(c_action))
            t_factor.append(np.concatenate(c_factor))
            t_percept.append(percepts)
            t_actions.append(np.full(len(froms), len({a for a, *_ in steps})))
            n_nodes += len(new_owner)
            owner, belief, mask = new_owner, new_belief, new_mask
            queried, counted = len(self._beliefs), queried_before
            queried_before = queried
            self.allowance.spend(len(new_owner) * NODE_BYTES + len(inverse) * TERM_BYTES + STEP_BYTES
                                 + (queried - counted) * (QUERY_BYTES + 8 * query_row),
                                 f"{n_nodes:,} nodes and {queried:,} policy queries of {len(self.tables.actions)} "
                                 f"actions x {query_row // max(len(self.tables.actions), 1):,} utility vectors by "
                                 f"step {t + 1} of {len(path) - 1:,}")
            node_step.append(np.full(len(owner), t + 1, dtype=np.int32))
            node_owner.append(owner)
        group = np.full(n_nodes, -1, dtype=np.int32)
        if possible:
            group[n_nodes - len(owner):] = owner
        else:
            belief, mask = belief[:0], None if mask is None else mask[:0]
        cat = (lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts
               else np.zeros(0, dtype=dtype))
        return Program(n_nodes, init_nodes.astype(np.int32), init_weight,
                       cat(t_from, np.int32), cat(t_to, np.int32), cat(t_query, np.int64),
                       cat(t_action, np.int64), cat(t_factor, np.float64), group, n_b, len(path) - 1,
                       cat(node_step, np.int32), cat(node_owner, np.int32),
                       belief, np.zeros(len(belief), dtype=np.int64) if mask is None else mask,
                       init_branch.astype(np.int32), init_percept.astype(np.int64), cat(t_percept, np.int64),
                       cat(t_actions, np.float64), int(world))

    @staticmethod
    def _merge(owner: np.ndarray, belief: np.ndarray, mask: np.ndarray | None = None):
        """Equal beliefs of the same owner (that have seen the same events, with ``mask``) as
        one node, in order of first appearance."""
        parts = [owner[:, None].astype(np.float64)] + ([] if mask is None else [mask[:, None].astype(np.float64)])
        rows = np.concatenate(parts + [belief], axis=1)
        if np.isnan(rows).any() or np.signbit(rows).any():
            # rows equal as numbers that differ in bytes (-0.0), or NaN (never equal): as values
            _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            inverse = rank[inverse.reshape(-1)]
            keep = first[order]
        else:
            # otherwise equal rows are equal bytes: numbered in order of first appearance
            numbers: dict[bytes, int] = {}
            inverse = np.fromiter((numbers.setdefault(code, len(numbers)) for code in _row_bytes(rows)),
                                  dtype=np.intp, count=len(rows))
            keep = np.flatnonzero(np.diff(np.maximum.accumulate(inverse), prepend=-1) > 0) if len(rows) \
                else np.zeros(0, dtype=np.intp)
        return owner[keep], belief[keep], inverse, None if mask is None else mask[keep]

    # -- evaluating ---------------------------------------------------------------------

    def policies(self, beta: float, backend: str) -> np.ndarray:
        """``float64[n_queries * n_actions, n_desires]``: the softmax policy at every query."""
        n_a = self.plan.n_actions
        if not self._beliefs:
            return np.zeros((0, self.plan.q.shape[1]))
        corners, weights = self.plan.corners(np.array(self._beliefs), np.array(self._states))
        pi = kernels(backend).mixed_policies(self.plan.q, corners, weights, n_a, beta)
        return pi.reshape(len(self._beliefs) * n_a, -1)

    def likelihood(self, program: Program, policies: np.ndarray, backend: str) -> tuple[np.ndarray, int]:
        """``(table, exponent)``: ``table`` is ``float64[n_initial_beliefs, n_desires]``,
        P(path | b0, u) times ``2 ** exponent`` (0 unless the path is long enough for its
        probabilities to fall towards the smallest double: see :func:`align`)."""
        table, exponent = self._propagate(program, policies, backend, program.node_group, program.n_groups)
        return table, int(exponent[-1]) if len(exponent) else 0

    def prefix_likelihoods(self, program: Program, policies: np.ndarray,
                           backend: str) -> tuple[np.ndarray, np.ndarray]:
        """``(table, exponent)``: ``table`` is ``float64[steps + 1, n_initial_beliefs,
        n_desires]``, P(first t steps of the path | b0, u) times ``2 ** exponent[t]`` for
        every t, from one pass (row ``steps`` is :meth:`likelihood`'s table)."""
        groups = program.node_step.astype(np.int64) * program.n_groups + program.node_owner
        table, exponent = self._propagate(program, policies, backend, groups.astype(np.int32),
                                          (program.steps + 1) * program.n_groups)
        # steps past an impossible one hold no node: their rows are 0, on the last scale
        padded = np.full(program.steps + 1, exponent[-1] if len(exponent) else 0, dtype=np.int64)
        padded[:len(exponent)] = exponent
        return table.reshape(program.steps + 1, program.n_groups, -1), padded

    def node_likelihoods(self, program: Program, policies: np.ndarray, backend: str) -> tuple[np.ndarray, int]:
        """``(table, exponent)``: ``table`` is ``float64[n_final, n_desires]``, P(path, through
        final node n | b0 of its owner, u) times ``2 ** exponent`` for each node of the last
        step (:attr:`Program.final_belief`); the sum over the nodes of an owner is
        :meth:`likelihood`'s row of it, on the same scale."""
        n_final = len(program.final_belief)
        groups = np.full(program.n_nodes, -1, dtype=np.int32)
        groups[program.n_nodes - n_final:] = np.arange(n_final, dtype=np.int32)
        table, exponent = self._propagate(program, policies, backend, groups, n_final)
        return table, int(exponent[-1]) if len(exponent) else 0

    def chances(self, program: Program, path: list[int], backend: str,
                observations: np.ndarray | None = None) -> np.ndarray:
        """``float64[n_final]``: the probability of each final node given its owner's initial
        belief and the program's world, from the agent's percepts alone (under
        ``observations``, default the domain's: a model of them with the same percepts
        possible), the action taken at each step, where several take it, counted as equally
        likely. Where the path is possible in the program's world, an owner's nodes add up to 1."""
        n_final = len(program.final_belief)
        if n_final == 0:
            return np.zeros(0)
        obs = np.asarray(self.tables.observations if observations is None else observations, dtype=np.float64)
        here = np.asarray(path, dtype=np.intp)
        init = np.zeros(len(program.init_nodes))
        np.add.at(init, program.init_branch, obs[program.world, here[0], program.init_percept])
        entered = here[program.node_step[program.term_to]]
        factor = obs[program.world, entered, program.term_percept] / program.term_actions
        groups = np.full(program.n_nodes, -1, dtype=np.int32)
        groups[program.n_nodes - n_final:] = np.arange(n_final, dtype=np.int32)
        ones = np.ones((1, 1))
        return kernels(backend).propagate(
            program.n_nodes, program.init_nodes, init, program.term_from, program.term_to,
            np.zeros(len(program.term_from), dtype=np.int64), factor, ones, groups, n_final)[:, 0]

    def _propagate(self, program: Program, policies: np.ndarray, backend: str, groups: np.ndarray,
                   n_groups: int) -> tuple[np.ndarray, np.ndarray]:
        if program.n_nodes == 0:
            return np.zeros((n_groups, policies.shape[1])), np.zeros(0, dtype=np.int64)
        rows = program.term_query * self.plan.n_actions + program.term_action
        return kernels(backend).propagate_steps(
            program.n_nodes, program.init_nodes, program.init_weights, program.term_from,
            program.term_to, rows, program.term_factor, policies, program.node_step, groups, n_groups)


def _row_bytes(rows: np.ndarray) -> list[bytes]:
    """The bytes of each row of a 2-D float64 table (what ``row.tobytes()`` gives), at once."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if rows.shape[1] == 0:
        return [b""] * len(rows)
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel().tolist()


def align(tables: list[np.ndarray], exponents: list[int]) -> tuple[list[np.ndarray], int]:
    """Likelihood tables each scaled by its own power of two (``table * 2 ** exponent``, as
    :meth:`Inverter.likelihood` gives them) brought onto one scale, that of the largest
    probability among them: ``(tables, exponent)``, each table now ``P * 2 ** exponent``.
    A table of zeros (a path impossible there) does not choose the scale. Powers of two
    multiply exactly: where no table was scaled, nothing changes."""
    live = [e for table, e in zip(tables, exponents) if table.size and table.max() > 0]
    common = min(live) if live else 0
    return [table if e == common else np.ldexp(table, common - e) for table, e in zip(tables, exponents)], common

