"""Desires in ELoT (issue #35, past the paper): wants, likes, dislikes, prefers, likes_best,
likes_least. They typecheck as A × O → E (prefers: A × O × O → E), lower to comparisons of
``utility_of``/``prob_goal`` with thresholds, and mean the same lowered or not, here checked
against an independent reference over generated formulas, states, beliefs and desire rows;
they read as English and are read from English; scoring reads them from the hypotheses'
desire rows (Doors-Keys-Gems: each hypothesis's goal; food trucks: utilities)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elot import ElotError, ElotTypeError, equivalent, evaluate, lower, pretty
from elot.embedding import Hypotheses, declare, judge
from elot.judging import Desires, rows_for, score
from elot.statements import compile_statement
from elot.lang.analysis import prob_terms, thresholds_used
from elot.lang.checker import check
from elot.lang.english import english
from elot.lang.lowering import is_lowered
from elot.lang.parser import parse
from elot.lang.desires import DesireRow, desire_scale
from elot.lang.states import State
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature
from elot.lang.typesystem import EPISTEMIC
from elot.translate import translate
from elot.domains.rows import judged as judged_rows
from test_properties import Reference, base_formulas, beliefs, c, epistemic_formulas, f, states, v

FIXTURES = Path(__file__).parent / "fixtures"

# test_properties' signature with two more gems, the objects desires are about here.
SIG = Signature.from_objects({
    "box1": "box", "box2": "box", "box3": "box", "key1": "key", "key2": "key",
    "gem1": "gem", "gem2": "gem", "gem3": "gem", "red": "color", "blue": "color", "human": "agent",
})
GEMS = ("gem1", "gem2", "gem3")


# -- generated formulas with desires -------------------------------------------------------

@st.composite
def desire_atoms(draw, env: dict):
    """One desire operator about a gem (a constant, or a gem variable bound outside)."""
    gems = [c(g) for g in GEMS] + [v(x) for x, d in env.items() if d == "gem"]
    agent = c(draw(st.sampled_from(["player", "human"])))
    op = draw(st.sampled_from(["wants", "likes", "dislikes", "likes_best", "likes_least", "prefers"]))
    if op == "prefers":
        return f(op, agent, draw(st.sampled_from(gems)), draw(st.sampled_from(gems)))
    return f(op, agent, draw(st.sampled_from(gems)))


@st.composite
def desire_formulas(draw, env: dict | None = None, depth: int = 2):
    """Well-typed formulas mixing desires with connectives, quantifiers over gems and the
    epistemic formulas of test_properties."""
    env = env or {}
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        return draw(desire_atoms(env))
    kind = draw(st.sampled_from(["not", "and", "or", "imply", "exists", "forall", "belief"]))
    if kind == "not":
        return f("not", draw(desire_formulas(env, depth - 1)))
    if kind in ("and", "or", "imply"):
        return f(kind, draw(desire_formulas(env, depth - 1)), draw(desire_formulas(env, depth - 1)))
    if kind == "belief":
        return f("and", draw(desire_formulas(env, depth - 1)), draw(epistemic_formulas(depth=0)))
    name = f"G{len(env)}"
    return f(kind, f("gem", v(name)), draw(desire_formulas({**env, name: "gem"}, depth - 1)))


#: Utilities on the food-truck grid (-20 to 100 in steps of 20): ties and threshold values.
utilities = st.lists(st.sampled_from([-20, 0, 20, 40, 60, 80, 100]), min_size=3, max_size=3)


class DesireReference(Reference):
    """The desire operators from their definitions (docs/language.md), directly on one row
    of utilities, around test_properties' reference for the rest."""

    def __init__(self, utilities: dict[str, float]) -> None:
        super().__init__(SIG)
        lo, hi = min(utilities.values()), max(utilities.values())
        self.u = {o: 0.5 if hi == lo else (x - lo) / (hi - lo) for o, x in utilities.items()}
        best = [o for o, x in self.u.items() if x == max(self.u.values())]
        self.goal = {o: (1 / len(best) if o in best else 0.0) for o in self.u}

    def truth(self, t, s, b, env=None):
        env = env or {}
        obj = lambda a: env[a.name] if a.__class__.__name__ == "Var" else a.name  # noqa: E731
        name, args = t.name, t.args
        if name == "wants":
            return self.goal[obj(args[1])] >= self.th.wants
        if name == "likes":
            return self.u[obj(args[1])] >= self.th.likes
        if name == "dislikes":
            return self.u[obj(args[1])] <= self.th.dislikes
        if name == "prefers":
            return self.u[obj(args[1])] > self.u[obj(args[2])]
        if name == "likes_best":
            return self.u[obj(args[1])] >= max(self.u.values())
        if name == "likes_least":
            return self.u[obj(args[1])] <= min(self.u.values())
        if name in ("not", "and", "or", "imply", "exists", "forall") and _has_desire(t):
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
        return super().truth(t, s, b, env)


