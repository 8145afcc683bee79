"""``elot survey export``: a survey as a static site (a folder or a ``.zip``) that JATOS,
Pavlovia or any web server hosts. The page finds no ``elot survey serve`` there and keeps
its data in jsPsych: JATOS receives them at the end (``jatos=True`` loads ``jatos.js``),
elsewhere the participant can download them; either way they come back as jsPsych's JSON
or CSV, which ``elot survey import`` reads. The database is never exported."""

from __future__ import annotations

import zipfile
from pathlib import Path

from elot.output import OwnedFolder, write_output
from elot.survey import SurveyError
from elot.survey.build import CONFIG, load_config
from elot.survey.server import published_files

#: What an exported folder's manifest says wrote it.
KIND = "elot survey export"


def export_survey(folder: str | Path, output: str | Path, *, jatos: bool = False,
                  force: bool = False) -> tuple[Path, int]:
    """Write the survey's published files (and ``survey.json``, which import reads) to
    ``output``: a folder, or an archive when it ends in ``.zip``. Returns the path and the
    number of files.

    What is there already is replaced as every elot output is: an archive or folder this
    command wrote and nobody changed since, else only with ``force`` (a folder's own
    files elot never wrote are kept)."""
    folder = Path(folder)
    load_config(folder)
    files = published_files(folder)
    files[CONFIG] = folder / CONFIG
    target = Path(output).expanduser()
    if target.resolve() == folder.resolve() or folder.resolve() in target.resolve().parents:
        raise SurveyError(f"{target} is inside the survey", hint="export somewhere outside the survey folder")

    def content(name: str, path: Path) -> bytes:
        data = path.read_bytes()
        if jatos and name == "index.html":
            data = data.replace(b'  <script src="experiment.js"', b'  <script src="jatos.js"></script>\n'
                                b'  <script src="experiment.js"', 1)
        return data

    if target.suffix == ".zip":
        def archive(stream) -> None:
            with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as zipped:
                for name, path in sorted(files.items()):
                    zipped.writestr(name, content(name, path))

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
