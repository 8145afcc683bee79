"""Bounded resources (issue #24 items 7-9): no command takes the machine down. What does
not fit is refused before any work, with the estimate and what to change; what fits
stays within its estimate. Real memory limits (``RLIMIT_AS``, i.e. ``ulimit -v``) in
subprocesses."""

from __future__ import annotations

import resource
import subprocess
import time

import pytest
from helpers import ELOT, run_elot

from elot.study import stimuli


def _limited(command: list[str], limit_bytes: int, timeout: float = 300, cwd=None) -> subprocess.CompletedProcess:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, preexec_fn=limit, cwd=cwd)


def _open_map(path, size: int):
    """A ``size`` x ``size`` hall, the agent in a corner walking up to a gem with a
    judgment point after every step: one frame a segment, as many segments as steps."""
    rows = ["g" + "." * (size - 2) + "g", *["." * size] * (size - 2), "h" + "." * (size - 1)]
    actions = " |\n  ".join(["up"] * (size - 1)) + ",\n  pickup gem1"
    path.write_text("name: open\ngoal: gem1\n\nmap:\n" + "".join(f"  {row}\n" for row in rows)
                    + f"\nactions:\n  {actions}\n")
    return path


# -- 8. stimuli: the palette is sampled within a bound, and counted ---------------------------


@pytest.mark.slow
def test_stimuli_palette_of_a_large_map_fits_its_estimate_under_a_real_limit(tmp_path):
    """60 x 60 cells with a point after each of 59 steps: the palette was made from all 61
    frames at once (1.4 GB at --cell 20, ignored by the estimate): out of memory at 800 MB."""
    scn = _open_map(tmp_path / "open.scn", 60)
    out = tmp_path / "set"
    result = _limited([*ELOT, "stimuli", str(scn), "--cell", "20", "--no-mp4", "-j", "1", "-o", str(out)],
                      800 * 2**20)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert len(list(out.glob("*.gif"))) == 60


