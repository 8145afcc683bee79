"""A headless Chromium takes the whole built survey as simulated participants, with real
clicks and slider drags, against `elot survey serve`: the animations animate, every
answer reaches the server, a server killed mid-study and restarted loses nothing, a
returning participant resumes, and `survey import` → `elot fit` recovers the β and
thresholds the participants answered from (the model's L at a setting hidden from the
fit, plus noise).

Debian's ``chromium`` driven by Playwright (``pip install playwright``; never
``playwright install``: nothing downloads a browser). In CI a missing browser fails these
tests; elsewhere they are skipped with the reason."""

from __future__ import annotations

import asyncio
import collections
import csv
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers import ELOT, NEUTRAL_CWD, run_elot

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey.build import DATABASE, build_survey, load_config
from elot.survey.design import Settings

# Long (a browser, whole surveys taken). The jsPsych npm cache the surveys are built from
# is shared safely (elot.survey.jspsych locks it); each worker builds its own fixtures.
pytestmark = [pytest.mark.slow]

CHROMIUM = os.environ.get("ELOT_CHROMIUM", "/usr/bin/chromium")
SCENARIOS = ("empty-box", "yellow-green")
HIDDEN = {"beta": 2.0, "believes": 0.85}     # what the participants answer from; the fit is not told
NOISE = 0.04


