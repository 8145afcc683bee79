"""One client for OpenAI-compatible chat endpoints (hosted APIs, and local servers such
as vLLM, Ollama and llama.cpp's ``llama-server``), on the standard library alone.

``POST {base_url}/chat/completions`` with the prompt's messages, the temperature and a
seed; with ``json_mode`` it asks for a JSON object (``response_format``), and an endpoint
that refuses that option (HTTP 400 naming it) is asked again without it, once, and from
then on. With ``logprobs`` it asks for the top token log probabilities and reads the
expected rating at the first digit of the answer.

Retries (with exponential backoff, honouring ``Retry-After``) on HTTP 429 and 5xx, on
timeouts and on a connection that drops; a wrong key (401/403), an unknown model or path
(404), a redirect, or an endpoint that cannot be reached after the retries is one
:class:`EndpointError`, which stops the run (answers already received are kept by the
caller's cache).

**Trust.** The key is sent in the ``Authorization`` header to the endpoint's own origin and
nowhere else: no redirect is followed (a 3xx is an error naming where it pointed, so the
key never reaches another host and another host's answers are never read as ratings).
The key is never kept: :meth:`Endpoint.describe` (what manifests and cache keys record)
names the host only, and every text that came from the endpoint (an answer, an error
message it sent) has the key cut out (:meth:`Endpoint.redact`) before it is returned,
raised, printed or stored. ``timeout`` bounds a whole answer (connecting, the headers and
every byte of the body), not each read. Every field read from an answer is checked: a
``content`` that is not a string, token counts that are not whole numbers >= 0, or log
probabilities that are not finite numbers <= 0 make the answer *malformed* (no rating,
counted by that reason), never a traceback and never a rating.
"""

from __future__ import annotations

import http.client
import json
import math
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable

from elot.baseline.parse import MALFORMED, REFUSED, Parsed, checked, expected_rating, parse_rating
from elot.baseline.prompts import BaselineError, Prompt

#: Tries of one request before the endpoint counts as down (rate limits, 5xx, timeouts).
RETRIES = 6
#: The first wait between tries, in seconds; it doubles each time (up to :data:`MAX_WAIT`).
BACKOFF = 1.0
MAX_WAIT = 60.0
#: How long to wait for one answer (all of it), in seconds, and the most one may be given.
TIMEOUT = 120.0
MIN_TIMEOUT, MAX_TIMEOUT = 0.01, 3600.0
#: The most tries of one request one may ask for.
MAX_RETRIES = 100
#: The most bytes one answer may take (a rating with token probabilities takes a few kB).
MAX_ANSWER_BYTES = 8 * 1024 * 1024
#: What the key is replaced by wherever an endpoint's text is shown or kept.
REDACTED = "[API key]"
#: The shortest piece of the key cut out of an endpoint's text (a key echoed in part).
KEY_PIECE = 8
#: The most tokens an answer may take (a rating needs a handful; reasoning models more).
MAX_TOKENS = 200


class EndpointError(BaselineError):
    """The endpoint cannot answer at all: down, a wrong key, an unknown model."""


