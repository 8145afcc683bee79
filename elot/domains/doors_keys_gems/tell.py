"""A scenario in words, as an observer saw it up to a judgment point: the two prompt
conditions of the paper's language-model baselines, generated from the scenario itself.

* :func:`plan_text` (*plan*): the map as the observer sees it at the start (an ASCII
  drawing and every object with its cell), then the agent's actions up to ``t``, each
  with what it revealed (what a box held when it was opened);
* :func:`narrative_text` (*narrative*): the same, told: which gems lie behind which
  doors, which keys are in sight, and the agent's moves as runs of steps that end next
  to a box, a door, a key or a gem (or so many steps from the nearest box).

Only what an observer could see is told: a closed box's contents stay unknown until the
agent opens it. Names are as statements write them (``box 3``, ``the blue door``).
"""

from __future__ import annotations

import re

from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.telling import cell, run_words
from elot.domains.doors_keys_gems.world import MOVES, Layout, Pos, WorldState, draw

#: The legend of :func:`observer_map`.
LEGEND = ("W wall, . floor, h the player, g gem, C closed box, o opened box, "
          "R/B/Y/E locked red/blue/yellow/green door, r/b/y/e red/blue/yellow/green key")
_DOOR = {"red": "R", "blue": "B", "yellow": "Y", "green": "E"}
_KEY = {"red": "r", "blue": "b", "yellow": "y", "green": "e"}


def spoken(name: str) -> str:
    """``box3`` → ``box 3`` (the name as statements write it)."""
    return re.sub(r"^([a-z]+)(\d+)$", r"\1 \2", name)


def observer_map(state: WorldState) -> str:
    """The state drawn as the observer sees it: boxes closed or open, never what a closed
    box holds."""
    layout = state.layout
    marks: list[tuple[Pos, str]] = []
    for door, pos, colour in layout.doors:
        if door in state.locked:
            marks.append((pos, _DOOR.get(colour, "D")))
    for box, pos in layout.boxes:
        marks.append((pos, "C" if box in state.closed else "o"))
    for gem, pos in layout.gems:
        if gem not in state.held_gems:
            marks.append((pos, "g"))
    for key, _ in visible_keys(state):
        marks.append((state.item_pos(key), _KEY.get(state.key(key).colour or "", "k")))
    marks.append((state.agent_pos, "h"))
    return "\n".join(draw(layout, marks))


def visible_keys(state: WorldState) -> list[tuple[str, str]]:
    """``(key, where in words)`` for each key in sight: on the floor or in an opened box."""
    out = []
    for key, ks in state.keys:
        if ks.where[0] == "cell":
            out.append((key, f"on the floor at {cell(ks.where[1])}"))
        elif ks.where[0] == "box" and ks.where[1] not in state.closed:
            out.append((key, f"in {spoken(ks.where[1])}, which is open"))
    return out


def _objects(state: WorldState) -> list[str]:
    layout = state.layout
    lines = [f"- {spoken(g)} at {cell(p)}" for g, p in layout.gems]
    lines += [f"- {spoken(d)}, a {c} door, at {cell(p)}" + ("" if d in state.locked else " (unlocked)")
              for d, p, c in layout.doors]
    lines += [f"- {spoken(b)} at {cell(p)}, " + ("closed" if b in state.closed else "open")
              for b, p in layout.boxes]
    lines += [f"- a {state.key(k).colour} key {where}" for k, where in visible_keys(state)]
    return lines


def _revealed(before: WorldState, action: tuple[str, ...]) -> str:
    """What an action showed the observer, in words ('' when nothing new)."""
    if action[0] == "open":
        inside = [before.key(k).colour for k in before.box_contents(action[1])]
        found = " and ".join(f"a {c} key" for c in inside) if inside else "nothing"
        return f"{spoken(action[1])} held {found}"
    if action[0] == "pickup":
        what = f"the {before.key(action[1]).colour} key" if action[1] in dict(before.keys) else spoken(action[1])
        return f"picked up {what}"
    if action[0] == "unlock":
        return f"unlocked {spoken(action[2])} with the {before.layout.door_colour(action[2])} key"
    return ""


def plan_text(scenario: Scenario, t: int) -> str:
    """The *plan* condition: the start as a map and a list of objects, then the agent's
    first ``t`` actions, one a line, with what each revealed."""
    start = scenario.initial
    lines = [f"The map at the start ({start.layout.width} columns, {start.layout.height} rows; a cell is "
             f"(column, row) counted from the top left; {LEGEND}):", observer_map(start), "",
             f"The player starts at {cell(start.agent_pos)}. Objects:", *_objects(start), ""]
    if not t:
        lines.append("The player has not acted yet.")
        return "\n".join(lines)
    lines.append(f"The player's actions so far ({t}):")
    states = scenario.states()
    for step, action in enumerate(scenario.actions[:t], start=1):
        seen = _revealed(states[step - 1], action)
        lines.append(f"{step}. {' '.join(spoken(a) for a in action)}" + (f" ({seen})" if seen else ""))
    return "\n".join(lines)