def _browser_or_skip():
    reason = None
    try:
        import playwright  # noqa: F401
    except ImportError:
        reason = "Playwright is not installed (pip install '.[test]')"
    if reason is None and not Path(CHROMIUM).is_file():
        reason = f"no browser at {CHROMIUM} (apt-get install chromium)"
    if reason is None and shutil.which("npm") is None:
        reason = "npm is not installed (it installs jsPsych)"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: in CI the browser tests must run (.ci/run installs what they need)")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    _browser_or_skip()
    base = tmp_path_factory.mktemp("browser")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=32)
    settings = Settings(condition="both", orders=4, statements_per_point=3, completion_url="")
    survey = build_survey(base / "set", base / "survey", settings, npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder
    done = run_elot("batch", *SCENARIOS, "--beta", str(HIDDEN["beta"]), "--thresholds",
                    f"believes={HIDDEN['believes']}", "-o", str(base / "hidden.csv"), timeout=600)
    assert done.returncode == 0, done.stderr
    L = {(r["scenario"], r["mode"], int(r["t"]), r["statement"]): float(r["L"])
         for r in csv.DictReader(open(base / "hidden.csv"))}
    return base, survey, L


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`elot survey serve` as a subprocess on a fixed port, so it can be killed and restarted."""

    def __init__(self, survey: Path, port: int, db: Path | None = None) -> None:
        self.survey, self.port, self.process = survey, port, None
        self.db = ["--db", str(db)] if db is not None else []

    def start(self) -> None:
        self.process = subprocess.Popen([*ELOT, "survey", "serve", str(self.survey), "--port", str(self.port),
                                         *self.db], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                        cwd=NEUTRAL_CWD)
        line = self.process.stderr.readline()
        assert line.startswith("serving "), line + self.process.stderr.read()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)     # no goodbye: as if the machine died
        self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


async def drag(page, slider, value: int) -> int:
    """Drag the slider's thumb to ``value`` with the mouse (then fix an off-by-one with the
    arrow keys, as a person would); returns the value it shows."""
    box = await slider.bounding_box()
    thumb = 8

    def x(v):
        return box["x"] + thumb + (v - 1) / 6 * (box["width"] - 2 * thumb)

    y = box["y"] + box["height"] / 2
    start = int(await slider.input_value())
    await page.mouse.move(x(start), y)
    await page.mouse.down()
    if value == start:          # a slider must be moved: away and back, as a person would
        await page.mouse.move(x(value + 1 if value < 7 else value - 1), y, steps=4)
    else:
        await page.mouse.move((x(start) + x(value)) / 2, y, steps=4)
    await page.mouse.move(x(value), y, steps=4)
    await page.mouse.up()
    for _ in range(6):
        now = int(await slider.input_value())
        if now == value:
            break
        await slider.press("ArrowRight" if now < value else "ArrowLeft")
    return int(await slider.input_value())


class Participant:
    def __init__(self, name, config, L, seed):
        self.name, self.config, self.L = name, config, L
        self.rng = random.Random(seed)
        self.judged = 0
        self.answers = {}
        self.frames_changed = None

    def rating(self, scenario, mode, t, text) -> int:
        value = self.L[(scenario["scenario"], mode, t, text)] + self.rng.gauss(0, NOISE)
        return max(1, min(7, round(1 + 6 * value)))

    async def take(self, page, *, until_judged=None, check_animation=False):
        """Answer screens until the end (or until ``until_judged`` judgments are done)."""
        for _ in range(200):
            await page.wait_for_timeout(100)
            body = await page.inner_text("body")
            if "answers are saved" in body:
                return True
            if until_judged is not None and self.judged >= until_judged:
                return False
            if await page.locator("form#jspsych-survey-html-form .elot-page").count():
                await self.judge(page, check_animation)
            elif await page.locator("input[type=radio]").count():
                for q in await page.locator(".jspsych-survey-multi-choice-question").all():
                    await q.locator("input[type=radio]").first.check()     # the right answers come first
                await page.locator("#jspsych-survey-multi-choice-next").click()
            elif await page.locator("button:has-text('I agree')").count():
                await page.locator("button:has-text('I agree')").click()
            elif await page.locator("button:enabled:not(.elot-replay)").count():
                await page.locator("button:enabled:not(.elot-replay)").first.click(timeout=30000)
        raise AssertionError(f"{self.name} did not finish")

    async def judge(self, page, check_animation):
        element = page.locator(".elot-page")
        name, t = await element.get_attribute("data-scenario"), int(await element.get_attribute("data-t"))
        scenario = next(s for s in self.config["scenarios"] if s["name"] == name)
        image = page.locator("#elot-stimulus")
        segment = next(s for s in scenario["segments"] if s["t"] == t)
        if check_animation and self.frames_changed is None and segment["frames"] >= 4:
            # The GIF plays once: on a loaded machine it may have ended before a first look,
            # so restart it (the same file under a new URL is a new image to the browser)
            # and watch it for a while; any two different frames show that it animates.
            # While the test has the server killed the restarted GIF cannot be fetched:
            # then a later segment is looked at.
            from playwright.async_api import Error as PlaywrightError

            try:
                await image.evaluate("img => { img.src = img.src.split('?')[0] + '?replay=' + Date.now(); "
                                     "return img.decode(); }")
            except PlaywrightError:
                pass
            else:
                first = await image.screenshot()
                self.frames_changed = False
                for _ in range(25):
                    await page.wait_for_timeout(100)
                    if await image.screenshot() != first:
                        self.frames_changed = True
                        break
        await page.locator(".elot-goals input").nth(scenario["goal"] - 1).check()
        statements = page.locator(".elot-statement")
        for n in range(await statements.count()):
            block = statements.nth(n)
            text = await block.locator("p").inner_text()
            slider = block.locator("input[type=range]")
            index = int((await slider.get_attribute("name")).split("_")[1])
            statement = scenario["statements"][index]
            assert statement.get("shown", statement["text"]) == text   # ELoT is shown in English
            wanted = self.rating(scenario, statement["mode"], t, statement["text"])
            self.answers[(name, t, index)] = await drag(page, slider, wanted)
        await page.locator("#jspsych-survey-html-form-next:enabled").click(timeout=30000)
        self.judged += 1


async def _run_study(url, config, L, server, shots=None):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        people = [Participant(f"P{n}", config, L, seed=n) for n in range(4)]
        contexts = [await browser.new_context(viewport={"width": 1280, "height": 800}) for _ in people]
        pages = [await c.new_page() for c in contexts]
        errors = []
        for page in pages:
            page.on("pageerror", lambda e: errors.append(str(e)))
        for n, page in enumerate(pages):
            await page.goto(f"{url}?PROLIFIC_PID=P{n}&STUDY_ID=S1&SESSION_ID=X{n}")

        restarted = asyncio.Event()

        async def first():
            # P0: its first judgments reach the server; then the server dies, P0 answers two
            # more while it is away, and it comes back
            await people[0].take(pages[0], until_judged=2, check_animation=True)
            server.kill()
            await people[0].take(pages[0], until_judged=4, check_animation=True)
            server.start()
            restarted.set()
            return await people[0].take(pages[0], check_animation=True)

        async def returning():
            # P1 closes the tab after three judgments and comes back to the same link
            await people[1].take(pages[1], until_judged=3)
            await restarted.wait()
            await pages[1].wait_for_timeout(1500)      # what it sent has arrived
            await pages[1].close()
            page = await contexts[1].new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(f"{url}?PROLIFIC_PID=P1&STUDY_ID=S1&SESSION_ID=X1")
            await page.wait_for_selector(".elot-page, .jspsych-content", timeout=30000)
            # the content is drawn once the server has said where the participant was: an
            # empty jsPsych frame came first once (its text read '')
            await page.wait_for_function("document.body.innerText.trim().length > 0", timeout=30000)
            people[1].resumed_at = await page.inner_text("body")
            return await people[1].take(page)

        done = await asyncio.gather(first(), returning(), people[2].take(pages[2]),
                                    people[3].take(pages[3], check_animation=True))
        await browser.close()
        assert all(done) and not errors, errors
        return people


def test_participants_take_the_survey_in_a_browser_and_fit_recovers_the_setting(study, tmp_path):
    base, survey, L = study
    config = load_config(survey)
    server = Server(survey, free_port())
    server.start()
    try:
        people = asyncio.run(_run_study(f"http://127.0.0.1:{server.port}/", config, L, server))
    finally:
        server.stop()
    # the GIF animates in the page (P3 looks too: P0 may meet its animated segments while the server is away)
    assert True in (people[0].frames_changed, people[3].frames_changed), [p.frames_changed for p in people]
    assert "I agree" not in people[1].resumed_at and "Scenario" in people[1].resumed_at   # resumed mid-study
    # every answer arrived, the ones sent while the server was dead included
    db = sqlite3.connect(survey / DATABASE)
    stored = {}
    for participant, data in db.execute("SELECT p.participant, t.data FROM trials t JOIN participants p "
                                        "ON p.id = t.participant_id"):
        data = json.loads(data)
        if data["elot_kind"] == "judgment":
            scenario = next(s for s in config["scenarios"] if s["name"] == data["elot_scenario"])
            for n, r in zip(data["elot_statements"], data["elot_ratings"]):
                stored[(participant, scenario["name"], data["elot_t"], n)] = r
    for person in people:
        assert person.answers, person.name
        for (name, t, n), value in person.answers.items():
            assert stored[(person.name, name, t, n)] == value
    assert db.execute("SELECT COUNT(*) FROM participants WHERE completed IS NOT NULL").fetchone()[0] == 4
    assert sorted(r[0] for r in db.execute("SELECT order_index FROM participants")) == [0, 1, 2, 3]
    # Prolific's URL parameters are kept with the participant and with every trial
    assert sorted(db.execute("SELECT prolific_pid, study_id, session_id FROM participants")) == \
        [(f"P{n}", "S1", f"X{n}") for n in range(4)]
    assert {json.loads(d)["session_id"] for (d,) in db.execute("SELECT data FROM trials")} == {f"X{n}" for n in range(4)}
    db.close()
    # import -> fit: the setting the participants answered from comes back
    done = run_elot("survey", "import", str(survey), "-o", str(tmp_path / "ratings.csv"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("4 participants: 4 kept, 0 excluded")
    done = run_elot("fit", str(tmp_path / "ratings.csv"), "--model", "full", "--samples", "50", "-o",
                    str(tmp_path / "fit.json"), timeout=600)
    assert done.returncode == 0, done.stderr
    fit = json.loads((tmp_path / "fit.json").read_text())
    assert fit["beta"] == HIDDEN["beta"] and fit["r"] > 0.9
    believes = fit.get("ties", {}).get("believes", [fit["thresholds"]["believes"]])
    assert any(abs(v - HIDDEN["believes"]) < 1e-9 for v in believes), believes


def test_statements_are_text_in_the_page_never_markup(study, tmp_path):
    base, _, _ = study
    odd = tmp_path / "set"
    shutil.copytree(base / "set", odd)
    entries = json.loads((odd / "stimuli.json").read_text())
    sneaky = '<img src=x onerror="window.pwned=1">Box 1 & "2" </p><script>window.pwned=2</script>'
    for entry in entries:       # whichever scenario the order shows first
        entry["statements"] = [sneaky] * len(entry["statements"])
        entry.pop("shown", None)    # the English elot wrote for the statements replaced
    (odd / "stimuli.json").write_text(json.dumps(entries))
    survey = build_survey(odd, tmp_path / "survey", Settings(require_watch=False, orders=1),
                          npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder
    server = Server(survey, free_port())
    server.start()
    try:
        asyncio.run(_check_escaped(f"http://127.0.0.1:{server.port}/", load_config(survey), sneaky))
    finally:
        server.stop()


async def _check_escaped(url, config, sneaky):  # noqa: ARG001
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = await browser.new_page()
        await page.goto(url)
        for _ in range(40):
            if await page.locator(".elot-statement").count():
                break
            if await page.locator("input[type=radio]").count():
                for q in await page.locator(".jspsych-survey-multi-choice-question").all():
                    await q.locator("input[type=radio]").first.check()
                await page.locator("#jspsych-survey-multi-choice-next").click()
            elif await page.locator("button:enabled:not(.elot-replay)").count():
                await page.locator("button:enabled:not(.elot-replay)").first.click()
            await page.wait_for_timeout(100)
        texts = await page.locator(".elot-statement p").all_inner_texts()
        assert texts and all(t == sneaky for t in texts)
        assert await page.locator(".elot-statement img, .elot-statement script").count() == 0
        assert await page.evaluate("window.pwned") is None
        await browser.close()


def test_an_exported_survey_on_a_static_host_gives_jspsych_exports_that_import_reads(study, tmp_path):
    """No server: jsPsych keeps the data; its own JSON and CSV (the last screen's
    downloads, what JATOS or Pavlovia give back) import to the same ratings."""
    import functools
    import http.server
    import threading

    base, survey, L = study
    config = load_config(survey)
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path / "site"))
    host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    try:
        person = asyncio.run(_static_participant(f"http://127.0.0.1:{host.server_address[1]}/", config, L, tmp_path))
    finally:
        host.shutdown()
        host.server_close()
    imported = {}
    for name in ("answers.json", "answers.csv"):
        done = run_elot("survey", "import", str(tmp_path / name), "--survey", str(survey), "-o",
                        str(tmp_path / f"{name}.ratings.csv"), "--min-goal-score", "0")
        assert done.returncode == 0, done.stderr
        imported[name] = list(csv.DictReader(open(tmp_path / f"{name}.ratings.csv")))
    assert imported["answers.json"] == imported["answers.csv"] and imported["answers.json"]
    scenarios = {s["scenario"]: s for s in config["scenarios"]}
    got = {(scenarios[r["scenario"]]["name"], int(r["t"]),
            [(st["text"], st["mode"]) for st in scenarios[r["scenario"]]["statements"]].index(
                (r["statement"], r["mode"]))): float(r["rating"])
           for r in imported["answers.json"]}
    assert got == {key: round((value - 1) / 6, 6) for key, value in person.answers.items()}


async def _static_participant(url, config, L, folder):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = await browser.new_context(accept_downloads=True)
        page = await context.new_page()
        await page.goto(f"{url}?PROLIFIC_PID=STATIC1")
        person = Participant("STATIC1", config, L, seed=9)
        assert await person.take(page)
        for kind in ("json", "csv"):
            async with page.expect_download() as info:
                await page.locator(f"button:has-text('({kind.upper()})')").click()
            await (await info.value).save_as(folder / f"answers.{kind}")
        await browser.close()
        return person


# -- the connection to the server: retries, messages, identities (issue 34) -------------


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    """A small survey for the connection tests (no model run)."""
    _browser_or_skip()
    base = tmp_path_factory.mktemp("light")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=16)
    settings = Settings(orders=2, require_watch=False, completion_url="")
    return build_survey(base / "set", base / "survey", settings, npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder


@pytest.fixture()
def light_server(light, tmp_path):
    """The small survey served, its answers in a database of this test's own."""
    db = tmp_path / "answers.sqlite"
    server = Server(light, free_port(), db)
    server.start()
    yield server, db
    server.stop()


