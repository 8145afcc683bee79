"""What a filter of the engine shows of Doors-Keys-Gems: :class:`WorldFilter`, the
gridworld's names on an engine filter (:class:`elot.engine.worlds.exact.ExactFilter`,
:class:`elot.engine.worlds.particles.ParticleFilter`) built on a
:class:`~elot.domains.doors_keys_gems.model.GridWorldModel` — its scenario, map, the agent's ``planner``, the
encoding and rules, the worlds as rows (the real world's last), the goals' gems. The
setup and world stepping both filters share are the world model's; the inference is the
engine's.
"""

from __future__ import annotations

from elot.domains.doors_keys_gems.model import GridWorldModel


def _of_model(name: str, doc: str) -> property:
    return property(lambda self: getattr(self.world_model, name), doc=doc)


class WorldFilter:
    """The Doors-Keys-Gems names of a filter's world model (read-only views; see the module)."""

    world_model: GridWorldModel

    scenario = _of_model("scenario", "The scenario inferred over.")
    layout = _of_model("layout", "Its map.")
    planner = _of_model("planner", "The agent's planner (:class:`~elot.domains.doors_keys_gems.engine.AgentPlanner`).")
    enc = _of_model("enc", "The map's encoding.")
    rules = _of_model("rules", "The core's rules of the map.")
    rows = _of_model("rows", "Every initial state's world as a row, the real world's last.")
    real = _of_model("real", "The real world at every step so far.")
    worlds = _of_model("worlds", "Every initial state's world now.")
    goal_gems = _of_model("goal_columns", "The goals' gems (their columns of the path costs).")
    local = _of_model("local", "How an observed action is named in each world.")
