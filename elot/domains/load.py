"""Finding a domain by what the command line says: a built-in name (``foodtrucks``), a
Python file defining one (``my_domain.py``, ``my_domain.py:NAME``), or a package's entry
point in the group ``elot.domains``.

A file's domain is its attribute ``domain`` (or ``NAME``); without one, the only object of
the file that implements the protocol (:class:`elot.engine.Domain`), a class being made
with no arguments. Whatever goes wrong while loading (the file is missing, does not
import, raises, holds no domain or several) is a :class:`DomainLoadError` naming the file
(and its line, for a syntax error) and how to fix it: never a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from elot.engine.protocol import DomainError

#: Built-in domains: name -> the module that defines the domain class ``DOMAIN``.
BUILTIN = {"foodtrucks": "elot.domains.foodtrucks.domain:FoodTrucks"}
#: Spellings users may type for the built-in domains.
ALIASES = {"food-trucks": "foodtrucks", "baker2017": "foodtrucks", "trucks": "foodtrucks"}
#: The entry point group a package registers its domains under.
ENTRY_POINT_GROUP = "elot.domains"
#: What the protocol asks of a domain (docs/domains.md).
METHODS = ("tables", "desires", "initial_beliefs", "signature", "world_atoms")


class DomainLoadError(DomainError):
    """A domain could not be found or loaded (a file, a built-in name or an entry point)."""

    kind = "domain error"


def is_domain(value: Any) -> bool:
    """Whether ``value`` (an object or a class) has every method of the protocol."""
    return all(callable(getattr(value, m, None)) for m in METHODS)


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
    target, attr = _split(spec)
    if target.endswith(".py") or "/" in target or Path(target).is_file():
        return _from_file(target, attr, spec)
    found = _entry_point(spec)
    if found is not None:
        return found
    raise DomainLoadError(
        f"no domain {spec!r}",
        hint=f"give a built-in domain ({', '.join(BUILTIN)}), a Python file defining a domain "
             f"(my_domain.py or my_domain.py:NAME), or a name registered under the {ENTRY_POINT_GROUP!r} "
             "entry points")


def _split(spec: str) -> tuple[str, str | None]:
    """``FILE.py:NAME`` -> (FILE.py, NAME); a Windows drive letter is not a NAME."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and tail and "/" not in tail and "\\" not in tail and not tail.endswith(".py"):
        return head, tail
    return spec, None


def _from_file(target: str, attr: str | None, spec: str) -> Any:
    path = Path(target)
    if not path.is_file():
        raise DomainLoadError(f"no domain file {target}", path=spec,
                              hint="give a Python file that defines a domain (docs/domains.md)")
    name = f"_elot_domain_{abs(hash(str(path.resolve())))}"
    loader = importlib.util.spec_from_file_location(name, path)
    if loader is None or loader.loader is None:
        raise DomainLoadError(f"{target} is not a Python file", path=spec,
                              hint="a domain is a .py file that defines `domain` (docs/domains.md)")
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module   # dataclasses and pickling look the module up
    try:
        loader.loader.exec_module(module)
    except SyntaxError as error:
        sys.modules.pop(name, None)
        raise DomainLoadError(f"{target}:{error.lineno}: syntax error: {error.msg}", path=None,
                              hint="fix the file; python -m py_compile FILE shows the same") from None
    except Exception as error:  # the user's code: reported, not a traceback
        sys.modules.pop(name, None)
        raise DomainLoadError(f"loading {target} failed at {_user_line(error, path)}: "
                              f"{type(error).__name__}: {error}",
                              hint="run the file with python to see the full traceback") from None
    return _pick(module, attr, target)


def _user_line(error: BaseException, path: Path) -> str:
    """``FILE:LINE`` of the deepest frame of ``path`` in ``error``'s traceback."""
    where = str(path)
    for frame in traceback.extract_tb(error.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            where = f"{path}:{frame.lineno}"
    return where


def _pick(module: Any, attr: str | None, target: str) -> Any:
    """The domain a loaded module names: ``attr``, else ``domain``, else its only one."""
    if attr is not None or hasattr(module, "domain"):
        name = attr or "domain"
        if not hasattr(module, name):
            raise DomainLoadError(f"{target} defines no {name!r}",
                                  hint=f"name the domain after a colon: {target}:NAME")
        return _made(getattr(module, name), f"{target}:{name}")
    found = {key: value for key, value in vars(module).items()
             if not key.startswith("_") and is_domain(value)
             and getattr(value, "__module__", module.__name__) == module.__name__}
    if not found:
        raise DomainLoadError(f"{target} holds no domain: no object with the methods {', '.join(METHODS)}",
                              hint="define a class with those methods and `domain = MyDomain()` "
                                   "(docs/domains.md, examples/domains/coffee_shop.py)")
    if len(found) > 1:
        raise DomainLoadError(f"{target} holds several domains ({', '.join(found)})",
                              hint=f"name one after a colon: {target}:{next(iter(found))}, or define `domain`")
    (key, value), = found.items()
    return _made(value, f"{target}:{key}")


def _made(value: Any, where: str) -> Any:
    """A domain object from ``value``: a class is made with no arguments."""
    if isinstance(value, type):
        try:
            value = value()
        except Exception as error:  # the user's constructor
            raise DomainLoadError(f"{where}(): {type(error).__name__}: {error}",
                                  hint="a domain class is made with no arguments; or define `domain = "
                                       "MyDomain(...)` in the file") from None
    if not is_domain(value):
        missing = [m for m in METHODS if not callable(getattr(value, m, None))]
        raise DomainLoadError(f"{where} is not a domain: it has no {', '.join(missing)}",
                              hint="a domain implements " + ", ".join(METHODS) + " (docs/domains.md)")
    return value


def _entry_point(spec: str) -> Any:
    """The domain registered as ``spec`` under :data:`ENTRY_POINT_GROUP`, or None."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == spec:
            try:
                value = point.load()
            except Exception as error:  # the package's code
                raise DomainLoadError(f"the entry point {spec} ({point.value}) does not load: "
                                      f"{type(error).__name__}: {error}",
                                      hint="reinstall the package that provides it") from None
            return _made(value, f"{point.value}")
    return None
