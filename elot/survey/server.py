"""``elot survey serve``: the survey served to participants, on uvicorn (ASGI).

:class:`SurveyApp` is a plain ASGI application (no framework: two calls and a list of
files); :class:`SurveyServer` runs it under uvicorn with the limits of :class:`Limits`,
all set in one place. It serves the files of the survey folder and nothing else (the list
is made when it starts; the database, whatever its name and wherever it is, its lock and
journal files, and anything outside are never on it, and a path is looked up in the list,
never joined to the folder), and two calls:

* ``POST api/start`` — the arriving participant's session: a returning one is known by
  the session token their browser kept, and only by it; a new one gets the order fewest
  have started, and is flagged as a duplicate when an earlier session came with the same
  ``PROLIFIC_PID`` (:class:`~elot.survey.store.Store`);
* ``POST api/trial`` — one trial's data, checked against the survey (its step must be
  one of the participant's, a judgment's goals and ratings must fit the scenario) and
  stored at once; a step sent again is acknowledged and stored once.

Every answer is 2xx only once it is committed. A body over :attr:`Limits.max_body` is
refused (413) before it is read, one that does not arrive within
:attr:`Limits.body_timeout` is dropped (408), and a write the database cannot take (a
full disk) is a 503 the page retries. Nothing it refuses or fails leaves a traceback:
:class:`SurveyServer` logs one line through the ``log`` it is given. The page it serves
is marked (``<meta name="elot-server">``) so that it knows a server stores its answers
and never falls back to keeping them in the browser alone.

It listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import json
import logging
import math
import os
import re
import resource
import signal
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from elot.errors import printable
from elot.survey import SurveyError, shown_value
from elot.survey.build import CONFIG, DATABASE, load_config
from elot.survey.store import Store, StoreUnavailable

#: The largest request body taken (a judgment's data is about 1 KB).
MAX_BODY = 64 * 1024
#: Longest token, participant id or step name taken.
MAX_NAME = 200
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css",
         ".png": "image/png", ".gif": "image/gif", ".json": "application/json", ".mp4": "video/mp4",
         ".svg": "image/svg+xml"}


def published_files(folder: Path, exclude: tuple[Path, ...] = ()) -> dict[str, Path]:
    """The files a survey folder publishes, by URL path: regular files of the kinds in
    :data:`TYPES`, not hidden, not links, inside the folder; never a database (the files
    of ``exclude`` and their journals, and any file that is an SQLite database, whatever
    its name)."""
    folder = folder.resolve()
    never = set()
    for path in exclude:
        path = Path(path).resolve()
        never.update({path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal"), Path(f"{path}.lock")})
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not (Path(dirpath) / d).is_symlink()]
        for name in filenames:
            path = Path(dirpath) / name
            if name.startswith(".") or path.is_symlink() or path.suffix not in TYPES or path in never \
                    or _is_database(path):
                continue
            relative = path.relative_to(folder).as_posix()
            out[relative] = path
    out.pop(CONFIG, None)   # in experiment.js already; the server's own
    return out


def _is_database(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return True       # unreadable: not published


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


def check_trial(config: dict, order: dict, step, data) -> str | None:
    """What is wrong with one trial's data (None when nothing), naming the value: never
    an exception, whatever JSON ``data`` holds (a trial the server or ``import`` cannot
    check is a refusal, never a 500 the page would send again for ever)."""
    steps = steps_of(config, order)
    if not isinstance(step, str) or step not in steps:
        return f"step {shown_value(step)} is not one of this participant's"
    if not isinstance(data, dict) or not all(isinstance(k, str) and len(k) <= MAX_NAME for k in data):
        return "data must be an object"
    if data.get("elot_step") != step:
        return f"data.elot_step {shown_value(data.get('elot_step'))} is not the step"
    kind, trial, segment = steps[step]
    if kind != "judgment":
        if kind == "comprehension" and not isinstance(data.get("elot_passed"), bool):
            return f"a comprehension check needs elot_passed (true or false), not " \
                   f"{shown_value(data.get('elot_passed'))}"
        return None
    scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
    low, high = config["scale"]
    goals, ratings = data.get("elot_goals"), data.get("elot_ratings")
    if type(data.get("elot_scenario")) is not str or data["elot_scenario"] != scenario["name"] \
            or type(data.get("elot_t")) is not int or data["elot_t"] != segment["t"]:
        return (f"the scenario or t is not the step's: {shown_value(data.get('elot_scenario'))}, "
                f"{shown_value(data.get('elot_t'))} where the step has {shown_value(scenario['name'])}, {segment['t']}")
    asked = data.get("elot_statements")
    if not (isinstance(asked, list) and all(type(n) is int for n in asked) and asked == trial["statements"]):
        return f"elot_statements are not the ones asked: {shown_value(asked)} where the step asks " \
               f"{shown_value(trial['statements'])}"
    if scenario["gems"] == 0:      # a food-truck survey asks no goal question
        if goals != []:
            return f"elot_goals must be empty: this survey asks no goal question, not {shown_value(goals)}"
    elif not (isinstance(goals, list) and goals and all(type(g) is int and 1 <= g <= scenario["gems"] for g in goals)
              and len(set(goals)) == len(goals)):      # every goal an int before the set is made
        return f"elot_goals must be distinct gem numbers 1..{scenario['gems']}, at least one, not {shown_value(goals)}"
    if not (isinstance(ratings, list) and len(ratings) == len(trial["statements"])
            and all(type(r) is int and low <= r <= high for r in ratings)):
        return (f"elot_ratings must be {len(trial['statements'])} whole numbers {low}..{high}, "
                f"not {shown_value(ratings)}")
    return None


@dataclass(frozen=True)
class Limits:
    """Every limit of the server, in one place (docs/experiments.md lists them).

    ``max_body``: the largest request body (larger: 413, not read); ``header_timeout``:
    seconds a connection may take to send a request's headers (slower, or idle between
    requests that long: closed); ``body_timeout``:
    seconds a whole request body may take to arrive (slower: 408, and the connection is
    closed, so stalled uploads hold nothing); ``backlog``: connections the kernel queues
    before they are accepted (a burst of arrivals from Prolific); ``concurrency``: open
    connections at most (more: 503, which the page retries; None: from the process's
    file limit); ``keep_alive``: seconds an idle connection is kept; ``graceful``: seconds
    a shutdown waits for requests in flight.

    Per client (an IPv4 address, or an IPv6 /64, which one household or one machine
    holds): ``per_client``: open connections one client may hold (more: closed as they
    open, so that one client holding thousands leaves the rest to participants; a browser
    opens at most 6 to a server, so this is room for a lab of 40 behind one address);
    ``new_sessions``: new sessions one client may start at once, and one more every
    ``session_every`` seconds after (more: 429 with ``Retry-After``, which the page retries;
    a returning participant's start, with their token, is never refused). ``trusted``:
    client addresses these two spare, this machine's by default: behind a reverse proxy
    every connection comes from it, so the proxy's limits are the per-client ones then."""

    max_body: int = MAX_BODY
    header_timeout: float = 20.0
    body_timeout: float = 20.0
    backlog: int = 2048
    concurrency: int | None = None
    keep_alive: float = 15.0
    graceful: float = 10.0
    per_client: int = 256
    new_sessions: int = 60
    session_every: float = 2.0
    trusted: tuple[str, ...] = ("127.0.0.1", "::1")

    def __post_init__(self) -> None:
        for name in ("max_body", "backlog", "per_client", "new_sessions"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise SurveyError(f"the server's {name} must be a whole number of at least 1, not {value!r}")
        for name in ("header_timeout", "body_timeout", "keep_alive", "graceful", "session_every"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < float("inf"):
                raise SurveyError(f"the server's {name} must be a number of seconds above 0, not {value!r}")

    def connections(self) -> int:
        """The concurrency limit: as given, else what the file limit leaves (raised to its
        hard limit first, up to 8,192), at most 4,096."""
        if self.concurrency is not None:
            return self.concurrency
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                soft = wanted
            except (ValueError, OSError):
                pass
        if soft == resource.RLIM_INFINITY:
            soft = 8192
        return max(32, min(4096, soft - 128))

    def client(self, address) -> str | None:
        """Who a connection from ``address`` (its host, as the socket gives it) counts
        as for the per-client limits: the IPv4 address, or the IPv6 /64; None for a
        trusted address (or one that is not an IP address, such as a Unix socket)."""
        if not isinstance(address, str) or address in self.trusted:
            return None
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return None
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
            if str(ip) in self.trusted:
                return None
        if ip.version == 6:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)


class _Starts:
    """How many new sessions each client may start now: a bucket of
    :attr:`Limits.new_sessions` per client, one more every :attr:`Limits.session_every`
    seconds. Touched only from the event loop's thread."""

    def __init__(self, limits: Limits) -> None:
        self.burst, self.every = limits.new_sessions, limits.session_every
        self.buckets: dict[str, tuple[float, float]] = {}

    def _now(self, client: str, now: float) -> float:
        tokens, then = self.buckets.get(client, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - then) / self.every)

    def take(self, client: str) -> bool:
        """One new session for ``client``, if it has one left."""
        now = time.monotonic()
        if len(self.buckets) > 10_000:      # forget the clients whose bucket is full again
            self.buckets = {c: b for c, b in self.buckets.items() if self._now(c, now) < self.burst}
        tokens = self._now(client, now)
        if tokens >= 1:
            self.buckets[client] = (tokens - 1, now)
            return True
        self.buckets[client] = (tokens, now)
        return False

    def give_back(self, client: str) -> None:
        """The session taken was a returning one: it is not counted."""
        tokens, then = self.buckets.get(client, (float(self.burst), time.monotonic()))
        self.buckets[client] = (min(float(self.burst), tokens + 1), then)

    def wait(self, client: str) -> int:
        """Whole seconds until ``client`` may start one more."""
        return max(1, math.ceil((1 - self._now(client, time.monotonic())) * self.every))


class _Refused(Exception):
    """A request answered with an error (status, message); ``close``: drop the connection
    (its body was not read); ``headers``: more headers of the answer."""

    def __init__(self, status: int, message: str, *, close: bool = False, headers=()) -> None:
        super().__init__(message)
        self.status, self.message, self.close, self.headers = status, message, close, tuple(headers)


class _Gone(Exception):
    """The client went away mid-request: nobody to answer."""


#: The mark the server puts in the pages it serves (experiment.js looks for it).
SERVED_MARK = b'<meta name="elot-server" content="api/start">'
_HEAD = re.compile(rb"<head[^>]*>", re.IGNORECASE)


class SurveyApp:
    """The survey as an ASGI application: its files, ``api/start`` and ``api/trial``.
    ``log`` takes one line per problem (never a traceback; the same line at most once a
    minute)."""

    def __init__(self, folder: Path, config: dict, store: Store, *, limits: Limits = Limits(),
                 log: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder)
        self.config = config
        self.store = store
        self.limits = limits
        self.log = _quiet(log or (lambda line: None))
        self.files = published_files(self.folder, exclude=(store.path,))
        self._never = [Path(f"{store.path}{suffix}") for suffix in ("", "-wal", "-shm", "-journal", ".lock")]
        self._cache: dict[str, bytes] = {}
        self._cached = 0
        self.starts = _Starts(limits)
        #: Set when the server is stopping: uploads still under way are dropped (503, which
        #: the page sends again) instead of holding the shutdown up.
        self.stopping = False

    # -- ASGI ---------------------------------------------------------------------------

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        started = []

        async def tracked(message):
            if message["type"] == "http.response.start":
                started.append(True)
            await send(message)

        try:
            await self._http(scope, receive, tracked)
        except _Gone:
            pass
        except _Refused as refused:
            if not started:
                await self._json(tracked, refused.status, {"error": refused.message}, close=refused.close,
                                 headers=refused.headers)
        except Exception as error:     # one line in the log, a 500 to the client, never a traceback
            self.log(f"error: {scope.get('method')} {scope.get('path')}: {type(error).__name__}: {error}")
            if not started:
                try:
                    await self._json(tracked, 500, {"error": "the server failed; try again"}, close=True)
                except Exception:
                    pass

    async def _send(self, send, status: int, body: bytes, content_type: str, *, head: bool = False,
                    cache: bool = False, close: bool = False, headers=()) -> None:
        headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                   (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
                   (b"cache-control", b"max-age=3600" if cache else b"no-store"), *headers]
        if close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else body})

    async def _json(self, send, status: int, value, *, close: bool = False, headers=()) -> None:
        await self._send(send, status, json.dumps(value).encode(), "application/json", close=close,
                         headers=headers)

    async def _http(self, scope, receive, send) -> None:
        method = scope["method"]
        if method in ("GET", "HEAD"):
            await self._file(scope, send, head=method == "HEAD")
            return
        if method != "POST":
            raise _Refused(405, "only GET, HEAD and POST", close=True)
        path = scope["path"]
        if path not in ("/api/start", "/api/trial"):
            raise _Refused(404, "not found", close=True)
        body = await self._body(scope, receive)
        if path == "/api/start":
            await self._json(send, 200, await self._start(body, scope))
        else:
            await self._json(send, 200, await self._trial(body))

    # -- files ----------------------------------------------------------------------------

    async def _file(self, scope, send, *, head: bool) -> None:
        path = scope["path"].lstrip("/") or "index.html"
        file = self.files.get(path)
        if file is None or self._is_store(file):
            raise _Refused(404, "not found")
        body = self._cache.get(path)
        if body is None:
            try:
                body = file.read_bytes()
            except OSError:
                raise _Refused(404, "not found") from None
            if file.suffix == ".html":
                body = _mark(body)
            if self._cached + len(body) <= 64 * 1024 * 1024:    # the survey's files do not change while served
                self._cache[path] = body
                self._cached += len(body)
        await self._send(send, 200, body, TYPES[file.suffix], head=head,
                         cache=file.suffix in (".gif", ".png", ".mp4"))

    def _is_store(self, file: Path) -> bool:
        """Whether ``file`` is the database or one of its files (the same file under any name)."""
        try:
            here = os.stat(file)
        except OSError:
            return True
        for path in self._never:
            try:
                there = os.stat(path)
            except OSError:
                continue
            if (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino):
                return True
        return False

    # -- the API --------------------------------------------------------------------------

    async def _body(self, scope, receive) -> dict:
        headers = dict(scope["headers"])
        try:
            length = int(headers.get(b"content-length", b""))
        except ValueError:
            raise _Refused(411, "a body needs its Content-Length", close=True) from None
        if length < 0 or length > self.limits.max_body:
            raise _Refused(413, f"at most {self.limits.max_body} bytes", close=True)
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            raise _Refused(415, "send application/json", close=True)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.body_timeout
        chunks, size = [], 0
        while True:
            try:       # in slices, to see a shutdown coming
                message = await asyncio.wait_for(receive(), max(0.0, min(0.25, deadline - loop.time())))
            except asyncio.TimeoutError:
                if self.stopping:
                    raise _Refused(503, "the server is stopping; send it again", close=True) from None
                if loop.time() < deadline:
                    continue
                raise _Refused(408, f"the body did not arrive within {self.limits.body_timeout:g} s",
                               close=True) from None
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_body:
                raise _Refused(413, f"at most {self.limits.max_body} bytes", close=True)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        try:
            value = json.loads(b"".join(chunks))
        except (ValueError, RecursionError):
            raise _Refused(400, "the body is not JSON") from None
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise _Refused(400, "the body holds text that is not Unicode (a lone surrogate)") from None
        except (ValueError, RecursionError):
            raise _Refused(400, "the body is nested too deeply") from None
        if not isinstance(value, dict) or value.get("survey") != self.config["id"]:
            raise _Refused(400, "not an answer to this survey")
        for name in ("token", "prolific_pid", "study_id", "session_id", "step"):
            item = value.get(name)
            if item is not None and not (isinstance(item, str) and len(item) <= MAX_NAME):
                raise _Refused(400, f"{name} must be a string of at most {MAX_NAME} characters")
        return value

    async def _store(self, method: str, *args, **kwargs):
        """Run a store method on its writer thread; a write it cannot take is a 503."""
        try:
            return await asyncio.wrap_future(self.store.submit(method, *args, **kwargs))
        except StoreUnavailable as error:
            self.log(f"error: {error.message}")
            raise _Refused(503, f"{error.message}; your answers are kept in your browser and sent again") from None

    async def _start(self, body: dict, scope) -> dict:
        """The participant's session; a new one only while their client has new sessions
        left (:class:`_Starts`): else a 429 the page sends again later, and no row."""
        host = (scope.get("client") or (None,))[0]
        client = self.limits.client(host)
        allowed = client is None or self.starts.take(client)
        session = await self._store("start", token=body.get("token") or None,
                                    prolific_pid=(body.get("prolific_pid") or "").strip(),
                                    study_id=body.get("study_id") or "", session_id=body.get("session_id") or "",
                                    orders=len(self.config["orders"]), new=allowed)
        if session is None:
            wait = self.starts.wait(client)
            self.log(f"warning: {host} started more than {self.limits.new_sessions} sessions at once; its new ones "
                     f"are refused (429) until its limit refills (one every {self.limits.session_every:g} s)")
            raise _Refused(429, f"too many new sessions from your address; try again in {wait} s",
                           headers=[(b"retry-after", str(wait).encode())])
        if client is not None and allowed and not session["new"]:
            self.starts.give_back(client)
        return {"token": session["token"], "participant": session["participant"], "order": session["order"],
                "done": session["done"], "duplicate": session["duplicate_of"] is not None}

    async def _trial(self, body: dict) -> dict:
        known = await self._store("participant", body.get("token") or "")
        if known is None:
            raise _Refused(403, "unknown session token")
        pid, participant, order = known
        step = body.get("step") or ""
        problem = check_trial(self.config, self.config["orders"][order], step, body.get("data"))
        if problem:
            raise _Refused(400, problem)
        new = await self._store("add_trial", pid, step, body["data"], last=step == "debrief")
        return {"stored": step, "again": not new}


