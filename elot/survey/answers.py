"""``elot survey import``: what participants answered, into the files the analysis reads.

Answers come from the server's database (a survey folder, or its ``responses.sqlite``),
from JATOS's results (its results archive, ``study_result_N/comp-result_M/data.txt`` with
a trial per line as the page appends them, or the same data exported as text) and from
jsPsych's own exports (what Pavlovia or the page's download give): JSON (a list of
trials, or one list or trial per line) or CSV (one trial per row, lists as JSON in their
cells). Each trial is checked as the server checks it; a malformed or partial file, JSON
nested too deeply to read, an order the survey does not have, is an error naming the file
and the row. A later session of a participant (flagged by the server in
``participants.duplicate_of``, or another JATOS study result of the same PROLIFIC_PID) is
a duplicate.

Three files come out, all or none (:func:`write_all`), every cell a spreadsheet would run
as a formula neutralised (:func:`spreadsheet_safe`):

* the **ratings** ``elot fit`` reads — ``scenario`` (as batch and fit name it), ``mode``,
  ``t`` (fit's convention: the number of actions taken; ``stimuli.json``'s ``times`` are
  ``t + 1``; every ``t`` is a judgment point of its scenario), ``statement``, ``rating``
  (the 1–7 answer as (r − 1) / 6, in [0, 1]) and ``participant``; control scenarios are
  not in it;
* the **goal answers** — one row per participant and judgment point: the gems ticked, the
  true goal, the goal score (1 / the number ticked when the true goal is among them, else
  0: the chance of the true goal if the ticks were a guess) and the participant's exclusion;
* the **raw trial table** (:data:`RAW_COLUMNS`) — one row per response of every session:
  positions, response times, goal answers and the exclusion flags.

Exclusions are rules (:class:`Rules`): an incomplete session, a failed comprehension check
(no attempt passed), a duplicate session, a mean goal score below a threshold. Excluded participants give no
ratings; the summary says who was excluded and why.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from elot.errors import load_json, printable, read_text
from elot.survey import SurveyError, shown_value
from elot.survey.build import CONFIG, DATABASE, load_config
from elot.survey.duplicates import decide_duplicates
from elot.survey.server import check_trial, steps_of
from elot.survey.store import MAX_VALUE_BYTES, open_existing, read_problem

RATING_COLUMNS = ("scenario", "mode", "t", "statement", "rating", "participant")
GOAL_COLUMNS = ("participant", "scenario", "stimulus", "t", "goal", "ticked", "gems", "score", "control", "excluded")
#: The tidy trial table (``--raw``): one row per response (see docs/experiments.md).
RAW_COLUMNS = ("participant", "session", "order", "condition", "trial", "scenario_position", "scenario", "stimulus",
               "control", "segment", "t", "statement_position", "statement", "mode", "response", "rating",
               "rt_ms", "goals_ticked", "goal", "goal_score", "failed_check", "duplicate", "incomplete",
               "excluded")
#: The largest export read (a study of thousands of sessions is a few hundred MB).
MAX_EXPORT_BYTES = 1 << 30
#: jsPsych CSV cells that hold JSON (lists, booleans, numbers).
JSON_CELLS = ("elot_goals", "elot_ratings", "elot_statements", "elot_t", "elot_passed", "elot_control",
              "elot_segment", "order", "response")


@dataclass(frozen=True)
class Rules:
    """Who is excluded: ``min_goal_score`` (mean goal score below it), ``incomplete``
    (sessions that did not reach every judgment point), ``failed_check`` (no
    comprehension attempt passed)."""

    min_goal_score: float = 0.5
    exclude_incomplete: bool = True
    exclude_failed_check: bool = True
    exclude_duplicates: bool = True

    def __post_init__(self) -> None:
        import math

        if not isinstance(self.min_goal_score, (int, float)) or not math.isfinite(self.min_goal_score) \
                or not 0 <= self.min_goal_score <= 1:
            raise SurveyError(f"the minimum goal score must be a number from 0 to 1, not {self.min_goal_score}",
                              hint="a goal score is the chance of the true goal among the gems ticked: 0 to 1")


@dataclass
class Participant:
    participant: str
    order: int
    trials: dict[str, tuple[dict, str]] = field(default_factory=dict)   # step -> (data, where it was read)
    reasons: list[str] = field(default_factory=list)
    goal_score: float | None = None
    complete: bool = False
    session: str = ""                  # the database's row id, JATOS's study result, or the page's own
    duplicate_of: str | None = None    # set when another session has its PROLIFIC_PID: the session kept ("": none)
    where: str = ""                    # where the participant was read (for messages)
    failed_check: bool = False
    prolific_pid: str = ""             # the PROLIFIC_PID it came with (for exports: else its name)
    prolific_session: str = ""         # Prolific's SESSION_ID, which Prolific's list of submissions shows
    first: str | None = None           # the server's duplicate_of: the row of the first session of its PID
    identity: str | None = None        # whose sessions it is one of: its PROLIFIC_PID (None: nobody's but its own)
    duplicate_why: str = ""            # why it is a duplicate, as the exclusion says

    @property
    def label(self) -> str:
        """The session as messages name it (its text :func:`~elot.errors.printable`)."""
        return printable(self.session or self.participant, 60)


@dataclass
class Imported:
    ratings: list[dict]
    goals: list[dict]
    participants: list[Participant]
    raw: list[dict] = field(default_factory=list)

    @property
    def duplicates(self) -> list[Participant]:
        return [p for p in self.participants if p.duplicate_of is not None]

    @property
    def excluded(self) -> list[Participant]:
        return [p for p in self.participants if p.reasons]


def _database_participants(path: Path, config: dict) -> list[Participant]:
    """Every session of a served survey's database, with its trials, its PROLIFIC_PID and
    SESSION_ID and the first session of its PID as the server recorded it
    (``participants.duplicate_of``, absent from older databases). The database is read
    within :func:`~elot.survey.store.bounded`'s limits, and at most
    :data:`MAX_EXPORT_BYTES` of trial data."""
    connection = open_existing(path, config["id"])
    hint = "give the responses.sqlite of a served survey"
    out = []
    total = 0
    where = str(path)
    try:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(participants)")}
        duplicate = "duplicate_of" if "duplicate_of" in columns else "NULL"
        rows = connection.execute(f"SELECT id, participant, order_index, prolific_pid, session_id, {duplicate} "
                                  "FROM participants ORDER BY id").fetchall()
        for pid, participant, order, prolific, prolific_session, first in rows:
            where = f"{path}: participant {printable(participant, 60)}"
            if not isinstance(participant, str) or not participant:
                raise SurveyError(f"{path}: participant row {printable(pid, 40)} has no participant name", hint=hint)
            if type(order) is not int:
                raise SurveyError(f"{where}: order {printable(repr(order), 40)} is not a whole number", hint=hint)
            person = Participant(participant, order, session=str(pid), where=where,
                                 prolific_pid=prolific if isinstance(prolific, str) else "",
                                 prolific_session=prolific_session if isinstance(prolific_session, str) else "",
                                 first=None if first is None else str(first))
            for step, text in connection.execute("SELECT step, data FROM trials WHERE participant_id = ? "
                                                 "ORDER BY received", (pid,)):
                place = f"{where}, step {printable(step, 60)}"
                if not isinstance(text, (str, bytes)):
                    raise SurveyError(f"{place}: the trial's data is not text", hint=hint)
                total += len(text)
                if len(text) > MAX_VALUE_BYTES or total > MAX_EXPORT_BYTES:
                    raise SurveyError(f"{place}: " + (f"the trial's data is larger than {MAX_VALUE_BYTES >> 20} MiB "
                                                      "(the server stores at most 64 KB a trial)"
                                                      if len(text) > MAX_VALUE_BYTES else
                                                      f"the database holds more than {MAX_EXPORT_BYTES >> 20} MiB "
                                                      "of trial data, more than import reads"), hint=hint)
                data = _loads(text, place, hint)
                if not isinstance(data, dict):
                    raise SurveyError(f"{place}: the trial's data is not a JSON object", hint=hint)
                person.trials.setdefault(str(step), (data, place))
            out.append(person)
    except sqlite3.DatabaseError as error:
        raise SurveyError(f"cannot read {where}: {read_problem(error)}", hint=hint) from None
    finally:
        connection.close()
    rows_by_id = {person.session: person for person in out}
    for person in out:      # the server's link names the first session of the same PID
        root = rows_by_id.get(person.first) if person.first is not None else None
        person.identity = (root.prolific_pid or root.participant) if root is not None else (person.prolific_pid or None)
    return out


def _loads(text: str | bytes, where: str, hint: str):
    """One JSON value, or a SurveyError at ``where``: not JSON, nested too deeply (Python's
    reader gives up long before memory does), a number too long to read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise SurveyError(f"{where}: JSON nested too deeply to read", hint=hint) from None
    except (ValueError, UnicodeDecodeError) as error:
        message = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise SurveyError(f"{where}: not valid JSON ({message[:80]})", hint=hint) from None


