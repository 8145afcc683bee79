"""Evaluation of ELoT formulas against world states and beliefs (SPEC §4).

One implementation serves two uses. :func:`compile_formula` typechecks and lowers a
formula once and compiles it into a vectorized program whose ``truth`` evaluates it
over many (true state, belief) rows at once — what BToM scoring needs: base formulas
are evaluated once per distinct world (and cached), ``prob_of`` adds each row's belief
weights over the worlds where its body holds (in world order, :mod:`elot.numeric`), and
comparisons, connectives and quantifiers are NumPy operations. :func:`evaluate` is its
one-row case.

A nested formula (``prob_of(anne, >=(prob_of(sally, φ), θ))``, lowered from
``believes(anne, formula(believes(sally, formula(φ))))``, SPEC §10) is evaluated in every
*situation* (every world of the list) with each agent's belief there read from its
*belief-in-situation table* (``belief_tables={agent: (S, S) array}``: row s is the agent's belief
over the situations when the situation is s); the outer agent's probability then adds its
row's weights over the situations where it holds, as for a base formula. An agent given a
table but no belief per row believes, in each row, its table's row at the row's true world;
otherwise a formula without nesting never reads the tables: its values are the same bits as
without them.

Desire statements read ``utility_of(A, o)`` and ``prob_goal(A, o)`` from each row's
desire (``desires=`` of :meth:`CompiledFormula.truth`: the observed agent's utilities on the
desire scale, :func:`desire_scale`).

Quantifiers outside ``prob_of`` range over the objects of the variable's type, with
the condition evaluated in each row's true world; inside ``prob_of`` they are part of
the base formula, evaluated in each world of the belief.

Binding follows SPEC §2 (:func:`elot.lang.syntax.binding`): a condition binds only the
variables not already bound around it, so compilation carries the set of bound
variables down the tree. A base formula or a ``prob_of`` body that mentions outer-bound
variables is evaluated, and cached, per binding of exactly those variables.

What a formula is evaluated in lives beside it: :class:`State` and :class:`Belief`
(:mod:`elot.lang.states`), :class:`Thresholds` (:mod:`elot.lang.thresholds`), and
:func:`desire_scale` and :class:`DesireRow` (:mod:`elot.lang.desires`).
"""

from __future__ import annotations

import itertools
from math import prod
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from elot.lang.bindings import infer_bindings
from elot.lang.checker import check
from elot.lang.desires import DesireRow
from elot.lang.operators import ADJECTIVES, DESIRE_PRIMITIVES, LOWERED_OPERATORS
from elot.errors import ElotError, EvaluationError
from elot.lang.lowering import lower
from elot.lang.parser import parse
from elot.lang.signature import Signature
from elot.lang.states import Belief, State, situation_table
from elot.lang.syntax import Call, Const, Num, Term, Var, call, free_variables, guard_depth, subterms
from elot.lang.thresholds import Thresholds
from elot.lang.typesystem import BASE, EPISTEMIC, NUMERIC
from elot.numeric import sum_columns_in_order

#: The variables bound around a node being compiled.
Bound = frozenset[str]


# -- per-world index ---------------------------------------------------------------------


class _World:
    """A state prepared for fast lookups: atoms with agent aliases resolved, and the
    boxes something is inside (``empty`` is derived from it)."""

    __slots__ = ("atoms", "nonempty")

    def __init__(self, state: State, signature: Signature) -> None:
        if signature.aliases:
            atoms = {tuple(signature.resolve(x) for x in atom) for atom in state.atoms}
        else:
            atoms = set(state.atoms)
        self.atoms = atoms
        self.nonempty = {a[2] for a in atoms if a[0] == "inside" and len(a) == 3}


WorldFn = Callable[[_World, dict], bool]


