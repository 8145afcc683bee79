"""Stimulus animations: frames a domain's renderer draws (:class:`elot.draw.frames.Renderer`,
RGB arrays), written as GIF (Pillow, always available with matplotlib) and MP4 (only when
``ffmpeg`` is on the PATH), with one palette per scenario made from a sample of its frames.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Sequence

import numpy as np


#: Frames per second of the paper's stimuli (about 3).
FPS = 3
#: How long the last frame of a segment stays up, in seconds, so that the final position
#: registers before the judgment (a longer duration, not an extra frame).
HOLD = 1.5


def palette_for(frames: Sequence[np.ndarray], colors: int = 96):
    """One GIF palette made from ``frames`` (a sample of a scenario's frames that shows
    every colour it uses). Quantizing each frame on its own cost 40 ms a frame; mapping
    onto a shared palette 1.5 ms, and the colours stay the same between segments."""
    return _quantize(np.concatenate(list(frames), axis=0), colors)


def palette_of(renderer, steps: Sequence[int], colors: int = 96):
    """:func:`palette_for` the frames of ``steps``, drawn one at a time into one array
    (the frames are never all held besides it)."""
    width, height = renderer.size
    mosaic = np.empty((len(steps) * height, width, 3), np.uint8)
    for n, t in enumerate(steps):
        mosaic[n * height:(n + 1) * height] = renderer.frame(t)
    return _quantize(mosaic, colors)


#: Bytes a pixel of a palette's sample takes while the palette is made (:func:`palette_of`):
#: the sample (3), Pillow's copy of it (4) and its quantizer's tables; measured 15.6 to 17.0.
PALETTE_BYTES_PER_PIXEL = 17


def _quantize(mosaic: np.ndarray, colors: int):
    from PIL import Image

    image = Image.fromarray(mosaic)
    try:
        return image.quantize(colors=colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    except ValueError as error:   # Pillow's way of saying that it ran out of memory
        raise MemoryError(f"making a GIF palette from {mosaic.nbytes / 2**20:,.0f} MiB of frames: {error}") \
            from None


def write_gif(frames: Sequence[np.ndarray], path: str | Path, *, palette=None, fps: float = FPS,
              hold: float = HOLD, loop: bool = False) -> None:
    """Write ``frames`` as a GIF (on ``palette``, a ``P`` image from :func:`palette_for`,
    else one made from these frames); the last frame stays up ``hold`` seconds. It plays
    once, as the paper's stimuli do (no looping extension: browsers then stop on the last
    frame), or forever with ``loop``."""
    from PIL import Image

    palette = palette if palette is not None else palette_for(frames)
    images = [Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    step = int(round(1000 / fps))
    durations = [step] * (len(images) - 1) + [max(step, int(hold * 1000))]
    repeat = {"loop": 0} if loop else {}     # Pillow writes the looping extension only when asked
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=durations,
                   optimize=False, disposal=1, **repeat)


def ffmpeg() -> str | None:
    """The ``ffmpeg`` program, if it is on the PATH."""
    return shutil.which("ffmpeg")


def write_mp4(frames: Sequence[np.ndarray], path: str | Path, *, fps: float = FPS, hold: float = HOLD) -> None:
    """Write ``frames`` as an H.264 MP4 through ``ffmpeg`` (the last frame repeated to
    last ``hold`` seconds, since a video has one frame rate)."""
    program = ffmpeg()
    if program is None:
        raise FileNotFoundError("ffmpeg")
    height, width = frames[0].shape[:2]
    extra = max(0, int(round(hold * fps)) - 1)
    data = b"".join(f.tobytes() for f in [*frames, *[frames[-1]] * extra])
    # even sizes: H.264's 4:2:0 chroma needs them
    command = [program, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}",
               "-r", str(fps), "-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=white",
               "-pix_fmt", "yuv420p", "-c:v", "libx264", "-f", "mp4", str(path)]
    subprocess.run(command, input=data, check=True, capture_output=True)
