"""``elot survey serve``: the survey for pilots and lab studies, on the standard library.

It serves the files of the survey folder and nothing else (the list is made when it
starts; the database, lock files and anything outside are never on it, and a path is
looked up in the list, never joined to the folder), and two calls:

* ``POST api/start`` — the arriving participant's order and what they already did (a
  returning one is known by their session token or ``PROLIFIC_PID``);
* ``POST api/trial`` — one trial's data, checked against the survey (its step must be
  one of the participant's, a judgment's goals and ratings must fit the scenario; at most
  :data:`MAX_BODY` bytes) and stored at once (:class:`~elot.survey.store.Store`).

It listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import errno
import json
import os
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from elot.survey import SurveyError
from elot.survey.build import CONFIG, DATABASE, load_config
from elot.survey.store import Store

#: The largest request body taken (a judgment's data is about 1 KB).
MAX_BODY = 64 * 1024
#: Longest token, participant id or step name taken.
MAX_NAME = 200
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css",
         ".png": "image/png", ".gif": "image/gif", ".json": "application/json", ".mp4": "video/mp4",
         ".svg": "image/svg+xml"}


def published_files(folder: Path) -> dict[str, Path]:
    """The files a survey folder publishes, by URL path: regular files of the kinds in
    :data:`TYPES`, not hidden, not the database, not links, inside the folder."""
    folder = folder.resolve()
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not (Path(dirpath) / d).is_symlink()]
        for name in filenames:
            path = Path(dirpath) / name
            if name.startswith(".") or path.is_symlink() or path.suffix not in TYPES:
                continue
            relative = path.relative_to(folder).as_posix()
            out[relative] = path
    out.pop(CONFIG, None)   # in experiment.js already; the server's own
    return out


def steps_of(config: dict, order: dict) -> dict[str, tuple]:
    """Every step a participant of ``order`` may send: name → (kind, trial, segment)."""
    steps = {"consent": ("consent", None, None), "retry": ("instructions", None, None),
             "debrief": ("debrief", None, None)}
    for attempt in (1, 2):
        steps[f"tutorial-{attempt}-world"] = ("instructions", None, None)
        steps[f"tutorial-{attempt}-task"] = ("instructions", None, None)
        steps[f"check-{attempt}"] = ("comprehension", None, None)
    scenarios = {s["name"]: s for s in config["scenarios"]}
    for position, trial in enumerate(order["trials"], start=1):
        for k, segment in enumerate(scenarios[trial["scenario"]]["segments"]):
            steps[f"s{position}-{k}"] = ("judgment" if segment["judged"] else "watch", trial, segment)
    return steps


def check_trial(config: dict, order: dict, step: str, data) -> str | None:
    """What is wrong with one trial's data (None when nothing)."""
    steps = steps_of(config, order)
    if step not in steps:
        return f"step {step!r} is not one of this participant's"
    if not isinstance(data, dict) or not all(isinstance(k, str) and len(k) <= MAX_NAME for k in data):
        return "data must be an object"
    if data.get("elot_step") != step:
        return "data.elot_step is not the step"
    kind, trial, segment = steps[step]
    if kind != "judgment":
        if kind == "comprehension" and not isinstance(data.get("elot_passed"), bool):
            return "a comprehension check needs elot_passed (true or false)"
        return None
    scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
    low, high = config["scale"]
    goals, ratings = data.get("elot_goals"), data.get("elot_ratings")
    if data.get("elot_scenario") != scenario["name"] or data.get("elot_t") != segment["t"]:
        return "the scenario or t is not the step's"
    if data.get("elot_statements") != trial["statements"]:
        return "elot_statements are not the ones asked"
    if not (isinstance(goals, list) and goals and len(set(goals)) == len(goals)
            and all(type(g) is int and 1 <= g <= scenario["gems"] for g in goals)):
        return f"elot_goals must be distinct gem numbers 1..{scenario['gems']}, at least one"
    if not (isinstance(ratings, list) and len(ratings) == len(trial["statements"])
            and all(type(r) is int and low <= r <= high for r in ratings)):
        return f"elot_ratings must be {len(trial['statements'])} whole numbers {low}..{high}"
    return None


class SurveyServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True   # a restart binds at once (TIME_WAIT); a second listener is still refused

    def __init__(self, folder: Path, config: dict, store: Store, address) -> None:
        self.folder = folder
        self.config = config
        self.store = store
        self.files = published_files(folder)
        super().__init__(address, Handler)


class Handler(BaseHTTPRequestHandler):
    server: SurveyServer
    server_version = "elot-survey"
    sys_version = ""

    def log_message(self, format, *args) -> None:  # the library never prints
        pass

    def _send(self, status: int, body: bytes, content_type: str, *, cache: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path).lstrip("/") or "index.html"
        file = self.server.files.get(path)
        if file is None:
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        try:
            body = file.read_bytes()
        except OSError:
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        self._send(HTTPStatus.OK, body, TYPES[file.suffix], cache=file.suffix in (".gif", ".png", ".mp4"))

    do_HEAD = do_GET

    def _body(self):
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._error(HTTPStatus.LENGTH_REQUIRED, "a body needs its Content-Length")
            return None
        if length < 0 or length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY} bytes")
            return None
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
            return None
        try:
            value = json.loads(self.rfile.read(length))
        except (ValueError, RecursionError):
            self._error(HTTPStatus.BAD_REQUEST, "the body is not JSON")
            return None
        if not isinstance(value, dict) or value.get("survey") != self.server.config["id"]:
            self._error(HTTPStatus.BAD_REQUEST, "not an answer to this survey")
            return None
        return value

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if path not in ("/api/start", "/api/trial"):
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        body = self._body()
        if body is None:
            return
        strings = {k: body.get(k) for k in ("token", "prolific_pid", "study_id", "session_id", "step")}
        for name, value in strings.items():
            if value is not None and not (isinstance(value, str) and len(value) <= MAX_NAME):
                self._error(HTTPStatus.BAD_REQUEST, f"{name} must be a string of at most {MAX_NAME} characters")
                return
        config, store = self.server.config, self.server.store
        if path == "/api/start":
            session = store.start(token=strings["token"], prolific_pid=(strings["prolific_pid"] or "").strip(),
                                  study_id=strings["study_id"] or "", session_id=strings["session_id"] or "",
                                  orders=len(config["orders"]))
            self._json(HTTPStatus.OK, {k: session[k] for k in ("token", "participant", "order", "done")})
            return
        known = store.participant(strings["token"] or "")
        if known is None:
            self._error(HTTPStatus.FORBIDDEN, "unknown session token")
            return
        pid, participant, order = known
        step = strings["step"] or ""
        problem = check_trial(config, config["orders"][order], step, body.get("data"))
        if problem:
            self._error(HTTPStatus.BAD_REQUEST, problem)
            return
        store.add_trial(pid, step, body["data"], last=step == "debrief")
        self._json(HTTPStatus.OK, {"stored": step})


def make_server(folder: str | Path, *, host: str = "127.0.0.1", port: int = 8000,
                db: str | Path | None = None) -> SurveyServer:
    """A server for the survey in ``folder`` (not yet serving: call ``serve_forever``),
    its answers in ``db`` (default: ``responses.sqlite`` in the folder)."""
    folder = Path(folder)
    config = load_config(folder)
    store = Store(db if db is not None else folder / DATABASE, config["id"])
    try:
        return SurveyServer(folder, config, store, (host, port))
    except OSError as error:
        store.close()
        if error.errno == errno.EADDRINUSE:
            raise SurveyError(f"port {port} on {host} is in use", hint="give another --port (or stop what uses it)") \
                from None
        raise SurveyError(f"cannot listen on {host}:{port}: {error.strerror or error}",
                          hint="check --host and --port") from None
