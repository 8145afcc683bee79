"""``elot survey build``: a stimulus set made into a jsPsych experiment.

The survey is a folder a researcher can read, adapt and host:

* ``index.html`` — the page (plain HTML and CSS) that loads jsPsych and ``experiment.js``;
* ``experiment.js`` — the experiment, from the readable template in
  ``elot/survey/template/``: consent, instructions, a tutorial with a comprehension check,
  then per scenario its start and each segment (an ``<img>`` of the animation, so it
  animates and can be replayed), at each judgment point the goal checkboxes (the gems drawn
  as in the stimuli) and the statements on 1–7 sliders, each to be set, and a debrief.
  The survey's description (:data:`CONFIG`) sits at its top as one JSON value;
* ``survey.json`` — the same description, which the server and ``elot survey import``
  read: each scenario with its id as ``elot batch`` and ``elot fit`` name it, its segments
  with the judgment point ``t`` each ends at (fit's convention: the number of actions
  taken; ``stimuli.json``'s ``times`` count from 1, so ``t = times[k] − 1``), its
  statements with their mode, and the counterbalanced orders (:mod:`elot.survey.design`);
* ``stimuli/`` — the animations, each set to play once (the stimulus set's loop forever);
* ``icons/`` — one small picture of each gem; ``lib/`` — jsPsych, copied from the npm cache.

The folder is an :class:`~elot.output.OwnedFolder`: written to a temporary folder beside
it and swapped into place, with a hidden manifest of the files elot wrote. An existing
survey is replaced without ``force`` only while every file elot wrote there is as it was
(a hand-edited ``experiment.js`` needs ``force``); files elot never wrote are kept; and
one that holds answers (:data:`DATABASE`) is never replaced, not even with ``force``,
checked before the build and again at the swap.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Sequence

from elot.errors import ElotError, load_json, read_text
from elot.output import OwnedFolder, same_file
from elot.survey import SurveyError
from elot.survey.design import Settings, duration_minutes, make_orders
from elot.survey.gifs import gif_timing, play_once

#: The description of a survey, in the survey folder.
CONFIG = "survey.json"
#: What ``survey.json`` says it is (how a survey folder is told from other folders).
KIND = "elot survey"
#: The database ``elot survey serve`` keeps in the survey folder unless told otherwise.
DATABASE = "responses.sqlite"
#: The 1–7 scale: a rating r is (r − 1) / 6 in the ratings file.
SCALE = (1, 7)
#: Where Prolific takes a participant back, with the study's code after ``cc=``.
PROLIFIC_RETURN = "https://app.prolific.com/submissions/complete?cc="
#: What a Prolific completion or screen-out code may hold (Prolific's codes are letters and digits).
PROLIFIC_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Built:
    folder: Path
    config: dict

    @property
    def formulas(self) -> list[str]:
        """The statements written as ELoT formulas (participants read them in English)."""
        from elot.lang.parser import looks_like_formula

        return [st["text"] for s in self.config["scenarios"] for st in s["statements"] if looks_like_formula(st["text"])]


def read_stimulus_set(folder: str | Path) -> list[dict]:
    """The entries of a stimulus set's ``stimuli.json``, checked (with its images)."""
    from elot.study.stimuli import INDEX, check_stimuli

    folder = Path(folder)
    hint = "give a folder written by elot stimuli (it holds stimuli.json and the animations)"
    if not folder.is_dir():
        raise SurveyError(f"{folder} is not a stimulus set: {'it is a file' if folder.exists() else 'no such folder'}",
                          hint=hint)
    index = folder / INDEX
    if not index.is_file():
        raise SurveyError(f"{folder} is not a stimulus set: it has no {INDEX}", hint=hint)
    data = load_json(read_text(index, "stimulus set"), path=str(index), hint=hint, error=SurveyError)
    unsafe = image_problems(data, folder)
    if unsafe:
        raise SurveyError(f"{index}: {unsafe[0]}", path=str(index), notes=tuple(unsafe[1:6]),
                          hint="an image is named by its file name alone, a file inside the stimulus set (as elot "
                               "stimuli writes it); the survey copies it into its own stimuli/ folder")
    problems = check_stimuli(data, folder)
    if problems:
        raise SurveyError(f"{index} is not a stimulus set elot can use: {problems[0]}", path=str(index),
                          notes=tuple(problems[1:6]), hint=hint)
    if not data:
        raise SurveyError(f"{index} lists no scenarios", path=str(index), hint=hint)
    return data