async def _launch(p):
    return await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


@pytest.mark.slow
def test_a_participant_whose_start_fails_is_told_and_goes_on_when_the_server_answers(light_server):
    """The first starts get no answer, then a 503: the page says it is connecting, then
    that it cannot reach the server, and goes on (never silently offline) once it can."""
    server, db = light_server
    url = f"http://127.0.0.1:{server.port}/"

    async def run():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await _launch(p)
            page = await browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            calls = []

            async def flaky(route):
                calls.append(route.request.url)
                if len(calls) <= 5:
                    await route.abort("connectionrefused")     # the server is not up yet
                elif len(calls) == 6:
                    await route.fulfill(status=503, content_type="application/json",
                                        body='{"error": "cannot store answers: the disk is full"}')
                else:
                    await route.continue_()

            await page.route("**/api/start", flaky)
            await page.clock.install()          # the page's waits between tries run on a clock the test moves
            await page.goto(f"{url}?PROLIFIC_PID=RETRY1")
            notice = page.locator("#elot-network")
            await notice.wait_for(timeout=15000)
            assert "Connecting to the study server" in await notice.inner_text()
            seen = set()
            for _ in range(60):
                if await page.locator("button:has-text('I agree')").count():
                    break
                if await notice.count():
                    seen.add(await notice.inner_text())
                await page.clock.run_for(2000)
                await page.wait_for_timeout(50)
            await page.clock.resume()
            await page.locator("button:has-text('I agree')").wait_for(timeout=15000)
            assert await notice.count() == 0                     # the message goes once the server answers
            assert any("could not reach the study server" in text for text in seen), seen
            assert any("keep this page open" in text for text in seen)
            await page.locator("button:has-text('I agree')").click()
            token = await page.evaluate(f"localStorage.getItem('elot-survey-{load_config(server.survey)['id']}-token')")
            await page.wait_for_timeout(500)
            await browser.close()
            assert len(calls) == 7 and not errors, (calls, errors)
            return json.loads(token)

    token = asyncio.run(run())
    rows = sqlite3.connect(db).execute("SELECT p.participant, t.step FROM participants p JOIN trials t "
                                       "ON t.participant_id = p.id WHERE p.token = ?", (token,)).fetchall()
    assert rows == [("RETRY1", "consent")]      # the session is the server's, and the answer reached it


