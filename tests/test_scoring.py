"""Statement scores: the vectorized pair evaluation against a slow per-hypothesis loop."""

from __future__ import annotations

import numpy as np
import pytest

from elot.errors import ElotSyntaxError, ElotTypeError
from elot.lang.semantics import evaluate
from elot.lang.states import Belief, State
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scoring import score
from elot.judging import normalized_likelihood
from elot.domains.rows import signature as signature_of
from test_hypotheses import corridor

FORMULAS = [
    "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box1))))",
    "believes(player, might(empty(box1)))",
    "knows_that(player, formula(empty(box1)))",
    "uncertain_if(player, formula(empty(box1)))",
    "believes(player, more(likely, empty(box1), not(empty(box1))))",
    "empty(box1)",
]


def slow_score(inference, formula, t, mode):
    """SPEC §4 literally: one evaluation per hypothesis."""
    when = t if mode == "current" else 0
    worlds = [State(w.atoms()) for w in inference.worlds(when)]
    post = inference.posterior(t)
    truth = np.empty(len(inference), dtype=bool)
    for i in range(len(inference)):
        weights = inference.hypothesis_belief(when, i)
        belief = Belief.of([(worlds[j], w) for j, w in enumerate(weights) if w > 0])
        truth[i] = evaluate(formula, worlds[inference.state_index[i]], belief, signature=signature_of(inference))
    p = float(post @ truth)
    return p, truth.mean()


@pytest.mark.parametrize("formula", FORMULAS)
@pytest.mark.parametrize("mode", ["current", "initial"])
def test_matches_per_hypothesis_evaluation_corridor(formula, mode):
    true = corridor(hidden=True)
    inference = infer(Scenario("c", true.layout, true, (("left",), ("open", "box1")), (1, 2)))
    for t in (0, 1, 2):
        got = score(inference, formula, t, mode)
        p, prior = slow_score(inference, formula, t, mode)
        assert got.posterior == pytest.approx(p, abs=1e-12)
        assert got.prior_fraction == pytest.approx(prior, abs=1e-15)
        assert got.normalized_likelihood == pytest.approx(normalized_likelihood(p, prior), abs=1e-9)


@pytest.mark.dataset
@pytest.mark.parametrize("mode", ["current", "initial"])
def test_matches_per_hypothesis_evaluation_dataset(labtom, mode):
    scenario = load_dataset_plan(labtom, "1_1")
    inference = infer(scenario)
    for formula in FORMULAS[:3]:
        for t in scenario.judgments:
            got = score(inference, formula, t, mode)
            p, prior = slow_score(inference, formula, t, mode)
            assert got.posterior == pytest.approx(p, abs=1e-12)
            assert got.prior_fraction == pytest.approx(prior, abs=1e-15)


def test_normalized_likelihood():
    assert normalized_likelihood(0.5, 0.5) == 0.5
    assert normalized_likelihood(0.7, 0.0) == 0.0 and normalized_likelihood(0.7, 1.0) == 1.0
    assert normalized_likelihood(0.8, 0.2) == pytest.approx(0.8 * 0.8 / (0.8 * 0.8 + 0.2 * 0.2))
    assert normalized_likelihood(0.2, 0.2) == pytest.approx(0.5)  # no evidence


def test_errors_are_typed():
    true = corridor(hidden=True)
    inference = infer(Scenario("c", true.layout, true, (("left",),), (1,)))
    with pytest.raises(ElotTypeError):
        score(inference, "believes(player, formula(empty(key1)))", 1)
    with pytest.raises(ElotTypeError):
        score(inference, "believes(player, formula(empty(box9)))", 1)
    with pytest.raises(ElotSyntaxError):
        score(inference, "believes(player,", 1)
    with pytest.raises(ValueError):
        score(inference, "empty(box1)", 1, "later")
    # free variables: an error by default, bound existentially on request
    with pytest.raises(Exception):
        score(inference, "believes(player, formula(inside(K, box1)))", 1)
    assert score(inference, "believes(player, formula(inside(K, box1)))", 1, bind_free=True).posterior >= 0
