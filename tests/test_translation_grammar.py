"""The decoding grammar generated from elot/grammar.lark: accepts every gold formula,
rejects ill-formed ones, and is valid for the constrained decoder (llguidance)."""

from __future__ import annotations

import csv

import pytest

from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.domains.doors_keys_gems.pddl import signature_of
from elot.lang.signature import Signature
from elot.translate.grammar import accepts, decoding_grammar, vocabulary


def _gold(labtom):
    path = labtom / "statements" / "exp2_current_translations.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return sorted({(r["plan_id"], r["gold_elot"].strip()) for r in csv.DictReader(handle)})


def _signature(labtom, plan_id):
    return signature_of(labtom / "domain.pddl", labtom / "problems" / f"{plan_id}.pddl")


@pytest.mark.slow
def test_every_gold_formula_is_accepted(labtom):
    lenient = decoding_grammar(canonical=False, lowered=True, names=())
    for plan_id, formula in _gold(labtom):
        canonical = decoding_grammar(_signature(labtom, plan_id))
        assert accepts(canonical, pretty(parse(formula))), formula
        assert accepts(lenient, formula), formula


@pytest.mark.slow
def test_every_gold_lowered_formula_is_accepted_by_the_lowered_grammar(labtom):
    path = labtom / "statements" / "exp2_current_translations.csv"
    lowered = decoding_grammar(canonical=False, lowered=True, names=())
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            text = row["gold_lowered"].strip()
            try:
                parse(text)
            except Exception:
                continue  # a few hand-written forms in the data are truncated
            assert accepts(lowered, text), text


@pytest.mark.parametrize("bad", [
    "believes(player, formula(empty(box1))",        # unbalanced
    "believes(player formula(empty(box1)))",        # missing comma
    "believes(player, formula(empty(box9)))",       # no such object in the default signature
    "believes(player, formula(empty(box1))) and",   # trailing junk
    "Believes(player, formula(empty(box1)))",       # a variable cannot be applied
    "believes(player, formula())",                  # empty argument list
    "believes[player]",
    ">=(prob_of(player, empty(box1)), threshold(believes))",  # lowered: not for decoding
    "believes(player,formula(empty(box1)))",        # canonical spacing required when decoding
    "",
])
def test_ill_formed_rejected(bad):
    assert not accepts(decoding_grammar(), bad)


def test_names_come_from_the_signature():
    sig = Signature.from_objects({"box1": "box", "box2": "box", "key1": "key", "pink": "color"})
    grammar = decoding_grammar(sig)
    assert accepts(grammar, "believes(player, formula(exists(and(key(K), iscolor(K, pink)), inside(K, box2))))")
    assert not accepts(grammar, "believes(player, formula(empty(box3)))")
    assert not accepts(grammar, "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box2))))")
    names = vocabulary(sig)
    assert {"believes", "might", "formula", "exists", "inside", "box", "box1", "pink", "player"} <= set(names)
    assert "prob_of" not in names


def test_generated_from_grammar_lark_not_copied():
    grammar = decoding_grammar(names=())
    # the rules of grammar.lark, printed back; the entry is a call (a statement, never a
    # bare name), which grammar.lark's generic `start: term` would also accept
    assert grammar.splitlines()[2] == "start: call"
    assert "call: functor LPAR term" in grammar
    assert "VARIABLE: /[A-Z][A-Za-z0-9_]*/" in grammar


def test_valid_for_llguidance():
    llguidance = pytest.importorskip("llguidance", reason="llguidance comes with the llm extra")
    for grammar in (decoding_grammar(), decoding_grammar(canonical=False, lowered=True, names=())):
        error = llguidance.LLMatcher.validate_grammar(llguidance.grammar_from("lark", grammar))
        assert not error, error


# -- the typed grammar: operator arities and argument kinds ------------------------------

from elot.translate.grammar import typed_grammar  # noqa: E402


@pytest.mark.slow
def test_typed_grammar_accepts_every_typechecking_gold_formula(labtom):
    from elot.lang.checker import check
    from elot.errors import ElotError

    paths = [labtom / "statements" / "exp2_current_translations.csv",
             *sorted((labtom / "statements" / "exp1").glob("*_in_vs_out.csv"))]
    seen = 0
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                formula = (row.get("gold_elot") or row.get("formula") or "").strip()
                sig = _signature(labtom, row["plan_id"])
                try:
                    check(formula, sig)
                except ElotError:
                    continue      # a few gold formulas in the data do not typecheck
                assert accepts(typed_grammar(sig), pretty(parse(formula))), formula
                seen += 1
    assert seen > 300


@pytest.mark.slow
def test_typed_grammar_accepts_our_examples_and_corpus():
    from pathlib import Path

    from elot.translate import prompt

    grammar = typed_grammar()
    formulas = [e["formula"] for e in prompt.prompt_data()["examples"]]
    for name in ("translation_corpus.csv", "translation_heldout.csv"):
        with open(Path(__file__).parent / "fixtures" / name, newline="", encoding="utf-8") as handle:
            formulas += [r["gold_elot"] for r in csv.DictReader(handle)]
    for formula in formulas:
        assert accepts(grammar, formula), formula


@pytest.mark.parametrize("bad", [
    "believes(player, might(empty(box1), empty(box2)))",     # might takes one formula
    "believes(player, empty(box1))",                         # a fact must be quoted: formula(...)
    "certain(player, formula(empty(box1)), formula(empty(box2)))",  # only believes takes several
    "knows_that(player, might(empty(box1)))",                # knowledge of a plain fact only
    "believes(player, formula(inside(box1, K)))",            # inside(item, box), not (box, item)
    "believes(player, formula(iscolor(K, box1)))",           # a box is not a colour
    "believes(box1, formula(empty(box1)))",                  # the agent is the player
    "believes(player, more(likely, empty(box1)))",           # more compares two
    "believes(player, most(likely, box1, B, empty(B)))",     # most takes 2 or 5 arguments
    "believes(player, formula(believes(player, formula(empty(box1)))))",  # no attitude inside a fact
    "empty(box1)",                                           # a translation is a statement
    "uncertain_about(player, empty(box1))",                  # a condition and a formula
])
def test_typed_grammar_rejects_what_the_typechecker_would(bad):
    assert accepts(decoding_grammar(), bad) or bad == "believes(player, formula(inside(box1, K)))"
    assert not accepts(typed_grammar(), bad)


def test_typed_grammar_is_valid_for_llguidance():
    llguidance = pytest.importorskip("llguidance", reason="llguidance comes with the llm extra")
    error = llguidance.LLMatcher.validate_grammar(llguidance.grammar_from("lark", typed_grammar()))
    assert not error, error


def test_typed_grammar_is_canonical_and_within_the_generic_one():
    # a random walk through the typed grammar with guidance's mock model: every complete
    # sample is canonical ELoT, and no sample fails the typechecker on an arity
    models = pytest.importorskip("guidance.models", reason="the decoder needs guidance")
    import guidance

    from elot.lang.checker import check
    from elot.errors import ElotError

    grammar, generic = typed_grammar(), decoding_grammar()
    lm = models.Mock()
    complete = 0
    for _ in range(30):
        text = str((lm + "ELoT: " + guidance.lark(grammar, name="f", max_tokens=120))["f"]).strip()
        if not accepts(grammar, text):
            continue      # cut off at the token limit
        complete += 1
        assert accepts(generic, text) and pretty(parse(text)) == text
        try:
            check(text)
        except ElotError as error:
            assert "cannot take" not in error.message, (text, error.message)   # arity errors
    assert complete >= 1