class _Context:
    """Everything one call of the vectorized program needs: the worlds, how to read a
    per-world vector at each row's true world, and how to take probabilities."""

    def __init__(self, worlds: list[_World], cache: dict, beliefs: np.ndarray | None,
                 true_index: np.ndarray | None, grid: bool, tables: Mapping[str, np.ndarray] | None = None,
                 nested: dict | None = None, within: str | None = None) -> None:
        self.worlds = worlds
        self.cache = cache
        self.beliefs = beliefs
        self.true_index = true_index
        self.grid = grid
        self.by_agent = False  # beliefs were given per agent (else: the observed agent's)
        self.columns: dict[str, np.ndarray] = {}  # each agent's beliefs transposed, (S, N)
        self.desires: Any = None  # the observed agent's desire rows on the desire scale
        self.agent = ""           # the observed agent (the one whose desires are given)
        self.goal_cache: np.ndarray | None = None
        #: Each agent's belief-in-situation table, (S, S): row s is its belief over the
        #: worlds when the situation is world s (for nested formulas, SPEC §10).
        self.tables = tables or {}
        self.table_columns: dict[str, np.ndarray] = {}
        #: Nested formulas' truth in every situation, per binding, for this call only (it
        #: depends on the tables, which the next call may change; the worlds' cache does not).
        self.nested = {} if nested is None else nested
        #: In a situation of a nested formula: the agent whose belief it is about.
        self.within = within

    def desire_column(self, agent: str, obj: str) -> tuple[np.ndarray, int]:
        """The desire rows (N, K) and the column of ``obj`` in them, for ``agent``."""
        if self.desires is None:
            raise EvaluationError("this formula is about what the agent wants, but no desires were given",
                                  hint="give desires (--desires gem1=1,gem2=0, or desires=...); a belief "
                                       "model gives them as Hypotheses.desires")
        if agent != self.agent:
            raise EvaluationError(f"only the observed agent ({self.agent}) has desires here, not {agent}",
                                  hint="write utility_of(player, o)")
        objects, table, kinds, kind_of = self.desires
        column = objects.get(obj)
        if column is None and kind_of(obj) not in kinds:
            raise EvaluationError(f"the desires say nothing about {obj} (nor about anything of its type)",
                                  hint="the agent's desires are about: " + ", ".join(objects))
        return table, column

    def utility(self, agent: str, obj: str) -> np.ndarray:
        """Each row's utility for ``obj`` on the desire scale: (N,), or (B, 1) on a grid; 0
        (the least) for an object the desires leave out beside others of its type (a gem
        that is no goal)."""
        table, column = self.desire_column(agent, obj)
        u = np.zeros(len(table)) if column is None else table[:, column]
        return u[:, None] if self.grid else u

    def goal(self, agent: str, obj: str) -> np.ndarray:
        """Each row's probability that ``obj`` is the goal: ``1/m`` when it is one of the m
        objects of highest utility in the row, else 0 (ties split evenly); 0 for an object
        the desires leave out."""
        table, column = self.desire_column(agent, obj)
        if column is not None and self.goal_cache is None:
            best = table == table.max(axis=1, keepdims=True)
            self.goal_cache = best / best.sum(axis=1, keepdims=True)
        p = np.zeros(len(table)) if column is None else self.goal_cache[:, column]
        return p[:, None] if self.grid else p

    def per_world(self, key: int, fn: WorldFn, env: dict, free: tuple[str, ...]) -> np.ndarray:
        """``fn`` in every world, as a bool vector (S,), cached per binding of its free variables."""
        ck = (key, tuple(env[v] for v in free))
        vec = self.cache.get(ck)
        if vec is None:
            vec = np.fromiter((fn(w, env) for w in self.worlds), dtype=bool, count=len(self.worlds))
            vec = self.cache.setdefault(ck, vec)  # another thread may have filled it
        return vec

    def at_truth(self, vec: np.ndarray) -> np.ndarray:
        """A per-world vector read at each row's true world: (N,), or (1, S) on a grid."""
        return vec[None, :] if self.grid else vec[self.true_index]

    def prob(self, vec: np.ndarray, agent: str) -> np.ndarray:
        """Σ_j b_j · [φ holds in world j] per row, for ``agent``'s belief b: (N,), or (B, 1)
        on a grid. An agent without beliefs per row but with a belief-in-situation table
        has, in each row, its table's belief at the row's true world."""
        rows = None if self.beliefs is None else self.beliefs.get(agent)
        if rows is None and agent in self.tables:
            return self.prob_in_situation(vec, agent)
        if rows is None and self.within is not None:
            raise EvaluationError(
                f"this formula asks what {self.within} believes about {agent}'s belief, but no belief "
                f"table of {agent} was given (nesting needs {agent}'s belief in each situation)",
                hint=f"give belief_tables={{{agent!r}: (S, S) array}}, row s {agent}'s belief over the S "
                     "worlds when the situation is world s (Hypotheses.from_arrays(..., belief_tables=...))")
        if self.beliefs is None:
            raise EvaluationError("this formula mentions the agent's belief, but no belief was given",
                                  hint="give a belief (--belief, or belief=...)")
        if rows is None:
            known = ", ".join(sorted(self.beliefs))
            if not self.by_agent:
                raise EvaluationError(f"only the observed agent ({known}) has a belief here, not {agent}",
                                      hint="write prob_of(player, φ)")
            raise EvaluationError(f"no belief of {agent} was given (beliefs are given for {known})",
                                  hint="give every agent the formula asks about a belief")
        # The selected worlds' weights added in world order (elot.numeric): the same
        # floats for one row as for many, on any machine, reading only those columns.
        columns = self.columns.get(agent)
        if columns is None:
            columns = self.columns[agent] = np.ascontiguousarray(rows.T)
        p = sum_columns_in_order(columns, vec)
        return p[:, None] if self.grid else p

    def has_belief(self, agent: str) -> bool:
        """Whether ``agent`` has a belief here: per row, or from its table."""
        return (self.beliefs is not None and agent in self.beliefs) or agent in self.tables

    def prob_in_situation(self, vec: np.ndarray, agent: str) -> np.ndarray:
        """``agent``'s probability of φ read from its table at each row's true world: the
        probability in every situation (added in world order, as :meth:`prob` adds a row's),
        then read at the truth: (N,), or (1, S) on a grid."""
        columns = self.table_columns.get(agent)
        if columns is None:
            columns = self.table_columns[agent] = np.ascontiguousarray(self.tables[agent].T)
        return self.at_truth(sum_columns_in_order(columns, vec))

    def in_situations(self, key: int, body: "VecFn", env: dict, free: tuple[str, ...], agent: str) -> np.ndarray:
        """A nested formula's truth in every situation (S,), bool: evaluated with each world
        as the true one and each agent's belief there its table's row (cached per binding of
        its free variables, for this call)."""
        ck = (key, tuple(env[v] for v in free))
        vec = self.nested.get(ck)
        if vec is None:
            n = len(self.worlds)
            there = _Context(self.worlds, self.cache, self.tables, np.arange(n, dtype=np.intp), False,
                             self.tables, self.nested, agent)
            there.by_agent = True
            there.agent = self.agent
            there.columns = self.table_columns   # the tables' columns, transposed once per call
            vec = np.array(np.broadcast_to(body(there, env), (n,)), dtype=bool)
            vec = self.nested.setdefault(ck, vec)
        return vec


