"""The domain protocol: what a domain tells the engine, and the checks made on it.

A domain is any object with the attributes and methods of :class:`Domain` (a
:class:`typing.Protocol`: no base class to inherit). The engine asks it for

* :meth:`Domain.tables` — the tabular model of one layout (a map): the observable states
  (the agent's positions, with any absorbing "done" state), the hidden worlds, the actions
  with their costs, the deterministic transition in each world, the observation model
  (possibly probabilistic: a percept seen with probability ``v``), and which object an
  action obtains in each world (the agent is rewarded by its utility for that object);
* :meth:`Domain.desires` — the utility vectors over those objects the agent may hold, with
  their prior;
* :meth:`Domain.initial_beliefs` — the agent's possible initial beliefs over the worlds,
  with their prior;
* :meth:`Domain.signature` and :meth:`Domain.world_atoms` — the ELoT signature and the
  ground atoms true in each world, so statements about the domain can be scored.

A domain may also give (each optional, and without them everything is as before)

* ``initial_beliefs(layout)`` with a prior per world (:class:`BeliefSpace` with a
  ``prior`` of shape ``(n_worlds, n)``: row w is the prior over the initial beliefs when
  the true world is w);
* ``world_atoms_at(layout, world, state)`` — the atoms true in a world when the path is in
  a state: worlds that change along the path (what another agent did while the observed one
  was away), where ``world_atoms`` says what is true at the start;
* ``events(layout)`` — :class:`Events`: what happens besides the agent's moves (in which
  worlds and states each event has happened), which of the agent's percepts are seeing
  an event, and the other agents of the scene (:class:`Witness`), who act on nothing but
  perceive, each with its own observation model, initial belief, and model of what the
  others perceive.

Whatever comes back is checked (:func:`check_tables`, :func:`check_space`,
:func:`check_beliefs`, :func:`check_events`); a domain that breaks the protocol gets a
:class:`DomainError` naming the domain and the method.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

from elot.errors import DomainError, ElotError


@dataclass(frozen=True, eq=False)
class Tables:
    """The tabular model of one layout.

    ``transitions[w, s, a]`` is the state after action ``a`` in state ``s`` of world ``w``
    (deterministic); ``observations[w, s, o]`` the probability of percept ``o`` on entering
    ``s`` in world ``w`` (each row sums to 1); ``outcomes[w, s, a]`` the index of the object
    in ``objects`` that action ``a`` obtains in ``s`` of world ``w``, or -1 (no reward).
    ``costs[a]`` is paid on every action.
    """

    states: tuple[str, ...]
    worlds: tuple[str, ...]
    actions: tuple[str, ...]
    percepts: tuple[str, ...]
    objects: tuple[str, ...]
    costs: np.ndarray
    transitions: np.ndarray
    observations: np.ndarray
    outcomes: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        """(worlds, states, actions)."""
        return len(self.worlds), len(self.states), len(self.actions)


@dataclass(frozen=True, eq=False)
class DesireSpace:
    """Utility vectors (``float64[n, len(objects)]``, one row per hypothesis) and their prior."""

    objects: tuple[str, ...]
    utilities: np.ndarray
    prior: np.ndarray


@dataclass(frozen=True, eq=False)
class BeliefSpace:
    """Initial beliefs over the worlds (``float64[n, n_worlds]``) and their prior: one for
    every world (``(n,)``), or one per true world (``(n_worlds, n)``, row w the prior over
    the initial beliefs when the world is w: an agent whose first belief depends on what is
    so, as a child who was shown the tube's contents before)."""

    beliefs: np.ndarray
    prior: np.ndarray

    @property
    def per_world(self) -> bool:
        """Whether the prior depends on the true world."""
        return np.ndim(self.prior) == 2

    def prior_in(self, worlds) -> np.ndarray:
        """``float64[len(worlds), n]``: the prior over the initial beliefs in each of ``worlds``."""
        prior = np.asarray(self.prior, dtype=np.float64)
        if prior.ndim == 2:
            return prior[np.asarray(worlds, dtype=np.intp)]
        return np.tile(prior, (len(worlds), 1))


@dataclass(frozen=True, eq=False)
class Witness:
    """Another agent of the scene: it does not act (the path is the observed agent's), it
    perceives. ``observations[w, s, o]`` is the probability of its percept ``o`` when the
    path enters state ``s`` in world ``w`` (each row sums to 1); ``seen`` names, for each of
    its percepts that is seeing an event, the event (or events); ``belief`` is its initial
    belief over the worlds (``(n_worlds,)``, or ``(n_worlds, n_worlds)``: row w when the true
    world is w). It believes by Bayes' rule on its percepts and on the path's states (a step
    no action takes in a world rules that world out). ``thinks`` gives, for another agent
    (by name: the observed agent or another witness), that agent's observation table as
    this one models it (default: the true one), e.g. Anne thinking that Sally peeks more
    often than she does."""

    name: str
    percepts: tuple[str, ...]
    observations: np.ndarray
    seen: Mapping[str, Any]
    belief: np.ndarray
    thinks: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Events:
    """What happens in a layout besides the agent's moves, and who sees it.

    ``names``: the events (ELoT objects of type ``event``); ``happened[w, s, e]``: whether
    event e has happened when the path is in state s of world w (the atom
    ``happened(e)``); ``seen``: for each of the observed agent's percepts (by name, as the
    tables name them) that is seeing an event, the event or events (its percept history
    then carries ``observed(agent, e)``); ``witnesses``: the scene's other agents;
    ``agent``: the observed agent's name (as the signature names it; needed when a
    witness's ``thinks`` names it); ``thinks``: the observed agent's model of a witness's
    observation table, by the witness's name (default: the true one)."""

    names: tuple[str, ...]
    happened: np.ndarray
    seen: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    witnesses: tuple[Witness, ...] = ()
    agent: str = ""
    thinks: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)


