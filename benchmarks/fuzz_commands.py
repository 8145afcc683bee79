"""Generated command lines with broken inputs (issue #36) over ``baseline``, ``report``,
``storyboard``, ``simulate``, ``fit`` and ``survey import``, run in this process through
:func:`elot.cli.main` (fast: no interpreter start per case).

The inputs: bad numbers in options, malformed and off-range tables and ratings files,
malformed URLs, a stub OpenAI-compatible endpoint on 127.0.0.1 (port 0) that answers in
broken ways (a content that is not text, token counts and log probabilities that are not
numbers, NaN and infinite log probabilities, ratings off the scale, a redirect to another
host, errors that echo the key), caches edited by hand, survey exports that are not ones,
and the hostile survey inputs of issue 44 (``survey_attacks.py``: escape codes in
participants' ids, malformed trials, databases whose views never end, zip bombs, a refused
``serve --db``, sessions of one PROLIFIC_PID).

It counts, and exits non-zero unless every count but ``cases`` is 0:

* ``tracebacks``: an exception other than a usage error escaping ``main``, or a traceback
  printed;
* ``silent``: a command that exited 0 on an input that must be refused, or that wrote a
  number that is not finite (NaN, ±inf) into a table, a ratings file or a manifest;
* ``key_leaks``: the stub's API key in anything elot printed or wrote;
* ``cache_changed``: a refused cache (or database, or export) that is not byte for byte
  what it was, or a file made beside a refused ``--db``;
* ``raw_escapes``: a character a terminal acts on (ESC, BEL, a carriage return, a bidi
  override) printed raw: what participants send is printed escaped;
* ``redirects_followed``: a request that reached the host a redirect pointed to;
* ``wrong_exit``: an input that must be accepted (a valid option value, a good endpoint)
  that was refused, or an exit status other than 0 and 2.

With ``--domains``, N commands (``run``, ``batch``, the REPL) over random tabular domain files
(random sizes and tables, with at most one fault each: belief rows that do not sum to 1 or
are negative, utilities that are text or past the float range, world atoms that are not
atoms, transitions out of range, observations not summing to 1, a NaN cost, a prior not
summing to 1, a method that raises, a table of the wrong shape or ragged, twelve worlds)
and random case files (walks of up to 3,000 steps, a world or state that is not the
domain's, an empty path, a judgment past the end), under particles of every size and
``--max-memory`` 64M or 256M. It counts ``tracebacks``, ``silent`` (a faulty domain or case
accepted, a number that is not finite written), ``over_budget`` (more memory traced, NumPy's
arrays included, than ``--max-memory``) and ``wrong_exit``: all must be 0.

Usage::

    python benchmarks/fuzz_commands.py [--cases N] [--seed S] [--domains]

Prints the counts, the run time and the first failing cases as JSON. Not a timed test: the
figures go in the issue's notes.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

KEY = "sk-fuzz-5f2c9a71d03e4b88a6c1"
STATEMENT = "The player believes box 2 holds the blue key."
#: Values that have broken numeric options before: out of range, past 32 or 53 bits, not numbers.
NUMBERS = ["0", "-1", "1", "2", "1.5", "1e308", "-1e308", "nan", "inf", "-inf", "2147483648",
           "9007199254740993", "100000", "3000", "32", "x", "", "0x10", "1_000", "٣", "1e-320", "0.001"]
#: Cell values for P, L and π: only the empty cell and [0, 1] are good.
CELLS = ["5", "-0.1", "nan", "inf", "-inf", "1e999", "abc", "1.0000001", "-1e-300", "0.5", "0", "1", ""]
URLS = ["http://:99999/v1", "http://[::1/v1", "http://host:99999/v1", "http://host:0/v1", "http://a b/v1",
        "ftp://host/v1", "localhost:8080/v1", "http:///v1", "http://user:pw@host/v1", "http://host/v1?key=x",
        "http://host/v1#f", "http://host:abc/v1", "", "http://[::1]:99999/v1", "http://ho\x00st/v1",
        "https://" + "a" * 300 + "/v1", "http://host/v1\n", "javascript:alert(1)"]
#: Stub answers that give no rating (every answer of a case is one of these: exit 2).
BROKEN = ["content_number", "content_list", "content_object", "usage_text", "usage_negative", "usage_fraction",
          "logprob_text", "logprob_nan", "logprob_inf", "logprob_big", "rating_99", "rating_0", "no_choices",
          "not_json", "redirect", "echo_401", "list_body", "message_text", "nan_content"]
#: Stub answers that give ratings (exit 0; nothing non-finite or leaked).
FINE = ["good", "echo_content", "mixed_nan", "usage_float_whole", "logprob_good"]


def _completion(content, usage=None, logprobs=None, message=None) -> dict:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 7} if usage is None else usage}
    if message is not None:
        body["choices"][0]["message"] = message
    if logprobs is not None:
        body["choices"][0]["logprobs"] = logprobs
    return body


def _top(logprob) -> dict:
    return {"content": [{"token": "5", "logprob": logprob,
                         "top_logprobs": [{"token": "5", "logprob": logprob}, {"token": "6", "logprob": -1.2}]}]}


class StubEndpoint:
    """One server for every case: the mode is the URL's first path segment
    (``/MODE/v1/chat/completions``); ``/trap/`` is where redirects point, and counts the
    requests that reach it."""

    def __init__(self):
        self.trapped = 0
        self.count = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, raw: bytes, headers=()):
                try:
                    self.send_response(status)
                    for name, value in headers:
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self):
                stub.trapped += self.path.startswith("/trap/")
                self._send(200, json.dumps(_completion('{"rating": 7}')).encode())

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                mode = self.path.strip("/").split("/")[0]
                stub.count += 1
                if mode == "trap":
                    stub.trapped += 1
                status, body, headers = stub.answer(mode, stub.count)
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self._send(status, raw, headers)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, mode: str) -> str:
        return f"{self.origin}/{mode}/v1"

    def answer(self, mode: str, n: int):
        good = _completion('{"rating": 5}')
        plays = {
            "good": good,
            "content_number": _completion(5), "content_list": _completion([5]), "content_object": _completion({"r": 5}),
            "usage_text": _completion('{"rating": 5}', usage={"prompt_tokens": "100", "completion_tokens": 7}),
            "usage_negative": _completion('{"rating": 5}', usage={"prompt_tokens": -4, "completion_tokens": 7}),
            "usage_fraction": _completion('{"rating": 5}', usage={"prompt_tokens": 1.5, "completion_tokens": 7}),
            "usage_float_whole": _completion('{"rating": 5}', usage={"prompt_tokens": 100.0, "completion_tokens": 7}),
            "logprob_text": _completion('{"rating": 5}', logprobs=_top("-0.3")),
            "logprob_nan": _completion('{"rating": 5}', logprobs=_top(math.nan)),
            "logprob_inf": _completion('{"rating": 5}', logprobs=_top(math.inf)),
            "logprob_big": _completion('{"rating": 5}', logprobs=_top(900.0)),
            "logprob_good": _completion('{"rating": 5}', logprobs=_top(-0.2)),
            "rating_99": _completion('{"rating": 99}'), "rating_0": _completion("rating: 0"),
            "nan_content": _completion("rating: NaN"),
            "no_choices": {"id": "x"}, "list_body": [1, 2, 3], "message_text": _completion(None, message="5"),
            "echo_content": _completion(f'{{"rating": 4}} for key {KEY}'),
            "mixed_nan": _completion('{"rating": 5}', logprobs=_top(math.nan if n % 2 else -0.4)),
        }
        if mode == "not_json":
            return 200, b"<html>not json</html>", ()
        if mode == "redirect":
            return 302, b"", (("Location", f"{self.origin}/trap/v1/chat/completions"),)
        if mode == "echo_401":
            return 401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}, ()
        return 200, plays.get(mode, good), ()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Case:
    """One command line: its argv, whether it must be refused (exit 2) or accepted (exit
    0; None: either), files whose bytes must not change, and files to check for
    non-finite numbers."""

    kind: str
    argv: list[str]
    refuse: bool | None
    keep: list[Path] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)
    baseline: bool = False
    what: str = ""
    listing: Path | None = None
    check: Callable | None = None


def _sibling(name: str):
    """The module ``benchmarks/NAME.py`` (this script is loaded by its path, so its folder
    need not be on ``sys.path``)."""
    import importlib.util

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = sys.modules[name] = importlib.util.module_from_spec(spec)    # dataclasses look it up
    spec.loader.exec_module(module)
    return module


@dataclass
class Counts:
    cases: int = 0
    tracebacks: int = 0
    silent: int = 0
    key_leaks: int = 0
    cache_changed: int = 0
    redirects_followed: int = 0
    wrong_exit: int = 0
    raw_escapes: int = 0
    by_kind: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)

    def bad(self) -> int:
        return (self.tracebacks + self.silent + self.key_leaks + self.cache_changed + self.redirects_followed
                + self.wrong_exit + self.raw_escapes)


def run_main(argv: list[str]) -> tuple[int, str, str, str | None]:
    """``elot ARGV`` in this process: (status, stdout, stderr, traceback or None)."""
    from elot.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace"), io.StringIO()
    crashed = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 2
        except BaseException:       # noqa: BLE001 - a traceback is what is counted
            crashed = traceback.format_exc()
            code = 1
    try:
        out.flush()
        printed = out.buffer.getvalue().decode("utf-8", "replace")
    except ValueError:
        printed = ""
    return code, printed, err.getvalue(), crashed


def _valid_number(text: str, kind: type, low: float, high: float, *, low_open: bool = False) -> bool:
    try:
        value = kind(text)
    except (ValueError, OverflowError):
        return False
    if not math.isfinite(value):
        return False
    return (low < value if low_open else low <= value) and value <= high


# -- the inputs ------------------------------------------------------------------------------


class Inputs:
    """The good inputs every case starts from, made once: a batch table, ratings, a
    baseline's cache."""

    def __init__(self, folder: Path, stub: StubEndpoint):
        self.folder, self.stub = folder, stub
        self.table = folder / "t.csv"
        self.ratings = folder / "ratings.csv"
        for argv in (["batch", "two-doors", "-o", str(self.table)],
                     ["simulate", str(self.table), "-o", str(self.ratings)]):
            code, _, err, crashed = run_main(argv)
            if code or crashed:
                raise SystemExit(f"could not make the inputs ({' '.join(argv)}): {crashed or err}")
        self.cache = folder / "good.cache.jsonl"
        code, _, err, crashed = run_main(self.baseline_argv(stub.url("good"), folder / "good.csv")
                                         + ["--cache", str(self.cache)])
        if code or crashed:
            raise SystemExit(f"could not make the cache: {crashed or err}")
        self.table_rows = list(csv.reader(io.StringIO(self.table.read_text(encoding="utf-8"))))
        self.rating_rows = list(csv.reader(io.StringIO(self.ratings.read_text(encoding="utf-8"))))
        self._survey = None

    def survey(self) -> tuple[Path, dict]:
        """A small built survey and its description, made on first use."""
        if self._survey is None:
            from elot.survey.build import load_config

            folder = _sibling("survey_attacks").build(self.folder / "survey-build")
            self._survey = folder, load_config(folder)
        return self._survey

    @staticmethod
    def baseline_argv(url: str, out: Path) -> list[str]:
        return ["baseline", "two-doors", "-s", STATEMENT, "--at", "4,6", "--llm", "stub-model", "--endpoint", url,
                "--api-key", KEY, "--retries", "1", "--timeout", "5", "-o", str(out)]


