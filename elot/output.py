"""Writing elot's output files (tables, query logs, figures) without losing the user's data.

Every command that writes a file goes through :func:`write_output`, which

* writes ``-`` to standard output (text or bytes) instead of a file named ``-``;
* refuses a directory that does not exist (it is not created behind the user's back);
* never replaces a file with an empty result;
* replaces an existing file only if it is *ours* (see below) or ``force`` is given;
* writes atomically: to a temporary file in the same directory, then renamed over the
  target, so an interrupted or failed write leaves the old file as it was.

A file is *ours* when it is empty or its content is what elot writes in that format: the
caller passes a recognizer (:func:`csv_with_header`, :func:`json_where`, :func:`elot_png`)
that looks at the existing bytes. A file that does not look like elot's output (a user's
notes, data of another program) is only replaced with ``--force``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Union

from elot.errors import ElotError

#: The path that means standard output.
STDOUT = "-"

#: What a recognizer gets: the existing file's bytes; it says whether elot wrote them.
Recognizer = Callable[[bytes], bool]
Content = Union[str, bytes, Callable[[BinaryIO], None]]


def write_output(path: str | os.PathLike, content: Content, *, ours: Recognizer,
                 force: bool = False, option: str = "the output") -> str:
    """Write ``content`` (text, bytes, or a function writing to a binary handle) to
    ``path``, or to standard output for ``-``; returns the name written to.

    ``ours`` recognizes a file elot would have written; ``option`` names the option the
    path came from (``--csv``), for the messages."""
    if str(path) == STDOUT:
        data = _render(content)
        if not data:
            raise ElotError(f"nothing to write for {option}", hint="there is no result to write yet")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "standard output"
    target = check_target(path, ours=ours, force=force, option=option)
    parent = target.parent
    handle, temporary = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            if callable(content):
                content(stream)
            else:
                stream.write(content.encode("utf-8") if isinstance(content, str) else content)
            stream.flush()
            os.fsync(stream.fileno())
        if os.path.getsize(temporary) == 0:
            raise ElotError(f"nothing to write to {target}; it was left as it was",
                            hint="there is no result to write yet")
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except OSError as error:
        raise ElotError(f"cannot write {target}: {error.strerror or error}",
                        hint=f"check the path given to {option}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return str(target)


def check_target(path: str | os.PathLike, *, ours: Recognizer, force: bool = False,
                 option: str = "the output") -> Path:
    """The checks of :func:`write_output` before anything is computed: the directory
    exists and an existing file may be replaced. Returns the target path."""
    target = Path(path).expanduser()
    parent = target.parent
    if str(path) == STDOUT:
        return target
    if not parent.is_dir():
        raise ElotError(f"cannot write {target}: the directory {parent} does not exist",
                        hint=f"create it first (mkdir -p {parent}) or choose another path for {option}")
    if target.is_dir():
        raise ElotError(f"cannot write {target}: it is a directory", hint=f"give a file name for {option}")
    if target.exists() and not force and not _is_ours(target, ours):
        raise ElotError(f"{target} exists and does not look like a file elot wrote; not replacing it",
                        hint="choose another name, or add --force to replace it")
    return target


def _render(content: Content) -> bytes:
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, bytes):
        return content
    import io

    buffer = io.BytesIO()
    content(buffer)
    return buffer.getvalue()


def _is_ours(target: Path, ours: Recognizer) -> bool:
    try:
        data = target.read_bytes()
    except OSError:
        return False
    return not data.strip() or ours(data)


# -- recognizers ----------------------------------------------------------------------------


def csv_with_header(*first_columns: str) -> Recognizer:
    """A CSV file whose header starts with ``first_columns`` (elot's tables start with
    fixed columns; later ones, such as one per gem, vary)."""
    prefix = ",".join(first_columns).encode("utf-8")

    def recognize(data: bytes) -> bool:
        return data.lstrip(b"\xef\xbb\xbf").startswith(prefix)

    return recognize


def json_where(test: Callable[[object], bool]) -> Recognizer:
    """A JSON document for which ``test(document)`` holds."""

    def recognize(data: bytes) -> bool:
        try:
            return bool(test(json.loads(data.decode("utf-8"))))
        except (ValueError, UnicodeDecodeError, TypeError, AttributeError, KeyError):
            return False

    return recognize


def elot_png(data: bytes) -> bool:
    """A PNG that :func:`elot.plots.save` wrote (its ``Software`` text chunk says elot)."""
    return data.startswith(b"\x89PNG\r\n\x1a\n") and b"tEXtSoftware\x00elot" in data


def any_of(*recognizers: Recognizer) -> Recognizer:
    """Ours if any of ``recognizers`` says so."""
    return lambda data: any(r(data) for r in recognizers)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 goal``, ``3 goals``: a number with its noun in agreement."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def excerpt(text: str, width: int = 80) -> str:
    """``text``, or its start and its length when longer than ``width`` (for showing
    input a user gave, which may be huge)."""
    return text if len(text) <= width else f"{text[:width]}… ({len(text)} characters)"
