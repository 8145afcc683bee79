"""Theory of mind in ELoT (SPEC §10, issue #43): beliefs about beliefs, percepts and events.

The classic tasks' statements, written over a domain declared here: Sally–Anne (first-order
false belief, and Anne's belief about Sally's), Smarties (unexpected contents), seeing leads
to knowing, and Perner & Wimmer's ice-cream van (second-order false belief). Each is typed,
lowered, evaluated against hand-made situations with the numbers worked by hand, said in
English, and read back by the offline translator to an equivalent formula.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from elot.embedding import BeliefModelError, Hypotheses, declare, judge, parse_domain
from elot.errors import ElotTypeError, EvaluationError, ScenarioError
from elot.lang.checker import check
from elot.lang.english import english
from elot.lang.equivalence import equivalent
from elot.lang.lowering import is_lowered, lower
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.lang.semantics import Belief, State, compile_formula, evaluate
from elot.lang.syntax import subterms
from elot.lang.typesystem import EPISTEMIC
from elot.translate import translate

WORDS = {
    "sally": "Sally", "anne": "Anne", "john": "John", "mary": "Mary",
    "marble": "the marble", "basket": "the basket", "box": "the box",
    "tube": "the tube", "candy": "the candy", "pencil": "the pencil",
    "van": "the ice-cream van", "park": "the park", "church": "the church",
    "move": "the marble being moved", "look": "the look inside the tube",
}
#: The four tasks' agents, things and places, with two events: Anne moving the marble, and
#: someone looking inside the Smarties tube. Sally is the observed agent (``player``).
TOM = declare(
    objects={"agent": ["sally", "anne", "john", "mary"], "container": ["basket", "box", "tube"],
             "thing": ["marble", "candy", "pencil"], "place": ["park", "church"], "vehicle": ["van"]},
    predicates={"inside": ("thing", "container"), "at": ("vehicle", "place")},
    events=["move", "look"],
).with_words(WORDS)


def state(text: str) -> State:
    return State.parse(text, signature=TOM)


# -- Sally–Anne, by hand ------------------------------------------------------------------------

#: The situations: the world and what each agent saw. s0: the marble in the basket, nothing
#: happened; s1: Anne moved it to the box while Sally was out; s2: the same, and Sally peeked.
S0 = state("inside(marble, basket)")
S1 = state("inside(marble, box), happened(move), observed(anne, move)")
S2 = state("inside(marble, box), happened(move), observed(anne, move), observed(sally, move)")
SITUATIONS = [S0, S1, S2]
#: Sally believes what she saw: without the move, the marble is where she left it.
M_SALLY = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
#: Anne knows where the marble is, and thinks Sally peeked with probability 0.2.
M_ANNE = np.array([[1.0, 0.0, 0.0], [0.0, 0.8, 0.2], [0.0, 0.8, 0.2]])


def sally_anne(**extra) -> Hypotheses:
    """The observer's hypotheses: Sally did not peek (0.9) or did (0.1); each agent's belief
    in each row is its table's at the true situation."""
    return Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={}, weights=np.array([0.9, 0.1]),
                                  true_index=np.array([1, 2]),
                                  belief_tables={"sally": M_SALLY, "anne": M_ANNE}, **extra)


