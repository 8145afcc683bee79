"""The scenario generator: seeded and deterministic, every map loads and is solvable, and
exact inference on small random maps agrees between the compiled core and the reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from btom_ext import reference as ref
from elot.domains.doors_keys_gems.generate import GenerateError, Spec, generate
from elot.domains.doors_keys_gems.encoding import Encoding
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from helpers import examples, run_elot

specs = st.builds(Spec, boxes=st.integers(0, 4), colours=st.integers(1, 6), doors=st.integers(0, 4),
                  gems=st.integers(1, 4), wall_density=st.sampled_from([0.0, 0.15, 0.3]))


def test_same_seed_same_map_and_seeds_differ():
    spec = Spec(boxes=4, colours=3, doors=2, gems=3)
    assert generate(spec, 7, steps=5) == generate(spec, 7, steps=5)
    assert len({generate(spec, seed) for seed in range(6)}) > 1


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(specs, st.integers(0, 10_000))
def test_generated_maps_load_and_are_solvable(spec, seed):
    scenario = parse_scn_text(generate(spec, seed, steps=10 ** 6))
    layout = scenario.layout
    assert (len(layout.boxes), len(layout.doors), len(layout.gems)) == (spec.boxes, spec.doors, spec.gems)
    assert len(layout.colours) == spec.colours
    # every gem reachable, by the reference's full state-space search (not the generator's)
    enc = Encoding(layout)
    planner = ref.Planner(enc.walls, layout.width, enc.door_cells, enc.door_colours, enc.box_cells, enc.gem_cells)
    assert (planner.costs(enc.encode_many([scenario.initial]))[0] > 0).all()
    # the actions are an optimal plan: it ends holding the true goal, in that many steps
    assert scenario.true_goal in scenario.states()[-1].held_gems
    goal = enc.gem_index(scenario.true_goal)
    assert len(scenario.actions) == planner.costs(enc.encode_many([scenario.initial]))[0, goal]


@settings(max_examples=8, deadline=None)
@given(st.builds(Spec, boxes=st.integers(1, 3), colours=st.integers(1, 2), doors=st.integers(0, 2),
                 gems=st.integers(1, 3)), st.integers(0, 10_000))
def test_exact_inference_on_random_maps_agrees_with_reference(spec, seed):
    scenario = parse_scn_text(generate(spec, seed, steps=6))
    fast = infer(scenario, k=2, backend="core")
    slow = infer(scenario, k=2, backend="reference")
    assert np.array_equal(np.isfinite(fast.log_weights), np.isfinite(slow.log_weights))
    finite = np.isfinite(slow.log_weights)
    np.testing.assert_allclose(fast.log_weights[finite], slow.log_weights[finite], rtol=0, atol=1e-12)


def test_bad_specs_are_errors():
    with pytest.raises(GenerateError, match="at least one gem"):
        generate(Spec(gems=0))
    with pytest.raises(GenerateError, match="cannot hide 3 keys"):
        generate(Spec(boxes=2, hidden=3))


def test_cli_writes_a_map_that_elot_run_loads(tmp_path):
    out = tmp_path / "map.scn"
    done = run_elot("generate", "--boxes", "3", "--colours", "2", "--doors", "2", "--gems", "2",
                    "--seed", "1", "--steps", "4", "-o", str(out))
    assert done.returncode == 0, done.stderr
    ran = run_elot("run", str(out))
    assert ran.returncode == 0, ran.stderr
    assert "4 actions" in ran.stdout
    # again: the file is elot's own, so it is replaced; the same seed writes the same map
    before = out.read_text()
    assert run_elot("generate", "--boxes", "3", "--colours", "2", "--doors", "2", "--gems", "2",
                    "--seed", "1", "--steps", "4", "-o", str(out)).returncode == 0
    assert out.read_text() == before
    bad = run_elot("generate", "--gems", "0")
    assert bad.returncode == 2 and "at least one gem" in bad.stderr and "Traceback" not in bad.stderr
