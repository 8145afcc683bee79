"""The console script itself: one or two commands of each family run as users run them
(``elot ...`` installed next to the interpreter, from outside the checkout) give the exit
status and the output that the rest of the suite sees from ``run_elot``, which calls
``elot.cli.main`` in the test's own process (tests/helpers.py). Interruption (SIGINT, exit
130) is tested on the console script in tests/test_workers.py, memory limits in
tests/test_limits.py and tests/test_trust.py, ``python -m elot`` in tests/test_cli_lang.py
and tests/test_install_layout.py."""

from __future__ import annotations

import os

import pytest
from helpers import ELOT, run_elot

# The same command, in process and as the console script. Each is deterministic (no
# timings, no paths of the run's own): the two must agree byte for byte.
COMMANDS = {
    "no-command": (),
    "version": ("--version",),
    "help": ("--help",),
    "unknown-option": ("parse", "--no-such-option"),
    "parse": ("parse", "believes( player,formula(empty(box3)) )"),
    "check-error": ("check", "knows_that(player, empty(box1))"),
    "eval": ("eval", "believes(player, might(exists(key(K), inside(K, box1))))", "--state",
             "inside(key1, box1), iscolor(key1, red)", "--belief", "0.25: inside(key1, box1) | 0.75: inside(key1, box2)"),
    "english": ("english", "believes(player, might(exists(key(K), inside(K, box1))))"),
    "translate": ("translate", "The player thinks box 2 might hold the red key."),
    "run": ("run", "two-doors", "--statement", "believes(player, formula(empty(box1)))"),
    "run-missing-file": ("run", "no-such-scenario.scn"),
    "generate": ("generate", "--seed", "3", "-o", "-"),
    "batch-bad-beta": ("batch", "two-doors", "--beta", "4:1", "-o", "t.csv"),
    "survey-help": ("survey", "build", "--help"),
    "baseline-bad-option": ("baseline", "two-doors", "--condition", "nonsense", "--dry-run"),
}


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ELOT_MODEL", "COLUMNS", "LINES")}
    return dict(env, ELOT_HISTORY=os.devnull, PYTHONIOENCODING="utf-8")


@pytest.mark.parametrize("name", COMMANDS)
def test_the_console_script_and_main_agree(name, tmp_path):
    args = COMMANDS[name]
    script = run_elot(*args, env=_environment(), cwd=tmp_path, timeout=120, entry_point=True)
    in_process = run_elot(*args, env=_environment(), cwd=tmp_path, timeout=120)
    assert (in_process.returncode, in_process.stdout, in_process.stderr) == \
        (script.returncode, script.stdout, script.stderr)
    assert "Traceback" not in script.stderr
    assert script.returncode in (0, 2), script.stderr
    assert script.stdout or script.stderr


def test_the_console_script_is_the_one_installed_beside_the_interpreter():
    assert ELOT[0].endswith("elot") or ELOT[1:] == ["-m", "elot"]


@pytest.mark.skipif(bool(os.environ.get("ELOT_TEST_SUBPROCESS")), reason="about runs in process")
def test_a_crash_in_process_is_a_traceback_and_status_1(monkeypatch):
    """What the interpreter does with an uncaught exception, so that tests asserting "no
    Traceback" still catch a crash of a command run in process."""
    import elot.cli.lang as lang

    def crash(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(lang, "_parse_command", crash)   # the parser is built anew by each run
    result = run_elot("parse", "empty(box1)")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert result.stderr.rstrip().endswith("RuntimeError: a bug")


def test_an_in_process_run_leaves_the_process_as_it_was(tmp_path):
    before = (dict(os.environ), os.getcwd())
    run_elot("parse", "empty(box1)", env={"PATH": os.environ.get("PATH", ""), "ELOT_X": "1"}, cwd=tmp_path)
    run_elot("no-such-command")
    assert (dict(os.environ), os.getcwd()) == before
