"""``elot stimuli`` on food trucks and the survey built from the set: the frames (spot 2
hidden until seen, the unseen part shaded by line of sight), the GIFs per segment,
stimuli.json in the survey's schema, and ``elot survey build`` on it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import HEIGHT, WIDTH, FoodTruckMap, visibility
from elot.domains.foodtrucks.draw import TRUCK_COLOURS, TruckRenderer, seen_spot2, steps, view_from
from elot.study import stimuli
from helpers import run_elot

# map 1, Lebanese at spot 2: from (7, 1) east, up the right gap, eat at spot 2
LOOK = "scenario look\nmap 1\nspot2 lebanese\nstart 7 1\nmoves E E E E E E E N N N eat\n"
# map 1, spot 2 empty: straight to the Korean truck
STRAIGHT = "scenario straight\nmap 1\nspot2 empty\nstart 1 1\nmoves W S eat\n"
CELL = 20


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("trucks")
    source = root / "two.trucks"
    source.write_text(LOOK + "\n" + STRAIGHT, encoding="utf-8")
    out = root / "set"
    done = run_elot("stimuli", str(source), "-o", str(out), "--cell", str(CELL))
    assert done.returncode == 0, done.stderr
    return out


def frames_of(path):
    with Image.open(path) as image:
        out = []
        for n in range(image.n_frames):
            image.seek(n)
            out.append(np.asarray(image.convert("RGB")))
        return out


def test_stimuli_json_matches_the_schema_and_says_the_domain(made):
    data = json.loads((made / "stimuli.json").read_text())
    assert stimuli.check_stimuli(data, made) == []
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, stimuli.SCHEMA)
    look, straight = data
    assert look["name"] == "look" and look["domain"] == "foodtrucks"
    assert look["times"] == [1, 12] and look["length"] == 1         # 10 moves and eating, judged at the end
    assert look["goal"] == 2 and straight["goal"] == 1              # ate at L, at K
    assert look["modes"] == ["initial"] * 3 and len(look["shown"]) == 3
    assert look["moves"] == "E E E E E E E N N N eat" and look["spot2"] == "lebanese"


def test_one_gif_per_segment_with_one_frame_per_step(made):
    assert len(frames_of(made / "look_0.gif")) == 1
    assert len(frames_of(made / "look_1.gif")) == 11
    assert len(frames_of(made / "straight_1.gif")) == 3


def _cell_pixels(frame, cell, x, y):
    """The pixels of map cell (x, y) in a frame of CELL pixels a cell (half a cell margin)."""
    left = CELL // 2 + x * CELL
    top = CELL // 2 + (HEIGHT - 1 - y) * CELL
    return frame[top + 2:top + CELL - 2, left + 2:left + CELL - 2].reshape(-1, 3).astype(int)


def _has(pixels, colour, tolerance=30):
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return bool((np.abs(pixels - target).max(axis=1) < tolerance).any())


def test_spot2_shows_its_truck_only_once_seen(made):
    start = frames_of(made / "look_0.gif")[0]
    path = frames_of(made / "look_1.gif")
    lebanese = TRUCK_COLOURS["lebanese"]
    assert not _has(_cell_pixels(start, CELL, 14, 4), lebanese)
    assert _has(_cell_pixels(path[-1], CELL, 14, 4), lebanese)
    assert _has(_cell_pixels(start, CELL, 0, 0), TRUCK_COLOURS["korean"])     # spot 1: always in view


def test_the_part_the_student_cannot_see_is_shaded(made):
    start = frames_of(made / "look_0.gif")[0]
    end = frames_of(made / "look_1.gif")[-1]
    behind = _cell_pixels(start, CELL, 7, 4).mean()      # behind the building, seen from (7, 1)
    open_floor = _cell_pixels(start, CELL, 4, 0).mean()  # in plain view
    assert behind < open_floor - 40
    assert _cell_pixels(end, CELL, 7, 4).mean() > behind + 40    # from spot 2 that cell is in view


def test_view_from_a_cell_agrees_with_the_domains_line_of_sight():
    for number in (1, 2, 3):
        world = FoodTruckMap(number)
        table = visibility(number)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                if world.is_open(x, y):
                    view = view_from(number, (x, y))
                    assert view[4, 14] == pytest.approx(table[y, x])      # spot 2 from (x, y)
                    assert view[y, x] == 1.0                              # its own cell


def test_spot2_is_seen_only_from_where_it_is_mostly_visible():
    corner = FoodTruckScenario(1, 2, 0, ((12, 0), (13, 0)), False)        # a sixth of spot 2 shows at (13, 0)
    assert visibility(2)[0, 13] == pytest.approx(1 / 6)
    assert not seen_spot2(corner, 1)
    up = FoodTruckScenario(1, 2, 0, ((14, 1), (14, 2)), False)
    assert seen_spot2(up, 1)


def test_a_frame_is_legible_at_the_default_size():
    scenario = FoodTruckScenario(1, 1, 0, ((7, 1), (8, 1)), False)
    renderer = TruckRenderer(scenario, cell_px=50)
    try:
        assert renderer.size == (800, 350)
        assert steps(scenario) == 1
        first, second = renderer.frame(0), renderer.frame(1)
        assert first.shape == (350, 800, 3) and np.abs(first.astype(int) - second).mean() > 0.1
    finally:
        renderer.close()


def test_a_scenario_without_moves_is_refused_and_nothing_written(tmp_path):
    source = tmp_path / "still.trucks"
    source.write_text("scenario still\nmap 1\nspot2 empty\nstart 7 1\nmoves\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"))
    assert done.returncode == 2 and "has no moves" in done.stderr and "hint:" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "set").exists()


def test_food_trucks_and_doors_keys_gems_do_not_mix(tmp_path):
    source = tmp_path / "a.trucks"
    source.write_text(STRAIGHT, encoding="utf-8")
    done = run_elot("stimuli", str(source), "two-doors", "-o", str(tmp_path / "set"))
    assert done.returncode == 2 and "the scenarios are of several domains" in done.stderr


def test_given_statements_must_be_well_typed_for_food_trucks(tmp_path):
    source = tmp_path / "a.trucks"
    source.write_text(STRAIGHT, encoding="utf-8")
    said = tmp_path / "said.txt"
    said.write_text("initial: believes(student, formula(at(korean, spot2)))\n"
                    "initial: believes(student, formula(at(gem1, spot2)))\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"), "--statements", str(said))
    assert done.returncode == 2 and "gem1" in done.stderr and "Traceback" not in done.stderr
    said.write_text("initial: believes(student, formula(at(korean, spot2)))\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"), "--statements", str(said))
    assert done.returncode == 0, done.stderr
    [entry] = json.loads((tmp_path / "set" / "stimuli.json").read_text())
    assert entry["statements"] == ["believes(student, formula(at(korean, spot2)))"]


def test_survey_build_takes_the_set_end_to_end(made, tmp_path):
    done = run_elot("survey", "build", str(made), "-o", str(tmp_path / "survey"), "--cdn")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "survey" / "survey.json").read_text())
    assert config["domain"] == "foodtrucks" and config["gem_icons"] == []
    look = config["scenarios"][0]
    assert look["gems"] == 0 and look["goal"] == 2
    assert [s["judged"] for s in look["segments"]] == [False, True]
    assert look["segments"][1]["t"] == 11 and look["segments"][1]["frames"] == 11
    assert look["statements"][0]["shown"].startswith("At first, the student thought the Lebanese truck")
    assert {o["condition"] for o in config["orders"]} == {"initial"}     # what the statements ask
    script = (tmp_path / "survey" / "experiment.js").read_text()
    assert config["texts"] == "campus" and "CAMPUS_TEXT" in script and '"domain": "foodtrucks"' in script


def test_answers_to_a_food_truck_survey_import_without_goal_scores(made, tmp_path):
    """No goal question is asked, so nobody is excluded for a goal score and the goal
    table is empty; the ratings are what fit reads."""
    import csv

    from test_survey_import import session, to_csv

    done = run_elot("survey", "build", str(made), "-o", str(tmp_path / "survey"), "--cdn")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "survey" / "survey.json").read_text())
    trials = session(config, 0, "A", rating=7)
    for trial in trials:
        if trial["elot_kind"] == "judgment":
            trial["elot_goals"] = []         # the page has no goal boxes
    (tmp_path / "a.csv").write_text(to_csv(trials), encoding="utf-8")
    done = run_elot("survey", "import", str(tmp_path / "a.csv"), "--survey", str(tmp_path / "survey"),
                    "-o", str(tmp_path / "r.csv"))
    assert done.returncode == 0, done.stderr
    assert "1 kept, 0 excluded" in done.stderr
    with open(tmp_path / "r.csv", newline="") as handle:
        ratings = list(csv.DictReader(handle))
    assert ratings and {r["mode"] for r in ratings} == {"initial"} and {r["rating"] for r in ratings} == {"1"}
    # keyed as a batch table names the scenarios (FILE:NAME), so fit meets them
    assert {r["scenario"].rsplit(":", 1)[1] for r in ratings} == {"look", "straight"}
    with open(tmp_path / "r-goals.csv", newline="") as handle:
        assert list(csv.DictReader(handle)) == []


def _take_survey(made, tmp_path):
    """A participant takes the survey built from the set ``made`` through the served page in
    Chromium, moving every slider; what was seen, and the built survey's folder."""
    import asyncio
    import os

    from test_survey_browser import CHROMIUM, Server, _browser_or_skip, drag, free_port

    from elot.survey.build import build_survey
    from elot.survey.design import Settings

    _browser_or_skip()
    survey = build_survey(made, tmp_path / "survey", Settings(condition="initial", orders=2, statements_per_point=3,
                                                             completion_url=""),
                          npm_cache=os.environ.get("ELOT_NPM_CACHE")).folder
    port = free_port()
    server = Server(survey, port, tmp_path / "answers.sqlite")
    seen: dict[str, object] = {"goal_boxes": 0, "judged": 0, "texts": ""}

    async def take():
        from playwright.async_api import async_playwright

        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = await browser.new_page()
            await page.goto(f"http://127.0.0.1:{port}/?PROLIFIC_PID=T1")
            for _ in range(200):
                await page.wait_for_timeout(100)
                body = await page.inner_text("body")
                seen["texts"] += body
                if "answers are saved" in body:
                    break
                if await page.locator("form#jspsych-survey-html-form .elot-page").count():
                    seen["goal_boxes"] += await page.locator(".elot-goals input").count()
                    sliders = page.locator(".elot-statement input[type=range]")
                    for n in range(await sliders.count()):
                        await drag(page, sliders.nth(n), 2)
                    await page.locator("#jspsych-survey-html-form-next:enabled").click(timeout=30000)
                    seen["judged"] += 1
                elif await page.locator("input[type=radio]").count():
                    for q in await page.locator(".jspsych-survey-multi-choice-question").all():
                        await q.locator("input[type=radio]").first.check()
                    await page.locator("#jspsych-survey-multi-choice-next").click()
                elif await page.locator("button:has-text('I agree')").count():
                    await page.locator("button:has-text('I agree')").click()
                elif await page.locator("button:enabled:not(.elot-replay)").count():
                    await page.locator("button:enabled:not(.elot-replay)").first.click(timeout=30000)
            await browser.close()

    server.start()
    try:
        asyncio.run(take())
    finally:
        server.stop()
    return seen, survey


