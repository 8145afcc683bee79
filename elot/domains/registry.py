"""Which domain a command runs in: the one place that names the built-in domains.

``--domain`` names one: a built-in name (``doors-keys-gems``, the default; ``foodtrucks``),
a PDDL domain file (``domain.pddl``, or a folder holding one: its front is
:class:`elot.domains.pddl.front.PddlFront`), a Python file defining a tabular domain (``my_domain.py``, loaded by
:func:`elot.engine.load_domain`: its object ``domain``, else its one protocol class), or a
name a package registers under the entry point group ``elot.domains``. Without it, the
scenarios say: a built-in domain claims the references it reads (food trucks: ``.trucks``
files and ``foodtrucks:ID``), and the gridworld takes the rest.

Whatever goes wrong (no such domain, a file that does not parse or raises, an entry point
that does not load, an object that is no domain) is a :class:`~elot.engine.DomainError`
naming it and how to fix it: never a traceback.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Iterable

from elot.errors import DomainError

#: Built-in domains: name -> their front (``module:Class``).
BUILTIN = {
    "doors-keys-gems": "elot.domains.doors_keys_gems.front:GridFront",
    "foodtrucks": "elot.domains.foodtrucks.front:FoodTrucksFront",
}
#: The domain of a scenario no other domain claims.
DEFAULT = "doors-keys-gems"
#: Other spellings users may type for the built-in domains.
ALIASES = {"gridworld": "doors-keys-gems", "dkg": "doors-keys-gems", "doors_keys_gems": "doors-keys-gems",
           "food-trucks": "foodtrucks", "baker2017": "foodtrucks"}
#: How a built-in domain's scenario references look, by domain (``module:function`` of a
#: reference, true when the domain reads it): what picks a domain when none is named.
CLAIMS = {"foodtrucks": "elot.domains.foodtrucks:names_trucks"}
#: The entry point group a package registers its domains under (``name = "pkg.mod:Domain"``).
ENTRY_POINT_GROUP = "elot.domains"


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def builtin_name(spec: str) -> str | None:
    """The built-in domain ``spec`` names, or None."""
    name = ALIASES.get(spec.lower(), spec.lower())
    return name if name in BUILTIN else None


def claimed(scenarios: Iterable[str]) -> str | None:
    """The built-in domain (other than the default) whose scenario references these are,
    or None; references of several domains are refused (a command runs in one)."""
    by = {spec: next((name for name, claims in CLAIMS.items() if _load(claims)(spec)), DEFAULT)
          for spec in scenarios if spec}
    domains = sorted(set(by.values()))
    if len(domains) > 1:
        shown = "; ".join(f"{spec} ({domain})" for spec, domain in list(by.items())[:6])
        raise DomainError(f"the scenarios are of several domains: {shown}",
                          hint="a command runs in one domain: give its scenarios only (--domain names it; "
                               "foodtrucks:ID names an experiment scenario)")
    return domains[0] if domains and domains[0] != DEFAULT else None


def domain_named(spec: str | None, scenarios: Iterable[str] = ()) -> str:
    """The domain a command runs in: ``spec`` (``--domain``), else the one the scenario
    references claim, else the gridworld."""
    return spec or claimed(scenarios) or DEFAULT


def front_for(spec: str | None = None, *, scenarios: Iterable[str] = (), data: str | None = None,
              **reading: Any):
    """The front of the domain ``spec`` names (see the module docstring), reading its
    scenarios from ``data`` (its data folder) and with ``reading`` (the gridworld's
    ``exp`` and ``plan``: how its dataset's plan ids are read)."""
    spec = domain_named(spec, scenarios)
    name = builtin_name(spec)
    if name is not None:
        front = _load(BUILTIN[name])
        return front(data=data, **{k: v for k, v in reading.items() if k in front.reading})
    from elot.domains.pddl.front import PddlFront, domain_file, is_domain_file

    if is_domain_file(spec):
        return PddlFront(domain_file(spec), data, plan=reading.get("plan"), goal_prior=reading.get("goal_prior"))
    if spec.lower().endswith(".pddl"):
        raise DomainError(f"{spec} is no PDDL domain file" + (": it does not exist" if not Path(spec).exists() else
                                                              " (it does not start with (define (domain ...)"),
                          hint="give --domain the domain file, and the problem as the scenario (with --plan "
                               "for the agent's actions)")
    from elot.domains.tabular import TabularFront

    if spec.endswith(".py") or "/" in spec or Path(spec).is_file():
        from elot.engine.loading import load_domain as load_domain_file

        return TabularFront(load_domain_file(spec), spec, data)
    found = _entry_point(spec)
    if found is not None:
        return TabularFront(found, spec, data)
    raise DomainError(
        f"no domain {spec!r}",
        hint=f"give a built-in domain ({', '.join(BUILTIN)}), a PDDL domain file (domain.pddl), a Python file "
             f"defining a domain "
             f"(my_domain.py, docs/domains.md), or a name a package registers under the "
             f"{ENTRY_POINT_GROUP!r} entry points")


def _entry_point(spec: str) -> Any:
    """The domain registered as ``spec`` under :data:`ENTRY_POINT_GROUP`, or None."""
    from importlib.metadata import entry_points

    from elot.engine.loading import METHODS

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name != spec:
            continue
        where = f"the entry point {spec} ({point.value})"
        try:
            value = point.load()
            if isinstance(value, type):
                value = value()
        except Exception as error:  # the package's code: reported, not a traceback
            raise DomainError(f"{where} does not load: {type(error).__name__}: {error}",
                              hint="reinstall the package that provides it") from None
        missing = [m for m in METHODS if not callable(getattr(value, m, None))]
        if missing:
            raise DomainError(f"{where} is not a domain: it has no {', '.join(missing)}",
                              hint="a domain implements " + ", ".join(METHODS) + " (docs/domains.md)")
        return value
    return None
