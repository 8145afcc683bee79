"""One vocabulary of options for every subcommand (``run``, ``plot``, ``repl``, ``map``, ...).

Each ``add_*`` function adds one group of options with the same spelling, default, help
and validation wherever it is used; a new option of a group goes here once. Numbers are
checked by :data:`elot.settings.NUMBERS` (finite, in range) both on the command line
(argparse then prints ``elot run: error: argument --k: ...`` and exits 2) and in the REPL's
``:set`` (:func:`elot.settings.check_number`), so the two accept the same values.

One word, one meaning: ``--model`` is always one of the domain's models (its front says
which, :meth:`elot.domains.front.Front.model_name`), ``--backend`` the compiled core or the plain-Python
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
import contextlib
import os
import sys

from elot.errors import ElotError
from typing import Sequence

from elot.settings import (CURRENT, DEFAULT_BETA, DEFAULT_ESS_THRESHOLD, DEFAULT_K, DEFAULT_MOVES, DEFAULT_PARTICLES,
                           MAX_HYPOTHESES, MODES, VARIANTS, check_conventions, check_number)


def output_file(text: str) -> str:
    """An argparse ``type=`` for an output file: an empty name is refused, not ignored."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an output file name cannot be empty (- is standard output)")
    return text


def checked_type(name: str, check):
    """An argparse ``type=`` for the option ``name`` that reads its text by elot's
    ``check(text)``: the check's :class:`ElotError` is argparse's error, with its hint."""

    def parse(text: str):
        try:
            return check(text)
        except ElotError as error:
            raise argparse.ArgumentTypeError(error.message + (f" ({error.hint})" if error.hint else "")) from None

    parse.__name__ = name   # argparse names the type in some messages
    return parse


def number(name: str):
    """An argparse ``type=`` for the number ``name`` (see :data:`elot.settings.NUMBERS`)."""
    return checked_type(name, lambda text: check_number(name, text))


def whole(name: str, least: int, most: int | None = None, unit: str = ""):
    """An argparse ``type=`` for the option ``name``: a whole number from ``least`` (to
    ``most``, when given); ``unit`` says what it counts (pixels)."""
    of, units = (f" of {unit}", f" {unit}") if unit else ("", "")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number{of}, not {text!r}") from None
        if most is None and value < least:
            raise argparse.ArgumentTypeError(f"{name} must be {least} or more, not {value}")
        if most is not None and not least <= value <= most:
            raise argparse.ArgumentTypeError(f"{name} must be between {least} and {most}{units}, not {value}")
        return value

    parse.__name__ = name
    return parse


def _method(text: str) -> str:
    from elot.engine.settings import check_method     # the engine is imported when the option is given

    return check_method(text)


_conventions_type = checked_type("conventions", check_conventions)
_inference_type = checked_type("inference", _method)


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


# -- option groups ----------------------------------------------------------------------------


def add_scenario_options(p: argparse.ArgumentParser, *, plan: bool = True) -> None:
    """SCENARIO (a scenario of the domain: in the gridworld a .scn file, a dataset problem or
    plan .pddl, an example name or a plan id; a .trucks file or foodtrucks:ID; a case file),
    the domain (:func:`add_domain_options`), and the gridworld's ``--plan`` (the plan of a
    problem file) and ``--exp``."""
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="a scenario: a .scn file, a dataset PROBLEM.pddl (with --plan) or plan .pddl, a dataset "
                        "plan id such as 1_1, or an example name (default: the built-in example); a .trucks file "
                        "or foodtrucks:ID; a domain's case file (with --domain); with --domain DOMAIN.pddl, a "
                        "problem (with --plan), a plan naming its problem, or a study's stimulus id (C_S)")
    if plan:
        p.add_argument("--plan", metavar="PLAN", help="the plan of a dataset problem: a .pddl file or a plan id; "
                                                      "of a PDDL domain's problem: its plan file")
    add_domain_options(p)
    add_exp_option(p)


