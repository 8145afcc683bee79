"""The options of a run in a domain of the engine (docs/domains.md): ``--domain``, ``--data``,
``--planner``, which domain the arguments name, the gridworld's settings a domain refuses
(and a domain's the gridworld refuses), particle inference's settings, and the parts of a
domain run built from the arguments."""

from __future__ import annotations

import argparse
import os

from elot.errors import ElotError
from elot.settings import ALL_VARIANTS, DEFAULT_K, DEFAULT_PARTICLES, check_variant


#: The engine's planners (``elot.engine.PLANNER_NAMES``, the same tuple: a test holds that),
#: named here so that building the parser does not import the engine and NumPy.
PLANNERS = ("qmdp", "belief-vi")


def add_domain_options(p: argparse.ArgumentParser) -> None:
    """``--domain NAME|FILE``, ``--data DIR`` and ``--planner``: run SCENARIO in a domain of
    the inference engine (food trucks, or a researcher's own from a Python file)."""
    p.add_argument("--domain", metavar="DOMAIN",
                   help="run SCENARIO in a domain of the inference engine: foodtrucks (implied by a .trucks "
                        "file or foodtrucks:ID), a Python file defining a domain (my_domain.py[:NAME]), or a "
                        "name under the elot.domains entry points (docs/domains.md)")
    p.add_argument("--data", metavar="DIR", default=None,
                   help="the food-truck experiment's folder, for scenario ids (default: $ELOT_BAKER2017_DATA, "
                        "else shared/baker2017 in or above the working directory)")
    p.add_argument("--planner", choices=PLANNERS, default=None,
                   help="a domain's planner (default: the model's, else the domain's)")


def domain_spec(args, scenarios=None) -> str | None:
    """The domain the arguments ask for: ``--domain``, or food trucks for a ``.trucks``
    file or a ``foodtrucks:ID`` scenario (any of ``scenarios``, default SCENARIO); None for
    the gridworld."""
    if getattr(args, "domain", None):
        return args.domain
    names = scenarios if scenarios is not None else [getattr(args, "scenario", None) or ""]
    for scenario in names:
        # FILE.trucks, or FILE.trucks:PICK (the pick after the last colon: a file's name may hold one)
        if scenario.lower().startswith("foodtrucks:") or scenario.lower().endswith(".trucks") \
                or scenario.rpartition(":")[0].lower().endswith(".trucks"):
            return "foodtrucks"
    return None


def data_dir(args) -> str | None:
    """The food-truck data folder: ``--data``, else ``$ELOT_BAKER2017_DATA`` (the command
    line reads the environment, the library does not), else None (the reader looks)."""
    return getattr(args, "data", None) or os.environ.get("ELOT_BAKER2017_DATA") or None


#: Settings of the gridworld's inference that a domain run does not take: option, its
#: attribute, and the value that means "not given".
GRIDWORLD_ONLY = (("--k", "k", DEFAULT_K), ("--conventions", "conventions", "elot"),
                  ("--hidden-keys", "hidden_keys", None), ("--hidden-colours", "hidden_colours", None),
                  ("--plan", "plan", None),
                  ("--max-hypotheses", "max_hypotheses", None), ("--bind-free", "bind_free", False))


def refuse_gridworld_options(args, domain: str, *, own: tuple[str, ...] = ()) -> None:
    """A domain run given a setting of the gridworld's inference: an error naming it
    (``own``: options of the same name that mean something else in this command)."""
    for option, attr, unset in GRIDWORLD_ONLY:
        if option not in own and getattr(args, attr, unset) != unset:
            raise ElotError(f"{option} is a setting of the Doors-Keys-Gems inference; the {domain} domain "
                            "does not take it",
                            hint="leave it out; a domain takes --model, --beta, --planner, --max-memory, "
                                 "--inference, --particles and --seed")


def refuse_domain_options(args, *, model: bool = True) -> None:
    """A Doors-Keys-Gems run given a domain's setting (--planner, --data, --current): an
    error naming it; with ``model``, a domain's model name too."""
    for option, attr in (("--planner", "planner"), ("--data", "data"), ("--current", "mode_current")):
        if getattr(args, attr, None) not in (None, False):
            raise ElotError(f"{option} is a setting of a domain of the inference engine, not of the "
                            "Doors-Keys-Gems inference",
                            hint="give --domain (e.g. --domain foodtrucks), or leave it out")
    if model and getattr(args, "model", None) not in (None, *ALL_VARIANTS):
        check_variant(args.model)


def domain_session_parts(args):
    """``(front, scenario, config, model)`` of a domain run from the arguments (loads the
    domain, reads the scenario, builds the engine config; --beta, --planner,
    --max-memory, --backend, --inference, --particles and --seed go into it)."""
    from elot.domains.front import front_of
    from elot.domains.load import load_domain

    spec = domain_spec(args)
    front = front_of(load_domain(spec), spec)

    refuse_gridworld_options(args, front.name)
    method = getattr(args, "inference", "exact")
    refuse_unused_sampling(args, [method])
    scenario = front.scenario(args.scenario, data_dir(args))
    beta = getattr(args, "beta", None)
    if beta is None and getattr(args, "thresholds", None):
        from elot.study.params import thresholds_option

        beta = thresholds_option(args.thresholds).beta
    config = front.config(args.model, beta=beta, planner=getattr(args, "planner", None),
                          memory_limit=getattr(args, "max_memory", None),
                          backend=getattr(args, "backend", None), method=method,
                          particles=getattr(args, "particles", None), seed=getattr(args, "seed", None))
    return front, scenario, config, front.model_name(args.model)


#: Settings of particle inference (a domain's run, repl and batch take them).
SAMPLING = (("--inference", "inference", "exact"), ("--particles", "particles", DEFAULT_PARTICLES),
            ("--seed", "seed", None))


def refuse_unused_sampling(args, methods) -> None:
    """``--particles`` or ``--seed`` given to a domain run whose ``methods`` are all exact:
    an error naming the option (they would change nothing)."""
    from elot.engine.tables.config import may_sample

    if any(may_sample(method) for method in methods):
        return
    for option, attr, unset in SAMPLING[1:]:
        if getattr(args, attr, unset) != unset:
            raise ElotError(f"{option} is a setting of particle inference, and this run is exact",
                            hint="add --inference smc (or auto), or leave it out")
