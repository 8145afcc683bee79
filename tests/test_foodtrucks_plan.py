"""``elot plan`` on food trucks: the model's own student run forward (its planner, the
inversion's softmax, line-of-sight percepts), written as ``.trucks`` that reads back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.domains.foodtrucks.domain import FoodTrucks
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.simulate import parse_belief, parse_utilities, simulate, student as simulated_student
from elot.domains.foodtrucks.trucksfile import read_trucks
from elot.domains.foodtrucks.world import SPOT1, SPOT2, cell_index
from elot.engine import Case, Engine, EngineConfig
from elot.errors import ArgumentError
from helpers import run_elot

LIKES_LEBANESE = "korean=60,lebanese=100,mexican=-20"
LIKES_KOREAN = "korean=100,lebanese=40,mexican=-20"
THINKS_LEBANESE = "lebanese=0.5,mexican=0.25,none=0.25"


def write(tmp_path, spot2="lebanese", start="7 1", moves="", name="s.trucks"):
    path = tmp_path / name
    path.write_text(f"scenario walk\nmap 1\nspot2 {spot2}\nstart {start}\nmoves {moves}\n", encoding="utf-8")
    return path


def plan(tmp_path, *extra, spot2="lebanese", moves=""):
    source = write(tmp_path, spot2=spot2, moves=moves)
    out = tmp_path / "out.trucks"
    result = run_elot("plan", str(source), "-o", str(out), "--force", *extra)
    assert result.returncode == 0, result.stderr
    [scenario] = read_trucks(out)
    return scenario, result


def test_a_student_who_likes_the_lebanese_truck_and_expects_it_goes_to_look(tmp_path):
    scenario, result = plan(tmp_path, "--utilities", LIKES_LEBANESE, "--belief", THINKS_LEBANESE,
                            "--policy", "optimal")
    assert scenario.finished and scenario.cells[-1] == SPOT2          # found it and ate there
    assert scenario.cells[0] == (7, 1)
    assert "eats at the lebanese truck" in result.stderr


def test_finding_spot2_empty_the_student_goes_back_to_the_korean_truck(tmp_path):
    scenario, _ = plan(tmp_path, "--utilities", LIKES_LEBANESE, "--belief", THINKS_LEBANESE,
                       "--policy", "optimal", spot2="empty")
    east = max(x for x, _ in scenario.cells)
    assert east >= 13                                                  # it went to look
    assert scenario.finished and scenario.cells[-1] == SPOT1            # and came back


def test_a_student_who_likes_the_korean_truck_best_eats_at_spot1_directly(tmp_path):
    scenario, result = plan(tmp_path, "--utilities", LIKES_KOREAN, "--belief", "uniform", "--policy", "optimal")
    assert scenario.finished and scenario.cells[-1] == SPOT1
    assert len(scenario.cells) - 1 == 8                                 # the shortest way from (7, 1)
    assert "eats at the korean truck" in result.stderr


def test_the_files_own_moves_are_kept_and_the_rest_simulated(tmp_path):
    scenario, _ = plan(tmp_path, "--utilities", LIKES_KOREAN, "--policy", "optimal", moves="E E")
    assert scenario.cells[:3] == ((7, 1), (8, 1), (9, 1))
    assert scenario.cells[-1] == SPOT1


def test_a_seed_repeats_a_run_and_another_seed_differs(tmp_path):
    args = ("--utilities", LIKES_LEBANESE, "--belief", THINKS_LEBANESE)
    runs = [plan(tmp_path, *args, "--seed", str(seed))[0].cells for seed in (3, 3, 4, 5, 6)]
    assert runs[0] == runs[1]
    assert len(set(runs[1:])) > 1


def test_the_model_explains_its_own_student():
    """Inverting a simulated path recovers what the student wanted: its own softmax
    is the inversion's, so the path is likely under the utilities that made it."""
    start = FoodTruckScenario(id=1, map=1, world=0, cells=((7, 1),), finished=False)
    made = simulate(start, parse_utilities(LIKES_LEBANESE), parse_belief(THINKS_LEBANESE, 0), seed=1)
    assert made.scenario.cells[-1] == SPOT2 and made.scenario.finished
    [[result]] = Engine(FoodTrucks()).run([Case(1, made.scenario.states, 0)])
    korean, lebanese, _ = result.mean_utility()
    assert lebanese > korean + 20


def test_the_student_acts_by_the_inversions_softmax():
    student = simulated_student(1, parse_utilities(LIKES_LEBANESE), EngineConfig(beta=2.5))
    belief = np.array([0.5, 0.25, 0.25])
    pi = student.policy(belief, cell_index(7, 1))
    q = student.q(belief, cell_index(7, 1))
    expected = np.exp(2.5 * (q - q.max()))
    np.testing.assert_allclose(pi, expected / expected.sum(), rtol=1e-9)
    assert np.argmax(q) == 2        # east, toward the gap on the right


