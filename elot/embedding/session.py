"""The REPL over any belief model: an adapter, not a second REPL.

:class:`ModelSession` is the REPL's :class:`~repl.session.Session` with the scenario and
its BToM inference replaced by a :class:`~elot.embedding.BeliefModel`. Everything that
works on hypotheses works unchanged (formulas, English through the translator for the
model's signature, ``:type``, ``:lower``, ``:explain``, ``:trace``, ``:worlds``,
``:beliefs``, moving through time); what needs the gridworld (``:map``, ``:goals``
unless the model has ``goal_posterior(t)``, β, k, the BToM model) says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elot.errors import ElotError, TranslationError
from elot.embedding.judge import scores, translation_note, truth
from elot.embedding.model import check_belief_model, hypotheses_of, load_belief_model, model_name
from elot.repl.render import ScoreRow
from elot.repl.session import Session


@dataclass
class ModelSession(Session):
    """A REPL session over a belief model (``scenario`` holds the model, so the
    translator finds its signature the same way it finds a scenario's)."""

    #: What ``:worlds`` and ``:beliefs`` range over.
    worlds_noun = "world"

    @staticmethod
    def open_model(model: Any, **settings: Any) -> "ModelSession":
        """A session on a model object or a spec (``file.py``, ``file.py:ATTR``, ``module:ATTR``)."""
        model = load_belief_model(model) if isinstance(model, str) else check_belief_model(model)
        session = ModelSession(scenario=model, model=model_name(model), **settings)
        session._check_times()
        return session

    def _check_times(self) -> None:
        times = list(self.scenario.times)
        if times != list(range(len(times))) or not times:
            raise ElotError(f"the model {self.name} has times {times[:5]}{'...' if len(times) > 5 else ''}",
                            hint="the REPL steps through times 0, 1, ..., T: give times = range(T + 1)")

    def load(self, spec: str) -> None:
        """Replace the model (a file or module spec); time goes back to 0."""
        model = load_belief_model(spec)
        previous, self.scenario = self.scenario, model
        try:
            self._check_times()
        except ElotError:
            self.scenario = previous
            raise
        self.model, self.t = model_name(model), 0

    # -- what the scenario answered --------------------------------------------------------

    @property
    def name(self) -> str:
        return model_name(self.scenario)

    @property
    def agent_name(self) -> str:
        return f"observed agent ({self.signature.agent})"  # read as "the observed agent (sally)'s"

    @property
    def horizon(self) -> int:
        return len(self.scenario.times) - 1

    @property
    def signature(self):
        return self.scenario.signature

    def judgments(self) -> list[int]:
        return [int(t) for t in getattr(self.scenario, "judgments", ())]

    def action_before(self, t: int) -> str | None:
        label = getattr(self.scenario, "label", None)
        return None if t <= 0 or label is None else str(label(t))

    def statements(self) -> list[tuple[str, str]]:
        return [tuple(s) for s in getattr(self.scenario, "statements", ())]

    def describe(self) -> str:
        agents = [o for o, d in self.signature.objects if self.signature.is_subdomain(d, "agent")]
        return (f"loaded belief model {self.name}: times 0..{self.horizon}, agents {', '.join(agents)} "
                f"(player = {self.signature.agent}), judgment points {', '.join(map(str, self.judgments())) or 'none'}")

    def states(self) -> tuple:
        raise ElotError(f"the belief model {self.name} has no map", hint="try :worlds or :beliefs")

    # -- BToM settings do not apply ----------------------------------------------------------

    def _not_btom(self, what: str) -> ElotError:
        return ElotError(f"{what} is a setting of elot's BToM inference; {self.name} is your own model",
                         hint="change it in the model, or :load another model")

    def set_beta(self, beta: float) -> None:
        raise self._not_btom("beta")

    def set_k(self, k: int) -> None:
        raise self._not_btom("k")

    def set_model(self, model: str) -> None:
        raise self._not_btom("the BToM model")

    def needs_inference(self) -> bool:
        return False

    @property
    def inference(self):
        raise self._not_btom("inference")

    # -- hypotheses -------------------------------------------------------------------------

    def hypotheses(self, t: int | None = None, mode: str | None = None):
        return hypotheses_of(self.scenario, self.t if t is None else t, initial=(mode or self.mode) == "initial")

    def goal_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        method = getattr(self.scenario, "goal_posterior", None)
        if method is None:
            raise ElotError(f"the belief model {self.name} has no goals", hint="add goal_posterior(t) to the model")
        return [(str(g), float(p)) for g, p in dict(method(self.t if t is None else t)).items()]

    def world_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        rows = self.hypotheses(t, "current")
        return [(self.placement(w), float(p)) for w, p in zip(rows.worlds, rows.world_posterior())]

    def belief_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        rows = self.hypotheses(t, "current")
        return [(self.placement(w), float(p)) for w, p in zip(rows.worlds, rows.average_belief())]

    def placement(self, state) -> str:
        return str(state) or "(no atoms)"

    def translate(self, sentence: str):
        try:
            return super().translate(sentence)
        except TranslationError as error:
            raise translation_note(error, self.signature)

    def resolve(self, text: str, mode: str | None = None):
        try:
            return super().resolve(text, mode)
        except TranslationError as error:
            raise translation_note(error, self.signature)

    def _score(self, text: str, compiled, t: int, mode: str) -> ScoreRow:
        rows = self.hypotheses(t, mode)
        conventions = getattr(self, "conventions", "elot")
        try:
            posterior, likelihood, prior = scores(truth(compiled, rows, text), rows, conventions)
        except ElotError as error:
            raise error.located(source=text, path="<formula>")
        return ScoreRow(
            formula=self.show(compiled.term), type=str(compiled.type), lowered=self.show(compiled.lowered),
            mode=mode, t=t, posterior=posterior, normalized_likelihood=likelihood, prior_fraction=prior,
        )


__all__ = ["ModelSession"]
