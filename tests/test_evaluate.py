"""Evaluation (SPEC §4): states, beliefs, thresholds, the vectorized program, equivalence."""

from __future__ import annotations


import numpy as np
import pytest

from elot.lang.equivalence import EPSILON, equivalent, random_beliefs, states_for
from elot.errors import ElotError, ElotTypeError, EvaluationError
from elot.lang.semantics import compile_formula, evaluate
from elot.lang.states import Belief, State
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature

S1 = State.parse("inside(key1, box1), iscolor(key1, blue), hidden(key1), closed(box1), closed(box2)")
S2 = State.parse("inside(key1, box2), iscolor(key1, blue), hidden(key1), closed(box1), closed(box2)")
S3 = State.parse("inside(key1, box2), iscolor(key1, red), inside(key2, box1), iscolor(key2, blue)")
EMPTY = State.parse("closed(box1), closed(box2)")
BLUE_IN = "exists(and(key(K), iscolor(K, blue)), inside(K, {}))"


def b(*pairs) -> Belief:
    return Belief.of(pairs)


def test_state_and_belief_values():
    assert ("inside", "key1", "box1") in S1 and str(EMPTY) == "closed(box1), closed(box2)"
    assert State.of([("closed", "box1"), ["closed", "box2"]]) == EMPTY
    belief = Belief.parse("1/2: inside(key1, box1) | 0.25: inside(key1, box2)\n0.25:  # comment")
    assert [w for _, w in belief.support] == [0.5, 0.25, 0.25]
    assert belief.states()[2] == State.of([])
    with pytest.raises(EvaluationError, match="sum to 0.9"):
        Belief.parse("0.5: closed(box1) | 0.4: closed(box2)")
    with pytest.raises(EvaluationError, match="no weight"):
        Belief.parse("closed(box1)")
    with pytest.raises(EvaluationError, match="ground atoms"):
        State.parse("inside(K, box1)")


def test_thresholds():
    th = Thresholds()
    assert (th.believes, th.certain, th.uncertain, th.likely, th.unlikely, th.could, th.can, th.might,
            th.may, th.should, th.must, th.hopes, th.alpha_most) == (
        0.75, 0.95, 0.70, 0.70, 0.40, 0.20, 0.30, 0.20, 0.30, 0.80, 0.95, 0.25, 1.5)
    assert th.most("likely") == 1.0 and th.most("unlikely") == pytest.approx(0.4 / 1.5)
    assert th.replace(likely=0.5).most("likely") == 0.75
    assert th.replace(might=0.25).might == 0.25 and th.might == 0.20
    assert Thresholds.parse("might=0.25, believes=0.8") == th.replace(might=0.25, believes=0.8)
    with pytest.raises(EvaluationError, match="did you mean 'might'"):
        th.replace(migth=0.3)
    with pytest.raises(EvaluationError, match="between 0 and 1"):
        th.replace(might=2.0)


def test_base_formulas():
    assert evaluate("inside(key1, box1)", S1)
    assert evaluate("empty(box2)", S1) and not evaluate("empty(box1)", S1)
    assert evaluate(BLUE_IN.format("box1"), S1) and not evaluate(BLUE_IN.format("box2"), S3)
    assert evaluate("key(key1)", S1) and evaluate("item(key1)", S1) and not evaluate("box(key1)", S1)
    assert evaluate("forall(and(key(K), inside(K, box2)), iscolor(K, red))", S3)
    assert evaluate("==(box1, box1)", S1) and not evaluate("==(box1, box2)", S1)


def test_empty_domains():
    # No key is inside box3: exists is false, forall is true.
    assert not evaluate("exists(and(key(K), inside(K, box3)), hidden(K))", S1)
    assert evaluate("forall(and(key(K), inside(K, box3)), hidden(K))", S1)


def test_forall_deviation_conditions_restrict_instead_of_adding_conjuncts():
    # (deviation) forall(C, φ) is "every binding satisfying C satisfies φ"; the reference
    # would AND the non-type conjunct inside(K, box1) into the body, making this false.
    assert evaluate("forall(and(key(K), inside(K, box1)), hidden(K))", S1)
    assert evaluate("forall(and(key(K), iscolor(K, red)), inside(K, box9))",
                    S1, signature=Signature.from_objects({**dict(Signature.default().objects), "box9": "box"}))


