"""Grounding a PDDL domain and problem into rows the compiled kernels step.

A state is a bitset of the **dynamic** ground atoms (those of predicates some effect
changes) and the integer values of the **dynamic** numeric fluents (those some effect
updates); static atoms and fluents are evaluated away while grounding, derived predicates
are expanded where they are used (they must not be recursive), quantifiers are expanded
over the objects of their type.

Numeric fluents make a ground action depend on their values: PDDL.jl's ``(up)`` reads
``xpos`` and ``ypos``. The grounder first finds the values the dynamic fluents can take (a
relaxed search that honours comparisons with constants and static fluents and takes every
atom as possibly true), then grounds each action schema for each parameter binding and
each such **valuation**: one *row* per (valuation, action, disjunct of its precondition in
disjunctive normal form), holding the precondition's positive and negative atoms as bit
masks and the effect as bits added and deleted and the fluents' new values. A row is
offered only in a state whose fluents have its valuation and whose bits hold its masks, so
an inapplicable action is never offered.

What elot does not ground is refused by name (:class:`UnsupportedPddl`): conditional
effects whose condition depends on the state, recursive derived predicates, non-integer
fluents, ``either`` types, a precondition whose normal form is too large.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError, unsupported

#: Most valuations of the dynamic fluents the grounder takes (each multiplies the rows).
MAX_VALUATIONS = 200_000
#: Most disjuncts of one ground precondition in normal form.
MAX_DISJUNCTS = 256
#: Most ground rows.
MAX_ROWS = 5_000_000

GroundAtom = tuple  # (pred, arg, arg, ...) of strings


@dataclass(frozen=True, eq=False)
class Grounded:
    """A grounded task: the dynamic atoms and fluents, the actions, the rows, the initial state.

    ``rows`` arrays (one row per (valuation, action, disjunct), sorted by valuation cell then
    action): ``pre_pos``/``pre_neg``/``add``/``dele`` are ``int64[R, words]`` bit masks,
    ``new_fluents`` ``int64[R, F]`` the fluents after the action, ``row_action`` the action's
    index; ``cell_rows`` (``int64[cells + 1]``) the rows of each valuation cell (mixed radix
    over ``fluent_lo``/``fluent_size``). ``init`` is the initial state as ``int64[words + F]``.
    """

    domain: t.Domain
    problem: t.Problem
    atoms: tuple[GroundAtom, ...]
    fluents: tuple[tuple[str, tuple[str, ...]], ...]
    actions: tuple[tuple[str, tuple[str, ...]], ...]
    static_atoms: frozenset
    static_fluents: dict
    pre_pos: np.ndarray
    pre_neg: np.ndarray
    add: np.ndarray
    dele: np.ndarray
    new_fluents: np.ndarray
    row_action: np.ndarray
    cell_rows: np.ndarray
    fluent_lo: np.ndarray
    fluent_size: np.ndarray
    init: np.ndarray
    objects: dict = field(default_factory=dict)

    @property
    def words(self) -> int:
        return self.pre_pos.shape[1]

    @property
    def width(self) -> int:
        return self.words + len(self.fluents)

    def atom_index(self) -> dict:
        return {a: i for i, a in enumerate(self.atoms)}

    def action_index(self) -> dict:
        return {a: i for i, a in enumerate(self.actions)}

    def action_text(self, index: int) -> str:
        name, args = self.actions[index]
        return "(" + " ".join((name,) + args) + ")"

    def decode(self, row: np.ndarray) -> tuple[frozenset, dict]:
        """A state row as (true dynamic atoms, dynamic fluent values)."""
        bits = np.asarray(row[: self.words]).view(np.uint64)
        atoms = frozenset(a for i, a in enumerate(self.atoms) if (int(bits[i >> 6]) >> (i & 63)) & 1)
        values = {f: int(v) for f, v in zip(self.fluents, row[self.words:])}
        return atoms, values

    def atoms_of(self, row: np.ndarray) -> frozenset:
        """Every ground atom true in a state: the static ones and the dynamic ones set."""
        return self.static_atoms | self.decode(row)[0]

    def encode(self, atoms, values: dict) -> np.ndarray:
        """The row of a state given its dynamic atoms and fluent values."""
        index = self.atom_index()
        bits = np.zeros(self.words, dtype=np.uint64)
        for a in atoms:
            i = index[a]
            bits[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        return np.concatenate([bits.view(np.int64), np.array([values[f] for f in self.fluents], dtype=np.int64)])


# -- evaluation while grounding ---------------------------------------------------------------


class _Ctx:
    def __init__(self, domain: t.Domain, problem: t.Problem):
        self.domain, self.problem = domain, problem
        self.parents = {name: parent for name, parent in domain.types}
        for parent in set(self.parents.values()) - set(self.parents) - {"object"}:
            self.parents[parent] = "object"   # a type named only as a parent ("key gem - item")
        objects: dict[str, str] = {}
        for name, kind in tuple(domain.constants) + tuple(problem.objects):
            if name in objects and objects[name] != kind:
                raise self.error(f"the object {name} is declared with two types, {objects[name]} and {kind}")
            objects[name] = kind
        self.objects = objects
        for kind in set(objects.values()) | {k for _, k in domain.types}:
            self._ancestry(kind)
        self.by_type: dict[str, tuple[str, ...]] = {}
        self.derived = {d.name: d for d in domain.derived}
        self.preds = domain.predicate_types()
        self.funcs = domain.function_types()
        for d in domain.derived:
            self.preds.setdefault(d.name, tuple(k for _, k in d.params))
        dyn_preds, dyn_funcs = set(), set()
        for action in domain.actions:
            for e in _effect_leaves(action.effect):
                if isinstance(e, t.Lit):
                    dyn_preds.add(e.atom.pred)
                else:
                    dyn_funcs.add(e.fluent.name)
        bad = dyn_preds & set(self.derived)
        if bad:
            raise self.error(f"an action changes the derived predicate {sorted(bad)[0]}",
                             hint="derived predicates are computed, never set by effects")
        self.dynamic_preds, self.dynamic_funcs = dyn_preds, dyn_funcs
        for name, args in problem.init:
            self._check_atom(name, len(args), None)
        init_atoms = frozenset((name,) + args for name, args in problem.init)
        self.static_atoms = frozenset(a for a in init_atoms if a[0] not in dyn_preds)
        self.init_dynamic = frozenset(a for a in init_atoms if a[0] in dyn_preds)
        fluents: dict = {}
        for (name, args), value in problem.fluents:
            if name not in self.funcs:
                raise self.error(f"the initial state gives a value to {name}, which the domain does not declare",
                                 hint="declare it in (:functions ...)")
            fluents[(name, args)] = int(value)
        self.static_fluents = {k: v for k, v in fluents.items() if k[0] not in dyn_funcs}
        self.init_fluents = {k: v for k, v in fluents.items() if k[0] in dyn_funcs}
        self.fluent_keys = tuple(sorted(self.init_fluents))

    def error(self, message: str, span=None, hint: str | None = None, source: str | None = None) -> PddlError:
        src = source if source is not None else self.domain.source
        return PddlError(message, span=span, source=src if span is not None else None,
                         path=self.domain.path if source is None else self.problem.path, hint=hint)

    def _ancestry(self, kind: str) -> tuple[str, ...]:
        chain, seen = [kind], {kind}
        while chain[-1] != "object" and chain[-1] in self.parents:
            nxt = self.parents[chain[-1]]
            if nxt in seen:
                raise self.error(f"the type {kind} is its own ancestor", hint="the types must form a tree")
            chain.append(nxt)
            seen.add(nxt)
        if chain[-1] != "object" and kind != "object" and kind not in self.parents:
            raise self.error(f"undeclared type {kind}", hint="declare it in (:types ...)")
        return tuple(chain)

    def of_type(self, kind: str) -> tuple[str, ...]:
        if kind not in self.by_type:
            self.by_type[kind] = tuple(n for n, k in self.objects.items()
                                       if kind == "object" or kind in self._ancestry(k))
        return self.by_type[kind]

    def _check_atom(self, pred: str, arity: int, span) -> None:
        if pred not in self.preds:
            raise self.error(f"undeclared predicate {pred}", span,
                             hint="declare it in (:predicates ...) or (:derived ...)")
        if len(self.preds[pred]) != arity:
            raise self.error(f"{pred} takes {len(self.preds[pred])} argument(s), not {arity}", span)

    # terms -------------------------------------------------------------------------------

    def value(self, term: t.Term, env: dict, val: dict):
        """A term's value: an object name (str) or an integer."""
        if isinstance(term, t.Var):
            if term.name not in env:
                raise self.error(f"the variable ?{term.name} is not bound here", term.span)
            return env[term.name]
        if isinstance(term, t.Obj):
            return term.name
        if isinstance(term, t.Num):
            return term.value
        if isinstance(term, t.Fluent):
            if term.name not in self.funcs:
                raise self.error(f"undeclared function {term.name}", term.span)
            key = (term.name, tuple(self.text(self.value(a, env, val)) for a in term.args))
            if key in val:
                return val[key]
            if key in self.static_fluents:
                return self.static_fluents[key]
            raise self.error(f"the fluent ({' '.join((key[0],) + key[1])}) has no value in the initial state",
                             term.span, hint="give every fluent an initial value in (:init (= (f args) n))")
        args = [self.value(a, env, val) for a in term.args]
        if not all(isinstance(a, int) for a in args):
            raise self.error(f"arithmetic ({term.op} ...) on an object", term.span)
        if term.op == "-" and len(args) == 1:
            return -args[0]
        a, b = args
        if term.op == "+":
            return a + b
        if term.op == "-":
            return a - b
        if term.op == "*":
            return a * b
        if b == 0 or a % b:
            raise unsupported("non-integer arithmetic", f"{a} / {b} is not a whole number",
                              hint="elot grounds integer fluents only", path=self.domain.path)
        return a // b

    @staticmethod
    def text(v) -> str:
        return t.number_text(v) if isinstance(v, int) else v

    # formulas: simplified to True, False or a tree over dynamic literals ------------------

    def simplify(self, f: t.Formula, env: dict, val: dict, depth: int = 0):
        if isinstance(f, t.Atom):
            self._check_atom(f.pred, len(f.args), f.span)
            args = tuple(self.text(self.value(a, env, val)) for a in f.args)
            if f.pred in self.derived:
                if depth > len(self.derived):
                    raise unsupported("recursive derived predicates", f"{f.pred} is defined through itself",
                                      hint="elot expands derived predicates where they are used",
                                      path=self.domain.path, span=f.span, source=self.domain.source)
                d = self.derived[f.pred]
                return self.simplify(d.body, {n: a for (n, _), a in zip(d.params, args)}, val, depth + 1)
            atom = (f.pred,) + args
            if f.pred in self.dynamic_preds:
                return ("lit", atom, True)
            return atom in self.static_atoms
        if isinstance(f, t.Eq):
            return self.value(f.left, env, val) == self.value(f.right, env, val)
        if isinstance(f, t.Cmp):
            a, b = self.value(f.left, env, val), self.value(f.right, env, val)
            if not (isinstance(a, int) and isinstance(b, int)):
                raise self.error(f"({f.op} ...) compares numbers", f.span)
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[f.op]
        if isinstance(f, t.Not):
            inner = self.simplify(f.body, env, val, depth)
            return _negate(inner)
        if isinstance(f, (t.And, t.Or)):
            parts = [self.simplify(p, env, val, depth) for p in f.parts]
            return _junction("and" if isinstance(f, t.And) else "or", parts)
        if isinstance(f, t.Imply):
            return _junction("or", [_negate(self.simplify(f.cond, env, val, depth)),
                                    self.simplify(f.then, env, val, depth)])
        # quantifiers: expanded over the objects of each variable's type
        names = [n for n, _ in f.params]
        parts = [self.simplify(f.body, {**env, **dict(zip(names, combo))}, val, depth)
                 for combo in itertools.product(*(self.of_type(k) for _, k in f.params))]
        return _junction("or" if f.kind == "exists" else "and", parts)

    def effects(self, e: t.Effect, env: dict, val: dict, adds: set, dels: set, updates: dict) -> None:
        if isinstance(e, t.Lit):
            self._check_atom(e.atom.pred, len(e.atom.args), e.atom.span)
            atom = (e.atom.pred,) + tuple(self.text(self.value(a, env, val)) for a in e.atom.args)
            (adds if e.positive else dels).add(atom)
        elif isinstance(e, t.Update):
            key = (e.fluent.name, tuple(self.text(self.value(a, env, val)) for a in e.fluent.args))
            old = self.value(e.fluent, env, val)
            amount = self.value(e.value, env, val)
            if not isinstance(amount, int):
                raise self.error(f"({e.op} ...) by an object", e.span)
            new = {"assign": amount, "increase": old + amount, "decrease": old - amount,
                   "scale-up": old * amount}.get(e.op)
            if e.op == "scale-down":
                if amount == 0 or old % amount:
                    raise unsupported("non-integer arithmetic", f"{old} / {amount} is not a whole number",
                                      hint="elot grounds integer fluents only", path=self.domain.path)
                new = old // amount
            updates[key] = new
        elif isinstance(e, t.AndE):
            for p in e.parts:
                self.effects(p, env, val, adds, dels, updates)
        elif isinstance(e, t.ForallE):
            names = [n for n, _ in e.params]
            for combo in itertools.product(*(self.of_type(k) for _, k in e.params)):
                self.effects(e.body, {**env, **dict(zip(names, combo))}, val, adds, dels, updates)
        else:
            cond = self.simplify(e.cond, env, val)
            if cond is True:
                self.effects(e.body, env, val, adds, dels, updates)
            elif cond is not False:
                raise unsupported("conditional effects", "a (when ...) whose condition depends on the state",
                                  hint="elot grounds conditional effects only where the condition is static; "
                                       "split the action in two", path=self.domain.path, span=e.span,
                                  source=self.domain.source)


