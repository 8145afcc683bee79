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
    for field, shape in expected.items():
        value = np.asarray(getattr(tables, field))
        if value.shape != shape:
            raise _fail(domain, "tables", f"{field} has shape {value.shape}, expected {shape}")
        if not np.all(np.isfinite(value)):
            raise _fail(domain, "tables", f"{field} holds a value that is not finite")
    trans = np.asarray(tables.transitions)
    if trans.min() < 0 or trans.max() >= n_s or not np.array_equal(trans, np.round(trans)):
        raise _fail(domain, "tables", f"transitions must hold state indices 0..{n_s - 1}")
    outcomes = np.asarray(tables.outcomes)
    if outcomes.min() < -1 or outcomes.max() >= n_obj:
        raise _fail(domain, "tables", f"outcomes must hold object indices 0..{n_obj - 1} or -1")
    obs = np.asarray(tables.observations, dtype=np.float64)
    if obs.min() < -1e-9 or np.abs(obs.sum(axis=2) - 1).max() > 1e-9:
        raise _fail(domain, "tables", "each observations[w, s, :] must be probabilities summing to 1")
    return tables


def check_space(domain: Any, method: str, rows: np.ndarray, prior: np.ndarray, width: int) -> None:
    """A hypothesis table ``rows`` (``[n, width]``) with a prior of ``n`` probabilities."""
    rows, prior = np.asarray(rows), np.asarray(prior)
    if rows.ndim != 2 or rows.shape[1] != width or not len(rows):
        raise _fail(domain, method, f"its table has shape {rows.shape}, expected (n >= 1, {width})")
    if prior.shape != (len(rows),):
        raise _fail(domain, method, f"its prior has shape {prior.shape}, expected ({len(rows)},)")
    if not np.all(np.isfinite(rows)) or not np.all(np.isfinite(prior)):
        raise _fail(domain, method, "it holds a value that is not finite")
    if prior.min() < 0 or abs(prior.sum() - 1) > 1e-9:
        raise _fail(domain, method, "its prior must be probabilities summing to 1")
