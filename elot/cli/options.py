"""One vocabulary of options for every subcommand (``run``, ``plot``, ``repl``, ``map``, ...).

Each ``add_*`` function adds one group of options with the same spelling, default, help
and validation wherever it is used; a new option of a group goes here once. Numbers are
checked by :data:`elot.settings.NUMBERS` (finite, in range) both on the command line
(argparse then prints ``elot run: error: argument --k: ...`` and exits 2) and in the REPL's
``:set`` (:func:`elot.settings.check_number`), so the two accept the same values.

One word, one meaning: ``--model`` is always a BToM variant (:data:`elot.settings.ALL_VARIANTS`,
:func:`elot.settings.check_variant`), ``--backend`` the compiled core or the plain-Python
reference, ``--k`` the belief size, ``--particles`` the particles of particle inference;
a language model is ``--language-model`` and the translation method ``--translator``.
An option several commands share is declared by one function here, with one help text;
a command that takes several values (comma-separated) or picks one setting of a table
says so after it (:data:`MANY`, :data:`PICK`).

Spellings kept as aliases: ``--initial`` (= ``--mode initial``). Refused with the new
name: ``elot translate --backend`` and ``--model`` (see :func:`add_renamed_option`).
"""

from __future__ import annotations

import argparse
import os

from elot.errors import ElotError
from elot.settings import (CURRENT, DEFAULT_BETA, DEFAULT_K, DEFAULT_PARTICLES, DEFAULT_VARIANT, MAX_HYPOTHESES, MODES,
                           VARIANTS, check_number, check_variant)


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
    from elot.domains.doors_keys_gems.conventions import check_conventions

    try:
        return check_conventions(text)
    except ElotError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None


def _inference_type(text: str) -> str:
    from elot.engine.worlds.methods import check_method

    try:
        return check_method(text)
    except ElotError as error:
        raise argparse.ArgumentTypeError(f"{error.message} ({error.hint})") from None


#: Binary size suffixes of ``--max-memory`` (a plain number is bytes).
_SIZE_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
               "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40, "TIB": 2**40}


def memory_size(text: str) -> int:
    """An argparse ``type=`` for a memory size: bytes, or a number with a binary suffix
    (``512M``, ``1.5G``, ``2GiB``), at least one byte."""
    number_part = text.strip().rstrip("bBiIkKmMgGtT")
    unit = text.strip()[len(number_part):].upper()
    try:
        value = float(number_part) * _SIZE_UNITS[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a memory size (e.g. 512M, 1.5G, 2GiB)") from None
    if value != value or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a memory size of at least one byte")
    if value >= 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} is more memory than any machine has (at most 8 EiB; e.g. 512M, "
                                         "1.5G, 2GiB)")
    return int(value)


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
    add_exp_option(p)


def add_exp_option(p, *, how: str = "one", default: str = "exp2_current") -> None:
    """``--exp``: the dataset experiment(s) plan ids (and ``all``) are read from."""
    text = "the dataset experiment of plan ids (exp1, exp2_current, exp2_initial"
    if how == "one":
        p.add_argument("--exp", default=default, metavar="EXP", help=text + ") (default: %(default)s)")
    else:
        p.add_argument("--exp", default=default, metavar="EXP,...",
                       help=text + ", or exp2 for both) and of 'all'; several, comma-separated "
                                   "(default: %(default)s)")


class _FromEnvironment(str):
    """A default read from ``$ELOT_LABTOM_DATA``: errors say where it came from."""

    origin = "ELOT_LABTOM_DATA"


def add_labtom_option(p: argparse.ArgumentParser) -> None:
    """``--labtom DIR``: where the dataset's plan ids are looked up; its default,
    ``$ELOT_LABTOM_DATA``, is read here (the library reads no environment variable)."""
    env = os.environ.get("ELOT_LABTOM_DATA")
    p.add_argument("--labtom", metavar="DIR", default=_FromEnvironment(env) if env else None,
                   help="the LaBToM dataset directory, for plan ids (default: $ELOT_LABTOM_DATA, else a "
                        "labtom or shared/labtom folder in or above the working directory)")


