"""`elot survey import`: the server's database and jsPsych's exports into fit's ratings
file and the goal answers; exclusions by rule; malformed, partial or foreign data refused
with the file and the row."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from helpers import run_elot

from elot.study import stimuli
from elot.study.fit import read_ratings
from elot.study.references import ScenarioRef
from elot.survey.build import DATABASE, build_survey, load_config
from elot.survey.design import Settings
from elot.survey.server import steps_of
from elot.survey.store import Store

SCENARIOS = ("empty-box", "yellow-green")


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    base = tmp_path_factory.mktemp("import")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=16)
    return build_survey(base / "set", base / "survey", Settings(orders=2), cdn=True).folder


def session(config, order, participant, *, goal_right=True, rating=6, stop_after=None, passed=True):
    """The trials a participant of ``order`` sends, as the page makes them."""
    trials = []
    common = {"participant": participant, "survey_id": config["id"], "order": order,
              "condition": config["orders"][order]["condition"]}
    for step, (kind, trial, segment) in steps_of(config, config["orders"][order]).items():
        if step in ("retry",) or step.startswith(("tutorial-2", "check-2")) or step == "debrief":
            continue
        data = {"elot_step": step, "elot_kind": kind, **common}
        if kind == "comprehension":
            data["elot_passed"] = passed
        if kind in ("judgment", "watch"):
            scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
            data.update(elot_scenario=scenario["name"], elot_t=segment["t"], elot_control=trial["control"])
            if kind == "judgment":
                goal = scenario["goal"] if goal_right else scenario["goal"] % scenario["gems"] + 1
                data.update(elot_statements=trial["statements"], elot_goals=[goal],
                            elot_ratings=[rating] * len(trial["statements"]))
        trials.append(data)
        if stop_after is not None and len(trials) >= stop_after:
            return trials
    trials.append({"elot_step": "debrief", "elot_kind": "debrief", **common})
    return trials


def to_csv(trials) -> str:
    """jsPsych's CSV: one row per trial, lists and booleans as JSON."""
    columns = list(dict.fromkeys(k for t in trials for k in t))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="")
    writer.writeheader()
    for t in trials:
        writer.writerow({k: json.dumps(v) if isinstance(v, (list, dict, bool)) else v for k, v in t.items()})
    return out.getvalue()


