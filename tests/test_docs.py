"""Every example in the README and docs/ runs as written.

``console`` blocks: each ``$ elot ...`` line is run through the installed entry point and
its output must match the lines under it exactly, except that ``...`` in the expected
output stands for any text (output that depends on the machine, such as whether ffmpeg
is installed); ``$ mkdir -p DIR`` lines make their folders under the repository root, for
the examples after them to write into; other ``$`` lines, such as installs, are shown to
users but not run here. ``python`` blocks are executed from the repository root,
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


#: Pages whose transcripts run a whole study (batch, fit, report, stimuli): slow. A page's
#: examples read what its earlier ones wrote, so a page is slow or not as a whole.
SLOW_PAGES = ("study.md", "experiments.md")


def _marks(path: Path) -> list:
    return [pytest.mark.slow] if path.name in SLOW_PAGES else []


def _console_examples() -> list:
    examples = []
    for path in DOCUMENTS:
        for block in _blocks(path, "console"):
            # A block that starts by pointing ELOT_LABTOM_DATA at the dataset reads it.
            dataset = "$ export ELOT_LABTOM_DATA=" in block
            command, output = None, []
            for line in block.splitlines() + ["$ "]:
                if line.startswith("$ "):
                    if command and command.startswith("mkdir -p "):
                        examples.append(pytest.param(command, "", False, width(path), marks=_marks(path),
                                                     id=f"{path.name}:{command[:50]}"))
                    if command and command.startswith("elot "):
                        examples.append(pytest.param(command, "\n".join(output), dataset, width(path),
                                                     marks=_marks(path), id=f"{path.name}:{command[:50]}"))
                    command, output = line[2:].strip(), []
                else:
                    output.append(line)
    return examples


def _python_examples() -> list:
    return [pytest.param(path, block, id=f"{path.name}#{n}")
            for path in DOCUMENTS for n, block in enumerate(_blocks(path, "python"))]


# A page's examples run in its order and write into the checkout (mkdir -p, -o files that
# later examples read): all of them on one xdist worker, in order.
@pytest.mark.xdist_group("docs-examples")
@pytest.mark.parametrize("command, expected, dataset, columns", _console_examples())
def test_console_examples(command, expected, dataset, columns):
    """Each transcript replays at the terminal width its page states."""
    if command.startswith("mkdir -p "):     # folders a page's examples write into
        for folder in shlex.split(command)[2:]:
            (REPO / folder).mkdir(parents=True, exist_ok=True)
        return
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": columns, "ELOT_HISTORY": os.devnull}
    if dataset:
        if labtom_path() is None:
            pytest.skip("this example reads the LaBToM dataset")
        env["ELOT_LABTOM_DATA"] = str(labtom_path())
    result = run_elot(*shlex.split(command)[1:], env=env, cwd=REPO, timeout=120)
    got, want = _plain(result.stdout + result.stderr), _plain(expected)
    if "..." in want:
        pattern = ".*?".join(re.escape(part) for part in want.split("..."))
        assert re.fullmatch(pattern, got, flags=re.S), f"{got!r} does not match {want!r}"
    else:
        assert got == want


def _plain(text: str) -> str:
    """Text as a reader sees it: without trailing blanks (rich pads table lines)."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


@pytest.mark.xdist_group("docs-examples")
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
    assert len([e for e in _console_examples() if e.values[0].startswith("elot ")]) >= 10
    assert len(_python_examples()) >= 6
