"""Who sees what: the survey's settings and its counterbalanced orders.

An *order* is what one participant does: a condition (``current`` or ``initial``
statements), the scenarios in the order shown, and for each the statements asked at
every one of its judgment points. Orders are made at build time, seeded, and balanced:

* of each pair of scenarios that must not co-occur (two plans on one map, say), order i
  shows the first when i + (the pair's index) is even and the second otherwise, so across
  any two consecutive orders each member is shown once;
* with fewer scenarios per participant than the pairs leave, order i takes a window of
  them that rotates with i, so each is shown about equally often;
* the statements asked of a scenario rotate with i through its statements of the
  condition's mode;
* control scenarios are shown to everyone, each at a random place among the first few;
* with ``condition = both`` consecutive orders alternate the two groups.

The server hands each arriving participant the order fewest have started, so orders,
conditions and pair members stay balanced as people arrive.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from elot.errors import load_json, read_text
from elot.survey import SurveyError

CONDITIONS = ("current", "initial", "both")


@dataclass
class Settings:
    """A survey's settings (a JSON settings file with these keys; options override it)."""

    title: str = "Watching a player in a maze"
    #: scenarios each participant sees, controls not counted (None: as many as the pairs allow)
    scenarios_per_participant: int | None = None
    #: statements rated at each judgment point (the same ones at each point of a scenario)
    statements_per_point: int = 2
    condition: str = "current"
    #: pairs of scenarios no participant sees together
    pairs: list[list[str]] = field(default_factory=list)
    #: scenarios everyone sees, each at a random place among the first ``control_within``
    controls: list[str] = field(default_factory=list)
    control_within: int = 3
    #: counterbalanced orders made per condition
    orders: int = 12
    seed: int = 0
    #: where participants go at the end (Prolific's completion URL); empty: a thank-you page
    completion_url: str = ""
    #: the page's answer buttons stay off until each animation has played once
    require_watch: bool = True
    #: HTML of the consent and debrief pages (the researcher's own; not escaped)
    consent_html: str = ""
    debrief_html: str = ""

    def check(self, names: list[str]) -> None:
        """Refuse settings that cannot make orders of the stimulus set ``names``."""
        if self.condition not in CONDITIONS:
            raise SurveyError(f"condition {self.condition!r} is not one of {', '.join(CONDITIONS)}",
                              hint="current or initial statements, or both as separate groups")
        for name, low in (("statements_per_point", 1), ("orders", 1), ("control_within", 1)):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < low:
                raise SurveyError(f"{name} must be a whole number of at least {low}, not {getattr(self, name)!r}")
        if self.scenarios_per_participant is not None and (
                not isinstance(self.scenarios_per_participant, int) or self.scenarios_per_participant < 1):
            raise SurveyError(f"scenarios_per_participant must be a whole number of at least 1, not "
                              f"{self.scenarios_per_participant!r}")
        known = set(names)
        seen: set[str] = set()
        for pair in self.pairs:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise SurveyError(f"a pair must be two scenario names, not {pair!r}", hint="write A,B")
            if pair[0] == pair[1]:
                raise SurveyError(f"the pair {pair[0]},{pair[1]} names one scenario twice")
            for name in pair:
                if name not in known:
                    raise SurveyError(f"the pair {pair[0]},{pair[1]} names {name!r}, which is not in the stimulus set",
                                      hint=f"the stimulus set has {', '.join(names)}")
                if name in seen:
                    raise SurveyError(f"{name} is in two pairs", hint="each scenario may be in one pair at most")
                seen.add(name)
        for name in self.controls:
            if name not in known:
                raise SurveyError(f"control scenario {name!r} is not in the stimulus set",
                                  hint=f"the stimulus set has {', '.join(names)}")
            if name in seen:
                raise SurveyError(f"control scenario {name} is also in a pair",
                                  hint="everyone sees a control scenario, so it cannot be in a pair")
        if self.completion_url and not self.completion_url.startswith(("https://", "http://")):
            raise SurveyError(f"the completion URL {self.completion_url!r} is not a web address",
                              hint="give the https://app.prolific.com/submissions/complete?cc=... URL Prolific shows")


def read_settings(path: str | Path) -> Settings:
    """A JSON settings file: an object with :class:`Settings`'s keys (each optional)."""
    text = read_text(path, "survey settings")
    data = load_json(text, path=str(path), hint="a survey settings file is a JSON object", error=SurveyError)
    if not isinstance(data, dict):
        raise SurveyError(f"{path}: a survey settings file is a JSON object", path=str(path))
    names = {f.name for f in fields(Settings)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise SurveyError(f"{path}: unknown setting {unknown[0]!r}", path=str(path),
                          hint=f"the settings are {', '.join(sorted(names))}")
    return Settings(**data)


def settings_dict(settings: Settings) -> dict:
    return asdict(settings)


def make_orders(scenarios: list[dict], settings: Settings) -> list[dict]:
    """The counterbalanced orders (see the module's docstring). ``scenarios`` are the
    survey's scenario objects, each with ``name`` and ``statements`` (each with ``mode``)."""
    names = [s["name"] for s in scenarios]
    settings.check(names)
    by_name = {s["name"]: s for s in scenarios}
    conditions = ["current", "initial"] if settings.condition == "both" else [settings.condition]
    paired = {n for pair in settings.pairs for n in pair}
    free = [n for n in names if n not in paired and n not in settings.controls]
    for condition in conditions:
        for name in names:
            if not any(st["mode"] == condition for st in by_name[name]["statements"]):
                raise SurveyError(f"scenario {name} has no {condition} statements to ask",
                                  hint="give the stimulus set statements of that mode (initial: ...), or choose "
                                       "another --condition")
    if not free and not settings.pairs:
        raise SurveyError(f"no scenario is left to ask: {', '.join(names)} "
                          f"{'is a control' if len(names) == 1 else 'are all controls'}",
                          hint="controls are asked beside the scenarios, not instead of them: give the stimulus "
                               "set more scenarios, or fewer --control")
    orders = []
    for i in range(settings.orders):
        rng = random.Random(settings.seed * 1_000_003 + i)
        chosen = free + [pair[(i + j) % 2] for j, pair in enumerate(settings.pairs)]
        count = len(chosen) if settings.scenarios_per_participant is None else settings.scenarios_per_participant
        if count > len(chosen):
            raise SurveyError(f"{count} scenarios per participant, but the pairs leave {len(chosen)}",
                              hint="ask for fewer scenarios per participant, or give fewer pairs")
        base = sorted(chosen, key=names.index)
        start = (i * count) % len(base)
        window = [base[(start + n) % len(base)] for n in range(count)]
        rng.shuffle(window)
        for condition in conditions:
            trials = []
            for position, name in enumerate(window):
                trials.append(_trial(by_name[name], condition, i + position, settings, control=False))
            for name in settings.controls:
                at = rng.randrange(0, min(settings.control_within, len(trials)) + 1)
                trials.insert(at, _trial(by_name[name], condition, i, settings, control=True))
            orders.append({"condition": condition, "trials": trials})
    return orders


def _trial(scenario: dict, condition: str, rotation: int, settings: Settings, *, control: bool) -> dict:
    indices = [n for n, st in enumerate(scenario["statements"]) if st["mode"] == condition]
    count = min(settings.statements_per_point, len(indices))
    start = rotation % len(indices)
    asked = sorted(indices[(start + n) % len(indices)] for n in range(count))
    return {"scenario": scenario["name"], "statements": asked, "control": control}
