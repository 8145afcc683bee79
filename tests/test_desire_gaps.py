"""Issue 35, the desire operators finished: particle inference keeps each particle's goal,
so desire statements score under smc as under exact inference; ``elot fit`` fits the desire
thresholds; the REPL's ``:explain`` speaks of goal probabilities and utilities for them;
and ``.domain`` files give words for the offline translator."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elot.domains.doors_keys_gems.config import InferenceConfig
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.examples import load_example
from elot.cli import main
from elot.embedding import parse_domain
from elot.errors import ScenarioError
from elot.judging import score
from elot.statements import compile_statement
from elot.lang.thresholds import Thresholds
from elot.domains.rows import judged as judged_rows

# -- 1. particles keep desires --------------------------------------------------------------


@pytest.mark.parametrize("name, seed", [("default", 3), ("two-doors", 11), ("empty-box", 7), ("yellow-green", 2)])
def test_desire_statements_under_particles_agree_with_exact_within_their_standard_error(name, seed):
    """wants/likes_best/prefers under smc are the particles' estimate of exact inference's
    goal posterior: within four of the estimate's own standard errors at every step where
    the goal is still uncertain, and at the end (L: exact π = 1/G against the particles'
    estimate from prior draws)."""
    scenario = load_example(name)
    exact = infer(scenario)
    smc = infer(scenario, InferenceConfig(method="smc", particles=4000, seed=seed))
    gems = list(exact.goal_posterior(0))
    statements = [f"wants(player, {g})" for g in gems] + [f"likes_best(player, {gems[0]})",
                                                          f"prefers(player, {gems[-1]}, {gems[0]})"]
    uncertain = [t for t in range(exact.steps + 1) if max(exact.goal_posterior(t).values()) < 0.97]
    checked = 0
    for t in uncertain + [exact.steps]:
        rows_exact, rows_smc = judged_rows(exact, t), judged_rows(smc, t)
        for text in statements:
            want = score(compile_statement(text, rows_exact.signature), rows_exact)
            got = score(compile_statement(text, rows_smc.signature), rows_smc)
            assert got.stderr is not None and got.stderr >= 0
            assert abs(got.L - want.L) <= 4 * got.stderr + 1e-9, (name, t, text, got, want)
            checked += want.L not in (0.0, 1.0)
        # the rows beliefs are judged on stay the (state, belief) rows: desires are made apart
        assert rows_smc.desires is None and rows_smc.desire_rows().desires is not None
    assert checked >= 3 * len(gems)   # statements that were uncertain: the comparison could fail


def test_particle_desire_rows_follow_the_particles_goals():
    """P(wants g) under smc is the particles' weight on goal g, exactly."""
    import numpy as np

    smc = infer(load_example("default"), InferenceConfig(method="smc", particles=500, seed=5))
    t = 6
    particles = smc.particles_by_step[t]
    weights = particles.weights()
    rows = judged_rows(smc, t)
    for i, gem in enumerate(smc.space.goals):
        got = score(compile_statement(f"wants(player, {gem})", rows.signature), rows)
        assert got.P == pytest.approx(float(weights[particles.goal == i].sum()), abs=1e-12)
    full = rows.desire_rows()
    assert np.isclose(full.weights.sum(), 1.0) and len(full) >= len(rows.weights) - len(full.weights) + 1


