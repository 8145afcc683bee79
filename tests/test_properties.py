"""Hypothesis strategies for ELoT: well-typed base and epistemic formulas, states and
beliefs over a small Doors-Keys-Gems signature, and an independent reference semantics
(SPEC §3's definitions, evaluated directly rather than through lowering)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from elot.lang.equivalence import EPSILON, states_for
from elot.lang.states import Belief, State
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature
from elot.lang.syntax import Call, Const, Term, Var

SIG = Signature.from_objects(
    {
        "box1": "box", "box2": "box", "box3": "box",
        "key1": "key", "key2": "key", "gem1": "gem",
        "red": "color", "blue": "color", "human": "agent",
    }
)
STATES = states_for(SIG)  # 37 states: up to two keys hidden in distinct boxes


def c(name: str) -> Const:
    return Const(name=name)


def v(name: str) -> Var:
    return Var(name=name)


def f(name: str, *args: Term) -> Call:
    return Call(name=name, args=tuple(args))


# -- base formulas ------------------------------------------------------------------------


def _pool(env: dict, domain: str, consts: list[str]) -> list[Term]:
    return [c(x) for x in consts] + [v(k) for k, d in env.items() if d == domain]


#: Condition kinds that mention a variable bound outside (SPEC §2: the condition tests it,
#: it does not rebind it), by the domain of the outer variable they need.
OUTER_KINDS = {"key_in_outer": "box", "box_of_outer": "key", "key_outer_color": "color",
               "box_not_outer": "box", "retype_outer": "key"}


@st.composite
def conditions(draw, env: dict):
    """A condition binding one fresh variable, and the extended environment. Some kinds
    also mention a variable of ``env`` (bound outside), which the condition only tests."""
    n = len(env)
    kinds = ["key", "key_color", "box", "box_not", "color", "item"]
    kinds += [k for k, d in OUTER_KINDS.items() if d in env.values()]
    kind = draw(st.sampled_from(kinds))
    outer = draw(st.sampled_from(sorted(x for x, d in env.items() if d == OUTER_KINDS[kind]))) \
        if kind in OUTER_KINDS else None
    if kind in ("key", "key_color", "item", "key_in_outer", "key_outer_color", "retype_outer"):
        name = f"K{n}"
        domain = "item" if kind == "item" else "key"
        cond = f(domain, v(name))
        if kind == "key_color":
            cond = f("and", cond, f("iscolor", v(name), c(draw(st.sampled_from(["red", "blue"])))))
        elif kind == "key_in_outer":  # and(key(K), inside(K, B)) with B bound outside
            cond = f("and", cond, f("inside", v(name), v(outer)))
        elif kind == "key_outer_color":  # and(key(K), iscolor(K, C)) with C bound outside
            cond = f("and", cond, f("iscolor", v(name), v(outer)))
        elif kind == "retype_outer":  # and(key(K1), key(K0)) with K0 bound outside: a test
            cond = f("and", cond, f("key", v(outer)))
    elif kind in ("box", "box_not", "box_of_outer", "box_not_outer"):
        name, domain = f"B{n}", "box"
        cond = f("box", v(name))
        if kind == "box_not":  # a non-type conjunct: where SPEC's forall deviation matters
            cond = f("and", cond, f("not", f("==", v(name), c("box1"))))
        elif kind == "box_not_outer":  # and(box(B1), not(==(B1, B0))) with B0 bound outside
            cond = f("and", cond, f("not", f("==", v(name), v(outer))))
        elif kind == "box_of_outer":  # and(box(B), inside(K, B)) with K bound outside
            cond = f("and", cond, f("inside", v(outer), v(name)))
    else:
        name, domain = f"C{n}", "color"
        cond = f("color", v(name))
    return cond, {**env, name: domain}


@st.composite
def atoms(draw, env: dict):
    keys = _pool(env, "key", ["key1", "key2"])
    items = keys + _pool(env, "item", ["gem1"])
    boxes = _pool(env, "box", ["box1", "box2", "box3"])
    colors = _pool(env, "color", ["red", "blue"])
    kind = draw(st.sampled_from(["inside", "iscolor", "empty", "hidden", "closed", "offgrid", "eq"]))
    if kind == "inside":
        return f("inside", draw(st.sampled_from(items)), draw(st.sampled_from(boxes)))
    if kind == "iscolor":
        return f("iscolor", draw(st.sampled_from(keys)), draw(st.sampled_from(colors)))
    if kind in ("empty", "closed"):
        return f(kind, draw(st.sampled_from(boxes)))
    if kind in ("hidden", "offgrid"):
        return f(kind, draw(st.sampled_from(items)))
    return f("==", draw(st.sampled_from(boxes)), draw(st.sampled_from(boxes)))


@st.composite
def base_formulas(draw, env: dict | None = None, depth: int = 2):
    """A well-typed base formula (Φ) whose free variables are those of ``env``."""
    env = env or {}
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        return draw(atoms(env))
    kind = draw(st.sampled_from(["not", "and", "or", "imply", "exists", "forall"]))
    if kind == "not":
        return f("not", draw(base_formulas(env, depth - 1)))
    if kind in ("and", "or"):
        n = draw(st.integers(2, 3))
        return f(kind, *[draw(base_formulas(env, depth - 1)) for _ in range(n)])
    if kind == "imply":
        return f("imply", draw(base_formulas(env, depth - 1)), draw(base_formulas(env, depth - 1)))
    cond, inner = draw(conditions(env))
    return f(kind, cond, draw(base_formulas(inner, depth - 1)))


# -- epistemic formulas -------------------------------------------------------------------

AGENTS = st.sampled_from(["player", "human"])
ADJ = st.sampled_from(["likely", "unlikely"])
MODAL_NAMES = ["could", "can", "might", "may", "should", "must", "likely", "unlikely"]


@st.composite
def modals(draw, env: dict):
    """A well-typed modal (E/A)."""
    phi = lambda: draw(base_formulas(env, 2))  # noqa: E731
    kind = draw(st.sampled_from(["verb", "verb", "more", "more_c", "equal", "most", "most_sup"]))
    if kind == "verb":
        return f(draw(st.sampled_from(MODAL_NAMES)), phi())
    if kind == "more":
        return f(draw(st.sampled_from(["more", "less"])), c(draw(ADJ)), phi(), phi())
    if kind == "more_c":
        cond, inner = draw(conditions(env))
        return f(draw(st.sampled_from(["more", "less"])), c(draw(ADJ)), cond,
                 draw(base_formulas(inner, 1)), draw(base_formulas(inner, 1)))
    if kind == "equal":
        return f("equal", c(draw(ADJ)), *[phi() for _ in range(draw(st.integers(2, 3)))])
    if kind == "most":
        return f(draw(st.sampled_from(["most", "least"])), c(draw(ADJ)), phi())
    cond, inner = draw(conditions(env))
    (var,) = set(inner) - set(env)
    domain = inner[var]
    objects = {"key": ["key1", "key2"], "item": ["key1", "gem1"], "box": ["box1", "box2", "box3"],
               "color": ["red", "blue"]}[domain]
    return f(draw(st.sampled_from(["most", "least"])), c(draw(ADJ)), c(draw(st.sampled_from(objects))),
             v(var), cond, draw(base_formulas(inner, 1)))


@st.composite
def epistemic_formulas(draw, env: dict | None = None, depth: int = 1):
    """A well-typed epistemic formula (E) over :data:`SIG`."""
    env = env or {}
    agent = c(draw(AGENTS))
    quote = lambda: f("formula", draw(base_formulas(env, 2)))  # noqa: E731
    if depth > 0 and draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["not", "and", "or", "exists", "forall", "mixed"]))
        if kind == "not":
            return f("not", draw(epistemic_formulas(env, depth - 1)))
        if kind in ("and", "or"):
            return f(kind, draw(epistemic_formulas(env, depth - 1)), draw(epistemic_formulas(env, depth - 1)))
        if kind == "mixed":  # Φ <: E
            return f("and", draw(epistemic_formulas(env, depth - 1)), draw(base_formulas(env, 1)))
        cond, inner = draw(conditions(env))
        return f(kind, cond, draw(epistemic_formulas(inner, depth - 1)))
    kind = draw(st.sampled_from([
        "attitude", "attitude_modal", "believes_many", "knowledge", "about", "uncertain_if2",
        "uncertain_if3", "uncertain_if4",
    ]))
    if kind == "attitude":
        return f(draw(st.sampled_from(["believes", "certain", "hopes"])), agent, quote())
    if kind == "attitude_modal":
        return f(draw(st.sampled_from(["believes", "certain", "hopes"])), agent, draw(modals(env)))
    if kind == "believes_many":
        xs = [quote() if draw(st.booleans()) else draw(modals(env)) for _ in range(draw(st.integers(2, 3)))]
        return f("believes", agent, *xs)
    if kind == "knowledge":
        return f(draw(st.sampled_from(["knows_that", "knows_if", "not_knows_that", "not_knows_if"])), agent, quote())
    if kind == "about":
        cond, inner = draw(conditions(env))
        op = draw(st.sampled_from(["knows_about", "not_knows_about", "certain_about", "uncertain_about"]))
        return f(op, agent, cond, draw(base_formulas(inner, 1)))
    if kind == "uncertain_if2":
        return f("uncertain_if", agent, quote())
    if kind == "uncertain_if3":
        return f("uncertain_if", agent, quote(), quote())
    cond, inner = draw(conditions(env))
    return f("uncertain_if", agent, cond, draw(base_formulas(inner, 1)), draw(base_formulas(inner, 1)))


# -- states and beliefs -------------------------------------------------------------------

states = st.sampled_from(STATES)


@st.composite
def beliefs(draw) -> Belief:
    """Few-particle beliefs (weights k/n, ε on other states, as BToM makes them) or
    random weights on a few states."""
    n = draw(st.integers(1, 4))
    support = draw(st.lists(st.sampled_from(STATES), min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):
        counts = [0] * len(support)
        for _ in range(n):
            counts[draw(st.integers(0, len(support) - 1))] += 1
        weights = [k / n if k else EPSILON for k in counts]
    else:
        seed = draw(st.integers(0, 2**32 - 1))
        # Multiples of 2^-20: their sums are exact in any order, so the evaluator and the
        # reference (which add the weights in different orders) cannot differ by one ulp
        # at a threshold such as threshold(most(likely)) = 1.
        raw = np.random.default_rng(seed).dirichlet(np.ones(len(support)))
        grains = [int(x * 2**20) for x in raw[:-1]]
        weights = [g / 2**20 for g in grains] + [(2**20 - sum(grains)) / 2**20]
    return Belief(tuple(zip(support, (float(w) for w in weights))))


# -- reference semantics ------------------------------------------------------------------


class Reference:
    """SPEC §3–4 evaluated directly from the definitions (no lowering, no NumPy program)."""

    def __init__(self, signature: Signature = SIG, thresholds: Thresholds = Thresholds()) -> None:
        self.sig = signature
        self.th = thresholds
        self.objects = [name for name, _ in signature.objects]

    # base formulas: first-order logic in one state, quantifiers over *all* objects
    def holds(self, t: Term, s: State, env: dict) -> bool:
        name, args = t.name, t.args
        val = lambda a: env[a.name] if isinstance(a, Var) else self.sig.resolve(a.name)  # noqa: E731
        if name == "empty":
            box = val(args[0])
            return not any(a[0] == "inside" and a[2] == box for a in s.atoms)
        if name in self.sig.predicate_types:
            return (name, *(val(a) for a in args)) in s.atoms
        if name in self.sig.domains:
            return self.sig.is_subdomain(self.sig.object_types[val(args[0])], name)
        if name == "==":
            return val(args[0]) == val(args[1])
        if name == "not":
            return not self.holds(args[0], s, env)
        if name == "and":
            return all(self.holds(a, s, env) for a in args)
        if name == "or":
            return any(self.holds(a, s, env) for a in args)
        if name == "imply":
            return not self.holds(args[0], s, env) or self.holds(args[1], s, env)
        if name in ("exists", "forall"):
            results = [self.holds(args[1], s, e) for e in self.bindings(args[0], s, env)]
            return any(results) if name == "exists" else all(results)
        raise AssertionError(name)

    def bindings(self, cond: Term, s: State, env: dict) -> list[dict]:
        """Every assignment of the variables the condition binds (any object) satisfying
        it in s. SPEC §2: a condition binds the variables it mentions that are not already
        bound outside (not in ``env``); those in ``env`` keep their values and are tested."""
        names = sorted(_mentioned(cond, set(env)) - set(env))
        out = []
        import itertools

        for combo in itertools.product(self.objects, repeat=len(names)):
            e = {**env, **dict(zip(names, combo))}
            if self.holds(cond, s, e):
                out.append(e)
        return out

    def pr(self, phi: Term, b: Belief, env: dict) -> float:
        weights = np.array([w for _, w in b.support])
        truth = np.array([self.holds(phi, st_, env) for st_, _ in b.support])
        return float((weights * truth).sum())

    def deg(self, adj: Term, phi: Term, b: Belief, env: dict) -> float:
        p = self.pr(phi, b, env)
        return p if adj.name == "likely" else -p

    def modal(self, m: Term, s: State, b: Belief, env: dict) -> bool:
        th, name, args = self.th, m.name, m.args
        if name in ("could", "can", "might", "may", "should", "must", "likely"):
            return self.pr(args[0], b, env) >= getattr(th, name)
        if name == "unlikely":
            return self.pr(args[0], b, env) <= th.unlikely
        if name in ("more", "less"):
            op = (lambda x, y: x > y) if name == "more" else (lambda x, y: x < y)
            adj, phi, psi = args[0], args[-2], args[-1]
            if len(args) == 3:
                return op(self.deg(adj, phi, b, env), self.deg(adj, psi, b, env))
            return any(op(self.deg(adj, phi, b, e), self.deg(adj, psi, b, e)) for e in self.bindings(args[1], s, env))
        if name == "equal":
            degs = [self.deg(args[0], phi, b, env) for phi in args[1:]]
            return all(x == y for x, y in zip(degs, degs[1:]))
        if len(args) == 2:  # most/least strong form
            adj = args[0].name if name == "most" else {"likely": "unlikely", "unlikely": "likely"}[args[0].name]
            p = self.pr(args[1], b, env)
            return p >= min(1.0, th.alpha_most * th.likely) if adj == "likely" else p <= th.unlikely / th.alpha_most
        adj, obj, var, cond, phi = args
        # φ[X:=o] is φ with X bound to o; X is named explicitly, so it is (re)bound even
        # if an outer X is.
        value = env[obj.name] if isinstance(obj, Var) else self.sig.resolve(obj.name)
        mine = self.deg(adj, phi, b, {**env, var.name: value})
        outer = {k: x for k, x in env.items() if k != var.name}
        others = [self.deg(adj, phi, b, e) for e in self.bindings(cond, s, outer)]
        if name == "most":
            return mine >= (max(others) if others else 0.0)
        return mine <= (min(others) if others else 1.0)

    def content(self, x: Term, s: State, b: Belief, env: dict, theta: float) -> bool:
        if x.name == "formula":
            return self.pr(x.args[0], b, env) >= theta
        return self.modal(x, s, b, env)

    def truth(self, t: Term, s: State, b: Belief, env: dict | None = None) -> bool:
        env = env or {}
        th, name, args = self.th, t.name, t.args
        if name in ("believes", "certain", "hopes"):
            theta = getattr(th, name)
            return all(self.content(x, s, b, env, theta) for x in args[1:])
        if name in ("knows_that", "not_knows_that", "knows_if", "not_knows_if"):
            phi = args[1].args[0]
            p, here = self.pr(phi, b, env), self.holds(phi, s, env)
            pn = self.pr(f("not", phi), b, env)
            knows_if = (p >= th.believes and here) or (pn >= th.believes and not here)
            return {"knows_that": p >= th.believes and here, "not_knows_that": p < th.believes and here,
                    "knows_if": knows_if, "not_knows_if": not knows_if}[name]
        if name in ("knows_about", "not_knows_about", "certain_about", "uncertain_about"):
            cond, phi = args[1], args[2]
            envs = self.bindings(cond, s, env)
            if name == "knows_about":
                return any(self.pr(phi, b, e) >= th.believes and self.holds(phi, s, e) for e in envs)
            if name == "not_knows_about":
                return all(not (self.pr(phi, b, e) >= th.believes and self.holds(phi, s, e)) for e in envs)
            if name == "certain_about":
                return any(self.pr(phi, b, e) >= th.certain for e in envs)
            return all(self.pr(phi, b, e) < th.uncertain for e in envs)
        if name == "uncertain_if":
            if len(args) == 4:
                return any(self.pr(args[2], b, e) < th.uncertain and self.pr(args[3], b, e) < th.uncertain
                           for e in self.bindings(args[1], s, env))
            phi = args[1].args[0]
            psi = args[2].args[0] if len(args) == 3 else f("not", phi)
            return self.pr(phi, b, env) < th.uncertain and self.pr(psi, b, env) < th.uncertain
        if name in ("not", "and", "or", "imply", "exists", "forall") and not _is_base(t):
            if name == "not":
                return not self.truth(args[0], s, b, env)
            if name == "and":
                return all(self.truth(a, s, b, env) for a in args)
            if name == "or":
                return any(self.truth(a, s, b, env) for a in args)
            if name == "imply":
                return not self.truth(args[0], s, b, env) or self.truth(args[1], s, b, env)
            results = [self.truth(args[1], s, b, e) for e in self.bindings(args[0], s, env)]
            return any(results) if name == "exists" else all(results)
        return self.holds(t, s, env)


def _mentioned(t: Term, bound: set[str]) -> set[str]:
    """The variables occurring in ``t`` outside the scope of a quantifier that binds them,
    when ``bound`` are bound around ``t`` (a nested quantifier binds the variables of its
    condition that are not in ``bound``)."""
    if isinstance(t, Var):
        return {t.name}
    if not isinstance(t, Call):
        return set()
    if t.name in ("exists", "forall") and len(t.args) == 2:
        new = _mentioned(t.args[0], bound) - bound
        return (_mentioned(t.args[0], bound) | _mentioned(t.args[1], bound | new)) - new
    return set().union(*(_mentioned(a, bound) for a in t.args))


EPISTEMIC_OPS = {"believes", "certain", "hopes", "knows_that", "not_knows_that", "knows_if", "not_knows_if",
             "knows_about", "not_knows_about", "certain_about", "uncertain_about", "uncertain_if"}


def _is_base(t: Term) -> bool:
    from elot.lang.syntax import subterms

    return not any(isinstance(n, Call) and n.name in EPISTEMIC_OPS for n in subterms(t))


# == the properties ======================================================================

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from helpers import examples  # noqa: E402

from elot.lang.checker import check  # noqa: E402
from elot.lang.semantics import compile_formula, evaluate  # noqa: E402
from elot.lang.lowering import is_lowered, lower  # noqa: E402
from elot.lang.parser import parse  # noqa: E402
from elot.lang.printer import pretty  # noqa: E402
from elot.lang.typesystem import BASE, EPISTEMIC  # noqa: E402

REF = Reference()


@given(epistemic_formulas(depth=1), states, beliefs())
def test_meaning_is_the_definition(phi, state, belief):
    """⟦φ⟧ computed through lowering and the vectorized program = SPEC §3's definitions."""
    assert evaluate(phi, state, belief, signature=SIG) == REF.truth(phi, state, belief)


