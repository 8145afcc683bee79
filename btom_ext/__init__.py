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


_BUILD = ("build {it} with `pip install .` (or `pip install -e .` in a checkout; a C compiler is needed), or pass "
          "backend='reference' for {twin}")


def _load(name: str, compiled: str, reference: str, what: str, *, many: bool = True,
          twin: str = "the slow pure-Python implementation") -> ModuleType:
    """``btom_ext.<compiled>`` for ``"core"`` (``what`` it is, in a refusal: ``many``
    kernels or one core), ``btom_ext.<reference>`` for ``"reference"``."""
    if name == "reference":
        return importlib.import_module(f"btom_ext.{reference}")
    if name != "core":
        raise ValueError(f"unknown BToM backend {name!r}; expected one of {BACKENDS}")
    try:
        return importlib.import_module(f"btom_ext.{compiled}")
    except ImportError as error:
        raise CoreMissingError(f"{what} (btom_ext.{compiled}) {'do' if many else 'does'} not import: {error}",
                               hint=_BUILD.format(it="them" if many else "it", twin=twin)) from error


def backend(name: str = "core") -> ModuleType:
    """The implementation called ``name``: ``"core"`` (compiled) or ``"reference"``."""
    return _load(name, "core", "reference", "the compiled BToM core", many=False)


def particle_kernels(name: str = "core") -> ModuleType:
    """The particle-inference kernels of backend ``name``: ``btom_ext.particles`` (compiled)
    for ``"core"``, ``btom_ext.particles_reference`` (NumPy) for ``"reference"``."""
    return _load(name, "particles", "particles_reference", "the compiled particle kernels")


def planner_kernels(name: str = "core") -> ModuleType:
    """The tabular planning kernels of backend ``name``: ``btom_ext.planners`` (compiled)
    for ``"core"``, ``btom_ext.planners_reference`` (NumPy) for ``"reference"``."""
    return _load(name, "planners", "planners_reference", "the compiled planning kernels", twin="the NumPy twin")


def grounding_kernels(name: str = "core") -> ModuleType:
    """The grounded-state kernels of backend ``name``: ``btom_ext.ground`` (compiled) for
    ``"core"``, ``btom_ext.ground_reference`` (NumPy) for ``"reference"``."""
    return _load(name, "ground", "ground_reference", "the compiled grounding kernels")
