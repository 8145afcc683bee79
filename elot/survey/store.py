"""The answers of a served survey, in SQLite: one row per participant, one per trial.

Every trial is committed as it arrives (WAL journal, ``synchronous=FULL``), so a closed
tab, a killed server or a restart loses no answer already acknowledged. The database
names the survey it belongs to, and one server at a time holds it (a lock file beside
it). Every statement is parameterized.

**Identities.** Each session has a secret *token* (the browser keeps it) and a
*participant* name, unique in the database: the ``PROLIFIC_PID`` it arrived with, or a
generated ``elot-N`` (N: its row). Generated names are their own namespace: a
``PROLIFIC_PID`` that starts with ``elot-`` is kept as sent (``prolific_pid``) but never
becomes a name. A session is resumed only with its token; a second session arriving with
the ``PROLIFIC_PID`` of an earlier one is a new session with a generated name and
``duplicate_of`` = the first session's id (never the first one's token or progress).

**One writer.** :meth:`Store.start_writer` starts the one thread that runs every
statement of a served survey (:meth:`Store.submit`): requests queue their work there and
wait for it, so SQLite sees one writer, and :meth:`Store.close` finishes what is queued
before it closes the database.

**Opening.** An existing file is first checked read-only (without creating a lock, a
journal or a WAL file, and without changing its journal mode): it must be a survey's
answers database, of this survey, laid out as elot lays it out (:func:`check_layout`:
its three tables are tables, with their columns; no trigger), so that nothing it holds
can make a query run for ever or a write do more than elot's. Whatever is refused is left
byte for byte as it was, with nothing made beside it. An empty file is refused and left
as it is. Only a database this process created is removed at shutdown when nobody
answered into it.

**Reading one elot did not write** (:func:`bounded`): every connection that reads an
existing database does at most :data:`READ_STEPS` steps of SQLite's engine and takes no
value over :data:`MAX_VALUE_BYTES`, so a hostile file ends in a clear error.
"""

from __future__ import annotations

import concurrent.futures
import errno
import fcntl
import json
import queue
import re
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from elot.errors import printable
from elot.survey import SurveyError