def _json_trials(path: Path, text: str | None = None, *, label: str | None = None) -> list[tuple[dict, str]]:
    """The trials of a jsPsych JSON export: one document (a list of trials, or one trial),
    or one JSON value per line — JATOS's plain-text export of several results, and the
    ``data.txt`` of a result the page filled trial by trial (``jatos.appendResultData``)."""
    label = label or str(path)
    if text is None:
        _check_size(path)
        text = read_text(path, "jsPsych export")
    hint = "give jsPsych's JSON export (jsPsych.data.get().json()), or JATOS's export of it"
    stripped = text.strip()
    if not stripped:
        raise SurveyError(f"{label} is empty", hint=hint)
    try:
        values = [json.loads(text)]
    except RecursionError:
        raise SurveyError(f"{label}: JSON nested too deeply to read", hint=hint) from None
    except ValueError:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        try:
            json.loads(lines[0][1])
        except RecursionError:
            raise SurveyError(f"{label}:{lines[0][0]}: JSON nested too deeply to read", hint=hint) from None
        except ValueError:   # one document, broken (cut off, say): say where
            load_json(text, path=label, hint=hint, error=SurveyError)
        # JATOS: one result (a list of trials) or one trial per line
        values = [_loads(line, f"{label}:{n}", hint) for n, line in lines]
    out = []
    for value in values:
        trials = value if isinstance(value, list) else [value]
        for trial in trials:
            if not isinstance(trial, dict):
                raise SurveyError(f"{label}: trial {len(out) + 1} is not an object", hint=hint)
            out.append((trial, f"{label}: trial {len(out) + 1}"))
    return out