@pytest.mark.slow
def test_stimuli_refuses_a_set_that_would_not_fit_before_drawing(tmp_path):
    scn = _open_map(tmp_path / "open.scn", 100)
    out = tmp_path / "set"
    started = time.monotonic()
    result = _limited([*ELOT, "stimuli", str(scn), "--cell", "200", "--no-mp4", "-j", "1", "-o", str(out)],
                      3000 * 2**20, cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert time.monotonic() - started < 30
    assert "rendering would need about" in result.stderr and "GiB" in result.stderr
    assert "smaller --cell" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["open.scn"]


def test_the_palette_sample_is_unchanged_where_it_fits(tmp_path):
    """Sets of ordinary maps are drawn on the same palette as before (the same GIFs)."""
    from elot.domains.doors_keys_gems.examples import load_example
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    from helpers import grid_points

    scenario = load_example("two-doors")
    parts = stimuli.segments(grid_points(scenario))
    every = sorted({0, scenario.T, *(p.steps[-1] for p in parts), *range(0, scenario.T, max(1, scenario.T // 8))})
    assert stimuli.palette_steps(scenario.T, parts, 500_000) == every
    large = parse_scn_text(_open_map(tmp_path / "open.scn", 100).read_text())
    parts = stimuli.segments(grid_points(large))
    frame = 60 * 2**20
    assert stimuli.palette_steps(large.T, parts, frame, lambda t: t >= large.T) == [0, large.T]
    assert len(stimuli.palette_steps(large.T, parts, 8 * 2**20)) == stimuli.PALETTE_SAMPLE_BYTES // (8 * 2**20)


def test_the_stimuli_estimate_counts_the_figure_and_the_palette():
    """At --cell 200 a 100 x 100 map's frame is 416 million pixels: the figure alone is
    several GiB, whatever the segments."""
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        large = parse_scn_text(_open_map(Path(folder) / "open.scn", 100).read_text())
    from helpers import grid_frames, grid_points

    frames, points = grid_frames(large), grid_points(large)
    assert stimuli.segment_bytes(frames, points, 200) > 10 * 2**30
    assert stimuli.segment_bytes(frames, points, 20) < 0.6 * 2**30          # the palette sample is bounded


# -- 9, 10. generate: counts past the core's limits are refused at once ------------------------


@pytest.mark.parametrize("argv", [["--boxes", "100000"], ["--boxes", "3000"], ["--boxes", "32"],
                                  ["--doors", "32"], ["--gems", "40"]])
def test_generate_refuses_counts_past_the_cores_limits_at_once(tmp_path, argv):
    out = tmp_path / "g.scn"
    started = time.monotonic()
    result = run_elot("generate", *argv, "-o", str(out), timeout=120)
    assert time.monotonic() - started < 10
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "at most 31" in result.stderr and not out.exists()


def test_generate_limits_are_the_cores():
    from btom_ext import core

    from elot.domains.doors_keys_gems.generate import MAX_EACH

    assert MAX_EACH == core.MAX_BOXES == core.MAX_DOORS == core.MAX_GEMS


# -- 7, 9. particle inference: memory and time estimated before any work -----------------------


def _b30(tmp_path):
    out = tmp_path / "b30.scn"
    result = run_elot("generate", "--boxes", "30", "--colours", "4", "--doors", "4", "--gems", "6", "--hidden", "4",
                      "--seed", "1", "--steps", "0", "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.parametrize("argv, figure", [
    (["default", "--inference", "smc", "--particles", "100000000"], "GiB"),
    (["default", "--inference", "smc", "--k", "1000000"], "GiB"),
    (["default", "--inference", "smc", "--k", "5000"], "hours"),
    (["B30", "--inference", "smc"], "657,720 initial states"),
    (["B30", "--inference", "smc", "--k", "7"], "657,720 initial states"),
])
def test_particle_inference_is_refused_with_its_estimate_before_work(tmp_path, argv, figure):
    argv = [str(_b30(tmp_path)) if a == "B30" else a for a in argv]
    started = time.monotonic()
    result = _limited([*ELOT, "run", *argv], 3000 * 2**20, timeout=120)
    assert time.monotonic() - started < 30
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "particle inference would" in result.stderr and figure in result.stderr
    assert "--particles" in result.stderr or "--k" in result.stderr


def test_batch_refuses_particle_tasks_that_would_not_fit(tmp_path):
    out, scenario = tmp_path / "t.csv", _b30(tmp_path)
    started = time.monotonic()   # the initial states are counted, not listed (listing took ~20 s and 1 GB)
    result = _limited([*ELOT, "batch", str(scenario), "--model", "full", "--inference", "smc", "--statement",
                       "believes(player, formula(empty(box1)))",
                       "-o", str(out)], 3000 * 2**20, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert time.monotonic() - started < 30
    assert "GiB" in result.stderr and not out.exists()


def test_the_repl_refuses_particle_inference_that_would_not_fit_as_an_error():
    result = run_elot("repl", "default", stdin=":set inference smc\n:set particles 100000000\n:goals\n",
                      timeout=120)
    assert "internal error" not in result.stdout + result.stderr
    assert "particle inference would need about" in result.stdout + result.stderr


# -- 10. k past 32 bits ------------------------------------------------------------------------


def test_k_past_32_bits_is_refused_in_run_and_in_the_repl():
    result = run_elot("run", "default", "--model", "true-belief", "--k", "2147483648")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "2,147,483,647" in result.stderr
    result = run_elot("repl", "default", stdin=":set k 2147483648\n", timeout=120)
    assert "OverflowError" not in result.stdout + result.stderr and "2,147,483,647" in result.stdout


def test_design_refuses_full_as_an_ablation(tmp_path):
    statements = tmp_path / "F.txt"
    statements.write_text("believes(player, formula(empty(box1)))\nbelieves(player, might(empty(box2)))\n")
    result = run_elot("design", "default", "--statements", str(statements), "--ablations", "full")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "KeyError" not in result.stderr
    assert "full is the model the ablations are compared with" in result.stderr


# -- the compiled planner holds at most its byte limit ------------------------------------------


def test_the_planner_stops_at_its_byte_limit_and_answers_again_without_it():
    """A map with many doors and key colours asks the planner's memo for more than any
    machine has: past its limit it raises MemoryError (the search unwinds as after a failed
    allocation) and keeps giving exact answers once the limit allows them."""
    from btom_ext import backend
    from elot.domains.doors_keys_gems.encoding import Encoding
    from elot.engine.budget import memory_budget
    from elot.domains.doors_keys_gems.load import load_scenario

    scenario = load_scenario("two-doors")
    enc = Encoding(scenario.layout)
    rows = enc.encode_many([scenario.initial])
    want = enc.planner(backend("reference")).costs(rows)
    planner = enc.planner(backend("core"), max_bytes=1)
    with pytest.raises(MemoryError, match="limit is"):
        planner.costs(rows)
    planner.max_bytes = 0
    assert (planner.costs(rows) == want).all()
    assert 0 < enc.planner(backend("core")).max_bytes <= memory_budget() + 2**20


@pytest.mark.slow
def test_generate_on_a_map_too_hard_to_plan_ends_with_an_error_within_its_budget(tmp_path):
    """31 doors, 8 colours, 31 gems, 31 boxes: the memo grew until the machine ran out (or a
    ``ulimit -v`` killed it); now it stops at half the memory left and says so, exit 2."""
    started = time.monotonic()
    done = _limited([*ELOT, "generate", "--doors", "31", "--colours", "8", "--gems", "31", "--boxes", "31",
                     "--seed", "1", "-o", str(tmp_path / "g.scn")], 1_200_000_000, timeout=240)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "limit is" in done.stderr and "limit is 0.0" not in done.stderr and not (tmp_path / "g.scn").exists()
    assert time.monotonic() - started < 200
