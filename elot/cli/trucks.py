"""``elot plan`` and ``elot stimuli`` on food-truck scenarios (``.trucks`` files): the
commands dispatch here on the suffix (see docs/domains.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from elot.errors import ArgumentError

SUFFIX = ".trucks"
#: The food-truck model's beta (Baker et al. 2017), the default of ``elot plan`` on trucks.
TRUCKS_BETA = 2.5


def is_trucks(spec) -> bool:
    return isinstance(spec, str) and Path(spec).suffix.lower() == SUFFIX


def plan_trucks(args) -> int:
    """``elot plan SCENARIO.trucks --utilities ... --belief ...``: every scenario of the
    file completed by the simulated student, written as ``.trucks``."""
    from elot.domains.foodtrucks.simulate import eaten, parse_belief, parse_utilities, simulate
    from elot.domains.foodtrucks.trucksfile import format_trucks, read_trucks
    from elot.engine.tables.config import EngineConfig
    from elot.output import check_target, count, write_output

    if args.goal is not None:
        raise ArgumentError("--goal is for Doors-Keys-Gems maps; the student wants the trucks it has "
                            "utilities for", hint="give --utilities korean=U,lebanese=U,mexican=U")
    if args.utilities is None:
        raise ArgumentError("elot plan on food trucks needs the student's --utilities",
                            hint="e.g. --utilities korean=100,lebanese=40,mexican=-20")
    utilities = parse_utilities(args.utilities)
    inputs = [args.scenario] if is_trucks(args.scenario) else []
    check_target(args.output, force=args.force, option="--output", inputs=inputs)   # before simulating
    scenarios = read_trucks(args.scenario) if is_trucks(args.scenario) else _experiment_scenarios(args)
    config = EngineConfig(beta=TRUCKS_BETA if args.beta is None else float(args.beta))
    done, notes = [], []
    for n, scenario in enumerate(scenarios):
        belief = parse_belief(args.belief, scenario.world)
        seed = None if args.seed is None else args.seed + n
        result = simulate(scenario, utilities, belief, config=config, policy=args.policy, seed=seed,
                          max_steps=args.max_steps)
        done.append(result.scenario)
        name = result.scenario.name or str(result.scenario.id)
        moves = len(result.scenario.cells) - len(scenario.cells)
        if result.gave_up:
            notes.append(f"warning: scenario {name}: the student ate nowhere within {args.max_steps} moves; "
                         "its path is written unfinished")
        else:
            notes.append(f"scenario {name}: {count(moves, 'move')} simulated, eats at the "
                         f"{eaten(result.scenario)} truck")
    where = write_output(args.output, format_trucks(done), force=args.force, option="--output", inputs=inputs)
    for note in notes:
        print(note, file=sys.stderr)
    print(f"wrote {where}: {count(len(done), 'scenario')}", file=sys.stderr)
    return 0


def _experiment_scenarios(args) -> list:
    """The food-truck scenarios ``foodtrucks:ID`` (or ``--domain foodtrucks ID``) names, from
    the experiment's data: what ``elot plan`` completes and writes as ``.trucks``."""
    from elot.cli.domain_options import data_dir
    from elot.domains.front import front_of
    from elot.domains.load import load_domain

    front = front_of(load_domain("foodtrucks"), "foodtrucks")
    return [scenario.detail for scenario in front.expand(args.scenario, data_dir(args))]


def stimuli_trucks(args, progress=None) -> int:
    """``elot stimuli SCENARIO.trucks ... -o DIR``: one animation per segment of each
    scenario and a ``stimuli.json`` that ``elot survey build`` reads."""
    from elot.output import count
    from elot.study.trucks_stimuli import make_truck_stimuli

    others = [s for s in args.scenarios if not is_trucks(s)]
    if others:
        raise ArgumentError(f"{others[0]} is not a .trucks file: a stimulus set is of one domain",
                            hint="render food-truck scenarios and Doors-Keys-Gems scenarios into separate sets")
    statements = None
    if args.statements:
        from elot.domains.doors_keys_gems.dataset import read_statements

        statements = [(s.text, s.mode) for s in read_statements(args.statements, args.mode)]
        if not statements:
            from elot.study.params import StudyError

            raise StudyError(f"{args.statements} holds no statements", hint="one statement a line; # comments")
    try:
        made = make_truck_stimuli(args.scenarios, args.output, statements=statements,
                                  cell_px=args.cell, size_px=args.size, loop=args.loop,
                                  from_start=args.from_start, force=args.force, progress=progress)
    except KeyboardInterrupt:
        print(f"interrupted: {args.output} was not written", file=sys.stderr)
        return 130
    images = sum(len(e["images"]) for e in made.entries)
    print(f"wrote {count(len(made.entries), 'scenario')} ({images} GIF animations, "
          f"{count(made.frames, 'frame')}) and stimuli.json to {made.folder}", file=sys.stderr)
    return 0