def _check_size(path: Path) -> None:
    try:
        size = path.stat().st_size
    except OSError:
        return                      # read_text says what is wrong
    if size > MAX_EXPORT_BYTES:
        raise SurveyError(f"{path} is larger than {MAX_EXPORT_BYTES >> 20} MiB", hint="split the export, or import "
                          "the server's database")


def _jatos_archive_trials(path: Path) -> list[tuple[dict, str, str]]:
    """The trials of JATOS's results archive (:func:`elot.survey.archive.results`, within
    its limits): each ``study_result_N/comp-result_M/data.txt`` holds one component
    result's data (here a trial per line); N, the study result, is the session."""
    from elot.survey.archive import results

    out = []
    for text, label, result in results(path):
        out += [(trial, where, result) for trial, where in _json_trials(path, text, label=label)]
    return out


def _csv_trials(path: Path) -> list[tuple[dict, str]]:
    text = read_text(path, "jsPsych export")
    reader = csv.reader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as error:
        raise SurveyError(f"{path}:{reader.line_num}: cannot read this CSV: {error}") from None
    if not rows:
        raise SurveyError(f"{path} is empty", hint="give jsPsych's CSV export")
    header = rows[0]
    if "elot_step" not in header or "participant" not in header:
        raise SurveyError(f"{path} is not a jsPsych export of an elot survey: no elot_step or participant column",
                          hint="give jsPsych's CSV export (jsPsych.data.get().csv())")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise SurveyError(f"{path}:{line}: row {line} has {len(row)} fields, the header {len(header)} "
                              "(a partial export?)", hint="export the data again, whole")
        trial = {}
        for name, cell in zip(header, row):
            if name in JSON_CELLS and cell != "":
                try:
                    cell = json.loads(cell)
                except RecursionError:
                    raise SurveyError(f"{path}:{line}: column {name} holds JSON nested too deeply to read",
                                      hint="export the data again, whole") from None
                except ValueError:
                    raise SurveyError(f"{path}:{line}: column {name} holds {cell[:40]!r}, which is not JSON",
                                      hint="export the data again, whole") from None
            trial[name] = cell
        out.append((trial, f"{path}:{line}"))
    return out


