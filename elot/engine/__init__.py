"""Inverse planning over any domain: the domain protocol, planners, exact and
particle inversion, budget.

A domain (see :class:`Domain` and docs/domains.md) describes its tables and hypothesis
spaces; :class:`Engine` plans and inverts observed paths for it (exactly, or by particles
drawn from the priors: :mod:`elot.engine.tables.sampling`). A domain whose worlds are
too many to tabulate is a :class:`WorldModel` instead, on which the filters of
:mod:`elot.engine.worlds.exact` and :mod:`elot.engine.worlds.particles` run (:func:`elot.engine.worlds.filters.infer`).
The engine names no object of any domain.
"""

from elot.engine.budget import BudgetError, Estimate
from elot.engine.worlds.methods import METHODS, InferenceSettings
from elot.engine.worlds.spaces import HypothesisSpace, ParticleSpace
from elot.engine.worlds.protocol import WorldModel
from elot.engine.tables.config import PLANNER_NAMES, EngineConfig
from elot.engine.loading import load_domain
from elot.engine.tables.protocol import BeliefSpace, DesireSpace, Domain, DomainError, Tables
from elot.engine.tables.results import PathResult, SampledResult
from elot.engine.tables.run import Case, Engine, Result

__all__ = ["BeliefSpace", "BudgetError", "Case", "DesireSpace", "Domain", "DomainError",
           "Engine", "EngineConfig", "Estimate", "HypothesisSpace", "InferenceSettings", "METHODS",
           "PLANNER_NAMES", "ParticleSpace", "PathResult", "Result", "SampledResult", "Tables", "WorldModel",
           "load_domain"]
