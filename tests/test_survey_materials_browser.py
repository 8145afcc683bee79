"""What participants see of the study's materials, in a headless Chromium (issue #34): the
consent states the duration estimated from the study, the instructions show each gem's
icon (painted as the animations paint it) with its name, and a slider answer of 4 (where
every slider starts) is given by clicking its handle, as the page says.

The survey is served as static files (no answer server), so this test does not depend
on how `elot survey serve` is built. With ``ELOT_SCREENSHOTS=DIR`` it also saves the
instructions and a goal question at 1280×800 and at phone size (390×844) into DIR."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import os
import threading
from pathlib import Path

import pytest
from test_survey_browser import CHROMIUM, SCENARIOS, _browser_or_skip

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey.build import build_survey, load_config
from elot.survey.design import Settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    _browser_or_skip()
    base = tmp_path_factory.mktemp("materials")
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], base / "set", jobs=1, mp4=False, cell_px=32)
    settings = Settings(orders=2, statements_per_point=2, require_watch=False)
    return build_survey(base / "set", base / "survey", settings, npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(folder: Path):
    host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=host.serve_forever, daemon=True).start()
    return host


async def _next(page) -> None:
    await page.locator("button:enabled:not(.elot-replay)").first.click(timeout=30000)


async def _take(url: str, config: dict, viewport: dict, shots: Path | None, tag: str, folder: Path) -> dict:
    """One participant who answers 4 on every slider by clicking its handle where it
    starts; returns what the page saw and the ratings jsPsych recorded."""
    from playwright.async_api import async_playwright

    seen: dict = {"judged": 0}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = await browser.new_context(viewport=viewport, accept_downloads=True)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{url}?PROLIFIC_PID=M-{tag}")
        await page.wait_for_selector("button:has-text('I agree')")
        seen["consent"] = await page.inner_text("body")
        await page.locator("button:has-text('I agree')").click()
        await page.wait_for_selector("img.elot-inline")
        await page.evaluate("Promise.all(Array.from(document.images).map((i) => i.decode().catch(() => null)))")
        seen["world"] = await page.inner_text(".elot-text")
        seen["icons"] = await page.locator(".elot-text img.elot-inline").evaluate_all(
            "imgs => imgs.map((i) => [i.getAttribute('src'), i.naturalWidth])")
        if shots:
            await page.screenshot(path=str(shots / f"instructions-{tag}.png"), full_page=True)
        await _next(page)
        seen["task"] = await page.inner_text(".elot-text")
        await _next(page)
        for q in await page.locator(".jspsych-survey-multi-choice-question").all():
            await q.locator("input[type=radio]").first.check()      # the right answers come first
        await page.locator("#jspsych-survey-multi-choice-next").click()
        for _ in range(100):
            await page.wait_for_timeout(100)
            if "answers are saved" in await page.inner_text("body"):
                break
            if not await page.locator("form#jspsych-survey-html-form .elot-page").count():
                if await page.locator("button:enabled:not(.elot-replay)").count():
                    await _next(page)
                continue
            await page.locator(".elot-goals input").first.check()
            button = page.locator("#jspsych-survey-html-form-next")
            seen.setdefault("todo", await page.inner_text("#elot-todo"))
            seen.setdefault("disabled_before", await button.is_disabled())
            if shots and seen["judged"] == 0:
                await page.screenshot(path=str(shots / f"goal-question-{tag}.png"), full_page=True)
            for slider in await page.locator(".elot-statement input[type=range]").all():
                assert await slider.input_value() == "4"
                box = await slider.bounding_box()
                # the handle stands in the middle of the track at 4: a click on it, no drag
                await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                assert await slider.input_value() == "4"
            seen.setdefault("todo_after", await page.inner_text("#elot-todo"))
            await button.click(timeout=5000)       # enabled by the clicks alone
            seen["judged"] += 1
        async with page.expect_download() as info:
            await page.locator("button:has-text('(JSON)')").click()
        target = folder / f"answers-{tag}.json"
        await (await info.value).save_as(target)
        await browser.close()
        assert not errors, errors
    rows = json.loads(target.read_text())
    seen["ratings"] = [r for row in rows if row.get("elot_kind") == "judgment" for r in row["elot_ratings"]]
    seen["order"] = rows[-1]["order"]
    return seen


def test_consent_icons_and_a_slider_answer_of_four_by_clicking_its_handle(survey, tmp_path):
    """Issue #34 D1, D4, D8. Before: every icon was the same pink gem with its triangle
    down; the consent said 20 minutes whatever the study; a click on a slider's handle at
    4 did not count, so the answer button stayed off, and the page did not say how."""
    config = load_config(survey)
    shots = Path(os.environ["ELOT_SCREENSHOTS"]) if os.environ.get("ELOT_SCREENSHOTS") else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    host = _serve(survey)
    try:
        url = f"http://127.0.0.1:{host.server_address[1]}/"
        seen = asyncio.run(_take(url, config, {"width": 1280, "height": 800}, shots, "1280x800", tmp_path))
        if shots:
            asyncio.run(_take(url, config, {"width": 390, "height": 844}, shots, "390x844", tmp_path))
    finally:
        host.shutdown()
        host.server_close()
    minutes = config["duration_minutes"]
    assert f"It takes about {minutes} minute" in seen["consent"]
    order = config["orders"][seen["order"]]
    first = next(s for s in config["scenarios"] if s["name"] == order["trials"][0]["scenario"])
    assert [src for src, _ in seen["icons"]] == config["gem_icons"][: first["gems"]]
    assert all(width > 0 for _, width in seen["icons"])               # loaded
    assert all(f"gem {g}" in seen["world"] for g in range(1, first["gems"] + 1))
    assert "click (tap) its handle" in seen["task"]
    assert seen["disabled_before"] and "click (tap) its handle to answer 4" in seen["todo"]
    assert seen["todo_after"] == ""
    asked = sum(len(t["statements"]) * sum(s["judged"] for s in next(
        x for x in config["scenarios"] if x["name"] == t["scenario"])["segments"])
        for t in order["trials"])
    assert seen["ratings"] == [4] * asked and asked > 0
