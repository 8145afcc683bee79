"""Issue 44, the engine's half: every cost a tabular run can incur is counted from the request
before any work and refused with its estimate; what it cannot afford never starts.

Through ``elot.cli.main`` (the command a user types), with the work the engine would do
replaced by a failure where the point is that it never starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elot.engine.tables import sampling
from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
TRUCKS = str(REPO / "examples" / "domains" / "check-empty.trucks")
STATEMENT = "initial: The student believes that spot 2 is empty."
HUGE = "99999999999999999999"


def elot(*args: str, stdin: str | None = None, cwd=None):
    return run_elot(*args, stdin=stdin, cwd=cwd, env=dict(os.environ, ELOT_HISTORY=os.devnull), timeout=120)


@pytest.fixture
def no_draws(monkeypatch):
    """Drawing the particles fails the test: a refusal must come before it."""

    def drawn(*args, **kwargs):
        raise AssertionError("the particles were drawn before the budget was asked")

    monkeypatch.setattr(sampling.Draws, "of", classmethod(drawn))


@pytest.mark.parametrize("particles", ["1000000000", HUGE])
def test_particles_are_counted_from_n_not_drawn(no_draws, particles):
    result = elot("run", TRUCKS, "--inference", "smc", "--particles", particles, "--seed", "1")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "refused before any work" in result.stderr
    assert f"{int(particles):,} particles" in result.stderr and "GiB" in result.stderr
    assert "fewer particles" in result.stderr


def test_batch_refuses_huge_particles_before_any_work(no_draws, tmp_path):
    out = tmp_path / "t.csv"
    result = elot("batch", TRUCKS, "--statement", STATEMENT, "--inference", "smc", "--particles", HUGE,
                  "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "GiB" in result.stderr
    assert not out.exists()


def test_the_repl_refuses_huge_particles_and_goes_on(no_draws):
    result = elot("repl", TRUCKS, stdin=f":set inference smc\n:set particles {HUGE}\n:goals\n")
    text = result.stdout + result.stderr
    assert "internal error" not in text and "Traceback" not in text
    assert "refused before any work" in text


def test_a_few_particles_still_run(tmp_path):
    result = elot("run", TRUCKS, "--inference", "smc", "--particles", "300", "--seed", "1")
    assert result.returncode == 0, result.stderr
