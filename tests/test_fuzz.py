"""Robustness: whatever the input, the language stages raise ElotError or succeed —
never another exception, never a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.checker import check
from elot.errors import ElotError, ElotSyntaxError
from elot.evaluate import Belief, State, evaluate
from elot.lowering import lower
from elot.parser import parse
from elot.printer import pretty

EXAMPLES = Path(__file__).resolve().parent.parent / "elot" / "examples" / "formulas.elot"
SEEDS = [x for x in EXAMPLES.read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]
STATE = State.parse("inside(key1, box1), iscolor(key1, red), hidden(key1), closed(box1)")
BELIEF = Belief.of([(STATE, 0.5), (State.parse("inside(key1, box2), iscolor(key1, blue)"), 0.5)])

#: Seconds any single input may take through the whole pipeline.
LIMIT = 2.0


def pipeline(text: str) -> None:
    """Run every stage that applies; only ElotError may escape."""
    start = time.perf_counter()
    try:
        tree = parse(text)
        pretty(tree)
        for bind_free in (False, True):
            try:
                checked = check(tree, bind_free=bind_free)
            except ElotError:
                continue
            lower(checked.term)
            try:
                evaluate(tree, STATE, BELIEF, bind_free=bind_free)
            except ElotError:
                pass
    except ElotError as error:
        error.render()  # rendering must not fail either
    assert time.perf_counter() - start < LIMIT, f"took too long on {text[:80]!r}"


formula_chars = st.sampled_from(list("abcdefgklmnoprstuwxyzKBC0123456789_(),. -><=\n\t") + ["(", ")", ","] * 4)


@settings(max_examples=300)
@given(st.text(formula_chars, max_size=80))
def test_random_formula_like_strings(text):
    pipeline(text)


@settings(max_examples=100)
@given(st.text(max_size=60))
def test_random_unicode_strings(text):
    pipeline(text)


@st.composite
def mutations(draw):
    """A valid example formula with one random damage applied."""
    text = draw(st.sampled_from(SEEDS))
    kind = draw(st.sampled_from(["delete", "delete_paren", "swap", "rename", "truncate", "duplicate", "insert"]))
    if kind == "delete":
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + text[i + 1:]
    if kind == "delete_paren":
        spots = [i for i, ch in enumerate(text) if ch in "()"]
        i = draw(st.sampled_from(spots)) if spots else 0
        return text[:i] + text[i + 1:]
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "insert":
        i = draw(st.integers(0, len(text)))
        return text[:i] + draw(st.sampled_from(["(", ")", ",", " x", "K", "1", "formula(", "()"])) + text[i:]
    tree = parse(text)
    from elot.syntax import Call, Const, Var, subterms

    nodes = [n for n in subterms(tree) if isinstance(n, Call)]
    target = draw(st.sampled_from(nodes))

    def rebuild(node):
        if node is target:
            args = list(node.args)
            if kind == "swap" and len(args) >= 2:
                i, j = draw(st.permutations(range(len(args))))[:2]
                args[i], args[j] = args[j], args[i]
                return Call(name=node.name, args=tuple(args))
            if kind == "duplicate":
                return Call(name=node.name, args=tuple(args + args[:1]))
            name = draw(st.sampled_from(["inisde", "box9", "believe", "Knows", "x", "formula", "most", "K"]))
            if name[0].isupper():
                return Var(name=name)
            return Call(name=name, args=node.args) if draw(st.booleans()) else Const(name=name)
        if isinstance(node, Call):
            return Call(name=node.name, args=tuple(rebuild(a) for a in node.args))
        return node

    return pretty(rebuild(tree))


@settings(max_examples=300)
@given(mutations())
def test_mutated_formulas(text):
    pipeline(text)


@pytest.mark.parametrize(
    "text",
    [
        "not(" * 10_000 + "empty(box1)" + ")" * 10_000,
        "(" * 10_000,
        ")" * 10_000,
        "f(" * 10_000 + "a" + ")" * 9_999,
        "and(" + "f(" * 5_000 + "x" + "), y" * 5_000 + ")",
        "a," * 30_000,
        "and(" + ", ".join(["empty(box1)"] * 20_000) + ")",
        "x" * 200_000,
        " " * 100_001,
    ],
    ids=["nested-not", "open", "close", "unbalanced", "nested-commas", "commas", "wide", "long-name", "spaces"],
)
def test_huge_and_deep_inputs_fail_fast(text):
    start = time.perf_counter()
    with pytest.raises(ElotSyntaxError):
        parse(text)
    pipeline(text)
    assert time.perf_counter() - start < LIMIT


def test_wide_but_legal_formula_is_fine():
    text = "and(" + ", ".join(f"empty(box{i % 5 + 1})" for i in range(3000)) + ")"
    start = time.perf_counter()
    assert evaluate(text, STATE) is False
    assert time.perf_counter() - start < LIMIT
