"""The scripts in benchmarks/ are run by hand, not by the suite: this checks that each
still imports (a module moved in the library breaks a benchmark only when someone next
runs it), without running any of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# each script in its own interpreter: about 20 starts in all
pytestmark = pytest.mark.slow

SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))

LOAD = """
import importlib.util, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))   # as `python benchmarks/X.py` runs it: its folder first
spec = importlib.util.spec_from_file_location("benchmark", sys.argv[1])
module = sys.modules["benchmark"] = importlib.util.module_from_spec(spec)   # dataclasses look it up
spec.loader.exec_module(module)
"""


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_benchmark_script_imports(script):
    # in a subprocess: some scripts set environment variables (BLAS threads) when imported
    result = subprocess.run([sys.executable, "-c", LOAD, str(script)], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