def _export_participants(path: Path, config: dict) -> list[Participant]:
    if path.suffix.lower() in (".zip", ".jrzip"):
        trials = _jatos_archive_trials(path)
    else:
        _check_size(path)
        trials = [(data, where, None) for data, where in
                  (_csv_trials(path) if path.suffix.lower() == ".csv" else _json_trials(path))]
    people: dict[tuple[str, str], Participant] = {}
    for data, where, result in trials:
        step = data.get("elot_step")
        if not step:
            continue       # preload and other screens that are not the survey's steps
        if not isinstance(step, str):
            raise SurveyError(f"{where}: elot_step {shown_value(step, 40)} is not a step name",
                              hint="the file is not an intact export of this survey")
        if data.get("survey_id") != config["id"]:
            raise SurveyError(f"{where}: an answer to another survey ({shown_value(data.get('survey_id'), 40)}, "
                              f"this one is {config['id']})", hint="import each survey's answers with its own --survey")
        participant, order = data.get("participant"), data.get("order")
        if not isinstance(participant, str) or not participant:
            raise SurveyError(f"{where}: no participant", hint="export the data again, whole")
        if type(order) is not int or not 0 <= order < len(config["orders"]):
            raise SurveyError(f"{where}: order {shown_value(order, 40)} is not one of the survey's "
                              f"(0 to {len(config['orders']) - 1})", hint="import each survey's answers with its "
                                                                          "own --survey")
        session = result if result is not None else data.get("elot_session")
        session = str(session)[:100] if isinstance(session, (str, int)) and not isinstance(session, bool) else ""
        prolific = data.get("prolific_pid")
        prolific_session = data.get("session_id")
        named = prolific.strip() if isinstance(prolific, str) and prolific.strip() else participant
        person = people.setdefault((participant, session), Participant(
            participant, order, session=session, where=where, prolific_pid=named, identity=named,
            prolific_session=prolific_session if isinstance(prolific_session, str) else ""))
        if person.order != order:
            raise SurveyError(f"{where}: participant {printable(participant, 60)} has two orders ({person.order} "
                              f"and {order})", hint="the file is not an intact export of this survey")
        person.trials.setdefault(step, (data, where))
    return list(people.values())


def read_participants(paths: Sequence[str | Path], config: dict) -> list[Participant]:
    """Every session of the answers in ``paths`` (survey folders, databases, exports). The
    same participant's trials from several files are one session when no file tells
    sessions apart. Which of the sessions of one PROLIFIC_PID is kept is decided once
    every session is read and checked (:func:`~elot.survey.duplicates.decide_duplicates`)."""
    merged: dict[tuple[str, str], Participant] = {}
    by_name: dict[str, list[Participant]] = {}
    for path in map(Path, paths):
        if path.is_dir():
            if not (path / DATABASE).is_file():
                raise SurveyError(f"{path} holds no answers ({DATABASE})",
                                  hint="give a survey folder that was served, a database, or a jsPsych export")
            found = _database_participants(path / DATABASE, config)
        elif not path.is_file():
            raise SurveyError(f"{path}: no such file", hint="give a survey folder, a database or a jsPsych export")
        elif _head(path) == b"SQLite format 3\x00":
            found = _database_participants(path, config)
        elif path.suffix.lower() in (".json", ".csv", ".txt", ".jsonl", ".zip", ".jrzip"):
            found = _export_participants(path, config)
        else:
            raise SurveyError(f"{path} is neither a database nor a JSON or CSV export",
                              hint="give a survey folder, responses.sqlite, jsPsych's .json or .csv, or JATOS's "
                                   "results (.txt, .jrzip)")
        for person in found:
            key = (person.participant, person.session)
            known = merged.get(key) or next((p for p in by_name.get(person.participant, ())
                                             if not (p.session and person.session)), None)
            if known is None:
                merged[key] = person
                by_name.setdefault(person.participant, []).append(person)
                continue
            if not known.session:        # a file that does not tell sessions apart, and one that does
                known.session, known.first = person.session, person.first
                known.identity = known.identity or person.identity
            if known.order != person.order:
                raise SurveyError(f"participant {printable(person.participant, 60)} has order {known.order} in one "
                                  f"file and {person.order} in another", hint="import each survey's answers once")
            for step, value in person.trials.items():
                known.trials.setdefault(step, value)
    return list(merged.values())


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(16)
    except OSError as error:
        raise SurveyError(f"cannot read {path}: {error.strerror or error}", hint="check the path") from None