def test_elot_run_scores_a_desire_statement_with_particles(capsys):
    code = main(["run", "--inference", "smc", "--particles", "1000", "--seed", "1",
                 "-s", "wants(player, gem2)", "-s", "believes(player, formula(empty(box1)))", "--json", "-"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for judgment in json.loads(out)["judgments"]:
        wants, belief = judgment["statements"]
        assert "error" not in wants and wants["posterior"] is not None
        assert wants["posterior"] == pytest.approx(judgment["goal_posterior"]["gem2"], abs=0.15)


# -- 2. elot fit fits the desire thresholds ---------------------------------------------------

TRUCKS = """\
scenario left-check-empty
map 1
spot2 empty
start 1 1
moves W N N stay S S S eat

scenario right-look-mexican
map 2
spot2 mexican
start 13 1
moves E N N N stay eat

scenario straight-to-korean
map 1
spot2 lebanese
start 7 1
moves W W W W W W W S eat
"""

DESIRES = ("likes(student, mexican)", "likes(student, korean)", "likes(student, lebanese)",
           "dislikes(student, lebanese)", "dislikes(student, korean)", "dislikes(student, mexican)")


def test_fit_recovers_the_desire_thresholds_ratings_were_made_at(tmp_path, capsys):
    """Ratings are the model's own L at likes 0.7 and dislikes 0.35 (elot batch): the fit,
    starting from the defaults (0.5, 0.25), moves both there (the grid values that tie with
    them lie farther from the start) with r = 1, above r at the defaults."""
    scenarios = tmp_path / "three.trucks"
    scenarios.write_text(TRUCKS)
    table = tmp_path / "table.csv"
    args = ["batch", str(scenarios), "--beta", "2.5", "-o", str(table), "--thresholds", "likes=0.7,dislikes=0.35"]
    for text in DESIRES:
        args += ["-s", text]
    assert main(args) == 0, capsys.readouterr().err
    ratings = tmp_path / "ratings.csv"
    with table.open(newline="") as source, ratings.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["scenario", "mode", "t", "statement", "formula", "rating"])
        writer.writeheader()
        for row in csv.DictReader(source):
            writer.writerow({**{k: row[k] for k in ("scenario", "mode", "t", "statement", "formula")},
                             "rating": row["L"]})
    fitted = tmp_path / "fit.json"
    code = main(["fit", "--domain", "foodtrucks", str(ratings), "--model", "btom", "--beta", "2.5",
                 "--samples", "20", "-o", str(fitted)])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(fitted.read_text())
    assert data["thresholds"]["likes"] == pytest.approx(0.7) and data["thresholds"]["dislikes"] == pytest.approx(0.35)
    assert data["r"] == pytest.approx(1.0, abs=1e-9)
    assert "wants" in data["unconstrained"] and not {"likes", "dislikes"} & set(data["unconstrained"])
    assert "likes" in out and "dislikes" in out
    # at the defaults the same statements score otherwise: r with the ratings is below 1
    import numpy as np

    at_defaults = tmp_path / "defaults.csv"
    assert main([*args[:5], str(at_defaults), *args[8:]]) == 0
    made = {(r["scenario"], r["t"], r["statement"]): float(r["L"]) for r in csv.DictReader(table.open(newline=""))}
    default = {(r["scenario"], r["t"], r["statement"]): float(r["L"])
               for r in csv.DictReader(at_defaults.open(newline=""))}
    keys = sorted(made)
    r_default = np.corrcoef([made[k] for k in keys], [default[k] for k in keys])[0, 1]
    assert r_default < data["r"] - 1e-3


def test_fit_leaves_desire_thresholds_of_goal_hypotheses_unconstrained(tmp_path):
    """Doors-Keys-Gems: a goal hypothesis's utilities are 1 and 0, its goal probability 1
    or 0, so no value in the grid of likes/wants changes a row: unconstrained, at the start."""
    from pathlib import Path

    scenario = Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "default.scn"
    rows = ["scenario,mode,t,statement,rating"]
    for t, rating in ((4, 3), (6, 6), (13, 7)):
        rows.append(f'{scenario},current,{t},"wants(player, gem2)",{rating}')
        rows.append(f'{scenario},current,{t},"likes(player, gem1)",{8 - rating}')
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["fit", str(ratings), "--samples", "20", "-o", str(tmp_path / "fit.json")]) == 0
    data = json.loads((tmp_path / "fit.json").read_text())
    assert {"wants", "likes", "dislikes"} <= set(data["unconstrained"])
    assert data["thresholds"]["wants"] == Thresholds().wants and data["thresholds"]["likes"] == Thresholds().likes


# -- 3. the REPL's :explain for desires -------------------------------------------------------


