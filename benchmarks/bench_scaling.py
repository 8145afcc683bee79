"""Scaling of ``elot batch``: serial vs ``--jobs N`` vs a Dask LocalCluster of N workers.

Runs one dataset sweep (every plan of exp1 and exp2 × the three models × B values of β ×
k ∈ {3, 4}; ``--betas 8`` is the 2,880-task sweep of issue 20) three ways in this process,
checks the three tables are byte-identical, and prints times and speed-ups against the
serial run. With ``--old`` it also runs ``--jobs N`` with the scheduling batch used before
(one chunk per scenario, in table order), for a before/after on the same machine.

Then the breakdown: where the serial time goes per task (the largest tasks, the ideal
makespan on N workers), what the parent does before any worker starts (size estimates and
chunking), what is shipped to workers and back per chunk (pickled bytes), and the writer.

    python benchmarks/bench_scaling.py [--jobs N] [--betas B] [--exps exp1 exp2] [--old] [--no-dask]

Last, the parent's serial work (reading the scenarios, planning the tasks, the memory check,
chunking, the journal's fingerprint, writing each chunk's rows, finishing the table: putting
the rows in order, writing the output and counting its rows and failures) as a fraction of
the whole serial sweep, and the speed-up it predicts on ``--predict`` cores (16 by default)
by Amdahl's law: the figure to quote where a machine of that many cores is not at hand.
Beside it, the CPU the parent process really spent in the ``--jobs`` run (everything it did
between calling batch and getting its result, the workers' own work apart), as a check.
Issue 44's whole-dataset sweep is ``--betas 12 --k 3 4 5``.

Speed-ups depend on free cores: say how many the machine had, and how loaded it was.
"""

from __future__ import annotations

import argparse
import os
import pickle
import tempfile
import time
from pathlib import Path

import numpy as np

from elot.study import executors
from elot.study.batch import batch, fingerprint
from elot.study.executors import chunk_tasks
from elot.study.journal import Journal
from elot.domains.doors_keys_gems.workload import scenario_counts
from elot.study.references import refs_of
from elot.study.resources import check_resources, task_cost
from elot.study.tables import TaskRows, format_rows
from elot.study.tasks import Grid, plan_tasks, run_task, table_columns


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def old_chunks(tasks, workers):
    """batch's scheduling before: one chunk per scenario, in table order."""
    chunks: dict = {}
    for task in tasks:
        chunks.setdefault(task.scenarios, []).append(task)
    return list(chunks.values())


def makespan(chunks, seconds: dict[int, float], workers: int) -> float:
    """When the last worker finishes, if each chunk goes to the first free worker in
    submission order and takes the sum of its tasks' measured times (no overheads)."""
    import heapq

    free = [0.0] * workers
    for chunk in chunks:
        start = heapq.heappop(free)
        heapq.heappush(free, start + sum(seconds[t.index] for t in chunk))
    return max(free)


