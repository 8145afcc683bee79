"""The Doors, Keys & Gems gridworld: the static map, world states, actions and visibility.

A :class:`Layout` is what never changes (walls, where the gems, doors and boxes are, the
colours and the names of the keys). A :class:`WorldState` is everything that does: where
the agent stands, where each key is, which doors are locked and which boxes closed, and
which gems are held. States are frozen and hashable; :meth:`WorldState.step` returns a new
one. The rules follow the dataset's ``domain.pddl`` (SPEC §5):

* ``up``/``down``/``left``/``right`` move one cell, not into a wall, off the grid or into a
  *locked* door's cell (boxes, keys and gems never block);
* ``pickup(item)`` takes a key or gem on the agent's cell that is not hidden and not held;
* ``open(box)`` opens a closed box on or 4-adjacent to the agent; its contents become
  visible;
* ``unlock(key, door)`` uses a held key of the door's colour on a locked, 4-adjacent door:
  the key is used up, the door unlocked.

Coordinates are ``(x, y)``: x the column, y the row, both 1-based as in the PDDL files.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Collection, Hashable, Iterable, Iterator

from elot.errors import ScenarioError


Pos = tuple[int, int]
Action = tuple[str, ...]

#: Move actions and their (dx, dy), in the canonical order of :meth:`available_actions`.
MOVES: dict[str, Pos] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}

#: Every action name and its number of arguments (the agent argument is implicit).
ARITY: dict[str, int] = {"up": 0, "down": 0, "left": 0, "right": 0, "pickup": 1, "open": 1, "unlock": 2}


#: Map glyphs per colour (the dataset's letters for red and blue; ``.scn`` maps use the
#: same defaults): a locked door, a visible key, a closed box hiding a key of that colour.
DOOR_GLYPHS: dict[str, str] = {"red": "R", "blue": "B", "yellow": "Y", "green": "E"}
KEY_GLYPHS: dict[str, str] = {"red": "r", "blue": "b", "yellow": "y", "green": "e"}
BOX_GLYPHS: dict[str, str] = {"red": "F", "blue": "O", "yellow": "U", "green": "Q"}


class ImpossibleActionError(ScenarioError):
    """An action whose preconditions do not hold in the state it is applied to."""


def fmt_pos(pos: Pos) -> str:
    """``(x,y)`` as written in messages."""
    return f"({pos[0]},{pos[1]})"


def fmt_action(action: Action) -> str:
    """An action as written in ``.scn`` files: ``right``, ``open box1``, ``unlock key1 door1``."""
    return " ".join(action)


@dataclass(frozen=True)
class Layout:
    """The static map: grid size, walls, the agent's name, gems, doors (with colour),
    boxes, the key objects (including spares off the grid) and the colours."""

    width: int
    height: int
    walls: frozenset[Pos]
    agent: str
    gems: tuple[tuple[str, Pos], ...]
    doors: tuple[tuple[str, Pos, str], ...]
    boxes: tuple[tuple[str, Pos], ...]
    keys: tuple[str, ...]
    colours: tuple[str, ...]

    def in_bounds(self, pos: Pos) -> bool:
        """Whether ``pos`` is on the grid."""
        return 1 <= pos[0] <= self.width and 1 <= pos[1] <= self.height

    def neighbours(self, pos: Pos) -> tuple[Pos, ...]:
        """The 4-neighbours of ``pos`` that are on the grid (up, down, left, right)."""
        x, y = pos
        return tuple(p for dx, dy in MOVES.values() if self.in_bounds(p := (x + dx, y + dy)))

    def is_wall(self, pos: Pos) -> bool:
        """Whether ``pos`` is a wall."""
        return pos in self.walls

    @cached_property
    def _door_index(self) -> dict[str, tuple[Pos, str]]:
        return {name: (pos, colour) for name, pos, colour in self.doors}

    @cached_property
    def _door_at(self) -> dict[Pos, str]:
        return {pos: name for name, pos, _ in self.doors}

    @cached_property
    def _box_index(self) -> dict[str, Pos]:
        return dict(self.boxes)

    @cached_property
    def _gem_index(self) -> dict[str, Pos]:
        return dict(self.gems)

    def door_at(self, pos: Pos) -> str | None:
        """The door on cell ``pos``, if any."""
        return self._door_at.get(pos)

    def door_pos(self, door: str) -> Pos:
        """Where ``door`` is (KeyError if there is no such door)."""
        return self._door_index[door][0]

    def door_colour(self, door: str) -> str:
        """The colour of ``door`` (KeyError if there is no such door)."""
        return self._door_index[door][1]

    def box_pos(self, box: str) -> Pos:
        """Where ``box`` is (KeyError if there is no such box)."""
        return self._box_index[box]

    def gem_pos(self, gem: str) -> Pos:
        """Where ``gem`` is (KeyError if there is no such gem)."""
        return self._gem_index[gem]

    def is_door(self, name: str) -> bool:
        return name in self._door_index

    def is_box(self, name: str) -> bool:
        return name in self._box_index

    def is_gem(self, name: str) -> bool:
        return name in self._gem_index

    def is_key(self, name: str) -> bool:
        return name in self.keys

    def objects(self) -> dict[str, str]:
        """Every object and its domain type, in the order of the dataset's problem files:
        colours, keys, doors, the agent, gems, boxes."""
        out = {c: "color" for c in self.colours}
        out.update({k: "key" for k in self.keys})
        out.update({name: "door" for name, _, _ in self.doors})
        out[self.agent] = "agent"
        out.update({name: "gem" for name, _ in self.gems})
        out.update({name: "box" for name, _ in self.boxes})
        return out

    def distances(self, start: Pos, blocked: Collection[Pos] = ()) -> dict[Pos, int]:
        """The fewest moves from ``start`` to every cell it can reach through non-wall cells
        not in ``blocked`` (breadth-first search: the one grid search of the gridworld)."""
        steps = self._steps
        seen = {start: 0}
        frontier = [start]
        moves = 0
        while frontier:
            moves += 1
            nxt = []
            for pos in frontier:
                for n in steps[pos] if pos in steps else self.neighbours(pos):
                    if n not in seen and n not in self.walls and n not in blocked:
                        seen[n] = moves
                        nxt.append(n)
            frontier = nxt
        return seen

    @cached_property
    def _steps(self) -> dict[Pos, tuple[Pos, ...]]:
        # Each cell's neighbours off the walls, built once: planning searches the grid
        # thousands of times per map.
        return {
            (x, y): tuple(n for n in self.neighbours((x, y)) if n not in self.walls)
            for x in range(1, self.width + 1) for y in range(1, self.height + 1)
        }

    def reachable(self, start: Pos, *, through_doors: bool = True) -> frozenset[Pos]:
        """Cells reachable from ``start`` through non-wall cells (door cells passable when
        ``through_doors``, as if every door were unlocked)."""
        return frozenset(self.distances(start, () if through_doors else self._door_at))


@dataclass(frozen=True)
class KeyState:
    """A key's colour (None for a spare key off the grid) and where it is: ``("box", box)``,
    ``("cell", pos)``, ``("held",)``, ``("used",)`` or ``("offgrid",)``."""

    colour: str | None
    where: tuple


OFFGRID = KeyState(None, ("offgrid",))


@dataclass(frozen=True)
class WorldState:
    """Everything that changes: the agent's cell, each key's state (sorted by key name),
    the locked doors, the closed boxes and the held gems."""

    layout: Layout
    agent_pos: Pos
    keys: tuple[tuple[str, KeyState], ...]
    locked: frozenset[str]
    closed: frozenset[str]
    held_gems: frozenset[str]

    # -- queries -----------------------------------------------------------------------

    @cached_property
    def _key_index(self) -> dict[str, KeyState]:
        return dict(self.keys)

    def key(self, name: str) -> KeyState:
        """The state of key ``name`` (KeyError if there is no such key)."""
        return self._key_index[name]

    def hidden(self, key: str) -> bool:
        """Whether ``key`` is inside a closed box."""
        where = self.key(key).where
        return where[0] == "box" and where[1] in self.closed

    def holds(self, item: str) -> bool:
        """Whether the agent holds key or gem ``item``."""
        if item in self._key_index:
            return self._key_index[item].where == ("held",)
        return item in self.held_gems

    def box_contents(self, box: str) -> tuple[str, ...]:
        """The keys inside ``box`` (sorted by name)."""
        return tuple(k for k, ks in self.keys if ks.where == ("box", box))

    def item_pos(self, item: str) -> Pos | None:
        """The cell of a key or gem lying on the grid or in a box; None if held, used or
        off the grid."""
        if item in self._key_index:
            where = self._key_index[item].where
            if where[0] == "cell":
                return where[1]
            if where[0] == "box":
                return self.layout.box_pos(where[1])
            return None
        if item in self.held_gems or not self.layout.is_gem(item):
            return None
        return self.layout.gem_pos(item)

    def goal_reached(self, gem: str | None = None) -> bool:
        """Whether the agent holds ``gem`` (any gem when None)."""
        return bool(self.held_gems) if gem is None else gem in self.held_gems

    def with_key(self, name: str, state: KeyState) -> "WorldState":
        """This state with key ``name`` replaced by ``state`` (e.g. to hide a key in a box)."""
        if name not in self._key_index:
            raise KeyError(name)
        keys = tuple((k, state if k == name else ks) for k, ks in self.keys)
        return replace(self, keys=keys)

    # -- actions -----------------------------------------------------------------------

    def why_not(self, action: Action) -> str | None:
        """Why ``action`` is impossible here, in words; None when it is possible."""
        if not action or action[0] not in ARITY:
            name = action[0] if action else ""
            return f"unknown action {name!r} (actions: {', '.join(ARITY)})"
        name, args = action[0], action[1:]
        if len(args) != ARITY[name]:
            n = ARITY[name]
            return f"{name} takes {n} argument{'s' if n != 1 else ''}, got {len(args)}"
        layout = self.layout
        here = self.agent_pos
        if name in MOVES:
            dx, dy = MOVES[name]
            target = (here[0] + dx, here[1] + dy)
            if not layout.in_bounds(target):
                return f"cannot move {name} from {fmt_pos(here)}: edge of the grid"
            if target in layout.walls:
                return f"cannot move {name} from {fmt_pos(here)}: wall at {fmt_pos(target)}"
            door = layout.door_at(target)
            if door is not None and door in self.locked:
                return (
                    f"cannot move {name} from {fmt_pos(here)}: "
                    f"{door} ({layout.door_colour(door)}) at {fmt_pos(target)} is locked"
                )
            return None
        if name == "pickup":
            (item,) = args
            if item in self._key_index:
                ks = self._key_index[item]
                if ks.where == ("held",):
                    return f"cannot pick up {item}: already held"
                if ks.where == ("used",):
                    return f"cannot pick up {item}: it was used to unlock a door"
                if ks.where == ("offgrid",):
                    return f"cannot pick up {item}: it is not on the map"
                if self.hidden(item):
                    return f"cannot pick up {item}: hidden in closed {ks.where[1]}"
            elif layout.is_gem(item):
                if item in self.held_gems:
                    return f"cannot pick up {item}: already held"
            else:
                return f"cannot pick up {item}: no such key or gem"
            pos = self.item_pos(item)
            if pos != here:
                return f"cannot pick up {item}: it is at {fmt_pos(pos)}, the agent at {fmt_pos(here)}"
            return None
        if name == "open":
            (box,) = args
            if not layout.is_box(box):
                return f"cannot open {box}: no such box"
            if box not in self.closed:
                return f"cannot open {box}: already open"
            pos = layout.box_pos(box)
            if abs(pos[0] - here[0]) + abs(pos[1] - here[1]) > 1:
                return f"cannot open {box}: it is at {fmt_pos(pos)}, not on or next to the agent at {fmt_pos(here)}"
            return None
        key, door = args
        if key not in self._key_index:
            return f"cannot unlock {door} with {key}: no such key"
        if not layout.is_door(door):
            return f"cannot unlock {door} with {key}: no such door"
        ks = self._key_index[key]
        if ks.where != ("held",):
            return f"cannot unlock {door} with {key}: {key} is not held"
        if door not in self.locked:
            return f"cannot unlock {door} with {key}: {door} is not locked"
        colour = layout.door_colour(door)
        if ks.colour != colour:
            return f"cannot unlock {door} with {key}: {key} is {ks.colour or 'colourless'} but {door} is {colour}"
        pos = layout.door_pos(door)
        if abs(pos[0] - here[0]) + abs(pos[1] - here[1]) != 1:
            return f"cannot unlock {door} with {key}: {door} at {fmt_pos(pos)} is not next to the agent at {fmt_pos(here)}"
        return None

    def can(self, action: Action) -> bool:
        """Whether ``action`` is possible here."""
        return self.why_not(action) is None

    def step(self, action: Action) -> "WorldState":
        """The state after ``action``; raises :class:`ImpossibleActionError` with the
        reason when it is impossible."""
        reason = self.why_not(action)
        if reason is not None:
            raise ImpossibleActionError(reason, hint="check the action against the map at this step")
        return self._apply(action)

    def moved(self, pos: Pos) -> "WorldState":
        """This state with the agent at ``pos``, unchecked (the caller knows the move is
        possible). A move changes nothing else, so the copy keeps what was derived from the
        keys; filters step hundreds of worlds per action this way."""
        state = object.__new__(WorldState)
        state.__dict__.update(self.__dict__)
        state.__dict__["agent_pos"] = pos
        return state

    def _apply(self, action: Action) -> "WorldState":
        name = action[0]
        if name in MOVES:
            dx, dy = MOVES[name]
            return replace(self, agent_pos=(self.agent_pos[0] + dx, self.agent_pos[1] + dy))
        if name == "pickup":
            item = action[1]
            if item in self._key_index:
                return self.with_key(item, KeyState(self._key_index[item].colour, ("held",)))
            return replace(self, held_gems=self.held_gems | {item})
        if name == "open":
            return replace(self, closed=self.closed - {action[1]})
        key, door = action[1], action[2]
        state = self.with_key(key, KeyState(self._key_index[key].colour, ("used",)))
        return replace(state, locked=self.locked - {door})

    def available_actions(self) -> tuple[Action, ...]:
        """Every possible action: the moves in the order up, down, left, right, then the
        pickup/open/unlock actions sorted."""
        layout, here = self.layout, self.agent_pos
        out: list[Action] = []
        for m, (dx, dy) in MOVES.items():   # what why_not checks for a move, inline: hot in filters
            target = (here[0] + dx, here[1] + dy)
            if layout.in_bounds(target) and target not in layout.walls and layout.door_at(target) not in self.locked:
                out.append((m,))
        others: list[Action] = []
        for key, ks in self.keys:
            if ks.where[0] in ("cell", "box") and not self.hidden(key) and self.item_pos(key) == here:
                others.append(("pickup", key))
        for gem, pos in layout.gems:
            if pos == here and gem not in self.held_gems:
                others.append(("pickup", gem))
        for box, pos in layout.boxes:
            if box in self.closed and abs(pos[0] - here[0]) + abs(pos[1] - here[1]) <= 1:
                others.append(("open", box))
        held = [(k, ks.colour) for k, ks in self.keys if ks.where == ("held",)]
        if held:
            for door, pos, colour in layout.doors:
                if door in self.locked and abs(pos[0] - here[0]) + abs(pos[1] - here[1]) == 1:
                    others += [("unlock", k, door) for k, c in held if c == colour]
        return tuple(out) + tuple(sorted(others))

    # -- what can be seen, and ground atoms --------------------------------------------

    def view(self) -> Hashable:
        """Everything the agent (and the observer) can see.

        The agent's cell; the colours of the keys it holds and the gems it holds; the
        locked doors; the closed boxes; each visible key's (colour, location) with
        location ``("cell", pos)`` or ``("box", box)`` for a key in an opened box; each
        opened box with its contents as a colour or None. Keys are described by colour,
        not by name, because key objects are interchangeable: two states with equal
        views are indistinguishable to the agent.
        """
        held_keys: list[str] = []
        visible: list[tuple[str, tuple]] = []
        contents: dict[str, list[str]] = {b: [] for b, _ in self.layout.boxes if b not in self.closed}
        for _, ks in self.keys:
            kind = ks.where[0]
            if kind == "held":
                held_keys.append(ks.colour or "")
            elif kind == "cell":
                visible.append((ks.colour or "", ks.where))
            elif kind == "box" and ks.where[1] not in self.closed:
                visible.append((ks.colour or "", ks.where))
                contents[ks.where[1]].append(ks.colour or "")
        opened = tuple(
            (box, None if not cs else cs[0] if len(cs) == 1 else tuple(sorted(cs)))
            for box, cs in sorted(contents.items())
        )
        return (
            self.agent_pos,
            tuple(sorted(held_keys)),
            tuple(sorted(self.held_gems)),
            tuple(sorted(self.locked)),
            tuple(sorted(self.closed)),
            tuple(sorted(visible)),
            opened,
        )

    def atoms(self) -> frozenset[tuple[str, ...]]:
        """The ground atoms that hold here, for ELoT evaluation: ``has``, ``iscolor`` (keys
        with a colour, doors), ``offgrid``, ``locked``, ``closed``, ``hidden``, ``inside``.
        Type predicates and the derived ``empty`` are left to the evaluator."""
        agent = self.layout.agent
        out: set[tuple[str, ...]] = set()
        for key, ks in self.keys:
            if ks.colour is not None:
                out.add(("iscolor", key, ks.colour))
            kind = ks.where[0]
            if kind == "held":
                out.add(("has", agent, key))
                out.add(("offgrid", key))
            elif kind in ("used", "offgrid"):
                out.add(("offgrid", key))
            elif kind == "box":
                out.add(("inside", key, ks.where[1]))
                if ks.where[1] in self.closed:
                    out.add(("hidden", key))
        for gem in self.held_gems:
            out.add(("has", agent, gem))
            out.add(("offgrid", gem))
        for door, _, colour in self.layout.doors:
            out.add(("iscolor", door, colour))
        out.update(("locked", d) for d in self.locked)
        out.update(("closed", b) for b in self.closed)
        return frozenset(out)

    def render(self) -> str:
        """An ASCII drawing of the TRUE state in the dataset's convention: ``W`` wall,
        ``.`` floor, ``h`` agent, ``g`` gem, ``C`` closed box, ``F``/``O``/``U``/``Q``
        closed box hiding a red/blue/yellow/green key, ``o`` open box, ``R``/``B``/``Y``/
        ``E`` locked door and ``r``/``b``/``y``/``e`` visible key of those colours (``?``
        and ``k`` for other colours). The agent hides what it stands on."""
        return "\n".join(draw(self.layout, self._glyphs()))

    def _glyphs(self) -> Iterator[tuple[Pos, str]]:
        layout = self.layout
        for door, pos, colour in layout.doors:
            if door in self.locked:
                yield pos, DOOR_GLYPHS.get(colour, "?")
        for box, pos in layout.boxes:
            if box in self.closed:
                inside = [self.key(k).colour for k in self.box_contents(box)]
                yield pos, BOX_GLYPHS.get(inside[0] or "", "C") if inside else "C"
            else:
                yield pos, "o"
        for gem, pos in layout.gems:
            if gem not in self.held_gems:
                yield pos, "g"
        for key, ks in self.keys:
            if ks.where[0] == "cell" or (ks.where[0] == "box" and ks.where[1] not in self.closed):
                yield self.item_pos(key), KEY_GLYPHS.get(ks.colour or "", "k")
        yield self.agent_pos, "h"


def draw(layout: Layout, marks: Iterable[tuple[Pos, str]]) -> list[str]:
    """The rows of an ASCII drawing of ``layout``: ``W`` on walls, ``.`` elsewhere, then
    each ``(cell, character)`` of ``marks`` in turn (a later mark covers an earlier one)."""
    grid = [["." for _ in range(layout.width)] for _ in range(layout.height)]
    for x, y in layout.walls:
        grid[y - 1][x - 1] = "W"
    for (x, y), char in marks:
        grid[y - 1][x - 1] = char
    return ["".join(row) for row in grid]


def describe_placement(layout: Layout, state: WorldState) -> str:
    """The colour of the key in each box, ``–`` for an empty box: ``box1: red, box2: –``."""
    inside: dict[str, str] = {}
    for _, key in state.keys:
        if key.where[0] == "box":
            inside[key.where[1]] = key.colour or "spare"
    boxes = [name for name, _ in layout.boxes]
    return ", ".join(f"{b}: {inside.get(b, '–')}" for b in boxes)
