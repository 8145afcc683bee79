"""Robustness: whatever the input, the language stages raise ElotError or succeed —
never another exception, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import examples

from elot.lang.checker import check
from elot.errors import ElotError, ElotSyntaxError
from elot.lang.semantics import evaluate
from elot.lang.states import Belief, State
from elot.lang.lowering import lower
from elot.lang.parser import parse
from elot.lang.printer import pretty

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "formulas.elot"
SEEDS = [x for x in EXAMPLES.read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]
STATE = State.parse("inside(key1, box1), iscolor(key1, red), hidden(key1), closed(box1)")
BELIEF = Belief.of([(STATE, 0.5), (State.parse("inside(key1, box2), iscolor(key1, blue)"), 0.5)])

def formula_stages(text: str) -> None:
    """Every stage that applies to a formula text; only ElotError may escape (also run by
    benchmarks/fuzz_long.py)."""
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


def pipeline(text: str) -> None:
    """Run every stage that applies; only ElotError may escape. (How long an input takes is
    measured by benchmarks/fuzz_long.py, which reports every input over 2 s.)"""
    try:
        formula_stages(text)
    except ElotError as error:
        error.render()  # rendering must not fail either


formula_chars = st.sampled_from(list("abcdefgklmnoprstuwxyzKBC0123456789_(),. -><=\n\t") + ["(", ")", ","] * 4)


@settings(max_examples=examples(300))
@given(st.text(formula_chars, max_size=80))
def test_random_formula_like_strings(text):
    pipeline(text)


@settings(max_examples=examples(100))
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
    from elot.lang.syntax import Call, Const, Var, subterms

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


@settings(max_examples=examples(300))
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
def test_huge_and_deep_inputs_are_syntax_errors(text):
    with pytest.raises(ElotSyntaxError):
        parse(text)
    pipeline(text)


def test_wide_but_legal_formula_is_fine():
    text = "and(" + ", ".join(f"empty(box{i % 5 + 1})" for i in range(3000)) + ")"
    assert evaluate(text, STATE) is False


# -- scenario and PDDL text ---------------------------------------------------------------

SCENARIOS = Path(__file__).resolve().parent.parent / "elot" / "scenarios"
SCN_SEEDS = [p.read_text(encoding="utf-8") for p in sorted(SCENARIOS.glob("*.scn"))]
PROBLEM_SEED = """(define (problem p)
  (:domain doors-keys-gems)
  (:objects red blue - color key1 key2 - key door1 - door human - agent gem1 gem2 - gem box1 box2 - box)
  (:init (= (walls) (new-bit-matrix false 4 5))
         (= (walls) (set-index walls true 1 1))
         (= (xloc human) 2) (= (yloc human) 2)
         (= (xloc gem1) 5) (= (yloc gem1) 4) (= (xloc gem2) 1) (= (yloc gem2) 4)
         (= (xloc door1) 4) (= (yloc door1) 4)
         (= (xloc box1) 1) (= (yloc box1) 3) (= (xloc box2) 2) (= (yloc box2) 3)
         (iscolor key1 red) (iscolor door1 red) (locked door1) (closed box1)
         (inside key1 box1) (offgrid key2))
  (:goal (has human gem1)))
