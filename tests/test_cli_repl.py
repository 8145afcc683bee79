"""`elot repl | plot | map` through ``elot.cli.main`` (one piped REPL through the console script)."""

from __future__ import annotations

import os
import subprocess

from PIL import Image
from helpers import run_elot


def elot(*args: str, stdin: str | None = None, cwd=None, entry_point: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, ELOT_HISTORY=os.devnull)
    return run_elot(*args, stdin=stdin, env=env, cwd=cwd, timeout=120, entry_point=entry_point)


def test_plot_default_statements(tmp_path):
    out = tmp_path / "p.png"
    result = elot("plot", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "9 statements, 3 goals" in result.stdout
    with Image.open(out) as image:
        assert image.text["elot:statements"] == "9" and image.text["elot:goals"] == "3"
        assert image.text["elot:judgments"] == "[4, 6, 13]"


def test_plot_statements_file_and_flags(tmp_path, labtom):
    statements = tmp_path / "s.txt"
    statements.write_text("# two statements\nbelieves(player, formula(empty(box3)))\n"
                          "initial: The player initially believed that box 3 contained a blue key.\n")
    out = tmp_path / "p.png"
    plan = labtom / "plans" / "exp2_current" / "1_1.pddl"
    result = elot("plot", str(plan), "--statements", str(statements),
                  "--statement", "believes(player, might(exists(key(K), inside(K, box1))))",
                  "--model", "true-belief", "-o", str(out))
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert image.text["elot:statements"] == "3" and image.text["elot:model"] == "true-belief"


def test_plot_bad_statement_is_reported_and_skipped(tmp_path):
    out = tmp_path / "p.png"
    result = elot("plot", "--statement", "believes(player", "--statement",
                  "believes(player, formula(empty(box1)))", "-o", str(out))
    assert result.returncode == 2
    assert "syntax error" in result.stderr and "^" in result.stderr
    assert out.exists() and "1 skipped" in result.stdout
    # from a statements file, the error names the file, line and column
    statements = tmp_path / "s.txt"
    statements.write_text("# one bad line\ncurrent: believes(player\n")
    result = elot("plot", "--statements", str(statements), "-o", str(out))
    assert result.returncode == 2 and f"{statements}:2:" in result.stderr
    assert "    current: believes(player" in result.stderr


def test_map_png(tmp_path):
    out = tmp_path / "m.png"
    result = elot("map", "-t", "6", "-o", str(out))
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert image.format == "PNG" and image.text["elot:t"] == "6"
    result = elot("map", "-t", "99", "-o", str(out))
    assert result.returncode == 2 and "outside" in result.stderr and "Traceback" not in result.stderr


def test_unknown_scenario_is_a_clean_error(tmp_path):
    result = elot("map", "nonexistent-thing", "-o", str(tmp_path / "m.png"))
    assert result.returncode == 2 and "scenario error" in result.stderr


def test_repl_piped_through_entry_point():
    result = elot("repl", "--model", "non-planning", stdin=":model\n:goto 4\n:goals\n", entry_point=True)
    assert result.returncode == 0, result.stderr
    assert "model: non-planning" in result.stdout and "goal posterior at t=4" in result.stdout
