"""Issue 44 (F5): a tabular particle run warns as the gridworld's does when its estimate rests
on too few effective particles: on the terminal, in ``--json`` and in batch's ``warning``
column; a run with enough particles says nothing."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
TRUCKS = str(REPO / "examples" / "domains" / "check-empty.trucks")
STATEMENT = "initial: The student believes that spot 2 is empty."


def elot(*args: str):
    return run_elot(*args, env=dict(os.environ, COLUMNS="200"), timeout=120)


@pytest.mark.parametrize("particles", ["1", "2"])
def test_few_particles_warn_on_the_terminal_in_json_and_in_batch(particles):
    printed = elot("run", TRUCKS, "--inference", "smc", "--particles", particles, "--seed", "1", "-s", STATEMENT)
    assert printed.returncode == 0, printed.stderr
    assert "warning: the estimates rest on an effective sample size" in printed.stdout
    assert "give more --particles" in printed.stdout
    report = json.loads(elot("run", TRUCKS, "--inference", "smc", "--particles", particles, "--seed", "1",
                             "--json", "-").stdout)
    assert report["ran"]["warnings"] and "effective sample size" in report["ran"]["warnings"][0]
    assert all(j["warnings"] for j in report["judgments"])
    table = elot("batch", TRUCKS, "--statement", STATEMENT, "--inference", "smc", "--particles", particles,
                 "--seed", "1", "-o", "-")
    assert table.returncode == 0, table.stderr
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert rows and all("effective sample size" in row["warning"] for row in rows)


def test_enough_particles_say_nothing():
    report = json.loads(elot("run", TRUCKS, "--inference", "smc", "--particles", "4000", "--seed", "1",
                             "--json", "-").stdout)
    assert report["ran"]["warnings"] == [] and report["ran"]["ess"] > 30
    table = elot("batch", TRUCKS, "--statement", STATEMENT, "--inference", "smc", "--particles", "4000",
                 "--seed", "1", "-o", "-")
    assert [row["warning"] for row in csv.DictReader(io.StringIO(table.stdout))] == [""]