def _has_desire(t) -> bool:
    from elot.lang.syntax import subterms

    names = {"wants", "likes", "dislikes", "prefers", "likes_best", "likes_least"}
    return any(getattr(n, "name", None) in names for n in subterms(t))


@given(desire_formulas(), states, beliefs(), utilities)
def test_desires_mean_their_definitions_lowered_or_not(phi, state, belief, us):
    """evaluate(f) == evaluate(lower(f)) == the definitions, over generated formulas,
    states, beliefs and desire rows."""
    desires = dict(zip(GEMS, us))
    expected = DesireReference(desires).truth(phi, state, belief)
    assert evaluate(phi, state, belief, signature=SIG, desires=desires) == expected
    assert evaluate(lower(phi, SIG), state, belief, signature=SIG, desires=desires) == expected


@given(desire_formulas(depth=3))
def test_desire_formulas_typecheck_lower_and_print_back(phi):
    assert check(phi, SIG).type == EPISTEMIC
    assert parse(pretty(phi)) == phi
    lowered = lower(phi, SIG)
    assert is_lowered(lowered)
    assert check(lowered, SIG).type == EPISTEMIC
    assert parse(pretty(lowered)) == lowered


@given(st.sampled_from(["wants", "likes"]), st.floats(0, 1), st.floats(0, 1), st.sampled_from(GEMS), utilities)
def test_raising_a_desire_threshold_never_makes_a_claim_true(name, a, b, gem, us):
    low, high = sorted((a, b))
    claim = f(name, c("player"), c(gem))
    state, desires = State.of([]), dict(zip(GEMS, us))
    at_low = evaluate(claim, state, signature=SIG, desires=desires, thresholds=Thresholds().replace(**{name: low}))
    at_high = evaluate(claim, state, signature=SIG, desires=desires, thresholds=Thresholds().replace(**{name: high}))
    assert at_low or not at_high


def test_each_operator_lowers_by_its_rule():
    assert pretty(lower("wants(player, gem1)")) == ">=(prob_goal(player, gem1), threshold(wants))"
    assert pretty(lower("likes(player, gem1)")) == ">=(utility_of(player, gem1), threshold(likes))"
    assert pretty(lower("dislikes(player, gem1)")) == "<=(utility_of(player, gem1), threshold(dislikes))"
    assert pretty(lower("prefers(player, gem1, gem2)")) == ">(utility_of(player, gem1), utility_of(player, gem2))"
    assert pretty(lower("likes_best(player, gem2)")) == \
        ">=(utility_of(player, gem2), maximum(gem(X1), utility_of(player, X1)))"
    # a variable object ranges over its own type; the fresh variable avoids the bound ones
    assert pretty(lower("exists(gem(X1), likes_least(player, X1))")) == \
        "exists(gem(X1), <=(utility_of(player, X1), minimum(gem(X2), utility_of(player, X2))))"
    _, steps = lower("likes_best(player, gem2)", explain=True)
    assert [s.operator for s in steps] == ["likes_best"]


