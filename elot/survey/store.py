"""The answers of a served survey, in SQLite: one row per participant, one per trial.

Every trial is committed as it arrives (WAL journal, ``synchronous=FULL``), so a closed
tab, a killed server or a restart loses no answer already sent. The database names the
survey it belongs to, and one server at a time holds it (a lock file beside it). Every
statement is parameterized.
"""

from __future__ import annotations

import fcntl
import json

import secrets
import sqlite3
import threading
import time
from pathlib import Path

from elot.survey import SurveyError

#: What the database says it is.
KIND = "elot survey answers"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    id INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    participant TEXT NOT NULL UNIQUE,
    prolific_pid TEXT, study_id TEXT, session_id TEXT,
    order_index INTEGER NOT NULL,
    started REAL NOT NULL,
    completed REAL
);
CREATE TABLE IF NOT EXISTS trials (
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    step TEXT NOT NULL,
    data TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (participant_id, step)
);
"""


def open_existing(path: str | Path, survey: str | None = None) -> sqlite3.Connection:
    """A database to read (import): it must be a survey's answers, of ``survey`` if given."""
    path = Path(path)
    if not path.is_file():
        raise SurveyError(f"{path}: no such database", hint="give the responses.sqlite of a served survey")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as error:
        raise SurveyError(f"{path} is not a survey's database: {error}",
                          hint="give the responses.sqlite of a served survey") from None
    _check_meta(path, rows, survey)
    return connection


def _check_meta(path: Path, rows: dict, survey: str | None) -> None:
    if rows.get("kind") != KIND:
        raise SurveyError(f"{path} is not a survey's database", hint="give the responses.sqlite of a served survey")
    if survey is not None and rows.get("survey") != survey:
        raise SurveyError(f"{path} holds the answers of another survey ({rows.get('survey')}, this one is {survey})",
                          hint="give each survey its own database (--db), or serve the survey it belongs to")


class Store:
    """The answers of one survey (``survey``: its id), held by this process alone."""

    def __init__(self, path: str | Path, survey: str) -> None:
        self.path = Path(path)
        self.survey = survey
        self._lock = threading.Lock()
        self._lockfile = None
        try:
            self._lockfile = open(str(self.path) + ".lock", "a+")
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lockfile.close()
            raise SurveyError(f"another server is using {self.path}",
                              hint="stop it first (one server per database), or give this one another --db") from None
        except OSError as error:
            raise SurveyError(f"cannot open {self.path}: {error.strerror or error}",
                              hint="check the folder of the database") from None
        try:
            existed = self.path.exists() and self.path.stat().st_size > 0
            self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if existed:
                try:
                    rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
                except sqlite3.DatabaseError:
                    rows = {}
                _check_meta(self.path, rows, survey)
            else:
                self.db.executescript(SCHEMA)
                self.db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                                    [("kind", KIND), ("survey", survey)])
        except sqlite3.DatabaseError as error:
            self.close()
            raise SurveyError(f"{self.path} is not a survey's database: {error}",
                              hint="give another --db") from None
        except SurveyError:
            self.close()
            raise

    def close(self, *, drop_empty: bool = False) -> None:
        """Close the database and let go of its lock. ``drop_empty``: first remove the
        database (and its lock file) if no participant ever started, so that a survey
        served to nobody is left as it was built (still holding the lock, so no other
        server can be using it)."""
        if getattr(self, "db", None) is not None:
            empty = False
            if drop_empty:
                try:
                    empty = self.db.execute("SELECT COUNT(*) FROM participants").fetchone()[0] == 0
                except sqlite3.DatabaseError:
                    empty = False
            self.db.close()
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

    def start(self, *, token: str | None, prolific_pid: str, study_id: str, session_id: str,
              orders: int) -> dict:
        """The participant of ``token`` or ``prolific_pid`` (a returning one), else a new one
        with the order fewest have started (ties: the first)."""
        with self._lock:
            row = None
            if token:
                row = self.db.execute("SELECT id, token, participant, order_index FROM participants WHERE token = ?",
                                      (token,)).fetchone()
            if row is None and prolific_pid:
                row = self.db.execute("SELECT id, token, participant, order_index FROM participants "
                                      "WHERE prolific_pid = ?", (prolific_pid,)).fetchone()
            if row is None:
                counts = dict(self.db.execute("SELECT order_index, COUNT(*) FROM participants GROUP BY order_index"))
                order = min(range(orders), key=lambda i: (counts.get(i, 0), i))
                token = secrets.token_urlsafe(18)
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    cursor = self.db.execute(
                        "INSERT INTO participants (token, participant, prolific_pid, study_id, session_id, "
                        "order_index, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (token, prolific_pid or f"pending-{token}", prolific_pid or None, study_id or None,
                         session_id or None, order, time.time()))
                    pid = cursor.lastrowid
                    if not prolific_pid:
                        self.db.execute("UPDATE participants SET participant = ? WHERE id = ?", (f"elot-{pid}", pid))
                    self.db.execute("COMMIT")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                row = (pid, token, prolific_pid or f"elot-{pid}", order)
            pid, token, participant, order = row
            done = {}
            for step, data in self.db.execute("SELECT step, data FROM trials WHERE participant_id = ?", (pid,)):
                passed = json.loads(data).get("elot_passed")
                done[step] = {"passed": passed} if isinstance(passed, bool) else {}
            return {"id": pid, "token": token, "participant": participant, "order": order, "done": done}

    def participant(self, token: str) -> tuple[int, str, int] | None:
        with self._lock:
            return self.db.execute("SELECT id, participant, order_index FROM participants WHERE token = ?",
                                   (token,)).fetchone()

    def add_trial(self, participant_id: int, step: str, data: dict, *, last: bool) -> bool:
        """Store one trial (the first copy of a step is kept: a resent one changes nothing);
        ``last`` marks the session complete. True if it was new."""
        text = json.dumps(data, separators=(",", ":"))
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self.db.execute("INSERT OR IGNORE INTO trials (participant_id, step, data, received) "
                                         "VALUES (?, ?, ?, ?)", (participant_id, step, text, time.time()))
                if last:
                    self.db.execute("UPDATE participants SET completed = ? WHERE id = ? AND completed IS NULL",
                                    (time.time(), participant_id))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            return cursor.rowcount == 1

    def counts(self) -> tuple[int, int]:
        with self._lock:
            return self.db.execute("SELECT COUNT(*), COUNT(completed) FROM participants").fetchone()


def read_answers(connection: sqlite3.Connection) -> list[dict]:
    """Every participant of a database: ``participant``, ``order``, ``completed``, and
    ``trials`` (step → the trial's data), in arrival order."""
    out = []
    for pid, participant, prolific, order, completed in connection.execute(
            "SELECT id, participant, prolific_pid, order_index, completed FROM participants ORDER BY id"):
        trials = {step: json.loads(data) for step, data in connection.execute(
            "SELECT step, data FROM trials WHERE participant_id = ? ORDER BY received", (pid,))}
        out.append({"participant": participant, "order": order, "completed": completed is not None,
                    "trials": trials})
    return out



