"""elot.lang.analysis: the ground prob_of terms and thresholds of a lowered formula (what
the REPL's :explain shows)."""

from __future__ import annotations

from elot.lang.analysis import prob_terms, thresholds_used
from elot.lang.lowering import lower
from elot.lang.printer import pretty
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature

SIG = Signature.default()


def test_a_prob_of_under_a_quantifier_is_grounded_with_every_object_of_its_domain():
    lowered = lower("exists(box(B), believes(player, formula(empty(B))))", SIG)
    assert [pretty(t) for t in prob_terms(lowered, SIG)] == [
        f"prob_of(player, empty({box}))" for box in SIG.objects_of("box")]


def test_a_ground_formula_has_its_own_prob_of_once_and_its_threshold():
    lowered = lower("and(believes(player, formula(empty(box1))), believes(player, formula(empty(box1))))", SIG)
    assert [pretty(t) for t in prob_terms(lowered, SIG)] == ["prob_of(player, empty(box1))"]
    assert thresholds_used(lowered, Thresholds()) == [("believes", Thresholds().value("believes"))]
    assert thresholds_used(lowered, Thresholds(believes=0.9)) == [("believes", 0.9)]