def survey_of(paths: Sequence[str | Path], survey: str | Path | None) -> dict:
    """The description of the survey the answers belong to: ``survey``, else the one
    survey folder (or the folder of the one database) among ``paths``."""
    if survey is not None:
        return load_config(survey)
    for path in map(Path, paths):
        folder = path if path.is_dir() else path.parent
        if (folder / CONFIG).is_file() and (path.is_dir() or path.suffix == ".sqlite"):
            return load_config(folder)
    raise SurveyError("which survey are these answers to?", hint="give the survey folder with --survey")


def import_answers(paths: Sequence[str | Path], config: dict, rules: Rules = Rules()) -> Imported:
    """Read, check and score the answers (see the module's docstring)."""
    people = read_participants(paths, config)
    if not people:
        raise SurveyError("no participant's answers in " + ", ".join(map(str, paths)))
    scenarios = {s["name"]: s for s in config["scenarios"]}
    low, high = config["scale"]
    ratings: list[dict] = []
    goals: list[dict] = []
    raw: list[dict] = []
    for person in people:     # every trial checked, and who completed, before any is scored
        if not 0 <= person.order < len(config["orders"]):
            raise SurveyError(f"{person.where or printable(person.participant, 60)}: order {person.order} is not one "
                              f"of the survey's (0 to {len(config['orders']) - 1})",
                              hint="give the survey these answers belong to with --survey")
        order = config["orders"][person.order]
        steps = steps_of(config, order)
        for step, (data, where) in person.trials.items():
            problem = check_trial(config, order, step, data)
            if problem:
                raise SurveyError(f"{where}: {problem}", hint="the file is not an intact export of this survey "
                                  "(nothing was written)")
        judged = [s for s, (kind, _, _) in steps.items() if kind == "judgment"]
        person.complete = all(s in person.trials for s in judged) and "debrief" in person.trials
    decide_duplicates(people)
    for person in people:
        order = config["orders"][person.order]
        steps = steps_of(config, order)
        judged = [s for s, (kind, _, _) in steps.items() if kind == "judgment"]
        answered = [s for s in judged if s in person.trials]
        declined = "consent" in person.trials and person.trials["consent"][0].get("elot_agreed") is False
        checks = [person.trials[s][0] for s in ("check-1", "check-2") if s in person.trials]
        person.failed_check = bool(checks) and not any(c.get("elot_passed") is True for c in checks)
        if declined:
            person.reasons.append("did not consent")
        elif not person.complete and rules.exclude_incomplete:
            person.reasons.append(f"incomplete ({len(answered)} of {len(judged)} judgment points)")
        if rules.exclude_failed_check and person.failed_check:
            person.reasons.append(f"failed the comprehension check ({len(checks)} "
                                  f"attempt{'s' if len(checks) > 1 else ''})")
        if rules.exclude_duplicates and person.duplicate_of is not None:
            person.reasons.append(person.duplicate_why)
        scores = []
        rows = []
        mine: list[dict] = []
        responses: list[dict] = []
        for step in answered:
            data = person.trials[step][0]
            _, trial, segment = steps[step]
            scenario = scenarios[trial["scenario"]]
            ticked = data["elot_goals"]
            score = 1 / len(ticked) if scenario["goal"] in ticked else 0.0
            asked = scenario["gems"] > 0       # a food-truck survey asks no goal question
            if asked:
                scores.append(score)
                rows.append({"participant": person.participant, "scenario": scenario["scenario"],
                             "stimulus": scenario["name"], "t": segment["t"], "goal": scenario["goal"],
                             "ticked": " ".join(map(str, ticked)), "gems": scenario["gems"], "score": f"{score:.4g}",
                             "control": int(bool(trial["control"]))})
            position, k = (int(part) for part in step[1:].split("-"))     # the step s{position}-{segment}
            common = {"participant": person.participant, "session": person.session, "order": person.order,
                      "condition": order.get("condition", ""),
                      "trial": data["trial_index"] if type(data.get("trial_index")) is int else "",
                      "scenario_position": position, "scenario": scenario["scenario"], "stimulus": scenario["name"],
                      "control": int(bool(trial["control"])), "segment": k,
                      "t": segment["t"], "rt_ms": _milliseconds(data.get("rt")),
                      "goals_ticked": " ".join(map(str, ticked)), "goal": scenario["goal"],
                      "goal_score": f"{score:.4g}" if asked else ""}
            pairs = list(zip(trial["statements"], data["elot_ratings"]))
            for shown, (n, value) in enumerate(pairs or [(None, None)], start=1):
                statement = scenario["statements"][n] if n is not None else {"text": "", "mode": ""}
                rating = "" if value is None else f"{(value - low) / (high - low):.6g}"
                responses.append({**common, "statement_position": shown if n is not None else "",
                                  "statement": statement["text"], "mode": statement["mode"],
                                  "response": "" if value is None else value, "rating": rating})
                if trial["control"] or n is None:
                    continue
                mine.append({"scenario": scenario["scenario"], "mode": statement["mode"], "t": segment["t"],
                             "statement": statement["text"], "rating": rating, "participant": person.participant})
        person.goal_score = sum(scores) / len(scores) if scores else None
        if person.goal_score is not None and person.goal_score < rules.min_goal_score:
            person.reasons.append(f"goal score {person.goal_score:.2f} < {rules.min_goal_score:g}")
        for row in rows:
            row["excluded"] = "; ".join(person.reasons)
        flags = {"failed_check": int(person.failed_check), "duplicate": int(person.duplicate_of is not None),
                 "incomplete": int(not person.complete), "excluded": "; ".join(person.reasons)}
        raw += [{**row, **flags} for row in responses]
        goals += rows
        if not person.reasons:
            ratings += mine
    return Imported(ratings, goals, people, raw)