def image_problems(data, folder: Path) -> list[str]:
    """The image names in ``stimuli.json`` that are not a plain file name inside the
    stimulus set ``folder``: a path (``/``, ``\\``), ``.`` or ``..``, a drive letter, a NUL
    or other control character, or a link leading out of the set. ``build`` writes each
    image to ``stimuli/NAME`` in the survey, so such a name would write elsewhere (F1)."""
    if not isinstance(data, list):
        return []
    root = folder.resolve()
    out = []
    for n, entry in enumerate(data, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("images"), list):
            continue
        where = f"scenario {entry.get('name')!s}" if isinstance(entry.get("name"), str) else f"scenario {n}"
        for k, image in enumerate(entry["images"], start=1):
            if not isinstance(image, str):
                continue
            place = f"{where}, image {k} ({image!r})"
            if image in ("", ".", "..") or any(c in image for c in "/\\") or any(ord(c) < 32 for c in image):
                out.append(f"{place} is not a plain file name")
            elif len(image) >= 2 and image[1] == ":" and image[0].isascii() and image[0].isalpha():
                out.append(f"{place} names a drive")
            else:
                try:
                    inside = (folder / image).resolve().parent == root
                except (OSError, RuntimeError):      # a loop of links
                    inside = False
                if not inside:
                    out.append(f"{place} is a link leading out of the stimulus set")
    return out


def complete_entries(entries: list[dict], refs: Sequence | None, *, domain=None) -> list[dict]:
    """The entries, each with the scenario it shows found (named as fit names it), and what
    the survey asks of each that an older or hand-made ``stimuli.json`` leaves out (the
    paper's schema has no ``modes``, ``gems`` or ``judged``): read from the scenario each
    stimulus shows, among ``refs`` (what ``elot stimuli`` was
    given: :class:`~elot.study.references.ScenarioRef`) by the name it gave them, else each
    entry's ``scenario`` or name as ``domain`` (a :class:`~elot.study.references.DomainRef`)
    reads it. A scenario whose judgment points or goal are not the stimulus set's is
    another scenario: refused."""
    from elot.study.references import DomainRef, ScenarioRef
    from elot.study.stimuli import stimulus_name

    wanted = ("modes", "gems", "judged")
    domain = domain or DomainRef(entries[0].get("domain") if entries else None)   # the one the set records
    by_name: dict[str, object] = {}
    for ref in refs or ():
        name = stimulus_name(ref)
        by_name.setdefault(name, ref)
        prefix = getattr(ref.key, "exp", None)
        if prefix:
            by_name.setdefault(f"{prefix}_{name}", ref)
    out = []
    for entry in entries:
        name = entry["name"]
        ref, why = by_name.get(name), []
        if ref is None and not refs:   # the scenario as stimuli.json names it (elot stimuli writes it), else its name
            for candidate in ([entry["scenario"]] if isinstance(entry.get("scenario"), str) else []) + [name]:
                try:
                    found = domain.front().episodes(candidate)    # as a study reads it, named as batch names it
                    if len(found) != 1:
                        raise SurveyError(f"{candidate} names {len(found)} scenarios",
                                          hint="give --exp the one experiment the stimuli came from")
                    ref = ScenarioRef(found[0].reference, found[0].key, domain)
                    break
                except ElotError as error:   # kept: the reason is usually the fix (--exp, --data)
                    ref = None
                    why.append(error.message + (f" ({error.hint})" if error.hint else ""))
        if ref is None:
            raise SurveyError(f"cannot tell which scenario the stimulus {name!r} shows",
                              notes=tuple(dict.fromkeys(why)) if not refs else (),
                              hint="give the scenarios elot stimuli was given with --scenarios (the .scn files, "
                                   "plan ids or built-in names), or the --exp and --data they came from")
        front, episode = ref.front, ref.load()
        from elot.study.stimuli import times

        fields = front.stimulus_fields(episode)
        if times(front.stimulus_points(episode)) != entry["times"] or fields["goal"] != entry["goal"]:
            raise SurveyError(f"the stimulus {name!r} does not show the scenario {ref.name}: its judgment points or "
                              "goal differ", hint="render the stimulus set again, or give the scenarios it was "
                                                  "made from with --scenarios")
        if all(k in entry for k in wanted):      # elot stimuli wrote them: the scenario is found and checked
            out.append({**entry, "scenario": ref.name})
            continue
        items = list(front.questions(episode))
        given = entry.get("modes")
        if isinstance(given, list) and len(given) == len(entry["statements"]):   # stimuli.json says
            modes = list(given)
        elif [item.text for item in items] == list(entry["statements"]):   # as elot stimuli lists them
            modes = [item.mode for item in items]
        else:
            by_text = {}
            for item in items:
                by_text.setdefault(item.text, item.mode)
            modes = [by_text.get(text, "current") for text in entry["statements"]]
        out.append({**entry, "modes": modes, "gems": fields.get("gems", 0), "scenario": ref.name,
                    "judged": [time - 1 in episode.judged for time in entry["times"]]})
    return out


