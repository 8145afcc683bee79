"""The gridworld a PDDL problem describes: :func:`world_from_problem` checks a
:class:`~elot.domains.doors_keys_gems.pddl.Problem` against the Doors, Keys & Gems domain (object types,
predicates and their arities, positions inside the grid, colours of doors and keys) and
builds its :class:`~elot.domains.doors_keys_gems.world.Layout` and initial :class:`~elot.domains.doors_keys_gems.world.WorldState`.

Every error is a :class:`~elot.errors.ScenarioError` located at the problem file's line.
"""

from __future__ import annotations

import difflib
import re
from elot.domains.sexpr import line_span
from elot.domains.doors_keys_gems.world import KeyState, Layout, Pos, WorldState, fmt_pos
from elot.errors import LineIndex, ScenarioError

#: The object types of the Doors, Keys & Gems domain.
OBJECT_TYPES = ("agent", "gem", "door", "box", "key", "color")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_INIT_EXAMPLE = {"inside": "(inside key1 box1)", "iscolor": "(iscolor key1 red)", "has": "(has human key1)",
                 "locked": "(locked door1)", "closed": "(closed box1)", "offgrid": "(offgrid key2)",
                 "hidden": "(hidden key1)", "empty": "(empty box2)"}
_INIT_ARITY = {name: example.count(" ") for name, example in _INIT_EXAMPLE.items()}


