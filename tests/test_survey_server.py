"""`elot survey serve` against what a real study meets: identities that collide or are
taken (F2, F4), a database that is served (F5), a user's own file given as --db (F10),
a full disk (F11), stalled and oversized uploads (F7), hostile text, a client that goes
away mid-body, no thread left, a survey with no orders, and a graceful shutdown. Each
case checks the server's log: one line, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import ELOT, NEUTRAL_CWD, run_elot

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey import SurveyError
from elot.survey.build import CONFIG, DATABASE, build_survey, load_config
from elot.survey.design import Settings
from elot.survey.server import Limits, make_server
from elot.survey.store import Store, read_answers

SCENARIOS = ("empty-box", "yellow-green")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("served")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=24)
    return build_survey(base / "set", base / "survey", Settings(condition="both", pairs=[], orders=4), cdn=True).folder


@pytest.fixture()
def survey(built, tmp_path):
    """A fresh copy of the built survey (no answers yet)."""
    folder = tmp_path / "survey"
    shutil.copytree(built, folder)
    return folder


@contextmanager
def serving(survey, **kwargs):
    """The server in a thread; yields (server, url, log lines)."""
    lines: list[str] = []
    server = make_server(survey, port=0, log=lines.append, **kwargs)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/", lines
    finally:
        server.shutdown()
        thread.join(30)
        server.server_close()
        server.store.close()


def call(url, value=None, *, raw: bytes | None = None, method="POST"):
    data = raw if raw is not None else (json.dumps(value).encode() if value is not None else None)
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as reply:
            body = reply.read()
            return reply.status, (json.loads(body) if reply.headers.get("Content-Type") == "application/json"
                                  else body)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def start(url, config, **fields):
    return call(url + "api/start", {"survey": config["id"], **fields})


def no_traceback(lines):
    text = "\n".join(lines)
    assert "Traceback" not in text and "cannot rollback" not in text, text


# -- identities (F2, F4) ----------------------------------------------------------------


def test_a_participant_id_can_never_take_a_generated_name(survey):
    """F2: PROLIFIC_PID=elot-3 took the third anonymous participant's name, and every
    anonymous start failed from then on, even after a restart."""
    config = load_config(survey)
    with serving(survey) as (server, url, log):
        names = []
        for pid in ("", "elot-3", "ELOT-2", "", "", "elot-4", ""):
            status, reply = start(url, config, prolific_pid=pid)
            assert status == 200, reply
            names.append(reply["participant"])
        no_traceback(log)
    assert len(set(names)) == len(names)
    assert "elot-3" not in names[1:2] and "ELOT-2" not in names       # a PID never becomes a generated name
    assert names[0] == "elot-1" and names[3:5] == ["elot-4", "elot-5"]
    with serving(survey) as (server, url, log):                       # and a restart changes nothing
        assert start(url, config)[1]["participant"] == "elot-8"
    rows = sqlite3.connect(survey / DATABASE).execute("SELECT prolific_pid FROM participants ORDER BY id").fetchall()
    assert [r[0] for r in rows][:3] == [None, "elot-3", "ELOT-2"]   # what was sent is kept, as sent


def test_a_stolen_prolific_pid_gets_a_new_session_flagged_as_a_duplicate(survey):
    """F4: anyone sending another participant's PROLIFIC_PID received their token and
    progress; the real one's later answers were acknowledged and discarded."""
    config = load_config(survey)
    with serving(survey) as (server, url, log):
        status, real = start(url, config, prolific_pid="5f1e9a")
        step = "consent"
        assert call(url + "api/trial", {"survey": config["id"], "token": real["token"], "step": step,
                                        "data": {"elot_step": step}})[0] == 200
        status, thief = start(url, config, prolific_pid="5f1e9a")
        assert status == 200 and thief["duplicate"] and not real["duplicate"]
        assert thief["token"] != real["token"] and thief["done"] == {} and thief["participant"] != "5f1e9a"
        # a browser holding someone else's token with another PID (a shared lab computer) starts anew
        status, next_person = start(url, config, prolific_pid="77aa", token=real["token"])
        assert next_person["token"] != real["token"] and next_person["done"] == {} and not next_person["duplicate"]
        # the real participant, with their own token, is where they were
        status, back = start(url, config, prolific_pid="5f1e9a", token=real["token"])
        assert back["token"] == real["token"] and step in back["done"] and back["participant"] == "5f1e9a"
    db = sqlite3.connect(survey / DATABASE)
    rows = db.execute("SELECT id, participant, prolific_pid, duplicate_of FROM participants ORDER BY id").fetchall()
    assert rows[0][1:] == ("5f1e9a", "5f1e9a", None)
    assert rows[1][2:] == ("5f1e9a", rows[0][0])               # duplicate_of: the first session's id
    assert rows[2][3] is None
    answers = read_answers(db)
    assert [a["duplicate_of"] for a in answers] == [None, rows[0][0], None]


