"""Counterbalanced survey orders (elot.survey.design): places, scenarios and statements
balanced whatever the numbers (Hypothesis), the cases of issue #34 D3, and the numbers
a survey build refuses."""

from __future__ import annotations

import pytest
from helpers import run_elot
from hypothesis import given
from hypothesis import strategies as st

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey import SurveyError
from elot.survey.design import Settings, make_orders


@pytest.fixture(scope="module")
def stimulus_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stim") / "set"
    stimuli.make_stimuli([ScenarioRef("default")], folder, jobs=1, mp4=False, cell_px=24)
    return folder



def _design(free: int, pairs: int, controls: int, statements: int, per_point: int, **settings):
    names = [f"s{n}" for n in range(free + 2 * pairs + controls)]
    scenarios = [{"name": n, "statements": [{"text": f"{n}/{j}", "mode": "current"} for j in range(statements)]}
                 for n in names]
    pair_list = [[names[free + 2 * j], names[free + 2 * j + 1]] for j in range(pairs)]
    control_list = names[free + 2 * pairs:]
    orders = make_orders(scenarios, Settings(pairs=pair_list, controls=control_list,
                                             statements_per_point=per_point, **settings))
    return orders, pair_list, control_list


def _spread(counts) -> int:
    counts = list(counts)
    return max(counts) - min(counts)


@given(st.integers(1, 5), st.integers(0, 2), st.integers(0, 2), st.integers(1, 6), st.integers(1, 3),
       st.integers(1, 30), st.integers(0, 6), st.integers(0, 3))
def test_orders_are_balanced_in_places_scenarios_and_statements(free, pairs, controls, statements, per_point,
                                                                n_orders, per, seed):
    """Each scenario and control takes each place equally often ±1; pairs are never
    together and their members, like every unit, are shown equally often ±1; every
    statement of a scenario is asked equally often ±1."""
    units = free + pairs
    per = None if per == 0 or per > units else per
    orders, pair_list, control_list = _design(free, pairs, controls, statements, per_point, orders=n_orders,
                                              scenarios_per_participant=per, seed=seed)
    assert len(orders) == n_orders
    width = (per or units) + controls
    places: dict = {}
    asked: dict = {}
    shown: dict = {}
    for order in orders:
        names = [t["scenario"] for t in order["trials"]]
        assert len(names) == width == len(set(names))
        assert all(not set(pair) <= set(names) for pair in pair_list)
        assert all(c in names for c in control_list)
        for place, trial in enumerate(order["trials"]):
            places.setdefault(trial["scenario"], [0] * width)[place] += 1
            shown[trial["scenario"]] = shown.get(trial["scenario"], 0) + 1
            assert trial["control"] == (trial["scenario"] in control_list)
            assert len(trial["statements"]) == min(per_point, statements) == len(set(trial["statements"]))
            for n in trial["statements"]:
                asked.setdefault(trial["scenario"], [0] * statements)[n] += 1
    for name, counts in places.items():
        assert _spread(counts) <= 1, (name, counts)
    for name, counts in asked.items():
        assert _spread(counts) <= 1, (name, counts)
    unit_counts = [shown.get(f"s{n}", 0) for n in range(free)]
    unit_counts += [shown.get(a, 0) + shown.get(b, 0) for a, b in pair_list]
    assert _spread(unit_counts) <= 1
    for a, b in pair_list:
        assert abs(shown.get(a, 0) - shown.get(b, 0)) <= 1


@given(st.integers(2, 7), st.integers(2, 4), st.integers(1, 3), st.integers(0, 5))
def test_statement_pairs_are_asked_together_evenly(statements, per_point, cycles, seed):
    """A balanced incomplete block design in cycles: after each complete cycle through the
    C(m, k) sets every pair of statements was asked together equally often; for k = 2
    every pair stays within one of the others in every order."""
    from itertools import combinations
    from math import comb

    per_point = min(per_point, statements)
    sets = comb(statements, per_point)
    orders, _, _ = _design(1, 0, 0, statements, per_point, orders=cycles * sets, seed=seed)
    together = {pair: 0 for pair in combinations(range(statements), 2)}
    for n, order in enumerate(orders, start=1):
        for pair in combinations(order["trials"][0]["statements"], 2):
            together[pair] += 1
        if per_point == 2 and per_point < statements:
            assert _spread(together.values()) <= 1
        if n % sets == 0 and together:
            assert _spread(together.values()) == 0, (n, together)


def test_the_issue_cases_two_scenarios_come_first_equally_often():
    """Issue #34 D3: with 2 scenarios one came first 7 of 12 times (3 of 4 with --orders
    4), each of 5 statements was asked in 5 to 7 orders, and only neighbouring statements
    were ever asked together."""
    from itertools import combinations

    for n_orders in (12, 4):
        orders, _, _ = _design(2, 0, 0, 5, 2, orders=n_orders)
        firsts = [o["trials"][0]["scenario"] for o in orders]
        assert firsts.count("s0") == firsts.count("s1") == n_orders // 2
    orders, _, _ = _design(2, 0, 0, 5, 2, orders=12)
    for name in ("s0", "s1"):
        sets = [tuple(t["statements"]) for o in orders for t in o["trials"] if t["scenario"] == name]
        counts = [sum(n in s for s in sets) for n in range(5)]
        assert _spread(counts) <= 1 and sum(counts) == 24
        assert set(combinations(range(5), 2)) <= set(sets)      # every pair, not only neighbours