@runtime_checkable
class Domain(Protocol):
    """What a domain implements (see the module docstring and docs/domains.md)."""

    name: str
    default_planner: str

    def tables(self, layout: Any) -> Tables: ...

    def desires(self) -> DesireSpace: ...

    def initial_beliefs(self, layout: Any) -> BeliefSpace: ...

    def signature(self) -> Any: ...

    def world_atoms(self, layout: Any, world: int) -> frozenset: ...


def ask(domain: Any, method: str, *args):
    """``domain.method(*args)``, with anything it raises (or a missing method) as a
    :class:`DomainError` naming the domain and the method."""
    where = f"{_name(domain)}.{method}"
    func = getattr(domain, method, None)
    if not callable(func):
        raise DomainError(f"{where}: the domain has no method {method!r}",
                          hint="a domain implements tables, desires, initial_beliefs, signature "
                          "and world_atoms (docs/domains.md)")
    try:
        return func(*args)
    except ElotError:
        raise
    except Exception as error:  # the domain's own bug: reported, not a traceback
        raise DomainError(f"{where} raised {type(error).__name__}: {error}",
                          hint="fix the domain's method; the engine calls it as the protocol says "
                          "(docs/domains.md)") from error


def _name(domain: Any) -> str:
    return str(getattr(domain, "name", type(domain).__name__))


def _fail(domain: Any, method: str, message: str) -> DomainError:
    return DomainError(f"{_name(domain)}.{method}: {message}",
                       hint="see the table shapes in docs/domains.md")