def _csv(rows) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _broken_table(rng: random.Random, rows: list[list[str]]) -> tuple[str, bool]:
    """A table's text, and whether it must be refused."""
    rows = [list(r) for r in rows]
    header, body = rows[0], rows[1:]
    pick = rng.randrange(9)
    row = rng.randrange(len(body))
    if pick <= 3:     # a probability cell
        column = rng.choice(["P", "L", "pi"])
        value = rng.choice(CELLS)
        body[row][header.index(column)] = value
        good = value == "" or _valid_number(value, float, 0.0, 1.0 + 1e-12)
        return _csv(rows), not good
    if pick == 4:     # t, k, beta
        column, kind, low = rng.choice([("t", int, 0), ("k", int, 1), ("beta", float, 0)])
        value = rng.choice(NUMBERS)
        body[row][header.index(column)] = value
        valid = _valid_number(value, kind, low, math.inf, low_open=column == "beta") or \
            (value == "" and column != "t")       # a language model's row has no k or β
        # a valid t that is no judgment point, or a second k or β (two settings in one
        # table): the reader may take it or refuse it
        return _csv(rows), None if valid else True
    if pick == 5:     # a row cut short or made long
        rows[row + 1] = body[row][:rng.randrange(1, len(header))] if rng.random() < 0.5 else body[row] + ["x", "y"]
        return _csv(rows), True
    if pick == 6:     # bytes that are not a table
        return rng.choice(["", "\x00\x01\x02", "scenario\n", "a,b,c\n1,2,3\n", "\ufeff", "\"unclosed,\n"]), True
    if pick == 7:     # a row repeated with another L
        twin = list(body[row])
        twin[header.index("L")] = "0.123" if twin[header.index("L")] != "0.123" else "0.456"
        rows.append(twin)
        return _csv(rows), True
    header[rng.randrange(len(header))] = "renamed"         # a required column missing
    return _csv(rows), None


