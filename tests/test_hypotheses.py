"""The hypothesis space: colour limits, initial states, key naming, beliefs (SPEC §5)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from helpers import examples

from btom_ext.reference import EPSILON
from elot.domains.doors_keys_gems.hypotheses import build, colour_limits, initial_states
from elot.domains.doors_keys_gems.encoding import Encoding
from elot.domains.doors_keys_gems.pickups import key_pickups
from elot.engine.worlds.spaces import belief_weights, particle_counts
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.errors import ScenarioError
from elot.domains.doors_keys_gems.world import KeyState, Layout, WorldState

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
    from elot.domains.doors_keys_gems.hypotheses import DEFAULT_MAX_HIDDEN, Prior, build
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    true = parse_scn_text(THREE_DOORS).initial
    family = Prior().resolve(true)
    assert (family.max_hidden, family.needed, family.widened) == (3, 3, True)
    assert "the dataset's family allows 2" in family.describe()
    space = build(true)
    assert space.n_states == 1 and space.states[0] == true and space.family == family
    with pytest.raises(ScenarioError, match=r"no initial state is consistent .* \(prior: 0-2 hidden keys"):
        build(true, prior=Prior(max_hidden=DEFAULT_MAX_HIDDEN))


def test_prior_colours_and_counts_are_parameters():
    from elot.domains.doors_keys_gems.hypotheses import Prior, build

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


# -- the size of the hypothesis space is estimated and refused before allocation ----------

def _three_doors(n_boxes):
    width = max(n_boxes, 7)
    return ("colours: red, blue, yellow\nmap:\n  " + "WgWgWgW".ljust(width, "W") + "\n  "
            + "WRWBWYW".ljust(width, "W") + "\n  h" + "." * (width - 1) + "\n  "
            + ("FO" + "C" * (n_boxes - 2)).ljust(width, "W") + "\n")


@pytest.mark.parametrize("boxes, k", [(8, 3), (16, 3), (4, 20)])
def test_hypothesis_space_is_estimated_and_refused(boxes, k):
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    scenario = parse_scn_text(_three_doors(boxes))
    with pytest.raises(ScenarioError, match="hypothesis space is too large") as info:
        infer(scenario, k=k)
    assert "GiB" in info.value.message and "--max-hypotheses" in info.value.hint


def test_max_hypotheses_is_a_library_keyword_and_a_cli_option(tmp_path, capsys):
    from elot.cli import main
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.hypotheses import build
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    scenario = parse_scn_text(_three_doors(4))
    assert len(build(scenario.initial, k=3)) == 13104
    with pytest.raises(ScenarioError, match="13,104 hypotheses.*the limit is 1,000"):
        build(scenario.initial, k=3, max_hypotheses=1000)
    path = tmp_path / "four.scn"
    path.write_text(_three_doors(4), encoding="utf-8")
    assert main(["run", str(path), "--max-hypotheses", "1000", "-s", "believes(player, formula(empty(box1)))"]) == 2
    assert "13,104 hypotheses" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", str(path), "--max-hypotheses", "0"])


@pytest.mark.parametrize("keys", [12, 20, 40])
def test_colour_limits_are_polynomial_in_keys(keys):
    from elot.domains.doors_keys_gems.hypotheses import colour_limits
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    scenario = parse_scn_text("colours: red\nmap:\n  h" + "r" * keys + ".Rg\n")
    assert colour_limits(scenario.initial) == {"red": (0, 1)}


def test_compiled_planner_limits_are_an_error_naming_the_backend():
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    # Past the old 1024-cell wall: a 33 x 32 grid runs.
    rows = ["h" + "." * 32] + ["." * 33] * 30 + ["g" * 2 + "." * 31]
    scenario = parse_scn_text("map:\n" + "".join(f"  {r}\n" for r in rows) + "actions:\n  down\n")
    assert infer(scenario).steps == 1
    # Gems are bits of an int32 in a world row: 33 of them are refused, naming the limit.
    rows[-1] = "g" * 33
    scenario = parse_scn_text("map:\n" + "".join(f"  {r}\n" for r in rows))
    with pytest.raises(ScenarioError, match="too large for the core backend: 33 gems \\(at most 31\\)") as info:
        infer(scenario)
    assert "fewer doors, boxes or gems" in info.value.hint


def test_size_estimate_counts_the_belief_tables_and_refuses_for_smc():
    """Issue 18 item 13: a space under the hypothesis cap whose belief tables (states ×
    beliefs × states floats) do not fit is refused by bytes, pointing at particle inference."""
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.costs import space_size
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    # 870 states, k = 1: under 2 M hypotheses, but one 870^3 table is 4.9 GiB
    hypotheses, peak = space_size("full", 1, 870, 1, steps=10, belief_tables=1)
    assert hypotheses == 870 ** 2 and peak > 870 ** 3 * 8
    scenario = parse_scn_text(_three_doors(4))
    with pytest.raises(ScenarioError, match="memory budget is 1.0 KiB.*refused for exact enumeration; "
                                            "use `--inference smc`"):
        infer(scenario, k=3, max_bytes=1000)
    assert infer(scenario, k=1).steps == len(scenario.actions)


def test_no_goals_names_the_file_and_a_useful_hint():
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    with pytest.raises(ScenarioError, match="no goals to infer") as info:
        infer(parse_scn_text("map:\n  h.C\n", "nogems.scn"))
    assert info.value.path == "nogems.scn" and "no gems" in info.value.hint


def _pickup_costs_agree(state: WorldState) -> None:
    """key_pickups' optimal cost is the compiled planner's for every gem."""
    from btom_ext import backend

    enc = Encoding(state.layout)
    costs = enc.planner(backend("core")).costs(enc.encode_many([state]))[0]
    for g, (gem, _) in enumerate(state.layout.gems):
        found = key_pickups(state, gem)
        assert (found[0] if found is not None else -1) == costs[g], gem


@pytest.mark.dataset
def test_key_pickups_cost_is_the_planners_on_the_dataset(labtom):
    from elot.domains.doors_keys_gems.dataset import load_dataset_scenario

    for problem in sorted((labtom / "problems").glob("*.pddl")):
        _pickup_costs_agree(load_dataset_scenario(problem).initial)


@settings(max_examples=examples(150))
@given(st.lists(st.sampled_from("....WWRRBFFOOrbCg"), min_size=6, max_size=30), st.integers(2, 6), st.integers(0, 29))
def test_key_pickups_cost_is_the_planners(glyphs, width, agent):
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text
    from elot.errors import ScenarioError

    glyphs[agent % len(glyphs)] = "h"
    rows = ["".join(glyphs[i:i + width]) for i in range(0, len(glyphs) - len(glyphs) % width or width, width)]
    try:
        scenario = parse_scn_text("colours: red, blue\nmap:\n" + "".join(f"  {r}\n" for r in rows if r))
    except ScenarioError:
        assume(False)
    layout = scenario.layout
    assume(len(layout.keys) <= 8 and len(layout.doors) <= 4)  # key_pickups' search stays small
    _pickup_costs_agree(scenario.initial)


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 0}, r"k \(the belief size\) must be at least 1"),
    ({"k": 2.5}, r"k \(the belief size\) must be a int, not float"),
    ({"k": "3"}, r"k \(the belief size\) must be a int, not str"),
    ({"max_hypotheses": "x"}, "max_hypotheses must be a int"),
    ({"goals": "gem1"}, "goals must be a tuple of gem names"),
    ({"prior": 3}, "prior must be a Prior"),
])
def test_bad_arguments_to_build_are_argument_errors_naming_the_argument(kwargs, message):
    from elot.domains.doors_keys_gems.examples import default_example
    from elot.errors import ArgumentError

    with pytest.raises(ArgumentError, match=message):
        build(default_example().initial, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_hidden": -1}, "Prior.max_hidden must be at least 0"),
    ({"max_hidden": 1.5}, "Prior.max_hidden must be a int"),
    ({"colours": "red"}, "Prior.colours must be a tuple of colour names"),
])
def test_a_bad_prior_is_refused_when_it_is_made(kwargs, message):
    from elot.domains.doors_keys_gems.hypotheses import Prior
    from elot.errors import ArgumentError

    with pytest.raises(ArgumentError, match=message):
        Prior(**kwargs)
    assert Prior(colours=["red"]).colours == ("red",)
