"""S-expressions with positions: the syntax under every PDDL file elot reads.

:func:`parse_sexprs` reads a text into :class:`Sym` atoms and :class:`SList` lists, each
with its :class:`~elot.errors.Span`, skipping ``;`` comments; an unbalanced parenthesis is an
error at its place (a :class:`~elot.errors.ScenarioError`, or the class the caller names),
with the line where a ``)`` is likely missing. :func:`to_data` turns an expression into plain
strings and tuples; :func:`line_span` gives the span of one line of a source (for errors
about a whole line).

Two domains read PDDL on it: the gridworld's LaBToM files
(:mod:`elot.domains.doors_keys_gems.pddl`) and any PDDL domain in PDDL.jl's dialect
(:mod:`elot.domains.pddl.read_dialect`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

from elot.errors import ElotError, LineIndex, ScenarioError, Span


@dataclass(frozen=True)
class Sym:
    """An atom of an s-expression (a name, a number, ``?var``, ``-``), with its span."""

    text: str
    span: Span


@dataclass(frozen=True)
class SList:
    """A parenthesised list of s-expressions, with the span from ``(`` to ``)``."""

    items: tuple["SExpr", ...]
    span: Span

    def head(self) -> str | None:
        """The (lower-cased) text of the first item when it is a symbol, else None."""
        if self.items and isinstance(self.items[0], Sym):
            return self.items[0].text.lower()
        return None


SExpr = Union[Sym, SList]


def to_data(expr: SExpr) -> str | tuple:
    """An s-expression as plain data: symbols become strings, lists nested tuples."""
    if isinstance(expr, Sym):
        return expr.text
    return tuple(to_data(item) for item in expr.items)


#: Deepest nesting of parentheses accepted (the stages after reading are recursive).
MAX_NESTING = 200


class Reader:
    """One pass over a text: tokens with line/column, ``;`` comments skipped; an unbalanced
    parenthesis is an ``error`` (an :class:`~elot.errors.ElotError` class)."""

    def __init__(self, text: str, path: str | None, error: type[ElotError] = ScenarioError) -> None:
        self.text = text
        self.path = path
        self.lines = _line_index(text)
        self.failure = error

    def error(self, message: str, start: int, end: int | None = None, hint: str | None = None) -> ElotError:
        return self.failure(message, span=self.lines.span(start, end), source=self.text, path=self.path, hint=hint)

    def read(self, begin: int = 0, end: int | None = None) -> tuple[SExpr, ...]:
        """The s-expressions of ``text[begin:end]`` (spans stay relative to the whole text).

        Tokens are found by one regular expression (``\\s`` is ``str.isspace``), and each
        token's line by walking the line starts along with them: a character loop and a
        binary search per token were most of reading the dataset's plans in a batch's parent."""
        text = self.text
        stack: list[tuple[int, int, int, list[SExpr]]] = []
        top: list[SExpr] = []
        n = len(text) if end is None else end
        starts = self.lines.starts
        last = len(starts) - 1
        line = bisect_right(starts, begin) - 1       # index of the line holding the position
        for match in _TOKEN.finditer(text, begin, n):
            i, j = match.span()
            while line < last and starts[line + 1] <= i:
                line += 1
            c = text[i]
            if c == ";":
                continue
            if c == "(":
                stack.append((i, line + 1, i - starts[line] + 1, []))
                if len(stack) > MAX_NESTING:
                    raise self.error(f"nesting too deep (more than {MAX_NESTING} levels)", i, i + 1,
                                     hint="PDDL files nest about 6 levels; check the parentheses")
            elif c == ")":
                if not stack:
                    raise self.error("unbalanced ')': nothing to close", i, i + 1, hint="remove this parenthesis")
                start, at_line, at_column, items = stack.pop()
                node = SList(tuple(items), Span(start, j, at_line, at_column))
                (stack[-1][3] if stack else top).append(node)
            else:
                node = Sym(text[i:j], Span(i, j, line + 1, i - starts[line] + 1))
                (stack[-1][3] if stack else top).append(node)
        if stack:
            start = stack[-1][0]
            error = self.error(
                f"unbalanced '(': {len(stack)} parenthes{'is' if len(stack) == 1 else 'es'} never closed",
                start,
                start + 1,
                hint="add the missing ')' (this is the innermost '(' left open)",
            )
            suspect = _suspect_line(text[begin:n], text.count("\n", 0, begin))
            if suspect is not None:
                error.notes = (f"line {suspect} opens more parentheses than it closes, and the next line is not nested in it",)
            raise error
        return tuple(top)


class Forms:
    """A file's s-expressions as a reader of one format sees them: errors at a form's place
    (``failure``, an :class:`~elot.errors.ElotError` class) and the checks every format
    makes of a symbol; a PDDL file's one ``define``, its sections and its typed lists, the
    same for both readers of PDDL (the gridworld's and the dialect's)."""

    failure: type[ElotError] = ScenarioError
    #: The class of an error in the file's syntax: a parenthesis unbalanced, no define form.
    syntax: type[ElotError] = ScenarioError

    def __init__(self, text: str, path: str | None) -> None:
        self.text, self.path = text, path

    def error(self, message: str, node: SExpr | None = None, hint: str | None = None) -> ElotError:
        return self.failure(message, span=node.span if node is not None else None, source=self.text,
                            path=self.path, hint=hint)

    def sym(self, node: SExpr, what: str) -> str:
        """``node``'s text, when it is a symbol (``what`` it should be, in the error)."""
        if not isinstance(node, Sym):
            raise self.error(f"expected {what}, found a list", node)
        return node.text

    def define(self, kind: str) -> tuple[str, SList]:
        """The single ``(define (kind NAME) ...)`` form of a PDDL file, and its name."""
        forms = parse_sexprs(self.text, self.path, self.syntax)
        if len(forms) != 1 or not isinstance(forms[0], SList) or forms[0].head() != "define":
            where = forms[1] if len(forms) > 1 else (forms[0] if forms else None)
            raise self.syntax(f"expected one (define ({kind} NAME) ...) form",
                              span=where.span if where else Span.of(self.text, 0), source=self.text,
                              path=self.path, hint=f"a PDDL {kind} file holds one define")
        form = forms[0]
        header = form.items[1] if len(form.items) > 1 else form
        if not (isinstance(header, SList) and header.head() == kind and len(header.items) == 2
                and isinstance(header.items[1], Sym)):
            raise self.error(f"expected ({kind} NAME) after define", header)
        return header.items[1].text, form

    def sections(self, form: SList) -> list[tuple[str, SList]]:
        """The ``(:section ...)`` forms of a define, each with its (lower-cased) head."""
        out = []
        for item in form.items[2:]:
            if not (isinstance(item, SList) and item.head() and item.head().startswith(":")):
                raise self.error("expected a section such as (:predicates ...)", item)
            out.append((item.head(), item))
        return out

    def typed(self, items: tuple[SExpr, ...], default: str = "object") -> list[tuple[str, str, Sym]]:
        """``a b - t c`` → [(a, t), (b, t), (c, default)], in order, each name with its node."""
        out: list[tuple[str, str, Sym]] = []
        pending: list[Sym] = []
        i = 0
        while i < len(items):
            node = items[i]
            if self.sym(node, "a name") == "-":
                if i + 1 >= len(items) or not isinstance(items[i + 1], Sym):
                    raise self.error("expected a type after -", node, hint="write `a b - type`")
                if not pending:
                    raise self.error("a type with no names before it", node, hint="write `a b - type`")
                out += [(name.text, items[i + 1].text, name) for name in pending]
                pending = []
                i += 2
                continue
            pending.append(node)
            i += 1
        return out + [(name.text, default, name) for name in pending]


