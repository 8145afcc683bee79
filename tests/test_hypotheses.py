"""The hypothesis space: colour limits, initial states, key naming, beliefs (SPEC §5)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from btom_ext.reference import EPSILON
from elot.btom.hypotheses import Encoding, belief_weights, build, colour_limits, initial_states, particle_counts
from elot.btom.scenario import load_dataset_plan
from elot.errors import ScenarioError
from elot.btom.world import KeyState, Layout, WorldState

# Initial states per dataset map: 3, 6, 7 or 9, hence 120/1344/2352/5940 hypotheses.
EXPECTED = {"1": (3, 120), "2": (9, 5940), "3": (6, 1344), "4": (6, 1344), "5": (9, 5940),
            "6": (7, 2352), "7": (3, 120)}
PLANS = ["1_1", "1_2", "1_3", "2_1", "2_2", "2_3", "3_1", "3_2", "3_3", "4_1", "4_2", "4_3",
         "5_1", "5_2", "6_1", "6_2", "6_3", "7_1", "7_2", "7_3"]


@pytest.mark.dataset
@pytest.mark.parametrize("plan", PLANS)
def test_dataset_counts(labtom, plan):
    scenario = load_dataset_plan(labtom, plan)
    space = build(scenario.initial)
    n_states, n_hyp = EXPECTED[plan.split("_")[0]]
    assert space.n_states == n_states and len(space) == n_hyp
    assert space.n_beliefs == comb(n_states + 2, 3)
    # the true initial state is one of the hypotheses
    assert any(s.keys == scenario.initial.keys for s in space.states)
    # every state looks the same as the true one
    assert {s.view() for s in space.states} == {scenario.initial.view()}
    assert len(build(scenario.initial, model="true-belief")) == 4 * n_states


def corridor(hidden: bool) -> WorldState:
    """gem2 | red door | box1 | agent | . | red key | gem1 — one row."""
    layout = Layout(7, 1, frozenset(), "human", (("gem1", (7, 1)), ("gem2", (1, 1))),
                    (("door1", (2, 1), "red"),), (("box1", (3, 1)),), ("key1", "key2"), ("red",))
    in_box = KeyState("red", ("box", "box1")) if hidden else KeyState(None, ("offgrid",))
    keys = (("key1", KeyState("red", ("cell", (6, 1)))), ("key2", in_box))
    return WorldState(layout, (4, 1), keys, frozenset({"door1"}), frozenset({"box1"}), frozenset())


def test_colour_limits_and_states():
    true = corridor(hidden=True)
    # gem2's optimal plan takes the red key from the box; one red key is visible
    assert colour_limits(true) == {"red": (0, 1)}
    states = initial_states(true)
    assert [s.key("key2") for s in states] == [KeyState(None, ("offgrid",)), KeyState("red", ("box", "box1"))]
    assert states[1] == true


def test_key_names_reuse_true_objects():
    """A hidden key of another colour takes the next spare object, in key order."""
    layout = Layout(5, 1, frozenset(), "h", (("gem1", (1, 1)),), (("door1", (2, 1), "red"),),
                    (("box1", (4, 1)), ("box2", (5, 1))), ("key1", "key2", "key3"), ("red", "blue"))
    true = WorldState(layout, (3, 1), (("key1", KeyState(None, ("offgrid",))),
                                      ("key2", KeyState("red", ("box", "box2"))),
                                      ("key3", KeyState(None, ("offgrid",)))),
                      frozenset({"door1"}), frozenset({"box1", "box2"}), frozenset())
    states = initial_states(true)
    placed = {frozenset((k, ks.where[1]) for k, ks in s.keys if ks.where[0] == "box") for s in states}
    # red in box2 reuses key2; red in box1 takes the first spare object, key1
    assert placed == {frozenset({("key1", "box1")}), frozenset({("key2", "box2")})}


def test_particles_and_epsilon():
    counts = particle_counts(3, 3)
    assert len(counts) == 10 and (counts.sum(axis=1) == 3).all()
    weights = belief_weights(counts, 3)
    assert weights[0].tolist() == [1.0, EPSILON, EPSILON]
    assert EPSILON == np.nextafter(0.0, 1.0)


def test_encoding_round_numbers():
    true = corridor(hidden=True)
    enc = Encoding(true.layout)
    row = enc.encode(true)
    # agent cell 3, door locked, box closed, no gems; key1 on floor cell 5, key2 in box 0
    assert row.tolist() == [3, 1, 1, 0, 0, 1, 5, 0, 0, 0]
    assert enc.pos(enc.cell((6, 1))) == (6, 1)


THREE_DOORS = """name: three-doors
colours: red, blue

map:
  gWWWWW
  RWWWWW
  RWWWWW
  RWWWWW
  ......
  hF.F.F

actions:
  right, open box1
"""


def test_a_map_that_needs_more_hidden_keys_gets_a_family_that_fits():
    from elot.btom.hypotheses import DEFAULT_MAX_HIDDEN, Prior, build
    from elot.btom.scenario import parse_scn_text

    true = parse_scn_text(THREE_DOORS).initial
    family = Prior().resolve(true)
    assert (family.max_hidden, family.needed, family.widened) == (3, 3, True)
    assert "the dataset's family allows 2" in family.describe()
    space = build(true)
    assert space.n_states == 1 and space.states[0] == true and space.family == family
    with pytest.raises(ScenarioError, match=r"no initial state is consistent .* \(prior: 0-2 hidden keys"):
        build(true, prior=Prior(max_hidden=DEFAULT_MAX_HIDDEN))


def test_prior_colours_and_counts_are_parameters():
    from elot.btom.hypotheses import Prior, build

    true = corridor(hidden=True)
    assert build(true).family.is_default
    # any number up to 2 of red: none, one in box1 (the only closed box)
    assert build(true, prior=Prior(colours=("red",))).n_states == 2
    assert build(true, prior=Prior(max_hidden=0)).n_states == 1
    with pytest.raises(ScenarioError, match="unknown hidden-key colour"):
        build(true, prior=Prior(colours=("blue",)))


def test_run_header_states_a_widened_family(tmp_path):
    from helpers import run_elot

    path = tmp_path / "three.scn"
    path.write_text(THREE_DOORS, encoding="utf-8")
    done = run_elot("run", str(path))
    assert done.returncode == 0, done.stderr
    assert "prior: 0-3 hidden keys (the dataset's family allows 2; the doors on the way to the goals need 3)" in done.stdout
    refused = run_elot("run", str(path), "--hidden-keys", "2")
    assert refused.returncode == 2 and "--hidden-keys N" in refused.stderr
