"""ELoT → English (elot/lang/english.py): golden sentences for every operator, and
properties over generated well-typed formulas."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from helpers import examples
from test_properties import SIG, base_formulas, epistemic_formulas

from elot.errors import ElotSyntaxError
from elot.lang.english import constant, english, shown
from elot.lang.printer import pretty
from elot.lang.syntax import Const, subterms

# Formulas written for these tests (not the dataset's), each with the sentence it reads as.
GOLDEN = [
    # attitudes
    ("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))",
     "The player believes that box 2 has a blue key."),
    ("believes(player, formula(empty(box4)))", "The player believes that box 4 is empty."),
    ("certain(player, formula(not(exists(and(key(K), iscolor(K, red)), inside(K, box3)))))",
     "The player is certain that there is no red key in box 3."),
    ("certain(player, must(exists(key(K), inside(K, box5))))", "The player is certain that box 5 must have a key."),
    ("hopes(player, formula(has(player, key3)))", "The player hopes that the player has key 3."),
    ("hopes(player, might(closed(box2)))", "The player hopes that box 2 might be closed."),
    ("believes(player, formula(empty(box1)), might(exists(key(K), inside(K, box2))))",
     "The player believes that box 1 is empty and that box 2 might have a key."),
    # modal verbs and adjectives
    ("believes(player, might(empty(box1)))", "The player thinks that box 1 might be empty."),
    ("believes(player, may(exists(and(key(K), iscolor(K, green)), inside(K, box4))))",
     "The player thinks that box 4 may have a green key."),
    ("believes(player, could(hidden(gem2)))", "The player thinks that gem 2 could be hidden."),
    ("believes(player, could(not(empty(box2))))",
     "The player thinks that it could be the case that box 2 is not empty."),
    ("believes(player, can(locked(door3)))", "The player thinks that door 3 can be locked."),
    ("believes(player, should(offgrid(key4)))", "The player believes that key 4 should be off the grid."),
    ("believes(player, likely(exists(key(K), inside(K, box3))))", "The player believes that box 3 probably has a key."),
    ("believes(player, likely(not(empty(box2))))", "The player believes that box 2 is probably not empty."),
    ("believes(player, unlikely(exists(key(K), inside(K, box1))))",
     "The player believes that box 1 is unlikely to have a key."),
    ("believes(player, likely(or(empty(box1), empty(box2))))",
     "The player believes that box 1 or box 2 is probably empty."),
    # knowledge
    ("knows_that(player, formula(and(empty(box2), empty(box5))))", "The player knows that box 2 and box 5 are empty."),
    ("knows_if(player, formula(locked(door2)))", "The player knows whether door 2 is locked."),
    ("not_knows_that(player, formula(closed(box4)))", "The player does not know that box 4 is closed."),
    ("not_knows_if(player, formula(has(player, gem1)))", "The player does not know whether the player has gem 1."),
    ("knows_about(player, box(B), exists(and(key(K), iscolor(K, yellow)), inside(K, B)))",
     "The player knows which box has a yellow key."),
    ("not_knows_about(player, box(B), empty(B))", "The player does not know which box is empty."),
    ("certain_about(player, box(B), exists(key(K), inside(K, B)))",
     "The player is certain about which box has a key."),
    ("uncertain_about(player, color(C), exists(and(key(K), inside(K, box4)), iscolor(K, C)))",
     "The player is unsure what colour the key in box 4 is."),
    ("uncertain_if(player, formula(empty(box3)))", "The player is unsure whether box 3 is empty."),
    ("uncertain_if(player, formula(empty(box3)), formula(closed(box3)))",
     "The player is unsure whether box 3 is empty or closed."),
    ("uncertain_if(player, and(key(K), iscolor(K, red)), inside(K, box4), inside(K, box5))",
     "The player is unsure whether the red key is in box 4 or box 5."),
    # comparisons
    ("believes(player, more(likely, exists(key(K), inside(K, box4)), exists(key(K), inside(K, box5))))",
     "The player believes that box 4 is more likely to have a key than box 5."),
    ("believes(player, less(unlikely, empty(box2), empty(box3)))",
     "The player believes that box 2 is more likely to be empty than box 3."),
    ("believes(player, less(likely, empty(box2), has(player, key1)))",
     "The player believes that it is less likely that box 2 is empty than that the player has key 1."),
    ("believes(player, more(likely, box(B), empty(B), closed(B)))",
     "The player believes that for some box, that box is more likely to be empty than to be closed."),
    ("believes(player, equal(likely, empty(box1), empty(box4)))",
     "The player believes that box 1 and box 4 are equally likely to be empty."),
    ("believes(player, equal(unlikely, empty(box1), empty(box2), empty(box5)))",
     "The player believes that box 1, box 2 and box 5 are equally likely to be empty."),
    ("believes(player, most(likely, empty(box3)))", "The player believes that box 3 is most likely empty."),
    ("believes(player, most(likely, exists(key(K), inside(K, box2))))",
     "The player believes that box 2 most likely has a key."),
    ("believes(player, least(likely, empty(box3)))", "The player believes that box 3 is very unlikely to be empty."),
    ("believes(player, most(likely, box4, B, box(B), exists(and(key(K), iscolor(K, red)), inside(K, B))))",
     "The player believes that box 4 is the most likely box to have a red key."),
    ("believes(player, least(likely, box1, B, box(B), empty(B)))",
     "The player believes that box 1 is the least likely box to be empty."),
    # connectives and quantifiers
    ("believes(player, formula(imply(empty(box1), exists(key(K), inside(K, box2)))))",
     "The player believes that if box 1 is empty, then box 2 has a key."),
    ("believes(player, formula(not(or(empty(box4), closed(box4)))))",
     "The player believes that box 4 is not empty or closed."),
    ("believes(player, formula(not(or(empty(box4), empty(box5)))))",
     "The player believes that neither box 4 nor box 5 is empty."),
    ("believes(player, formula(exists(and(key(K), iscolor(K, yellow)), or(inside(K, box4), inside(K, box5)))))",
     "The player believes that box 4 or box 5 has a yellow key."),
    ("believes(player, formula(exists(or(and(key(K), iscolor(K, green)), and(key(K), iscolor(K, red))), inside(K, box5))))",
     "The player believes that box 5 has a green or red key."),
    ("believes(player, formula(forall(box(B), closed(B))))", "The player believes that every box is closed."),
    ("believes(player, formula(exists(and(key(K), iscolor(K, red)), exists(box(B), inside(K, B)))))",
     "The player believes that some box has a red key."),
    ("knows_that(player, formula(not(exists(key(K), exists(box(B), inside(K, B))))))",
     "The player knows that there is no key in any box."),
    ("believes(player, formula(exists(key(K), forall(box(B), inside(K, B)))))",
     "The player believes that there is a key that is in every box."),
    ("believes(player, formula(exists(and(key(K), or(iscolor(K, red), iscolor(K, yellow))), inside(K, box3))))",
     "The player believes that box 3 has a red or yellow key."),
    ("not(forall(box(B), empty(B)))", "Not every box is empty."),
    ("exists(and(box(B), not(==(B, box2))), empty(B))", "There is an empty box other than box 2."),
    ("forall(box(B), exists(key(K), inside(K, B)))", "Every box has a key."),
    ("and(believes(player, formula(empty(box1))), closed(box2))",
     "The player believes that box 1 is empty and box 2 is closed."),
    ("or(knows_that(player, formula(empty(box1))), not(believes(player, formula(empty(box1)))))",
     "Either the player knows that box 1 is empty or it is not the case that the player believes that box 1 is empty."),
    ("exists(box(B), believes(player, formula(empty(B))))",
     "For some box, the player believes that that box is empty."),
    # desires (past the paper)
    ("wants(player, gem1)", "The player wants gem 1."),
    ("likes(player, gem2)", "The player likes gem 2."),
    ("dislikes(player, gem3)", "The player dislikes gem 3."),
    ("likes_best(player, gem1)", "The player likes gem 1 best."),
    ("likes_least(player, gem2)", "The player likes gem 2 least."),
    ("prefers(player, gem1, gem3)", "The player prefers gem 1 to gem 3."),
    ("not(likes(player, gem2))", "The player does not like gem 2."),
    ("and(wants(player, gem1), believes(player, formula(empty(box1))))",
     "The player wants gem 1 and the player believes that box 1 is empty."),
    (">=(prob_goal(player, gem1), threshold(wants))",
     "The probability that gem 1 is the goal of the player is at least the threshold for wants."),
    (">(utility_of(player, gem1), utility_of(player, gem2))",
     "How much the player likes gem 1 is greater than how much the player likes gem 2."),
    # the lowered language, facts, and what has no words
    (">=(prob_of(player, empty(box3)), threshold(believes))",
     "The probability that box 3 is empty, for the player, is at least the threshold for believes."),
    ("<=(-(prob_of(player, empty(box1))), 0.2)",
     "Minus the probability that box 1 is empty, for the player, is at most 0.2."),
    ("iscolor(key2, blue)", "Key 2 is blue."),
    ("key(key1)", "Key 1 is a key."),
    ("==(box1, box2)", "Box 1 is box 2."),
    ("frobnicate(box1)", "frobnicate(box1)."),
    ("believes(player, formula(frobnicate(box1)))", "The player believes that frobnicate(box1)."),
]

INITIAL = [
    ("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))",
     "The player initially believed that box 2 had a blue key."),
    ("believes(player, might(empty(box1)))", "The player initially thought that box 1 might be empty."),
    ("believes(player, may(empty(box1)))", "The player initially thought that box 1 might be empty."),
    ("certain(player, formula(not(exists(key(K), inside(K, box3)))))",
     "The player was initially certain that there was no key in box 3."),
    ("not_knows_about(player, box(B), exists(key(K), inside(K, B)))",
     "The player did not initially know which box had a key."),
    ("believes(player, likely(not(exists(key(K), inside(K, box2)))))",
     "The player initially believed that there was probably no key in box 2."),
    ("empty(box1)", "Initially, box 1 was empty."),
    ("likes_best(player, gem2)", "The player initially liked gem 2 best."),
    ("not(prefers(player, gem2, gem1))", "The player did not initially prefer gem 2 to gem 1."),
]


@pytest.mark.parametrize("formula, sentence", GOLDEN)
def test_each_operator_reads_as_its_golden_sentence(formula, sentence):
    assert english(formula) == sentence


@pytest.mark.parametrize("formula, sentence", INITIAL)
def test_statements_about_the_initial_belief_are_told_in_the_past(formula, sentence):
    assert english(formula, "initial") == sentence


def test_the_golden_sentences_cover_every_operator_and_predicate_of_the_language():
    from elot.lang.operators import OPERATORS

    used = {n.name for f, _ in GOLDEN + INITIAL for n in subterms(english.__globals__["parse"](f))
            if hasattr(n, "args")}
    missing = (OPERATORS | set(SIG.predicate_types)) - used - {"maximum", "minimum", "threshold"} - {">", "<", "=="}
    assert not missing, f"no golden sentence uses {sorted(missing)}"


def test_a_tree_reads_as_its_text_and_the_agent_in_the_domains_words():
    from elot.lang.parser import parse
    from elot.domains.doors_keys_gems.examples import load_example

    tree = parse("believes(human, formula(has(human, key1)))")
    assert english(tree, signature=SIG) == "The human believes that the human has key 1."
    said = SIG.with_words({"human": "the player"})        # the gridworld's words (its scenarios say so)
    assert english(tree, signature=said) == "The player believes that the player has key 1."
    signature = load_example("two-doors").signature()
    assert constant(signature.agent, signature) == "the player"
    assert constant("box12") == "box 12" and constant("player") == "the player"


def test_text_that_is_not_a_formula_is_an_error_for_english_and_kept_for_shown():
    with pytest.raises(ElotSyntaxError):
        english("believes(player, formula(empty(box1))")
    assert shown("believes(player, formula(empty(box1))") == "believes(player, formula(empty(box1))"
    assert shown("The player believes box 1 is empty (probably).") == "The player believes box 1 is empty (probably)."
    assert shown("Yes") == "Yes"
    assert shown("believes(player, formula(empty(box1)))", "initial") == "The player initially believed that box 1 was empty."


@pytest.mark.slow
def test_the_deepest_formulas_the_parser_accepts_are_said_quickly():
    """Each binder's body is said once (saying it again for each pattern tried would cost
    2^depth), and nesting up to the parser's limit stays within Python's stack."""
    from elot.lang.parser import parse
    from elot.lang.syntax import MAX_DEPTH, depth

    nested = {"not": ("not({})", "empty(box1)"), "exists": ("exists(box(B), and(empty(B), {}))", "empty(box1)"),
              "forall": ("forall(key(K), or({}, hidden(K)))", "empty(box2)")}
    for shape, seed in nested.values():
        text = seed
        while depth(parse(text)) + 2 <= MAX_DEPTH:
            text = shape.format(text)
        sentence = english(text)
        assert sentence.endswith(".") and "(" not in sentence


def _objects(term) -> set[str]:
    return {n.name for n in subterms(term) if isinstance(n, Const)
            and n.name in SIG.object_types and SIG.object_types[n.name] != "agent"}


def _check_sentence(term, mode):
    sentence = english(term, mode, signature=SIG)
    assert sentence and sentence.endswith(".") and "\x00" not in sentence
    for name in _objects(term):
        assert constant(name, SIG) in sentence.lower(), (pretty(term), name, sentence)
    assert english(term, mode, signature=SIG) == sentence   # deterministic
    return sentence


@settings(max_examples=examples(300), deadline=None)
@given(epistemic_formulas(depth=2))
def test_every_generated_statement_reads_as_a_sentence_naming_each_object(term):
    _check_sentence(term, "current")
    past = _check_sentence(term, "initial")
    assert "initially" in past.lower()


@settings(max_examples=examples(200), deadline=None)
@given(base_formulas(depth=3))
def test_every_generated_fact_reads_as_a_sentence_naming_each_object(term):
    _check_sentence(term, "current")


LABTOM = Path(os.environ.get("ELOT_LABTOM_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "labtom"))


def test_the_dataset_gold_formulas_read_as_sentences_naming_their_boxes():
    """Every gold formula of the dataset's translations reads as a sentence that names
    what the person's sentence names (boxes by number, colours); skipped without the data."""
    path = LABTOM / "statements" / "exp2_current_gold_unique.csv"
    if not path.is_file():
        pytest.skip("the dataset is not here")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert rows
    for row in rows:
        sentence = english(row["gold_elot"].strip())
        assert "(" not in sentence, sentence   # every gold formula has words
        for word in ("red", "blue", "yellow", "green"):
            assert (word in sentence) == (word in row["gold_elot"]), (row["gold_elot"], sentence)


