"""One vocabulary of options for every subcommand (``run``, ``plot``, ``repl``, ``map``, ...).

Each ``add_*`` function adds one group of options with the same spelling, default, help
and validation wherever it is used; a new option of a group goes here once. Numbers are
checked by :data:`NUMBERS` (finite, in range) both on the command line (argparse then
prints ``elot run: error: argument --k: ...`` and exits 2) and in the REPL's ``:set``
(:func:`check_number`), so the two accept the same values. Models are the library's
(:data:`elot.btom.hypotheses.MODELS`), checked in one place (:func:`check_model`).

Spellings kept as aliases: ``--initial`` (= ``--mode initial``).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from elot.errors import ElotError
from elot.btom.hypotheses import check_model  # noqa: F401 - the CLI's and the REPL's model check

DEFAULT_BETA = 2 ** 1.5
DEFAULT_K = 3
MODES = ("current", "initial")


@dataclass(frozen=True)
class Number:
    """A numeric setting: its name, whether it is whole, and its range (``low`` inclusive,
    or exclusive when ``open_low``; ``high`` inclusive), with an example for the hint."""

    name: str
    integer: bool
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    example: str = ""

    def range(self) -> str:
        if self.low is not None and self.high is not None:
            return f"between {self.low:g} and {self.high:g}"
        if self.low is not None:
            return f"greater than {self.low:g}" if self.open_low else f"at least {self.low:g}"
        return f"at most {self.high:g}" if self.high is not None else "finite"


#: Every numeric option or setting, by name. ``k`` has no upper bound of its own: the
#: size of the hypothesis space it leads to is what is limited.
NUMBERS: dict[str, Number] = {
    "beta": Number("beta", False, low=0, open_low=True, example="2.83, the default (2^1.5)"),
    "k": Number("k", True, low=1, example="3, the paper's"),
    "time": Number("time", True, low=0, example="0, the start"),
    "samples": Number("samples", True, low=1, example="10"),
    "max-hypotheses": Number("max-hypotheses", True, low=1, example="2000000, the default"),
    "jobs": Number("jobs", True, low=1, example="2, one per core"),
    "noise": Number("noise", False, low=0, example="0.05"),
    "particles": Number("particles", True, low=1, example="1000, the default"),
    "seed": Number("seed", True, low=0, example="0"),
}


def check_number(name: str, text: str | float | int) -> float | int:
    """``text`` as the number ``name`` takes, or an :class:`ElotError` saying what is
    accepted: a whole number where one is needed, finite, in range."""
    spec = NUMBERS[name]
    wanted = f"{name} must be {'a whole number' if spec.integer else 'a finite number'} {spec.range()}"
    hint = f"e.g. {spec.example}" if spec.example else None
    try:
        value: float | int = float(text)
    except (TypeError, ValueError):
        raise ElotError(f"{wanted}, not {text!r}", hint=hint) from None
    whole = not isinstance(text, str) or text.strip().lstrip("+-").isdigit()
    too_low = spec.low is not None and (value <= spec.low if spec.open_low else value < spec.low)
    too_high = spec.high is not None and value > spec.high
    if not math.isfinite(value) or (spec.integer and not whole) or too_low or too_high:
        raise ElotError(f"{wanted}, not {text}", hint=hint)
    return int(value) if spec.integer else value


def number(name: str):
    """An argparse ``type=`` for the number ``name`` (see :data:`NUMBERS`)."""

    def parse(text: str):
        try:
            return check_number(name, text)
        except ElotError as error:
            raise argparse.ArgumentTypeError(error.message + (f" ({error.hint})" if error.hint else "")) from None

    parse.__name__ = name   # argparse names the type in some messages
    return parse


def models() -> tuple[str, ...]:
    """The BToM models the library knows (:data:`elot.btom.hypotheses.MODELS`)."""
    from elot.btom.hypotheses import MODELS

    return tuple(MODELS)


def _conventions_type(text: str) -> str:
    from elot.btom.conventions import check_conventions

    try:
        return check_conventions(text)
    except ElotError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None


def _inference_type(text: str) -> str:
    from elot.btom.inference import check_method

    try:
        return check_method(text)
    except ElotError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None


def _model_type(text: str) -> str:
    try:
        return check_model(text)
    except ElotError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None


# -- option groups ----------------------------------------------------------------------------


def add_scenario_options(p: argparse.ArgumentParser, *, plan: bool = True) -> None:
    """SCENARIO (a .scn file, a dataset problem or plan .pddl, an example name or a plan
    id), ``--plan`` (the plan of a problem file), ``--labtom DIR`` and ``--exp``."""
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="a .scn file, a dataset PROBLEM.pddl (with --plan) or plan .pddl, a dataset "
                        "plan id such as 1_1, or an example name (default: the built-in example)")
    if plan:
        p.add_argument("--plan", metavar="PLAN", help="the plan of a dataset problem: a .pddl file or a plan id")
    add_labtom_option(p)
    p.add_argument("--exp", default="exp2_current", metavar="EXP",
                   help="the dataset experiment of a plan id (default: %(default)s)")


def add_labtom_option(p: argparse.ArgumentParser) -> None:
    """``--labtom DIR``: where the dataset's plan ids are looked up."""
    p.add_argument("--labtom", metavar="DIR",
                   help="the LaBToM dataset directory, for plan ids (default: $ELOT_LABTOM_DATA, else a "
                        "labtom or shared/labtom folder in or above the working directory)")