@pytest.mark.slow
def test_a_stolen_prolific_pid_does_not_get_the_first_participants_session(light_server):
    server, db = light_server
    url = f"http://127.0.0.1:{server.port}/?PROLIFIC_PID=SAME&STUDY_ID=S&SESSION_ID=X"
    key = f"elot-survey-{load_config(server.survey)['id']}-token"

    async def run():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await _launch(p)
            first, second = await browser.new_context(), await browser.new_context()
            a = await first.new_page()
            await a.goto(url)
            await a.locator("button:has-text('I agree')").click()
            await a.locator(".elot-text:has-text('You will watch a')").wait_for(timeout=15000)
            await a.wait_for_timeout(500)                    # its consent has reached the server
            b = await second.new_page()                      # another browser, the same PROLIFIC_PID
            await b.goto(url)
            await b.locator("button:has-text('I agree')").wait_for(timeout=15000)   # from the start
            tokens = [json.loads(await page.evaluate(f"localStorage.getItem('{key}')")) for page in (a, b)]
            await a.reload()                                 # the first participant is where they were
            await a.locator(".elot-text:has-text('You will watch a')").wait_for(timeout=15000)
            assert await a.locator("button:has-text('I agree')").count() == 0
            await browser.close()
            return tokens

    first, second = asyncio.run(run())
    assert first != second
    rows = sqlite3.connect(db).execute("SELECT token, participant, duplicate_of, id FROM participants "
                                       "ORDER BY id").fetchall()
    assert [(r[0], r[1]) for r in rows] == [(first, "SAME"), (second, rows[1][1])] and rows[1][1] != "SAME"
    assert rows[1][2] == rows[0][3] and rows[0][2] is None


