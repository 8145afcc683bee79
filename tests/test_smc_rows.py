"""Particle inference on world rows (issue 27 item 1): the filter steps its hypothesized
worlds as encoded rows in the core (``Rules.apply``), compares their views there
(``view_labels``) and scores the options on rows, making worlds only when they are read.
Here every step is held to the path it replaced — :class:`~elot.domains.doors_keys_gems.world.WorldState`
objects stepped one by one (``step_worlds``), compared by ``view()``, the options' path
costs from ``AgentPlanner.action_costs`` — and whole runs on the compiled core to runs on
the NumPy reference backend."""

from __future__ import annotations

import numpy as np
import pytest

from elot.domains.doors_keys_gems.agent import run_agent
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.domains.doors_keys_gems.engine import as_in, same_action, step_worlds
from elot.engine.worlds.protocol import LazyWorlds, as_worlds
from elot.domains.doors_keys_gems.generate import Spec, generate
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.particles import ParticleFilter
from elot.engine.worlds.particles import _classes
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.rows import judged as judged_rows, signature as signature_of


def generated(seed: int = 0):
    spec = Spec(boxes=4, colours=2, doors=2, gems=3)   # 30 actions: opens, pickups, unlocks
    return run_agent(parse_scn_text(generate(spec, seed=seed), f"generated-{seed}.scn"), seed=seed,
                     max_steps=60).scenario


def scenarios(labtom):
    return [("2_1", load_dataset_plan(labtom, "2_1")), ("3_2", load_dataset_plan(labtom, "3_2")),
            ("generated", generated())]


@pytest.mark.parametrize("model,conventions", [("full", "elot"), ("full", "paper"), ("true-belief", "elot"),
                                               ("non-planning", "paper")])
def test_each_step_equals_worlds_stepped_in_python(labtom, model, conventions):
    """At every step the rows, classes, live states and option values the filter computes
    on rows are those of the worlds stepped and viewed one by one in Python."""
    for name, scenario in scenarios(labtom):
        filt = ParticleFilter(scenario, model=model, conventions=conventions, particles=50, seed=0)
        filt.init()
        local = as_in if conventions == "paper" else same_action
        worlds = tuple(filt.space.states)
        for t, action in enumerate(map(tuple, scenario.actions), start=1):
            before = filt.real[-1]
            options = before.available_actions()
            rename = None if local is same_action else (lambda w, o, before=before: local(w, o, before))
            live = np.flatnonzero(filt.live)
            costs = filt.planner.action_costs(worlds, filt.enc.encode_many(worlds), live, options, filt.goal_gems,
                                            rename)
            values = np.full(costs.shape, -100.0)
            values[:, live] = np.where(costs[:, live] < 0, -100.0, np.maximum(-1.0 - costs[:, live], -100.0))
            np.testing.assert_array_equal(filt._values(options), values, err_msg=f"{name} t={t}")
            filt.step(action)
            worlds = as_worlds(step_worlds(worlds, action, rename)[0])
            views = [w.view() for w in worlds]
            np.testing.assert_array_equal(filt.rows[:-1], filt.enc.encode_many(worlds), err_msg=f"{name} t={t}")
            np.testing.assert_array_equal(filt.rows[-1], filt.enc.encode(filt.real[-1]))
            seen = filt.real[-1].view()
            expected_live = filt.history_live[t - 1] & np.array([v == seen for v in views], dtype=np.uint8)
            np.testing.assert_array_equal(filt.live, expected_live, err_msg=f"{name} t={t}")
            # class ids: states that agreed on every view so far share one
            np.testing.assert_array_equal(filt.cls, _classes(views, filt.history_cls[t - 1]), err_msg=f"{name} t={t}")
            assert [w.atoms() for w in as_worlds(filt.worlds)] == [w.atoms() for w in worlds]


def test_worlds_are_made_only_when_read(labtom):
    """Under elot's conventions a run makes no world after the initial ones: each step's
    worlds are lazy until a result reads them."""
    scenario = load_dataset_plan(labtom, "3_2")
    result = infer(scenario, inference="smc", particles=100, seed=0)
    lazy = [w for w in result.worlds_by_step if isinstance(w, LazyWorlds)]
    assert len(lazy) == result.steps and all(w._worlds is None for w in lazy)
    assert result.worlds(result.steps)[0].view() == result.real[-1].view() or not result.live[-1][0]


