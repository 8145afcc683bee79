"""One vocabulary of options for every subcommand (``run``, ``plot``, ``repl``, ``map``, ...).

Each ``add_*`` function adds one group of options with the same spelling, default, help
and validation wherever it is used; a new option of a group goes here once. Numbers are
checked by :data:`elot.settings.NUMBERS` (finite, in range) both on the command line
(argparse then prints ``elot run: error: argument --k: ...`` and exits 2) and in the REPL's
``:set`` (:func:`elot.settings.check_number`), so the two accept the same values. ``--model``
names a BToM variant (:data:`elot.settings.ALL_VARIANTS`, :func:`elot.settings.check_variant`).

Spellings kept as aliases: ``--initial`` (= ``--mode initial``).
"""

from __future__ import annotations

import argparse

from elot.errors import ElotError
from elot.settings import (CURRENT, DEFAULT_BETA, DEFAULT_K, DEFAULT_PARTICLES, DEFAULT_VARIANT, MODES, VARIANTS,
                           check_number, check_variant)


def output_file(text: str) -> str:
    """An argparse ``type=`` for an output file: an empty name is refused, not ignored."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an output file name cannot be empty (- is standard output)")
    return text


def number(name: str):
    """An argparse ``type=`` for the number ``name`` (see :data:`elot.settings.NUMBERS`)."""

    def parse(text: str):
        try:
            return check_number(name, text)
        except ElotError as error:
            raise argparse.ArgumentTypeError(error.message + (f" ({error.hint})" if error.hint else "")) from None

    parse.__name__ = name   # argparse names the type in some messages
    return parse


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


def _variant_type(text: str) -> str:
    try:
        return check_variant(text)
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


def scenario_from_args(args):
    """The scenario the options of :func:`add_scenario_options` name."""
    from elot.btom import load, scn
    from elot.errors import ScenarioError

    plan = getattr(args, "plan", None)
    if args.scenario is None:
        if plan:
            raise ScenarioError("--plan needs a PROBLEM.pddl",
                                hint="elot run problems/1_1.pddl --plan plans/exp2_current/1_1.pddl")
        return scn.default_example()
    return load.load_scenario(args.scenario, plan, exp=args.exp, root=args.labtom)


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--beta``, ``--k``, ``--backend``: the BToM inference to run."""
    p.add_argument("--model", type=_variant_type, default=DEFAULT_VARIANT, metavar="MODEL",
                   help="the BToM model or one of the paper's ablations: " + ", ".join(VARIANTS)
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
    p.add_argument("--particles", type=number("particles"), default=DEFAULT_PARTICLES, metavar="N",
                   help="particles for --inference smc/auto, a whole number ≥ 1 (default: %(default)s)")
    p.add_argument("--seed", type=number("seed"), default=None, metavar="S",
                   help="seed of particle inference, for a run that can be repeated (default: fresh)")


def inference_config(args):
    """The :class:`~elot.btom.inference.InferenceConfig` that :func:`add_model_options` and
    :func:`add_prior_options` (where the command has them) ask for, built once and passed
    whole. Call it after :func:`apply_thresholds_option`, which settles ``--beta``."""
    from elot.btom.inference import InferenceConfig

    config = InferenceConfig(variant=args.model, beta=args.beta, k=args.k, conventions=args.conventions,
                             method=args.inference, particles=args.particles, seed=args.seed,
                             prior=prior_of(args), backend=args.backend)
    if args.max_hypotheses is not None:
        config = config.replace(max_hypotheses=args.max_hypotheses)
    return config


def add_prior_options(p: argparse.ArgumentParser) -> None:
    """``--hidden-keys N`` and ``--hidden-colours C,...``: the family of initial states
    (:class:`elot.btom.hypotheses.Prior`); read back with :func:`prior_of`."""
    p.add_argument("--hidden-keys", type=number("hidden-keys"), default=None, metavar="N",
                   help="at most N hidden keys per initial state (default: the dataset's 2, or "
                        "as many as the doors on the way to the goals need)")
    p.add_argument("--hidden-colours", "--hidden-colors", default=None, metavar="C,...",
                   help="hidden keys may be of these colours only, 0 to N of each (default: the "
                        "colours, and counts, optimal plans for the goals pick up; SPEC §5)")


def prior_of(args):
    """The :class:`~elot.btom.hypotheses.Prior` that :func:`add_prior_options` asked for."""
    from elot.btom.hypotheses import Prior

    colours = getattr(args, "hidden_colours", None)
    return Prior(getattr(args, "hidden_keys", None),
                 None if colours is None else tuple(c.strip() for c in colours.split(",") if c.strip()))


def apply_thresholds_option(args):
    """For a command with ``--thresholds`` and ``--beta`` (default None): Θ from the
    option (defaults when absent), and ``args.beta`` set from the file's β unless
    ``--beta`` was given (else :data:`elot.settings.DEFAULT_BETA`)."""
    from elot.lang.semantics import Thresholds
    from elot.study.params import Params, thresholds_option

    params = thresholds_option(args.thresholds) if getattr(args, "thresholds", None) else Params(Thresholds())
    if getattr(args, "beta", None) is None:
        args.beta = params.beta if params.beta is not None else DEFAULT_BETA
    return params.thresholds


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
    group.add_argument("--mode", choices=MODES, default=CURRENT,
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
    out.add_argument("--csv", metavar="OUT", type=output_file, help="write the table as CSV (- for standard output)")
    out.add_argument("--json", metavar="OUT", type=output_file, help="write the table as JSON (- for standard output)")
    add_force_option(p)


def add_figure_output_options(p: argparse.ArgumentParser) -> None:
    """``-o/--output OUT.png`` and ``--force``."""
    p.add_argument("-o", "--output", required=True, metavar="OUT.png", type=output_file,
                   help="the PNG file to write (its directory must exist)")
    add_force_option(p)


def add_force_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file even if it does not look like one elot wrote")
