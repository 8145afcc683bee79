"""Evaluation of ELoT formulas against world states and beliefs (SPEC §4).

One implementation serves two uses. :func:`compile_formula` typechecks and lowers a
formula once and compiles it into a vectorized program whose ``truth`` evaluates it
over many (true state, belief) rows at once — what BToM scoring needs: base formulas
are evaluated once per distinct world (and cached), ``prob_of`` adds each row's belief
weights over the worlds where its body holds (in world order, :mod:`elot.numeric`), and
comparisons, connectives and quantifiers are NumPy operations. :func:`evaluate` is its
one-row case.

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
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from math import prod
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from elot.lang.checker import ADJECTIVES, DESIRE_PRIMITIVES, THRESHOLD_NAMES, check, check_atoms, infer_bindings
from elot.errors import ArgumentError, ElotError, EvaluationError, Span, expect
from elot.lang.lowering import lower
from elot.lang.parser import parse, parse_atoms
from elot.lang.signature import Signature
from elot.lang.syntax import Call, Const, Num, Term, Var, call, free_variables, guard_depth, subterms
from elot.lang.typesystem import BASE, EPISTEMIC, NUMERIC
from elot.numeric import sum_columns_in_order

Atom = tuple[str, ...]
#: The variables bound around a node being compiled.
Bound = frozenset[str]


# -- states, beliefs, thresholds ---------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A world state: the set of ground atoms that hold, such as ``("inside", "key1",
    "box1")``. Type predicates come from the signature and ``empty`` is derived (no item
    inside), so neither needs to be listed."""

    atoms: frozenset[Atom]

    @staticmethod
    def of(atoms: Iterable[Iterable[str]] = ()) -> "State":
        """A state from atoms given as tuples (or lists) of strings."""
        hint = 'e.g. State.of([("inside", "key1", "box1")]), or State.parse("inside(key1, box1)")'
        if isinstance(atoms, (str, bytes)) or not isinstance(atoms, Iterable):
            raise ArgumentError(f"State.of needs atoms, tuples of names, not {type(atoms).__name__}", hint=hint)
        out = []
        for atom in atoms:
            if not isinstance(atom, (tuple, list)) or not atom or not all(isinstance(x, str) for x in atom):
                raise ArgumentError(f"an atom is a tuple of names such as (\"closed\", \"box1\"), not {atom!r:.60}",
                                    hint=hint)
            out.append(tuple(atom))
        return State(frozenset(out))

    @staticmethod
    def parse(text: str, *, path: str | None = None, signature: Signature | None = None) -> "State":
        """A state from text such as ``"inside(key1, box1), iscolor(key1, red)"``.

        With ``signature``, every atom is typechecked against it as formulas are (unknown
        predicate or object, arity, argument order and types): errors carry a caret and a
        hint. Without one only the syntax is checked (see :meth:`check`)."""
        atoms = []
        terms = parse_atoms(text, path=path)
        for term in terms:
            if isinstance(term, Const):
                atoms.append((term.name,))
            elif isinstance(term, Call) and all(isinstance(a, Const) for a in term.args):
                atoms.append((term.name, *(a.name for a in term.args)))
            else:
                raise EvaluationError(
                    "a state lists ground atoms: predicates applied to objects",
                    span=term.span, source=text, path=path,
                    hint="write atoms such as inside(key1, box1), without variables or operators",
                )
        if signature is not None:
            try:
                check_atoms(terms, signature, source=text)
            except ElotError as error:
                raise error.located(source=text, path=path)
        return State(frozenset(atoms))

    def check(self, signature: Signature, *, path: str | None = "<state>") -> "State":
        """This state, after typechecking its atoms against ``signature`` (for states
        built in Python): errors point into the state's text, ``str(state)``."""
        try:
            _check_state(self, signature)
        except ElotError as error:
            raise error.located(path=path)
        return self

    def __contains__(self, atom: object) -> bool:
        return atom in self.atoms

    def __str__(self) -> str:
        return ", ".join(f"{a[0]}({', '.join(a[1:])})" if len(a) > 1 else a[0] for a in sorted(self.atoms))