@dataclass(frozen=True)
class Answer:
    """One answer: its text, the rating read from it (or why none), the probability mass
    of the 1–7 tokens when the rating is an expectation over them, and the tokens used."""

    text: str
    parsed: Parsed
    mass: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def record(self) -> dict:
        return {"text": self.text, "rating": self.parsed.rating, "status": self.parsed.status, "mass": self.mass,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

@dataclass
class Endpoint:
    """An OpenAI-compatible chat endpoint and the model asked there."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    json_mode: bool = True
    logprobs: bool = False
    timeout: float = TIMEOUT
    retries: int = RETRIES
    backoff: float = BACKOFF
    max_tokens: int = MAX_TOKENS
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    retried: int = 0

    def __post_init__(self) -> None:
        self._origin = check_endpoint_url(self.base_url)
        self.url = self.base_url.rstrip("/") + "/chat/completions"
        if self.api_key is not None:
            if not isinstance(self.api_key, str) or any(not 0x21 <= ord(c) <= 0x7E for c in self.api_key):
                raise BaselineError("the API key has characters an HTTP header cannot carry (spaces, line breaks "
                                    "or letters beyond ASCII); it was not sent anywhere",
                                    hint="give the key exactly as the provider shows it (--api-key, $ELOT_API_KEY "
                                         "or $OPENAI_API_KEY)")
        self.timeout = check_timeout(self.timeout)
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or not 1 <= self.retries <= MAX_RETRIES:
            raise BaselineError(f"retries must be a whole number from 1 to {MAX_RETRIES}, not {self.retries!r}",
                                hint="e.g. --retries 6 (the default)")

    @property
    def host(self) -> str:
        """scheme://host[:port] of the endpoint, with its path, without user, key or query."""
        return f"{self._origin}{urllib.parse.urlsplit(self.base_url).path.rstrip('/')}"

    def describe(self) -> dict:
        """What a cache key and a manifest record of this endpoint (never the key)."""
        return {"backend": "openai", "endpoint": self.host, "model": self.model, "json_mode": self.json_mode,
                "logprobs": self.logprobs, "max_tokens": self.max_tokens}

    def redact(self, text: str) -> str:
        """``text`` (from the endpoint) with the key, and any piece of it of
        :data:`KEY_PIECE` characters or more, replaced by :data:`REDACTED`."""
        return redact(text, self.api_key)

    def rate(self, prompt: Prompt, temperature: float, seed: int) -> Answer:
        body = {"model": self.model, "messages": prompt.messages(), "temperature": temperature, "seed": seed,
                "max_tokens": self.max_tokens}
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=10)
        data = self._post(body)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise EndpointError(f"{self.host} answered without choices: {self.redact(_short(data))}",
                                hint="is this an OpenAI-compatible /chat/completions endpoint?")
        choice = choices[0]
        message = choice.get("message")
        if message is None:
            message = {}
        if not isinstance(message, dict):
            return self._malformed(f"the message is {_kind_of(message)}, not an object", message)
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            return self._malformed(f"the content is {_kind_of(content)}, not text", content)
        text = self.redact(content or "")
        usage = data.get("usage")
        if usage is not None and not isinstance(usage, dict):
            return self._malformed(f"usage is {_kind_of(usage)}, not an object", usage, text)
        tokens = []
        for name in ("prompt_tokens", "completion_tokens"):
            value = usage.get(name) if isinstance(usage, dict) else None
            count = _token_count(value)
            if count is None:
                return self._malformed(f"usage.{name} is {_kind_of(value)}, not a whole number >= 0", value, text)
            tokens.append(count)
        refusal = message.get("refusal")
        if refusal or choice.get("finish_reason") == "content_filter":
            said = text or (self.redact(refusal) if isinstance(refusal, str) else self.redact(_short(refusal)))
            return Answer(said, Parsed(None, REFUSED), None, *tokens)
        if self.logprobs and choice.get("logprobs") is not None:
            try:
                expected = _expected_from_logprobs(choice.get("logprobs"))
            except ValueError as error:
                return self._malformed(f"the token probabilities are malformed: {error}", None, text, tokens)
            if expected is not None:
                parsed = checked(expected[0])      # the checks of any rating: finite, on 1-7
                return Answer(text, parsed, expected[1] if parsed.ok else None, *tokens)
        return Answer(text, parse_rating(text), None, *tokens)

    def _malformed(self, why: str, value, text: str = "", tokens=(0, 0)) -> Answer:
        """An answer whose fields are not what an OpenAI-compatible endpoint sends: no
        rating, counted as malformed, with what was wrong (and what came) as its text."""
        shown = f"[{why}]" + (f" {_short(value)}" if value is not None else "") + (f" {text}" if text else "")
        return Answer(self.redact(shown), Parsed(None, MALFORMED), None, *tokens)

    def _post(self, body: dict) -> dict:
        wait = self.backoff
        last = ""
        for attempt in range(self.retries):
            if attempt:
                self.retried += 1
                self.sleep(min(wait, MAX_WAIT))
                wait *= 2
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            if self.api_key:
                headers["Authorization"] = f"Bearer {self.api_key}"
            request = urllib.request.Request(self.url, json.dumps(body).encode("utf-8"), headers, method="POST")
            try:
                raw = self._exchange(request)
            except _Redirected as redirect:
                raise EndpointError(
                    f"{self.host} redirected the request (HTTP {redirect.code}) to {redirect.target}; elot follows "
                    "no redirect, so the key was not sent there and nothing it says is read as a rating",
                    hint="give --endpoint the URL the API really answers at (if you trust it)") from None
            except urllib.error.HTTPError as error:
                detail = self.redact(_error_text(error))
                if error.code in (401, 403):
                    raise EndpointError(f"{self.host} refused the API key (HTTP {error.code}): {detail}",
                                        hint="check the key (--api-key, $ELOT_API_KEY or $OPENAI_API_KEY)") from None
                if error.code == 404:
                    raise EndpointError(f"{self.host}: no such model or path (HTTP 404): {detail}",
                                        hint=f"check --endpoint (it ends before /chat/completions) and --model ({self.model!r})") from None
                if error.code == 400 and "response_format" in body and "response_format" in detail:
                    self.json_mode = False
                    body = {k: v for k, v in body.items() if k != "response_format"}
                    continue
                if error.code == 429 or error.code >= 500:
                    retry_after = error.headers.get("Retry-After") if error.headers else None
                    if retry_after and retry_after.strip().isdigit():
                        wait = max(wait, min(float(retry_after.strip()), MAX_WAIT))
                    last = f"HTTP {error.code}: {detail}"
                    continue
                raise EndpointError(f"{self.host} rejected the request (HTTP {error.code}): {detail}",
                                    hint="the endpoint may not support an option elot sends; see docs/baselines.md") from None
            except _TooLong:
                last = f"no whole answer within --timeout {self.timeout:g} s"
                continue
            except _TooLarge:
                raise EndpointError(f"{self.host} sent an answer larger than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB",
                                    hint="is this an OpenAI-compatible /chat/completions endpoint?") from None
            except (urllib.error.URLError, http.client.HTTPException, socket.timeout, TimeoutError,
                    ConnectionError, OSError, ValueError) as error:
                last = self.redact(str(getattr(error, "reason", None) or error) or type(error).__name__)
                continue
            try:
                return json.loads(raw)
            except (ValueError, RecursionError):
                last = self.redact(f"an answer that is not JSON: {raw[:120]!r}")
                continue
        raise EndpointError(f"{self.host} did not answer after {self.retries} tries (last: {last})",
                            hint="is the server running and the URL right? answers already received are kept; "
                                 "run the same command again to go on")

    def _exchange(self, request: urllib.request.Request) -> bytes:
        """The body of the answer to ``request``, all of it within :attr:`timeout`
        (:class:`_TooLong` past it: a watchdog closes the connection), following no
        redirect (:class:`_Redirected`)."""
        sockets: list[socket.socket] = []
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            for sock in sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        opener = urllib.request.build_opener(_NoRedirect, _Http(sockets), _Https(sockets))
        watchdog = threading.Timer(self.timeout, expire)
        watchdog.daemon = True
        deadline = time.monotonic() + self.timeout
        watchdog.start()
        try:
            with opener.open(request, timeout=self.timeout) as response:
                chunks, size = [], 0
                while True:
                    chunk = response.read(65536)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > MAX_ANSWER_BYTES:
                        raise _TooLarge
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise _TooLong
            if expired.is_set():
                raise _TooLong      # the body was cut short by the watchdog
            return b"".join(chunks)
        except (_Redirected, _TooLarge, _TooLong, urllib.error.HTTPError):
            raise
        except (OSError, http.client.HTTPException, ValueError):
            if expired.is_set():
                raise _TooLong from None
            raise
        finally:
            watchdog.cancel()
            for sock in sockets:
                try:
                    sock.close()
                except OSError:
                    pass


