"""``elot parse | check | lower | eval | english``: the ELoT language on the command line.

Each command takes one formula as an argument, or many from ``--file F`` or standard
input (``-``), one per line (blank lines and ``#`` comments are skipped). With many, each
result is printed as ``path:line: result``; a bad line prints its error (location,
source line, caret, hint) on stderr and the remaining lines are still processed. The
exit status is 2 if any formula failed, else 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Callable, Iterator

from elot.settings import EXIT_OK, EXIT_USAGE
from elot.cli.options import signature_of
from elot.errors import ElotError, ElotTypeError, EvaluationError, load_json, read_text


def register(subparsers) -> None:
    """Add ``parse``, ``check``, ``lower``, ``eval`` and ``english``."""

    def common(name: str, help_text: str, *, signature: bool = True, bind_free: bool = True) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name, help=help_text, description=help_text)
        p.add_argument("formula", nargs="?", metavar="FORMULA",
                       help="an ELoT formula, or - to read formulas from standard input, one per line")
        p.add_argument("--file", "-f", metavar="FILE", help="read formulas from FILE, one per line")
        if signature:
            p.add_argument("--domain", metavar="DOMAIN",
                           help="the domain whose objects and predicates formulas are read in, as elot run takes "
                                "it: doors-keys-gems (the default), foodtrucks, a Python file defining a domain "
                                "(docs/domains.md)")
            p.add_argument("--scenario", "--signature", dest="scenario", metavar="SCENARIO",
                           help="take the objects from a scenario of the domain (the gridworld: a .scn file, a "
                                "PDDL problem, an example name or a plan id; default: Doors, Keys & Gems with "
                                "box1..box5, key1..key5, ...)")
            p.add_argument("--data", "--labtom", dest="data", metavar="DIR", default=None,
                           help="the domain's data folder, for scenario ids")
        if signature and bind_free:
            p.add_argument("--bind-free", action="store_true",
                           help="bind free variables existentially at the top (as the reference does)")
        return p

    p = common("parse", "Parse formulas and print their canonical form.", signature=False)
    p.set_defaults(func=_parse_command)
    p = common("check", "Typecheck formulas: print each one's type, or every error.")
    p.set_defaults(func=_check_command)
    p = common("lower", "Lower formulas to comparisons of probabilities with thresholds.")
    p.add_argument("--explain", action="store_true", help="also list the rule that fired at each place")
    p.set_defaults(func=_lower_command)
    p = common("eval", "Evaluate formulas in a state, for the agent's belief.")
    p.add_argument("--state", default="", metavar="ATOMS",
                   help='the true state, e.g. "inside(key1, box1), iscolor(key1, red), closed(box1)"')
    p.add_argument("--belief", metavar="FILE_OR_TEXT",
                   help='the belief: "0.5: inside(key1, box1) | 0.5: inside(key1, box2)", or a file with one '
                        '"weight: atoms" per line, or a .json file [[weight, "atoms"], ...]')
    p.add_argument("--desires", metavar="OBJECT=UTILITY,...",
                   help="what the agent wants, for wants/likes/prefers/...: each object's utility on any "
                        "scale, e.g. \"gem1=1, gem2=0\" (rescaled: the least 0, the most 1)")
    p.add_argument("--thresholds", default="", metavar="NAME=VALUE,...",
                   help="override thresholds, e.g. might=0.25,believes=0.8")
    p.set_defaults(func=_eval_command)
    p = common("english", "Typecheck formulas and say them in English, as people and language models are "
               "shown them.")
    p.add_argument("--initial", action="store_true",
                   help="a statement about the initial belief: told in the past (\"initially believed\")")
    p.set_defaults(func=_english_command)


# -- reading formulas --------------------------------------------------------------------


def _inputs(args) -> tuple[list[tuple[str, int, str]], bool]:
    """The formulas to process as (path, line number, text), and whether they came from
    a file or stdin (then results are prefixed with ``path:line:``)."""
    if args.file and args.formula:
        raise ElotError("give a formula or --file, not both", hint=f"elot {args.command} --file formulas.elot")
    if args.file:
        path = Path(args.file)
        text = read_text(path, "formula")
        return list(_lines(text, args.file)), True
    if args.formula == "-":
        return list(_lines(sys.stdin.read(), "<stdin>")), True
    if args.formula is None:
        raise ElotError("no formula given",
                        hint=f"elot {args.command} 'believes(player, formula(empty(box1)))', --file F, or - for stdin")
    return [("<formula>", 1, args.formula)], False


def _lines(text: str, path: str) -> Iterator[tuple[str, int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield path, number, line


def _relocate(error: ElotError, path: str, line: int, text: str) -> ElotError:
    """Point an error about one line of a file at that line of that file."""
    errors = list(error.errors) if isinstance(error, ElotTypeError) else []
    for e in [error, *errors]:
        e.path, e.source = path, text
        if e.span is not None:
            e.span = dataclasses.replace(e.span, line=line)
    return error


def _run(args, compute: Callable[..., str]) -> int:
    """Apply ``compute(text, line)`` to every input formula, printing results and errors.

    It returns the result's text; ``line`` is the formula's line number (for locations
    in multi-line results)."""
    inputs, many = _inputs(args)
    failed = False
    for path, line, text in inputs:
        try:
            result = compute(text, line)
        except ElotError as error:
            failed = True
            print(_relocate(error, path, line, text).render(), file=sys.stderr)
            continue
        if many:
            first, *rest = result.splitlines() or [""]
            print(f"{path}:{line}: {first}")
            for extra in rest:
                print(extra)
        else:
            print(result)
    return EXIT_USAGE if failed else EXIT_OK


# -- the commands ------------------------------------------------------------------------


def _parse_command(args) -> int:
    from elot.api import parse, pretty

    return _run(args, lambda text, _line: pretty(parse(text)))


def _check_command(args) -> int:
    from elot.api import check

    signature = signature_of(args)
    return _run(args, lambda text, _line: str(check(text, signature, bind_free=args.bind_free).type))


def _lower_command(args) -> int:
    from elot.api import lower, pretty

    signature = signature_of(args)

    def compute(text: str, line: int) -> str:
        if not args.explain:
            return pretty(lower(text, signature, bind_free=args.bind_free))
        lowered, steps = lower(text, signature, bind_free=args.bind_free, explain=True)
        lines = [pretty(lowered)]
        for step in steps:
            where = f"{line}:{step.span.column}" if step.span else "?"
            lines.append(f"  {where} {step.operator}: {step.rule}")
        return "\n".join(lines)

    return _run(args, compute)


def _english_command(args) -> int:
    from elot.api import check
    from elot.lang.english import english

    signature = signature_of(args)
    mode = "initial" if args.initial else "current"
    # typechecked first, as elot check would: an ill-typed formula has no meaning to tell
    return _run(args, lambda text, _line: english(check(text, signature, bind_free=args.bind_free).term, mode,
                                                  signature=signature))


def _eval_command(args) -> int:
    from elot.api import Thresholds, evaluate
    from elot.lang.states import State

    from elot.lang.signature import Signature

    signature = signature_of(args)
    thresholds = Thresholds.parse(args.thresholds) if args.thresholds else Thresholds()
    # States and beliefs are typechecked against the signature the formulas use.
    state = State.parse(args.state, path="--state", signature=signature or Signature.default())
    belief = _belief(args.belief, signature or Signature.default()) if args.belief else None
    desires = _desires(args.desires, signature or Signature.default()) if args.desires else None

    def compute(text: str, _line: int) -> str:
        value = evaluate(text, state, belief, signature=signature, thresholds=thresholds, bind_free=args.bind_free,
                         desires=desires)
        return ("true" if value else "false") if isinstance(value, bool) else repr(value)

    return _run(args, compute)


def _desires(spec: str, signature):
    """``--desires gem1=1,gem2=0``: one row of utilities over objects of the signature."""
    from elot.lang.desires import DesireRow

    try:
        row = DesireRow.parse(spec)
    except ElotError as error:
        raise EvaluationError(f"--desires: {error.message}", hint=error.hint) from None
    for name in row.objects:
        if signature.resolve(name) not in signature.object_types:
            guess = signature.suggest(name, signature.object_types)
            raise EvaluationError(f"--desires: unknown object {name!r}",
                                  hint=f"did you mean {guess!r}?" if guess else "name objects of the signature")
    return row


def _belief(spec: str, signature):
    """A belief from inline text, a text file, or a JSON file ``[[weight, "atoms"], ...]``."""
    from elot.lang.states import Belief, State

    path = Path(spec)
    if ":" in spec and not path.is_file():  # inline beliefs always have "weight:"
        return Belief.parse(spec, path="--belief", signature=signature)
    if not path.is_file():
        raise EvaluationError(f"cannot read belief file {spec}: no such file",
                              hint='or give the belief inline: "0.5: inside(key1, box1) | 0.5: inside(key1, box2)"')
    text = read_text(path, "belief")
    if path.suffix != ".json":
        return Belief.parse(text, path=spec, signature=signature)
    data = load_json(text, path=spec, error=EvaluationError,
                     hint='e.g. [[0.5, "inside(key1, box1)"], [0.5, "inside(key1, box2)"]]')
    try:
        pairs = [(State.parse(atoms if isinstance(atoms, str) else ", ".join(atoms), path=spec,
                              signature=signature), float(weight))
                 for weight, atoms in data]
    except (ValueError, TypeError) as error:
        raise EvaluationError(f"{spec} is not a JSON list of [weight, atoms] pairs: {error}", path=spec,
                              hint='e.g. [[0.5, "inside(key1, box1)"], [0.5, "inside(key1, box2)"]]') from None
    try:
        return Belief.of(pairs)
    except ElotError as error:  # weights that are negative or do not sum to 1
        raise error.located(path=spec)