@dataclass(frozen=True)
class Belief:
    """A finite distribution over states: ``(state, weight)`` pairs, weights summing to 1.

    Weights are float64 and may be as small as 5e-324 (the ε of SPEC §5); they are
    compared exactly, never rounded. ``support`` holds the pairs (not "particles": in
    elot those are particle inference's).
    """

    support: tuple[tuple[State, float], ...]

    def __post_init__(self) -> None:
        if not self.support:
            raise EvaluationError("a belief needs at least one state", hint="e.g. 1: inside(key1, box1)")
        total = 0.0
        for state, weight in self.support:
            if not isinstance(state, State):
                raise EvaluationError(f"a belief holds States, not {type(state).__name__}")
            if not (isinstance(weight, (int, float)) and math.isfinite(weight) and weight >= 0):
                raise EvaluationError(f"belief weight {weight!r} is not a non-negative number")
            total += weight
        if abs(total - 1.0) > 1e-9:
            raise EvaluationError(
                f"belief weights sum to {total:g}, not 1",
                hint="give weights that sum to 1 (fractions such as 1/3 are accepted in text)",
            )

    @staticmethod
    def of(pairs: Iterable[tuple[State, float]]) -> "Belief":
        """A belief from ``(state, weight)`` pairs."""
        hint = "e.g. Belief.of([(state1, 0.25), (state2, 0.75)]), or Belief.parse(text)"
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
            raise ArgumentError(f"Belief.of needs (state, weight) pairs, not {type(pairs).__name__}", hint=hint)
        out = []
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ArgumentError(f"a belief part is a (state, weight) pair, not {pair!r:.60}", hint=hint)
            state, weight = pair
            if not isinstance(weight, (int, float, np.number)) or isinstance(weight, bool):
                raise ArgumentError(f"a belief weight is a number, not {type(weight).__name__}", hint=hint)
            out.append((state, float(weight)))
        return Belief(tuple(out))

    @staticmethod
    def point(state: State) -> "Belief":
        """Certainty in one state."""
        return Belief(((state, 1.0),))

    @staticmethod
    def parse(text: str, *, path: str | None = None, signature: Signature | None = None) -> "Belief":
        """A belief from text: ``0.5: inside(key1, box1), iscolor(key1, red) | 0.5: ...``.

        Each part is ``weight: atoms``; weights may be decimals or fractions (``1/3``);
        parts are separated by ``|`` or newlines; ``#`` starts a comment. With
        ``signature``, each state's atoms are typechecked (see :meth:`State.parse`).
        Errors point at the part, atom or weight in ``text``.
        """
        if not isinstance(text, str):
            raise EvaluationError(f"expected the text of a belief, got {type(text).__name__}", path=path,
                                  hint='write it as text: "0.5: inside(key1, box1) | 0.5: inside(key1, box2)"')
        pairs, spans = [], []
        offset = 0
        for line in text.splitlines(keepends=True):
            body = line.split("#", 1)[0].rstrip("\r\n")
            start = offset
            for part in body.split("|"):
                stripped = part.strip()
                at = start + (len(part) - len(part.lstrip()))
                start += len(part) + 1
                if not stripped:
                    continue
                weight_text, sep, atoms = stripped.partition(":")
                if not sep:
                    raise EvaluationError(
                        f"belief part {stripped!r} has no weight", path=path, source=text,
                        span=Span.of(text, at, at + len(stripped)),
                        hint="write weight: atoms, e.g. 0.5: inside(key1, box1) | 0.5: inside(key1, box2)",
                    )
                weight_span = Span.of(text, at, at + len(weight_text.rstrip()))
                atoms_at = at + len(weight_text) + 1
                try:
                    state = State.parse(atoms, signature=signature)
                    weight = _weight(weight_text.strip())
                except ElotError as error:
                    if error.span is None:  # a bad weight: point at it
                        error.span = weight_span
                        raise error.located(source=text, path=path)
                    raise error.within(text, atoms_at, len(atoms), path)
                pairs.append((state, weight))
                spans.append(weight_span)
            offset += len(line)
        if pairs:
            total = sum(w for _, w in pairs)
            if abs(total - 1.0) > 1e-9:
                raise EvaluationError(
                    f"belief weights sum to {total:g}, not 1", path=path, source=text,
                    span=Span.of(text, spans[0].start, spans[-1].end) if spans[0].line == spans[-1].line
                    else spans[-1],
                    hint="give weights that sum to 1 (fractions such as 1/3 are accepted)",
                )
        return Belief.of(pairs)

    def check(self, signature: Signature, *, path: str | None = "<belief>") -> "Belief":
        """This belief, after typechecking every state's atoms against ``signature``."""
        for state, _ in self.support:
            state.check(signature, path=path)
        return self

    def states(self) -> list[State]:
        return [s for s, _ in self.support]

    def __str__(self) -> str:
        return " | ".join(f"{w:g}: {s}" for s, w in self.support)