def _broken_ratings(rng: random.Random, rows: list[list[str]], *, unit: bool) -> tuple[str, bool]:
    rows = [list(r) for r in rows]
    header, body = rows[0], rows[1:]
    row = rng.randrange(len(body))
    pick = rng.randrange(4)
    if pick <= 1:
        value = rng.choice(NUMBERS + ["5", "-0.5", "1e999"])
        body[row][header.index("rating")] = value
        ok = _valid_number(value, float, 0.0, 1.0) if unit else _valid_number(value, float, -1e6, 1e6)
        return _csv(rows), (not ok) if not ok else None
    if pick == 2:
        column = rng.choice(["mode", "t", "scenario"])
        body[row][header.index(column)] = rng.choice(["", "sideways", "-1", "999", "nope", "1.5"])
        return _csv(rows), True
    return rng.choice(["", "rating\n", "scenario,mode,t,statement\n", "\x00"]), True


def _edited_cache(rng: random.Random, text: str) -> tuple[str, bool]:
    lines = text.splitlines()
    n = rng.randrange(len(lines))
    record = json.loads(lines[n])
    answer = record["answer"]
    pick = rng.randrange(12)
    if pick == 0:
        answer["rating"] = rng.choice([99, 0, -3, 7.5, 0.999])
    elif pick == 1:
        answer["rating"] = rng.choice(["5", [5], {"v": 5}, True])
    elif pick == 2:
        answer.pop(rng.choice(["text", "rating", "status"]))
    elif pick == 3:
        answer["status"] = rng.choice(["great", "", 5, None])
    elif pick == 4:
        answer[rng.choice(["prompt_tokens", "completion_tokens"])] = rng.choice([-1, "7", 1.5, None])
    elif pick == 5:
        answer["mass"] = rng.choice([-0.5, "x", [1]])
    elif pick == 6:
        answer["text"] = rng.choice([5, None, ["x"]])
    elif pick == 7:
        answer["status"], answer["rating"] = "no number", 4
    elif pick == 8:
        lines.insert(n, rng.choice(['{"key": "k", "answ', "[1, 2]", "null", "NaN", '"text"', "{}"]))
        return "\n".join(lines) + "\n", True
    elif pick == 9:
        record["answer"] = rng.choice([None, 5, "ok", []])
    elif pick == 10:   # a line torn by a kill, at the end: dropped, the run goes on
        return text + '{"key": "abc", "answ', False
    else:
        lines[n] = lines[n].replace('"rating": 5', '"rating": NaN')
        return "\n".join(lines) + "\n", '"rating": NaN' in lines[n]
    lines[n] = json.dumps(record)
    return "\n".join(lines) + "\n", True