def scenario_from_args(args):
    """The scenario the options of :func:`add_scenario_options` name."""
    from elot.cli.domain_options import domain_spec
    from elot.domains.doors_keys_gems import examples, load
    from elot.errors import ScenarioError

    plan = getattr(args, "plan", None)
    if domain_spec(args):   # a domain's scenario where only the gridworld's are drawn or simulated
        raise ScenarioError(f"{args.scenario} is a scenario of the {domain_spec(args)} domain; this command works "
                            "on the Doors-Keys-Gems gridworld only",
                            hint="domains run with elot run, repl, batch and fit (docs/domains.md)")
    if args.scenario is None:
        if plan:
            raise ScenarioError("--plan needs a PROBLEM.pddl",
                                hint="elot run problems/1_1.pddl --plan plans/exp2_current/1_1.pddl")
        return examples.default_example()
    return load.load_scenario(args.scenario, plan, exp=args.exp, root=args.labtom)


# -- the BToM settings: one declaration each, for one value, several, or a table's pick ---------

#: How a command takes a setting: one value (checked here), several comma-separated
#: (checked by the command, which names the bad one), or one setting of a table to pick.
ONE, MANY, PICK = "one", "many", "pick"

_VARIANT_HELP = "the BToM model: " + ", ".join(VARIANTS) + " (the last two the paper's ablations)"
_CONVENTIONS_HELP = "the conventions: elot (SPEC §4-5) or paper, the paper's reference pipeline (SPEC §7)"
_BETA_HELP = "the agent's rationality β = 1/τ, a positive number"
_K_HELP = "the belief size k: an initial belief puts k equal shares of probability on initial states"


def _help(text: str, how: str, default: str | None = "%(default)s", many: str = "several, comma-separated") -> str:
    if how == PICK:
        return text + " (one of the table's)"
    return text + (f"; {many}" if how == MANY else "") + (f" (default: {default})" if default else "")


#: The models of the engine's domains (elot.domains.front.GENERIC_VARIANTS) ``--model`` also takes.
DOMAIN_MODELS = ("btom", "true-belief", "no-cost")


def _model_type(text: str) -> str:
    """``--model`` of a command that also runs domains: a BToM variant, or a domain's model
    (btom, true-belief, no-cost), checked against the one that runs once it is known."""
    if text in DOMAIN_MODELS:
        return text
    return _variant_type(text)


def add_variant_option(p, *, how: str = ONE, default: str | None = DEFAULT_VARIANT, note: str = "",
                       domains: bool = False) -> None:
    """``--model``: the BToM variant (never a language model: that is ``--language-model``);
    with ``domains``, also a model of the ``--domain`` (e.g. food trucks' btom, true-belief,
    no-cost), checked once the domain is known."""
    if how == ONE:
        p.add_argument("--model", type=_model_type if domains else _variant_type, default=default,
                       metavar="MODEL",
                       help=_VARIANT_HELP + "; or true-belief-paper, a reproduction of an artifact of the "
                            "paper's evaluation code"
                            + ("; with --domain, one of the domain's models (food trucks: btom, true-belief, "
                               "no-cost; full means the domain's first)" if domains else "")
                            + " (default: %(default)s)")
    else:
        p.add_argument("--model", default=default, metavar="MODEL" if how == PICK else "MODEL,...",
                       help=_help(_VARIANT_HELP, how, many="several, comma-separated" + note))


def add_conventions_option(p, *, how: str = ONE) -> None:
    """``--conventions elot|paper``."""
    if how == ONE:
        p.add_argument("--conventions", type=_conventions_type, default="elot", metavar="{elot,paper}",
                       help=_help(_CONVENTIONS_HELP, how))
    else:
        p.add_argument("--conventions", default=None if how == PICK else "elot",
                       metavar="{elot,paper}" if how == PICK else "C,...",
                       help=_help(_CONVENTIONS_HELP, how, many="or both, comma-separated"))


def add_beta_option(p, *, how: str = ONE, default: float | None = None, shown: str = "2^1.5 ≈ 2.83") -> None:
    """``--beta``: β; ``shown`` is the default as the help says it. Several values may be
    a list (0.5,1,2) or a range (0.5:4:x1.41421356)."""
    if how == ONE:
        p.add_argument("--beta", type=number("beta"), default=default, metavar="BETA",
                       help=_help(_BETA_HELP, how, shown))
    else:
        p.add_argument("--beta", type=number("beta") if how == PICK else None, default=None,
                       metavar="BETA" if how == PICK else "B,...",
                       help=_help(_BETA_HELP, how, shown, many="several as 0.5,1,2 or a range 0.5:4:x1.41421356"))