def world_from_problem(problem) -> tuple[Layout, WorldState]:
    """The layout and initial state described by a :class:`Problem`.

    Keys inside a box (``inside``) are placed there, keys with ``offgrid`` off the grid
    (held when ``has`` says so), other keys on their cell; keys without ``iscolor`` have
    no colour.
    """
    path, source = problem.path, problem.source

    def fail(message: str, hint: str | None = None, atom: tuple | None = None) -> ScenarioError:
        span = line_span(source, problem.lines.get(atom)) if atom is not None else None
        return ScenarioError(message, path=path, source=source, span=span, hint=hint)

    def declared(name: str, message: str, hint: str) -> ScenarioError:
        # the object's declaration under :objects (Problem keeps no line per object)
        start = source.find(":objects") if source else -1
        found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", source[start:]) if start >= 0 else None
        span = LineIndex(source).span(start + found.start(), start + found.end()) if found else None
        return ScenarioError(message, path=path, source=source, span=span, hint=hint)

    for name, kind in problem.objects.items():
        if kind not in OBJECT_TYPES:
            raise declared(name, f"object {name} has unknown type {kind!r}",
                           f"the types of this domain are {', '.join(OBJECT_TYPES)}")
        if not _NAME.match(name):
            hint = (f"an uppercase name is a variable in ELoT: write {name.lower()!r}" if name[:1].isupper()
                    else "use lowercase letters, digits and '_', starting with a letter")
            raise declared(name, f"object name {name!r} is not an ELoT name", hint)
    for atom in problem.init:
        arity = _INIT_ARITY.get(atom[0])
        if arity is None:
            close = difflib.get_close_matches(atom[0], _INIT_ARITY, n=1)
            raise fail(f"unknown predicate {atom[0]!r} in :init",
                       hint=(f"did you mean {close[0]!r}? " if close else "")
                       + f"the domain's predicates are {', '.join(sorted(_INIT_ARITY))}", atom=atom)
        if len(atom) - 1 != arity:
            raise fail(f"{atom[0]} takes {arity} argument{'s' if arity > 1 else ''}, got {len(atom) - 1}",
                       hint=f"write e.g. {_INIT_EXAMPLE[atom[0]]}", atom=atom)
    if not problem.objects_of("gem"):
        raise fail("the problem has no gems, so there is no goal to infer", hint="declare gems: `gem1 gem2 - gem`")
    agents = problem.objects_of("agent")
    if len(agents) != 1:
        raise fail(f"expected exactly one agent object, found {len(agents)}", hint="declare one object `- agent`")
    agent = agents[0]
    if problem.grid is None:
        raise fail("no grid size: missing (= (walls) (new-bit-matrix false ROWS COLS))")
    height, width = problem.grid
    atoms = set(problem.init)
    colour_of = {a[1]: a[2] for a in problem.init if a[0] == "iscolor" and len(a) == 3}

    def pos_of(name: str) -> Pos:
        try:
            pos = (problem.fluents[("xloc", name)], problem.fluents[("yloc", name)])
        except KeyError:
            raise fail(f"{name} has no position (xloc/yloc)", hint=f"add (= (xloc {name}) X) and (= (yloc {name}) Y)")
        if not (1 <= pos[0] <= width and 1 <= pos[1] <= height):
            raise fail(f"{name} at {fmt_pos(pos)} is outside the {width}x{height} grid", atom=("xloc", name))
        return pos

    walls = frozenset((c, r) for r, c in problem.walls)
    held_gems = frozenset(g for g in problem.objects_of("gem") if ("has", agent, g) in atoms)
    gems = tuple((g, pos_of(g)) for g in problem.objects_of("gem") if g not in held_gems)
    gems += tuple((g, (-1, -1)) for g in problem.objects_of("gem") if g in held_gems)
    doors = []
    for d in problem.objects_of("door"):
        if d not in colour_of:
            raise fail(f"door {d} has no colour", hint=f"add (iscolor {d} COLOUR)")
        doors.append((d, pos_of(d), colour_of[d]))
    boxes = tuple((b, pos_of(b)) for b in problem.objects_of("box"))
    box_names = {b for b, _ in boxes}
    keys: list[tuple[str, KeyState]] = []
    for k in problem.objects_of("key"):
        colour = colour_of.get(k)
        inside = [a[2] for a in problem.init if a[0] == "inside" and a[1] == k]
        if len(inside) > 1:
            raise fail(f"key {k} is inside both {inside[0]} and {inside[1]}",
                       hint="a key is inside one box at most: remove one of the atoms", atom=("inside", k, inside[1]))
        if ("has", agent, k) in atoms:
            where: tuple = ("held",)
        elif inside:
            if inside[0] not in box_names:
                raise fail(f"key {k} is inside {inside[0]}, which is not a box", atom=("inside", k, inside[0]))
            where = ("box", inside[0])
        elif ("offgrid", k) in atoms:
            where = ("offgrid",)
        else:
            where = ("cell", pos_of(k))
        if where[0] in ("cell", "box") and colour is None:
            raise fail(f"key {k} is on the map but has no colour", hint=f"add (iscolor {k} COLOUR)")
        keys.append((k, KeyState(colour, where)))
    for atom in sorted(a for a in atoms if a[0] == "empty"):   # derived in the domain: it must agree
        inside = [k for k, state in keys if state.where == ("box", atom[1])]
        if atom[1] not in box_names or inside:
            raise fail(f"{atom[1]} is not a box" if atom[1] not in box_names
                       else f"box {atom[1]} is said to be empty, but {inside[0]} is inside it",
                       hint="empty is derived from inside: remove the atom", atom=atom)
    layout = Layout(
        width=width,
        height=height,
        walls=walls,
        agent=agent,
        gems=gems,
        doors=tuple(doors),
        boxes=boxes,
        keys=tuple(problem.objects_of("key")),
        colours=problem.objects_of("color"),
    )
    if pos_of(agent) in walls:
        raise fail(f"the agent {agent} starts on a wall at {fmt_pos(pos_of(agent))}",
                   hint="move the agent (xloc/yloc) or remove the wall (set-index walls false ROW COL)",
                   atom=("xloc", agent))
    state = WorldState(
        layout=layout,
        agent_pos=pos_of(agent),
        keys=tuple(sorted(keys)),
        locked=frozenset(d for d, _, _ in doors if ("locked", d) in atoms),
        closed=frozenset(b for b, _ in boxes if ("closed", b) in atoms),
        held_gems=held_gems,
    )
    return layout, state
