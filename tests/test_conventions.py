"""The ``paper`` conventions (SPEC §7) and the ``true-belief-paper`` reproduction model, on
hand-built scenarios small enough to work out by hand, then on the dataset."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import run_elot

from elot.settings import ConventionsError
from elot.errors import ElotError
from elot.lang.semantics import evaluate
from elot.lang.states import Belief, State
from elot.domains.doors_keys_gems.hypotheses import build, initial_states, reference_first
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scoring import score
from elot.settings import ALL_VARIANTS, VARIANTS, VariantError
from elot.domains.doors_keys_gems.world import KeyState, Layout, WorldState
from elot.repl.commands import execute
from elot.session import Session
from elot.domains.rows import signature as signature_of
from test_inference import scenario as corridor_scenario


# -- π: ruled-out hypotheses ---------------------------------------------------------------


def test_ruled_out_hypotheses_change_pi_only_under_paper():
    """Corridor ``gem2 | red door | box1 | agent | . | red key | gem1``, a red key in box1.
    After ``left, open box1`` the state where box1 is empty (A) is ruled out: 8 of the 16
    hypotheses. "The player initially believed box1 empty" holds for the belief with all 3
    particles on A, in both true states: 2 of 8 (state, belief) pairs."""
    inference = infer(corridor_scenario([("left",), ("open", "box1")]))
    formula = "believes(player, formula(empty(box1)))"
    before = {c: score(inference, formula, 1, "initial", conventions=c) for c in ("elot", "paper")}
    assert before["elot"] == before["paper"]           # at t = 1 nothing is ruled out yet
    assert before["elot"].prior_fraction == 0.25
    elot = score(inference, formula, 2, "initial", conventions="elot")
    paper = score(inference, formula, 2, "initial", conventions="paper")
    assert elot.posterior == paper.posterior > 0
    assert elot.prior_fraction == 0.25                 # 4 of 16 hypotheses, dead or alive
    assert paper.prior_fraction == 0.125               # only (B, 3:0)'s 2 live goals: 2 of 16
    assert paper.normalized_likelihood > elot.normalized_likelihood
    # SPEC §7.1 literally, one hypothesis at a time: live and true, over all N
    worlds = [State(w.atoms()) for w in inference.worlds(0)]
    live = np.isfinite(inference.log_weights[2])
    truth = [evaluate(formula, worlds[inference.state_index[i]],
                      Belief.of([(worlds[j], w) for j, w in enumerate(inference.hypothesis_belief(0, i)) if w > 0]),
                      signature=signature_of(inference))
             for i in range(len(inference))]
    assert live.sum() == 8
    assert paper.prior_fraction == sum(t and v for t, v in zip(truth, live)) / len(inference)
    assert inference.live_pairs(2).sum() == 8


def test_score_follows_the_inference_conventions():
    inference = infer(corridor_scenario([("left",), ("open", "box1")]), conventions="paper")
    formula = "believes(player, formula(empty(box1)))"
    assert score(inference, formula, 2, "initial") == score(inference, formula, 2, "initial", conventions="paper")
    with pytest.raises(ConventionsError, match="unknown conventions 'papers'") as caught:
        score(inference, formula, 2, conventions="papers")
    assert "elot, paper" in caught.value.hint


# -- state order and key names on a 3-box map ----------------------------------------------


def three_boxes() -> WorldState:
    """``gem1 | blue door | red door | box1 | box2 | box3 | agent | blue key | gem2``.

    gem1 needs a red key (hidden: none is visible) and a blue one (the floor one will do),
    so 1 red key and 0 or 1 blue keys are hidden: 3 + 6 placements. The spare key objects
    are key2, key3 (hidden: red in box2, blue in box3) and key4 (off the grid); the
    reference calls the key in box i the i-th of them, so box2's key is key3.
    """
    layout = Layout(9, 1, frozenset(), "human", (("gem1", (1, 1)), ("gem2", (9, 1))),
                    (("door1", (2, 1), "blue"), ("door2", (3, 1), "red")),
                    (("box1", (4, 1)), ("box2", (5, 1)), ("box3", (6, 1))),
                    ("key1", "key2", "key3", "key4"), ("red", "blue"))
    keys = (("key1", KeyState("blue", ("cell", (8, 1)))),
            ("key2", KeyState("red", ("box", "box2"))),
            ("key3", KeyState("blue", ("box", "box3"))),
            ("key4", KeyState(None, ("offgrid",))))
    return WorldState(layout, (7, 1), keys, frozenset({"door1", "door2"}),
                      frozenset({"box1", "box2", "box3"}), frozenset())


#: Step next to box2, open it, step onto it and take the red key (the real key2).
ACTIONS = (("left",), ("open", "box2"), ("left",), ("pickup", "key2"))


def placed(state: WorldState) -> tuple:
    return tuple(sorted((ks.where[1], ks.colour, k) for k, ks in state.keys if ks.where[0] == "box"))


def test_reference_order_and_names():
    """SPEC §7.3: by number of hidden keys, then box subsets in lexicographic order, then
    colour assignments with the first box's colour varying fastest (colours: red, blue);
    the key in box i is the i-th spare key object (key2, key3, key4)."""
    states = initial_states(three_boxes(), conventions="paper")
    assert [placed(s) for s in states] == [
        (("box1", "red", "key2"),),
        (("box2", "red", "key3"),),
        (("box3", "red", "key4"),),
        (("box1", "blue", "key2"), ("box2", "red", "key3")),
        (("box1", "red", "key2"), ("box2", "blue", "key3")),
        (("box1", "blue", "key2"), ("box3", "red", "key4")),
        (("box1", "red", "key2"), ("box3", "blue", "key4")),
        (("box2", "blue", "key3"), ("box3", "red", "key4")),
        (("box2", "red", "key3"), ("box3", "blue", "key4")),
    ]
    # the true placement is there, under the reference's names, not the true state's
    assert placed(three_boxes()) == (("box2", "red", "key2"), ("box3", "blue", "key3"))


def test_elot_order_and_names_are_unchanged():
    states = initial_states(three_boxes())
    assert len(states) == 9 and three_boxes() in states   # the true state, names and all
    # the same placements in both conventions, up to names
    def colours(s):
        return tuple(sorted((b, c) for b, c, _ in placed(s)))
    assert sorted(map(colours, states)) == sorted(map(colours, initial_states(three_boxes(), conventions="paper")))


def test_observed_actions_follow_the_key_not_its_name():
    """Open box2 and pick up the red key: in the paper's naming the real key2 is key3 in
    the hypothesized worlds. The posterior is elot's, up to the order of the states."""
    true = three_boxes()
    scn = Scenario("three", true.layout, true, ACTIONS, (4,), true_goal="gem1")
    runs = {c: infer(scn, conventions=c) for c in ("elot", "paper")}
    for t in range(5):
        assert runs["paper"].goal_posterior(t) == pytest.approx(runs["elot"].goal_posterior(t), abs=1e-12)
    by_placement = {}
    for c, inference in runs.items():
        post = inference.state_posterior(4)
        by_placement[c] = {tuple((b, col) for b, col, _ in placed(s)): p for s, p in zip(inference.worlds(0), post)}
    assert by_placement["paper"] == pytest.approx(by_placement["elot"], abs=1e-12)
    assert sum(p > 0 for p in by_placement["paper"].values()) == 3   # red in box2; blue in box1, box3 or none
    # the key held at t=4 is the real key2 in elot's live worlds and key3 in the paper's
    held = {c: {k for w, p in zip(inference.worlds(4), inference.state_posterior(4)) if p > 0
                for k, ks in w.keys if ks.where == ("held",)}
            for c, inference in runs.items()}
    assert held == {"elot": {"key2"}, "paper": {"key3"}}


