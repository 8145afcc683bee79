"""Statements: what a user or a scenario says about an agent, from where it was written
to the program that is scored (:func:`elot.judging.score_statements` scores them).

A :class:`Statement` is one record all the way: read from a statements file
(:func:`read_statements`) or given on the command line (:func:`given_statement`), given
its formula (:func:`resolve_statements`: ELoT as written, English translated) and
compiled against a signature (:func:`compile_statements`); a failure at any step is kept
as the statement's error, so the others go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from elot.errors import ElotError, ElotTypeError, Span, read_text
from elot.lang.parser import looks_like_formula
from elot.lang.printer import pretty
from elot.lang.semantics import CompiledFormula, compile_formula
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.lang.thresholds import Thresholds
from elot.lang.typesystem import NUMERIC
from elot.settings import CURRENT, MODES, Mode


def compile_statement(formula: str | Term | CompiledFormula, signature: Signature, *,
                      thresholds: Thresholds | None = None, bind_free: bool = False) -> CompiledFormula:
    """Parse, typecheck (against ``signature``) and compile a statement; a numeric term
    (``prob_of(...)``), which has no truth value to score, is an
    :class:`~elot.errors.ElotTypeError` at the statement."""
    if isinstance(formula, CompiledFormula):
        compiled = formula
    else:
        compiled = compile_formula(formula, signature, thresholds or Thresholds(), bind_free)
    if compiled.type == NUMERIC:
        source = formula if isinstance(formula, str) else None
        raise ElotTypeError(
            f"{pretty(compiled.term)} is a number (type {NUMERIC}), not a statement that is true or false",
            span=Span.of(source, 0, len(source)) if source else None, source=source,
            hint=f"compare it, e.g. >=({pretty(compiled.term)}, 0.5); the REPL shows a number's value",
        )
    return compiled


@dataclass(frozen=True)
class Statement:
    """A statement from where it was written to its scores, one record all the way: its
    ``text`` (ELoT or English) and ``mode``; where it came from (``line`` and ``offset`` in
    the file ``path``, with the file's ``source`` text, kept so that an error is pointed at
    its place without reading the file again); ``given`` (by the user: an error in it is
    bad input; else a scenario's own); ``id`` and ``factors`` (a study's statement id and
    annotations); then what the steps of :func:`resolve_statements`,
    :func:`compile_statements` and :func:`score_statements` add, each returning new
    records: the ``formula`` it is judged as (its own text, or the English's translation),
    its ``compiled`` program, and the ``error`` that stopped it (with a ``note`` for tables).
    """

    text: str
    mode: Mode = CURRENT
    line: int | None = None
    offset: int | None = None  # where the text starts in its file (0-based character offset)
    path: str | None = None    # the statements file, when it came from one
    given: bool = True
    id: str = ""
    factors: tuple[tuple[str, str], ...] = ()
    source: str | None = field(default=None, repr=False, compare=False)
    formula: str | None = None
    compiled: CompiledFormula | None = field(default=None, repr=False, compare=False)
    error: ElotError | None = field(default=None, repr=False, compare=False)
    note: str | None = None

    @property
    def is_formula(self) -> bool:
        """Whether the text is ELoT (else it is English to translate): see
        :func:`~elot.lang.parser.looks_like_formula`."""
        return looks_like_formula(self.text)

    @property
    def origin(self) -> str:
        """``FILE:LINE`` when the statement came from a file, else ''."""
        return f"{self.path}:{self.line}" if self.path and self.line is not None else ""

    def locate(self, error: ElotError) -> ElotError:
        """Point an error about this statement's text at its place in its statements file
        (an error about something else, such as its translation, is left as it is)."""
        if self.path is None or self.offset is None or error.source not in (None, self.text):
            return error
        source = self.source
        if source is None:
            try:
                source = read_text(self.path)
            except ElotError:
                return error
        if source[self.offset:self.offset + len(self.text)] != self.text:
            return error
        return error.within(source, self.offset, len(self.text), self.path)

    def failed(self, error: ElotError, note: str) -> "Statement":
        """This statement stopped by ``error``, with ``note`` for tables."""
        return replace(self, error=error, note=note, compiled=None)


def read_statements(path: str, mode: Mode = CURRENT) -> list[Statement]:
    """The statements of a text file, one per line: an ELoT formula or an English sentence,
    optionally prefixed by ``initial:`` or ``current:`` (else ``mode``). Blank lines and
    lines starting with ``#`` are skipped; each statement keeps its line number."""
    text = read_text(path, "statements")
    out, start = [], 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        line, at = raw.strip(), start + len(raw) - len(raw.lstrip())
        start += len(raw)
        if line and not line.startswith("#"):
            body, said = _moded(line, mode)
            out.append(Statement(body, said, number, text.index(body, at), str(path), source=text))
    return out


def given_statement(text: str, mode: Mode = CURRENT) -> Statement:
    """A statement given on the command line (``-s``): as a statements file's line, an
    ``initial:`` or ``current:`` before it says its mode (else ``mode``)."""
    return Statement(*_moded(text.strip(), mode))


def _moded(line: str, mode: Mode) -> tuple[str, Mode]:
    """A statement's text and mode, from a line that may start with ``initial:`` or ``current:``."""
    head, sep, rest = line.partition(":")
    if sep and head.strip() in MODES and rest.strip():
        return rest.strip(), head.strip()  # type: ignore[return-value]
    return line, mode


Resolve = Callable[[str, str], tuple[str, str]]


def resolve_statements(statements: Iterable[Statement], resolve: Resolve) -> list[Statement]:
    """Each statement with its ``formula`` and the ``mode`` it is judged in:
    ``resolve(text, mode)`` (ELoT as written, English translated, e.g.
    :func:`elot.translate.resolve_statement`); a failure is kept as the statement's error,
    noted ``not translated: ...``."""
    out = []
    for st in statements:
        try:
            formula, mode = resolve(st.text, st.mode)
        except ElotError as error:
            out.append(st.failed(error, f"not translated: {error.message}"))
            continue
        out.append(replace(st, formula=formula, mode=mode))
    return out


def compile_statements(statements: Iterable[Statement], signature: Signature, *,
                       thresholds: Thresholds | None = None, bind_free: bool = False) -> list[Statement]:
    """Each statement that has a formula (and no error yet) compiled against
    ``signature``; a failure is kept as its error, noted with the error's kind."""
    out = []
    for st in statements:
        if st.formula is not None and st.error is None:
            try:
                st = replace(st, compiled=compile_statement(st.formula, signature, thresholds=thresholds,
                                                            bind_free=bind_free))
            except ElotError as error:
                st = st.failed(error, error.kind)
        out.append(st)
    return out


__all__ = ["Resolve", "Statement", "compile_statement", "compile_statements", "given_statement", "read_statements",
           "resolve_statements"]