class _Redirected(Exception):
    def __init__(self, code: int, target: str) -> None:
        super().__init__(target)
        self.code, self.target = code, target


class _TooLong(Exception):
    """No whole answer within the timeout."""


class _TooLarge(Exception):
    """An answer beyond :data:`MAX_ANSWER_BYTES`."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: a 3xx is :class:`_Redirected`, naming the origin it points to
    (never its path or query, which may carry anything)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urljoin(req.full_url, newurl)
        try:
            parts = urllib.parse.urlsplit(target)
            port = f":{parts.port}" if parts.port else ""
            origin = f"{parts.scheme}://{parts.hostname}{port}" if parts.hostname else "an address without a host"
        except ValueError:
            origin = "a malformed address"
        raise _Redirected(code, origin)


def _recording(base: type, sockets: list):
    """An ``http.client`` connection class that keeps each socket it opens in ``sockets``
    (so that the watchdog can close it)."""

    class Recording(base):
        def connect(self):
            super().connect()
            sockets.append(self.sock)

    return Recording


class _Http(urllib.request.HTTPHandler):
    def __init__(self, sockets: list) -> None:
        super().__init__()
        self._class = _recording(http.client.HTTPConnection, sockets)

    def http_open(self, req):
        return self.do_open(self._class, req)


class _Https(urllib.request.HTTPSHandler):
    def __init__(self, sockets: list) -> None:
        super().__init__()
        self._class = _recording(http.client.HTTPSConnection, sockets)

    def https_open(self, req):
        return self.do_open(self._class, req, context=self._context)


def check_endpoint_url(url) -> str:
    """The origin (``scheme://host[:port]``) of an endpoint's base URL, or a
    :class:`BaselineError` saying what is wrong with it: not http(s), no host, a port out
    of range, a malformed address, a user, query or fragment in it, spaces or control
    characters."""
    hint = "give the API's base URL, e.g. https://api.openai.com/v1 or http://localhost:8080/v1"
    if not isinstance(url, str) or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in url):
        raise BaselineError(f"the endpoint {url!r} is not a URL (it has spaces or control characters)", hint=hint)
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
        hostname = parts.hostname
        if hostname:
            hostname.encode("idna")
    except (ValueError, UnicodeError) as error:
        raise BaselineError(f"the endpoint {url!r} is not a valid URL: {error}", hint=hint) from None
    if parts.scheme not in ("http", "https") or not hostname:
        raise BaselineError(f"the endpoint {url!r} is not an http(s) URL with a host", hint=hint)
    if port == 0:
        raise BaselineError(f"the endpoint {url!r} names port 0, which no server listens on", hint=hint)
    if parts.username is not None or parts.password is not None:
        raise BaselineError("the endpoint URL has a user or password in it; elot does not send those",
                            hint="give the key with --api-key (or $ELOT_API_KEY), and the URL without it")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise BaselineError("the endpoint URL has a query or fragment (?... or #...), which elot neither sends nor "
                            "shows (it may hold a key); elot adds /chat/completions to the base URL", hint=hint)
    host = f"[{hostname}]" if ":" in hostname else hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def check_timeout(value) -> float:
    """``value`` as a timeout in seconds: a finite number from :data:`MIN_TIMEOUT` (no
    answer comes sooner) to :data:`MAX_TIMEOUT`, else a :class:`BaselineError`."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or not MIN_TIMEOUT <= number <= MAX_TIMEOUT:
        raise BaselineError(f"the timeout must be a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}, "
                            f"not {value!r}",
                            hint="e.g. --timeout 120 (the default): how long one whole answer may take")
    return number


def redact(text: str, key: str | None) -> str:
    """``text`` with ``key``, and every piece of it of :data:`KEY_PIECE` characters or
    more, replaced by :data:`REDACTED` (an endpoint may echo a key whole or in part)."""
    if not key or not text:
        return text
    text = text.replace(key, REDACTED)
    for length in range(len(key) - 1, KEY_PIECE - 1, -1):
        for start in range(len(key) - length + 1):
            piece = key[start:start + length]
            if piece in text:
                text = text.replace(piece, REDACTED)
    return text


def _short(value, width: int = 200) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= width else text[:width] + "..."


def _kind_of(value) -> str:
    if value is None:
        return "missing"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({_short(value, 40)})" if math.isfinite(value) else f"not a finite number ({value!r})"
    if isinstance(value, str):
        return f"text ({_short(value, 40)})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _token_count(value) -> int | None:
    """A token count from ``usage``: absent is 0; a whole number >= 0 is itself; anything
    else (text, a fraction, a negative, NaN) is None."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value >= 0 and value.is_integer():
        return int(value)
    return None


def _error_text(error: urllib.error.HTTPError) -> str:
    try:
        raw = error.read(64 * 1024).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException, ValueError):
        return str(error.reason or "")
    try:
        data = json.loads(raw)
        message = data.get("error", data)
        return str(message.get("message", message) if isinstance(message, dict) else message)[:300]
    except (ValueError, AttributeError, RecursionError):
        return raw[:300]


def _logprob(value, where: str) -> float:
    """A log probability as given: a finite number <= 0 (a tiny positive one from
    rounding is 0), else a ValueError saying which."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} is {_kind_of(value)}, not a number")
    if not math.isfinite(value) or value > 1e-6:
        raise ValueError(f"{where} is {value!r}, not a finite log probability <= 0")
    return min(float(value), 0.0)


