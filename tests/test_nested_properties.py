"""Properties of nested beliefs (SPEC §10): generated formulas about two agents whose quoted
formulas hold other beliefs (depth up to 3), evaluated through lowering and the vectorized
program, against a slow reference that applies the definitions directly:

    Pr_a(φ) = Σ_s Bel_a(s) · ⟦φ⟧(s, {b: M_b(s)})

with ⟦φ⟧ of an epistemic φ computed again by the definitions of SPEC §3 in situation s, where
each agent b believes its table's row M_b(s). With one agent and no nesting, the tables are
never read: every value is the same bits as without them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import examples
from test_properties import (
    ADJ, EPISTEMIC_OPS, MODAL_NAMES, STATES, Reference, base_formulas, beliefs, c, conditions, epistemic_formulas, f,
    states, v,
)

from elot.errors import ElotTypeError
from elot.lang.checker import check
from elot.lang.equivalence import EPSILON
from elot.lang.lowering import is_lowered, lower
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.lang.semantics import Belief, State, Thresholds, compile_formula, evaluate
from elot.lang.signature import Signature
from elot.lang.syntax import Call, Term
from elot.lang.typesystem import EPISTEMIC

#: test_properties' Doors-Keys-Gems objects with a second agent (human is observed: player).
SIG2 = Signature.from_objects({
    "box1": "box", "box2": "box", "box3": "box", "key1": "key", "key2": "key", "gem1": "gem",
    "red": "color", "blue": "color", "human": "agent", "robot": "agent",
}, agent="human")
AGENTS = st.sampled_from(["player", "human", "robot"])


# -- nested formulas ----------------------------------------------------------------------------

@st.composite
def contents(draw, env: dict, depth: int):
    """What a probability is taken of: a base formula, or (depth permitting) a mind."""
    if depth > 0 and draw(st.integers(0, 2)) > 0:
        return draw(minds(env, depth - 1))
    return draw(base_formulas(env, 1))


@st.composite
def nested_modals(draw, env: dict, depth: int):
    """A modal (E/A) whose formulas may be nested."""
    phi = lambda: draw(contents(env, depth))  # noqa: E731
    kind = draw(st.sampled_from(["verb", "verb", "more", "more_c", "equal", "most", "most_sup"]))
    if kind == "verb":
        return f(draw(st.sampled_from(MODAL_NAMES)), phi())
    if kind == "more":
        return f(draw(st.sampled_from(["more", "less"])), c(draw(ADJ)), phi(), phi())
    if kind == "more_c":
        cond, inner = draw(conditions(env))
        return f(draw(st.sampled_from(["more", "less"])), c(draw(ADJ)), cond,
                 draw(contents(inner, depth)), draw(contents(inner, depth)))
    if kind == "equal":
        return f("equal", c(draw(ADJ)), phi(), phi())
    if kind == "most":
        return f(draw(st.sampled_from(["most", "least"])), c(draw(ADJ)), phi())
    cond, inner = draw(conditions(env))
    (var,) = set(inner) - set(env)
    objects = {"key": ["key1", "key2"], "item": ["key1", "gem1"], "box": ["box1", "box2", "box3"],
               "color": ["red", "blue"]}[inner[var]]
    return f(draw(st.sampled_from(["most", "least"])), c(draw(ADJ)), c(draw(st.sampled_from(objects))),
             v(var), cond, draw(contents(inner, depth)))


@st.composite
def minds(draw, env: dict | None = None, depth: int = 1):
    """A well-typed epistemic formula about either agent whose contents may nest ``depth``
    more levels of belief."""
    env = env or {}
    agent = c(draw(AGENTS))
    quote = lambda: f("formula", draw(contents(env, depth)))  # noqa: E731
    kind = draw(st.sampled_from(["attitude", "attitude", "attitude_modal", "believes_many", "knowledge", "about",
                                 "uncertain_if2", "uncertain_if4", "not", "and", "exists"]))
    if kind == "attitude":
        return f(draw(st.sampled_from(["believes", "certain", "hopes"])), agent, quote())
    if kind == "attitude_modal":
        return f(draw(st.sampled_from(["believes", "certain", "hopes"])), agent, draw(nested_modals(env, depth)))
    if kind == "believes_many":
        return f("believes", agent, quote(), draw(nested_modals(env, depth)))
    if kind == "knowledge":
        return f(draw(st.sampled_from(["knows_that", "knows_if", "not_knows_that", "not_knows_if"])), agent, quote())
    if kind == "about":
        cond, inner = draw(conditions(env))
        op = draw(st.sampled_from(["knows_about", "not_knows_about", "certain_about", "uncertain_about"]))
        return f(op, agent, cond, draw(contents(inner, depth)))
    if kind == "uncertain_if2":
        return f("uncertain_if", agent, quote())
    if kind == "uncertain_if4":
        cond, inner = draw(conditions(env))
        return f("uncertain_if", agent, cond, draw(contents(inner, depth)), draw(contents(inner, depth)))
    if kind == "not":
        return f("not", draw(minds(env, depth)))
    if kind == "and":
        return f("and", draw(minds(env, depth)), draw(base_formulas(env, 1)))
    cond, inner = draw(conditions(env))
    return f("exists", cond, draw(minds(inner, depth)))


# -- situations, beliefs and tables ------------------------------------------------------------

@st.composite
def distributions(draw, situations: list[State]) -> Belief:
    """A belief over ``situations`` with weights in multiples of 2⁻⁴ (sums exact in any
    order, so the reference and the evaluator add to the same floats) and ε elsewhere."""
    support = draw(st.lists(st.integers(0, len(situations) - 1), min_size=1, max_size=3, unique=True))
    cuts = sorted(draw(st.lists(st.integers(0, 16), min_size=len(support) - 1, max_size=len(support) - 1)))
    grains = [b - a for a, b in zip([0] + cuts, cuts + [16])]
    weights = {situations[i]: g / 16 for i, g in zip(support, grains)}
    epsilon = draw(st.booleans())
    pairs = [(s, weights.get(s, EPSILON if epsilon else 0.0)) for s in situations]
    pairs = [(s, w) for s, w in pairs if w > 0] or [(situations[support[0]], 1.0)]
    return Belief(tuple(pairs))


@dataclass(frozen=True)
class Minds:
    """What a nested formula is judged in: the situations, the true one, each agent's belief
    and each agent's table (its belief in every situation)."""

    situations: tuple[State, ...]
    truth: State
    beliefs: dict
    tables: dict

    def at(self, situation: State) -> "Minds":
        """The same minds where ``situation`` is the case: each agent believes its table's row."""
        return Minds(self.situations, situation, {a: t[situation] for a, t in self.tables.items()}, self.tables)


