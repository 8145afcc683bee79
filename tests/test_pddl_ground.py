"""Grounding PDDL: the compiled kernels held to their NumPy twin, state counts held to an
independent breadth-first search, inapplicable actions never offered, the budget's refusal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from btom_ext import ground_reference
from elot.domains.pddl.errors import PddlError
from elot.domains.pddl.goals import GoalTask
from elot.domains.pddl.ground import ground
from elot.domains.pddl.read import parse_plan, read_domain, read_problem
from elot.domains.pddl.space import state_space
from elot.engine.budget import Limits, StateSpaceError
from helpers import examples

compiled = pytest.importorskip("btom_ext.ground")


@st.composite
def tasks(draw):
    """A random grounded task: rows of masks over a few words, fluents in a small box."""
    words = draw(st.integers(1, 2))
    n_fl = draw(st.integers(0, 2))
    size = np.array([draw(st.integers(1, 3)) for _ in range(n_fl)], dtype=np.int64)
    lo = np.array([draw(st.integers(-2, 2)) for _ in range(n_fl)], dtype=np.int64)
    cells = int(np.prod(size)) if n_fl else 1
    n_rows = draw(st.integers(0, 12))
    bits = st.integers(0, 2 ** 8 - 1)   # few bits: states repeat, so the search's table is used
    mask = lambda: np.array([draw(bits) << (8 * draw(st.integers(0, 7))) for _ in range(words)],
                            dtype=np.uint64).view(np.int64)
    rows = []
    for _ in range(n_rows):
        rows.append((draw(st.integers(0, cells - 1)), draw(st.integers(0, 4)), mask(), mask() & ~mask(), mask(),
                     mask(), [int(lo[f] + draw(st.integers(-1, int(size[f])))) for f in range(n_fl)]))
    rows.sort(key=lambda r: (r[0], r[1]))
    stack = lambda i, w: np.array([r[i] for r in rows], dtype=np.int64).reshape(len(rows), w)
    cell_rows = np.zeros(cells + 1, dtype=np.int64)
    np.cumsum(np.bincount([r[0] for r in rows], minlength=cells), out=cell_rows[1:])
    init = np.concatenate([mask(), lo + np.array([draw(st.integers(0, int(s) - 1)) for s in size], dtype=np.int64)])
    return (init, stack(2, words), stack(3, words), stack(4, words), stack(5, words), stack(6, n_fl),
            np.array([r[1] for r in rows], dtype=np.int64), cell_rows, lo, size)


@settings(max_examples=examples(200), deadline=None)
@given(tasks(), st.integers(1, 40))
def test_the_compiled_search_equals_its_twin(task, limit):
    init, *rest = task
    mine = compiled.reachable(init, *rest, limit)
    twin = ground_reference.reachable(init, *rest, limit)
    for a, b in zip(mine[:4], twin[:4]):
        assert np.array_equal(a, b)
    assert mine[4] == twin[4]
    states = mine[0]
    step = compiled.applicable(states, *rest)
    for a, b in zip(step, ground_reference.applicable(states, *rest)):
        assert np.array_equal(a, b)
    # the search's successor lists are what applicable() says of each state found
    indptr, actions, succ = step
    for i in range(len(states) if mine[4] else 0):
        lo, hi = mine[1][i], mine[1][i + 1]
        assert np.array_equal(mine[2][lo:hi], actions[indptr[i]:indptr[i + 1]])
        assert np.array_equal(states[mine[3][lo:hi]], succ[indptr[i]:indptr[i + 1]])


# -- independent breadth-first searches of the two studies' worlds ---------------------------

def _dkg_count(problem) -> int:
    atoms = {(name,) + args for name, args in problem.init}
    values = {name: v for (name, args), v in problem.fluents if not args}
    walls = {(int(a[1]), int(a[2])) for a in atoms if a[0] == "wall"}
    doors = frozenset((int(a[1]), int(a[2])) for a in atoms if a[0] == "door")
    items = frozenset((a[1], int(a[2]), int(a[3])) for a in atoms if a[0] == "at")
    keys = {name for name, kind in problem.objects if kind == "key"}
    width, height = values["width"], values["height"]
    start = (values["xpos"], values["ypos"], items, frozenset(), doors)
    seen, frontier = {start}, [start]
    moves = {"up": (0, 1), "down": (0, -1), "right": (1, 0), "left": (-1, 0)}
    while frontier:
        nxt = []
        for x, y, on_map, held, shut in frontier:
            out = []
            for dx, dy in moves.values():
                tx, ty = x + dx, y + dy
                if 1 <= tx <= width and 1 <= ty <= height and (tx, ty) not in walls and (tx, ty) not in shut:
                    out.append((tx, ty, on_map, held, shut))
                if (tx, ty) in shut:
                    for k in held & keys:
                        out.append((x, y, on_map, held - {k}, shut - {(tx, ty)}))
            for item in on_map:
                if item[1:] == (x, y):
                    out.append((x, y, on_map - {item}, held | {item[0]}, shut))
            for s in out:
                if s not in seen:
                    seen.add(s)
                    nxt.append(s)
        frontier = nxt
    return len(seen)


def _blocks_count(problem) -> int:
    blocks = [name for name, _ in problem.objects]
    below = {a[0]: a[1] for name, a in problem.init if name == "on"}
    start = (tuple(below.get(b, "table") for b in blocks), None)
    seen, frontier = {start}, [start]
    while frontier:
        nxt = []
        for where, held in frontier:
            clear = [b for i, b in enumerate(blocks) if where[i] != "hand" and b not in where]
            out = []
            if held is None:
                for b in clear:
                    i = blocks.index(b)
                    out.append((where[:i] + ("hand",) + where[i + 1:], b))
            else:
                i = blocks.index(held)
                for target in ["table"] + [b for b in clear if b != held]:
                    out.append((where[:i] + (target,) + where[i + 1:], None))
            for s in out:
                if s not in seen:
                    seen.add(s)
                    nxt.append(s)
        frontier = nxt
    return len(seen)


@pytest.mark.slow
@pytest.mark.parametrize("study", ["doors-keys-gems", "block-words"])
def test_state_counts_equal_an_independent_search(alanqary2021, study):
    domain = read_domain(alanqary2021 / study / "domain.pddl")
    problems = sorted((alanqary2021 / study / "problems").glob("*.pddl"))
    assert len(problems) == 16
    for path in problems:
        problem = read_problem(path, domain)
        space = state_space(ground(domain, problem))
        expected = _dkg_count(problem) if study == "doors-keys-gems" else _blocks_count(problem)
        assert len(space) == expected, path.name


def test_inapplicable_actions_are_never_offered(alanqary2021):
    study = alanqary2021 / "doors-keys-gems"
    domain = read_domain(study / "domain.pddl")
    g = ground(domain, read_problem(study / "problems" / "scenario-1-1.pddl", domain))
    space = state_space(g)
    for i in range(0, len(space), 37):
        atoms, values = g.decode(space.states[i])
        offered = {g.action_text(a) for a in space.actions[space.indptr[i]:space.indptr[i + 1]]}
        x, y = values[("xpos", ())], values[("ypos", ())]
        walls = {a[1:] for a in g.static_atoms if a[0] == "wall"}
        doors = {a[1:] for a in atoms if a[0] == "door"}
        up_free = y < 9 and (str(x), str(y + 1)) not in walls | doors
        assert ("(up)" in offered) == up_free
        held = {a[1] for a in atoms if a[0] == "has"}
        assert all(a.split()[1] in held for a in offered if a.startswith("(unlock"))


def test_the_budget_refuses_a_space_it_cannot_hold(alanqary2021):
    study = alanqary2021 / "block-words"
    domain = read_domain(study / "domain.pddl")
    g = ground(domain, read_problem(study / "problems" / "scenario-1-1.pddl", domain))
    with pytest.raises(StateSpaceError) as caught:
        state_space(g, limits=Limits(max_bytes=200_000))
    assert "states" in caught.value.message and caught.value.estimate.size >= 7057
    assert caught.value.hint


def test_a_plan_step_that_is_not_applicable_is_an_error_at_its_line(alanqary2021):
    study = alanqary2021 / "doors-keys-gems"
    domain = read_domain(study / "domain.pddl")
    task = GoalTask.load(study / "domain.pddl", study / "problems" / "scenario-1-1.pddl",
                         [("gem1", "(has gem1)")], domain=domain)
    with pytest.raises(PddlError) as caught:
        task.path(parse_plan("(down)\n(left)\n(left)\n", "p.dat"))
    assert caught.value.span.line in (1, 2, 3) and "not applicable" in caught.value.message
