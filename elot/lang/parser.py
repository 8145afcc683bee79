"""Text → ELoT syntax tree.

The Lark grammar (``elot/grammar.lark``, package data) is loaded once and compiled into
one LALR parser; a transformer turns its parse tree into :mod:`elot.lang.syntax` nodes. Before
parsing, a cheap linear scan rejects inputs that are too large or nest too deeply (so the
recursive transform cannot overflow the stack) and pinpoints unbalanced parentheses; what
remains is reported from Lark's ``UnexpectedInput`` with the source line, a caret and a
hint.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from elot.errors import ElotSyntaxError, Span
from elot.lang.syntax import MAX_DEPTH, Call, Const, Num, Term, Var, too_deep

#: Longest accepted input, in characters: a real formula is a few hundred.
MAX_LENGTH = 100_000

#: Entry rule of the grammar for one formula (documented for grammar-constrained decoding).
START_RULE = "start"


def grammar_text() -> str:
    """The ELoT grammar in Lark's EBNF (the single source of truth for the syntax)."""
    return resources.files("elot").joinpath("grammar.lark").read_text(encoding="utf-8")


class _Builder(Transformer):
    """Builds syntax nodes from Lark's parse tree; one method per grammar rule.

    Lark's recursive transform is safe here: :func:`_prescan` has already bounded the
    nesting depth by :data:`MAX_DEPTH`.
    """

    @staticmethod
    def _token_span(token: Token) -> Span:
        return Span(token.start_pos, token.end_pos, token.line, token.column)

    def var(self, children):
        (token,) = children
        return Var(name=str(token), span=self._token_span(token))

    def const(self, children):
        (token,) = children
        return Const(name=str(token), span=self._token_span(token))

    def num(self, children):
        (token,) = children
        value = float(token)
        if not math.isfinite(value):
            raise ElotSyntaxError(
                f"number out of range: {str(token)[:40]}", span=self._token_span(token),
                hint="numbers in ELoT are probabilities and thresholds, between 0 and 1",
            )
        return Num(value=value, span=self._token_span(token))

    @v_args(meta=True)
    def call(self, meta, children):
        functor, *args = children
        span = Span(meta.start_pos, meta.end_pos, meta.line, meta.column)
        return Call(name=str(functor), args=tuple(args), span=span)

    def start(self, children):
        return children[0]

    def atoms(self, children):
        return tuple(children)


_BUILDER = _Builder()


@lru_cache(maxsize=None)
def _parser() -> Lark:
    """The one LALR parser, built on first use."""
    return Lark(
        grammar_text(),
        parser="lalr",
        start=[START_RULE, "atoms"],
        propagate_positions=True,
        maybe_placeholders=False,
    )


def _prescan(text: str, path: str | None) -> None:
    """Reject oversized, too deep or unbalanced input in one linear pass.

    Doing this before Lark parses means the error points at the exact parenthesis at
    fault, and that no later stage ever sees a tree deeper than :data:`MAX_DEPTH`.
    """

    def fail(message: str, start: int, end: int, hint: str) -> ElotSyntaxError:
        return ElotSyntaxError(message, span=Span.of(text, start, end), source=text, path=path, hint=hint)

    if len(text) > MAX_LENGTH:
        raise fail(
            f"input too large ({len(text)} characters; the limit is {MAX_LENGTH})",
            0,
            0,
            "give one formula at a time; a formula is at most a few hundred characters",
        )
    opened: list[int] = []
    for index, char in enumerate(text):
        if char == "(":
            opened.append(index)
            if len(opened) > MAX_DEPTH:
                raise too_deep(Span.of(text, index, index + 1), text, path)
        elif char == ")":
            if not opened:
                raise fail("unbalanced parentheses: this ')' closes nothing", index, index + 1, "remove this ')'")
            opened.pop()
    if opened:
        where = opened[-1]
        raise fail(
            f"unbalanced parentheses: {len(opened)} '(' never closed",
            where,
            where + 1,
            f"add {len(opened)} ')'" if len(opened) > 1 else "add a ')'",
        )


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of input"
    return repr(str(token))