def load_scenario(args):
    """The scenario the options of :func:`add_scenario_options` name."""
    from elot.btom import scenario as scn
    from elot.errors import ScenarioError

    plan = getattr(args, "plan", None)
    if args.scenario is None:
        if plan:
            raise ScenarioError("--plan needs a PROBLEM.pddl",
                                hint="elot run problems/1_1.pddl --plan plans/exp2_current/1_1.pddl")
        return scn.default_example()
    return scn.load_scenario(args.scenario, plan, exp=args.exp, root=args.labtom)


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--beta``, ``--k``, ``--backend``: the BToM inference to run."""
    p.add_argument("--model", type=_model_type, default="full", metavar="MODEL",
                   help="the BToM model or one of the paper's ablations: " + ", ".join(models())
                        + "; or true-belief-paper, a reproduction of an artifact of the paper's "
                        "evaluation code (default: %(default)s)")
    p.add_argument("--conventions", type=_conventions_type, default="elot", metavar="{elot,paper}",
                   help="elot (SPEC §4-5) or the paper's reference pipeline (SPEC §7) "
                        "(default: %(default)s)")
    p.add_argument("--beta", type=number("beta"), default=None, metavar="BETA",
                   help="the agent's rationality β = 1/τ, a positive number (default: the "
                        "--thresholds file's, else 2^1.5 ≈ 2.83)")
    p.add_argument("--k", type=number("k"), default=DEFAULT_K, metavar="K",
                   help="particles per initial belief, a whole number ≥ 1 (default: %(default)s)")
    p.add_argument("--max-hypotheses", type=number("max-hypotheses"), default=None, metavar="N",
                   help="refuse a hypothesis space larger than N (default: 2,000,000, about 1.2 GB)")
    p.add_argument("--backend", choices=("core", "reference"), default="core",
                   help="the compiled core, or the slow plain-Python reference (default: %(default)s)")
    add_inference_options(p)


def add_inference_options(p: argparse.ArgumentParser) -> None:
    """``--inference exact|smc|auto``, ``--particles N``, ``--seed S``: how to infer."""
    p.add_argument("--inference", type=_inference_type, default="exact", metavar="{exact,smc,auto}",
                   help="exact enumeration, particle inference (sequential Monte Carlo), or auto: exact "
                        "when the hypotheses fit --max-hypotheses, else particles (default: %(default)s)")
    p.add_argument("--particles", type=number("particles"), default=None, metavar="N",
                   help="particles for --inference smc/auto, a whole number ≥ 1 (default: 1000)")
    p.add_argument("--seed", type=number("seed"), default=None, metavar="S",
                   help="seed of particle inference, for a run that can be repeated (default: fresh)")


def inference_options(args) -> dict:
    """The keyword arguments of :func:`elot.btom.inference.infer` that
    :func:`add_inference_options` sets (those the user gave)."""
    out = {"inference": args.inference}
    if args.particles is not None:
        out["particles"] = args.particles
    if args.seed is not None:
        out["seed"] = args.seed
    return out


def add_formula_options(p: argparse.ArgumentParser) -> None:
    """``--bind-free`` and ``--thresholds``: how formulas are read and judged."""
    p.add_argument("--bind-free", action="store_true",
                   help="bind free variables existentially at the top (as the reference does)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="thresholds (and β) from elot fit's JSON file, or name=value,... overrides")


def add_mode_option(p: argparse.ArgumentParser) -> None:
    """``--mode current|initial`` (and ``--initial``, its older spelling): the belief a
    statement that does not say is about."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--mode", choices=MODES, default="current",
                       help="the belief statements that do not say are about: the agent's current "
                            "or initial belief (default: %(default)s)")
    group.add_argument("--initial", dest="mode", action="store_const", const="initial",
                       help="the same as --mode initial")


def add_statement_options(p: argparse.ArgumentParser) -> None:
    """``--statement/-s F`` (repeatable), ``--statements FILE`` and the mode."""
    p.add_argument("--statement", "-s", action="append", default=[], metavar="F",
                   help="an ELoT formula (or English sentence) to score; repeatable")
    p.add_argument("--statements", metavar="FILE",
                   help="statements to score, one per line, optionally prefixed by 'initial:' or "
                        "'current:' (# comments)")
    add_mode_option(p)


def add_table_output_options(p: argparse.ArgumentParser) -> None:
    """``--csv OUT`` / ``--json OUT`` (``-`` for standard output) and ``--force``."""
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="OUT", help="write the table as CSV (- for standard output)")
    out.add_argument("--json", metavar="OUT", help="write the table as JSON (- for standard output)")
    add_force_option(p)


def add_figure_output_options(p: argparse.ArgumentParser) -> None:
    """``-o/--output OUT.png`` and ``--force``."""
    p.add_argument("-o", "--output", required=True, metavar="OUT.png",
                   help="the PNG file to write (its directory must exist)")
    add_force_option(p)


def add_force_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file even if it does not look like one elot wrote")
