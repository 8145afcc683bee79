"""Figures of any domain's scenes, drawn by the pictures each domain's front gives
(:meth:`elot.domains.front.Front.frames`); nothing here knows a domain.

* :mod:`elot.draw.frames` — :class:`~elot.draw.frames.Frames`, a scenario's pictures (one
  panel per judgment point, one frame per step), and the renderers that turn them into
  images (:class:`~elot.draw.frames.PlotFrames` for a domain that draws with one function);
* :mod:`elot.draw.marks` — marks several domains share (the agent, gem shapes and icons);
* :mod:`elot.draw.palette` — the colour-blind safe colours and shapes, and each
  statement's colour in every figure of statements;
* :mod:`elot.draw.animation` — stimulus animations (GIF, MP4 when ffmpeg is present);
* :mod:`elot.draw.storyboard` — the paper's Figure-4 layout (frames at the judgment
  points over one panel per statement) and the statement-design chart.

``elot map``, ``elot stimuli``, ``elot storyboard`` and the survey all draw a scenario with
its front's frames, so they look alike. Functions here take frames and plain numbers and
return matplotlib ``Figure`` objects or images; they never run inference.
"""
