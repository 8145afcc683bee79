"""The observed agent's belief along the path: its possible states at the path's end.

The inversion follows the agent's belief through every percept it may have had
(:mod:`elot.engine.tables.inversion`); the nodes of its last step are the states the agent
may be in at the end of the path, each with its belief over the worlds (as the planner's
belief update made it: its initial belief, then Bayes' rule on each action taken and each
percept) and the events it has seen. :class:`Now` lists them as *entries*, one per (world,
initial belief, state): the likelihood of the path through it for each desire, and its
*chance*, the probability of the state from the percepts alone given the world and the
initial belief (an action that several take at a step counted as equally likely among
them). A statement about the agent's current belief is judged on rows (entry, desire):

* posterior weight ∝ prior(world) · prior(initial belief | world) · prior(desire) · L(path through the entry | desire);
* prior mass = prior(world) · prior(initial belief | world) · prior(desire) · chance,

so the prior probability of a statement about the current belief is taken over the
hypotheses and the percepts they make likely, not over the observed actions.

The entries of the same agent state (equal initial belief, belief and events seen) in
different worlds share the state (:attr:`Now.state`): what another agent modelling this one
reasons about (:mod:`elot.engine.tables.minds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.numeric import fsum


@dataclass(frozen=True, eq=False)
class Now:
    """The agent's possible states at the path's end, as entries (see the module).

    ``world[m]`` (the tables' index), ``owner[m]`` (the row of the initial belief in the
    belief space), ``state[m]`` (into ``belief`` and ``seen``), ``chance[m]``,
    ``likelihood[m, d]`` (the result's desire columns: every desire exactly, the planned
    ones under particles; zeros in a world whose likelihood was not asked). ``belief[n]`` is
    state n's belief over the worlds, ``seen[n]`` the events it has seen (bit e: event e),
    ``state_owner[n]`` its initial belief's row."""

    world: np.ndarray
    owner: np.ndarray
    state: np.ndarray
    chance: np.ndarray
    likelihood: np.ndarray
    belief: np.ndarray
    seen: np.ndarray
    state_owner: np.ndarray
    #: The chance of each entry under other models of the agent's percepts (another agent's
    #: model of them), one array per model asked, aligned with ``chance``.
    chance_by: tuple[np.ndarray, ...] = ()

    def __len__(self) -> int:
        return len(self.world)

    def in_worlds(self, worlds) -> np.ndarray:
        """The entries whose world is one of ``worlds`` (tables' indices), in order."""
        return np.flatnonzero(np.isin(self.world, np.asarray(worlds, dtype=np.intp)))


def gather(parts: list[tuple], n_worlds: int, n_columns: int) -> Now:
    """A :class:`Now` from each world's final nodes: ``(world, owner, belief, seen, chance,
    likelihood)`` arrays of one program each (``owner`` already the belief space's rows;
    ``chance`` one row per model, the true one first; ``likelihood`` None where not asked).
    States are shared by equal (owner, seen, belief)."""
    worlds, owners, chances, liks = [], [], [], []
    beliefs, seens = [], []
    for world, owner, belief, seen, chance, likelihood in parts:
        worlds.append(np.full(len(owner), world, dtype=np.intp))
        owners.append(np.asarray(owner, dtype=np.intp))
        chance = np.asarray(chance, dtype=np.float64)
        chances.append(chance[None, :] if chance.ndim == 1 else chance)
        liks.append(np.zeros((len(owner), n_columns)) if likelihood is None else np.asarray(likelihood))
        beliefs.append(np.asarray(belief, dtype=np.float64).reshape(len(owner), n_worlds))
        seens.append(np.asarray(seen, dtype=np.int64))
    if not parts:
        empty = np.zeros(0, dtype=np.intp)
        return Now(empty, empty, empty, np.zeros(0), np.zeros((0, n_columns)), np.zeros((0, n_worlds)),
                   np.zeros(0, dtype=np.int64), empty)
    owner, belief, seen = np.concatenate(owners), np.concatenate(beliefs), np.concatenate(seens)
    rows = np.concatenate([owner[:, None].astype(np.float64), seen[:, None].astype(np.float64), belief], axis=1)
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # states in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    state = rank[inverse.reshape(-1)]
    keep = first[order]
    chance = np.concatenate(chances, axis=1)
    return Now(np.concatenate(worlds), owner, state, chance[0], np.concatenate(liks),
               belief[keep], seen[keep], owner[keep], tuple(chance[1:]))