@given(epistemic_formulas(depth=1), states, beliefs())
def test_lowering_preserves_meaning(phi, state, belief):
    """⟦φ⟧ = ⟦lower(φ)⟧, the lowered form evaluated on its own."""
    lowered = lower(phi, SIG)
    assert evaluate(lowered, state, belief, signature=SIG) == REF.truth(phi, state, belief)


@given(epistemic_formulas(depth=2))
def test_generated_formulas_typecheck_and_lowered_forms_too(phi):
    assert check(phi, SIG).type in (BASE, EPISTEMIC)
    lowered = lower(phi, SIG)
    assert is_lowered(lowered)
    assert check(lowered, SIG).type in (BASE, EPISTEMIC)
    assert parse(pretty(lowered)) == lowered


@given(base_formulas(depth=2), states, beliefs())
def test_knowing_implies_believing(phi, state, belief):
    knows = evaluate(f("knows_that", c("player"), f("formula", phi)), state, belief, signature=SIG)
    believes = evaluate(f("believes", c("player"), f("formula", phi)), state, belief, signature=SIG)
    assert not knows or believes


@given(base_formulas(depth=2), states, beliefs())
def test_certainty_implies_belief_under_default_thresholds(phi, state, belief):
    certain = evaluate(f("certain", c("player"), f("formula", phi)), state, belief, signature=SIG)
    believes = evaluate(f("believes", c("player"), f("formula", phi)), state, belief, signature=SIG)
    assert not certain or believes