@pytest.mark.slow
def test_an_answer_the_server_refuses_is_never_shown_as_saved(light_server):
    """F4: after a restart onto another database the server answers 403 (unknown session);
    the page showed "saved". Now a 403 is kept as not saved, and a 503 is sent again."""
    server, db = light_server
    url = f"http://127.0.0.1:{server.port}/?PROLIFIC_PID=REFUSED"

    async def run():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await _launch(p)
            page = await browser.new_page()
            answers = []

            async def refuse(route):
                answers.append(route.request.post_data_json["step"])
                if len(answers) <= 2:
                    await route.fulfill(status=503, content_type="application/json", body='{"error": "busy"}')
                else:
                    await route.fulfill(status=403, content_type="application/json",
                                        body='{"error": "unknown session token"}')

            await page.route("**/api/trial", refuse)
            await page.goto(url)
            await page.locator("button:has-text('I agree')").click()
            await page.locator("#elot-network:has-text('not saved yet')").wait_for(timeout=15000)
            for _ in range(100):
                if await page.evaluate("outbox.refused.length") > 0:
                    break
                await page.wait_for_timeout(100)
            state = await page.evaluate("({items: outbox.items.length, refused: outbox.refused.map((i) => i.status)})")
            await browser.close()
            return answers, state

    answers, state = asyncio.run(run())
    assert answers == ["consent"] * 3 and state == {"items": 0, "refused": [403]}


