"""Who sees what: the survey's settings and its counterbalanced orders.

An *order* is what one participant does: a condition (``current`` or ``initial``
statements), the scenarios in the order shown, and for each the statements asked at
every one of its judgment points. Orders are made at build time, seeded, and balanced
over all the orders of a condition (the server hands them out in turn, so each round of
arrivals takes each order once):

* **which scenarios**: each pair of scenarios that must not co-occur (two plans on one
  map, say) is one unit whose members alternate, each time the unit is shown; with fewer
  scenarios per participant than the units, order i takes a window of them that rotates
  with i, so each unit is shown equally often ±1, and each member of a pair half as often;
* **where** (a Latin-square design, generalised): the trials of each order (its scenarios
  and the controls) are first placed greedily (each place to the trial that has held it
  least), then the places are made equitable over all
  orders (:func:`equalize_places`, after de Werra's theorem on equitable edge colourings
  of bipartite multigraphs): each scenario and each control takes each place equally often
  ±1, whatever the numbers of scenarios, pairs, controls and orders. When the same trials
  are shown every time this is a Latin square. Controls may stand anywhere (the default),
  or only among the first ``control_within`` places, which they then take equally often ±1;
* **which statements** (a balanced incomplete block design, in cycles): each time a
  scenario is shown in a condition, ``statements_per_point`` (k) of its m statements of
  that mode are asked. The C(m, k) sets are asked in cycles, each set once a cycle, so
  after every complete cycle each statement was asked C(m−1, k−1) times and each pair of
  statements asked together C(m−2, k−2) times: exactly even. Within a cycle the sets come
  in an order (a seeded depth-first search) in which every statement stays asked equally
  often ±1, and the pairs asked together least come first (for k = 2, every pair stays
  within one of the others). Past :data:`_Statements.MAX_CYCLE` sets, the least asked
  statements are taken, greedily;
* with ``condition = both`` consecutive orders alternate the two groups, which share
  scenarios and places and have their statements balanced separately.

The server hands each arriving participant the order fewest have started, so orders,
conditions and pair members stay balanced as people arrive.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from elot.errors import load_json, read_text
from elot.output import excerpt
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
    #: scenarios everyone sees, each at any place (None) or among the first ``control_within``,
    #: taking each of those places equally often ±1
    controls: list[str] = field(default_factory=list)
    control_within: int | None = None
    #: counterbalanced orders made per condition
    orders: int = 12
    seed: int = 0
    #: where participants go at the end (Prolific's completion URL); empty: a thank-you page
    completion_url: str = ""
    #: how participants reach the researcher (an e-mail address or a web address): shown in
    #: the consent and when the study server cannot be reached or answers were not saved
    contact: str = ""
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
        for name, low, high in (("statements_per_point", 1, MAX_STATEMENTS_PER_POINT), ("orders", 1, MAX_ORDERS),
                                ("control_within", 1, None), ("scenarios_per_participant", 1, None)):
            value = getattr(self, name)
            if value is None and name in ("control_within", "scenarios_per_participant"):
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise SurveyError(f"{name} must be a whole number of at least {low}, not {value!r}",
                                  hint=_OPTION.get(name, ""))
            if high is not None and value > high:
                raise SurveyError(f"{name} is {value:,}, more than the {high:,} a survey can use",
                                  hint=_too_many(name, value, len(names)))
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise SurveyError(f"seed must be a whole number, not {self.seed!r}")
        for name in ("title", "completion_url", "contact", "consent_html", "debrief_html"):
            if not isinstance(getattr(self, name), str):
                raise SurveyError(f"{name} must be text, not {getattr(self, name)!r}")
        if not isinstance(self.require_watch, bool):
            raise SurveyError(f"require_watch must be true or false, not {self.require_watch!r}")
        if not isinstance(self.pairs, list) or not isinstance(self.controls, list) \
                or not all(isinstance(c, str) for c in self.controls):
            raise SurveyError("pairs must be a list of two-name lists and controls a list of names")
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
        if self.contact and not contact_kind(self.contact):
            raise SurveyError(f"the contact {excerpt(self.contact)!r} is neither an e-mail address nor a web address",
                              hint="give an address participants can write to (name@example.org) or a web page "
                                   "(https://...), with --contact or the settings file's \"contact\"")


#: At most this many orders per condition: a participant takes one, and no study has more
#: participants than this; each order costs about :data:`ORDER_BYTES` per trial in
#: ``survey.json`` and in the page every participant loads.
MAX_ORDERS = 10_000
#: Statements rated at one judgment point, at most (a page of sliders fits a screen).
MAX_STATEMENTS_PER_POINT = 20
#: Bytes one trial of one order adds to ``survey.json`` (measured: 40–60).
ORDER_BYTES = 60

_OPTION = {"orders": "--orders N", "statements_per_point": "--statements-per-point N",
           "scenarios_per_participant": "--per-participant N"}


#: An e-mail address as participants can use it: one @, no spaces or brackets, a dotted domain.
_EMAIL = re.compile(r"[^\s@<>()\[\],;:\"']+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*"
                    r"[A-Za-z0-9])?)+")
#: A web address: http(s), a host, and no spaces or characters that would need escaping in a link.
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][^\s<>\"'`\\]*)?")
#: Longest contact accepted (it is shown in a line of the page).
MAX_CONTACT = 200


def contact_kind(contact: str) -> str | None:
    """``"email"``, ``"url"`` or None (neither: refused at build time). The page shows an
    e-mail address as a ``mailto:`` link and a web address as a link, both escaped."""
    if not isinstance(contact, str) or len(contact) > MAX_CONTACT:
        return None
    if _EMAIL.fullmatch(contact):
        return "email"
    return "url" if _URL.fullmatch(contact) else None


def _too_many(name: str, value: int, scenarios: int) -> str:
    """What a too large setting would cost, and what to give instead."""
    if name == "orders":
        size = value * max(scenarios, 1) * ORDER_BYTES
        return (f"{value:,} orders of {scenarios} trial{'' if scenarios == 1 else 's'} would make survey.json "
                f"about {size / 2**20:,.0f} MiB, "
                f"which every participant's browser loads; give at most {MAX_ORDERS:,} (one per participant is "
                "plenty: the server hands them out in turn, balanced)")
    return f"give at most {MAX_STATEMENTS_PER_POINT} ({_OPTION.get(name, name)})"


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


#: Seconds a participant spends, as :func:`duration_minutes` counts them: the consent,
#: the debrief and the end; the instructions with their comprehension check; each screen
#: besides its animation (reading the caption, pressing on); each goal question; each
#: rating on a slider (reading a short statement and setting the slider). Assumptions,
#: not measurements: a pilot's response times (``survey import``) are the check.
SECONDS = {"consent_and_end": 60, "instructions": 150, "screen": 4, "goal_question": 8, "rating": 12}


def order_seconds(scenarios: list[dict], order: dict) -> float:
    """How long one order takes (see :data:`SECONDS`): every segment of its scenarios
    played once (``duration_ms``) plus a screen's overhead, a goal question and the ratings
    asked at each judged segment, the instructions, the consent and the end."""
    by_name = {s["name"]: s for s in scenarios}
    total = SECONDS["consent_and_end"] + SECONDS["instructions"]
    for trial in order["trials"]:
        for segment in by_name[trial["scenario"]]["segments"]:
            total += segment.get("duration_ms", 0) / 1000 + SECONDS["screen"]
            if segment.get("judged"):
                total += SECONDS["goal_question"] + SECONDS["rating"] * len(trial["statements"])
    return total


def duration_minutes(scenarios: list[dict], orders: list[dict]) -> int:
    """What the consent says the study takes: the longest order (a participant may get
    any), in minutes, rounded up to a whole minute below 10 and to 5 minutes from 10 on
    (what a consent form can promise without a false precision), at least 1."""
    import math

    longest = max((order_seconds(scenarios, order) for order in orders), default=0.0) / 60
    if longest < 10:
        return max(1, math.ceil(longest))
    return 5 * math.ceil(longest / 5)


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
    # the units a window rotates over: each free scenario, and each pair (its members alternate)
    units: list[list[str]] = [[n] for n in free] + [list(pair) for pair in settings.pairs]
    units.sort(key=lambda unit: min(names.index(n) for n in unit))
    count = len(units) if settings.scenarios_per_participant is None else settings.scenarios_per_participant
    if count > len(units):
        raise SurveyError(f"{count} scenarios per participant, but the pairs leave {len(units)}",
                          hint="ask for fewer scenarios per participant, or give fewer pairs")
    rng = random.Random(settings.seed)
    places = _Places(rng)
    asked = {condition: {name: _Statements(by_name[name], condition, settings.statements_per_point, rng)
                         for name in names} for condition in conditions}
    turns = [0] * len(units)          # how often each unit was shown: its members alternate
    orders: list[dict] = []
    sequences: list[list[str]] = []
    for i in range(settings.orders):
        start = (i * count) % len(units)
        window = [(start + n) % len(units) for n in range(count)]
        shown = []
        for u in window:
            shown.append(units[u][(turns[u] + u) % len(units[u])])
            turns[u] += 1
        within = None if settings.control_within is None else \
            max(len(settings.controls), min(settings.control_within, len(shown) + len(settings.controls)))
        sequences.append(places.arrange(shown, list(settings.controls), within))
    if settings.control_within is None:
        equalize_places(sequences)
    else:       # controls keep to their places: colours are swapped on each side of them only
        edge = max(len(settings.controls), min(settings.control_within, len(sequences[0])))
        equalize_places(sequences, lambda a, b: (a < edge) == (b < edge))
    for sequence in sequences:
        for condition in conditions:
            trials = [{"scenario": name, "statements": asked[condition][name].next(),
                       "control": name in settings.controls} for name in sequence]
            orders.append({"condition": condition, "trials": trials})
    return orders


def equalize_places(sequences: list[list[str]], may_swap=lambda a, b: True) -> None:
    """Rearrange each order's trials (``sequences``, all of one length L) in place so that
    every trial takes each place equally often ±1 over the orders, as de Werra's theorem
    on equitable edge colourings of bipartite multigraphs promises (orders and trials are
    the two sides; an order's places are the colours of its L edges). For each two places
    a and b (where ``may_swap(a, b)``) whose counts differ by two or more for some trial,
    the edges of those two colours are split into closed trails (an Euler partition, with
    one extra order joined to the trials of odd degree) and recoloured alternately along
    them: each order keeps one trial at a and one at b, and each trial's counts at a and b
    end within one of each other. Each recolouring lowers the sum of squared counts, so
    the loop ends."""
    if not sequences:
        return
    from collections import Counter

    width = len(sequences[0])
    columns = [Counter(seq[place] for seq in sequences) for place in range(width)]
    names = sorted({name for seq in sequences for name in seq})
    allowed = [(a, b) for a in range(width) for b in range(width) if a != b and may_swap(a, b)]
    while True:
        # the most uneven two places of any trial; done when none differs by two or more
        worst, pick = 1, None
        for name in names:
            for a, b in allowed:
                gap = columns[a][name] - columns[b][name]
                if gap > worst:
                    worst, pick = gap, (a, b)
        if pick is None:
            return
        a, b = pick
        _balance_two_places(sequences, a, b)
        for place in (a, b):
            columns[place] = Counter(seq[place] for seq in sequences)


def _balance_two_places(sequences: list[list[str]], a: int, b: int) -> bool:
    """Balance places ``a`` and ``b`` (see :func:`equalize_places`); whether anything changed."""
    from collections import Counter, defaultdict

    at_a = Counter(seq[a] for seq in sequences)
    at_b = Counter(seq[b] for seq in sequences)
    if all(abs(at_a[n] - at_b[n]) <= 1 for n in set(at_a) | set(at_b)):
        return False
    # edges: (order, trial) for place a and for place b; vertex ("o", i) / ("t", name); the
    # extra order ("x",) joins every trial of odd degree
    edges: list[tuple] = []
    links = defaultdict(list)
    for i, seq in enumerate(sequences):
        for place in (a, b):
            links[("o", i)].append(len(edges))
            links[("t", seq[place])].append(len(edges))
            edges.append((("o", i), ("t", seq[place]), i, place))
    for name in sorted(set(at_a) | set(at_b)):
        if (at_a[name] + at_b[name]) % 2:
            links[("x",)].append(len(edges))
            links[("t", name)].append(len(edges))
            edges.append((("x",), ("t", name), None, None))
    used = [False] * len(edges)
    cursor = defaultdict(int)
    colour: dict[int, int] = {}
    for first in range(len(edges)):
        if used[first]:
            continue
        # Hierholzer: a closed trail through `first`, as a list of edges in order
        start = edges[first][0]
        stack: list[tuple] = [(start, None)]
        trail: list[int] = []
        while stack:
            vertex, via = stack[-1]
            options = links[vertex]
            while cursor[vertex] < len(options) and used[options[cursor[vertex]]]:
                cursor[vertex] += 1
            if cursor[vertex] < len(options):
                e = options[cursor[vertex]]
                used[e] = True
                u, v = edges[e][0], edges[e][1]
                stack.append((v if u == vertex else u, e))
            else:
                stack.pop()
                if via is not None:
                    trail.append(via)
        for n, e in enumerate(trail):
            colour[e] = a if n % 2 == 0 else b
    new = [list(seq) for seq in sequences]
    for e, (_, (_, name), i, place) in enumerate(edges):
        if i is not None:
            new[i][colour[e]] = name
    changed = new != sequences
    sequences[:] = new
    return changed


class _Places:
    """A first placement of each order's trials, place by place: the trial that has held
    that place least (ties broken by the seeded generator). :func:`equalize_places` then
    makes the places exactly equitable; starting near it leaves little to move."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.held: dict[str, dict[int, int]] = {}

    def arrange(self, scenarios: list[str], controls: list[str], within: int | None) -> list[str]:
        left = scenarios + controls
        sequence = []
        for place in range(len(left)):
            # controls kept to the first places go there first
            must = [c for c in left if c in controls] if within is not None and len(
                [c for c in left if c in controls]) >= within - place else []
            options = must or [t for t in left if not (within is not None and t in controls and place >= within)]
            least = min(self.held.get(t, {}).get(place, 0) for t in options)
            name = self.rng.choice([t for t in options if self.held.get(t, {}).get(place, 0) == least])
            left.remove(name)
            sequence.append(name)
            self.held.setdefault(name, {})[place] = self.held.get(name, {}).get(place, 0) + 1
        return sequence


class _Statements:
    """Which statements of one scenario are asked, each time it is shown in one condition
    (module docstring). While the sets of ``k`` of its ``m`` statements number at most
    :data:`MAX_CYCLE`, they are asked in cycles (one order of them, found once and
    repeated): each cycle asks every set once (so after
    each cycle every statement has been asked C(m−1, k−1) times more and every pair
    C(m−2, k−2) times more), in an order found by a depth-first search in which every
    prefix keeps each statement asked equally often ±1, the pairs asked together least
    first. Past that, or where the search gives up, each set is chosen greedily: the
    least asked statements, the ones asked with the others least."""

    #: Sets of k of m statements a cycle may hold (C(8, 4) = 70; C(10, 5) = 252).
    MAX_CYCLE = 300
    #: Steps the search for a cycle may take before the greedy choice takes over.
    MAX_SEARCH = 20_000

    def __init__(self, scenario: dict, condition: str, k: int, rng: random.Random):
        self.indices = [n for n, st in enumerate(scenario["statements"]) if st["mode"] == condition]
        self.k = min(k, len(self.indices))
        self.rng = rng
        self.asked = {n: 0 for n in self.indices}
        self.together: dict[tuple[int, int], int] = {}
        self.plan: list[tuple[int, ...]] | None = None      # one cycle, asked again and again
        self.turn = 0

    def _balanced(self, subset) -> bool:
        """Whether asking ``subset`` keeps every statement asked equally often ±1."""
        low = min(self.asked.values())
        fewest = sum(1 for n in self.indices if self.asked[n] == low)
        return sum(1 for n in subset if self.asked[n] == low) >= min(fewest, self.k)

    def _pairs(self, subset) -> tuple[int, int]:
        from itertools import combinations

        together = [self.together.get(pair, 0) for pair in combinations(subset, 2)]
        return max(together, default=0), sum(together)

    def _count(self, subset, step: int) -> None:
        from itertools import combinations

        for n in subset:
            self.asked[n] += step
        for pair in combinations(subset, 2):
            self.together[pair] = self.together.get(pair, 0) + step

    def _new_cycle(self) -> list[tuple[int, ...]]:
        """Every set once, each prefix balanced (see the class); [] when the search gives up."""
        from itertools import combinations
        from math import comb

        if comb(len(self.indices), self.k) > self.MAX_CYCLE:
            return []
        every = list(combinations(self.indices, self.k))
        self.rng.shuffle(every)
        left, path, steps = set(range(len(every))), [], 0
        # an explicit stack of (candidates, next one to try) instead of recursion
        stack = [None]
        while stack:
            if stack[-1] is None:
                if not left:
                    break
                options = sorted((j for j in left if self._balanced(every[j])), key=lambda j: self._pairs(every[j]))
                stack[-1] = [options, 0]
            options, at = stack[-1]
            if path and len(path) == len(stack):      # back from a dead end: undo the last set
                j = path.pop()
                self._count(every[j], -1)
                left.add(j)
            if at == len(options):
                stack.pop()
                continue
            steps += 1
            if steps > self.MAX_SEARCH:
                for j in path:
                    self._count(every[j], -1)
                return []
            j = options[at]
            stack[-1][1] = at + 1
            path.append(j)
            self._count(every[j], +1)
            left.discard(j)
            stack.append(None)
        for j in path:                # the counts are made again as the sets are asked
            self._count(every[j], -1)
        return [every[j] for j in path] if len(path) == len(every) else []

    def next(self) -> list[int]:
        if self.k == len(self.indices):
            chosen = list(self.indices)
        else:
            if self.plan is None:        # at the start every count is 0, as after every cycle
                self.plan = self._new_cycle()
            if self.plan:
                chosen = list(self.plan[self.turn % len(self.plan)])
                self.turn += 1
            else:
                chosen = []
                for _ in range(self.k):
                    rest = [n for n in self.indices if n not in chosen]
                    low = min(self.asked[n] for n in rest)
                    options = [n for n in rest if self.asked[n] == low]
                    options.sort(key=lambda n: sum(self.together.get(tuple(sorted((n, c))), 0) for c in chosen))
                    chosen.append(options[0])
        chosen.sort()
        self._count(chosen, +1)
        return chosen
