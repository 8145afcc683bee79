"""Parameter files and safe output: the thresholds Θ and β that ``elot fit`` writes and
every command reads back with ``--thresholds FILE``.

A parameter file is JSON: ``{"thresholds": {"believes": 0.75, ...}, "beta": 2.83, ...}``.
Thresholds it does not list keep their defaults (:class:`elot.lang.semantics.Thresholds`);
``beta`` is optional; other keys (the fit's r, the model, ...) are kept for people and
ignored here. Every output file goes through :mod:`elot.output`: written to a temporary
file beside the target and renamed over it, so a reader never sees half a file, and
marked as elot's so that a later run may replace it; ``-`` means standard output.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from elot.errors import ElotError, Span, csv_records, load_json, read_text
from elot.output import Content, Recognizer, check_target, write_output
from elot.lang.thresholds import Thresholds


class StudyError(ElotError):
    """Bad input to a study command: a parameter or ratings file, an option value."""


#: The thresholds a fit adjusts. It starts them where every other command has them, at
#: the defaults of :class:`Thresholds` (the paper's fitted values; elot's own for the desire
#: operators ``wants``, ``likes`` and ``dislikes``), so that a threshold the ratings say
#: nothing about is written back unchanged.
FITTED = ("believes", "certain", "uncertain", "likely", "unlikely", "could", "might", "may", "should", "must",
          "wants", "likes", "dislikes")


@dataclass(frozen=True)
class Params:
    """Θ and, when the file gave one, β (``None`` otherwise); from a file ``elot fit`` wrote,
    also the model they were fitted for and its settings (``None`` where the file names
    none)."""

    thresholds: Thresholds
    beta: float | None = None
    label: str = "default"
    model: str | None = None
    settings: dict | None = None


def one_newline(text: str) -> str:
    """``text`` with CR LF (Windows) and lone CR (Excel's "CSV (Macintosh)") line ends read
    as LF, so that every study input reads alike whatever saved it."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_input(path: str | Path, what: str, hint: str | None = None) -> str:
    """The text of a study's input file (:func:`elot.errors.read_text`: UTF-8, a leading
    byte-order mark dropped; CR, LF and CR LF line ends alike, see :func:`one_newline`), or a :class:`StudyError` "cannot read WHAT file PATH" at the
    file (and line, for text that is not UTF-8) with the reason as a note and ``hint``
    after read_text's own."""
    try:
        return one_newline(read_text(path, what))
    except ElotError as error:
        hints = "; ".join(h for h in (error.hint, hint) if h) or None
        raise StudyError(f"cannot read {what} file {path}", path=error.path, notes=(error.message,),
                         hint=hints) from None


def line_error(message: str, text: str, path: str | Path, line: int, hint: str | None = None) -> StudyError:
    """A StudyError at line ``line`` of ``text`` (1-based), shown with that line."""
    start = 0
    for _ in range(line - 1):
        found = text.find("\n", start)
        if found < 0:
            break
        start = found + 1
    return StudyError(message, path=str(path), source=text, span=Span.of(text, start, start + 1), hint=hint)


def whole_records(reader, text: str, *, path: str | Path, what: str):
    """The rows of a ``csv.DictReader`` over ``text`` (:func:`elot.errors.csv_records`),
    each checked by :func:`check_whole`."""
    for row in csv_records(reader, path=str(path), what=what):
        check_whole(row, reader.fieldnames or [], text, path, reader.line_num)
        yield row


def check_whole(row: dict, header: list[str], text: str, path: str | Path, line: int) -> None:
    """A StudyError at ``line`` for a row read by a ``csv.DictReader`` that does not hold
    one field per header column: short (its last columns would read as None, e.g.
    "rating None is not a number") or long (a field with an unquoted comma, say)."""
    missing = [c for c in header if row.get(c) is None]
    extra = row.get(None) or []
    if not missing and not extra:
        return
    fields = len(header) - len(missing) + len(extra)
    said = (f"the row is short: {fields} field{'' if fields == 1 else 's'} where the header has {len(header)}; "
            f"no value for {', '.join(missing[:6])}{', ...' if len(missing) > 6 else ''}" if missing else
            f"the row is long: {fields} fields where the header has {len(header)} columns")
    raise line_error(said, text, path, line, hint="give each row one field per header column (an empty one is "
                                                  "fine); a field holding a comma goes in double quotes")


def read_params(path: str | Path) -> Params:
    """Read a parameter file; errors name the file and the offending key."""
    path = Path(path)
    text = read_input(path, "thresholds", hint="give a JSON file written by elot fit, or name=value overrides")
    data = load_json(text, path=str(path), error=StudyError,
                     hint='write {"thresholds": {"believes": 0.75, ...}, "beta": 2.83}')
    if not isinstance(data, dict) or not isinstance(data.get("thresholds", {}), dict):
        raise StudyError(f'{path}: expected an object with a "thresholds" object', path=str(path),
                         hint='write {"thresholds": {"believes": 0.75, ...}, "beta": 2.83}')
    names = [f.name for f in dataclasses.fields(Thresholds)]
    changes = {}
    for name, value in data.get("thresholds", {}).items():
        if name not in names:
            raise StudyError(f'{path}: unknown threshold "thresholds.{name}"', path=str(path),
                             hint="known: " + ", ".join(names))
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise StudyError(f'{path}: "thresholds.{name}" must be a number, not {value!r}', path=str(path))
        changes[name] = value
    try:
        thresholds = Thresholds().replace(**changes)
    except ElotError as error:
        raise StudyError(f"{path}: {error.message}", path=str(path), hint=error.hint) from None
    beta = data.get("beta")
    if beta is not None and (isinstance(beta, bool) or not isinstance(beta, (int, float))
                             or not math.isfinite(beta) or beta <= 0):
        raise StudyError(f'{path}: "beta" must be a positive number, not {beta!r}', path=str(path))
    model, settings = data.get("model"), data.get("params")
    if model is not None and (not isinstance(model, str) or not model):
        raise StudyError(f'{path}: "model" must be a model\'s name, not {model!r}', path=str(path))
    if settings is not None and (not isinstance(settings, dict) or not all(
            isinstance(name, str) and isinstance(value, (int, float, str)) and not isinstance(value, bool)
            for name, value in settings.items())):
        raise StudyError(f'{path}: "params" must map each setting\'s name to its value, not {settings!r}',
                         path=str(path), hint='write e.g. "params": {"epsilon": 0.2}')
    return Params(thresholds, None if beta is None else float(beta), label=path.name, model=model,
                  settings=settings or None)


def thresholds_option(text: str) -> Params:
    """What ``--thresholds`` accepts: a parameter file, or ``name=value,...`` overrides."""
    if "=" in text and not Path(text).exists():
        try:
            return Params(Thresholds.parse(text), None, label=text)
        except ElotError as error:
            raise StudyError(f"--thresholds: {error.message}", hint=error.hint) from None
    return read_params(text)


def params_json(thresholds: Thresholds, beta: float | None = None, **extra) -> str:
    """The JSON text of a parameter file (every threshold listed, so it reads back exactly)."""
    data = {"thresholds": dataclasses.asdict(thresholds)}
    if beta is not None:
        data["beta"] = beta
    data.update(extra)
    return json.dumps(data, indent=2) + "\n"


#: Written into every figure a report saves (PNG Software / SVG Creator), so that a later
#: report may replace it.
FIGURE_MARK = b"elot study report"


def study_mark(path: str | Path) -> Recognizer | None:
    """How a study output at ``path`` is recognized as elot's: a figure by the mark inside
    it, anything else (tables, ratings, parameter files, summaries) by its sidecar."""
    if Path(path).suffix.lower() in (".png", ".svg"):
        return lambda head: FIGURE_MARK in head
    return None


def check_replace(path: str | Path, *, force: bool = False, inputs: Iterable[str | Path] = (),
                  option: str = "-o") -> None:
    """Refuse, before any work, to write over an input of the command or to replace an
    existing file a study did not write (unless ``force``): :func:`elot.output.check_target`."""
    check_target(path, ours=study_mark(path), force=force, option=option, inputs=inputs)


def write_study(path: str | Path, content: Content, *, force: bool = False, inputs: Iterable[str | Path] = (),
                option: str = "-o") -> str:
    """Write ``content`` (text, bytes, or a function writing to a binary handle) to
    ``path`` by :func:`elot.output.write_output` (atomically; ``-`` is standard output;
    missing folders created). An existing file is replaced only if a study wrote it
    (:func:`study_mark`), or with ``force``; an input of the command never."""
    return write_output(path, content, ours=study_mark(path), force=force, option=option, inputs=inputs)


def write_params(path: str | Path, thresholds: Thresholds, beta: float | None = None, *,
                 force: bool = False, inputs: Iterable[str | Path] = (), **extra) -> None:
    """Write a parameter file atomically."""
    write_study(path, params_json(thresholds, beta, **extra), force=force, inputs=inputs)

