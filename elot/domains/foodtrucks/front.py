"""The food trucks' front (Baker et al. 2017): scenarios by experiment id (``12``,
``foodtrucks:12``, from ``scenarios.json`` in the data folder), ``.trucks`` files, or a JSON
file in the experiment's shape; the authors' models; outputs desires K, L, M (1-7) and
beliefs L, M, N; the trucks' English; and the hooks (frames, words, the simulated student)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from elot.domains.foodtrucks import unprefixed
from elot.domains.front import Episode, Front, Planned, PlanRequest, pick_one, split_pick
from elot.domains.tabular import TabularFront
from elot.engine import Case
from elot.errors import ArgumentError, ScenarioError

#: The experiment's belief questions (ELoT, about the initial belief).
QUESTIONS = (
    ("believes(student, formula(at(lebanese, spot2)))", "initial"),
    ("believes(student, formula(at(mexican, spot2)))", "initial"),
    ("believes(student, formula(empty(spot2)))", "initial"),
)
#: The questions as the experiment worded them (what participants are shown).
WORDED = {
    QUESTIONS[0]: "At first, the student thought the Lebanese truck was at spot 2, behind the building.",
    QUESTIONS[1]: "At first, the student thought the Mexican truck was at spot 2, behind the building.",
    QUESTIONS[2]: "At first, the student thought spot 2, behind the building, was empty.",
}

#: What a statement is about, as a language model is told it (the student now, or at the start).
QUESTION = {
    "current": "The statement below is about the student now, at this point of its walk.",
    "initial": "The statement below is about what the student believed at the start, before it moved, or "
               "about what it wants (judge it from everything it did so far).",
}

#: English for the food-truck signature (what the offline translator reads, and English output says).
WORDS = {
    "student": "the student",
    "korean": ["the Korean truck", "the Korean food truck"],
    "lebanese": ["the Lebanese truck", "the Lebanese food truck"],
    "mexican": ["the Mexican truck", "the Mexican food truck"],
    "at(_, spot1)": ["in view of the start", "near the start"],
    "at(_, spot2)": ["behind the building", "around the corner"],
}

class FoodTrucksFront(TabularFront):
    """Food trucks (see the module docstring)."""

    data_variable = "ELOT_BAKER2017_DATA"
    templates = ("elot.domains.foodtrucks", "prompt.txt")
    telling = "elot.domains.foodtrucks.tell"
    question_words = QUESTION
    help_words = {"load": "load a food-truck scenario: a .trucks file or an experiment id (foodtrucks:12)",
                  "goals": "posterior over the truck the student likes best (from its walk)",
                  "worlds": "posterior over what spot 2 holds",
                  "beliefs": "the student's initial belief about spot 2, as inferred now (posterior average)"}

    def __init__(self, domain: Any = None, origin: str = "foodtrucks", data: str | None = None):
        from elot.domains.foodtrucks.domain import FoodTrucks
        from elot.domains.foodtrucks.model import MODELS

        super().__init__(domain or FoodTrucks(), origin, data)
        self.models = dict(MODELS)
        self.aliases = {"full": "btom"}
        self.fitted_models = tuple(self.models)

    def variants(self) -> dict[str, dict]:
        from elot.domains.foodtrucks.model import VARIANTS

        return VARIANTS

    def signature(self, episode: Episode | None = None):
        from elot.domains.foodtrucks.language import signature

        return signature().with_words(WORDS)

    # -- scenarios -------------------------------------------------------------------------

    def _own(self, s) -> Episode:
        name = s.name or f"scenario {s.id}"
        return self.make_episode(name, Case(s.map, s.states, s.world, name), s.judgments, own=s)

    def episode(self, spec: str | None) -> Episode:
        from elot.domains.foodtrucks.scenarios import data_root, read_scenarios
        from elot.domains.foodtrucks.trucksfile import read_trucks

        if spec is None:
            raise ScenarioError("which food-truck scenario?",
                                hint="give an experiment scenario's id (elot run 12 --domain foodtrucks, or "
                                     "foodtrucks:12) or a .trucks file")
        ref = unprefixed(spec)
        path, pick = split_pick(ref)
        if Path(path).exists():      # a folder by that name: reading it says so
            if path.endswith(".json"):
                return replace(self._pick(read_scenarios(path), pick, path), ref=ref)
            return replace(self._pick(read_trucks(path), pick, path, by_name=True), ref=ref)
        if ref.isdigit():
            file = data_root(self.data) / "scenarios.json"
            return replace(self._pick(read_scenarios(file), ref, str(file)), ref=ref)
        raise ScenarioError(f"no food-truck scenario {spec!r}: not a file, nor an experiment scenario's id",
                            hint="give a .trucks file, a scenarios.json-shaped file (FILE:ID), or an id of the "
                                 "experiment (1-78) as 12 or foodtrucks:12")

    def episodes(self, spec: str) -> list[Episode]:
        """Every scenario ``spec`` names, for a batch: ``all`` (the experiment's 78), or a
        file's scenarios (all of them, unless one is picked)."""
        from elot.domains.foodtrucks.scenarios import data_root, read_scenarios
        from elot.domains.foodtrucks.trucksfile import read_trucks

        ref = unprefixed(spec)
        if ref == "all":
            file = data_root(self.data) / "scenarios.json"
            return self.keyed(spec, [replace(self._own(s), ref=str(s.id)) for s in read_scenarios(file)])
        path, pick = split_pick(ref)
        if pick is None and Path(path).is_file():
            json_file = path.endswith(".json")
            found = read_scenarios(path) if json_file else read_trucks(path)
            return self.keyed(spec, [replace(self._own(s), ref=path if len(found) == 1 else
                                             f"{path}:{s.id if json_file else s.name}") for s in found])
        return self.keyed(spec, [self.episode(spec)])

    def inputs(self, spec: str | None) -> list[str]:
        return super().inputs(spec and unprefixed(spec))

    def _pick(self, found: list, pick: str | None, path: str, by_name: bool = False) -> Episode:
        if pick is None or by_name:
            return pick_one([self._own(s) for s in found], pick, path)
        for s in found:
            if pick.isdigit() and s.id == int(pick):
                return self._own(s)
        ids = [str(s.id) for s in found]
        raise ScenarioError(f"{path} has no scenario {pick!r}", hint=f"the ids run {ids[0]}..{ids[-1]}")

    # -- hooks -------------------------------------------------------------------------------

    def frames(self, episode: Episode, **options):
        from elot.domains.foodtrucks.draw import TruckFrames

        return TruckFrames(episode.detail.own, **options)

    def questions(self, episode: Episode) -> list:
        """The experiment's belief questions (in ELoT, initial mode): what the student
        thought at first was at spot 2."""
        from elot.statements import Statement

        return [Statement(text, mode, given=False, id=f"q{n}") for n, (text, mode) in enumerate(QUESTIONS, 1)]

    def shown(self, text: str, mode: str, signature) -> str:
        """The experiment's questions as it worded them; any other statement as English says it."""
        return WORDED.get((text, mode)) or super().shown(text, mode, signature)

    def stimulus_points(self, episode: Episode) -> tuple[int, ...]:
        """Its judgment points (each after a move), else its end."""
        if episode.horizon == 0:
            raise ScenarioError(f"scenario {episode.name} has no moves: there is nothing to watch before the judgment",
                                hint="give it moves (elot plan SCENARIO.trucks --utilities ... writes them)")
        if episode.judged[0] == 0:
            raise ScenarioError(f"scenario {episode.name} is judged at t = 0, before participants have seen a move",
                                hint="judge it after its first move (judge 1 ...) or leave the judge line out")
        return episode.judged

    def stimulus_fields(self, episode: Episode) -> dict:
        """The truck the student eats at (1 Korean, 2 Lebanese, 3 Mexican; 1 when the path
        ends before eating; no goal is asked: ``gems`` 0), the map, what spot 2 holds, the
        moves (as a ``.trucks`` file writes them), and the survey page's texts (``campus``)."""
        from elot.domains.foodtrucks.simulate import eaten
        from elot.domains.foodtrucks.trucksfile import SPOT2_WORDS, format_trucks
        from elot.domains.foodtrucks.world import TRUCKS

        scenario = episode.detail.own
        truck = eaten(scenario)
        moves = format_trucks([scenario]).split("moves", 1)[1].strip()
        return {"goal": TRUCKS.index(truck) + 1 if truck else 1, "gems": 0, "map": scenario.map,
                "spot2": SPOT2_WORDS[scenario.world], "moves": moves, "texts": "campus"}

    tell = Front.tell       # its own words (:attr:`telling`), not a domain file's hook

    def told(self, episode: Episode):
        return episode.detail.own

    # -- the simulated student ---------------------------------------------------------------

    plan_settings = ("utilities", "belief", "planner")

    def plan(self, episodes, request: PlanRequest) -> Planned:
        """Every scenario completed by the simulated student (its --utilities for the trucks,
        its --belief about spot 2), written as ``.trucks``."""
        from elot.domains.foodtrucks.simulate import eaten, parse_belief, parse_utilities, simulate
        from elot.domains.foodtrucks.trucksfile import format_trucks
        from elot.engine import EngineConfig
        from elot.output import count

        if request.utilities is None:
            raise ArgumentError("elot plan on food trucks needs the student's --utilities",
                                hint="e.g. --utilities korean=100,lebanese=40,mexican=-20")
        utilities = parse_utilities(request.utilities)
        config = EngineConfig(beta=self.default_beta if request.beta is None else float(request.beta),
                              planner=request.planner)
        done, notes = [], []
        for n, episode in enumerate(episodes):
            scenario = episode.detail.own
            belief = parse_belief(request.belief, scenario.world)
            seed = None if request.seed is None else request.seed + n
            result = simulate(scenario, utilities, belief, config=config, policy=request.policy, seed=seed,
                              max_steps=request.max_steps)
            done.append(result.scenario)
            name = result.scenario.name or str(result.scenario.id)
            moves = len(result.scenario.cells) - len(scenario.cells)
            if result.gave_up:
                notes.append(f"warning: scenario {name}: the student ate nowhere within {request.max_steps} moves; "
                             "its path is written unfinished")
            else:
                notes.append(f"scenario {name}: {count(moves, 'move')} simulated, eats at the "
                             f"{eaten(result.scenario)} truck")
        return Planned(format_trucks(done), tuple(notes), count(len(done), "scenario"))

    # -- outputs ---------------------------------------------------------------------------

    def outputs(self, result) -> list[tuple[str, str, float]]:
        from elot.domains.foodtrucks.domain import levels
        from elot.domains.foodtrucks.model import BELIEF_OPTIONS, DESIRE_OPTIONS

        desire = result.mean_utility(levels(result.desire_space.utilities))
        belief = result.mean_belief()
        return ([("desire", o, float(v)) for o, v in zip(DESIRE_OPTIONS, desire)]
                + [("belief", o, float(v)) for o, v in zip(BELIEF_OPTIONS, belief)])

    def describe_outputs(self) -> str:
        return ("desire K, L, M: how much the student likes the Korean, Lebanese and Mexican truck (1-7); "
                "belief L, M, N: its initial belief that spot 2 held the Lebanese truck, the Mexican one, nothing")
