"""Equivalence by truth values on known equivalent and non-equivalent formula pairs
(the check the translation benchmark relies on)."""

from __future__ import annotations

import pytest

from elot.lang.equivalence import equivalent
from elot.lang.thresholds import Thresholds
from elot.lang.signature import Signature

SIG = Signature.from_objects({"box1": "box", "box2": "box", "box3": "box", "key1": "key", "key2": "key",
                              "red": "color", "blue": "color"})
RED1 = "exists(and(key(K), iscolor(K, red)), inside(K, box1))"
RED2 = "exists(and(key(K), iscolor(K, red)), inside(K, box2))"

EQUIVALENT = [
    (f"believes(player, formula({RED1}))", f">=(prob_of(player, {RED1}), threshold(believes))"),
    ("believes(player, might(empty(box1)))", "believes(player, could(empty(box1)))"),
    ("believes(player, formula(exists(and(key(K), iscolor(K, red)), or(inside(K, box1), inside(K, box2)))))",
     f"believes(player, formula(or({RED1}, {RED2})))"),
    ("believes(player, formula(and(empty(box1), empty(box2))))",
     "believes(player, formula(and(empty(box2), empty(box1))))"),
    ("believes(player, formula(not(exists(key(K), inside(K, box1)))))", "believes(player, formula(empty(box1)))"),
    (f"knows_that(player, formula({RED1}))", f"and(believes(player, formula({RED1})), {RED1})"),
    (f"believes(player, formula({RED1}), might({RED2}))",
     f"and(believes(player, formula({RED1})), believes(player, might({RED2})))"),
    ("believes(player, formula(exists(key(K), exists(box(B), inside(K, B)))))",
     "believes(player, formula(exists(box(B), exists(key(K), inside(K, B)))))"),
    (f"believes(player, more(likely, {RED1}, {RED2}))", f"believes(player, less(likely, {RED2}, {RED1}))"),
]

NOT_EQUIVALENT = [
    ("believes(player, might(empty(box1)))", "believes(player, must(empty(box1)))"),
    (f"believes(player, formula({RED1}))", f"knows_that(player, formula({RED1}))"),
    (f"believes(player, formula({RED1}))", f"believes(player, formula({RED2}))"),
    ("believes(player, formula(empty(box1)))", "believes(player, formula(not(empty(box1))))"),
    ("believes(player, formula(and(empty(box1), empty(box2))))",
     "believes(player, formula(or(empty(box1), empty(box2))))"),
    (f"believes(player, likely({RED1}))", f"believes(player, unlikely({RED1}))"),
    (f"believes(player, formula({RED1}))", f"certain(player, formula({RED1}))"),
]


@pytest.mark.parametrize("f, g", EQUIVALENT)
def test_equivalent(f, g):
    same, counterexample = equivalent(f, g, SIG, n_beliefs=32)
    assert same, counterexample


@pytest.mark.parametrize("f, g", NOT_EQUIVALENT)
def test_not_equivalent(f, g):
    same, counterexample = equivalent(f, g, SIG, n_beliefs=32)
    assert not same
    assert counterexample is not None


def test_might_and_could_differ_when_a_threshold_is_overridden():
    f, g = "believes(player, might(empty(box1)))", "believes(player, could(empty(box1)))"
    assert equivalent(f, g, SIG)[0]
    assert not equivalent(f, g, SIG, thresholds=Thresholds().replace(could=0.5))[0]
    assert not equivalent(f, g, SIG, thresholds=Thresholds().replace(might=0.1))[0]