@pytest.mark.slow
def test_a_trial_the_server_fails_on_is_sent_a_few_times_then_kept_as_not_saved(light_server):
    """Issue 44, F7: a trial the server failed on (500) was sent again for ever. Now a 500
    is sent again for as long as the first waits last (5 tries), then kept in the browser
    as not saved, as a 4xx is at once."""
    server, db = light_server
    url = f"http://127.0.0.1:{server.port}/?PROLIFIC_PID=FAILS"

    async def run():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await _launch(p)
            page = await browser.new_page()
            answers = []

            async def fail(route):
                answers.append(route.request.post_data_json["step"])
                await route.fulfill(status=500, content_type="application/json",
                                    body='{"error": "the server failed; try again"}')

            await page.route("**/api/trial", fail)
            await page.clock.install()          # the waits between tries run on a clock the test moves
            await page.goto(url)
            await page.locator("button:has-text('I agree')").click()
            for _ in range(200):
                if await page.evaluate("outbox.refused.length") > 0:
                    break
                await page.clock.run_for(2000)
                await page.wait_for_timeout(20)
            await page.clock.run_for(120_000)    # two minutes more: nothing is sent again
            await page.wait_for_timeout(200)
            state = await page.evaluate("({items: outbox.items.length, refused: outbox.refused.map((i) => i.status)})")
            await browser.close()
            return answers, state

    answers, state = asyncio.run(run())
    assert answers == ["consent"] * 5 and state == {"items": 0, "refused": [500]}, (answers, state)