# -- conditions bind only what is not bound outside (SPEC §2) ------------------------------

#: A red key in box1, nothing in box2.
ONE_KEY = State(frozenset({("inside", "key1", "box1"), ("iscolor", "key1", "red"), ("closed", "box1"),
                           ("closed", "box2"), ("hidden", "key1")}))
RED_IN = "exists(and(key(K), inside(K, {})), iscolor(K, red))"


def test_an_inner_condition_tests_the_outer_variable():
    # The inner exists binds only K; its inside(K, B) tests the outer B. box2 holds no key.
    assert evaluate("forall(box(B), exists(and(key(K), inside(K, B)), iscolor(K, red)))", ONE_KEY) is False
    # The dual: some box other than box1 holds a red key (none does).
    assert evaluate("exists(and(box(B), not(==(B, box1))), exists(and(key(K), inside(K, B)), iscolor(K, red)))",
                    ONE_KEY) is False
    assert evaluate("exists(box(B), not(exists(and(key(K), inside(K, B)), iscolor(K, red))))", ONE_KEY) is True
    assert evaluate("exists(box(B), exists(and(key(K), inside(K, B)), iscolor(K, red)))", ONE_KEY) is True
    # Also inside prob_of, as a base formula the belief is asked about.
    belief = Belief.point(ONE_KEY)
    assert evaluate("forall(box(B), >=(prob_of(player, exists(and(key(K), inside(K, B)), hidden(K))), 0.5))",
                    ONE_KEY, belief) is False


def test_knowing_the_colour_of_the_keys_in_all_of_the_boxes():
    # "The player knows the colour of the keys in all of the boxes." The player knows
    # box1's key is red but not whether box2's is red or blue (it is blue), so this is
    # false; were the inner condition to rebind B it would read "knows the colour of some
    # key in some box", which is true.
    truth = State.parse("inside(key1, box1), iscolor(key1, red), inside(key2, box2), iscolor(key2, blue)")
    other = State.parse("inside(key1, box1), iscolor(key1, red), inside(key2, box2), iscolor(key2, red)")
    belief = b((truth, 0.5), (other, 0.5))
    claim = "forall(box(B), knows_about(player, color(C), exists(and(key(K), inside(K, B)), iscolor(K, C))))"
    restricted = claim.replace("box(B)", "and(box(B), not(empty(B)))", 1)
    assert evaluate(restricted, truth, belief) is False
    assert evaluate(restricted, truth, Belief.point(truth)) is True
    assert evaluate("knows_about(player, color(C), exists(and(key(K), inside(K, box1)), iscolor(K, C)))",
                    truth, belief) is True
    assert evaluate(claim, truth, Belief.point(truth)) is False  # box3 holds no key at all


#: Worlds for the uncertainty examples: a red key in box1 / in box2; a blue key in box1; none.
RED1 = State.parse("inside(key1, box1), iscolor(key1, red)")
RED2 = State.parse("inside(key1, box2), iscolor(key1, red)")
BLUE1 = State.parse("inside(key1, box1), iscolor(key1, blue)")
NONE = State.parse("closed(box1)")
UNCERTAIN_WORLDS = [RED1, RED2, BLUE1, NONE]
UNCERTAIN_ROWS = np.array([
    [0.5, 0.5, 0.0, 0.0],   # each box 0.5 (< 0.7): uncertain about every box
    [1.0, 0.0, 0.0, 0.0],   # sure about box1
    [0.5, 0.0, 0.5, 0.0],   # box1 0.5
    [0.4, 0.4, 0.0, 0.2],   # 0.4 each, though "some box holds a red key" is 0.8
    [0.0, 0.8, 0.2, 0.0],   # box2 0.8
    [0.2, 0.2, 0.6, 0.0],   # red: 0.2 each; any key: box1 0.8
])