def _weight(text: str) -> float:
    try:
        if "/" in text:
            num, den = text.split("/", 1)
            value = float(num) / float(den)
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError):
        raise EvaluationError(f"belief weight {text!r} is not a number",
                              hint="write a decimal (0.25) or a fraction (1/4)") from None
    if not (math.isfinite(value) and value >= 0):
        raise EvaluationError(f"belief weight {text!r} is not a finite, non-negative number",
                              hint="weights are probabilities: 0.25, 1/4, ...")
    return value


@lru_cache(maxsize=4096)
def _check_state(state: State, signature: Signature) -> None:
    """Typecheck a state's atoms (cached: hypotheses share their states)."""
    text = str(state)
    check_atoms(parse_atoms(text), signature, source=text)


@dataclass(frozen=True)
class Thresholds:
    """The thresholds Θ of SPEC §3 (fitted values of the paper's Table 1b), those of the
    desire operators (``wants``, ``likes``, ``dislikes``: elot's own defaults, past the
    paper) and α_most.

    Override some with ``Thresholds().replace(might=0.25)``.
    ``threshold(most(likely)) = min(1, α·θ_likely)``; for the downward ``unlikely`` the
    strong form bounds the probability from above by ``θ_unlikely / α``.
    """

    believes: float = 0.75
    certain: float = 0.95
    uncertain: float = 0.70
    likely: float = 0.70
    unlikely: float = 0.40
    could: float = 0.20
    can: float = 0.30
    might: float = 0.20
    may: float = 0.30
    should: float = 0.80
    must: float = 0.95
    hopes: float = 0.25
    # Desires (past the paper; docs/language.md): ``wants`` bounds the probability that the
    # object is the agent's goal from below (0.5: the goal, or tied with one other object);
    # ``likes`` and ``dislikes`` bound the utility on the desire scale (0 the table's least
    # utility, 1 its most): at least its middle, at most its lowest quarter.
    wants: float = 0.50
    likes: float = 0.50
    dislikes: float = 0.25
    alpha_most: float = 1.5

    def __post_init__(self) -> None:
        # Checked here, so Thresholds(might=nan) fails at once instead of making every
        # comparison with it silently false.
        for field in dataclasses.fields(self):
            name, value = field.name, getattr(self, field.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise EvaluationError(f"threshold {name} must be a number, not {value!r}",
                                      hint=f"thresholds are probabilities, e.g. {name}=0.7")
            if name == "alpha_most" and value <= 0:
                raise EvaluationError("alpha_most must be positive", hint="e.g. alpha_most=1.5")
            if name != "alpha_most" and not 0 <= value <= 1:
                raise EvaluationError(f"threshold {name} must be between 0 and 1, not {value}",
                                      hint=f"thresholds are probabilities, e.g. {name}=0.7")
            object.__setattr__(self, name, float(value))

    @staticmethod
    def given(thresholds: "Thresholds | None", name: str = "thresholds") -> "Thresholds":
        """``thresholds``, or the defaults when None; anything else is an
        :class:`~elot.errors.ArgumentError` naming the argument."""
        if thresholds is None:
            return Thresholds()
        return expect(thresholds, Thresholds, name, hint="Thresholds(might=0.25) or Thresholds.parse(\"might=0.25\")")

    def replace(self, **changes: float) -> "Thresholds":
        """A copy with some values changed; unknown names and bad values are errors."""
        names = [f.name for f in dataclasses.fields(self)]
        for name in changes:
            if name not in names:
                from difflib import get_close_matches

                guess = get_close_matches(name, names, n=1)
                raise EvaluationError(
                    f"unknown threshold {name!r}",
                    hint=f"did you mean {guess[0]!r}?" if guess else "known: " + ", ".join(names),
                )
        return dataclasses.replace(self, **changes)

    @staticmethod
    def parse(text: str) -> "Thresholds":
        """Overrides from text such as ``might=0.25,believes=0.8``."""
        expect(text, str, "Thresholds.parse's text", hint='e.g. "might=0.25,believes=0.8"')
        changes = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = item.partition("=")
            if not sep:
                raise EvaluationError(f"threshold override {item!r} has no value", hint="write name=value, e.g. might=0.25")
            try:
                changes[name.strip()] = float(value)
            except ValueError:
                raise EvaluationError(f"threshold {name.strip()} = {value!r} is not a number") from None
        return Thresholds().replace(**changes)

    def value(self, name: str) -> float:
        """θ for a threshold name (``believes``, ``might``, ...)."""
        if name not in THRESHOLD_NAMES:
            raise EvaluationError(f"unknown threshold {name!r}")
        return getattr(self, name)

    def most(self, adjective: str) -> float:
        """The strong form's threshold: ``min(1, α·θ_likely)`` or ``θ_unlikely / α``."""
        if adjective == "likely":
            return min(1.0, self.alpha_most * self.likely)
        if adjective == "unlikely":
            return self.unlikely / self.alpha_most
        raise EvaluationError(f"{adjective!r} is not an adjective")


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
                 true_index: np.ndarray | None, grid: bool) -> None:
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
        if column is None:
            p = np.zeros(len(table))
            return p[:, None] if self.grid else p
        if self.goal_cache is None:
            best = table == table.max(axis=1, keepdims=True)
            self.goal_cache = best / best.sum(axis=1, keepdims=True)
        p = self.goal_cache[:, column]
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
        on a grid."""
        if self.beliefs is None:
            raise EvaluationError("this formula mentions the agent's belief, but no belief was given",
                                  hint="give a belief (--belief, or belief=...)")
        rows = self.beliefs.get(agent)
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
        self._keys = itertools.count()
        self._index_cache: dict[State, _World] = {}
        self._vector_cache: dict[tuple, dict] = {}
        self._program = self._vec(lowered, frozenset())

    # -- public ------------------------------------------------------------------------

    def truth(self, worlds: Sequence[State], beliefs: np.ndarray | None, true_index: np.ndarray, *,
              desires: Any = None) -> np.ndarray:
        """``⟦φ⟧(s_n, b_n)`` for each row: ``worlds`` are the S distinct states, ``beliefs``
        an (N, S) float64 array of each row's belief weights over them (the observed
        agent's), or a mapping ``{agent: (N, S) array}`` when several agents have beliefs,
        ``true_index`` the (N,) index of each row's true state; ``desires`` (for formulas
        about wanting) the observed agent's desire in each row: an object with ``objects``
        (K names) and ``utilities`` (N, K) already on the desire scale [0, 1]
        (:func:`desire_scale`), such as :class:`elot.judging.Desires`. Returns an (N,) bool
        array."""
        return self._rows(worlds, beliefs, true_index, numeric=False, desires=desires)

    def value(self, worlds: Sequence[State], beliefs: np.ndarray | None, true_index: np.ndarray, *,
              desires: Any = None) -> np.ndarray:
        """The numeric value of a ``Φ_F`` term for each row, as an (N,) float64 array."""
        return self._rows(worlds, beliefs, true_index, numeric=True, desires=desires)

    def truth_grid(self, worlds: Sequence[State], beliefs: np.ndarray, *, desires: Any = None) -> np.ndarray:
        """``⟦φ⟧(s, b)`` for every belief row b (B, S) and every true state s among
        ``worlds``: a (B, S) bool array (used to compare formulas by meaning). ``desires``:
        one desire row per belief row (B, K)."""
        out = self._run(worlds, beliefs, None, grid=True, desires=desires)
        return np.array(np.broadcast_to(out, (len(beliefs), len(worlds))), dtype=bool)

    def value_grid(self, worlds: Sequence[State], beliefs: np.ndarray, *, desires: Any = None) -> np.ndarray:
        """Like :meth:`truth_grid` for a numeric term: a (B, S) float64 array."""
        out = self._run(worlds, beliefs, None, grid=True, desires=desires)
        return np.array(np.broadcast_to(out, (len(beliefs), len(worlds))), dtype=np.float64)

    # -- running -----------------------------------------------------------------------

    def _rows(self, worlds, beliefs, true_index, numeric: bool, desires: Any = None) -> np.ndarray:
        if numeric != (self.type == NUMERIC):
            raise EvaluationError(
                "this is a number, not a formula: use value() instead of truth()" if self.type == NUMERIC
                else "this is a formula, not a number: use truth() instead of value()")
        true_index = np.asarray(true_index, dtype=np.intp)
        out = self._run(worlds, beliefs, true_index, grid=False, desires=desires)
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

    def _run(self, worlds: Sequence[State], beliefs, true_index, grid: bool, desires: Any = None):
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
        ctx = _Context(indexed, cache, beliefs, true_index, grid)
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
        # φ's value is cached per binding of the outer variables it mentions: in
        # forall(box(B), <(prob_of(A, exists(and(key(K), inside(K, B)), φ)), θ)) it
        # depends on B, which the inner condition tests rather than rebinds.
        key, fn, free = next(self._keys), self._base(phi, bound), tuple(sorted(free_variables(phi, bound)))

        def prob(ctx, env):
            try:
                return ctx.prob(ctx.per_world(key, fn, env, free), get_agent(env))
            except EvaluationError as error:
                error.span = error.span or agent_node.span
                raise

        return prob

    def _desire(self, node: Call) -> VecFn:
        """``utility_of(A, o)``: each row's utility for o on the desire scale;
        ``prob_goal(A, o)``: each row's probability that o is the goal."""
        agent_node, obj_node = node.args
        get_agent, get_obj = self._object(agent_node), self._object(obj_node)
        read = _Context.utility if node.name == "utility_of" else _Context.goal

        def desire(ctx, env):
            try:
                return read(ctx, get_agent(env), get_obj(env))
            except EvaluationError as error:
                error.span = error.span or node.span
                raise

        return desire

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