def _diff(old: str, new: str) -> str:
    """The first line of ``new`` that differs from ``old`` (what a case changed)."""
    a, b = old.splitlines(), new.splitlines()
    for n, line in enumerate(b):
        if n >= len(a) or a[n] != line:
            if n < len(a):
                try:
                    header = next(csv.reader([a[0]]))
                    cells = [(header[i] if i < len(header) else i, y)
                             for i, (x, y) in enumerate(zip(next(csv.reader([a[n]])), next(csv.reader([line]))))
                             if x != y]
                    if cells:
                        return f"line {n + 1}: " + ", ".join(f"{c} = {v!r}" for c, v in cells)
                except (csv.Error, StopIteration):
                    pass
            return f"line {n + 1}: {line[:160]!r}"
    return f"{len(a) - len(b)} lines fewer" if len(b) < len(a) else "unchanged"


def generate(rng: random.Random, inputs: Inputs, folder: Path) -> Case:
    """One case in ``folder`` (empty, the case's own)."""
    stub = inputs.stub
    kind = rng.choices(["baseline_answers", "baseline_options", "baseline_url", "baseline_cache", "report",
                        "storyboard", "simulate", "fit", "survey_import", "survey_hostile"],
                       weights=[14, 12, 8, 10, 14, 10, 12, 10, 10, 10])[0]
    if kind == "survey_hostile":
        survey, config = inputs.survey()
        made = _sibling("survey_attacks").generate(rng, survey, config, folder)
        return Case(f"survey_{made.kind}", made.argv, made.refuse, keep=made.keep, what=made.what,
                    listing=made.listing, check=made.check)
    out = folder / "out.csv"
    if kind == "baseline_answers":
        mode = rng.choice(BROKEN + FINE)
        argv = inputs.baseline_argv(stub.url(mode), out)
        if mode.startswith("logprob") or mode == "mixed_nan" or rng.random() < 0.2:
            argv.append("--logprobs")
        return Case(kind, argv, mode in BROKEN, outputs=[out, Path(f"{out}.manifest.json")], baseline=True)
    if kind == "baseline_options":
        option, kind_, low, high, low_open = rng.choice([("--timeout", float, 0.01, 3600, False),
                                                         ("--retries", int, 1, 100, False),
                                                         ("--repeats", int, 1, 1000, False),
                                                         ("--temperature", float, 0, math.inf, False)])
        value = rng.choice(NUMBERS)
        argv = inputs.baseline_argv(stub.url("good"), out)
        if option in argv:
            i = argv.index(option)
            del argv[i:i + 2]
        if option == "--repeats" and _valid_number(value, int, 1, 1000) and int(value) > 40:
            value = "0"      # a valid large --repeats asks the stub that often: keep cases fast
        argv.append(f"{option}={value}")
        valid = _valid_number(value, kind_, low, high, low_open=low_open)
        return Case(kind, argv, not valid, outputs=[out, Path(f"{out}.manifest.json")], baseline=True)
    if kind == "baseline_url":
        url = rng.choice(URLS)
        argv = inputs.baseline_argv(url, out)
        return Case(kind, argv, True, baseline=True)
    if kind == "baseline_cache":
        cache = folder / "c.jsonl"
        text, refuse = _edited_cache(rng, inputs.cache.read_text(encoding="utf-8"))
        cache.write_text(text, encoding="utf-8")
        argv = inputs.baseline_argv(stub.url("good"), out) + ["--cache", str(cache)]
        return Case(kind, argv, refuse, keep=[cache] if refuse else [], outputs=[out], baseline=True)
    if kind in ("report", "storyboard", "simulate"):
        table = folder / "table.csv"
        text, refuse = _broken_table(rng, inputs.table_rows)
        ratings_refuse = False
        extra: list[str] = []
        if kind != "simulate" and refuse is not True:
            # a good table draws figures (slow): give broken ratings, so that the case ends at reading
            ratings = folder / "ratings.csv"
            ratings_text, ratings_refuse = _broken_ratings(rng, inputs.rating_rows, unit=True)
            ratings.write_text(ratings_text, encoding="utf-8")
            extra = ["--ratings", str(ratings)]
            if ratings_refuse is not True:
                ratings_text, ratings_refuse = "", True
                ratings.write_text(ratings_text, encoding="utf-8")
        table.write_text(text, encoding="utf-8")
        target = {"report": folder / "d", "storyboard": folder / "s.png", "simulate": folder / "r.csv"}[kind]
        argv = {"report": ["report", str(table), "-o", str(target)],
                "storyboard": ["storyboard", "two-doors", "--table", str(table), "-o", str(target)],
                "simulate": ["simulate", str(table), "-o", str(target)]}[kind] + extra
        refuse_all = True if (refuse or ratings_refuse) else (None if refuse is None else False)
        what = _diff(inputs.table.read_text(encoding="utf-8"), text)
        if extra:
            what += " | ratings: " + _diff(inputs.ratings.read_text(encoding="utf-8"), ratings_text)
        return Case(kind, argv, refuse_all, keep=[table], outputs=[target] if kind == "simulate" else [], what=what)
    if kind == "fit":
        ratings = folder / "ratings.csv"
        if rng.random() < 0.7:
            text, _ = _broken_ratings(rng, inputs.rating_rows, unit=False)
            if _ is not True:
                text = text + "two-doors,sideways,4,x,1\n"
            ratings.write_text(text, encoding="utf-8")
            argv = ["fit", str(ratings), "-o", str(folder / "p.json")]
        else:
            shutil.copyfile(inputs.ratings, ratings)
            option, kind_, low = rng.choice([("--beta", float, 0.0), ("--k", int, 1), ("--samples", int, 1),
                                             ("--seed", int, 0)])
            value = rng.choice(["nan", "inf", "-1", "0", "x", "", "1e308", "-inf", "1.5"])
            if _valid_number(value, kind_, low, 1e300 if kind_ is float else 2**31, low_open=option == "--beta"):
                value = "nan"        # a valid value would run the whole fit (slow): only bad ones here
            argv = ["fit", str(ratings), "-o", str(folder / "p.json"), f"{option}={value}"]
        return Case(kind, argv, True, keep=[ratings])
    data = folder / rng.choice(["export.json", "export.csv", "responses.sqlite"])
    junk = rng.choice([b"", b"[]", b"{}", b"null", b"[{}]", b'[{"trial_type": 5, "rating": NaN}]', b"\x00\xff",
                       b"rt,response\n1,2\n", b"SQLite format 3\x00" + bytes(100), b'[{"rating": "5"}]' * 3])
    data.write_bytes(junk)
    argv = ["survey", "import", str(data), "-o", str(folder / "r.csv")]
    return Case("survey_import", argv, True, keep=[data])


