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

A file is *ours* when it is byte for byte what elot wrote there (a file that is empty or
blank through and through holds nothing to lose and may be replaced too). elot records
what it wrote in a hidden *sidecar* ``.NAME.elot`` beside every file it writes: its size
and SHA-256. A file edited or replaced by anyone since, or copied without its sidecar, is
not ours, and needs ``--force``. Figures carry a mark inside too (a PNG text chunk, SVG
metadata), which the caller's recognizer reads in the first :data:`HEAD_BYTES` (so that a
report never replaces a storyboard's figure, say); but a mark inside survives an edit (an
SVG annotated in an editor keeps its metadata, a PNG drawn on keeps its text chunks), so
it is never enough alone: a figure is ours when its sidecar's record matches *and* its
mark is there. A figure with elot's mark and no sidecar (written by an elot that did not
yet record figures' bytes) cannot be told from one edited since, and is replaced only with
``--force``. Tables, JSON and Markdown have no place for a mark that keeps them plain (a
``#`` line breaks ``pandas.read_csv`` and R's ``read.csv``; a key changes the documented
JSON): the sidecar alone says whether elot wrote them. Nothing is ever read without bound:
an existing target is read only up to :data:`HEAD_BYTES`, or, to check a sidecar, up to
the size the sidecar records once the sizes agree.

