"""The configuration that ran travels with the result (issue 35): ``infer`` passes its
:class:`InferenceConfig` whole to the filter, the result keeps it with its open choices
resolved (the method ``auto`` chose, the seed drawn), and ``elot run --json`` and batch's
columns report what ran, not what was typed."""

from __future__ import annotations

import csv
import json

import pytest

from elot.domains.doors_keys_gems.config import InferenceConfig, infer_config
from elot.domains.doors_keys_gems.hypotheses import Prior
from elot.domains.doors_keys_gems.inference import ExactFilter, infer, run_filter
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.particles import ParticleFilter
from helpers import run_elot


def _json(tmp_path, *argv: str) -> dict:
    out = tmp_path / "run.json"
    done = run_elot("run", *argv, "--json", str(out), "--force")
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def test_every_setting_reaches_the_exact_filter_and_stays_on_its_result():
    scenario = load_scenario("two-doors")
    config = InferenceConfig(variant="non-planning", beta=1.5, k=2, conventions="paper", prior=Prior(max_hidden=1),
                             goals=("gem1", "gem2"), backend="reference", max_hypotheses=10_000)
    result = run_filter(ExactFilter(scenario, config), scenario)
    assert result.config == config.replace(method="exact")
    assert (result.model, result.beta, result.backend, result.conventions) == \
        ("non-planning", 1.5, "reference", "paper")
    assert result.space.goals == ("gem1", "gem2") and result.space.family.max_hidden == 1
    # the same run from keyword arguments, which build the same configuration
    again = run_filter(ExactFilter(scenario, model="non-planning", beta=1.5, k=2, conventions="paper",
                                   prior=Prior(max_hidden=1), goals=["gem1", "gem2"], backend="reference",
                                   max_hypotheses=10_000), scenario)
    assert again.config == result.config
    assert (again.log_weights == result.log_weights).all()


def test_the_particle_filter_keeps_the_seed_it_drew():
    scenario = load_scenario("default")
    drawn = run_filter(ParticleFilter(scenario, InferenceConfig(particles=60)), scenario)
    assert drawn.config.method == "smc" and isinstance(drawn.config.seed, int)
    assert drawn.seed == drawn.config.seed and drawn.config.particles == 60
    # the drawn seed repeats the run
    again = run_filter(ParticleFilter(scenario, InferenceConfig(particles=60, seed=drawn.config.seed)), scenario)
    assert again.config == drawn.config
    for t in range(drawn.steps + 1):
        assert (again.posterior(t) == drawn.posterior(t)).all()


def test_auto_reports_the_method_it_chose_not_auto():
    scenario = load_scenario("two-doors")
    small = infer(scenario, inference="auto")
    assert small.config.method == "exact" and small.config == InferenceConfig(method="exact")
    big = infer(scenario, inference="auto", max_bytes=20_000, particles=80)
    assert big.config.method == "smc" and isinstance(big.config.seed, int) and big.config.particles == 80
    assert big.config.max_bytes == 20_000


def test_keywords_build_the_config_they_name():
    assert infer_config(model="true-belief", inference="smc", k=2.0) == \
        InferenceConfig(variant="true-belief", method="smc", k=2)
    assert isinstance(infer_config(k=2.0).k, int)


def test_run_json_reports_what_ran(tmp_path):
    """Typed ``--inference auto`` without ``--seed``: the JSON says smc and the seed drawn,
    and that seed repeats the run's numbers."""
    typed = ("two-doors", "--inference", "auto", "--max-memory", "20K", "--particles", "150")
    data = _json(tmp_path, *typed)
    ran = data["inference"]
    assert ran["method"] == "smc" and ran["particles"] == 150 and isinstance(ran["seed"], int)
    assert ran["note"].startswith("auto: smc") and ran["hypotheses"] == 240
    assert (data["model"], data["k"], data["conventions"]) == ("full", 3, "elot")
    again = _json(tmp_path, *typed, "--seed", str(ran["seed"]))
    assert again["judgments"] == data["judgments"] and again["inference"] == ran

    exact = _json(tmp_path, "two-doors", "--inference", "auto", "--k", "2", "--beta", "1.5")
    assert exact["inference"]["method"] == "exact" and "seed" not in exact["inference"]
    assert (exact["k"], exact["beta"], exact["inference"]["k"], exact["inference"]["backend"]) == (2, 1.5, 2, "core")


def test_batch_columns_say_what_ran(tmp_path):
    out = tmp_path / "t.csv"
    done = run_elot("batch", "two-doors", "--inference", "auto", "--particles", "100",
                    "-s", "believes(player, formula(empty(box1)))", "-o", str(out))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["inference"] for r in rows} == {"exact"} and {r["seed"] for r in rows} == {""}


@pytest.mark.parametrize("name, conventions", [("two-doors", "elot"), ("two-doors", "paper"), ("default", "elot")])
def test_both_filters_step_the_worlds_through_one_shared_setup(name, conventions):
    """Issue 35: the filters no longer mirror their setup and world stepping; both are the
    engine's filters on one Doors-Keys-Gems world model (a WorldFilter shows its names),
    step the same worlds and name the planner alike."""
    from elot.domains.doors_keys_gems.filtering import WorldFilter
    from elot.domains.doors_keys_gems.model import true_trajectory
    from elot.domains.doors_keys_gems.model import GridWorldModel
    from elot.engine.worlds import exact, particles
    from elot.engine.worlds.protocol import WorldModel

    for cls in (ExactFilter, ParticleFilter):
        assert issubclass(cls, WorldFilter)
        assert not {"_action_codes", "_advance", "_start", "_options", "_plan"} & set(vars(cls))
    scenario = load_scenario(name)
    exact_filter = ExactFilter(scenario, conventions=conventions)
    particle_filter = ParticleFilter(scenario, conventions=conventions, particles=40, seed=2)
    assert type(exact_filter.planner) is type(particle_filter.planner)
    assert isinstance(exact_filter, exact.ExactFilter) and isinstance(particle_filter, particles.ParticleFilter)
    for filt in (exact_filter, particle_filter):
        assert type(filt.world_model) is GridWorldModel and isinstance(filt.world_model, WorldModel)
    exact, particles = run_filter(exact_filter, scenario), run_filter(particle_filter, scenario)
    assert exact.real == particles.real == true_trajectory(scenario)
    for t in range(exact.steps + 1):
        assert exact.worlds(t) == particles.worlds(t)
