"""Hostile inputs to the study server and ``elot survey import`` (issue 44), shared by
``adversarial.py`` (each case in its own process, and the server under attack in a
thread) and ``fuzz_commands.py`` (in this process).

The cases, each a command line and what it must come to:

* ``escapes`` (F6): participants whose PROLIFIC_PID or session holds terminal escape
  codes, some excluded, some duplicated: nothing raw may reach the terminal;
* ``malformed`` (F7): a trial with ``elot_goals: [[1]]`` or another malformed value, in
  an export or the server's database: refused naming the value, exit 2, nothing written;
* ``database`` (F8, F12): a database whose view never ends (or would run for minutes),
  a virtual table, a trigger, missing columns, a value past 1 MiB: ``import`` refuses it
  at once, and ``serve --db`` leaves it byte for byte, with nothing made beside it;
* ``archive`` (F8): a results archive that unpacks to far more than it holds (one
  repeated byte; hundreds of entries of it): refused before a byte is unpacked;
* ``duplicates`` (design risk a): sessions of one PROLIFIC_PID, complete or not, in
  random order: the complete one is kept, the first when none is, none when several are.

:func:`server_checks` runs the server on port 0 and attacks it from addresses of this
machine (127.0.0.2 and up are others than 127.0.0.1): malformed trials (never a 5xx),
one client holding more connections than it may (design risk b: a participant from
another address still gets in), and a burst of new sessions (design risk c: a 429 past
the limit, and no row).

Not a timed test: the figures go in the issue's notes.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import sqlite3
import struct
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

SCENARIOS = ("empty-box", "yellow-green")
ESCAPES = ["\x1b]0;pwned\x07", "\x1b[2J", "\x1b[1A\x1b[2K", "\r", "\u202e", "\x9b31m", "\x00", "\u2028"]
#: What a terminal must never receive raw from elot (a newline and a tab are elot's own).
RAW = {chr(c) for c in range(0x20) if chr(c) not in "\n\t"} | {"\x7f", "\u202e", "\u2028", "\x9b"}
MALFORMED = [("elot_goals", [[1]]), ("elot_goals", [{"gem": 1}]), ("elot_goals", [1.5]), ("elot_goals", [True]),
             ("elot_goals", "1"), ("elot_goals", None), ("elot_goals", [1, 1]), ("elot_goals", [99]),
             ("elot_ratings", [[4], [4]]), ("elot_ratings", {"a": 4}), ("elot_ratings", [4.5, 4]),
             ("elot_ratings", [8, 1]), ("elot_statements", [[0], [1]]), ("elot_t", [1]), ("elot_t", "1"),
             ("elot_scenario", ["x"]), ("elot_step", 5)]
DATABASES = ["endless view", "slow view", "virtual", "trigger", "short columns", "huge value", "no meta"]


def build(folder: Path) -> Path:
    """A small survey (two scenarios, two orders) in ``folder``/survey."""
    from elot.study import stimuli
    from elot.study.references import ScenarioRef
    from elot.survey.build import build_survey
    from elot.survey.design import Settings

    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], folder / "set", jobs=1, mp4=False, cell_px=16)
    return build_survey(folder / "set", folder / "survey", Settings(orders=2), cdn=True).folder


def session(config: dict, order: int, participant: str, *, rating: int = 6, stop_after: int | None = None,
            goal_right: bool = True, passed: bool = True, **extra) -> list[dict]:
    """The trials a participant of ``order`` sends, as the page makes them (the tests of
    ``survey import`` and of the study server send them too)."""
    from elot.survey.server import steps_of

    trials = []
    common = {"participant": participant, "survey_id": config["id"], "order": order,
              "condition": config["orders"][order]["condition"], **extra}
    for step, (kind, trial, segment) in steps_of(config, config["orders"][order]).items():
        if step == "retry" or step.startswith(("tutorial-2", "check-2")) or step == "debrief":
            continue
        data = {"elot_step": step, "elot_kind": kind, **common}
        if kind == "comprehension":
            data["elot_passed"] = passed
        if kind in ("judgment", "watch"):
            scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
            data.update(elot_scenario=scenario["name"], elot_t=segment["t"], elot_control=trial["control"])
            if kind == "judgment":
                goal = scenario["goal"] if goal_right else scenario["goal"] % scenario["gems"] + 1
                data.update(elot_statements=trial["statements"], elot_goals=[goal],
                            elot_ratings=[rating] * len(trial["statements"]))
        trials.append(data)
        if stop_after is not None and len(trials) >= stop_after:
            return trials
    trials.append({"elot_step": "debrief", "elot_kind": "debrief", **common})
    return trials


def served(config: dict, path: Path, people: list[tuple[str, int | None]]) -> list[int]:
    """A database as the server keeps it: each (PROLIFIC_PID, trials sent or None for
    all) in turn, answering in the order the server gives; the sessions' row ids."""
    from elot.survey.store import Store

    store = Store(path, config["id"])
    ids = []
    try:
        for pid, stop_after in people:
            made = store.start(token=None, prolific_pid=pid, study_id="S", session_id=f"prolific-{len(ids)}",
                               orders=len(config["orders"]))
            for data in session(config, made["order"], pid, stop_after=stop_after):
                store.add_trial(made["id"], data["elot_step"], data, last=data["elot_step"] == "debrief")
            ids.append(made["id"])
    finally:
        store.close()
    return ids


