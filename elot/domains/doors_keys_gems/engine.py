"""What Doors-Keys-Gems' world model (:mod:`elot.domains.doors_keys_gems.model`) and its simulated agent
share with the numeric core (SPEC §5): loading a backend and its limits, stepping and
encoding hypothesized worlds (made when read: :class:`MovedWorlds`, :class:`SteppedWorlds`),
naming an observed action in each world, the agent's path costs and policy (inference
scores actions with them, the simulated agent chooses with them).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from btom_ext import backend as _backend
from btom_ext.reference import AGENT, CLOSED, GEMS
from elot.domains.doors_keys_gems.encoding import Encoding
from elot.domains.doors_keys_gems.world import MOVES, Action, ImpossibleActionError, WorldState
from elot.engine.worlds.protocol import LazyWorlds, as_worlds
from elot.errors import ScenarioError, compiled


def load_backend(name: str):
    """The BToM core called ``name`` (``"core"`` or ``"reference"``); a compiled core that
    does not import is an :class:`~elot.errors.ExtensionMissingError` with its hint."""
    return compiled(_backend, name)


def check_backend_limits(core, backend: str, layout) -> None:
    """A world row holds doors, boxes and held gems as bits of an int32 (at most
    ``MAX_DOORS``, ``MAX_BOXES``, ``MAX_GEMS`` of each, and the compiled core takes grids of
    up to ``MAX_CELLS`` cells): say so before the core fails obscurely. Keys have no limit."""
    limits = [("cells", layout.width * layout.height, "MAX_CELLS"), ("doors", len(layout.doors), "MAX_DOORS"),
              ("boxes", len(layout.boxes), "MAX_BOXES"), ("gems", len(layout.gems), "MAX_GEMS")]
    over = [f"{n} {what} (at most {getattr(core, attr)})" for what, n, attr in limits
            if getattr(core, attr, None) is not None and n > getattr(core, attr)]
    if over:
        raise ScenarioError(
            f"the map is too large for the {backend} backend: {', '.join(over)}",
            hint="split the map, or use fewer doors, boxes or gems",
        )


def step_or_stay(world: WorldState, action: Action) -> WorldState:
    """``world`` after ``action``, or ``world`` itself where the action is impossible (a
    hypothesized world the observations already ruled out)."""
    try:
        return world.step(action)
    except ImpossibleActionError:
        return world


def same_action(world: WorldState, action: Action, real: WorldState) -> Action:
    """The observed action as every world names it (elot's conventions; :func:`as_in` is
    the paper's)."""
    return action


def as_in(world: WorldState, action: Action, real: WorldState) -> Action:
    """The action observed in the real world, with its key named as in ``world``.

    Key objects are interchangeable (views describe keys by colour and place), and under
    the ``paper`` conventions a hypothesized world may call the real key by another name
    (SPEC §7.3): ``pickup`` takes the key at the same place with the same colour, and
    ``unlock`` a held key of the same colour. Under elot's naming it is the identity in
    every live world, so it is applied under ``paper`` only (a ruled-out world keeps
    elot's behaviour: an action it cannot take leaves it as it was).
    """
    if len(action) < 2 or action[0] not in ("pickup", "unlock") or action[1] not in world.layout.keys:
        return action
    wanted = real.key(action[1])
    if action[0] == "pickup":
        if world.key(action[1]) == wanted:
            return action
        found = [k for k, ks in world.keys if ks.where == wanted.where and ks.colour == wanted.colour]
    else:
        held = [k for k, ks in world.keys if ks.where == ("held",) and ks.colour == wanted.colour]
        found = [] if action[1] in held else held
    return (action[0], found[0], *action[2:]) if found else action


class AgentPlanner:
    """The agent's path costs ``h_g`` (SPEC §5) for one layout and model: what its QMDP
    policy reads. Inference scores observed actions with it and the simulated agent
    (:mod:`elot.domains.doors_keys_gems.agent`) chooses actions with it, so the two are one model run in
    opposite directions. The non-planning ablation's costs are Manhattan distances. The
    planner holds at most ``max_bytes`` (default: :func:`~elot.engine.budget.memory_budget`)."""

    def __init__(self, layout, model: str, core, max_bytes: int | None = None) -> None:
        self.layout = layout
        self.core = core
        self.encoding = Encoding(layout)
        self._planner = None if model == "non-planning" else self.encoding.planner(core, max_bytes)
        self._shift_cache: dict[tuple[Action, ...], np.ndarray] = {}

    def path_costs(self, rows: np.ndarray) -> np.ndarray:
        """``h[n, g]``: fewest actions from encoded world n until gem g is held (-1: never)."""
        if self._planner is None:
            return self.core.manhattan_costs(self.layout.width, self.encoding.gem_cells, rows)
        return self._planner.costs(rows)

    def _shifts(self, options: tuple[Action, ...]) -> np.ndarray:
        """How each option moves the agent's cell (0 for the actions that are not moves)."""
        shifts = self._shift_cache.get(options)
        if shifts is None:
            width = self.layout.width
            shifts = np.array([MOVES[o[0]][1] * width + MOVES[o[0]][0] if o[0] in MOVES else 0 for o in options],
                              dtype=np.int32)
            self._shift_cache[options] = shifts
        return shifts

    def _successor_bits(self, option: Action) -> tuple[int, int, int] | None:
        """Opening a box clears its bit of the closed boxes and taking a gem sets its bit of
        the held gems, in every world where it is possible (the states whose costs are asked
        for look like the real one, where it is): ``(field, clear, set)`` masks; None for
        the other actions (a key may be named differently in each world)."""
        enc = self.encoding
        if option[0] == "open":
            return CLOSED, 1 << enc.box_index(option[1]), 0
        if option[0] == "pickup" and self.layout.is_gem(option[1]):
            return GEMS, 0, 1 << enc.gem_index(option[1])
        return None

    def action_costs(self, worlds: Sequence[WorldState], rows: np.ndarray, states: np.ndarray,
                     options: Sequence[Action], goal_gems: np.ndarray,
                     rename: Callable[[WorldState, Action], Action] | None = None) -> np.ndarray:
        """``costs[g, j, a]``: the path cost to goal ``goal_gems[g]`` after action
        ``options[a]`` in world ``worlds[j]`` (encoded as ``rows[j]``), for the worlds
        ``states``; -1 elsewhere (the QMDP likelihood reads only states a belief keeps).
        ``rename(world, action)`` names the action's objects as ``world`` does (a move is
        never renamed). Moves shift the agent's cell of every row at once; only the other
        actions step and encode worlds."""
        costs = np.full((len(goal_gems), len(worlds), len(options)), -1, dtype=np.int32)
        states = np.asarray(states, dtype=np.intp)
        if len(states) == 0:
            return costs
        after = np.repeat(rows[states][:, None, :], len(options), axis=1)   # (states, options, row)
        after[:, :, AGENT] += self._shifts(tuple(options))
        for a, option in enumerate(options):
            if option[0] in MOVES:
                continue
            bits = self._successor_bits(option)
            if bits is not None:   # opening a box, taking a gem: one bit of every row
                field, clear, put = bits
                after[:, a, field] = (after[:, a, field] & ~clear) | put
                continue
            for n, j in enumerate(states):
                world = worlds[j]
                after[n, a] = self.encoding.encode(world.step(option if rename is None else rename(world, option)))
        h = self.path_costs(after.reshape(len(states) * len(options), -1)).reshape(len(states), len(options), -1)
        costs[:, states, :] = h[:, :, goal_gems].transpose(2, 0, 1)
        return costs


class MovedWorlds(LazyWorlds):
    """Worlds after moves made alike in every one of them: ``base`` (worlds that all had
    the agent on one cell) with the agent at ``pos``."""

    __slots__ = ("base", "pos")

    def __init__(self, base: Sequence[WorldState], pos) -> None:
        self.base, self.pos, self._worlds = base, pos, None

    def _make(self) -> tuple[WorldState, ...]:
        return tuple(w.moved(self.pos) for w in self.base)

    def __len__(self) -> int:
        return len(self.base)


class SteppedWorlds(LazyWorlds):
    """Every world of ``previous`` after ``action``, renamed per world by ``rename``
    (:func:`step_or_stay`: a world in which it is impossible stays as it is)."""

    __slots__ = ("previous", "action", "rename")

    def __init__(self, previous: Sequence[WorldState], action: Action,
                 rename: Callable[[WorldState, Action], Action] | None = None) -> None:
        self.previous, self.action, self.rename, self._worlds = previous, action, rename, None

    def _make(self) -> tuple[WorldState, ...]:
        if self.rename is None:
            return tuple(step_or_stay(w, self.action) for w in self.previous)
        return tuple(step_or_stay(w, self.rename(w, self.action)) for w in self.previous)

    def __len__(self) -> int:
        return len(self.previous)


def step_worlds(worlds: Sequence[WorldState], action: Action,
                rename: Callable[[WorldState, Action], Action] | None = None) -> tuple[Sequence[WorldState], bool]:
    """Every world after ``action`` (renamed per world by ``rename``; a world in which it is
    impossible stays as it is, :func:`step_or_stay`), and whether it was a move made in
    step: every world had the agent on one cell and could make the move, so every view
    changed in the agent's cell alone and which worlds agree with which is unchanged (the
    worlds are then a :class:`MovedWorlds`, made when read)."""
    if action[0] in MOVES and len(worlds):
        if isinstance(worlds, MovedWorlds):
            base, here, together = worlds.base, worlds.pos, True
        else:
            base, here = tuple(worlds), worlds[0].agent_pos
            together = all(w.agent_pos == here for w in base)
        dx, dy = MOVES[action[0]]
        target = (here[0] + dx, here[1] + dy)
        layout = base[0].layout
        if together and layout.in_bounds(target) and target not in layout.walls:
            door = layout.door_at(target)
            if door is None or all(door not in w.locked for w in base):   # moves leave doors be
                return MovedWorlds(base, target), True
    return SteppedWorlds(as_worlds(worlds), action, rename).worlds(), False   # stepped now, not when read


def named_action_codes(enc: Encoding, codes: np.ndarray, local: Callable, options: Sequence[Action],
                       before: WorldState, states: np.ndarray, worlds: Sequence[WorldState]) -> np.ndarray:
    """``codes[i, a]``: ``options[a]`` as the world of ``states[i]`` names it (``local(world,
    option, before)``, e.g. :func:`as_in`), given ``codes`` ``(1, n_a, 3)``, the options'
    codes under elot's naming (returned as they are when no option names a key, or when
    ``local`` is :func:`same_action`). A state index past the worlds (the real world's row,
    kept last) takes ``codes``. Only pickups and unlocks read the worlds, which are then made."""
    if local is same_action or not any(o[0] in ("pickup", "unlock") for o in options):
        return codes
    worlds = as_worlds(worlds)
    return np.array([[enc.action_code(local(worlds[s], o, before)) if s < len(worlds) else code
                      for o, code in zip(options, codes[0].tolist())] for s in states],
                    dtype=np.int32).reshape(len(states), len(options), 3)