def add_k_option(p, *, how: str = ONE) -> None:
    """``--k``: the belief size (not particles: those are ``--particles``)."""
    if how == MANY:
        p.add_argument("--k", default=str(DEFAULT_K), metavar="K,...", help=_help(_K_HELP, how))
    else:
        p.add_argument("--k", type=number("k"), default=DEFAULT_K if how == ONE else None, metavar="K",
                       help=_help(_K_HELP + (", a whole number ≥ 1" if how == ONE else ""), how))


def add_model_options(p: argparse.ArgumentParser, *, domains: bool = False) -> None:
    """``--model``, ``--beta``, ``--k``, ``--backend``: the BToM inference to run (with
    ``domains``, ``--model`` also names a ``--domain``'s models)."""
    add_variant_option(p, domains=domains)
    add_conventions_option(p)
    add_beta_option(p, shown="the --thresholds file's, else 2^1.5 ≈ 2.83")
    add_k_option(p)
    p.add_argument("--max-hypotheses", type=number("max-hypotheses"), default=None, metavar="N",
                   help="refuse a hypothesis space larger than N (default: 2,000,000, about 1.2 GB)")
    p.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                   help="refuse exact inference whose estimated memory is over SIZE (512M, 2G; default: half "
                        "the memory available); --inference auto runs particles instead")
    p.add_argument("--backend", choices=("core", "reference"), default="core",
                   help="the compiled core, or the slow plain-Python reference (default: %(default)s)")
    add_inference_options(p)


def add_inference_options(p: argparse.ArgumentParser) -> None:
    """``--inference exact|smc|auto``, ``--particles N``, ``--seed S``: how to infer."""
    add_inference_method_option(p)
    add_particles_option(p)
    add_seed_option(p, of="particle inference")


_INFERENCE_HELP = ("exact enumeration, particle inference (smc, sequential Monte Carlo), or auto: exact "
                   "when the hypothesis space fits its limits ({limits}), else particles (the run says which "
                   "and why)")


def add_inference_method_option(p, *, how: str = ONE) -> None:
    """``--inference exact|smc|auto``: how to infer."""
    if how == ONE:
        p.add_argument("--inference", type=_inference_type, default="exact", metavar="{exact,smc,auto}",
                       help=_help(_INFERENCE_HELP.format(limits="--max-hypotheses, --max-memory"), how))
    else:
        p.add_argument("--inference", default="exact", metavar="METHOD,...",
                       help=_help(_INFERENCE_HELP.format(limits=f"{MAX_HYPOTHESES:,} hypotheses and half "
                                                         "the memory available"), how, many="several, comma-separated; particle runs add the "
                                  "columns inference, particles, seed, ess and L_se"))


def add_particles_option(p) -> None:
    """``--particles N``: the particles of particle inference (not the belief size: that is ``--k``)."""
    p.add_argument("--particles", type=number("particles"), default=DEFAULT_PARTICLES, metavar="N",
                   help="the particles of particle inference (--inference smc or auto), a whole number ≥ 1 "
                        "(default: %(default)s)")


def add_seed_option(p, *, of: str, default: int | None = None) -> None:
    """``--seed S``: the seed of ``of`` (what is random in this command)."""
    p.add_argument("--seed", type=number("seed"), default=default, metavar="S",
                   help=f"the random seed of {of}, so that a run can be repeated (default: "
                        + ("fresh, and said with the results" if default is None else "%(default)s") + ")")


def inference_config(args):
    """The :class:`~elot.domains.doors_keys_gems.inference.InferenceConfig` that :func:`add_model_options` and
    :func:`add_prior_options` (where the command has them) ask for, built once and passed
    whole. Give it the arguments :func:`with_beta` returns, which settle ``--beta``."""
    from elot.domains.doors_keys_gems.inference import InferenceConfig

    config = InferenceConfig(variant=args.model, beta=args.beta, k=args.k, conventions=args.conventions,
                             method=args.inference, particles=args.particles, seed=args.seed,
                             prior=prior_of(args), backend=args.backend)
    if args.max_hypotheses is not None:
        config = config.replace(max_hypotheses=args.max_hypotheses)
    if getattr(args, "max_memory", None) is not None:
        config = config.replace(max_bytes=args.max_memory)
    return config