_COMPARE = {">=": np.greater_equal, ">": np.greater, "<": np.less, "<=": np.less_equal, "==": np.equal}

#: Operators whose presence makes a term more than a base formula.
_NOT_BASE = frozenset({"prob_of", "threshold", "maximum", "minimum", "-", ">=", ">", "<", "<=",
                       "utility_of", "prob_goal"})


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


def desire_scale(utilities: np.ndarray) -> np.ndarray:
    """Utilities on the desire scale that ``utility_of`` reads (docs/language.md):
    ``(u − lo) / (hi − lo)`` with ``lo`` and ``hi`` the least and the greatest utility in the
    whole table (every row, every object), so 0 is the least anything is wanted and 1 the
    most, and a goal row (1 on the goal, 0 elsewhere) stays as it is. A table whose
    utilities are all equal (an indifferent agent) is 0.5 everywhere."""
    table = np.asarray(utilities, dtype=np.float64)
    if not table.size:
        return table.copy()
    if not np.all(np.isfinite(table)):
        raise EvaluationError("a utility is not a finite number", hint="give every object a finite utility")
    lo, hi = float(table.min()), float(table.max())
    if hi == lo:
        return np.full(table.shape, 0.5)
    return np.clip((table - lo) / (hi - lo), 0.0, 1.0)