@pytest.mark.slow
def test_a_participant_takes_the_food_truck_survey_in_a_browser(made, tmp_path):
    """Through the served page in Chromium: the food-truck instructions, no goal boxes at
    a judgment (the answer button waits for the sliders only), and the answers import."""
    import csv

    seen, survey = _take_survey(made, tmp_path)
    assert "answers are saved" in seen["texts"] and "behind a building" in seen["texts"]
    assert seen["judged"] == 2 and seen["goal_boxes"] == 0
    done = run_elot("survey", "import", str(tmp_path / "answers.sqlite"), "--survey", str(survey),
                    "-o", str(tmp_path / "r.csv"))
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "r.csv", newline="") as handle:
        ratings = list(csv.DictReader(handle))
    assert len(ratings) == 6 and {r["rating"] for r in ratings} == {f"{1 / 6:.6g}"}


@pytest.mark.slow
def test_a_path_judged_at_two_points_is_asked_twice_in_a_browser(tmp_path):
    source = tmp_path / "judged.trucks"
    source.write_text(LOOK + "judge 5 11\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"), "--cell", str(CELL))
    assert done.returncode == 0, done.stderr
    seen, _ = _take_survey(tmp_path / "set", tmp_path)
    assert "answers are saved" in seen["texts"] and seen["judged"] == 2