# -- true-belief-paper -----------------------------------------------------------------------


@pytest.mark.parametrize("conventions", ["elot", "paper"])
def test_true_belief_paper_judges_state_one(conventions):
    """SPEC §7.4: the agent plans as under true-belief; its judged belief, in every
    hypothesis and at every step, is certainty in initial state #1 of the reference's order
    (box1 red), evolved to that step."""
    true = three_boxes()
    scn = Scenario("three", true.layout, true, ACTIONS, (4,))
    artifact = infer(scn, model="true-belief-paper", conventions=conventions)
    ablation = infer(scn, model="true-belief", conventions=conventions)
    np.testing.assert_array_equal(artifact.log_weights, ablation.log_weights)
    first = reference_first(true, artifact.space.states)
    assert placed(artifact.space.states[first]) == (("box1", "red", "key2"),)
    assert (first == 0) == (conventions == "paper")
    one_hot = np.zeros(artifact.space.n_states)
    one_hot[first] = 1.0
    for t in range(5):
        assert (artifact.beliefs(t) == one_hot).all()
    # box1 holds a red key in state #1 all along, though every live hypothesis has it in box2
    formula = "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box1))))"
    got = score(artifact, formula, 4)
    assert got.posterior == pytest.approx(1.0) and got.normalized_likelihood == pytest.approx(1.0)
    assert score(ablation, formula, 4).posterior == 0.0


