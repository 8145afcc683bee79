"""Colours and shapes of the map painter.

Colours come from the Okabe–Ito palette, which stays distinct under the common forms of
colour blindness; every coloured thing also carries its colour's initial letter, and the
kinds of thing differ by shape (a door fills its cell and has a keyhole, a key is a key,
gems are solid shapes, one shape per gem), so no distinction rests on colour alone.
"""

from __future__ import annotations

#: Okabe–Ito colours for the colour names scenarios use.
COLOURS = {
    "red": "#D55E00",      # vermillion
    "blue": "#0072B2",
    "yellow": "#F0E442",
    "green": "#009E73",    # bluish green
    "orange": "#E69F00",
    "purple": "#CC79A7",   # reddish purple
    "cyan": "#56B4E9",     # sky blue
    "white": "#EEEEEE",
    "black": "#000000",
}
GREY = "#888888"

WALL = "#1a1a1a"
FLOOR = "#ffffff"
GRID = "#b0b0b0"
BOX = "#c8a27a"        # cardboard
BOX_EDGE = "#6b4a2b"
BOX_OPEN = "#efe3d3"
GEM_FILL = "#CC79A7"   # gems share one hue; their shapes tell them apart
GEM_EDGE = "#5a2a48"
AGENT = "#000000"
TRAIL = "#555555"

#: One polygon per gem, in gem order: (number of corners, rotation in degrees), 0 = circle.
GEM_SHAPES = ((3, 0), (4, 45), (6, 0), (0, 0), (5, 0), (4, 0), (8, 22.5), (3, 180))


def colour(name: str | None) -> str:
    """The drawing colour of a scenario colour name (an unknown name is used as given by
    matplotlib if it can, else grey)."""
    if not name:
        return GREY
    if name in COLOURS:
        return COLOURS[name]
    from matplotlib.colors import is_color_like

    return name if is_color_like(name) else GREY


def letter(name: str | None) -> str:
    """The initial printed on a coloured door or key (``R`` for red), for readers who
    cannot tell the colours apart."""
    return (name or "?")[0].upper()


def ink(background: str) -> str:
    """Black or white, whichever reads better on ``background``."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(background)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"