@pytest.mark.parametrize("formula, column, message, hint", [
    ("wants(player, empty(box1))", 15, "must be an object (O), but empty(box1) is a base formula",
     "write wants(player, gem1)"),
    ("likes(player, might(empty(box1)))", 15, "is a modal (E/A)", "believes(player, ...)"),
    ("prefers(player, gem1, box1)", 1, "prefers compares two things of one kind", "prefers(player, gem1, gem2)"),
    ("likes_best(gem1, gem2)", 12, "must be an agent (A)", "player"),
    ("wants(player)", 1, "wants cannot take 1 argument", "wants(A, o)"),
    ("likes(player, gemm1)", 15, "unknown object 'gemm1'", "did you mean 'gem1'?"),
    ("believes(player, formula(likes(player, gem1)))", 26, "is about what an agent wants", "outside the belief"),
    (">=(utility_of(player, formula(empty(box1))), 0.5)", 23, "must be an object (O)", "not a state of affairs"),
    ("utility_of(player, gem1)", None, None, None),
])
def test_ill_typed_desires_are_errors_with_place_and_hint(formula, column, message, hint):
    if message is None:   # a number is well typed (its own test: a statement must compare it)
        assert str(check(formula).type) == "Φ_F"
        return
    with pytest.raises(ElotTypeError) as caught:
        check(formula)
    error = caught.value.errors[0]
    assert error.span.column == column
    assert message in error.message and hint in error.hint


@given(base_formulas(depth=2), st.sampled_from(["wants", "likes", "dislikes", "likes_best", "likes_least",
                                                "prefers"]))
def test_a_formula_where_an_object_belongs_is_refused_at_its_place(phi, op):
    """Generated: every base formula in a desire's object position is a type error at that
    formula, with a hint."""
    text = pretty(f(op, c("player"), *([c("gem1")] if op == "prefers" else []), phi))
    at = text.index(pretty(phi), len(op) + 1)
    with pytest.raises(ElotTypeError) as caught:
        check(text, SIG)
    error = caught.value.errors[0]
    assert (error.span.start, error.span.end) == (at, at + len(pretty(phi)))
    assert "must be an object (O)" in error.message and error.hint


def test_equivalent_and_explain_know_the_new_primitives():
    same, _ = equivalent("likes_best(player, gem1)", "forall(gem(G), not(prefers(player, G, gem1)))")
    assert same
    same, _ = equivalent("prefers(player, gem1, gem2)", "believes(player, less(likely, empty(box1), empty(box1)))")
    assert not same
    differ, example = equivalent("prefers(player, gem1, gem2)", "not(prefers(player, gem2, gem1))")
    assert not differ and example.desires is not None   # ties: neither is preferred
    u = dict(example.desires)
    assert u["gem1"] == u["gem2"] and "desires:" in str(example)
    assert equivalent("likes(player, gem3)", lower("likes(player, gem3)"))[0]
    lowered = lower("and(likes_best(player, gem1), wants(player, gem2))", SIG)
    assert [pretty(t) for t in prob_terms(lowered, SIG)] == [
        "utility_of(player, gem1)", "utility_of(player, gem2)", "utility_of(player, gem3)", "prob_goal(player, gem2)"]
    assert thresholds_used(lowered, Thresholds()) == [("wants", 0.5)]


def test_the_desire_scale_and_goal_probability():
    assert desire_scale(np.array([[-20.0, 40.0, 100.0]])).tolist() == [[0.0, 0.5, 1.0]]
    assert desire_scale(np.array([[3.0, 3.0]])).tolist() == [[0.5, 0.5]]   # indifferent
    assert DesireRow.parse("gem1=1, gem2=0").utilities.tolist() == [[1.0, 0.0]]
    state = State.of([])
    tie = {"gem1": 100, "gem2": 100, "gem3": -20}
    assert evaluate("prob_goal(player, gem1)", state, signature=SIG, desires=tie) == 0.5
    assert evaluate("wants(player, gem1)", state, signature=SIG, desires=tie)   # θ_wants = 0.5
    assert not evaluate("wants(player, gem1)", state, signature=SIG, desires={**tie, "gem3": 100})
    # a gem the desires leave out is not wanted; a type they never mention is an error
    assert not evaluate("likes_best(player, gem3)", state, signature=SIG, desires={"gem1": 1, "gem2": 0})
    with pytest.raises(ElotError, match="say nothing about box1") as caught:
        evaluate("likes(player, box1)", state, signature=SIG, desires={"gem1": 1})
    assert "gem1" in caught.value.hint
    with pytest.raises(ElotError, match="no desires were given"):
        evaluate("wants(player, gem1)", state, signature=SIG)
    with pytest.raises(ElotError, match="not object=utility"):
        DesireRow.parse("gem1=much")