def add_exp_option(p, *, how: str = "one", default: str = "exp2_current") -> None:
    """``--exp``: the gridworld dataset's experiment(s) plan ids (and ``all``) are read
    from; ``default`` is this command's (:func:`front_of` gives it to the gridworld, and
    refuses ``--exp`` given to another domain)."""
    text = "the gridworld: the dataset experiment of plan ids (exp1, exp2_current, exp2_initial"
    p.set_defaults(exp_default=default)
    if how == "one":
        p.add_argument("--exp", default=None, metavar="EXP", help=text + f") (default: {default})")
    else:
        p.add_argument("--exp", default=None, metavar="EXP,...",
                       help=text + f", or exp2 for both) and of 'all'; several, comma-separated (default: {default})")


# -- the BToM settings: one declaration each, for one value, several, or a table's pick ---------

#: How a command takes a setting: one value (checked here), several comma-separated
#: (checked by the command, which names the bad one), or one setting of a table to pick.
ONE, MANY, PICK = "one", "many", "pick"

_VARIANT_HELP = ("the domain's model: the gridworld's " + ", ".join(VARIANTS) + " (the last two the paper's "
                 "ablations; and true-belief-paper, a reproduction of an artifact of the paper's evaluation code); "
                 "a tabular domain's btom, true-belief, no-cost; a PDDL domain's boltzmann, boltzmann-exact, "
                 "boltzmann-ff, lapse, heuristic, horizon, partial-plans, goal-noise (full means a domain's first)")
_CONVENTIONS_HELP = "the conventions: elot (SPEC §4-5) or paper, the paper's reference pipeline (SPEC §7)"
_BETA_HELP = "the agent's rationality β = 1/τ, a positive number"
_K_HELP = "the belief size k: an initial belief puts k equal shares of probability on initial states"


def _help(text: str, how: str, default: str | None = "%(default)s", many: str = "several, comma-separated") -> str:
    if how == PICK:
        return text + " (one of the table's)"
    return text + (f"; {many}" if how == MANY else "") + (f" (default: {default})" if default else "")


def add_variant_option(p, *, how: str = MANY, default: str | None = None, note: str = "") -> None:
    """``--model``: the domain's models, several (``MANY``) or one of a table's (``PICK``);
    never a language model (that is ``--language-model``)."""
    p.add_argument("--model", default=default, metavar="MODEL" if how == PICK else "MODEL,...",
                   help=_help(_VARIANT_HELP, how, many="several, comma-separated" + note))


def add_conventions_option(p) -> None:
    """``--conventions elot|paper``, one setting of a table to pick (a run's own is one of
    :func:`add_model_parameter_options`, a batch's several too)."""
    p.add_argument("--conventions", default=None, metavar="{elot,paper}", help=_help(_CONVENTIONS_HELP, PICK))


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


def add_k_option(p) -> None:
    """``--k``, the belief size (not particles: those are ``--particles``), one setting of a
    table to pick (a run's own is one of :func:`add_model_parameter_options`, a batch's
    several too)."""
    p.add_argument("--k", type=number("k"), default=None, metavar="K", help=_help(_K_HELP, PICK))


def add_domain_options(p: argparse.ArgumentParser) -> None:
    """``--domain NAME|FILE`` and ``--data DIR``: the domain a command runs in and where its
    data are (the LaBToM dataset, the food-truck experiment); ``--labtom`` is ``--data``'s
    name in the gridworld, where it came first."""
    p.add_argument("--domain", metavar="DOMAIN",
                   help="the domain: doors-keys-gems (the default), foodtrucks (implied by a .trucks file or "
                        "foodtrucks:ID), a PDDL domain file (domain.pddl, or a folder holding one; docs/pddl.md), "
                        "a Python file defining a domain (my_domain.py), or a name under the elot.domains entry "
                        "points (docs/domains.md)")
    p.add_argument("--data", "--labtom", dest="data", metavar="DIR", default=None,
                   help="the domain's data folder, for scenario ids: the LaBToM dataset (default "
                        "$ELOT_LABTOM_DATA, else a labtom or shared/labtom folder in or above the working "
                        "directory), the food-truck experiment (default $ELOT_BAKER2017_DATA, else "
                        "shared/baker2017) or a PDDL study folder (default: the domain file's, when it is one)")
    p.add_argument("--goal-prior", metavar="NAME=W,...", default=None,
                   help="a PDDL domain's prior over its candidate goals: a positive weight for each named "
                        "(gem1=2,gem2=1), the others 1 (default: uniform, or the weights of goals.json)")


