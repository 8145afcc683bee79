"""``elot plan``: the simulated agent (elot.domains.doors_keys_gems.agent), judgment points and the written
scenario (elot.domains.doors_keys_gems.plan), and the command through its entry point."""

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

from elot.domains.doors_keys_gems.agent import SimulationError, initial_belief, model_states, run_agent
from elot.domains.doors_keys_gems.pickups import key_pickups
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.examples import load_example
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.agent import STILL, choose_points
from elot.domains.doors_keys_gems.plan import HEADER, back_steps, event_points, movement, plan, subgoals

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


#: 20 × 20, 12 boxes (the red key the goal's door needs is in one of them, the blue key lies
#: in the hall): the model's own agent, optimal or not, never reached its goal in 500 steps.
BIG = """name: big
goal: gem2
colours: red, blue

map:
  WWWgWWWWWgWWWWWgWWWW
  WWW.WWWWWRWWWWWBWWWW
  .W..W..W..WC.WW.W...
  .......W..........W.
  ........W..W.WC.....
  .W....W......W..W...
  WWW.W...hW..W...W...
  .....W..........W..W
  CW...WWW.W.........W
  W.b.......W......WW.
  ..W.W..W.W.WW.W.WWW.
  .WW...W.....W..W..W.
  WW............W.....
  .W................WW
  .CW...W...WW.....C..
  W......W.....W......
  ..W.W.WW..W.W..C....
  .WW....WW.W.WWF.W...
  .W.W.WC.WW..CWC.....
  .WC....W..CW.W....W.
"""

MOVES = ("up", "down", "left", "right")
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def wandering(initial, actions) -> tuple[int, int]:
    """Between two things the agent learns (every action but a move): the most immediate
    reversals (``left, right``) and the most times it stood on one cell."""
    reversals = most = 0
    state, since, turns, last = initial, {initial.agent_pos: 1}, 0, None
    for action in actions:
        state = state.step(action)
        if action[0] not in MOVES:
            since, turns, last = {state.agent_pos: 1}, 0, None
            continue
        turns += last == OPPOSITE[action[0]]
        last = action[0]
        since[state.agent_pos] = since.get(state.agent_pos, 0) + 1
        reversals, most = max(reversals, turns), max(most, since[state.agent_pos])
    return reversals, most


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
    """key_pickups (plain Python, in elot.domains.doors_keys_gems.hypotheses) and the compiled planner the
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


@pytest.mark.parametrize("policy", ["optimal", "boltzmann"])
def test_the_model_agent_dithers_on_a_big_map_and_says_why(policy):
    """On 20 × 20 with 12 boxes the model's own agent steps back and forth where its
    belief leaves it undecided: the step-limit error says how far it got and what to do."""
    with pytest.raises(SimulationError) as error:
        run_agent(parse_scn_text(BIG), policy=policy)
    assert "within 500 steps" in error.value.message and "box(es)" in error.value.message
    assert "purposeful" in error.value.hint


@pytest.mark.parametrize("policy, seed", [("optimal", 0), ("boltzmann", 0), ("boltzmann", 1)])
def test_the_purposeful_agent_reaches_its_goal_on_a_big_map(policy, seed):
    scenario = parse_scn_text(BIG)
    sim = run_agent(scenario, policy=policy, seed=seed, purposeful=True)
    state = scenario.initial
    for action in sim.actions:
        state = state.step(action)
    assert state.goal_reached("gem2") and len(sim.actions) < 250
    reversals, most = wandering(scenario.initial, sim.actions)
    assert reversals <= 1 and most <= 2      # it turns back at most once, and never in circles
    p = plan(scenario, policy=policy, seed=seed, judge="events")          # elot plan's default
    assert p.simulation.actions == sim.actions and "purposeful" in p.scenario.description


@pytest.mark.parametrize("seed", range(6))
def test_plans_do_not_step_back_on_a_whim(seed):
    """The default Boltzmann agent used to jitter (``left, right | up, down``): between two
    things it learns, `elot plan`'s agent turns back at most once and stands on a cell at
    most twice, and none of its moves is aimless."""
    scenario = load_example("default")
    p = plan(scenario, seed=seed, judge="events")
    assert wandering(scenario.initial, p.simulation.actions) <= (1, 2)
    assert not any(p.simulation.aimless)
    model = plan(scenario, seed=seed, judge="events", purposeful=False)   # the model's agent, as before
    assert model.simulation.actions == run_agent(scenario, seed=seed).actions


def test_aimless_moves_are_those_the_belief_did_not_favour_or_that_step_back():
    scenario = load_example("default")
    sims = [run_agent(scenario, seed=seed) for seed in range(6)]
    assert any(any(s.aimless) for s in sims)
    for sim in sims:
        assert len(sim.aimless) == len(sim.actions)
        state, since = scenario.initial, {scenario.initial.agent_pos}
        for action, aimless, logp in zip(sim.actions, sim.aimless, sim.log_probabilities):
            state = state.step(action)
            if action[0] not in MOVES:
                assert not aimless
                since = set()
            elif state.agent_pos in since:
                assert aimless                  # back onto a cell without news
            since.add(state.agent_pos)


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


def test_choose_points_skips_times_right_after_an_aimless_move():
    move = np.array([0, 0.1, 0.9, 0.8, 0.0, 0.5, 0.2, 0.7, 0])
    aimless = [False, True, False, False, False, False, True, False]     # actions 2 and 7
    assert choose_points(move, 3, aimless) == (1, 3, 5)
    assert choose_points(move, 3, [False] * 8) == choose_points(move, 3) == (2, 5, 7)


@pytest.mark.parametrize("seed", range(4))
def test_auto_points_never_follow_an_aimless_move(seed):
    """Even for the model's own agent, which has aimless moves."""
    p = plan(load_example("default"), seed=seed, purposeful=False)
    assert not any(p.simulation.aimless[t - 1] for t in p.scenario.judgments)
    back = back_steps(p.scenario.initial, p.simulation.actions)
    whims = [a or b for a, b in zip(p.simulation.aimless, back)]
    assert p.scenario.judgments == choose_points(p.movement, 3, whims)


