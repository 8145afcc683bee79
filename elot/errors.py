"""The one error hierarchy of elot.

Every failure a user can cause (a malformed formula, an ill-typed term, a broken map, an
impossible action, a missing file) is an :class:`ElotError`. Each carries a message in the
user's terms, an optional :class:`Span` pointing into the source it came from, and a hint
saying how to fix it. Library code raises these and never prints; the CLI and the REPL
render them (plainly or with ``rich``) and exit with status 2.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence


@dataclass(frozen=True)
class Span:
    """A region of a source text: 0-based character offsets, 1-based line and column."""

    start: int
    end: int
    line: int = 1
    column: int = 1

    @staticmethod
    def of(text: str, start: int, end: int | None = None) -> "Span":
        """The span of ``text[start:end]``, with its line and column computed."""
        start = max(0, min(start, len(text)))
        end = start if end is None else max(start, min(end, len(text)))
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        return Span(start, end, line, column)


class LineIndex:
    """The line starts of one text, so that many spans into it cost O(log n) each
    (:meth:`Span.of` counts lines from the start: quadratic when called per token)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = find("\n", i + 1)

    def span(self, start: int, end: int | None = None) -> Span:
        """The same as ``Span.of(text, start, end)``."""
        n = len(self.text)
        start = max(0, min(start, n))
        end = start if end is None else max(start, min(end, n))
        line = bisect_right(self.starts, start)
        return Span(start, end, line, start - self.starts[line - 1] + 1)

    def line(self, number: int) -> tuple[int, int] | None:
        """``(start, end)`` offsets of line ``number`` (1-based, without its newline)."""
        if not 1 <= number <= len(self.starts):
            return None
        start = self.starts[number - 1]
        end = self.starts[number] - 1 if number < len(self.starts) else len(self.text)
        return start, end


#: Longest excerpt of the source an error shows (a whole 100k-character line is noise).
EXCERPT = 160


def printable(text, limit: int | None = None) -> str:
    """``text`` as it may be printed on a terminal or in a log: every character a terminal
    would act on or hide (control characters such as ESC, which can retitle the window,
    clear the screen or hide lines; line and paragraph separators; bidi overrides, which
    reorder what follows; lone surrogates) is written as its Python escape (``\\x1b``,
    ``\\n``, ``\\u202e``); spaces of every kind are kept. At most ``limit`` characters
    are kept, then ``…``. What a survey's participants send is printed through this, and
    every error's lines are (:meth:`ElotError.render`)."""
    text = text if isinstance(text, str) else str(text)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        text = "".join(_escape(c) if _acts(c) else c for c in text)
    return text + "…" if cut else text


def _acts(c: str) -> bool:
    """Whether a terminal acts on ``c`` or shows nothing for it (a space is shown)."""
    import unicodedata

    return not c.isprintable() and unicodedata.category(c) != "Zs"


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if c in _SHORT:
        return _SHORT[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _one_for_one(line: str) -> str:
    """A source line as an error shows it: a tab as a space, any other character a
    terminal would act on as ``\ufffd``, one for one, so that the caret stays under its
    place."""
    if line.isprintable():
        return line
    return "".join(" " if c == "\t" else "\ufffd" if _acts(c) else c for c in line)


#: The most bytes elot reads of one input file (a scenario, statements, ratings, a table).
MAX_INPUT_BYTES = 256 * 2**20


def nearest(name: str, candidates, cutoff: float = 0.6) -> str:
    """The candidate closest to ``name`` (a likely typo), or ''."""
    import difflib

    found = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=1, cutoff=cutoff)
    return found[0] if found else ""