def describe(entries: list[dict], folder: Path) -> list[dict]:
    """The survey's scenario objects: id, gems to tick, segments with their t and whether
    it is judged, statements with their mode and the English shown."""
    out = []
    for entry in entries:
        texts, modes = entry["statements"], entry["modes"]
        shown = entry.get("shown")
        if not (isinstance(shown, list) and len(shown) == len(texts)):
            shown = [None] * len(texts)
        if not texts:
            raise SurveyError(f"scenario {entry['name']} has no statement to ask",
                              hint="render the set again with --statements FILE, or without it for the "
                                   "scenario's own questions")
        statements = [_statement(text, mode, said) for text, mode, said in zip(texts, modes, shown)]
        segments = []
        for image, time, judged in zip(entry["images"], entry["times"], entry["judged"]):
            frames, duration = gif_timing(folder / image)
            segments.append({"image": f"stimuli/{image}", "t": time - 1, "judged": bool(judged), "frames": frames,
                             "duration_ms": duration})
        if not any(s["judged"] for s in segments):
            raise SurveyError(f"scenario {entry['name']} has no judgment point to ask at")
        out.append({"name": entry["name"], "scenario": entry.get("scenario") or entry["name"], "goal": entry["goal"],
                    "gems": entry["gems"], "segments": segments, "statements": statements})
    return out


def default_condition(entries: list[dict], given: str) -> str:
    """The condition of a survey when none is asked for: ``given``, except that a scene that
    is not the gridworld's maze (a domain's: food trucks, a researcher's) asks what all its
    statements ask, when they share a mode (``initial`` for the food-truck questions)."""
    if entries[0].get("texts", "maze") == "maze":
        return given
    modes = {m for e in entries for m in (e.get("modes") or [])}
    return modes.pop() if len(modes) == 1 else given


def page_words(entries: list[dict]) -> dict:
    """What the survey's page speaks of (``texts``: its text set, ``maze`` unless the
    stimuli say; ``words``: the domain's words for the agent and the scene), the same
    for every scenario: a set mixing domains is refused."""
    domains = {e.get("domain") for e in entries}
    if len(domains) > 1:
        raise SurveyError("the stimulus set mixes scenarios of several domains ("
                          + ", ".join(sorted(str(d) for d in domains)) + ")",
                          hint="a survey is of one domain: render each into a set of its own")
    first = entries[0]
    out = {"texts": first.get("texts", "maze")}
    if first.get("words"):
        out["words"] = first["words"]
    return out


def _statement(text: str, mode: str, said: str | None = None) -> dict:
    """A statement of the survey: its ``text`` as written (what ``import`` gives ``fit``)
    and its ``mode``; a statement written in ELoT also has the English participants are
    shown (``shown``: the stimulus set's, in its domain's words, else the default words')."""
    from elot.lang.english import shown

    out = {"text": text, "mode": mode}
    said = said if said is not None else shown(text, mode)
    if said != text:
        out["shown"] = said
    return out


def gem_icon(index: int, path: Path, size_px: int = 64) -> None:
    """A PNG of the ``index``-th gem (0-based) painted as the stimuli paint it, its own
    shape and colour (:func:`elot.draw.marks.write_gem_icon`, the animations' painter)."""
    import matplotlib

    matplotlib.use("Agg")
    from elot.draw.marks import write_gem_icon

    write_gem_icon(index, path, size_px)