@given(st.integers(1, 5), st.integers(1, 2), st.integers(1, 4), st.integers(1, 24))
def test_controls_kept_to_the_first_places_take_each_equally_often(free, controls, within, n_orders):
    orders, _, control_list = _design(free, 0, controls, 2, 1, orders=n_orders, control_within=within)
    edge = max(controls, min(within, free + controls))
    for name in control_list:
        counts = [0] * edge
        for order in orders:
            place = [t["scenario"] for t in order["trials"]].index(name)
            assert place < edge
            counts[place] += 1
        assert _spread(counts) <= 1


@pytest.mark.parametrize("settings, message", [
    (Settings(orders=10**12), "orders is 1,000,000,000,000, more than the 10,000"),
    (Settings(orders=True), "orders must be a whole number"),
    (Settings(statements_per_point=1000), "statements_per_point is 1,000, more than the 20"),
    (Settings(control_within=0), "control_within must be a whole number of at least 1"),
    (Settings(scenarios_per_participant=2.5), "scenarios_per_participant must be a whole number"),
    (Settings(seed="x"), "seed must be a whole number"),
    (Settings(require_watch="no"), "require_watch must be true or false"),
])
def test_numbers_out_of_bounds_are_refused_with_what_they_would_cost(settings, message):
    scenarios = [{"name": "a", "statements": [{"text": "a", "mode": "current"}]}]
    with pytest.raises(SurveyError, match=message):
        make_orders(scenarios, settings)


def test_cli_refuses_a_huge_orders_with_an_estimate(stimulus_set, tmp_path):
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--cdn",
                    "--orders", "1000000000000")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "more than the 10,000" in done.stderr and "MiB" in done.stderr
    assert not (tmp_path / "survey").exists()


# -- the duration the consent states (issue #34 D4) ----------------------------------------


def _study(segments_ms, judged, statements: int, scenarios: int = 1):
    segments = [{"duration_ms": ms, "judged": j} for ms, j in zip(segments_ms, judged)]
    scenario_list = [{"name": f"s{n}", "segments": segments} for n in range(scenarios)]
    order = {"trials": [{"scenario": f"s{n}", "statements": list(range(statements))} for n in range(scenarios)]}
    return scenario_list, order


def test_the_duration_counts_animations_ratings_goal_questions_and_instructions():
    from elot.survey.design import SECONDS, duration_minutes, order_seconds

    scenarios, order = _study([3000, 5000, 2000], [False, True, True], statements=2)
    expected = (SECONDS["consent_and_end"] + SECONDS["instructions"] + 3 + 5 + 2 + 3 * SECONDS["screen"]
                + 2 * (SECONDS["goal_question"] + 2 * SECONDS["rating"]))
    assert order_seconds(scenarios, order) == pytest.approx(expected)
    assert duration_minutes(scenarios, [order]) == -(-expected // 60)          # under 10: whole minutes, up


@given(st.integers(1, 40), st.integers(1, 6), st.integers(1, 5), st.integers(500, 20_000))
def test_the_duration_grows_with_the_study_and_rounds_sensibly(scenarios, points, statements, ms):
    from elot.survey.design import duration_minutes, order_seconds

    study, order = _study([ms] * (points + 1), [False] + [True] * points, statements, scenarios)
    minutes = duration_minutes(study, [order])
    exact = order_seconds(study, order) / 60
    assert minutes >= exact and (minutes - exact < 1 if minutes < 10 else minutes % 5 == 0 and minutes - exact < 5)
    more, more_order = _study([ms] * (points + 1), [False] + [True] * points, statements + 1, scenarios)
    assert duration_minutes(more, [more_order]) >= minutes                   # more ratings, never less time


def test_the_longest_order_decides():
    from elot.survey.design import duration_minutes

    short, short_order = _study([1000, 1000], [False, True], 1)
    long, long_order = _study([60_000] * 12, [False] + [True] * 11, 5, scenarios=3)
    assert duration_minutes(long, [long_order]) == duration_minutes(long, [long_order, {"trials": []}])
    assert duration_minutes(short, [short_order]) < duration_minutes(long, [long_order])


def test_a_built_survey_states_its_own_duration(stimulus_set, tmp_path):
    """The consent said "about 20 minutes" whatever the study: survey.json now carries the
    estimate the page's consent states (a one-scenario study takes a few minutes)."""
    from elot.survey.build import build_survey, load_config, render_script
    from elot.survey.design import duration_minutes

    built = build_survey(stimulus_set, tmp_path / "survey", Settings(orders=2), cdn=True)
    config = load_config(built.folder)
    assert config["duration_minutes"] == duration_minutes(config["scenarios"], config["orders"])
    assert 1 <= config["duration_minutes"] < 20
    assert "TEXT.consent(SURVEY.duration_minutes" in render_script(config)
