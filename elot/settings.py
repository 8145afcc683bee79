"""The settings the command line, the REPL and the library share: defaults, statement
modes, BToM model variants, numeric option checks and exit statuses, each defined once.

This module sits at the bottom of elot beside :mod:`elot.errors` (the only module it
imports), so that every layer may read it: the BToM inference its defaults, the study
its checks, the CLI (``--beta``, ``--k``, ``--model``, ``--mode``) and the REPL
(``:set beta``, ``:set model``, ...) the same checks, so the two accept the same values.

The word *model* has three meanings in elot; here it is the BToM **variant** (the
full model or one of the paper's ablations, chosen with ``--model``). A user's belief
model is :class:`elot.embedding.BeliefModel`; a language model is
:mod:`elot.translate.models`'.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Literal

from elot.errors import ElotError

#: β = 1/τ with τ = 2^(-3/2), the paper's fitted inverse temperature.
DEFAULT_BETA = 2 ** 1.5
#: The belief size k (the paper's k): an initial belief puts k equal shares on initial states.
DEFAULT_K = 3
#: The inference methods (``--inference``): exact enumeration, particles (sequential Monte
#: Carlo), or exact when it fits the budget and particles otherwise.
METHODS = ("exact", "smc", "auto")
#: Particles of particle inference (``--inference smc``).
DEFAULT_PARTICLES = 1000
#: Particle inference resamples when the effective sample size falls below this fraction of
#: the particles (``--ess-threshold``).
DEFAULT_ESS_THRESHOLD = 0.5
#: Rejuvenation sweeps (Metropolis-Hastings moves) after each resampling (``--moves``).
DEFAULT_MOVES = 1
#: An effective sample size below which a particle run warns that its estimates (and their
#: standard errors, which rest on a normal approximation) are not to be trusted, in every
#: domain: the gridworld's filter and the tabular engine's.
FEW_EFFECTIVE = 30
#: Exact inference's limit on hypotheses (``--max-hypotheses``, ``build(max_hypotheses=)``):
#: the paper's maps need at most a few hundred thousand; past 2 million, exact
#: enumeration is slow even where it fits.
MAX_HYPOTHESES = 2_000_000

# -- the simulated agent (elot plan) ------------------------------------------------------
# Here, not in elot/domains/doors_keys_gems/agent.py and elot/domains/doors_keys_gems/plan.py (which use them), so that
# ``elot plan --help`` and every parser build show them without importing numpy.

#: How the simulated agent picks its action from the QMDP values.
POLICIES = ("boltzmann", "optimal")
#: The default step limit: the dataset's longest plans have about 100 actions.
DEFAULT_MAX_STEPS = 500
#: The ways ``judge=`` names judgment points (besides a list of times).
JUDGE_MODES = ("auto", "events")
#: Most judgment points ``judge="auto"`` suggests (the dataset's plans have 1 to 4).
DEFAULT_POINTS = 3

# -- statement modes -----------------------------------------------------------------------

Mode = Literal["current", "initial"]
#: A statement about the agent's belief now ...
CURRENT: Mode = "current"
#: ... or about its belief at the start.
INITIAL: Mode = "initial"
#: What a statement can be about, the default first.
MODES: tuple[Mode, ...] = (CURRENT, INITIAL)

# -- BToM model variants -------------------------------------------------------------------

#: The variants of SPEC §5: the full model and the paper's two ablations.
VARIANTS = ("full", "true-belief", "non-planning")
#: Variants that reproduce artifacts of the reference pipeline (SPEC §7), not for real use.
REPRODUCTION_VARIANTS = ("true-belief-paper",)
#: Every variant :func:`elot.domains.doors_keys_gems.hypotheses.build` and :func:`elot.domains.doors_keys_gems.inference.infer` accept.
ALL_VARIANTS = VARIANTS + REPRODUCTION_VARIANTS
#: The variant used unless one is chosen.
DEFAULT_VARIANT = "full"


class VariantError(ElotError, ValueError):
    """An unknown BToM model variant (also a ``ValueError``, what it used to be)."""


def check_variant(name: str) -> str:
    """Return ``name`` if it names a variant of :data:`ALL_VARIANTS`, else raise
    :class:`VariantError` (the message says "model", the word of ``--model``)."""
    if name not in ALL_VARIANTS:
        close = difflib.get_close_matches(str(name), ALL_VARIANTS, n=1)
        raise VariantError(f"unknown model {name!r}",
                           hint=(f"did you mean {close[0]}? " if close else "")
                           + f"use one of: {', '.join(ALL_VARIANTS)}")
    return name


# -- numeric settings ----------------------------------------------------------------------


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
        low, high = _number(self.low), _number(self.high)
        if self.low is not None and self.high is not None:
            return f"greater than {low} and at most {high}" if self.open_low else f"between {low} and {high}"
        if self.low is not None:
            return f"greater than {low}" if self.open_low else f"at least {low}"
        return f"at most {high}" if self.high is not None else "finite"


def _number(value: float | None) -> str:
    """1000000 as 1,000,000 (not 1e+06); other numbers as %g."""
    if value is not None and float(value).is_integer() and abs(value) >= 1000:
        return f"{int(value):,}"
    return f"{value:g}" if value is not None else ""


#: Every numeric option or setting, by name. ``k`` has no upper bound of its own but the
#: 32 bits it is counted in: the size of the hypothesis space it leads to is what is limited.
NUMBERS: dict[str, Number] = {
    # β multiplies plan costs in the agent's softmax: far past 1e9 the agent is already
    # strictly rational, and past about 1e306 the products overflow a float64
    "beta": Number("beta", False, low=0, high=1e9, open_low=True,
                   example="2.83, the default (2^1.5); larger β overflows the agent's choice probabilities"),
    # k is counted in 32-bit integers (belief counts); within that, the size of the
    # hypothesis space, or the particles' cost, is what limits it
    "k": Number("k", True, low=1, high=2**31 - 1, example="3, the paper's"),
    "hidden-keys": Number("hidden-keys", True, low=0, example="2, the dataset's"),
    "time": Number("time", True, low=0, example="0, the start"),
    "samples": Number("samples", True, low=1, high=1_000_000, example="1000, the default"),
    "max-hypotheses": Number("max-hypotheses", True, low=1, example="2000000, the default"),
    "jobs": Number("jobs", True, low=1, example="2, one per core"),
    "noise": Number("noise", False, low=0, example="0.05"),
    "seed": Number("seed", True, low=0, example="0"),
    "particles": Number("particles", True, low=1, example=f"{DEFAULT_PARTICLES}, the default"),
    "max-steps": Number("max-steps", True, low=1, example="500, the default"),
    "points": Number("points", True, low=1, example="3, the default"),
    # the particle filter's knobs (--ess-threshold, --moves)
    "ess-threshold": Number("ess-threshold", False, low=0, high=1, example="0.5, the default"),
    "moves": Number("moves", True, low=0, high=1000, example="1, the default"),
    # the PDDL agent models' parameters (--param NAME=VALUE: elot/domains/pddl/agents.py)
    "epsilon": Number("epsilon", False, low=0, high=1, example="0.05, a lapse in twenty actions"),
    "weight": Number("weight", False, low=0, high=1, example="0.2, leaning a little on the relaxed plan"),
    "gamma": Number("gamma", False, low=0, high=1, example="0.05"),
    "horizon": Number("horizon", True, low=1, high=20, example="3 actions"),
}


def check_number(name: str, text: str | float | int) -> float | int:
    """``text`` as the number ``name`` takes (see :data:`NUMBERS`), or an
    :class:`ElotError` saying what is accepted: a whole number where one is needed,
    finite, in range."""
    spec = NUMBERS[name]
    wanted = f"{name} must be {'a whole number' if spec.integer else 'a finite number'} {spec.range()}"
    hint = f"e.g. {spec.example}" if spec.example else None
    if isinstance(text, bool):
        raise ElotError(f"{wanted}, not {text!r}", hint=hint)
    whole = (text.strip().lstrip("+-").isdigit() if isinstance(text, str)
             else isinstance(text, int) or (isinstance(text, float) and text.is_integer()))
    try:
        # a whole number is read as one: through a float, 9007199254740993 became ...992
        value: float | int = (int(text.strip()) if isinstance(text, str) else int(text)) \
            if spec.integer and whole else float(text)
    except (TypeError, ValueError, OverflowError):
        raise ElotError(f"{wanted}, not {text!r}", hint=hint) from None
    too_low = spec.low is not None and (value <= spec.low if spec.open_low else value < spec.low)
    too_high = spec.high is not None and value > spec.high
    if not math.isfinite(value) or (spec.integer and not whole) or too_low or too_high:
        raise ElotError(f"{wanted}, not {text}", hint=hint)
    return int(value) if spec.integer else value


# -- exit statuses -------------------------------------------------------------------------

#: Success (also for a REPL whose piped lines all worked).
EXIT_OK = 0
#: Bad input: the error was printed (``elot ...`` and a piped REPL with a failed line).
EXIT_USAGE = 2


# -- conventions ----------------------------------------------------------------------------

#: Named sets of conventions: how elot computes (``elot``, SPEC §4–§5, the default) or what
#: the reference pipeline behind the paper's Table does (``paper``, SPEC §7: π counts
#: hypotheses ruled out by t as false; the in-vs-out accuracy is the literal float
#: comparison; initial states come in the reference's order). The reference's True Belief
#: artifact (§7.4) is a model of its own, ``true-belief-paper``, not part of them.
CONVENTIONS = ("elot", "paper")
Conventions = Literal["elot", "paper"]


class ConventionsError(ElotError, ValueError):
    """An unknown conventions name."""


def check_conventions(name: str) -> Conventions:
    """Return ``name`` if it names a set of conventions, else raise :class:`ConventionsError`."""
    if name not in CONVENTIONS:
        raise ConventionsError(f"unknown conventions {name!r}",
                               hint=f"use one of: {', '.join(CONVENTIONS)}")
    return name  # type: ignore[return-value]