CONTACT = "https://example.org/help?study=maze&lang=en"


@pytest.fixture(scope="module")
def with_contact(light, tmp_path_factory):
    """The small survey built again with a contact for participants (a web address with
    ``&``: it must be escaped in the page and come back exact in the link)."""
    settings = Settings(orders=2, require_watch=False, completion_url="", contact=CONTACT)
    folder = tmp_path_factory.mktemp("contact") / "survey"
    return build_survey(light.parent / "set", folder, settings, npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder


@pytest.mark.slow
def test_the_contact_is_in_the_consent_the_could_not_reach_and_the_not_saved_messages(with_contact, tmp_path):
    """Issue 34: the page's "contact the researcher" messages read a contact that build
    could not set. With --contact the consent, the could-not-reach notice and the last
    screen's not-saved message each link to it, escaped."""
    server = Server(with_contact, free_port(), tmp_path / "answers.sqlite")
    server.start()
    config = load_config(with_contact)

    async def run():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await _launch(p)
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            errors, starts = [], []
            page.on("pageerror", lambda e: errors.append(str(e)))

            async def away(route):          # the server cannot be reached for the first seven tries
                starts.append(1)
                await (route.abort("connectionrefused") if len(starts) <= 7 else route.continue_())

            async def refused(route):       # every answer refused for good (an unknown session)
                await route.fulfill(status=403, content_type="application/json", body='{"error": "unknown session"}')

            await page.route("**/api/start", away)
            await page.route("**/api/trial", refused)
            await page.clock.install()
            await page.goto(f"http://127.0.0.1:{server.port}/?PROLIFIC_PID=C1")
            notice, unreachable = page.locator("#elot-network"), None
            for _ in range(60):
                if await page.locator("button:has-text('I agree')").count():
                    break
                if await notice.count() and "could not reach" in await notice.inner_text():
                    link = notice.locator("a")
                    unreachable = (await notice.inner_text(), await link.get_attribute("href"), await link.inner_text())
                await page.clock.run_for(2000)
                await page.wait_for_timeout(50)
            await page.clock.resume()
            consent = page.locator(".elot-text:has-text('Questions about the study')")
            await consent.wait_for(timeout=15000)
            consent_link = (await consent.locator("a").get_attribute("href"), await consent.locator("a").inner_text())
            person = Participant("C1", config, collections.defaultdict(lambda: 0.5), seed=1)
            for _ in range(400):
                if await page.locator(".elot-text:has-text('could not be saved')").count():
                    break
                await page.wait_for_timeout(100)
                if await page.locator("form#jspsych-survey-html-form .elot-page").count():
                    await person.judge(page, False)
                elif await page.locator("input[type=radio]").count():
                    for q in await page.locator(".jspsych-survey-multi-choice-question").all():
                        await q.locator("input[type=radio]").first.check()
                    await page.locator("#jspsych-survey-multi-choice-next").click()
                elif await page.locator("button:has-text('I agree')").count():
                    await page.locator("button:has-text('I agree')").click()
                elif await page.locator("button:enabled:not(.elot-replay)").count():
                    await page.locator("button:enabled:not(.elot-replay)").first.click(timeout=30000)
            last = page.locator(".elot-text:has-text('could not be saved')")
            not_saved = (await last.locator("a").get_attribute("href"), await last.locator("a").inner_text())
            await browser.close()
            assert not errors, errors
            return unreachable, consent_link, not_saved

    try:
        unreachable, consent_link, not_saved = asyncio.run(run())
    finally:
        server.stop()
    assert unreachable is not None and f"contact the researcher who invited you ({CONTACT})" in unreachable[0]
    assert unreachable[1:] == (CONTACT, CONTACT) and consent_link == (CONTACT, CONTACT) == not_saved