def _syntax_error(text: str, error: UnexpectedInput, path: str | None) -> ElotSyntaxError:
    """Turn Lark's exception into an :class:`ElotSyntaxError` with a hint."""
    pos = getattr(error, "pos_in_stream", None)
    if pos is None:
        pos = len(text)
    end = pos + 1
    if isinstance(error, UnexpectedCharacters):
        char = text[pos] if pos < len(text) else ""
        hint = "names are letters, digits and '_' (lowercase: objects and operators, uppercase: variables)"
        if char == "[":
            hint = "use parentheses, not brackets: name(arg, ...)"
        elif char in "'\"":
            hint = "ELoT has no strings: write names without quotes"
        elif char.isdigit() or char == "_":
            hint = "a name must start with a letter"
        message = f"unexpected character {char!r}"
    elif isinstance(error, UnexpectedEOF) or (isinstance(error, UnexpectedToken) and error.token.type == "$END"):
        expected = set(getattr(error, "expected", ()) or ())
        message = "formula ends too early"
        hint = "complete the formula"
        if "RPAR" in expected and len(text.strip()) and text.rstrip()[-1] == ",":
            hint = "remove the trailing ',' or add an argument after it"
        elif expected & {"NAME", "VARIABLE", "NUMBER"}:
            hint = "an argument is missing at the end"
        pos, end = len(text), len(text)
    else:
        assert isinstance(error, UnexpectedToken)
        token = error.token
        expected = set(error.expected)
        end = max(pos + 1, getattr(token, "end_pos", pos + 1) or pos + 1)
        message = f"unexpected {_describe(token)}"
        # LALR's expected sets are shared between states, so the paren depth at the
        # error says more reliably where we are.
        nesting = text.count("(", 0, pos) - text.count(")", 0, pos)
        before = text[:pos].rstrip()[-1:]
        previous = re.search(r"[A-Za-z0-9_.+-]+$", text[:pos].rstrip())
        if token.type == "LPAR" and previous and not previous.group()[0].islower():
            message = f"unexpected '(' after {previous.group()!r}: only a name can be applied to arguments"
            hint = "variables (uppercase) and numbers take no arguments; operators and predicates are lowercase"
        elif token.type == "LPAR" and before in ("", "(", ","):
            message = "unexpected '(': only a name can be applied to arguments"
            hint = "write name(arg, ...), with the operator's name before '('"
        elif nesting == 0:
            message = f"unexpected {_describe(token)} after the end of the formula"
            hint = "give exactly one formula; combine several with and(...)"
        elif token.type == "RPAR" and before == "(":
            message = "'()' with no arguments"
            hint = "write a constant without parentheses (box1), or give the arguments: name(arg, ...)"
        elif token.type == "RPAR":
            message = "missing argument before ')'"
            hint = "remove the ',' before ')', or add the missing argument"
        elif token.type == "COMMA":
            message = "missing argument before ','"
            hint = "add the missing argument or remove the extra ','"
        elif token.type == "LPAR":
            message = "unexpected '(': only a name can be applied to arguments"
            hint = "write name(arg, ...), with the operator's name before '('; variables and numbers take no arguments"
        else:
            hint = "separate arguments with ','"
    return ElotSyntaxError(message, span=Span.of(text, pos, end), source=text, path=path, hint=hint)


def _run(text: str, start: str, path: str | None):
    if not isinstance(text, str):
        raise ElotSyntaxError(f"expected formula text, got {type(text).__name__}", path=path)
    _prescan(text, path)
    if not text.strip():
        raise ElotSyntaxError(
            "empty formula", span=Span.of(text, 0, 0), source=text, path=path,
            hint="write a formula such as believes(player, formula(empty(box1)))",
        )
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedInput as error:
        raise _syntax_error(text, error, path) from None
    try:
        return _BUILDER.transform(tree)
    except VisitError as error:  # Lark wraps what a transformer method raises
        if isinstance(error.orig_exc, ElotSyntaxError):
            raise error.orig_exc.located(source=text, path=path) from None
        raise


def parse(text: str, *, path: str | None = None) -> Term:
    """Parse one ELoT formula; raise :class:`ElotSyntaxError` (with span and hint) if malformed."""
    return _run(text, START_RULE, path)


def parse_atoms(text: str, *, path: str | None = None) -> tuple[Term, ...]:
    """Parse a comma-separated list of terms (``inside(key1, box1), closed(box1)``)."""
    if not isinstance(text, str):
        raise ElotSyntaxError(f"expected the text of atoms, got {type(text).__name__}", path=path,
                              hint='write them as text: "inside(key1, box1), closed(box1)"')
    if not text.strip():
        return ()
    return _run(text, "atoms", path)


_FORMULA_START = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|>=|<=|==|>|<|-)\s*\(")


def looks_like_formula(text: str) -> bool:
    """Whether a statement is written in ELoT rather than English: it starts like a term
    (``name(``), or is a single word. Malformed formulas still count, so that the parser
    reports them with a caret; English with parentheses in it does not."""
    text = text.strip()
    return bool(_FORMULA_START.match(text)) or (bool(text) and len(text.split()) == 1)
