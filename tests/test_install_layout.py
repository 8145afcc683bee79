"""The package works the way the README leaves a user: a fresh ``python`` started in the
repository root, after ``pip install .`` (CI's clean install) or ``pip install -e .``.

There, Python puts the checkout first on ``sys.path``, so ``elot`` and ``btom_ext`` import
from the source tree rather than from site-packages. The examples, the REPL and the
compiled core must be found all the same.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from helpers import NEUTRAL_CWD

REPO = Path(__file__).resolve().parent.parent


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_default_example_from_the_repository_root():
    result = _python("from elot.domains.doors_keys_gems.examples import default_example; print(default_example().name)", REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "false-belief"


def test_readme_quick_start_runs_from_the_repository_root():
    """The README's Python example (the one the README leaves users in the root for), in a
    new interpreter there: it parses, lowers and runs inference with the compiled core."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"^```python\n(.*?)^```", readme, flags=re.S | re.M)
                 if "elot.infer(" in b)
    result = _python(block + "\nimport btom_ext\nprint(btom_ext.backend('core').__name__)", REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("btom_ext.core")


def test_repl_is_inside_the_elot_namespace():
    """The REPL is ``elot.repl``; no generic top-level ``repl`` package is installed."""
    result = _python("import importlib.util, elot.repl.app, elot.scenarios;"
                     "print(importlib.util.find_spec('repl'))", NEUTRAL_CWD)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"
