"""Where tasks run: serially, in local worker processes (``jobs``) or on a Dask cluster
(``dask``), through the futures pattern (``submit`` / ``as_completed``) that both
:mod:`concurrent.futures` and ``distributed`` offer. Workers get tasks in chunks
(:func:`chunk_tasks`) and send back each task's rows, as dicts or as CSV text."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import tempfile
from typing import Iterator, Sequence

from elot.study.params import StudyError
from elot.study.resources import task_cost
from elot.study.tables import TaskRows, format_rows
from elot.study.tasks import Task, run_task


#: What a worker sends back: rows as dicts, or (``as_text``) as CSV text under the table's
#: columns (a table with particle inference has more of them than one without).
AsText = Sequence[str] | None


def run_tasks(tasks: Sequence[Task], as_text: AsText = None) -> list[tuple[int, "list[dict] | TaskRows"]]:
    """:func:`run_task` for several tasks in one worker; with ``as_text`` (the table's
    columns) each task's rows come back as CSV text (:func:`format_rows`) with their count
    and failures (:class:`TaskRows`), formatted and counted in the worker rather than by the
    single process that writes them."""
    done = [run_task(task) for task in tasks]
    return [(index, TaskRows.of(format_rows(rows, as_text), as_text)) for index, rows in done] if as_text else done


def chunk_tasks(tasks: Sequence[Task], workers: int) -> list[list[Task]]:
    """Tasks in submission order for ``workers`` processes: each scenario's tasks in
    chunks of about a quarter of a worker's fair share of the work (so one worker loads a
    scenario and translates its statements once for many settings, while a large
    scenario is still spread over several workers), largest chunks first (the largest
    tasks would otherwise finish last, alone)."""
    sized: dict[tuple, float] = {}
    costs: dict[int, float] = {}
    for task in tasks:      # tasks of one sizing key (a β sweep) cost the same: reckoned once
        key = task.sizing_key()
        if key not in sized:
            sized[key] = task_cost(task)
        costs[task.index] = sized[key]
    target = sum(costs.values()) / max(4 * workers, 1)
    chunks: list[tuple[float, list[Task]]] = []
    by_scenario: dict[object, list[Task]] = {}
    for task in tasks:
        by_scenario.setdefault(task.scenario, []).append(task)
    for group in by_scenario.values():
        group = sorted(group, key=lambda t: -costs[t.index])
        current, cost = [], 0.0
        for task in group:
            if current and cost + costs[task.index] > target:
                chunks.append((cost, current))
                current, cost = [], 0.0
            current.append(task)
            cost += costs[task.index]
        chunks.append((cost, current))
    chunks.sort(key=lambda c: -c[0])
    return [chunk for _, chunk in chunks]


Result = tuple[int, "list[dict] | TaskRows"]


class WorkersLost(StudyError):
    """A worker process ended abruptly: killed (as the system's out-of-memory killer does)
    or crashed. What the command keeps of its work is for the command to say
    (:meth:`saying`)."""

    def saying(self, hint: str) -> "WorkersLost":
        """The same error with ``hint``."""
        return WorkersLost(self.message, hint=hint)


def mapped(function, calls: Sequence[tuple], workers: int, *,
           preload: Sequence[str] = ()) -> Iterator[tuple[int, object]]:
    """``(n, function(*calls[n]))`` for every call: in this process, in order, with one
    worker (or one call); else as they finish in ``workers`` processes (:func:`in_workers`)."""
    if workers > 1 and len(calls) > 1:
        return in_workers(function, calls, min(workers, len(calls)), preload=preload)
    return ((n, function(*args)) for n, args in enumerate(calls))


def in_workers(function, calls: Sequence[tuple], workers: int, *,
               preload: Sequence[str] = ()) -> Iterator[tuple[int, object]]:
    """``(n, function(*calls[n]))`` for every call, as they finish, in ``workers``
    processes forked from a clean forkserver (never from this process, whose
    progress-bar thread must not be forked) that imported ``preload`` once.

    The workers leave interruption to this process: they ignore SIGINT (Ctrl-C reaches
    the whole process group), and however this generator ends early (an interrupt, an
    error, ``kill -9`` of this process) every worker ends at once, through a pipe whose
    writing end only this process holds (:func:`_end_with_parent`), rather than after its
    current call. A worker that ends abruptly (killed) is a :class:`WorkersLost`, not a
    ``BrokenProcessPool``. Each value comes back through a file (:func:`_returned_through`),
    so that a worker killed while sending one cannot leave this process waiting for the
    rest of a message."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    context = _forkserver(["elot.study.executors", *preload])
    lifeline, held = context.Pipe(duplex=False)
    folder = tempfile.mkdtemp(prefix="elot-results-")
    pool = None
    try:
        with _interrupts_held():    # a pool half-started by an interrupt cannot be shut down cleanly
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_end_with_parent,
                                       initargs=(lifeline,))
            futures = {pool.submit(_returned_through, folder, n, function, *args): n for n, args in enumerate(calls)}
    except BaseException as error:
        shutil.rmtree(folder, ignore_errors=True)
        held.close()
        lifeline.close()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if isinstance(error, BrokenProcessPool):     # a worker killed while the calls were handed out
            raise _lost() from None
        raise
    try:
        for future in as_completed(futures):
            yield futures[future], _received(future.result())
    except BaseException as error:
        held.close()            # every worker ends now
        for future in futures:
            future.cancel()
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except Exception:       # a pool broken mid-way: its workers are ending anyway
            pass
        if isinstance(error, BrokenProcessPool):
            raise _lost() from None
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        held.close()
        lifeline.close()
        shutil.rmtree(folder, ignore_errors=True)


