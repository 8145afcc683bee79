"""What a language-model baseline can be trusted with (issue #36): the key goes to the
endpoint's own origin only and is never shown or kept, an answer that is not what the API
sends is counted without a rating (never a traceback, never a made-up or non-finite
rating), ``--timeout`` bounds a whole answer, and a cache edited since elot wrote it is
refused at its line and left as it was. Every endpoint here is a stub on 127.0.0.1 (port 0)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_baseline import ARGS, Scripted, Stub, _two_doors_prompts, completion

from elot.baseline import BaselineError, Endpoint, EndpointError
from elot.baseline.endpoint import REDACTED, check_endpoint_url, redact
from elot.baseline.parse import MALFORMED, expected_rating
from elot.baseline.run import CacheError, Journal, run_baseline

KEY = "sk-secret-0123456789abcdef"


def cli(*argv: str) -> subprocess.CompletedProcess:
    """``elot ARGV`` in this process (:func:`elot.cli.main`), its output captured; a
    traceback is raised here, as it would be shown."""
    from elot.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit:      # argparse's usage errors
            code = exit.code if isinstance(exit.code, int) else 2
    out.flush()
    return subprocess.CompletedProcess(argv, code, out.buffer.getvalue().decode("utf-8"), err.getvalue())


def _endpoint(url, **kwargs):
    return Endpoint(url, "stub-model", api_key=KEY, sleep=lambda s: None, **kwargs)


class Recorder:
    """A server on 127.0.0.1 that records every request (method, path, Authorization)
    and answers each with a rating: the host a redirect points to."""

    def __init__(self):
        self.seen: list[tuple[str, str, str | None]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                recorder.seen.append((self.command, self.path, self.headers.get("Authorization")))
                raw = json.dumps(completion('{"rating": 7}')[1]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def other_host():
    recorder = Recorder()
    yield recorder
    recorder.close()


# -- F6: the key never follows a redirect ---------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_an_error_naming_its_target_and_the_key_goes_nowhere(other_host, status):
    target = f"{other_host.origin}/v1/chat/completions?steal=1"
    with Stub(lambda b, n: (status, "", {"Location": target})) as stub:
        with pytest.raises(EndpointError, match="redirected") as raised:
            _endpoint(stub.url).rate(_two_doors_prompts("plan")[0], 0.0, 0)
        assert len(stub.requests) == 1
    assert other_host.seen == []
    assert other_host.origin in raised.value.message and "steal" not in raised.value.message


def test_cli_a_redirect_is_exit_2_with_no_table_and_no_rating(tmp_path, other_host):
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: (302, "", {"Location": f"{other_host.origin}/v1/chat/completions"})) as stub:
        run = cli("baseline", *ARGS, "--endpoint", stub.url, "--api-key", KEY, "-o", str(out))
    assert run.returncode == 2 and "redirected the request (HTTP 302) to " + other_host.origin in run.stderr
    assert other_host.seen == [] and not out.exists()
    assert KEY not in run.stderr


# -- the key is never echoed -------------------------------------------------------------


@pytest.mark.parametrize("echo", [KEY, f"Bearer {KEY}", KEY[:14] + "*****" + KEY[-10:]])
def test_an_error_message_that_echoes_the_key_is_shown_without_it(echo):
    with Stub(lambda b, n: (401, {"error": {"message": f"Incorrect API key provided: {echo}."}})) as stub:
        with pytest.raises(EndpointError) as raised:
            _endpoint(stub.url).rate(_two_doors_prompts("plan")[0], 0.0, 0)
    shown = raised.value.render()
    assert "Incorrect API key provided" in shown and REDACTED in shown
    assert KEY not in shown and KEY[:14] not in shown and KEY[-10:] not in shown


def test_a_server_error_that_echoes_the_key_is_not_in_the_final_error():
    with Stub(lambda b, n: (500, f"internal error for key {KEY}")) as stub:
        with pytest.raises(EndpointError) as raised:
            _endpoint(stub.url, retries=2).rate(_two_doors_prompts("plan")[0], 0.0, 0)
    assert KEY not in raised.value.render() and REDACTED in raised.value.render()


def test_cli_an_answer_that_echoes_the_key_is_stored_and_shown_without_it(tmp_path):
    plays = [f'{{"rating": 5}} (asked with {KEY})', f"I cannot rate this; your key {KEY} is noted."]
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: completion(plays[n % 2])) as stub:
        run = cli("baseline", *ARGS, "--endpoint", stub.url, "--api-key", KEY, "-o", str(out))
        assert set(stub.keys) == {f"Bearer {KEY}"}
    assert run.returncode == 0, run.stderr
    for path in (out, tmp_path / "out.csv.manifest.json", tmp_path / "out.csv.cache.jsonl"):
        assert KEY not in path.read_text()
    assert REDACTED in (tmp_path / "out.csv.cache.jsonl").read_text()
    assert KEY not in run.stderr + run.stdout


def test_redaction_cuts_pieces_of_the_key_and_nothing_else():
    assert redact("key sk-secret-0123 and abc", KEY) == f"key {REDACTED} and abc"
    assert redact("nothing here", KEY) == "nothing here"
    assert redact("short sk-se", KEY) == "short sk-se"          # under KEY_PIECE characters: not the key
    assert redact(f"x{KEY}y", None) == f"x{KEY}y"


# -- every field read is checked -------------------------------------------------------------


def _body(content="{\"rating\": 5}", usage=None, logprobs=None, message=None):
    body = completion(content)[1]
    if usage is not None:
        body["usage"] = usage
    if message is not None:
        body["choices"][0]["message"] = message
    if logprobs is not None:
        body["choices"][0]["logprobs"] = logprobs
    return body


def _top(logprob):
    return {"content": [{"token": "5", "logprob": logprob,
                         "top_logprobs": [{"token": "5", "logprob": logprob}, {"token": "6", "logprob": -1.0}]}]}


@pytest.mark.parametrize("body, why", [
    (_body(content=5), "the content is a number (5), not text"),
    (_body(content=[5]), "the content is a list, not text"),
    (_body(content={"rating": 5}), "the content is an object, not text"),
    (_body(content=True), "the content is a boolean"),
    (_body(message="5"), "the message is text"),
    (_body(usage={"prompt_tokens": "100", "completion_tokens": 7}), "usage.prompt_tokens is text"),
    (_body(usage={"prompt_tokens": -1, "completion_tokens": 7}), "usage.prompt_tokens is a number (-1)"),
    (_body(usage={"prompt_tokens": 1.5, "completion_tokens": 7}), "usage.prompt_tokens is a number (1.5)"),
    (_body(usage={"prompt_tokens": 10, "completion_tokens": [7]}), "usage.completion_tokens is a list"),
    (_body(usage=[1, 2]), "usage is a list"),
    (_body(logprobs=_top("-0.5")), "logprob is text"),
    (_body(logprobs=_top(float("nan"))), "not a finite log probability"),
    (_body(logprobs=_top(float("inf"))), "not a finite log probability"),
    (_body(logprobs=_top(float("-inf"))), "not a finite log probability"),
    (_body(logprobs=_top(800.0)), "not a finite log probability <= 0"),
    (_body(logprobs={"content": "5"}), "logprobs.content is text"),
    (_body(logprobs={"content": [{"token": 5, "logprob": 0}]}), "not an object with a token"),
    (_body(logprobs=[1]), "logprobs is a list"),
])
def test_a_field_that_is_not_what_the_api_sends_makes_a_malformed_answer(body, why):
    with Stub(lambda b, n: (200, body)) as stub:
        answer = _endpoint(stub.url, logprobs=True).rate(_two_doors_prompts("plan")[0], 0.0, 0)
    assert answer.parsed.status == MALFORMED and answer.parsed.rating is None and answer.mass is None
    assert why in answer.text


def test_the_expected_rating_of_non_finite_log_probabilities_is_none():
    for bad in (float("nan"), float("inf"), 1000.0):
        assert expected_rating({"5": bad, "6": -1.0})[0] is None


def _nan_logprobs(n):
    """A completion whose token probabilities are NaN on every other request."""
    body = _body(content='{"rating": 5}', logprobs=_top(float("nan") if n % 2 == 0 else math.log(0.5)))
    return 200, json.dumps(body)       # NaN as JSON's NaN token, as a broken server sends it


def test_cli_nan_log_probabilities_are_counted_malformed_never_scored(tmp_path):
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: _nan_logprobs(n)) as stub:
        run = cli("baseline", *ARGS, "--endpoint", stub.url, "--logprobs", "-o", str(out))
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "out.csv.manifest.json").read_text())
    assert manifest["rated"] == 4 and manifest["no_rating"] == {MALFORMED: 4}
    import csv

    rows = list(csv.DictReader(out.open()))
    values = [r["L"] for r in rows]
    assert all(v == "" or math.isfinite(float(v)) for v in values) and "nan" not in out.read_text()
    assert "4 malformed answer" in run.stderr


def test_cli_all_answers_malformed_is_exit_2_with_nothing_written(tmp_path):
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: (200, _body(content=7))) as stub:
        run = cli("baseline", *ARGS, "--endpoint", stub.url, "-o", str(out))
    assert run.returncode == 2 and "no answer gave a rating" in run.stderr and not out.exists()


# -- --timeout bounds a whole answer ------------------------------------------------------


class Dripping:
    """A server that sends a valid completion one byte at a time, ``pause`` seconds apart
    (each read is quick; the whole answer is slow)."""

    def __init__(self, pause: float):
        raw = json.dumps(completion('{"rating": 6}')[1]).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    for byte in raw:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(pause)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_an_answer_dripping_past_the_timeout_is_a_timeout_not_a_rating():
    # ~150 bytes at 0.05 s each: every read comes well within 0.5 s, the answer does not
    with Dripping(0.05) as server:
        with pytest.raises(EndpointError, match=r"no whole answer within --timeout 0.5 s"):
            _endpoint(server.url, timeout=0.5, retries=1).rate(_two_doors_prompts("plan")[0], 0.0, 0)


@pytest.mark.parametrize("value", ["1e308", "0", "-1", "nan", "inf", "-inf", "3601", "abc", "", "1e-320"])
def test_cli_a_timeout_out_of_range_is_a_usage_error(value, tmp_path):
    run = cli("baseline", *ARGS, "--endpoint", "http://127.0.0.1:9/v1", f"--timeout={value}",
              "-o", str(tmp_path / "o.csv"))
    assert run.returncode == 2 and "--timeout: timeout must be a finite number from 0.01 to 3600" in run.stderr
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf"), 1e308, "abc", True, 1e-320])
def test_the_library_refuses_a_timeout_out_of_range(value):
    with pytest.raises(BaselineError, match="the timeout must be a number of seconds from 0.01 to 3600"):
        Endpoint("http://127.0.0.1:9/v1", "m", timeout=value)


@pytest.mark.parametrize("url, message", [
    ("http://:99999/v1", "Port out of range"),
    ("http://[::1/v1", "Invalid IPv6 URL"),
    ("http://host:99999/v1", "Port out of range"),
    ("http://host:0/v1", "port 0"),
    ("http://host:abc/v1", "is not a valid URL"),
    ("http://a b/v1", "spaces or control characters"),
    ("http://host/v1\n", "spaces or control characters"),
    ("ftp://host/v1", "not an http(s) URL"),
    ("localhost:8080/v1", "not an http(s) URL"),
    ("http:///v1", "not an http(s) URL with a host"),
    ("http://user:pw@host/v1", "a user or password"),
    ("http://host/v1?key=secret", "query or fragment"),
    ("http://host/v1#x", "query or fragment"),
])
def test_cli_a_malformed_endpoint_url_is_one_clear_error(url, message, tmp_path):
    run = cli("baseline", *ARGS, "--endpoint", url, "-o", str(tmp_path / "o.csv"))
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert "hint: give the API's base URL" in run.stderr or "hint: give the key with --api-key" in run.stderr
    assert "secret" not in run.stderr


def test_an_ipv6_endpoint_keeps_its_brackets():
    assert check_endpoint_url("http://[::1]:8080/v1") == "http://[::1]:8080"
    assert Endpoint("http://[::1]:8080/v1/", "m").host == "http://[::1]:8080/v1"


def test_a_key_a_header_cannot_carry_is_refused_and_never_shown():
    with pytest.raises(BaselineError, match="characters an HTTP header cannot carry") as raised:
        Endpoint("http://127.0.0.1:9/v1", "m", api_key="sk-abc\r\nX-Evil: 1")
    assert "X-Evil" not in raised.value.render()


# -- the cache is checked when read --------------------------------------------------------


def _cache_with_answers(tmp_path):
    cache = tmp_path / "c.jsonl"
    run_baseline(_two_doors_prompts("plan")[:3], Scripted(['{"rating": 3}', '{"rating": 5}', "no idea"]), cache,
                 label="m")
    return cache


def _edit(line: str, change) -> str:
    record = json.loads(line)
    change(record["answer"])
    return json.dumps(record)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(rating=99), "has a rating off the scale 1-7 (99)"),
    (lambda a: a.update(rating=0.5), "off the scale"),
    (lambda a: a.update(rating=float("nan")), "off the scale"),
    (lambda a: a.update(rating="5"), "says ok with a rating that is not a number ('5')"),
    (lambda a: a.update(rating=None), "says ok with a rating that is not a number (None)"),
    (lambda a: a.update(status="great"), "has an unknown status 'great'"),
    (lambda a: a.pop("text"), "has no 'text'"),
    (lambda a: a.pop("rating"), "has no 'rating'"),
    (lambda a: a.update(text=5), "a text that is not text"),
    (lambda a: a.update(prompt_tokens=-3), "prompt_tokens that is not a whole number >= 0 (-3)"),
    (lambda a: a.update(mass=float("inf")), "token probability mass"),
])
def test_an_edited_cache_record_is_refused_at_its_line_and_the_cache_left_as_it_was(tmp_path, change, message):
    cache = _cache_with_answers(tmp_path)
    lines = cache.read_text().splitlines()
    lines[1] = _edit(lines[1], change)
    cache.write_text("\n".join(lines) + "\n")
    before = cache.read_bytes()
    backend = Scripted(['{"rating": 4}'])
    with pytest.raises(CacheError, match=f"{cache}:2: this answer record ") as raised:
        run_baseline(_two_doors_prompts("plan")[:3], backend, cache, label="m")
    assert message in raised.value.message and backend.calls == 0
    assert cache.read_bytes() == before


def test_a_refused_status_with_a_rating_is_refused(tmp_path):
    cache = _cache_with_answers(tmp_path)
    lines = cache.read_text().splitlines()
    lines[2] = _edit(lines[2], lambda a: a.update(rating=4))       # "no idea" given a rating by hand
    cache.write_text("\n".join(lines) + "\n")
    with pytest.raises(CacheError, match=r":3: this answer record has a rating \(4\) with the status 'no number'"):
        with Journal(cache):
            pass


@pytest.mark.parametrize("line", ['{"key": "k", "answ', "[1, 2]", '{"key": 5, "answer": {}}', "NaN", '"text"'])
def test_a_malformed_line_in_the_middle_is_refused_and_nothing_is_cut(tmp_path, line):
    cache = _cache_with_answers(tmp_path)
    lines = cache.read_text().splitlines()
    lines.insert(1, line)
    cache.write_text("\n".join(lines) + "\n")
    before = cache.read_bytes()
    with pytest.raises(CacheError, match=f"{cache}:2: not an answer record"):
        with Journal(cache):
            pass
    assert cache.read_bytes() == before


def test_cli_an_edited_cache_is_exit_2_naming_its_line(tmp_path):
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: completion('{"rating": 5}')) as stub:
        assert cli("baseline", *ARGS, "--endpoint", stub.url, "-o", str(out)).returncode == 0
        cache = tmp_path / "out.csv.cache.jsonl"
        lines = cache.read_text().splitlines()
        lines[3] = _edit(lines[3], lambda a: a.update(rating=99))
        cache.write_text("\n".join(lines) + "\n")
        before, table = cache.read_bytes(), out.read_bytes()
        run = cli("baseline", *ARGS, "--endpoint", stub.url, "-o", str(out))
    assert run.returncode == 2 and f"{cache}:4: this answer record has a rating off the scale" in run.stderr
    assert "Traceback" not in run.stderr and cache.read_bytes() == before and out.read_bytes() == table