# -- the checks ------------------------------------------------------------------------------


NUMERIC = {"P", "L", "pi", "L_se", "llm_rating", "rating", "ess"}


def non_finite(path: Path) -> str:
    """Where ``path`` (a CSV table, ratings or JSON) holds a number that is not finite."""
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        bad = []
        try:
            json.loads(text, parse_constant=lambda c: bad.append(c))
        except ValueError:
            return ""
        return f"{path.name}: {bad[0]}" if bad else ""
    for n, row in enumerate(csv.DictReader(io.StringIO(text)), 2):
        for column in NUMERIC & set(row):
            value = (row[column] or "").strip()
            if value:
                try:
                    if not math.isfinite(float(value)):
                        return f"{path.name}:{n}: {column} = {value}"
                except ValueError:
                    return f"{path.name}:{n}: {column} = {value!r} (not a number)"
    return ""


def run(cases: int, seed: int, *, progress: bool = False) -> Counts:
    """``cases`` generated command lines; the counts."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ELOT_API_KEY", "ELOT_BASE_URL"):
        os.environ.pop(name, None)
    rng = random.Random(seed)
    counts = Counts()
    stub = StubEndpoint()
    with tempfile.TemporaryDirectory(prefix="elot-fuzz-") as top:
        top = Path(top)
        inputs = Inputs(top / "inputs", stub) if (top / "inputs").mkdir() is None else None
        for i in range(cases):
            folder = top / f"case{i}"
            folder.mkdir()
            case = generate(rng, inputs, folder)
            before = {p: p.read_bytes() for p in case.keep if p.exists()}
            listing = sorted(p.name for p in case.listing.iterdir()) if case.listing else None
            trapped = stub.trapped
            code, out, err, crashed = run_main(case.argv)
            problems = []
            raw = _sibling("survey_attacks").raw_in(out + err)
            if raw:
                counts.raw_escapes += 1
                problems.append(f"printed {raw!r} raw")
            if listing is not None and sorted(p.name for p in case.listing.iterdir()) != listing:
                counts.cache_changed += 1
                problems.append("files made or removed beside a refused input")
            if case.check is not None and not crashed:
                wrong = case.check(code, out, err, folder)
                counts.silent += bool(wrong)
                problems += wrong
            if crashed or "Traceback (most recent call last)" in err:
                counts.tracebacks += 1
                problems.append("traceback: " + (crashed or err)[-600:])
            if code not in (0, 2):
                counts.wrong_exit += 1
                problems.append(f"exit {code}")
            elif case.refuse is True and code == 0:
                counts.silent += 1
                problems.append("accepted an input that must be refused")
            elif case.refuse is False and code != 0:
                counts.wrong_exit += 1
                problems.append("refused an input that must be accepted: " + err[-300:])
            if code == 0:
                for path in case.outputs:
                    where = non_finite(path)
                    if where:
                        counts.silent += 1
                        problems.append(f"a number that is not finite: {where}")
            if case.baseline:
                written = " ".join(p.read_text(encoding="utf-8", errors="replace")
                                   for p in folder.rglob("*") if p.is_file())
                if KEY in out + err or KEY in written.replace(" ".join(case.argv), ""):
                    counts.key_leaks += 1
                    problems.append("the key was printed or written")
            for path, data in before.items():
                if not path.exists() or path.read_bytes() != data:
                    counts.cache_changed += 1
                    problems.append(f"{path.name} changed")
            if stub.trapped != trapped:
                counts.redirects_followed += 1
                problems.append("a redirect was followed")
            counts.cases += 1
            tally = counts.by_kind.setdefault(case.kind, {"cases": 0, "refused": 0, "failures": 0})
            tally["cases"] += 1
            tally["refused"] += code == 2
            if problems:
                tally["failures"] += 1
                if len(counts.failures) < 10:
                    counts.failures.append({"case": i, "argv": case.argv, "what": case.what, "exit": code,
                                            "problems": problems,
                                            "stderr": err[-400:]})
            shutil.rmtree(folder, ignore_errors=True)
            if progress and (i + 1) % 250 == 0:
                print(f"{i + 1}/{cases} cases, {counts.bad()} failing", file=sys.stderr, flush=True)
    stub.close()
    return counts


# -- random domain files and case files (--domains) ------------------------------------------

DOMAIN_TEMPLATE = """
import numpy as np
from elot.engine import BeliefSpace, DesireSpace, Tables
from elot.lang.signature import Signature