#: The models' settings besides β, as options: (option, attribute, what it is). A domain
#: takes those its front declares (``Front.parameters``); any other given is refused.
MODEL_OPTIONS = (("--k", "k"), ("--conventions", "conventions"), ("--hidden-keys", "hidden_keys"),
                 ("--hidden-colours", "hidden_colours"), ("--planner", "planner"))
#: The engine's planners (``elot.engine.PLANNER_NAMES``, the same tuple: a test holds that),
#: named here so that building the parser does not import the engine and NumPy.
PLANNERS = ("qmdp", "belief-vi")


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--beta`` and the models' own settings (``--k``, ``--conventions``,
    ``--hidden-keys``, ``--hidden-colours``: the gridworld's; ``--planner``: a tabular
    domain's), the budget (``--max-hypotheses``, ``--max-memory``) and how to infer
    (:func:`add_inference_options`): one run's settings. Each default is the domain's,
    filled in once the domain is known (:func:`settings_of`)."""
    p.add_argument("--model", default=None, metavar="MODEL", help=_VARIANT_HELP + " (default: the first)")
    p.add_argument("--beta", type=number("beta"), default=None, metavar="BETA",
                   help=_BETA_HELP + " (default: the --thresholds file's, else the domain's: 2^1.5 ≈ 2.83 in the "
                                     "gridworld, 2.5 for food trucks)")
    add_model_parameter_options(p)
    p.add_argument("--max-hypotheses", type=number("max-hypotheses"), default=None, metavar="N",
                   help="refuse a hypothesis space larger than N (the gridworld; default: 2,000,000, about 1.2 GB)")
    p.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                   help="refuse exact inference whose estimated memory is over SIZE (512M, 2G; default: half "
                        "the memory available); --inference auto runs particles instead")
    add_inference_options(p)


def add_model_parameter_options(p: argparse.ArgumentParser, *, how: str = ONE, param_grid: bool = False) -> None:
    """The models' own settings, each for the domain that takes it: ``--k``,
    ``--conventions``, ``--hidden-keys``, ``--hidden-colours`` (the gridworld's),
    ``--planner`` (a tabular domain's) and ``--param NAME=VALUE`` (any setting a domain's
    front declares, by its name: a PDDL domain's ``epsilon``, ``weight``, ``horizon``,
    ``gamma``); with ``how=MANY``, k, conventions and each ``--param`` take several values,
    comma-separated (a batch's grid); with ``param_grid``, ``--param`` alone (a fit's grid)."""
    several = how == MANY or param_grid
    if how == MANY:
        p.add_argument("--k", default=None, metavar="K,...",
                       help=_K_HELP + f" (the gridworld); several, comma-separated (default: {DEFAULT_K})")
        p.add_argument("--conventions", default=None, metavar="C,...",
                       help=_CONVENTIONS_HELP + " (the gridworld); or both, comma-separated (default: elot)")
    else:
        p.add_argument("--k", type=number("k"), default=None, metavar="K",
                       help=_K_HELP + f", a whole number ≥ 1 (the gridworld; default: {DEFAULT_K})")
        p.add_argument("--conventions", type=_conventions_type, default=None, metavar="{elot,paper}",
                       help=_CONVENTIONS_HELP + " (the gridworld; default: elot)")
    add_prior_options(p)
    p.add_argument("--planner", choices=PLANNERS, default=None,
                   help="a tabular domain's planner (default: the model's, else the domain's)")
    p.add_argument("--param", action="append", type=param_pair, default=[], metavar="NAME=VALUE" + (
                   ",..." if several else ""),
                   help="a setting of the domain's models by its name (a PDDL domain's epsilon, weight, horizon, "
                        "gamma; docs/pddl.md); repeatable" + ("; several values, comma-separated" if several
                                                              else "") + " (default: the model's own)")


def param_pair(text: str) -> tuple[str, str]:
    """``--param``'s ``NAME=VALUE`` (an argparse type): the name as the domain's settings
    spell it (``-`` as ``_``), and the value as given."""
    name, sep, value = text.partition("=")
    name = name.strip().lower().replace("-", "_")
    if not sep or not name or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, such as epsilon=0.05, not {text!r}")
    return name, value.strip()


def add_grid_options(p: argparse.ArgumentParser) -> None:
    """A batch's grid of settings: ``--model``, ``--beta``, ``--k`` and ``--conventions``
    take several values; the other model settings one; and the budget (``--max-memory``)."""
    add_variant_option(p, how=MANY, note="; default: the domain's first")
    add_beta_option(p, how=MANY, shown="the --thresholds file's, else the domain's: 2^1.5 ≈ 2.83 in the gridworld, "
                                       "2.5 for food trucks")
    add_model_parameter_options(p, how=MANY)
    p.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                   help="refuse exact inference whose estimated memory is over SIZE (512M, 2G; default: half "
                        "the memory available); --inference auto runs particles instead")


def refuse_untaken(args, front) -> None:
    """A model setting (``--k``, ``--planner``, ``--param NAME=...``, ...) given that the
    domain's models do not take: refused, whatever its value."""
    taken = {p.name for p in front.parameters}
    for option, attr in MODEL_OPTIONS:
        if getattr(args, attr, None) is not None and attr not in taken:
            raise front.refusal(option)
    for name, _ in getattr(args, "param", None) or ():
        if name not in taken:
            raise front.refusal(f"--param {name}")


def given_params(args, front) -> dict[str, str]:
    """``--param``'s settings by name (each at most once, and not also given by its own
    option: ``--k 3 --param k=4`` is refused)."""
    out: dict[str, str] = {}
    own = {attr: option for option, attr in MODEL_OPTIONS}
    for name, value in getattr(args, "param", None) or ():
        if name in out:
            raise ElotError(f"--param {name} is given twice", hint="give each setting once")
        if getattr(args, name, None) is not None and name in own:
            raise ElotError(f"{own[name]} and --param {name} both give {name}", hint="give it once")
        out[name] = value
    return out


def params_of(args, front, *, many: bool = False) -> dict:
    """The models' settings the arguments give, by the domain's names (``many``: each a
    list of the values given, comma-separated where the option takes several: k,
    conventions and any ``--param`` of a setting whose one value is no list)."""
    refuse_untaken(args, front)
    extra = given_params(args, front)
    out = {}
    for parameter in front.parameters:
        value = getattr(args, parameter.name, None)
        param = parameter.name in extra
        if param:
            value = extra[parameter.name]
        if many:
            several = isinstance(value, str) and (parameter.name in ("k", "conventions")
                                                  or (param and not parameter.listed))
            out[parameter.name] = tuple(v.strip() for v in value.split(",") if v.strip()) if several else (value,)
        else:
            out[parameter.name] = value
    return out


def add_inference_options(p: argparse.ArgumentParser) -> None:
    """``--inference exact|smc|auto``, ``--particles N``, ``--seed S``, ``--ess-threshold``,
    ``--moves`` and ``--backend``: how to infer."""
    add_inference_method_option(p)
    add_particles_option(p)
    add_seed_option(p, of="particle inference")
    add_filter_options(p)
    p.add_argument("--backend", choices=("core", "reference"), default="core",
                   help="the compiled core, or the slow plain-Python reference (default: %(default)s)")


def add_filter_options(p: argparse.ArgumentParser) -> None:
    """``--ess-threshold F`` and ``--moves N``: the particle filter's knobs."""
    p.add_argument("--ess-threshold", type=number("ess-threshold"), default=None, metavar="F",
                   help="particle inference resamples when the effective sample size falls below F times the "
                        f"particles, a number between 0 and 1 (default: {DEFAULT_ESS_THRESHOLD})")
    p.add_argument("--moves", type=number("moves"), default=None, metavar="N",
                   help="rejuvenation sweeps (Metropolis-Hastings moves) after each resampling of particle "
                        f"inference (default: {DEFAULT_MOVES})")


class FromEnvironment(str):
    """A default read from an environment variable (``origin``): errors say where it came from."""

    origin = "the environment"

    @classmethod
    def of(cls, value: str, variable: str) -> "FromEnvironment":
        made = cls(value)
        made.origin = variable
        return made

    def __reduce__(self):          # to a worker process as what it is, its origin kept
        return (FromEnvironment.of, (str(self), self.origin))


def front_of(args, scenarios: Sequence[str] | None = None):
    """The front of the domain the arguments name (``--domain``, else the one the
    scenarios claim, else the gridworld), reading its scenarios from ``--data`` (else the
    domain's environment variable: the command line reads the environment, the library
    does not), with the gridworld's ``--exp`` and ``--plan``."""
    from elot.domains.registry import front_for

    names = scenarios if scenarios is not None else [getattr(args, "scenario", None) or ""]
    reading = {k: getattr(args, k) for k in ("exp", "plan", "goal_prior") if getattr(args, k, None) is not None}
    default = {"exp": args.exp_default} if getattr(args, "exp_default", None) else {}
    front = front_for(getattr(args, "domain", None), scenarios=names, **{**default, **reading})
    for name in reading:
        if name not in front.reading:       # the gridworld dataset's reading, given to another domain
            raise front.refusal(name)
    env = os.environ.get(front.data_variable) if front.data_variable else None
    front.data = getattr(args, "data", None) or (FromEnvironment.of(env, front.data_variable) if env else None)
    return front


def signature_of(args):
    """The signature (with the domain's words) ``--domain`` and ``--scenario`` name, as
    every other command reads them (a PDDL problem needs no plan); None without either:
    the gridworld's default, read without loading NumPy."""
    if not getattr(args, "scenario", None) and not getattr(args, "domain", None):
        return None
    front = front_of(args, scenarios=[args.scenario or ""])
    return front.signature_for(args.scenario)


def settings_of(args, front, *, beta: float | None = None):
    """The run's :class:`~elot.engine.settings.Settings` from the arguments, checked by the
    front once: a model setting (``--k``, ``--planner``, ...) the domain's models do not
    take is refused whatever its value, as are the particle filter's settings on an exact
    run. ``beta``: β settled by the caller (``--beta``, else the ``--thresholds`` file's)."""
    from elot.engine.settings import Budget

    refuse_untaken(args, front)
    if getattr(args, "max_hypotheses", None) is not None and "max_hypotheses" not in front.budget_settings:
        raise front.refusal("--max-hypotheses")
    method = getattr(args, "inference", None) or "exact"
    refuse_unused_sampling(args, [method])
    inference = inference_of(args, method)
    budget = Budget(max_bytes=getattr(args, "max_memory", None), max_hypotheses=getattr(args, "max_hypotheses", None))
    beta = getattr(args, "beta", None) if beta is None else beta
    try:
        front.model_name(getattr(args, "model", None))
    except ElotError as error:
        raise ElotError(f"--model: {error.message}", hint=error.hint) from None
    return front.settings(getattr(args, "model", None), beta, inference, budget, **params_of(args, front))


def inference_of(args, method: str = "exact"):
    """How to infer, by ``method``: the particle filter's settings the arguments give
    (``--particles``, ``--seed``, ``--ess-threshold``, ``--moves``, ``--backend``), each
    its default where not given (a batch gives every particle inference of its grid these)."""
    from elot.engine.settings import InferenceSettings

    return InferenceSettings(
        method=method, particles=getattr(args, "particles", None) or DEFAULT_PARTICLES,
        seed=getattr(args, "seed", None),
        ess_threshold=DEFAULT_ESS_THRESHOLD if getattr(args, "ess_threshold", None) is None else args.ess_threshold,
        moves=DEFAULT_MOVES if getattr(args, "moves", None) is None else args.moves,
        backend=getattr(args, "backend", None) or "core")


#: Settings of particle inference, and what each is when not given.
SAMPLING = (("--particles", "particles", (None, DEFAULT_PARTICLES)), ("--seed", "seed", (None,)),
            ("--ess-threshold", "ess_threshold", (None,)), ("--moves", "moves", (None,)))


def refuse_unused_sampling(args, methods) -> None:
    """A particle filter's setting (``--particles``, ``--seed``, ``--ess-threshold``,
    ``--moves``) given to a run whose ``methods`` are all exact: an error naming the option
    (it would change nothing)."""
    from elot.engine.settings import samples

    if any(samples(method) for method in methods):
        return
    for option, attr, unset in SAMPLING:
        if getattr(args, attr, None) not in unset:
            raise ElotError(f"{option} is a setting of particle inference, and this run is exact",
                            hint="add --inference smc (or auto), or leave it out")


_INFERENCE_HELP = ("exact enumeration, particle inference (smc: sequential Monte Carlo, with resampling and "
                   "rejuvenation), or auto: exact when the hypothesis space fits its limits ({limits}), else "
                   "particles (the run says which and why)")


def add_inference_method_option(p, *, how: str = ONE) -> None:
    """``--inference exact|smc|auto``: how to infer."""
    if how == ONE:
        p.add_argument("--inference", type=_inference_type, default="exact", metavar="{exact,smc,auto}",
                       help=_help(_INFERENCE_HELP.format(limits="--max-hypotheses, --max-memory"), how))
    else:
        p.add_argument("--inference", default="exact", metavar="METHOD,...",
                       help=_help(_INFERENCE_HELP.format(limits=f"{MAX_HYPOTHESES:,} hypotheses and half "
                                                         "the memory available"), how, many="several, comma-separated; particle runs add the "
                                  "columns inference, particles, seed, ess_threshold, moves, ess and L_se"))


def add_particles_option(p) -> None:
    """``--particles N``: the particles of particle inference (not the belief size: that is ``--k``)."""
    p.add_argument("--particles", type=number("particles"), default=None, metavar="N",
                   help="the particles of particle inference (--inference smc or auto), a whole number ≥ 1 "
                        f"(default: {DEFAULT_PARTICLES})")


def add_seed_option(p, *, of: str, default: int | None = None) -> None:
    """``--seed S``: the seed of ``of`` (what is random in this command)."""
    p.add_argument("--seed", type=number("seed"), default=default, metavar="S",
                   help=f"the random seed of {of}, so that a run can be repeated (default: "
                        + ("fresh, and said with the results" if default is None else "%(default)s") + ")")


def add_prior_options(p: argparse.ArgumentParser) -> None:
    """``--hidden-keys N`` and ``--hidden-colours C,...``: the gridworld's family of initial
    states (:class:`elot.domains.doors_keys_gems.hypotheses.Prior`)."""
    p.add_argument("--hidden-keys", type=number("hidden-keys"), default=None, metavar="N",
                   help="at most N hidden keys per initial state (the gridworld; default: the dataset's 2, or "
                        "as many as the doors on the way to the goals need)")
    p.add_argument("--hidden-colours", "--hidden-colors", default=None, metavar="C,...",
                   help="hidden keys may be of these colours only, 0 to N of each (the gridworld; default: the "
                        "colours, and counts, optimal plans for the goals pick up; SPEC §5)")


def thresholds_and_beta(args, front=None):
    """For a command with ``--thresholds`` and ``--beta`` (default None): Θ from the
    option (defaults when absent), and β: ``--beta`` when given, else the file's, else the
    domain's (with ``front``: None, for :func:`settings_of` to take the model's own; without:
    :data:`elot.settings.DEFAULT_BETA`). ``args`` is read, not changed."""
    _, thresholds, beta = _thresholds_and_beta(args, front)
    return thresholds, beta


def fitted(args, front):
    """``(args, thresholds, settings)`` for a command that runs a domain's model: Θ and β
    as :func:`thresholds_and_beta` gives them, ``args`` with the model and settings of a
    ``--thresholds`` file ``elot fit`` wrote (its "model" and "params": what its Θ and β
    were fitted for) where ``--model`` and ``--param`` give none (a copy, ``args`` is left
    as parsed), and the run's :func:`settings_of` those, at β. The file's settings are its
    model's: they apply when that model runs. A model the domain does not have is refused
    naming the file."""
    params, thresholds, beta = _thresholds_and_beta(args, front)
    changes = {}
    given = getattr(args, "model", None)
    if params.model is not None and given is None:
        try:
            front.model_name(params.model)
        except ElotError as error:
            raise ElotError(f"--thresholds {args.thresholds}: its model {params.model!r} (the one elot fit fitted) "
                            f"is not a model of this domain: {error.message}",
                            hint="give --model, or a --thresholds file fitted in this domain") from None
        changes["model"] = params.model
    fitted_runs = given is None or (params.model is not None and _same_model(front, given, params.model))
    if params.settings and hasattr(args, "param") and not args.param and fitted_runs:
        changes["param"] = [(name, str(value)) for name, value in params.settings.items()]
    args = argparse.Namespace(**{**vars(args), **changes}) if changes else args
    return args, thresholds, settings_of(args, front, beta=beta)


def _same_model(front, given: str, fitted_model: str) -> bool:
    """Whether ``--model given`` names the fitted model (an unknown name is not: settings_of
    refuses it, naming the option)."""
    try:
        return front.model_name(given) == front.model_name(fitted_model)
    except ElotError:
        return False


def _thresholds_and_beta(args, front):
    from elot.lang.thresholds import Thresholds
    from elot.study.params import Params, thresholds_option

    params = thresholds_option(args.thresholds) if getattr(args, "thresholds", None) else Params(Thresholds())
    beta = getattr(args, "beta", None)
    if beta is None:
        beta = params.beta if params.beta is not None else (None if front is not None else DEFAULT_BETA)
    return params, params.thresholds, beta


def with_beta(args: argparse.Namespace, beta: float) -> argparse.Namespace:
    """A copy of ``args`` with ``beta`` (the caller's namespace is left as parsed)."""
    return argparse.Namespace(**{**vars(args), "beta": beta})


@contextlib.contextmanager
def progress_bar(label: str):
    """A ``progress(done, total)`` callback drawing a rich bar on a terminal (else None)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


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
                            "or initial belief (default: the domain's: current in the gridworld, initial in a "
                            "tabular domain, whose runs infer the initial belief)")
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
                   help="the PNG file to write (missing folders are made)")
    add_force_option(p)


def add_force_option(p: argparse.ArgumentParser, what: str = "file", more: str = "") -> None:
    p.add_argument("--force", action="store_true",
                   help=f"replace an existing output {what} even if it does not look like one elot wrote{more}")


def mode_of(args, front) -> str:
    """The mode of statements that do not say: ``--mode`` (or ``--initial``), else the domain's."""
    return args.mode if mode_given(args) else front.default_mode