_PACKED: dict[int, tuple[bytes, int]] = {}


def _spaces(size: int) -> tuple[bytes, int]:
    """``size`` spaces deflated, and their CRC (made once per size)."""
    if size not in _PACKED:
        squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
        _PACKED[size] = squeeze.compress(b" " * size) + squeeze.flush(), zlib.crc32(b" " * size)
    return _PACKED[size]


def bomb(path: Path, entries: int, size: int) -> None:
    """A results archive of ``entries`` data.txt, each ``size`` spaces deflated once and
    written as it is: kilobytes that unpack to entries × size."""
    packed, crc = _spaces(size)
    local, central = bytearray(), bytearray()
    for n in range(entries):
        name = f"study_result_{n}/comp-result_{n}/data.txt".encode()
        offset = len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(packed), size, len(name), 0)
        local += name + packed
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(packed), size,
                               len(name), 0, 0, 0, 0, 0, offset) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))


def hostile_database(path: Path, kind: str, config: dict) -> bool:
    """A database of ``kind`` (one of :data:`DATABASES`) at ``path``; whether ``import``
    must refuse it (``serve --db`` refuses every one)."""
    from elot.survey.store import KIND, SCHEMA

    if kind in ("trigger", "huge value"):
        served(config, path, [("P1", None)])
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=DELETE")
        if kind == "trigger":
            db.execute("CREATE TRIGGER spy AFTER INSERT ON participants BEGIN DELETE FROM trials; END")
        else:
            db.execute("UPDATE trials SET data = ? WHERE step = 'consent'",
                       (json.dumps({"elot_step": "consent", "pad": "x" * (2 << 20)}),))
        db.commit()
        db.close()
        Path(f"{path}.lock").unlink(missing_ok=True)
        return kind == "huge value"      # a trigger never runs on a read
    loop = "SELECT 1 UNION ALL SELECT k + 1 FROM r" + (" WHERE k < 10000000000" if kind == "slow view" else "")
    tables = {
        "endless view": SCHEMA.replace("CREATE TABLE IF NOT EXISTS participants (",
                                       "CREATE TABLE IF NOT EXISTS unused (")
        + f"CREATE VIEW participants AS WITH RECURSIVE r(k) AS ({loop}) SELECT k AS id FROM r WHERE k < 0;",
        "slow view": SCHEMA.replace("CREATE TABLE IF NOT EXISTS meta (", "CREATE TABLE IF NOT EXISTS unused (")
        + f"CREATE VIEW meta AS WITH RECURSIVE r(k) AS ({loop}) SELECT 'kind' AS key, 'x' AS value FROM r "
          "WHERE k < 0;",
        "virtual": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                   "CREATE VIRTUAL TABLE participants USING fts5(id, token);"
                   "CREATE TABLE trials (participant_id, step, data, received);",
        "short columns": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                         "CREATE TABLE participants (id, token); CREATE TABLE trials (participant_id, step, data);",
        "no meta": "CREATE TABLE participants (id); CREATE TABLE trials (participant_id);",
    }[kind]
    db = sqlite3.connect(path)
    db.executescript(tables.replace("CREATE INDEX IF NOT EXISTS participants_pid ON participants(prolific_pid);", ""))
    if kind != "no meta" and kind != "slow view":
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [("kind", KIND), ("survey", config["id"])])
    db.commit()
    db.close()
    return True


