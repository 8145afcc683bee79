"""The numeric core of elot's Bayesian theory of mind.

``btom_ext.core`` is a compiled Cython extension; ``btom_ext.reference`` implements the same
functions in plain Python/NumPy and is the specification the tests hold the core to.
``btom_ext.particles`` and ``btom_ext.particles_reference`` are the same pair for the
kernels of particle inference (:func:`particle_kernels`; not named ``particles``, which importing that submodule would replace). Both
take the numeric encoding of layouts and worlds described in ``btom_ext.reference``.
Use :func:`backend` to get either; a core that was never compiled raises
:class:`CoreMissingError` (an ImportError with a ``hint``), which elot turns into its
own error; this package imports nothing of elot's.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

# From the repository root after a plain (non-editable) `pip install .`, this folder of
# the checkout is the btom_ext that imports, but the compiled core was built into
# site-packages: search every btom_ext folder on sys.path for the submodules.
__path__ = pkgutil.extend_path(__path__, __name__)

BACKENDS = ("core", "reference")


class CoreMissingError(ImportError):
    """The compiled core was never built, or does not import; ``hint`` says how to build it."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


def backend(name: str = "core") -> ModuleType:
    """The implementation called ``name``: ``"core"`` (compiled) or ``"reference"``."""
    if name == "reference":
        from btom_ext import reference

        return reference
    if name != "core":
        raise ValueError(f"unknown BToM backend {name!r}; expected one of {BACKENDS}")
    try:
        core = importlib.import_module("btom_ext.core")
    except ImportError as error:
        raise CoreMissingError(
            f"the compiled BToM core (btom_ext.core) does not import: {error}",
            hint="build it with `pip install .` (or `pip install -e .` in a checkout; a C "
            "compiler is needed), or pass backend='reference' for the slow pure-Python "
            "implementation",
        ) from error
    return core


def particle_kernels(name: str = "core") -> ModuleType:
    """The particle-inference kernels of backend ``name``: ``btom_ext.particles`` (compiled)
    for ``"core"``, ``btom_ext.particles_reference`` (NumPy) for ``"reference"``."""
    if name == "reference":
        from btom_ext import particles_reference

        return particles_reference
    if name != "core":
        raise ValueError(f"unknown BToM backend {name!r}; expected one of {BACKENDS}")
    try:
        return importlib.import_module("btom_ext.particles")
    except ImportError as error:
        raise CoreMissingError(
            f"the compiled particle kernels (btom_ext.particles) do not import: {error}",
            hint="build them with `pip install .` (or `pip install -e .` in a checkout; a C "
            "compiler is needed), or pass backend='reference' for the slow pure-Python "
            "implementation",
        ) from error


def planner_kernels(name: str = "core") -> ModuleType:
    """The tabular planning kernels of backend ``name``: ``btom_ext.planners`` (compiled)
    for ``"core"``, ``btom_ext.planners_reference`` (NumPy) for ``"reference"``."""
    if name == "reference":
        from btom_ext import planners_reference

        return planners_reference
    if name != "core":
        raise ValueError(f"unknown BToM backend {name!r}; expected one of {BACKENDS}")
    try:
        return importlib.import_module("btom_ext.planners")
    except ImportError as error:
        raise CoreMissingError(
            f"the compiled planning kernels (btom_ext.planners) do not import: {error}",
            hint="build them with `pip install .` (or `pip install -e .` in a checkout; a C "
            "compiler is needed), or pass backend='reference' for the NumPy twin",
        ) from error


def grounding_kernels(name: str = "core") -> ModuleType:
    """The grounded-state kernels of backend ``name``: ``btom_ext.ground`` (compiled) for
    ``"core"``, ``btom_ext.ground_reference`` (NumPy) for ``"reference"``."""
    if name == "reference":
        from btom_ext import ground_reference

        return ground_reference
    if name != "core":
        raise ValueError(f"unknown BToM backend {name!r}; expected one of {BACKENDS}")
    try:
        return importlib.import_module("btom_ext.ground")
    except ImportError as error:
        raise CoreMissingError(
            f"the compiled grounding kernels (btom_ext.ground) do not import: {error}",
            hint="build them with `pip install .` (or `pip install -e .` in a checkout; a C "
            "compiler is needed), or pass backend='reference' for the slow pure-Python "
            "implementation",
        ) from error
