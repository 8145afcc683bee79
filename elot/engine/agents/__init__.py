"""Agents that act toward goals, rationally or with mistakes: their exact likelihoods over a
state graph, and the goal posterior they give (docs/pddl.md). Nothing here names a domain."""

from elot.engine.agents.graph import (Path, RelaxedPlans, StateGraph, distances, distances_from, follow, relaxed_costs,
                                      relaxed_plans)
from elot.engine.agents.inference import goal_posterior
from elot.engine.agents.models import MODELS, Boltzmann, GoalNoise, Lapse, PartialPlans, Reach, cost_to_go

__all__ = ["Boltzmann", "GoalNoise", "Lapse", "MODELS", "PartialPlans", "Path", "Reach", "RelaxedPlans", "StateGraph",
           "cost_to_go", "distances", "distances_from", "follow", "goal_posterior", "relaxed_costs", "relaxed_plans"]
