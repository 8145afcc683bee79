"""Writing elot's output files (tables, query logs, figures) without losing the user's data.

Every command that writes a file goes through :func:`write_output`, which

* writes ``-`` to standard output (text or bytes) instead of a file named ``-``;
* creates the folders a path names that do not exist yet (the one rule for every command:
  ``batch -o a/b/t.csv``, ``run --csv x/y.csv`` and ``plot -o p/q.png`` alike), only when
  it writes, so a command that fails leaves no empty folders behind;
* never replaces a file with an empty result, and never writes over a file the same
  command reads (``inputs``), not even with ``--force``;
* refuses what is not a regular file (a device such as ``/dev/zero``, a pipe, a folder)
  and, without ``--force``, a symbolic link;
* replaces an existing file only if it is *ours* (see below) or ``force`` is given;
* writes atomically: to a new temporary file in the same directory (``O_EXCL``), then
  renamed over the target, so an interrupted or failed write leaves the old file as it was.

A file is *ours* when elot marked it when writing it (a file that is empty or blank
through and through holds nothing to lose and may be replaced too). Figures carry the mark inside
(a PNG text chunk, SVG metadata); the caller passes a recognizer that looks at the first
:data:`HEAD_BYTES` of the file. Tables, JSON and Markdown have no place for a mark that
keeps them plain (a ``#`` line breaks ``pandas.read_csv`` and R's ``read.csv``; a key
changes the documented JSON), so elot records what it wrote in a hidden *sidecar*
``.NAME.elot`` beside the file: its size and SHA-256. The file is ours while it is
byte for byte what elot wrote; a file edited or replaced by anyone since, or copied
without its sidecar, is not, and needs ``--force``. Nothing is ever read without bound:
an existing target is read only up to :data:`HEAD_BYTES`, or, to check a sidecar, up to
the size the sidecar records once the sizes agree.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Sequence, Union

from elot.errors import ElotError

#: The path that means standard output.
STDOUT = "-"

#: How much of an existing file a recognizer sees.
HEAD_BYTES = 64 * 1024

#: What a recognizer gets: the first :data:`HEAD_BYTES` of the existing file; it says
#: whether elot wrote them. ``None`` instead of a recognizer means the sidecar mark.
Recognizer = Callable[[bytes], bool]
Content = Union[str, bytes, Callable[[BinaryIO], None]]

#: What every sidecar says first (and how a sidecar is told from other JSON).
_SIDECAR_KIND = "elot output"


def write_output(path: str | os.PathLike, content: Content, *, ours: Recognizer | None = None,
                 force: bool = False, option: str = "the output",
                 inputs: Iterable[str | os.PathLike] = ()) -> str:
    """Write ``content`` (text, bytes, or a function writing to a binary handle) to
    ``path``, or to standard output for ``-``; returns the name written to.

    ``ours`` recognizes a file elot would have written from its first bytes (``None``: the
    sidecar mark, written here too); ``option`` names the option the path came from
    (``--csv``), for the messages; ``inputs`` are the files the command read, never
    written over."""
    if str(path) == STDOUT:
        data = _render(content)
        if not data:
            raise ElotError(f"nothing to write for {option}", hint="there is no result to write yet")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "standard output"
    target = check_target(path, ours=ours, force=force, option=option, inputs=inputs)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ElotError(f"cannot write {target}: cannot create the folder {target.parent}: "
                        f"{error.strerror or error}", hint=f"check the path given to {option}") from None
    digest, size, temporary = hashlib.sha256(), 0, None
    try:
        # inside the try: a folder that refuses new files (/proc, read-only) is an OSError too
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            if callable(content):
                content(stream)
            else:
                stream.write(content.encode("utf-8") if isinstance(content, str) else content)
            stream.flush()
            os.fsync(stream.fileno())
        size = os.path.getsize(temporary)
        if size == 0:
            raise ElotError(f"nothing to write to {target}; it was left as it was",
                            hint="there is no result to write yet")
        if ours is None:
            digest = _file_digest(temporary, size)
        info = _lstat(target)
        if info is not None and stat.S_ISREG(info.st_mode):
            os.chmod(temporary, info.st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
        if ours is None:
            _write_sidecar(target, size, digest)
    except OSError as error:
        raise ElotError(f"cannot write {target}: {error.strerror or error}",
                        hint=f"check the path given to {option}") from None
    finally:
        if temporary is not None and os.path.lexists(temporary):
            os.unlink(temporary)
    return str(target)


def check_target(path: str | os.PathLike, *, ours: Recognizer | None = None, force: bool = False,
                 option: str = "the output", inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """The checks of :func:`write_output` before anything is computed: the path is not an
    input of the command, its folder can be made, and an existing file may be replaced.
    Returns the target path."""
    target = Path(path).expanduser()
    if str(path) == STDOUT:
        return target
    for source in inputs:
        if str(source) != STDOUT and same_file(target, source):
            raise ElotError(f"cannot write {target}: the command reads it ({source}); elot never "
                            f"writes over its own input", hint=f"give {option} another file name")
    ancestor = target.parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ElotError(f"cannot write {target}: {ancestor} is not a folder",
                        hint=f"choose another path for {option}")
    info = _lstat(target)
    if info is None:
        return target
    if stat.S_ISDIR(info.st_mode):
        raise ElotError(f"cannot write {target}: it is a directory", hint=f"give a file name for {option}")
    if stat.S_ISLNK(info.st_mode):
        # --force replaces the link itself; a link to a device, a folder or a process's
        # descriptor (/dev/stdout -> /proc/self/fd/1, whatever file that is open on) is
        # system plumbing, not an old output file, and is never replaced
        plumbing = _system_hop(target)
        pointed = _stat(target)
        if plumbing is not None or (pointed is not None and not stat.S_ISREG(pointed.st_mode)):
            what = f"{plumbing} (a device or process link)" if plumbing else _kind(pointed)
            raise ElotError(f"cannot write {target}: it is a symbolic link to {what}, which "
                            f"elot never replaces, not even with --force",
                            hint=f"give {option} a file name, or - for standard output")
        if not force:
            raise ElotError(f"{target} is a symbolic link; not replacing it (nor what it points to)",
                            hint="choose another name, or add --force to replace the link itself")
        return target
    if not stat.S_ISREG(info.st_mode):
        raise ElotError(f"cannot write {target}: it is not a regular file (a device, pipe or socket)",
                        hint=f"give {option} a file name, or - for standard output")
    if not force and not _is_ours(target, ours):
        raise ElotError(f"{target} exists and does not look like a file elot wrote; not replacing it",
                        hint="choose another name, or add --force to replace it")
    return target


#: Longest part of a file name elot makes from a name the user chose (a scenario's): file
#: systems take 255 bytes, and elot adds a prefix or a suffix (``curves-``, ``_12.gif``).
STEM_LENGTH = 100


def file_stem(name: str, fallback: str = "scenario") -> str:
    """``name`` made safe for a file name: letters, digits, ``_.-`` (runs of anything else
    become ``_``), at most :data:`STEM_LENGTH` characters; a longer name keeps its start
    and ends in 8 hex digits of its SHA-1, so different names stay apart."""
    import re

    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or fallback
    if len(stem) > STEM_LENGTH:
        stem = stem[:STEM_LENGTH - 9] + "-" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return stem


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name the same file (same inode, or the same resolved path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        try:
            return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
        except (OSError, RuntimeError):
            return False


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ElotError(f"cannot write {path}: {error.strerror or error}") from None


def _stat(path: Path) -> os.stat_result | None:
    """What a link points to (None for a dangling link or one that cannot be followed)."""
    try:
        return os.stat(path)
    except OSError:
        return None


#: Folders of the system's pseudo-files: a link into them is never an output file.
_SYSTEM_FOLDERS = ("/dev", "/proc", "/sys")


def _system_hop(path: Path) -> str | None:
    """The first place in ``path``'s chain of links inside :data:`_SYSTEM_FOLDERS`
    (None if none)."""
    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        if not os.path.islink(here):
            return None
        try:
            here = os.path.normpath(os.path.join(os.path.dirname(here), os.readlink(here)))
        except OSError:
            return None
        if any(here == top or here.startswith(top + "/") for top in _SYSTEM_FOLDERS):
            return here
    return None


def _kind(info: os.stat_result) -> str:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "something that is not a regular file"


def _render(content: Content) -> bytes:
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, bytes):
        return content
    buffer = io.BytesIO()
    content(buffer)
    return buffer.getvalue()


def _open_regular(path: str | os.PathLike) -> int | None:
    """A read descriptor on ``path`` if it is a regular file and not a link (else None)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def read_head(path: str | os.PathLike, limit: int = HEAD_BYTES) -> bytes | None:
    """The first ``limit`` bytes of a regular file (None for anything else)."""
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _is_ours(target: Path, ours: Recognizer | None) -> bool:
    # one byte more than the recognizer sees: a file is blank (nothing to lose) only if
    # the whole of it is, not when its first HEAD_BYTES are and data follows
    head = read_head(target, HEAD_BYTES + 1)
    if head is None:
        return False
    if len(head) <= HEAD_BYTES and not head.strip():
        return True
    head = head[:HEAD_BYTES]
    return _has_sidecar(target) if ours is None else ours(head)