@pytest.mark.parametrize("formula, P, L", [
    # first order: Sally's false belief (true where she did not peek)
    ("believes(sally, formula(inside(marble, basket)))", 0.9, 0.9),
    ("knows_about(sally, container(C), inside(marble, C))", 0.1, 0.1),
    # second order: Pr_anne(believes(sally, basket)) = 0.8·1 (s1) + 0.2·0 (s2) = 0.8 ≥ 0.75
    ("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", 1.0, 1.0),
    ("certain(anne, formula(believes(sally, formula(inside(marble, basket)))))", 0.0, 0.0),
    # Anne's 0.8 that Sally did not see, and it is so in s1 only
    ("knows_that(anne, formula(not(observed(sally, move))))", 0.9, 0.9),
    ("observed(sally, move)", 0.1, 0.1),
    # Sally about Anne: in s0 (what Sally believes in s1) Anne's belief is s0; in s2 Anne is
    # sure it is in the box: Anne knows where it is in whatever Sally believes
    ("believes(sally, formula(knows_about(anne, container(C), inside(marble, C))))", 1.0, 1.0),
    # depth 3: Sally about Anne about Sally. In s1 Sally believes s0, where Anne believes s0,
    # where Sally believes the basket: true; in s2 Sally believes s2, where Anne gives 0.8 to
    # s1 (Sally: basket): Pr = 0.8, so Anne believes it there too: true
    ("believes(sally, formula(believes(anne, formula(believes(sally, formula(inside(marble, basket)))))))", 1.0, 1.0),
])
def test_sally_anne_by_hand(formula, P, L):
    got = judge(formula, sally_anne())
    assert (got.P, got.L) == pytest.approx((P, L), abs=1e-12)


def test_nested_probabilities_are_the_sums_of_spec_10():
    """Pr_a(believes(b, φ)) = Σ_s Bel_a(s) · 1[Pr_{Bel_b(s)}(φ) ≥ θ], row by row."""
    rows = sally_anne()
    anne = M_ANNE[rows.true_index]
    compiled = compile_formula("prob_of(anne, believes(sally, formula(inside(marble, basket))))", TOM)
    got = compiled.value(rows.worlds, {}, rows.true_index, belief_tables=rows.belief_tables)
    sally_thinks_basket = (M_SALLY @ np.array([1.0, 0.0, 0.0])) >= 0.75
    assert got.tolist() == (anne @ sally_thinks_basket).tolist() == [0.8, 0.8]


def test_a_missing_table_is_an_error_naming_the_agent():
    rows = Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={"anne": M_ANNE[[1, 2]]}, weights=np.array([0.9, 0.1]),
                                  true_index=np.array([1, 2]), belief_tables={"anne": M_ANNE})
    with pytest.raises(EvaluationError) as caught:
        judge("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", rows)
    assert "what anne believes about sally's belief" in caught.value.message
    assert "no belief table of sally" in caught.value.message
    assert "belief_tables={'sally': (S, S) array}" in caught.value.hint
    assert caught.value.span.column == 33   # at sally in the statement
    # without any table, the outer agent's belief is what is missing
    bare = Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={"sally": M_SALLY[[1, 2]]},
                                  weights=np.array([0.9, 0.1]), true_index=np.array([1, 2]))
    with pytest.raises(EvaluationError, match="no belief of anne was given"):   # the outer agent's, first
        judge("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", bare)


def test_row_beliefs_come_first_and_the_table_serves_where_none_is_given():
    """A row's own belief of an agent is its depth-1 belief; without one, the table's row at
    the row's true situation (here the same, so the scores agree)."""
    statement = "believes(anne, formula(not(observed(sally, move))))"
    given = Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={"anne": M_ANNE[[1, 2]]}, weights=np.array([0.9, 0.1]),
                                   true_index=np.array([1, 2]))
    assert judge(statement, given).score == judge(statement, sally_anne()).score
    doubting = Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={"anne": np.array([[0, 0.5, 0.5], [0, 0.5, 0.5]])},
                                      weights=np.array([0.9, 0.1]), true_index=np.array([1, 2]),
                                      belief_tables={"sally": M_SALLY, "anne": M_ANNE})
    assert judge(statement, doubting).P == 0.0


def test_triples_with_tables_of_beliefs_in_situations():
    tables = {"sally": {S0: S0, S1: S0, S2: S2},
              "anne": {S0: S0, S1: Belief.of([(S1, 0.8), (S2, 0.2)]), S2: "0.8: " + str(S1) + " | 0.2: " + str(S2)}}
    rows = Hypotheses.of([(S1, {"anne": Belief.of([(S1, 0.8), (S2, 0.2)])}, 0.9),
                          (S2, {"anne": Belief.of([(S1, 0.8), (S2, 0.2)])}, 0.1)], TOM, belief_tables=tables)
    got = judge("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", rows)
    assert got.P == 1.0
    with pytest.raises(BeliefModelError, match="sally's belief table gives no belief in the situation"):
        Hypotheses.of([(S1, {"anne": S1}, 1.0)], TOM, belief_tables={"sally": {S1: S0}})