def _expected_from_logprobs(logprobs) -> tuple[float, float] | None:
    """The expected rating at the first answer token that is a digit 1–7, from its top
    log probabilities (None when the answer has no such token; a ValueError saying what
    is wrong when the log probabilities are malformed)."""
    if not isinstance(logprobs, dict):
        raise ValueError(f"logprobs is {_kind_of(logprobs)}, not an object")
    content = logprobs.get("content")
    if content is None:
        return None
    if not isinstance(content, list):
        raise ValueError(f"logprobs.content is {_kind_of(content)}, not a list")
    for n, entry in enumerate(content):
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            raise ValueError(f"logprobs.content[{n}] is not an object with a token")
        token = entry["token"].strip()
        if token.isdigit() and len(token) == 1:
            top_entries = entry.get("top_logprobs") or []
            if not isinstance(top_entries, list):
                raise ValueError(f"logprobs.content[{n}].top_logprobs is {_kind_of(top_entries)}, not a list")
            top = {}
            for m, t in enumerate(top_entries):
                if not isinstance(t, dict) or not isinstance(t.get("token"), str):
                    raise ValueError(f"logprobs.content[{n}].top_logprobs[{m}] is not an object with a token")
                top[t["token"]] = _logprob(t.get("logprob"), f"logprobs.content[{n}].top_logprobs[{m}].logprob")
            top.setdefault(entry["token"], _logprob(entry.get("logprob"), f"logprobs.content[{n}].logprob"))
            value, mass = expected_rating(top)
            return None if value is None else (value, mass)
    return None
