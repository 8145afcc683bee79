"""What `survey build` and `survey export` write, and where: an image name in stimuli.json
never leads outside the survey (F1), the database is never exported under any name (F5),
a JATOS study archive is laid out as JATOS imports it, and the Prolific codes are set at
build time."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import uuid
import zipfile
from pathlib import Path

import pytest
from helpers import run_elot

from elot.study import stimuli
from elot.study.references import ScenarioRef
from elot.survey.build import PROLIFIC_RETURN, build_survey, load_config
from elot.survey.design import Settings

SCENARIOS = ("empty-box", "yellow-green")


@pytest.fixture(scope="module")
def stimulus_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files") / "set"
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], folder, jobs=1, mp4=False, cell_px=16)
    return folder


@pytest.fixture(scope="module")
def survey(stimulus_set, tmp_path_factory):
    return build_survey(stimulus_set, tmp_path_factory.mktemp("files-survey") / "survey", Settings(orders=2),
                        cdn=True).folder


# -- F1: build writes only inside -o ------------------------------------------------------


@pytest.mark.parametrize("name, why", [
    ("../../victim.gif", "is not a plain file name"),
    ("sub/../../victim.gif", "is not a plain file name"),
    ("..\\..\\victim.gif", "is not a plain file name"),
    ("ABS", "is not a plain file name"),                # an absolute path, filled in below
    ("C:victim.gif", "names a drive"),
    ("victim\x00.gif", "is not a plain file name"),
    ("..", "is not a plain file name"),
])
def test_an_image_name_that_leads_elsewhere_is_refused_before_anything_is_written(stimulus_set, tmp_path, name,
                                                                                 why):
    # the survey is staged in a folder beside -o, so stimuli/../../victim.gif there is
    # tmp_path/victim.gif: the user's file F1 overwrote (its source, set/../../victim.gif, exists)
    victim = tmp_path / "victim.gif"
    victim.write_bytes(b"the user's own file")
    odd = tmp_path / "a" / "b" / "set"
    shutil.copytree(stimulus_set, odd)
    entries = json.loads((odd / "stimuli.json").read_text())
    (tmp_path / "a" / "victim.gif").write_bytes((odd / entries[1]["images"][1]).read_bytes())
    if name == "ABS":
        name = str(tmp_path / "a" / "victim.gif")
    entries[1]["images"][1] = name
    (odd / "stimuli.json").write_text(json.dumps(entries))
    out = tmp_path / "out"
    done = run_elot("survey", "build", str(odd), "-o", str(out), "--cdn", "--orders", "2")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"stimuli.json: scenario {entries[1]['name']}, image 2 ({name!r}) {why}" in done.stderr
    assert victim.read_bytes() == b"the user's own file"
    assert not out.exists()


def test_an_image_that_is_a_link_out_of_the_stimulus_set_is_refused(stimulus_set, tmp_path):
    odd = tmp_path / "set"
    shutil.copytree(stimulus_set, odd)
    entries = json.loads((odd / "stimuli.json").read_text())
    outside = tmp_path / "outside.gif"
    outside.write_bytes((odd / entries[0]["images"][0]).read_bytes())
    os.symlink(outside, odd / "link.gif")
    entries[0]["images"][0] = "link.gif"
    (odd / "stimuli.json").write_text(json.dumps(entries))
    done = run_elot("survey", "build", str(odd), "-o", str(tmp_path / "out"), "--cdn", "--orders", "2")
    assert done.returncode == 2 and "is a link leading out of the stimulus set" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


# -- F5: the database is never exported ---------------------------------------------------


def _sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE participants (id INTEGER PRIMARY KEY, participant TEXT)")
    db.execute("INSERT INTO participants (participant) VALUES ('a real participant id')")
    db.commit()
    db.close()


@pytest.mark.parametrize("target", ["site.zip", "site", "study.jzip"])
def test_a_database_under_a_published_name_is_never_exported(survey, tmp_path, target):
    """`serve --db SURVEY/answers.json` keeps the answers under a suffix the survey
    publishes; export knows a database by its header, whatever its name."""
    work = tmp_path / "survey"
    shutil.copytree(survey, work)
    _sqlite(work / "answers.json")
    _sqlite(work / "stimuli" / "notes.gif")
    args = ["--jatos"] if target.endswith(".jzip") else []
    done = run_elot("survey", "export", str(work), "-o", str(tmp_path / target), *args)
    assert done.returncode == 0, done.stderr
    if target == "site":
        blobs = [p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()]
        names = [p.name for p in (tmp_path / "site").rglob("*")]
    else:
        with zipfile.ZipFile(tmp_path / target) as archive:
            names = [Path(n).name for n in archive.namelist()]
            blobs = [archive.read(n) for n in archive.namelist()]
    assert "answers.json" not in names and "notes.gif" not in names
    assert "survey.json" in names and "index.html" in names
    assert not [b for b in blobs if b.startswith(b"SQLite format 3\x00") or b"a real participant id" in b]


# -- JATOS: the study archive -------------------------------------------------------------


def _referenced(html: str, config: dict) -> set[str]:
    """Every file the page loads: its scripts and stylesheets, and what experiment.js shows."""
    out = {m for m in re.findall(r'(?:src|href)="([^"]+)"', html) if not m.startswith("http")}
    out |= set(config["gem_icons"])
    out |= {seg["image"] for s in config["scenarios"] for seg in s["segments"]}
    return out


def test_the_jatos_archive_is_a_study_jatos_imports(survey, tmp_path):
    """JATOS imports a .jzip holding exactly one study description (.jas, JSON with the
    version and the study's data) and exactly one folder, the study assets, named by
    dirName; every component's htmlFilePath is a file in it."""
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "study.jzip"), "--jatos")
    assert done.returncode == 0, done.stderr
    config = load_config(survey)
    with zipfile.ZipFile(tmp_path / "study.jzip") as archive:
        names = archive.namelist()
        assert archive.testzip() is None
        top = {n.split("/")[0] for n in names}
        jas = [n for n in names if "/" not in n]
        assert len(jas) == 1 and jas[0].endswith(".jas")
        description = json.loads(archive.read(jas[0]))
        study = description["data"]
        assert description["version"] == "3"
        folders = top - set(jas)
        assert folders == {study["dirName"]}
        assert re.fullmatch(r"[A-Za-z0-9_-]+", study["dirName"])
        for name in names:               # nothing outside the assets folder, no path tricks
            assert not name.startswith("/") and ".." not in name.split("/") and "\\" not in name
            assert name in jas or name.startswith(study["dirName"] + "/")
        for field in ("uuid", "title", "description", "dirName", "componentList", "batchList", "groupStudy",
                      "linearStudy", "allowPreview", "comments", "jsonData", "endRedirectUrl"):
            assert field in study, field
        uuid.UUID(study["uuid"])
        assert study["title"] == config["title"]
        assets = {n[len(study["dirName"]) + 1:]: n for n in names if n.startswith(study["dirName"] + "/")}
        assert study["componentList"], "a study needs a component"
        for component in study["componentList"]:
            uuid.UUID(component["uuid"])
            assert component["active"] is True and component["title"]
            assert component["htmlFilePath"] in assets
        for batch in study["batchList"]:
            uuid.UUID(batch["uuid"])
            assert batch["active"] is True and "GeneralSingle" in batch["allowedWorkerTypes"]
        html = archive.read(assets["index.html"]).decode()
        assert html.index('<script src="jatos.js"></script>') < html.index('<script src="experiment.js"')
        missing = _referenced(html, config) - set(assets) - {"jatos.js"}    # JATOS serves jatos.js itself
        assert not missing, missing
        assert "survey.json" in assets and not [n for n in assets if "sqlite" in n]
    # the same survey exported again is the same study (JATOS offers to update it)
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "again.jzip"), "--jatos")
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(tmp_path / "again.jzip") as archive:
        again = json.loads(archive.read(jas[0]))["data"]
    assert again["uuid"] == study["uuid"]
    assert again["componentList"][0]["uuid"] == study["componentList"][0]["uuid"]


