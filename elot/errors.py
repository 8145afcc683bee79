"""The one error hierarchy of elot.

Every failure a user can cause (a malformed formula, an ill-typed term, a broken map, an
impossible action, a missing file) is an :class:`ElotError`. Each carries a message in the
user's terms, an optional :class:`Span` pointing into the source it came from, and a hint
saying how to fix it. Library code raises these and never prints; the CLI and the REPL
render them (plainly or with ``rich``) and exit with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass
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
        lines = self.source.splitlines() or [""]
        index = min(self.span.line, len(lines)) - 1
        text = lines[index]
        width = max(1, min(self.span.end - self.span.start, len(text) - self.span.column + 1))
        return [text, " " * (self.span.column - 1) + "^" * width]

    def render(self) -> str:
        """Plain multi-line rendering: location, message, source line, caret, hint."""
        where = self.location()
        head = f"{where}: {self.kind}: {self.message}" if where else f"{self.kind}: {self.message}"
        out = [head]
        out += ["    " + line for line in self.context_lines()]
        out += [f"note: {note}" for note in self.notes]
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


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


class EvaluationError(ElotError):
    """A well-typed formula cannot be evaluated here (free variable, unknown object, ...)."""

    kind = "evaluation error"


class TranslationError(ElotError):
    """An English sentence could not be translated into ELoT."""

    kind = "translation error"


class ExtensionMissingError(ElotError):
    """The compiled BToM core (``btom_ext``) is not built or does not import."""

    kind = "installation error"