def owned_folder(folder: str | Path, *, force: bool = False) -> OwnedFolder:
    """The survey ``folder`` as elot writes it (see the module's docstring)."""
    target = Path(folder).expanduser()

    def no_answers(folder: Path) -> None:
        held = [name for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-journal") if os.path.lexists(folder / name)]
        if held:
            raise SurveyError(f"{target} holds answers ({held[0]}); not replacing it, not even with --force",
                              hint="build the new survey into another folder (or move the answers away first)")

    return OwnedFolder(target, KIND, what="survey", force=force, guard=no_answers, error=SurveyError)


def load_config(folder: str | Path) -> dict:
    """A built survey's ``survey.json``."""
    folder = Path(folder)
    path = folder / CONFIG
    hint = "give a folder written by elot survey build"
    if not folder.is_dir() or not path.is_file():
        raise SurveyError(f"{folder} is not a survey: it has no {CONFIG}", hint=hint)
    data = load_json(read_text(path, "survey"), path=str(path), hint=hint, error=SurveyError)
    if not isinstance(data, dict) or data.get("kind") != KIND or not isinstance(data.get("id"), str):
        raise SurveyError("this is not a survey elot built", path=str(path), hint=hint)
    problem = config_problem(data)
    if problem:      # the path is said once: the error's place
        raise SurveyError(problem, path=str(path),
                          hint="build the survey again (elot survey build), or undo the edit to survey.json")
    return data


def config_problem(config: dict) -> str | None:
    """What in a ``survey.json`` the server and ``import`` rely on is malformed (None when
    nothing): the scale (two whole numbers, low < high), the scenarios with their
    segments and statements, and the orders naming them."""
    scale = config.get("scale")
    if not (isinstance(scale, list) and len(scale) == 2 and all(type(v) is int for v in scale)
            and scale[0] < scale[1]):
        return f"\"scale\" must be two whole numbers, low < high (as [1, 7]), not {json.dumps(scale)[:40]}"
    scenarios = config.get("scenarios")
    if not isinstance(scenarios, list) or not scenarios:
        return "\"scenarios\" must be a list of the survey's scenarios"
    names = {}
    for n, scenario in enumerate(scenarios, start=1):
        if not (isinstance(scenario, dict) and isinstance(scenario.get("name"), str)
                and isinstance(scenario.get("scenario"), str) and type(scenario.get("gems")) is int
                and type(scenario.get("goal")) is int
                and isinstance(scenario.get("segments"), list) and scenario["segments"]
                and all(isinstance(g, dict) and type(g.get("t")) is int and isinstance(g.get("judged"), bool)
                        for g in scenario["segments"])
                and isinstance(scenario.get("statements"), list)
                and all(isinstance(st, dict) and isinstance(st.get("text"), str) and isinstance(st.get("mode"), str)
                        for st in scenario["statements"])):
            return f"scenario {n} is malformed (it needs name, scenario, gems, goal, segments and statements)"
        names[scenario["name"]] = len(scenario["statements"])
    orders = config.get("orders")
    if not isinstance(orders, list) or not orders:
        return "\"orders\" must be a list of at least one order (with none, no participant could be given one)"
    for n, order in enumerate(orders):
        if not (isinstance(order, dict) and isinstance(order.get("trials"), list) and order["trials"]):
            return f"order {n} is malformed (it needs its trials)"
        for trial in order["trials"]:
            if not (isinstance(trial, dict) and trial.get("scenario") in names
                    and isinstance(trial.get("statements"), list)
                    and all(type(k) is int and 0 <= k < names[trial["scenario"]] for k in trial["statements"])):
                return f"order {n} names a scenario or statement the survey does not have"
    return None


def prolific_codes(completion: str | None, screenout: str | None, *, completion_url: str = "") -> dict | None:
    """The survey's ``prolific`` entry: the completion code every participant who finished
    is sent back with, and the screen-out code those who failed both comprehension checks
    are sent back with instead (and at once: they see no scenario), each with its return
    URL. None without codes."""
    if completion is None and screenout is None:
        return None
    hint = "give the codes Prolific shows in the study's settings (letters and digits)"
    for option, code in (("--prolific-completion", completion), ("--prolific-screenout", screenout)):
        if code is not None and not PROLIFIC_CODE.fullmatch(code):
            raise SurveyError(f"{option} {code!r} is not a Prolific code", hint=hint)
    if completion is None:
        raise SurveyError("--prolific-screenout needs --prolific-completion",
                          hint="a screen-out code is for those who fail the checks; the others need the completion "
                               "code")
    if completion == screenout:
        raise SurveyError(f"the completion and screen-out codes are the same ({completion})",
                          hint="Prolific gives a study a separate code for participants who are screened out")
    if completion_url:
        raise SurveyError("both a completion URL and a Prolific completion code were given",
                          hint="give --prolific-completion (the survey makes Prolific's URL from it) or "
                               "--completion-url, not both")
    return {"completion": completion, "completion_url": PROLIFIC_RETURN + completion,
            "screenout": screenout, "screenout_url": PROLIFIC_RETURN + screenout if screenout else None}


def survey_id(config: dict) -> str:
    body = {k: v for k, v in config.items() if k != "id"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def build_survey(stimuli: str | Path, output: str | Path, settings: Settings, *, refs: Sequence | None = None,
                 domain=None, npm_cache: str | Path | None = None,
                 cdn: bool = False, force: bool = False, prolific: dict | None = None) -> Built:
    """Build the survey of the stimulus set ``stimuli`` into ``output`` (see the module's
    docstring; ``force`` replaces files changed since elot wrote them). jsPsych is
    installed into ``npm_cache`` with npm (once) and copied in, or, with ``cdn``, loaded
    from unpkg.com by the page. ``prolific``: the Prolific codes (:func:`prolific_codes`)."""
    from elot.survey import jspsych

    stimuli = Path(stimuli)
    entries = read_stimulus_set(stimuli)
    owned = owned_folder(output, force=force)
    if os.path.lexists(owned.target) and same_file(owned.target, stimuli):
        raise SurveyError(f"cannot write {owned.target}: it is the stimulus set the survey is built from",
                          hint="choose another folder for -o")
    target = owned.check()
    words = page_words(entries)
    scenarios = describe(complete_entries(entries, refs, domain=domain), stimuli)
    orders = make_orders(scenarios, settings)
    library = None if cdn else jspsych.install(npm_cache)
    scripts, css = jspsych.urls(cdn)
    config = {"kind": KIND, "version": 1, "title": settings.title, "settings": asdict(settings),
              "scale": list(SCALE), "scenarios": scenarios, "orders": orders,
              "gem_icons": [f"icons/gem-{n + 1}.png" for n in range(max(s["gems"] for s in scenarios))],
              "duration_minutes": duration_minutes(scenarios, orders)}
    if words["texts"] != "maze":
        config.update(words)   # the page's texts (experiment.js)
    if entries[0].get("domain"):
        config["domain"] = entries[0]["domain"]
    if prolific:
        config["prolific"] = prolific
    config["id"] = survey_id(config)
    with owned as temporary:
        (temporary / "stimuli").mkdir()
        (temporary / "icons").mkdir()
        for entry in entries:
            for image in entry["images"]:
                (temporary / "stimuli" / image).write_bytes(play_once((stimuli / image).read_bytes()))
        for n, icon in enumerate(config["gem_icons"]):
            gem_icon(n, temporary / icon)
        if library is not None:
            jspsych.copy_into(library, temporary)
        (temporary / CONFIG).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        (temporary / "experiment.js").write_text(render_script(config), encoding="utf-8")
        (temporary / "index.html").write_text(render_page(config, scripts, css), encoding="utf-8")
        owned.commit()
    return Built(target, config)


def _template(name: str) -> str:
    return resources.files("elot.survey").joinpath("template", name).read_text(encoding="utf-8")


def render_script(config: dict) -> str:
    """``experiment.js``: the template with the survey's description at its top. The JSON
    is written with ``<``, ``>`` and ``&`` escaped, so no text in it can close a script."""
    text = json.dumps(config, indent=1, ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return _template("experiment.js").replace("/*SURVEY*/null", text, 1)


def render_page(config: dict, scripts: list[str], css: str) -> str:
    """``index.html``: the page that loads jsPsych, its plugins and ``experiment.js``."""
    from html import escape

    tags = "\n".join(f'  <script src="{escape(src)}"></script>' for src in scripts)
    return (_template("index.html").replace("{{title}}", escape(config["title"]))
            .replace("{{css}}", escape(css)).replace("{{scripts}}", tags))