VecFn = Callable[[_Context, dict], Any]


#: The work one evaluation of a formula may do enumerating the bindings of its
#: quantifiers: one unit per binding tried in one world. Real formulas need a few
#: thousand; the limit (well under a second of work) stops a formula whose conditions bind
#: many variables, or that nests many quantifiers, with an error naming the quantifier
#: instead of running for minutes.
MAX_WORK = 300_000


class _Bindings:
    """The assignments of a condition's variables to objects of their types, searched by
    backtracking: variables are bound one at a time, and each conjunct of the condition
    is tested as soon as the variables it mentions are bound, so that a partial binding
    that already fails prunes every binding extending it. Nothing is materialized; the
    full product (``size``) is only the worst case."""

    __slots__ = ("names", "pools", "size", "levels")

    def __init__(self, names: tuple[str, ...], pools: tuple[tuple[str, ...], ...],
                 conjuncts: Sequence[tuple[Any, set[str]]]) -> None:
        self.names, self.pools = names, pools
        self.size = prod(len(p) for p in pools)
        # levels[0] holds the conjuncts binding nothing new, levels[i + 1] those whose
        # last variable (in the order of names) is names[i].
        position = {n: i for i, n in enumerate(names)}
        self.levels: list[list[Any]] = [[] for _ in range(len(names) + 1)]
        for item, mentions in conjuncts:
            self.levels[max((position[v] + 1 for v in mentions if v in position), default=0)].append(item)

    def search(self, env: dict, accept: Callable[[list, dict], Any], spend: Callable[[], None],
               start: Any, join: Callable[[Any, Any], Any]) -> Iterator[tuple[Any, dict]]:
        """Every full binding (as ``(acc, env)``) whose conjunct results, combined from
        ``start`` with ``join`` level by level, are accepted by ``accept`` at every level."""
        names, pools, levels = self.names, self.pools, self.levels
        acc = [join(start, levels[0], env)]
        if not accept(acc[0]):
            return
        if not names:
            yield acc[0], env
            return
        e = dict(env)
        n, i = len(names), 0
        index = [0] * n
        while i >= 0:
            if index[i] == len(pools[i]):
                index[i] = 0
                i -= 1
                continue
            e[names[i]] = pools[i][index[i]]
            index[i] += 1
            spend()
            value = join(acc[i], levels[i + 1], e)
            if not accept(value):
                continue
            if i == n - 1:
                yield value, e
            else:
                del acc[i + 1:]
                acc.append(value)
                i += 1


def _conjuncts(term: Term) -> list[Term]:
    """The conjuncts of ``term`` (``and`` flattened), or ``[term]``."""
    out, stack = [], [term]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.name == "and":
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