def check_tables(domain: Any, tables: Any) -> Tables:
    """``tables`` if it is a well-formed :class:`Tables`, else a :class:`DomainError`."""
    if not isinstance(tables, Tables):
        raise _fail(domain, "tables", f"returned {type(tables).__name__}, not elot.engine.Tables")
    n_w, n_s, n_a = len(tables.worlds), len(tables.states), len(tables.actions)
    n_o, n_obj = len(tables.percepts), len(tables.objects)
    if not (n_w and n_s and n_a and n_o):
        raise _fail(domain, "tables", "every table needs at least one world, state, action and percept")
    expected = {
        "costs": (n_a,), "transitions": (n_w, n_s, n_a),
        "observations": (n_w, n_s, n_o), "outcomes": (n_w, n_s, n_a),
    }
    held = {}
    for field, shape in expected.items():
        value = held[field] = numbers(domain, "tables", field, getattr(tables, field))
        if value.shape != shape:
            raise _fail(domain, "tables", f"{field} has shape {value.shape}, expected {shape}")
        if not np.all(np.isfinite(value)):
            raise _fail(domain, "tables", f"{field} holds a value that is not finite")
    trans = held["transitions"]
    if trans.min() < 0 or trans.max() >= n_s or not np.array_equal(trans, np.round(trans)):
        raise _fail(domain, "tables", f"transitions must hold state indices 0..{n_s - 1}")
    outcomes = held["outcomes"]
    if outcomes.min() < -1 or outcomes.max() >= n_obj or not np.array_equal(outcomes, np.round(outcomes)):
        raise _fail(domain, "tables", f"outcomes must hold object indices 0..{n_obj - 1} or -1")
    obs = held["observations"]
    if obs.min() < -1e-9 or np.abs(obs.sum(axis=2) - 1).max() > 1e-9:
        raise _fail(domain, "tables", "each observations[w, s, :] must be probabilities summing to 1")
    if np.abs(held["costs"]).max() > MAX_UTILITY:
        raise _fail(domain, "tables", f"costs must be at most {MAX_UTILITY:g} in size (the planner adds them up)")
    return tables


#: The largest utility a desire may give an object: the planner adds utilities over as many
#: steps as it sweeps, and past about 1e306 the sums overflow a float64 (and their
#: differences become NaN); 1e15 leaves every planner room and is far past any scale in use.
MAX_UTILITY = 1e15


def numbers(domain: Any, method: str, what: str, value: Any) -> np.ndarray:
    """``value`` as a float64 array, or a :class:`DomainError` naming the first entry that is
    not a number (an object array holding text, say) and where it is."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:     # a ragged list, say
        raise _fail(domain, method, f"{what} is not a table of numbers ({error})") from None
    if array.dtype.kind in "biuf":
        return array.astype(np.float64, copy=False)
    flat = array.reshape(-1) if array.ndim else array.reshape(1)
    for n, item in enumerate(flat):
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, float, np.integer, np.floating)):
            at = np.unravel_index(n, array.shape) if array.ndim else ()
            place = (f" at row {at[0]}, column {at[1]}" if len(at) == 2 else
                     f" at [{', '.join(map(str, at))}]" if at else "")
            raise _fail(domain, method, f"{what} holds {item!r} ({type(item).__name__}){place}, not a number "
                                        f"(its dtype is {array.dtype})")
    return array.astype(np.float64)


def check_space(domain: Any, method: str, rows: np.ndarray, prior: np.ndarray, width: int) -> None:
    """A hypothesis table ``rows`` (``[n, width]``) with a prior of ``n`` probabilities."""
    rows, prior = numbers(domain, method, "its table", rows), numbers(domain, method, "its prior", prior)
    if rows.ndim != 2 or rows.shape[1] != width or not len(rows):
        raise _fail(domain, method, f"its table has shape {rows.shape}, expected (n >= 1, {width})")
    if prior.shape != (len(rows),):
        raise _fail(domain, method, f"its prior has shape {prior.shape}, expected ({len(rows)},)")
    if not np.all(np.isfinite(rows)) or not np.all(np.isfinite(prior)):
        raise _fail(domain, method, "it holds a value that is not finite")
    if prior.min() < 0 or abs(prior.sum() - 1) > 1e-9:
        raise _fail(domain, method, "its prior must be probabilities summing to 1")


def check_beliefs(domain: Any, space: Any, n_worlds: int) -> BeliefSpace:
    """``space`` if it is a well-formed :class:`BeliefSpace` over ``n_worlds`` worlds (its prior
    one for every world, or one per world; each belief a distribution), else a
    :class:`DomainError`."""
    if not isinstance(space, BeliefSpace):
        raise DomainError(f"{_name(domain)}.initial_beliefs: returned {type(space).__name__}, not "
                          "elot.engine.BeliefSpace")
    prior = np.asarray(space.prior)
    if prior.ndim != 2:
        check_space(domain, "initial_beliefs", space.beliefs, space.prior, n_worlds)
    elif prior.shape[0] != n_worlds:
        raise _fail(domain, "initial_beliefs", f"its prior per world has shape {prior.shape}, expected "
                    f"({n_worlds}, {len(np.asarray(space.beliefs))}): one row per world")
    else:
        for row in prior:
            check_space(domain, "initial_beliefs", space.beliefs, row, n_worlds)
    check_belief_rows(domain, "initial_beliefs", space.beliefs)
    return space


def seen_bits(domain: Any, where: str, seen: Any, percepts: tuple[str, ...], events: tuple[str, ...]) -> np.ndarray:
    """``int64[len(percepts)]``: each percept's events as bits (bit e: events[e])."""
    if not isinstance(seen, Mapping):
        raise _fail(domain, "events", f"{where}: seen must map percept names to events, not {type(seen).__name__}")
    bits = np.zeros(len(percepts), dtype=np.int64)
    for percept, named in seen.items():
        if percept not in percepts:
            raise _fail(domain, "events", f"{where}: seen names the percept {percept!r}, which is not one of "
                        f"{', '.join(percepts)}")
        for event in ((named,) if isinstance(named, str) else tuple(named)):
            if event not in events:
                raise _fail(domain, "events", f"{where}: the percept {percept!r} sees {event!r}, which is not one "
                            f"of the events ({', '.join(events) or 'none'})")
            bits[percepts.index(percept)] |= 1 << events.index(event)
    return bits