@pytest.mark.parametrize("formula, want", [
    # uncertain, for every box, whether it holds a red key
    (f"uncertain_about(player, box(B), {RED_IN.format('B')})", [True, False, True, True, False, True]),
    # its lowered form, where prob_of's formula depends on the outer B
    (f"forall(box(B), <(prob_of(player, {RED_IN.format('B')}), threshold(uncertain)))",
     [True, False, True, True, False, True]),
    # uncertain, for every box, whether it holds a key (no condition mentions B)
    ("uncertain_about(player, box(B), exists(key(K), inside(K, B)))", [True, False, False, True, False, False]),
])
def test_uncertain_about_depends_on_the_outer_variable(formula, want):
    # evaluate, row by row
    for row, expected in zip(UNCERTAIN_ROWS, want):
        belief = Belief(tuple((w, float(x)) for w, x in zip(UNCERTAIN_WORLDS, row) if x > 0))
        assert evaluate(formula, NONE, belief) is expected
    # and the vectorized program on all rows at once, with various true worlds
    index = np.array([3, 0, 1, 2, 3, 0])
    assert compile_formula(formula).truth(UNCERTAIN_WORLDS, UNCERTAIN_ROWS, index).tolist() == want


def test_most_likely_box_to_hold_a_red_key():
    claim = f"believes(player, most(likely, box2, B, box(B), {RED_IN.format('B')}))"
    assert evaluate(claim, RED2, b((RED2, 0.6), (RED1, 0.4))) is True
    assert evaluate(claim, RED2, b((RED2, 0.3), (RED1, 0.7))) is False
    assert evaluate(claim.replace("most", "least"), RED2, b((RED2, 0.3), (RED1, 0.7))) is False  # box3: 0
    worlds = [RED1, RED2, NONE]
    rows = np.array([[0.4, 0.6, 0.0], [0.7, 0.3, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    assert compile_formula(claim).truth(worlds, rows, np.array([0, 1, 2, 0])).tolist() == [True, False, True, False]


def test_the_explicit_variable_of_most_shadows_an_outer_one():
    claim = "forall(key(B), believes(player, most(likely, box2, B, box(B), empty(B))))"
    # box2 is (one of) the most likely boxes to be empty iff nothing is believed in it.
    assert evaluate(claim, RED1, Belief.point(RED1)) is True
    assert evaluate(claim, RED1, Belief.point(RED2)) is False
    assert evaluate(claim, RED1, b((RED1, 0.5), (RED2, 0.5))) is False  # box3: 1


def test_player_is_an_alias_of_the_scenario_agent():
    sig = Signature.from_objects({"human": "agent", "key1": "key", "box1": "box"})
    state = State.parse("has(human, key1)")
    assert evaluate("has(player, key1)", state, signature=sig)
    assert evaluate("has(human, key1)", State.parse("has(player, key1)"), signature=sig)
    assert evaluate("believes(human, formula(has(player, key1)))", state, Belief.point(state), signature=sig)


def test_epistemic_formulas_hand_computed():
    belief = b((S1, 0.5), (S2, 0.25), (EMPTY, 0.25))
    p1 = f"prob_of(player, {BLUE_IN.format('box1')})"
    assert evaluate(p1, S1, belief) == 0.5
    assert not evaluate(f"believes(player, formula({BLUE_IN.format('box1')}))", S1, belief)
    assert evaluate(f"believes(player, might({BLUE_IN.format('box1')}))", S1, belief)
    assert evaluate(f"believes(player, more(likely, {BLUE_IN.format('box1')}, {BLUE_IN.format('box2')}))", S1, belief)
    assert evaluate("believes(player, most(likely, box1, B, box(B), exists(key(K), inside(K, B))))", S1, belief)
    assert not evaluate("believes(player, least(likely, box2, B, box(B), exists(key(K), inside(K, B))))", S1, belief)
    assert evaluate("uncertain_about(player, box(B), exists(key(K), inside(K, B)))", S1, belief)
    assert evaluate("knows_that(player, formula(empty(box3)))", S1, belief)
    assert not evaluate("knows_if(player, formula(empty(box1)))", S1, belief)
    assert evaluate("not_knows_if(player, formula(empty(box1)))", S1, belief)
    assert evaluate("uncertain_if(player, formula(empty(box1)))", S1, belief)  # 0.5 and 0.5 < 0.7
    assert evaluate("maximum(box(B), prob_of(player, exists(key(K), inside(K, B))))", S1, belief) == 0.5


def test_maximum_and_minimum_of_nothing():
    belief = Belief.point(S1)
    assert evaluate("maximum(and(box(B), inside(key3, B)), prob_of(player, empty(B)))", S1, belief) == 0.0
    assert evaluate("minimum(and(box(B), inside(key3, B)), prob_of(player, empty(B)))", S1, belief) == 1.0


def test_epsilon_weights_count_exactly():
    # A state kept alive only by ε still makes one formula strictly more likely.
    belief = b((S1, 1.0), (S2, EPSILON))
    more = f"believes(player, more(likely, {BLUE_IN.format('box2')}, {BLUE_IN.format('box3')}))"
    assert evaluate(more, S1, belief)
    assert evaluate(f"prob_of(player, {BLUE_IN.format('box2')})", S1, belief) == EPSILON
    assert not evaluate(f"believes(player, might({BLUE_IN.format('box2')}))", S1, belief)


def test_threshold_overrides():
    belief = b((S1, 0.25), (S2, 0.75))
    claim = f"believes(player, might({BLUE_IN.format('box1')}))"
    assert evaluate(claim, S1, belief)
    assert not evaluate(claim, S1, belief, thresholds=Thresholds().replace(might=0.3))


def test_evaluation_errors():
    with pytest.raises(EvaluationError, match="no belief was given"):
        evaluate("believes(player, formula(empty(box1)))", S1)
    with pytest.raises(EvaluationError, match="only formulas and numbers"):
        evaluate("might(empty(box1))", S1)
    with pytest.raises(ElotTypeError):
        evaluate("believes(player, formula(inside(K, box1)))", S1, Belief.point(S1))
    assert evaluate("believes(player, formula(inside(K, box1)))", S1, Belief.point(S1), bind_free=True)
    with pytest.raises(EvaluationError, match="only the observed agent"):
        evaluate(">=(prob_of(human, empty(box1)), 0.5)", S1, Belief.point(S1),
                 signature=Signature.from_objects({"human": "agent", "robot": "agent", "box1": "box"}, agent="robot"))


# -- the vectorized program ---------------------------------------------------------------


def _scenario(n_rows: int, n_worlds: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    worlds = states_for(Signature.from_objects(
        {"box1": "box", "box2": "box", "box3": "box", "key1": "key", "key2": "key", "red": "color",
         "blue": "color", "human": "agent"}))[:n_worlds]
    beliefs = rng.dirichlet(np.ones(n_worlds), size=n_rows)
    beliefs[rng.random(beliefs.shape) < 0.3] = EPSILON
    beliefs /= beliefs.sum(axis=1, keepdims=True)
    return worlds, beliefs, rng.integers(0, n_worlds, n_rows)


FORMULAS = [
    "believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box1))))",
    "uncertain_about(player, box(B), exists(key(K), inside(K, B)))",
    "believes(player, most(likely, box2, B, box(B), exists(key(K), inside(K, B))))",
    "knows_about(player, color(C), exists(and(key(K), inside(K, box1)), iscolor(K, C)))",
    "and(believes(player, might(empty(box3))), not(empty(box3)))",
]


@pytest.mark.parametrize("formula", FORMULAS)
def test_truth_is_evaluate_row_by_row(formula):
    worlds, beliefs, index = _scenario(40, 9)
    got = compile_formula(formula).truth(worlds, beliefs, index)
    want = [evaluate(formula, worlds[i], Belief(tuple((w, float(x)) for w, x in zip(worlds, row) if x > 0)))
            for row, i in zip(beliefs, index)]
    assert got.dtype == bool and got.tolist() == want


def test_value_and_grid():
    worlds, beliefs, index = _scenario(5, 6)
    c = compile_formula("prob_of(player, exists(key(K), inside(K, box1)))")
    v = c.value(worlds, beliefs, index)
    truth = np.array([any(a[0] == "inside" and a[2] == "box1" for a in w.atoms) for w in worlds])
    assert np.array_equal(v, (beliefs * truth).sum(axis=1))
    g = compile_formula(FORMULAS[3]).truth_grid(worlds, beliefs)
    assert g.shape == (5, 6)
    for i in range(5):
        assert g[i].tolist() == compile_formula(FORMULAS[3]).truth(worlds, np.repeat(beliefs[i:i + 1], 6, 0),
                                                                    np.arange(6)).tolist()


def test_bad_shapes_are_errors():
    worlds, beliefs, index = _scenario(5, 6)
    with pytest.raises(EvaluationError, match="array over the 6 worlds"):
        compile_formula(FORMULAS[0]).truth(worlds, beliefs[:, :5], index)
    with pytest.raises(EvaluationError, match="outside the list of worlds"):
        compile_formula(FORMULAS[0]).truth(worlds, beliefs, index + 10)


def test_compiled_formulas_are_cached():
    assert compile_formula(FORMULAS[0]) is compile_formula(FORMULAS[0])
    assert compile_formula(FORMULAS[0]) is not compile_formula(FORMULAS[0], thresholds=Thresholds().replace(might=0.3))


# -- equivalence --------------------------------------------------------------------------


def test_states_for_places_up_to_two_keys():
    sig = Signature.from_objects({"box1": "box", "box2": "box", "box3": "box", "key1": "key", "key2": "key",
                                  "key3": "key", "red": "color", "blue": "color", "human": "agent"})
    states = states_for(sig)
    # k=0: 1; k=1: 3 keys × 3 boxes × 2 colours; k=2: 3 pairs × 6 placements × 4 colourings.
    assert len(states) == 1 + 18 + 72 == len(set(states))
    for s in states:
        inside = [a for a in s.atoms if a[0] == "inside"]
        assert len({a[2] for a in inside}) == len(inside) <= 2
        for _, key, _ in inside:
            assert ("hidden", key) in s and sum(a[0] == "iscolor" and a[1] == key for a in s.atoms) == 1
            assert ("offgrid", key) not in s
        assert all(("closed", box) in s for box in ("box1", "box2", "box3"))
    assert len(states_for()) == 3301


def test_random_beliefs():
    states = states_for(Signature.from_objects({"box1": "box", "key1": "key", "red": "color"}))
    beliefs = random_beliefs(states, 40, np.random.default_rng(1))
    assert beliefs.shape == (40, len(states)) and np.allclose(beliefs.sum(axis=1), 1)
    assert (beliefs == EPSILON).any() and (beliefs == 1.0).any()


def test_equivalent():
    ok, none = equivalent("knows_that(player, formula(empty(box1)))",
                          "and(believes(player, formula(empty(box1))), empty(box1))")
    assert ok and none is None
    ok, cex = equivalent("knows_that(player, formula(empty(box1)))", "believes(player, formula(empty(box1)))")
    assert not ok and cex.f_value is False and cex.g_value is True
    # The counterexample really is one.
    assert evaluate("knows_that(player, formula(empty(box1)))", cex.state, cex.belief) is False
    assert "state:" in str(cex)
    assert equivalent("believes(player, more(likely, empty(box1), empty(box2)))",
                      "believes(player, less(unlikely, empty(box1), empty(box2)))")[0]
    assert equivalent("not_knows_about(player, box(B), empty(B))",
                      "forall(box(B), or(<(prob_of(player, empty(B)), threshold(believes)), not(empty(B))))")[0]
    assert not equivalent("believes(player, might(empty(box1)))", "believes(player, may(empty(box1)))")[0]


def test_hand_built_deep_trees_are_rejected_before_hashing():
    from elot.errors import ElotSyntaxError
    from elot.lang.syntax import Const, call

    t = call("empty", Const(name="box1"))
    for _ in range(10_000):
        t = call("not", t)
    with pytest.raises(ElotSyntaxError, match="nesting too deep"):
        evaluate(t, S1)


def test_truth_and_value_refuse_the_wrong_kind_of_term():
    formula = compile_formula("believes(player, formula(empty(box1)))")
    number = compile_formula("prob_of(player, empty(box1))")
    worlds = [EMPTY, S1]  # box1 empty; a blue key in box1
    beliefs = np.array([[0.9, 0.1], [0.1, 0.9]])
    assert formula.truth(worlds, beliefs, [0, 1]).tolist() == [True, False]
    assert number.value(worlds, beliefs, [0, 0]).tolist() == pytest.approx([0.9, 0.1])
    with pytest.raises(EvaluationError, match="use truth"):
        formula.value(worlds, beliefs, [0, 1])
    with pytest.raises(EvaluationError, match="use value"):
        number.truth(worlds, beliefs, [0, 1])


# -- bad input and budgets: quantifiers search with pruning under a work budget; the API
#    rejects what is not a term, a state or a belief with an ElotError ---------------------

STATE = State.parse("inside(key1, box1), iscolor(key1, red), hidden(key1), closed(box1)")
BELIEF = Belief.of([(STATE, 1.0)])
BOXES = [f"B{i}" for i in range(11)]

#: A work budget far below what enumeration needs (11 boxes: 11^11 bindings) and far above
#: what the pruned search spends (tens of binding checks): a fallback to enumerating fails.
SEARCH_BUDGET = 1_000


@pytest.fixture
def small_budget(monkeypatch):
    from elot.lang import semantics

    monkeypatch.setattr(semantics, "MAX_WORK", SEARCH_BUDGET)


def boxes(cond_vars):
    return f"and({', '.join(f'box({v})' for v in cond_vars)})"


@pytest.mark.parametrize("body, expected", [
    (f"and({', '.join(f'empty({v})' for v in BOXES)})", True),
    (f"and({', '.join(f'closed({v})' for v in BOXES)})", True),
    (f"or({', '.join(f'closed({v})' for v in BOXES)})", True),
])
def test_many_bound_variables_are_searched_not_enumerated(body, expected, small_budget):
    assert evaluate(f"exists({boxes(BOXES)}, {body})", STATE) is expected
    assert evaluate(f"believes(player, formula(exists({boxes(BOXES)}, {body})))", STATE, BELIEF) is expected


def test_nested_quantifiers_are_searched_within_a_small_budget(small_budget):
    text = "empty(box1)"
    for i in range(8):
        text = f"exists(item(X{i}), not({text}))"
    assert evaluate(text, STATE) is False


@pytest.mark.parametrize("wrap", ["{}", "believes(player, formula({}))"])
def test_work_budget_names_the_quantifier(wrap, small_budget):
    # one conjunct mentions every variable: nothing prunes, the budget stops it
    hard = f"exists({boxes(BOXES[:10])}, and(not(empty(B0)), not(or({', '.join(f'==({v}, {v})' for v in BOXES[:10])}))))"
    text = wrap.format(hard)
    with pytest.raises(EvaluationError) as info:
        evaluate(text, STATE, BELIEF)
    error = info.value
    assert "too much work" in error.message and "exists" in error.message
    assert error.span is not None and text[error.span.start:].startswith("exists(and(box(B0)")
    assert "^" in error.render() and error.hint


def _bad_terms():
    from elot.lang.syntax import Call, Const, Num, Var

    return [None, 3, b"empty(box1)", 1.5, ["empty(box1)"], Call(name="and", args=None),
            Call(name="and", args=("x",)), Call(name=None, args=()), Call(name="empty", args=[Const(name="box1")]),
            Var(name=None), Num(value="x"), Const(name=3), Call(name="empty", args=(None,))]


@pytest.mark.parametrize("stage", ["parse", "check", "lower", "pretty", "evaluate", "compile_formula", "equivalent"])
def test_api_rejects_what_is_not_a_term_with_an_elot_error(stage):
    from elot import api

    fn = getattr(api, stage)
    for bad in _bad_terms():
        args = {"evaluate": (bad, STATE), "equivalent": (bad, "empty(box1)")}.get(stage, (bad,))
        with pytest.raises(ElotError):
            fn(*args)


@pytest.mark.parametrize("bad", [None, "inside(key1, box1)", 3])
def test_evaluate_rejects_a_state_or_belief_of_the_wrong_type(bad):
    with pytest.raises(EvaluationError, match="must be a"):
        evaluate("empty(box1)", bad) if not isinstance(bad, type(None)) else evaluate("empty(box1)", bad)
    if bad is not None:
        with pytest.raises(EvaluationError, match="must be a Belief"):
            evaluate("empty(box1)", STATE, bad)


@pytest.mark.parametrize("bad", [None, 3, b"inside(key1, box1)", ["inside(key1, box1)"]])
def test_state_and_belief_parse_reject_what_is_not_text(bad):
    with pytest.raises(ElotError, match="expected the text"):
        State.parse(bad)
    with pytest.raises(ElotError, match="expected the text"):
        Belief.parse(bad)
