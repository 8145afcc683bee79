"""Food-truck stimulus sets in a survey (``elot survey build`` on what ``elot stimuli
SCENARIO.trucks`` wrote): each scenario is described from its ``stimuli.json`` entry alone
(the entry carries its domain, statements with their modes and the English shown), no
goal question is asked (``gems`` 0: the participants rate the statements), and the page
speaks of a student, food trucks and a building instead of a maze, gems and boxes."""

from __future__ import annotations

from pathlib import Path

from elot.survey import SurveyError

DOMAIN = "foodtrucks"


def domain_of(entries: list[dict]) -> str | None:
    """``"foodtrucks"`` when every entry is a food-truck scenario, None when none is; a
    set mixing the two is refused."""
    marked = [e.get("domain") == DOMAIN for e in entries]
    if all(marked):
        return DOMAIN
    if any(marked):
        raise SurveyError("the stimulus set mixes food-truck scenarios with Doors-Keys-Gems ones",
                          hint="a survey is of one domain: render each into a set of its own")
    return None


def describe_trucks(entries: list[dict], folder: Path) -> list[dict]:
    """The survey's scenario objects of a food-truck set: segments (each after the start
    judged: the path's end, or every judgment point of its ``judge`` line),
    statements with their mode and the English shown."""
    from elot.survey.gifs import gif_timing

    out = []
    for entry in entries:
        texts, modes = entry["statements"], entry.get("modes")
        shown = entry.get("shown")
        if not (isinstance(modes, list) and len(modes) == len(texts)):
            modes = ["initial"] * len(texts)
        if not (isinstance(shown, list) and len(shown) == len(texts) and all(isinstance(s, str) for s in shown)):
            shown = texts
        if not texts:
            raise SurveyError(f"scenario {entry['name']} has no statement to ask",
                              hint="render the set again with --statements FILE, or without it for the "
                                   "experiment's questions")
        segments = []
        for k, (image, time) in enumerate(zip(entry["images"], entry["times"])):
            frames, duration = gif_timing(folder / image)
            segments.append({"image": f"stimuli/{image}", "t": time - 1, "judged": k > 0, "frames": frames,
                             "duration_ms": duration})
        statements = []
        for text, mode, said in zip(texts, modes, shown):
            statement = {"text": text, "mode": mode}
            if said != text:
                statement["shown"] = said
            statements.append(statement)
        out.append({"name": entry["name"], "scenario": entry.get("scenario") or entry["name"], "goal": entry["goal"],
                    "gems": 0, "segments": segments, "statements": statements, "domain": DOMAIN})
    return out


def default_condition(entries: list[dict], given: str) -> str:
    """The condition of a food-truck survey when none is asked for: the mode all its
    statements share (``initial`` for the experiment's questions), else ``given``."""
    if domain_of(entries) != DOMAIN:
        return given
    modes = {m for e in entries for m in (e.get("modes") or [])}
    return modes.pop() if len(modes) == 1 else given