def test_english_for_desires():
    assert english("wants(player, gem1)") == "The player wants gem 1."
    assert english("likes_best(player, gem2)", "initial") == "The player initially liked gem 2 best."
    assert translate("The player wants gem 1.", translator="offline").formula == "wants(player, gem1)"
    assert translate("The player likes gem 2 best.", translator="offline").formula == "likes_best(player, gem2)"
    # "wants" followed by more than an object is still a hope
    assert translate("The player wants box 1 to be empty.", translator="offline").formula == \
        "hopes(player, formula(empty(box1)))"


def test_desire_operators_are_in_the_decoding_grammar():
    from elot.translate.grammar import decoding_grammar, vocabulary

    names = vocabulary(SIG)
    assert {"wants", "likes", "dislikes", "prefers", "likes_best", "likes_least"} <= set(names)
    assert {"utility_of", "prob_goal"} <= set(vocabulary(SIG, lowered=True))
    assert '"likes_best"' in decoding_grammar(SIG)


# -- the data: Desires, and scoring ------------------------------------------------------

def test_desires_are_checked():
    with pytest.raises(ElotError, match=r"\(N, 2\) array"):
        Desires(("gem1", "gem2"), np.zeros((3, 3)))
    with pytest.raises(ElotError, match="not a finite number"):
        Desires(("gem1",), np.array([[np.nan]]))
    with pytest.raises(ElotError, match="twice"):
        Desires(("gem1", "gem1"), np.zeros((1, 2)))
    goals = Desires.goals(("gem1", "gem2"), np.array([1, 0, 1]))
    assert goals.utilities.tolist() == [[0, 1], [1, 0], [0, 1]]


def test_a_statement_about_desires_needs_hypotheses_with_desires():
    sig = declare(objects={"agent": ["sally"], "thing": ["apple", "pear"]}, predicates={"ripe": ("thing",)})
    plain = Hypotheses.from_arrays(sig, ["ripe(apple)", "ripe(pear)"], np.eye(2), np.array([0.5, 0.5]))
    with pytest.raises(ElotError, match="say nothing about its desires") as caught:
        judge("likes(player, apple)", plain)
    assert "Desires" in caught.value.hint
    assert judge("believes(player, formula(ripe(apple)))", plain).P == 0.5   # beliefs still score
    with pytest.raises(ElotError, match="not an object of the signature"):
        Hypotheses.from_arrays(sig, ["ripe(apple)"], np.eye(1), np.array([1.0]),
                               desires=Desires(("banana",), np.zeros((1, 1))))
    with pytest.raises(ElotError, match="2 rows but there are 1"):
        Hypotheses.from_arrays(sig, ["ripe(apple)"], np.eye(1), np.array([1.0]),
                               desires=Desires(("apple",), np.zeros((2, 1))))


def test_btom_hypotheses_carry_each_goal_as_a_desire():
    """Doors-Keys-Gems: P(wants gem g) is the goal posterior of g, and belief statements
    are judged on the same (goal-marginal) rows as before."""
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.examples import load_example

    inference = infer(load_example("default"))
    for t in (0, 6, inference.steps):
        rows = judged_rows(inference, t)
        goals = inference.goal_posterior(t)
        for gem, p in goals.items():
            wants = compile_statement(f"wants(player, {gem})", rows.signature)
            assert score(wants, rows).P == pytest.approx(p, abs=1e-12)
            best = compile_statement(f"likes_best(player, {gem})", rows.signature)
            assert score(best, rows).P == pytest.approx(p, abs=1e-12)
        belief = compile_statement("believes(player, formula(empty(box1)))", rows.signature)
        assert rows_for(belief, rows) is rows
        full = rows_for(wants, rows)
        assert len(full) == inference.size and full.desires is not None
        assert score(wants, rows).pi == pytest.approx(1 / len(goals))   # one goal in the prior's n