def _observations(domain: Any, where: str, table: Any, shape: tuple[int, ...]) -> np.ndarray:
    obs = np.asarray(table, dtype=np.float64)
    if obs.shape != shape:
        raise _fail(domain, "events", f"{where} has shape {obs.shape}, expected {shape}")
    if not np.all(np.isfinite(obs)) or obs.min() < -1e-9 or np.abs(obs.sum(axis=2) - 1).max() > 1e-9:
        raise _fail(domain, "events", f"{where}: each row [w, s, :] must be probabilities summing to 1")
    return obs


def check_events(domain: Any, events: Any, tables: Tables) -> Events:
    """``events`` if it is a well-formed :class:`Events` for ``tables``, else a
    :class:`DomainError` naming what is wrong. At most 62 events (their sets are bits)."""
    if not isinstance(events, Events):
        raise _fail(domain, "events", f"returned {type(events).__name__}, not elot.engine.Events")
    n_w, n_s, _ = tables.shape
    names = tuple(events.names)
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names) or len(names) > 62:
        raise _fail(domain, "events", f"names must be distinct non-empty strings, at most 62: {names!r}")
    happened = np.asarray(events.happened)
    if happened.shape != (n_w, n_s, len(names)):
        raise _fail(domain, "events", f"happened has shape {happened.shape}, expected {(n_w, n_s, len(names))}")
    seen_bits(domain, "the agent", events.seen, tables.percepts, names)
    witnesses = tuple(events.witnesses)
    agents = [events.agent] + [w.name for w in witnesses if isinstance(w, Witness)]
    for k, witness in enumerate(witnesses):
        if not isinstance(witness, Witness):
            raise _fail(domain, "events", f"witness {k + 1} is a {type(witness).__name__}, not elot.engine.Witness")
        where = f"witness {witness.name!r}"
        if not isinstance(witness.name, str) or not witness.name or agents.count(witness.name) > 1:
            raise _fail(domain, "events", f"{where}: each witness needs a name of its own, not the agent's")
        _observations(domain, f"{where}: observations", witness.observations, (n_w, n_s, len(witness.percepts)))
        seen_bits(domain, where, witness.seen, tuple(witness.percepts), names)
        belief = np.asarray(witness.belief, dtype=np.float64)
        if belief.shape not in ((n_w,), (n_w, n_w)) or not np.all(np.isfinite(belief)) or belief.min() < 0 \
                or np.abs(np.atleast_2d(belief).sum(axis=1) - 1).max() > 1e-9:
            raise _fail(domain, "events", f"{where}: belief must be a distribution over the {n_w} worlds, or one "
                        "per world (rows summing to 1)")
    for owner, thinks in [(events.agent or "the agent", events.thinks)] + [(w.name, w.thinks) for w in witnesses]:
        for other, table in dict(thinks).items():
            if other == owner or other not in agents or not other:
                raise _fail(domain, "events", f"{owner}'s thinks names {other!r}, which is not another agent of the "
                            f"scene ({', '.join(a for a in agents if a and a != owner)})")
            if other == events.agent:
                shape, true = (n_w, n_s, len(tables.percepts)), np.asarray(tables.observations, dtype=np.float64)
            else:
                seen = next(w for w in witnesses if w.name == other)
                shape, true = (n_w, n_s, len(seen.percepts)), np.asarray(seen.observations, dtype=np.float64)
            model = _observations(domain, f"{owner}'s model of {other}'s observations", table, shape)
            if other == events.agent and not np.array_equal(model > 0, true > 0):
                raise _fail(domain, "events", f"{owner}'s model of {other}'s observations must give a positive "
                            "probability to the same percepts as the true one (it may weigh them otherwise)")
    return events
