"""Issue 11 (language core, scenarios, PDDL): pathological input ends fast with an
answer or a clear ElotError, never a traceback, a hang or gigabytes of memory."""

from __future__ import annotations

import time

import pytest

from elot.errors import ElotError, EvaluationError
from elot.evaluate import Belief, State, evaluate

STATE = State.parse("inside(key1, box1), iscolor(key1, red), hidden(key1), closed(box1)")
BELIEF = Belief.of([(STATE, 1.0)])
BOXES = [f"B{i}" for i in range(11)]


def boxes(cond_vars):
    return f"and({', '.join(f'box({v})' for v in cond_vars)})"


@pytest.mark.parametrize("body, expected", [
    (f"and({', '.join(f'empty({v})' for v in BOXES)})", True),
    (f"and({', '.join(f'closed({v})' for v in BOXES)})", True),
    (f"or({', '.join(f'closed({v})' for v in BOXES)})", True),
])
def test_many_bound_variables_are_searched_not_enumerated(body, expected):
    start = time.perf_counter()
    assert evaluate(f"exists({boxes(BOXES)}, {body})", STATE) is expected
    assert evaluate(f"believes(player, formula(exists({boxes(BOXES)}, {body})))", STATE, BELIEF) is expected
    assert time.perf_counter() - start < 2


def test_nested_quantifiers_are_fast():
    text = "empty(box1)"
    for i in range(8):
        text = f"exists(item(X{i}), not({text}))"
    start = time.perf_counter()
    assert evaluate(text, STATE) is False
    assert time.perf_counter() - start < 2


@pytest.mark.parametrize("wrap", ["{}", "believes(player, formula({}))"])
def test_work_budget_names_the_quantifier(wrap):
    # one conjunct mentions every variable: nothing prunes, the budget stops it
    hard = f"exists({boxes(BOXES[:10])}, and(not(empty(B0)), not(or({', '.join(f'==({v}, {v})' for v in BOXES[:10])}))))"
    text = wrap.format(hard)
    start = time.perf_counter()
    with pytest.raises(EvaluationError) as info:
        evaluate(text, STATE, BELIEF)
    assert time.perf_counter() - start < 2
    error = info.value
    assert "too much work" in error.message and "exists" in error.message
    assert error.span is not None and text[error.span.start:].startswith("exists(and(box(B0)")
    assert "^" in error.render() and error.hint
