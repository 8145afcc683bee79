"""The observer's hypotheses about an agent, and the protocol a belief model implements.

A *hypothesis* is one way the world and the agents' minds might be: a world state, each
agent's belief (a distribution over world states) and the hypothesis's posterior weight.
:class:`Hypotheses` holds N of them as arrays, the form the vectorized evaluator reads:

* ``worlds``: the S distinct world states (:class:`~elot.lang.semantics.State`);
* ``true_index``: (N,) which world each hypothesis takes to be the true one;
* ``beliefs``: ``{agent: (N, S) array}``, each row a distribution over ``worlds``;
* ``weights``: (N,) the posterior, summing to 1;
* ``belief_tables`` (optional, for nested beliefs: what one agent believes another believes,
  SPEC §10): ``{agent: (S, S) array}``, row s the agent's belief over ``worlds`` when the
  situation is world s. The worlds are then *situations*, the world together with what the
  agents perceived (atoms such as ``observed(sally, move)``), so that an agent's belief is a
  function of the situation;
* ``prior`` / ``live`` (optional; ``multiplicity`` is ``prior``'s older name): each row's prior mass (relative: how many
  equally likely hypotheses it stands for), and how much of it is still possible; they
  only matter for π, the statement's prior probability (see :func:`elot.judge`). Without
  them the prior is uniform over the *distinct* hypotheses: identical rows are copies of
  one hypothesis and share its mass, so splitting a hypothesis changes nothing.

A *belief model* is anything with a ``signature``, a sequence of ``times`` and a method
``hypotheses(t)`` returning :class:`Hypotheses` (or (world, belief, weight) triples):
:class:`BeliefModel`. elot's own BToM inference is one (:class:`elot.embedding.BToMModel`).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from elot import judging
from elot.domains.source import Source
from elot.errors import ElotError, expect
from elot.lang.states import Belief, State, situation_table
from elot.lang.signature import Signature
from elot.numeric import dot_columns

#: How far weights may be from summing to 1 (float rounding over many rows).
TOLERANCE = 1e-6


class BeliefModelError(ElotError):
    """A belief model or its hypotheses are malformed (shapes, weights, agents, loading)."""

    kind = "model error"


class Hypotheses(judging.Hypotheses):
    """N hypotheses as arrays, checked against a signature: :class:`elot.judging.Hypotheses`
    (what every source of hypotheses hands to scoring) with the checked constructors
    :meth:`of` and :meth:`from_arrays` (the constructor trusts its arguments)."""

    # -- construction ------------------------------------------------------------------

    @staticmethod
    def of(triples: Iterable[tuple[Any, Any, float]], signature: Signature, *,
           labels: Sequence[str] | None = None, desires: judging.Desires | None = None,
           belief_tables: Mapping[str, Mapping[Any, Any]] | None = None) -> "Hypotheses":
        """Hypotheses from ``(world, belief, weight)`` triples.

        ``world`` is a :class:`State` or its text (``"inside(marble, basket)"``);
        ``belief`` a :class:`Belief` or its text (``"0.9: inside(marble, box) | 0.1: ..."``)
        for the observed agent, or a mapping ``{agent: belief}`` for several agents. States
        are typechecked against ``signature``; weights must be non-negative and sum to 1.
        ``desires``: the observed agent's utilities, one row per triple (see
        :meth:`from_arrays`). ``belief_tables`` (for nested beliefs): ``{agent: {situation:
        belief}}``, the agent's belief in each situation (a :class:`State` or its text), for
        every state the hypotheses mention.
        """
        rows = list(triples)
        if not rows:
            raise BeliefModelError("no hypotheses were given", hint="give at least one (world, belief, weight) triple")
        worlds: dict[State, int] = {}
        true_index, weights, per_agent = [], [], []
        for n, row in enumerate(rows):
            where = f"hypothesis {n}" + (f" ({labels[n]})" if labels else "")
            if not (isinstance(row, tuple) and len(row) == 3):
                raise BeliefModelError(f"{where} is not a (world, belief, weight) triple",
                                 hint="e.g. (State.parse('inside(marble, box)'), Belief.point(...), 0.5)")
            world, belief, weight = row
            world = _state(world, signature, where)
            true_index.append(worlds.setdefault(world, len(worlds)))
            table = belief if isinstance(belief, Mapping) else {signature.agent: belief}
            entry = {}
            for agent, b in table.items():
                b = _belief(b, signature, f"{where}, {agent}'s belief")
                for state, _ in b.support:
                    worlds.setdefault(state, len(worlds))
                entry[_agent(agent, signature)] = b
            per_agent.append(entry)
            weights.append(_weight(weight, where))
        tables = _situation_tables(belief_tables, signature, worlds)
        agents = list(dict.fromkeys(a for entry in per_agent for a in entry))
        beliefs = {}
        for agent in agents:
            array = np.zeros((len(rows), len(worlds)))
            for n, entry in enumerate(per_agent):
                if agent not in entry:
                    raise BeliefModelError(f"hypothesis {n} gives no belief of {agent}",
                                     hint="give every hypothesis a belief for the same agents")
                array[n] = entry[agent].over(worlds)
            beliefs[agent] = np.asfortranarray(array)
        weights_array = np.asarray(weights, dtype=np.float64)
        _check_sum(weights_array.sum(), "the hypotheses' weights")
        if desires is not None:
            _check_desires(desires, signature, len(rows))
        arrays = None if tables is None else {
            agent: situation_table(agent, table, worlds, error=BeliefModelError,
                                   hint="give the agent's belief in every state the hypotheses mention")
            for agent, table in tables.items()}
        return Hypotheses(signature, tuple(worlds), np.asarray(true_index, dtype=np.intp), beliefs,
                          weights_array, labels=tuple(labels) if labels else None, desires=desires,
                          belief_tables=arrays)

    @staticmethod
    def from_arrays(
        signature: Signature,
        worlds: Sequence[State | str],
        beliefs: np.ndarray | Mapping[str, np.ndarray],
        weights: np.ndarray,
        true_index: np.ndarray | None = None,
        *,
        prior: np.ndarray | None = None,
        live: np.ndarray | None = None,
        labels: Sequence[str] | None = None,
        multiplicity: np.ndarray | None = None,
        desires: judging.Desires | None = None,
        belief_tables: Mapping[str, np.ndarray] | None = None,
    ) -> "Hypotheses":
        """Hypotheses given as arrays (the vectorized path): ``worlds`` the S world states,
        ``beliefs`` an (N, S) array for the observed agent or ``{agent: (N, S) array}``,
        ``weights`` (N,), ``true_index`` (N,) indices into ``worlds`` (default: row n's
        world is ``worlds[n]``). Every array is checked: shapes, non-negative finite
        values, rows and weights summing to 1; states against ``signature``. ``desires``
        (optional): what the observed agent wants in each row, a
        :class:`~elot.judging.Desires` with one row of utilities per hypothesis over objects
        of ``signature``, for statements such as ``likes_best(player, mexican)``.
        ``belief_tables`` (optional, for nested beliefs such as ``believes(anne,
        formula(believes(sally, formula(φ))))``): ``{agent: (S, S) array}``, row s the
        agent's belief over ``worlds`` when the situation is world s (rows summing to 1); an
        agent with a table needs no ``beliefs`` (its belief in each row is then its table's
        row at the row's true world)."""
        expect(signature, Signature, "signature", hint="elot.declare(...), elot.read_domain(path) or Signature.default()")
        if isinstance(worlds, (str, bytes)) or not isinstance(worlds, Sequence):
            raise BeliefModelError(f"worlds must be a sequence of States, not {type(worlds).__name__}")
        worlds = tuple(_state(w, signature, f"world {n}") for n, w in enumerate(worlds))
        weights = _floats(weights, "weights")
        if weights.ndim != 1 or not len(weights):
            raise BeliefModelError(f"weights must be a non-empty (N,) array, got shape {weights.shape}")
        n = len(weights)
        _check_values(weights, "weights")
        _check_sum(weights.sum(), "the weights")
        if true_index is None:
            if len(worlds) != n:
                raise BeliefModelError(f"give true_index: there are {len(worlds)} worlds but {n} hypotheses",
                                 hint="true_index[n] is the index of hypothesis n's world in worlds")
            true_index = np.arange(n)
        true_index = _numbers(true_index, "true_index")
        if true_index.shape != (n,) or not np.issubdtype(true_index.dtype, np.integer):
            raise BeliefModelError(f"true_index must be an (N,) = ({n},) integer array, got {true_index.dtype} {true_index.shape}")
        if n and (true_index.min() < 0 or true_index.max() >= len(worlds)):
            raise BeliefModelError(f"true_index points outside the {len(worlds)} worlds")
        table = beliefs if isinstance(beliefs, Mapping) else {signature.agent: beliefs}
        if not table and not belief_tables:
            raise BeliefModelError("beliefs is empty: give an (N, S) array, or {agent: (N, S) array}")
        checked = {}
        for agent, rows in table.items():
            name = _agent(agent, signature)
            # Column-major: the evaluator reads beliefs by world (column), see sum_columns_in_order.
            rows = np.asfortranarray(_floats(rows, f"{name}'s beliefs"))
            if rows.shape != (n, len(worlds)):
                raise BeliefModelError(f"{name}'s beliefs must be an (N, S) = ({n}, {len(worlds)}) array, got {rows.shape}",
                                 hint="one row per hypothesis, one column per world")
            _check_rows(rows, f"{name}'s beliefs")
            checked[name] = rows
        if multiplicity is not None:
            if prior is not None:
                raise BeliefModelError("give prior= or multiplicity= (its older name), not both")
            prior = multiplicity
        for extra, what in ((prior, "prior"), (live, "live")):
            if extra is not None and (np.shape(_floats(extra, what)) != (n,) or np.any(_floats(extra, what) < 0)):
                raise BeliefModelError(f"{what} must be an (N,) array of non-negative counts")
        if desires is not None:
            _check_desires(desires, signature, n)
        tables = None if belief_tables is None else _table_arrays(belief_tables, signature, len(worlds))
        return Hypotheses(signature, worlds, true_index.astype(np.intp), checked, weights,
                          None if prior is None else np.asarray(prior, dtype=np.float64),
                          None if live is None else np.asarray(live, dtype=np.float64),
                          tuple(labels) if labels is not None else None, desires=desires,
                          belief_tables=tables)

    def average_belief(self, agent: str | None = None) -> np.ndarray:
        """``agent``'s belief over the worlds, averaged over hypotheses by posterior, (S,)."""
        return average_belief(self, agent)


def average_belief(hypotheses: judging.Hypotheses, agent: str | None = None) -> np.ndarray:
    """``agent``'s belief over the worlds, averaged over hypotheses by posterior, (S,)."""
    signature = hypotheses.signature
    agent = signature.resolve(agent or signature.agent)
    if agent not in hypotheses.beliefs:
        raise BeliefModelError(f"no belief of {agent} is given", hint="agents with beliefs: " + ", ".join(hypotheses.beliefs))
    return dot_columns(hypotheses.weights, hypotheses.beliefs[agent])


def _table_arrays(tables, signature: Signature, size: int) -> dict[str, np.ndarray]:
    """Belief-in-situation tables checked: ``{agent: (S, S)}``, each row a distribution."""
    if not isinstance(tables, Mapping):
        raise BeliefModelError(f"belief_tables must be a mapping {{agent: (S, S) array}}, not {type(tables).__name__}",
                               hint="row s of an agent's table: its belief over the worlds when the situation is world s")
    out = {}
    for agent, rows in tables.items():
        name = _agent(agent, signature)
        rows = np.ascontiguousarray(_floats(rows, f"{name}'s belief table"))
        if rows.shape != (size, size):
            raise BeliefModelError(f"{name}'s belief table must be an (S, S) = ({size}, {size}) array, got {rows.shape}",
                                   hint="one row and one column per world: row s is the agent's belief when the "
                                        "situation is world s")
        _check_rows(rows, f"{name}'s belief table")
        out[name] = rows
    return out


def _situation_tables(tables, signature: Signature, worlds: dict) -> dict[str, dict[State, Belief]] | None:
    """``{agent: {situation: belief}}`` checked, every state it mentions added to ``worlds``."""
    if tables is None:
        return None
    if not isinstance(tables, Mapping):
        raise BeliefModelError(f"belief_tables must be a mapping {{agent: {{situation: belief}}}}, "
                               f"not {type(tables).__name__}")
    out = {}
    for agent, table in tables.items():
        name = _agent(agent, signature)
        if not isinstance(table, Mapping):
            raise BeliefModelError(f"{name}'s belief table must map situations to beliefs, not {type(table).__name__}",
                                   hint="e.g. {State.parse('inside(marble, box), observed(sally, move)'): "
                                        "'1: inside(marble, box), observed(sally, move)'}")
        entry = {}
        for situation, belief in table.items():
            situation = _state(situation, signature, f"a situation of {name}'s belief table")
            belief = _belief(belief, signature, f"{name}'s belief in the situation {situation}")
            worlds.setdefault(situation, len(worlds))
            for state, _ in belief.support:
                worlds.setdefault(state, len(worlds))
            entry[situation] = belief
        out[name] = entry
    return out


def _check_desires(desires, signature: Signature, n: int) -> None:
    """A :class:`~elot.judging.Desires` with one row per hypothesis, over known objects."""
    if not isinstance(desires, judging.Desires):
        raise BeliefModelError(f"desires must be an elot.judging.Desires, not {type(desires).__name__}",
                               hint="Desires(objects=(\"korean\", \"mexican\"), utilities=(N, 2) array)")
    if len(desires.utilities) != n:
        raise BeliefModelError(f"the desires have {len(desires.utilities)} rows but there are {n} hypotheses",
                               hint="give one row of utilities per hypothesis")
    for name in desires.objects:
        if signature.resolve(name) not in signature.object_types:
            guess = signature.suggest(name, signature.object_types)
            raise BeliefModelError(f"the desires name {name!r}, which is not an object of the signature",
                                   hint=f"did you mean {guess!r}?" if guess else
                                   "known objects: " + ", ".join(sorted(signature.object_types)))


def _state(world, signature: Signature, where: str) -> State:
    if isinstance(world, str):
        return State.parse(world, signature=signature, path=f"<{where}>")
    if not isinstance(world, State):
        raise BeliefModelError(f"the world of {where} is a {type(world).__name__}, not a State",
                         hint="give a State (State.parse('...'), State.of([...])) or its text")
    return world.check(signature, path=f"<{where}>")


def _belief(belief, signature: Signature, where: str) -> Belief:
    if isinstance(belief, str):
        return Belief.parse(belief, signature=signature, path=f"<{where}>")
    if isinstance(belief, State):
        return Belief.point(belief.check(signature, path=f"<{where}>"))
    if not isinstance(belief, Belief):
        raise BeliefModelError(f"{where} is a {type(belief).__name__}, not a Belief",
                         hint="give a Belief (Belief.of([(state, weight), ...])), a State (certainty) or text")
    return belief.check(signature, path=f"<{where}>")


def _agent(name, signature: Signature) -> str:
    resolved = signature.resolve(str(name))
    kind = signature.object_types.get(resolved)
    if kind is None or not signature.is_subdomain(kind, "agent"):
        agents = [o for o, _ in signature.objects if signature.is_subdomain(signature.object_types[o], "agent")]
        raise BeliefModelError(f"beliefs are given for {name!r}, which is not an agent of the domain",
                         hint="agents: " + ", ".join(agents))
    return resolved


def _weight(weight, where: str) -> float:
    try:
        value = float(weight)
    except (TypeError, ValueError):
        raise BeliefModelError(f"the weight of {where} is not a number: {weight!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise BeliefModelError(f"the weight of {where} is {value!r}", hint="weights are non-negative probabilities")
    return value


def _numbers(value, name: str) -> np.ndarray:
    """``value`` as a numeric array, or a BeliefModelError naming the argument."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise BeliefModelError(f"{name} must be an array of numbers: {error}") from None
    if array.dtype.kind not in "biuf" or array.dtype == bool and name != "live":
        raise BeliefModelError(f"{name} must be an array of numbers, not {type(value).__name__}"
                         + (f" of {array.dtype}" if array.dtype != object else ""))
    return array


def _floats(value, name: str) -> np.ndarray:
    return _numbers(value, name).astype(np.float64)


def _check_values(array: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        position = np.argwhere(~np.isfinite(array) | (array < 0))[0]
        raise BeliefModelError(f"{what} hold {float(array[tuple(position)])!r} at {tuple(int(i) for i in position)}",
                         hint="weights are finite, non-negative numbers")


def _check_rows(rows: np.ndarray, what: str) -> None:
    """Each row of ``rows`` a distribution over the worlds: non-negative, summing to 1."""
    _check_values(rows, what)
    sums = rows.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > TOLERANCE)
    if len(bad):
        raise BeliefModelError(f"row {bad[0]} of {what} sums to {sums[bad[0]]:g}, not 1",
                               hint="each row is a distribution over the worlds: divide by its sum")


def _check_sum(total: float, what: str) -> None:
    if abs(total - 1.0) > TOLERANCE:
        raise BeliefModelError(f"{what} sum to {total:g}, not 1",
                         hint="normalize them (divide by their sum): they are a posterior")


# -- the protocol ---------------------------------------------------------------------------


@runtime_checkable
class BeliefModel(Protocol):
    """What elot needs from a model of an agent to judge statements about it.

    * ``signature``: the domain (:func:`elot.embedding.declare`, :func:`read_domain`, ...);
    * ``times``: the time steps the model can answer for (e.g. ``range(T + 1)``);
    * ``hypotheses(t)``: :class:`Hypotheses` at time t (or an iterable of
      ``(world, belief, weight)`` triples, converted with :meth:`Hypotheses.of`).

    Optional: ``name`` (str), ``judgments`` (the steps worth judging), ``label(t)`` (what
    happened just before step t, for the REPL), ``initial_hypotheses(t)`` (the worlds and
    beliefs at time 0 weighted by the posterior at t, for statements about the initial
    belief).
    """

    signature: Signature
    times: Sequence[int]

    def hypotheses(self, t: int) -> Hypotheses | Iterable[tuple[Any, Any, float]]: ...


def hypotheses_of(model: BeliefModel, t: int, *, initial: bool = False) -> Hypotheses:
    """``model.hypotheses(t)`` (or ``initial_hypotheses``) as :class:`Hypotheses`."""
    check_belief_model(model)
    if t not in model.times:
        times = list(model.times)
        raise BeliefModelError(f"time {t} is not one of the model's times",
                         hint=f"times: {times[0]}..{times[-1]}" if times else "the model has no times")
    method = getattr(model, "initial_hypotheses" if initial else "hypotheses", None)
    if method is None:
        raise BeliefModelError(f"the model {model_name(model)} has no initial_hypotheses(t)",
                         hint="judge statements about the current belief, or add initial_hypotheses")
    found = call_model(model, method, t)
    if isinstance(found, judging.Hypotheses):
        return found
    if isinstance(found, (str, bytes, Mapping)) or not isinstance(found, Iterable):
        raise BeliefModelError(f"{model_name(model)}.hypotheses({t}) returned a {type(found).__name__}",
                         hint="return Hypotheses or a list of (world, belief, weight) triples")
    return Hypotheses.of(found, model.signature)


def call_model(model: BeliefModel, method, t: int):
    """``method(t)`` of the user's ``model``; its own failure is the model's error (naming
    the method, keeping the cause), not an internal error of elot."""
    try:
        return method(t)
    except ElotError:
        raise
    except Exception as error:
        raise BeliefModelError(f"{model_name(model)}.{getattr(method, '__name__', 'method')}({t}) failed: "
                               f"{type(error).__name__}: {error}",
                               hint="this is an error in the model's code; call it directly to see the "
                                    "traceback") from error


class ModelSource(Source):
    """A belief model as a source of hypotheses (what a session, and elot's score loop,
    read of any run): its rows at t are its ``hypotheses(t)``, or ``initial_hypotheses(t)``
    for statements about the initial belief."""

    front = None
    settings = None

    def __init__(self, model: BeliefModel):
        self.belief_model = model

    @property
    def name(self) -> str:
        return model_name(self.belief_model)

    @property
    def signature(self):
        return self.belief_model.signature

    @property
    def steps(self) -> int:
        return len(self.belief_model.times) - 1

    @property
    def judgments(self) -> tuple[int, ...]:
        return tuple(int(t) for t in getattr(self.belief_model, "judgments", ()))

    @property
    def statements(self) -> tuple:
        return tuple(getattr(self.belief_model, "statements", ()))

    def at(self, t: int, mode: str) -> Hypotheses:
        return hypotheses_of(self.belief_model, t, initial=mode == "initial")

    def judged(self, t: int, at: int) -> Hypotheses:
        return hypotheses_of(self.belief_model, t, initial=at != t)

    def check_times(self) -> None:
        """The REPL steps through times 0..T: a model with other times is refused."""
        times = list(self.belief_model.times)
        if times != list(range(len(times))) or not times:
            raise ElotError(f"the model {self.name} has times {times[:5]}{'...' if len(times) > 5 else ''}",
                            hint="the REPL steps through times 0, 1, ..., T: give times = range(T + 1)")

    def check_initial(self) -> None:
        """A model without ``initial_hypotheses(t)`` cannot judge statements about the initial belief."""
        if not callable(getattr(self.belief_model, "initial_hypotheses", None)):
            raise BeliefModelError(f"the model {self.name} has no initial_hypotheses(t), so it cannot judge "
                                   f"statements about the initial belief",
                                   hint="stay in :current, or add initial_hypotheses(t) to the model")

    def label(self, t: int) -> str:
        label = getattr(self.belief_model, "label", None)
        return "" if label is None else str(call_model(self.belief_model, label, t))

    def goal_posterior(self, t: int) -> dict[str, float]:
        method = getattr(self.belief_model, "goal_posterior", None)
        if method is None:
            raise ElotError(f"the belief model {self.name} has no goals", hint="add goal_posterior(t) to the model")
        found = call_model(self.belief_model, method, t)
        try:
            rows = {str(g): float(p) for g, p in dict(found).items()}
        except (TypeError, ValueError) as error:
            raise BeliefModelError(f"{self.name}.goal_posterior({t}) did not return goal: probability pairs "
                                   f"({type(error).__name__}: {error})",
                                   hint="return a dict such as {'gem1': 0.7, 'gem2': 0.3}") from None
        bad = [(g, p) for g, p in rows.items() if not 0.0 <= p <= 1.0]       # NaN fails this too
        if bad:
            raise BeliefModelError(f"{self.name}.goal_posterior({t}) gave {bad[0][0]} the probability "
                                   f"{bad[0][1]}, not a number between 0 and 1",
                                   hint="return probabilities between 0 and 1 (no NaN)")
        return rows


def check_belief_model(model: Any) -> BeliefModel:
    """``model`` if it implements :class:`BeliefModel`, else a :class:`BeliefModelError` saying what is missing."""
    missing = [name for name in ("signature", "times", "hypotheses") if not hasattr(model, name)]
    if missing:
        raise BeliefModelError(f"{model_name(model)} is not a belief model: it has no {', '.join(missing)}",
                         hint="a belief model has a signature, times and hypotheses(t); see docs/embedding.md")
    if not isinstance(model.signature, Signature):
        raise BeliefModelError(f"the signature of {model_name(model)} is a {type(model.signature).__name__}",
                         hint="build one with elot.embedding.declare(...) or read_domain(path)")
    _check_times(model)
    return model


#: The most time steps a belief model may list (each is judged, or listed in a message).
MAX_TIMES = 1_000_000


def _check_times(model: Any) -> None:
    """A model's ``times`` is a finite sequence of whole numbers (a ``range``, a list, a
    tuple) of at most :data:`MAX_TIMES`: an endless iterator (``itertools.count()``)
    would hang whatever reads it, where neither an alarm nor Ctrl-C reaches."""
    from collections.abc import Sequence as SequenceType

    from elot.errors import ArgumentError

    times = model.times
    name = f"{model_name(model)}.times"
    hint = "give the model's time steps as a range or a list, e.g. range(T + 1)"
    if isinstance(times, (str, bytes)) or not isinstance(times, (SequenceType, np.ndarray)):
        raise ArgumentError(f"{name} must be a sequence of whole numbers, not {type(times).__name__}", hint=hint)
    if len(times) > MAX_TIMES:
        raise ArgumentError(f"{name} holds {len(times):,} times; at most {MAX_TIMES:,}", hint=hint)
    if isinstance(times, range):
        return
    if not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in times):
        raise ArgumentError(f"{name} must hold whole numbers only", hint=hint)


def model_name(model: Any) -> str:
    return str(getattr(model, "name", None) or type(model).__name__)


# -- loading a model from a file or a module --------------------------------------------------


def load_belief_model(spec: str) -> BeliefModel:
    """A belief model from ``path/to/file.py``, ``file.py:ATTR`` or ``package.module:ATTR``.

    ``ATTR`` defaults to ``model``; if it is a class or function it is called with no
    arguments. Errors (missing file, import error, no such attribute, not a belief model)
    are :class:`BeliefModelError` naming the spec.
    """
    target, _, attr = spec.rpartition(":") if ":" in spec else (spec, "", "model")
    attr = attr or "model"
    if target.endswith(".py") or "/" in target or Path(target).is_file():
        path = Path(target)
        if not path.is_file():
            raise BeliefModelError(f"no model file {target}", path=spec, hint="give a .py file that defines `model`")
        name = f"_elot_model_{abs(hash(str(path.resolve())))}"
        loader = importlib.util.spec_from_file_location(name, path)
        if loader is None:  # not a Python source file: a scenario, say
            raise BeliefModelError(f"{target} is not a Python file", path=spec,
                                   hint="a belief model is a .py file that defines `model`; open a scenario with "
                                        f"elot repl {target}")
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module  # dataclasses and pickling look the module up
        try:
            loader.loader.exec_module(module)
        except ElotError as error:
            raise error.located(path=str(path))
        except Exception as error:  # the user's code: report it, do not crash
            raise BeliefModelError(f"loading {target} failed: {type(error).__name__}: {error}", path=spec,
                             hint="run the file with python to see the full traceback") from None
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise BeliefModelError(f"cannot import {target}: {error}", path=spec,
                             hint="give a .py file or an importable module, e.g. mypkg.models:model") from None
    if not hasattr(module, attr):
        raise BeliefModelError(f"{target} defines no {attr!r}", path=spec,
                         hint=f"name the model after a colon: {target}:NAME")
    model = getattr(module, attr)
    if callable(model) and not hasattr(model, "hypotheses") or isinstance(model, type):
        try:
            model = model()
        except ElotError:
            raise
        except Exception as error:
            raise BeliefModelError(f"building the model {attr}() failed: {type(error).__name__}: {error}",
                             path=spec) from None
    return check_belief_model(model)


__all__ = ["Hypotheses", "average_belief", "BeliefModel", "BeliefModelError", "hypotheses_of", "check_belief_model", "load_belief_model"]
