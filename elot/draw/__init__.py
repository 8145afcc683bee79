"""Drawing the Doors, Keys & Gems world: one painter shared by every picture of a map.

* :mod:`elot.draw.palette` — the colour-blind safe colours and the shapes that tell
  doors, keys, gems and boxes apart without colour, and each statement's colour in every
  figure of statements (:func:`~elot.draw.palette.statement_colours`);
* :mod:`elot.draw.board` — :class:`~elot.draw.board.Board`, the map painter: a static
  layer (floor, grid, walls) drawn once and the things that change (doors, boxes, keys,
  gems, the agent, its trail, the inventory) drawn per state;
* :mod:`elot.draw.animation` — stimulus animations (GIF, MP4 when ffmpeg is present)
  rendered by blitting the painter's changing layer over its static one;
* :mod:`elot.draw.storyboard` — the paper's Figure-4 layout (frames at the judgment
  points over one panel per statement) and the statement-design chart.

``elot map`` (:func:`elot.plots.map_figure`), ``elot stimuli`` and ``elot storyboard``
all draw maps with :class:`~elot.draw.board.Board`, so they look alike. Functions here
take world states and plain numbers and return matplotlib ``Figure`` objects or images;
they never run inference.
"""