def add_prior_options(p: argparse.ArgumentParser) -> None:
    """``--hidden-keys N`` and ``--hidden-colours C,...``: the family of initial states
    (:class:`elot.domains.doors_keys_gems.hypotheses.Prior`); read back with :func:`prior_of`."""
    p.add_argument("--hidden-keys", type=number("hidden-keys"), default=None, metavar="N",
                   help="at most N hidden keys per initial state (default: the dataset's 2, or "
                        "as many as the doors on the way to the goals need)")
    p.add_argument("--hidden-colours", "--hidden-colors", default=None, metavar="C,...",
                   help="hidden keys may be of these colours only, 0 to N of each (default: the "
                        "colours, and counts, optimal plans for the goals pick up; SPEC §5)")


def prior_of(args):
    """The :class:`~elot.domains.doors_keys_gems.hypotheses.Prior` that :func:`add_prior_options` asked for."""
    from elot.domains.doors_keys_gems.hypotheses import Prior

    colours = getattr(args, "hidden_colours", None)
    return Prior(getattr(args, "hidden_keys", None),
                 None if colours is None else tuple(c.strip() for c in colours.split(",") if c.strip()))


def thresholds_and_beta(args):
    """For a command with ``--thresholds`` and ``--beta`` (default None): Θ from the
    option (defaults when absent), and β: ``--beta`` when given, else the file's, else
    :data:`elot.settings.DEFAULT_BETA`. ``args`` is read, not changed."""
    from elot.lang.thresholds import Thresholds
    from elot.study.params import Params, thresholds_option

    params = thresholds_option(args.thresholds) if getattr(args, "thresholds", None) else Params(Thresholds())
    beta = getattr(args, "beta", None)
    if beta is None:
        beta = params.beta if params.beta is not None else DEFAULT_BETA
    return params.thresholds, beta


def with_beta(args: argparse.Namespace, beta: float) -> argparse.Namespace:
    """A copy of ``args`` with ``beta`` (the caller's namespace is left as parsed)."""
    return argparse.Namespace(**{**vars(args), "beta": beta})


def add_jobs_option(p, *, default: int = 1) -> None:
    """``--jobs/-j N``: local worker processes."""
    p.add_argument("--jobs", "-j", type=number("jobs"), default=default, metavar="N",
                   help="local worker processes (default: %(default)s)")


# -- translation ----------------------------------------------------------------------------


def add_translator_options(p: argparse.ArgumentParser) -> None:
    """``--translator auto|offline|llm``, ``--language-model PATH`` and ``--verbose``: how
    English is translated. ``--backend`` and ``--model``, their old spellings here, are
    refused with the new name (they mean the BToM backend and variant elsewhere)."""
    from elot.translate import TRANSLATORS

    p.add_argument("--translator", choices=TRANSLATORS, default="auto",
                   help="auto (default): the offline parser, and the language model (when one is configured) "
                        "for the sentences it refuses; offline; or llm")
    p.add_argument("--language-model", metavar="PATH",
                   help="a local GGUF file or transformers directory (default: $ELOT_MODEL; elot models fetches one)")
    p.add_argument("--verbose", action="store_true", help="show the language model's and its libraries' log")
    add_renamed_option(p, "--backend", "--translator", "elsewhere --backend is the BToM backend, core or reference")
    add_renamed_option(p, "--model", "--language-model", "elsewhere --model is the BToM model")