#: What the database says it is.
KIND = "elot survey answers"
#: The layout of the tables (2: ``participants.duplicate_of``; databases of layout 1 are
#: given the column when a server opens them).
SCHEMA_VERSION = "2"
#: Generated participant names: ``elot-`` and the session's row id.
GENERATED = "elot-"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    id INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    participant TEXT NOT NULL UNIQUE,
    prolific_pid TEXT, study_id TEXT, session_id TEXT,
    order_index INTEGER NOT NULL,
    started REAL NOT NULL,
    completed REAL,
    duplicate_of INTEGER REFERENCES participants(id)
);
CREATE INDEX IF NOT EXISTS participants_pid ON participants(prolific_pid);
CREATE TABLE IF NOT EXISTS trials (
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    step TEXT NOT NULL,
    data TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (participant_id, step)
);
"""

_SQLITE_MAGIC = b"SQLite format 3\x00"

#: The tables of an answers database and the columns each must have (``duplicate_of`` is
#: layout 2's; a database of layout 1 is given it when served).
TABLES = {"meta": {"key", "value"},
          "participants": {"id", "token", "participant", "prolific_pid", "study_id", "session_id", "order_index",
                           "started", "completed"},
          "trials": {"participant_id", "step", "data", "received"}}
#: The most work SQLite may do for one connection reading a database elot did not open
#: itself, in steps of its virtual machine (about 140 million a second on one core, so
#: about 7 s; importing 120,000 trials takes about 2 million): a view or query that never
#: ends is stopped there.
READ_STEPS = 1_000_000_000
#: Steps between two checks of :data:`READ_STEPS`.
_STEPS_PER_CHECK = 100_000
#: The largest value read from a database (a trial's data: the server takes 64 KB).
MAX_VALUE_BYTES = 1 << 20


class StoreUnavailable(SurveyError):
    """The database cannot take a write now (a full disk, an I/O error): the participant's
    page keeps the answer and sends it again."""


def generated_name(row: int) -> str:
    return f"{GENERATED}{row}"


def is_generated(name: str) -> bool:
    """Whether ``name`` is in the generated names' namespace (so never a participant's own)."""
    return name[:len(GENERATED)].lower() == GENERATED


def _refuse(path: Path, why: str) -> SurveyError:
    return SurveyError(f"{path} is not a survey's database: {why}; it was left as it is",
                       hint="give --db a new file name (elot creates it) or the database of this survey")


def bounded(connection: sqlite3.Connection, steps: int | None = None) -> sqlite3.Connection:
    """``connection``, stopped (``sqlite3.OperationalError``: interrupted) once its queries
    together have taken ``steps`` (default :data:`READ_STEPS`) steps of SQLite's engine,
    and refusing values over :data:`MAX_VALUE_BYTES` where Python lets it say so."""
    steps = READ_STEPS if steps is None else steps
    every = min(_STEPS_PER_CHECK, max(1, steps // 10))
    limit = steps // every
    calls = 0

    def progress() -> int:
        nonlocal calls
        calls += 1
        return calls > limit

    connection.set_progress_handler(progress, every)
    if hasattr(connection, "setlimit"):         # Python 3.11
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    return connection


def read_problem(error: sqlite3.Error) -> str:
    """What a failed read of a database elot did not write means, in words."""
    text = str(error)
    if text == "interrupted":
        return (f"reading it took more than {READ_STEPS:,} steps of SQLite's engine (a view or a query that "
                "never ends?)")
    if "too big" in text:
        return f"it holds a value larger than {MAX_VALUE_BYTES >> 20} MiB (a trial is at most 64 KB)"
    return text


def check_layout(connection: sqlite3.Connection, *, serving: bool = False) -> str | None:
    """What makes the database of ``connection`` not laid out as elot lays out its
    answers (None when nothing): each of :data:`TABLES` an ordinary table (not a view, not
    a virtual table) with its columns; when ``serving``, no trigger either (it would run
    with the server's writes). Reads only ``sqlite_master`` and the tables' column lists,
    so a view that never ends is never run."""
    objects = {}
    for kind, name, sql in connection.execute("SELECT type, name, sql FROM sqlite_master"):
        if serving and kind == "trigger":
            return f"it holds a trigger ({printable(name, 60)}), which elot's answers never have"
        if name in TABLES:
            objects[name] = (kind, sql or "")
    for table, columns in TABLES.items():
        if table not in objects:
            return f"it has no {table} table"
        kind, sql = objects[table]
        if kind != "table" or re.match(r"\s*CREATE\s+VIRTUAL\b", sql, re.IGNORECASE):
            return f"its {table} is a {kind if kind != 'table' else 'virtual table'}, not a table"
        have = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        missing = sorted(columns - have)
        if missing:
            return f"its {table} table lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    return None


def _meta(connection: sqlite3.Connection) -> dict:
    return dict(connection.execute("SELECT key, value FROM meta WHERE key IN ('kind', 'survey', 'schema')"))


def identify(path: Path, survey: str | None) -> None:
    """Check, touching nothing, that the existing file ``path`` is a survey's answers
    database (of ``survey`` if given) laid out as elot lays it out, with no trigger;
    raise :class:`SurveyError` if not."""
    if not path.is_file():
        raise _refuse(path, "it is not a regular file")
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError as error:
        raise SurveyError(f"cannot read {path}: {error.strerror or error}", hint="check the file's permissions") \
            from None
    if not header:
        raise _refuse(path, "it is empty")
    if not header.startswith(_SQLITE_MAGIC):
        raise _refuse(path, "it is not an SQLite database")
    # Without a WAL file beside it, everything is in the file: read it as immutable (no lock,
    # no journal, no -shm made). With one (a server killed outright), read-only is needed
    # to see what the WAL holds.
    wal = Path(f"{path}-wal").exists()
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("" if wal else "&immutable=1")
    try:
        connection = bounded(sqlite3.connect(uri, uri=True))
        try:
            problem = check_layout(connection, serving=True)
            rows = _meta(connection) if problem is None else {}
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise _refuse(path, read_problem(error)) from None
    if problem is not None:
        raise _refuse(path, problem)
    if rows.get("kind") != KIND:
        raise _refuse(path, "it holds no survey's answers")
    _check_meta(path, rows, survey)


def open_existing(path: str | Path, survey: str | None = None) -> sqlite3.Connection:
    """A database to read (import): it must be a survey's answers, of ``survey`` if given."""
    path = Path(path)
    if not path.is_file():
        raise SurveyError(f"{path}: no such database", hint="give the responses.sqlite of a served survey")
    hint = "give the responses.sqlite of a served survey"
    connection = None
    try:
        connection = bounded(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True))
        problem = check_layout(connection)
        if problem is not None:
            raise SurveyError(f"{path} is not a survey's database: {problem}", hint=hint)
        rows = _meta(connection)
        _check_meta(path, rows, survey)
    except sqlite3.DatabaseError as error:
        if connection is not None:
            connection.close()
        raise SurveyError(f"{path} is not a survey's database: {read_problem(error)}", hint=hint) from None
    except SurveyError:
        if connection is not None:
            connection.close()
        raise
    return connection


