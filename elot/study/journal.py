"""The work files of a batch that writes a table: each finished task's rows are appended to
``OUT.partial`` and then recorded, with their byte range and checksum, in
``OUT.partial.done``. A crash or Ctrl-C leaves both; a resumed batch trusts only what the
manifest records (rows of a task that was being written are cut off and the task runs
again), so nothing is lost or written twice. When every task is done, the rows are put
in task order (so serial, parallel and Dask runs give byte-identical files) and renamed
to ``OUT``."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import stat
import time
from pathlib import Path
from typing import Sequence

from elot.output import excerpt
from elot.study.params import StudyError
from elot.study.tables import (ALL_COLUMNS, Failures, FailureTally, TaskRows, header, tally_table_text,
                               write_table_text)

#: The longest a finished task's rows wait before they are synced and recorded: a batch
#: of many short tasks syncs once in this time, not once per task.
SYNC_SECONDS = 1.0


class Journal:
    """The work files of a batch writing ``OUT``: ``OUT.partial`` (rows of finished tasks),
    ``OUT.partial.done`` (for each, its index, byte range and SHA-256, recorded after the
    rows are on disk) and ``OUT.partial.lock``, locked (``flock``) by the one process
    writing them for the whole batch.

    Work files are opened without following links (``O_NOFOLLOW``; new ones with
    ``O_EXCL``). On ``resume`` every recorded chunk is checked (its checksum, its rows'
    field count) before anything is trusted or cut; damage stops the batch with the files
    kept as they were."""

    def __init__(self, output: Path, fingerprint: str, resume: bool, tasks: int,
                 columns: Sequence[str] = ALL_COLUMNS) -> None:
        self.output = output
        self.columns = tuple(columns)
        self.rows_path = output.with_name(output.name + ".partial")
        self.done_path = output.with_name(output.name + ".partial.done")
        self.lock_path = output.with_name(output.name + ".partial.lock")
        self.done: dict[int, tuple[int, int]] = {}
        #: each task's row count and rows with an error, for tasks whose rows came counted
        self.tallied: dict[int, tuple[int, tuple[dict, ...]]] = {}
        #: ``(index, start, stop, sha256)`` of tasks appended and not yet recorded (:meth:`sync`)
        self.pending: list[tuple[int, int, int, str]] = []
        self.synced = time.monotonic()
        self.lock, made_lock = _take_lock(self.lock_path, output)
        try:
            for path in (self.rows_path, self.done_path):
                if path.is_symlink():
                    raise _link_error(path)
            if os.path.lexists(self.rows_path) or os.path.lexists(self.done_path):
                if not resume:
                    raise StudyError(f"an interrupted batch left {self.rows_path}",
                                     notes=(f"work files: {self._work_files()}",),
                                     hint=f"add --resume to finish it, or delete {self._work_files()} "
                                          "to start over")
                for path in (self.rows_path, self.done_path):
                    if not os.path.lexists(path):
                        raise self._damaged(f"{path} is missing")
                self.handle = _open_work(self.rows_path, os.O_RDWR)
                self.manifest = _open_work(self.done_path, os.O_RDWR)
                self._load(fingerprint, tasks)
            else:
                self.manifest = _open_work(self.done_path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
                self.handle = _open_work(self.rows_path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
                self.manifest.write(json.dumps({"fingerprint": fingerprint, "format": 2}).encode() + b"\n")
                self.manifest.flush()
        except BaseException:
            self.close()
            if made_lock and self.lock_path.is_file() and not self.lock_path.is_symlink():
                self.lock_path.unlink()   # a refusal before any work leaves no file of ours (unlinked while locked)
            os.close(self.lock)
            raise
        self.handle.seek(0, os.SEEK_END)
        self.manifest.seek(0, os.SEEK_END)

    def _work_files(self) -> str:
        return f"{self.rows_path}, {self.done_path} and {self.lock_path}"

    def _damaged(self, what: str) -> StudyError:
        return StudyError(
            f"cannot resume {self.output}: {what}; the work files were left as they were",
            notes=(f"work files: {self._work_files()}",),
            hint=f"delete {self._work_files()} and run the command again without "
                 f"--resume (finished tasks run again), or restore {self.rows_path} and "
                 f"{self.done_path} from a backup")

    def _load(self, fingerprint: str, tasks: int) -> None:
        """Read the manifest and check every chunk it records; only then cut what an
        interrupted write left unrecorded (rows after the last chunk, a last line without
        its newline)."""
        text = self.manifest.read()
        lines = text.split(b"\n")
        try:
            header = json.loads(lines[0])
        except (ValueError, UnicodeDecodeError):
            header = None
        if not isinstance(header, dict) or header.get("fingerprint") != fingerprint:
            raise StudyError(f"{self.rows_path} was written by a different batch (or another version of elot)",
                             hint=f"rerun the same command with --resume, or delete {self._work_files()} "
                                  "to start over")
        if len(lines) < 2:
            raise self._damaged(f"{self.done_path} has no complete first line")
        rows = self.handle.read()
        end = 0
        for number, line in enumerate(lines[1:-1], 2):  # the last piece has no newline: an unfinished record
            fields = line.split(b" ")
            try:
                index, start, stop = (int(x) for x in fields[:3])
                digest = fields[3].decode("ascii")
                if len(fields) != 4 or len(digest) != 64:
                    raise ValueError
            except (ValueError, IndexError, UnicodeDecodeError):
                raise self._damaged(f"{self.done_path} line {number} is not a record "
                                    f"({excerpt(line.decode('utf-8', 'replace'), 40)!r})") from None
            if start != end or stop < start or not 0 <= index < tasks or index in self.done:
                raise self._damaged(f"{self.done_path} line {number} does not follow the records before it")
            if stop > len(rows):
                raise self._damaged(f"{self.rows_path} is shorter ({len(rows)} bytes) than recorded ({stop})")
            chunk = rows[start:stop]
            if hashlib.sha256(chunk).hexdigest() != digest:
                raise self._damaged(f"the rows of task {index} in {self.rows_path} (bytes {start}-{stop}) "
                                    "do not match their checksum")
            if not _rows_are_whole(chunk, len(self.columns)):
                raise self._damaged(f"the rows of task {index} in {self.rows_path} do not have "
                                    f"{len(self.columns)} fields each")
            self.done[index] = (start, stop)
            end = stop
        self.handle.truncate(end)  # rows of a task that was being written when it stopped
        self.manifest.truncate(len(text) - len(lines[-1]))

    def add(self, index: int, text: str) -> None:
        self.add_many([(index, text)])

    def add_many(self, finished: Sequence[tuple[int, str | TaskRows]]) -> None:
        """Append the rows of several tasks (a worker's chunk, or one task run here), and
        record them once at most every :data:`SYNC_SECONDS` (:meth:`sync`): one sync per
        task made the single writer the bottleneck of a batch, serial or parallel. A
        task's rows as :class:`TaskRows` come counted, and :meth:`finish` tallies the
        table from them. Tasks appended and not yet recorded count as done here; a crash
        before their record runs them again on ``--resume``."""
        for index, text in finished:
            if isinstance(text, TaskRows):
                self.tallied[index] = (text.rows, text.failed)
                text = text.text
            data = text.encode("utf-8")
            start = self.handle.tell()
            self.handle.write(data)
            self.pending.append((index, start, start + len(data), hashlib.sha256(data).hexdigest()))
            self.done[index] = (start, start + len(data))
        if time.monotonic() - self.synced >= SYNC_SECONDS:
            self.sync()

    def sync(self) -> None:
        """Put the rows appended since the last sync on disk, then record each in the
        manifest (a record is written only for rows already on disk)."""
        records, self.pending = self.pending, []    # taken first: an interrupted sync records none twice
        self.synced = time.monotonic()
        if records:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.manifest.write("".join(f"{i} {a} {b} {digest}\n" for i, a, b, digest in records).encode())
            self.manifest.flush()

    def close(self) -> None:
        for name in ("handle", "manifest"):
            handle = getattr(self, name, None)
            if handle is not None and not handle.closed:
                handle.close()

    def release(self) -> None:
        """Close the work files and give up the lock."""
        self.close()
        os.close(self.lock)

    def discard(self) -> None:
        """Remove the work files (the lock file last, while still locked)."""
        self.close()
        for path in (self.rows_path, self.done_path, self.lock_path):
            if path.is_file() and not path.is_symlink():
                path.unlink()

    def finish(self, fmt: str, *, force: bool = False,
               inputs: Sequence[str | Path] = ()) -> tuple[int, Failures]:
        """Write ``OUT`` (rows in task order) and remove the work files; how many rows it
        has, and the ones that could not be scored: from each task's count, in task order,
        when every task's rows came counted (:class:`TaskRows`), else read from the table
        (:func:`tally_table_text`; a resumed batch's earlier tasks came as text)."""
        self.sync()     # recorded, should OUT be refused: --resume then finds every task done
        self.handle.seek(0)
        data = self.handle.read()
        order = sorted(self.done.items())
        text = header(self.columns) + b"".join(data[a:b] for _, (a, b) in order).decode("utf-8")
        write_table_text(self.output, text, fmt, force=force, inputs=inputs)
        self.discard()
        if not all(index in self.tallied for index, _ in order):
            return tally_table_text(text)
        tally = FailureTally()
        for index, _ in order:
            tally.add(self.tallied[index][1])
        return sum(self.tallied[index][0] for index, _ in order), tally.result()


def _open_work(path: Path, flags: int):
    """A work file opened as binary, never through a link; only regular files."""
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as error:
        if os.path.islink(path):
            raise _link_error(path) from None
        if isinstance(error, FileExistsError):
            raise StudyError(f"{path} appeared while the batch started",
                             hint="another process is writing beside this output; choose another -o") from None
        raise StudyError(f"cannot open {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StudyError(f"{path} is not a regular file", hint="remove it and run the command again")
    return os.fdopen(fd, "r+b")


def _link_error(path: Path) -> StudyError:
    return StudyError(f"{path} is a symbolic link; elot does not follow links for its work files",
                      hint=f"remove the link ({path}) and run the command again")


def _take_lock(path: Path, output: Path) -> tuple[int, bool]:
    """An exclusive ``flock`` on ``path`` (made if missing, never through a link), held
    until the descriptor is closed, and whether this call made the file; a second writer
    is refused with the holder's pid."""
    import fcntl

    output.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(10):
        made = not os.path.lexists(path)
        handle = _open_work(path, os.O_RDWR | os.O_CREAT)
        fd = os.dup(handle.fileno())
        handle.close()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StudyError(f"another elot batch (pid {holder}) is writing {output}",
                             hint="wait for it to finish (then --resume if it stopped), or stop it") from None
        try:
            same = os.lstat(path).st_ino == os.fstat(fd).st_ino   # not a lock file removed meanwhile
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd, made
        os.close(fd)
    raise StudyError(f"cannot lock {path}: it keeps being replaced")


def _rows_are_whole(chunk: bytes, fields: int) -> bool:
    """Whether ``chunk`` is UTF-8 CSV rows of exactly ``fields`` (the table's columns) each."""
    try:
        rows = list(csv.reader(io.StringIO(chunk.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return False
    return all(len(row) == fields for row in rows) and (not chunk or chunk.endswith(b"\n"))
