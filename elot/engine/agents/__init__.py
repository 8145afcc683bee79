"""Agents that act toward goals, rationally or with mistakes: their exact likelihoods over a
state graph, and the goal posterior they give (docs/pddl.md). Nothing here names a domain."""

from elot.engine.agents.graph import Path, StateGraph, distances, follow, relaxed_costs
from elot.engine.agents.inference import goal_posterior
from elot.engine.agents.models import MODELS, Boltzmann, GoalNoise, Lapse, cost_to_go

__all__ = ["Boltzmann", "GoalNoise", "Lapse", "MODELS", "Path", "StateGraph", "cost_to_go", "distances",
           "follow", "goal_posterior", "relaxed_costs"]
