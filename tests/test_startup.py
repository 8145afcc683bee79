"""What ``elot`` imports before it does anything: the parser of every command (``elot
--help``) and the language-only commands (parse, check, lower, english) never import
numpy, matplotlib or rich, so they start in a fraction of a second (issue 33). Checked
by what is imported, not by a clock: in a fresh interpreter, as the console script
starts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import NEUTRAL_CWD

#: Libraries that cost tens to hundreds of milliseconds to import.
HEAVY = ("numpy", "matplotlib", "rich", "PIL", "prompt_toolkit", "pyarrow", "dask", "guidance", "llama_cpp")

#: Commands that need none of them, in the order they run in the probe.
LIGHT = (
    ("--help",),
    ("parse", "believes( player,formula(empty(box3)) )"),
    ("check", "knows_that(player, empty(box1))"),
    ("lower", "believes(player, might(exists(key(K), inside(K, box1))))"),
    ("english", "believes(player, might(exists(key(K), inside(K, box1))))"),
    ("plan", "--help"),
    ("batch", "--help"),
)

PROBE = """
import contextlib, io, json, sys
HEAVY = json.loads(sys.argv[1])
loaded = lambda: [name for name in HEAVY if name in sys.modules]
report = {}
from elot.cli import build_parser, main
build_parser()
report["parser"] = loaded()
for argv in json.loads(sys.argv[2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = exit_.code
    report[" ".join(argv)] = {"status": status, "out": out.getvalue(), "err": err.getvalue(), "heavy": loaded()}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def probe() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY), json.dumps(LIGHT)],
                          capture_output=True, text=True, cwd=NEUTRAL_CWD, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_building_the_parser_imports_no_heavy_library(probe):
    assert probe["parser"] == []


@pytest.mark.parametrize("argv", LIGHT, ids=[a[0] for a in LIGHT])
def test_language_commands_and_help_import_no_heavy_library(probe, argv):
    run = probe[" ".join(argv)]
    # the command did its work (help printed, formula answered or its error explained), and
    # with nothing heavy loaded
    assert run["out"].strip() or run["status"] == 2 and "hint:" in run["err"], run
    assert run["heavy"] == [], f"elot {' '.join(argv)} imported {run['heavy']}"


def test_the_probe_sees_a_heavy_import():
    """The probe would notice: a command that needs numpy (eval) loads it."""
    argv = [("eval", "believes(player, might(empty(box1)))", "--state", "inside(key1, box2)",
             "--belief", "0.5: inside(key1, box1) | 0.5: inside(key1, box2)")]
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY), json.dumps(argv)],
                          capture_output=True, text=True, cwd=NEUTRAL_CWD, timeout=120)
    run = json.loads(done.stdout)[" ".join(argv[0])]
    assert run["status"] == 0 and run["out"].strip() == "true", run
    assert "numpy" in run["heavy"]
