"""Inverse planning over any domain: the domain protocol, planners, exact and
particle inversion, budget.

A domain (see :class:`Domain` and docs/domains.md) describes its tables and hypothesis
spaces; :class:`Engine` plans and inverts observed paths for it. The engine names no
object of any domain.
"""

from elot.engine.budget import BudgetError, Estimate
from elot.engine.config import METHODS, PLANNER_NAMES, EngineConfig
from elot.engine.loading import load_domain
from elot.engine.protocol import BeliefSpace, DesireSpace, Domain, DomainError, Tables
from elot.engine.results import PathResult, SampledResult
from elot.engine.run import Case, Engine, Result

__all__ = ["BeliefSpace", "BudgetError", "Case", "DesireSpace", "Domain", "DomainError",
           "Engine", "EngineConfig", "Estimate", "METHODS", "PLANNER_NAMES", "PathResult", "Result",
           "SampledResult", "Tables", "load_domain"]