A folder elot writes whole (a stimulus set, a survey) goes through :class:`OwnedFolder`:
made in a hidden folder beside it and swapped into place, with a :data:`MANIFEST` inside
recording every file elot wrote there (its path, size and SHA-256). A file elot wrote and
nobody changed since may be replaced or removed; one changed since, or one elot never
wrote that the new folder would replace, needs ``--force``; one elot never wrote where
the new folder has nothing is kept (moved into the new folder), ``--force`` or not.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Sequence, Union

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
        digest = _file_digest(temporary, size)
        info = _lstat(target)
        if info is not None and stat.S_ISREG(info.st_mode):
            os.chmod(temporary, info.st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
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
        notes = ()
        if ours is not None:
            head = read_head(target)
            if head is not None and ours(head):
                notes = (("it has elot's mark inside, but it was changed since elot wrote it (a mark inside a "
                          "figure survives an edit; its bytes do not match those elot recorded in "
                          f"{sidecar(target).name})") if _sidecar_record(target) is not None else
                         (f"it has elot's mark inside but no record of its bytes ({sidecar(target).name}; "
                          "an older elot wrote none), so an edit since cannot be told"),)
        raise ElotError(f"{target} exists and does not look like a file elot wrote; not replacing it",
                        notes=notes, hint="choose another name, or add --force to replace it")
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
    return _has_sidecar(target) and (ours is None or ours(head))


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


def _read_mark(path: Path, limit: int, kind: str) -> dict | None:
    """The JSON object of ``kind`` that elot wrote at ``path`` (a sidecar, a folder's
    :data:`MANIFEST`), read within ``limit`` bytes; None for anything else."""
    head = read_head(path, limit)
    try:
        mark = json.loads(head.decode("utf-8")) if head else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return mark if isinstance(mark, dict) and mark.get("kind") == kind else None


def _sidecar_record(target: Path) -> dict | None:
    """What the sidecar of ``target`` records (None: there is none, or it is not one)."""
    mark = _read_mark(sidecar(target), 4096, _SIDECAR_KIND)
    return mark if mark is not None and mark.get("file") == target.name else None


def _has_sidecar(target: Path) -> bool:
    mark = _sidecar_record(target)
    if mark is None:
        return False
    size = mark.get("size")
    try:
        if not isinstance(size, int) or os.lstat(target).st_size != size:
            return False
        return _file_digest(target, size).hexdigest() == mark.get("sha256")
    except OSError:
        return False


# -- folders elot writes whole ------------------------------------------------------------


#: The hidden file inside a folder elot wrote whole: what it is (the ``kind``) and each
#: file elot wrote there, by its path inside the folder, with its size and SHA-256.
MANIFEST = ".elot"
#: The file that marks a temporary folder as a live run's own (locked while the run lives).
RUN_MARK = ".elot-run"
#: The longest manifest read (some 100,000 files); a longer one is not elot's.
MANIFEST_BYTES = 16 * 2 ** 20
#: Files named in a refusal; the others are counted.
_NAMED = 5


class OwnedFolder:
    """A folder elot writes whole: built in a hidden staging folder beside ``target``,
    then swapped into place with its :data:`MANIFEST` (which says ``kind``).

    An existing ``target`` is a folder elot wrote when it holds a manifest of ``kind``, or
    nothing; another folder needs ``force``. Each of its files is then

    * one elot wrote and nobody changed since: replaced or removed;
    * one elot wrote that was changed since, or one elot never wrote at a path the new
      folder writes: a refusal, naming the files (with ``force``: replaced or removed);
    * one elot never wrote at a path the new folder leaves free (a user's notes, a
      survey's answers): kept, moved into the new folder, with ``force`` too.

    :meth:`check` says so before any work; :meth:`commit` again at the swap, once the old
    folder is moved aside (so that nothing can arrive in it unseen), and puts it back on
    a refusal. ``guard`` sees the old folder at both times and raises to refuse it
    whatever ``force`` says. A symbolic link is replaced only with ``force`` (the link,
    never what it points to); a file never. Errors are ``error`` (an :class:`ElotError`
    class) with hints naming ``option``. Use::

        owned = OwnedFolder(target, "elot stimuli", what="stimulus set", force=force)
        owned.check()                   # before any work
        with owned as staging:          # a new hidden folder beside target
            ...                         # write the files into staging
            owned.commit()              # the manifest, the swap
    """

    def __init__(self, target: str | os.PathLike, kind: str, *, what: str = "folder", force: bool = False,
                 guard: Callable[[Path], None] | None = None, error: type[ElotError] = ElotError,
                 option: str = "-o") -> None:
        self.target = Path(target).expanduser()
        self.kind, self.what, self.force, self.guard = kind, what, force, guard
        self.error, self.option = error, option
        self.staging: Path | None = None
        self._lock: int | None = None

    def check(self) -> Path:
        """The checks made before any work: the folder can be made where it is asked for
        (missing parent folders are made when it is written), and an existing one may be
        replaced. Returns the target."""
        target = self.target
        existing = target.parent
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise self.error(f"cannot write {target}: {existing} is a file, not a folder",
                             hint=f"choose another {self.option}")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise self.error(f"cannot write {target}: {existing} is not writable", hint=f"choose another {self.option}")
        if self._replaceable():
            try:
                self._review(target, None)
            except OSError as error:
                raise self._cannot(error) from None
        return target

    def __enter__(self) -> Path:
        try:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            clean_stale(self.target)
            self.staging, self._lock = _own_folder(self.target, ".tmp")
        except OSError as error:
            raise self._cannot(error) from None
        return self.staging

    def __exit__(self, kind, value, traceback) -> None:
        if self.staging is not None and self.staging.exists():
            shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        if isinstance(value, OSError):
            raise self._cannot(value) from None

    def commit(self) -> None:
        """Write the manifest of the staging folder and swap it into place."""
        _write_manifest(self.staging, self.kind)
        os.chmod(self.staging, 0o777 & ~_umask())
        self._swap()
        try:
            os.unlink(self.target / RUN_MARK)   # still locked through ``_lock`` until the swap
        except OSError:
            pass

    def _cannot(self, error: OSError) -> ElotError:
        return self.error(f"cannot write {self.target}: {error.strerror or error}",
                          hint=f"check the folder given to {self.option}")

    def _replaceable(self) -> bool:
        """Whether the target exists (a folder, or with ``force`` a link); refuses the rest."""
        info = _lstat(self.target)
        if info is None:
            return False
        if stat.S_ISLNK(info.st_mode):
            if not self.force:
                raise self.error(f"{self.target} is a symbolic link; not replacing it (nor the folder it points to)",
                                 hint="choose another folder name, or add --force to replace the link itself")
        elif not stat.S_ISDIR(info.st_mode):
            raise self.error(f"cannot write {self.target}: it is a file, not a folder",
                             hint=f"choose another {self.option}")
        return True

    def _review(self, folder: Path, new: Path | None) -> list[str]:
        """What ``folder`` (the target, or the old one moved aside) holds that would be lost
        to the ``new`` folder (None: not made yet): refused without ``force``. Returns the
        paths to keep."""
        if os.path.islink(folder):
            return []
        if self.guard is not None:
            self.guard(folder)
        files = _read_manifest(folder, self.kind)
        if files is None:
            with os.scandir(folder) as entries:
                if next(entries, None) is None:
                    return []
            if not self.force:
                raise self.error(f"{self.target} exists and is not a {self.what} elot wrote; not replacing it",
                                 hint=f"choose a new folder name, or add --force to write into it (its files are "
                                      f"kept unless the {self.what} has files of the same names)")
            files = {}
        changed, foreign, keep = [], [], []
        for relative in _leaves(folder):
            if relative in (MANIFEST, RUN_MARK):
                continue
            if relative in files:
                if not _unchanged(folder / relative, files[relative]):
                    changed.append(relative)
            elif new is None or _free(new, relative):
                keep.append(relative)
            else:
                foreign.append(relative)
        if (changed or foreign) and not self.force:
            lost = [f"{name} (changed since elot wrote it)" for name in changed]
            lost += [f"{name} (not written by elot)" for name in foreign]
            shown = ", ".join(lost[:_NAMED]) + (f" and {len(lost) - _NAMED} more" if len(lost) > _NAMED else "")
            raise self.error(f"{self.target} holds {count(len(lost), 'file')} that the new {self.what} would replace "
                             f"or remove: {shown}; not replacing "
                             f"{'it' if new is None else 'it (the new ' + self.what + ' was discarded)'}",
                             hint=f"keep your edits under other names, or choose another {self.option}; add --force "
                                  f"to replace them (files elot never wrote stay unless the {self.what} has files "
                                  "of the same names)")
        return keep

    def _swap(self) -> None:
        """Put the staging folder in place of the target, keeping what :meth:`_review`
        keeps; on a refusal or a failure the old folder is put back as it was."""
        target, new = self.target, self.staging
        if not os.path.lexists(target):
            try:
                os.rename(new, target)      # an empty folder made meanwhile is replaced too
                return
            except OSError as error:
                if error.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                    raise
        self._replaceable()
        # no run mark here: a run killed during the swap leaves the old folder in it, which
        # clean_stale must never take for a temporary of elot's own
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old"))
        aside, swapped = old / "folder", False
        try:
            os.replace(target, aside)
            moved: list[str] = []
            try:
                for relative in self._review(aside, new):
                    (new / relative).parent.mkdir(parents=True, exist_ok=True)
                    os.rename(aside / relative, new / relative)
                    moved.append(relative)
                os.rename(new, target)
                swapped = True
            except BaseException:
                try:
                    for relative in reversed(moved):
                        os.rename(new / relative, aside / relative)
                    os.rename(aside, target)
                except OSError as error:
                    raise self.error(f"could not put {target} back ({error.strerror or error}); it is in {aside}",
                                     hint=f"move {aside} back to {target}") from None
                raise
        finally:
            if swapped or not os.path.lexists(aside):     # else the old folder is there to put back
                shutil.rmtree(old, ignore_errors=True)


def _leaves(folder: Path, prefix: str = "") -> Iterator[str]:
    """Every entry under ``folder`` that is not a folder (links not followed), as its path
    inside ``folder`` with ``/``, in name order."""
    with os.scandir(folder) as entries:
        found = sorted(entries, key=lambda entry: entry.name)
    for entry in found:
        if entry.is_dir(follow_symlinks=False):
            yield from _leaves(Path(entry.path), f"{prefix}{entry.name}/")
        else:
            yield prefix + entry.name


def _free(folder: Path, relative: str) -> bool:
    """Whether ``folder`` has nothing at ``relative`` (nor a file where it has a folder)."""
    here = folder
    for part in relative.split("/"):
        here = here / part
        info = _lstat(here)
        if info is None:
            return True
        if not stat.S_ISDIR(info.st_mode):
            return False
    return False


def _unchanged(path: Path, record) -> bool:
    """Whether ``path`` is a regular file of the size and SHA-256 ``record`` gives."""
    size = record.get("size") if isinstance(record, dict) else None
    try:
        info = os.lstat(path)
        return (isinstance(size, int) and stat.S_ISREG(info.st_mode) and info.st_size == size
                and file_digest(path, size) == record.get("sha256"))
    except OSError:
        return False


def _read_manifest(folder: Path, kind: str) -> dict | None:
    """The files ``folder``'s :data:`MANIFEST` lists, if it is one of ``kind``."""
    mark = _read_mark(folder / MANIFEST, MANIFEST_BYTES, kind)
    return mark["files"] if mark is not None and isinstance(mark.get("files"), dict) else None


def _write_manifest(folder: Path, kind: str) -> None:
    """Record every regular file under ``folder`` (but the manifest and the run mark)."""
    files = {}
    for relative in _leaves(folder):
        info = os.lstat(folder / relative)
        if relative not in (MANIFEST, RUN_MARK) and stat.S_ISREG(info.st_mode):
            files[relative] = {"size": info.st_size, "sha256": file_digest(folder / relative, info.st_size)}
    (folder / MANIFEST).write_text(json.dumps({"kind": kind, "files": files}, indent=1) + "\n", encoding="utf-8")


def _own_folder(target: Path, suffix: str) -> tuple[Path, int]:
    """A new hidden folder beside ``target`` marked as this run's (:data:`RUN_MARK`,
    locked until the returned descriptor is closed)."""
    import fcntl

    folder = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=suffix))
    try:
        fd = os.open(folder / RUN_MARK, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()}\n".encode())
    return folder, fd