def _effect_leaves(e: t.Effect):
    if isinstance(e, (t.Lit, t.Update)):
        yield e
    elif isinstance(e, t.AndE):
        for p in e.parts:
            yield from _effect_leaves(p)
    else:
        yield from _effect_leaves(e.body)


def _negate(x):
    if x is True or x is False:
        return not x
    if x[0] == "lit":
        return ("lit", x[1], not x[2])
    return ("or" if x[0] == "and" else "and", [_negate(p) for p in x[1]])


def _junction(kind: str, parts: list):
    unit, absorb = (True, False) if kind == "and" else (False, True)
    kept = []
    for p in parts:
        if p is absorb:
            return absorb
        if p is unit:
            continue
        kept.extend(p[1] if p[0] == kind else [p])
    if not kept:
        return unit
    return kept[0] if len(kept) == 1 else (kind, kept)


def dnf(x) -> list[tuple[frozenset, frozenset]]:
    """A simplified condition as disjuncts (positive atoms, negative atoms), contradictions dropped."""
    if x is True:
        return [(frozenset(), frozenset())]
    if x is False:
        return []
    if x[0] == "lit":
        return [(frozenset([x[1]]), frozenset())] if x[2] else [(frozenset(), frozenset([x[1]]))]
    if x[0] == "or":
        out = []
        for p in x[1]:
            out += dnf(p)
            if len(out) > MAX_DISJUNCTS:
                raise unsupported("large disjunctive precondition", f"more than {MAX_DISJUNCTS} disjuncts",
                                  hint="write the precondition with fewer or-branches, or split the action")
        return _dedupe(out)
    out = [(frozenset(), frozenset())]
    for p in x[1]:
        out = [(a | c, b | d) for a, b in out for c, d in dnf(p)]
        out = [(a, b) for a, b in out if not (a & b)]
        if len(out) > MAX_DISJUNCTS:
            raise unsupported("large disjunctive precondition", f"more than {MAX_DISJUNCTS} disjuncts",
                              hint="write the precondition with fewer or-branches, or split the action")
    return _dedupe(out)