def test_variant_names():
    assert VARIANTS == ("full", "true-belief", "non-planning")
    assert ALL_VARIANTS == VARIANTS + ("true-belief-paper",)
    with pytest.raises(VariantError, match="unknown model 'true-belief-papr'") as caught:
        build(three_boxes(), model="true-belief-papr")
    assert "did you mean true-belief-paper?" in caught.value.hint and "non-planning" in caught.value.hint
    for bad in (dict(model="nope"), dict(conventions="nope")):
        with pytest.raises(ElotError):
            infer(corridor_scenario([("left",)]), **bad)
        with pytest.raises(ValueError):   # what unknown names raised before they were ElotErrors
            infer(corridor_scenario([("left",)]), **bad)


# -- the command line and the REPL -------------------------------------------------------------


def test_cli_conventions_and_models():
    env = dict(os.environ, COLUMNS="160")
    done = run_elot("run", "--model", "true-belief-paper", "--conventions", "paper", "--initial",
                    "--statement", "believes(player, formula(empty(box1)))", env=env)
    assert done.returncode == 0, done.stderr
    assert "model true-belief-paper\nconventions: paper" in done.stdout
    for args, names in ((["--conventions", "nonsense"], "elot, paper"),
                        (["--model", "nonsense"], "full, true-belief, non-planning, true-belief-paper")):
        for command in ("run", "plot", "repl"):
            extra = ["-o", "/dev/null"] if command == "plot" else []
            done = run_elot(command, *args, *extra, stdin="", env=env)
            assert done.returncode == 2, (command, done.stdout, done.stderr)
            assert "nonsense" in done.stderr and names in done.stderr and "Traceback" not in done.stderr


def test_repl_conventions_setting():
    session = Session.open("default")
    shown = "".join(str(x) for x in execute(session, ":model"))
    assert "conventions = elot" in shown
    elot = session.score("believes(player, formula(empty(box1)))", t=session.horizon, mode="initial")
    execute(session, ":set conventions paper")
    assert session.conventions == "paper" and session.run().inference.conventions == "paper"
    assert "conventions = paper" in "".join(str(x) for x in execute(session, ":model"))
    paper = session.score("believes(player, formula(empty(box1)))", t=session.horizon, mode="initial")
    assert paper.posterior == pytest.approx(elot.posterior, abs=1e-12)
    assert paper.prior_fraction < elot.prior_fraction      # the example rules states out
    with pytest.raises(ElotError, match="unknown conventions 'nonsense'"):
        execute(session, ":set conventions nonsense")
    execute(session, ":model true-belief-paper")
    assert session.run().inference.model == "true-belief-paper"


# -- the paper's Table on the dataset ------------------------------------------------------

#: Rows of the paper's Table, compared on the diff (its headline figure, with its s.e.).
#: The Table averages all 7 maps; the dataset has exp1 formulas for maps 1-3 only (99 of
#: 241 current and 228 initial statements), so a row may differ by the choice of maps.
#: Under ``paper`` the current full-model row matches the paper exactly on all 7 maps
#: (SPEC §7.1); on maps 1-3 it is +0.41 ± 0.04 against +0.30 (0.03).
PAPER_ROWS = [
    pytest.param("current", "full", marks=pytest.mark.xfail(
        strict=True, reason="maps 1-3 only: diff +0.41 against the 7-map +0.30 (0.03)")),
    ("current", "non-planning"),
    ("current", "true-belief-paper"),
    ("initial", "full"),
    ("initial", "non-planning"),
    ("initial", "true-belief-paper"),
]


