"""Colours, shapes and the default size of the map painter (a module light to import).

The colours scenarios name (:data:`COLOURS`, every colour ``elot generate`` uses) start
from the Okabe–Ito palette, which stays distinct under the common forms of colour
blindness, with three changes: red is a true red, darker than orange and yellow (Okabe–Ito's
vermillion reads as orange, and statements say "red key"); purple is a dark violet and pink
a light pink (Okabe–Ito's reddish purple and matplotlib's pink were one hue at two
lightnesses, hard to tell apart); and the colours past Okabe–Ito's seven (pink, brown, grey,
white, black, gold) are chosen to stay apart from them and from one another in lightness
or hue. Colour is never alone, though: every coloured door or key also carries its
colour's own letters (:func:`letter`: ``R`` for red, ``Pk`` for pink, no two colours
alike), and the kinds of thing differ by shape (a door fills its cell and has a keyhole,
a key is a key, gems are solid shapes). Gems differ in shape *and* colour
(:data:`GEM_SHAPES`, :data:`GEM_COLOURS`), as the paper's do.
"""

from __future__ import annotations

#: The default size of a stimulus frame's longer side in pixels: a picture that fills a
#: survey page (the paper's team rendered 1600 px, shown at about 800).
FRAME_SIZE = 800

#: The smallest legible cell of a stimulus frame, in pixels (the agent, a key's letters and
#: a box's number are specks below it; ``--cell`` refuses less).
MIN_CELL = 16

#: The drawing colour of each colour name scenarios use (``elot generate``'s colours).
COLOURS = {
    "red": "#D7263D",      # a red that reads red (Okabe–Ito's vermillion reads orange)
    "blue": "#0072B2",
    "yellow": "#F0E442",
    "green": "#009E73",    # bluish green
    "orange": "#E69F00",
    "purple": "#5E2A84",   # a dark violet: darker and bluer than pink
    "cyan": "#56B4E9",     # sky blue
    "pink": "#F7A1C4",     # light, apart from purple in lightness as well as hue
    "brown": "#7F4A1A",
    "grey": "#9E9E9E",
    "white": "#EEEEEE",
    "black": "#000000",
    "gold": "#A68A00",     # darker and greener than orange and yellow
}
#: Other spellings of a colour in :data:`COLOURS`.
ALIASES = {"gray": "grey"}

#: The letters printed on a door or key of each colour in :data:`COLOURS`, for readers who
#: cannot tell the colours apart: the initial where no other colour shares it, else two
#: letters that say the name (pink ``Pk`` beside purple ``P``, brown ``Br`` beside blue ``B``).
LETTERS = {
    "red": "R", "blue": "B", "yellow": "Y", "green": "G", "orange": "O", "purple": "P", "cyan": "C",
    "white": "W", "pink": "Pk", "brown": "Br", "grey": "Gy", "black": "Bk", "gold": "Gd",
}
GREY = "#888888"

WALL = "#1a1a1a"
FLOOR = "#ffffff"
GRID = "#b0b0b0"
BOX = "#c8a27a"        # cardboard
BOX_EDGE = "#6b4a2b"
BOX_LID = "#dcc3a4"
BOX_OPEN = "#f3eadf"
BOX_NUMBER = "#000000"
BOX_NUMBER_OPEN = "#4a3826"   # an opened box's number: as large, a little softer, still dark
GEM_FILL = "#CC79A7"   # the legend's generic gem
GEM_EDGE = "#5a2a48"
AGENT = "#000000"
TRAIL = "#555555"

#: One polygon per gem, in gem order: (number of corners, rotation in degrees), 0 = circle.
#: The map's y axis points down, so a rotation of 180 draws a triangle pointing up.
GEM_SHAPES = ((3, 180), (4, 45), (6, 0), (0, 0), (5, 180), (4, 0), (8, 22.5), (3, 0))