def _check_meta(path: Path, rows: dict, survey: str | None) -> None:
    if rows.get("kind") != KIND:
        raise SurveyError(f"{path} is not a survey's database", hint="give the responses.sqlite of a served survey")
    if survey is not None and rows.get("survey") != survey:
        raise SurveyError(f"{path} holds the answers of another survey ({rows.get('survey')}, this one is {survey})",
                          hint="give each survey its own database (--db), or serve the survey it belongs to")


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _unavailable(path: Path, error: BaseException) -> StoreUnavailable:
    text = str(error)
    full = "full" in text.lower() or getattr(error, "errno", None) == errno.ENOSPC
    if full:
        return StoreUnavailable(f"cannot store answers: the disk holding {path} is full",
                                hint="free space on that disk; participants' pages keep their answers and send "
                                     "them again")
    return StoreUnavailable(f"cannot store answers in {path}: {text}",
                            hint="check the disk and the database; participants' pages keep their answers and send "
                                 "them again")


class Store:
    """The answers of one survey (``survey``: its id), held by this process alone."""

    def __init__(self, path: str | Path, survey: str) -> None:
        self.path = Path(path)
        self.survey = survey
        self.db = None
        self._lock = threading.RLock()
        self._lockfile = None
        self._jobs: queue.Queue | None = None
        self._writer: threading.Thread | None = None
        existed = self.path.exists() or self.path.is_symlink()
        if existed:
            identify(self.path, survey)      # before anything is created beside it
        self.created = not existed
        lock = Path(f"{self.path}.lock")
        made_lock = not (lock.exists() or lock.is_symlink())
        try:
            self._lockfile = open(lock, "a+")
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lockfile.close()
            self._lockfile = None
            raise SurveyError(f"another server is using {self.path}",
                              hint="stop it first (one server per database), or give this one another --db") from None
        except OSError as error:
            if self._lockfile is not None:
                self._lockfile.close()
                self._lockfile = None
            raise SurveyError(f"cannot open {self.path}: {error.strerror or error}",
                              hint="check the folder of the database") from None
        try:
            if existed:
                identify(self.path, survey)  # again, now that no other server can be changing it
            self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if existed:
                if "duplicate_of" not in _columns(self.db, "participants"):     # a database of layout 1
                    self.db.execute("ALTER TABLE participants ADD COLUMN duplicate_of INTEGER")
                self.db.execute("CREATE INDEX IF NOT EXISTS participants_pid ON participants(prolific_pid)")
                self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
            else:
                self.db.executescript(SCHEMA)
                self.db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                                    [("kind", KIND), ("survey", survey), ("schema", SCHEMA_VERSION)])
        except (sqlite3.DatabaseError, SurveyError) as error:
            self._give_up(remove=([] if existed else [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"),
                                                     Path(f"{self.path}-journal")]) + ([lock] if made_lock else []))
            if isinstance(error, SurveyError):
                raise
            raise SurveyError(f"cannot write to {self.path}: {error}",
                              hint="check the file, its folder's permissions and the free space") from None

    def _give_up(self, remove: list[Path]) -> None:
        """Close what was opened and remove ``remove``: what this process made beside a
        database it then refused (its lock file), or a new database it could not make
        whole; the lock is held until they are gone."""
        if self.db is not None:
            try:
                self.db.close()
            except sqlite3.Error:
                pass
            self.db = None
        for name in remove:
            try:
                name.unlink()
            except OSError:      # gone already, or not ours to remove: left
                pass
        if self._lockfile is not None:
            self._lockfile.close()
            self._lockfile = None

    # -- the writer thread -------------------------------------------------------------

    def start_writer(self) -> None:
        """Start the one thread that runs the statements of :meth:`submit`."""
        self._jobs = queue.Queue()
        thread = threading.Thread(target=self._work, name="elot-survey-writer", daemon=True)
        try:
            thread.start()
        except RuntimeError as error:      # no thread can be started (a process or memory limit)
            self._jobs = None
            raise SurveyError(f"cannot start the database's writer thread: {error}",
                              hint="the machine is out of threads or memory: stop other programs, or raise "
                                   "the limit on processes (ulimit -u)") from None
        self._writer = thread

    def submit(self, method: str, *args, **kwargs) -> concurrent.futures.Future:
        """Run ``self.method(*args, **kwargs)`` on the writer thread; its future."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        if self._jobs is None or self._writer is None or not self._writer.is_alive():
            future.set_exception(StoreUnavailable("the database is closed", hint="the server is stopping"))
            return future
        self._jobs.put((future, method, args, kwargs))
        return future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, method, args, kwargs = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(getattr(self, method)(*args, **kwargs))
            except BaseException as error:     # handed to the request that asked
                future.set_exception(error)

    def _stop_writer(self) -> None:
        if self._writer is not None and self._jobs is not None:
            self._jobs.put(None)            # after every write already queued
            self._writer.join()
        self._writer = None
        self._jobs = None

    # -- opening and closing -----------------------------------------------------------

    def close(self, *, drop_empty: bool = False) -> None:
        """Finish the queued writes, close the database and let go of its lock.
        ``drop_empty``: first remove the database (and its lock file) if this process
        created it and no participant ever started, so that a survey served to nobody is
        left as it was built (still holding the lock, so no other server can be using it)."""
        self._stop_writer()
        if getattr(self, "db", None) is not None:
            empty = False
            if drop_empty and self.created:
                try:
                    empty = self.db.execute("SELECT COUNT(*) FROM participants").fetchone()[0] == 0
                except sqlite3.DatabaseError:
                    empty = False
            try:
                self.db.close()
            except sqlite3.Error:
                pass
            self.db = None
            if empty:
                for name in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"), Path(f"{self.path}.lock")):
                    try:
                        name.unlink()
                    except FileNotFoundError:
                        pass
                    except OSError:
                        break
        if self._lockfile is not None:
            self._lockfile.close()
            self._lockfile = None

    @contextmanager
    def _transaction(self):
        """One transaction; a failed write (a full disk) is a :class:`StoreUnavailable`,
        with the transaction rolled back if SQLite has not done so already."""
        with self._lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                yield
                self.db.execute("COMMIT")
            except (sqlite3.Error, OSError) as error:
                if self.db.in_transaction:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                raise _unavailable(self.path, error) from None
            except BaseException:
                if self.db.in_transaction:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                raise

    # -- what the server asks ----------------------------------------------------------

    def start(self, *, token: str | None, prolific_pid: str, study_id: str, session_id: str,
              orders: int, new: bool = True) -> dict | None:
        """The session of ``token`` if there is one (and it is not another
        ``PROLIFIC_PID``'s), else a new one with the order fewest have started (ties: the
        first), or None when ``new`` is false (the server's limit on new sessions). A new
        session with the ``PROLIFIC_PID`` of an earlier one is a duplicate of it: its own
        token, name and progress, and ``duplicate_of`` set. ``new`` in the answer: whether
        the session was made now."""
        with self._transaction():
            row = None
            if token:
                row = self.db.execute("SELECT id, token, participant, order_index, prolific_pid, duplicate_of "
                                      "FROM participants WHERE token = ?", (token,)).fetchone()
                if row is not None and prolific_pid and row[4] != prolific_pid:
                    row = None          # this browser's session was someone else's: a new one
            made = row is None
            if row is None and not new:
                return None
            if row is None:
                first = None
                if prolific_pid:
                    first = self.db.execute("SELECT MIN(id) FROM participants WHERE prolific_pid = ?",
                                            (prolific_pid,)).fetchone()[0]
                counts = dict(self.db.execute("SELECT order_index, COUNT(*) FROM participants GROUP BY order_index"))
                order = min(range(orders), key=lambda i: (counts.get(i, 0), i))
                pid = (self.db.execute("SELECT MAX(id) FROM participants").fetchone()[0] or 0) + 1
                own = prolific_pid and first is None and not is_generated(prolific_pid)
                name = prolific_pid if own else generated_name(pid)
                while self.db.execute("SELECT 1 FROM participants WHERE participant = ?", (name,)).fetchone():
                    name += "+"     # only in a database of layout 1, where a PID could take a generated name
                token = secrets.token_urlsafe(18)
                self.db.execute(
                    "INSERT INTO participants (id, token, participant, prolific_pid, study_id, session_id, "
                    "order_index, started, duplicate_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (pid, token, name, prolific_pid or None, study_id or None, session_id or None, order,
                     time.time(), first))
                row = (pid, token, name, order, prolific_pid or None, first)
            pid, token, participant, order, _, duplicate_of = row
            done = {}
            for step, data in self.db.execute("SELECT step, data FROM trials WHERE participant_id = ?", (pid,)):
                passed = json.loads(data).get("elot_passed")
                done[step] = {"passed": passed} if isinstance(passed, bool) else {}
        return {"id": pid, "token": token, "participant": participant, "order": order, "done": done,
                "duplicate_of": duplicate_of, "new": made}

    def participant(self, token: str) -> tuple[int, str, int] | None:
        with self._lock:
            try:
                return self.db.execute("SELECT id, participant, order_index FROM participants WHERE token = ?",
                                       (token,)).fetchone()
            except sqlite3.Error as error:
                raise _unavailable(self.path, error) from None

    def add_trial(self, participant_id: int, step: str, data: dict, *, last: bool) -> bool:
        """Store one trial (the first copy of a step is kept: a resent one changes nothing);
        ``last`` marks the session complete. True if it was new."""
        text = json.dumps(data, separators=(",", ":"))
        with self._transaction():
            cursor = self.db.execute("INSERT OR IGNORE INTO trials (participant_id, step, data, received) "
                                     "VALUES (?, ?, ?, ?)", (participant_id, step, text, time.time()))
            if last:
                self.db.execute("UPDATE participants SET completed = ? WHERE id = ? AND completed IS NULL",
                                (time.time(), participant_id))
        return cursor.rowcount == 1

    def counts(self) -> tuple[int, int]:
        with self._lock:
            return self.db.execute("SELECT COUNT(*), COUNT(completed) FROM participants").fetchone()


def read_answers(connection: sqlite3.Connection) -> list[dict]:
    """Every participant of a database: ``id``, ``participant``, ``prolific_pid``,
    ``order``, ``completed``, ``duplicate_of`` (as the column: the id of the first session
    with the same ``PROLIFIC_PID``, or None) and ``trials`` (step → the trial's data), in
    arrival order."""
    has_duplicates = "duplicate_of" in _columns(connection, "participants")
    out = []
    query = ("SELECT id, participant, prolific_pid, order_index, completed, "
             + ("duplicate_of" if has_duplicates else "NULL") + " FROM participants ORDER BY id")
    for pid, participant, prolific, order, completed, duplicate_of in connection.execute(query).fetchall():
        trials = {step: json.loads(data) for step, data in connection.execute(
            "SELECT step, data FROM trials WHERE participant_id = ? ORDER BY received", (pid,))}
        out.append({"id": pid, "participant": participant, "prolific_pid": prolific, "order": order,
                    "completed": completed is not None, "duplicate_of": duplicate_of, "trials": trials})
    return out