@given(base_formulas(depth=2), states, beliefs())
def test_not_knowing_that_implies_the_fact(phi, state, belief):
    if evaluate(f("not_knows_that", c("player"), f("formula", phi)), state, belief, signature=SIG):
        assert evaluate(phi, state, signature=SIG)


@given(
    st.sampled_from(["could", "can", "might", "may", "should", "must", "likely", "believes", "certain", "hopes"]),
    st.floats(0, 1),
    st.floats(0, 1),
    base_formulas(depth=2),
    states,
    beliefs(),
)
def test_raising_a_threshold_never_makes_a_claim_true(name, a, b, phi, state, belief):
    low, high = sorted((a, b))
    if name in ("believes", "certain", "hopes"):
        claim = f(name, c("player"), f("formula", phi))
    else:
        claim = f("believes", c("player"), f(name, phi))
    at_low = evaluate(claim, state, belief, signature=SIG, thresholds=Thresholds().replace(**{name: low}))
    at_high = evaluate(claim, state, belief, signature=SIG, thresholds=Thresholds().replace(**{name: high}))
    assert at_low or not at_high


@settings(max_examples=examples(60))
@given(epistemic_formulas(depth=1), st.lists(beliefs(), min_size=1, max_size=6), st.data())
def test_vectorized_truth_agrees_with_evaluate_row_by_row(phi, belief_list, data):
    """compile_formula(...).truth over many rows = evaluate on each row."""
    worlds = list(dict.fromkeys(s for b in belief_list for s in b.states()))
    extra = data.draw(st.lists(states, max_size=3))
    worlds = list(dict.fromkeys(worlds + extra))
    rows = np.zeros((len(belief_list), len(worlds)))
    for i, b in enumerate(belief_list):
        for s, w in b.support:
            rows[i, worlds.index(s)] += w
    true_index = np.array([data.draw(st.integers(0, len(worlds) - 1)) for _ in belief_list])
    got = compile_formula(phi, SIG).truth(worlds, rows, true_index)
    want = [evaluate(phi, worlds[t], b, signature=SIG) for t, b in zip(true_index, belief_list)]
    assert got.tolist() == want


