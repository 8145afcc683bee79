"""The PDDL reader: s-expressions with positions, domains, problems and plans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.domains import sexpr
from elot.domains.doors_keys_gems import pddl
from elot.errors import ScenarioError

DOMAIN = """\
(define (domain tiny)
  (:requirements :typing)
  (:types key gem - item
          item box - physical
          physical color - object)
  (:predicates (has ?a - agent ?i - item) (inside ?i - item ?b - box) (empty ?b - box))
  (:functions (xloc ?o - physical) - integer (walls) - bit-matrix)
  (:derived (empty ?b) (forall (?i - item) (not (inside ?i ?b))))
  (:action pickup :parameters (?a - agent ?i - item)))
"""

PROBLEM = """\
(define (problem tiny-1)
  (:domain tiny)
  (:objects red - color
            key1 key2 - key
            human - agent
            gem1 - gem
            box1 - box)
  (:init (= (walls) (new-bit-matrix false 3 4)) ; rows, cols
         (= (walls) (set-index walls true 1 2))
         (= (xloc box1) 4)
         (= (yloc box1) 3)
         (iscolor key1 red)
         (inside key1 box1)
         (offgrid key2))
  (:goal (has human gem1)))
"""


def test_sexprs_keep_positions_and_skip_comments():
    forms = sexpr.parse_sexprs("; comment\n(a (b c)\n   d) ; tail\n(e)")
    assert [sexpr.to_data(f) for f in forms] == [("a", ("b", "c"), "d"), ("e",)]
    inner = forms[0].items[1]
    assert (inner.span.line, inner.span.column) == (2, 4)
    assert (forms[1].span.line, forms[1].span.column) == (4, 1)


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("(a\n (b c)\n", 1, 1, "never closed"),
        ("(a b))\n", 1, 6, "nothing to close"),
        ("(a\n  (b\n  (c)", 2, 3, "never closed"),
    ],
)
def test_unbalanced_parentheses_are_located(text, line, col, words):
    with pytest.raises(ScenarioError) as info:
        sexpr.parse_sexprs(text, "x.pddl")
    error = info.value
    assert (error.span.line, error.span.column) == (line, col)
    assert words in error.message
    assert error.render().startswith(f"x.pddl:{line}:{col}:")


def test_domain_from_text():
    domain = pddl.parse_domain_text(DOMAIN)
    assert domain.name == "tiny"
    assert domain.types == {"key": "item", "gem": "item", "item": "physical", "box": "physical",
                            "physical": "object", "color": "object"}
    assert domain.predicates["inside"] == ("item", "box")
    assert domain.predicates["has"] == ("agent", "item")
    assert domain.derived == frozenset({"empty"})
    assert domain.actions == ("pickup",)
    assert domain.functions["xloc"] == ("physical",)


def test_problem_from_text():
    problem = pddl.parse_problem_text(PROBLEM)
    assert list(problem.objects) == ["red", "key1", "key2", "human", "gem1", "box1"]
    assert problem.objects["box1"] == "box"
    assert problem.grid == (3, 4)
    assert problem.walls == frozenset({(1, 2)})
    assert problem.fluents[("xloc", "box1")] == 4
    assert ("inside", "key1", "box1") in problem.init
    assert ("offgrid", "key2") in problem.init
    assert problem.goal == ("has", "human", "gem1")
    assert problem.lines[("inside", "key1", "box1")] == 13
    assert problem.objects_of("key") == ("key1", "key2")


def test_problem_errors_are_located():
    bad = PROBLEM.replace("(inside key1 box1)", "(inside key9 box1)")
    with pytest.raises(ScenarioError) as info:
        pddl.parse_problem_text(bad, "p.pddl")
    assert info.value.span.line == 13 and "key9" in info.value.message
    with pytest.raises(ScenarioError, match="integer"):
        pddl.parse_problem_text(PROBLEM.replace("(yloc box1) 3", "(yloc box1) three"))
    with pytest.raises(ScenarioError, match="problem"):
        pddl.parse_problem_text(DOMAIN)


def test_plan_from_text():
    plan = pddl.parse_plan_text(";\n(right human)\n\n(open human box3)\n; \n;(pickup human key1)\n(unlock human key1 door1)\n;")
    assert plan.actions == (("right",), ("open", "box3"), ("pickup", "key1"), ("unlock", "key1", "door1"))
    assert plan.lines == (2, 4, 6, 7)
    assert plan.judgments == (0, 2, 2, 4)
    assert plan.agent == "human"


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("(right human)\nright human\n", 2, "one action"),
        ("(right human)\n(open human (box1)\n", 2, "never closed"),
        ("(right human)\n(left robot)\n", 2, "robot"),
        ("(right human) (left human)\n", 1, "one action"),
    ],
)
def test_plan_errors_are_located(text, line, words):
    with pytest.raises(ScenarioError) as info:
        pddl.parse_plan_text(text, "plan.pddl")
    assert info.value.span.line == line
    assert words in info.value.message
    assert f"plan.pddl:{line}:" in info.value.render()


def test_missing_files(tmp_path):
    for reader in (pddl.read_domain, pddl.read_problem, pddl.read_plan):
        with pytest.raises(ScenarioError, match="not found") as info:
            reader(tmp_path / "nope.pddl")
        assert "nope.pddl" in info.value.render()


def test_malformed_fixture_names_file_line_and_suspect(repo_fixtures):
    with pytest.raises(ScenarioError) as info:
        pddl.read_problem(repo_fixtures / "malformed.pddl")
    text = info.value.render()
    assert "malformed.pddl:5:3" in text and "line 7" in text


# -- the dataset -----------------------------------------------------------------------


def test_dataset_domain(labtom):
    domain = pddl.read_domain(labtom / "domain.pddl")
    assert domain.name == "doors-keys-gems"
    assert domain.types["key"] == "item" and domain.types["color"] == "object"
    assert domain.predicates == {
        "has": ("agent", "item"), "iscolor": ("physical", "color"), "offgrid": ("item",),
        "locked": ("door",), "closed": ("box",), "empty": ("box",), "hidden": ("item",),
        "inside": ("item", "box"),
    }
    assert domain.derived == frozenset({"empty"})
    assert set(domain.actions) == {"pickup", "open", "unlock", "up", "down", "left", "right"}


def test_dataset_problems(labtom):
    problems = sorted((labtom / "problems").glob("*.pddl"))
    assert len(problems) >= 20
    for path in problems:
        problem = pddl.read_problem(path)
        assert problem.objects_of("agent") == ("human",)
        rows, cols = problem.grid
        drawing = (path.with_suffix(".txt")).read_text().split()
        assert (rows, cols) == (len(drawing), len(drawing[0]))
        assert problem.walls == {(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)
                                 if drawing[r - 1][c - 1] == "W"}


def test_dataset_plans(labtom):
    plans = sorted((labtom / "plans").glob("*/*.pddl"))
    assert len(plans) >= 60
    for path in plans:
        plan = pddl.read_plan(path)
        assert plan.agent == "human" and plan.actions
        assert all(a[0] in {"up", "down", "left", "right", "pickup", "open", "unlock"} for a in plan.actions)
        assert list(plan.judgments) == sorted(plan.judgments)
        if path.parent.name == "exp1":
            assert len(plan.judgments) == 1
        else:
            assert plan.judgments[0] == 0 and plan.judgments[-1] == len(plan.actions)


@pytest.fixture
def repo_fixtures():
    from pathlib import Path

    return Path(__file__).parent / "fixtures" / "scenarios"


# -- PDDL problems: bounded sizes, and inconsistent problems rejected at their line --------

@pytest.mark.parametrize("init, message", [
    ("(= (walls) (new-bit-matrix true 100000 100000))", "grid size 100000 out of range"),
    ("(= (walls) (new-bit-matrix false 12345678901234567890123456 2))", "number too large"),
])
def test_pddl_grid_sizes_are_bounded(init, message):
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.pddl import parse_problem_text

    text = f"(define (problem p) (:domain d) (:objects human - agent)\n (:init {init}))"
    with pytest.raises(ScenarioError, match=message) as info:
        parse_problem_text(text, "p.pddl")
    assert info.value.location().startswith("p.pddl:2:")


def test_deeply_nested_pddl_is_an_error():
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.pddl import parse_problem_text

    with pytest.raises(ScenarioError, match="nesting too deep"):
        parse_problem_text("(define " + "(" * 100_000 + ")" * 100_000 + ")", "p.pddl")


def _problem(objects="red - color key1 - key human - agent gem1 - gem box1 box2 - box",
             extra="(inside key1 box1)", walls="(= (walls) (set-index walls true 1 1))"):
    return f"""(define (problem p)
  (:domain doors-keys-gems)
  (:objects {objects})
  (:init (= (walls) (new-bit-matrix false 3 4))
         {walls}
         (= (xloc human) 2) (= (yloc human) 2)
         (= (xloc gem1) 4) (= (yloc gem1) 3)
         (= (xloc box1) 1) (= (yloc box1) 3)
         (= (xloc box2) 2) (= (yloc box2) 3)
         (iscolor key1 red)
         {extra})
  (:goal (has human gem1)))
