"""``elot plan``: the simulated agent (elot.btom.agent), judgment points and the written
scenario (elot.study.plan), and the command through its entry point."""

from __future__ import annotations

import json
import os
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from helpers import run_elot
from hypothesis import given
from hypothesis import strategies as st

from elot.btom.agent import SimulationError, initial_belief, model_states, run_agent
from elot.btom.hypotheses import key_pickups
from elot.btom.inference import infer
from elot.btom.load import load_scenario
from elot.btom.scn import load_example, parse_scn_text
from elot.study.plan import HEADER, STILL, choose_points, event_points, movement, plan, subgoals

#: The key for gem1 is in box2 (reachable); box1 lies behind the red door, beside gem1.
BEHIND = """name: behind
map:
  CGR..
  WWW.W
  ..h.F
"""
#: The only red key is in box1, behind the red door it would open: nothing is reachable.
LOCKED_IN = """name: locked-in
map:
  FGR..
  WWW.W
  ..h.C
"""
#: No doors, no boxes: the agent's shortest path to gem1 is the only thing to do.
OPEN = """name: open
map:
  G...W
  .WW.W
  ...h.
"""


def elot(*args, cwd=None):
    return run_elot("plan", *args, env=dict(os.environ, COLUMNS="160"), cwd=cwd, timeout=300)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- the simulated agent -----------------------------------------------------------------


def bfs(layout, start, goal) -> int:
    seen, queue = {start: 0}, deque([start])
    while queue:
        here = queue.popleft()
        for n in layout.neighbours(here):
            if n not in seen and not layout.is_wall(n):
                seen[n] = seen[here] + 1
                queue.append(n)
    return seen[goal]


def test_optimal_agent_takes_a_shortest_path_on_an_open_map():
    scenario = parse_scn_text(OPEN)
    for seed in range(5):
        sim = run_agent(scenario, policy="optimal", seed=seed)
        assert sim.actions[-1] == ("pickup", "gem1")
        assert len(sim.actions) == bfs(scenario.layout, scenario.initial.agent_pos, (1, 1)) + 1


def test_optimal_agent_that_knows_the_map_matches_the_independent_planner():
    """key_pickups (plain Python, in elot.btom.hypotheses) and the compiled planner the
    agent acts on agree on the optimal cost with keys, boxes and doors."""
    for scenario in (parse_scn_text(BEHIND), load_example("default"), load_example("two-doors")):
        sim = run_agent(scenario, belief="true", policy="optimal", seed=1)
        cost, _ = key_pickups(scenario.initial, sim.goal)
        assert len(sim.actions) == cost
        assert sim.scenario.states()[-1].goal_reached(sim.goal)


def test_same_seed_same_agent_other_seeds_other_agents():
    scenario = load_example("default")
    runs = [run_agent(scenario, seed=seed).actions for seed in (0, 0, 1, 2, 3, 4)]
    assert runs[0] == runs[1]
    assert len(set(runs[1:])) > 1
    assert plan(scenario, seed=3).text == plan(scenario, seed=3).text


def test_every_action_is_one_the_policy_gave_positive_probability_and_inference_explains_it():
    scenario = load_example("default")
    sim = run_agent(scenario, seed=2)
    assert all(np.isfinite(lp) and lp <= 0 for lp in sim.log_probabilities)
    inference = infer(sim.scenario)       # raises if no hypothesis explains the actions
    truth = (inference.goal_index == inference.space.goals.index(sim.goal)) \
        & (inference.state_index == sim.true_state)
    assert np.isfinite(inference.log_weights[-1][truth]).any()


def test_the_agent_perceives_an_empty_box_and_goes_elsewhere():
    """Believing the red key is in box2 (it is in box1), the agent opens box2 first; what
    it sees rules that state out, and it then fetches the key from box1."""
    scenario = load_example("default")
    sim = run_agent(scenario, belief="1: inside(key1, box2), iscolor(key1, red)", policy="optimal")
    opened = [a[1] for a in sim.actions if a[0] == "open"]
    assert opened == ["box2", "box1"]
    assert sim.actions[-1] == ("pickup", "gem2")


def test_beliefs_name_states_by_what_the_boxes_hold():
    scenario = load_example("default")
    states, truth = model_states(scenario.initial)
    sig = scenario.signature()
    red_in = {b: next(j for j, s in enumerate(states) if dict((x, c) for x, c in
              [(ks.where[1], ks.colour) for _, ks in s.keys if ks.where[0] == "box"]).get(b) == "red")
              for b in ("box1", "box2")}
    w = initial_belief("0.25: inside(key1, box1) | 0.75: inside(key2, box2), iscolor(key2, red)", states, truth, sig)
    assert w[red_in["box1"]] == 0.25 and w[red_in["box2"]] == 0.75
    assert initial_belief("true", states, truth, sig)[truth] == 1.0
    assert np.allclose(initial_belief("uniform", states, truth, sig), 1 / len(states))
    eps = initial_belief("1: inside(key1, box1)", states, truth, sig)
    assert eps[red_in["box2"]] == 5e-324   # left out: ε, as the model's particle beliefs


