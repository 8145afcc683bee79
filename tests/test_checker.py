"""The ELoT typechecker: types, overloads, variable binding, and its error messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elot.lang.checker import check
from elot.errors import ElotError, ElotTypeError
from elot.lang.parser import parse
from elot.domains.doors_keys_gems.pddl import signature_of
from elot.lang.signature import Signature
from elot.lang.typesystem import ADJECTIVE, BASE, EPISTEMIC, MODAL, NUMERIC, PROP, Obj, is_subtype

GOLDEN = Path(__file__).resolve().parent / "golden" / "lang"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "formulas.elot"


def errors_of(text: str, **kw) -> list[ElotTypeError]:
    with pytest.raises(ElotTypeError) as info:
        check(text, **kw)
    return list(info.value.errors)


@pytest.mark.parametrize(
    "text, type_",
    [
        ("empty(box3)", BASE),
        ("exists(key(K), inside(K, box1))", BASE),
        ("formula(empty(box3))", PROP),
        ("might(empty(box1))", MODAL),
        ("more(likely, empty(box1), empty(box2))", MODAL),
        ("believes(player, formula(empty(box3)))", EPISTEMIC),
        ("and(believes(player, formula(empty(box1))), empty(box1))", EPISTEMIC),
        ("prob_of(player, empty(box1))", NUMERIC),
        ("threshold(most(likely))", NUMERIC),
        (">=(prob_of(player, empty(box1)), threshold(believes))", EPISTEMIC),
        ("likely", ADJECTIVE),
        ("box1", Obj("box")),
        ("player", Obj("agent")),
    ],
)
def test_types(text, type_):
    assert check(text).type == type_


def test_subtyping():
    sig = Signature.default()
    assert is_subtype(BASE, EPISTEMIC, sig.is_subdomain)
    assert not is_subtype(EPISTEMIC, BASE, sig.is_subdomain)
    assert is_subtype(Obj("key"), Obj("item"), sig.is_subdomain)
    assert is_subtype(Obj("agent"), Obj("physical"), sig.is_subdomain)
    assert not is_subtype(Obj("box"), Obj("item"), sig.is_subdomain)
    assert str(MODAL) == "E/A" and str(Obj("box")) == "O[box]"


@pytest.mark.parametrize(
    "text",
    [
        "believes(player, formula(empty(box1)), formula(empty(box2)), might(empty(box3)))",
        "certain(player, must(empty(box1)))",
        "hopes(player, formula(empty(box1)))",
        "uncertain_if(player, formula(empty(box1)))",
        "uncertain_if(player, formula(empty(box1)), formula(empty(box2)))",
        "uncertain_if(player, and(key(K), iscolor(K, red)), inside(K, box1), inside(K, box2))",
        "believes(player, more(likely, box(B), empty(B), not(empty(B))))",
        "believes(player, less(unlikely, empty(box1), empty(box2)))",
        "believes(player, equal(likely, empty(box1), empty(box2), empty(box3)))",
        "believes(player, most(likely, empty(box1)))",
        "believes(player, least(likely, box2, B, box(B), empty(B)))",
        "forall(box(B), knows_about(player, color(C), exists(and(key(K), inside(K, B)), iscolor(K, C))))",
        "exists(or(and(key(K), iscolor(K, red)), and(key(K), iscolor(K, blue))), inside(K, box2))",
        "believes(human, formula(empty(box1)))",
    ],
)
def test_overloads_resolve(text):
    sig = Signature.from_objects({**dict(Signature.default().objects), "human": "agent"}, agent="human")
    check(text, sig)


def test_variable_types_are_inferred():
    # From a type predicate, from predicate argument types, and from the body.
    check("exists(box(B), empty(B))")
    check("exists(inside(K, B), hidden(K))")
    check("believes(player, formula(exists(and(key(K), iscolor(K, C)), inside(K, box1))))")
    check("exists(or(key(K), gem(K)), offgrid(K))")


def test_an_inner_condition_tests_an_outer_variable_instead_of_rebinding_it():
    # SPEC §2: a condition binds only the variables not already bound outside. The inner
    # inside(K, B) tests the outer B, so B keeps its outer type.
    check("forall(box(B), exists(and(key(K), inside(K, B)), iscolor(K, red)))")
    check("forall(box(B), knows_about(player, color(C), exists(and(key(K), inside(K, B)), iscolor(K, C))))")
    check("uncertain_about(player, box(B), exists(and(key(K), inside(K, B)), iscolor(K, red)))")
    (e,) = errors_of("forall(key(B), exists(and(key(K), inside(K, B)), iscolor(K, red)))")
    assert e.message == "inside expects box here, but B is an object of type key (O[key])"
    (e,) = errors_of("exists(box(X), exists(key(X), inside(X, box1)))")
    assert "inside expects item here, but X is an object of type box" in e.message
    errors = errors_of("exists(box(X), and(exists(key(X), hidden(X)), hidden(X)))")
    assert [e.message for e in errors] == ["hidden expects item here, but X is an object of type box (O[box])"] * 2
    # Every binding operator with a condition follows the rule.
    for text in ("knows_about(player, key(B), exists(and(key(K), inside(K, B)), hidden(K)))",
                 "believes(player, more(likely, key(B), exists(and(key(K), inside(K, B)), hidden(K)), empty(box1)))",
                 "uncertain_if(player, key(B), exists(and(key(K), inside(K, B)), hidden(K)), empty(box1))",
                 "forall(key(B), certain_about(player, and(key(K), inside(K, B)), hidden(K)))"):
        assert any("inside expects box here, but B is an object of type key" in e.message for e in errors_of(text))


def test_the_binding_table_names_every_operator_with_a_condition():
    from elot.lang.operators import ABOUT
    from elot.lang.syntax import CONDITION_POSITION, QUANTIFIERS

    assert {name for name, _ in CONDITION_POSITION} == set(QUANTIFIERS) | set(ABOUT) | {
        "uncertain_if", "more", "less", "most", "least"}


def test_infer_bindings_binds_only_what_is_not_bound_outside():
    from elot.lang.bindings import infer_bindings
    from elot.lang.parser import parse

    sig = Signature.default()
    cond = parse("and(key(K), inside(K, B))")
    assert infer_bindings(cond, [], sig) == {"B": "box", "K": "key"}
    assert infer_bindings(cond, [], sig, bound={"B"}) == {"K": "key"}
    assert infer_bindings(cond, [], sig, bound={"B", "K"}) == {}


def test_the_explicit_variable_of_most_and_least_shadows_an_outer_one():
    # most(P, o, X, C, φ) names X explicitly: it is bound there even if an outer X is.
    check("forall(key(B), believes(player, most(likely, box2, B, box(B), empty(B))))")
    check("forall(box(B), believes(player, least(likely, key1, B, key(B), hidden(B))))")
    (e,) = errors_of("forall(key(B), believes(player, most(likely, box2, B, box(B), hidden(B))))")
    assert "hidden expects item here, but B is an object of type box" in e.message


def test_every_error_is_collected_with_its_span():
    text = "believes(player, formula(and(inisde(key1, box1), empty(box7))), migth(empty(box2)))"
    errors = errors_of(text)
    assert [text[e.span.start:e.span.end] for e in errors] == [
        "inisde(key1, box1)", "box7", "migth(empty(box2))",
    ]
    assert [e.hint[:17] for e in errors] == ["did you mean 'ins", "did you mean 'box", "did you mean 'mig"]


@pytest.mark.parametrize(
    "text, message, hint",
    [
        ("knows_that(player, empty(box1))", "is a base formula", "wrap it in formula(...): formula(empty(box1))"),
        ("believes(player, empty(box1))", "is a base formula", "wrap it in formula(...)"),
        ("believes(player, formula(inisde(key1, box1)))", "unknown predicate or operator 'inisde'", "did you mean 'inside'?"),
        ("iscolor(key1, pink)", "unknown object 'pink'", "known objects of type color: blue, green, red, yellow"),
        ("inside(key1)", "inside takes 2 arguments, got 1", "inside(item, box)"),
        ("exists(key(K), inside(box1, K))", "wrong order", "inside(item, box): inside(K, box1)"),
        ("closed(key1)", "closed expects box here", "closed(box)"),
        ("believes(player, formula(inside(K, box1)))", "variable K is not bound", "bind_free=True"),
        ("and(might(empty(box1)), empty(box2))", "is a modal (E/A) that needs an agent", "believes(player, might(empty(box1)))"),
        ("believes(player, formula(empty(box1), empty(box2)))", "formula(...) quotes one base formula, got 2", "and(...)"),
        ("formula(might(empty(box1)))", "modal", "believes(player, might"),
        ("believes(box1, formula(empty(box1)))", "must be an agent", "player"),
        ("knows_that(player, might(empty(box1)))", "not a modal", "believes(A, M)"),
        ("exists(C, empty(box1))", "must be a base formula that binds its variables", "key(K)"),
        ("exists(and(key(K), box(K)), inside(K, box1))", "incompatible types", "different variable"),
        ("forall(box(B), not(==(B, box3)), empty(B))", "condition and a formula, got 3", "forall(and(C1, C2), φ)"),
        ("and(empty(box1))", "and cannot take 1 argument", "two or more"),
        ("believes(player, more(probable, empty(box1), empty(box2)))", "adjective", "likely or unlikely"),
        ("threshold(mgiht)", "unknown threshold", "did you mean 'might'?"),
        ("believes(player, most(likely, key1, B, box(B), empty(B)))", "B ranges over box", "most(likely, box2, B, box(B), φ)"),
        ("box1(K)", "is an object, not a predicate", "no arguments"),
        (">=(prob_of(player, empty(box1)), empty(box2))", "must be a number", "prob_of"),
        ("exists(and(box(B), believes(player, formula(empty(B)))), empty(B))", "epistemic formula (E)", "outside"),
        ("believes(player, believes(player, formula(empty(box1))))", "epistemic formula (E)",
         "to nest a belief, quote it: formula(believes(player, formula(empty(box1))))"),
        ("believes(player, formula(and(empty(box1), wants(player, gem1))))", "about what an agent wants",
         "state the desire outside the belief"),
        ("uncertain_about(player, color(C), empty(box1), empty(box2))", "cannot take 4 arguments", "uncertain_about(A, C, φ)"),
    ],
)
def test_error_messages(text, message, hint):
    (e, *_) = errors_of(text)
    assert message in e.message, e.render()
    assert hint in e.hint, e.render()
    assert e.span is not None and e.source == text


def test_bind_free_binds_free_variables_existentially_at_the_top():
    checked = check("believes(player, formula(inside(K, box1)))", bind_free=True)
    assert checked.type == EPISTEMIC
    assert checked.term == check("exists(item(K), believes(player, formula(inside(K, box1))))").term
    (e,) = errors_of("believes(player, formula(==(X, X)))", bind_free=True)
    assert "cannot infer the type of the free variable X" in e.message


def test_signature_from_objects_and_pddl(labtom):
    sig = signature_of(labtom / "domain.pddl", labtom / "problems" / "1_1.pddl")
    assert sig.agent == "human" and sig.resolve("player") == "human"
    assert sig.objects_of("key") == ("key1", "key2", "key3")
    check("believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box3))))", sig)
    (e,) = errors_of("believes(player, formula(empty(box4)))", signature=sig)
    assert "unknown object 'box4'" in e.message
    assert signature_of(None, labtom / "problems" / "1_1.pddl").predicate_types == sig.predicate_types


def test_hand_built_deep_trees_are_rejected_cleanly():
    from elot.lang.syntax import Const, call

    t = call("empty", Const(name="box1"))
    for _ in range(5000):
        t = call("not", t)
    with pytest.raises(ElotError, match="nesting too deep"):
        check(t)


def _render_errors(path: Path) -> str:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        try:
            check(line)
            out.append(f"{line}\n  (no error)")
        except ElotError as error:
            out.append(error.render())
    return "\n\n".join(out) + "\n"


def test_golden_errors():
    """Every bad input's full error text (tests/golden/lang/bad.errors); set
    ELOT_UPDATE_GOLDEN=1 to rewrite it after an intended change."""
    got = _render_errors(GOLDEN / "bad.elot")
    expected = GOLDEN / "bad.errors"
    if os.environ.get("ELOT_UPDATE_GOLDEN"):
        expected.write_text(got, encoding="utf-8")
    assert got == expected.read_text(encoding="utf-8")
    assert "(no error)" not in got


def test_predicate_domains_counts_type_predicates_only_when_asked():
    # A predicate seen first used to overwrite the `types` flag, so type predicates after
    # it were counted even when they should not be.
    from elot.lang.bindings import predicate_domains

    term = parse("or(inside(K, box1), key(K))")
    assert predicate_domains(term, "K", Signature.default()) == ["item"]
    assert predicate_domains(term, "K", Signature.default(), types=True) == ["item", "key"]


def test_every_non_atom_of_a_state_gets_the_example_hint_computed_once(monkeypatch):
    """check_atoms names an example atom in the hint of each atom that is not one, and
    looks for that example once per call, not once per bad atom."""
    from elot.lang import checker
    from elot.domains.doors_keys_gems.load import load_scenario

    signature = load_scenario("default").signature()
    calls = []
    found = checker._example_atom
    monkeypatch.setattr(checker, "_example_atom", lambda sig: calls.append(sig) or found(sig))
    with pytest.raises(ElotTypeError) as info:
        checker.check_atoms([parse("box1"), parse("inside(K, box1)"), parse("box2")], signature)
    example = found(signature)
    assert [e.hint for e in info.value.errors] == [f"a state lists predicates applied to objects, e.g. {example}"] * 3
    assert example.startswith("closed(") and len(calls) == 1
    checker.check_atoms([parse("closed(box1)")], signature)
    assert len(calls) == 1
