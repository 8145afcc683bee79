"""One client for OpenAI-compatible chat endpoints (hosted APIs, and local servers such
as vLLM, Ollama and llama.cpp's ``llama-server``), on the standard library alone.

``POST {base_url}/chat/completions`` with the prompt's messages, the temperature and a
seed; with ``json_mode`` it asks for a JSON object (``response_format``), and an endpoint
that refuses that option (HTTP 400 naming it) is asked again without it, once, and from
then on. With ``logprobs`` it asks for the top token log probabilities and reads the
expected rating at the first digit of the answer.

Retries (with exponential backoff, honouring ``Retry-After``) on HTTP 429 and 5xx, on
timeouts and on a connection that drops; a wrong key (401/403), an unknown model or path
(404), or an endpoint that cannot be reached after the retries is one
:class:`EndpointError`, which stops the run (answers already received are kept by the
caller's cache). The key is sent in the ``Authorization`` header and never kept anywhere
else: :meth:`Endpoint.describe` (what manifests record) names the host only.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable

from elot.baseline.parse import REFUSED, Parsed, expected_rating, parse_rating
from elot.baseline.prompts import BaselineError, Prompt

#: Tries of one request before the endpoint counts as down (rate limits, 5xx, timeouts).
RETRIES = 6
#: The first wait between tries, in seconds; it doubles each time (up to :data:`MAX_WAIT`).
BACKOFF = 1.0
MAX_WAIT = 60.0
#: How long to wait for one answer, in seconds.
TIMEOUT = 120.0
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

    @classmethod
    def of_record(cls, record: dict) -> "Answer":
        return cls(record["text"], Parsed(record["rating"], record["status"]), record.get("mass"),
                   record.get("prompt_tokens", 0), record.get("completion_tokens", 0))


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
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BaselineError(f"the endpoint {self.base_url!r} is not an http(s) URL",
                                hint="give the API's base URL, e.g. https://api.openai.com/v1 or http://localhost:8080/v1")
        self.url = self.base_url.rstrip("/") + "/chat/completions"

    @property
    def host(self) -> str:
        """scheme://host[:port] of the endpoint, without user, key or query."""
        parts = urllib.parse.urlsplit(self.base_url)
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname}{port}{parts.path.rstrip('/')}"

    def describe(self) -> dict:
        """What a cache key and a manifest record of this endpoint (never the key)."""
        return {"backend": "openai", "endpoint": self.host, "model": self.model, "json_mode": self.json_mode,
                "logprobs": self.logprobs, "max_tokens": self.max_tokens}

    def rate(self, prompt: Prompt, temperature: float, seed: int) -> Answer:
        body = {"model": self.model, "messages": prompt.messages(), "temperature": temperature, "seed": seed,
                "max_tokens": self.max_tokens}
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=10)
        data = self._post(body)
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
            text = message.get("content") or ""
            usage = data.get("usage") or {}
        except (KeyError, IndexError, TypeError, AttributeError):
            raise EndpointError(f"{self.host} answered without choices: {str(data)[:200]}",
                                hint="is this an OpenAI-compatible /chat/completions endpoint?") from None
        tokens = (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
        if message.get("refusal") or choice.get("finish_reason") == "content_filter":
            return Answer(text or str(message.get("refusal")), Parsed(None, REFUSED), None, *tokens)
        if self.logprobs:
            expected = _expected_from_logprobs(choice.get("logprobs"))
            if expected is not None:
                return Answer(text, Parsed(expected[0]), expected[1], *tokens)
        return Answer(text, parse_rating(text), None, *tokens)

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
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as error:
                detail = _error_text(error)
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
                        wait = max(wait, float(retry_after))
                    last = f"HTTP {error.code}: {detail}"
                    continue
                raise EndpointError(f"{self.host} rejected the request (HTTP {error.code}): {detail}",
                                    hint="the endpoint may not support an option elot sends; see docs/baselines.md") from None
            except (urllib.error.URLError, http.client.HTTPException, socket.timeout, TimeoutError,
                    ConnectionError) as error:
                last = str(getattr(error, "reason", None) or error) or type(error).__name__
                continue
            try:
                return json.loads(raw)
            except ValueError:
                last = f"an answer that is not JSON: {raw[:120]!r}"
                continue
        raise EndpointError(f"{self.host} did not answer after {self.retries} tries (last: {last})",
                            hint="is the server running and the URL right? answers already received are kept; "
                                 "run the same command again to go on")


def _error_text(error: urllib.error.HTTPError) -> str:
    try:
        raw = error.read().decode("utf-8", "replace")
    except OSError:
        return error.reason or ""
    try:
        data = json.loads(raw)
        message = data.get("error", data)
        return str(message.get("message", message) if isinstance(message, dict) else message)[:300]
    except (ValueError, AttributeError):
        return raw[:300]


def _expected_from_logprobs(logprobs) -> tuple[float, float] | None:
    """The expected rating at the first answer token that is a digit 1–7, from its top
    log probabilities (None when the answer has no such token or no log probabilities)."""
    try:
        content = logprobs["content"]
    except (KeyError, TypeError):
        return None
    for entry in content or ():
        token = str(entry.get("token", "")).strip()
        if token.isdigit() and len(token) == 1:
            top = {t["token"]: t["logprob"] for t in entry.get("top_logprobs") or ()}
            top.setdefault(entry["token"], entry["logprob"])
            value, mass = expected_rating(top)
            return None if value is None else (value, mass)
    return None
