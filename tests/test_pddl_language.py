"""ELoT over PDDL worlds: the signature from a domain and problem, candidate goals as objects,
and wants(agent, G) scored against a goal posterior."""

from __future__ import annotations

import numpy as np
import pytest

from elot.domains.pddl.errors import PddlError
from elot.domains.pddl.language import GOAL_TYPE, goal_hypotheses, signature_of
from elot.domains.pddl.read import parse_domain, parse_problem
from elot.errors import ElotError
from elot.judging import score
from elot.statements import compile_statement
from elot.lang.semantics import evaluate

BLOCKS = parse_domain("""
(define (domain block-words) (:requirements :strips :typing :equality)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block) (handempty)
               (holding ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action stack :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y) (not (= ?x ?y)))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))""")

PROBLEM = parse_problem("""
(define (problem tiny) (:domain block-words)
  (:objects e a r - block)
  (:init (handempty) (clear e) (clear a) (clear r) (ontable e) (ontable a) (ontable r))
  (:goal (and (on e a) (on a r))))""", BLOCKS)

WORDS = ("ear", "are", "era")


def test_the_signature_has_the_domains_types_predicates_and_the_goals_as_objects():
    lang = signature_of(BLOCKS, PROBLEM, WORDS)
    sig = lang.signature
    assert lang.goals == WORDS
    assert {o: sig.object_types[o] for o in ("e", "a", "r", "ear", "era")} == {
        "e": "block", "a": "block", "r": "block", "ear": GOAL_TYPE, "era": GOAL_TYPE}
    assert sig.predicate_types["on"] == ("block", "block")
    assert sig.agent == "player" and sig.object_types["player"] == "agent"
    assert "handempty" not in sig.predicate_types and any("handempty" in n for n in lang.notes)
    state = lang.state([("on", "e", "a"), ("handempty",), ("clear", "e")])
    assert state.atoms == frozenset({("on", "e", "a"), ("clear", "e")})
    assert evaluate("exists(block(X), on(e, X))", state, signature=sig) is True
    assert evaluate("on(a, r)", state, signature=sig) is False


def test_a_goal_name_that_is_taken_gets_its_own_object():
    # "on" is a predicate, "a" an object of another kind, "not" an operator: each goal named anew
    lang = signature_of(BLOCKS, PROBLEM, ("on", "not", "ear", "two words"))
    assert lang.goals == ("goal_on", "goal_not", "ear", "goal_two_words")
    assert all(lang.signature.object_types[g] == GOAL_TYPE for g in lang.goals)


def test_a_goal_that_is_an_object_of_the_problem_is_that_object():
    gems = parse_domain("""(define (domain gems) (:requirements :typing) (:types gem)
      (:predicates (has ?g - gem))
      (:action take :parameters (?g - gem) :precondition (and) :effect (has ?g)))""")
    problem = parse_problem("""(define (problem p) (:domain gems) (:objects gem1 gem2 gem3 - gem)
      (:init) (:goal (has gem2)))""", gems)
    lang = signature_of(gems, problem, ("gem1", "gem2"))
    sig = lang.signature
    assert lang.goals == ("gem1", "gem2") and sig.object_types["gem2"] == "gem" and GOAL_TYPE not in sig.parent
    hyps = goal_hypotheses(lang, [0.3, 0.7], lang.state([("has", "gem1")]))
    # gem3 is a gem no candidate goal names: not wanted at all
    assert score(compile_statement("wants(player, gem3)", sig), hyps).P == 0.0
    assert score(compile_statement("wants(player, gem2)", sig), hyps).P == pytest.approx(0.7)


def test_wants_scores_the_goal_posterior():
    lang = signature_of(BLOCKS, PROBLEM, WORDS)
    sig = lang.signature
    state = lang.state([("on", "e", "a"), ("clear", "e"), ("ontable", "a")])
    posterior = np.array([0.6, 0.1, 0.3])
    hyps = goal_hypotheses(lang, posterior, state, prior=[0.5, 0.25, 0.25])
    for word, p in zip(WORDS, posterior):
        got = score(compile_statement(f"wants(player, {word})", sig), hyps)
        assert got.P == pytest.approx(p)
        assert got.pi == pytest.approx({"ear": 0.5, "are": 0.25, "era": 0.25}[word])
    # about the state, everything is visible: the agent believes what holds
    assert score(compile_statement("believes(player, formula(on(e, a)))", sig), hyps).P == pytest.approx(1.0)
    assert score(compile_statement("believes(player, formula(on(a, r)))", sig), hyps).P == 0.0
    # the posterior's goal is the one most wanted; prefers reads the same rows
    assert score(compile_statement("prefers(player, ear, era)", sig), hyps).P == pytest.approx(0.6)
    with pytest.raises(ElotError, match="object"):
        compile_statement("wants(player, pear)", sig)


def test_a_posterior_of_the_wrong_length_is_refused():
    lang = signature_of(BLOCKS, PROBLEM, WORDS)
    with pytest.raises(PddlError, match="one per candidate goal"):
        goal_hypotheses(lang, [0.5, 0.5], lang.state([]))


def test_the_study_goals_as_statements(alanqary2021):
    """Block-Words 4_3 after the misspelt "paer": the P of wants(player, pear) is the model's posterior."""
    from elot.domains.pddl.dataset import load_study
    from elot.domains.pddl.fitting import posterior, prepare

    study = load_study(alanqary2021 / "block-words")
    study = type(study)(study.root, study.domain, tuple(s for s in study.stimuli if s.id == "4_3"))
    (item,) = prepare(study)
    post = posterior(item, "boltzmann-ff", {"beta": 1.5})
    words = [name for name, _ in item.stimulus.goals]
    task = item.tables.task
    lang = signature_of(study.domain, task.grounded.problem, words)
    t = 6
    state = lang.state(task.grounded.atoms_of(task.space.states[item.tables.path.states[t]]))
    assert ("on", "p", "a") in state.atoms and ("on", "a", "e") in state.atoms   # p-a-e-r
    hyps = goal_hypotheses(lang, post[t], state, task.prior)
    got = score(compile_statement("wants(player, pear)", lang.signature), hyps).P
    assert got == pytest.approx(post[t, words.index("pear")]) and got > 0.5