def _returned_through(folder: str, n: int, function, *args) -> str:
    """In a worker: ``function(*args)`` written to a file of ``folder``, whose name is what
    goes back through the pool's pipe. A name is a few bytes, which a pipe takes in one
    write; a table of results is not, and a worker killed in the middle of sending one left
    the pool's reader waiting for the rest of the message for ever (seen under load: the
    batch never ended)."""
    value = function(*args)
    path = os.path.join(folder, f"{n}.pickle")
    with open(path + ".part", "wb") as out:
        pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".part", path)
    return path


def _received(path: str):
    """The value a worker wrote to ``path`` (:func:`_returned_through`); the file is removed."""
    with open(path, "rb") as source:
        value = pickle.load(source)
    os.unlink(path)
    return value


def _lost() -> "WorkersLost":
    return WorkersLost("a worker process ended abruptly: it was killed (the system does that when memory runs "
                       "out) or crashed", hint="rerun with fewer --jobs, or free memory")


def _forkserver(preload: Sequence[str]):
    import multiprocessing

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends and raise it there, once the pool is whole;
    start the forkserver with SIGINT blocked, which it and its children, the workers,
    inherit (they never see it). Only the main thread handles signals."""
    import signal
    import threading
    from multiprocessing import forkserver, resource_tracker

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        resource_tracker.ensure_running()     # first: starting it unblocks SIGINT when done
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})   # one that came is caught now
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _end_with_parent(lifeline) -> None:
    """Worker initializer: ignore SIGINT (the parent handles interruptions and ends its
    workers), and end this worker as soon as the process that started the pool is gone
    or lets go, however it ended (``kill -9`` included). The worker's parent is the
    forkserver, which itself lives while any worker does (and the resource tracker while
    either does), so neither a parent-death signal nor the pool notices; instead a thread
    waits on a pipe whose writing end only that process holds: end of file means it is
    gone, or ending its workers."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_thread_each()

    def watch() -> None:
        try:
            lifeline.recv_bytes()
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="elot-lifeline", daemon=True).start()


def one_thread_each() -> None:
    """What a worker process does first: its BLAS and its planners on one thread each (its
    siblings hold the other cores: threads would only take CPU from them, and OpenBLAS's
    idle ones spin)."""
    from elot.engine.tables.planners import set_threads
    from elot.numeric import cap_blas_threads

    cap_blas_threads(1)
    set_threads(1)


def _warm_worker() -> None:
    """Import what tasks need (and build the grammar) once per Dask worker, before any task;
    one thread for its BLAS and its planners (:func:`one_thread_each`)."""
    from elot.domains.registry import front_for
    from elot.lang.parser import parse

    front_for()     # the default domain's front, imported once
    one_thread_each()

    parse("empty(box1)")