@pytest.mark.parametrize("table, message", [
    (np.eye(2), r"must be an \(S, S\) = \(3, 3\) array"),
    (np.full((3, 3), 0.5), "row 0 of sally's belief table sums to 1.5"),
    (-np.eye(3), "hold -1.0"),
])
def test_tables_are_checked(table, message):
    with pytest.raises(BeliefModelError, match=message):
        Hypotheses.from_arrays(TOM, SITUATIONS, beliefs={}, weights=np.array([1.0]), true_index=np.array([0]),
                               belief_tables={"sally": table})


def test_evaluate_takes_several_agents_and_tables():
    tables = {"sally": {S0: Belief.point(S0), S1: Belief.point(S0), S2: Belief.point(S2)},
              "anne": {S0: Belief.point(S0), S1: Belief.of([(S1, 0.8), (S2, 0.2)]),
                       S2: Belief.of([(S1, 0.8), (S2, 0.2)])}}
    anne = Belief.of([(S1, 0.8), (S2, 0.2)])
    assert evaluate("prob_of(anne, believes(sally, formula(inside(marble, basket))))", S1, {"anne": anne},
                    signature=TOM, belief_tables=tables) == 0.8
    assert evaluate("believes(sally, formula(inside(marble, basket)))", S1, signature=TOM, belief_tables=tables)
    with pytest.raises(EvaluationError, match="gives no belief in the situation"):
        evaluate("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", S1, {"anne": anne},
                 signature=TOM, belief_tables={"anne": tables["anne"], "sally": {S1: Belief.point(S0)}})


def test_one_agent_at_depth_one_never_reads_the_tables():
    """Tables of NaN change nothing for a formula that does not nest: the same bits."""
    rows = np.array([[0.25, 0.5, 0.25], [1 / 3, 1 / 3, 1 / 3], [0.0, 0.1, 0.9]])
    nan = {"sally": np.full((3, 3), np.nan)}
    for formula in ("prob_of(sally, inside(marble, box))", "prob_of(player, or(observed(sally, move), happened(move)))"):
        compiled = compile_formula(formula, TOM)
        plain = compiled.value(SITUATIONS, rows, np.array([0, 1, 2]))
        assert plain.tobytes() == compiled.value(SITUATIONS, rows, np.array([0, 1, 2]), belief_tables=nan).tobytes()


# -- typing and lowering ----------------------------------------------------------------------

def test_nested_formulas_type_and_lower_to_nested_comparisons_with_spans():
    text = "believes(anne, formula(believes(sally, formula(inside(marble, basket)))))"
    assert check(text, TOM).type == EPISTEMIC
    lowered = lower(text, TOM)
    assert pretty(lowered) == (">=(prob_of(anne, >=(prob_of(sally, inside(marble, basket)), threshold(believes))), "
                               "threshold(believes))")
    assert is_lowered(lowered) and check(lowered, TOM).type == EPISTEMIC
    # each generated node keeps the span of the operator it came from
    tree = parse(text)
    inner_prob = next(n for n in subterms(lower(tree, TOM)) if getattr(n, "name", "") == "prob_of"
                      and n.args[0].name == "sally")
    assert inner_prob.span == tree.args[1].args[0].span   # the inner believes(sally, ...)
    assert parse(pretty(tree)) == tree