def _mark(page: bytes) -> bytes:
    """The page with :data:`SERVED_MARK` in its head."""
    found = _HEAD.search(page)
    if found is None:
        return SERVED_MARK + page
    return page[:found.end()] + SERVED_MARK + page[found.end():]


def _quiet(log: Callable[[str], None]) -> Callable[[str], None]:
    """``log``, passing each distinct line at most once a minute (a full disk or a flood of
    connections is one line, not one per request), and as one line of printable text
    (whatever of a request it holds cannot move the terminal's cursor or title:
    :func:`~elot.errors.printable`)."""
    quiet_until: dict[str, float] = {}
    lock = threading.Lock()

    def logged(line: str) -> None:
        line = printable(line, 2000)
        now = time.monotonic()
        with lock:
            if quiet_until.get(line, 0.0) > now:
                return
            quiet_until[line] = now + 60.0
            if len(quiet_until) > 1000:
                quiet_until.clear()
        log(line)

    return logged


class _LogLines(logging.Handler):
    """uvicorn's warnings and errors as one line each in the server's log (no traceback)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            line = message.splitlines()[0] if message else record.levelname
            if record.exc_info and record.exc_info[1] is not None:
                line += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            self._log(f"{record.levelname.lower()}: {line}")
        except Exception:
            pass


def _uvicorn():
    try:
        import uvicorn
    except ImportError:
        raise SurveyError("elot survey serve needs uvicorn, which is not installed",
                          hint="pip install uvicorn (elot depends on it; this copy was installed without its "
                               "dependencies)") from None
    return uvicorn


def _protocol(limits: Limits, log: Callable[[str], None]):
    """uvicorn's HTTP/1.1 protocol (h11), which also closes a connection that has not sent
    a whole request's headers within :attr:`Limits.header_timeout` seconds of opening or
    of its last response (uvicorn times out only idle keep-alive connections, so a client
    sending its headers a byte at a time would hold its connection for ever), and a
    connection past its client's :attr:`Limits.per_client` as it opens (one client holding
    thousands of connections would leave participants none: uvicorn's limit is for all)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    header_timeout = limits.header_timeout
    held: dict[str, int] = {}      # open connections per client; the event loop's thread alone

    class Protocol(H11Protocol):
        _deadline = None
        _client = None

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _headers_too_slow(self) -> None:
            self._deadline = None
            if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            client = limits.client(peer[0] if isinstance(peer, tuple) and peer else None)
            if client is not None:
                if held.get(client, 0) >= limits.per_client:
                    log(f"warning: {peer[0]} holds {limits.per_client} connections, the most one client may; "
                        "its further ones are closed as they open")
                    transport.close()
                    return
                held[client] = held.get(client, 0) + 1
                self._client = client
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            if self._client is not None:
                left = held.get(self._client, 1) - 1
                if left > 0:
                    held[self._client] = left
                else:
                    held.pop(self._client, None)
                self._client = None
            super().connection_lost(exc)

    return Protocol


