"""The ``elot`` command line: one console script, one module per group of subcommands.

Each module in :data:`COMMAND_MODULES` defines ``register(subparsers)``, which adds its
subcommands with ``set_defaults(func=handler)``; a handler takes the parsed arguments and
returns an exit status. Every :class:`~elot.errors.ElotError` that escapes a handler is
rendered here (location, source line, caret, hint) on stderr with exit status 2: users
never see a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable, Sequence

from elot.errors import ElotError, from_os_error
from elot.settings import EXIT_OK, EXIT_USAGE

#: Subcommand modules, in the order their commands are listed by ``elot --help``.
COMMAND_MODULES = (
    "elot.cli.lang",       # parse, check, lower, eval
    "elot.cli.run",        # run (BToM inference and statement scores)
    "elot.cli.translate",  # translate (English -> ELoT)
    "elot.cli.repl",       # repl, plot, map
    "elot.cli.study",      # batch, fit, simulate, report
    "elot.cli.plan",       # plan (simulate the agent in a map into a new scenario)
    "elot.cli.materials",  # stimuli, storyboard, design
    "elot.cli.generate",   # generate (random solvable maps)
    "elot.cli.survey",     # survey build, serve, export, import
    "elot.cli.baseline",   # baseline (statements rated by a language model)
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand registered."""
    from elot import __version__

    parser = argparse.ArgumentParser(
        prog="elot",
        description="Epistemic language of thought: parse, typecheck, lower and evaluate "
        "ELoT formulas, and score them against Bayesian theory-of-mind inferences.",
    )
    parser.add_argument("--version", action="version", version=f"elot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``elot`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return run_command(lambda: args.func(args))


def run_command(func: Callable[[], int | None]) -> int:
    """``func()``'s exit status, as a command ends: an :class:`ElotError` (and an
    interruption, a broken pipe, memory or the system refusing a path) is its message
    and a status, never a traceback. Also what the benchmark scripts end with."""
    try:
        return int(func() or 0)
    except ElotError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError as error:  # past the estimates made before the work (they refuse what they count)
        print(ElotError(f"out of memory{': ' + str(error) if str(error) else ''}",
                        hint="use a smaller map or fewer scenarios, fewer --jobs, or free memory").render(),
              file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:  # a path the system refuses (too long, no permission, ...)
        print(from_os_error(error).render(), file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
