"""Surveys: the stimulus set shown to people in a browser, and their answers back to ``fit``.

``build`` turns a stimulus set (``elot stimuli``) into a jsPsych experiment a researcher
can read, adapt and host (``design`` says who sees what, in which order); ``server``
serves it for pilots and lab studies and keeps every answer in SQLite as it arrives
(``store``); ``export`` writes it as a static site for any web host or as a JATOS study
archive; ``answers`` reads what came back (the server's database, JATOS's results,
jsPsych's JSON and CSV exports) into the ratings file ``elot fit`` reads, the goal
answers and the raw trial table.
"""

from elot.errors import ElotError


class SurveyError(ElotError):
    """Bad input to a survey command: a stimulus set, a settings file, a database, an export."""


def printable(text, limit: int | None = None) -> str:
    """``text`` (anything that came from a participant: a ``PROLIFIC_PID``, a session, a
    step name, a value of a trial) as it may be printed on a terminal or in a log: every
    character that is not printable (control characters such as ESC, which can retitle
    the window, clear the screen or hide lines; line and paragraph separators; bidi
    overrides, which reorder what follows; lone surrogates) is written as its Python
    escape (``\\x1b``, ``\\u202e``); at most ``limit`` characters are kept, then ``…``.
    Every survey message that shows such text shows it through this."""
    text = text if isinstance(text, str) else str(text)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escape(c) for c in text)
    return text + "…" if cut else text


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if c in _SHORT:
        return _SHORT[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown_value(value, limit: int = 60) -> str:
    """A value a participant's page sent (a trial's field), as a message shows it: its
    JSON, :func:`printable`, at most ``limit`` characters."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return printable(text, limit)


def printable_excerpt(error: ElotError) -> ElotError:
    """``error``, pointing into text a participant sent, with the source line it shows
    made printable: each character a terminal would act on shown as ``\ufffd``, one for
    one, so that the caret stays under its place (the other lines are not kept)."""
    if error.source is None or error.span is None:
        return error
    source, at = error.source, min(error.span.start, len(error.source))
    start = source.rfind("\n", 0, at) + 1
    end = source.find("\n", at)
    line = source[start:end if end >= 0 else len(source)]
    if not line.isprintable():
        line = "".join(c if c.isprintable() else " " if c == "\t" else "\ufffd" for c in line)
    error.source = "\n" * (error.span.line - 1) + line
    return error
