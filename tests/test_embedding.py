"""Embedding (elot/embedding/): domains declared by users, judging user-supplied
hypotheses and belief models, elot's BToM as one model, the REPL over any model, and the
worked examples (golden text)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import examples, run_elot

import elot
from elot.embedding import (
    BToMModel,
    Hypotheses,
    BeliefModelError,
    declare,
    judge,
    judge_series,
    load_belief_model,
    parse_domain,
)
from elot.errors import ElotError, ElotTypeError, EvaluationError, ScenarioError
from elot.lang.semantics import compile_formula
from elot.lang.states import Belief, State
from elot.domains.doors_keys_gems.scoring import score
from elot.settings import ConventionsError

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "embedding"
GOLDEN = REPO / "tests" / "golden" / "embedding"

SALLY_ANNE = """\
agent sally anne
object basket box : container
object marble : thing
predicate inside(thing, container)
"""
SIG = parse_domain(SALLY_ANNE)
BASKET = State.parse("inside(marble, basket)", signature=SIG)
BOX = State.parse("inside(marble, box)", signature=SIG)
IN_BASKET = "believes(sally, formula(inside(marble, basket)))"
KNOWS = "knows_about(sally, container(C), inside(marble, C))"


# -- declaring a domain ----------------------------------------------------------------------


def test_python_and_text_declarations_agree_and_default_sensibly():
    python = declare(objects={"agent": ["sally", "anne"], "container": ["basket", "box"], "marble": "thing"},
                     predicates=["inside(thing, container)"])
    assert python == SIG
    assert SIG.agent == "sally" and SIG.resolve("player") == "sally"
    assert SIG.derived == frozenset()
    assert dict(SIG.parents) == {"agent": "object", "container": "object", "thing": "object"}
    # the minimal declaration typechecks the whole language over it
    assert str(elot.check(KNOWS, SIG).type) == "E"
    assert str(elot.check("uncertain_if(anne, formula(inside(marble, box)))", SIG).type) == "E"
    deeper = declare(objects={"box1": "box", "tom": "agent"}, predicates={"inside": ("agent", "container")},
                     types={"box": "container"})
    assert deeper.is_subdomain("box", "container") and deeper.objects_of("container") == ("box1",)
    assert declare(objects={"box1": "box"}, predicates={"open": ("box",)}).agent == "player"


@pytest.mark.parametrize("text, where, message, hint", [
    ("agent sally\nobjct marble : thing\n", "d:2:1", "unknown declaration 'objct'", "did you mean 'object'?"),
    ("agent sally\nobject marble : thing\npredicate inside(thng, thing)\n", "d:3:11",
     "predicate inside has an argument of unknown type 'thng'", "did you mean 'thing'?"),
    ("agent sally\nobject believes : thing\n", "d:2:8", "object name 'believes' is an ELoT operator", "rename"),
    ("agent sally\nobject Marble : thing\n", "d:2:8", "object name 'Marble' is not an ELoT name", "lowercase"),
    ("agent sally\nobject marble : thing\npredicate wet()\n", "d:3:11", "predicate wet takes no arguments", "give it one"),
    ("agent sally\nobject marble : thing\nobserved marble\n", "d:3:10",
     "the observed agent 'marble' is a thing, not an agent", "agent"),
    ("agent sally\nobject sally : thing\n", "d:2:8", "object sally is declared twice", "once"),
    ("agent sally\nobject thing : thing\n", "d:2:8", "'thing' is declared as more than one", "distinct"),
    ("type a < b\ntype b < a\nagent sally\n", "d:1:6", "the type hierarchy has a cycle", "object"),
    ("agent sally\nobject marble\n", "d:2:1", "cannot read this object declaration", "object NAME"),
])
def test_declaration_errors_have_place_and_hint(text, where, message, hint):
    with pytest.raises(ScenarioError) as caught:
        parse_domain(text, path="d")
    error = caught.value
    assert error.location() == where and message in error.message and hint in error.hint
    assert error.context_lines()  # the line and a caret


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_read_domain_reads_a_file_the_way_every_reader_does():
    """A .domain file is read as every user's file is (errors.read_text): a device that never
    ends is refused at the input bound, not read until memory runs out."""
    from elot.embedding import read_domain

    with pytest.raises(ScenarioError, match="larger than"):
        read_domain("/dev/zero")


def test_python_declaration_errors():
    with pytest.raises(ScenarioError, match="unknown type 'contaner'"):
        declare(objects={"b": "container", "s": "agent"}, predicates={"in": ("agent", "contaner")})
    with pytest.raises(ScenarioError, match="not an object of the domain"):
        declare(objects={"s": "agent"}, predicates={"p": ("agent",)}, agent="bob")


# -- judging user-supplied hypotheses ----------------------------------------------------------


def false_belief(peek: float):
    """After the move: Sally missed it (1 − peek) or peeked (peek); Anne knows."""
    return [(BOX, {"sally": BASKET, "anne": BOX}, 1 - peek), (BOX, {"sally": BOX, "anne": BOX}, peek)]


def test_judge_hand_computed():
    result = judge(IN_BASKET, false_belief(0.1), signature=SIG)
    assert (result.P, result.pi) == pytest.approx((0.9, 0.5))
    # L = P(1−π) / (P(1−π) + (1−P)π) = 0.45 / (0.45 + 0.05)
    assert result.L == pytest.approx(0.9)
    assert judge(KNOWS, false_belief(0.2), signature=SIG).P == pytest.approx(0.2)
    both = "and(believes(sally, formula(inside(marble, basket))), believes(anne, formula(inside(marble, box))))"
    assert judge(both, false_belief(0.3), signature=SIG).P == pytest.approx(0.7)
    # an agent variable ranges over both agents' beliefs
    assert judge("forall(agent(A), knows_about(A, container(C), inside(marble, C)))",
                 false_belief(0.3), signature=SIG).P == pytest.approx(0.3)
    # beliefs given as text and as Belief values mean the same
    text = [(BOX, "0.5: inside(marble, basket) | 0.5: inside(marble, box)", 1.0)]
    value = [(BOX, Belief.of([(BASKET, 0.5), (BOX, 0.5)]), 1.0)]
    claim = "believes(sally, might(inside(marble, basket)))"
    assert judge(claim, text, signature=SIG) == judge(claim, value, signature=SIG)


def test_splitting_a_hypothesis_into_copies_changes_nothing():
    """π is the statement's prior probability, not a count of rows: a hypothesis split into
    two equal copies (half the weight each) is the same hypothesis (L was 0.700 -> 0.538
    when π counted rows); a prior given as multiplicity is used as it is."""
    whole = false_belief(0.3)                                     # P = 0.7, π = 0.5
    split = [whole[0][:2] + (0.35,), whole[0][:2] + (0.35,), whole[1]]
    a, b = judge(IN_BASKET, whole, signature=SIG), judge(IN_BASKET, split, signature=SIG)
    assert (a.P, a.L, a.pi) == pytest.approx((0.7, 0.7, 0.5))
    assert (b.P, b.L, b.pi) == pytest.approx((a.P, a.L, a.pi))
    for conventions in ("elot", "paper"):
        assert judge(IN_BASKET, split, signature=SIG, conventions=conventions).L == pytest.approx(
            judge(IN_BASKET, whole, signature=SIG, conventions=conventions).L)
    hypotheses = Hypotheses.of(split, SIG)
    weighted = dataclasses.replace(hypotheses, prior=np.array([1.0, 1.0, 1.0]))
    assert judge(IN_BASKET, weighted, signature=SIG).pi == pytest.approx(2 / 3)


def test_conventions_differ_only_on_ruled_out_hypotheses():
    triples = [(BOX, {"sally": BASKET}, 0.0), (BOX, {"sally": BOX}, 1.0)]
    elot_score = judge(KNOWS, triples, signature=SIG)
    paper = judge(KNOWS, triples, signature=SIG, conventions="paper")
    assert (elot_score.P, elot_score.pi) == (1.0, 0.5)
    assert (paper.P, paper.pi) == (1.0, 0.5)
    ruled_out_true = judge(IN_BASKET, triples, signature=SIG)
    assert ruled_out_true.pi == 0.5
    assert judge(IN_BASKET, triples, signature=SIG, conventions="paper").pi == 0.0
    with pytest.raises(ConventionsError, match="unknown conventions 'papr'"):
        judge(KNOWS, triples, signature=SIG, conventions="papr")


def test_user_hypotheses_are_checked_like_formulas():
    with pytest.raises(ElotTypeError) as caught:
        judge(IN_BASKET, [(BOX, "1: inside(basket, marble)", 1.0)], signature=SIG)
    assert caught.value.message == "the arguments of inside are in the wrong order"
    assert caught.value.location() == "<hypothesis 0, sally's belief>:1:4"
    with pytest.raises(ElotTypeError, match="unknown object 'bsket'"):
        judge(IN_BASKET, [("inside(marble, bsket)", BOX, 1.0)], signature=SIG)
    with pytest.raises(ElotTypeError, match="unknown predicate 'insde'"):
        judge(IN_BASKET, [(State.of([("insde", "marble", "box")]), BOX, 1.0)], signature=SIG)
    with pytest.raises(BeliefModelError, match="weights sum to 0.5, not 1"):
        judge(IN_BASKET, [(BOX, BOX, 0.5)], signature=SIG)
    with pytest.raises(EvaluationError, match="belief weights sum to 0.9"):
        judge(IN_BASKET, [(BOX, "0.5: inside(marble, box) | 0.4: inside(marble, basket)", 1.0)], signature=SIG)
    with pytest.raises(BeliefModelError, match="'marble', which is not an agent"):
        judge(IN_BASKET, [(BOX, {"marble": BOX}, 1.0)], signature=SIG)
    with pytest.raises(BeliefModelError, match="give signature="):
        judge(IN_BASKET, [(BOX, BOX, 1.0)])
    with pytest.raises(ElotTypeError) as caught:
        judge("believes(sally, formula(inside(basket, marble)))", [(BOX, BOX, 1.0)], signature=SIG)
    assert caught.value.location() == "<formula>:1:25"
    with pytest.raises(EvaluationError, match="is a number, not a statement"):
        judge("prob_of(sally, inside(marble, box))", [(BOX, BOX, 1.0)], signature=SIG)
    with pytest.raises(EvaluationError, match="no belief of anne was given") as caught:
        judge("believes(  anne, formula(inside(marble, box)))", [(BOX, {"sally": BOX}, 1.0)], signature=SIG)
    assert caught.value.location() == "<formula>:1:12"  # the caret is in the text as written
    assert caught.value.context_lines()[1] == " " * 11 + "^^^^"


def test_array_hypotheses_are_validated():
    worlds = [BASKET, BOX]
    good = np.array([[1.0, 0.0], [0.5, 0.5]])
    rows = Hypotheses.from_arrays(SIG, worlds, good, [0.25, 0.75], [1, 1])
    assert judge(IN_BASKET, rows).P == pytest.approx(0.25)
    cases = [
        (dict(beliefs=np.array([[1.0, 0.0], [0.5, 0.4]])), "row 1 of sally's beliefs sums to 0.9"),
        (dict(beliefs=np.array([[1.0, 0.0]])), r"must be an \(N, S\) = \(2, 2\) array"),
        (dict(beliefs=np.array([[np.nan, 1.0], [0.5, 0.5]])), "hold nan at"),
        (dict(weights=[0.5, 0.6]), "the weights sum to 1.1"),
        (dict(weights=[-0.5, 1.5]), "weights hold -0.5"),
        (dict(true_index=[0, 2]), "true_index points outside the 2 worlds"),
        (dict(true_index=[0.0, 1.0]), "integer array"),
        (dict(beliefs={"marble": good}), "not an agent"),
    ]
    for change, message in cases:
        arguments = dict(beliefs=good, weights=[0.25, 0.75], true_index=[1, 1]) | change
        with pytest.raises(BeliefModelError, match=message):
            Hypotheses.from_arrays(SIG, worlds, arguments["beliefs"], arguments["weights"], arguments["true_index"])
    with pytest.raises(ElotTypeError, match="unknown object 'bsket'"):
        Hypotheses.from_arrays(SIG, ["inside(marble, bsket)", BOX], good, [0.5, 0.5], [0, 1])


def test_arrays_and_triples_give_the_same_judgment():
    rng = np.random.default_rng(3)
    n = 40
    beliefs = {a: rng.dirichlet(np.ones(2), size=n) for a in ("sally", "anne")}
    weights = rng.dirichlet(np.ones(n))
    true_index = rng.integers(0, 2, size=n)
    worlds = [BASKET, BOX]
    rows = Hypotheses.from_arrays(SIG, worlds, beliefs, weights, true_index)
    triples = [(worlds[true_index[i]],
                {a: Belief.of([(BASKET, beliefs[a][i, 0]), (BOX, beliefs[a][i, 1])]) for a in beliefs},
                weights[i]) for i in range(n)]
    for claim in (IN_BASKET, KNOWS, "believes(anne, more(likely, inside(marble, box), inside(marble, basket)))",
                  "uncertain_if(sally, formula(inside(marble, box)))"):
        a, b = judge(claim, rows), judge(claim, triples, signature=SIG)
        assert (a.P, a.L, a.pi) == pytest.approx((b.P, b.L, b.pi), abs=1e-12)


# -- belief models ---------------------------------------------------------------------------------


class TwoSteps:
    """A minimal belief model: Sally sees the marble at t=0 and misses its move at t=1."""

    signature = SIG
    times = range(2)

    def hypotheses(self, t):
        return [(BASKET, {"sally": BASKET, "anne": BASKET}, 1.0)] if t == 0 else false_belief(0.25)


def test_judge_series_over_a_model():
    series = judge_series(IN_BASKET, TwoSteps())
    assert [j.t for j in series] == [0, 1]
    assert [j.P for j in series] == pytest.approx([1.0, 0.75])
    assert judge(IN_BASKET, TwoSteps()).P == pytest.approx(0.75)          # default: the last time
    assert judge(IN_BASKET, TwoSteps(), t=0).P == 1.0
    with pytest.raises(BeliefModelError, match="time 5 is not one of the model's times"):
        judge(IN_BASKET, TwoSteps(), t=5)
    with pytest.raises(BeliefModelError, match="no initial_hypotheses"):
        judge(IN_BASKET, TwoSteps(), mode="initial")
    with pytest.raises(BeliefModelError, match="is not a belief model"):
        judge_series(IN_BASKET, object())


@pytest.mark.parametrize("conventions", ["elot", "paper"])
def test_btom_as_a_belief_model_reproduces_scoring(conventions):
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.examples import default_example

    inference = infer(default_example())
    model = BToMModel(inference)
    assert isinstance(model, elot.BeliefModel)
    statements = ["believes(player, might(exists(key(K), inside(K, box1))))",
                  "knows_if(player, formula(empty(box2)))",
                  "uncertain_about(player, box(B), exists(key(K), inside(K, B)))"]
    for statement in statements:
        for t in (0, inference.steps // 2, inference.steps):
            for mode in ("current", "initial"):
                expected = score(inference, statement, t, mode, conventions=conventions)
                got = judge(statement, model, t=t, mode=mode, conventions=conventions)
                assert (got.P, got.L, got.pi) == pytest.approx(
                    (expected.posterior, expected.normalized_likelihood, expected.prior_fraction), abs=1e-12)


def test_load_belief_model_specs_and_errors(tmp_path, monkeypatch):
    model = load_belief_model(str(EXAMPLES / "sally_anne.py"))
    assert model.name == "sally-anne" and list(model.times) == [0, 1, 2, 3, 4]
    assert load_belief_model(f"{EXAMPLES / 'treasure_hunt.py'}:TreasureHunt").name == "treasure-hunt"
    # module specs, for a model importable from sys.path
    monkeypatch.syspath_prepend(str(EXAMPLES))
    assert load_belief_model("sally_anne").name == "sally-anne"
    assert load_belief_model("treasure_hunt:TreasureHunt").name == "treasure-hunt"
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    (tmp_path / "empty.py").write_text("x = 1\n")
    for spec, message in [(str(tmp_path / "missing.py"), "no model file"),
                          (str(tmp_path / "broken.py"), "loading .* failed: RuntimeError: boom"),
                          (str(tmp_path / "empty.py"), "defines no 'model'"),
                          (f"{tmp_path / 'empty.py'}:x", "is not a belief model"),
                          ("no_such_module_xyz:model", "cannot import no_such_module_xyz")]:
        with pytest.raises(BeliefModelError, match=message):
            load_belief_model(spec)


def test_multi_agent_beliefs_in_the_compiled_program():
    compiled = compile_formula(">(prob_of(anne, inside(marble, box)), prob_of(sally, inside(marble, box)))", SIG)
    beliefs = {"sally": np.array([[1.0, 0.0], [0.0, 1.0]]), "anne": np.array([[0.0, 1.0], [0.0, 1.0]])}
    assert compiled.truth([BASKET, BOX], beliefs, np.array([1, 1])).tolist() == [True, False]
    with pytest.raises(EvaluationError, match="only the observed agent \\(sally\\) has a belief here, not anne"):
        compiled.truth([BASKET, BOX], beliefs["sally"], np.array([1, 1]))


# -- the REPL over a belief model --------------------------------------------------------------------


def repl(*args: str, stdin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100", "ELOT_HISTORY": os.devnull}
    return run_elot("repl", *args, stdin=stdin, env=env, timeout=120)


def test_repl_over_a_user_model():
    lines = [IN_BASKET, ":goto 2", IN_BASKET, f":explain {KNOWS}", f":trace {IN_BASKET}", ":beliefs", ":quit"]
    r = repl("--belief-model", str(EXAMPLES / "sally_anne.py"), stdin="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert out.startswith("elot[t=0/4]> ")
    assert "P = 1.000   normalized L = 1.000   (current belief, t=0)" in out
    assert "t=2/4  after Anne moves the marble to the box  (judgment point)" in out
    assert "P = 0.900   normalized L = 0.900   (current belief, t=2)" in out
    assert "p1 = prob_of(sally, inside(marble, basket))" in out          # :explain's columns
    assert "t=0 ████▁ t=4" in out                                         # :trace's sparkline
    assert "in_room(anne), inside(marble, basket)" in out                 # :beliefs


def test_repl_model_errors_do_not_end_the_session():
    lines = [":load " + str(EXAMPLES / "sally_anne.py"), ":map", ":set beta 2", "believes(sally, formula(inside(marble, bsket)))", ":goto 9", IN_BASKET]
    r = repl("--belief-model", str(EXAMPLES / "sally_anne.py"), stdin="\n".join(lines) + "\n")
    assert r.returncode == 2
    assert "loaded belief model sally-anne: times 0..4, agents anne, sally (player = sally)" in r.stdout
    assert "the belief model sally-anne has no map" in r.stdout
    assert "sally-anne is your own model: elot's inference settings do not apply" in r.stdout
    assert "unknown object 'bsket'" in r.stdout and "step 9 is outside" in r.stdout
    assert r.stdout.count("normalized L = 1.000") == 1
    r = repl("--belief-model", "nowhere.py", stdin="")
    assert r.returncode == 2 and "no model file nowhere.py" in r.stderr and "Traceback" not in r.stderr
    r = repl("default", "--belief-model", str(EXAMPLES / "sally_anne.py"), stdin="")
    assert r.returncode == 2 and "not both" in r.stderr


# -- the worked examples (golden text) ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sally_anne", "treasure_hunt"])
def test_examples_match_their_golden_output(name):
    r = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True,
                       env={**os.environ, "PYTHONIOENCODING": "utf-8"}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def test_sally_anne_makes_sense():
    """The false belief scores high while Sally cannot know, and low once she looks."""
    model = load_belief_model(str(EXAMPLES / "sally_anne.py"))
    thinks = [j.L for j in judge_series(IN_BASKET, model)]
    knows = [j.L for j in judge_series(KNOWS, model)]
    assert thinks[2] > 0.8 and thinks[3] > 0.8 and thinks[4] < 0.1
    assert knows[2] < 0.2 and knows[4] > 0.9


def test_errors_are_elot_errors():
    assert issubclass(BeliefModelError, ElotError)


# -- the fast masked sums behind prob_of ---------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(200))
@given(st.integers(1, 300), st.integers(1, 20), st.integers(0, 2**32 - 1), st.floats(0, 1))
def test_prob_of_adds_the_selected_worlds_in_order(size, n, seed, density):
    """prob_of reads only the columns of the worlds where φ holds and adds them left to
    right, ε = 5e-324 weights included (SPEC §5): each row is the plain sequential sum of
    its own terms, whether it is evaluated alone or among many rows."""
    from elot.numeric import sum_columns_in_order

    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.full(size, 0.3), size=n)
    rows[:, rng.integers(0, size)] = 5e-324
    mask = rng.random(size) < density
    expected = []
    for i in range(n):
        total = 0.0   # 0.0 + x == x exactly
        for j in np.flatnonzero(mask):
            total += float(rows[i, j])
        expected.append(total)
    for layout in (rows, np.asfortranarray(rows)):
        got = sum_columns_in_order(np.ascontiguousarray(layout.T), mask)
        assert got.tolist() == expected
        for i in range(n):   # one row alone: the same bits
            assert sum_columns_in_order(np.ascontiguousarray(layout[i:i + 1].T), mask)[0] == expected[i]


def test_the_docs_show_the_examples_as_they_print():
    docs = (REPO / "docs" / "embedding.md").read_text(encoding="utf-8")
    for name in ("sally_anne", "treasure_hunt"):
        assert (GOLDEN / f"{name}.txt").read_text(encoding="utf-8") in docs
    assert (EXAMPLES / "sally_anne.domain").read_text(encoding="utf-8") in docs


def test_english_outside_the_translators_vocabulary_says_why(monkeypatch):
    monkeypatch.delenv("ELOT_MODEL", raising=False)
    from elot.errors import TranslationError

    with pytest.raises(TranslationError) as caught:
        judge("The player thinks the key is in box 2.", [(BOX, BOX, 1.0)], signature=SIG)
    assert any("this domain has no boxes" in note for note in caught.value.notes)
    # the domain's own location predicate is read ("in the basket": inside(marble, basket))
    assert judge("The player thinks the marble is in the basket.", [(BOX, BOX, 1.0)], signature=SIG).formula == \
        "believes(player, formula(inside(marble, basket)))"
    hunt = load_belief_model(str(EXAMPLES / "treasure_hunt.py"))
    assert judge("The player thinks the red key is in box 2.", hunt, t=1).formula == \
        "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box2))))"


def test_the_repl_over_btom_as_a_belief_model_scores_as_the_scenario_session():
    """The REPL's adapter over BToMModel answers as the REPL over the scenario itself."""
    from elot.session import Session

    scenario_session = Session.open("default")
    model_session = Session.open_model(BToMModel(scenario_session.run().inference))
    assert model_session.horizon == scenario_session.horizon
    assert model_session.goal_posterior(3) == scenario_session.goal_posterior(3)
    for t in (0, 3, scenario_session.horizon):
        for mode in ("current", "initial"):
            for session in (scenario_session, model_session):
                session.goto(t)
                session.mode = mode
            text = "knows_if(player, formula(exists(key(K), inside(K, box1))))"
            a, b = scenario_session.score(text), model_session.score(text)
            assert (a.posterior, a.normalized_likelihood, a.prior_fraction) == pytest.approx(
                (b.posterior, b.normalized_likelihood, b.prior_fraction), abs=1e-12)
            assert scenario_session.explain(text).groups == model_session.explain(text).groups
            number = "prob_of(player, exists(key(K), inside(K, box1)))"
            assert scenario_session.value(number) == model_session.value(number)  # was: "not BToM"


def test_malformed_models_are_model_errors():
    class NoTimes:
        signature = SIG

        def hypotheses(self, t):
            return []

    class ReturnsNone(TwoSteps):
        def hypotheses(self, t):
            return None

    class BadSignature(TwoSteps):
        signature = "sally-anne.domain"

    for model, message in [(NoTimes(), "has no times"), (ReturnsNone(), r"hypotheses\([01]\) returned a NoneType"),
                           (BadSignature(), "the signature of BadSignature is a str")]:
        with pytest.raises(BeliefModelError, match=message):
            judge(IN_BASKET, model)
        with pytest.raises(BeliefModelError, match=message):
            judge_series(IN_BASKET, model)


def test_a_failing_model_is_reported_not_crashed_on():
    class Broken(TwoSteps):
        def hypotheses(self, t):
            return 1 / 0

    with pytest.raises(BeliefModelError, match=r"Broken.hypotheses\(1\) failed: ZeroDivisionError") as caught:
        judge(IN_BASKET, Broken())
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