def test_a_judge_line_cuts_the_path_into_judged_segments(tmp_path):
    source = tmp_path / "judged.trucks"
    source.write_text(LOOK + "judge 5 11\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"), "--cell", str(CELL))
    assert done.returncode == 0, done.stderr
    [entry] = json.loads((tmp_path / "set" / "stimuli.json").read_text())
    assert entry["times"] == [1, 6, 12] and entry["length"] == 2
    assert [len(frames_of(tmp_path / "set" / image)) for image in entry["images"]] == [1, 5, 6]
    assert stimuli.check_stimuli([entry], tmp_path / "set") == []
    done = run_elot("survey", "build", str(tmp_path / "set"), "-o", str(tmp_path / "survey"), "--cdn")
    assert done.returncode == 0, done.stderr
    [scenario] = json.loads((tmp_path / "survey" / "survey.json").read_text())["scenarios"]
    assert [(g["t"], g["judged"]) for g in scenario["segments"]] == [(0, False), (5, True), (11, True)]


def test_a_scenario_judged_at_its_start_is_refused(tmp_path):
    source = tmp_path / "early.trucks"
    source.write_text(STRAIGHT + "judge 0 3\n", encoding="utf-8")
    done = run_elot("stimuli", str(source), "-o", str(tmp_path / "set"))
    assert done.returncode == 2 and "judged at t = 0" in done.stderr and not (tmp_path / "set").exists()


def test_from_start_replays_the_path_from_its_first_cell(tmp_path):
    from elot.study.references import refs_of
    from elot.study.stimuli import make_stimuli

    source = tmp_path / "a.trucks"
    source.write_text(STRAIGHT, encoding="utf-8")
    made = make_stimuli(refs_of([str(source)]), tmp_path / "set", cell_px=16, from_start=True, mp4=False)
    assert made.entries[0]["times"] == [1, 4]
    assert len(frames_of(tmp_path / "set" / "straight_1.gif")) == 4       # the start, two moves, eating
    assert sum(made.frames[made.entries[0]["name"]]) == 5
