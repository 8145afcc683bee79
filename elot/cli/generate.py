"""``elot generate``: a random solvable map as a ``.scn`` scenario (see :mod:`elot.domains.doors_keys_gems.generate`)."""

from __future__ import annotations


from elot.cli import options
from elot.output import STDOUT, check_target, write_output


def register(subparsers) -> None:
    """Add ``generate``."""
    p = subparsers.add_parser(
        "generate",
        help="Write a random solvable map (boxes, colours, doors, gems) as a .scn scenario.",
        description="Draw a random solvable Doors-Keys-Gems map from a seed and write it as a "
        ".scn scenario (the same arguments always give the same file). Gems sit in alcoves "
        "along the top, doors guard them, keys lie in the hall below or hide in boxes.",
    )
    p.add_argument("--boxes", type=options.whole("--boxes", 0), default=2, help="boxes (default: %(default)s)")
    p.add_argument("--colours", "--colors", type=options.whole("--colours", 0), default=1,
                   help="key and door colours (default: %(default)s)")
    p.add_argument("--doors", type=options.whole("--doors", 0), default=1, help="locked doors (default: %(default)s)")
    p.add_argument("--gems", type=options.whole("--gems", 0), default=2, help="gems (default: %(default)s)")
    p.add_argument("--hidden", type=options.whole("--hidden", 0), default=None,
                   help="keys hidden in boxes (default: as many as boxes and keys allow, at most 2)")
    p.add_argument("--walls", type=float, default=0.15, metavar="SHARE",
                   help="share of the hall that is inner walls, in [0, 0.5) (default: %(default)s)")
    options.add_seed_option(p, of="the map", default=0)
    p.add_argument("--steps", type=options.whole("--steps", 0), default=None, metavar="N",
                   help="add the agent's actions: an optimal plan to the true goal, cut after N "
                   "actions (0: the whole plan; default: no actions)")
    p.add_argument("--name", help="the scenario's name (default: from the sizes and seed)")
    p.add_argument("-o", "--output", default=STDOUT, metavar="OUT.scn", help="where to write (default: stdout)")
    options.add_force_option(p)
    p.set_defaults(func=generate_command)


def generate_command(args) -> int:
    from elot.domains.doors_keys_gems.generate import Spec, generate

    spec = Spec(boxes=args.boxes, colours=args.colours, doors=args.doors, gems=args.gems,
                hidden=args.hidden, wall_density=args.walls)
    steps = None if args.steps is None else (10 ** 9 if args.steps == 0 else args.steps)
    # before drawing the map (a large one takes a while); the file is elot's only while it
    # is byte for byte what elot wrote (its sidecar), so a hand-written or edited
    # scenario is never replaced without --force
    check_target(args.output, force=args.force, option="--output")
    text = generate(spec, args.seed, steps=steps, name=args.name)
    write_output(args.output, text, force=args.force, option="--output")
    return 0
