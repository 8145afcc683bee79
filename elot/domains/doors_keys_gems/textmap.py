"""A Doors-Keys-Gems scene as text (the REPL's ``:map``): the grid at step t of the true
states, with a legend.

Walls ``███``, floor ``·``, the path walked so far ``•``, the agent ``@``, gems ``gN``,
locked doors ``D`` + colour initial (``DR``), unlocked doors ``d`` + initial, closed boxes
``[N]``, opened boxes ``[r]`` (the colour of the key seen in it) or ``[ ]``, keys lying on a
cell ``k`` + initial. Only what the observer has seen is drawn: keys in closed boxes are
not. Colours double the letters (each cell carries a terminal style).
"""

from __future__ import annotations

from typing import Sequence

from elot.domains.source import TextMap

#: Terminal styles of the colours scenarios use; anything else is shown as its own name.
COLOUR_STYLES = {
    "red": "red",
    "blue": "blue",
    "yellow": "yellow",
    "green": "green",
    "orange": "dark_orange",
    "purple": "magenta",
    "pink": "hot_pink",
    "white": "white",
}


def colour_style(colour: str | None) -> str:
    """The terminal style of a scenario colour name (``''`` for none)."""
    if not colour:
        return ""
    return COLOUR_STYLES.get(colour, colour if colour.isalpha() else "")


def _tag(name: str) -> str:
    """The short label of an object on the map: its number (``box2`` → ``2``)."""
    digits = "".join(ch for ch in name if ch.isdigit())
    return digits or name[:1]


def _initial(colour: str | None) -> str:
    return (colour or "?")[:1]


def text_map(states: Sequence, t: int) -> TextMap:
    """The grid at step ``t`` of the true states ``s_0..s_T`` (see the module docstring)."""
    state = states[t]
    layout = state.layout
    cells: dict[tuple[int, int], tuple[str, str]] = {}
    for pos in layout.walls:
        cells[pos] = ("███", "grey50")
    for gem, pos in layout.gems:
        if gem not in state.held_gems and layout.in_bounds(pos):
            cells[pos] = (f"g{_tag(gem)}", "bold magenta")
    for door, pos, colour in layout.doors:
        if door in state.locked:
            cells[pos] = (f"D{_initial(colour).upper()}", f"bold white on {colour_style(colour) or 'grey30'}")
        else:
            cells[pos] = (f"d{_initial(colour).lower()}", colour_style(colour))
    for box, pos in layout.boxes:
        if box in state.closed:
            cells[pos] = (f"[{_tag(box)}]", "bold")
        else:
            inside = [state.key(k).colour for k in state.box_contents(box)]
            colour = inside[0] if inside else None
            cells[pos] = (f"[{_initial(colour).lower()}]" if inside else "[ ]", colour_style(colour))
    for key, ks in state.keys:
        if ks.where[0] == "cell":
            cells[ks.where[1]] = (f"k{_initial(ks.colour).lower()}", f"bold {colour_style(ks.colour)}".strip())
    cells[state.agent_pos] = ("@", "bold reverse")
    walked = frozenset(s.agent_pos for s in states[: t + 1])
    return TextMap(layout.width, layout.height, cells, walked, tuple(_legend(state)))


def _legend(state) -> list[tuple[str, str]]:
    layout = state.layout
    x, y = state.agent_pos
    out = [("@", "bold reverse"), (f" {layout.agent} at ({x},{y})   ", ""), ("•", "cyan"), (" path walked   ", ""),
           ("███", "grey50"), (" wall\n", "")]
    boxes = []
    for box, pos in layout.boxes:
        if box in state.closed:
            boxes.append(f"[{_tag(box)}] {box} closed")
        else:
            inside = [state.key(k).colour or "spare" for k in state.box_contents(box)]
            boxes.append(f"{box} open: " + (", ".join(f"{c} key" for c in inside) if inside else "empty"))
    if boxes:
        out.append(("boxes: " + "; ".join(boxes) + "\n", ""))
    doors = [f"{door} {colour} {'locked' if door in state.locked else 'unlocked'}"
             for door, _, colour in layout.doors]
    if doors:
        out.append(("doors: " + "; ".join(doors) + "\n", ""))
    gems = [f"g{_tag(g)} {g}" for g, _ in layout.gems if g not in state.held_gems]
    if gems:
        out.append(("gems: " + ", ".join(gems) + "\n", ""))
    held = [f"{ks.colour} key" for _, ks in state.keys if ks.where[0] == "held"]
    held += sorted(state.held_gems)
    used = [f"{ks.colour}" for _, ks in state.keys if ks.where[0] == "used"]
    out.append(("holding: " + (", ".join(held) if held else "nothing"), ""))
    if used:
        out.append(("   used keys: " + ", ".join(used), ""))
    return out