def test_a_plain_zip_for_jatos_and_a_jzip_without_jatos_are_refused(survey, tmp_path):
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "study.zip"), "--jatos")
    assert done.returncode == 2 and "not a plain .zip" in done.stderr and "study.jzip" in done.stderr
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "study.jzip"))
    assert done.returncode == 2 and "add --jatos" in done.stderr
    assert not list(tmp_path.iterdir())


# -- Prolific: completion and screen-out codes, set at build time ------------------------


def test_prolific_codes_are_built_into_the_survey(stimulus_set, tmp_path):
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--cdn", "--orders", "2",
                    "--prolific-completion", "C0MPL3TE", "--prolific-screenout", "SCR33N")
    assert done.returncode == 0, done.stderr
    config = load_config(tmp_path / "survey")
    assert config["prolific"] == {"completion": "C0MPL3TE", "completion_url": PROLIFIC_RETURN + "C0MPL3TE",
                                  "screenout": "SCR33N", "screenout_url": PROLIFIC_RETURN + "SCR33N"}
    script = (tmp_path / "survey" / "experiment.js").read_text()
    assert json.dumps(PROLIFIC_RETURN + "SCR33N").replace("&", "\\u0026") in script


@pytest.mark.parametrize("args, message", [
    (["--prolific-completion", "SAME", "--prolific-screenout", "SAME"], "the completion and screen-out codes are "
                                                                       "the same"),
    (["--prolific-screenout", "ABC"], "--prolific-screenout needs --prolific-completion"),
    (["--prolific-completion", "A B&x=1"], "is not a Prolific code"),
    (["--prolific-completion", "ABC", "--completion-url", "https://example.org/done"], "not both"),
])
def test_prolific_codes_that_cannot_work_are_refused(stimulus_set, tmp_path, args, message):
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--cdn", *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "survey").exists()
