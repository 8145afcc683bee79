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

from elot.btom.scn import load_example, parse_scn_text
from elot.draw.animation import Renderer
from elot.study import stimuli
from elot.study.references import ScenarioRef, expand_scenarios
from elot.study.params import StudyError

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
    refs = [ScenarioRef.of_path(str(EXAMPLES / "two-doors.scn")), ScenarioRef("default")]
    return stimuli.make_stimuli(refs, folder, jobs=1, mp4=False, cell_px=24)


def test_one_animation_per_segment_with_one_frame_per_action(made):
    for name in ("two-doors", "default"):
        scenario = load_example(name) if name != "two-doors" else load_example("two-doors")
        entry = next(e for e in made.entries if e["name"] == (scenario.name if name == "default" else name))
        parts = stimuli.segments(scenario)
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
    assert two["relevant_colors"] == ["blue"] and two["relevant_boxes"] == [1, 2]
    assert two["statements"] == [s.text for s in scenario.statements]
    assert sorted(p.name for p in made.folder.iterdir()) == sorted([stimuli.MANIFEST, "stimuli.json",
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


def test_golden_frame():
    """A frame compared with a stored one within a pixel tolerance (fonts may differ a
    little between machines; a changed drawing differs a lot).
    ELOT_UPDATE_GOLDEN=1 writes the golden file anew."""
    scenario = load_example("two-doors")
    frame = Renderer(scenario.states(), cell_px=24).frame(9)
    path = GOLDEN / "two-doors-t9.png"
    if os.environ.get("ELOT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(frame).save(path, optimize=True)
    golden = np.asarray(Image.open(path).convert("RGB"), dtype=int)
    assert golden.shape == frame.shape
    diff = np.abs(golden - frame.astype(int)).max(axis=2)
    # one step of the agent changes 0.4% of the pixels by more than 64 levels
    assert (diff > 64).mean() < 0.002 and diff.mean() < 0.5


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
    with pytest.raises(StudyError, match="no judgment points"):
        stimuli.segments(scenario)


def test_cli_in_processes(tmp_path):
    result = run_elot("stimuli", "two-doors", "default", "-j", "2", "--cell", "16", "--no-mp4",
                      "-o", str(tmp_path / "set"))
    assert result.returncode == 0, result.stderr
    assert "wrote 2 scenarios" in result.stderr
    data = json.loads((tmp_path / "set" / "stimuli.json").read_text())
    assert stimuli.check_stimuli(data, tmp_path / "set") == []


@pytest.mark.skipif(labtom_path() is None, reason="needs the LaBToM dataset")
def test_dataset_plans_keep_the_dataset_judgment_points(tmp_path):
    refs = expand_scenarios(["1_1", "3_2"], root=str(labtom_path()), exps=["exp2_current"])
    made = stimuli.make_stimuli(refs, tmp_path / "set", jobs=1, mp4=False, cell_px=16)
    for ref, entry in zip(refs, made.entries):
        scenario = ref.load()
        assert entry["name"] == ref.plan_id
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
    longest = max(len(p.steps) for p in stimuli.segments(scenario))
    pixels, sampled = 10 * 8 * 400, len(stimuli.palette_steps(scenario, stimuli.segments(scenario), 10 * 8 * 400 * 3))
    assert stimuli.segment_bytes(scenario, 20) - 96 * 2 ** 20 == pixels * (10 + max(17 * sampled, longest * 8 + 4))


def test_mp4_needs_ffmpeg(tmp_path):
    from elot.draw.animation import ffmpeg

    result = run_elot("stimuli", "two-doors", "--mp4", "--cell", "16", "-o", str(tmp_path / "set"))
    if ffmpeg() is None:
        assert result.returncode == 2 and "--mp4 needs ffmpeg" in result.stderr
        assert not (tmp_path / "set").exists()
    else:
        assert result.returncode == 0, result.stderr
        videos = sorted((tmp_path / "set").glob("*.mp4"))
        assert len(videos) == len(stimuli.segments(load_example("two-doors")))
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
