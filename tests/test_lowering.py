"""Lowering: every rule of SPEC §3, spans of generated nodes, explanations, goldens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elot.lang.checker import check
from elot.errors import ElotTypeError
from elot.lang.lowering import is_lowered, lower, rules
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.lang.syntax import Call, subterms
from elot.lang.typesystem import EPISTEMIC

GOLDEN = Path(__file__).resolve().parent / "golden" / "lang"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "formulas.elot"

P1 = "empty(box1)"
P2 = "empty(box2)"
P3 = "empty(box3)"


def bel(phi: str, name: str = "believes") -> str:
    return f">=(prob_of(player, {phi}), threshold({name}))"


@pytest.mark.parametrize(
    "source, lowered",
    [
        (f"believes(player, formula({P1}))", bel(P1)),
        (f"believes(player, might({P1}))", bel(P1, "might")),
        (f"believes(player, formula({P1}), likely({P2}))", f"and({bel(P1)}, {bel(P2, 'likely')})"),
        (f"certain(player, formula({P1}))", bel(P1, "certain")),
        (f"certain(player, must({P1}))", bel(P1, "must")),
        (f"hopes(player, formula({P1}))", bel(P1, "hopes")),
        (f"hopes(player, could({P1}))", bel(P1, "could")),
        (f"knows_that(player, formula({P1}))", f"and({bel(P1)}, {P1})"),
        (f"knows_if(player, formula({P1}))",
         f"or(and({bel(P1)}, {P1}), and({bel(f'not({P1})')}, not({P1})))"),
        (f"not_knows_that(player, formula({P1}))", f"and(not({bel(P1)}), {P1})"),
        (f"not_knows_if(player, formula({P1}))",
         f"not(or(and({bel(P1)}, {P1}), and({bel(f'not({P1})')}, not({P1}))))"),
        ("knows_about(player, box(B), empty(B))", f"exists(box(B), and({bel('empty(B)')}, empty(B)))"),
        ("not_knows_about(player, box(B), empty(B))",
         f"forall(box(B), or(not({bel('empty(B)')}), not(empty(B))))"),
        ("certain_about(player, box(B), empty(B))", f"exists(box(B), {bel('empty(B)', 'certain')})"),
        ("uncertain_about(player, box(B), empty(B))",
         "forall(box(B), <(prob_of(player, empty(B)), threshold(uncertain)))"),
        (f"uncertain_if(player, formula({P1}), formula({P2}))",
         f"and(<(prob_of(player, {P1}), threshold(uncertain)), <(prob_of(player, {P2}), threshold(uncertain)))"),
        (f"uncertain_if(player, formula({P1}))",
         f"and(<(prob_of(player, {P1}), threshold(uncertain)), <(prob_of(player, not({P1})), threshold(uncertain)))"),
        ("uncertain_if(player, key(K), inside(K, box1), inside(K, box2))",
         "exists(key(K), and(<(prob_of(player, inside(K, box1)), threshold(uncertain)), "
         "<(prob_of(player, inside(K, box2)), threshold(uncertain))))"),
        *[(f"believes(player, {m}({P1}))", bel(P1, m)) for m in ("could", "can", "might", "may", "should", "must", "likely")],
        (f"believes(player, unlikely({P1}))", f"<=(prob_of(player, {P1}), threshold(unlikely))"),
        (f"believes(player, more(likely, {P1}, {P2}))", f">(prob_of(player, {P1}), prob_of(player, {P2}))"),
        (f"believes(player, less(likely, {P1}, {P2}))", f"<(prob_of(player, {P1}), prob_of(player, {P2}))"),
        (f"believes(player, more(unlikely, {P1}, {P2}))",
         f">(-(prob_of(player, {P1})), -(prob_of(player, {P2})))"),
        ("believes(player, more(likely, box(B), empty(B), not(empty(B))))",
         "exists(box(B), >(prob_of(player, empty(B)), prob_of(player, not(empty(B)))))"),
        ("believes(player, less(likely, box(B), empty(B), not(empty(B))))",
         "exists(box(B), <(prob_of(player, empty(B)), prob_of(player, not(empty(B)))))"),
        (f"believes(player, equal(likely, {P1}, {P2}))", f"==(prob_of(player, {P1}), prob_of(player, {P2}))"),
        (f"believes(player, equal(likely, {P1}, {P2}, {P3}))",
         f"and(==(prob_of(player, {P1}), prob_of(player, {P2})), ==(prob_of(player, {P2}), prob_of(player, {P3})))"),
        ("believes(player, most(likely, box2, B, box(B), empty(B)))",
         ">=(prob_of(player, empty(box2)), maximum(box(B), prob_of(player, empty(B))))"),
        ("believes(player, least(likely, box2, B, box(B), empty(B)))",
         "<=(prob_of(player, empty(box2)), minimum(box(B), prob_of(player, empty(B))))"),
        (f"believes(player, most(likely, {P1}))", f">=(prob_of(player, {P1}), threshold(most(likely)))"),
        (f"believes(player, most(unlikely, {P1}))", f"<=(prob_of(player, {P1}), threshold(most(unlikely)))"),
        (f"believes(player, least(likely, {P1}))", f"<=(prob_of(player, {P1}), threshold(most(unlikely)))"),
        (f"believes(player, least(unlikely, {P1}))", f">=(prob_of(player, {P1}), threshold(most(likely)))"),
        (f"and(believes(player, formula({P1})), {P2})", f"and({bel(P1)}, {P2})"),
        ("forall(box(B), believes(player, might(empty(B))))", f"forall(box(B), {bel('empty(B)', 'might')})"),
        (P1, P1),
    ],
)
def test_rules(source, lowered):
    assert pretty(lower(source)) == lowered


def test_substitution_into_most_enters_conditions_that_mention_its_variable():
    # SPEC §2: inside φ, X is bound (by most), so a condition mentioning X tests it
    # rather than rebinding it, and φ[X:=o] replaces X there too.
    got = lower("believes(player, most(likely, box2, B, box(B), and(empty(B), exists(box(B), closed(B)))))")
    assert pretty(got.args[0]) == "prob_of(player, and(empty(box2), exists(box(box2), closed(box2))))"
    got = lower("believes(player, most(likely, box2, B, box(B), exists(and(key(K), inside(K, B)), iscolor(K, red))))")
    assert pretty(got) == (
        ">=(prob_of(player, exists(and(key(K), inside(K, box2)), iscolor(K, red))), "
        "maximum(box(B), prob_of(player, exists(and(key(K), inside(K, B)), iscolor(K, red)))))")


def test_most_renames_its_variable_when_it_shadows_an_outer_one():
    # maximum(C, ...) binds only what is not bound outside, so the shadowing X of
    # most(P, o, X, C, φ) is renamed to keep the extremum ranging over it.
    got = lower("forall(key(B), believes(player, most(likely, box2, B, box(B), empty(B))))")
    assert pretty(got) == "forall(key(B), >=(prob_of(player, empty(box2)), maximum(box(B1), prob_of(player, empty(B1)))))"
    assert check(got).type == EPISTEMIC


def test_substitution_and_free_variables_follow_the_binding_rule():
    from elot.lang.syntax import Const, Var, free_variables, substitute

    inner = parse("exists(and(key(K), inside(K, B)), iscolor(K, red))")
    assert free_variables(inner) == set()  # nothing bound outside: the condition binds B too
    assert free_variables(inner, frozenset({"B"})) == {"B"}
    assert free_variables(parse("forall(box(B), exists(and(key(K), inside(K, B)), iscolor(K, C)))")) == {"C"}
    assert free_variables(parse("knows_about(player, color(C), inside(K, B))"), frozenset({"B"})) == {"B", "K"}
    assert free_variables(parse("most(likely, X, B, box(B), empty(B))"), frozenset({"B"})) == {"X"}
    assert pretty(substitute(inner, {"B": Const(name="box2")})) == "exists(and(key(K), inside(K, box2)), iscolor(K, red))"
    # A variable an inner condition binds is renamed rather than captured.
    assert pretty(substitute(inner, {"B": Var(name="K")})) == "exists(and(key(K1), inside(K1, K)), iscolor(K1, red))"
    # Only the explicit variable of most/least shadows.
    shadow = parse("most(likely, B, B, box(B), empty(B))")
    assert pretty(substitute(shadow, {"B": Const(name="box1")})) == "most(likely, box1, B, box(B), empty(B))"


def test_generated_nodes_keep_the_source_span():
    text = "and(knows_that(player, formula(empty(box1))), believes(player, might(empty(box2))))"
    lowered = lower(text)
    knows = parse(text).args[0]
    first = lowered.args[0]  # and(>=(prob_of(...), threshold(believes)), empty(box1))
    for node in (first, first.args[0], first.args[0].args[0], first.args[0].args[1]):
        assert node.span == knows.span
    # Source subterms keep their own spans.
    assert text[first.args[1].span.start:first.args[1].span.end] == "empty(box1)"
    might = parse(text).args[1].args[1]
    assert lowered.args[1].span == might.span


def test_explain_lists_the_rules_that_fired():
    text = "believes(player, formula(empty(box1)), least(unlikely, empty(box3)))"
    lowered, steps = lower(text, explain=True)
    assert lowered == lower(text)
    assert [s.operator for s in steps] == ["believes", "believes", "believes", "least", "most"]
    assert steps[0].rule == "believes(A, X1, ..., Xn) ⟶ and(believes(A, X1), ..., believes(A, Xn))"
    assert steps[3].rule.startswith("least(P, φ)·A ⟶ most(antonym(P), φ)·A  (deviation")
    assert text[steps[3].span.start:steps[3].span.end] == "least(unlikely, empty(box3))"
    _, steps = lower("believes(player, might(empty(box1)))", explain=True)
    assert steps[-1].rule == "might(φ)·A ⟶ >=(prob_of(A, φ), threshold(might))"


def test_rule_table_has_every_operator_and_marks_deviations():
    table = rules()
    operators = {op for op, _ in table}
    assert {"believes", "certain", "hopes", "knows_that", "knows_if", "not_knows_that", "not_knows_if",
            "knows_about", "not_knows_about", "certain_about", "uncertain_about", "uncertain_if",
            "might", "unlikely", "more", "less", "equal", "most", "least"} <= operators
    deviations = [op for op, text in table if "(deviation" in text]
    assert sorted(deviations) == ["least", "not_knows_if", "uncertain_if", "unlikely"]


def test_lowering_rejects_ill_typed_input():
    with pytest.raises(ElotTypeError):
        lower("knows_that(player, empty(box1))")


def test_bind_free_lowering():
    assert pretty(lower("believes(player, formula(inside(K, box1)))", bind_free=True)) == (
        "exists(item(K), >=(prob_of(player, inside(K, box1)), threshold(believes)))"
    )


def _lines(path: Path) -> list[str]:
    return [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]


def test_examples_lower_to_well_typed_lowered_forms():
    for line in _lines(EXAMPLES):
        lowered = lower(line)
        assert is_lowered(lowered), line
        check(lowered)
        assert not any(isinstance(n, Call) and n.name == "formula" for n in subterms(lowered))


def test_golden_canonical_types_and_lowered_forms():
    """examples/formulas.elot → canonical form, type and lowered form
    (tests/golden/lang/formulas.out); ELOT_UPDATE_GOLDEN=1 rewrites it."""
    out = []
    for line in _lines(EXAMPLES):
        out.append(f"{pretty(parse(line))}\n  type: {check(line).type}\n  lowered: {pretty(lower(line))}")
    got = "\n".join(out) + "\n"
    expected = GOLDEN / "formulas.out"
    if os.environ.get("ELOT_UPDATE_GOLDEN"):
        expected.write_text(got, encoding="utf-8")
    assert got == expected.read_text(encoding="utf-8")
