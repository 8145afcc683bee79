"""Participants' goal answers against the model's goal posterior.

``elot survey import`` writes one row per participant and judgment point with the gems
they ticked as likely goals. At each (scenario, t) two human numbers per gem are set
beside the model's posterior probability that the gem is the goal given the actions up to
t: ``ticked``, the share of participants who ticked it, and ``human``, the mean over
participants of 1 / (gems they ticked) when they ticked it (a distribution over the gems,
as the posterior is). Excluded participants' answers are left out.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from elot.study.params import StudyError, read_input, whole_records

#: The columns of the comparison table (``goals.csv`` in a report).
COLUMNS = ("scenario", "t", "gem", "n", "ticked", "human", "model")
REQUIRED = ("participant", "scenario", "t", "ticked")


def read_goal_answers(path: str | Path) -> list[dict]:
    """The goal answers ``elot survey import`` wrote, checked: each row's ``t`` a whole
    number and ``ticked`` gem numbers; rows of excluded participants are dropped."""
    text = read_input(Path(path), "goal answers")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise StudyError(f"{path}: the goal answers have no {missing[0]!r} column",
                         hint="give the goals file elot survey import wrote (RATINGS-goals.csv)")
    rows = []
    for row in whole_records(reader, text, path=path, what="goal answers"):
        where = f"{path}:{reader.line_num}"
        if (row.get("excluded") or "").strip():
            continue
        try:
            t = int(row["t"])
            ticked = [int(g) for g in (row["ticked"] or "").split()]
        except (TypeError, ValueError):
            raise StudyError(f"{where}: t and ticked must be whole numbers ({row['t']!r}, {row['ticked']!r})",
                             hint="give the goals file elot survey import wrote") from None
        if not ticked or min(ticked) < 1:
            raise StudyError(f"{where}: no gem ticked", hint="give the goals file elot survey import wrote")
        rows.append({"scenario": (row["scenario"] or "").strip(), "t": t, "ticked": ticked})
    if not rows:
        raise StudyError(f"{path}: no goal answers of included participants")
    return rows


def compare_goals(answers: Sequence[dict], *, model: str | None = None, beta: float | None = None,
                  params: dict | None = None, domain=None, base: Path | None = None) -> list[dict]:
    """One row per (scenario, t, goal): the human shares and the model's goal posterior
    (see the module's docstring), under ``model`` at ``beta`` with the models' ``params``,
    the scenarios read by ``domain`` (a :class:`~elot.study.references.DomainRef`)."""
    from elot.study.references import DomainRef, ScenarioRef

    domain = domain or DomainRef()
    front = domain.front()

    by_point: dict[str, dict[int, list[list[int]]]] = defaultdict(lambda: defaultdict(list))
    for row in answers:
        by_point[row["scenario"]][row["t"]].append(row["ticked"])
    out = []
    for name, points in by_point.items():
        episode = ScenarioRef(name, front.find(name, base), domain).load()
        source = front.run(episode, front.settings(model, beta, **(params or {})))
        gems = list(source.goal_posterior(0))
        for t in sorted(points):
            if not 0 <= t <= episode.horizon:
                raise StudyError(f"goal answers at t = {t}, outside {name}'s plan (0..{episode.horizon})")
            posterior = source.goal_posterior(t)
            ticks = points[t]
            for n, gem in enumerate(gems, start=1):
                out.append({"scenario": name, "t": t, "gem": gem, "n": len(ticks),
                            "ticked": sum(n in tick for tick in ticks) / len(ticks),
                            "human": sum(1 / len(tick) for tick in ticks if n in tick) / len(ticks),
                            "model": posterior.get(gem, 0.0)})
    return out
