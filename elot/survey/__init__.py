"""Surveys: the stimulus set shown to people in a browser, and their answers back to ``fit``.

``build`` turns a stimulus set (``elot stimuli``) into a jsPsych experiment a researcher
can read, adapt and host (``design`` says who sees what, in which order); ``server``
serves it for pilots and lab studies and keeps every answer in SQLite as it arrives
(``store``); ``export`` writes it as a static site for any web host or as a JATOS study
archive; ``answers`` reads what came back (the server's database, JATOS's results,
jsPsych's JSON and CSV exports) into the ratings file ``elot fit`` reads, the goal
answers and the raw trial table.
"""

from elot.errors import ElotError, printable


class SurveyError(ElotError):
    """Bad input to a survey command: a stimulus set, a settings file, a database, an export."""


def shown_value(value, limit: int = 60) -> str:
    """A value a participant's page sent (a trial's field), as a message shows it: its
    JSON, :func:`printable`, at most ``limit`` characters."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):    # (past Python's digits for an int, say)
        text = f"a {type(value).__name__}"
    return printable(text, limit)