def test_a_database_of_the_previous_layout_is_served_and_given_the_duplicate_column(survey):
    config = load_config(survey)
    db = sqlite3.connect(survey / DATABASE)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE participants (id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE,
            participant TEXT NOT NULL UNIQUE, prolific_pid TEXT, study_id TEXT, session_id TEXT,
            order_index INTEGER NOT NULL, started REAL NOT NULL, completed REAL);
        CREATE TABLE trials (participant_id INTEGER NOT NULL REFERENCES participants(id), step TEXT NOT NULL,
            data TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (participant_id, step));
    """)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("kind", "elot survey answers"), ("survey", config["id"])])
    # the F2 collision as the previous version left it: a PID holding the name elot-2
    db.execute("INSERT INTO participants VALUES (1, 'tok', 'elot-2', 'elot-2', NULL, NULL, 0, 0, NULL)")
    db.commit()
    db.close()
    with serving(survey) as (server, url, log):
        names = [start(url, config)[1]["participant"] for _ in range(2)]
        no_traceback(log)
    assert names == ["elot-2+", "elot-3"]
    columns = {r[1] for r in sqlite3.connect(survey / DATABASE).execute("PRAGMA table_info(participants)")}
    assert "duplicate_of" in columns


# -- the database is never served (F5), a user's file is never touched (F10) -------------


def test_the_database_is_never_served_whatever_its_name_and_place(survey, tmp_path):
    """F5: --db inside the survey folder as answers.json was served (ids and ratings)."""
    config = load_config(survey)
    (survey / "stimuli" / "copy.gif").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with serving(survey, db=survey / "answers.json") as (server, url, log):
        assert start(url, config, prolific_pid="secret-person")[0] == 200
        for path in ("answers.json", "answers.json-wal", "answers.json-shm", "answers.json.lock", "stimuli/copy.gif",
                     "%61nswers.json", "stimuli/../answers.json"):
            status, body = call(url + path, method="GET")
            assert status == 404, path
        status, page = call(url, method="GET")
        assert status == 200 and b'<meta name="elot-server"' in page    # the page knows a server stores answers
    assert (survey / "answers.json").read_bytes().startswith(b"SQLite format 3")


def test_export_never_takes_a_database_whatever_its_name(survey, tmp_path):
    """F5: `survey export` zipped a database kept inside the survey as answers.json."""
    config = load_config(survey)
    store = Store(survey / "answers.json", config["id"])
    store.start(token=None, prolific_pid="secret-person", study_id="", session_id="", orders=1)
    store.close()
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "index.html").is_file() and not (tmp_path / "site" / "answers.json").exists()


def _own_database(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.execute("INSERT INTO notes VALUES ('mine')")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["sqlite", "wal", "meta-less", "empty"])
def test_a_file_it_did_not_create_is_refused_untouched(survey, tmp_path, kind):
    """F10: a user's own SQLite file given as --db was switched to WAL mode and left with a
    .lock before it was refused; an empty file was deleted at shutdown."""
    mine = tmp_path / "mine.sqlite"
    if kind == "empty":
        mine.write_bytes(b"")
    elif kind == "wal":
        db = sqlite3.connect(mine)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
        db.close()
    elif kind == "meta-less":
        db = sqlite3.connect(mine)
        db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('kind', 'my own')")
        db.commit()
        db.close()
    else:
        _own_database(mine)
    before = mine.read_bytes()
    listing = sorted(p.name for p in tmp_path.iterdir())
    done = run_elot("survey", "serve", str(survey), "--port", "0", "--db", str(mine), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: {mine} is not a survey's database"), done.stderr
    assert "it was left as it is" in done.stderr
    assert mine.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == listing


# -- a full disk (F11) -------------------------------------------------------------------


def test_a_full_disk_is_a_503_the_page_retries_and_one_line_in_the_log(survey):
    """F11: 39 of 40 starts failed, each with two tracebacks ending in "cannot rollback",
    and the page went silently offline."""
    config = load_config(survey)
    with serving(survey) as (server, url, log):
        status, session = start(url, config, prolific_pid="P1")
        assert status == 200
        db = server.store.db
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 1}")      # the disk is as good as full
        step = "consent"
        big = {"survey": config["id"], "token": session["token"], "step": step,
               "data": {"elot_step": step, "pad": "x" * 40000}}
        for _ in range(3):
            status, reply = call(url + "api/trial", big)
            assert status == 503 and "disk" in reply["error"] and "full" in reply["error"]
        statuses = set()
        for n in range(40):
            statuses.add(start(url, config, prolific_pid=f"Q{n}" + "y" * 150)[0])
        assert 503 in statuses
        assert len([line for line in log if "full" in line]) == 1      # one line, not one per request
        no_traceback(log)
        db.execute("PRAGMA max_page_count = 1073741823")           # space again: the same answer is taken
        assert call(url + "api/trial", big)[0] == 200
        assert start(url, config, prolific_pid="P2")[0] == 200
    rows = sqlite3.connect(survey / DATABASE).execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    assert rows == 1


# -- hostile input, stalled and cut-off uploads (F7), tracebacks -------------------------


def _raw(port: int, data: bytes, *, read: bool = True, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if not read:
            return b""
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _post_head(length: int, path="/api/start") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def test_hostile_text_gets_a_400_and_never_a_traceback(survey):
    config = load_config(survey)
    with serving(survey) as (server, url, log):
        port = server.server_address[1]
        for field in ("prolific_pid", "token", "study_id"):
            body = ('{"survey": "%s", "%s": "\\ud800x"}' % (config["id"], field)).encode()
            status, reply = call(url + "api/start", raw=body)
            assert status == 400 and "surrogate" in reply["error"], field
        body = ('{"survey": "%s", "token": "t", "step": "consent", "data": {"elot_step": "consent", "x": "\\udfff"}}'
                % config["id"]).encode()
        assert call(url + "api/trial", raw=body)[0] == 400
        assert call(url + "api/start", raw=b"[" * 60000)[0] == 400            # nested past any recursion limit
        assert call(url + "api/start", raw=b"\xff\xfe{")[0] == 400           # not UTF-8
        # over the size limit: refused from the headers, before a byte of the body is sent
        reply = _raw(port, _post_head(10 ** 9))
        assert reply.startswith(b"HTTP/1.1 413")
        # a client that goes away mid-body
        _raw(port, _post_head(1000) + b'{"survey": ', read=False)
        assert start(url, config)[0] == 200
        time.sleep(0.3)
        no_traceback(log)


@pytest.mark.slow
def test_stalled_uploads_hold_nothing_and_a_participant_still_gets_in(survey):
    """F7: 53 stalled uploads each held a thread forever and locked out a real participant."""
    config = load_config(survey)
    with serving(survey, limits=Limits(body_timeout=5.0)) as (server, url, log):
        port = server.server_address[1]
        stalled = []
        for _ in range(53):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(_post_head(500) + b'{"survey": "')       # and never the rest
            stalled.append(sock)
        try:
            status, reply = start(url, config, prolific_pid="real")
            assert status == 200 and reply["participant"] == "real"
            for sock in stalled:        # the participant got in while every stalled upload still waits
                sock.setblocking(False)
                with pytest.raises(BlockingIOError):
                    sock.recv(200)
                sock.setblocking(True)
            answers = []
            for sock in stalled:        # each stalled upload is answered 408 and its connection closed
                sock.settimeout(10)
                answers.append(sock.recv(200))
            assert all(a.startswith(b"HTTP/1.1 408") for a in answers)
        finally:
            for sock in stalled:
                sock.close()
        no_traceback(log)


def test_connections_that_never_finish_their_headers_are_closed(survey):
    """uvicorn times out only idle keep-alive connections: a client sending its headers a
    byte at a time would hold a connection for ever. Here it is closed after the header
    timeout, and participants get in meanwhile."""
    config = load_config(survey)
    with serving(survey, limits=Limits(header_timeout=1.0)) as (server, url, log):
        port = server.server_address[1]
        slow = []
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"POST /api/start HTTP/1.1\r\nHost: x\r\n")   # and no end of headers
            slow.append(sock)
        try:
            assert start(url, config)[0] == 200
            assert all(sock.recv(100) == b"" for sock in slow)          # closed by the server
        finally:
            for sock in slow:
                sock.close()
        no_traceback(log)


def test_no_thread_left_is_a_clear_error_and_the_survey_is_left_as_it_was(survey, monkeypatch):
    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    with pytest.raises(SurveyError, match="cannot start the database's writer thread") as raised:
        make_server(survey, port=0)
    assert "ulimit" in raised.value.hint
    assert not [p.name for p in survey.iterdir() if p.name.startswith(DATABASE)]


def test_a_survey_with_no_orders_is_refused_at_startup(survey):
    config = load_config(survey)
    config["orders"] = []
    (survey / CONFIG).write_text(json.dumps(config))
    done = run_elot("survey", "serve", str(survey), "--port", "0", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f'{survey / CONFIG}: error: "orders" must be a list of at least one order (with '
                                  "none, no participant could be given one)"), done.stderr
    assert done.stderr.count(str(survey / CONFIG)) == 1        # the place said once (the merge had it twice)


# -- the command: signals, graceful shutdown, its log -----------------------------------


def test_the_command_logs_one_line_per_problem_and_stops_gracefully_on_sigterm(survey):
    config = load_config(survey)
    process = subprocess.Popen([*ELOT, "survey", "serve", str(survey), "--port", "0"], stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, text=True, cwd=NEUTRAL_CWD)
    try:
        line = process.stderr.readline()
        assert line.startswith("serving "), line + process.stderr.read()
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        url = f"http://127.0.0.1:{port}/"
        status, session = start(url, config, prolific_pid="P")
        assert status == 200
        body = ('{"survey": "%s", "prolific_pid": "\\ud800"}' % config["id"]).encode()
        assert call(url + "api/start", raw=body)[0] == 400
        _raw(port, _post_head(1000) + b"{", read=False)               # gone mid-body
        assert _raw(port, _post_head(10 ** 8)).startswith(b"HTTP/1.1 413")
        assert call(url + "api/trial", {"survey": config["id"], "token": session["token"], "step": "consent",
                                        "data": {"elot_step": "consent"}})[0] == 200
        stalled = socket.create_connection(("127.0.0.1", port), timeout=30)
        stalled.sendall(_post_head(500) + b"{")                       # an upload under way at the signal
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        log = process.stderr.read()
        with stalled:       # told to send it again, without waiting for its body timeout to end the shutdown
            assert stalled.recv(200).startswith(b"HTTP/1.1 503")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in log and "Cancel" not in log and "Exception" not in log, log
    assert log.endswith("stopped: 1 participants, 0 complete\n"), log
    db = sqlite3.connect(survey / DATABASE)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 1


def test_an_empty_survey_database_created_here_is_removed_but_never_a_given_one(survey, tmp_path):
    config = load_config(survey)
    store = Store(tmp_path / "new.sqlite", config["id"])
    store.close(drop_empty=True)
    assert not (tmp_path / "new.sqlite").exists()            # created here, nobody came: the survey as built
    store = Store(tmp_path / "kept.sqlite", config["id"])
    store.close()
    store = Store(tmp_path / "kept.sqlite", config["id"])    # given: never removed, empty or not
    store.close(drop_empty=True)
    assert (tmp_path / "kept.sqlite").exists()
    assert os.path.getsize(tmp_path / "kept.sqlite") > 0


# -- identities as a property -------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIDS = st.sampled_from(["", "A", "B", "elot-1", "elot-2", "ELOT-3", "elot-4 ", " A", "elot-"])
ARRIVALS = st.lists(st.tuples(PIDS, st.one_of(st.none(), st.integers(0, 20))), min_size=1, max_size=25)


@settings(max_examples=40, deadline=None)
@given(arrivals=ARRIVALS)
def test_names_are_unique_sessions_are_their_tokens_and_duplicates_point_at_the_first(arrivals, tmp_path_factory):
    """Any sequence of arrivals (a PROLIFIC_PID or none, the token of an earlier session or
    none): every session has its own name, never a generated one taken by a PID; a token
    resumes its own session unless it comes with another PID; a new session with a PID
    seen before is a duplicate of the first; orders stay balanced."""
    path = tmp_path_factory.mktemp("prop") / "a.sqlite"
    store = Store(path, "survey")
    sessions: list[dict] = []
    try:
        for pid, earlier in arrivals:
            pid = pid.strip()          # as the server passes it
            token = sessions[earlier % len(sessions)]["token"] if earlier is not None and sessions else None
            before = {s["token"]: s for s in sessions}
            session = store.start(token=token, prolific_pid=pid, study_id="", session_id="", orders=3)
            if token is not None and (not pid or before[token]["pid"] == pid):
                assert session["token"] == token and session["id"] == before[token]["id"]
                continue
            assert session["token"] not in before
            firsts = [s for s in sessions if s["pid"] == pid and pid]
            assert session["duplicate_of"] == (firsts[0]["id"] if firsts else None)
            if pid and not firsts and not pid.lower().startswith("elot-"):
                assert session["participant"] == pid
            else:
                assert session["participant"].startswith("elot-")
            sessions.append({**session, "pid": pid})
        names = [s["participant"] for s in sessions]
        assert len(set(names)) == len(names)
        used = dict(store.db.execute("SELECT order_index, COUNT(*) FROM participants GROUP BY 1"))
        counts = [used.get(order, 0) for order in range(3)]
        assert max(counts) - min(counts) <= 1, counts
    finally:
        store.close()