def test_explain_speaks_of_goal_probabilities_for_a_desire_statement():
    from elot.repl.commands import execute
    from elot.repl.render import plain_text
    from elot.session import Session

    session = Session.open("default")
    session.goto(6)
    explanation = session.explain("wants(player, gem2)")
    assert explanation.desires and explanation.columns == ["prob_goal(player, gem2)"]
    assert ("wants", 0.5) in explanation.thresholds
    assert explanation.score.posterior == pytest.approx(sum(m for _, holds, m, _ in explanation.groups if holds))
    # the groups are by goal: the rows holding gem2 as goal and the others
    assert {values for values, *_ in explanation.groups} == {(0.0,), (1.0,)}
    text = plain_text(*execute(session, ":explain wants(player, gem2)"))
    assert "grouped by their goal probabilities (prob_goal)" in text and "#hyps" in text
    assert "g1 = prob_goal(player, gem2)" in text
    assert "prob_goal: the probability that the object is the agent's goal" in text
    assert "prob_of" not in text and "#pairs" not in text
    text = plain_text(*execute(session, ":explain prefers(player, gem1, gem2)"))
    assert "grouped by their utilities (utility_of)" in text and "u1 = utility_of(player, gem" in text
    assert "utility_of: the agent's utility for the object on the desire scale" in text
    # a belief statement is explained as before
    text = plain_text(*execute(session, ":explain believes(player, formula(empty(box1)))"))
    assert "grouped by prob_of values" in text and "#pairs" in text and "#hyps" not in text


# -- 4. words in .domain files ----------------------------------------------------------------

TRUCK_DOMAIN = """\
# the food-truck world, with English
agent student
object korean lebanese mexican : truck
object spot1 spot2 : spot
predicate at(truck, spot)
predicate empty(spot)
words student = the student
words korean = the Korean truck
words lebanese = the Lebanese truck
words mexican = the Mexican truck | the Mexican food truck
words at(_, spot1) = in view of the start
words at(_,spot2) = behind the building | around the corner
"""


def test_a_domain_file_gives_words_to_the_translator():
    from elot.translate import translate

    sig = parse_domain(TRUCK_DOMAIN, path="trucks.domain")
    assert sig.phrases("mexican") == ("the Mexican truck", "the Mexican food truck")
    assert sig.phrases("at(_, spot2)") == ("behind the building", "around the corner")
    said = translate("The student thought the Lebanese truck was behind the building.", signature=sig,
                     translator="offline")
    assert said.formula == "believes(player, formula(at(lebanese, spot2)))"   # player: the observed agent
    best = translate("The student likes the Mexican food truck best.", signature=sig, translator="offline")
    assert best.formula == "likes_best(player, mexican)"
    # the same as with_words in Python
    plain = parse_domain("\n".join(x for x in TRUCK_DOMAIN.splitlines() if not x.startswith("words")))
    assert plain.words == () and sig.words == plain.with_words(
        {"student": "the student", "korean": "the Korean truck", "lebanese": "the Lebanese truck",
         "mexican": ["the Mexican truck", "the Mexican food truck"], "at(_, spot1)": "in view of the start",
         "at(_, spot2)": ["behind the building", "around the corner"]}).words


@pytest.mark.parametrize("line, column, message", [
    ("words at(_, spot9) = behind the shed", 7, "words are for objects or atoms about _"),
    ("words thai = the Thai truck", 7, "words are for objects or atoms about _"),
    ("words mexican the Mexican truck", 1, "cannot read this words line"),
    ("words mexican = the Mexican truck | ", 1, "cannot read this words line"),
    ("wrods mexican = the Mexican truck", 1, "unknown declaration 'wrods'"),
])
def test_a_bad_words_line_is_an_error_at_its_line(line, column, message):
    text = TRUCK_DOMAIN + line + "\n"
    number = text.count("\n")
    with pytest.raises(ScenarioError, match=message) as caught:
        parse_domain(text, path="trucks.domain")
    first = str(caught.value).splitlines()[0]
    assert first.startswith(f"trucks.domain:{number}:{column}: "), first
    assert caught.value.hint


_PHRASE = st.text(alphabet="abcdefghij KLM'=-,", min_size=1, max_size=20).filter(lambda p: p.strip())


@given(st.lists(st.tuples(st.sampled_from(["mexican", "student", "at(_, spot2)", "at(_,spot1)", "empty(_)"]),
                          st.lists(_PHRASE, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_words_lines_read_as_with_words_says(entries):
    """Generated words lines (any phrases without | or #, '=' included) give the signature
    that with_words gives from the same phrases, key by key in order."""
    base = "\n".join(x for x in TRUCK_DOMAIN.splitlines() if not x.startswith("words"))
    text = base + "\n" + "\n".join(f"words {key} = {' | '.join(phrases)}" for key, phrases in entries) + "\n"
    want = parse_domain(base)
    for key, phrases in entries:
        want = want.with_words({key: phrases})
    assert parse_domain(text).words == want.words