class Random:
    name = "random"
    default_planner = {planner!r}
    default_beta = 2.0

    def tables(self, layout):
        {tables_body}
        return Tables({states!r}, {worlds!r}, {actions!r}, {percepts!r}, {objects!r},
                      np.array({costs}), np.array({trans}, dtype={trans_dtype}), np.array({obs}),
                      np.array({outcomes}, dtype=np.int64))

    def desires(self):
        return DesireSpace({objects!r}, np.array({utilities}, dtype={utility_dtype}), np.array({desire_prior}))

    def initial_beliefs(self, layout):
        return BeliefSpace(np.array({beliefs}), np.array({belief_prior}))

    def signature(self):
        return Signature.from_objects(dict({{"agent": "agent"}}, **{{o: "thing" for o in {objects!r}}}),
                                      agent="agent", predicates={{"open": ("thing",)}}, types={{"thing": "object"}},
                                      derived=())

    def world_atoms(self, layout, world):
        {atoms_body}
"""

#: What a domain file gets wrong (each refused, naming it), or nothing.
DOMAIN_FAULTS = ["none"] * 10 + ["belief_sum", "belief_negative", "utility_text", "utility_huge",
                 "atoms_number", "atoms_bad", "trans_range", "obs_sum", "cost_nan", "prior_sum", "raises",
                 "shape", "ragged", "many_worlds"]


def _random_domain(rng: random.Random, folder: Path) -> tuple[Path, dict, bool | None]:
    """A domain file of random sizes and tables, with at most one fault; its tables (for the
    case files) and whether the run must be refused (None: either, a large domain the
    budget may refuse)."""
    fault = rng.choice(DOMAIN_FAULTS)
    n_w = 12 if fault == "many_worlds" else rng.randint(1, 3)
    n_s, n_a, n_o, n_obj = rng.randint(2, 7), rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 3)
    trans = [[[rng.randrange(n_s) for _ in range(n_a)] for _ in range(n_s)] for _ in range(n_w)]
    obs = []
    for _ in range(n_w):
        rows = []
        for _ in range(n_s):
            weights = [rng.choice([0.0, 0.5, 1.0, 2.0]) for _ in range(n_o)]
            weights[rng.randrange(n_o)] += 1.0
            rows.append([w / sum(weights) for w in weights])
        obs.append(rows)
    outcomes = [[[rng.choice([-1, -1, *range(n_obj)]) for _ in range(n_a)] for _ in range(n_s)] for _ in range(n_w)]
    levels = [rng.choice([-5.0, 0.0, 5.0, 10.0]) for _ in range(4)]
    n_d = rng.randint(1, 12)
    utilities = [[rng.choice(levels) for _ in range(n_obj)] for _ in range(n_d)]
    n_b = rng.randint(1, 4)
    beliefs = []
    for _ in range(n_b):
        weights = [rng.random() + 0.01 for _ in range(n_w)]
        beliefs.append([w / sum(weights) for w in weights])
    costs = [rng.choice([0.0, 1.0, 2.0]) for _ in range(n_a)]
    names = {"states": tuple(f"s{i}" for i in range(n_s)), "worlds": tuple(f"w{i}" for i in range(n_w)),
             "actions": tuple(f"a{i}" for i in range(n_a)), "percepts": tuple(f"p{i}" for i in range(n_o)),
             "objects": tuple(f"o{i}" for i in range(n_obj))}
    fields = dict(planner=rng.choice(["qmdp", "belief-vi"]), tables_body="pass", trans=trans, trans_dtype="np.int64",
                  obs=obs, outcomes=outcomes, costs=costs, utilities=utilities, utility_dtype="np.float64",
                  desire_prior=[1.0 / n_d] * n_d, beliefs=beliefs, belief_prior=[1.0 / n_b] * n_b,
                  atoms_body="return frozenset({('open', 'o' + str(world %% %d))})" % n_obj, **names)
    if fault == "belief_sum":
        beliefs[0] = [b * 0.9 for b in beliefs[0]]
    elif fault == "belief_negative":
        beliefs[0] = [1.5] + [-0.5 / max(n_w - 1, 1)] * (n_w - 1) if n_w > 1 else [-1.0]
    elif fault == "utility_text":
        fields["utilities"] = [[str(u) for u in row] for row in utilities]
        fields["utility_dtype"] = "object"
    elif fault == "utility_huge":
        utilities[0][0] = 1e308
    elif fault == "atoms_number":
        fields["atoms_body"] = "return 5"
    elif fault == "atoms_bad":
        fields["atoms_body"] = "return [5]"
    elif fault == "trans_range":
        trans[0][0][0] = n_s + 3
    elif fault == "obs_sum":
        obs[0][0] = [0.9 / n_o] * n_o
    elif fault == "cost_nan":
        fields["costs"] = "[" + ", ".join(["float('nan')"] * n_a) + "]"
    elif fault == "prior_sum":
        fields["desire_prior"] = [0.9 / n_d] * n_d
    elif fault == "raises":
        fields["tables_body"] = "raise RuntimeError('the map file is missing')"
    elif fault == "shape":
        fields["outcomes"] = [row[:-1] or [[-1]] for row in outcomes]
    elif fault == "ragged":
        fields["costs"] = [costs[0], [1.0], *costs[1:]] if n_a > 1 else [[1.0, 2.0]]
    path = folder / "domain.py"
    path.write_text(DOMAIN_TEMPLATE.format(**fields), encoding="utf-8")
    refuse = None if fault in ("none", "many_worlds") else True
    return path, {"trans": trans, "n_w": n_w, **names}, refuse


def _random_case(rng: random.Random, tables: dict, folder: Path) -> tuple[Path, bool | None, int]:
    """A case file: a walk the true world's transitions allow (any length, up to thousands
    of steps), or a malformed one; whether it must be refused, and its length."""
    world = rng.randrange(tables["n_w"])
    state = rng.randrange(len(tables["states"]))
    steps = rng.choice([1, 3, 8, 20, 200, 3000])
    path = [state]
    for _ in range(steps):
        state = tables["trans"][world][state][rng.randrange(len(tables["actions"]))] % len(tables["states"])
        path.append(state)
    case = {"layout": "x", "world": tables["worlds"][world], "path": [tables["states"][s] for s in path]}
    refuse: bool | None = None
    pick = rng.randrange(20)
    if pick == 0:
        case["world"], refuse = "nowhere", True
    elif pick == 1:
        case["path"], refuse = [], True
    elif pick == 2:
        case["path"][-1], refuse = "s999", True
    elif pick == 3:
        case["world"] = None
    elif pick == 4:
        case["judgments"], refuse = [len(path) + 5], True
    file = folder / "case.json"
    file.write_text(json.dumps(case), encoding="utf-8")
    return file, refuse, len(path)


def domain_case(rng: random.Random, folder: Path, memory: str) -> tuple[Case, int]:
    """One command over a random domain file and case file, under ``--max-memory memory``;
    the case and the budget in bytes."""
    domain, tables, refuse_domain = _random_domain(rng, folder)
    case, refuse_case, _ = _random_case(rng, tables, folder)
    refuse = True if (refuse_domain or refuse_case) else None
    budget = {"64M": 64 * 2**20, "256M": 256 * 2**20}[memory]
    inference = rng.choice([[], ["--inference", "smc", "--particles", rng.choice(["1", "2", "50", "1000",
                                                                                 "1000000000", "99999999999999999999"]),
                                 "--seed", "1"], ["--inference", "auto"]])
    statement = "initial: believes(agent, formula(open(o0)))"
    kind = rng.choice(["run", "run", "batch", "repl"])
    out = folder / "out.csv"
    if kind == "run":
        argv = ["run", "--domain", str(domain), str(case), "--json", str(folder / "r.json"), "--max-memory", memory,
                *inference]
        outputs = [folder / "r.json"]
    elif kind == "batch":
        argv = ["batch", "--domain", str(domain), str(case), "--statement", statement, "--max-memory", memory,
                "-o", str(out), *inference]
        outputs = [out]
    else:
        argv = ["repl", "--domain", str(domain), str(case), "--max-memory", memory, *inference]
        outputs = []
    what = f"{kind}: {', '.join(inference) or 'exact'}"
    return Case(f"domain_{kind}", argv, refuse, outputs=outputs, what=what), budget


def run_domains(cases: int, seed: int, *, progress: bool = False) -> dict:
    """``cases`` commands over random domain files and case files, each measured for the
    memory it traced (``tracemalloc``, which counts NumPy's arrays) against its
    ``--max-memory``: counts of tracebacks, silent results (a must-refuse input accepted, a
    number that is not finite written), runs past their budget, and refusals."""
    import tracemalloc

    rng = random.Random(seed)
    counts = {"cases": 0, "tracebacks": 0, "silent": 0, "over_budget": 0, "wrong_exit": 0, "refused": 0,
              "refused_with_estimate": 0}
    failures: list[dict] = []
    by_kind: dict[str, dict] = {}
    peak_share = 0.0
    with tempfile.TemporaryDirectory(prefix="elot-fuzz-domains-") as top:
        top = Path(top)
        for i in range(cases):
            folder = top / f"case{i}"
            folder.mkdir()
            memory = rng.choice(["64M", "256M"])
            case, budget = domain_case(rng, folder, memory)
            stdin = ":set particles 99999999999999999999\n:goals\n:set particles 20\n:goals\n" \
                if case.kind == "domain_repl" else None
            for name in list(sys.modules):     # each domain file is its own module
                if name.startswith("elot_domain_") or name == "domain":
                    del sys.modules[name]
            tracemalloc.start()
            if stdin is not None:
                old_stdin, sys.stdin = sys.stdin, io.StringIO(stdin)
            try:
                code, out, err, crashed = run_main(case.argv)
            finally:
                if stdin is not None:
                    sys.stdin = old_stdin
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
            problems = []
            if crashed or "Traceback (most recent call last)" in err + out or "internal error" in err + out:
                counts["tracebacks"] += 1
                problems.append("traceback: " + (crashed or err or out)[-600:])
            if code not in (0, 2):
                counts["wrong_exit"] += 1
                problems.append(f"exit {code}")
            elif case.refuse is True and code == 0 and case.kind != "domain_repl":
                counts["silent"] += 1
                problems.append("accepted an input that must be refused")
            if code == 0:
                for path in case.outputs:
                    where = non_finite(path)
                    if where:
                        counts["silent"] += 1
                        problems.append(f"a number that is not finite: {where}")
            if peak > budget:
                counts["over_budget"] += 1
                problems.append(f"traced {peak / 2**20:.0f} MiB under --max-memory {budget // 2**20}M")
            peak_share = max(peak_share, peak / budget)
            counts["refused"] += code == 2
            counts["refused_with_estimate"] += code == 2 and "budget error" in err
            counts["cases"] += 1
            tally = by_kind.setdefault(case.kind, {"cases": 0, "refused": 0, "failures": 0})
            tally["cases"] += 1
            tally["refused"] += code == 2
            if problems:
                tally["failures"] += 1
                if len(failures) < 10:
                    failures.append({"case": i, "argv": case.argv, "what": case.what, "exit": code,
                                     "problems": problems, "stderr": err[-400:],
                                     "domain": (folder / "domain.py").read_text()[-1500:]})
            shutil.rmtree(folder, ignore_errors=True)
            if progress and (i + 1) % 50 == 0:
                print(f"{i + 1}/{cases} domain cases", file=sys.stderr, flush=True)
    return {**counts, "largest_share_of_budget": round(peak_share, 3), "by_kind": by_kind, "failures": failures}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--domains", action="store_true",
                        help="commands over random domain files and case files instead (run, batch, the REPL), "
                             "each checked against its --max-memory")
    args = parser.parse_args(argv)
    if args.cases < 1:
        parser.error("--cases must be at least 1")
    started = time.perf_counter()
    if args.domains:
        report = run_domains(args.cases, args.seed, progress=True)
        report["seconds"] = round(time.perf_counter() - started, 1)
        print(json.dumps(report, indent=2, ensure_ascii=False))
        bad = report["tracebacks"] + report["silent"] + report["over_budget"] + report["wrong_exit"]
        return 1 if bad else 0
    counts = run(args.cases, args.seed, progress=True)
    report = {"cases": counts.cases, "tracebacks": counts.tracebacks, "silent": counts.silent,
              "key_leaks": counts.key_leaks, "cache_changed": counts.cache_changed,
              "redirects_followed": counts.redirects_followed, "wrong_exit": counts.wrong_exit,
              "raw_escapes": counts.raw_escapes,
              "seconds": round(time.perf_counter() - started, 1), "by_kind": counts.by_kind,
              "failures": counts.failures}
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 1 if counts.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