@dataclass
class Case:
    """One command line over a hostile input: ``refuse`` (exit 2), or accept (exit 0), or
    None for either; ``keep``: files whose bytes must not change; ``listing``: a folder in
    which nothing may be made or removed; ``check``: more to check of (status, stdout,
    stderr, folder), a list of problems."""

    kind: str
    argv: list[str]
    refuse: bool | None
    keep: list[Path] = field(default_factory=list)
    listing: Path | None = None
    check: Callable[[int, str, str, Path], list[str]] | None = None
    what: str = ""
    seconds: float | None = None       # a refusal must come within this (a hostile file costs nothing)


def raw_in(text: str) -> str:
    """The first character a terminal would act on in ``text`` ("" if none)."""
    return next((c for c in text if c in RAW or 0x80 <= ord(c) < 0xa0), "")


def generate(rng: random.Random, survey: Path, config: dict, folder: Path, *, endless: bool = False) -> Case:
    """One hostile case in ``folder`` (the case's own) against ``survey``. ``endless``: a
    database may hold a view that never ends (for a process of its own, which a time
    limit ends should it hang; in this process, the view ends after minutes instead)."""
    kind = rng.choice(["escapes", "malformed", "database", "serve_db", "archive", "duplicates"])
    out = folder / "r.csv"
    if kind == "escapes":
        trials = []
        for n in range(rng.randint(1, 4)):
            pid = f"P{n}" + "".join(rng.sample(ESCAPES, 3))
            for run in range(rng.randint(1, 2)):
                trials += session(config, rng.randrange(2) if run == 0 else trials[-1]["order"], pid,
                                  goal_right=rng.random() < 0.6, stop_after=rng.choice([None, None, 7]),
                                  elot_session=f"{run}{rng.choice(ESCAPES)}", prolific_pid=pid)
        (folder / "e.json").write_text(json.dumps(trials))
        return Case(kind, ["survey", "import", str(folder / "e.json"), "--survey", str(survey), "-o", str(out)],
                    None, keep=[folder / "e.json"])
    if kind == "malformed":
        field_, value = rng.choice(MALFORMED)
        people = [(f"P{n}", None) for n in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            trials = [t for n, (pid, _) in enumerate(people) for t in session(config, n % 2, pid)]
            judgments = [t for t in trials if t["elot_kind"] == "judgment"]
            rng.choice(judgments)[field_] = value
            data = folder / "e.json"
            data.write_text(json.dumps(trials))
        else:
            data = folder / "answers.sqlite"
            served(config, data, people)
            db = sqlite3.connect(data)
            rows = db.execute("SELECT participant_id, step, data FROM trials WHERE data LIKE '%elot_goals%'").fetchall()
            pid, step, text = rng.choice(rows)
            trial = json.loads(text)
            trial[field_] = value
            db.execute("UPDATE trials SET data = ? WHERE participant_id = ? AND step = ?",
                       (json.dumps(trial), pid, step))
            db.commit()
            db.close()

        def named(code, out_text, err, where):
            shown = json.dumps(value)[:20]
            return [] if code != 2 or shown in err else [f"the error does not name {shown}"]

        return Case(kind, ["survey", "import", str(data), "--survey", str(survey), "-o", str(out)], True,
                    keep=[data], check=named, what=f"{field_} = {json.dumps(value)}")
    if kind in ("database", "serve_db"):
        which = rng.choice([d for d in DATABASES if (endless or d != "endless view")
                            and (kind == "database" or d != "huge value")])     # serve takes a large trial
        data = folder / "hostile.sqlite"
        refuse = hostile_database(data, which, config)
        if kind == "serve_db":
            return Case(kind, ["survey", "serve", str(survey), "--port", "0", "--db", str(data)], True, keep=[data],
                        listing=folder, what=which, seconds=10.0)
        return Case(kind, ["survey", "import", str(data), "--survey", str(survey), "-o", str(out)], refuse,
                    keep=[data], what=which, seconds=10.0 if refuse else None)
    if kind == "archive":       # issue 44's was 29 KB that unpacked to 4.3 GB
        entries, size = rng.choice([(300, 4 << 20), (1, 64 << 20), (2000, 1 << 20), (5, 300 << 20),
                                    (17, 250 << 20)])
        data = folder / "results.jrzip"
        bomb(data, entries, size)
        return Case(kind, ["survey", "import", str(data), "--survey", str(survey), "-o", str(out)], True,
                    keep=[data], what=f"{entries} × {size >> 20} MiB", seconds=10.0)
    # duplicates: sessions of one PROLIFIC_PID, each complete or not, and one other participant
    pattern = [rng.random() < 0.5 for _ in range(rng.randint(2, 4))]
    data = folder / "answers.sqlite"
    ids = served(config, data, [("5f1e9a", None if full else rng.choice([5, 9])) for full in pattern]
                 + [("B", None)])
    complete = [i for i, full in zip(ids, pattern) if full]
    kept = complete[0] if len(complete) == 1 else None if complete else ids[0]

    def right_one(code, out_text, err, where):
        if code != 0:
            return [f"exit {code}"]
        import csv

        with open(where / "r-raw.csv", encoding="utf-8") as handle:
            rows = [row for row in csv.DictReader(handle) if row["session"] != str(ids[-1])]
        seen = {row["session"] for row in rows}                 # sessions that rated something
        kept_seen = {row["session"] for row in rows if row["duplicate"] == "0"}
        expected = ({str(kept)} if kept is not None else set()) & seen
        return [] if kept_seen == expected else [f"kept {sorted(kept_seen)}, not {sorted(expected)} "
                                                 f"(complete: {complete})"]

    return Case("duplicates", ["survey", "import", str(data), "--survey", str(survey), "-o", str(out),
                               "--keep-incomplete"], False, keep=[data], check=right_one,
                what=f"complete: {pattern}")


# -- the server under attack ------------------------------------------------------------


def _post(port: int, path: str, value, source: str = "127.0.0.1") -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=(source, 0))
    try:
        connection.request("POST", path, json.dumps(value), {"Content-Type": "application/json"})
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        connection.close()