def _dedupe(items):
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


# -- the grounder ---------------------------------------------------------------------------


def _bindings(ctx: _Ctx, action: t.Action):
    names = [n for n, _ in action.params]
    for combo in itertools.product(*(ctx.of_type(k) for _, k in action.params)):
        yield dict(zip(names, combo)), combo


def valuations(ctx: _Ctx) -> list[tuple]:
    """The dynamic fluents' values the relaxed search reaches, in the order found (init first)."""
    keys = ctx.fluent_keys
    start = tuple(ctx.init_fluents[k] for k in keys)
    if not keys:
        return [start]
    seen, order = {start}, [start]
    i = 0
    while i < len(order):
        current = order[i]
        i += 1
        val = dict(zip(keys, current))
        for action in ctx.domain.actions:
            for env, _ in _bindings(ctx, action):
                if ctx.simplify(action.precondition, env, val) is False:
                    continue
                adds, dels, updates = set(), set(), {}
                ctx.effects(action.effect, env, val, adds, dels, updates)
                unknown = set(updates) - set(keys)
                if unknown:
                    key = sorted(unknown)[0]
                    raise ctx.error(f"an effect changes ({' '.join((key[0],) + key[1])}), which has no initial value",
                                    action.span, hint="give every fluent an initial value")
                nxt = tuple(updates.get(k, v) for k, v in zip(keys, current))
                if nxt not in seen:
                    seen.add(nxt)
                    order.append(nxt)
                    if len(order) > MAX_VALUATIONS:
                        raise unsupported("unbounded numeric fluents",
                                          f"the fluents {', '.join(k[0] for k in keys)} take more than "
                                          f"{MAX_VALUATIONS:,} values", path=ctx.domain.path,
                                          hint="bound each numeric fluent by a comparison in the preconditions")
    return order


