"""A few hundred of ``benchmarks/fuzz_commands.py``'s generated command lines with broken
inputs (issue #36): none may end in a traceback, exit 0 on an input that must be refused,
write a number that is not finite, print or store the key, change a refused cache or
follow a redirect. The full run (10,000 cases) is the script's; this is its small-N form."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _fuzz():
    spec = importlib.util.spec_from_file_location("fuzz_commands", REPO / "benchmarks" / "fuzz_commands.py")
    module = sys.modules["fuzz_commands"] = importlib.util.module_from_spec(spec)   # dataclasses look it up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_generated_broken_command_lines_are_refused_cleanly():
    counts = _fuzz().run(200, seed=36)
    assert counts.cases == 200
    assert (counts.tracebacks, counts.silent, counts.key_leaks, counts.cache_changed, counts.redirects_followed,
            counts.wrong_exit, counts.raw_escapes) == (0, 0, 0, 0, 0, 0, 0), counts.failures
    # the generator reaches every command, and most of its inputs are refused
    assert set(counts.by_kind) >= {"baseline_answers", "baseline_options", "baseline_url", "baseline_cache", "report",
                                   "storyboard", "simulate", "fit", "survey_import"}
    assert sum(kind.startswith("survey_") and kind != "survey_import" for kind in counts.by_kind) >= 4
    assert sum(k["refused"] for k in counts.by_kind.values()) > 100