def read_text(path: str | Path, what: str = "input") -> str:
    """The text of a UTF-8 file (a leading byte-order mark dropped), or an
    :class:`ElotError` naming the path when it is missing, unreadable, larger than
    :data:`MAX_INPUT_BYTES` (a device such as ``/dev/zero`` never ends) or not UTF-8.
    A pipe (``<(command)``) is read like a file. Every reader of a user's file goes
    through this."""
    import stat

    p = Path(path)
    what = what if what.endswith(" file") else f"{what} file"     # "case file", "survey": said once each
    try:
        info = p.stat()
    except FileNotFoundError:
        raise ScenarioError(f"{what} not found: {p}", path=str(p)[:EXCERPT], hint="check the path") from None
    except OSError as exc:  # a name too long for the file system, say
        raise ScenarioError(f"cannot read {what}: {exc.strerror or exc}", path=str(p)[:EXCERPT],
                            hint="check the path") from None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError(f"{what} {p} is a directory", path=str(p),
                            hint="give the path of a file in it, not the folder")
    too_large = ScenarioError(f"{what} {p} is larger than {MAX_INPUT_BYTES // 2**20} MiB"
                              + ("" if stat.S_ISREG(info.st_mode) else " (a device or a pipe, which may never end)"),
                              path=str(p), hint="give a file of the input's own format")
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_INPUT_BYTES:
        raise too_large
    try:
        with open(p, "rb") as handle:
            if stat.S_ISREG(info.st_mode):   # read(n) allocates n bytes at once: ask for what is there
                data = handle.read(info.st_size + 1) + handle.read()
            else:                            # a device or a pipe: in pieces, up to the limit
                pieces, size = [], 0
                while size <= MAX_INPUT_BYTES and (piece := handle.read(1 << 20)):
                    pieces.append(piece)
                    size += len(piece)
                data = b"".join(pieces)
    except OSError as exc:
        raise ScenarioError(f"cannot read {what}: {exc.strerror or exc}", path=str(p)) from None
    if len(data) > MAX_INPUT_BYTES:
        raise too_large
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ScenarioError(
            f"{what} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} "
            f"(offset {exc.start})",
            path=f"{p}:{line}", hint="save the file as UTF-8",
        ) from None


def load_json(text: str, *, path: str, hint: str, error: type["ElotError"] | None = None):
    """The value of JSON ``text`` read from ``path``, or an ElotError (``error``, by default
    :class:`ScenarioError`) at the faulty place: bad syntax, nesting too deep for the
    reader, or a number too long to convert."""
    import json

    kind = error or ScenarioError
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise kind(f"{path} is not valid JSON: {exc.msg}", path=path, source=text,
                   span=Span.of(text, exc.pos, exc.pos + 1), hint=hint) from None
    except RecursionError:
        raise kind(f"{path}: JSON nested too deeply to read", path=path, hint=hint) from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise kind(f"{path}: cannot read this JSON: {exc}", path=path, hint=hint) from None


def csv_records(reader, *, path: str, what: str = "table"):
    """The rows of a ``csv.DictReader``, or a :class:`ScenarioError` at the line the csv
    module cannot read (a field over its 128 KB limit, a NUL byte, ...)."""
    import csv

    try:
        yield from reader
    except csv.Error as error:
        raise ScenarioError(f"cannot read this {what}: {error}", path=f"{path}:{reader.line_num + 1}",
                            hint="a CSV field is at most 128 KB; check the file") from None


def csv_rows(text: str, *, path: str, what: str = "table") -> list[dict]:
    """The rows of CSV ``text`` as dicts (see :func:`csv_records`)."""
    import csv
    import io

    return list(csv_records(csv.DictReader(io.StringIO(text)), path=path, what=what))


def from_os_error(error: OSError) -> "ElotError":
    """An OSError about a path the user gave (a name too long for the file system, a
    folder without permission, ...) as an :class:`ElotError` naming the path."""
    name = str(error.filename) if error.filename is not None else None
    shown = name if name is None or len(name) <= EXCERPT else name[:EXCERPT] + "..."
    return ScenarioError(f"cannot use {shown}: {error.strerror or error}" if shown else
                         f"{error.strerror or error}", hint="check the path")


