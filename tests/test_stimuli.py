"""Stimulus sets: animations per judgment segment, stimuli.json in the survey's schema,
a golden frame, and bad input refused before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import labtom_path
from helpers import run_elot
from PIL import Image

from elot.domains.doors_keys_gems.examples import load_example
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.draw import Renderer
from elot import output
from elot.domains.doors_keys_gems.stimuli import relevant
from elot.study import stimuli
from elot.study.references import ScenarioRef, refs_of
from elot.study.params import StudyError
from elot.domains.doors_keys_gems.front import GridFront
from elot.domains.doors_keys_gems.stimuli import optimal_completion
from elot.errors import DomainError

FRONT = GridFront()


def points_of(scenario) -> tuple[int, ...]:
    """A gridworld scenario's stimulus points (its judgment points inside the plan, then its end)."""
    return FRONT.stimulus_points(FRONT.of(scenario))

GOLDEN = Path(__file__).parent / "golden" / "draw"
EXAMPLES = Path(__file__).resolve().parent.parent / "elot" / "scenarios"


def _frames(path: Path) -> list[Image.Image]:
    with Image.open(path) as image:
        out = []
        for n in range(image.n_frames):
            image.seek(n)
            out.append(image.convert("RGB"))
        return out


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stim") / "set"
    refs = [ScenarioRef(str(EXAMPLES / "two-doors.scn")), ScenarioRef("default")]
    return stimuli.make_stimuli(refs, folder, jobs=1, mp4=False, cell_px=24)


def test_one_animation_per_segment_with_one_frame_per_action(made):
    for name in ("two-doors", "default"):
        scenario = load_example(name) if name != "two-doors" else load_example("two-doors")
        entry = next(e for e in made.entries if e["name"] == (scenario.name if name == "default" else name))
        parts = stimuli.segments(points_of(scenario))
        assert [len(p.steps) for p in parts] == [1] + [b - a for a, b in
                                                     zip([0, *scenario.judgments], [*scenario.judgments, scenario.T])]
        sizes = set()
        for part, image in zip(parts, entry["images"]):
            frames = _frames(made.folder / image)
            assert len(frames) == len(part.steps)
            sizes |= {f.size for f in frames}
        assert len(sizes) == 1                        # every frame of the scenario one size
        width, height = sizes.pop()
        layout = scenario.layout
        # 24 px a cell, half a cell of margin all round, two rows for the inventory
        assert (width, height) == ((layout.width + 1) * 24, (layout.height + 3) * 24)


def test_the_frames_follow_the_plan(made):
    """Segment k's last frame is the state at judgment point k: the agent's cell there
    differs from the start whenever the agent has moved (frames are not all the first)."""
    scenario = load_example("two-doors")
    entry = next(e for e in made.entries if e["name"] == "two-doors")
    renderer = Renderer(scenario.states(), cell_px=24)
    for image, t in zip(entry["images"][1:], [*scenario.judgments, scenario.T]):
        last = np.asarray(_frames(made.folder / image)[-1], dtype=int)
        assert np.abs(last - renderer.frame(t)).mean() < 3            # GIF quantizing changes little
        assert np.abs(last - renderer.frame(0)).mean() > 0.5


def test_stimuli_json_matches_the_schema(made):
    data = json.loads((made.folder / "stimuli.json").read_text())
    assert stimuli.check_stimuli(data, made.folder) == []
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, stimuli.SCHEMA)
    two = next(e for e in data if e["name"] == "two-doors")
    scenario = load_example("two-doors")
    assert two["times"] == [1, *(t + 1 for t in scenario.judgments), scenario.T + 1]
    assert two["length"] == len(two["times"]) - 1 == len(two["images"]) - 1
    assert two["goal"] == 2                                            # goal: gem2
    # the plan picks up the blue key that was hidden in box 2 at the start (the dataset's
    # rule: over the whole plan, even though it is held by the last judgment point)
    assert two["relevant_colors"] == ["blue"] and two["relevant_boxes"] == [2]
    assert two["statements"] == [s.text for s in scenario.statements]
    assert sorted(p.name for p in made.folder.iterdir()) == sorted([output.MANIFEST, "stimuli.json",
                                                                    *[i for e in data for i in e["images"]]])