def add_renamed_option(p: argparse.ArgumentParser, old: str, new: str, why: str) -> None:
    """Refuse ``old`` (hidden from the help) with a usage error naming ``new``."""

    class Renamed(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            parser.error(f"{old} is now {new}: write {new} {values} ({why})")

    p.add_argument(old, action=Renamed, help=argparse.SUPPRESS)


def language_model(path: str | None = None, *, verbose: bool = False):
    """The local language model a command translates with, as an
    :class:`elot.translate.LanguageModel`: ``path`` (``--language-model``), else
    ``$ELOT_MODEL``, run with ``$ELOT_LLM_THREADS`` threads and its prompt cache under
    ``$ELOT_CACHE_DIR``; None when none is configured. The environment is read here, by
    the command line, and nowhere in the library."""
    from elot.translate import LanguageModel

    path = path or os.environ.get("ELOT_MODEL")
    if not path:
        return None
    threads = os.environ.get("ELOT_LLM_THREADS", "")
    return LanguageModel(path, threads=int(threads) if threads.isdigit() and int(threads) > 0 else None,
                         cache_dir=os.environ.get("ELOT_CACHE_DIR") or None, verbose=verbose)


def add_formula_options(p: argparse.ArgumentParser) -> None:
    """``--bind-free`` and ``--thresholds``: how formulas are read and judged."""
    p.add_argument("--bind-free", action="store_true",
                   help="bind free variables existentially at the top (as the reference does)")
    add_thresholds_option(p)


_THRESHOLDS_HELP = "thresholds (and β) from elot fit's JSON file, or name=value,... overrides"


def add_thresholds_option(p, *, how: str = ONE) -> None:
    """``--thresholds``: a parameter file or overrides (repeatable: a grid axis), or the
    thresholds column's value to pick."""
    if how == ONE:
        p.add_argument("--thresholds", metavar="FILE", help=_THRESHOLDS_HELP)
    elif how == MANY:
        p.add_argument("--thresholds", action="append", default=[], metavar="FILE",
                       help=_THRESHOLDS_HELP + "; repeatable, one grid axis")
    else:
        p.add_argument("--thresholds", metavar="NAME",
                       help=_THRESHOLDS_HELP + ", named as in the table's thresholds column (one of the table's)")


class DefaultMode(str):
    """``--mode``'s default when it was not given (equal to ``current``): a domain run,
    which infers the initial belief, then judges statements about it."""


def mode_given(args) -> bool:
    """Whether ``--mode`` (or ``--initial``) was given on the command line."""
    return not isinstance(getattr(args, "mode", None), DefaultMode)


def add_mode_option(p: argparse.ArgumentParser) -> None:
    """``--mode current|initial`` (and ``--initial``, its older spelling): the belief a
    statement that does not say is about."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--mode", choices=MODES, default=DefaultMode(CURRENT),
                       help="the belief statements that do not say are about: the agent's current "
                            "or initial belief (default: %(default)s)")
    group.add_argument("--initial", dest="mode", action="store_const", const="initial",
                       help="the same as --mode initial")


_STATEMENT_HELP = "an ELoT formula (or English sentence) to score; repeatable"
_STATEMENTS_HELP = "statements to score, one per line, optionally prefixed by 'initial:' or 'current:' (# comments)"


def add_statement_options(p: argparse.ArgumentParser, *, mode: bool = True) -> None:
    """``--statement/-s F`` (repeatable), ``--statements FILE`` and (with ``mode``) the mode."""
    p.add_argument("--statement", "-s", action="append", default=[], metavar="F", help=_STATEMENT_HELP)
    p.add_argument("--statements", metavar="FILE", help=_STATEMENTS_HELP)
    if mode:
        add_mode_option(p)


def add_statements_file_option(p: argparse.ArgumentParser, *, how: str = ONE, required: bool = False) -> None:
    """``--statements FILE`` alone: required (elot design's candidates), or repeatable (``how=MANY``)."""
    if how == MANY:
        p.add_argument("--statements", action="append", default=[], metavar="FILE",
                       help=_STATEMENTS_HELP + "; repeatable")
    else:
        p.add_argument("--statements", required=required, metavar="FILE", help=_STATEMENTS_HELP)


def add_batch_statement_options(p: argparse.ArgumentParser) -> None:
    """``--statement/-s F`` and ``--statements FILE``, both repeatable, for every scenario of
    a batch (default: each scenario's own)."""
    p.add_argument("--statement", "-s", action="append", default=[], metavar="F",
                   help=_STATEMENT_HELP + " (in every scenario; default: each scenario's own)")
    add_statements_file_option(p, how=MANY)


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


def add_force_option(p: argparse.ArgumentParser, what: str = "file", more: str = "") -> None:
    p.add_argument("--force", action="store_true",
                   help=f"replace an existing output {what} even if it does not look like one elot wrote{more}")