@dataclass(frozen=True)
class DesireRow:
    """One row of desires for :func:`evaluate` (``objects`` and ``utilities (1, K)`` on the
    desire scale), made from ``{object: utility}`` by :meth:`of`."""

    objects: tuple[str, ...]
    utilities: np.ndarray

    @staticmethod
    def of(utilities: Mapping[str, float]) -> "DesireRow":
        """``{object: utility}`` (any scale) as one row on the desire scale."""
        if not isinstance(utilities, Mapping):
            raise ArgumentError(f"desires are a mapping {{object: utility}}, not {type(utilities).__name__}",
                                hint='e.g. desires={"gem1": 1, "gem2": 0}')
        values = []
        for name, value in utilities.items():
            if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise ArgumentError(f"a desire is an object name with a number, not {name!r}: {value!r}",
                                    hint='e.g. desires={"gem1": 1, "gem2": 0}')
            values.append(float(value))
        return DesireRow(tuple(utilities), desire_scale(np.array([values], dtype=np.float64).reshape(1, -1)))

    @staticmethod
    def parse(text: str) -> "DesireRow":
        """``gem1=1, gem2=0`` (the command line's ``--desires``) as one row."""
        expect(text, str, "the desires' text", hint='e.g. "gem1=1, gem2=0"')
        table: dict[str, float] = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = item.partition("=")
            name = name.strip()
            try:
                number = float(value) if sep else math.nan
            except ValueError:
                number = math.nan
            if not sep or not name or not math.isfinite(number):
                raise EvaluationError(f"desire {item!r} is not object=utility",
                                      hint="write each object's utility, e.g. gem1=1, gem2=0")
            if name in table:
                raise EvaluationError(f"desire for {name} given twice", hint="give each object once")
            table[name] = number
        if not table:
            raise EvaluationError("no desires were given", hint="write each object's utility, e.g. gem1=1, gem2=0")
        return DesireRow.of(table)


