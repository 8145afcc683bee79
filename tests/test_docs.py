"""Every example in the README and docs/ runs as written.

``console`` blocks: each ``$ elot ...`` line is run through the installed entry point and
its output must match the lines under it exactly (other ``$`` lines, such as installs, are
shown to users but not run here). ``python`` blocks are executed from the repository root,
so relative paths in them are the ones a user of a checkout would type.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from conftest import labtom_path
from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _blocks(path: Path, kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def width(path: Path) -> str | None:
    """The terminal width a page states its transcripts are at ("... 100 columns wide")."""
    found = re.search(r"(\d+) columns wide", path.read_text(encoding="utf-8"))
    return found.group(1) if found else None


def _console_examples() -> list:
    examples = []
    for path in DOCUMENTS:
        for block in _blocks(path, "console"):
            # A block that starts by pointing ELOT_LABTOM_DATA at the dataset reads it.
            dataset = "$ export ELOT_LABTOM_DATA=" in block
            command, output = None, []
            for line in block.splitlines() + ["$ "]:
                if line.startswith("$ "):
                    if command and command.startswith("elot "):
                        examples.append(pytest.param(command, "\n".join(output), dataset, width(path),
                                                     id=f"{path.name}:{command[:50]}"))
                    command, output = line[2:].strip(), []
                else:
                    output.append(line)
    return examples


def _python_examples() -> list:
    return [pytest.param(path, block, id=f"{path.name}#{n}")
            for path in DOCUMENTS for n, block in enumerate(_blocks(path, "python"))]


@pytest.mark.parametrize("command, expected, dataset, columns", _console_examples())
def test_console_examples(command, expected, dataset, columns):
    """Each transcript replays at the terminal width its page states."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": columns, "ELOT_HISTORY": os.devnull}
    if dataset:
        if labtom_path() is None:
            pytest.skip("this example reads the LaBToM dataset")
        env["ELOT_LABTOM_DATA"] = str(labtom_path())
    result = run_elot(*shlex.split(command)[1:], env=env, cwd=REPO, timeout=120)
    assert _plain(result.stdout + result.stderr) == _plain(expected)


def _plain(text: str) -> str:
    """Text as a reader sees it: without trailing blanks (rich pads table lines)."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


@pytest.mark.parametrize("path, block", _python_examples())
def test_python_examples(path, block, monkeypatch):
    if "load_dataset_plan" in block or "labtom" in block:
        if labtom_path() is None:
            pytest.skip("this example reads the LaBToM dataset")
        monkeypatch.setenv("ELOT_LABTOM_DATA", str(labtom_path()))
    monkeypatch.chdir(REPO)
    exec(compile(block, str(path), "exec"), {"__name__": "__doc_example__"})


def test_pages_with_transcripts_state_their_width():
    """A reader comparing a transcript must know the width it was taken at."""
    unstated = [path.name for path in DOCUMENTS if _blocks(path, "console") and width(path) is None]
    assert not unstated, f"say '... N columns wide' on these pages: {unstated}"


def test_documents_have_runnable_examples():
    assert len(_console_examples()) >= 10 and len(_python_examples()) >= 6
