"""jsPsych, from the npm registry: pinned versions, installed once into a cache and copied
into each built survey (never into the repository)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

try:
    import fcntl
except ImportError:     # not on Windows: there two builds at once may both run npm
    fcntl = None

from elot.survey import SurveyError

#: The npm packages a survey uses, pinned exactly: the library and one plugin per kind of
#: screen. Each ships a browser build that defines one global (``jsPsychModule``,
#: ``jsPsychHtmlButtonResponse``, ...).
PACKAGES = {
    "jspsych": "8.3.0",
    "@jspsych/plugin-preload": "2.1.0",
    "@jspsych/plugin-html-button-response": "2.1.0",
    "@jspsych/plugin-survey-html-form": "2.1.0",
    "@jspsych/plugin-survey-multi-choice": "2.2.1",
}

#: Where each package's browser build is copied in a survey (``lib/``), and its CSS.
FILES = {name: f"lib/{name.split('/')[-1]}.js" for name in PACKAGES}
CSS = "lib/jspsych.css"

#: Where the same files are on a CDN, for a survey built with ``cdn=True``.
CDN = "https://unpkg.com"


def default_cache() -> Path:
    """``~/.cache/elot/npm`` (the CLI lets ``--npm-cache`` or ``ELOT_NPM_CACHE`` say otherwise)."""
    return Path.home() / ".cache" / "elot" / "npm"


def _folder(cache: Path) -> Path:
    tag = "-".join(f"{name.split('/')[-1]}@{version}" for name, version in PACKAGES.items())
    return cache / ("jspsych-" + hashlib.sha256(tag.encode()).hexdigest()[:12])


def _source(root: Path, name: str) -> Path:
    return root / "node_modules" / name / "dist" / "index.browser.min.js"


def install(cache: str | Path | None = None) -> Path:
    """The folder holding the pinned packages under ``cache``, installed with ``npm`` the
    first time (later calls find them there and need no network). Builds that run at once
    (two terminals, parallel tests) share the cache: one installs while the others wait
    for it, then find the packages there."""
    root = _folder(Path(cache) if cache is not None else default_cache())
    with _locked(root):     # never read a folder another build's npm is still writing
        if not _complete(root):
            _npm_install(root)
    return root


@contextlib.contextmanager
def _locked(root: Path):
    """Hold ``root``'s lock file (beside it, in the cache) while the body runs. A cache
    where no lock file can be made (read-only, installed by someone else) is only read."""
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        lock = open(root.parent / f".{root.name}.lock", "a") if fcntl is not None else None
    except OSError:
        lock = None
    if lock is None:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _npm_install(root: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise SurveyError("npm is not on the PATH: it installs jsPsych (once, into a cache)",
                          hint="install Node.js with npm (apt-get install npm), or build with --cdn to load "
                               "jsPsych from unpkg.com in the participant's browser")
    root.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    try:
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(root), *specs],
                              capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SurveyError(f"npm could not install jsPsych into {root}: {error}",
                          hint="check the network and the npm registry, or build with --cdn") from None
    if done.returncode != 0 or not _complete(root):
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise SurveyError(f"npm could not install jsPsych into {root}" + (f": {tail}" if tail else ""),
                          hint="check the network and the npm registry, or build with --cdn")


def _complete(root: Path) -> bool:
    if not (root / "node_modules" / "jspsych" / "css" / "jspsych.css").is_file():
        return False
    for name, version in PACKAGES.items():
        if not _source(root, name).is_file():
            return False
        try:
            if json.loads((root / "node_modules" / name / "package.json").read_text())["version"] != version:
                return False
        except (OSError, ValueError, KeyError):
            return False
    return True


def copy_into(root: Path, survey: Path) -> None:
    """Copy the browser builds and the CSS into ``survey/lib``."""
    (survey / "lib").mkdir(parents=True, exist_ok=True)
    for name, target in FILES.items():
        shutil.copyfile(_source(root, name), survey / target)
    shutil.copyfile(root / "node_modules" / "jspsych" / "css" / "jspsych.css", survey / CSS)


def urls(cdn: bool) -> tuple[list[str], str]:
    """The script URLs and the stylesheet URL the page loads (local copies or the CDN)."""
    if not cdn:
        return list(FILES.values()), CSS
    scripts = [f"{CDN}/{name}@{version}/dist/index.browser.min.js" for name, version in PACKAGES.items()]
    return scripts, f"{CDN}/jspsych@{PACKAGES['jspsych']}/css/jspsych.css"