def test_database_and_exports_give_the_ratings_fit_reads(survey, tmp_path):
    config = load_config(survey)
    store = Store(tmp_path / "answers.sqlite", config["id"])
    try:
        for name, order in (("A", 0), ("B", 1)):
            pid = store.start(token=None, prolific_pid=name, study_id="", session_id="", orders=2)
            assert pid["order"] == order
            for data in session(config, order, name):
                store.add_trial(pid["id"], data["elot_step"], data, last=data["elot_step"] == "debrief")
    finally:
        store.close()
    (tmp_path / "c.json").write_text(json.dumps(session(config, 0, "C", rating=1)))
    (tmp_path / "d.csv").write_text(to_csv(session(config, 1, "D", rating=7)))
    done = run_elot("survey", "import", str(tmp_path / "answers.sqlite"), str(tmp_path / "c.json"),
                    str(tmp_path / "d.csv"), "--survey", str(survey), "-o", str(tmp_path / "ratings.csv"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "4 participants: 4 kept, 0 excluded"
    rows = list(csv.DictReader(open(tmp_path / "ratings.csv")))
    assert list(rows[0]) == ["scenario", "mode", "t", "statement", "rating", "participant"]
    assert {r["participant"] for r in rows} == {"A", "B", "C", "D"}
    assert {r["rating"] for r in rows if r["participant"] == "A"} == {"0.833333"}       # 6 on 1..7
    assert {r["rating"] for r in rows if r["participant"] == "C"} == {"0"}
    assert {r["rating"] for r in rows if r["participant"] == "D"} == {"1"}
    for scenario in config["scenarios"]:
        loaded = ScenarioRef(scenario["scenario"]).load()
        ts = {int(r["t"]) for r in rows if r["scenario"] == scenario["scenario"]}
        assert ts == set(loaded.judgments)            # fit's t: judgment points, never times[k]
    ratings = read_ratings(tmp_path / "ratings.csv")  # fit reads it as it is
    assert len(ratings.keys) >= 3
    goals = list(csv.DictReader(open(tmp_path / "ratings-goals.csv")))
    assert {g["score"] for g in goals} == {"1"} and {g["excluded"] for g in goals} == {""}


def test_exclusions_are_rules_and_the_summary_says_who_and_why(survey, tmp_path):
    config = load_config(survey)
    declined = session(config, 0, "no", stop_after=1)
    declined[0]["elot_agreed"] = False
    trials = (session(config, 0, "good") + session(config, 1, "guesser", goal_right=False)
              + session(config, 0, "quitter", stop_after=7) + session(config, 1, "confused", passed=False)
              + declined)
    (tmp_path / "all.json").write_text(json.dumps(trials))
    done = run_elot("survey", "import", str(tmp_path / "all.json"), "--survey", str(survey),
                    "-o", str(tmp_path / "ratings.csv"))
    assert done.returncode == 0, done.stderr
    judged = sum(1 for k, _, _ in steps_of(config, config["orders"][0]).values() if k == "judgment")
    assert done.stderr.splitlines()[:5] == [
        "5 participants: 1 kept, 4 excluded",
        "  excluded guesser: goal score 0.00 < 0.5",
        f"  excluded quitter: incomplete (2 of {judged} judgment points)",
        "  excluded confused: failed the comprehension check (1 attempt)",
        "  excluded no: did not consent",
    ]
    assert {r["participant"] for r in csv.DictReader(open(tmp_path / "ratings.csv"))} == {"good"}
    done = run_elot("survey", "import", str(tmp_path / "all.json"), "--survey", str(survey), "-o",
                    str(tmp_path / "r2.csv"), "--min-goal-score", "0", "--keep-incomplete", "--keep-failed-check")
    assert done.returncode == 0 and done.stderr.splitlines()[0] == "5 participants: 4 kept, 1 excluded"


@pytest.mark.parametrize("name, text, message", [
    ("cut.json", lambda good: json.dumps(good)[:-200], "cut.json is not valid JSON"),
    ("rows.csv", lambda good: to_csv(good).rsplit("\n", 3)[0].rsplit(",", 2)[0] + "\n",
     "fields, the header 13 (a partial export?)"),
    ("cell.csv", lambda good: to_csv(good).replace('"[6, 6]"', '"[6, 6"', 1), "column elot_ratings holds"),
    ("other.json", lambda good: json.dumps([{**t, "survey_id": "another"} for t in good]),
     "other.json: trial 1: an answer to another survey"),
    ("late.json", lambda good: json.dumps([{**t, "elot_t": t["elot_t"] + 1} if t["elot_kind"] == "judgment" else t
                                           for t in good]), "the scenario or t is not the step's"),
    ("nine.json", lambda good: json.dumps([{**t, "elot_ratings": [9] * len(t["elot_ratings"])}
                                           if t["elot_kind"] == "judgment" else t for t in good]),
     "elot_ratings must be 2 whole numbers 1..7"),
])
def test_malformed_partial_or_foreign_answers_are_refused_naming_the_file_and_row(survey, tmp_path, name, text,
                                                                                  message):
    config = load_config(survey)
    good = session(config, 0, "P")
    (tmp_path / name).write_text(text(good))
    (tmp_path / "ratings.csv").write_text("keep me\n")
    done = run_elot("survey", "import", str(tmp_path / name), "--survey", str(survey), "-o",
                    str(tmp_path / "ratings.csv"))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert str(tmp_path / name) in done.stderr
    assert (tmp_path / "ratings.csv").read_text() == "keep me\n"     # nothing written over


def test_a_database_of_another_survey_is_refused(survey, tmp_path):
    store = Store(tmp_path / "x.sqlite", "0123456789abcdef")
    store.close()
    done = run_elot("survey", "import", str(tmp_path / "x.sqlite"), "--survey", str(survey), "-o",
                    str(tmp_path / "r.csv"))
    assert done.returncode == 2 and "holds the answers of another survey" in done.stderr
    assert not (tmp_path / "r.csv").exists()


# -- what fit makes of the imported ratings ---------------------------------------------


def _ratings(tmp_path, rows) -> Path:
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, ["scenario", "mode", "t", "statement", "rating", "participant"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def _rows(participants=("A", "B", "C", "D"), shift=0):
    scenario = ScenarioRef("empty-box").load()
    statements = [s.text for s in scenario.statements if s.mode == "current"][:3]
    rows = []
    for n, person in enumerate(participants):
        for t in scenario.judgments:
            for k, text in enumerate(statements):
                rows.append({"scenario": "empty-box", "mode": "current", "t": t + shift, "statement": text,
                             "rating": round((k + t % 3 + 0.1 * n) / 10, 3), "participant": person})
    return rows


def test_fit_refuses_a_rating_at_a_t_that_is_not_a_judgment_point(tmp_path):
    """stimuli.json's times are t + 1: ratings at them were silently scored at steps no one
    was asked about. Now the row is named."""
    path = _ratings(tmp_path, _rows(shift=1))
    done = run_elot("fit", str(path), "--samples", "10")
    assert done.returncode == 2
    # judgment points 4, 5, 8: the ratings at 5 (from 4) pass, the first at 6 is refused
    assert f"{path}:5:19: error: t = 6 is not a judgment point of empty-box (its points: 4, 5, 8)" in done.stderr
    assert "stimuli.json's times are t + 1" in done.stderr


def test_fit_takes_a_participant_column_as_repeated_measures_not_a_factor(tmp_path):
    path = _ratings(tmp_path, _rows())
    done = run_elot("fit", str(path), "--model", "full", "--samples", "10", "-o", str(tmp_path / "fit.json"))
    assert done.returncode == 0, done.stderr
    assert "By participant" not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].startswith("9 rated statements (36 ratings)")
    said = re.fullmatch(r"4 participants; split-half reliability of the human means (\S+) \(Spearman–Brown, "
                        r"200 splits\)", lines[1])
    assert said and float(said.group(1)) > 0.9
    fit = json.loads((tmp_path / "fit.json").read_text())
    assert fit["participants"] == 4 and fit["split_half"] > 0.9


def test_report_sets_the_goal_answers_beside_the_models_goal_posterior(survey, tmp_path):
    from elot.btom.inference import infer

    config = load_config(survey)
    trials = session(config, 0, "A") + session(config, 1, "B", goal_right=False)
    (tmp_path / "all.json").write_text(json.dumps(trials))
    done = run_elot("survey", "import", str(tmp_path / "all.json"), "--survey", str(survey), "-o",
                    str(tmp_path / "ratings.csv"), "--min-goal-score", "0")
    assert done.returncode == 0, done.stderr
    done = run_elot("batch", *SCENARIOS, "--beta", "2", "-o", str(tmp_path / "table.csv"), timeout=600)
    assert done.returncode == 0, done.stderr
    done = run_elot("report", str(tmp_path / "table.csv"), "--ratings", str(tmp_path / "ratings.csv"), "--goals",
                    str(tmp_path / "ratings-goals.csv"), "--no-curves", "--no-storyboards", "--format", "png",
                    "-o", str(tmp_path / "report"), timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report" / "goals.png").read_bytes().startswith(b"\x89PNG")
    # the ratings' participant column: repeated measures, with n per item and reliability
    note = (tmp_path / "report" / "summary.md").read_text().splitlines()[-1]
    assert re.fullmatch(r"Human ratings: 2 participants, \d+ items, n per item \d+–\d+ \(mean [\d.]+\); "
                        r"split-half reliability of the item means \(Spearman–Brown\): .+", note), note
    rows = list(csv.DictReader(open(tmp_path / "report" / "goals.csv")))
    assert list(rows[0]) == ["scenario", "t", "gem", "n", "ticked", "human", "model"]
    for name in SCENARIOS:
        scenario = ScenarioRef(name).load()
        posterior = infer(scenario, model="full", beta=2.0)
        true = scenario.true_goal
        for t in scenario.judgments:
            here = {r["gem"]: r for r in rows if r["scenario"] == name and int(r["t"]) == t}
            assert set(here) == {g for g, _ in scenario.layout.gems}
            for gem, row in here.items():
                assert float(row["model"]) == pytest.approx(posterior.goal_posterior(t)[gem], abs=1e-4)
                assert row["n"] == "2"
            # A ticked the true goal, B another gem: half each
            assert float(here[true]["ticked"]) == 0.5 and float(here[true]["human"]) == 0.5
