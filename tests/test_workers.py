"""Worker processes that die under a command (issue #24 item 12): a worker killed for real
(as the system's out-of-memory killer does) is one clear error, never a
``BrokenProcessPool`` traceback; a batch keeps its finished tasks and ``--resume`` then
gives the very table an uninterrupted run gives; Ctrl-C while workers start is the CLI's
plain interruption (exit 130), with no traceback from any process."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ELOT

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [str(REPO / "elot" / "scenarios" / f"{name}.scn") for name in ("default", "two-doors")]
#: about a thousand small tasks: long enough to kill a worker while others are done
BATCH = ["batch", *EXAMPLES, "--model", "full,non-planning", "--beta", "0.5:8:x1.01"]

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="signals"), pytest.mark.slow]


def _wait_for(predicate, what: str, limit: float = 120.0):
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.005)


def _found(parent, seen: list) -> int:
    """How many workers there are now, kept in ``seen`` (the caller kills one of those:
    listing them again later may find one gone)."""
    seen[:] = _workers(parent)
    return len(seen)


def _workers(parent) -> list:
    """The pool's worker processes: the forkserver's children (elot forks every worker from
    it). The command's own children are the forkserver and the resource tracker, never a
    worker; a child just forked still bears the command's name until it execs, so it is
    told by its parent, not its name (the resource tracker was once taken for a worker in
    that instant and killed)."""
    import psutil

    found = []
    for child in parent.children(recursive=True):
        try:
            command = " ".join(child.cmdline())
            if child.ppid() != parent.pid and "resource_tracker" not in command:
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def _done_tasks(out: Path) -> int:
    done = out.with_name(out.name + ".partial.done")
    try:
        return max(0, len(done.read_bytes().splitlines()) - 1)
    except OSError:
        return 0


def test_a_killed_batch_worker_is_one_error_and_resume_is_exact(tmp_path):
    psutil = pytest.importorskip("psutil")
    out, whole = tmp_path / "t.csv", tmp_path / "whole.csv"
    batch = subprocess.Popen([*ELOT, *BATCH, "--jobs", "2", "-o", str(out)], stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    try:
        parent = psutil.Process(batch.pid)
        seen: list = []     # the workers found when a task had finished (asking again may find fewer)
        _wait_for(lambda: _done_tasks(out) > 0 and _found(parent, seen) >= 2, "a finished task")
        os.kill(seen[0].pid, signal.SIGKILL)
        _, err = batch.communicate(timeout=300)
    finally:
        if batch.poll() is None:
            batch.kill()
    assert "Traceback" not in err and "BrokenProcessPool" not in err, err
    assert batch.returncode == 2, err
    assert "ended abruptly" in err and "--resume" in err and f"{out}.partial" in err, err
    assert not out.exists() and _done_tasks(out) > 0
    resumed = subprocess.run([*ELOT, *BATCH, "--jobs", "2", "-o", str(out), "--resume"], capture_output=True,
                             text=True, cwd=tmp_path, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "already done" in resumed.stderr
    serial = subprocess.run([*ELOT, *BATCH, "-o", str(whole)], capture_output=True, text=True, cwd=tmp_path,
                            timeout=600)
    assert serial.returncode == 0, serial.stderr
    assert out.read_bytes() == whole.read_bytes()


def test_a_killed_stimuli_worker_is_one_error_and_nothing_is_written(tmp_path):
    psutil = pytest.importorskip("psutil")
    for attempt in range(3):     # on a busy machine the set can be done before the kill lands
        out = tmp_path / "set"
        command = [*ELOT, "stimuli", "default", "two-doors", "yellow-green", "empty-box", "--cell", "40",
                   "--no-mp4", "--jobs", "2", "-o", str(out)]
        stimuli = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        try:
            parent = psutil.Process(stimuli.pid)
            seen: list = []     # the workers found (asking again may find them finished)
            _wait_for(lambda: _found(parent, seen) >= 1, "a worker")
            try:
                os.kill(seen[0].pid, signal.SIGKILL)
            except ProcessLookupError:
                pass            # it finished first: the set is done, and the loop tries again
            _, err = stimuli.communicate(timeout=300)
        finally:
            if stimuli.poll() is None:
                stimuli.kill()
        assert "Traceback" not in err and "BrokenProcessPool" not in err, err
        if stimuli.returncode != 0:
            break
        shutil.rmtree(out)
        for name in os.listdir(tmp_path):      # the set's sidecar marks
            os.remove(tmp_path / name)
    assert stimuli.returncode == 2, err
    assert "ended abruptly" in err and f"{out} was not written" in err, err
    assert not out.exists() and os.listdir(tmp_path) == []


@pytest.mark.parametrize("moment", [1, 2, 3, 4])
def test_ctrl_c_while_workers_start_is_a_plain_interruption(tmp_path, moment):
    """SIGINT to the whole process group (what Ctrl-C in a terminal does) as the
    forkserver and the workers come up (``moment``: processes under the batch)."""
    psutil = pytest.importorskip("psutil")
    for attempt in range(3):
        out = tmp_path / f"t{attempt}.csv"
        batch = subprocess.Popen([*ELOT, *BATCH, "--jobs", "2", "-o", str(out)], stderr=subprocess.PIPE, text=True,
                                 cwd=tmp_path, start_new_session=True)
        try:
            parent = psutil.Process(batch.pid)

            def started() -> bool:
                try:
                    return batch.poll() is not None or len(parent.children(recursive=True)) >= moment
                except psutil.NoSuchProcess:
                    return True

            _wait_for(started, "the workers to start")
            os.killpg(batch.pid, signal.SIGINT)
            _, err = batch.communicate(timeout=300)
        finally:
            if batch.poll() is None:
                os.killpg(batch.pid, signal.SIGKILL)
        assert "Traceback" not in err, err
        assert batch.returncode == 130 and err.startswith("interrupted"), err


def test_a_worker_lost_while_calls_are_handed_out_is_workers_lost(monkeypatch):
    """The pool can break before every call is submitted (a worker killed as it starts):
    that is the same WorkersLost as a break while results come in, never a traceback."""
    import concurrent.futures
    from concurrent.futures.process import BrokenProcessPool

    from elot.study.executors import WorkersLost, in_workers

    class Breaks:
        def __init__(self, *args, **kwargs):
            self.shut = False

        def submit(self, *args):
            raise BrokenProcessPool("a child process terminated abruptly")

        def shutdown(self, **kwargs):
            self.shut = True

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Breaks)
    with pytest.raises(WorkersLost, match="ended abruptly"):
        list(in_workers(abs, [(-1,), (-2,)], 2))


def test_a_worker_killed_while_its_result_goes_back_is_workers_lost(tmp_path):
    """A worker killed half-way through sending a large result once left the pool reading
    the rest of the message for ever (a batch under load never ended): results come back
    through files, and the loss is one WorkersLost."""
    here = Path(__file__).parent
    program = ("from elot.study.executors import WorkersLost, in_workers\n"
               "from helpers import killed_while_it_returns\n"
               "try:\n"
               "    [(_, value)] = in_workers(killed_while_it_returns, [(300_000_000,)], 1)\n"
               "    print('whole' if len(value) == 300_000_000 else 'cut')\n"
               "except WorkersLost:\n"
               "    print('lost')\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(here)})
    # lost as a rule; whole if the kill comes after the file is written: never a wait for ever
    assert done.stdout.strip() in ("lost", "whole"), done.stderr