@pytest.mark.parametrize("text, lowered", [
    ("knows_that(anne, formula(believes(sally, formula(inside(marble, basket)))))",
     "and(>=(prob_of(anne, >=(prob_of(sally, inside(marble, basket)), threshold(believes))), threshold(believes)), "
     ">=(prob_of(sally, inside(marble, basket)), threshold(believes)))"),
    ("believes(anne, might(observed(sally, move)))", ">=(prob_of(anne, observed(sally, move)), threshold(might))"),
    ("believes(john, likely(believes(mary, formula(at(van, park)))))",
     ">=(prob_of(john, >=(prob_of(mary, at(van, park)), threshold(believes))), threshold(likely))"),
    ("knows_about(john, place(P), believes(mary, formula(at(van, P))))",
     "exists(place(P), and(>=(prob_of(john, >=(prob_of(mary, at(van, P)), threshold(believes))), "
     "threshold(believes)), >=(prob_of(mary, at(van, P)), threshold(believes))))"),
])
def test_lowering_rules_apply_inside_quoted_formulas(text, lowered):
    assert pretty(lower(text, TOM)) == lowered


@pytest.mark.parametrize("text, message, hint", [
    ("believes(anne, believes(sally, formula(inside(marble, box))))", "is an epistemic formula (E)",
     "to nest a belief, quote it: formula(believes(sally, formula(inside(marble, box))))"),
    ("believes(anne, formula(wants(sally, marble)))", "is about what an agent wants",
     "state the desire outside the belief"),
    ("observed(marble, move)", "observed expects agent here", "observed(agent, event)"),
    ("happened(sally)", "happened expects event here", "happened(event)"),
])
def test_ill_typed_theory_of_mind_formulas_say_how_to_fix_them(text, message, hint):
    with pytest.raises(ElotTypeError) as caught:
        check(text, TOM)
    error = caught.value.errors[0]
    assert message in error.message and hint in error.hint


# -- events in a domain -------------------------------------------------------------------------

def test_a_domain_file_declares_events_with_their_percept_predicates():
    sig = parse_domain("agent sally anne\nobject marble : thing\nobject basket box : container\n"
                       "predicate inside(thing, container)\nevent move\nwords move = the marble being moved\n")
    assert sig.objects_of("event") == ("move",)
    assert sig.predicate_types["observed"] == ("agent", "event") and sig.predicate_types["happened"] == ("event",)
    assert english("observed(anne, move)", signature=sig) == "Anne saw the marble being moved."
    with pytest.raises(ScenarioError, match="a domain with events has the percept predicate observed"):
        parse_domain("agent sally\nevent move\npredicate observed(agent)\n")


# -- English and translation --------------------------------------------------------------------

#: (formula, current English, initial English): one statement or more per task.
STATEMENTS = [
    # Sally–Anne: first-order false belief, knowledge, and Anne's belief about it
    ("believes(sally, formula(inside(marble, basket)))",
     "Sally believes that the marble is in the basket.", "Sally initially believed that the marble was in the basket."),
    ("not_knows_about(sally, container(C), inside(marble, C))",
     "Sally does not know which container the marble is in.",
     "Sally did not initially know which container the marble was in."),
    ("knows_about(anne, container(C), inside(marble, C))",
     "Anne knows which container the marble is in.", "Anne initially knew which container the marble was in."),
    ("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))",
     "Anne thinks that Sally thinks that the marble is in the basket.",
     "Anne initially thought that Sally thought that the marble was in the basket."),
    ("knows_that(anne, formula(believes(sally, formula(inside(marble, basket)))))",
     "Anne knows that Sally thinks that the marble is in the basket.",
     "Anne initially knew that Sally thought that the marble was in the basket."),
    ("believes(sally, formula(knows_about(anne, container(C), inside(marble, C))))",
     "Sally thinks that Anne knows which container the marble is in.",
     "Sally initially thought that Anne knew which container the marble was in."),
    # what Sally saw
    ("not(observed(sally, move))", "Sally did not see the marble being moved.",
     "Initially, Sally did not see the marble being moved."),
    ("knows_that(anne, formula(not(observed(sally, move))))",
     "Anne knows that Sally did not see the marble being moved.",
     "Anne initially knew that Sally did not see the marble being moved."),
    ("believes(sally, formula(not(happened(move))))", "Sally believes that the marble was not moved.",
     "Sally initially believed that the marble was not moved."),
    ("believes(anne, might(observed(sally, move)))", "Anne thinks that Sally might have seen the marble being moved.",
     "Anne initially thought that Sally might have seen the marble being moved."),
    # Smarties: the tube holds pencils; before looking Sally thinks candy, and that Anne will too
    ("believes(sally, formula(inside(candy, tube)))", "Sally believes that the candy is in the tube.",
     "Sally initially believed that the candy was in the tube."),
    ("believes(sally, formula(believes(anne, formula(inside(candy, tube)))))",
     "Sally thinks that Anne thinks that the candy is in the tube.",
     "Sally initially thought that Anne thought that the candy was in the tube."),
    ("knows_that(sally, formula(inside(pencil, tube)))", "Sally knows that the pencil is in the tube.",
     "Sally initially knew that the pencil was in the tube."),
    # seeing leads to knowing
    ("observed(anne, look)", "Anne saw the look inside the tube.", "Initially, Anne saw the look inside the tube."),
    ("knows_about(anne, thing(T), inside(T, tube))", "Anne knows which thing is in the tube.",
     "Anne initially knew which thing was in the tube."),
    # Perner & Wimmer: John does not know that Mary heard the van was moving to the church
    ("believes(john, formula(believes(mary, formula(at(van, park)))))",
     "John thinks that Mary thinks that the ice-cream van is at the park.",
     "John initially thought that Mary thought that the ice-cream van was at the park."),
    ("knows_about(mary, place(P), at(van, P))", "Mary knows which place the ice-cream van is at.",
     "Mary initially knew which place the ice-cream van was at."),
    ("not_knows_that(john, formula(knows_about(mary, place(P), at(van, P))))",
     "John does not know that Mary knows which place the ice-cream van is at.",
     "John did not initially know that Mary knew which place the ice-cream van was at."),
]