class _Meter:
    """The work budget of one evaluation (:data:`MAX_WORK`), shared by its quantifiers."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_WORK


#: The budget of the evaluation running in this thread. Each call of a compiled formula
#: starts its own (:meth:`CompiledFormula._run`): compiled formulas are cached and shared,
#: and Dask runs tasks in threads, so a budget kept on the formula would be spent by every
#: thread judging with it at once.
_BUDGET: ContextVar[_Meter] = ContextVar("elot_work_budget")


def _spender(node: Call, size: int) -> Callable[[int], None]:
    """A function charging ``n`` units to the running evaluation's budget, failing at
    ``node`` when it is spent."""

    def spend(n: int) -> None:
        meter = _BUDGET.get()
        meter.left -= n
        if meter.left < 0:
            raise EvaluationError(
                f"evaluating this {node.name}(...) needs too much work (more than {MAX_WORK:,} "
                f"binding checks; its condition alone has {size:,} bindings)",
                span=node.span,
                hint="bind fewer variables in one condition or nest fewer quantifiers: each "
                     "variable ranges over every object of its type",
            )

    return spend


# -- the compiled program ----------------------------------------------------------------


class CompiledFormula:
    """A typechecked, lowered formula compiled for fast repeated evaluation.

    ``truth(worlds, beliefs, true_index)`` gives ``⟦φ⟧(s_n, b_n)`` for every row n;
    ``value(...)`` does the same for a numeric term (``prob_of(...)``). Per-world truth
    values of base formulas are cached per tuple of worlds, so calling again with the
    same worlds only redoes the vector arithmetic.

    One compiled formula may be used by several threads at once (``compile_formula`` caches
    and shares it; Dask runs tasks in threads): each call has its own work budget, and the
    caches are only ever filled with ``setdefault``, so concurrent calls store and read the
    same values.
    """

    def __init__(self, term: Term, lowered: Term, type_, signature: Signature, thresholds: Thresholds) -> None:
        self.term = term
        self.lowered = lowered
        self.type = type_
        self.signature = signature
        self.thresholds = thresholds
        self.needs_belief = any(isinstance(n, Call) and n.name == "prob_of" for n in subterms(lowered))
        #: Whether the formula is about what the agent wants (reads desire rows).
        self.needs_desires = any(isinstance(n, Call) and n.name in DESIRE_PRIMITIVES for n in subterms(lowered))
        #: Whether the formula nests beliefs (reads the agents' belief-in-situation tables).
        self.nested = any(isinstance(n, Call) and n.name == "prob_of" and len(n.args) == 2 and not _is_base(n.args[1])
                          for n in subterms(lowered))
        self._keys = itertools.count()
        self._index_cache: dict[State, _World] = {}
        self._vector_cache: dict[tuple, dict] = {}
        self._program = self._vec(lowered, frozenset())

    # -- public ------------------------------------------------------------------------

    def truth(self, worlds: Sequence[State], beliefs: np.ndarray | None, true_index: np.ndarray, *,
              desires: Any = None, belief_tables: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """``⟦φ⟧(s_n, b_n)`` for each row: ``worlds`` are the S distinct states, ``beliefs``
        an (N, S) float64 array of each row's belief weights over them (the observed
        agent's), or a mapping ``{agent: (N, S) array}`` when several agents have beliefs,
        ``true_index`` the (N,) index of each row's true state; ``desires`` (for formulas
        about wanting) the observed agent's desire in each row: an object with ``objects``
        (K names) and ``utilities`` (N, K) already on the desire scale [0, 1]
        (:func:`desire_scale`), such as :class:`elot.judging.Desires`; ``belief_tables`` (for
        nested formulas) ``{agent: (S, S) array}``, row s the agent's belief over ``worlds``
        when the situation is world s (an agent without a belief per row but with a table
        believes, in each row, its table's row at the row's true world). Returns an (N,)
        bool array."""
        return self._rows(worlds, beliefs, true_index, numeric=False, desires=desires, tables=belief_tables)

    def value(self, worlds: Sequence[State], beliefs: np.ndarray | None, true_index: np.ndarray, *,
              desires: Any = None, belief_tables: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """The numeric value of a ``Φ_F`` term for each row, as an (N,) float64 array."""
        return self._rows(worlds, beliefs, true_index, numeric=True, desires=desires, tables=belief_tables)

    def truth_grid(self, worlds: Sequence[State], beliefs: np.ndarray | Mapping[str, np.ndarray], *,
                   desires: Any = None, belief_tables: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """``⟦φ⟧(s, b)`` for every belief row b (B, S) and every true state s among
        ``worlds``: a (B, S) bool array (used to compare formulas by meaning). ``beliefs``:
        the observed agent's (B, S) rows, or ``{agent: (B, S)}``; ``desires``: one desire row
        per belief row (B, K); ``belief_tables`` as for :meth:`truth`."""
        out = self._run(worlds, beliefs, None, grid=True, desires=desires, tables=belief_tables)
        return np.array(np.broadcast_to(out, (_grid_rows(beliefs), len(worlds))), dtype=bool)

    def value_grid(self, worlds: Sequence[State], beliefs: np.ndarray | Mapping[str, np.ndarray], *,
                   desires: Any = None, belief_tables: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """Like :meth:`truth_grid` for a numeric term: a (B, S) float64 array."""
        out = self._run(worlds, beliefs, None, grid=True, desires=desires, tables=belief_tables)
        return np.array(np.broadcast_to(out, (_grid_rows(beliefs), len(worlds))), dtype=np.float64)

    # -- running -----------------------------------------------------------------------

    def _rows(self, worlds, beliefs, true_index, numeric: bool, desires: Any = None, tables=None) -> np.ndarray:
        if numeric != (self.type == NUMERIC):
            raise EvaluationError(
                "this is a number, not a formula: use value() instead of truth()" if self.type == NUMERIC
                else "this is a formula, not a number: use truth() instead of value()")
        true_index = np.asarray(true_index, dtype=np.intp)
        out = self._run(worlds, beliefs, true_index, grid=False, desires=desires, tables=tables)
        return np.array(np.broadcast_to(out, true_index.shape), dtype=np.float64 if numeric else bool)

    def _desires(self, desires: Any, rows: int | None) -> tuple | None:
        """``desires`` checked: its objects (by column), its (N, K) utilities, the types of
        its objects and the signature's type of an object."""
        if desires is None or not self.needs_desires:
            return None
        objects, table = getattr(desires, "objects", None), getattr(desires, "utilities", None)
        if objects is None or table is None:
            raise EvaluationError(f"desires must have objects and utilities, not {type(desires).__name__}",
                                  hint="give an elot.judging.Desires(objects, utilities)")
        table = np.asarray(table, dtype=np.float64)
        if table.ndim != 2 or table.shape[1] != len(objects) or (rows is not None and len(table) != rows):
            raise EvaluationError(f"desires must be an ({'N' if rows is None else rows}, {len(objects)}) array of "
                                  f"utilities, one row per row judged, got shape {table.shape}")
        if table.size and not (np.all(table >= 0.0) and np.all(table <= 1.0)):
            raise EvaluationError("desire utilities must be on the desire scale [0, 1]",
                                  hint="rescale them with elot.lang.semantics.desire_scale(utilities)")
        names = {self.signature.resolve(str(o)): i for i, o in enumerate(objects)}
        types = self.signature.object_types
        kinds = {types.get(o) for o in names}
        return names, table, kinds, types.get

    def _run(self, worlds: Sequence[State], beliefs, true_index, grid: bool, desires: Any = None, tables=None):
        key = tuple(worlds)
        cache = self._vector_cache.get(key)
        if cache is None:
            if len(self._vector_cache) > 256:  # bounded: old worlds are rarely revisited
                self._vector_cache.clear()
            cache = self._vector_cache.setdefault(key, {})
        indexed = [self._world(s) for s in worlds]
        # One (N, S) array is the observed agent's belief; a mapping gives each agent's.
        by_agent = isinstance(beliefs, Mapping)
        if beliefs is not None:
            table = beliefs if by_agent else {self.signature.agent: beliefs}
            beliefs = {}
            for agent, rows in table.items():
                rows = np.asarray(rows, dtype=np.float64)
                if rows.ndim != 2 or rows.shape[1] != len(worlds):
                    raise EvaluationError(
                        f"beliefs must be an (N, {len(worlds)}) array over the {len(worlds)} worlds, "
                        f"got shape {rows.shape}" + (f" for {agent}" if by_agent else "")
                    )
                beliefs[self.signature.resolve(str(agent))] = rows
        if true_index is not None and len(true_index) and (true_index.min() < 0 or true_index.max() >= len(worlds)):
            raise EvaluationError("true_index points outside the list of worlds")
        ctx = _Context(indexed, cache, beliefs, true_index, grid, self._tables(tables, len(worlds)))
        ctx.by_agent = by_agent
        rows = None if true_index is None else len(true_index)
        if grid and beliefs:
            rows = len(next(iter(beliefs.values())))
        ctx.desires = self._desires(desires, rows)
        ctx.agent = self.signature.agent
        budget = _BUDGET.set(_Meter())
        try:
            return self._program(ctx, {})
        finally:
            _BUDGET.reset(budget)

    def _tables(self, tables: Mapping[str, np.ndarray] | None, size: int) -> dict[str, np.ndarray]:
        """The belief-in-situation tables checked: ``{agent: (S, S) float64}``, agents resolved."""
        if tables is None:
            return {}
        if not isinstance(tables, Mapping):
            raise EvaluationError(f"belief_tables must be a mapping {{agent: (S, S) array}}, not {type(tables).__name__}",
                                  hint="row s of an agent's table is its belief over the worlds when the situation is world s")
        out = {}
        for agent, table in tables.items():
            table = np.asarray(table, dtype=np.float64)
            if table.shape != (size, size):
                raise EvaluationError(f"{agent}'s belief table must be an (S, S) = ({size}, {size}) array over the "
                                      f"{size} worlds, got shape {table.shape}",
                                      hint="row s: the agent's belief over the worlds when the situation is world s")
            out[self.signature.resolve(str(agent))] = table
        return out

    def _world(self, state: State) -> _World:
        world = self._index_cache.get(state)
        if world is None:
            if len(self._index_cache) > 100_000:
                self._index_cache.clear()
            world = self._index_cache.setdefault(state, _World(state, self.signature))
        return world

    # -- compiling: base formulas, evaluated in one world ------------------------------

    def _object(self, node: Term) -> Callable[[dict], str]:
        if isinstance(node, Var):
            name = node.name
            return lambda env: env[name]
        assert isinstance(node, Const)
        value = self.signature.resolve(node.name)
        return lambda env: value

    def _base(self, node: Term, bound: Bound) -> WorldFn:
        """Compile a base formula to ``f(world, env) -> bool``; ``bound`` are the variables
        bound around it (``env`` gives their values)."""
        sig = self.signature
        assert isinstance(node, Call)
        name, args = node.name, node.args
        if name == "empty" and "empty" in sig.derived and len(args) == 1:
            box = self._object(args[0])
            return lambda w, env: box(env) not in w.nonempty
        if name in sig.predicate_types:
            getters = [self._object(a) for a in args]
            if len(getters) == 1:
                (g0,) = getters
                return lambda w, env: (name, g0(env)) in w.atoms
            if len(getters) == 2:
                g0, g1 = getters
                return lambda w, env: (name, g0(env), g1(env)) in w.atoms
            return lambda w, env: (name, *(g(env) for g in getters)) in w.atoms
        if name in sig.domains:
            members = frozenset(sig.objects_of(name)) | {a for a, t in sig.aliases if t in sig.objects_of(name)}
            g0 = self._object(args[0])
            return lambda w, env: g0(env) in members
        if name == "==":
            g0, g1 = (self._object(a) for a in args)
            return lambda w, env: g0(env) == g1(env)
        if name == "not":
            (f,) = [self._base(a, bound) for a in args]
            return lambda w, env: not f(w, env)
        if name == "and":
            fs = [self._base(a, bound) for a in args]
            return lambda w, env: all(f(w, env) for f in fs)
        if name == "or":
            fs = [self._base(a, bound) for a in args]
            return lambda w, env: any(f(w, env) for f in fs)
        if name == "imply":
            f, g = (self._base(a, bound) for a in args)
            return lambda w, env: (not f(w, env)) or g(w, env)
        if name in ("exists", "forall"):
            # exists(C, φ) holds iff some binding satisfies C ∧ φ; forall(C, φ) (plain,
            # a deviation, SPEC §4) fails iff some binding satisfies C ∧ ¬φ. One search
            # for a witness, short-circuiting at the first, over the conjuncts of both.
            cond_node, body_node = args
            names, pools, inner = self._domains(cond_node, body_node, bound)
            body_parts = _conjuncts(body_node) if name == "exists" else [call("not", body_node)]
            parts = _conjuncts(cond_node) + body_parts
            found = _Bindings(names, pools, [
                (self._base(c, inner), free_variables(c, inner)) for c in parts])
            meter = _spender(node, found.size)
            spend = lambda: meter(1)  # noqa: E731

            def witness(w, env):
                join = lambda ok, fns, e: ok and all(f(w, e) for f in fns)  # noqa: E731
                return next(found.search(env, bool, spend, True, join), None) is not None

            if name == "exists":
                return witness
            return lambda w, env: not witness(w, env)
        raise EvaluationError(f"cannot evaluate {name!r} in a base formula", span=node.span)

    def _domains(self, cond: Term, body: Term, bound: Bound):
        """The variables the condition binds (those not in ``bound``, SPEC §2), sorted,
        the objects of each one's type, and the variables bound in its scope."""
        bindings = infer_bindings(cond, [body], self.signature, bound)
        names = sorted(bindings)
        pools = []
        for var in names:
            domain = bindings[var]
            if domain is None:
                raise EvaluationError(f"cannot infer the type of variable {var}", span=cond.span)
            pools.append(tuple(self.signature.objects_of(domain)))
        return tuple(names), tuple(pools), bound | frozenset(names)

    # -- compiling: vectorized over rows -----------------------------------------------

    def _vec(self, node: Term, bound: Bound) -> VecFn:
        """Compile a (lowered) term to ``g(ctx, env)`` returning a broadcastable array;
        ``bound`` are the variables bound around it."""
        if isinstance(node, Num):
            value = float(node.value)
            return lambda ctx, env: value
        if _is_base(node):
            key, fn, free = next(self._keys), self._base(node, bound), tuple(sorted(free_variables(node, bound)))
            return lambda ctx, env: ctx.at_truth(ctx.per_world(key, fn, env, free))
        assert isinstance(node, Call)
        name, args = node.name, node.args
        if name == "prob_of":
            return self._prob_of(node, bound)
        if name in DESIRE_PRIMITIVES:
            return self._desire(node)
        if name == "threshold":
            value = self._threshold(args[0])
            return lambda ctx, env: value
        if name == "-":
            (f,) = [self._vec(a, bound) for a in args]
            return lambda ctx, env: -f(ctx, env)
        if name in _COMPARE:
            op = _COMPARE[name]
            f, g = (self._vec(a, bound) for a in args)
            return lambda ctx, env: op(f(ctx, env), g(ctx, env))
        if name == "not":
            (f,) = [self._vec(a, bound) for a in args]
            return lambda ctx, env: np.logical_not(f(ctx, env))
        if name in ("and", "or"):
            fs = [self._vec(a, bound) for a in args]
            combine = np.logical_and if name == "and" else np.logical_or

            def connective(ctx, env):
                acc = fs[0](ctx, env)
                for f in fs[1:]:
                    acc = combine(acc, f(ctx, env))
                return acc

            return connective
        if name == "imply":
            f, g = (self._vec(a, bound) for a in args)
            return lambda ctx, env: np.logical_or(np.logical_not(f(ctx, env)), g(ctx, env))
        if name in ("exists", "forall", "maximum", "minimum"):
            return self._quantifier(node, bound)
        raise EvaluationError(f"cannot evaluate {name!r}: lower the formula first", span=node.span)

    def _prob_of(self, node: Call, bound: Bound) -> VecFn:
        agent_node, phi = node.args
        get_agent = self._object(agent_node)
        if not _is_base(phi):
            return self._nested_prob_of(node, bound)
        # φ's value is cached per binding of the outer variables it mentions: in
        # forall(box(B), <(prob_of(A, exists(and(key(K), inside(K, B)), φ)), θ)) it
        # depends on B, which the inner condition tests rather than rebinds.
        key, fn, free = next(self._keys), self._base(phi, bound), tuple(sorted(free_variables(phi, bound)))
        return _at(agent_node, lambda ctx, env: ctx.prob(ctx.per_world(key, fn, env, free), get_agent(env)))

    def _nested_prob_of(self, node: Call, bound: Bound) -> VecFn:
        """``prob_of(A, φ)`` of an epistemic φ (a nested belief, SPEC §10): φ's truth in
        every situation (:meth:`_Context.in_situations`), weighted by A's belief as a base
        formula's is: ``Σ_s b_A(s) · ⟦φ⟧(s, M(s))``."""
        agent_node, phi = node.args
        get_agent = self._object(agent_node)
        key, body, free = next(self._keys), self._vec(phi, bound), tuple(sorted(free_variables(phi, bound)))

        def prob(ctx, env):
            agent = get_agent(env)
            if not ctx.has_belief(agent):   # say whose belief is missing before looking inside
                ctx.prob(np.zeros(len(ctx.worlds), dtype=bool), agent)
            return ctx.prob(ctx.in_situations(key, body, env, free, agent), agent)

        return _at(agent_node, prob)

    def _desire(self, node: Call) -> VecFn:
        """``utility_of(A, o)``: each row's utility for o on the desire scale;
        ``prob_goal(A, o)``: each row's probability that o is the goal."""
        agent_node, obj_node = node.args
        get_agent, get_obj = self._object(agent_node), self._object(obj_node)
        read = _Context.utility if node.name == "utility_of" else _Context.goal
        return _at(node, lambda ctx, env: read(ctx, get_agent(env), get_obj(env)))

    def _threshold(self, arg: Term) -> float:
        if isinstance(arg, Const):
            return self.thresholds.value(arg.name)
        assert isinstance(arg, Call) and arg.name in ("most", "least")
        adjective = arg.args[0].name
        # threshold(least(P)) is the strong form of the antonym, as least(P, φ) lowers.
        return self.thresholds.most(adjective if arg.name == "most" else ADJECTIVES[adjective])

    def _quantifier(self, node: Call, bound: Bound) -> VecFn:
        name = node.name
        cond_node, body_node = node.args
        names, pools, inner_bound = self._domains(cond_node, body_node, bound)
        # The condition is tested conjunct by conjunct in every world as its variables
        # get bound; a partial binding satisfying it in no world is pruned (the body is
        # only evaluated for full bindings satisfying C in some world, as before).
        parts = []
        for c in _conjuncts(cond_node):
            key, fn = next(self._keys), self._base(c, inner_bound)
            free = free_variables(c, inner_bound)
            parts.append(((key, fn, tuple(sorted(free))), free))
        found = _Bindings(names, pools, parts)
        body = self._vec(body_node, inner_bound)
        meter = _spender(node, found.size)
        if not any(found.levels[:-1]):
            # Nothing to prune (one variable, or every conjunct needs them all): the plain
            # loop over bindings, testing the whole condition, is the fastest.
            key, cond_fn = next(self._keys), self._base(cond_node, inner_bound)
            cond_free = tuple(sorted(free_variables(cond_node, inner_bound)))

            def bindings(ctx, env):
                cost = max(1, len(ctx.worlds))
                for combo in itertools.product(*pools):
                    meter(cost)
                    inner = {**env, **dict(zip(names, combo))}
                    in_world = ctx.per_world(key, cond_fn, inner, cond_free)
                    if in_world.any():  # no true world satisfies C here: skip the body
                        yield ctx.at_truth(in_world), inner

            return self._combine(name, bindings, body)

        def bindings(ctx, env):
            cost = max(1, len(ctx.worlds))  # each conjunct is evaluated in every world

            def join(mask, items, e):
                for key, fn, free in items:
                    mask = np.logical_and(mask, ctx.per_world(key, fn, e, free))
                return mask

            for in_world, inner in found.search(env, np.any, lambda: meter(cost), True, join):
                yield ctx.at_truth(np.broadcast_to(in_world, (len(ctx.worlds),))), dict(inner)

        return self._combine(name, bindings, body)

    @staticmethod
    def _combine(name: str, bindings, body) -> VecFn:
        """The quantifier ``name`` over the (mask, env) pairs ``bindings`` yields."""
        if name == "exists":
            def exists(ctx, env):
                acc = False
                for mask, inner in bindings(ctx, env):
                    acc = np.logical_or(acc, np.logical_and(mask, body(ctx, inner)))
                    if np.all(acc):  # true in every row: no later binding can change it
                        break
                return acc

            return exists
        if name == "forall":
            def forall(ctx, env):
                acc = True
                for mask, inner in bindings(ctx, env):
                    acc = np.logical_and(acc, np.logical_or(np.logical_not(mask), body(ctx, inner)))
                    if not np.any(acc):  # false in every row already
                        break
                return acc

            return forall
        pick, empty = (np.maximum, 0.0) if name == "maximum" else (np.minimum, 1.0)

        def extremum(ctx, env):
            best, seen = None, False
            for mask, inner in bindings(ctx, env):
                value = body(ctx, inner)
                best = np.where(mask, value, -np.inf if name == "maximum" else np.inf) if best is None else \
                    np.where(mask, pick(best, value), best)
                seen = np.logical_or(seen, mask)
            if best is None:
                return empty
            # With no binding satisfying C in a row, maximum is 0 and minimum 1 (SPEC §4).
            return np.where(seen, best, empty)

        return extremum


