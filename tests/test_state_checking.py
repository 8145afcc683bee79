"""States and beliefs are typechecked like formulas: unknown
predicate, unknown object, argument order, arity and weights that do not sum to 1 are
errors with a place, a caret and a hint, on the command line (exit 2) and in Python."""

from __future__ import annotations

import os

import pytest
from helpers import examples, run_elot

from elot.errors import ElotError, ElotTypeError, EvaluationError
from elot.lang.states import Belief, State
from elot.lang.signature import Signature

SIG = Signature.default()


def run(*args: str):
    return run_elot(*args, env={**os.environ, "PYTHONIOENCODING": "utf-8"}, timeout=60)


@pytest.mark.parametrize("option, text, expected", [
    ("--belief", "1: inside(box1, key1)", [
        "--belief:1:4: type error: the arguments of inside are in the wrong order",
        "    1: inside(box1, key1)",
        "       ^^^^^^^^^^^^^^^^^^",
        "hint: write inside(item, box): inside(key1, box1)"]),
    ("--state", "insde(key1, box1)", [
        "--state:1:1: type error: unknown predicate 'insde'",
        "    insde(key1, box1)",
        "    ^^^^^^^^^^^^^^^^^",
        "hint: did you mean 'inside'?"]),
    ("--state", "inside(key99, box1)", [
        "--state:1:8: type error: unknown object 'key99'",
        "    inside(key99, box1)",
        "           ^^^^^",
        "hint: did you mean 'key5'?"]),
    ("--belief", "0.5: inside(key1, box1) | 0.4: closed(box2)", [
        "--belief:1:1: evaluation error: belief weights sum to 0.9, not 1",
        "    0.5: inside(key1, box1) | 0.4: closed(box2)",
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "hint: give weights that sum to 1 (fractions such as 1/3 are accepted)"]),
    ("--belief", "0.5: inside(key1, box1) | 1/2: closed(box2), closed(box2, box1)", [
        "--belief:1:46: type error: closed takes 1 argument, got 2",
        "    0.5: inside(key1, box1) | 1/2: closed(box2), closed(box2, box1)",
        "                                                 ^^^^^^^^^^^^^^^^^^",
        "hint: write closed(box)"]),
])
def test_eval_rejects_ill_typed_states_and_beliefs(option, text, expected):
    r = run("eval", "believes(player, formula(empty(box1)))", "--state", "closed(box1)", option, text) \
        if option == "--belief" else run("eval", "empty(box1)", option, text)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == expected


def test_eval_checks_states_against_the_given_signature(tmp_path):
    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain doors-keys-gems)\n"
                       "  (:objects human - agent key2 - key box1 - box)\n  (:init) (:goal (has human key2)))\n")
    r = run("eval", "has(player, key2)", "--signature", str(problem), "--state", "has(human, key1)")
    assert r.returncode == 2 and "unknown object 'key1'" in r.stderr and "did you mean 'key2'" in r.stderr
    r = run("eval", "has(player, key2)", "--signature", str(problem), "--state", "has(human, key2)")
    assert (r.returncode, r.stdout) == (0, "true\n")


def test_a_belief_file_points_at_its_line(tmp_path):
    belief = tmp_path / "b.txt"
    belief.write_text("# two guesses\n0.5: inside(key1, box1)\n0.5: inside(key1, box9)\n")
    r = run("eval", "believes(player, formula(empty(box1)))", "--belief", str(belief))
    assert r.returncode == 2
    assert r.stderr.splitlines()[:3] == [
        f"{belief}:3:19: type error: unknown object 'box9'",
        "    0.5: inside(key1, box9)",
        "                      ^^^^",
    ]


def test_state_parse_with_a_signature_collects_every_error():
    with pytest.raises(ElotTypeError) as caught:
        State.parse("insde(key1, box1), inside(key99, box1), iscolor(red, key1)", signature=SIG, path="s")
    messages = [e.message for e in caught.value.errors]
    assert messages == ["unknown predicate 'insde'", "unknown object 'key99'",
                        "the arguments of iscolor are in the wrong order"]
    assert caught.value.location() == "s:1:1"
    # a well-typed state parses to the same atoms with or without the check
    text = "inside(key1, box1), iscolor(key1, red), closed(box1), box(box1)"
    assert State.parse(text, signature=SIG) == State.parse(text)


def test_belief_parse_locates_errors_in_later_parts():
    with pytest.raises(ElotError) as caught:
        Belief.parse("0.5: closed(box1)\n0.5: inside(key1, box1), ghost(key1)", signature=SIG, path="b")
    assert caught.value.location() == "b:2:26"
    with pytest.raises(EvaluationError, match="not a finite, non-negative number"):
        Belief.parse("-0.5: closed(box1) | 1.5: closed(box2)")


def test_python_given_states_are_checked_on_request():
    state = State.of([("inside", "key1", "box1"), ("insde", "key2", "box2")])
    with pytest.raises(ElotTypeError) as caught:
        state.check(SIG)
    assert caught.value.message == "unknown predicate 'insde'" and caught.value.hint == "did you mean 'inside'?"
    assert caught.value.context_lines() == ["insde(key2, box2), inside(key1, box1)", "^" * 17]
    assert caught.value.location() == "<state>:1:1"
    belief = Belief.point(State.of([("inside", "box1", "key1")]))
    with pytest.raises(ElotTypeError, match="wrong order"):
        belief.check(SIG)
    with pytest.raises(ElotTypeError, match="unknown object 'key99'"):
        State.of([("inside", "key99", "box1")]).check(SIG)
    assert State.of([("inside", "key1", "box1")]).check(SIG) == State.parse("inside(key1, box1)")


def test_json_belief_errors_name_the_file(tmp_path):
    belief = tmp_path / "b.json"
    belief.write_text('[[0.5, "inside(key1, box1)"], [0.2, "inside(key1, box2)"]]')
    r = run("eval", "believes(player, formula(empty(box1)))", "--belief", str(belief))
    assert r.returncode == 2 and r.stderr.startswith(f"{belief}: evaluation error: belief weights sum to 0.7, not 1")
    belief.write_text('[[1, "inside(key1, box7)"]]')
    r = run("eval", "believes(player, formula(empty(box1)))", "--belief", str(belief))
    assert r.returncode == 2 and r.stderr.startswith(f"{belief}:1:14: type error: unknown object 'box7'")


def test_from_objects_knows_the_agent_type_without_being_told():
    sig = Signature.from_objects({"bob": "agent", "jar": "container"}, types={"container": "object"},
                                 predicates={"full": ("container",)})
    assert sig.agent == "bob" and sig.is_subdomain("agent", "object")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["inside", "insde", "(", ")", ",", " ", "key1", "box1", "Key", "K", "|", ":", "0.5",
                           "1/3", "-1", "nan", "1e999", "#", "\n", "empty", "box", "and(", "player", "1/0", "é"])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_state_and_belief_text_only_ever_raise_elot_errors(text):
    for parse in (lambda: State.parse(text, signature=SIG), lambda: Belief.parse(text, signature=SIG)):
        try:
            parse()
        except ElotError as error:
            error.render()  # renders without failing, caret and all