def server_checks(survey: Path, *, connections: int = 600, per_client: int = 64) -> dict:
    """The server (on a copy of ``survey``'s database in a temporary file) attacked from
    this machine's other addresses; counts that must be 0: ``server_5xx`` (a malformed
    trial answered 5xx), ``locked_out`` (a participant refused while one client holds
    ``connections`` connections), ``starts_unlimited`` (a burst of new sessions past the
    limit not refused, or rows made for the refused), ``log_raw`` (a raw control
    character in the server's log)."""
    import tempfile

    from elot.survey.build import load_config
    from elot.survey.server import Limits, make_server, steps_of

    config = load_config(survey)
    counts = {"server_5xx": 0, "locked_out": 0, "starts_unlimited": 0, "log_raw": 0}
    log: list[str] = []
    with tempfile.TemporaryDirectory(prefix="elot-server-attack-") as top:
        limits = Limits(concurrency=max(2 * per_client, connections // 2), per_client=per_client,
                        new_sessions=20, session_every=3600.0)
        server = make_server(survey, port=0, db=Path(top) / "a.sqlite", limits=limits, log=log.append)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        port = server.server_address[1]
        try:
            status, started = _post(port, "/api/start", {"survey": config["id"], "prolific_pid": "P\x1b[2J"})
            order = config["orders"][started["order"]]
            step, (_, trial, segment) = next((s, v) for s, v in steps_of(config, order).items() if v[0] == "judgment")
            scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
            good = {"elot_step": step, "elot_scenario": scenario["name"], "elot_t": segment["t"],
                    "elot_statements": trial["statements"], "elot_goals": [scenario["goal"]],
                    "elot_ratings": [4] * len(trial["statements"])}
            for name, value in MALFORMED:
                status, _ = _post(port, "/api/trial", {"survey": config["id"], "token": started["token"],
                                                       "step": step, "data": {**good, name: value}})
                counts["server_5xx"] += status >= 500
            held = []
            try:
                for _ in range(connections):
                    sock = socket.socket()
                    sock.bind(("127.0.0.2", 0))
                    sock.settimeout(10)
                    try:
                        sock.connect(("127.0.0.1", port))
                    except OSError:
                        sock.close()
                        continue
                    held.append(sock)
                status, _ = _post(port, "/api/start", {"survey": config["id"], "prolific_pid": "real"},
                                  source="127.0.0.3")
                counts["locked_out"] += status != 200
            finally:
                for sock in held:
                    sock.close()
            statuses = [_post(port, "/api/start", {"survey": config["id"]}, source="127.0.0.4")[0]
                        for _ in range(limits.new_sessions + 10)]
            counts["starts_unlimited"] += statuses[:limits.new_sessions] != [200] * limits.new_sessions
            counts["starts_unlimited"] += statuses[limits.new_sessions:] != [429] * 10
        finally:
            server.shutdown()
            thread.join(30)
            server.server_close()
            rows = server.store.db.execute("SELECT COUNT(*) FROM participants").fetchone()[0]
            server.store.close()
        counts["starts_unlimited"] += rows != 2 + limits.new_sessions
        counts["log_raw"] = sum(bool(raw_in(line)) for line in log)
    return counts
