"""The decoding grammar generated from elot/grammar.lark: accepts every gold formula,
rejects ill-formed ones, and is valid for the constrained decoder (llguidance)."""

from __future__ import annotations

import csv

import pytest

from elot.parser import parse
from elot.printer import pretty
from elot.signature import Signature
from elot.translate.grammar import accepts, decoding_grammar, vocabulary


def _gold(labtom):
    path = labtom / "statements" / "exp2_current_translations.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return sorted({(r["plan_id"], r["gold_elot"].strip()) for r in csv.DictReader(handle)})


def _signature(labtom, plan_id):
    return Signature.from_pddl(labtom / "domain.pddl", labtom / "problems" / f"{plan_id}.pddl")


def test_every_gold_formula_is_accepted(labtom):
    lenient = decoding_grammar(canonical=False, lowered=True, names=())
    for plan_id, formula in _gold(labtom):
        canonical = decoding_grammar(_signature(labtom, plan_id))
        assert accepts(canonical, pretty(parse(formula))), formula
        assert accepts(lenient, formula), formula


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