@st.composite
def worlds_of_minds(draw) -> Minds:
    situations = draw(st.lists(st.sampled_from(STATES), min_size=2, max_size=5, unique=True))
    tables = {agent: {s: draw(distributions(situations)) for s in situations} for agent in ("human", "robot")}
    beliefs_ = {agent: draw(distributions(situations)) for agent in ("human", "robot")}
    return Minds(tuple(situations), draw(st.sampled_from(situations)), beliefs_, tables)


# -- the reference --------------------------------------------------------------------------

class NestedReference:
    """SPEC §3 and §10 from their definitions: the truth of any formula in a situation, for
    each agent's belief there, with probabilities of nested formulas computed by recursion."""

    def __init__(self, signature: Signature = SIG2, thresholds: Thresholds = Thresholds()) -> None:
        self.sig, self.th = signature, thresholds
        self.base = Reference(signature, thresholds)

    def agent(self, term: Term, env: dict) -> str:
        return env[term.name] if term.name in env else self.sig.resolve(term.name)

    def pr(self, agent: str, phi: Term, minds: Minds, env: dict) -> float:
        return sum(w for s, w in minds.beliefs[agent].support if self.truth(phi, minds.at(s), env))

    def deg(self, adj: Term, agent: str, phi: Term, minds: Minds, env: dict) -> float:
        p = self.pr(agent, phi, minds, env)
        return p if adj.name == "likely" else -p

    def modal(self, m: Call, agent: str, minds: Minds, env: dict) -> bool:
        th, name, args = self.th, m.name, m.args
        pr = lambda phi, e=env: self.pr(agent, phi, minds, e)  # noqa: E731
        deg = lambda adj, phi, e=env: self.deg(adj, agent, phi, minds, e)  # noqa: E731
        if name in ("could", "can", "might", "may", "should", "must", "likely"):
            return pr(args[0]) >= getattr(th, name)
        if name == "unlikely":
            return pr(args[0]) <= th.unlikely
        if name in ("more", "less"):
            op = (lambda x, y: x > y) if name == "more" else (lambda x, y: x < y)
            if len(args) == 3:
                return op(deg(args[0], args[1]), deg(args[0], args[2]))
            return any(op(deg(args[0], args[2], e), deg(args[0], args[3], e))
                       for e in self.base.bindings(args[1], minds.truth, env))
        if name == "equal":
            degs = [deg(args[0], phi) for phi in args[1:]]
            return all(x == y for x, y in zip(degs, degs[1:]))
        if len(args) == 2:
            up = (args[0].name == "likely") == (name == "most")
            p = pr(args[1])
            return p >= min(1.0, th.alpha_most * th.likely) if up else p <= th.unlikely / th.alpha_most
        adj, obj, var, cond, phi = args
        value = env[obj.name] if obj.name in env else self.sig.resolve(obj.name)
        mine = deg(adj, phi, {**env, var.name: value})
        outer = {k: x for k, x in env.items() if k != var.name}
        others = [deg(adj, phi, e) for e in self.base.bindings(cond, minds.truth, outer)]
        return mine >= (max(others) if others else 0.0) if name == "most" else mine <= (min(others) if others else 1.0)

    def content(self, agent: str, x: Term, minds: Minds, env: dict, theta: float) -> bool:
        if x.name == "formula":
            return self.pr(agent, x.args[0], minds, env) >= theta
        return self.modal(x, agent, minds, env)

    def truth(self, t: Term, minds: Minds, env: dict | None = None) -> bool:
        env = env or {}
        th, name, args, s = self.th, t.name, t.args, minds.truth
        if not any(isinstance(n, Call) and n.name in EPISTEMIC_OPS for n in _calls(t)):
            return self.base.holds(t, s, env)
        if name in ("believes", "certain", "hopes"):
            agent = self.agent(args[0], env)
            return all(self.content(agent, x, minds, env, getattr(th, name)) for x in args[1:])
        if name in ("knows_that", "not_knows_that", "knows_if", "not_knows_if"):
            agent, phi = self.agent(args[0], env), args[1].args[0]
            p, pn, here = self.pr(agent, phi, minds, env), self.pr(agent, f("not", phi), minds, env), \
                self.truth(phi, minds, env)
            knows_if = (p >= th.believes and here) or (pn >= th.believes and not here)
            return {"knows_that": p >= th.believes and here, "not_knows_that": p < th.believes and here,
                    "knows_if": knows_if, "not_knows_if": not knows_if}[name]
        if name in ("knows_about", "not_knows_about", "certain_about", "uncertain_about"):
            agent, cond, phi = self.agent(args[0], env), args[1], args[2]
            envs = self.base.bindings(cond, s, env)
            pr = lambda e: self.pr(agent, phi, minds, e)  # noqa: E731
            if name == "knows_about":
                return any(pr(e) >= th.believes and self.truth(phi, minds, e) for e in envs)
            if name == "not_knows_about":
                return all(not (pr(e) >= th.believes and self.truth(phi, minds, e)) for e in envs)
            if name == "certain_about":
                return any(pr(e) >= th.certain for e in envs)
            return all(pr(e) < th.uncertain for e in envs)
        if name == "uncertain_if":
            agent = self.agent(args[0], env)
            if len(args) == 4:
                return any(self.pr(agent, args[2], minds, e) < th.uncertain
                           and self.pr(agent, args[3], minds, e) < th.uncertain
                           for e in self.base.bindings(args[1], s, env))
            phi = args[1].args[0]
            psi = args[2].args[0] if len(args) == 3 else f("not", phi)
            return self.pr(agent, phi, minds, env) < th.uncertain and self.pr(agent, psi, minds, env) < th.uncertain
        if name == "not":
            return not self.truth(args[0], minds, env)
        if name == "and":
            return all(self.truth(a, minds, env) for a in args)
        if name == "or":
            return any(self.truth(a, minds, env) for a in args)
        if name == "imply":
            return not self.truth(args[0], minds, env) or self.truth(args[1], minds, env)
        if name in ("exists", "forall"):
            results = [self.truth(args[1], minds, e) for e in self.base.bindings(args[0], s, env)]
            return any(results) if name == "exists" else all(results)
        raise AssertionError(name)