class ElotError(Exception):
    """Base of every error elot raises on bad input.

    ``message`` says what is wrong, ``hint`` how to fix it; ``source`` and ``span`` locate
    it; ``path`` names the file (or ``<formula>``, ``<stdin>``) the source came from.
    """

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        span: Span | None = None,
        source: str | None = None,
        path: str | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.span = span
        self.source = source
        self.path = path
        self.notes = tuple(notes)

    def located(self, *, source: str | None = None, path: str | None = None) -> "ElotError":
        """Fill in the source text and path where the raiser did not know them."""
        if self.source is None and source is not None:
            self.source = source
        if self.path is None and path is not None:
            self.path = path
        return self

    def within(self, source: str, offset: int, length: int, path: str | None = None) -> "ElotError":
        """Re-point an error raised on an excerpt of ``source`` (``length`` characters from
        ``offset``) at its place in ``source``; with no span of its own, it points at the
        whole excerpt."""
        if self.span is None:
            self.span = Span.of(source, offset, offset + length)
        else:
            self.span = Span.of(source, offset + self.span.start, offset + self.span.end)
        self.source = source
        if path is not None:
            self.path = path
        return self

    def location(self) -> str:
        """``path:line:col`` (parts that are unknown are left out)."""
        parts = [self.path] if self.path else []
        if self.span is not None:
            parts += [str(self.span.line), str(self.span.column)]
        return ":".join(parts)

    def context_lines(self) -> list[str]:
        """The offending source line and a caret line under the span, if known."""
        if self.span is None or self.source is None:
            return []
        found = LineIndex(self.source).line(self.span.line)
        if found is None:
            lines = self.source.splitlines() or [""]
            text = lines[-1]
        else:
            text = self.source[found[0]:found[1]].rstrip("\r")
        column = min(self.span.column, len(text) + 1)
        width = max(1, min(self.span.end - self.span.start, len(text) - column + 1))
        if len(text) > EXCERPT:
            # a window around the caret, with '...' where the line is cut
            first = max(0, min(column - 1 - EXCERPT // 4, len(text) - EXCERPT))
            last = first + EXCERPT
            width = min(width, last - (column - 1))
            head, tail = ("..." if first else ""), ("..." if last < len(text) else "")
            text, column = head + text[first:last] + tail, column - first + len(head)
        return [_one_for_one(text), " " * (column - 1) + "^" * width]

    def render(self) -> str:
        """Plain multi-line rendering: location, message, source line, caret, hint; every
        line printable (:func:`printable`: whatever of a file or a participant's text an
        error quotes cannot move a terminal's cursor)."""
        where = self.location()
        head = f"{where}: {self.kind}: {self.message}" if where else f"{self.kind}: {self.message}"
        out = [_lines(head)]
        out += ["    " + line for line in self.context_lines()]
        out += [_lines(f"note: {note}") for note in self.notes]
        if self.hint:
            out.append(_lines(f"hint: {self.hint}"))
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


def _lines(text: str) -> str:
    """``text``'s lines, each :func:`printable`."""
    return "\n".join(printable(line) for line in text.split("\n"))


class ElotSyntaxError(ElotError):
    """A formula (or a file in one of elot's formats) does not parse."""

    kind = "syntax error"


class ElotTypeError(ElotError):
    """A formula parses but is ill-typed. ``errors`` holds every error found, this one first."""

    kind = "type error"

    def __init__(self, message: str, *, errors: Sequence["ElotTypeError"] = (), **kw) -> None:
        super().__init__(message, **kw)
        self.errors: tuple[ElotTypeError, ...] = tuple(errors) or (self,)

    def located(self, *, source: str | None = None, path: str | None = None) -> "ElotError":
        for error in self.errors:
            if error is not self:
                error.located(source=source, path=path)
        return super().located(source=source, path=path)

    def within(self, source: str, offset: int, length: int, path: str | None = None) -> "ElotError":
        for error in self.errors:
            if error is not self:
                error.within(source, offset, length, path)
        return super().within(source, offset, length, path)

    def render(self) -> str:
        if len(self.errors) <= 1:
            return super().render()
        return "\n".join(ElotError.render(e) for e in self.errors)


class ScenarioError(ElotError):
    """A map, plan, scenario file or dataset file is missing, malformed or inconsistent."""

    kind = "scenario error"


class DomainError(ElotError):
    """A domain broke the protocol (a method raised, or returned a malformed table), or
    cannot be found or loaded."""

    kind = "domain error"


class EvaluationError(ElotError):
    """A well-typed formula cannot be evaluated here (free variable, unknown object, ...)."""

    kind = "evaluation error"


class TranslationError(ElotError):
    """An English sentence could not be translated into ELoT."""

    kind = "translation error"


class ArgumentError(ElotError):
    """A public function was called with an argument of the wrong type or out of range;
    the message names the argument."""

    kind = "argument error"


def expect(value, types: type | tuple[type, ...], name: str, *, hint: str | None = None):
    """``value`` if it is one of ``types`` (a bool is not a number), else an
    :class:`ArgumentError` naming the argument ``name``."""
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in _flat(types)):
        return value
    wanted = " or ".join(t.__name__ for t in _flat(types))
    raise ArgumentError(f"{name} must be a {wanted}, not {type(value).__name__}", hint=hint)


def expect_int(value, name: str, *, minimum: int = 0) -> int:
    """A whole number at least ``minimum``, else an :class:`ArgumentError` naming it."""
    expect(value, int, name)
    if value < minimum:
        raise ArgumentError(f"{name} must be at least {minimum}, not {value}")
    return value


def _flat(types) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


class ExtensionMissingError(ElotError):
    """The compiled BToM core (``btom_ext``) is not built or does not import."""

    kind = "installation error"


def compiled(load, backend: str):
    """``load(backend)``, one of ``btom_ext``'s loaders (``backend``, ``particle_kernels``,
    ...); a compiled extension that does not import (btom_ext's ``CoreMissingError``, an
    ImportError with a hint) is an :class:`ExtensionMissingError` with its hint."""
    try:
        return load(backend)
    except ImportError as error:
        raise ExtensionMissingError(str(error), hint=getattr(error, "hint", None)) from error
