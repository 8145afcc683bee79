"""``elot plan``: simulate the model's agent in a map and write the scenario as ``.scn``
(see :mod:`elot.study.plan` and docs/experiments.md)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from elot.cli import domain_options, options
from elot.errors import ElotError
from elot.settings import DEFAULT_BETA, DEFAULT_MAX_STEPS, DEFAULT_POINTS, JUDGE_MODES, POLICIES


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
                   help="the agent's goal gem (default: the map's goal, G or goal:)")
    p.add_argument("--belief", default="uniform", metavar="BELIEF",
                   help="the agent's initial belief: uniform (over the initial states the model "
                        "considers), true (it knows what the boxes hold), weights over what the closed "
                        "boxes hold such as '0.5: inside(key1, box1), iscolor(key1, red) | 0.5: "
                        "inside(key1, box2)' (boxes a part leaves out are empty; key names stand for any "
                        "key), or a file holding one (default: %(default)s)")
    p.add_argument("--utilities", metavar="TRUCK=U,...",
                   help="food trucks (.trucks) only: the student's utility for each truck, e.g. "
                        "korean=100,lebanese=40,mexican=-20; its --belief is then over what spot 2 holds, e.g. "
                        "lebanese=0.5,mexican=0.25,none=0.25 (or uniform, or true)")
    options.add_beta_option(p, shown="2^1.5 ≈ 2.83, the paper's fit; 2.5 on food trucks")
    domain_options.add_domain_options(p)
    p.add_argument("--policy", choices=POLICIES, default="boltzmann",
                   help="boltzmann: sample from the QMDP policy at β; optimal: its best action, ties "
                        "broken by the seed (default: %(default)s)")
    p.add_argument("--purposeful", action=argparse.BooleanOptionalAction, default=True,
                   help="the agent never steps back to where it stood without having learnt something: it "
                        "follows the plan of the world it finds likeliest instead, so it looks purposeful and "
                        "reaches its goal on large maps (default); --no-purposeful: exactly the model's agent "
                        "(SPEC §8), which can step back and forth where its belief leaves it undecided")
    options.add_seed_option(p, of="the agent's choices", default=0)
    p.add_argument("--max-steps", type=options.number("max-steps"), default=DEFAULT_MAX_STEPS, metavar="N",
                   help="give up when the agent has not reached its goal after N actions "
                        "(default: %(default)s)")
    p.add_argument("--judge", type=_judge, default="auto", metavar="auto|events|T,...",
                   help="judgment points: auto (where the observer's inference moves most, never two "
                        "adjacent, never right after a move that gained nothing), events (after a box is opened, a key picked up, a door unlocked), "
                        "or times such as 4,9,15 (default: %(default)s)")
    p.add_argument("--points", type=options.number("points"), default=DEFAULT_POINTS, metavar="N",
                   help="at most N judgment points with --judge auto (default: %(default)s)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.scn", type=options.output_file,
                   help="the scenario file to write (- for standard output)")
    options.add_force_option(p)
    p.set_defaults(func=plan_command)


def _belief_text(spec: str) -> str:
    """The belief as text: a file's content, or the option's text."""
    from elot.errors import read_text

    path = Path(spec)
    if ":" not in spec and path.suffix and not path.is_file():
        read_text(path, "belief")  # the missing-file error, with the path
    return read_text(path, "belief") if path.is_file() else spec


def plan_command(args) -> int:
    from elot.cli.trucks import is_trucks, plan_trucks
    from elot.output import STDOUT, check_target, count, write_output
    from elot.study.plan import plan

    domain = domain_options.domain_spec(args)
    if is_trucks(args.scenario) or domain == "foodtrucks":   # food trucks: .trucks in, .trucks out
        return plan_trucks(args)
    if domain:
        from elot.cli.domain import plan_domain

        return plan_domain(args)
    domain_options.refuse_domain_options(args, model=False)
    if args.utilities is not None:
        raise ElotError("--utilities is for food-truck scenarios (.trucks files)",
                        hint="a Doors-Keys-Gems agent wants its --goal gem")
    if args.beta is None:
        args.beta = DEFAULT_BETA

    # the files the command reads: never written over, not even with --force. An existing
    # output is elot's only while it is byte for byte what elot wrote (its sidecar records
    # size and SHA-256): judgment points or statements edited into it need --force
    inputs = [spec for spec in (args.scenario, args.belief) if spec and Path(spec).is_file()]
    check_target(args.output, force=args.force, option="--output", inputs=inputs)  # before simulating
    scenario = options.scenario_from_args(args)
    name = Path(args.output).stem if args.output != STDOUT else None
    try:
        result = plan(scenario, goal=args.goal, belief=_belief_text(args.belief), beta=args.beta,
                      policy=args.policy, seed=args.seed, max_steps=args.max_steps, judge=args.judge,
                      points=args.points, name=name, purposeful=args.purposeful)
    except ElotError as error:   # a belief read from a file: its errors name the file, not the option
        if error.path == "--belief" and Path(args.belief).is_file():
            error.path = args.belief
        raise
    where = write_output(args.output, result.text, force=args.force, option="--output",
                         inputs=inputs)
    read = result.scenario
    points = ", ".join(map(str, read.judgments)) or "none"
    print(f"wrote {where}: {count(len(read.actions), 'action')} to {read.true_goal} in "
          f"{count(len(result.subgoals), 'subgoal')}; "
          f"judgment points ({result.judge}): {points}", file=sys.stderr)
    return 0