@pytest.mark.slow   # a thousand generated formulas, whatever the profile
def test_the_generator_covers_every_epistemic_operator():
    """The property tests above see every operator of SPEC §3 (guards the generator)."""
    from hypothesis import Phase, find
    from hypothesis.errors import NoSuchExample

    from elot.lang.syntax import subterms

    seen: set[str] = set()

    def record(term) -> bool:
        seen.update(n.name for n in subterms(term) if isinstance(n, Call))
        return False

    with pytest.raises(NoSuchExample):
        find(epistemic_formulas(depth=1), record,
             settings=settings(max_examples=1000, database=None, derandomize=True, phases=[Phase.generate]))
    wanted = EPISTEMIC_OPS | {"more", "less", "equal", "most", "least", "exists", "forall", "imply"} | set(MODAL_NAMES)
    assert wanted <= seen, wanted - seen


@pytest.mark.slow   # a thousand generated formulas, whatever the profile
def test_the_generator_makes_inner_conditions_that_mention_outer_variables():
    """Some generated formulas have a condition mentioning a variable bound outside it,
    which SPEC §2 reads as a test of the outer variable, not a rebinding: under base and
    epistemic quantifiers, inside the formula of an epistemic operator (where it ends up
    in prob_of after lowering), and as the condition of an epistemic operator (guards the
    generator)."""
    from hypothesis import Phase, find
    from hypothesis.errors import NoSuchExample

    from elot.lang.syntax import binding, scopes

    pairs: set[tuple[str, str]] = set()  # (operator binding the outer variable, operator testing it)

    def walk(t: Term, binders: dict) -> None:
        if not isinstance(t, Call):
            return
        bound = frozenset(binders)
        b = binding(t, bound)
        if b is not None:
            mentioned = {n.name for n in _subterms(t.args[b.condition]) if isinstance(n, Var)}
            pairs.update((binders[x], t.name) for x in mentioned & bound)
        for _, arg, inner in scopes(t, bound):
            walk(arg, {**binders, **{x: t.name for x in inner - bound}})

    def record(term) -> bool:
        walk(term, {})
        return False

    with pytest.raises(NoSuchExample):
        find(epistemic_formulas(depth=1), record,
             settings=settings(max_examples=1000, database=None, derandomize=True, phases=[Phase.generate]))
    quantifiers = {"exists", "forall"}
    assert any(o in quantifiers and i in quantifiers for o, i in pairs), pairs
    assert any(o in EPISTEMIC_OPS | {"most", "least", "more", "less"} and i in quantifiers for o, i in pairs), pairs
    assert any(o in quantifiers and i not in quantifiers for o, i in pairs), pairs


def _subterms(t: Term):
    from elot.lang.syntax import subterms

    return subterms(t)