@pytest.mark.parametrize("belief, message", [
    ("1: inside(key1, box1), inside(key2, box1)", "two keys in one box"),
    ("1: inside(key1, box1), inside(key2, box2)", "describes none"),
    ("1: inside(key1, box1), iscolor(key1, blue)", "unknown object 'blue'"),
    ("unifrom", "did you mean uniform"),
])
def test_impossible_beliefs(belief, message):
    scenario = load_example("default")
    with pytest.raises(Exception) as error:
        run_agent(scenario, belief=belief)
    assert message in str(error.value)


def test_step_limit_is_named():
    with pytest.raises(SimulationError, match="within 3 steps"):
        run_agent(load_example("default"), max_steps=3)


# -- subgoals and judgment points ----------------------------------------------------------


def test_subgoals_cut_after_each_event():
    s = load_example("default")
    steps = subgoals(s.initial, s.actions, s.true_goal)
    assert [(g.start, g.end) for g in steps] == [(0, 6), (6, 13), (13, 15), (15, 20), (20, 23)]
    assert [g.text for g in steps] == ["open box2: empty", "open box1: a red key",
                                       "pick up the red key (key1) from box1", "unlock door1 (red) with key1",
                                       "pick up gem2, the goal"]


def test_event_points():
    s = load_example("default")
    assert event_points(s.initial, s.actions) == (6, 13, 15, 20)
    # open the box standing on it, then take the key: one step apart, only the later stays
    actions = [("up",), ("up",), ("left",), ("left",), ("down",), ("down",), ("open", "box1"), ("pickup", "key1"),
               ("up",)]
    assert event_points(s.initial, actions) == (8,)


@given(st.lists(st.floats(0, 2), min_size=1, max_size=40), st.integers(1, 6))
def test_choose_points_rules(move, n):
    move = np.array([0.0] + move)
    T = len(move) - 1
    points = choose_points(move, n)
    assert len(points) <= n and list(points) == sorted(points)
    assert all(0 < t < T and move[t] >= STILL for t in points)
    assert all(b - a > 1 for a, b in zip(points, points[1:]))
    # greedy: a time left out that moves more than a chosen one is next to a chosen one
    # that moves at least as much, or the n points were all taken by larger movements
    for t in range(1, T):
        if t in points or move[t] < STILL:
            continue
        blocked = any(abs(t - c) == 1 and move[c] >= move[t] for c in points)
        full = len(points) == n and all(move[c] >= move[t] for c in points)
        assert blocked or full


def test_choose_points_picks_the_largest_movements():
    move = np.array([0, 0.1, 0.9, 0.8, 0.0, 0.5, 0.2, 0.7, 0])
    assert choose_points(move, 3) == (2, 5, 7)    # 3 is next to 2
    assert choose_points(move, 1) == (2,)
    assert choose_points(np.zeros(6), 3) == ()
    assert choose_points(np.array([0, 0.5, 0, STILL / 2, 0]), 3) == (1,)


def test_auto_points_are_where_inference_moves_most():
    p = plan(load_example("default"), seed=1)
    inference = infer(p.scenario)
    move = movement(inference)
    assert move[0] == 0 and (move >= 0).all()
    assert np.allclose(move, p.movement)
    assert p.scenario.judgments == choose_points(move, 3) and p.scenario.judgments


# -- the written scenario ------------------------------------------------------------------


def test_plan_text_reads_back_unchanged():
    p = plan(load_example("default"), seed=4, judge=[2, 5])
    read = parse_scn_text(p.text)
    assert read.actions == p.simulation.actions
    assert read.judgments == (2, 5)
    assert read.true_goal == "gem2" and read.initial.render() == load_example("default").initial.render()
    assert [(x.text, x.mode) for x in read.statements] == \
        [(x.text, x.mode) for x in load_example("default").statements]
    assert p.text.startswith(HEADER)
    assert all(f"# {g.text}" in p.text for g in p.subgoals)


def test_judgment_points_past_the_end():
    with pytest.raises(SimulationError, match="past the end"):
        plan(load_example("default"), judge=[999])


def test_dataset_problem(labtom):
    scenario = load_scenario(str(labtom / "problems" / "2_1.pddl"))
    p = plan(scenario, goal="gem1", seed=2)
    read = parse_scn_text(p.text)
    assert read.actions == p.simulation.actions and read.true_goal == "gem1"
    assert read.initial.render() == scenario.initial.render()


# -- the command ------------------------------------------------------------------------------


