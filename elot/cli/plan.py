"""``elot plan``: simulate the model's agent in a map and write the scenario as ``.scn``
(see :mod:`elot.domains.doors_keys_gems.plan` and docs/experiments.md)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from elot.cli import options
from elot.errors import ElotError
from elot.settings import DEFAULT_MAX_STEPS, DEFAULT_POINTS, JUDGE_MODES, POLICIES


def _judge(text: str):
    """``auto``, ``events`` or times ``4,9,15`` (an argparse type)."""
    word = text.strip().lower()
    if word in JUDGE_MODES:
        return word
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    if not parts or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(
            f"expected auto, events or judgment points such as 4,9,15 (numbers of actions), not {text!r}")
    return [int(p) for p in parts]


def register(subparsers) -> None:
    """Add ``plan``."""
    p = subparsers.add_parser(
        "plan",
        help="Simulate the agent in a map and write the scenario (.scn) with suggested judgment points.",
        description="Simulate the model's own agent (SPEC §5, §8) in a map: it wants its goal gem, starts "
        "from its initial belief about what the closed boxes hold, perceives, updates its belief and acts by "
        "the Boltzmann QMDP policy, never stepping back without having learnt something (--no-purposeful: "
        "exactly the model's agent). Writes a complete .scn (map, hidden state, goal, description, the "
        "actions one line per subgoal, judgment points) that elot run, repl and batch read. The "
        "scenario's own actions, if any, are replaced; its statements are kept. On a food-truck scenario (a .trucks "
        "file) the student has --utilities for the trucks and a --belief about spot 2, plans with the food-truck "
        "model's planner, perceives by line of sight, and its moves (after the file's own) are written as .trucks.")
    options.add_scenario_options(p, plan=False)
    p.add_argument("--goal", metavar="GEM",
                   help="the gridworld: the agent's goal gem (default: the map's goal, G or goal:)")
    p.add_argument("--utilities", metavar="NAME=U,...",
                   help="a tabular domain: the agent's utility for each object, e.g. food trucks' "
                        "korean=100,lebanese=40,mexican=-20")
    p.add_argument("--belief", default="uniform", metavar="BELIEF",
                   help="the agent's initial belief: uniform (over the worlds the model considers), true (it knows "
                        "the true world), or weights: in the gridworld over what the closed boxes hold, such as "
                        "'0.5: inside(key1, box1), iscolor(key1, red) | 0.5: inside(key1, box2)' (boxes a part "
                        "leaves out are empty; key names stand for any key), or a file holding one; in a tabular "
                        "domain over its worlds, e.g. food trucks' lebanese=0.5,mexican=0.25,none=0.25 "
                        "(default: %(default)s)")
    options.add_beta_option(p, shown="the domain's: 2^1.5 ≈ 2.83 in the gridworld, 2.5 for food trucks")
    p.add_argument("--model", default=None, metavar="MODEL",
                   help="the domain's model whose agent acts: a PDDL domain's boltzmann, boltzmann-exact, boltzmann-ff, "
                        "lapse, heuristic, horizon, partial-plans, goal-noise (docs/pddl.md; default: boltzmann); the "
                        "gridworld and tabular domains simulate their own model's agent")
    p.add_argument("--param", action="append", type=options.param_pair, default=[], metavar="NAME=VALUE",
                   help="a PDDL domain: a setting of that model besides β (epsilon, weight, horizon, gamma); "
                        "repeatable (default: the model's own)")
    p.add_argument("--policy", choices=POLICIES, default="boltzmann",
                   help="boltzmann: sample from the agent's policy at β; optimal: its best action, ties "
                        "broken by the seed (default: %(default)s)")
    p.add_argument("--purposeful", action=argparse.BooleanOptionalAction, default=None,
                   help="the gridworld: the agent never steps back to where it stood without having learnt "
                        "something: it follows the plan of the world it finds likeliest instead, so it looks "
                        "purposeful and reaches its goal on large maps (default); --no-purposeful: exactly the "
                        "model's agent (SPEC §8), which can step back and forth where its belief leaves it undecided")
    p.add_argument("--planner", choices=options.PLANNERS, default=None,
                   help="a tabular domain: the planner the agent plans with (default: the domain's)")
    options.add_seed_option(p, of="the agent's choices", default=0)
    p.add_argument("--max-steps", type=options.number("max-steps"), default=DEFAULT_MAX_STEPS, metavar="N",
                   help="give up when the agent has not reached its goal after N actions "
                        "(default: %(default)s)")
    p.add_argument("--judge", type=_judge, default=None, metavar="auto|events|T,...",
                   help="the gridworld's judgment points: auto (where the observer's inference moves most, never "
                        "two adjacent, never right after a move that gained nothing), events (after a box is "
                        "opened, a key picked up, a door unlocked), or times such as 4,9,15 (default: auto)")
    p.add_argument("--points", type=options.number("points"), default=None, metavar="N",
                   help=f"at most N judgment points with --judge auto (default: {DEFAULT_POINTS})")
    p.add_argument("-o", "--output", required=True, metavar="OUT", type=options.output_file,
                   help="the scenario file to write, in the domain's format (.scn, .trucks, a JSON case; - for "
                        "standard output)")
    options.add_force_option(p)
    p.set_defaults(func=plan_command)


def _belief_text(spec: str) -> str:
    """The belief as text: a file's content, or the option's text (weights, ``uniform``,
    ``true``); a name that looks like a file but is none is the missing-file error."""
    from elot.errors import read_text

    path = Path(spec)
    if path.is_file():
        return read_text(path, "belief")
    if ":" not in spec and "=" not in spec and path.suffix:
        read_text(path, "belief")  # the missing-file error, with the path
    return spec


def plan_command(args) -> int:
    from elot.domains.front import PlanRequest
    from elot.output import STDOUT, check_target, write_output

    front = options.front_of(args)
    given = {"goal": args.goal, "utilities": args.utilities, "judge": args.judge, "points": args.points,
             "purposeful": args.purposeful, "planner": args.planner, "model": args.model,
             "params": tuple(args.param) or None}
    for name, value in given.items():
        if value is not None and name not in front.plan_settings:
            raise ElotError(f"{PlanRequest.OPTIONS[name]} is not a setting of the {front.name} domain's simulated "
                            "agent", hint="it takes " + ", ".join(PlanRequest.OPTIONS[n] for n in front.plan_settings))
    # the files the command reads: never written over, not even with --force. An existing
    # output is elot's only while it is byte for byte what elot wrote (its sidecar records
    # size and SHA-256): judgment points or statements edited into it need --force
    inputs = [spec for spec in (*front.inputs(args.scenario), args.belief) if spec and Path(spec).is_file()]
    check_target(args.output, force=args.force, option="--output", inputs=inputs)  # before simulating
    episodes = front.episodes(args.scenario) if args.scenario else [front.episode(None)]
    request = PlanRequest(goal=args.goal, utilities=args.utilities, belief=_belief_text(args.belief), beta=args.beta,
                          policy=args.policy, seed=args.seed, max_steps=args.max_steps,
                          judge="auto" if args.judge is None else args.judge,
                          points=DEFAULT_POINTS if args.points is None else args.points,
                          purposeful=True if args.purposeful is None else args.purposeful, planner=args.planner,
                          name=Path(args.output).stem if args.output != STDOUT else None,
                          output=args.output if args.output != STDOUT else None, model=args.model,
                          params=tuple(args.param))
    try:
        planned = front.plan(episodes, request)
    except ElotError as error:   # a belief read from a file: its errors name the file, not the option
        if error.path == "--belief" and Path(args.belief).is_file():
            error.path = args.belief
        raise
    where = write_output(args.output, planned.text, force=args.force, option="--output", inputs=inputs)
    for note in planned.notes:
        print(note, file=sys.stderr)
    print(f"wrote {where}" + (f": {planned.summary}" if planned.summary else ""), file=sys.stderr)
    return 0