def finishing(out: Path, chunks, columns) -> float:
    """Seconds of :meth:`Journal.finish` on the serial run's rows, journaled as the parallel
    run's chunks bring them (one piece per chunk): read back, put in order, written, tallied."""
    body = (out / "serial.csv").read_text().split("\n", 1)[1].splitlines(keepends=True)
    sizes = [len(chunk) for chunk in chunks]
    edges = np.cumsum([0] + sizes) * len(body) // max(sum(sizes), 1)
    journal = Journal(out / "finish.csv", "bench", False, len(chunks), columns)
    # as workers send them: counted where they ran (TaskRows), so the writer need not read them back
    journal.add_many([(i, TaskRows.of("".join(body[a:b]), columns)) for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))])
    seconds, _ = timed(lambda: journal.finish("csv", force=True))
    journal.release()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="workers (default: the CPU count)")
    parser.add_argument("--betas", type=int, default=2, help="values of β (default: %(default)s; 8: issue 20's sweep)")
    parser.add_argument("--exps", nargs="+", default=["exp1", "exp2"])
    parser.add_argument("--old", action="store_true", help="also run --jobs N with the old scheduling")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask run")
    parser.add_argument("--k", type=int, nargs="+", default=[3, 4], help="values of k (issue 44's sweep: 3 4 5)")
    parser.add_argument("--predict", type=int, default=16, help="cores to predict the speed-up on (default 16)")
    args = parser.parse_args()
    betas = tuple(np.round(np.geomspace(0.5, 16, args.betas), 6)) if args.betas > 1 else (2 ** 1.5,)
    parent: dict[str, float] = {}
    parent["reading the scenarios"], refs = timed(lambda: refs_of(["all"], exp=",".join(args.exps)))
    parent["planning the tasks"], tasks = timed(lambda: plan_tasks(
        refs, Grid(models=("full", "true-belief", "non-planning"), betas=betas, params=(("k", tuple(args.k)),))))
    n = args.jobs
    print(f"{len(tasks)} tasks ({len(refs)} plans x 3 models x {len(betas)} beta x k in {set(args.k)}); "
          f"{n} workers; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    # -- the parent's work before any worker starts ----------------------------------------
    setup_counts, _ = timed(lambda: [scenario_counts(r.load().detail) for r in refs])
    setup_check, _ = timed(lambda: check_resources(tasks, n))
    setup_chunks, chunks = timed(lambda: chunk_tasks(tasks, n))
    parent["the memory check"], parent["chunking"] = setup_check, setup_chunks
    parent["the fingerprint"], _ = timed(lambda: fingerprint(tasks))

    out = Path(tempfile.mkdtemp(prefix="elot-scaling-"))
    runs: dict[str, float] = {}
    per_task: dict[int, float] = {}

    def timed_task(task):
        seconds, value = timed(lambda: run_task(task))
        per_task[task.index] = seconds
        return value

    executors.run_task = timed_task  # the serial run times each task as it goes
    try:
        runs["serial"], _ = timed(lambda: batch(tasks, out / "serial.csv"))
    finally:
        executors.run_task = run_task
    if args.old:
        original = executors.chunk_tasks
        executors.chunk_tasks = old_chunks
        try:
            runs[f"--jobs {n} (old scheduling)"], _ = timed(lambda: batch(tasks, out / "old.csv", jobs=n))
        finally:
            executors.chunk_tasks = original
    cpu = time.process_time()
    runs[f"--jobs {n}"], _ = timed(lambda: batch(tasks, out / "jobs.csv", jobs=n))
    parent_cpu = time.process_time() - cpu   # the parent's own (its workers are other processes)
    if not args.no_dask:
        from distributed import LocalCluster

        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            runs[f"Dask LocalCluster({n})"], _ = timed(
                lambda: batch(tasks, out / "dask.csv", dask=cluster.scheduler_address))
    serial = (out / "serial.csv").read_bytes()
    same = all((out / f).read_bytes() == serial for f in os.listdir(out) if f.endswith(".csv"))
    print(f"\n{'run':<34} {'seconds':>8} {'speed-up':>9}")
    for name, seconds in runs.items():
        print(f"{name:<34} {seconds:8.2f} {runs['serial'] / seconds:8.2f}x")
    print(f"tables identical: {'yes' if same else 'NO'} ({len(serial):,} bytes)")

    # -- breakdown ------------------------------------------------------------------------
    total = sum(per_task.values())
    largest = sorted(per_task.values(), reverse=True)
    chunk_seconds = sorted((sum(per_task[t.index] for t in c) for c in chunks), reverse=True)
    old_seconds = sorted((sum(per_task[t.index] for t in c) for c in old_chunks(tasks, n)), reverse=True)
    estimate = np.array([task_cost(t) for t in tasks])
    measured = np.array([per_task[t.index] for t in tasks])
    print(f"\nper-task time (serial run): total {total:.2f} s, mean {1e3 * total / len(tasks):.1f} ms, "
          f"largest {1e3 * largest[0]:.0f} ms, 10 largest {sum(largest[:10]):.2f} s")
    print(f"task_cost estimate vs measured: Spearman rank correlation "
          f"{np.corrcoef(np.argsort(np.argsort(estimate)), np.argsort(np.argsort(measured)))[0, 1]:.2f}")
    print(f"chunks: {len(chunks)} (largest {chunk_seconds[0]:.2f} s) vs {len(old_seconds)} per-scenario chunks "
          f"before (largest {old_seconds[0]:.2f} s); ideal makespan on {n} workers: "
          f"{max(total / n, chunk_seconds[0]):.2f} s now, {max(total / n, old_seconds[0]):.2f} s with the old chunks")
    print("simulated makespan from the measured task times (greedy, no overheads), old chunks -> new:")
    for workers in (2, 4, 8, 16):
        before = makespan(old_chunks(tasks, workers), per_task, workers)
        after = makespan(chunk_tasks(tasks, workers), per_task, workers)
        print(f"  {workers:>2} workers: {before:6.2f} s ({total / before:5.2f}x) -> {after:6.2f} s "
              f"({total / after:5.2f}x); bound total/N {total / workers:6.2f} s")
    print(f"parent before the first task: scenario counts {setup_counts:.2f} s, memory check "
          f"{setup_check:.2f} s, chunking {setup_chunks:.3f} s")
    columns = table_columns(tasks)   # what batch passes as as_text: rows come back as CSV text
    shipped = [len(pickle.dumps((executors.run_tasks, chunk, columns))) for chunk in chunks]
    back = [len(pickle.dumps(executors.run_tasks(chunk, columns))) for chunk in chunks[-3:]]
    print(f"shipped per chunk: mean {np.mean(shipped) / 1024:.1f} KiB (total {sum(shipped) / 2**20:.2f} MiB); "
          f"returned per chunk (CSV text): about {np.mean(back) / 1024:.1f} KiB")
    texts = [(t.index, format_rows(run_task(t)[1])) for t in tasks[:200]]
    per_chunk = len(tasks) / len(chunks)
    seconds = {}
    # The baseline syncs after every task (what a serial batch did); a batch now appends each
    # task or chunk and syncs at most once every SYNC_SECONDS, and once when it finishes.
    for name, write in (("one sync per task", lambda p: [(p.add(i, text), p.sync()) for i, text in texts]),
                        ("as batch writes", lambda p: [p.add_many(texts[a:a + round(per_chunk)])
                                                       for a in range(0, len(texts), round(per_chunk))]
                         + [p.sync()])):
        partial = Journal(out / "writer.csv", "bench", False, len(texts))
        seconds[name], _ = timed(lambda: write(partial))
        partial.close()
        partial.discard()
        partial.release()
    print("writer (append + fsync + manifest): " + "; ".join(
        f"{name} {1e3 * s / len(texts):.2f} ms per task, {s / len(texts) * len(tasks):.2f} s for the sweep"
        for name, s in seconds.items()) + f" (chunks of {per_chunk:.0f} tasks)")

    # -- the serial fraction, and what it predicts (Amdahl) -----------------------------------
    parent["writing the rows"] = seconds["as batch writes"] / len(texts) * len(tasks)
    parent["finishing the table"] = finishing(out, chunks, columns)
    serial = sum(parent.values())
    fraction = serial / (serial + total)
    print("\nthe parent's serial work: " + ", ".join(f"{k} {v:.3f} s" for k, v in parent.items())
          + f"; {serial:.2f} s of {serial + total:.2f} s in all")
    print(f"the parent's CPU in the --jobs {n} run (the memory check to the finished table, its workers apart): "
          f"{parent_cpu:.2f} s, {100 * parent_cpu / (parent_cpu + total):.2f}% of the sweep with the tasks' time")
    for cores in sorted({n, args.predict}):
        print(f"serial fraction {100 * fraction:.2f}%: predicted speed-up on {cores} cores "
              f"{1 / (fraction + (1 - fraction) / cores):.1f}x (Amdahl), ideal {cores}x")


if __name__ == "__main__":
    main()