def test_cli_round_trip_through_elot_run(tmp_path):
    out = tmp_path / "new.scn"
    done = elot("default", "--seed", "5", "--judge", "events", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "judgment points (events)" in done.stderr
    expected = plan(load_example("default"), seed=5, judge="events", name="new")
    assert out.read_text() == expected.text
    result = tmp_path / "run.json"
    done = run_elot("run", str(out), "--json", str(result))
    assert done.returncode == 0, done.stderr
    data = json.loads(result.read_text())
    assert [j["t"] for j in data["judgments"]] == list(expected.scenario.judgments)
    assert data["true_goal"] == "gem2"
    done = run_elot("batch", str(out), "-o", str(tmp_path / "b.csv"))
    assert done.returncode == 0, done.stderr


def test_cli_map_without_actions_and_optimal_policy(tmp_path):
    scn = write(tmp_path, "open.scn", OPEN)
    out = tmp_path / "o.scn"
    done = elot(str(scn), "--policy", "optimal", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert parse_scn_text(out.read_text()).actions[-1] == ("pickup", "gem1")
    # a file elot plan wrote is replaced without --force
    assert elot(str(scn), "--seed", "1", "-o", str(out)).returncode == 0


@pytest.mark.parametrize("args, message", [
    (["--goal", "gem9"], "unknown goal 'gem9'"),
    (["--belief", "1: inside(key1, box3)"], "unknown object 'box3'"),
    (["--belief", "0.5: inside(key1, box1)"], "sum to 0.5"),
    (["--max-steps", "2"], "within 2 steps"),
    (["--judge", "3,400"], "past the end"),
    (["--judge", "soon"], "expected auto, events"),
    (["--points", "0"], "points must be"),
])
def test_cli_bad_input(tmp_path, args, message):
    out = tmp_path / "o.scn"
    done = elot("default", *args, "-o", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert message in done.stderr
    assert not out.exists()


def test_cli_beliefs_and_maps_that_cannot_work(tmp_path):
    behind, locked = write(tmp_path, "behind.scn", BEHIND), write(tmp_path, "locked.scn", LOCKED_IN)
    out = tmp_path / "o.scn"
    done = elot(str(behind), "--goal", "gem1", "--belief", "1: inside(key1, box1), iscolor(key1, red)", "-o", str(out))
    assert done.returncode == 2 and "makes gem1 unreachable" in done.stderr
    done = elot(str(locked), "--goal", "gem1", "-o", str(out))
    assert done.returncode == 2 and "no gem can be reached" in done.stderr
    done = elot(str(write(tmp_path, "nogoal.scn", BEHIND.replace("G", "g"))), "-o", str(out))
    assert done.returncode == 2 and "no goal" in done.stderr and "--goal" in done.stderr
    assert not out.exists()


def test_cli_output_that_cannot_be_written(tmp_path):
    under_a_file = write(tmp_path, "notes.txt", "a file, not a folder\n")
    done = elot("default", "-o", str(under_a_file / "o.scn"))
    assert done.returncode == 2 and "is not a folder" in done.stderr
    assert elot("default", "-o", str(tmp_path / "new" / "o.scn")).returncode == 0  # folders are made, as everywhere
    mine = write(tmp_path, "mine.scn", "my own notes\n")
    done = elot("default", "-o", str(mine))
    assert done.returncode == 2 and "--force" in done.stderr
    assert mine.read_text() == "my own notes\n"
    # a failed simulation leaves an earlier plan as it was
    out = tmp_path / "o.scn"
    assert elot("default", "-o", str(out)).returncode == 0
    before = out.read_text()
    assert elot("default", "--goal", "gem7", "-o", str(out)).returncode == 2
    assert out.read_text() == before


def test_cli_belief_file_and_repl_reads_the_plan(tmp_path):
    belief = write(tmp_path, "belief.txt", "# the agent thinks the key is in box 2\n1: inside(key1, box2)\n")
    out = tmp_path / "b.scn"
    done = elot("default", "--belief", str(belief), "--policy", "optimal", "-o", str(out))
    assert done.returncode == 0, done.stderr
    read = parse_scn_text(out.read_text())
    assert [a[1] for a in read.actions if a[0] == "open"] == ["box2", "box1"]
    done = run_elot("repl", str(out), stdin=":quit\n", env=dict(os.environ, ELOT_HISTORY=os.devnull))
    assert done.returncode == 0, done.stderr
    assert f"elot[t=0/{len(read.actions)}]>" in done.stdout
    done = elot("default", "--belief", str(tmp_path / "missing.txt"), "-o", str(out))
    assert done.returncode == 2 and "missing.txt" in done.stderr


def test_plan_never_writes_over_its_input(tmp_path):
    """elot plan m.scn -o m.scn --force replaced the hand-written map with the plan."""
    source = tmp_path / "m.scn"
    source.write_text((Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "two-doors.scn").read_text(encoding="utf-8"), encoding="utf-8")
    before = source.read_text(encoding="utf-8")
    for force in ([], ["--force"]):
        done = elot(str(source), "-o", str(source), *force)
        assert done.returncode == 2 and "reads it" in done.stderr, done.stderr
        assert source.read_text(encoding="utf-8") == before
