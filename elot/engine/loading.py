"""A researcher's own domain from a Python file: ``load_domain("my_domain.py")``.

The file is run as a module of its own. Its domain is the module-level object ``domain``
if there is one, else the one class defined in the file that has the protocol's methods
(made with no arguments). Whatever goes wrong — the file is missing, does not parse,
raises while it runs, holds no domain or several — is one :class:`DomainError` naming the
file (and the line, for a syntax error).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from typing import Any

from elot.engine.tables.protocol import Domain
from elot.errors import DomainError
from elot.errors import ElotError, Span, read_text

METHODS = ("tables", "desires", "initial_beliefs", "signature", "world_atoms")
HINT = ("a domain file defines a class with the methods " + ", ".join(METHODS)
        + " and the attributes name and default_planner (docs/domains.md), or an object named domain")


def _is_domain_class(value: Any, module: str) -> bool:
    return (inspect.isclass(value) and value.__module__ == module
            and all(callable(getattr(value, m, None)) for m in METHODS))


def load_domain(path: str | os.PathLike) -> Domain:
    """The domain defined in the Python file ``path`` (see the module docstring)."""
    name = str(path)
    source = read_text(path, "domain file")
    try:
        code = compile(source, name, "exec")
    except SyntaxError as error:
        line, column = error.lineno or 1, error.offset or 1
        start = sum(len(row) + 1 for row in source.split("\n")[: line - 1]) + column - 1
        raise DomainError(f"the domain file does not parse: {error.msg}", span=Span.of(source, start, start + 1),
                          source=source, path=name, hint="fix the Python syntax") from None
    module_name = f"elot_user_domain_{abs(hash(os.path.abspath(name)))}"
    spec = importlib.util.spec_from_file_location(module_name, name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module     # dataclasses and pickling look the module up
    try:
        exec(code, module.__dict__)
    except ElotError:
        raise
    except Exception as error:  # the user's file: its failure is reported, not a traceback
        sys.modules.pop(module_name, None)
        raise DomainError(f"{name}: running the domain file raised {type(error).__name__}: {error}",
                          hint="fix the file; it is run as a module of its own") from None
    found = module.__dict__.get("domain")
    if found is None:
        classes = [v for v in vars(module).values() if _is_domain_class(v, module_name)]
        if len(classes) != 1:
            what = "no class" if not classes else f"{len(classes)} classes ({', '.join(c.__name__ for c in classes)})"
            raise DomainError(f"{name}: {what} with the domain methods, and no object named domain",
                              hint=HINT if not classes else "name the one to use: domain = YourDomain()")
        try:
            found = classes[0]()
        except Exception as error:
            raise DomainError(f"{name}: {classes[0].__name__}() raised {type(error).__name__}: {error}",
                              hint="a domain class is made with no arguments; or set domain = ... in the file") from None
    if not isinstance(found, Domain):
        missing = [m for m in (*METHODS, "name", "default_planner") if not hasattr(found, m)]
        raise DomainError(f"{name}: its domain lacks {', '.join(missing)}", hint=HINT)
    return found


__all__ = ["load_domain"]
