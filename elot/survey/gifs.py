"""The stimulus set's animated GIFs as a survey plays them: how many frames and how long
one play takes (the page waits for it), and the same GIF made to play once."""

from __future__ import annotations

from pathlib import Path


def gif_timing(path: Path) -> tuple[int, int]:
    """The frames of an animated GIF and how long one play takes (ms)."""
    from PIL import Image

    with Image.open(path) as image:
        frames = getattr(image, "n_frames", 1)
        total = 0
        for n in range(frames):
            image.seek(n)
            total += int(image.info.get("duration", 0) or 0)
    return frames, total


def play_once(data: bytes) -> bytes:
    """A GIF that plays once and stays on its last frame: the same bytes without the
    NETSCAPE2.0 loop block (the stimulus set's animations loop forever)."""
    marker = b"\x21\xff\x0bNETSCAPE2.0\x03\x01"
    at = data.find(marker)
    if at < 0:
        return data
    return data[:at] + data[at + len(marker) + 3:]
