"""How tests run elot's command line: the installed console script, outside the checkout.

``python -m elot`` run from the repository root imports the source tree instead of the
installed package (tests/test_install_layout.py checks that this works too); the console
script next to the interpreter, run outside the checkout, is the entry point users run.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("elot")

#: The command that starts elot's CLI: the installed console script when there is one.
ELOT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "elot"]

#: A working directory outside the checkout, so nothing is imported from the source tree.
NEUTRAL_CWD = tempfile.gettempdir()


def run_elot(*args: str, stdin: str | None = None, env=None, cwd=None, timeout: float = 300,
             module: bool = False) -> subprocess.CompletedProcess:
    """Run ``elot ARGS`` (or ``python -m elot ARGS`` with ``module``) and capture its output."""
    command = [sys.executable, "-m", "elot"] if module else ELOT
    return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True,
                          env=env, cwd=cwd or NEUTRAL_CWD, timeout=timeout)