def test_the_english_command_says_formulas_and_reports_bad_ones(tmp_path):
    from helpers import run_elot

    done = run_elot("english", "--initial", "believes(player, might(exists(key(K), inside(K, box2))))")
    assert (done.returncode, done.stdout) == (0, "The player initially thought that box 2 might have a key.\n")
    lines = tmp_path / "statements.elot"
    lines.write_text("# two statements and a broken one\nempty(box1)\nknows_that(player, formula(empty(box1))\n"
                     "uncertain_about(player, box(B), empty(B))\n")
    done = run_elot("english", "--file", str(lines))
    assert done.returncode == 2
    assert done.stdout == (f"{lines}:2: Box 1 is empty.\n"
                           f"{lines}:4: The player is unsure which box is empty.\n")
    assert f"{lines}:3:" in done.stderr and "hint:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("formula, message", [
    ("inside(box1, key1)", "in the wrong order"),
    ("believes(player, inside(key1, box1))", "wrap it in formula(...)"),
    ("believes(alice, formula(empty(box1)))", "alice"),
    ("foo(bar)", "unknown predicate"),
    ("believes(player, formula(inside(K, box1)))", "variable K is not bound"),
])
def test_the_english_command_typechecks_first(formula, message):
    """An ill-typed formula has no meaning to tell: it is refused as elot check refuses it,
    never turned into a sentence ("Box 1 is in key 1.")."""
    from helpers import run_elot

    done = run_elot("english", formula)
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
    checked = run_elot("check", formula)
    assert checked.returncode == 2


def test_the_english_command_with_a_problem_knows_its_objects(labtom):
    from helpers import run_elot

    problem = str(Path(labtom) / "problems" / "1_1.pddl")
    done = run_elot("english", "--signature", problem, "believes(player, formula(empty(box9)))")
    assert done.returncode == 2 and "box9" in done.stderr
