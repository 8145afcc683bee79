"""Issue 44, many cores: worker processes run BLAS and the planners on one thread each, the
planners' product runs on one BLAS thread, and the planner's independent chunks of utility
vectors run on threads where cores are free, giving the same bits as one call."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from elot.cli.run import threads_used
from elot.engine.tables import planners
from elot.study.executors import in_workers
from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent


def test_worker_processes_use_one_thread_for_blas_and_planning():
    [(_, used)] = list(in_workers(threads_used, [()], 2))
    assert used["blas"] in (1, None) and used["planning"] == 1


def test_the_planner_solves_chunks_of_utility_vectors_on_threads_with_the_same_bits(monkeypatch):
    from elot.domains.foodtrucks.domain import FoodTrucks
    from elot.engine import EngineConfig
    from elot.engine.tables.grid import BeliefGrid

    domain = FoodTrucks()
    tables = domain.tables(1)
    config = EngineConfig(planner="belief-vi", sweeps=12)
    grid = BeliefGrid(len(tables.worlds), config.grid)
    indptr, indices, probs = planners.belief_transitions(tables, grid)
    reward, rows = planners.distinct_rewards(tables, grid.points, domain.desires(), True)
    one = planners.kernels("core").value_iteration(indptr, indices, probs, reward, len(tables.actions),
                                                   config.gamma, config.sweeps, rows)
    calls = []
    kernel = planners.kernels("core").value_iteration

    def counted(*args):
        calls.append(args[3].shape[1])
        return kernel(*args)

    monkeypatch.setattr(planners, "kernels", lambda backend: type("K", (), {"value_iteration": staticmethod(counted)}))
    for threads in (3, 4):
        planners.set_threads(threads)
        try:
            calls.clear()
            many = planners.value_iteration("core", indptr, indices, probs, reward, len(tables.actions),
                                            config.gamma, config.sweeps, rows)
        finally:
            planners.set_threads(None)
        assert len(calls) == threads and sum(calls) == reward.shape[1]
        assert np.array_equal(many, one)


def test_run_json_records_the_threads():
    result = run_elot("run", str(REPO / "examples" / "domains" / "check-empty.trucks"), "--json", "-",
                      env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    threads = json.loads(result.stdout)["threads"]
    assert threads["planning_blas"] == 1 and threads["planning"] >= 1 and "blas" in threads


def test_the_distinct_rewards_are_the_full_products_bits():
    """The planner hands the kernel each distinct reward row once: expanded, they are the
    floats of the product over every (belief, state, action) row, bit for bit."""
    from elot.domains.foodtrucks.domain import FoodTrucks
    from elot.engine.tables.grid import BeliefGrid

    domain = FoodTrucks()
    tables, desires = domain.tables(2), domain.desires()
    grid = BeliefGrid(len(tables.worlds), 6)
    n_w, n_s, n_a = tables.shape
    onehot = np.zeros((n_w, n_s, n_a, len(tables.objects) + 1))
    outcomes = np.asarray(tables.outcomes, dtype=np.int64)
    onehot[np.arange(n_w)[:, None, None], np.arange(n_s)[None, :, None], np.arange(n_a)[None, None, :], outcomes] = 1
    mix = np.einsum("bw,wsao->bsao", grid.points, onehot[..., :-1]).reshape(-1, len(tables.objects))
    for costs in (True, False):
        full = mix @ np.asarray(desires.utilities, dtype=np.float64).T
        if costs:
            full -= np.tile(np.asarray(tables.costs, dtype=np.float64), len(grid) * n_s)[:, None]
        reward, rows = planners.distinct_rewards(tables, grid.points, desires, costs)
        assert len(reward) < len(full) / 100 and rows.shape == (len(full),)
        assert reward[rows].tobytes() == full.tobytes()