def clean_stale(target: str | os.PathLike) -> list[Path]:
    """Remove the staging folders beside ``target`` that runs writing it left when they
    were killed: only folders named as :class:`OwnedFolder` names them, holding its run
    mark, whose lock no live run holds (never a ``.old`` one, which may hold the folder
    being replaced). Returns what was removed."""
    import fcntl
    import re

    target = Path(target).expanduser()
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[A-Za-z0-9_]{{8}}\.tmp")
    removed: list[Path] = []
    try:
        candidates = [p for p in target.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return removed
    for folder in candidates:
        if folder.is_symlink() or not folder.is_dir():
            continue
        try:
            fd = os.open(folder / RUN_MARK, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue        # a live run's
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        finally:
            os.close(fd)
    return removed


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- in-file marks and CSV text -------------------------------------------------------------


def elot_png(head: bytes) -> bool:
    """A PNG that :func:`elot.plots.save` wrote (its ``Software`` text chunk, written
    before the image data, says elot)."""
    return head.startswith(b"\x89PNG\r\n\x1a\n") and b"tEXtSoftware\x00elot" in head


def csv_text(rows: Sequence[dict], columns: Sequence[str] | None = None, *, header: bool = True,
             lineterminator: str = "\n") -> str:
    """CSV text of ``rows`` (dicts) under ``columns`` (default: every key of the rows, in
    the order they first appear); a missing value is an empty cell.

    A cell holding a line break of either kind (``\n`` or ``\r``) is quoted, whatever
    ``lineterminator`` is: Python's writer quotes only the characters of the terminator it
    writes, and a bare ``\r`` left unquoted splits the row for every reader. Each row is
    formatted with ``\r\n`` as its terminator (so that both are quoted) and written with
    ``lineterminator``; every other cell is written as the csv module writes it."""
    if columns is None:
        columns = list(dict.fromkeys(key for row in rows for key in row))
    line = io.StringIO(newline="")
    writer = csv.DictWriter(line, fieldnames=list(columns), lineterminator="\r\n", restval="")
    out = io.StringIO(newline="")

    def emit(write, *args) -> None:
        line.seek(0)
        line.truncate()
        write(*args)
        out.write(line.getvalue()[:-2] + lineterminator)

    if header:
        emit(writer.writeheader)
    for row in rows:
        emit(writer.writerow, row)
    return out.getvalue()


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 goal``, ``3 goals``: a number with its noun in agreement."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def excerpt(text: str, width: int = 80) -> str:
    """``text``, or its start and its length when longer than ``width`` (for showing
    input a user gave, which may be huge)."""
    return text if len(text) <= width else f"{text[:width]}… ({len(text)} characters)"
