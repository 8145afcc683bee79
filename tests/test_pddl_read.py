"""Reading PDDL: both readers, round trips, errors at file:line:column, refusals by name."""

from __future__ import annotations

import sys

import pytest

from elot.domains.pddl import printer
from elot.domains.pddl.errors import PddlError, PddlSyntaxError, UnsupportedPddl
from elot.domains.pddl.ground import ground
from elot.domains.pddl.space import state_space
from elot.domains.pddl.read import parse_domain, parse_plan, parse_problem, read_domain, read_problem

TINY = """; a switch and a lamp
(define (domain lamp)
  (:requirements :strips :typing :negative-preconditions)
  (:types lamp)
  (:predicates (on ?l - lamp) (broken ?l - lamp))
  (:action switch-on :parameters (?l - lamp)
    :precondition (and (not (on ?l)) (not (broken ?l)))
    :effect (on ?l))
  (:action switch-off :parameters (?l - lamp) :precondition (on ?l) :effect (not (on ?l))))
"""

TINY_PROBLEM = """(define (problem two) (:domain lamp)
  (:objects a b - lamp)
  (:init (broken b))
  (:goal (on a)))
"""

COUNTER = """(define (domain counter)
  (:requirements :fluents)
  (:predicates (ready))
  (:functions (n) (top))
  (:action inc :precondition (< n top) :effect (increase n 1))
  (:derived (ready) (= n 2))
  (:action dec :precondition (> (n) 0) :effect (decrease (n) 1)))
"""


def test_standard_pddl_is_read_by_the_package_and_round_trips():
    domain = parse_domain(TINY, "lamp.pddl")
    assert domain.reader == "pddl"
    assert [a.name for a in domain.actions] == ["switch-off", "switch-on"]
    again = parse_domain(printer.domain(domain))
    assert again == domain and again.reader == "pddl"
    problem = parse_problem(TINY_PROBLEM, domain)
    assert problem.init == (("broken", ("b",)),)
    assert parse_problem(printer.problem(problem), domain) == problem


def test_the_package_own_formatter_round_trips_what_elot_reads():
    from pddl.formatter import domain_to_string
    from pddl.parser.domain import DomainParser

    raw = DomainParser()(TINY)
    assert DomainParser()(domain_to_string(raw)) == raw
    assert parse_domain(domain_to_string(raw)) == parse_domain(TINY)


def test_the_dialect_is_read_by_elots_reader_and_round_trips():
    domain = parse_domain(COUNTER, "counter.pddl")
    assert domain.reader == "pddl.jl"   # :derived after an action, bare fluent names
    assert parse_domain(printer.domain(domain), reader="pddl.jl") == domain
    problem = parse_problem("(define (problem p) (:domain counter) (:init (= n 0) (= (top) 3)) (:goal (ready)))",
                            domain)
    assert problem.fluents == ((("n", ()), 0), (("top", ()), 3))
    assert parse_problem(printer.problem(problem), domain) == problem


def test_a_parse_error_names_file_line_and_column_and_restores_tracebacklimit():
    had = hasattr(sys, "tracebacklimit")
    broken = TINY.replace("(on ?l))\n  (:action switch-off", "(on ?l)\n  (:action switch-off")
    with pytest.raises(PddlSyntaxError) as caught:
        parse_domain(broken, "lamp.pddl")
    assert caught.value.location().startswith("lamp.pddl:")
    line, column = caught.value.span.line, caught.value.span.column
    # the package read further (to the end) than the dialect's reader (the first ( left open)
    assert (line, column) == (9, 3)
    assert "lamp.pddl:9:3" in caught.value.render() and "lamp.pddl:2:1" in caught.value.notes[0]
    assert hasattr(sys, "tracebacklimit") == had


def test_a_stray_close_is_pointed_at():
    with pytest.raises(PddlSyntaxError) as caught:
        parse_domain(TINY + ")\n", "lamp.pddl")
    assert caught.value.span.line == 10 and caught.value.span.column == 1


def test_an_undeclared_predicate_is_an_error_at_its_place():
    text = COUNTER.replace("(:derived (ready) (= n 2))", "(:derived (ready) (full n))")
    with pytest.raises(PddlError) as caught:
        parse_domain(text, "c.pddl")
    assert "undeclared predicate full" in caught.value.message
    assert (caught.value.span.line, caught.value.span.column) == (6, 21)


def test_the_package_accepts_an_undeclared_predicate_and_the_grounder_refuses_it():
    domain = parse_domain(TINY.replace(":precondition (on ?l) :effect", ":precondition (lit ?l) :effect"))
    problem = parse_problem(TINY_PROBLEM, domain)
    with pytest.raises(PddlError, match="undeclared predicate lit"):
        ground(domain, problem)


def test_a_feature_elot_does_not_ground_is_refused_by_name():
    text = TINY.replace(":effect (on ?l))", ":effect (and (on ?l) (when (on ?l) (broken ?l))))").replace(
        ":negative-preconditions", ":negative-preconditions :conditional-effects")
    domain = parse_domain(text)
    with pytest.raises(UnsupportedPddl) as caught:
        ground(domain, parse_problem(TINY_PROBLEM, domain))
    assert caught.value.feature == "conditional effects" and caught.value.hint


def test_recursive_derived_predicates_are_refused_by_name():
    text = COUNTER.replace("(:derived (ready) (= n 2))", "(:derived (ready) (ready))")
    domain = parse_domain(text)
    problem = parse_problem("(define (problem p) (:domain counter) (:init (= n 0) (= top 3)) (:goal (ready)))",
                            domain)
    from elot.domains.pddl.goals import GoalTask

    grounded = ground(domain, problem)   # no action uses (ready): grounding alone is fine
    with pytest.raises(UnsupportedPddl, match="recursive derived predicates"):
        GoalTask(grounded, state_space(grounded), ()).masks([problem.goal])


def test_a_plan_is_read_with_places():
    steps = parse_plan("(up)\n; a comment\n(unlock key1 right)\n")
    assert [s.text() for s in steps] == ["(up)", "(unlock key1 right)"]
    assert steps[1].span.line == 3
    with pytest.raises(PddlSyntaxError):
        parse_plan("(up (down))")


def test_both_studies_round_trip(alanqary2021):
    for study in ("doors-keys-gems", "block-words"):
        domain = read_domain(alanqary2021 / study / "domain.pddl")
        assert domain.reader == ("pddl.jl" if study == "doors-keys-gems" else "pddl")
        assert parse_domain(printer.domain(domain), reader=domain.reader) == domain
        for path in sorted((alanqary2021 / study / "problems").glob("*.pddl")):
            problem = read_problem(path, domain)
            assert parse_problem(printer.problem(problem), domain) == problem


def test_the_dialects_quirks_are_read(alanqary2021):
    domain = read_domain(alanqary2021 / "doors-keys-gems" / "domain.pddl")
    bare = read_problem(alanqary2021 / "doors-keys-gems" / "problems" / "scenario-1-4.pddl", domain)
    wrapped = read_problem(alanqary2021 / "doors-keys-gems" / "problems" / "scenario-1-1.pddl", domain)
    assert dict(bare.fluents)[("width", ())] == 8 and dict(wrapped.fluents)[("width", ())] == 9
    assert dict(wrapped.fluents)[("ydiff", ("down",))] == -1
    stray = read_problem(alanqary2021 / "doors-keys-gems" / "problems" / "scenario-1-2.pddl", domain)
    assert stray.ignored == (("loc", ("2", "9")),) and "loc" in stray.notes()[0]