def before(beliefs: np.ndarray, n_worlds: int, likelihood: np.ndarray | None = None,
           worlds: tuple[int, ...] = (), models: int = 0) -> Now:
    """The agent before its first percept: in every world, each initial belief is its state
    (normalised), having seen nothing, with chance 1 (under the ``models`` other models
    too). ``likelihood[w, b, d]`` (of the result's hidden ``worlds``) is kept on their entries."""
    table = np.asarray(beliefs, dtype=np.float64)
    table = table / table.sum(axis=1, keepdims=True)
    n_b = len(table)
    n_cols = 0 if likelihood is None else likelihood.shape[-1]
    parts = []
    for w in range(n_worlds):
        lik = None
        if likelihood is not None and w in worlds:
            lik = likelihood[worlds.index(w)]
        parts.append((w, np.arange(n_b), table, np.zeros(n_b, dtype=np.int64), np.ones((1 + models, n_b)), lik))
    return gather(parts, n_worlds, n_cols)


def exact_rows(now: Now, worlds: tuple[int, ...], world_prior: np.ndarray, belief_prior: np.ndarray,
               desire_prior: np.ndarray):
    """Every (entry of a hidden world, desire), entry-major: ``(entry, desire, weights,
    prior)``, the weights normalised (a correctly rounded total), the prior masses the
    product of the priors and the entry's chance. ``belief_prior[w]`` is the prior over the
    initial beliefs in hidden world position w."""
    entries = now.in_worlds(worlds)
    position = np.array([worlds.index(int(w)) for w in now.world[entries]], dtype=np.intp)
    mass = world_prior[position] * belief_prior[position, now.owner[entries]]
    joint = (mass[:, None] * desire_prior[None, :]) * now.likelihood[entries]
    prior = (mass[:, None] * desire_prior[None, :]) * now.chance[entries][:, None]
    total = fsum(joint)
    weights = joint / total if total > 0 else joint
    n_d = len(desire_prior)
    return (np.repeat(entries, n_d), np.tile(np.arange(n_d), len(entries)), weights.reshape(-1), prior.reshape(-1))


def through(now: Now, world: np.ndarray, owner: np.ndarray, column: np.ndarray, by_chance: bool = False):
    """For hypotheses (tables' world, initial belief row, desire column), each one's entries
    with their share: P(entry | hypothesis, path) (the likelihood through each entry over
    their sum), or with ``by_chance`` the entries' chance (what the hypothesis makes of the
    percepts before any action is seen, unnormalised as exact inference's prior masses are).
    ``(hypothesis, entry, share)``, one element per pair with a positive share."""
    slot: dict[tuple[int, int], list[int]] = {}
    for m, (w, b) in enumerate(zip(now.world.tolist(), now.owner.tolist())):
        slot.setdefault((w, b), []).append(m)
    triples = np.stack([np.asarray(world, dtype=np.int64), np.asarray(owner, dtype=np.int64),
                        np.asarray(column, dtype=np.int64)], axis=1)
    distinct, which = np.unique(triples, axis=0, return_inverse=True)
    which = which.reshape(-1)
    members = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[members], np.arange(len(distinct) + 1))
    hyp, ent, share = [], [], []
    for k, (w, b, d) in enumerate(distinct.tolist()):
        mine = np.asarray(slot.get((w, b), []), dtype=np.intp)
        if not len(mine):
            continue
        part = now.chance[mine] if by_chance else now.likelihood[mine, d]
        total = fsum(part)
        keep = part > 0
        if total <= 0 or not keep.any():
            continue
        part = part[keep] if by_chance else part[keep] / total
        for n in members[bounds[k]:bounds[k + 1]]:
            hyp.append(np.full(len(part), n))
            ent.append(mine[keep])
            share.append(part)
    cat = (lambda xs, dtype: np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype=dtype))
    return cat(hyp, np.intp), cat(ent, np.intp), cat(share, np.float64)
