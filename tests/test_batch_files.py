"""A batch's work files (``OUT.partial``, ``.partial.done``, ``.partial.lock``) under
attack and damage: one writer at a time, no links followed, nothing damaged trusted, and
no worker left behind when the batch is killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elot.study.batch import batch
from elot.study.params import StudyError
from elot.study.references import refs_of
from elot.study.tasks import Grid, plan_tasks

from helpers import ELOT

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [str(REPO / "elot" / "scenarios" / f"{name}.scn") for name in ("default", "two-doors")]


def _tasks():
    return plan_tasks(refs_of(EXAMPLES), Grid(models=("full", "non-planning"), betas=(1.0, 2.0)))


def _interrupted(tmp_path, after: int = 3) -> tuple[list, Path]:
    """A batch stopped after ``after`` tasks: its work files are left for --resume."""
    tasks, out = _tasks(), tmp_path / "table.csv"

    def stop(done, total):
        if done == after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        batch(tasks, out, progress=stop)
    return tasks, out


def _work_files(out: Path) -> dict[str, bytes]:
    """The rows and the manifest (the lock file only says who held it last)."""
    return {p.name: p.read_bytes() for p in out.parent.iterdir()
            if p.name.startswith(out.name + ".partial") and not p.name.endswith(".lock")}


# -- one writer ------------------------------------------------------------------------------


def _wait_for(predicate, what: str, limit: float = 120.0):
    """Poll until ``predicate()`` (a guard against a hung test, not a speed requirement)."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path, jobs):
    out = tmp_path / "t.csv"
    command = [*ELOT, "batch", *EXAMPLES, "--model", "full,non-planning", "--beta", "0.5:8:x1.05",
               "-o", str(out)]
    first = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        _wait_for(lambda: out.with_name("t.csv.partial.done").exists() or first.poll() is not None,
                  "the first batch to start writing")
        os.kill(first.pid, signal.SIGSTOP)      # hold it mid-batch, deterministically
        assert first.poll() is None, "the first batch finished before the test could hold it"
        second = subprocess.run([*command, "--resume", "--jobs", jobs], capture_output=True, text=True,
                                cwd=tmp_path, timeout=300)
        os.kill(first.pid, signal.SIGCONT)
        assert second.returncode == 2, second.stderr
        assert f"another elot batch (pid {first.pid}) is writing" in second.stderr
        assert first.wait(timeout=600) == 0
    finally:
        if first.poll() is None:
            os.kill(first.pid, signal.SIGCONT)
            first.kill()
        first.wait()
    reference = tmp_path / "reference.csv"
    subprocess.run([*command[:-1], str(reference)], check=True, capture_output=True, cwd=tmp_path, timeout=600)
    assert out.read_bytes() == reference.read_bytes()
    assert not [p for p in tmp_path.iterdir() if ".partial" in p.name]


# -- no links --------------------------------------------------------------------------------


@pytest.mark.parametrize("dangling", [False, True])
@pytest.mark.parametrize("name", ["table.csv.partial", "table.csv.partial.done"])
def test_a_planted_work_file_link_is_refused(tmp_path, name, dangling):
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_text("keep me\n")
    out = tmp_path / "table.csv"
    out.with_name(name).symlink_to(victim)
    for resume in (False, True):
        with pytest.raises(StudyError, match="symbolic link"):
            batch(_tasks(), out, resume=resume)
        assert victim.read_text() == "keep me\n" if not dangling else not victim.exists()
        # refused before any work: no lock file of this run is left behind
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, *(["victim.txt"] if not dangling else [])])


@pytest.mark.parametrize("name", ["table.csv.partial", "table.csv.partial.done", "table.csv.partial.lock"])
def test_resume_refuses_linked_work_files_and_leaves_their_targets(tmp_path, name):
    tasks, out = _interrupted(tmp_path)
    link = out.with_name(name)
    victim = tmp_path / "elsewhere"
    if link.exists():
        link.rename(victim)
    else:
        victim.write_bytes(b"x" * 588_895)
    before = victim.read_bytes()
    link.symlink_to(victim)
    with pytest.raises(StudyError, match="symbolic link"):
        batch(tasks, out, resume=True)
    assert victim.read_bytes() == before and not out.exists()


# -- damaged work files -------------------------------------------------------------------------


def _garbage_line(out: Path) -> None:
    with out.with_name("table.csv.partial.done").open("a") as handle:
        handle.write("this is not a record\n")