def _at(node: Term, run: VecFn) -> VecFn:
    """``run``, its evaluation errors without a place of their own pointed at ``node``."""

    def located(ctx, env):
        try:
            return run(ctx, env)
        except EvaluationError as error:
            error.span = error.span or node.span
            raise

    return located


def _grid_rows(beliefs) -> int:
    """The number of belief rows of a grid: of the array, or of each agent's."""
    if isinstance(beliefs, Mapping):
        return len(next(iter(beliefs.values())))
    return len(beliefs)


_COMPARE = {">=": np.greater_equal, ">": np.greater, "<": np.less, "<=": np.less_equal, "==": np.equal}

#: Operators whose presence makes a term more than a base formula (``==`` of two names is
#: one; :func:`_is_base` looks at its arguments).
_NOT_BASE = LOWERED_OPERATORS - {"=="}


def _is_base(node: Term) -> bool:
    """Whether ``node`` is a base formula (no probability, number or comparison in it)."""
    for n in subterms(node):
        if isinstance(n, Num):
            return False
        if isinstance(n, Call) and (n.name in _NOT_BASE or (n.name == "==" and not all(
                isinstance(a, (Const, Var)) for a in n.args))):
            return False
    return isinstance(node, Call)


# -- entry points ------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _compile(term: Term, signature: Signature, thresholds: Thresholds, bind_free: bool) -> CompiledFormula:
    checked = check(term, signature, bind_free=bind_free)
    if checked.type not in (BASE, EPISTEMIC, NUMERIC):
        from elot.lang.typesystem import describe

        raise EvaluationError(
            f"only formulas and numbers can be evaluated; this is {describe(checked.type)}",
            span=term.span,
            hint="apply a modal to the agent, e.g. believes(player, might(φ))",
        )
    lowered = lower(checked.term, signature)
    return CompiledFormula(checked.term, lowered, checked.type, signature, thresholds)


