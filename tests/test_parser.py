"""The ELoT parser and printer: trees, spans, syntax errors, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elot.errors import ElotError, ElotSyntaxError, Span
from elot.lang.parser import MAX_LENGTH, START_RULE, grammar_text, parse, parse_atoms
from elot.lang.printer import pretty
from elot.lang.syntax import MAX_DEPTH, Call, Const, Num, Var, call

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "formulas.elot"
GOLDEN = REPO / "tests" / "golden" / "lang"


def formula_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_parses_a_term_into_frozen_nodes():
    t = parse("believes(player, might(exists(key(K), or(inside(K, box1), inside(K, box2)))))")
    assert t == call(
        "believes",
        Const(name="player"),
        call("might", call("exists", call("key", Var(name="K")),
                           call("or", call("inside", Var(name="K"), Const(name="box1")),
                                call("inside", Var(name="K"), Const(name="box2"))))),
    )
    with pytest.raises(AttributeError):
        t.name = "x"  # frozen


def test_comparisons_numbers_and_unary_minus():
    t = parse(">=(prob_of(player, empty(box3)), -(0.75))")
    assert t.name == ">=" and t.args[1] == call("-", Num(value=0.75))
    assert parse("<=(1, 2.5e-1)").args == (Num(value=1.0), Num(value=0.25))
    assert parse("-0.5") == Num(value=-0.5)
    for op in (">=", ">", "<", "<=", "=="):
        assert parse(f"{op}(a, b)").name == op


def test_spans_point_into_the_source():
    text = "and(empty(box1),\n    inside(K, box2))"
    t = parse(text)
    assert t.span == Span(0, len(text), 1, 1)
    inside = t.args[1]
    assert text[inside.span.start:inside.span.end] == "inside(K, box2)"
    assert (inside.span.line, inside.span.column) == (2, 5)
    k = inside.args[0]
    assert text[k.span.start:k.span.end] == "K" and k.span.column == 12


def test_equality_ignores_spans_and_whitespace():
    a = parse("believes(player,formula(empty(box1)))")
    b = parse("  believes( player ,\n formula( empty( box1 ) ) )  ")
    assert a == b and hash(a) == hash(b) and a.span != b.span


def test_printer_is_canonical():
    assert pretty(parse("f( a,b ,  g(X,1.50))")) == "f(a, b, g(X, 1.5))"
    assert pretty(parse(">=(x, -(0.2))")) == ">=(x, -(0.2))"


@pytest.mark.parametrize("line", formula_lines(EXAMPLES))
def test_round_trip_on_examples(line):
    t = parse(line)
    assert parse(pretty(t)) == t
    assert pretty(parse(pretty(t))) == pretty(t)


def test_parse_atoms():
    atoms = parse_atoms("inside(key1, box1), closed(box1)")
    assert [a.name for a in atoms] == ["inside", "closed"]
    assert parse_atoms("  ") == ()


# -- generated trees ------------------------------------------------------------------

names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
variables = st.from_regex(r"[A-Z][A-Za-z0-9]{0,3}", fullmatch=True)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=64)
leaves = st.one_of(
    names.map(lambda n: Const(name=n)),
    variables.map(lambda n: Var(name=n)),
    numbers.map(lambda x: Num(value=x)),
)
trees = st.recursive(
    leaves,
    lambda children: st.builds(
        lambda name, args: Call(name=name, args=tuple(args)),
        st.one_of(names, st.sampled_from([">=", ">", "<", "<=", "==", "-"])),
        st.lists(children, min_size=1, max_size=4),
    ),
    max_leaves=30,
)


@given(trees)
def test_round_trip_on_generated_trees(tree):
    assert parse(pretty(tree)) == tree


# -- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message, hint",
    [
        ("believes(player, formula(empty(box1))", "never closed", "add a ')'"),
        ("f(g(h(a", "3 '(' never closed", "add 3 ')'"),
        ("empty(box1))", "closes nothing", "remove this ')'"),
        ("f(a,, b)", "missing argument before ','", "add the missing argument"),
        ("f(a,)", "missing argument before ')'", "remove the ','"),
        ("f()", "'()' with no arguments", "constant without parentheses"),
        ("f(a) g(b)", "after the end of the formula", "exactly one formula"),
        ("f[a]", "unexpected character '['", "use parentheses"),
        ("f('a')", "unexpected character", "no strings"),
        ("K(a)", "only a name can be applied", "variables (uppercase) and numbers take no arguments"),
        ("(a)", "only a name can be applied", "name(arg, ...)"),
        ("f(a b)", "unexpected 'b'", "separate arguments with ','"),
        ("", "empty formula", "believes(player"),
    ],
)
def test_syntax_errors_have_span_and_hint(text, message, hint):
    with pytest.raises(ElotSyntaxError) as info:
        parse(text, path="f.elot")
    error = info.value
    assert message in error.message
    assert hint in error.hint
    assert error.span is not None and error.source == text and error.path == "f.elot"
    assert error.render().startswith(f"f.elot:{error.span.line}:{error.span.column}: syntax error:")


def test_error_caret_points_at_the_fault():
    with pytest.raises(ElotSyntaxError) as info:
        parse("and(empty(box1),\n    inside(K box2))")
    lines = info.value.render().splitlines()
    assert lines[0].startswith("2:14: syntax error")
    assert lines[1] == "        inside(K box2))" and lines[2] == "    " + " " * 13 + "^" * 4


def test_deep_nesting_is_a_clear_error_not_a_crash():
    deep = "not(" * 10_000 + "empty(box1)" + ")" * 10_000
    with pytest.raises(ElotSyntaxError) as info:
        parse(deep)
    assert "nesting too deep" in info.value.message and info.value.hint
    ok = "not(" * (MAX_DEPTH - 1) + "empty(box1)" + ")" * (MAX_DEPTH - 1)
    assert parse(ok).name == "not"


def test_huge_input_is_rejected_with_a_limit():
    huge = "and(" + ", ".join(["empty(box1)"] * 20_000) + ")"
    assert len(huge) > MAX_LENGTH
    with pytest.raises(ElotSyntaxError, match="too large"):
        parse(huge)


def test_non_text_input():
    with pytest.raises(ElotSyntaxError):
        parse(42)  # type: ignore[arg-type]


def test_grammar_is_package_data_with_a_documented_entry_rule():
    text = grammar_text()
    assert START_RULE == "start" and text.count("\nstart:") == 1
    # Plain EBNF only, so it converts to other grammar formats.
    assert "%declare" not in text and "{" not in text.split("//")[0]


# -- bad input: bounded excerpts, numbers out of range, deep terms, one nesting limit -------

def test_input_too_large_shows_a_bounded_excerpt():
    from elot.errors import EXCERPT, ElotSyntaxError
    from elot.lang.parser import parse

    with pytest.raises(ElotSyntaxError) as info:
        parse("x" * 156_000)
    text = info.value.render()
    assert "input too large (156000 characters" in text
    assert len(text) < 2 * EXCERPT + 300 and text.count("\n") < 6


def test_excerpt_keeps_the_caret_under_the_fault():
    from elot.errors import ElotSyntaxError
    from elot.lang.parser import parse

    text = "and(" + ", ".join(["empty(box1)"] * 2000) + ", emp ty(box1), " + ", ".join(["empty(box2)"] * 2000) + ")"
    with pytest.raises(ElotSyntaxError) as info:
        parse(text)
    line, caret = info.value.context_lines()
    assert len(line) < 200 and line.startswith("...") and line.endswith("...")
    assert line[caret.index("^"):].startswith("ty")


@pytest.mark.parametrize("text", ["1e999", ">=(1e999, 0.5)", "not(1e999)", "and(1e999)"])
def test_overflowing_numbers_are_syntax_errors(text, capsys):
    from elot.cli import main

    for command in ("parse", "lower", "check"):
        assert main([command, text]) == 2
        err = capsys.readouterr().err
        assert "number out of range: 1e999" in err and "^^^^^" in err


def test_deep_hand_built_terms_hash_compare_and_print():
    from elot.lang.syntax import Call, Var

    def deep():
        term = Var(name="X")
        for _ in range(5000):
            term = Call(name="not", args=(term,))
        return term

    a, b = deep(), deep()
    assert hash(a) == hash(b) and a == b and repr(a).count("Call(") == 5000
    assert repr(Call(name="f", args=(Var(name="X"),))) == "Call(name='f', args=(Var(name='X'),))"


def test_parse_and_check_share_one_nesting_limit():
    from elot.api import check, parse
    from elot.lang.syntax import MAX_DEPTH

    ok = "not(" * (MAX_DEPTH - 1) + "empty(box1)" + ")" * (MAX_DEPTH - 1)
    assert check(parse(ok)).term == parse(ok)
    too_deep = "not(" + ok + ")"
    for stage in (parse, check):
        with pytest.raises(ElotError, match="nesting too deep"):
            stage(too_deep)
