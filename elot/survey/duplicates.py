"""Which of one PROLIFIC_PID's sessions ``elot survey import`` keeps.

Whoever opens the study first with a participant's PROLIFIC_PID (a shared link, a guessed
or leaked id) gets the name on the server, and the participant's own session arrives
second. Keeping the first session would then keep the intruder's answers and exclude the
participant's; so the session kept is the one that is complete, and when several are,
none (see :func:`decide_duplicates`; docs/experiments.md, "Duplicates").
"""

from __future__ import annotations

from typing import Sequence

from elot.errors import printable


def arrival(person) -> tuple:
    """Sessions in the order they started: the server's rows and JATOS's study results are
    numbered as they arrive; a file that does not number its sessions comes last."""
    return (0, int(person.session)) if person.session.isdecimal() and len(person.session) < 100 else (1, 0)


def decide_duplicates(people: Sequence) -> None:
    """Of the sessions of one PROLIFIC_PID (the ``identity`` of the
    :class:`~elot.survey.answers.Participant` s of ``people``), the one kept: the complete
    one when exactly one is complete (whoever started first with someone else's
    PROLIFIC_PID does not push the participant's own complete session out), the first when
    none is; when several are complete, none, as nothing here tells which is the
    participant's (Prolific's list of submissions does: each has its SESSION_ID). Every
    other session is marked (``duplicate_of``: the session kept, "" for none; and
    ``duplicate_why``, as its exclusion says it)."""
    groups: dict[str, list] = {}
    for person in people:
        if person.identity:
            groups.setdefault(person.identity, []).append(person)
    for identity, group in groups.items():
        if len(group) < 2:
            continue
        group.sort(key=arrival)
        name = printable(identity, 60)
        complete = [p for p in group if p.complete]
        kept = complete[0] if len(complete) == 1 else None if complete else group[0]
        if kept is None:
            sessions = ", ".join(p.label + (f" (SESSION_ID {printable(p.prolific_session, 40)})"
                                            if p.prolific_session else "") for p in complete)
            why = (f"{len(complete)} sessions of {name} are complete ({sessions}): none is kept, as nothing here "
                   "tells which is the participant's (Prolific's submissions list each SESSION_ID)")
        for person in group:
            if person is kept:
                continue
            person.duplicate_of = kept.session or kept.participant if kept is not None else ""
            if kept is None:
                person.duplicate_why = why
            elif kept.complete:
                person.duplicate_why = f"another session of {name} is complete: {kept.label}, which is kept"
            else:
                person.duplicate_why = f"a later session of {name} (none is complete; the first, {kept.label}, is kept)"