def _blocking_doors(layout: Layout, state: WorldState, gem_pos: Pos) -> list[str] | None:
    """The locked doors a gem lies behind: [] when the player reaches it without opening
    any, one door when opening that one is enough, None when it takes several."""
    locked = {layout.door_pos(d): d for d in state.locked}
    if gem_pos in layout.distances(state.agent_pos, locked):
        return []
    for pos, door in locked.items():
        if gem_pos in layout.distances(state.agent_pos, [p for p in locked if p != pos]):
            return [door]
    return None


def _landmark(state: WorldState, pos: Pos) -> str:
    """Where ``pos`` is relative to what the player might be heading for."""
    layout = state.layout
    near = []
    for box, bpos in layout.boxes:
        if abs(bpos[0] - pos[0]) + abs(bpos[1] - pos[1]) <= 1:
            near.append(f"next to {spoken(box)}")
    for door, dpos, colour in layout.doors:
        if door in state.locked and abs(dpos[0] - pos[0]) + abs(dpos[1] - pos[1]) <= 1:
            near.append(f"next to the {colour} door ({spoken(door)})")
    for key, _ in visible_keys(state):
        if state.item_pos(key) == pos:
            near.append(f"on the {state.key(key).colour} key")
    for gem, gpos in layout.gems:
        if gpos == pos and gem not in state.held_gems:
            near.append(f"on {spoken(gem)}")
    if near:
        return " and ".join(near)
    closed = [(abs(b[0] - pos[0]) + abs(b[1] - pos[1]), name) for name, b in layout.boxes if name in state.closed]
    if closed:
        d, name = min(closed)
        return f"{d} steps from {spoken(name)}"
    return "in the open"


def narrative_text(scenario: Scenario, t: int) -> str:
    """The *narrative* condition: the scene told (gems behind doors, boxes closed, keys
    in sight) and the agent's first ``t`` actions told as runs of moves ending at
    landmarks, with what each other action revealed."""
    start = scenario.initial
    layout = start.layout
    lines = [f"The map at the start ({layout.width} columns, {layout.height} rows; a cell is (column, row) "
             f"counted from the top left; {LEGEND}):", observer_map(start), ""]
    gems = []
    for gem, pos in layout.gems:
        doors = _blocking_doors(layout, start, pos)
        where = ("can be reached without unlocking a door" if doors == [] else
                 f"is behind the {layout.door_colour(doors[0])} door ({spoken(doors[0])})" if doors else
                 "is behind more than one locked door")
        gems.append(f"{spoken(gem)} at {cell(pos)} {where}")
    lines.append(f"There are {len(layout.gems)} gems: " + "; ".join(gems) + ".")
    lines.append(f"There are {len(layout.boxes)} boxes, all closed at the start: "
                 + ", ".join(f"{spoken(b)} at {cell(p)}" for b, p in layout.boxes)
                 + ". A closed box may hold a key or nothing; what it holds is hidden, from the player too, until it is opened.")
    keys = visible_keys(start)
    lines.append("Keys in sight: " + ("; ".join(f"a {start.key(k).colour} key {w}" for k, w in keys) if keys else "none")
                 + ". A key opens a door of its own colour and is used up.")
    lines.append(f"The player starts at {cell(start.agent_pos)}, {_landmark(start, start.agent_pos)}.")
    lines.append("")
    if not t:
        lines.append("The player has not acted yet.")
        return "\n".join(lines)
    states = scenario.states()
    story: list[str] = []
    moves: list[str] = []
    for step, action in enumerate(scenario.actions[:t], start=1):
        if action[0] in MOVES:
            moves.append(action[0])
            continue
        if moves:
            story.append(f"It moved {run_words(moves)}, ending at {cell(states[step - 1].agent_pos)}, "
                         f"{_landmark(states[step - 1], states[step - 1].agent_pos)}.")
            moves = []
        story.append(f"Then it {'opened ' + spoken(action[1]) + ': ' if action[0] == 'open' else ''}"
                     f"{_revealed(states[step - 1], action)}.")
    if moves:
        story.append(f"It moved {run_words(moves)}, ending at {cell(states[t].agent_pos)}, "
                     f"{_landmark(states[t], states[t].agent_pos)}.")
    lines.append(f"What the player did so far ({t} actions): " + " ".join(story))
    return "\n".join(lines)


CONDITIONS = {"plan": plan_text, "narrative": narrative_text}