@pytest.mark.slow
@pytest.mark.parametrize("conventions", ["elot", "paper"])
def test_core_and_reference_rows_give_the_same_run(labtom, conventions):
    """The whole filter with the reference backend's rules and views (NumPy) follows the
    compiled one on a dataset plan and a generated map: the same particles, weights and
    goal posteriors at every step."""
    for name, scenario in scenarios(labtom)[1:]:
        a = infer(scenario, inference="smc", particles=150, seed=4, conventions=conventions)
        b = infer(scenario, inference="smc", particles=150, seed=4, conventions=conventions, backend="reference")
        np.testing.assert_array_equal(a.live, b.live)
        np.testing.assert_array_equal(a.classes, b.classes)
        for p, q in zip(a.particles_by_step, b.particles_by_step):
            np.testing.assert_array_equal(p.state, q.state)
            np.testing.assert_array_equal(p.beliefs, q.beliefs)
            np.testing.assert_allclose(p.logw, q.logw, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a.goal_probs, b.goal_probs, atol=1e-9)


STATEMENTS = [
    "uncertain_about(player, box(B), exists(and(key(K), iscolor(K, red)), inside(K, B)))",
    "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box1))))",
    ">=(prob_of(player, exists(key(K), inside(K, box2))), 0.4)",
    "not(believes(player, formula(forall(box(B), exists(key(K), inside(K, B))))))",
]


@pytest.mark.slow
@pytest.mark.parametrize("conventions", ["elot", "paper"])
def test_scores_from_rows_made_in_chunks_equal_the_dense_table(labtom, monkeypatch, conventions):
    """Scoring reads the particles' and prior draws' dense beliefs a chunk of rows at a
    time: with chunks of a few rows (uneven at the end) every score is the same doubles as
    from the whole dense table at once, and the table made on read is the chunks' rows."""
    import elot.judging as judging
    from dataclasses import replace

    from elot.domains.doors_keys_gems.scoring import compile_statement

    for name, scenario in scenarios(labtom):
        result = infer(scenario, inference="smc", particles=300, seed=5, conventions=conventions)
        for t in (0, result.steps // 2, result.steps):
            for at in (t, 0):
                rows = judged_rows(result, t, at)
                dense = rows.beliefs[signature_of(result).agent]
                assert dense.shape == (len(rows), len(rows.worlds))
                whole = replace(rows, beliefs={signature_of(result).agent: dense}, belief_rows=None)
                for text in STATEMENTS:
                    compiled = compile_statement(result, text, bind_free=True)
                    monkeypatch.setattr(judging, "CHUNK_CELLS", 7 * len(rows.worlds))
                    chunked = judging.score(compiled, rows, conventions)
                    monkeypatch.undo()
                    assert chunked == judging.score(compiled, whole, conventions), (name, t, at, text)
                    np.testing.assert_array_equal(judging.holds(compiled, rows), judging.holds(compiled, whole))


def test_average_belief_reads_the_weighted_rows(labtom):
    """The average belief sums the weighted rows alone (the prior draws weigh 0): the same
    correctly rounded sums as over every judged row."""
    from elot.numeric import dot_columns

    result = infer(scenarios(labtom)[2][1], inference="smc", particles=300, seed=5)
    t = result.steps
    rows = judged_rows(result, t, t)
    np.testing.assert_array_equal(result.average_belief(t),
                                  dot_columns(rows.weights, rows.beliefs[signature_of(result).agent]))


def test_a_paper_conventions_result_with_lazy_worlds_pickles(labtom):
    """Lazy worlds keep their renaming as a picklable partial: a result sent between
    processes (batch --jobs) reads the same worlds and gives the same scores."""
    import pickle

    from elot.domains.doors_keys_gems.scoring import score

    result = infer(load_dataset_plan(labtom, "3_2"), inference="smc", particles=200, seed=1, conventions="paper")
    copy = pickle.loads(pickle.dumps(result))
    assert [w.atoms() for w in copy.worlds(copy.steps)] == [w.atoms() for w in result.worlds(result.steps)]
    for text in STATEMENTS[:2]:
        assert score(copy, text, copy.steps, bind_free=True) == score(result, text, result.steps, bind_free=True)
