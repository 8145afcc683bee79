"""A goal-inference study over PDDL problems, read from its folder (Alanqary et al. 2021's layout).

The folder holds ``domain.pddl``; ``problems/scenario-C-S.pddl``; ``actions/C_S.dat`` (the
agent's plan); ``judgment_points.json`` (for each stimulus the 1-based states people judged:
k shows the first k − 1 actions); ``human_dev.csv`` (``scenario, judgment, t, goal, human``:
the participants' mean probability of each goal, dev split only); ``model_predictions.csv``
(another model's values, ``model, scenario, judgment, t, goal, value``); and either
``goals.json`` (per stimulus, the candidate goals in order, each ``{"word", "pddl"}``) or, where
it is absent, the goals ``(has gemN)`` for the gems of the problem in the order gem1, gem2, ...

Nothing is copied: the data stay in their folder and are read from there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError
from elot.domains.pddl.read import PlanStep, read_domain, read_plan
from elot.errors import csv_rows, load_json, read_text


@dataclass(frozen=True)
class Stimulus:
    """One stimulus: its id (``C_S``), problem file, plan, candidate goals, judgment times t."""

    id: str
    problem: Path
    plan: tuple[PlanStep, ...]
    goals: tuple[tuple[str, str], ...]
    times: tuple[int, ...]
    #: each goal's prior weight, where ``goals.json`` gives one (``"prior"``); empty: uniform
    priors: tuple[float, ...] = ()

    @property
    def category(self) -> int:
        return int(self.id.split("_")[0])

    @property
    def dev(self) -> bool:
        """Stimuli C_1 and C_3 are the dev split; C_2 and C_4 are held out."""
        return int(self.id.split("_")[1]) % 2 == 1


@dataclass(frozen=True)
class Study:
    root: Path
    domain: t.Domain
    stimuli: tuple[Stimulus, ...]

    def human(self) -> dict:
        """``{(scenario, t, goal): mean}`` of the dev split."""
        path = self.root / "human_dev.csv"
        rows = csv_rows(read_text(path, "human data"), path=str(path))
        return {(r["scenario"], int(r["t"]), r["goal"]): float(r["human"]) for r in rows}

    def stored(self) -> dict:
        """``{model: {(scenario, t, goal): value}}`` of ``model_predictions.csv``."""
        path = self.root / "model_predictions.csv"
        out: dict = {}
        for r in csv_rows(read_text(path, "model predictions"), path=str(path)):
            out.setdefault(r["model"], {})[(r["scenario"], int(r["t"]), r["goal"])] = float(r["value"])
        return out


def _gem_goals(problem_text: str) -> tuple[tuple[str, str], ...]:
    gems = sorted(set(re.findall(r"\b(gem\d+)\b", problem_text)), key=lambda g: int(g[3:]))
    return tuple((g, f"(has {g})") for g in gems)


def load_study(root: str | Path) -> Study:
    """The study in the folder ``root``."""
    root = Path(root)
    domain = read_domain(root / "domain.pddl")
    points_path = root / "judgment_points.json"
    points = load_json(read_text(points_path, "judgment points"), path=str(points_path),
                       hint="a JSON object: stimulus id -> list of 1-based judgment points")
    goals_path = root / "goals.json"
    words = (load_json(read_text(goals_path, "goals"), path=str(goals_path),
                       hint="a JSON object: stimulus id -> list of {word, pddl}") if goals_path.exists() else None)
    stimuli = []
    for sid in sorted(points, key=lambda s: tuple(int(x) for x in s.split("_"))):
        problem = root / "problems" / f"scenario-{sid.replace('_', '-')}.pddl"
        plan = read_plan(root / "actions" / f"{sid}.dat")
        priors: tuple[float, ...] = ()
        if words is not None:
            goals = tuple((g["word"], g["pddl"]) for g in words[sid])
            if any("prior" in g for g in words[sid]):
                from elot.domains.pddl.goals import goal_weight

                priors = tuple(goal_weight(g.get("prior", 1.0), f"the prior of {g['word']} ({sid})", str(goals_path))
                               for g in words[sid])
        else:
            goals = _gem_goals(read_text(problem, "PDDL problem"))
        times = tuple(int(k) - 1 for k in points[sid])
        if any(k < 0 or k > len(plan) for k in times):
            raise PddlError(f"stimulus {sid}: a judgment point is outside its plan of {len(plan)} actions",
                            path=str(points_path), hint="judgment points are 1-based: k shows k - 1 actions")
        stimuli.append(Stimulus(sid, problem, plan, goals, times, priors))
    return Study(root, domain, tuple(stimuli))
