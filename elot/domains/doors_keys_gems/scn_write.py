"""Writing elot's ``.scn`` scenario format: :func:`format_scn` gives the text of a
:class:`~elot.domains.doors_keys_gems.scenario.Scenario` that :func:`elot.domains.doors_keys_gems.scn_read.parse_scn_text` reads
back to an equal one.
"""

from __future__ import annotations

from typing import Sequence

from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scn_read import DEFAULT_LEGEND
from elot.domains.doors_keys_gems.world import Action, draw, fmt_action
from elot.settings import MODES


def format_scn(scenario: Scenario, groups: Sequence[tuple[int, int, str]] | None = None) -> str:
    """A ``.scn`` text for ``scenario`` that :func:`parse_scn_text` reads back to an equal
    layout, initial state, actions, judgment points, statements and goal — provided the
    objects are named in reading order as the format names them.

    ``groups`` — ``(start, end, comment)`` covering the actions in order — writes the
    actions one line per group under a ``# comment`` line, repeated actions as ``xN``
    (e.g. one group per subgoal); without it they are written on one line."""
    layout, state = scenario.layout, scenario.initial
    reverse = {(kind, colour): char for char, (kind, colour) in DEFAULT_LEGEND.items()}
    extra: dict[tuple[str, str | None], str] = {}
    spare = iter("123456789@$%&*+=")

    def char_for(kind: str, colour: str | None = None) -> str:
        if (kind, colour) in reverse:
            return reverse[(kind, colour)]
        if (kind, colour) not in extra:
            extra[(kind, colour)] = next(spare)
        return extra[(kind, colour)]

    def marks():
        for gem, pos in layout.gems:
            yield pos, "G" if gem == scenario.true_goal else "g"
        for _, pos, colour in layout.doors:
            yield pos, char_for("door", colour)
        for box, pos in layout.boxes:
            inside = state.box_contents(box)
            yield pos, char_for("box", state.key(inside[0]).colour if inside else None)
        for key, ks in state.keys:
            if ks.where[0] == "cell":
                yield ks.where[1], char_for("key", ks.colour)
        yield state.agent_pos, "h"

    rows = draw(layout, marks())
    out = [f"name: {scenario.name}"]
    if scenario.description:
        out.append(f"description: {scenario.description}")
    if layout.agent != "human":
        out.append(f"agent: {layout.agent}")
    out.append(f"colours: {', '.join(layout.colours)}")
    out += ["", "map:"] + ["  " + row for row in rows]
    if extra:
        out += ["", "legend:"] + [f"  {c} = {k}{' ' + col if col else ''}" for (k, col), c in extra.items()]
    out += ["", "actions:"]
    marks = set(scenario.judgments)
    if groups is not None:
        out += _grouped_actions(scenario.actions, marks, groups)
    else:
        chunk: list[str] = []
        for t, action in enumerate(scenario.actions):
            if t in marks:
                chunk.append("|")
            chunk.append(fmt_action(action))
        if len(scenario.actions) in marks:
            chunk.append("|")
        line = ", ".join(chunk).replace(", |, ", " | ").replace("|, ", "| ").replace(", |", " |")
        out.append("  " + line if chunk else "")
    for mode in MODES:
        statements = scenario.statements_for(mode)  # type: ignore[arg-type]
        if statements:
            out += ["", f"statements {mode}:"] + ["  " + s.text for s in statements]
    return "\n".join(out) + "\n"


def _grouped_actions(actions: Sequence[Action], marks: set[int], groups: Sequence[tuple[int, int, str]]) -> list[str]:
    """The lines of an ``actions:`` section, one per group: a judgment point at t goes
    before action t (at the end of the line when it closes a group)."""
    ends = [0] + [end for _, end, _ in groups]
    if [start for start, _, _ in groups] != ends[:-1] or ends[-1] != len(actions):
        raise ValueError("groups must cover the actions in order")
    lines: list[str] = []
    for start, end, comment in groups:
        words: list[str] = ["|"] if start == 0 and 0 in marks else []
        t = start
        while t < end:
            run = 1
            while t + run < end and actions[t + run] == actions[t] and t + run not in marks:
                run += 1
            words.append(fmt_action(actions[t]) + (f" x{run}" if run > 1 else ""))
            t += run
            if t in marks:
                words.append("|")
        text = ""
        for word in words:
            text += (" |" if text else "|") if word == "|" else (word if not text else
                                                                   (" " if text.endswith("|") else ", ") + word)
        if comment:
            lines.append(f"  # {comment}")
        lines.append("  " + text)
    return lines
