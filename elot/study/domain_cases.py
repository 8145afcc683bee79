"""Domain scenarios as the study commands take gridworld scenarios (``elot design``,
``elot storyboard``, ``elot baseline``): one :class:`DomainCase` per scenario of a domain
of the inference engine, with what those commands read of a scenario (its name, whether
it has steps, its judgment points, its last time step) and :meth:`DomainCase.source`, the
scenario under one of the domain's models as a source of ELoT hypotheses
(:class:`elot.domains.source.DomainSource`) for elot's one score loop.

The cases of one :class:`DomainStudy` share an engine per (model, β): each layout is
planned once for every scenario on it (planning does not depend on the path).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from elot.domains.front import FULL, DomainScenario, Front
from elot.errors import ElotError
from elot.study.params import StudyError


@dataclass
class DomainStudy:
    """A domain (its command-line ``front``), the ``planner`` that overrides its models'
    (None: each model's own) and the data folder its scenario ids are read from."""

    front: Front
    planner: str | None = None
    data: str | None = None
    _engines: dict = field(default_factory=dict, repr=False)

    @classmethod
    def named(cls, spec: str, *, planner: str | None = None, data: str | None = None) -> "DomainStudy":
        """The domain ``spec`` names (``--domain``: foodtrucks, a file, an entry point)."""
        from elot.domains.front import front_of
        from elot.domains.load import load_domain

        return cls(front_of(load_domain(spec), spec), planner, data)

    @property
    def name(self) -> str:
        return self.front.name

    def cases(self, specs: Sequence[str]) -> list["DomainCase"]:
        """Every scenario ``specs`` name (a file of several gives them all), in order."""
        return [DomainCase(self, s) for spec in specs for s in self.front.expand(spec, self.data)]

    def check_models(self, models: Sequence[str], option: str = "--model") -> None:
        """Refuse a model the domain does not offer, naming the option, before any work."""
        for model in models:
            try:
                self.front.config(model, planner=self.planner)
            except ElotError as error:
                raise StudyError(f"{option}: {error.message}", hint=error.hint) from None

    def ablations(self) -> list[str]:
        """The domain's models after its first (food trucks: true-belief, no-cost)."""
        return list(self.front.variants())[1:]

    def beta(self, model: str | None = FULL) -> float:
        """The β ``model`` runs at when none is given (the model's own)."""
        return float(self.front.config(model, planner=self.planner).beta)

    def engine(self, model: str, beta: float | None):
        """The engine of ``model`` at ``beta`` (None: the model's own), one per pair."""
        from elot.engine import Engine

        config = self.front.config(model, beta=beta, planner=self.planner)
        key = (self.front.model_name(model), config.beta)
        if key not in self._engines:
            self._engines[key] = Engine(self.front.domain, config)
        return self._engines[key]


@dataclass(frozen=True)
class DomainCase:
    """One scenario of a :class:`DomainStudy`, read by design, storyboard and baseline as
    they read a gridworld scenario."""

    study: DomainStudy
    scenario: DomainScenario

    @property
    def name(self) -> str:
        return self.scenario.name

    @property
    def ref(self) -> str:
        """What reads the scenario back (a study table's ``scenario`` column)."""
        return self.scenario.ref or self.scenario.name

    @property
    def detail(self) -> Any:
        """The domain's own scenario value (food trucks: the FoodTruckScenario), if any."""
        return self.scenario.detail

    @property
    def T(self) -> int:
        return self.scenario.horizon

    @property
    def actions(self) -> tuple[str, ...]:
        """What happened at each step (the domain's actions between the path's states)."""
        return tuple(self.study.front.step_labels(self.scenario)) if self.scenario.horizon else ()

    @property
    def judgments(self) -> tuple[int, ...]:
        """The times judged: the scenario's own, else the path's end (as the experiment judged)."""
        return self.scenario.judged

    def source(self, model: str = FULL, beta: float | None = None):
        """The scenario under ``model`` at ``beta`` (None: the model's own β) as ELoT
        hypotheses (:class:`elot.domains.source.DomainSource`)."""
        from elot.domains.source import DomainSource

        engine = self.study.engine(model, beta)
        return DomainSource(self.study.front, self.scenario, engine.config, self.study.front.model_name(model),
                            engine=engine)

    def questions(self) -> list:
        """The statements the scenario is asked when none are given: its domain's own
        (food trucks: the experiment's three belief questions, as ``elot stimuli`` asks
        them), else none."""
        from elot.domains.foodtrucks.scenarios import FoodTruckScenario
        from elot.judging import Statement
        from elot.study.trucks_stimuli import DEFAULT_STATEMENTS

        if not isinstance(self.detail, FoodTruckScenario):
            return []
        return [Statement(text, mode, given=False, id=f"q{n}") for n, (text, mode, _) in
                enumerate(DEFAULT_STATEMENTS, 1)]