#: One colour per gem, in gem order (as the paper's gems, which differ in shape and
#: colour): (fill, edge, the paler facet inside).
GEM_COLOURS = (
    ("#7FCDBB", "#1B6E5E", "#D3EFE7"),   # teal
    ("#B4A7F5", "#46389A", "#E4DEFC"),   # lavender
    ("#F5B27A", "#9A4E14", "#FBE3CE"),   # apricot
    ("#F0A8D0", "#942C69", "#FBDEEE"),   # pink
    ("#F3DE6B", "#7D6E0C", "#FBF3C6"),   # yellow
    ("#8EC9F0", "#1D5A85", "#DAEEFB"),   # sky
    ("#B5D98B", "#4A7419", "#E4F1D3"),   # leaf
    ("#D9B38C", "#684727", "#F1E3D4"),   # sand
)


def gem_colours(index: int) -> tuple[str, str, str]:
    """(fill, edge, facet) of the ``index``-th gem."""
    return GEM_COLOURS[index % len(GEM_COLOURS)]


def colour(name: str | None) -> str:
    """The drawing colour of a scenario colour name (an unknown name is used as given by
    matplotlib if it can, else grey)."""
    if not name:
        return GREY
    name = ALIASES.get(name, name)
    if name in COLOURS:
        return COLOURS[name]
    from matplotlib.colors import is_color_like

    return name if is_color_like(name) else GREY


def letter(name: str | None) -> str:
    """The letters printed on a door or key of colour ``name`` (``R`` for red, ``Pk`` for
    pink: :data:`LETTERS`); a colour elot does not know gets its first two letters
    (``magenta`` → ``Ma``), apart from every known colour's single initial. Within one map
    use :func:`letters`, which also keeps unknown colours apart from one another."""
    if not name:
        return "?"
    name = ALIASES.get(name, name)
    return LETTERS.get(name) or name[:2].title()


def letters(names) -> dict[str, str]:
    """The letters of each colour of one map (:func:`letter`), no two alike: an unknown
    colour whose letters another colour of the map already has gets more of its name
    (``bronze`` → ``Bro`` beside brown's ``Br``), or a number."""
    out: dict[str, str] = {}
    names = list(dict.fromkeys(n for n in names if n))
    taken = {letter(n) for n in names if ALIASES.get(n, n) in LETTERS}
    for name in names:
        if ALIASES.get(name, name) in LETTERS:
            out[name] = letter(name)
            continue
        base = name.title()
        choice = next((base[:k] for k in range(2, len(base) + 1) if base[:k] not in taken), None)
        n = 2
        while choice is None or choice in taken:
            choice, n = f"{base[:2]}{n}", n + 1
        out[name] = choice
        taken.add(choice)
    return out


def ink(background: str) -> str:
    """Black or white, whichever reads better on ``background``."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(background)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


#: The colour of each statement in every figure that draws statements (score curves,
#: storyboards, the design chart), in statement order: S1 is blue wherever it is drawn.
#: The first six are Okabe–Ito's (without its black, which reads as "no colour", and its
#: yellow, unreadable as text or thin lines on white); the next four are Paul Tol's
#: (indigo, wine, olive, teal), as dark. More statements than colours cycle: a figure
#: tells statements apart by their S-number and marker too, never by colour alone.
STATEMENT_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                     "#332288", "#882255", "#999933", "#44AA99")


def statement_colour(index: int) -> str:
    """The colour of the ``index``-th statement (0-based: S1 is index 0)."""
    return STATEMENT_COLOURS[index % len(STATEMENT_COLOURS)]


def statement_colours(n: int) -> list[str]:
    """The colours of statements S1..Sn, in order (see :data:`STATEMENT_COLOURS`)."""
    return [statement_colour(i) for i in range(n)]


def darker(colour: str, amount: float = 0.35) -> str:
    """``colour`` mixed with ``amount`` of black: the same hue, dark enough for text."""
    from matplotlib.colors import to_hex, to_rgb

    return to_hex(tuple(c * (1 - amount) for c in to_rgb(colour)))


def paler(colour: str, amount: float = 0.6) -> str:
    """``colour`` mixed with ``amount`` of white: what was and is no longer there (a key
    already picked up, drawn where it lay)."""
    from matplotlib.colors import to_hex, to_rgb

    return to_hex(tuple(c + (1 - c) * amount for c in to_rgb(colour)))