@pytest.fixture(scope="module")
def paper_table(labtom):
    from elot.domains.doors_keys_gems.experiments import in_vs_out

    models = ("full", "non-planning", "true-belief-paper")
    return {(r.condition, r.model): r for r in in_vs_out(labtom, models=models, conventions="paper")}


@pytest.mark.dataset
@pytest.mark.parametrize("condition, model", PAPER_ROWS)
def test_paper_rows_within_two_standard_errors(paper_table, condition, model):
    from elot.domains.doors_keys_gems.experiments import PAPER

    row = paper_table[(condition, model)]
    _, _, diff, se, _ = PAPER[(condition, model)]
    assert row.n == 99 and row.conventions == "paper"
    assert abs(row.diff - diff) <= 2 * se + 0.005   # the paper rounds to 2 decimals


@pytest.mark.dataset
def test_paper_true_belief_row_is_flat(paper_table):
    """SPEC §7.4: every hypothesis judges the same state, so a statement scores about the
    same in and out of context: no diff, and almost never classified correctly."""
    for condition in ("current", "initial"):
        row = paper_table[(condition, "true-belief-paper")]
        full = paper_table[(condition, "full")]
        assert abs(row.diff) < 0.03 and row.strict < 0.15 < full.strict


@pytest.mark.dataset
def test_paper_accuracy_follows_the_rule_not_the_noise(paper_table):
    """The paper's initial non-planning accuracy (0.39, 39 of 99 here) counted one
    statement whose in-context score beat its out-of-context mean only in the last bits of
    the reference's own sums. elot's sums are correctly rounded, so no figure here depends
    on rounding: 38 statements win by more than TIE, and the strict comparison, which
    counts any float difference, can only add near-ties to them."""
    from elot.domains.doors_keys_gems.experiments import PAPER

    row = paper_table[("initial", "non-planning")]
    assert row.n == 99 and round(row.accuracy * row.n) == 38
    assert row.accuracy <= row.strict
    for (condition, model), other in paper_table.items():
        assert other.accuracy <= other.strict, (condition, model)
    # The paper's figure is one statement above the rule's: the noise the rule removes.
    assert 0 <= PAPER[("initial", "non-planning")][4] - row.accuracy <= 1 / row.n + 0.005


@pytest.mark.dataset
def test_reference_names_give_the_reference_posterior(labtom):
    """SPEC §7.3's check: statement 3 of plan 3_3 (exp2_current) binds a blue key in the
    world and asks where the agent thinks that object is; at the first judgment point the
    reference's P is 0.8296 with its names, 0.8575 with names that keep the true key's."""
    import csv

    from elot.domains.doors_keys_gems.dataset import load_dataset_plan

    with open(labtom / "statements" / "exp2_current_translations.csv", encoding="utf-8") as handle:
        (row,) = [r for r in csv.DictReader(handle) if (r["plan_id"], r["statement_id"]) == ("3_3", "3")]
    scenario = load_dataset_plan(labtom, "3_3")
    t = scenario.judgments[0]
    got = {c: score(infer(scenario, conventions=c), row["gold_elot"].strip(), t, bind_free=True).posterior
           for c in ("elot", "paper")}
    assert round(got["paper"], 4) == 0.8296 and round(got["elot"], 4) == 0.8575


@pytest.mark.dataset
def test_in_vs_out_maps_and_judge(labtom, paper_table):
    from elot.domains.doors_keys_gems.experiments import in_vs_out

    (row,) = in_vs_out(labtom, ("current",), ("full",), "paper", maps={"1"})
    assert row.n == 31 and row.diff > paper_table[("current", "full")].diff   # map 1 is the clearest
    seen = []

    def judge(inference, formula, t, condition):
        seen.append((inference.conventions, condition))
        return 0.5

    (flat,) = in_vs_out(labtom, ("initial",), ("non-planning",), "paper", maps={"2", "3"}, judge=judge)
    assert flat.n == 63 and flat.diff == 0 and flat.strict == 0 and flat.ill_typed == 0
    assert set(seen) == {("paper", "initial")}
