"""Inverse planning over any domain: the domain protocol, planners, exact and
particle inversion, budget, and one run's settings.

A domain (see :class:`Domain` and docs/domains.md) describes its tables and hypothesis
spaces; :class:`Engine` plans and inverts observed paths for it (exactly, or by particles).
A domain whose worlds are too many to tabulate is a :class:`WorldModel` instead, on which
the filters of :mod:`elot.engine.worlds.exact` and :mod:`elot.engine.worlds.particles` run
(:func:`elot.engine.worlds.filters.infer`). The engine names no object of any domain, and
imports neither the language nor scoring: it returns posteriors.

The names below are imported on first use, so that what only needs
:mod:`elot.engine.settings` (the command line's parser) loads no NumPy.
"""

import importlib

_LAZY = {
    "BudgetError": "elot.engine.budget", "Estimate": "elot.engine.budget",
    "METHODS": "elot.settings", "FilterConfig": "elot.engine.worlds.methods",
    "HypothesisSpace": "elot.engine.worlds.spaces", "ParticleSpace": "elot.engine.worlds.spaces",
    "WorldModel": "elot.engine.worlds.protocol",
    "PLANNER_NAMES": "elot.engine.tables.config", "EngineConfig": "elot.engine.tables.config",
    "load_domain": "elot.engine.loading",
    "BeliefSpace": "elot.engine.tables.protocol", "DesireSpace": "elot.engine.tables.protocol",
    "Domain": "elot.engine.tables.protocol", "DomainError": "elot.errors",
    "Events": "elot.engine.tables.protocol", "Witness": "elot.engine.tables.protocol",
    "Tables": "elot.engine.tables.protocol",
    "PathResult": "elot.engine.tables.results", "SampledResult": "elot.engine.tables.results",
    "Case": "elot.engine.tables.run", "Engine": "elot.engine.tables.run", "Result": "elot.engine.tables.run",
    "Settings": "elot.engine.settings", "ModelSettings": "elot.engine.settings",
    "InferenceSettings": "elot.engine.settings", "Budget": "elot.engine.settings",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'elot.engine' has no attribute {name!r}")


__all__ = sorted(_LAZY)