def sidecar(path: str | os.PathLike) -> Path:
    """The hidden file beside ``path`` in which elot records what it wrote there."""
    path = Path(path)
    return path.with_name(f".{path.name}.elot")


def file_digest(path: str | os.PathLike, size: int) -> str:
    """The SHA-256 (hex) of the first ``size`` bytes of the regular file ``path`` (never
    more is read; an OSError for what is not a regular file)."""
    return _file_digest(path, size).hexdigest()


def _file_digest(path: str | os.PathLike, size: int):
    digest = hashlib.sha256()
    fd = _open_regular(path)
    if fd is None:
        raise OSError(f"{path} is not a regular file")
    try:
        left = size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return digest


def _write_sidecar(target: Path, size: int, digest) -> None:
    mark = json.dumps({"kind": _SIDECAR_KIND, "file": target.name, "size": size,
                       "sha256": digest.hexdigest()}) + "\n"
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(mark)
        os.replace(temporary, sidecar(target))
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _has_sidecar(target: Path) -> bool:
    head = read_head(sidecar(target), 4096)
    try:
        mark = json.loads(head.decode("utf-8")) if head else None
    except (ValueError, UnicodeDecodeError):
        return False
    if not isinstance(mark, dict) or mark.get("kind") != _SIDECAR_KIND or mark.get("file") != target.name:
        return False
    size = mark.get("size")
    try:
        if not isinstance(size, int) or os.lstat(target).st_size != size:
            return False
        return _file_digest(target, size).hexdigest() == mark.get("sha256")
    except OSError:
        return False


# -- in-file marks and CSV text -------------------------------------------------------------


def elot_png(head: bytes) -> bool:
    """A PNG that :func:`elot.plots.save` wrote (its ``Software`` text chunk, written
    before the image data, says elot)."""
    return head.startswith(b"\x89PNG\r\n\x1a\n") and b"tEXtSoftware\x00elot" in head


def csv_text(rows: Sequence[dict], columns: Sequence[str] | None = None, *, header: bool = True,
             lineterminator: str = "\n") -> str:
    """CSV text of ``rows`` (dicts) under ``columns`` (default: every key of the rows, in
    the order they first appear); a missing value is an empty cell."""
    if columns is None:
        columns = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(columns),
                            lineterminator=lineterminator, restval="")
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 goal``, ``3 goals``: a number with its noun in agreement."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def excerpt(text: str, width: int = 80) -> str:
    """``text``, or its start and its length when longer than ``width`` (for showing
    input a user gave, which may be huge)."""
    return text if len(text) <= width else f"{text[:width]}… ({len(text)} characters)"
