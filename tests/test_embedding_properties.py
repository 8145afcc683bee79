"""Property tests over random *user-declared* domains (elot.embedding.declare): random
types (with a hierarchy), objects, agents and predicates; random well-typed formulas
over them. Every such formula typechecks, evaluates, and means what SPEC §3 says both
directly and lowered (⟦φ⟧ = ⟦lower φ⟧ = the reference semantics of test_properties)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import examples
from test_properties import Reference

from elot.lang.checker import check
from elot.embedding import Hypotheses, declare, judge
from elot.lang.semantics import compile_formula
from elot.lang.states import Belief, State
from elot.lang.lowering import is_lowered, lower
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.lang.signature import Signature
from elot.lang.syntax import Call, Const, Term, Var
from elot.lang.typesystem import BASE, EPISTEMIC


def c(name: str) -> Const:
    return Const(name=name)


def f(name: str, *args: Term) -> Call:
    return Call(name=name, args=tuple(args))


# -- domains ----------------------------------------------------------------------------------


@st.composite
def signatures(draw) -> Signature:
    """A domain with 1–3 types (some below others), 1–3 objects each, 1–2 agents and
    1–3 predicates of arity 1–2 over those types."""
    types = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    parents = {t: draw(st.sampled_from(types[:i])) for i, t in enumerate(types) if i and draw(st.booleans())}
    objects = {f"{t}x{j}": t for t in types for j in range(draw(st.integers(1, 3)))}
    objects.update({f"ag{j}": "agent" for j in range(draw(st.integers(1, 2)))})
    kinds = types + ["agent"]
    predicates = {f"p{i}": tuple(draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=2)))
                  for i in range(draw(st.integers(1, 3)))}
    return declare(objects, predicates, types=parents)


def kinds(sig: Signature) -> list[str]:
    return sorted(sig.domains - {"object"})


# -- formulas ------------------------------------------------------------------------------------


def term_of(draw, sig: Signature, env: dict, kind: str) -> Term:
    """An object of type ``kind``: a constant, or a bound variable whose type fits."""
    variables = [Var(name=x) for x, d in env.items() if sig.is_subdomain(d, kind)]
    constants = [c(o) for o in sig.objects_of(kind) if o != "player"]
    return draw(st.sampled_from(constants + variables))


@st.composite
def base(draw, sig: Signature, env: dict, depth: int = 2) -> Term:
    options = ["atom", "type"] + (["not", "and", "or", "imply", "exists", "forall", "=="] if depth else [])
    kind = draw(st.sampled_from(options))
    if kind == "atom":
        name, arg_types = draw(st.sampled_from(list(sig.predicates)))
        return f(name, *(term_of(draw, sig, env, t) for t in arg_types))
    if kind == "type":
        t = draw(st.sampled_from(kinds(sig)))
        return f(t, term_of(draw, sig, env, "object"))
    if kind == "==":
        return f("==", term_of(draw, sig, env, "object"), term_of(draw, sig, env, "object"))
    if kind == "not":
        return f("not", draw(base(sig, env, depth - 1)))
    if kind in ("and", "or", "imply"):
        n = 2 if kind == "imply" else draw(st.integers(2, 3))
        return f(kind, *(draw(base(sig, env, depth - 1)) for _ in range(n)))
    cond, inner = draw(condition(sig, env))
    return f(kind, cond, draw(base(sig, inner, depth - 1)))


@st.composite
def condition(draw, sig: Signature, env: dict):
    """``t(X)`` binding a fresh variable X to the objects of type t, and the new env."""
    name = f"X{len(env)}"
    kind = draw(st.sampled_from(kinds(sig)))
    return f(kind, Var(name=name)), {**env, name: kind}


def agent(draw, sig: Signature, env: dict) -> Term:
    return term_of(draw, sig, env, "agent")


@st.composite
def modal(draw, sig: Signature, env: dict) -> Term:
    kind = draw(st.sampled_from(["plain", "more", "less", "equal", "most_strong", "most_obj"]))
    phi = lambda e=env: draw(base(sig, e, 1))  # noqa: E731
    adjective = c(draw(st.sampled_from(["likely", "unlikely"])))
    if kind == "plain":
        return f(draw(st.sampled_from(["could", "can", "might", "may", "should", "must", "likely", "unlikely"])), phi())
    if kind in ("more", "less"):
        if draw(st.booleans()):
            return f(kind, adjective, phi(), phi())
        cond, inner = draw(condition(sig, env))
        return f(kind, adjective, cond, phi(inner), phi(inner))
    if kind == "equal":
        return f("equal", adjective, *(phi() for _ in range(draw(st.integers(2, 3)))))
    if kind == "most_strong":
        return f(draw(st.sampled_from(["most", "least"])), adjective, phi())
    cond, inner = draw(condition(sig, env))
    var = cond.args[0]
    obj = term_of(draw, sig, env, cond.name)
    return f(draw(st.sampled_from(["most", "least"])), adjective, obj, var, cond, phi(inner))


@st.composite
def epistemic(draw, sig: Signature, env: dict | None = None, depth: int = 1) -> Term:
    env = env or {}
    options = ["attitude", "modal", "knowledge", "about", "uncertain_if"]
    if depth:
        options += ["not", "and", "exists"]
    kind = draw(st.sampled_from(options))
    a = agent(draw, sig, env)
    if kind == "attitude":
        return f(draw(st.sampled_from(["believes", "certain", "hopes"])), a, f("formula", draw(base(sig, env, 2))))
    if kind == "modal":
        return f("believes", a, draw(modal(sig, env)))
    if kind == "knowledge":
        op = draw(st.sampled_from(["knows_that", "knows_if", "not_knows_that", "not_knows_if"]))
        return f(op, a, f("formula", draw(base(sig, env, 2))))
    if kind == "about":
        cond, inner = draw(condition(sig, env))
        op = draw(st.sampled_from(["knows_about", "not_knows_about", "certain_about", "uncertain_about"]))
        return f(op, a, cond, draw(base(sig, inner, 1)))
    if kind == "uncertain_if":
        n = draw(st.integers(1, 3))
        if n == 3:
            cond, inner = draw(condition(sig, env))
            return f("uncertain_if", a, cond, draw(base(sig, inner, 1)), draw(base(sig, inner, 1)))
        return f("uncertain_if", a, *(f("formula", draw(base(sig, env, 1))) for _ in range(n)))
    if kind == "not":
        return f("not", draw(epistemic(sig, env, depth - 1)))
    if kind == "and":
        return f("and", draw(epistemic(sig, env, depth - 1)), draw(base(sig, env, 1)))
    cond, inner = draw(condition(sig, env))  # may bind an agent variable used as A below
    return f("exists", cond, draw(epistemic(sig, inner, depth - 1)))


# -- states and beliefs ------------------------------------------------------------------------------


def ground_atoms(sig: Signature) -> list[tuple[str, ...]]:
    return [(name, *objs) for name, arg_types in sig.predicates
            for objs in itertools.product(*(sig.objects_of(t) for t in arg_types))]


@st.composite
def state(draw, sig: Signature) -> State:
    atoms = ground_atoms(sig)
    return State.of(draw(st.lists(st.sampled_from(atoms), max_size=len(atoms), unique=True)) if atoms else [])


@st.composite
def belief(draw, sig: Signature) -> Belief:
    states = draw(st.lists(state(sig), min_size=1, max_size=3, unique=True))
    grains = draw(st.lists(st.integers(1, 2**18), min_size=len(states) - 1, max_size=len(states) - 1))
    # Multiples of 2^-20 (as in test_properties): their sums are exact in any order, so the
    # evaluator and the reference, which add them in different orders, agree to the bit
    # at thresholds such as threshold(most(likely)) = 1.
    weights = [g / 2**20 for g in grains] + [(2**20 - sum(grains)) / 2**20]
    return Belief.of(zip(states, weights))


def rows(sig: Signature, world: State, beliefs: dict[str, Belief]):
    """One hypothesis as arrays: worlds, {agent: (1, S)} beliefs, true index."""
    worlds = list(dict.fromkeys([world, *(s for b in beliefs.values() for s in b.states())]))
    table = {}
    for a, b in beliefs.items():
        row = np.zeros((1, len(worlds)))
        for s, w in b.support:
            row[0, worlds.index(s)] += w
        table[a] = row
    return worlds, table, np.zeros(1, dtype=np.intp)


def agents(sig: Signature) -> list[str]:
    return [o for o, d in sig.objects if sig.is_subdomain(d, "agent")]


# -- the properties ----------------------------------------------------------------------------------


@settings(max_examples=examples(200))
@given(st.data())
def test_every_well_typed_formula_over_a_user_domain_evaluates_and_means_its_definition(data):
    sig = data.draw(signatures())
    phi = data.draw(epistemic(sig))
    assert check(phi, sig).type in (BASE, EPISTEMIC)
    lowered = lower(phi, sig)
    assert is_lowered(lowered) and check(lowered, sig).type in (BASE, EPISTEMIC)
    assert parse(pretty(lowered)) == lowered
    world, b = data.draw(state(sig)), data.draw(belief(sig))
    worlds, table, index = rows(sig, world, {a: b for a in agents(sig)})  # every agent believes b
    direct = compile_formula(phi, sig).truth(worlds, table, index)[0]
    via_lowered = compile_formula(lowered, sig).truth(worlds, table, index)[0]
    assert direct == via_lowered == Reference(sig).truth(phi, world, b)


@settings(max_examples=examples(100))
@given(st.data())
def test_each_agent_is_judged_on_its_own_belief(data):
    """A formula about one agent means the same whatever the other agents believe."""
    sig = data.draw(signatures())
    phi = data.draw(epistemic(sig, depth=0))
    who = phi.args[0].name
    world, mine = data.draw(state(sig)), data.draw(belief(sig))
    others = {a: data.draw(belief(sig)) for a in agents(sig) if a != who}
    alone = rows(sig, world, {who: mine})
    together = rows(sig, world, {who: mine, **others})
    program = compile_formula(phi, sig)
    assert program.truth(*alone)[0] == program.truth(*together)[0] == Reference(sig).truth(phi, world, mine)


@settings(max_examples=examples(50))
@given(st.data())
def test_judging_random_hypotheses_over_a_user_domain(data):
    """judge() over N random hypotheses = the posterior-weighted reference truth; π is the
    uniform prior over the *distinct* hypotheses (equal rows are copies of one)."""
    sig = data.draw(signatures())
    phi = data.draw(epistemic(sig))
    n = data.draw(st.integers(1, 6))
    triples = [(data.draw(state(sig)), {a: data.draw(belief(sig)) for a in agents(sig)}, 1.0 / n) for _ in range(n)]
    hypotheses = Hypotheses.of(triples, sig)
    result = judge(phi, hypotheses)
    truths = [compile_formula(phi, sig).truth(*rows(sig, w, bs))[0] for w, bs, _ in triples]

    def canonical(world, beliefs):
        out = []
        for agent in sorted(beliefs):
            mass: dict = {}
            for s, w in beliefs[agent].support:
                mass[s] = mass.get(s, 0.0) + w
            out.append((agent, frozenset(mass.items())))
        return world, tuple(out)

    distinct = {canonical(w, bs): truth for (w, bs, _), truth in zip(triples, truths)}
    assert abs(result.P - sum(truths) / n) < 1e-12
    assert abs(result.pi - sum(distinct.values()) / len(distinct)) < 1e-12