def _uvicorn_server(config, on_stop: Callable[[], None]):
    """uvicorn's server, whose SIGINT and SIGTERM (in the main thread) stop it gracefully
    and are not raised again afterwards (the command says how it stopped); ``on_stop`` is
    told when it starts stopping."""
    uvicorn = _uvicorn()

    class Server(uvicorn.Server):
        async def main_loop(self) -> None:
            await super().main_loop()
            on_stop()

        @contextmanager
        def capture_signals(self):
            if threading.current_thread() is not threading.main_thread():
                yield
                return

            def stop(signum, frame):
                if self.should_exit:
                    self.force_exit = True      # a second Ctrl-C: stop waiting for requests in flight
                self.should_exit = True

            original = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in original.items():
                    signal.signal(sig, handler)

    return Server(config)


class SurveyServer:
    """:class:`SurveyApp` under uvicorn on a socket it has bound (so a port in use is an
    error before anything runs, and port 0 says which port it got).

    ``serve_forever()`` runs it in the calling thread until ``shutdown()`` (from another
    thread) or SIGINT/SIGTERM (in the main thread): it stops taking connections, lets the
    requests in flight finish (at most :attr:`Limits.graceful` seconds) and returns;
    ``close()`` then finishes the queued writes and closes the database."""

    def __init__(self, folder: Path, config: dict, store: Store, address, *, limits: Limits = Limits(),
                 log: Callable[[str], None] | None = None) -> None:
        uvicorn = _uvicorn()
        self.folder, self.config, self.store, self.limits = folder, config, store, limits
        self.log = _quiet(log or (lambda line: None))
        self.app = SurveyApp(folder, config, store, limits=limits, log=self.log)
        self.socket = _listen(address, limits.backlog)
        self.server_address = self.socket.getsockname()[:2]
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [_LogLines(self.log)]
            logger.propagate = False
            logger.setLevel(logging.WARNING)
        settings = uvicorn.Config(self.app, interface="asgi3", lifespan="off", http=_protocol(limits, self.log),
                                  loop="asyncio",
                                  log_config=None, access_log=False, proxy_headers=False, server_header=False,
                                  backlog=limits.backlog, limit_concurrency=limits.connections(),
                                  timeout_keep_alive=limits.keep_alive, timeout_graceful_shutdown=limits.graceful)
        self._server = _uvicorn_server(settings, on_stop=self._stopping)
        self._done = threading.Event()

    def _stopping(self) -> None:
        self.app.stopping = True

    @property
    def files(self) -> dict[str, Path]:
        return self.app.files

    def serve_forever(self) -> None:
        self._done.clear()
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self, timeout: float | None = 30) -> None:
        """Stop serving (from another thread) and wait until it has."""
        self._server.should_exit = True
        self._done.wait(timeout)

    def server_close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass


def _listen(address, backlog: int) -> socket.socket:
    host, port = address
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise SurveyError(f"cannot listen on {host}:{port}: {error.strerror or error}",
                          hint="check --host (an address of this machine, or 0.0.0.0)") from None
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart binds at once (TIME_WAIT)
        sock.bind(where)
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise SurveyError(f"port {port} on {host} is in use", hint="give another --port (or stop what uses it)") \
                from None
        raise SurveyError(f"cannot listen on {host}:{port}: {error.strerror or error}",
                          hint="check --host and --port") from None
    return sock


def make_server(folder: str | Path, *, host: str = "127.0.0.1", port: int = 8000,
                db: str | Path | None = None, limits: Limits = Limits(),
                log: Callable[[str], None] | None = None) -> SurveyServer:
    """A server for the survey in ``folder`` (not yet serving: call ``serve_forever``),
    its answers in ``db`` (default: ``responses.sqlite`` in the folder)."""
    folder = Path(folder)
    config = load_config(folder)
    if not isinstance(config.get("orders"), list) or not config["orders"]:
        raise SurveyError(f"{folder / CONFIG} has no orders: no participant could be given one",
                          hint="build the survey again (elot survey build)")
    for n, order in enumerate(config["orders"]):
        try:
            steps_of(config, order)
        except (KeyError, TypeError, AttributeError) as error:
            raise SurveyError(f"{folder / CONFIG}: order {n} cannot be served ({type(error).__name__}: {error})",
                              hint="build the survey again (elot survey build)") from None
    store = Store(db if db is not None else folder / DATABASE, config["id"])
    try:
        store.start_writer()
        return SurveyServer(folder, config, store, (host, port), limits=limits, log=log)
    except BaseException:
        store.close(drop_empty=True)
        raise
