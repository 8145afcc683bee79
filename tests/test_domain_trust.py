"""Issue 44: what a researcher's domain file returns is checked, and every mistake in it is an
error naming the bad value and where it is (exit 2, no traceback), never a silent result.

Each case is the coffee shop of examples/domains with one method broken, run through
``elot.cli.main``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"
PEEK = REPO / "examples" / "domains" / "coffee_peek.json"
LUNCH = str(REPO / "examples" / "domains" / "lunch.trucks")

BELIEFS = "[[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]]"
UTILITIES = "utilities = np.array(list(itertools.product(levels, levels)))"
ATOMS = 'return frozenset({("open", "machine")} | ({("open", "shop")} if world == 0 else set()))'

BROKEN = {
    "a belief row summing to 0.9": (BELIEFS, "[[0.9, 0.1], [0.5, 0.4], [0.1, 0.9]]",
                                    ["row 1 of its beliefs", "[0.5, 0.4]", "sums to 0.9"]),
    "a negative belief": (BELIEFS, "[[0.9, 0.1], [1.5, -0.5], [0.1, 0.9]]",
                          ["row 1 of its beliefs", "[1.5, -0.5]", "negative"]),
    "utilities of object dtype": (UTILITIES, "utilities = np.array([[a, str(b)] for a, b in "
                                             "itertools.product(levels, levels)], dtype=object)",
                                  ["desires", "'0.0' (str)", "row 0, column 1", "not a number"]),
    "utilities past the float range": ("levels = (0.0, 10.0, 20.0)", "levels = (0.0, 10.0, 1e308)",
                                       ["desires", "1e+308", "larger than"]),
    "world_atoms returning a number": (ATOMS, "return 5", ["world_atoms (world shop-open)", "returned 5 (int)"]),
    "world_atoms holding a number": (ATOMS, "return [5, ('open',)]", ["world_atoms", "holds 5, not an atom"]),
    "ragged costs": ("np.array([0.0, 1.0, 1.0, 1.0])", "[0.0, [1.0], 1.0, 1.0]", ["costs", "not a table of numbers"]),
}


def elot(*args: str, stdin: str | None = None):
    return run_elot(*args, stdin=stdin, env=dict(os.environ, ELOT_HISTORY=os.devnull), timeout=120)


def broken_shop(folder: Path, old: str, new: str) -> Path:
    text = SHOP.read_text(encoding="utf-8")
    assert old in text
    path = folder / "shop.py"
    path.write_text(text.replace(old, new), encoding="utf-8")
    shutil.copy(PEEK, folder / "peek.json")
    return path


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_domain_is_an_error_naming_the_value(tmp_path, case):
    old, new, words = BROKEN[case]
    domain = broken_shop(tmp_path, old, new)
    result = elot("run", "--domain", str(domain), str(tmp_path / "peek.json"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


@pytest.mark.parametrize("utility", ["1e308", "-1e308", "1e16"])
def test_plan_refuses_utilities_that_would_overflow(tmp_path, utility):
    out = tmp_path / "p.trucks"
    result = elot("plan", LUNCH, "--utilities", f"korean={utility},lebanese=1,mexican=1", "--belief", "uniform",
                  "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and f"korean={float(utility):g}" in result.stderr
    assert "too large" in result.stderr and not out.exists()


def test_plan_takes_large_utilities_that_fit(tmp_path):
    out = tmp_path / "p.trucks"
    result = elot("plan", LUNCH, "--utilities", "korean=1e12,lebanese=1,mexican=1", "--belief", "uniform",
                  "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "korean" in result.stdout + result.stderr and out.exists()


def test_belief_space_planning_runs_on_a_domain_of_one_world():
    """Found by fuzz_commands.py --domains: a belief grid over one world (a single point)
    was a NumPy traceback."""
    import numpy as np

    from elot.engine.tables.grid import BeliefGrid

    corners, weights = BeliefGrid(1, 6).interpolate(np.array([[1.0], [1.0]]))
    assert corners.tolist() == [[0], [0]] and weights.tolist() == [[1.0], [1.0]]