def _calls(t: Term) -> list[Call]:
    out, stack = [], [t]
    while stack:
        node = stack.pop()
        if isinstance(node, Call):
            out.append(node)
            stack.extend(node.args)
    return out


REF = NestedReference()


def _evaluate(phi: Term, minds: Minds) -> bool:
    return evaluate(phi, minds.truth, minds.beliefs, signature=SIG2, belief_tables=minds.tables)


# == the properties ===========================================================================

@settings(max_examples=examples(150), deadline=None)
@given(minds(depth=2), worlds_of_minds())
def test_nested_meaning_is_the_definition(phi, minds_):
    """⟦φ⟧ through lowering and the vectorized program = the definitions, nesting included."""
    assert _evaluate(phi, minds_) == REF.truth(phi, minds_)


@settings(max_examples=examples(100), deadline=None)
@given(minds(depth=2), worlds_of_minds())
def test_lowering_nested_formulas_preserves_their_meaning(phi, minds_):
    """⟦φ⟧ = ⟦lower(φ)⟧: the lowered form (nested probability comparisons) evaluated alone."""
    assert _evaluate(lower(phi, SIG2), minds_) == REF.truth(phi, minds_)


@settings(max_examples=examples(150), deadline=None)
@given(minds(depth=2))
def test_nested_formulas_typecheck_print_and_lower_to_terms_that_typecheck(phi):
    assert parse(pretty(phi)) == phi
    assert check(phi, SIG2).type == EPISTEMIC
    lowered = lower(phi, SIG2)
    assert is_lowered(lowered)
    assert check(lowered, SIG2).type == EPISTEMIC
    assert parse(pretty(lowered)) == lowered