def ground(domain: t.Domain, problem: t.Problem) -> Grounded:
    """``problem`` of ``domain`` as rows (see :class:`Grounded`)."""
    ctx = _Ctx(domain, problem)
    vals = valuations(ctx)
    keys = ctx.fluent_keys
    arr = np.array(vals, dtype=np.int64).reshape(len(vals), len(keys))
    lo = arr.min(axis=0) if len(keys) else np.zeros(0, dtype=np.int64)
    size = (arr.max(axis=0) - lo + 1) if len(keys) else np.zeros(0, dtype=np.int64)
    cells = int(np.prod(size)) if len(keys) else 1
    if cells > 50 * MAX_VALUATIONS:
        raise unsupported("sparse numeric fluents", f"the fluents' value box has {cells:,} cells",
                          hint="bound each numeric fluent more tightly", path=domain.path)
    stride = np.ones(len(keys), dtype=np.int64)
    for j in range(len(keys) - 2, -1, -1):
        stride[j] = stride[j + 1] * size[j + 1]
    actions: dict[tuple, int] = {}
    raw_rows = []   # (cell, action index, pos, neg, adds, dels, new values)
    for schema_index, action in enumerate(domain.actions):
        for env, combo in _bindings(ctx, action):
            actions.setdefault((action.name, tuple(combo)), len(actions))
    for vi, current in enumerate(vals):
        val = dict(zip(keys, current))
        cell = int(((np.array(current, dtype=np.int64) - lo) * stride).sum()) if keys else 0
        for action in domain.actions:
            for env, combo in _bindings(ctx, action):
                pre = ctx.simplify(action.precondition, env, val)
                if pre is False:
                    continue
                disjuncts = dnf(pre)
                if not disjuncts:
                    continue
                adds, dels, updates = set(), set(), {}
                ctx.effects(action.effect, env, val, adds, dels, updates)
                for key in adds | dels:
                    if key[0] not in ctx.dynamic_preds:   # pragma: no cover - effects define dynamics
                        raise ctx.error(f"effect on static {key}")
                new = tuple(updates.get(k, v) for k, v in zip(keys, current))
                a = actions[(action.name, tuple(combo))]
                for pos, neg in disjuncts:
                    raw_rows.append((cell, a, pos, neg, frozenset(adds), frozenset(dels - adds), new))
                if len(raw_rows) > MAX_ROWS:
                    raise unsupported("too many ground actions", f"more than {MAX_ROWS:,} ground rows",
                                      hint="use fewer objects or bound the numeric fluents", path=domain.path)
    # An atom never true in the initial state and never added is false in every state: a row
    # that needs it is never offered, and a row that needs it false needs nothing.
    possible = set(ctx.init_dynamic)
    for row in raw_rows:
        possible |= row[4]
    raw_rows = [(cell, a, pos, neg & possible, adds, dels & possible, new)
                for cell, a, pos, neg, adds, dels, new in raw_rows if pos <= possible]
    atom_set = possible
    atoms = tuple(sorted(atom_set))
    index = {a: i for i, a in enumerate(atoms)}
    words = max(1, (len(atoms) + 63) // 64)
    raw_rows.sort(key=lambda r: (r[0], r[1]))
    n = len(raw_rows)
    masks = {name: np.zeros((n, words), dtype=np.uint64) for name in ("pos", "neg", "add", "del")}
    new_fl = np.zeros((n, len(keys)), dtype=np.int64)
    row_action = np.zeros(n, dtype=np.int64)
    row_cell = np.zeros(n, dtype=np.int64)
    for r, (cell, a, pos, neg, adds, dels, new) in enumerate(raw_rows):
        row_cell[r], row_action[r] = cell, a
        new_fl[r] = new
        for name, group in (("pos", pos), ("neg", neg), ("add", adds), ("del", dels)):
            m = masks[name]
            for atom in group:
                i = index[atom]
                m[r, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    cell_rows = np.zeros(cells + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_cell, minlength=cells), out=cell_rows[1:])
    init_bits = np.zeros(words, dtype=np.uint64)
    for atom in ctx.init_dynamic:
        i = index[atom]
        init_bits[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    init = np.concatenate([init_bits.view(np.int64), np.array(vals[0], dtype=np.int64)])
    return Grounded(domain, problem, atoms, keys, tuple(sorted(actions, key=actions.get)),
                    ctx.static_atoms, dict(ctx.static_fluents),
                    masks["pos"].view(np.int64), masks["neg"].view(np.int64), masks["add"].view(np.int64),
                    masks["del"].view(np.int64), new_fl, row_action, cell_rows,
                    lo.astype(np.int64), size.astype(np.int64), init, objects=dict(ctx.objects))


def condition_rows(g: Grounded, formula: t.Formula, values: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """``formula`` (a goal) at the fluent values ``values`` as disjuncts of (positive, negative)
    bit masks over ``g``'s atoms. An atom the grounder never saw is false in every state."""
    ctx = _Ctx(g.domain, g.problem)
    index = g.atom_index()
    out = []
    for pos, neg in dnf(ctx.simplify(formula, {}, values)):
        if any(a not in index for a in pos):
            continue
        pm, nm = np.zeros(g.words, dtype=np.uint64), np.zeros(g.words, dtype=np.uint64)
        for group, m in ((pos, pm), (neg, nm)):
            for a in group:
                if a in index:
                    i = index[a]
                    m[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        out.append((pm.view(np.int64), nm.view(np.int64)))
    return out
