"""The page's JATOS and Prolific paths in a real Chromium: the survey exported as a JATOS
study archive runs against a small stand-in for ``jatos.js`` (written here: the calls the
page makes, recorded by a local server that keeps the batch session with JATOS's
versioning), three participants arrive at once, each trial reaches "JATOS" as it ends (so
the one who quits leaves what they answered), orders are balanced by arrival, and Prolific
gets the completion or the screen-out code. `survey import` then reads what the stand-in
recorded, laid out as JATOS's results archive.

Debian's ``chromium`` driven by Playwright, as in tests/test_survey_browser.py."""

from __future__ import annotations

import asyncio
import collections
import csv
import http.server
import json
import threading
import time
import zipfile
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import run_elot
from test_survey_browser import CHROMIUM, Participant, _browser_or_skip

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey.build import PROLIFIC_RETURN, load_config

pytestmark = pytest.mark.slow

SCENARIOS = ("empty-box", "yellow-green")
COMPLETION, SCREENOUT = "D0NE42", "0UT42"

#: The stand-in for JATOS's jatos.js: what the page calls, sent to the test's server.
JATOS_JS = r"""
(function () {
  const query = new URLSearchParams(window.location.search);
  const run = query.get("run");
  const params = {};
  query.forEach((value, key) => { if (key !== "run") params[key] = value; });
  const post = (path, body) => fetch(path + "?run=" + run, {method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body)});
  let batch = {}, version = 0;
  window.jatos = {
    studyResultId: Number(run), urlQueryParameters: params, studySessionData: {}, batchSessionVersioning: true,
    onLoad(callback) {      // the study session as JATOS keeps it for the run: what it was last set to
      fetch("/jatos/batch-state?run=" + run).then((r) => r.json())
        .then((s) => { batch = s.session; version = s.version; jatos.studySessionData = s.study;
                       window.setTimeout(callback, 0); });
    },
    batchSession: {
      get(key) { return batch[key]; },
      async set(key, value) {
        const reply = await post("/jatos/batch", {version: version, key: key, value: value});
        const state = await reply.json();
        batch = state.session; version = state.version;      // as the batch channel would tell
        if (!reply.ok) throw new Error("the batch session changed since it was read");
      },
    },
    setStudySessionData(data) { return post("/jatos/study-session", data); },
    async appendResultData(text) {
      const reply = await post("/jatos/append", text);
      if (!reply.ok) throw new Error("not stored");
    },
    submitResultData() { throw new Error("the page must append, never replace its data"); },
    endStudy(successful, message) {
      post("/jatos/end", typeof successful === "boolean" ? {successful: successful, message: message} : {});
    },
    endStudyAjax(successful, message) {
      return post("/jatos/end", {successful: successful, message: message, ajax: true});
    },
    endStudyAndRedirect(url) { post("/jatos/end", {redirect: url}).then(() => window.location.assign(url)); },
  };
})();
"""


class StandIn(http.server.SimpleHTTPRequestHandler):
    """The study's assets, and what jatos.js would send to JATOS."""

    state: dict

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/jatos/batch-state":
            try:
                self.state["arrivals"].wait()     # every participant reads the batch session before any writes
            except threading.BrokenBarrierError:
                pass
            with self.state["lock"]:
                run = parse_qs(url.query)["run"][0]
                return self._json(200, {"session": self.state["batch"], "version": self.state["version"],
                                        "study": self.state["study"].get(run, {})})
        return super().do_GET()

    def do_POST(self):
        url = urlsplit(self.path)
        run = parse_qs(url.query)["run"][0]
        body = self.rfile.read(int(self.headers["Content-Length"] or 0)).decode()
        state = self.state
        with state["lock"]:
            if url.path == "/jatos/batch":
                change = json.loads(body)
                if change["version"] != state["version"]:
                    state["conflicts"] += 1
                    return self._json(409, {"session": state["batch"], "version": state["version"]})
                state["batch"] = {**state["batch"], change["key"]: change["value"]}
                state["version"] += 1
                return self._json(200, {"session": state["batch"], "version": state["version"]})
            if url.path == "/jatos/append":
                state["results"][run] += body
            elif url.path == "/jatos/end":
                state["ended"][run] = json.loads(body)
            elif url.path == "/jatos/study-session":
                state["study"][run] = json.loads(body)
            else:
                return self._json(404, {})
        return self._json(200, {})

    def _json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    _browser_or_skip()
    base = tmp_path_factory.mktemp("jatos")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=16)
    done = run_elot("survey", "build", str(base / "set"), "-o", str(base / "survey"), "--orders", "3",
                    "--prolific-completion", COMPLETION, "--prolific-screenout", SCREENOUT, timeout=600)
    assert done.returncode == 0, done.stderr
    settings = json.loads((base / "survey" / "survey.json").read_text())["settings"]
    assert settings["require_watch"] in (True, False)
    done = run_elot("survey", "export", str(base / "survey"), "--jatos", "-o", str(base / "study.jzip"))
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(base / "study.jzip") as archive:      # as JATOS unpacks it into study_assets_root
        archive.extractall(base / "assets")
    (folder,) = [p for p in (base / "assets").iterdir() if p.is_dir()]
    (folder / "jatos.js").write_text(JATOS_JS)
    return base, folder


