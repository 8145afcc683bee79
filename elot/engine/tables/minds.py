"""Several agents, and what each believes about the others (SPEC §10, beliefs about beliefs).

A domain's :class:`~elot.engine.tables.protocol.Events` may name *witnesses*: agents that do
not act but perceive, each by its own observation model. The observer models each agent
modelling the others by what each may have perceived:

* the observed agent's possible states at a time are those of
  :class:`~elot.engine.tables.current.Now` (its initial belief, its belief now, the events it
  has seen);
* a witness's possible states are its belief over the worlds and the events it has seen,
  followed from its initial belief through every percept its model allows
  (:func:`witness_states`): Bayes' rule on each percept, and on the path's states (a step
  no action takes in a world rules that world out for everyone who sees the path);
* a **situation** is a world with one state of every agent (:class:`Minds`); its chance in
  the world is the product of the agents' chances (their percepts are independent given
  the world and the path's states);
* each agent's belief in a situation (a row of its **belief-in-situation table**, what the
  language reads, docs/language.md) is its own belief over the worlds, times, for each
  other agent, its model of that agent's chance of each state in each world: the observed
  agent's own belief ``b_t(w')`` for a situation ``(w', its state, others')``; a witness's
  ``post(w')`` times its model of the observed agent's percepts (whose initial belief it
  takes to be the one of the situation: the initial belief is common knowledge) and of the
  other witnesses'.

Every agent's belief is then a function of the situation, so one table per agent serves
statements of any depth: ``believes(anne, formula(believes(sally, formula(φ))))`` adds, over
Anne's row, Sally's table's verdict in each situation. Depth costs nothing more; what costs
is the number of situations S (each table holds S² numbers), which :data:`MAX_SITUATIONS`
bounds. The witnesses update on their percepts and on the path's states, not on the
observed agent's choices (they do not invert its planning).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise, product

import numpy as np

from elot.engine.tables.current import Now
from elot.engine.tables.inversion import normalise, quantise
from elot.engine.tables.protocol import Events, Tables, Witness, seen_bits
from elot.errors import DomainError, EvaluationError
from elot.numeric import fsum

#: The most situations belief tables are built for: each agent's table holds S² numbers
#: (32 MiB at 2,048). A statement that needs the tables over more is refused by name.
MAX_SITUATIONS = 2048


class TooManySituations(EvaluationError):
    """Beliefs about beliefs over more situations than :data:`MAX_SITUATIONS`."""


@dataclass(frozen=True, eq=False)
class WitnessStates:
    """A witness's possible states at a time: ``belief[c]`` its belief over the worlds,
    ``seen[c]`` the events it has seen (bits), and ``chance[k, w, c]`` the probability of
    state c in world w under model k (0: its true observation model; then each other agent's
    model of it, as :func:`models` lists them)."""

    name: str
    belief: np.ndarray
    seen: np.ndarray
    chance: np.ndarray


def reachable(tables: Tables, path: list[int]) -> np.ndarray:
    """``bool[steps, n_worlds]``: whether some action takes step t of the path in each world."""
    trans = np.asarray(tables.transitions)
    return np.array([(trans[:, here, :] == there).any(axis=1) for here, there in pairwise(path)],
                    dtype=bool).reshape(len(path) - 1, len(tables.worlds))


def models(events: Events, tables: Tables) -> dict[str, list]:
    """For each agent (the observed one by ``events.agent``, then the witnesses), the models
    of its percepts: the true one first (None), then each other agent's that differs
    (``thinks``), once each; and which one each agent uses, ``{modelled: ([tables],
    {modeller: index})}``."""
    agents = [events.agent] + [w.name for w in events.witnesses]
    thinks = {events.agent: dict(events.thinks), **{w.name: dict(w.thinks) for w in events.witnesses}}
    out = {}
    for modelled in agents:
        tables_of: list = [None]
        used = {}
        for modeller in agents:
            table = thinks[modeller].get(modelled) if modeller != modelled else None
            if table is None:
                used[modeller] = 0
                continue
            table = np.asarray(table, dtype=np.float64)
            same = next((i for i, t in enumerate(tables_of) if t is not None and np.array_equal(t, table)), None)
            if same is None:
                tables_of.append(table)
                same = len(tables_of) - 1
            used[modeller] = same
        out[modelled] = (tables_of, used)
    return out


def witness_states(witness: Witness, events: Events, tables: Tables, path: list[int], quantum: float,
                   model_tables: list, perceived: bool = True) -> WitnessStates:
    """The witness's possible states after the percepts of the path's states (all of them;
    with ``perceived`` False, before any: its initial belief), merged when equal (belief
    rounded to multiples of ``quantum`` as the agent's are), each with its chance in each
    world under each of ``model_tables`` (None: its true observation model)."""
    n_w = len(tables.worlds)
    own = np.asarray(witness.observations, dtype=np.float64)
    bits = seen_bits(None, witness.name, witness.seen, tuple(witness.percepts), tuple(events.names))
    obs = [own if m is None else np.asarray(m, dtype=np.float64) for m in model_tables]
    start = np.asarray(witness.belief, dtype=np.float64)
    start = np.tile(start, (n_w, 1)) if start.ndim == 1 else start
    # states: slot -> [belief, seen, chance (models, worlds)]
    states: dict[tuple, list] = {}
    for w in range(n_w):
        belief = start[w] / start[w].sum()
        slot = (belief.tobytes(), 0)
        entry = states.setdefault(slot, [belief, 0, np.zeros((len(obs), n_w))])
        entry[2][:, w] += 1.0
    if perceived:
        steps = reachable(tables, path)
        for t, there in enumerate(path):
            grown: dict[tuple, list] = {}
            for belief, seen, chance in states.values():
                if t > 0:
                    belief = belief * steps[t - 1]
                for o in range(len(witness.percepts)):
                    joint = belief * own[:, there, o]
                    mass = joint.sum()
                    if mass <= 0:
                        continue
                    p = np.array([m[:, there, o] for m in obs])          # [models, worlds]
                    if not np.any(chance * p > 0):
                        continue
                    after = normalise(quantise((joint / mass)[None, :], quantum))[0]
                    now_seen = seen | int(bits[o])
                    slot = (after.tobytes(), now_seen)
                    entry = grown.setdefault(slot, [after, now_seen, np.zeros((len(obs), n_w))])
                    entry[2] += chance * p
            states = grown
    values = list(states.values())
    return WitnessStates(witness.name, np.array([v[0] for v in values]).reshape(len(values), n_w),
                         np.array([v[1] for v in values], dtype=np.int64),
                         np.stack([v[2] for v in values], axis=2) if values else np.zeros((len(obs), n_w, 0)))


@dataclass(frozen=True, eq=False)
class Minds:
    """The situations at a time and each agent's belief in each.

    Situation s is world ``world[s]`` with the observed agent in state ``state[s]`` (of
    :attr:`now`) and witness k in state ``witness[s, k]``; ``seen[s, a]`` the events agent a
    has seen (a = 0 the observed agent, then the witnesses, :attr:`agents`). ``tables[a]`` is
    agent a's belief-in-situation table (S, S). :meth:`expand` turns rows of the observed
    agent's entries into rows of situations, each with the chance of the witnesses' states
    under the true models (the observer's)."""

    agents: tuple[str, ...]
    now: Now
    world: np.ndarray
    state: np.ndarray
    witness: np.ndarray
    seen: np.ndarray
    tables: tuple[np.ndarray, ...]
    combos: tuple[tuple[tuple[tuple[int, ...], float], ...], ...]
    index: dict

    def __len__(self) -> int:
        return len(self.world)

    def expand(self, entry: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For rows of entries of :attr:`now`: ``(row, situation, chance)``, each row once per
        combination of the witnesses' states possible in its world, with that combination's
        chance under the true models (1.0 exactly without witnesses)."""
        rows, where, chance = [], [], []
        for n, m in enumerate(np.asarray(entry).tolist()):
            w, state = int(self.now.world[m]), int(self.now.state[m])
            for combo, p in self.combos[w]:
                situation = self.index.get((w, state, combo))
                if situation is None or p <= 0:
                    continue
                rows.append(n)
                where.append(situation)
                chance.append(p)
        return (np.asarray(rows, dtype=np.intp), np.asarray(where, dtype=np.intp), np.asarray(chance, dtype=np.float64))


def build(now: Now, events: Events, tables: Tables, path: list[int], quantum: float, *, perceived: bool = True,
          where: str = "", limit: int = MAX_SITUATIONS) -> Minds:
    """The situations of ``now`` (the observed agent's states in every world, with their
    chance under each model of its percepts in ``now.chance_by``, as :func:`models` orders
    the observed agent's), the witnesses' states after the path's percepts (before any,
    unless ``perceived``), and each agent's table. ``where`` names the run in errors.

    The situations are those the observer's rows may be in (every state possible in its
    world), closed under what each agent believes: an agent keeps its own state and gives
    weight to every world its belief allows, with the others' states by its model of them,
    so a situation may hold an agent in a state its world would not have led it to (a
    witness whose first belief depended on the world, believing another world)."""
    n_w = len(tables.worlds)
    witnesses = tuple(events.witnesses)
    agents = (events.agent,) + tuple(w.name for w in witnesses)
    used = models(events, tables)
    states = [witness_states(w, events, tables, path, quantum, used[w.name][0], perceived) for w in witnesses]
    agent_chance = (now.chance,) + tuple(now.chance_by)
    entry_of: dict[tuple[int, int], int] = {}
    for m, (w, n) in enumerate(zip(now.world.tolist(), now.state.tolist())):
        if max(chance[m] for chance in agent_chance) > 0:
            entry_of[(w, n)] = m

    def options(k: int, model: int, w: int) -> list[tuple[int, float]]:
        """Witness k's states in world w with their chance under ``model``, those above 0."""
        row = states[k].chance[model, w]
        return [(int(c), float(row[c])) for c in np.flatnonzero(row > 0)]

    def combos_of(w: int, model_of: list[int], keep: dict[int, int]) -> list[tuple[tuple[int, ...], float]]:
        """The witnesses' states in world w by the models ``model_of[k]`` (those in ``keep``
        fixed, with weight 1), each combination with the product of its chances."""
        choices = [[(keep[k], 1.0)] if k in keep else options(k, model_of[k], w) for k in range(len(states))]
        out = []
        for picked in product(*choices):
            p = 1.0
            for _, chance in picked:
                p *= chance
            out.append((tuple(c for c, _ in picked), p))
        return out

    # what each agent believes in a situation: {situation: weight}, unnormalised
    def beliefs_in(situation: tuple) -> list[dict]:
        _, n, combo = situation
        mine = [used[ws.name][1][events.agent] for ws in states]
        out = [{}]
        for w2 in range(n_w):
            p = float(now.belief[n][w2])
            if p > 0:
                for combo2, q in combos_of(w2, mine, {}):
                    if q > 0:
                        out[0][(w2, n, combo2)] = p * q
        owner = int(now.state_owner[n])
        for k, ws in enumerate(states):
            theirs = [used[other.name][1][ws.name] for other in states]
            model0 = used[events.agent][1][ws.name]
            row = {}
            for w2 in range(n_w):
                post = float(ws.belief[combo[k]][w2])
                if post <= 0:
                    continue
                for m in (entry_of.get((w2, n2)) for n2 in range(len(now.belief))):
                    if m is None or int(now.owner[m]) != owner or agent_chance[model0][m] <= 0:
                        continue
                    for combo2, q in combos_of(w2, theirs, {k: combo[k]}):
                        if q > 0:
                            row[(w2, int(now.state[m]), combo2)] = post * float(agent_chance[model0][m]) * q
            out.append(row)
        return out

    combos = tuple(tuple(c for c in combos_of(w, [0] * len(states), {}) if c[1] > 0) for w in range(n_w))
    found: dict[tuple, list[dict]] = {}
    todo = [(w, n, combo) for (w, n) in entry_of for combo, _ in combos[w]]
    while todo:
        situation = todo.pop()
        if situation in found:
            continue
        if len(found) >= limit:
            raise TooManySituations(
                f"{where or 'this run'}: statements are judged over situations (a world with every agent's state), "
                f"and there are more than {limit:,} of them here: each agent's belief table would hold over "
                f"{limit * limit:,} numbers",
                hint="give the domain fewer initial beliefs, percepts or witnesses, or judge it without "
                     "events(layout) (one agent's belief at a time)")
        found[situation] = beliefs_in(situation)
        for row in found[situation]:
            todo.extend(s for s in row if s not in found)
    # the observed agent's state first, then the world: its belief's entries in world order
    order = [situation for _, situation in sorted((_state_first(s), s) for s in found)]
    index = {situation: i for i, situation in enumerate(order)}
    size = len(order)
    world_a = np.array([s[0] for s in order], dtype=np.intp)
    state_a = np.array([s[1] for s in order], dtype=np.intp)
    witness_a = np.array([s[2] for s in order], dtype=np.intp).reshape(size, len(witnesses))
    seen = np.zeros((size, len(agents)), dtype=np.int64)
    seen[:, 0] = now.seen[state_a] if size else 0
    for k, ws in enumerate(states):
        seen[:, k + 1] = ws.seen[witness_a[:, k]] if size else 0
    tables_out = [np.zeros((size, size)) for _ in agents]
    for situation, rows in found.items():
        i = index[situation]
        for a, row in enumerate(rows):
            columns = np.array([index[s] for s in row], dtype=np.intp)
            values = np.array(list(row.values()), dtype=np.float64)
            order_in = np.argsort(columns, kind="stable")
            columns, values = columns[order_in], values[order_in]
            total = fsum(values)
            if total <= 0:
                name = agents[a] or "the agent"
                raise DomainError(
                    f"{where or 'this run'}: {name}'s belief rules out every situation the path allows (it gives no "
                    "weight to a world where the others can have perceived what the path allows)",
                    hint=f"give {name} an initial belief that allows the worlds where the path can happen")
            if a > 0 or abs(total - fsum(now.belief[situation[1]])) > 1e-12:
                values = values / total       # the observed agent keeps its belief's own floats where it can
            tables_out[a][i, columns] = values
    return Minds(agents, now, world_a, state_a, witness_a, seen, tuple(tables_out), combos, index)


def _state_first(situation: tuple) -> tuple:
    """A situation's place in the tables: the observed agent's state, then the world, then the witnesses'."""
    world, state, combo = situation
    return state, world, combo