def test_elot_run_scores_a_desire_statement_on_the_built_in_example(capsys):
    import json

    from elot.cli import main

    assert main(["run", "--statement", "wants(player, gem2)", "--statement", "prefers(player, gem1, gem2)",
                 "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    for judgment in report["judgments"]:
        wants, prefers = judgment["statements"]
        assert wants["posterior"] == pytest.approx(judgment["goal_posterior"]["gem2"], abs=1e-12)
        assert prefers["posterior"] == pytest.approx(judgment["goal_posterior"]["gem1"], abs=1e-12)


# -- food trucks -----------------------------------------------------------------------------

def foodtruck_signature() -> Signature:
    """The food-truck ELoT signature (names shared with the engine): the student, three
    trucks, two parking spots, with the front's English for them."""
    from elot.domains.foodtrucks.front import WORDS

    sig = declare(objects={"agent": ["student"], "truck": ["korean", "lebanese", "mexican"],
                           "spot": ["spot1", "spot2"]},
                  predicates={"at": ("truck", "spot"), "empty": ("spot",)})
    return sig.with_words(WORDS)


def foodtruck_sentences() -> list[tuple[str, str, str]]:
    lines = [x for x in (FIXTURES / "foodtruck_sentences.tsv").read_text().splitlines() if not x.startswith("#")]
    return [(r["sentence"], r["formula"], r["mode"]) for r in csv.DictReader(lines, delimiter="\t")]


FT = foodtruck_signature()
#: The worlds: the Korean truck in view of the start; behind the building the Lebanese
#: truck, the Mexican truck, or nothing.
WORLDS = ["at(korean, spot1), at(lebanese, spot2)", "at(korean, spot1), at(mexican, spot2)",
          "at(korean, spot1), empty(spot2)"]
#: The student's belief (over WORLDS) in each kind of hypothesis.
BELIEFS = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [1 / 3, 1 / 3, 1 / 3]])
#: Utilities (korean, lebanese, mexican) on the food-truck grid.
UTILITIES = np.array([[20, -20, 100], [40, 0, 80], [100, 40, 0], [0, 100, 20]])


def trucks(favour: str) -> Hypotheses:
    """Every (world, belief, utilities) combination, weighted as if the student had walked
    past the Korean truck towards the building: a posterior that favours the rows whose
    utilities rank ``favour`` first."""
    rows = [(w, b, u) for w in range(3) for b in range(3) for u in range(4)]
    top = {"mexican": 2, "korean": 0}[favour]
    weight = np.array([8.0 if UTILITIES[u].argmax() == top else 0.5 for _, _, u in rows])
    return Hypotheses.from_arrays(
        FT, WORLDS, BELIEFS[[b for _, b, _ in rows]], weight / weight.sum(), np.array([w for w, _, _ in rows]),
        desires=Desires(("korean", "lebanese", "mexican"), UTILITIES[[u for _, _, u in rows]].astype(float)))


@pytest.mark.parametrize("sentence, formula, mode", foodtruck_sentences())
def test_foodtruck_sentences_translate_to_their_golden_elot(sentence, formula, mode):
    result = translate(sentence, signature=FT, translator="offline")
    assert (result.formula, result.mode) == (formula, mode)
    # and back: the formula said in English (the domain's words) reads as itself
    said = english(formula, mode, signature=FT)
    assert said.startswith("The student ")
    again = translate(said, signature=FT, translator="offline")
    assert (again.formula, again.mode) == (formula, mode)


def test_a_truck_the_domain_lacks_is_named_in_the_error():
    from elot.errors import TranslationError

    with pytest.raises(TranslationError, match="there is no thai truck") as caught:
        translate("The student likes the Thai truck best.", signature=FT, translator="offline")
    assert "the Mexican truck" in caught.value.hint