def evaluate(
    term: Term | str,
    state: State,
    belief: Belief | None = None,
    *,
    signature: Signature | None = None,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
    desires: Mapping[str, float] | DesireRow | None = None,
) -> bool | float:
    """``⟦φ⟧(s, b)``: the truth of a formula (or the value of a numeric term such as
    ``prob_of(player, φ)``) in state ``state`` for the agent's belief ``belief``.
    States are taken as given (an atom outside the signature is simply never asked
    about); typecheck them with :meth:`State.check` / :meth:`Belief.check`, or parse them
    with ``signature=``. ``desires``: what the agent wants, ``{object: utility}`` (on any
    scale: it is rescaled, :func:`desire_scale`), for formulas such as ``wants(player, gem1)``."""
    if not isinstance(state, State):
        raise EvaluationError(f"the state must be a State, got {type(state).__name__}",
                              hint='build one with State.parse("inside(key1, box1), ...")')
    if belief is not None and not isinstance(belief, Belief):
        raise EvaluationError(f"the belief must be a Belief or None, got {type(belief).__name__}",
                              hint='build one with Belief.parse("0.5: inside(key1, box1) | 0.5: ...")')
    compiled = compile_formula(term, signature, thresholds, bind_free)
    if desires is not None and not isinstance(desires, DesireRow):
        desires = DesireRow.of(desires)
    if desires is None and compiled.needs_desires:
        raise EvaluationError(
            "this formula is about what the agent wants, but no desires were given",
            hint='pass desires={"gem1": 1, "gem2": 0} (on the command line: --desires gem1=1,gem2=0)',
        )
    if belief is None:
        if compiled.needs_belief:
            raise EvaluationError(
                "this formula is about the agent's belief, but no belief was given",
                hint="pass belief=Belief.of([(state, weight), ...]) (on the command line: --belief)",
            )
        worlds, row = [state], np.ones((1, 1))
    else:
        worlds = list(dict.fromkeys([state, *belief.states()]))
        position = {s: i for i, s in enumerate(worlds)}
        row = np.zeros((1, len(worlds)))
        for s, w in belief.support:
            row[0, position[s]] += w
    index = np.zeros(1, dtype=np.intp)
    try:
        if compiled.type == NUMERIC:
            return float(compiled.value(worlds, row, index, desires=desires)[0])
        return bool(compiled.truth(worlds, row, index, desires=desires)[0])
    except ElotError as error:
        raise error.located(source=term if isinstance(term, str) else None)


__all__ = ["State", "Belief", "Thresholds", "CompiledFormula", "DesireRow", "compile_formula", "desire_scale",
           "evaluate"]

