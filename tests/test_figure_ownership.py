"""F9 (issue #36): a figure a user edited needs --force, like an edited table. A mark
inside a figure survives an edit (an SVG annotated in an editor keeps its metadata, a PNG
drawn on keeps its text chunks), so elot replaces a figure only while its bytes are those
it recorded in the sidecar ``.NAME.elot``; a figure with the mark and no record (an older
elot's) is replaced only with --force."""

from __future__ import annotations

import contextlib
import io
import struct
import subprocess
import zlib

import pytest

from elot.draw.storyboard import save_figure
from elot.output import sidecar


def cli(*argv: str) -> subprocess.CompletedProcess:
    from elot.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 2
    out.flush()
    return subprocess.CompletedProcess(argv, code, out.buffer.getvalue().decode("utf-8"), err.getvalue())


def _figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot([0, 1], [0, 1])
    return fig


def _annotate_svg(path):
    """What an editor does: a note added before </svg>, the metadata kept."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("</svg>", '<text x="5" y="5">my note</text>\n</svg>'), encoding="utf-8")


def _draw_on_png(path):
    """What a paint program that keeps text chunks does: the image data changed (an IDAT
    chunk of a different image), the tEXt chunks before it kept as they were."""
    data = path.read_bytes()
    at = data.index(b"IDAT") - 4
    length = struct.unpack(">I", data[at:at + 4])[0]
    pixels = zlib.compress(b"\x00" + b"\xff" * 12)
    chunk = struct.pack(">I", len(pixels)) + b"IDAT" + pixels + struct.pack(">I", zlib.crc32(b"IDAT" + pixels))
    path.write_bytes(data[:at] + chunk + data[at + 12 + length:])


@pytest.mark.parametrize("suffix, edit", [("svg", _annotate_svg), ("png", _draw_on_png)])
def test_an_edited_figure_keeping_its_mark_is_not_replaced_without_force(tmp_path, suffix, edit):
    path = tmp_path / f"f.{suffix}"
    save_figure(_figure(), path)
    save_figure(_figure(), path)                     # its own figure, unchanged: replaced
    edit(path)
    edited = path.read_bytes()
    assert b"elot" in edited[:4096]                  # the mark inside survived the edit
    with pytest.raises(Exception, match="does not look like a file elot wrote") as raised:
        save_figure(_figure(), path)
    assert "changed since elot wrote it" in raised.value.render()
    assert path.read_bytes() == edited
    save_figure(_figure(), path, force=True)
    assert path.read_bytes() != edited
    save_figure(_figure(), path)                     # and it is elot's again


def test_a_figure_with_the_mark_but_no_record_needs_force(tmp_path):
    path = tmp_path / "f.svg"
    save_figure(_figure(), path)
    sidecar(path).unlink()                           # as an older elot left it
    before = path.read_bytes()
    with pytest.raises(Exception, match="does not look like a file elot wrote") as raised:
        save_figure(_figure(), path)
    assert "no record of its bytes" in raised.value.render() and path.read_bytes() == before
    save_figure(_figure(), path, force=True)
    assert sidecar(path).exists()


def test_cli_plot_refuses_a_png_drawn_on_and_replaces_its_own(tmp_path):
    figure = tmp_path / "p.png"
    assert cli("plot", "-o", str(figure)).returncode == 0
    assert cli("plot", "-o", str(figure)).returncode == 0
    _draw_on_png(figure)
    edited = figure.read_bytes()
    run = cli("plot", "-o", str(figure))
    assert run.returncode == 2 and "not replacing it" in run.stderr and "--force" in run.stderr
    assert "Traceback" not in run.stderr and figure.read_bytes() == edited
    assert cli("plot", "-o", str(figure), "--force").returncode == 0 and figure.read_bytes() != edited


def test_cli_storyboard_refuses_an_annotated_svg(tmp_path):
    out = tmp_path / "sb.svg"
    assert cli("storyboard", "default", "-o", str(out)).returncode == 0
    _annotate_svg(out)
    annotated = out.read_bytes()
    run = cli("storyboard", "default", "-o", str(out))
    assert run.returncode == 2 and "changed since elot wrote it" in run.stderr and out.read_bytes() == annotated