def _check_address(address: str) -> None:
    """ValueError unless ``address`` can name a scheduler: checked before a ``Client``
    starts its event loop (an ``inproc://`` address with no scheduler of this process
    behind it sometimes left that loop waiting instead of failing)."""
    from distributed.comm.addressing import get_address_host_port, parse_address

    scheme, location = parse_address(address)
    if scheme == "inproc":
        from distributed.comm.inproc import global_manager

        if global_manager.get_listener_for(location) is None:
            raise ValueError("no scheduler in this process listens there (an in-process address "
                             "reaches only a cluster started in the same process)")
    if scheme in ("tcp", "tls"):
        get_address_host_port(address)


def _dask(tasks: Sequence[Task], address: str, as_text: AsText) -> Iterator[list[Result]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise StudyError("--dask needs the distributed package", hint="pip install 'elot[dask]'") from None
    try:
        _check_address(address)
        client = Client(address, timeout="20s")
    except ValueError as error:  # not an address distributed can read
        raise StudyError(f"--dask {address!r} is not a Dask scheduler address: {error}",
                         hint="give the scheduler's address, e.g. tcp://10.0.0.5:8786") from None
    except (OSError, TimeoutError) as error:
        raise StudyError(f"cannot reach the Dask scheduler at {address}: {error}",
                         hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`") from None
    with client:
        client.run(_warm_worker)
        workers = sum(client.nthreads().values()) or 1
        chunks = chunk_tasks(tasks, workers)
        # Dask runs higher priorities first: the largest chunks, as chunk_tasks orders them.
        futures = [client.submit(run_tasks, chunk, as_text, priority=len(chunks) - n, pure=False,
                                 key=f"elot-tasks-{chunk[0].index}-{_digest(chunk)}")
                   for n, chunk in enumerate(chunks)]
        try:
            # with_results: results come back in batches with the completion events, not
            # one gather round trip per future
            for _, done in as_completed(futures, with_results=True):
                yield done
        except Exception as error:
            if not _cluster_lost(error):
                raise
            raise StudyError(f"the Dask cluster at {address} stopped answering mid-batch "
                             f"({type(error).__name__}: {error})",
                             hint="the finished tasks are kept: start the cluster again and rerun the same "
                                  "command with --resume") from None
        finally:
            client.cancel(futures)


def _cluster_lost(error: BaseException) -> bool:
    """Whether an exception from distributed means the scheduler or its workers are gone
    (a cancelled future, a closed connection), not a bug in a task."""
    import concurrent.futures

    names = {cls.__name__ for cls in type(error).__mro__}
    return (isinstance(error, (concurrent.futures.CancelledError, OSError, TimeoutError))
            or any("Cancelled" in n or "CommClosed" in n for n in names))


def finished(tasks: Sequence[Task], *, jobs: int = 1, dask: str | None = None,
             as_text: AsText = None) -> Iterator[list[Result]]:
    """``(task index, rows)`` of every task, in groups as they finish (a chunk from a
    worker, largest chunks first, :func:`chunk_tasks`; one task when serial, so that
    progress, Ctrl-C and --resume count single tasks), each group written by one call;
    with ``as_text`` (the table's columns) the rows come as CSV text, formatted where the
    task ran."""
    if dask:
        return _dask(tasks, dask, as_text)
    workers = jobs if len(tasks) > 1 else 1
    chunks = chunk_tasks(tasks, workers) if workers > 1 else [[task] for task in tasks]
    return (done for _, done in mapped(run_tasks, [(chunk, as_text) for chunk in chunks], workers,
                                       preload=("elot.domains.doors_keys_gems.scoring",
                                                "elot.domains.doors_keys_gems.inference")))


def results(tasks: Sequence[Task], *, jobs: int = 1, dask: str | None = None,
            as_text: AsText = None) -> Iterator[Result]:
    """``(task index, rows)`` for every task, as they finish (:func:`finished`, one by one)."""
    for group in finished(tasks, jobs=jobs, dask=dask, as_text=as_text):
        yield from group


def _digest(value) -> str:
    return hashlib.sha1(repr(value).encode()).hexdigest()[:12]