async def _participant(page, person, *, wrong_checks=False, quit_after=None, pause_after=None):
    """Answer screens until Prolific takes the participant back (or until ``quit_after``
    judgments: then the tab is closed; or until ``pause_after``: then the page is left as it is).
    Bounded by time, not by polls: on a loaded machine (CI's two cores, a parallel suite) a
    screen's animation may keep its button disabled for many polls."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        await page.wait_for_timeout(100)
        if page.url.startswith(PROLIFIC_RETURN):
            return page.url
        if quit_after is not None and person.judged >= quit_after:
            await page.wait_for_timeout(500)
            await page.close()
            return None
        if pause_after is not None and person.judged >= pause_after:
            return None
        if await page.locator("form#jspsych-survey-html-form .elot-page").count():
            await person.judge(page, False)
        elif await page.locator("input[type=radio]").count():
            for q in await page.locator(".jspsych-survey-multi-choice-question").all():
                await q.locator("input[type=radio]").nth(-1 if wrong_checks else 0).check()
            await page.locator("#jspsych-survey-multi-choice-next").click()
        elif await page.locator("button:has-text('I agree')").count():
            await page.locator("button:has-text('I agree')").click()
        elif await page.locator("button:enabled:not(.elot-replay)").count():
            await page.locator("button:enabled:not(.elot-replay)").first.click(timeout=30000)
    raise AssertionError(f"{person.name} did not finish")


async def _three_participants(url, config):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        L = collections.defaultdict(lambda: 0.6)
        people = [Participant(name, config, L, seed=n) for n, name in enumerate(("careful", "quitter", "confused"))]
        pages, errors = [], []
        for n, person in enumerate(people):
            page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.route(PROLIFIC_RETURN.split("/submissions")[0] + "/**",
                             lambda route: route.fulfill(status=200, body="back at Prolific"))
            await page.goto(f"{url}index.html?run={21 + n}&PROLIFIC_PID={person.name}&STUDY_ID=S&SESSION_ID=X{n}")
            pages.append(page)
        ends = await asyncio.gather(_participant(pages[0], people[0]),
                                    _participant(pages[1], people[1], quit_after=2),
                                    _participant(pages[2], people[2], wrong_checks=True))
        await browser.close()
        assert not errors, errors
        return people, ends


def _stand_in(folder, *, arrivals: int):
    """The stand-in JATOS serving the study's assets from ``folder`` on a free port, in a
    thread; its onLoad waits until ``arrivals`` participants have arrived."""
    state = {"lock": threading.Lock(), "batch": {}, "version": 0, "conflicts": 0, "study": {},
             "results": collections.defaultdict(str), "ended": {},
             "arrivals": threading.Barrier(arrivals, timeout=120)}
    handler = type("Handler", (StandIn,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state, server


def test_the_page_runs_in_jatos_and_import_reads_what_jatos_kept(study, tmp_path):
    base, folder = study
    config = load_config(base / "survey")
    state, server = _stand_in(folder, arrivals=3)
    try:
        people, ends = asyncio.run(_three_participants(f"http://127.0.0.1:{server.server_address[1]}/", config))
    finally:
        server.shutdown()
        server.server_close()
    # Prolific: the completion code for who finished, the screen-out code for who failed both checks
    assert ends[0] == PROLIFIC_RETURN + COMPLETION and ends[2] == PROLIFIC_RETURN + SCREENOUT
    assert state["ended"]["21"] == {"redirect": ends[0]} and state["ended"]["23"] == {"redirect": ends[2]}
    assert "22" not in state["ended"]
    # orders balanced by arrival through the batch session: all three read it at once, so
    # two writes were refused and retried, and each took another order
    assert state["conflicts"] >= 2
    assert state["batch"][f"elot-orders-{config['id']}"] == [1, 1, 1]
    trials = {run: [json.loads(line) for line in text.splitlines()] for run, text in state["results"].items()}
    assert sorted({t["order"] for t in trials[run]}.pop() for run in ("21", "22", "23")) == [0, 1, 2]
    # the quitter's answers arrived as they went; the screened-out saw no scenario
    assert sum(t["elot_kind"] == "judgment" for t in trials["22"]) == 2
    assert not [t for t in trials["23"] if t["elot_kind"] in ("judgment", "watch")]
    assert [t["elot_passed"] for t in trials["23"] if t["elot_kind"] == "comprehension"] == [False, False]
    # import reads JATOS's results archive made of what the stand-in kept
    with zipfile.ZipFile(tmp_path / "results.jrzip", "w") as archive:
        archive.writestr("metadata.json", "{}")
        for run, text in state["results"].items():
            archive.writestr(f"study_result_{run}/comp-result_{int(run) + 1000}/data.txt", text)
    done = run_elot("survey", "import", str(tmp_path / "results.jrzip"), "--survey", str(base / "survey"), "-o",
                    str(tmp_path / "ratings.csv"), "--min-goal-score", "0")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "3 participants: 1 kept, 2 excluded"
    excluded = sorted(lines[1:3])
    assert excluded[0].startswith("  excluded confused: ") and "failed the comprehension check (2 attempts)" in \
        excluded[0]
    assert excluded[1].startswith("  excluded quitter: incomplete (2 of ")
    scenarios = {s["scenario"]: s for s in config["scenarios"]}
    got = {}
    for r in csv.DictReader(open(tmp_path / "ratings.csv")):
        assert r["participant"] == "careful"
        scenario = scenarios[r["scenario"]]
        index = [(st["text"], st["mode"]) for st in scenario["statements"]].index((r["statement"], r["mode"]))
        got[(scenario["name"], int(r["t"]), index)] = float(r["rating"])
    careful = {key: round((v - 1) / 6, 6) for key, v in people[0].answers.items()
               if not next(t for t in config["orders"][trials["21"][0]["order"]]["trials"]
                           if t["scenario"] == key[0])["control"]}
    assert got == careful and got
    raw = list(csv.DictReader(open(tmp_path / "ratings-raw.csv")))
    assert {(r["participant"], r["session"]) for r in raw} == {("careful", "21"), ("quitter", "22")}
    assert all(r["rt_ms"].isdigit() and r["trial"].isdigit() for r in raw)
    assert {r["incomplete"] for r in raw if r["participant"] == "quitter"} == {"1"}


def test_outside_jatos_a_participant_who_fails_both_checks_goes_back_with_the_screen_out_code(study, tmp_path):
    """The same survey on a static host: no jatos.js, and Prolific's screen-out redirect
    straight after the second failed check (no scenario shown)."""
    import functools

    base, _ = study
    config = load_config(base / "survey")
    done = run_elot("survey", "export", str(base / "survey"), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Quiet, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def confused(url):
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = await browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.route(PROLIFIC_RETURN.split("/submissions")[0] + "/**",
                             lambda route: route.fulfill(status=200, body="back at Prolific"))
            await page.goto(f"{url}index.html?PROLIFIC_PID=C1")
            person = Participant("C1", config, collections.defaultdict(lambda: 0.5), seed=3)
            end = await _participant(page, person, wrong_checks=True)
            await browser.close()
            assert not errors, errors
            return end, person.judged

    try:
        end, judged = asyncio.run(confused(f"http://127.0.0.1:{server.server_address[1]}/"))
    finally:
        server.shutdown()
        server.server_close()
    assert end == PROLIFIC_RETURN + SCREENOUT and judged == 0


async def _one_participant(url, act):
    """A Chromium page at ``url`` (Prolific's return address answered locally), given to
    ``act(page)``; fails on any error in the page."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.route(PROLIFIC_RETURN.split("/submissions")[0] + "/**",
                         lambda route: route.fulfill(status=200, body="back at Prolific"))
        await page.goto(url)
        try:
            return await act(page)
        finally:
            await browser.close()
            assert not errors, errors


def test_a_participant_who_declines_in_jatos_ends_the_run_unsuccessfully_and_is_asked_to_return(study):
    """Issue 34: declining left the JATOS run open (no end call). Now the run ends,
    unsuccessful, with the message "declined consent", once JATOS has the consent trial;
    the participant stays on the page, which asks them to return the submission on
    Prolific (no code: they did not take part)."""
    _, folder = study
    state, server = _stand_in(folder, arrivals=1)

    async def decline(page):
        await page.locator("button:has-text('I do not agree')").click()
        for _ in range(100):
            if "31" in state["ended"]:
                break
            await page.wait_for_timeout(100)
        return page.url, await page.inner_text("body")

    try:
        url, text = asyncio.run(_one_participant(
            f"http://127.0.0.1:{server.server_address[1]}/index.html?run=31&PROLIFIC_PID=NO1&STUDY_ID=S", decline))
    finally:
        server.shutdown()
        server.server_close()
    assert state["ended"]["31"] == {"successful": False, "message": "declined consent", "ajax": True}
    assert not url.startswith(PROLIFIC_RETURN) and "return your submission" in text
    (consent,) = [json.loads(line) for line in state["results"]["31"].splitlines()]
    assert consent["elot_step"] == "consent" and consent["elot_agreed"] is False


def test_a_reload_in_jatos_resumes_at_the_screen_left_and_asks_nothing_twice(study, tmp_path):
    """Issue 34: a reload inside JATOS started again at the consent screen and asked every
    judgment again. The steps JATOS has are kept in its study session: the reloaded page
    goes on at the first screen not answered, in the same order, and the run's result data
    hold each screen once."""
    base, folder = study
    config = load_config(base / "survey")
    state, server = _stand_in(folder, arrivals=1)
    person = Participant("RELOAD1", config, collections.defaultdict(lambda: 0.5), seed=4)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html?run=41&PROLIFIC_PID=RELOAD1&STUDY_ID=S"

    async def reload_midway(page):
        await _participant(page, person, pause_after=1)
        for _ in range(50):               # the judgment has reached "JATOS" and is marked done
            done = state["study"].get("41", {}).get("elot_done", {})
            if any(step.startswith("s") for step in done):
                break
            await page.wait_for_timeout(100)
        sent = [json.loads(line)["elot_step"] for line in state["results"]["41"].splitlines()]
        await page.reload()
        await page.locator(".elot-page, .elot-stimulus").first.wait_for(timeout=30000)
        first = await page.inner_text("body")
        return sent, first, await _participant(page, person)

    try:
        sent, first, end = asyncio.run(_one_participant(url, reload_midway))
    finally:
        server.shutdown()
        server.server_close()
    assert end == PROLIFIC_RETURN + COMPLETION
    assert "I agree" not in first and "Scenario 1 of" in first      # the scenario the participant left
    trials = [json.loads(line) for line in state["results"]["41"].splitlines()]
    steps = [t["elot_step"] for t in trials]
    assert steps[:len(sent)] == sent and len(steps) == len(set(steps)), steps     # nothing asked twice
    assert steps.count("consent") == 1 and "check-2" not in steps
    order = config["orders"][trials[0]["order"]]
    assert {t["order"] for t in trials} == {trials[0]["order"]}
    segments = sum(len(next(s for s in config["scenarios"] if s["name"] == t["scenario"])["segments"])
                   for t in order["trials"])
    assert sum(t["elot_kind"] in ("judgment", "watch") for t in trials) == segments
    # import reads the reloaded run as one complete session
    with zipfile.ZipFile(tmp_path / "results.jrzip", "w") as archive:
        archive.writestr("study_result_41/comp-result_1041/data.txt", state["results"]["41"])
    done = run_elot("survey", "import", str(tmp_path / "results.jrzip"), "--survey", str(base / "survey"), "-o",
                    str(tmp_path / "ratings.csv"), "--min-goal-score", "0")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "1 participant: 1 kept, 0 excluded"
