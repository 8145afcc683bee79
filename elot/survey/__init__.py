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