@pytest.mark.parametrize("change, problem", [
    (lambda e: e.update(length=e["length"] + 1), "length"),
    (lambda e: e["images"].pop(), "images for"),
    (lambda e: e.update(times=[2, *e["times"][1:]]), "start at 1"),
    (lambda e: e.pop("relevant_boxes"), "no 'relevant_boxes'"),
    (lambda e: e.update(goal="2"), "'goal' is not an integer"),
    (lambda e: e.update(statements=[1]), "'statements' holds"),
])
def test_the_schema_check_finds_what_is_wrong(made, change, problem):
    data = json.loads((made.folder / "stimuli.json").read_text())
    change(data[0])
    assert any(problem in p for p in stimuli.check_stimuli(data))


def test_a_missing_image_is_found(made, tmp_path):
    data = json.loads((made.folder / "stimuli.json").read_text())
    assert any("missing" in p for p in stimuli.check_stimuli(data, tmp_path))


def _golden(frame: np.ndarray, name: str) -> np.ndarray:
    """The stored frame ``name`` (ELOT_UPDATE_GOLDEN=1 writes it anew from ``frame``)."""
    path = GOLDEN / name
    if os.environ.get("ELOT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(frame).save(path, optimize=True)
    return np.asarray(Image.open(path).convert("RGB"), dtype=int)


def _close_to(golden: np.ndarray, frame: np.ndarray) -> None:
    assert golden.shape == frame.shape
    diff = np.abs(golden - frame.astype(int)).max(axis=2)
    # one step of the agent changes 0.4% of the pixels by more than 64 levels
    assert (diff > 64).mean() < 0.002 and diff.mean() < 0.5


def test_golden_frame():
    """A frame compared with a stored one within a pixel tolerance (fonts may differ a
    little between machines; a changed drawing differs a lot)."""
    scenario = load_example("two-doors")
    frame = Renderer(scenario.states(), cell_px=24).frame(9)
    _close_to(_golden(frame, "two-doors-t9.png"), frame)


def _pixels(renderer: Renderer, artist) -> tuple[slice, slice]:
    """The rows and columns of a frame an artist covers."""
    box = artist.get_window_extent(renderer.canvas.get_renderer())
    height = renderer.size[1]
    return slice(int(height - box.y1), int(height - box.y0) + 1), slice(int(box.x0), int(box.x1) + 1)


def test_an_opened_box_keeps_a_large_number_beside_the_key_and_the_agent_on_it():
    """At t = 5 of two-doors the agent stands on box 2, opened, with the blue key in it.
    Its number used to shrink to a grey 7-pt corner numeral under the key, and the agent
    hid the box: now the number is as large as a closed box's, dark on the pale box, and
    neither the key nor the agent covers it (golden frame within a pixel tolerance)."""
    scenario = load_example("two-doors")
    cell = 48
    renderer = Renderer(scenario.states(), cell_px=cell)
    frame = renderer.frame(5)
    assert "box2" not in scenario.states()[5].closed and scenario.states()[5].agent_pos == (8, 5)
    _close_to(_golden(frame, "two-doors-t5-open-box.png"), frame)
    board = renderer.board
    (number,) = [a for a in board._objects if getattr(a, "get_text", None) and a.get_text() == "2"]
    rows, cols = _pixels(renderer, number)
    assert rows.stop - rows.start >= 0.3 * cell                     # at least a third of the cell high
    glyph = frame[rows, cols].max(axis=2) < 110                       # dark ink on the pale box
    assert 0.1 < glyph.mean() < 0.7
    for artist in board._moving + [a for a in board._objects if a is not number and a.get_zorder() > 3]:
        r, c = _pixels(renderer, artist)                               # the agent and the key lie elsewhere
        assert r.stop <= rows.start or r.start >= rows.stop or c.stop <= cols.start or c.start >= cols.stop, artist


@pytest.mark.parametrize("t", [0, 5, 9])
def test_text_scales_with_the_cell(t):
    """Every text of a frame (box numbers, door and key initials, "Inventory") is the same
    fraction of a cell at 44 and 96 pixels a cell: it used to stay at about 8 pt."""
    scenario = load_example("two-doors")
    sizes = {}
    for cell in (44, 96):
        renderer = Renderer(scenario.states(), cell_px=cell)
        renderer.frame(t)
        board = renderer.board
        texts = [a for a in board._objects if hasattr(a, "get_fontsize")]
        texts.append(board.inventory_title)
        sizes[cell] = [(a.get_text(), a.get_fontsize() / board.cell_pt) for a in texts]
        assert board.cell_pt == pytest.approx(cell * 72 / 100)
        numbers = [size for text, size in sizes[cell] if text in ("1", "2")]
        assert len(numbers) == 2 and min(numbers) >= 0.35              # box numbers large in every state
    assert [text for text, _ in sizes[44]] == [text for text, _ in sizes[96]]
    assert [size for _, size in sizes[44]] == pytest.approx([size for _, size in sizes[96]])


def test_the_trail_has_one_mark_a_cell_and_none_under_the_agent():
    """two-doors walks right to box 2 and back left: each cell left shows one arrow (its
    latest direction), none where the agent stands, and the one in box 2's cell sits in
    a corner, off the box's number."""
    scenario = load_example("two-doors")
    renderer = Renderer(scenario.states(), cell_px=24)
    renderer.frame(9)
    marks = [(x, y) for line in renderer.board._moving if getattr(line, "get_gid", None) and line.get_gid() == "trail"
             for x, y in zip(line.get_xdata(), line.get_ydata())]
    assert len(marks) == len(set(marks))
    agent = scenario.states()[9].agent_pos
    assert agent not in marks and (8, 5) not in marks
    assert (8 - 0.36, 5 + 0.36) in marks


def test_gifs_play_once_unless_asked_to_loop(made, tmp_path):
    """The paper's stimuli play once: no looping extension (browsers stop on the last
    frame); ``loop=True`` (``--loop``) writes one that loops forever."""
    from elot.draw.animation import write_gif

    entry = made.entries[0]
    with Image.open(made.folder / entry["images"][1]) as image:
        assert "loop" not in image.info
    frames = _frames(made.folder / entry["images"][1])
    write_gif([np.asarray(f) for f in frames], tmp_path / "loop.gif", loop=True)
    with Image.open(tmp_path / "loop.gif") as image:
        assert image.info["loop"] == 0


@pytest.mark.parametrize("size", [300, 777])
def test_size_gives_the_frame_its_longer_side(tmp_path, size):
    """``--size``: each map's cells as large as fit, the frame's longer side exactly that
    (777 px used to give 770: ten cells of 77; the 7 pixels left over now widen the
    margins, the map centred on whole pixels)."""
    from elot.domains.doors_keys_gems.board import FRAME_SIZE, cell_for_size

    made = stimuli.make_stimuli([ScenarioRef("two-doors")], tmp_path / "set", mp4=False, size_px=size)
    frames = _frames(made.folder / made.entries[0]["images"][1])
    layout = load_example("two-doors").layout
    cell = cell_for_size(layout, size)
    assert {f.size for f in frames} == {(size, (layout.height + 3) * cell)}       # 10 × 8 cells: wider than high
    # the map's walls: the first and last dark columns of the top row of cells lie the same
    # distance from the frame's sides
    pixels = np.asarray(frames[-1], dtype=int)
    row = pixels[int(cell):int(cell) + 1].max(axis=2)[0]     # through the map's top row of cells
    dark = np.flatnonzero(row < 60)
    assert abs(dark[0] - (size - 1 - dark[-1])) <= 2
    assert cell_for_size(layout, FRAME_SIZE) * (layout.width + 1) >= 600     # fills a survey screen


def _wide_open(tmp_path, side: int) -> Path:
    """A ``side`` × ``side`` map, open floor, with one gem and one judgment point."""
    rows = ["." * side for _ in range(side)]
    rows[0] = "g" + "." * (side - 1)
    rows[-1] = "." * (side - 1) + "h"
    scn = tmp_path / f"open{side}.scn"
    scn.write_text(f"name: open{side}\ngoal: gem1\nmap:\n" + "".join(f"  {r}\n" for r in rows)
                   + "actions:\n  left |\n  left\n")
    return scn


def test_a_size_whose_cells_would_be_illegible_is_refused(tmp_path):
    """A 100 × 100 map at the default --size 800 gave 7-pixel cells (the agent a speck)
    without a word, though --cell refuses under 16: now one clear error names the cell
    size and what to ask for instead, and nothing is written."""
    from elot.domains.doors_keys_gems.board import MIN_CELL

    scn = _wide_open(tmp_path, 100)
    with pytest.raises(StudyError, match=r"cells of 7 pixels, too small to read \(at least 16\)") as info:
        stimuli.make_stimuli([ScenarioRef(str(scn))], tmp_path / "set", mp4=False)
    assert f"--cell {MIN_CELL}" in info.value.hint and "--size 1648" in info.value.hint     # 103 rows × 16
    result = run_elot("stimuli", str(scn), "-o", str(tmp_path / "set"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "7 pixels" in result.stderr and "--cell 16" in result.stderr
    assert not (tmp_path / "set").exists()
    # what the hint says works: --size 1648 gives cells of 16 (the frames themselves are
    # not drawn here, a 1648-pixel GIF of 100 × 100 cells takes a while)
    from elot.domains.doors_keys_gems.board import cell_for_size, frame_size

    layout = ScenarioRef(str(scn)).load().detail.layout
    assert cell_for_size(layout, 1648) == MIN_CELL and max(frame_size(layout, MIN_CELL)) == 1648


def test_a_scenario_without_judgment_points_is_refused(tmp_path):
    text = (EXAMPLES / "two-doors.scn").read_text().replace("|", ",")
    scn = tmp_path / "unjudged.scn"
    scn.write_text(text)
    result = run_elot("stimuli", str(scn), "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "no judgment points" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unjudged.scn"]        # no temporary folder left


def test_unwritable_output_is_one_clear_error(tmp_path):
    (tmp_path / "a-file").write_text("")
    result = run_elot("stimuli", "two-doors", "-o", str(tmp_path / "a-file" / "set"))
    assert result.returncode == 2 and "is a file, not a folder" in result.stderr and "Traceback" not in result.stderr
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    result = run_elot("stimuli", "two-doors", "-o", str(mine))
    assert result.returncode == 2 and "not a stimulus set elot wrote" in result.stderr
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


@pytest.mark.slow
def test_a_failure_midway_leaves_nothing(tmp_path, monkeypatch):
    calls = []

    def render(job):
        calls.append(job.name)
        if len(calls) == 2:
            raise StudyError("disk full (simulated)")
        return real(job)

    real = stimuli.render
    monkeypatch.setattr(stimuli, "render", render)
    refs = [ScenarioRef("two-doors"), ScenarioRef("default")]
    with pytest.raises(StudyError, match="simulated"):
        stimuli.make_stimuli(refs, tmp_path / "set", jobs=1, mp4=False, cell_px=16)
    assert list(tmp_path.iterdir()) == []


def test_missing_parent_folders_are_made(tmp_path):
    made = stimuli.make_stimuli([ScenarioRef("default")], tmp_path / "a" / "b" / "set", mp4=False, cell_px=16)
    assert (made.folder / "stimuli.json").is_file()
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["set"]


def test_a_set_elot_wrote_is_replaced_whole(tmp_path):
    folder = tmp_path / "set"
    stimuli.make_stimuli([ScenarioRef("two-doors"), ScenarioRef("default")], folder, mp4=False, cell_px=16)
    stimuli.make_stimuli([ScenarioRef("default")], folder, mp4=False, cell_px=16)
    data = json.loads((folder / "stimuli.json").read_text())
    assert [e["name"] for e in data] == [load_example("default").name]
    assert not any(p.name.startswith("two-doors") for p in folder.iterdir())      # the old set is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]


def test_segments_need_points_inside_the_plan():
    scenario = parse_scn_text((EXAMPLES / "two-doors.scn").read_text().replace("|", ","))
    with pytest.raises(DomainError, match="no judgment points"):
        points_of(scenario)


@pytest.mark.slow
def test_cli_in_processes(tmp_path):
    result = run_elot("stimuli", "two-doors", "default", "-j", "2", "--cell", "16", "--no-mp4", "--loop",
                      "-o", str(tmp_path / "set"))
    assert result.returncode == 0, result.stderr
    assert "wrote 2 scenarios" in result.stderr
    data = json.loads((tmp_path / "set" / "stimuli.json").read_text())
    assert stimuli.check_stimuli(data, tmp_path / "set") == []
    with Image.open(tmp_path / "set" / data[0]["images"][1]) as image:
        assert image.info["loop"] == 0                                  # --loop


@pytest.mark.skipif(labtom_path() is None, reason="needs the LaBToM dataset")
def test_dataset_plans_keep_the_dataset_judgment_points(tmp_path):
    refs = refs_of(["1_1", "3_2"], data=str(labtom_path()), exp=",".join(["exp2_current"]))
    made = stimuli.make_stimuli(refs, tmp_path / "set", jobs=1, mp4=False, cell_px=16)
    for ref, entry in zip(refs, made.entries):
        scenario = ref.load().detail
        assert entry["name"] == ref.key.plan_id
        assert entry["times"] == [m + 1 for m in scenario.markers]     # the plan file's ';' markers
        assert len(entry["statements"]) == 5
        assert made.frames[entry["name"]] == [1, *np.diff(scenario.markers).tolist()]


def test_a_set_too_big_for_memory_is_refused_with_an_estimate(tmp_path, monkeypatch):
    from elot.study import resources

    monkeypatch.setattr(resources, "available_memory", lambda: 10 * 2 ** 20)
    with pytest.raises(StudyError, match=r"about 0\.\d GiB .* GiB is free"):
        stimuli.make_stimuli([ScenarioRef("two-doors")], tmp_path / "set", mp4=False, cell_px=44)
    assert list(tmp_path.iterdir()) == []
    scenario = load_example("two-doors")
    parts = stimuli.segments(points_of(scenario))
    longest = max(len(p.steps) for p in parts)
    pixels, sampled = 10 * 8 * 400, len(stimuli.palette_steps(scenario.T, parts, 10 * 8 * 400 * 3))
    frames = FRONT.frames(FRONT.of(scenario))
    assert (stimuli.segment_bytes(frames, points_of(scenario), 20) - 96 * 2 ** 20
            == pixels * (10 + max(17 * sampled, longest * 8 + 4)))


def test_mp4_needs_ffmpeg(tmp_path):
    from elot.draw.animation import ffmpeg

    result = run_elot("stimuli", "two-doors", "--mp4", "--cell", "16", "-o", str(tmp_path / "set"))
    if ffmpeg() is None:
        assert result.returncode == 2 and "--mp4 needs ffmpeg" in result.stderr
        assert not (tmp_path / "set").exists()
    else:
        assert result.returncode == 0, result.stderr
        videos = sorted((tmp_path / "set").glob("*.mp4"))
        assert len(videos) == len(stimuli.segments(points_of(load_example("two-doors"))))
        assert all(v.read_bytes()[4:8] == b"ftyp" for v in videos)


def test_from_start_replays_the_plan_up_to_each_point(tmp_path):
    scenario = load_example("two-doors")
    made = stimuli.make_stimuli([ScenarioRef("two-doors")], tmp_path / "set", mp4=False, cell_px=16,
                                from_start=True)
    ends = [*scenario.judgments, scenario.T]
    assert made.frames["two-doors"] == [1, *(end + 1 for end in ends)]
    entry = made.entries[0]
    for image, end in zip(entry["images"][1:], ends):
        assert len(_frames(made.folder / image)) == end + 1
    assert entry["times"] == [1, *(t + 1 for t in scenario.judgments), scenario.T + 1]     # the same points


def test_red_reads_red_and_gems_differ_in_shape_and_colour():
    """Statements say "the red key": red used to be Okabe–Ito's vermillion, which reads as
    orange. Gems all shared one pink and differed by shape only."""
    import colorsys

    from matplotlib.colors import to_rgb

    from elot.draw import palette

    def hue(name):
        return colorsys.rgb_to_hsv(*to_rgb(palette.colour(name)))[0] * 360

    assert min(hue("red"), 360 - hue("red")) < 10                    # a red hue, not orange (~25°)
    assert abs(hue("orange") - hue("red")) > 25
    shapes, fills = palette.GEM_SHAPES[:6], [fill for fill, _, _ in palette.GEM_COLOURS[:6]]
    assert len(set(shapes)) == len(shapes) and len(set(fills)) == len(fills)
    # in a frame: each gem's cell is painted with its own fill, and with no other gem's
    scenario = load_example("two-doors")
    cell = 48
    frame = Renderer(scenario.states(), cell_px=cell).frame(0).astype(int)
    for n, (gem, (x, y)) in enumerate(scenario.layout.gems):
        # half a cell of margin: cell (x, y) spans pixels (x - 0.5 .. x + 0.5) × cell
        patch = frame[int((y - 0.5) * cell): int((y + 0.5) * cell), int((x - 0.5) * cell): int((x + 0.5) * cell)]
        share = [(np.abs(patch - np.array(to_rgb(fill)) * 255).max(axis=2) < 8).mean() for fill in fills[:3]]
        # (0.85 as large as before, under its number: 2.9% of the cell for a triangle)
        assert share[n] > 0.02 and all(s < 0.005 for m, s in enumerate(share) if m != n), (gem, share)
def _published_stimuli(labtom: Path) -> Path:
    """The folder of the dataset's published ``stimuli_current.json`` and
    ``stimuli_initial.json`` (its ``stimuli/`` folder); the test is skipped without them."""
    for folder in (labtom / "stimuli", labtom / "dataset" / "stimuli"):
        if (folder / "stimuli_current.json").is_file() and (folder / "stimuli_initial.json").is_file():
            return folder
    pytest.skip("the dataset's published stimuli_*.json are not in its stimuli/ folder")


@pytest.mark.dataset
def test_relevant_colors_and_boxes_equal_the_published_metadata_on_all_40_scenarios(labtom):
    """The published stimuli_*.json of the dataset: relevant_colors and relevant_boxes of
    every scenario of both experiments are elot's (before, 4_1 of both experiments gave
    box 3 for box 2, and 4_2 of exp2_current lost the key found in box 1)."""
    folder = _published_stimuli(labtom)
    compared = 0
    for exp in ("current", "initial"):
        published = json.loads((folder / f"stimuli_{exp}.json").read_text(encoding="utf-8"))
        names = [entry["name"] for entry in published]
        refs = {r.key.plan_id: r for r in refs_of(names, data=str(labtom), exp=",".join([f"exp2_{exp}"]))}
        for entry in published:
            scenario = refs[entry["name"]].load().detail
            assert relevant(scenario) == (entry["relevant_colors"], entry["relevant_boxes"]), (exp, entry["name"])
            assert stimuli.times(points_of(scenario)) == entry["times"], (exp, entry["name"])
            compared += 1
    assert compared == 40


@pytest.mark.dataset
def test_relevant_keys_are_the_hidden_ones_an_optimal_completion_picks_up_in_order(labtom):
    """The keys hidden at the start that the plan picks up, in order, and their boxes
    (the dataset's rule); the optimal completion reaches the goal."""
    refs = {r.key.plan_id: r for r in refs_of(["1_2", "6_1", "6_3"], data=str(labtom), exp=",".join(["exp2_current"]))}
    assert relevant(refs["1_2"].load().detail) == (["blue"], [3])
    assert relevant(refs["6_1"].load().detail) == (["red", "blue"], [1, 2])     # two keys, in pickup order
    assert relevant(refs["6_3"].load().detail) == ([], [])                       # no hidden key needed
    scenario = refs["6_1"].load().detail
    start = scenario.state_at(scenario.judgments[-1])
    plan = optimal_completion(start, scenario.true_goal)
    end = start
    for action in plan:
        end = end.step(action)
    assert end.goal_reached(scenario.true_goal)


@pytest.mark.parametrize("args, message", [
    (["--size", "0"], "--size must be between 160 and 4000 pixels, not 0"),
    (["--size", "abc"], "--size must be a whole number of pixels, not 'abc'"),
    (["--size", "100000"], "--size must be between 160 and 4000 pixels"),
    (["--cell", "8"], "--cell must be between 16 and 200 pixels, not 8"),
    (["--size", "800", "--cell", "20"], "not allowed with argument"),
])
def test_frame_size_options_are_usage_errors(tmp_path, args, message):
    result = run_elot("stimuli", "two-doors", "-o", str(tmp_path / "set"), *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "set").exists()


def test_statements_people_would_be_shown_are_checked_first(tmp_path):
    """An ill-typed statement never reaches stimuli.json (participants would be asked
    about nonsense): the error is at its line, and nothing is written; a repeated one is
    warned about."""
    statements = tmp_path / "chosen.txt"
    statements.write_text("believes(player, formula(empty(box1)))\nlikely(player, formula(empty(box1)))\n")
    result = run_elot("stimuli", "two-doors", "--statements", str(statements), "-o", str(tmp_path / "set"),
                      "--cell", "16")
    assert result.returncode == 2 and not (tmp_path / "set").exists()
    assert result.stderr.startswith(f"{statements}:2:1: type error: likely cannot take 2 arguments")
    assert "1 of the 2 statements given cannot be shown; no stimulus set was written" in result.stderr
    statements.write_text("believes(player, formula(empty(box1)))\nbelieves(player,  formula(empty(box1)))\n")
    result = run_elot("stimuli", "two-doors", "--statements", str(statements), "-o", str(tmp_path / "set"),
                      "--cell", "16", "--no-mp4")
    assert result.returncode == 0, result.stderr
    assert "the statement repeats statement 1" in result.stderr
    result = run_elot("storyboard", "two-doors", "--statements", str(statements.with_name("bad.txt")), "-o",
                      str(tmp_path / "s.png"))
    assert result.returncode == 2
    (tmp_path / "bad.txt").write_text("# one bad line\nbelieves(player, inside(key1, box1))\n")
    result = run_elot("storyboard", "two-doors", "--statements", str(tmp_path / "bad.txt"), "-o",
                      str(tmp_path / "s.png"))
    assert result.returncode == 2 and result.stderr.startswith(f"{tmp_path / 'bad.txt'}:2:18: type error")
    assert not (tmp_path / "s.png").exists()


def _lab(colour) -> np.ndarray:
    """CIE L*a*b* (D65) of a matplotlib colour."""
    from matplotlib.colors import to_rgb

    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    xyz /= np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_every_colour_has_its_own_letters_and_a_distinct_hue():
    """With 8 colours, purple and pink doors and keys both carried "P" in two pinks (ΔE 30):
    a reader who cannot tell the colours apart could not tell the doors apart. Every colour
    elot draws (all of ``elot generate``'s) has letters of its own and a colour at least
    ΔE 20 from every other; pink and purple are far apart."""
    import itertools

    from elot.domains.doors_keys_gems.generate import COLOURS as GENERATED
    from elot.draw import palette

    assert set(GENERATED) <= set(palette.COLOURS)
    marks = [palette.letter(c) for c in palette.COLOURS]
    assert len(set(marks)) == len(marks), marks
    assert all(m[0] == c[0].upper() for m, c in zip(marks, palette.COLOURS))       # they say the name
    for a, b in itertools.combinations(palette.COLOURS, 2):
        assert np.linalg.norm(_lab(palette.colour(a)) - _lab(palette.colour(b))) >= 20, (a, b)
    assert np.linalg.norm(_lab(palette.colour("pink")) - _lab(palette.colour("purple"))) >= 40
    # colours elot does not know stay apart from the known ones and from one another in a map
    mine = palette.letters(["brown", "bronze", "magenta", "mauve", "blue", "red"])
    assert len(set(mine.values())) == 6 and mine["brown"] == "Br" and mine["red"] == "R"


def test_a_frame_prints_each_colours_letters_on_its_door_and_key():
    """Pink and purple doors and keys in one frame: their letters differ, fit inside the
    key's bow, and the two door cells are painted in clearly different colours."""
    from matplotlib.colors import to_rgb

    from elot.draw import palette

    scenario = parse_scn_text("colours: purple, pink\nlegend:\n  P = door purple\n  p = key purple\n"
                              "  K = door pink\n  k = key pink\nmap:\n  gPgK\n  .p.k\n  h...\n"
                              "actions:\n  right\n")
    cell = 64
    renderer = Renderer(scenario.states(), cell_px=cell)
    frame = renderer.frame(0).astype(int)
    board = renderer.board
    texts = {a.get_text() for a in board._objects if hasattr(a, "get_text")}
    assert {"P", "Pk"} <= texts
    canvas = renderer.canvas.get_renderer()
    for mark in ("P", "Pk"):
        (key_text,) = [a for a in board._objects if hasattr(a, "get_text") and a.get_text() == mark
                       and a.get_zorder() == 5]
        box = key_text.get_window_extent(canvas)
        assert box.width <= 0.4 * 0.44 * 2 * cell                 # inside the bow (radius 0.46 × 0.44 cell)
    painted = {}
    for colour, (x, y) in (("purple", (2, 1)), ("pink", (4, 1))):
        # the door's upper right quarter, away from its letter and keyhole (the cell's centre
        # lies at (x, y) cells from the frame's corner, after half a cell of margin)
        patch = frame[int((y - 0.4) * cell): int((y - 0.1) * cell), int((x + 0.1) * cell): int((x + 0.4) * cell)]
        painted[colour] = np.median(patch.reshape(-1, 3), axis=0)
        assert np.abs(painted[colour] - np.array(to_rgb(palette.colour(colour))) * 255).max() < 12
    assert np.linalg.norm(_lab(painted["pink"] / 255) - _lab(painted["purple"] / 255)) >= 40



def test_relevant_completes_a_plan_that_stops_short_of_its_goal():
    """A plan cut before the hidden key is taken: the completion to the true goal picks up
    the blue key hidden in box 2, so it is relevant; the full plan gives the same."""
    text = (EXAMPLES / "two-doors.scn").read_text()
    cut = text.replace("""  right, pickup key2 |
  left x3, up x2 |
  unlock key2 door2, up x2, pickup gem2
""", "")
    short = parse_scn_text(cut)
    assert not short.state_at(short.T).goal_reached(short.true_goal)
    assert relevant(short) == (["blue"], [2])
    assert relevant(parse_scn_text(text)) == (["blue"], [2])