"""
PLAN_SEED = "(down human)\n;\n(open human box2)\n; judged\n(left human)\n(open human box1)\n(pickup human key1)\n"
SNIPPETS = ["(", ")", "\n", " ", ",", "|", "x3", "x99999999999", "h", "g", "W", "C", "F", "R", "r", ":",
            "map:", "actions:", "agent: box1", "colours: Red", "legend:", "1 = box red", "right", "open box1",
            "(define", "-", "- crate", "100000", "1e999", "\ufeff", "\x00", "é", ";", "(inside key1 box2)",
            "(= (xloc human) 1)", "(new-bit-matrix true 300 2)", "statements current:", "-- judge --"]


#: The edits of :func:`damage`; the property tests use all but ``repeat`` (a range
#: repeated 2-4 times), which benchmarks/fuzz_long.py adds to look for size blowups.
EDITS = ("delete", "insert", "swap_lines", "truncate", "duplicate_line", "repeat")


def damage(text: str, count: int, integer, choose, piece, kinds=EDITS[:5]) -> str:
    """``text`` with ``count`` random edits of ``kinds``: deletions, insertions, swapped
    or duplicated lines, truncation, repeated ranges. The randomness is the caller's:
    ``integer(lo, hi)`` a whole number in [lo, hi], ``choose(seq)`` an item, ``piece()``
    a text to insert (Hypothesis draws here, a seeded RNG in benchmarks/fuzz_long.py)."""
    for _ in range(count):
        kind = choose(kinds)
        i = integer(0, len(text))
        if kind == "delete" and text:
            j = integer(i, min(len(text), i + 8))
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + piece() + text[i:]
        elif kind == "truncate":
            text = text[:i]
        elif kind == "repeat":
            a, b = sorted((i, integer(0, len(text))))
            text = text[:a] + text[a:b] * integer(2, 4) + text[b:]
        else:  # swap_lines, duplicate_line (and delete of an empty text, a duplicated line)
            lines = text.split("\n")
            a, b = integer(0, len(lines) - 1), integer(0, len(lines) - 1)
            if kind == "swap_lines":
                lines[a], lines[b] = lines[b], lines[a]
            else:
                lines.insert(a, lines[b])
            text = "\n".join(lines)
    return text


@st.composite
def damaged(draw, seeds):
    """A seed text with a few random edits: deletions, insertions, swapped lines."""
    return damage(draw(st.sampled_from(seeds)), draw(st.integers(1, 4)),
                  lambda lo, hi: draw(st.integers(lo, hi)), lambda seq: draw(st.sampled_from(seq)),
                  lambda: draw(st.sampled_from(SNIPPETS) | st.text(max_size=4)))


def only_elot_errors(fn, text: str) -> None:
    """``fn(text)`` succeeds or raises ElotError (which renders)."""
    try:
        fn(text)
    except ElotError as error:
        error.render()


def scn_pipeline(text: str) -> None:
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    scenario = parse_scn_text(text, "fuzz.scn")
    scenario.signature()


def problem_pipeline(text: str) -> None:
    from elot.domains.doors_keys_gems.pddl import parse_problem_text
    from elot.domains.doors_keys_gems.problem_world import world_from_problem

    world_from_problem(parse_problem_text(text, "fuzz.pddl"))


def plan_pipeline(text: str) -> None:
    from elot.domains.doors_keys_gems.pddl import parse_plan_text

    parse_plan_text(text, "fuzz.pddl")


@settings(max_examples=examples(300), deadline=None)
@given(damaged(SCN_SEEDS))
def test_damaged_scn_text(text):
    only_elot_errors(scn_pipeline, text)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.sampled_from(list("hgWCFRr.|,x0123456789: \n#") + ["map:\n  ", "actions:\n  ", "right", "open box1"]),
               max_size=60).map("".join))
def test_random_scn_like_text(text):
    only_elot_errors(scn_pipeline, text)


@settings(max_examples=examples(300), deadline=None)
@given(damaged([PROBLEM_SEED]))
def test_damaged_pddl_problems(text):
    only_elot_errors(problem_pipeline, text)


@settings(max_examples=examples(150), deadline=None)
@given(damaged([PLAN_SEED]) | st.text(max_size=80))
def test_damaged_pddl_plans(text):
    only_elot_errors(plan_pipeline, text)


def test_the_fuzz_seeds_are_valid():
    # the damage must start from working inputs, or the tests above only fuzz error paths
    for seed in SCN_SEEDS:
        scn_pipeline(seed)
    problem_pipeline(PROBLEM_SEED)
    plan_pipeline(PLAN_SEED)