_REVERSE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def straight_backs(actions) -> list[int]:
    """The times t where action t (1-based) is the reverse of the move just before it."""
    return [t for t, (a, b) in enumerate(zip(actions, actions[1:]), start=2)
            if a[0] in _REVERSE and b[0] == _REVERSE[a[0]]]


def test_back_steps_are_moves_onto_a_cell_walked_since_the_last_other_action():
    s = parse_scn_text(OPEN)
    actions = [("up",), ("down",), ("left",), ("right",), ("right",)]
    assert back_steps(s.initial, actions) == (False, True, False, True, False)
    assert straight_backs(actions) == [2, 4]
    # opening a box in between: going back is not a step back
    behind = parse_scn_text(BEHIND)
    box = next(b for b, (x, y) in behind.layout.boxes if x == behind.initial.agent_pos[0] + 2)
    assert back_steps(behind.initial, [("right",), ("open", box), ("left",), ("right",)]) == (False, False, False, True)


@pytest.mark.parametrize("seed", range(8))
def test_the_issue_map_never_steps_straight_back_and_no_point_follows_a_step_back(seed):
    """Issue #34 D2: on `elot generate --boxes 3 --colours 2 --doors 2 --gems 3 --seed 3`
    agent seeds 0, 1, 5, 6 and 7 opened a box, then went `down, up` with a judgment point
    right after the `up`. A purposeful agent never takes a move back with nothing learnt
    in between, and no automatic judgment point follows a step back."""
    from elot.domains.doors_keys_gems.generate import Spec, generate

    scenario = parse_scn_text(generate(Spec(boxes=3, colours=2, doors=2, gems=3), 3))
    p = plan(scenario, seed=seed)
    actions = p.simulation.actions
    assert straight_backs(actions) == []
    back = back_steps(p.scenario.initial, actions)
    assert not any(back[t - 1] for t in p.scenario.judgments)
    assert p.scenario.judgments        # the rule leaves points to ask


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
    assert p.scenario.judgments == choose_points(move, 3, p.simulation.aimless) and p.scenario.judgments


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


def test_cli_purposeful_by_default(tmp_path):
    """`elot plan` simulates the purposeful agent unless --no-purposeful asks for the
    model's own (the same actions as run_agent's default, SPEC §8)."""
    scenario = load_example("default")
    purposeful, model = tmp_path / "p.scn", tmp_path / "m.scn"
    assert elot("default", "--seed", "1", "--judge", "events", "-o", str(purposeful)).returncode == 0
    assert elot("default", "--seed", "1", "--judge", "events", "--no-purposeful", "-o", str(model)).returncode == 0
    read = parse_scn_text(purposeful.read_text())
    assert "purposeful" in read.description
    assert read.actions == plan(scenario, seed=1, judge="events").simulation.actions
    read = parse_scn_text(model.read_text())
    assert "purposeful" not in read.description and read.actions == run_agent(scenario, seed=1).actions
    assert wandering(scenario.initial, read.actions) > (1, 2)          # seed 1's model agent jitters


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


def test_plan_refuses_several_scenarios_with_one_error(tmp_path):
    """A glob naming several maps is one located refusal (exit 2, nothing written), as a
    PDDL domain's is: the gridworld's plan took ``[episode] = episodes`` and raised a bare
    ValueError with a traceback."""
    source = Path(__file__).resolve().parent.parent / "examples" / "new-map.scn"
    for name in ("a.scn", "b.scn"):
        (tmp_path / name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_elot("plan", str(tmp_path / "*.scn"), "-o", str(tmp_path / "out.scn"), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("scenario error: elot plan continues one scenario, and 2 are named")
    assert "hint: name one: a .scn file" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out.scn").exists()