def _milliseconds(rt) -> str:
    """jsPsych's response time as the raw table has it: a whole number of ms, or empty when
    it is not a finite number (NaN, a bool, text, a whole number past any float)."""
    if isinstance(rt, bool) or not isinstance(rt, (int, float)):
        return ""
    try:
        value = float(rt)
    except OverflowError:
        return ""
    return f"{value:.0f}" if math.isfinite(value) else ""


#: What a spreadsheet takes a cell starting with for a formula (or, for tab and carriage
#: return, for the start of one after it strips them).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_safe(rows: Sequence[dict]) -> list[dict]:
    """``rows`` with every text cell a spreadsheet would run as a formula (one starting
    with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) prefixed with ``'``, which
    spreadsheets read as "text follows" and do not show; a number, negative ones included,
    is left as it is. Participant ids and whatever else came from a browser reach these
    files, and a researcher opens them in a spreadsheet (F8)."""
    return [{key: _safe(value) for key, value in row.items()} for row in rows]


def _safe(value):
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_all(outputs: Sequence[tuple[str, str, str]], *, force: bool = False, inputs: Sequence = ()) -> list[str]:
    """Write every ``(path, text, option)`` of ``outputs``, or none: each target is checked
    first (not an input, not two outputs on one file, an existing file replaced only as
    :func:`~elot.output.write_output` allows), and when a write still fails (a full disk)
    the files already written are put back as they were. Returns the names written."""
    import os

    from elot.output import STDOUT, check_target, same_file, sidecar, write_output

    targets = []
    for path, _, option in outputs:
        target = check_target(path, force=force, option=option, inputs=inputs)
        for other, other_option in targets:
            if str(path) == STDOUT and str(other) == STDOUT or str(path) != STDOUT and (
                    os.path.abspath(target) == os.path.abspath(other) or same_file(target, other)):
                raise SurveyError(f"{option} and {other_option} name the same file ({path})",
                                  hint="give each output its own file")
        targets.append((target, option))
    saved = []
    for target, _ in targets:
        if str(target) == STDOUT:
            saved.append(None)
            continue
        before = {}
        for path in (target, sidecar(target)):
            try:
                before[path] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            except OSError:
                before[path] = None
        saved.append(before)
    written: list[str] = []
    try:
        for (path, text, option), _ in zip(outputs, targets):
            written.append(write_output(path, text, force=force, option=option, inputs=inputs))
    except BaseException:
        for before in saved[:len(written)]:
            for path, data in (before or {}).items():
                try:
                    if data is None:
                        if os.path.lexists(path):
                            os.unlink(path)
                    else:
                        path.write_bytes(data)
                except OSError:
                    pass
        raise
    return written
