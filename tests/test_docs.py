"""Every example in the README and docs/ runs as written.

``console`` blocks: a page's transcript is one test that replays its ``$ elot ...`` lines
in order, in a checkout of the page's own (links to the repository's files, a fresh
``out/``), through elot's entry point (a command reading a data set that is absent, the
LaBToM dataset or Alanqary et al.'s, is skipped); each output must match the lines under it exactly,
except that ``...`` in the expected output stands for any text (output that depends on the
machine, such as whether ffmpeg is installed); ``$ mkdir -p DIR`` lines make their folders
there, for the commands after them to write into; other ``$`` lines, such as installs, are
shown to users but not run here. No page depends on another, or on how tests are
scheduled. ``python`` blocks only read: they are executed from the repository root, so
relative paths in them are the ones a user of a checkout would type.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from conftest import alanqary2021_path, labtom_path
from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _blocks(path: Path, kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def width(path: Path) -> str | None:
    """The terminal width a page states its transcripts are at ("... 100 columns wide")."""
    found = re.search(r"(\d+) columns wide", path.read_text(encoding="utf-8"))
    return found.group(1) if found else None


#: Pages whose transcripts run a whole study (batch, fit, report, stimuli): slow.
SLOW_PAGES = ("study.md", "experiments.md", "pddl.md")


def _transcript(path: Path) -> list[tuple[int, str, str, bool]]:
    """A page's commands in its order: (line, command, expected output, reads the dataset)
    for each ``$ elot ...`` and ``$ mkdir -p ...`` line of its console blocks."""
    text = path.read_text(encoding="utf-8")
    steps = []
    for found in re.finditer(r"^```console\n(.*?)^```", text, flags=re.S | re.M):
        first = text.count("\n", 0, found.start(1)) + 1
        block = found.group(1)
        # A block that starts by pointing ELOT_LABTOM_DATA at the dataset reads it.
        dataset = "$ export ELOT_LABTOM_DATA=" in block
        command, line, output = None, 0, []
        for number, text_line in enumerate(block.splitlines() + ["$ "], start=first):
            if text_line.startswith("$ "):
                if command and command.startswith(("elot ", "mkdir -p ")):
                    steps.append((line, command, "\n".join(output), dataset))
                command, line, output = text_line[2:].strip(), number, []
            else:
                output.append(text_line)
    return steps


def _pages() -> list:
    return [pytest.param(path, marks=[pytest.mark.slow] if path.name in SLOW_PAGES else [], id=path.name)
            for path in DOCUMENTS if any(c.startswith("elot ") for _, c, _, _ in _transcript(path))]


def _workspace(root: Path) -> Path:
    """A checkout of the page's own: ``root/main`` holds links to the repository's files
    and folders (examples, scenarios, docs: what the commands read) and a real ``out/``
    of its own (what they write), and ``root/shared`` is the data beside the checkout, so
    that the paths a page shows (``examples/...``, ``out/...``, ``../shared/...``) mean
    what they mean to a reader, and no page sees another's files, or another run's."""
    main = root / "main"
    main.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in ("out", ".git"):
            (main / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    if (REPO.parent / "shared").is_dir():
        (root / "shared").symlink_to(REPO.parent / "shared", target_is_directory=True)
    return main


@pytest.mark.parametrize("path", _pages())
def test_console_transcript(path, tmp_path):
    """A page's transcript replays in order, at the terminal width the page states, in a
    checkout of its own: each ``$ elot ...`` line's output must match the lines under it
    (``...`` standing for any text), and later commands read what earlier ones wrote.
    Every command runs whatever an earlier one did; each mismatch is named by page and line."""
    workspace = _workspace(tmp_path)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": width(path), "ELOT_HISTORY": os.devnull}
    env.pop("ELOT_LABTOM_DATA", None)
    failures, skipped = [], 0
    for line, command, expected, dataset in _transcript(path):
        where = f"{path.name}:{line}: $ {command}"
        if command.startswith("mkdir -p "):     # folders a page's examples write into
            for folder in shlex.split(command)[2:]:
                (workspace / folder).mkdir(parents=True, exist_ok=True)
            continue
        if (dataset and labtom_path() is None) or ("alanqary2021" in command and alanqary2021_path() is None):
            skipped += 1
            continue
        run_env = {**env, "ELOT_LABTOM_DATA": str(labtom_path())} if dataset else env
        result = run_elot(*shlex.split(command)[1:], env=run_env, cwd=workspace, timeout=300)
        got, want = _plain(result.stdout + result.stderr), _plain(expected)
        if "..." in want:
            pattern = ".*?".join(re.escape(part) for part in want.split("..."))
            matched = re.fullmatch(pattern, got, flags=re.S) is not None
        else:
            matched = got == want
        if not matched:
            failures.append(f"{where}\n--- expected\n{want}\n--- got (status {result.returncode})\n{got}")
    assert not failures, "\n\n".join(failures)
    if skipped:
        pytest.skip(f"{skipped} commands of {path.name} read the LaBToM dataset or Alanqary et al.'s data, "
                    "which are absent")


def _plain(text: str) -> str:
    """Text as a reader sees it: without trailing blanks (rich pads table lines)."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _python_examples() -> list:
    return [pytest.param(path, block, id=f"{path.name}#{n}")
            for path in DOCUMENTS for n, block in enumerate(_blocks(path, "python"))]


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


def test_ci_runs_the_readmes_test_command():
    """.ci/run ends with exactly the README's second quick-start command."""
    quick = _blocks(REPO / "README.md", "sh")[0].strip().splitlines()
    script = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert len(quick) == 2 and script[-1] == quick[1]


def test_documents_have_runnable_examples():
    assert len([c for path in DOCUMENTS for _, c, _, _ in _transcript(path) if c.startswith("elot ")]) >= 10
    assert len(_python_examples()) >= 6
