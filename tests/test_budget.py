"""One budget (issue 35): every caller that asks "does it fit?" (exact inference, auto,
particle inference, the simulated agent, a batch's tasks) counts its work as an
:class:`~elot.engine.budget.Estimate` of :mod:`elot.domains.doors_keys_gems.costs` and is refused by
:func:`elot.engine.budget.check`, with one kind of error carrying the estimate."""

from __future__ import annotations

import pytest

from elot.domains.doors_keys_gems import costs, workload
from elot.engine.worlds import spaces
from elot.engine import budget
from elot.domains.doors_keys_gems.agent import SimulationError, check_simulation_size, count_model_states, run_agent
from elot.engine.budget import Estimate, Limits, OverBudget, check, footprint, format_bytes, memory_budget, over
from elot.domains.doors_keys_gems.config import InferenceConfig
from elot.engine.worlds.methods import ParticleError
from elot.domains.doors_keys_gems.inference import ExactFilter, infer, revealing_actions
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.particles import ParticleFilter
from elot.errors import ScenarioError
from elot.settings import ALL_VARIANTS


def test_check_says_the_estimate_the_limit_and_what_to_do(monkeypatch):
    work = Estimate("the sorting", footprint([(1000, 2**20)], fixed=2**20), seconds=7200.0, size=1000,
                    unit="rows", detail="1,000 rows of 1 MiB")
    assert work.bytes == 1001 * 2**20
    assert check(work, Limits(max_size=1000, max_bytes=2**40, max_seconds=10**5)) is work
    assert over(work, Limits(max_bytes=2**40)) is None
    hints = {"size": "fewer rows", "bytes": "more memory", "seconds": "more patience"}
    for limits, which, words in [(Limits(max_size=10, max_bytes=2**40), "size", "is too large"),
                                 (Limits(max_bytes=2**20), "bytes", "would need about 1.0 GiB"),
                                 (Limits(max_bytes=2**40, max_seconds=60), "seconds", "would run about 2.0 hours")]:
        with pytest.raises(OverBudget) as refused:
            check(work, limits, hint=hints, advice="try elsewhere")
        error = refused.value
        assert (error.estimate, error.limit) == (work, which) and error.hint == hints[which]
        assert error.message.startswith("the sorting " + words) and error.message.endswith(": try elsewhere")
        assert error.size == error.message[:-len(": try elsewhere")] and "1,000 rows of 1 MiB" in error.size
    # no limit on memory given: half the memory available now (held still: other processes
    # allocate between two reads of the machine's free memory)
    monkeypatch.setattr(budget, "memory_available", lambda: 8 * 2**30)
    assert memory_budget() == 4 * 2**30
    assert over(Estimate("x", 2 * memory_budget() + 1), Limits()) == ("bytes", memory_budget())
    assert format_bytes(3 * 2**30) == "3.0 GiB"


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_every_variant_is_sized_from_data_not_a_branch(variant):
    """How a variant holds its initial belief is a table: true-belief-paper is sized as the
    certain-belief space it is (batch once special-cased it by name)."""
    assert variant in spaces.INITIAL_BELIEFS
    estimate = spaces.exact_estimate(variant, 3, 10, 3, steps=5)
    beliefs = 1 if spaces.INITIAL_BELIEFS[variant] == "true" else 220   # C(12, 3)
    assert estimate.size == 3 * 10 * beliefs and estimate.unit == "hypotheses"
    space = ExactFilter(load_scenario("two-doors"), variant=variant).space
    assert space.n_beliefs == spaces.n_beliefs(variant, space.n_states, 3)


def test_exact_inference_and_auto_read_one_estimate():
    scenario = load_scenario("two-doors")
    space = ExactFilter(scenario).space
    estimate = spaces.exact_estimate("full", space.n_goals, space.n_states, 3, steps=len(scenario.actions),
                                    belief_tables=1 + revealing_actions(scenario.actions))
    assert estimate.size == len(space)
    with pytest.raises(costs.SpaceTooLarge) as refused:
        infer(scenario, max_bytes=20_000)
    assert isinstance(refused.value, OverBudget) and isinstance(refused.value, ScenarioError)
    assert refused.value.estimate == estimate and refused.value.limit == "bytes"
    auto = infer(scenario, inference="auto", max_bytes=20_000, particles=60, seed=1)
    assert auto.config.method == "smc" and f"would need about {format_bytes(estimate.bytes)}" in auto.note


def test_particle_inference_and_the_agent_are_refused_by_the_same_check():
    scenario = load_scenario("default")
    with pytest.raises(ParticleError) as refused:
        ParticleFilter(scenario, InferenceConfig(particles=10**8))
    assert isinstance(refused.value, OverBudget) and refused.value.limit == "bytes"
    assert refused.value.estimate.work == "particle inference" and "--particles" in refused.value.hint
    with pytest.raises(ParticleError) as slow:
        ParticleFilter(scenario, InferenceConfig(k=5000, particles=1000))
    assert slow.value.limit == "seconds" and "hours" in slow.value.message and "--k" in slow.value.hint

    with pytest.raises(SimulationError) as big:
        check_simulation_size(scenario.initial, max_bytes=1000)
    assert isinstance(big.value, OverBudget) and big.value.estimate.work == "simulating the agent"
    n_states = count_model_states(scenario.initial)
    assert big.value.estimate == costs.simulation_estimate(scenario.layout.width * scenario.layout.height, n_states,
                                                           big.value.estimate.detail)
    assert run_agent(scenario, goal="gem1", seed=0).actions   # under the budget it runs


def _bytes(**settings) -> int:
    """What a batch task of two-doors holds at once (its domain's estimate, by its config)."""
    return workload.task_bytes(load_scenario("two-doors"), InferenceConfig(**settings))


def test_a_batch_task_is_sized_by_its_own_limits():
    """A task's limits are its configuration's (they were the library defaults whatever
    the task said): auto under a small hypothesis limit is sized as the particles it runs."""
    scenario = load_scenario("two-doors")
    space = ExactFilter(scenario).space
    exact = _bytes()
    assert exact == 64 * 2**20 + spaces.exact_estimate("full", space.n_goals, space.n_states, 3,
                                                      steps=len(scenario.actions),
                                                      belief_tables=1 + revealing_actions(scenario.actions)).bytes
    smc = _bytes(method="auto", max_hypotheses=100, particles=50)
    assert smc == _bytes(method="smc", particles=50) != exact
    with pytest.raises(costs.SpaceTooLarge):
        _bytes(max_hypotheses=100)
    # true-belief-paper is sized by the table, as true-belief is
    assert _bytes(variant="true-belief-paper") == _bytes(variant="true-belief")