@pytest.mark.parametrize("formula, current, initial", STATEMENTS, ids=[s[1][:60] for s in STATEMENTS])
def test_theory_of_mind_statements_read_as_english(formula, current, initial):
    assert english(formula, signature=TOM) == current
    assert english(formula, "initial", signature=TOM) == initial


def _situations() -> list[State]:
    """Situations enough to tell the statements apart: where the marble, the candy and the
    van are, and every combination of the percepts."""
    out = []
    percepts = ["observed(sally, move)", "observed(anne, move)", "happened(move)", "observed(anne, look)"]
    for marble, tube, van in itertools.product(["basket", "box"], ["candy", "pencil"], ["park", "church"]):
        for chosen in itertools.product([False, True], repeat=len(percepts)):
            atoms = [f"inside(marble, {marble})", f"inside({tube}, tube)", f"at(van, {van})"]
            atoms += [p for p, on in zip(percepts, chosen) if on]
            out.append(state(", ".join(atoms)))
    return out


@pytest.mark.parametrize("formula, current, initial", STATEMENTS, ids=[s[1][:60] for s in STATEMENTS])
def test_the_english_translates_back_to_an_equivalent_formula(formula, current, initial):
    """english(f), read by the offline translator, means f (elot/lang/equivalence.py: every
    situation × sampled beliefs of every agent, and sampled tables for nested formulas), in
    the mode it was said in."""
    situations = _situations()
    for mode, sentence in (("current", current), ("initial", initial)):
        back = translate(sentence, translator="offline", signature=TOM)
        same, counterexample = equivalent(formula, back.formula, TOM, states=situations)
        assert same, f"{sentence!r} reads as {back.formula}:\n{counterexample}"
        assert back.mode == mode


