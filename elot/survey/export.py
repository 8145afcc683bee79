"""``elot survey export``: a survey as a static site (a folder or a ``.zip``) that JATOS,
Pavlovia or any web server hosts. The page finds no ``elot survey serve`` there and keeps
its data in jsPsych: JATOS receives them at the end (``jatos=True`` loads ``jatos.js``),
elsewhere the participant can download them; either way they come back as jsPsych's JSON
or CSV, which ``elot survey import`` reads. The database is never exported."""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from elot.survey import SurveyError
from elot.survey.build import CONFIG, load_config
from elot.survey.server import published_files


def export_survey(folder: str | Path, output: str | Path, *, jatos: bool = False) -> tuple[Path, int]:
    """Write the survey's published files (and ``survey.json``, which import reads) to
    ``output``: a folder, or an archive when it ends in ``.zip``. Returns the path and the
    number of files."""
    folder = Path(folder)
    load_config(folder)
    files = published_files(folder)
    files[CONFIG] = folder / CONFIG
    target = Path(output)
    if target.exists() and (target.is_file() and target.suffix != ".zip" or target.is_dir() and any(target.iterdir())):
        raise SurveyError(f"{target} exists; not replacing it", hint="export to a new folder or .zip")
    if target.resolve() == folder.resolve() or folder.resolve() in target.resolve().parents:
        raise SurveyError(f"{target} is inside the survey", hint="export somewhere outside the survey folder")

    def content(name: str, path: Path) -> bytes:
        data = path.read_bytes()
        if jatos and name == "index.html":
            data = data.replace(b'  <script src="experiment.js"', b'  <script src="jatos.js"></script>\n'
                                b'  <script src="experiment.js"', 1)
        return data

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.suffix == ".zip":
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            with zipfile.ZipFile(open(handle, "wb", closefd=True), "w", zipfile.ZIP_DEFLATED) as archive:
                for name, path in sorted(files.items()):
                    archive.writestr(name, content(name, path))
            Path(temporary).replace(target)
        else:
            temporary = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
            try:
                for name, path in files.items():
                    (temporary / name).parent.mkdir(parents=True, exist_ok=True)
                    (temporary / name).write_bytes(content(name, path))
                if target.exists():
                    target.rmdir()
                temporary.replace(target)
            finally:
                if temporary.exists():
                    shutil.rmtree(temporary, ignore_errors=True)
    except OSError as error:
        raise SurveyError(f"cannot write {target}: {error.strerror or error}", hint="check the path given to -o") \
            from None
    return target, len(files)