"""


def _world(text):
    from elot.domains.doors_keys_gems.pddl import parse_problem_text
    from elot.domains.doors_keys_gems.problem_world import world_from_problem

    return world_from_problem(parse_problem_text(text, "p.pddl"))


def test_the_valid_problem_loads():
    layout, state = _world(_problem())
    assert state.agent_pos == (2, 2) and layout.colours == ("red",)


@pytest.mark.parametrize("text, message, line", [
    (_problem(extra="(inside key1 box1) (inside key1 box2)"), "key key1 is inside both box1 and box2", 11),
    (_problem(walls="(= (walls) (set-index walls true 2 2))"), r"starts on a wall at \(2,2\)", 6),
    (_problem(objects="Red - color key1 - key human - agent gem1 - gem box1 box2 - box").replace("key1 red", "key1 Red"),
     "'Red' is not an ELoT name", 3),
    (_problem(objects="red - color key1 - key human - agent gem1 - gem box1 box2 - box crate1 - crate"),
     "crate1 has unknown type 'crate'", 3),
    (_problem(objects="red - color key1 - key human - agent box1 box2 - box gem1 - jewel"), "unknown type 'jewel'", 3),
    # a misspelt predicate used to be ignored: key1 silently left its box for a cell
    (_problem(extra="(insde key1 box1)"), "unknown predicate 'insde' in :init", 11),
    (_problem(extra="(inside key1 box1) (empty box1)"), "box box1 is said to be empty, but key1 is inside it", 11),
    (_problem(extra="(inside key1 box1) (empty key1)"), "key1 is not a box", 11),
])
def test_inconsistent_pddl_problems_are_errors_at_their_line(text, message, line):
    from elot.errors import ScenarioError

    with pytest.raises(ScenarioError, match=message) as info:
        _world(text)
    assert info.value.location().startswith(f"p.pddl:{line}:") and info.value.hint
    if "Red" in message:
        assert "'red'" in info.value.hint
    if "insde" in message:
        assert "did you mean 'inside'?" in info.value.hint


def test_hidden_and_a_true_empty_are_domain_atoms():
    layout, state = _world(_problem(extra="(inside key1 box1) (hidden key1) (empty box2)"))
    assert state.key("key1").where == ("box", "box1")


@pytest.mark.parametrize("atom", ["(inside key1)", "(iscolor key1)", "(closed box1 box2)", "(has human)"])
def test_init_atoms_of_the_wrong_arity_are_errors(atom):
    from elot.errors import ScenarioError

    with pytest.raises(ScenarioError, match="takes . argument") as info:
        _world(_problem(extra=atom))
    assert info.value.location().startswith("p.pddl:11:")


def test_a_plan_is_bounded_in_length():
    from elot.domains.doors_keys_gems.pddl import MAX_ACTIONS, parse_plan_text

    with pytest.raises(ScenarioError, match="too many actions") as info:
        parse_plan_text("(right human)\n" * (MAX_ACTIONS + 1), "long.pddl")
    assert info.value.location() == f"long.pddl:{MAX_ACTIONS + 1}:1"


def test_a_position_of_an_undeclared_object_is_an_error():
    """It used to be dropped: four gems placed, three declared, three goals inferred."""
    text = _problem(extra="(inside key1 box1) (= (xloc gem2) 1) (= (yloc gem2) 1)")
    with pytest.raises(ScenarioError, match="unknown object 'gem2'") as info:
        _world(text)
    assert info.value.location().startswith("p.pddl:11:")


def test_a_position_given_twice_is_an_error():
    text = _problem(extra="(inside key1 box1) (= (xloc gem1) 1)")
    with pytest.raises(ScenarioError, match=r"\(xloc gem1\) is set twice \(first at line 7\)") as info:
        _world(text)
    assert info.value.location().startswith("p.pddl:11:")


def _read_by_characters(text: str):
    """The s-expression reader as a loop over characters (what sexpr's regular expression
    replaced): its atoms and lists with their spans, or the error it raises."""
    from elot.errors import LineIndex

    lines = LineIndex(text)
    stack, top, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "(":
            stack.append((i, []))
            i += 1
        elif c == ")":
            if not stack:
                return ("unbalanced ')'", lines.span(i, i + 1))
            start, items = stack.pop()
            (stack[-1][1] if stack else top).append(sexpr.SList(tuple(items), lines.span(start, i + 1)))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "();":
                j += 1
            (stack[-1][1] if stack else top).append(sexpr.Sym(text[i:j], lines.span(i, j)))
            i = j
    if stack:
        return ("unbalanced '('", lines.span(stack[-1][0], stack[-1][0] + 1))
    return tuple(top)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="(( ));;\n\t\r ab1?-\u00a0\u2028\u3000é", max_size=80))
def test_the_reader_gives_every_atom_list_and_span_the_character_loop_gives(text):
    try:
        got = sexpr.parse_sexprs(text, "x.pddl")
    except ScenarioError as error:
        got = (error.message.split(":")[0], error.span)
    assert got == _read_by_characters(text)