def test_the_student_perceives_by_line_of_sight():
    """Up the right gap spot 2 is in full view: the student then knows what is there."""
    start = FoodTruckScenario(id=1, map=2, world=2, cells=((14, 1), (14, 2), (14, 3)), finished=False)
    made = simulate(start, parse_utilities(LIKES_LEBANESE), parse_belief(THINKS_LEBANESE, 2), seed=0,
                    max_steps=0)
    assert made.beliefs[-1] == pytest.approx((0.0, 0.0, 1.0))
    assert made.gave_up and made.scenario.cells == start.cells


@pytest.mark.parametrize("option, value, message", [
    ("--utilities", "korean=1,lebanese=2", "no utility for mexican"),
    ("--utilities", "korean=1,lebanese=2,thai=3", "unknown name 'thai'"),
    ("--utilities", "korean=1,lebanese=x,mexican=3", "lebanese=x is not a finite number"),
    ("--utilities", "korean=1,korean=2", "gives korean twice"),
    ("--belief", "lebanese=0.7", "sums to 0.7, not 1"),
    ("--belief", "lebanese=1.5,none=-0.5", "negative"),
    ("--belief", "thai=1", "unknown name 'thai'"),
    ("--goal", "gem1", "--goal is not a setting of the foodtrucks domain's simulated agent"),
])
def test_bad_utilities_beliefs_and_objects_are_clear_errors(tmp_path, option, value, message):
    source = write(tmp_path)
    extra = [] if option == "--utilities" else ["--utilities", LIKES_KOREAN]
    result = run_elot("plan", str(source), "-o", str(tmp_path / "out.trucks"), *extra, option, value)
    assert result.returncode == 2
    assert message in result.stderr and "hint:" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.trucks").exists()


def test_utilities_are_refused_on_a_doors_keys_gems_map(tmp_path):
    result = run_elot("plan", "-o", str(tmp_path / "x.scn"), "--utilities", LIKES_KOREAN)
    assert result.returncode == 2 and "--utilities is not a setting of the doors-keys-gems domain's simulated agent" in result.stderr


def test_parsers_directly():
    np.testing.assert_array_equal(parse_utilities("mexican=-20, korean=100,lebanese=40"), [100, 40, -20])
    np.testing.assert_array_equal(parse_belief("true", 2), [0, 0, 1])
    np.testing.assert_allclose(parse_belief("none=0.5,lebanese=0.5", 0), [0.5, 0, 0.5])
    with pytest.raises(ArgumentError):
        parse_belief("none=0.5,empty=0.5", 0)


@settings(max_examples=12, deadline=None)
@given(utilities=st.lists(st.integers(-20, 100), min_size=3, max_size=3),
       belief=st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any),
       map_number=st.sampled_from((1, 2, 3)), world=st.sampled_from((0, 1, 2)),
       start=st.sampled_from(((1, 1), (7, 1), (13, 1))), seed=st.integers(0, 2 ** 16),
       policy=st.sampled_from(("boltzmann", "optimal")))
def test_simulated_paths_are_walkable_and_read_back_equal(utilities, belief, map_number, world, start, seed, policy):
    from elot.domains.foodtrucks.trucksfile import format_trucks, parse_trucks
    from elot.domains.foodtrucks.world import FoodTruckMap, truck_at

    weights = np.array(belief, dtype=float) / sum(belief)
    begin = FoodTruckScenario(id=1, map=map_number, world=world, cells=(start,), finished=False, name="p")
    made = simulate(begin, utilities, weights, policy=policy, seed=seed, max_steps=40).scenario
    layout = FoodTruckMap(map_number)
    assert all(layout.is_open(*cell) for cell in made.cells)
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) <= 1 for a, b in zip(made.cells, made.cells[1:]))
    if made.finished:
        assert truck_at(world, *made.cells[-1]) is not None
    [back] = parse_trucks(format_trucks([made]))
    assert back.cells == made.cells and back.finished == made.finished and back.world == world


def test_plan_completes_an_experiment_scenario_by_id_into_a_trucks_file(tmp_path, baker2017):
    """``elot plan foodtrucks:ID`` (and ``--domain foodtrucks ID``) writes .trucks, which
    elot run reads back (a JSON case would be read as the experiment's own format)."""
    out = tmp_path / "twelve.trucks"
    done = run_elot("plan", "foodtrucks:12", "--data", str(baker2017), "--utilities",
                    "korean=1,lebanese=2,mexican=3", "-o", str(out))
    assert done.returncode == 0, done.stderr
    [scenario] = read_trucks(out)
    assert scenario.map == 1 and scenario.finished
    again = run_elot("plan", "--domain", "foodtrucks", "12", "--data", str(baker2017), "--utilities",
                     "korean=1,lebanese=2,mexican=3", "-o", str(tmp_path / "same.trucks"))
    assert again.returncode == 0 and (tmp_path / "same.trucks").read_text() == out.read_text()
    ran = run_elot("run", str(out))
    assert ran.returncode == 0, ran.stderr
