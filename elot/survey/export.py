"""``elot survey export``: a survey as a static site (a folder or a ``.zip``) that JATOS,
Pavlovia or any web server hosts, or as a JATOS study archive (``.jzip``).

The page finds no ``elot survey serve`` there and keeps its data in jsPsych. With
``jatos=True`` the page loads ``jatos.js``: it sends each trial to JATOS as it ends
(``jatos.appendResultData``, one JSON object per line, so a participant who quits leaves
what they answered), takes its order from the batch session, balanced by arrival, and
ends the study run with ``jatos.endStudy``. Elsewhere the participant can download the
data. Either way they come back as JATOS's results or jsPsych's JSON or CSV, which ``elot
survey import`` reads.

The database is never exported: not the survey's ``responses.sqlite``, nor any SQLite
file under a published name (a ``--db answers.json`` inside the survey folder), which is
known by its header.

A ``.jzip`` is laid out as JATOS exports and imports a study: at its top one study
description (``NAME.jas``, JSON: ``{"version": "3", "data": {...}}`` with the study's
``uuid``, ``title``, ``dirName``, ``componentList`` (one component whose
``htmlFilePath`` is ``index.html``) and ``batchList``) and one folder, ``dirName``, with
the study's assets. The UUIDs are made from the survey's id, so exporting the same survey
again gives the same study (JATOS offers to update it) and another survey another study.
"""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path

from elot.output import OwnedFolder, write_output
from elot.survey import SurveyError
from elot.survey.build import CONFIG, DATABASE, load_config
from elot.survey.server import published_files

#: What an exported folder's manifest says wrote it.
KIND = "elot survey export"
#: The version of JATOS's study description a ``.jas`` holds (JATOS 3.x reads it).
JAS_VERSION = "3"
#: The namespace of the study's UUIDs (made from the survey's id).
NAMESPACE = uuid.UUID("5d0b1c8e-7a44-4c5e-9a51-3f1d2b6e8c07")
#: Who may run the study: JATOS's worker types (Prolific's participants come through a
#: General Single link; Personal links and JATOS's own users for pilots).
WORKER_TYPES = ["Jatos", "PersonalSingle", "PersonalMultiple", "GeneralSingle", "GeneralMultiple"]
def exported_files(folder: Path) -> dict[str, Path]:
    """The files an export holds, by their path in it: what the survey publishes (never a
    database, :func:`~elot.survey.server.published_files`), less a file named as the
    survey's database files are, and ``survey.json`` (which import reads)."""
    files = {name: path for name, path in published_files(folder).items() if not path.name.startswith(DATABASE)}
    files[CONFIG] = folder / CONFIG
    return files


def study_description(config: dict, dir_name: str) -> dict:
    """The ``.jas`` of a survey: JATOS's description of the study, its one component and
    its default batch."""
    def made(part: str) -> str:
        return str(uuid.uuid5(NAMESPACE, f"{config['id']}/{part}"))

    title = config.get("title") or "elot survey"
    scenarios, orders = len(config["scenarios"]), len(config["orders"])
    note = (f"Built by elot survey build (survey {config['id']}: {scenarios} scenarios, {orders} orders). "
            "Each trial is appended to the result data as one JSON line; read the results with "
            "elot survey import RESULTS --survey SURVEY.")
    return {"version": JAS_VERSION, "data": {
        "uuid": made("study"), "title": title, "description": note, "groupStudy": False, "linearStudy": False,
        "allowPreview": False, "dirName": dir_name, "comments": "", "jsonData": None, "endRedirectUrl": "",
        "studyEntryMsg": None,
        "componentList": [{"uuid": made("component"), "title": title, "htmlFilePath": "index.html",
                           "reloadable": True, "active": True, "comments": "", "jsonData": None}],
        "batchList": [{"uuid": made("batch"), "title": "Default", "active": True, "maxActiveMembers": None,
                       "maxTotalMembers": None, "maxTotalWorkers": None, "allowedWorkerTypes": list(WORKER_TYPES),
                       "comments": None, "jsonData": None}],
    }}


def export_survey(folder: str | Path, output: str | Path, *, jatos: bool = False,
                  force: bool = False) -> tuple[Path, int]:
    """Write the survey's published files (and ``survey.json``, which import reads) to
    ``output``: a folder, an archive when it ends in ``.zip``, or with ``jatos`` and a
    name ending in ``.jzip`` a JATOS study archive. Returns the path and the number of
    files.

    What is there already is replaced as every elot output is: an archive or folder this
    command wrote and nobody changed since, else only with ``force`` (a folder's own
    files elot never wrote are kept)."""
    folder = Path(folder)
    config = load_config(folder)
    target = Path(output).expanduser()
    suffix = target.suffix.lower()
    if suffix == ".jzip" and not jatos:
        raise SurveyError(f"{target}: a .jzip is a JATOS study archive", hint="add --jatos")
    if jatos and suffix == ".zip":
        raise SurveyError(f"{target}: JATOS imports a study archive, a .jzip, not a plain .zip",
                          hint=f"name it {target.with_suffix('.jzip').name} (or give a folder to copy into "
                               "JATOS's study_assets_root)")
    if target.resolve() == folder.resolve() or folder.resolve() in target.resolve().parents:
        raise SurveyError(f"{target} is inside the survey", hint="export somewhere outside the survey folder")
    files = exported_files(folder)

    def content(name: str, path: Path) -> bytes:
        data = path.read_bytes()
        if jatos and name == "index.html":
            tag = b'  <script src="experiment.js"'
            if tag not in data:
                raise SurveyError(f"{path} does not load experiment.js as elot wrote it, so jatos.js cannot be "
                                  "added before it", hint="build the survey again, or add "
                                  '<script src="jatos.js"></script> to it yourself and export without --jatos')
            data = data.replace(tag, b'  <script src="jatos.js"></script>\n' + tag, 1)
        return data

    if suffix in (".zip", ".jzip"):
        dir_name = f"elot_survey_{config['id']}"
        prefix = f"{dir_name}/" if suffix == ".jzip" else ""

        def archive(stream) -> None:
            with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as zipped:
                if suffix == ".jzip":
                    description = study_description(config, dir_name)
                    zipped.writestr(f"{dir_name}.jas", json.dumps(description, indent=1) + "\n")
                for name, path in sorted(files.items()):
                    zipped.writestr(prefix + name, content(name, path))

        write_output(target, archive, force=force, option="-o")
        return target, len(files)
    owned = OwnedFolder(target, KIND, what="exported survey", force=force, error=SurveyError)
    owned.check()
    with owned as staging:
        for name, path in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(content(name, path))
        owned.commit()
    return target, len(files)