@settings(max_examples=examples(60), deadline=None)
@given(minds(depth=1), worlds_of_minds(), st.data())
def test_vectorized_nested_rows_agree_with_evaluate_row_by_row(phi, minds_, data):
    """One call over many rows (each its true situation and both agents' beliefs, the tables
    shared) = evaluate on each row = the definitions. An agent given no belief per row (robot,
    sometimes) believes its table's row at each row's true situation."""
    situations = list(minds_.situations)
    n = data.draw(st.integers(1, 5))
    rows = [Minds(minds_.situations, data.draw(st.sampled_from(situations)),
                  {a: data.draw(distributions(situations)) for a in ("human", "robot")}, minds_.tables)
            for _ in range(n)]
    given_agents = ("human", "robot") if data.draw(st.booleans()) else ("human",)
    if given_agents == ("human",):
        rows = [Minds(r.situations, r.truth, {**r.beliefs, "robot": r.tables["robot"][r.truth]}, r.tables) for r in rows]
    position = {s: i for i, s in enumerate(situations)}

    def array(beliefs_of) -> np.ndarray:
        out = np.zeros((len(beliefs_of), len(situations)))
        for i, b in enumerate(beliefs_of):
            for s, w in b.support:
                out[i, position[s]] += w
        return out

    tables = {a: array([t[s] for s in situations]) for a, t in minds_.tables.items()}
    got = compile_formula(phi, SIG2).truth(
        situations, {a: array([r.beliefs[a] for r in rows]) for a in given_agents},
        np.array([position[r.truth] for r in rows]), belief_tables=tables)
    assert got.tolist() == [_evaluate(phi, r) for r in rows] == [REF.truth(phi, r) for r in rows]


@settings(max_examples=examples(100), deadline=None)
@given(epistemic_formulas(depth=1), st.lists(beliefs(), min_size=1, max_size=4), st.data())
def test_one_agent_at_depth_one_gives_todays_bits_whatever_the_tables(phi, belief_list, data):
    """Today's formulas (one agent, no nesting) never read a table: tables of NaN, or none,
    give the same truth values, and every prob_of in them the same bits."""
    from test_properties import SIG

    worlds = list(dict.fromkeys([s for b in belief_list for s in b.states()] + data.draw(st.lists(states, max_size=2))))
    rows = np.zeros((len(belief_list), len(worlds)))
    for i, b in enumerate(belief_list):
        for s, w in b.support:
            rows[i, worlds.index(s)] += w
    index = np.array([data.draw(st.integers(0, len(worlds) - 1)) for _ in belief_list])
    nan = {"human": np.full((len(worlds), len(worlds)), np.nan)}
    compiled = compile_formula(phi, SIG)
    assert compiled.truth(worlds, rows, index).tolist() == compiled.truth(worlds, rows, index, belief_tables=nan).tolist()
    for node in _calls(compiled.lowered):
        if node.name == "prob_of" and not _has_variables(node):
            try:
                value = compile_formula(node, SIG)
            except ElotTypeError:   # a bound variable whose type only the whole formula says
                continue
            assert value.value(worlds, rows, index).tobytes() == \
                value.value(worlds, rows, index, belief_tables=nan).tobytes()


def _has_variables(t: Term) -> bool:
    from elot.lang.syntax import free_variables

    return bool(free_variables(t))