def _truncate_rows(out: Path) -> None:
    rows = out.with_name("table.csv.partial")
    rows.write_bytes(rows.read_bytes()[: rows.stat().st_size // 2])


def _flip_a_byte(out: Path) -> None:
    rows = out.with_name("table.csv.partial")
    data = bytearray(rows.read_bytes())
    at = data.index(b"0.", len(data) // 3)   # a digit of a score: still valid CSV after the flip
    data[at] = ord("9")
    rows.write_bytes(bytes(data))


def _no_checksums(out: Path) -> None:      # a manifest without checksums cannot be trusted
    done = out.with_name("table.csv.partial.done")
    lines = done.read_text().splitlines()
    done.write_text("\n".join([lines[0], *(" ".join(line.split()[:3]) for line in lines[1:])]) + "\n")


@pytest.mark.parametrize("damage", [_garbage_line, _truncate_rows, _flip_a_byte, _no_checksums])
def test_damaged_work_files_are_kept_and_explained(tmp_path, damage):
    tasks, out = _interrupted(tmp_path)
    damage(out)
    before = _work_files(out)
    with pytest.raises(StudyError, match="cannot resume") as info:
        batch(tasks, out, resume=True)
    assert "left as they were" in info.value.message and "delete" in info.value.hint
    named = info.value.hint.split(" and run the command again")[0]
    assert all(f"{out}.partial{end}" in named for end in ("", ".done", ".lock"))   # every work file
    assert _work_files(out) == before and not out.exists()


@pytest.mark.slow
def test_damage_exits_2_through_the_cli(tmp_path):
    _, out = _interrupted(tmp_path)
    _garbage_line(out)
    before = _work_files(out)
    result = subprocess.run([*ELOT, "batch", *EXAMPLES, "--model", "full,non-planning", "--beta", "1,2",
                             "-o", str(out), "--resume"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot resume" in result.stderr and "line" in result.stderr
    assert _work_files(out) == before and not out.exists()


def test_an_interrupted_batch_without_resume_names_every_work_file(tmp_path):
    tasks, out = _interrupted(tmp_path)
    with pytest.raises(StudyError, match="an interrupted batch left") as info:
        batch(tasks, out)
    assert all(f"{out}.partial{end}" in info.value.hint for end in (",", ".done", ".lock"))


# -- no orphans ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="kill -9")
def test_kill_9_of_a_parallel_batch_leaves_no_process_behind(tmp_path):
    import threading

    psutil = pytest.importorskip("psutil")
    batch_ = subprocess.Popen([*ELOT, "batch", *EXAMPLES, "--model", "full,non-planning", "--beta", "0.5:8:x1.05",
                               "--jobs", "2", "-o", str(tmp_path / "t.csv")],
                              stderr=subprocess.PIPE, cwd=tmp_path)
    stderr_closed = threading.Event()       # a caller reading stderr gets its end of file
    threading.Thread(target=lambda: (batch_.stderr.read(), stderr_closed.set()), daemon=True).start()
    parent = psutil.Process(batch_.pid)
    children: list = []
    try:
        # the resource tracker, the forkserver and both workers, once tasks are running
        _wait_for(lambda: len(parent.children(recursive=True)) >= 4 and (tmp_path / "t.csv.partial").exists(),
                  "the workers to start")
        children = parent.children(recursive=True)
        os.kill(batch_.pid, signal.SIGKILL)
        batch_.wait()

        def gone(process) -> bool:
            try:
                return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                return True

        _wait_for(lambda: all(gone(c) for c in children), "the batch's processes to end", limit=60)
        assert stderr_closed.wait(timeout=60)
    finally:
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
        if batch_.poll() is None:
            batch_.kill()


@pytest.mark.slow
@pytest.mark.parametrize("address", ["nonsense", "inproc://x"])
def test_a_dask_address_that_is_not_one_is_a_clear_error(tmp_path, capsys, address):
    pytest.importorskip("distributed")
    from elot.cli import main

    assert main(["batch", "default", "-o", str(tmp_path / "t.csv"), "--dask", address]) == 2
    err = capsys.readouterr().err
    assert "is not a Dask scheduler address" in err and "Traceback" not in err
    assert not (tmp_path / "t.csv").exists()


def test_a_lost_cluster_is_told_apart_from_a_bug_in_a_task():
    """A scheduler that dies mid-batch cancels the futures: that is said with the way to
    go on (--resume keeps the finished rows), while a task's own exception still raises."""
    distributed = pytest.importorskip("distributed")
    from distributed.comm.core import CommClosedError

    from elot.study.executors import _cluster_lost

    assert _cluster_lost(distributed.client.FutureCancelledError("elot-tasks-0", reason="scheduler gone"))
    assert _cluster_lost(CommClosedError("in <TCP>: Stream is closed"))
    assert not _cluster_lost(ValueError("a bug"))
