"""``elot run`` through the real console entry point."""

from __future__ import annotations

import csv
import json
import os

import pytest
from helpers import run_elot


def elot(*args, cwd=None):
    env = dict(os.environ, COLUMNS="160")
    return run_elot("run", *args, env=env, cwd=cwd, timeout=300)


def test_default_example():
    done = elot()
    assert done.returncode == 0, done.stderr
    assert "Goal posterior" in done.stdout and "hypotheses" in done.stdout


def test_statements_csv_json(tmp_path):
    out_csv, out_json = tmp_path / "o.csv", tmp_path / "o.json"
    f = "believes(player, formula(empty(box1)))"
    done = elot("--statement", f, "--csv", str(out_csv))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out_csv.open()))
    assert rows and all(r["formula"] == f for r in rows)
    assert 0.0 <= float(rows[0]["normalized_likelihood"]) <= 1.0
    done = elot("--statement", f, "--initial", "--json", str(out_json), "--model", "true-belief")
    assert done.returncode == 0, done.stderr
    data = json.loads(out_json.read_text())
    assert data["model"] == "true-belief"
    assert data["judgments"][0]["statements"][0]["mode"] == "initial"


def test_statements_file_modes_comments_and_missing_file(tmp_path):
    """The same statements file format as ``elot plot``: # comments, mode prefixes."""
    statements = tmp_path / "s.txt"
    statements.write_text("# about box 1\n\nbelieves(player, formula(empty(box1)))\n"
                          "initial: believes(player, formula(empty(box1)))\n"
                          "current:believes(player, might(empty(box1)))\n")
    out = tmp_path / "o.json"
    done = elot("--statements", str(statements), "--initial", "--json", str(out))
    assert done.returncode == 0, done.stderr
    scored = json.loads(out.read_text())["judgments"][0]["statements"]
    assert [(s["formula"], s["mode"]) for s in scored] == [
        ("believes(player, formula(empty(box1)))", "initial"),  # no prefix: --initial
        ("believes(player, formula(empty(box1)))", "initial"),
        ("believes(player, might(empty(box1)))", "current"),
    ]
    done = elot("--statements", str(tmp_path / "missing.txt"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "missing.txt" in done.stderr and "check the path" in done.stderr


def test_statements_file_errors_point_at_their_line(tmp_path):
    statements = tmp_path / "s.txt"
    statements.write_text("believes(player, formula(empty(box1)))\n# comment\n"
                          "initial:  believes(player, formula(bad(box1)))\n"
                          "The player wonders about the moon.\n")
    out = tmp_path / "o.csv"
    done = elot("--statements", str(statements), "--csv", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    type_error = lines.index(next(l for l in lines if "type error" in l))
    assert lines[type_error].startswith(f"{statements}:3:36: type error")
    assert lines[type_error + 1] == "    initial:  believes(player, formula(bad(box1)))"
    assert lines[type_error + 2] == " " * 39 + "^" * 9
    assert any(l.startswith(f"{statements}:4:1: translation error") for l in lines)
    assert "2 of 3 statement(s) could not be scored" in done.stderr
    # the statement that could be scored still was, and its table written
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["formula"] for r in rows} == {"believes(player, formula(empty(box1)))"}


def test_bad_formula_exit_2_others_scored(tmp_path):
    out = tmp_path / "o.csv"
    done = elot("-s", "believes(player, formula(empty(box1)))", "-s", "believes(player, formula(bad(box1)))",
                "--csv", str(out))
    assert done.returncode == 2
    assert "^" in done.stderr and "bad" in done.stderr and "Traceback" not in done.stderr
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["formula"] for r in rows} == {"believes(player, formula(empty(box1)))"}


def test_bad_scenario_exit_2(tmp_path):
    bad = tmp_path / "broken.scn"
    bad.write_text("this is not a scenario\n")
    done = elot(str(bad))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    done = elot(str(tmp_path / "missing.pddl"))
    assert done.returncode == 2 and "not found" in done.stderr


@pytest.mark.dataset
def test_dataset_plan_by_id_and_by_files(labtom, tmp_path):
    done = elot("1_1", "--labtom", str(labtom))
    assert done.returncode == 0, done.stderr
    assert "120 hypotheses" in done.stdout
    done = elot(str(labtom / "problems" / "1_1.pddl"), "--plan", str(labtom / "plans" / "exp2_current" / "1_1.pddl"),
                "-s", "believes(player, formula(empty(box3)))", "--model", "non-planning")
    assert done.returncode == 0, done.stderr
    assert "t=14" in done.stdout


def test_past_tense_english_statement_is_scored_as_initial(tmp_path):
    out = tmp_path / "scores.json"
    r = elot("default", "--statement", "The player initially thought box 1 was empty.", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert '"initial"' in out.read_text()


def test_auto_falls_back_to_particles_on_memory():
    """Issue 27 item 4: with --max-memory below what exact inference would allocate,
    --inference exact is refused (exit 2, saying how much it needs) and --inference auto
    runs particles instead, the header saying why."""
    refused = elot("two-doors", "--max-memory", "20K")
    assert refused.returncode == 2
    assert "memory budget is 20.0 KiB" in refused.stderr and "--inference auto" in refused.stderr
    assert "Traceback" not in refused.stderr
    done = elot("two-doors", "--inference", "auto", "--max-memory", "20K", "--particles", "200", "--seed", "1")
    assert done.returncode == 0, done.stderr
    header = " ".join(done.stdout.split())
    assert "inference: smc, 200 particles, seed 1" in header
    assert "auto: smc (240 hypotheses would need about" in header
    assert "over the memory budget of 20.0 KiB" in header
    roomy = elot("two-doors", "--inference", "auto", "--max-memory", "1G")
    assert roomy.returncode == 0, roomy.stderr
    assert "auto: exact (240 hypotheses" in " ".join(roomy.stdout.split())


def test_max_memory_takes_sizes():
    done = elot("two-doors", "--max-memory", "lots")
    assert done.returncode == 2 and "is not a memory size" in done.stderr
