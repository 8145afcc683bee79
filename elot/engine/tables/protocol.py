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

Whatever comes back is checked (:func:`check_tables`, :func:`check_space`); a domain that
breaks the protocol gets a :class:`DomainError` naming the domain and the method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

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
    """Initial beliefs over the worlds (``float64[n, n_worlds]``) and their prior."""

    beliefs: np.ndarray
    prior: np.ndarray


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


def check_beliefs(domain: Any, method: str, beliefs: np.ndarray) -> None:
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


def world_atoms(domain: Any, layout: Any, world: int, label: str = "") -> frozenset:
    """``domain.world_atoms(layout, world)`` checked: an iterable of atoms, each a tuple of
    a predicate's name and its arguments' names (strings); else a :class:`DomainError`
    naming what came back."""
    where = f"world_atoms (world {label or world})"
    found = ask(domain, "world_atoms", layout, world)
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
