"""World rules: each action's preconditions and effects, visibility, atoms, replays, and
property tests over random legal walks."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from elot.domains.doors_keys_gems import pddl
from elot.domains.doors_keys_gems.examples import list_examples, load_example
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.world import (
    OFFGRID,
    ImpossibleActionError,
    KeyState,
    WorldState,
)
from elot.domains.doors_keys_gems.problem_world import world_from_problem

# A small map of our own: agent at (3,3); red key at (2,3); box1 at (4,3) hides a blue
# key; box2 at (3,4) is empty; red door1 at (3,2) guards gem1 at (3,1); blue door2 at
# (5,3) guards gem2 at (6,3).
ROOM = """\
name: room
colours: red, blue
map:
  WWgWWW
  WWRWWW
  .rhOBg
  WWCWWW
"""


@pytest.fixture
def room() -> WorldState:
    return parse_scn_text(ROOM).initial


def test_layout_of_the_room(room):
    layout = room.layout
    assert (layout.width, layout.height) == (6, 4)
    assert layout.agent == "human"
    assert layout.gems == (("gem1", (3, 1)), ("gem2", (6, 3)))
    assert layout.doors == (("door1", (3, 2), "red"), ("door2", (5, 3), "blue"))
    assert layout.boxes == (("box1", (4, 3)), ("box2", (3, 4)))
    assert layout.keys == ("key1", "key2", "key3")  # one visible + room for two hidden
    assert layout.colours == ("red", "blue")
    assert layout.in_bounds((1, 1)) and not layout.in_bounds((0, 1)) and not layout.in_bounds((7, 1))
    assert layout.neighbours((1, 1)) == ((1, 2), (2, 1))
    assert layout.objects()["human"] == "agent" and layout.objects()["blue"] == "color"


def test_initial_keys(room):
    assert room.key("key1") == KeyState("red", ("cell", (2, 3)))
    assert room.key("key2") == KeyState("blue", ("box", "box1"))
    assert room.key("key3") == OFFGRID
    assert room.hidden("key2") and not room.hidden("key1")
    assert room.locked == {"door1", "door2"} and room.closed == {"box1", "box2"}


def test_moves(room):
    assert room.step(("left",)).agent_pos == (2, 3)
    assert room.why_not(("up",)) == "cannot move up from (3,3): door1 (red) at (3,2) is locked"
    # boxes do not block
    assert room.step(("right",)).agent_pos == (4, 3)
    assert room.step(("down",)).agent_pos == (3, 4)
    far_left = room.step(("left",)).step(("left",))
    assert far_left.why_not(("left",)) == "cannot move left from (1,3): edge of the grid"
    assert "wall at (2,4)" in room.step(("down",)).why_not(("left",))
    with pytest.raises(ImpossibleActionError, match="locked"):
        room.step(("up",))


def test_available_actions_order(room):
    assert room.available_actions() == (("down",), ("left",), ("right",), ("open", "box1"), ("open", "box2"))
    on_key = room.step(("left",))
    assert on_key.available_actions() == (("left",), ("right",), ("pickup", "key1"))


def test_pickup(room):
    assert "hidden in closed box1" in room.step(("right",)).why_not(("pickup", "key2"))
    assert "is at (2,3)" in room.why_not(("pickup", "key1"))
    assert "not on the map" in room.why_not(("pickup", "key3"))
    assert "no such key or gem" in room.why_not(("pickup", "box1"))
    s = room.step(("left",)).step(("pickup", "key1"))
    assert s.key("key1") == KeyState("red", ("held",)) and s.holds("key1")
    assert s.why_not(("pickup", "key1")) == "cannot pick up key1: already held"
    # a key in an opened box can be picked up standing on the box
    s = room.step(("open", "box1")).step(("right",)).step(("pickup", "key2"))
    assert s.key("key2").where == ("held",) and s.box_contents("box1") == ()


def test_open(room):
    s = room.step(("open", "box1"))
    assert s.closed == {"box2"} and not s.hidden("key2")
    assert s.why_not(("open", "box1")) == "cannot open box1: already open"
    assert "not on or next to" in room.step(("left",)).step(("left",)).why_not(("open", "box1"))
    assert room.step(("down",)).can(("open", "box2"))  # standing on it


def test_unlock(room):
    with_red = room.step(("left",)).step(("pickup", "key1")).step(("right",))
    assert ("unlock", "key1", "door1") in with_red.available_actions()
    s = with_red.step(("unlock", "key1", "door1"))
    assert s.key("key1").where == ("used",) and "door1" not in s.locked
    assert s.step(("up",)).step(("up",)).step(("pickup", "gem1")).goal_reached("gem1")
    # wrong colour, not adjacent, not held, not locked
    with_both = with_red.step(("open", "box1")).step(("right",)).step(("pickup", "key2"))
    assert with_both.why_not(("unlock", "key1", "door2")) == "cannot unlock door2 with key1: key1 is red but door2 is blue"
    assert with_both.can(("unlock", "key2", "door2"))
    assert "not next to" in with_both.why_not(("unlock", "key1", "door1"))
    assert "not held" in room.why_not(("unlock", "key1", "door1"))
    regained = s.with_key("key1", KeyState("red", ("held",)))
    assert "door1 is not locked" in regained.why_not(("unlock", "key1", "door1"))


def test_malformed_actions(room):
    assert "unknown action 'jump'" in room.why_not(("jump",))
    assert "takes 1 argument" in room.why_not(("open",))
    assert "takes 2 arguments" in room.why_not(("unlock", "key1"))
    assert "no such box" in room.why_not(("open", "box9"))
    assert "no such door" in room.why_not(("unlock", "key1", "door9"))


def test_atoms(room):
    atoms = room.atoms()
    assert atoms == {
        ("iscolor", "key1", "red"), ("iscolor", "key2", "blue"), ("inside", "key2", "box1"),
        ("hidden", "key2"), ("offgrid", "key3"),
        ("iscolor", "door1", "red"), ("iscolor", "door2", "blue"),
        ("locked", "door1"), ("locked", "door2"), ("closed", "box1"), ("closed", "box2"),
    }
    s = room.step(("left",)).step(("pickup", "key1"))
    assert {("has", "human", "key1"), ("offgrid", "key1")} <= s.atoms()
    s = s.step(("right",)).step(("unlock", "key1", "door1")).step(("up",)).step(("up",)).step(("pickup", "gem1"))
    assert ("has", "human", "key1") not in s.atoms() and ("offgrid", "key1") in s.atoms()
    assert {("has", "human", "gem1"), ("offgrid", "gem1")} <= s.atoms()
    opened = room.step(("open", "box1")).atoms()
    assert ("inside", "key2", "box1") in opened and ("hidden", "key2") not in opened


def test_view_hides_closed_boxes_and_key_names(room):
    empty = room.with_key("key2", OFFGRID)
    swapped = room.with_key("key2", OFFGRID).with_key("key3", KeyState("blue", ("box", "box1")))
    red_in_box2 = room.with_key("key3", KeyState("red", ("box", "box2")))
    assert room.view() == empty.view() == swapped.view() == red_in_box2.view()
    assert room != empty
    opened = room.step(("open", "box1"))
    assert opened.view() != empty.step(("open", "box1")).view()
    assert opened.view() == swapped.step(("open", "box1")).view()
    assert room.step(("open", "box2")).view() == empty.step(("open", "box2")).view()
    assert room.step(("open", "box2")).view() != red_in_box2.step(("open", "box2")).view()


def test_render_round_trips_the_map(room):
    assert room.render() == "WWgWWW\nWWRWWW\n.rhOBg\nWWCWWW"
    assert room.step(("open", "box1")).render().splitlines()[2] == ".rhbBg"


def test_with_key_rejects_unknown(room):
    with pytest.raises(KeyError):
        room.with_key("key9", OFFGRID)


# -- replays ---------------------------------------------------------------------------


def _replay(state: WorldState, actions) -> WorldState:
    for action in actions:
        assert action in state.available_actions(), (action, state.why_not(action))
        state = state.step(action)
    return state


def test_dataset_replays(labtom):
    count = 0
    for problem_path in sorted((labtom / "problems").glob("*.pddl")):
        problem = pddl.read_problem(problem_path)
        layout, state = world_from_problem(problem)
        drawing = problem_path.with_suffix(".txt").read_text().strip().replace("G", "g")
        assert state.render() == drawing, problem_path.name
        for exp in ("exp1", "exp2_current", "exp2_initial"):
            plan_path = labtom / "plans" / exp / problem_path.name
            if plan_path.is_file():
                final = _replay(state, pddl.read_plan(plan_path).actions)
                assert final.goal_reached()
                count += 1
    assert count >= 60


@pytest.mark.parametrize("name", list_examples())
def test_example_replays(name):
    scenario = load_example(name)
    final = _replay(scenario.initial, scenario.actions)
    assert final.goal_reached(scenario.true_goal)


# -- properties ------------------------------------------------------------------------


def _labtom_root():
    """The dataset as tests/conftest.py finds it (None when absent); needed at collection
    time, before fixtures exist, to give the property tests dataset starts."""
    import os
    from pathlib import Path

    for path in filter(None, [os.environ.get("ELOT_LABTOM_DATA"), Path(__file__).resolve().parents[2] / "shared" / "labtom"]):
        if (Path(path) / "domain.pddl").is_file():
            return Path(path)
    return None


def _starts() -> list[WorldState]:
    starts = [load_example(name).initial for name in list_examples()]
    starts.append(parse_scn_text(ROOM).initial)
    root = _labtom_root()
    if root is not None:
        for name in ("1_1", "2_1", "4_3", "6_1", "demo"):
            starts.append(world_from_problem(pddl.read_problem(root / "problems" / f"{name}.pddl"))[1])
    return starts


STARTS = _starts()


def _all_actions(state: WorldState):
    layout = state.layout
    items = list(layout.keys) + [g for g, _ in layout.gems]
    yield from [("up",), ("down",), ("left",), ("right",)]
    yield from (("pickup", i) for i in items)
    yield from (("open", b) for b, _ in layout.boxes)
    yield from (("unlock", k, d) for k in layout.keys for d, _, _ in layout.doors)


@given(st.sampled_from(range(len(STARTS))), st.lists(st.integers(0, 10_000), max_size=60))
def test_random_walks_stay_legal(index, choices):
    state = STARTS[index]
    for choice in choices:
        available = state.available_actions()
        legal = [a for a in _all_actions(state) if state.can(a)]
        assert sorted(legal) == sorted(available)
        assert len(set(available)) == len(available)
        moves = [a for a in available if len(a) == 1]
        assert moves == [m for m in [("up",), ("down",), ("left",), ("right",)] if m in moves]
        assert list(available[len(moves):]) == sorted(available[len(moves):])
        if not available:
            break
        action = available[choice % len(available)]
        state = state.step(action)
        assert state.layout.in_bounds(state.agent_pos) and state.agent_pos not in state.layout.walls
        for door in state.locked:
            assert state.agent_pos != state.layout.door_pos(door)


@given(st.sampled_from(range(len(STARTS))), st.lists(st.integers(0, 10_000), max_size=40), st.data())
def test_view_ignores_hidden_keys(index, choices, data):
    state = STARTS[index]
    for choice in choices:
        available = state.available_actions()
        state = state.step(available[choice % len(available)])
    # Re-draw what is inside every closed box, keeping everything visible as it is.
    closed = sorted(state.closed)
    hidden = [k for k, ks in state.keys if ks.where[0] == "box" and ks.where[1] in state.closed]
    spare = [k for k, ks in state.keys if ks.where == ("offgrid",)]
    pool = hidden + spare
    other = state
    for key in pool:
        other = other.with_key(key, OFFGRID)
    boxes = data.draw(st.lists(st.sampled_from(closed), unique=True, max_size=min(len(pool), len(closed))) if closed else st.just([]))
    colours = list(state.layout.colours) or ["red"]
    for key, box in zip(pool, boxes):
        other = other.with_key(key, KeyState(data.draw(st.sampled_from(colours)), ("box", box)))
    assert other.view() == state.view()
    assert hash(other.view()) == hash(state.view())


@given(st.integers(1, 6), st.integers(1, 6), st.data())
def test_distances_are_shortest_paths(width, height, data):
    """Layout.distances, the one grid search: every reached cell is one move further than
    its nearest reached neighbour, no reached cell is a wall or blocked, and every open
    neighbour of a reached cell is reached too."""
    from elot.domains.doors_keys_gems.world import Layout

    cells = [(x, y) for x in range(1, width + 1) for y in range(1, height + 1)]
    walls = frozenset(data.draw(st.lists(st.sampled_from(cells), unique=True)))
    blocked = set(data.draw(st.lists(st.sampled_from(cells), unique=True)))
    start = data.draw(st.sampled_from(cells))
    layout = Layout(width, height, walls, "human", (), (), (), (), ())
    got = layout.distances(start, blocked)
    assert got[start] == 0
    for pos, d in got.items():
        near = [got[n] for n in layout.neighbours(pos) if n in got]
        if pos != start:
            assert pos not in walls and pos not in blocked
            assert min(near) == d - 1
        assert all(n in got for n in layout.neighbours(pos) if n not in walls and n not in blocked)
    assert layout.reachable(start) == frozenset(layout.distances(start))