@lru_cache(maxsize=512)
def _compile_text(text: str, signature: Signature, thresholds: Thresholds, bind_free: bool) -> CompiledFormula:
    # Scoring a statement given as text at every judgment point would otherwise parse it
    # again each time, which costs as much as scoring it.
    term = parse(text)
    guard_depth(term, text)
    return _compile(term, signature, thresholds, bind_free)


def compile_formula(
    term: Term | str,
    signature: Signature | None = None,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
) -> CompiledFormula:
    """Typecheck, lower and compile a formula (text or tree) for vectorized evaluation.

    Compiled formulas are cached, so compiling the same formula again is cheap.
    """
    source = term if isinstance(term, str) else None
    signature, thresholds = Signature.given(signature), Thresholds.given(thresholds)
    try:
        if isinstance(term, str):
            return _compile_text(term, signature, thresholds, bool(bind_free))
        guard_depth(term, source)  # before the cache hashes the (recursive) tree
        return _compile(term, signature, thresholds, bool(bind_free))
    except ElotError as error:
        raise error.located(source=source)


def evaluate(
    term: Term | str,
    state: State,
    belief: Belief | Mapping[str, Belief] | None = None,
    *,
    signature: Signature | None = None,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
    desires: Mapping[str, float] | DesireRow | None = None,
    belief_tables: Mapping[str, Mapping[State, Belief]] | None = None,
) -> bool | float:
    """``⟦φ⟧(s, b)``: the truth of a formula (or the value of a numeric term such as
    ``prob_of(player, φ)``) in state ``state`` for the agent's belief ``belief``.
    States are taken as given (an atom outside the signature is simply never asked
    about); typecheck them with :meth:`State.check` / :meth:`Belief.check`, or parse them
    with ``signature=``. ``desires``: what the agent wants, ``{object: utility}`` (on any
    scale: it is rescaled, :func:`desire_scale`), for formulas such as ``wants(player, gem1)``.

    ``belief`` may be a mapping ``{agent: Belief}`` for formulas about several agents, and
    ``belief_tables`` ``{agent: {situation: Belief}}`` gives an agent's belief in each
    situation (a State) for nested formulas (SPEC §10): every state met (``state``, the
    beliefs' states, the tables' situations and theirs) must then have a row in each table."""
    if not isinstance(state, State):
        raise EvaluationError(f"the state must be a State, got {type(state).__name__}",
                              hint='build one with State.parse("inside(key1, box1), ...")')
    by_agent = isinstance(belief, Mapping)
    given = dict(belief) if by_agent else ({} if belief is None else {None: belief})
    for agent, b in given.items():
        if not isinstance(b, Belief):
            whose = "the belief" if agent is None else f"the belief of {agent}"
            raise EvaluationError(f"{whose} must be a Belief or None, got {type(b).__name__}",
                                  hint='build one with Belief.parse("0.5: inside(key1, box1) | 0.5: ...")')
    tables = _situation_tables(belief_tables)
    compiled = compile_formula(term, signature, thresholds, bind_free)
    if desires is not None and not isinstance(desires, DesireRow):
        desires = DesireRow.of(desires)
    if desires is None and compiled.needs_desires:
        raise EvaluationError(
            "this formula is about what the agent wants, but no desires were given",
            hint='pass desires={"gem1": 1, "gem2": 0} (on the command line: --desires gem1=1,gem2=0)',
        )
    if not given and compiled.needs_belief and not tables:
        raise EvaluationError(
            "this formula is about the agent's belief, but no belief was given",
            hint="pass belief=Belief.of([(state, weight), ...]) (on the command line: --belief)",
        )
    met = [state] + [s for b in given.values() for s in b.states()]
    for table in tables.values():
        for situation, b in table.items():
            met += [situation, *b.states()]
    worlds = list(dict.fromkeys(met))
    position = {s: i for i, s in enumerate(worlds)}
    rows = {agent: b.over(position)[None, :] for agent, b in given.items()}
    arrays = {agent: situation_table(agent, table, position, error=EvaluationError,
                                     hint="give the agent's belief in every situation met: the state, the "
                                          "beliefs' states and the tables' own")
              for agent, table in tables.items()}
    if rows:
        beliefs = rows if by_agent else rows[None]
    else:   # no belief: one world, the state (its weight read by nothing)
        beliefs = {} if tables else np.ones((1, 1))
    index = np.zeros(1, dtype=np.intp)
    try:
        if compiled.type == NUMERIC:
            return float(compiled.value(worlds, beliefs, index, desires=desires, belief_tables=arrays or None)[0])
        return bool(compiled.truth(worlds, beliefs, index, desires=desires, belief_tables=arrays or None)[0])
    except ElotError as error:
        raise error.located(source=term if isinstance(term, str) else None)


def _situation_tables(tables) -> dict[str, dict[State, Belief]]:
    """``belief_tables`` of :func:`evaluate` checked: ``{agent: {State: Belief}}``."""
    if tables is None:
        return {}
    hint = "belief_tables={agent: {situation State: Belief}}"
    if not isinstance(tables, Mapping):
        raise EvaluationError(f"belief_tables must be a mapping, not {type(tables).__name__}", hint=hint)
    out = {}
    for agent, table in tables.items():
        if not isinstance(table, Mapping) or not all(isinstance(s, State) and isinstance(b, Belief)
                                                     for s, b in table.items()):
            raise EvaluationError(f"the belief table of {agent} must map States to Beliefs", hint=hint)
        out[str(agent)] = dict(table)
    return out


__all__ = ["CompiledFormula", "compile_formula", "evaluate"]