def test_foodtruck_sentences_score_as_their_meaning():
    sentences = foodtruck_sentences()
    assert len(sentences) >= 10
    mexican = trucks("mexican")
    for sentence, formula, _ in sentences:
        got = judge(sentence, mexican)
        assert got.formula == formula and 0 <= got.P <= 1 and 0 <= got.L <= 1
        # P is the posterior mass of the rows where the formula holds, each row evaluated on
        # its own, its utilities on the table's scale (-20 → 0, 100 → 1) written out here
        truth = np.array([evaluate(formula, State.parse(WORLDS[mexican.true_index[n]]),
                                   _belief(mexican.beliefs["student"][n]), signature=FT,
                                   desires=DesireRow(("korean", "lebanese", "mexican"),
                                                     (mexican.desires.utilities[n:n + 1] + 20) / 120))
                          for n in range(len(mexican))], dtype=float)
        assert got.P == pytest.approx(float(np.dot(mexican.weights, truth)), abs=1e-12), sentence


def _belief(row: np.ndarray):
    from elot.lang.states import Belief

    return Belief.of([(State.parse(w), float(p)) for w, p in zip(WORLDS, row) if p > 0])


def test_a_student_who_favours_the_mexican_truck_likes_it_best():
    mexican, korean = trucks("mexican"), trucks("korean")
    best_mexican = judge("The student likes the Mexican truck best.", mexican)
    best_korean = judge("The student likes the Korean truck best.", mexican)
    assert best_mexican.P > 0.8 and best_mexican.L > 0.5
    assert best_korean.P < 0.2 and best_korean.L < 0.5
    # the same sentences, for a student whose desires favour the Korean truck
    assert judge("The student likes the Korean truck best.", korean).P > 0.8
    assert judge("The student likes the Mexican truck best.", korean).P < 0.2
    assert judge("The student wants to eat at the Mexican truck.", mexican).P == best_mexican.P
    assert judge("The student prefers the Korean truck to the Mexican truck.", mexican).P < 0.2


def test_fit_takes_ratings_of_desire_statements(tmp_path, capsys):
    """elot fit tabulates a desire statement on the rows per goal, weighted by the whole
    posterior (the (state, belief) pairs' weights would not fit those rows)."""
    from elot.cli import main

    scenario = Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "default.scn"
    rows = ["scenario,mode,t,statement,rating"]
    for t, rating in ((4, 3), (6, 6), (13, 7)):
        rows.append(f'{scenario},current,{t},"wants(player, gem2)",{rating}')
        rows.append(f'{scenario},current,{t},"believes(player, formula(empty(box1)))",{8 - rating}')
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["fit", str(ratings), "-o", str(tmp_path / "fit.json")]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_hypotheses_from_triples_carry_desires():
    rows = Hypotheses.of([("at(korean, spot1), empty(spot2)", "1: at(korean, spot1), empty(spot2)", 0.25),
                          ("at(korean, spot1), empty(spot2)", "1: at(korean, spot1), empty(spot2)", 0.75)], FT,
                         desires=Desires(("korean", "mexican"), np.array([[100.0, 0.0], [0.0, 100.0]])))
    assert judge("prefers(player, mexican, korean)", rows).P == 0.75
    assert judge("likes_best(player, lebanese)", rows).P == 0.0   # no utility: not wanted
    with pytest.raises(ElotError, match="2 rows but there are 1"):
        Hypotheses.of([("empty(spot2)", "1: empty(spot2)", 1.0)], FT,
                      desires=Desires(("korean",), np.zeros((2, 1))))


def test_words_are_for_objects_and_atoms_of_the_signature():
    from elot.errors import ScenarioError

    with pytest.raises(ScenarioError, match="not 'at\\(spot2\\)'"):
        FT.with_words({"at(spot2)": "somewhere"})
    with pytest.raises(ScenarioError, match="not 'thai'"):
        FT.with_words({"thai": "the Thai truck"})
    with pytest.raises(ScenarioError, match="a phrase or a list of phrases"):
        FT.with_words({"mexican": []})
    # phrases add up; the first is how English says it
    more = FT.with_words({"mexican": "the taco truck"})
    assert more.phrases("mexican")[:2] == ("the Mexican truck", "the Mexican food truck")
    assert translate("The student likes the taco truck best.", signature=more).formula == "likes_best(player, mexican)"
    assert english("at(korean, spot2)", signature=more) == "The Korean truck is behind the building."
    assert english("empty(spot1)", signature=FT) == "Spot 1 is empty."
