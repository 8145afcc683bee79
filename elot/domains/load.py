"""Finding a domain by what the command line says (``--domain``): a built-in name
(``foodtrucks``), a Python file defining one (``my_domain.py``, loaded by
:func:`elot.engine.load_domain`: its object ``domain``, else its one protocol class), or a
name a package registers under the entry point group ``elot.domains``.

Whatever goes wrong (no such domain, a file that does not parse or raises, an entry point
that does not load, an object that is no domain) is a :class:`~elot.engine.DomainError`
naming it and how to fix it: never a traceback.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from elot.engine import load_domain as load_domain_file
from elot.engine.loading import METHODS
from elot.engine.tables.protocol import DomainError

#: Built-in domains: name -> ``module:Class`` (made with no arguments).
BUILTIN = {"foodtrucks": "elot.domains.foodtrucks.domain:FoodTrucks"}
#: Other spellings users may type for the built-in domains.
ALIASES = {"food-trucks": "foodtrucks", "baker2017": "foodtrucks"}
#: The entry point group a package registers its domains under (``name = "pkg.mod:Domain"``).
ENTRY_POINT_GROUP = "elot.domains"


def builtin_name(spec: str) -> str | None:
    """The built-in domain ``spec`` names, or None."""
    name = ALIASES.get(spec.lower(), spec.lower())
    return name if name in BUILTIN else None


def load_domain(spec: str) -> Any:
    """The domain ``spec`` names (see the module docstring)."""
    name = builtin_name(spec)
    if name is not None:
        module, _, attr = BUILTIN[name].partition(":")
        return getattr(importlib.import_module(module), attr)()
    if spec.endswith(".py") or "/" in spec or Path(spec).is_file():
        return load_domain_file(spec)
    found = _entry_point(spec)
    if found is not None:
        return found
    raise DomainError(
        f"no domain {spec!r}",
        hint=f"give a built-in domain ({', '.join(BUILTIN)}), a Python file defining a domain "
             f"(my_domain.py, docs/domains.md), or a name a package registers under the "
             f"{ENTRY_POINT_GROUP!r} entry points")


def _entry_point(spec: str) -> Any:
    """The domain registered as ``spec`` under :data:`ENTRY_POINT_GROUP`, or None."""
    from importlib.metadata import entry_points

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
