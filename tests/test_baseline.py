"""Language-model baselines: answers parsed, prompts rendered (golden files), the whole
path through the command line against a stub OpenAI-compatible server on localhost
(recorded answers: malformed ones, refusals, timeouts, rate limits, a wrong key, a server
that is down), the cache that makes a rerun free and a killed run resume, and the in-vs-out
comparison from a table of ratings."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from elot.baseline import BaselineError, Endpoint, EndpointError, load_template, parse_rating, render
from elot.domains.doors_keys_gems.tell import narrative_text, plan_text
from elot.baseline.items import scenario_items
from elot.baseline.parse import AMBIGUOUS, NO_NUMBER, OUT_OF_SCALE, REFUSED, expected_rating, normalized
from elot.baseline.prompts import Item, Template, examples_block
from elot.baseline.run import Journal, run_baseline
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.world import KeyState
from elot.domains.doors_keys_gems.experiments import in_vs_out_of_table
from elot.study.references import ScenarioRef, given_items
from helpers import ELOT, run_elot, small_language_model

GOLDEN = Path(__file__).parent / "golden" / "baseline"
STATEMENT = "The player believes box 2 holds the blue key."
FORMULA = "believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))"


# -- parsing ---------------------------------------------------------------------------


@pytest.mark.parametrize("answer, rating", [
    ('{"rating": 5}', 5.0),
    ('```json\n{"rating": 6}\n```', 6.0),
    ('{"Rating": [3]}', 3.0),
    ('"rating": 5', 5.0),
    ("rating: [4]", 4.0),
    ("Rating = 6/7", 6.0),
    ("I think this is quite likely. I would say 6.", 6.0),
    ("On a scale of 1 to 7, I rate it 2.", 2.0),
    ("Rating: 2 (the player has not opened box 1 yet)", 2.0),
    ("3.5", 3.5),
])
def test_a_rating_is_read_from_the_formats_that_break_naive_patterns(answer, rating):
    parsed = parse_rating(answer)
    assert (parsed.rating, parsed.status) == (rating, "ok")


@pytest.mark.parametrize("answer, status", [
    ("rating: [75]", OUT_OF_SCALE),          # another scale: never squeezed onto 1-7
    ('{"rating": 0}', OUT_OF_SCALE),
    ("5 or 6", AMBIGUOUS),
    ("rating: 5, rating: 6", AMBIGUOUS),
    ("It depends on what the player saw.", NO_NUMBER),
    ("", NO_NUMBER),
    (None, NO_NUMBER),
    ("I'm sorry, I can't help with that.", REFUSED),
])
def test_an_answer_without_one_rating_says_why_and_gets_no_value(answer, status):
    parsed = parse_rating(answer)
    assert parsed.rating is None and parsed.status == status and not parsed.ok


def test_the_expected_rating_weighs_the_seven_rating_tokens_only():
    import math

    value, mass = expected_rating({"2": math.log(0.2), " 6": math.log(0.6), "x": math.log(0.2)})
    assert value == pytest.approx((2 * 0.2 + 6 * 0.6) / 0.8) and mass == pytest.approx(0.8)
    assert expected_rating({"8": 0.0, "word": -1.0}) == (None, 0.0)
    assert normalized(1) == 0 and normalized(7) == 1 and normalized(4) == 0.5


# -- prompts ---------------------------------------------------------------------------


def _two_doors_prompts(condition, statements=(STATEMENT,), **kwargs):
    ref = ScenarioRef("two-doors")
    items, scenarios = scenario_items([ref], given_items(list(statements)))
    template = load_template(condition)
    return [render(item, scenarios["two-doors"], condition, template, **kwargs) for item in items]


@pytest.mark.parametrize("condition", ["plan", "narrative"])
def test_rendered_prompts_match_their_golden_file(condition):
    """Every prompt of the built-in two-doors scenario (a statement in English and one in
    ELoT, at each judgment point); ELOT_UPDATE_GOLDEN=1 rewrites the file after an
    intended change."""
    prompts = _two_doors_prompts(condition, (STATEMENT, FORMULA))
    text = "".join(f"### t={p.item.t} {p.item.statement_id}\n{p.text()}" for p in prompts)
    path = GOLDEN / f"two-doors.{condition}.txt"
    if os.environ.get("ELOT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_a_statement_in_elot_is_shown_in_english_and_kept_as_a_formula():
    """A language model, like a participant, reads English: an ELoT statement is shown
    as the sentence it reads as, the table keeps its formula; English stays as written."""
    english, formula = _two_doors_prompts("plan", (STATEMENT, FORMULA))[::4][:2]
    assert english.item.statement == STATEMENT and f'Statement: "{STATEMENT}"' in english.user
    assert formula.item.statement == formula.item.formula == FORMULA
    assert 'Statement: "The player believes that box 2 has a blue key."' in formula.user
    assert "formula(" not in formula.user
    item = dataclasses.replace(formula.item, mode="initial")
    block = examples_block(item, {("two-doors", "initial"): [("believes(player, formula(empty(box1)))", 3.0)]})
    assert '"The player initially believed that box 1 was empty.": 3.0' in block


@pytest.mark.parametrize("describe", [plan_text, narrative_text])
def test_what_a_closed_box_holds_is_not_told_before_it_is_opened(describe):
    # two-doors hides the blue key in box 2, opened at t = 4: with the key in box 1
    # instead, everything before the opening reads the same, and the opening tells.
    scenario = load_scenario("two-doors")
    blue = next(k for k, s in scenario.initial.keys if s.colour == "blue")
    moved = dataclasses.replace(scenario, initial=scenario.initial.with_key(blue, KeyState("blue", ("box", "box1"))),
                                actions=scenario.actions[:4])
    for t in range(4):
        assert describe(scenario, t) == describe(moved, t)
    assert "box 2 held a blue key" in describe(scenario, 4)
    assert "box 2 held nothing" in describe(moved, 4)


def test_few_shot_examples_never_show_the_statement_asked():
    item = Item("s", "m", 3, "1", "The player believes box 1 is empty.", "current")
    ratings = {("s", "current"): [("The player believes box 1 is empty.", 6.0), ("Box 2 has the key.", 2.5)],
               ("s", "initial"): [("Something else.", 4.0)]}
    block = examples_block(item, ratings)
    assert '"Box 2 has the key.": 2.5' in block
    assert "box 1 is empty" not in block and "Something else" not in block
    assert examples_block(item, {}) == ""


def test_an_image_goes_as_a_png_data_url_after_the_text():
    prompt = _two_doors_prompts("plan", image=True)[0]
    assert prompt.image[:8] == b"\x89PNG\r\n\x1a\n"
    content = prompt.messages()[-1]["content"]
    assert content[0] == {"type": "text", "text": prompt.user}
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize("text, message", [
    ("[user]\n$statement\n", "has no $scene"),
    ("hello\n[system]\nx\n[user]\n$scene $statement\n", "text before the [system] section"),
    ("[system]\nx\n", "no [user] section"),
    ("[system]\n[user]\n$scene $statement $oops\n", "cannot use the template"),
    ("[system]\n[user]\n$scene\n[user]\n$statement\n", "a second [user] section"),
    ("[system]\nx\n[assistant]\nok\n[user]\n$scene $statement\n", "mine.txt:3: unknown section [assistant]"),
])
def test_a_broken_template_is_one_clear_error(text, message):
    with pytest.raises(BaselineError, match=message.replace("$", r"\$").replace("[", r"\[").replace("]", r"\]")):
        Template.parse(text, "mine.txt")


# -- the stub endpoint --------------------------------------------------------------------


def completion(text, *, refusal=None, finish="stop"):
    message = {"role": "assistant", "content": text}
    if refusal:
        message["refusal"] = refusal
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": finish}],
                 "usage": {"prompt_tokens": 100, "completion_tokens": 7}}


class Stub:
    """An OpenAI-compatible chat endpoint on localhost that plays ``script(body, n)``
    for the n-th request: ``(status, body)``, optionally ``(status, body, headers,
    delay)``. It records every request (body and Authorization header)."""

    def __init__(self, script, port: int = 0):
        self.script = script
        self.requests: list[dict] = []
        self.keys: list[str | None] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.keys.append(self.headers.get("Authorization"))
                status, answer, headers, delay = (*stub.script(body, len(stub.requests) - 1), {}, 0)[:4]
                if delay:
                    time.sleep(delay)
                raw = (answer if isinstance(answer, str) else json.dumps(answer)).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _endpoint(url, **kwargs):
    return Endpoint(url, "stub-model", api_key="sk-test", sleep=lambda s: None, **kwargs)


def test_rate_limits_server_errors_and_timeouts_are_retried():
    plays = [(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}), (503, "busy"),
             (*completion('{"rating": 9}'), {}, 1.0),      # answers after the client gave up waiting
             completion('{"rating": 6}')]
    prompt = _two_doors_prompts("plan")[0]
    with Stub(lambda body, n: plays[min(n, len(plays) - 1)]) as stub:
        endpoint = _endpoint(stub.url, timeout=0.3)
        answer = endpoint.rate(prompt, 0.0, 0)
    assert answer.parsed.rating == 6.0 and endpoint.retried == 3
    assert stub.requests[0]["response_format"] == {"type": "json_object"}
    assert stub.requests[0]["messages"][-1]["content"] == prompt.user


def test_an_endpoint_without_json_mode_is_asked_again_without_it():
    def play(body, n):
        if "response_format" in body:
            return 400, {"error": {"message": "response_format is not supported"}}
        return completion("6")

    with Stub(play) as stub:
        endpoint = _endpoint(stub.url)
        prompt = _two_doors_prompts("plan")[0]
        assert endpoint.rate(prompt, 0.0, 0).parsed.rating == 6.0
        assert endpoint.rate(prompt, 0.0, 1).parsed.rating == 6.0
    assert ["response_format" in r for r in stub.requests] == [True, False, False]


def test_refusals_are_counted_as_refused():
    plays = [completion(None, refusal="I can't rate people."), completion("", finish="content_filter")]
    with Stub(lambda body, n: plays[n]) as stub:
        endpoint = _endpoint(stub.url)
        prompt = _two_doors_prompts("plan")[0]
        assert [endpoint.rate(prompt, 0.0, i).parsed.status for i in range(2)] == [REFUSED, REFUSED]


def test_token_probabilities_give_the_expected_rating():
    import math

    top = [{"token": "5", "logprob": math.log(0.5)}, {"token": "6", "logprob": math.log(0.3)},
           {"token": "}", "logprob": math.log(0.2)}]
    body = completion('{"rating": 5}')[1]
    body["choices"][0]["logprobs"] = {"content": [{"token": '{"', "logprob": 0.0, "top_logprobs": []},
                                                  {"token": "5", "logprob": math.log(0.5), "top_logprobs": top}]}
    with Stub(lambda b, n: (200, body)) as stub:
        answer = _endpoint(stub.url, logprobs=True).rate(_two_doors_prompts("plan")[0], 0.0, 0)
    assert answer.parsed.rating == pytest.approx((5 * 0.5 + 6 * 0.3) / 0.8)
    assert answer.mass == pytest.approx(0.8)
    assert stub.requests[0]["logprobs"] is True


@pytest.mark.parametrize("status, message", [(401, "refused the API key"), (403, "refused the API key"),
                                             (404, "no such model or path")])
def test_a_wrong_key_or_model_stops_at_once(status, message):
    with Stub(lambda b, n: (status, {"error": {"message": "nope"}})) as stub:
        with pytest.raises(EndpointError, match=message):
            _endpoint(stub.url).rate(_two_doors_prompts("plan")[0], 0.0, 0)
        assert len(stub.requests) == 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_endpoint_that_is_down_is_one_error_after_the_retries():
    endpoint = _endpoint(f"http://127.0.0.1:{_closed_port()}/v1", retries=3)
    with pytest.raises(EndpointError, match="did not answer after 3 tries"):
        endpoint.rate(_two_doors_prompts("plan")[0], 0.0, 0)


class Scripted:
    """A backend for the run loop without HTTP: answers from a list, counting calls."""

    def __init__(self, texts):
        self.texts, self.calls = texts, 0

    def describe(self):
        return {"backend": "scripted"}

    def rate(self, prompt, temperature, seed):
        from elot.baseline.endpoint import Answer

        text = self.texts[self.calls % len(self.texts)]
        self.calls += 1
        return Answer(text, parse_rating(text), None, 10, 2)


def test_repeats_are_averaged_and_a_prompt_no_answer_rated_has_no_value(tmp_path):
    prompts = _two_doors_prompts("plan")[:2]
    backend = Scripted(['{"rating": 7}', '{"rating": 4}', "no idea", "5 or 6"])
    result = run_baseline(prompts, backend, tmp_path / "c.jsonl", label="m", repeats=2)
    first, second = result.rows
    assert (first["llm_rating"], first["L"], first["answers"]) == (5.5, 0.75, 2)
    assert second["L"] is None and second["answers"] == 0 and second["no_rating"] == 2
    assert second["error"] == "no rating: 1 ambiguous, 1 no number"
    assert result.manifest["no_rating"] == {"ambiguous": 1, "no number": 1}
    assert result.manifest["tokens"] == {"prompt": 40, "completion": 8}
    again = Scripted(["{}"])
    assert run_baseline(prompts, again, tmp_path / "c.jsonl", label="m", repeats=2).rows == result.rows
    assert again.calls == 0   # a rerun costs nothing


def test_a_line_torn_by_a_kill_is_dropped_and_the_cache_goes_on(tmp_path):
    prompts = _two_doors_prompts("plan")[:2]
    cache = tmp_path / "c.jsonl"
    run_baseline(prompts[:1], Scripted(['{"rating": 3}']), cache, label="m")
    with open(cache, "ab") as handle:
        handle.write(b'{"key": "abc", "answ')
    backend = Scripted(['{"rating": 5}'])
    rows = run_baseline(prompts, backend, cache, label="m").rows
    assert [r["llm_rating"] for r in rows] == [3.0, 5.0] and backend.calls == 1
    assert all(json.loads(line) for line in cache.read_text().splitlines())


def test_a_file_that_is_not_a_cache_is_refused_and_never_cut(tmp_path):
    for text in (b"my notes\nkeep me", b"no newline at the end"):
        path = tmp_path / "notes.txt"
        path.write_bytes(text)
        with pytest.raises(BaselineError, match="not an answer record"):
            with Journal(path):
                pass
        assert path.read_bytes() == text


def test_two_runs_cannot_write_one_cache(tmp_path):
    with Journal(tmp_path / "c.jsonl"):
        with pytest.raises(BaselineError, match="another run is writing"):
            with Journal(tmp_path / "c.jsonl"):
                pass


# -- the command line -------------------------------------------------------------------


def elot(*args, env=None, cwd=None, timeout=120):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ELOT_API", "ELOT_BASE"))}
    environment.update(env or {})
    return run_elot("baseline", *args, env=environment, cwd=cwd, timeout=timeout)


ARGS = ("two-doors", "-s", STATEMENT, "-s", "The player thinks box 1 is empty.", "--llm", "stub-model")


def test_cli_rates_through_the_endpoint_and_writes_table_manifest_and_cache(tmp_path):
    plays = ['{"rating": 6}', "rating: [75]", "Probably 5.", "5 or 6", '{"rating": 2}', "I'm sorry, I cannot.",
             '"rating": 3', "no"]
    with Stub(lambda b, n: completion(plays[n % len(plays)])) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(tmp_path / "out.csv"),
                   env={"OPENAI_API_KEY": "sk-secret-123"})
    assert run.returncode == 0, run.stderr
    assert "8 prompts, 8 answers (8 asked, 0 from the cache)" in run.stderr
    assert "4 rated, 4 without a rating (1 ambiguous, 1 no number, 1 out of scale, 1 refused)" in run.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out.csv").read_text())))
    assert len(rows) == 8 and {r["model"] for r in rows} == {"stub-model/plan"}
    assert sorted(float(r["llm_rating"]) for r in rows if r["L"]) == [2.0, 3.0, 5.0, 6.0]
    assert all(r["error"].startswith("no rating: ") for r in rows if not r["L"])
    manifest = json.loads((tmp_path / "out.csv.manifest.json").read_text())
    assert manifest["backend"]["endpoint"] == stub.url and manifest["tokens"] == {"prompt": 800, "completion": 56}
    assert set(stub.keys) == {"Bearer sk-secret-123"}
    for path in tmp_path.iterdir():   # the key is sent, never written
        assert b"sk-secret" not in path.read_bytes(), path


def test_cli_dry_run_asks_nothing_and_shows_every_prompt(tmp_path):
    run = elot(*ARGS, "--condition", "plan,narrative", "--dry-run", "--endpoint", f"http://127.0.0.1:{_closed_port()}/v1")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("### two-doors") == 16 and run.stdout.count("(narrative)") == 8
    assert f'Statement: "{STATEMENT}"' in run.stdout


def test_cli_a_wrong_key_is_exit_2_and_keeps_what_was_answered(tmp_path):
    def play(body, n):
        return completion('{"rating": 4}') if n < 3 else (401, {"error": {"message": "Incorrect API key"}})

    out = tmp_path / "out.csv"
    with Stub(play) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(out))
        port = stub.server.server_address[1]
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "refused the API key (HTTP 401): Incorrect API key" in run.stderr
    assert "every answer so far is kept in" in run.stderr
    assert len((tmp_path / "out.csv.cache.jsonl").read_text().splitlines()) == 3 and not out.exists()
    with Stub(lambda b, n: completion('{"rating": 5}'), port) as stub:   # the cache is per endpoint and model
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert len(stub.requests) == 5 and "5 asked, 3 from the cache" in run.stderr


def test_cli_an_endpoint_that_is_down_is_exit_2(tmp_path):
    run = elot(*ARGS, "--endpoint", f"http://127.0.0.1:{_closed_port()}/v1", "--retries", "2",
               "-o", str(tmp_path / "out.csv"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "did not answer after 2 tries" in run.stderr


def test_cli_a_model_that_never_answers_on_the_scale_is_exit_2_with_the_count(tmp_path):
    with Stub(lambda b, n: completion("The player is clever.")) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(tmp_path / "out.csv"))
    assert run.returncode == 2 and "0 rated, 8 without a rating (8 no number)" in run.stderr
    assert "no answer gave a rating, so nothing was written to" in run.stderr
    assert "'The player is clever.'" in run.stderr          # what the model said, from the cache
    assert not (tmp_path / "out.csv").exists()
    assert len((tmp_path / "out.csv.cache.jsonl").read_text().splitlines()) == 8


@pytest.mark.parametrize("answer", ["The player is clever.", '{"rating": 9}'])
def test_cli_a_failed_rerun_leaves_the_old_table_and_manifest_as_they_were(tmp_path, answer):
    out = tmp_path / "out.csv"
    with Stub(lambda b, n: completion('{"rating": 5}')) as stub:
        assert elot(*ARGS, "--endpoint", stub.url, "-o", str(out)).returncode == 0
    table, manifest = out.read_bytes(), (tmp_path / "out.csv.manifest.json").read_bytes()
    with Stub(lambda b, n: completion(answer)) as stub:    # another port: another endpoint, asked anew
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(out))
    assert run.returncode == 2 and "Traceback" not in run.stderr and len(stub.requests) == 8
    assert f"no answer gave a rating, so nothing was written to {out}" in run.stderr
    assert out.read_bytes() == table and (tmp_path / "out.csv.manifest.json").read_bytes() == manifest
    assert len((tmp_path / "out.csv.cache.jsonl").read_text().splitlines()) == 16   # nothing lost


def _users_file(path, text="my notes\nkeep me"):
    path.write_text(text)
    return path


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: _users_file(d / "out.csv"), ("-o", "out.csv"), "out.csv exists and does not look like a file elot wrote"),
    (lambda d: _users_file(d / "out.csv.manifest.json"), ("-o", "out.csv"),
     "out.csv.manifest.json exists and does not look like a file elot wrote"),
    (lambda d: (d / "c").mkdir(), ("-o", "out.csv", "--cache", "c"), "the answer cache c is a folder"),
    (lambda d: _users_file(d / "notes.txt"), ("-o", "out.csv", "--cache", "notes.txt"),
     "notes.txt:1: not an answer record"),
    (lambda d: _users_file(d / "notes.txt", "no newline at the end"), ("-o", "out.csv", "--cache", "notes.txt"),
     "its last line is not an answer record"),
    (lambda d: _users_file(d / "s.txt", "The player believes box 1 is empty.\n"),
     ("--statements", "s.txt", "-o", "out.csv", "--cache", "s.txt"), "the answer cache s.txt is an input"),
    (lambda d: None, ("-o", "out.csv", "--cache", "out.csv"), "is an output of this run"),
    (lambda d: None, ("-o", "notes.txt"), "a baseline table is written as .csv or .parquet, not .txt"),
    (lambda d: None, ("-o", "out.json"), "a baseline table is written as .csv or .parquet, not .json"),
])
def test_cli_every_path_the_run_writes_is_checked_before_anything_is_asked(tmp_path, setup, args, message):
    setup(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    with Stub(lambda b, n: completion('{"rating": 5}')) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, *args, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert message in run.stderr and stub.requests == []
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before   # nothing made or cut


def test_cli_a_parquet_table_is_parquet(tmp_path):
    pytest.importorskip("pyarrow.parquet")
    from elot.study.tables import read_table

    with Stub(lambda b, n: completion('{"rating": 5}')) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(tmp_path / "out.parquet"))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out.parquet").read_bytes()[:4] == b"PAR1"
    rows = read_table(tmp_path / "out.parquet")
    assert len(rows) == 8 and {r["llm_rating"] for r in rows} == {"5.0"} and {r["t"] for r in rows} == {"3", "4", "6", "11"}
    assert json.loads((tmp_path / "out.parquet.manifest.json").read_text())["rated"] == 8


@pytest.mark.parametrize("args, message", [
    (("--at", "-1"), "argument --at: a judgment point must be a whole number >= 0, not '-1'"),
    (("--at", "abc"), "not 'abc'"),
    (("--at", "2.5"), "not '2.5'"),
    (("--at", ""), "argument --at: give at least one judgment point"),
    (("--at", "4,7"), "--at: no statement is judged at t = 7\nhint: the judgment points here are t = 3, 4, 6, 11"),
    (("--condition", ""), "--condition names no prompt condition\nhint: use plan or narrative"),
    (("--condition", "plan,sideways"), "unknown prompt condition 'sideways'"),
    (("--maps", "1"), "--maps chooses maps of the in-vs-out statements, and there is no --in-vs-out"),
])
def test_cli_a_bad_option_value_is_one_clear_error(args, message):
    run = elot(*ARGS, *args, "--dry-run")
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert message in run.stderr


@pytest.mark.parametrize("maps, message", [
    ("99", "no in-vs-out statements are about map '99'"), ("abc", "map 'abc'"), ("0", "map '0'"),
    ("-1", "map '-1'"), ("1,99", "map '99'"), ("", "--maps names no map"),
])
def test_cli_in_vs_out_maps_must_exist(labtom, maps, message):
    run = elot("--in-vs-out", "--maps", maps, "--dry-run", "--labtom", str(labtom))
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert message in run.stderr
    if maps != "":
        assert "hint: the maps with in-vs-out statements are 1, 2, 3" in run.stderr


def test_cli_a_condition_given_twice_is_rated_once():
    run = elot(*ARGS, "--condition", "plan,plan", "--dry-run")
    assert run.returncode == 0 and run.stdout.count("### two-doors") == 8


@pytest.mark.parametrize("statement, message", [
    ("believes(player, ", "<statement 2>:1:9: syntax error: unbalanced parentheses"),
    ("inside(box1, key1)", "<statement 2>:1:1: type error: the arguments of inside are in the wrong order"),
    ("", "<statement 2>: translation error: empty sentence"),
    ("believes(player, inside(key1, box99))", "<statement 2>:1:31: type error: unknown object 'box99'"),
])
def test_cli_a_statement_elot_run_refuses_is_refused_before_anything_is_asked(tmp_path, statement, message):
    with Stub(lambda b, n: completion('{"rating": 5}')) as stub:
        run = elot("two-doors", "-s", STATEMENT, "-s", statement, "--llm", "stub-model", "--endpoint", stub.url,
                   "-o", str(tmp_path / "out.csv"))
    assert run.returncode == 2 and "Traceback" not in run.stderr and stub.requests == []
    assert message in run.stderr
    assert "1 of the 2 statements given cannot be rated; nothing was asked" in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_statements_file_errors_name_the_line(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text(f"# mine\ncurrent: {STATEMENT}\nsideways: {STATEMENT}\nbelieves(player, empty(box9))\n")
    run = elot("two-doors", "--statements", str(path), "--dry-run")
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert f"{path}:3:1: error: unknown mode 'sideways' before the statement" in run.stderr
    assert f"{path}:4:24: type error: unknown object 'box9'" in run.stderr
    assert "2 of the 3 statements given cannot be rated" in run.stderr
    run = elot("two-doors", "--statements", str(tmp_path / "none.txt"), "--dry-run")
    assert run.returncode == 2 and "error: statements file not found" in run.stderr
    assert "scenario error" not in run.stderr


@pytest.mark.parametrize("text, message", [
    ("scenario,mode,statement,rating\ntwo-doors,current\n", "shots.csv:2: error: the row has 2 fields, the header 4"),
    ('scenario,mode,statement,rating\ntwo-doors,current,"oops,3\n', "shots.csv:2: error: the row has 3 fields"),
    ('scenario,mode,statement,rating\ntwo-doors,current,"oops,3\ntwo-doors,current,x,3\n',
     "shots.csv:2: error: a field runs on from line 2 to line 3"),
    ("scenario,mode,statement,rating\ntwo-doors,sideways,x,3\n", "shots.csv:2: error: unknown mode 'sideways'"),
    ("scenario,mode,statement,rating\ntwo-doors,current,x,9\n", "shots.csv:2: error: rating 9 is outside 1 to 7"),
    ("scenario,mode,statement\n", "needs scenario, mode, statement, rating columns; it has no rating"),
    ("", "the few-shot ratings file has no ratings"),
    ("scenario,mode,statement,rating\n", "the few-shot ratings file has no ratings"),
    ("scenario,mode,statement,rating\nexp1/1_1,current,x,3\n", "no rating is about a scenario and mode rated here"),
])
def test_cli_a_few_shot_file_that_adds_nothing_or_is_broken_is_refused(tmp_path, text, message):
    (tmp_path / "shots.csv").write_text(text)
    run = elot(*ARGS, "--few-shot", "shots.csv", "--dry-run", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert message in run.stderr and "scenario error" not in run.stderr


def test_cli_few_shot_ratings_missing_for_some_prompts_are_a_warning(tmp_path):
    (tmp_path / "shots.csv").write_text("scenario,mode,statement,rating\ntwo-doors,current,The player has a key.,6\n")
    (tmp_path / "s.txt").write_text(f"current: {STATEMENT}\ninitial: {STATEMENT}\n")
    run = elot("two-doors", "--statements", "s.txt", "--few-shot", "shots.csv", "--dry-run", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "warning: shots.csv has no ratings for 1 scenario and mode (two-doors (initial))" in run.stderr
    run = elot(*ARGS, "--few-shot", "shots.csv", "--dry-run", cwd=tmp_path)
    assert run.returncode == 0 and "warning" not in run.stderr
    assert run.stdout.count('"The player has a key.": 6.0') == 8


def test_cli_a_template_error_is_the_baselines_not_a_scenario_error(tmp_path):
    (tmp_path / "t.txt").write_text("[system]\nYou rate.\n[assistant]\nOK\n[user]\n$scene\n$statement\n")
    run = elot(*ARGS, "--template", "t.txt", "--dry-run", cwd=tmp_path)
    assert run.returncode == 2 and "error: t.txt:3: unknown section [assistant]" in run.stderr
    run = elot(*ARGS, "--template", "none.txt", "--dry-run", cwd=tmp_path)
    assert run.returncode == 2 and "none.txt: error: prompt template file not found" in run.stderr


def _with_logprobs(text, digit):
    import math

    status, body = completion(text)
    body["choices"][0]["logprobs"] = {"content": [
        {"token": digit, "logprob": math.log(0.5), "top_logprobs": [{"token": digit, "logprob": math.log(0.5)},
                                                                    {"token": "2", "logprob": math.log(0.5)}]}]}
    return status, body


def test_cli_the_manifest_says_how_many_ratings_came_from_token_probabilities(tmp_path):
    """An endpoint may ignore --logprobs: the rating is then read from the text, and the
    manifest and the summary say how many were, not just that they were asked for."""
    with Stub(lambda b, n: _with_logprobs('{"rating": 6}', "6") if n < 3 else completion('{"rating": 6}')) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "--logprobs", "-o", str(tmp_path / "out.csv"))
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "out.csv.manifest.json").read_text())
    assert manifest["backend"]["logprobs"] is True and manifest["from_token_probabilities"] == 3
    assert "8 rated, 0 without a rating; 3 of 8 ratings from token probabilities" in run.stderr
    assert "warning: the endpoint gave no token probabilities for 5 of the 8 ratings" in run.stderr
    ratings = sorted(float(r["llm_rating"]) for r in csv.DictReader(open(tmp_path / "out.csv")))
    assert ratings == [4.0] * 3 + [6.0] * 5


def test_cli_the_local_model_hint_names_the_real_option(tmp_path):
    run = elot(*ARGS, "--language-model", str(tmp_path / "none.gguf"), "-o", str(tmp_path / "out.csv"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--local-model" not in run.stderr and "--language-model" in run.stderr
    assert not (tmp_path / "out.csv.cache.jsonl").exists()


def test_cli_a_killed_run_resumes_where_it_stopped(tmp_path):
    hang = threading.Event()

    def play(body, n):
        if n >= 5 and not hang.is_set():
            return (*completion('{"rating": 1}'), {}, 30)   # the run is killed while it waits
        return completion('{"rating": 6}')

    out, cache = tmp_path / "out.csv", tmp_path / "out.csv.cache.jsonl"
    with Stub(play) as stub:
        process = subprocess.Popen([*ELOT, "baseline", *ARGS, "--endpoint", stub.url, "-o", str(out)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.time() + 60
        while len(stub.requests) < 6 and time.time() < deadline:
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        hang.set()
        port = stub.server.server_address[1]
    assert len(cache.read_text().splitlines()) == 5 and not out.exists()
    with Stub(lambda b, n: completion('{"rating": 6}'), port) as stub:
        run = elot(*ARGS, "--endpoint", stub.url, "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert len(stub.requests) == 3 and "3 asked, 5 from the cache" in run.stderr
    assert [r["llm_rating"] for r in csv.DictReader(open(out))] == ["6.0"] * 8


def test_cli_a_statement_without_a_scenario_is_exit_2():
    run = elot("-s", STATEMENT, "--dry-run")
    assert run.returncode == 2 and "no scenarios to rate" in run.stderr and "Traceback" not in run.stderr


def test_cli_a_scenario_without_statements_is_exit_2(tmp_path):
    scn = tmp_path / "bare.scn"
    scn.write_text("name: bare\ngoal: gem1\ncolours: red\n\nmap:\n  g.h\n\nactions:\n  left |\n  left\n")
    run = elot(str(scn), "--dry-run")
    assert run.returncode == 2 and "the scenario has no statements to rate" in run.stderr


# -- the in-vs-out comparison from a table of ratings -----------------------------------------


def test_in_vs_out_from_a_table_of_ratings(labtom):
    path = labtom / "statements" / "exp1" / "exp1_current_in_vs_out.csv"
    rows = [r for r in csv.DictReader(open(path)) if r["map_id"] == "1"]
    table = []
    unrated = next(n for n, r in enumerate(rows) if r["match"].strip().upper() != "TRUE")
    for n, r in enumerate(rows):
        own = r["match"].strip().upper() == "TRUE"
        value = "" if n == unrated else repr(0.9 if own else 0.2)   # one prompt that no answer rated
        table.append({"model": "llm/plan", "scenario": f"exp1/{r['plan_id']}", "statement_id": r["statement_id"],
                      "mode": "current", "L": value})
    (row,) = in_vs_out_of_table(table, labtom, ("current",), maps={"1"})
    assert row.model == "llm/plan" and row.ill_typed == 1
    assert (row.in_context, row.out_of_context, row.accuracy) == (pytest.approx(0.9), pytest.approx(0.2), 1.0)
    with pytest.raises(Exception, match="no llm/plan row for statement"):
        in_vs_out_of_table(table[:-1], labtom, ("current",), maps={"1"})


# -- the built-in local model (skipped without llama-cpp-python and a small model) -----------


_LOCAL = r"""
import json, sys
from elot.baseline.local import LocalModel
from elot.baseline.items import scenario_items
from elot.baseline.prompts import load_template, render
from elot.study.references import ScenarioRef, given_items
items, scenarios = scenario_items([ScenarioRef("two-doors")], given_items(sys.argv[2:]))
template = load_template("plan")
prompts = [render(i, scenarios["two-doors"], "plan", template) for i in items]
warm = LocalModel(sys.argv[1], threads=1)
ratings = [warm.rate(p).parsed.rating for p in prompts]
cold = [LocalModel(sys.argv[1], threads=1).rate(p).parsed.rating for p in prompts[-2:]]
print(json.dumps({"ratings": ratings, "cold": cold, "evaluated": warm.evaluated,
                  "tokens": sum(warm.rate(p).prompt_tokens for p in prompts[:1])}))
"""


@pytest.mark.slow
def test_the_local_model_rates_by_token_probabilities_and_reuses_the_shared_prefix():
    path = small_language_model()
    # A separate process: a llama.cpp build that does not suit this CPU crashes hard.
    run = subprocess.run([sys.executable, "-c", _LOCAL, str(path), STATEMENT, "The player thinks box 1 is empty."],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    data = json.loads(run.stdout.splitlines()[-1])
    assert len(data["ratings"]) == 8 and all(1 <= r <= 7 for r in data["ratings"])
    assert data["cold"] == pytest.approx(data["ratings"][-2:], abs=1e-3)   # from the cache or not, the same
    assert data["evaluated"] < 8 * data["tokens"] * 0.6                    # the shared scene is evaluated once