def check_belief_rows(domain: Any, method: str, beliefs: np.ndarray) -> None:
    """Each row of ``beliefs`` a probability distribution over the worlds: no entry
    negative, the row summing to 1 within 1e-9; else a :class:`DomainError` naming the
    first row that is not (a row ``[0.5, 0.4]`` would silently move the posterior)."""
    beliefs = np.asarray(beliefs, dtype=np.float64)
    for n, row in enumerate(beliefs):
        total = float(row.sum())
        if row.min() < 0 or abs(total - 1.0) > 1e-9:
            shown = "[" + ", ".join(f"{v:g}" for v in row[:8]) + (", ..." if len(row) > 8 else "") + "]"
            why = f"holds {row.min():g}, a negative probability" if row.min() < 0 else f"sums to {total:.12g}, not 1"
            raise DomainError(f"{_name(domain)}.{method}: row {n} of its beliefs, {shown}, {why}",
                              hint="each initial belief is a probability distribution over the worlds: entries "
                                   ">= 0 summing to 1 (within 1e-9)")


def check_utilities(domain: Any, utilities: np.ndarray) -> None:
    """No utility larger in size than :data:`MAX_UTILITY`, else a :class:`DomainError`
    naming the row."""
    utilities = np.asarray(utilities, dtype=np.float64)
    if not utilities.size:
        return
    big = np.flatnonzero(np.abs(utilities).max(axis=1) > MAX_UTILITY)
    if len(big):
        row = utilities[big[0]]
        raise DomainError(f"{_name(domain)}.desires: row {big[0]} of its utilities holds "
                          f"{row[np.argmax(np.abs(row))]:g}, larger than {MAX_UTILITY:g} in size",
                          hint="the planner adds utilities over many steps and they would overflow: scale the "
                               f"utilities down (they need only their ratios; at most {MAX_UTILITY:g})")


def world_atoms(domain: Any, layout: Any, world: int, label: str = "", state: int | None = None,
                state_label: str = "") -> frozenset:
    """``domain.world_atoms(layout, world)`` checked (with ``state``,
    ``domain.world_atoms_at(layout, world, state)``): an iterable of atoms, each a tuple of a
    predicate's name and its arguments' names (strings); else a :class:`DomainError` naming
    what came back."""
    if state is None:
        where = f"world_atoms (world {label or world})"
        found = ask(domain, "world_atoms", layout, world)
    else:
        where = f"world_atoms_at (world {label or world}, state {state_label or state})"
        found = ask(domain, "world_atoms_at", layout, world, state)
    if isinstance(found, (str, bytes)) or not hasattr(found, "__iter__"):
        raise _atoms(domain, where, f"returned {found!r} ({type(found).__name__}), not a set of atoms")
    atoms = []
    for atom in found:
        if isinstance(atom, (str, bytes)) or not isinstance(atom, (tuple, list)) or not atom \
                or not all(isinstance(part, str) for part in atom):
            raise _atoms(domain, where, f"holds {atom!r}, not an atom (a tuple of names: (predicate, *arguments))")
        atoms.append(tuple(atom))
    return frozenset(atoms)


def _atoms(domain: Any, where: str, message: str) -> DomainError:
    return DomainError(f"{_name(domain)}.{where}: {message}",
                       hint='return a frozenset of tuples such as ("open", "shop") (docs/domains.md)')
