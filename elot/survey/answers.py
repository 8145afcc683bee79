"""``elot survey import``: what participants answered, into the files the analysis reads.

Answers come from the server's database (a survey folder, or its ``responses.sqlite``)
and from jsPsych's own exports (what JATOS, Pavlovia or the page's download give): JSON (a
list of trials, or one list per line) or CSV (one trial per row, lists as JSON in their
cells). Each trial is checked as the server checks it; a malformed or partial file is an
error naming the file and the row.

Two files come out:

* the **ratings** ``elot fit`` reads — ``scenario`` (as batch and fit name it), ``mode``,
  ``t`` (fit's convention: the number of actions taken; ``stimuli.json``'s ``times`` are
  ``t + 1``; every ``t`` is a judgment point of its scenario), ``statement``, ``rating``
  (the 1–7 answer as (r − 1) / 6, in [0, 1]) and ``participant``; control scenarios are
  not in it;
* the **goal answers** — one row per participant and judgment point: the gems ticked, the
  true goal, the goal score (1 / the number ticked when the true goal is among them, else
  0: the chance of the true goal if the ticks were a guess) and the participant's exclusion.

Exclusions are rules (:class:`Rules`): an incomplete session, a failed comprehension check
(no attempt passed), a mean goal score below a threshold. Excluded participants give no
ratings; the summary says who was excluded and why.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from elot.errors import load_json, read_text
from elot.survey import SurveyError
from elot.survey.build import CONFIG, DATABASE, load_config
from elot.survey.server import check_trial, steps_of
from elot.survey.store import open_existing, read_answers

RATING_COLUMNS = ("scenario", "mode", "t", "statement", "rating", "participant")
GOAL_COLUMNS = ("participant", "scenario", "stimulus", "t", "goal", "ticked", "gems", "score", "control", "excluded")
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


@dataclass
class Participant:
    participant: str
    order: int
    trials: dict[str, tuple[dict, str]] = field(default_factory=dict)   # step -> (data, where it was read)
    reasons: list[str] = field(default_factory=list)
    goal_score: float | None = None
    complete: bool = False


@dataclass
class Imported:
    ratings: list[dict]
    goals: list[dict]
    participants: list[Participant]

    @property
    def excluded(self) -> list[Participant]:
        return [p for p in self.participants if p.reasons]


def _database_participants(path: Path, config: dict) -> list[Participant]:
    connection = open_existing(path, config["id"])
    try:
        rows = read_answers(connection)
    except sqlite3.DatabaseError as error:
        raise SurveyError(f"cannot read {path}: {error}", hint="give the responses.sqlite of a served survey") from None
    finally:
        connection.close()
    out = []
    for row in rows:
        person = Participant(row["participant"], row["order"])
        for step, data in row["trials"].items():
            person.trials[step] = (data, f"{path}: participant {row['participant']}, step {step}")
        out.append(person)
    return out


def _json_trials(path: Path) -> list[tuple[dict, str]]:
    text = read_text(path, "jsPsych export")
    hint = "give jsPsych's JSON export (jsPsych.data.get().json()), or JATOS's export of it"
    stripped = text.strip()
    if not stripped:
        raise SurveyError(f"{path} is empty", hint=hint)
    try:
        values = [json.loads(text)]
    except ValueError:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        try:
            json.loads(lines[0][1])
        except ValueError:   # one document, broken (cut off, say): say where
            load_json(text, path=str(path), hint=hint, error=SurveyError)
        # JATOS: one result (a list of trials) per line
        values = [load_json(line, path=f"{path}:{n}", hint=hint, error=SurveyError) for n, line in lines]
    out = []
    for value in values:
        trials = value if isinstance(value, list) else [value]
        for trial in trials:
            if not isinstance(trial, dict):
                raise SurveyError(f"{path}: trial {len(out) + 1} is not an object", hint=hint)
            out.append((trial, f"{path}: trial {len(out) + 1}"))
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
                except ValueError:
                    raise SurveyError(f"{path}:{line}: column {name} holds {cell[:40]!r}, which is not JSON",
                                      hint="export the data again, whole") from None
            trial[name] = cell
        out.append((trial, f"{path}:{line}"))
    return out


def _export_participants(path: Path, config: dict) -> list[Participant]:
    trials = _csv_trials(path) if path.suffix.lower() == ".csv" else _json_trials(path)
    people: dict[str, Participant] = {}
    for data, where in trials:
        step = data.get("elot_step")
        if not step:
            continue       # preload and other screens that are not the survey's steps
        if data.get("survey_id") != config["id"]:
            raise SurveyError(f"{where}: an answer to another survey ({data.get('survey_id')!r}, this one is "
                              f"{config['id']})", hint="import each survey's answers with its own "
                                                                        "--survey")
        participant, order = data.get("participant"), data.get("order")
        if not isinstance(participant, str) or not participant:
            raise SurveyError(f"{where}: no participant", hint="export the data again, whole")
        if type(order) is not int or not 0 <= order < len(config["orders"]):
            raise SurveyError(f"{where}: order {order!r} is not one of the survey's")
        person = people.setdefault(participant, Participant(participant, order))
        if person.order != order:
            raise SurveyError(f"{where}: participant {participant} has two orders")
        person.trials.setdefault(step, (data, where))
    return list(people.values())


def read_participants(paths: Sequence[str | Path], config: dict) -> list[Participant]:
    """Every participant of the answers in ``paths`` (survey folders, databases, exports)."""
    merged: dict[str, Participant] = {}
    for path in map(Path, paths):
        if path.is_dir():
            if not (path / DATABASE).is_file():
                raise SurveyError(f"{path} holds no answers ({DATABASE})",
                                  hint="give a survey folder that was served, a database, or a jsPsych export")
            found = _database_participants(path / DATABASE, config)
        elif not path.is_file():
            raise SurveyError(f"{path}: no such file", hint="give a survey folder, a database or a jsPsych export")
        elif path.read_bytes()[:16] == b"SQLite format 3\x00":
            found = _database_participants(path, config)
        elif path.suffix.lower() in (".json", ".csv", ".txt", ".jsonl"):
            found = _export_participants(path, config)
        else:
            raise SurveyError(f"{path} is neither a database nor a JSON or CSV export",
                              hint="give a survey folder, responses.sqlite, or jsPsych's .json or .csv")
        for person in found:
            known = merged.get(person.participant)
            if known is None:
                merged[person.participant] = person
                continue
            if known.order != person.order:
                raise SurveyError(f"participant {person.participant} has order {known.order} in one file and "
                                  f"{person.order} in another", hint="import each survey's answers once")
            for step, value in person.trials.items():
                known.trials.setdefault(step, value)
    return list(merged.values())


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
    ratings: list[dict] = []
    goals: list[dict] = []
    for person in people:
        order = config["orders"][person.order]
        steps = steps_of(config, order)
        judged = [s for s, (kind, _, _) in steps.items() if kind == "judgment"]
        for step, (data, where) in person.trials.items():
            problem = check_trial(config, order, step, data)
            if problem:
                raise SurveyError(f"{where}: {problem}", hint="the file is not an intact export of this survey")
        answered = [s for s in judged if s in person.trials]
        person.complete = len(answered) == len(judged) and "debrief" in person.trials
        declined = "consent" in person.trials and person.trials["consent"][0].get("elot_agreed") is False
        if declined:
            person.reasons.append("did not consent")
        elif not person.complete and rules.exclude_incomplete:
            person.reasons.append(f"incomplete ({len(answered)} of {len(judged)} judgment points)")
        checks = [person.trials[s][0] for s in ("check-1", "check-2") if s in person.trials]
        if rules.exclude_failed_check and checks and not any(c.get("elot_passed") is True for c in checks):
            person.reasons.append(f"failed the comprehension check ({len(checks)} "
                                  f"attempt{'s' if len(checks) > 1 else ''})")
        scores = []
        rows = []
        for step in answered:
            data = person.trials[step][0]
            _, trial, segment = steps[step]
            scenario = scenarios[trial["scenario"]]
            ticked = data["elot_goals"]
            score = 1 / len(ticked) if scenario["goal"] in ticked else 0.0
            scores.append(score)
            rows.append({"participant": person.participant, "scenario": scenario["scenario"],
                         "stimulus": scenario["name"], "t": segment["t"], "goal": scenario["goal"],
                         "ticked": " ".join(map(str, ticked)), "gems": scenario["gems"], "score": f"{score:.4g}",
                         "control": int(bool(trial["control"]))})
            if trial["control"]:
                continue
            low, high = config["scale"]
            for n, value in zip(trial["statements"], data["elot_ratings"]):
                statement = scenario["statements"][n]
                ratings.append({"scenario": scenario["scenario"], "mode": statement["mode"], "t": segment["t"],
                                "statement": statement["text"], "rating": f"{(value - low) / (high - low):.6g}",
                                "participant": person.participant})
        person.goal_score = sum(scores) / len(scores) if scores else None
        if person.goal_score is not None and person.goal_score < rules.min_goal_score:
            person.reasons.append(f"goal score {person.goal_score:.2f} < {rules.min_goal_score:g}")
        for row in rows:
            row["excluded"] = "; ".join(person.reasons)
        goals += rows
    kept = {p.participant for p in people if not p.reasons}
    return Imported([r for r in ratings if r["participant"] in kept], goals, people)