#: A comment (to the end of its line), a parenthesis, or an atom (up to a space, a
#: parenthesis or a ``;``); spaces between them are skipped by the search.
_TOKEN = re.compile(r";[^\n]*|[()]|[^\s();]+")


def _suspect_line(text: str, first: int) -> int | None:
    """The first line (1-based, counted from ``first`` + 1) that leaves a list open while
    the next non-blank line is indented no deeper: in indented PDDL, the likely place of
    a missing ')'."""
    lines = [l.split(";", 1)[0] for l in text.splitlines()]
    for i, line in enumerate(lines):
        if line.count("(") <= line.count(")") or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        nxt = next((l for l in lines[i + 1 :] if l.strip()), None)
        if nxt is None or len(nxt) - len(nxt.lstrip()) <= indent:
            return first + i + 1
    return None


def line_span(source: str | None, line: int | None) -> Span | None:
    """The span of the text of line ``line`` (1-based) of ``source``, without its
    indentation; None when either is unknown or the line does not exist."""
    if source is None or line is None:
        return None
    index = _line_index(source)
    found = index.line(line)
    if found is None or (line == len(index.starts) and found[0] == found[1] and line > 1):
        return None  # (a final newline does not start another line)
    offset, end = found
    text = source[offset:end].rstrip("\r")
    indent = len(text) - len(text.lstrip())
    return index.span(offset + indent, offset + len(text))


@lru_cache(maxsize=8)
def _line_index(source: str) -> LineIndex:
    # A plan's steps each ask for their line's span: one index per text keeps that
    # linear (re-splitting the text per step was quadratic).
    return LineIndex(source)


def parse_sexprs(text: str, path: str | None = None,
                 error: type[ElotError] = ScenarioError) -> tuple[SExpr, ...]:
    """All top-level s-expressions of ``text`` (``;`` starts a comment to end of line); an
    unbalanced parenthesis raises ``error``."""
    return Reader(text, path, error).read()
