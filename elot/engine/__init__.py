"""Inverse planning over any domain: the domain protocol, planners, exact inversion, budget.

A domain (see :class:`Domain` and docs/domains.md) describes its tables and hypothesis
spaces; :class:`Engine` plans and inverts observed paths for it. The engine names no
object of any domain.
"""

from elot.engine.budget import BudgetError, Estimate
from elot.engine.config import PLANNER_NAMES, EngineConfig
from elot.engine.loading import load_domain
from elot.engine.protocol import BeliefSpace, DesireSpace, Domain, DomainError, Tables
from elot.engine.results import PathResult
from elot.engine.run import Case, Engine

__all__ = ["BeliefSpace", "BudgetError", "Case", "DesireSpace", "Domain", "DomainError",
           "Engine", "EngineConfig", "Estimate", "PLANNER_NAMES", "PathResult", "Tables", "load_domain"]
