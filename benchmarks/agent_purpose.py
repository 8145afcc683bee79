"""Does the simulated agent look purposeful? Over generated maps, how often it reaches its
goal within the step limit, its mean detour against the shortest plan with full knowledge
(what the boxes hold known), the share of its moves that gained nothing (not among the
best under its belief then, or back onto a cell it stood on since it last learnt
something; `Simulation.aimless`) and the share that went back onto such a cell for
whatever reason (a purposeful agent turning back to follow the world it committed to
included), for the agents `elot plan` can simulate:

* the model's own agent (SPEC §8: Boltzmann QMDP at β = 2^1.5, or its argmax), as
  `elot plan --no-purposeful` runs it;
* the purposeful agent, `elot plan`'s default (elot.domains.doors_keys_gems.agent: no return to a cell
  without having learnt something; it follows the likeliest world's plan instead).

Maps: `elot generate` maps of 2 to 4 boxes, 2 to 4 gems, 1 or 2 colours (seeds 0..N-1),
and 20×20 maps with 12 boxes, one of which hides the red key the goal's door needs
(drawn here: `elot generate` sizes its maps to their contents).

    python benchmarks/agent_purpose.py [--maps 12] [--big 4] [--seeds 3] [--max-steps 500]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from elot.domains.doors_keys_gems.agent import SimulationError, run_agent
from elot.domains.doors_keys_gems.generate import Spec, generate
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.settings import DEFAULT_BETA


def big_map(seed: int, size: int = 20, boxes: int = 12, wall_share: float = 0.25) -> str:
    """A ``size`` × ``size`` map: three gems in alcoves along the top (one open, one behind
    a red door, one behind a blue door; the goal is the red one's), a hall with inner
    walls that keep it connected, the blue key lying in the hall and the red key hidden in
    one of ``boxes`` boxes."""
    rng = random.Random(f"agent-purpose/{seed}")
    grid = [["W"] * size for _ in range(2)] + [["."] * size for _ in range(size - 2)]
    alcoves = [3, 9, 15]
    rng.shuffle(alcoves)
    open_x, red_x, blue_x = alcoves
    for x, door in ((open_x, "."), (red_x, "R"), (blue_x, "B")):
        grid[0][x], grid[1][x] = "g", door
    hall = [(x, y) for y in range(2, size) for x in range(size)]
    mouths = {(x, 2) for x in alcoves}

    def connected() -> bool:
        free = [(x, y) for x, y in hall if grid[y][x] != "W"]
        seen, todo = {free[0]}, deque([free[0]])
        while todo:
            x, y = todo.popleft()
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < size and 2 <= ny < size and (nx, ny) not in seen and grid[ny][nx] != "W":
                    seen.add((nx, ny))
                    todo.append((nx, ny))
        return len(seen) == len(free)

    cells = [c for c in hall if c not in mouths]
    rng.shuffle(cells)
    placed = 0
    for x, y in cells:
        if placed >= wall_share * len(hall):
            break
        grid[y][x] = "W"
        if connected():
            placed += 1
        else:
            grid[y][x] = "."
    free = [(x, y) for x, y in hall if grid[y][x] == "." and (x, y) not in mouths]
    rng.shuffle(free)
    (ax, ay), *spots = free[: boxes + 2]
    grid[ay][ax] = "h"
    hidden = rng.randrange(boxes)
    for n, (x, y) in enumerate(spots[:boxes]):
        grid[y][x] = "F" if n == hidden else "C"
    x, y = spots[boxes]
    grid[y][x] = "b"
    goal = 1 + sorted(alcoves).index(red_x)
    return "\n".join([f"name: big-{seed}", f"goal: gem{goal}", "colours: red, blue", "", "map:"]
                     + ["  " + "".join(row) for row in grid]) + "\n"


def small_maps(n: int) -> list[tuple[str, object]]:
    """``n`` `elot generate` maps of varied sizes."""
    out = []
    for seed in range(n):
        spec = Spec(boxes=2 + seed % 3, gems=2 + (seed // 3) % 3, colours=1 + seed % 2, doors=1 + seed % 2)
        text = generate(spec, seed)
        out.append((f"generate b{spec.boxes} g{spec.gems} c{spec.colours} d{spec.doors} s{seed}",
                    parse_scn_text(text)))
    return out


@dataclass
class Agent:
    label: str
    policy: str
    beta: float
    purposeful: bool


AGENTS = (
    Agent("model, Boltzmann β=2.83", "boltzmann", DEFAULT_BETA, False),
    Agent("model, optimal", "optimal", DEFAULT_BETA, False),
    Agent("purposeful, Boltzmann β=2.83", "boltzmann", DEFAULT_BETA, True),
    Agent("purposeful, Boltzmann β=8", "boltzmann", 8.0, True),
    Agent("purposeful, optimal", "optimal", DEFAULT_BETA, True),
)


def back_moves(scenario, actions) -> int:
    """Moves back onto a cell the agent stood on since its last action other than a move."""
    state, since, count = scenario.initial, {scenario.initial.agent_pos}, 0
    for action in actions:
        state = state.step(action)
        if action[0] not in ("up", "down", "left", "right"):
            since = set()
        elif state.agent_pos in since:
            count += 1
        since.add(state.agent_pos)
    return count


def shortest(scenario) -> int:
    """The length of the shortest plan to the goal knowing what the boxes hold."""
    return len(run_agent(scenario, belief="true", policy="optimal").actions)


def measure(maps, agents, seeds: int, max_steps: int) -> dict:
    """Per agent: reached, detours (actions / shortest − 1), aimless shares, seconds."""
    out = {a.label: {"runs": 0, "reached": 0, "detour": [], "extra": [], "aimless": [], "back": [], "seconds": 0.0,
                     "why": []} for a in agents}
    for name, scenario in maps:
        best = shortest(scenario)
        for agent in agents:
            row = out[agent.label]
            for seed in range(seeds if agent.policy == "boltzmann" else 1):
                row["runs"] += 1
                start = time.perf_counter()
                try:
                    sim = run_agent(scenario, policy=agent.policy, beta=agent.beta, seed=seed,
                                    max_steps=max_steps, purposeful=agent.purposeful)
                except SimulationError as error:
                    row["why"].append(f"{name}: {error.message}")
                else:
                    row["reached"] += 1
                    row["detour"].append(len(sim.actions) / best - 1)
                    row["extra"].append(len(sim.actions) - best)
                    moves = sum(1 for a in sim.actions if a[0] in ("up", "down", "left", "right"))
                    row["aimless"].append(sum(sim.aimless) / max(moves, 1))
                    row["back"].append(back_moves(scenario, sim.actions) / max(moves, 1))
                row["seconds"] += time.perf_counter() - start
    return out


def report(title: str, maps, results: dict) -> None:
    print(f"\n{title} ({len(maps)} maps)")
    print(f"  {'agent':32} {'reached':>9} {'detour':>8} {'extra':>7} {'aimless':>8} {'back':>6} {'s/run':>6}")
    for label, row in results.items():
        n = row["runs"]
        def mean(xs, form: str, width: int) -> str:
            return form.format(np.mean(xs)) if xs else "—".rjust(width)

        print(f"  {label:32} {row['reached']:>4}/{n:<4} {mean(row['detour'], '{:>+8.0%}', 8)} "
              f"{mean(row['extra'], '{:>7.1f}', 7)} {mean(row['aimless'], '{:>8.0%}', 8)} "
              f"{mean(row['back'], '{:>6.0%}', 6)} "
              f"{row['seconds'] / n:>6.2f}")
        for why in row["why"][:2]:
            print(f"      {why}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--maps", type=int, default=12, help="elot generate maps (default: 12)")
    parser.add_argument("--big", type=int, default=4, help="20×20 maps with 12 boxes (default: 4)")
    parser.add_argument("--seeds", type=int, default=3, help="Boltzmann agents per map (default: 3)")
    parser.add_argument("--max-steps", type=int, default=500)
    args = parser.parse_args()
    print(__doc__.split("\n\n")[0])
    small = small_maps(args.maps)
    big = [(f"20x20 12 boxes s{seed}", parse_scn_text(big_map(seed))) for seed in range(args.big)]
    report("elot generate maps", small, measure(small, AGENTS, args.seeds, args.max_steps))
    report("20×20 maps, 12 boxes", big, measure(big, AGENTS, args.seeds, args.max_steps))
    print("\ndetour: actions / shortest plan knowing the boxes − 1 (mean over runs that reached the goal); "
          "extra: actions more than that plan; aimless: share of moves that gained nothing; back: share of moves "
          "back onto a cell walked since the agent last did something other than move")


if __name__ == "__main__":
    main()