@pytest.mark.parametrize("sentence, formula", [
    ("Sally knows where the marble is.", "knows_about(player, container(C), inside(marble, C))"),
    ("Sally knows which container holds the marble.", "knows_about(player, container(C), inside(marble, C))"),
    ("Anne knows which container has the marble.", "knows_about(anne, container(C), inside(marble, C))"),
    ("Sally doesn't know where the marble is.", "not_knows_about(player, container(C), inside(marble, C))"),
    ("Sally is unsure which container the marble is in.", "uncertain_about(player, container(C), inside(marble, C))"),
    ("Mary knows where the ice-cream van is.", "knows_about(mary, place(P), at(van, P))"),
    ("Anne thinks that Sally thinks that the marble is in the basket.",
     "believes(anne, formula(believes(sally, formula(inside(marble, basket)))))"),
    ("Anne believes that Sally believes the marble is in the basket.",
     "believes(anne, formula(believes(sally, formula(inside(marble, basket)))))"),
    ("John thinks Mary thinks the ice-cream van is at the park.",
     "believes(john, formula(believes(mary, formula(at(van, park)))))"),
    ("Anne knows that Sally thinks that the marble is in the basket.",
     "knows_that(anne, formula(believes(sally, formula(inside(marble, basket)))))"),
    ("Sally saw the marble being moved.", "observed(player, move)"),
    ("Sally didn't see the marble being moved.", "not(observed(player, move))"),
    ("Anne thinks Sally missed the marble being moved.", "believes(anne, formula(not(observed(sally, move))))"),
    ("Sally thinks the marble was not moved.", "believes(player, formula(not(happened(move))))"),
    ("Anne thinks that Sally might have seen the marble being moved.", "believes(anne, might(observed(sally, move)))"),
])
def test_theory_of_mind_sentences_translate(sentence, formula):
    got = translate(sentence, translator="offline", signature=TOM)
    assert (got.formula, got.mode) == (formula, "current")


def test_what_is_not_an_event_is_not_a_percept():
    """'saw that φ' is knowing, and a thing that is not an event is not seen as one."""
    sig = declare(objects={"agent": ["sally"], "container": ["basket"], "thing": ["marble"]},
                  predicates={"inside": ("thing", "container")}, events=["move"])
    got = translate("Sally saw that the marble is in the basket.", translator="offline", signature=sig)
    assert got.formula == "knows_that(player, formula(inside(marble, basket)))"


def test_explain_columns_show_a_nested_probability_per_hypothesis():
    """The REPL's :explain columns (elot.lang.analysis) of a nested statement: Anne's
    probability that Sally believes it, one number per row, read with the tables."""
    from elot.lang.analysis import prob_columns
    from elot.lang.thresholds import Thresholds

    rows = sally_anne()
    lowered = lower("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", TOM)
    columns = prob_columns(lowered, TOM, Thresholds(), rows.worlds, {}, rows.true_index,
                           belief_tables=rows.belief_tables)
    assert [(name, values.tolist()) for name, values in columns] == [
        ("prob_of(anne, >=(prob_of(sally, inside(marble, basket)), threshold(believes)))", [0.8, 0.8])]


def test_equivalence_tells_a_belief_about_a_belief_from_the_belief():
    """Sampled tables make believing that one believes φ differ from believing φ (no
    introspection is assumed), and leave a formula equal to itself written otherwise."""
    nested = "believes(player, formula(believes(player, formula(empty(box1)))))"
    same, counterexample = equivalent(nested, "believes(player, formula(empty(box1)))")
    assert not same and counterexample is not None
    assert equivalent(nested, "believes(player, formula(not(not(believes(player, formula(empty(box1)))))))") == (True, None)


def test_a_session_over_a_belief_model_with_tables_scores_explains_and_values_nested_beliefs():
    """The REPL's session hands the tables to every reading of a nested statement: its
    score, its :explain columns and a nested probability's value (not only the score loop)."""
    from elot.session import Session

    class Watched:
        name = "sally-anne-tables"
        signature = TOM
        times = range(2)

        def hypotheses(self, t):
            return sally_anne()

    session = Session.open_model(Watched())
    nested = "believes(anne, formula(believes(sally, formula(inside(marble, basket)))))"
    assert session.score(nested).posterior == pytest.approx(1.0)
    explained = session.explain(nested)
    assert explained.columns == ["prob_of(anne, >=(prob_of(sally, inside(marble, basket)), threshold(believes)))"]
    assert explained.groups[0][0] == (0.8,)
    value = session.value("prob_of(anne, believes(sally, formula(inside(marble, basket))))")
    assert value.mean == pytest.approx(0.8)
