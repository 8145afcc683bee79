"""The session model: what an interactive session over a scenario or a belief model
knows and answers (the REPL displays it; this module never prints).

A :class:`Session` holds a scenario and its BToM inference, the time, the mode, the
thresholds, β, k, the BToM variant and the query log; :class:`ModelSession` is the same
session over any :class:`~elot.embedding.BeliefModel` (a user's own). Both answer
questions in data: posteriors as ``(label, probability)`` rows, scores as
:class:`ScoreRow`, explanations as :class:`Explanation`; :mod:`elot.repl` turns those
into renderables. Inference is the expensive part: it runs lazily, once per (scenario,
variant, β, k), and is kept while the user moves through time or changes thresholds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from elot.domains.doors_keys_gems.conventions import check_conventions
from elot.domains.doors_keys_gems.inference import InferenceConfig, infer
from elot.engine.worlds.methods import ConfiguredBy
from elot.domains.doors_keys_gems.world import describe_placement, fmt_action
from elot import judging
from elot.embedding.judge import translation_note
from elot.embedding.model import (BeliefModelError, average_belief, check_belief_model, hypotheses_of,
                                  load_belief_model, model_name)
from elot.errors import ElotError, TranslationError
from elot.lang.analysis import prob_columns, thresholds_used
from elot.lang.checker import Checked, check
from elot.lang.lowering import lower
from elot.lang.printer import pretty
from elot.lang.semantics import CompiledFormula, compile_formula
from elot.lang.thresholds import Thresholds
from elot.judging import Score, Scored, truth
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.numeric import dot
from elot.output import count, csv_text, write_output
from elot.settings import CURRENT, INITIAL, MODES, check_number, check_variant


@dataclass(frozen=True)
class ScoreRow(Scored):
    """What a query answers: the formula, its type, lowered form and :class:`Score` now
    (with L's standard error and the effective sample size when the hypotheses are
    particles)."""

    formula: str
    type: str
    lowered: str
    mode: str
    t: int
    score: Score
    ess: float | None = None      # the particles' effective sample size at t
    source: str | None = None     # the English sentence it was translated from
    weight: float | None = None   # the translation's weight


@dataclass
class Explanation:
    """What decided a formula's score at one step: the ``prob_of`` terms of its lowered
    form (``columns``), the thresholds it compares them with, and the hypotheses grouped
    by their ``prob_of`` values and the formula's truth (``groups``: values, holds,
    posterior mass, number of hypotheses), heaviest first."""

    formula: str
    lowered: str
    columns: list[str]
    thresholds: list[tuple[str, float]]
    groups: list[tuple[tuple[float, ...], bool, float, int]]   # counts are (state, belief) pairs
    score: ScoreRow
    hidden_groups: int = 0
    #: Whether the rows are hypotheses with one desire each (a statement about what the
    #: agent wants: its rows are (desire, true state, belief), not (true state, belief) pairs).
    desires: bool = False


@dataclass
class NumericValue:
    """A numeric term's value now (``prob_of(...)``): its posterior mean and its
    distribution over the hypotheses, as (value, posterior mass, number of (state,
    belief) pairs), heaviest first."""

    formula: str
    type: str
    mode: str
    t: int
    mean: float
    distribution: list[tuple[float, float, int]]
    hidden: int = 0


@dataclass
class Session(ConfiguredBy):
    """Everything an interactive session remembers between queries, over a scenario and
    its BToM inference."""

    scenario: Any
    config: InferenceConfig = field(default_factory=InferenceConfig)   # how to infer, whole
    thresholds: Thresholds = field(default_factory=Thresholds)
    mode: str = CURRENT
    bind_free: bool = False
    labtom: str | None = None       # the dataset directory for plan ids (elot repl --labtom)
    language_model: Any = None      # translates what the offline parser refuses (elot.translate.LanguageModel or a path)
    t: int = 0
    log: list[dict] = field(default_factory=list)
    _inference: Any = None

    # -- scenario and time ---------------------------------------------------------------

    @staticmethod
    def open(spec: str | None = None, **settings) -> "Session":
        """A session on a scenario file, a built-in example name, or the default example."""
        return Session(scenario=open_scenario(spec, root=settings.get("labtom")), **settings)

    def load(self, spec: str) -> None:
        """Replace the scenario (file path or example name); time goes back to 0."""
        self.scenario = open_scenario(spec, root=self.labtom)
        self._inference = None
        self.t = 0

    @staticmethod
    def examples() -> list[tuple[str, str]]:
        """The built-in example scenarios: (name, one-line description)."""
        from elot.domains.doors_keys_gems.examples import list_examples, load_example

        out = []
        for name in list_examples():
            try:
                note = load_example(name).description.strip().splitlines()[0]
            except (ElotError, IndexError):
                note = ""
            out.append((name, note))
        return out

    @property
    def name(self) -> str:
        return str(getattr(self.scenario, "name", "scenario"))

    @property
    def agent_name(self) -> str:
        return str(getattr(self.scenario.layout, "agent", "agent"))

    @property
    def horizon(self) -> int:
        """T, the number of actions: steps run from 0 to T."""
        return len(self.scenario.actions)

    def states(self) -> tuple:
        """s_0..s_T, the true world states (the scenario computes them once)."""
        return self.scenario.states()

    def goto(self, t: int) -> None:
        """Move to step ``t``; out-of-range steps are an error that names the range."""
        if not 0 <= t <= self.horizon:
            raise ElotError(
                f"step {t} is outside this scenario",
                hint=f"steps run from 0 to {self.horizon}; the judgment points are "
                + (", ".join(map(str, self.judgments())) or "none"),
            )
        self.t = t

    def judgments(self) -> list[int]:
        return [int(t) for t in getattr(self.scenario, "judgments", ())]

    def action_before(self, t: int) -> str | None:
        """The action that led to step ``t`` (None at t = 0)."""
        return None if t <= 0 else fmt_action(self.scenario.actions[t - 1])

    def statements(self) -> list[tuple[str, str]]:
        """The scenario's own statements as (mode, text)."""
        return [(s.mode, s.text) for s in self.scenario.statements]

    def describe(self) -> str:
        goal = getattr(self.scenario, "true_goal", None)
        return (f"loaded {self.name}: {count(self.horizon, 'action')}, judgment points "
                f"{', '.join(map(str, self.judgments())) or 'none'}"
                + (f", true goal {goal}" if goal else ""))

    # -- settings ------------------------------------------------------------------------

    def set_threshold(self, name: str, value: float) -> None:
        self.thresholds = self.thresholds.replace(**{name: value})

    # -- the inference settings: one InferenceConfig, changed as a whole ---------------------

    @property
    def method(self) -> str:
        """How inference runs: exact, smc or auto (``:set inference``)."""
        return self.config.method

    def configure(self, **changes) -> None:
        """Change the inference settings (:class:`~elot.domains.doors_keys_gems.inference.InferenceConfig`'s
        fields, checked there); inference reruns on the next query if they changed."""
        config = self.config.replace(**changes)
        if config != self.config:
            self.config, self._inference = config, None

    # β, k and the model are checked as the command line checks them (elot.settings).

    def set_beta(self, beta: float | str) -> None:
        self.configure(beta=check_number("beta", beta))

    def set_k(self, k: int | str) -> None:
        self.configure(k=check_number("k", k))

    def set_model(self, model: str) -> None:
        self.configure(variant=check_variant(model))

    def set_conventions(self, conventions: str) -> None:
        """``elot`` or ``paper`` (SPEC §7): how states are named and π is counted."""
        self.configure(conventions=check_conventions(conventions))

    def set_mode(self, mode: str) -> None:
        """Judge statements about the agent's ``current`` or ``initial`` belief from now on."""
        if mode not in MODES:
            raise ElotError(f"unknown mode {mode!r}", hint=f"use one of: {', '.join(MODES)}")
        self.mode = mode

    def set_method(self, method: str) -> None:
        """``exact``, ``smc`` or ``auto``: how inference runs (SPEC §5, §8)."""
        self.configure(method=method)

    def set_particles(self, n: int | str) -> None:
        self.configure(particles=check_number("particles", n))

    def set_seed(self, seed: int | str) -> None:
        self.configure(seed=check_number("seed", seed))

    @contextlib.contextmanager
    def in_mode(self, mode: str):
        """Score in ``mode`` for the duration of a ``with`` block (then the mode before)."""
        saved, self.mode = self.mode, mode
        try:
            yield self
        finally:
            self.mode = saved

    def thresholds_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self.thresholds)

    def threshold_overrides(self) -> str:
        """The thresholds changed from their defaults, as ``might=0.25,...`` ('' if none)."""
        defaults = self.default_thresholds()
        return ",".join(f"{k}={v:g}" for k, v in self.thresholds_dict().items() if v != defaults[k])

    @staticmethod
    def default_thresholds() -> dict[str, float]:
        return dataclasses.asdict(Thresholds())

    # -- inference -----------------------------------------------------------------------

    def needs_inference(self) -> bool:
        """Whether the next use of :attr:`inference` will run it."""
        return self._inference is None

    @property
    def inference(self):
        """The BToM inference for the current scenario and :attr:`config` (run once)."""
        if self._inference is None:
            self._inference = infer(self.scenario, self.config)
        return self._inference

    @property
    def signature(self) -> Signature:
        """The scenario's objects with the Doors, Keys & Gems predicates."""
        return self.scenario.signature()

    def goal_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """P(goal | actions up to t) for each gem, in the layout's order."""
        t = self.t if t is None else t
        return [(str(g), float(p)) for g, p in self.inference.goal_posterior(t).items()]

    def world_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """P(initial key placement | actions up to t), each described box by box."""
        t = self.t if t is None else t
        inf = self.inference
        return [(self.placement(s), float(p)) for s, p in zip(inf.worlds(0), inf.state_posterior(t))]

    def belief_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """The agent's belief over placements at t, averaged over hypotheses by posterior."""
        t = self.t if t is None else t
        inf = self.inference
        average = inf.average_belief(t)      # world j at t evolved from initial state j
        return [(self.placement(s), float(p)) for s, p in zip(inf.worlds(0), average)]

    def placement(self, state) -> str:
        """A hidden-key placement as ``box1: red, box2: –``."""
        return describe_placement(self.scenario.layout, state)

    # -- formulas ------------------------------------------------------------------------

    def check(self, text: str) -> Checked:
        try:
            return check(text, self.signature, bind_free=self.bind_free, source=text)
        except ElotError as error:
            raise error.located(source=text, path="<formula>")

    def lower(self, text: str):
        try:
            return lower(text, self.signature, explain=True, bind_free=self.bind_free)
        except ElotError as error:
            raise error.located(source=text, path="<formula>")

    @staticmethod
    def show(term: Term) -> str:
        return pretty(term)

    def compile(self, text: str) -> CompiledFormula:
        """Typecheck, lower and compile a formula against this scenario and thresholds."""
        try:
            return compile_formula(text, self.signature, self.thresholds, self.bind_free)
        except ElotError as error:
            raise error.located(source=text, path="<formula>")

    def score(self, text: str, t: int | None = None, mode: str | None = None) -> ScoreRow:
        """Type, lowered form and score of a formula at ``t`` (default now)."""
        return self._score(text, self.compile(text), self.t if t is None else t, mode or self.mode)

    def _score(self, text: str, compiled: CompiledFormula, t: int, mode: str) -> ScoreRow:
        hypotheses = self.hypotheses(t, mode)
        try:
            judging.compile_statement(compiled, self.signature)   # a number has no score: say so
        except ElotError as error:
            raise error.located(source=text, path="<formula>")
        got = judging.score_truth(truth(compiled, hypotheses, text), hypotheses, self.conventions)
        return ScoreRow(
            formula=pretty(compiled.term), type=str(compiled.type), lowered=pretty(compiled.lowered),
            mode=mode, t=t, score=got, ess=hypotheses.ess,
        )

    def query(self, text: str, *, source: str | None = None, weight: float | None = None) -> ScoreRow:
        """Score a formula now and record it in the query log."""
        row = dataclasses.replace(self.score(text), source=source, weight=weight)
        self.log.append({
            "scenario": self.name, "t": row.t, "mode": row.mode, "model": self.model,
            "beta": self.beta, "english": source or "", "formula": row.formula,
            "lowered": row.lowered, "thresholds": self.threshold_overrides(),
            "posterior": row.posterior,
            "normalized_likelihood": row.normalized_likelihood,
        })
        return row

    def translate(self, sentence: str) -> list[tuple[str, float, str]]:
        """English → ranked ELoT candidates (formula text, weight, the mode it is judged in)."""
        from elot.translate import judged_mode, translate

        result = translate(sentence, scenario=self.scenario, language_model=self.language_model)
        return [(c.formula, float(c.weight), judged_mode(c.mode, self.mode)) for c in result.candidates]

    def trace(self, text: str, mode: str | None = None) -> list[float]:
        """The normalized likelihood of a formula at every step 0..T (in ``mode``,
        default the session's)."""
        compiled = self.compile(text)
        mode = mode or self.mode
        return [self._score(text, compiled, t, mode).normalized_likelihood for t in range(self.horizon + 1)]

    def resolve(self, text: str, mode: str | None = None) -> tuple[str, str]:
        """A statement as (formula, mode): see :func:`elot.translate.resolve_statement`."""
        from elot.translate import resolve_statement

        formula, mode, _ = resolve_statement(text, mode=mode or self.mode, scenario=self.scenario,
                                             language_model=self.language_model)
        return formula, mode

    def hypotheses(self, t: int | None = None, mode: str | None = None) -> judging.Hypotheses:
        """The hypotheses judged at t (default now) about the ``mode`` belief: one row per
        (true state, initial belief) pair, since the goal does not change beliefs (the
        inference's :meth:`~elot.domains.doors_keys_gems.engine.Trajectory.judged`)."""
        t = self.t if t is None else t
        return self.inference.judged(t, 0 if (mode or self.mode) == INITIAL else t)

    def rows(self) -> tuple[list, Any, np.ndarray, np.ndarray]:
        """The hypotheses judged now as ``(worlds, beliefs, true_index, posterior)`` for
        ``compile_formula(...).truth``."""
        rows = self.hypotheses()
        return list(rows.worlds), dict(rows.beliefs) or None, rows.true_index, rows.weights

    def _rows_for(self, compiled: CompiledFormula) -> tuple[list, Any, np.ndarray, np.ndarray, Any]:
        """:meth:`rows` for ``compiled``, with the rows' desires: a statement about desires
        is judged on rows with one desire each (:func:`elot.judging.rows_for`)."""
        rows = judging.rows_for(compiled, self.hypotheses())
        desires = judging.desire_table(rows) if compiled.needs_desires else None
        return list(rows.worlds), dict(rows.beliefs) or None, rows.true_index, rows.weights, desires

    def is_number(self, text: str) -> bool:
        """Whether a formula is a numeric term (type Φ_F, e.g. ``prob_of(...)``)."""
        from elot.lang.typesystem import NUMERIC

        return self.check(text).type == NUMERIC

    def value(self, text: str, *, max_rows: int = 12) -> NumericValue:
        """A numeric term's value now, for every (true state, belief) pair, weighted by
        the posterior: its mean and its distribution (values rounded to 3 places)."""
        compiled = self.compile(text)
        worlds, beliefs, true_index, weights, desires = self._rows_for(compiled)
        values = compiled.value(worlds, beliefs, true_index, desires=desires)
        groups: dict[float, list] = {}
        for v, w in zip(np.round(values, 3), weights):
            entry = groups.setdefault(float(v), [0.0, 0])
            entry[0] += float(w)
            entry[1] += 1
        ordered = sorted(((v, m, c) for v, (m, c) in groups.items()), key=lambda g: (-g[1], g[0]))
        return NumericValue(
            formula=pretty(compiled.term), type=str(compiled.type), mode=self.mode, t=self.t,
            mean=dot(weights, values), distribution=ordered[:max_rows],
            hidden=max(0, len(ordered) - max_rows))

    def explain(self, text: str, *, max_columns: int = 6, max_groups: int = 12) -> Explanation:
        """The ``prob_of`` values (for a statement about desires: the ``utility_of`` and
        ``prob_goal`` values) and thresholds that decided the score now, by group."""
        compiled = self.compile(text)
        row = self._score(text, compiled, self.t, self.mode)
        lowered = compiled.lowered
        worlds, beliefs, true_index, weights, desires = self._rows_for(compiled)
        columns = prob_columns(lowered, self.signature, self.thresholds, worlds, beliefs, true_index,
                               desires)[:max_columns]
        holds = compiled.truth(worlds, beliefs, true_index, desires=desires)
        groups: dict[tuple, list] = {}
        for n in range(len(weights)):
            key = (tuple(round(float(v[n]), 3) for _, v in columns), bool(holds[n]))
            entry = groups.setdefault(key, [0.0, 0])
            entry[0] += float(weights[n])
            entry[1] += 1
        ordered = sorted(((k[0], k[1], m, c) for k, (m, c) in groups.items()), key=lambda g: -g[2])
        return Explanation(
            formula=row.formula, lowered=row.lowered, columns=[c for c, _ in columns],
            thresholds=thresholds_used(lowered, self.thresholds), groups=ordered[:max_groups], score=row,
            hidden_groups=max(0, len(ordered) - max_groups), desires=compiled.needs_desires,
        )

    # -- saving --------------------------------------------------------------------------

    def save(self, path: str, *, force: bool = False) -> Path:
        """Write the query log as CSV or JSON (by extension), through
        :func:`elot.output.write_output`: never empty, never over a file that is not a
        query log elot wrote unless ``force``."""
        target = Path(path).expanduser()
        if target.is_dir():
            raise ElotError(f"{target} is a folder", hint="give a file name in it, ending in .csv or .json")
        suffix = target.suffix.lower()
        if suffix not in (".csv", ".json"):
            raise ElotError(f"cannot save as {suffix or 'a file without extension'}",
                            hint="use a .csv or .json file name")
        if not self.log:
            raise ElotError("nothing to save yet: this session has scored no formula",
                            hint="type a formula or a sentence first; :save writes their scores")
        if suffix == ".json":
            text = json.dumps(self.log, indent=2) + "\n"
        else:
            text = csv_text(self.log, lineterminator="\r\n")
        write_output(target, text, force=force, option=":save")
        return target


LOG_FIELDS = ("scenario", "t", "mode", "model", "beta", "english", "formula", "lowered",
              "thresholds", "posterior", "normalized_likelihood")



@dataclass
class ModelSession(Session):
    """A session over a belief model, an adapter rather than a second session:
    ``scenario`` holds the model (so the translator finds its signature the way it
    finds a scenario's), and everything that works on hypotheses works unchanged
    (formulas, English through the translator, types, lowering, explanations, traces,
    worlds, beliefs, time); what needs the gridworld (the map, goals unless the model
    has ``goal_posterior(t)``, β, k, the BToM variant) says so."""

    #: What ``:worlds`` and ``:beliefs`` range over.
    worlds_noun = "world"

    @staticmethod
    def open_model(model: Any, **settings: Any) -> "ModelSession":
        """A session on a model object or a spec (``file.py``, ``file.py:ATTR``, ``module:ATTR``)."""
        model = load_belief_model(model) if isinstance(model, str) else check_belief_model(model)
        session = ModelSession(scenario=model, **settings)
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
        self.t = 0

    # -- what the scenario answered --------------------------------------------------------

    @property
    def name(self) -> str:
        return model_name(self.scenario)

    @property
    def model(self) -> str:
        """The belief model's name (where a scenario session names its BToM variant)."""
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
        return None if t <= 0 or label is None else str(self._model_call(label, t))

    def _model_call(self, method, t: int):
        """``method(t)`` of the user's model; its own failure is the model's error (naming
        the method), not an internal error of elot."""
        try:
            return method(t)
        except ElotError:
            raise
        except Exception as error:
            raise BeliefModelError(f"{self.name}.{getattr(method, '__name__', 'method')}({t}) failed: "
                                   f"{type(error).__name__}: {error}",
                                   hint="this is an error in the model's code; call it directly to see the "
                                        "traceback") from error

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

    def set_mode(self, mode: str) -> None:
        """As :meth:`Session.set_mode`; the initial belief needs the model's
        ``initial_hypotheses(t)``, so a model without it is refused at once rather than at
        every query after."""
        if mode == INITIAL and not callable(getattr(self.scenario, "initial_hypotheses", None)):
            raise BeliefModelError(f"the model {self.name} has no initial_hypotheses(t), so it cannot judge "
                                   f"statements about the initial belief",
                                   hint="stay in :current, or add initial_hypotheses(t) to the model")
        super().set_mode(mode)

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
        when = self.t if t is None else t
        found = self._model_call(method, when)
        try:
            rows = [(str(g), float(p)) for g, p in dict(found).items()]
        except (TypeError, ValueError) as error:
            raise BeliefModelError(f"{self.name}.goal_posterior({when}) did not return goal: probability pairs "
                                   f"({type(error).__name__}: {error})",
                                   hint="return a dict such as {'gem1': 0.7, 'gem2': 0.3}") from None
        bad = [(g, p) for g, p in rows if not 0.0 <= p <= 1.0]       # NaN fails this too
        if bad:
            raise BeliefModelError(f"{self.name}.goal_posterior({when}) gave {bad[0][0]} the probability "
                                   f"{bad[0][1]}, not a number between 0 and 1",
                                   hint="return probabilities between 0 and 1 (no NaN)")
        return rows

    def world_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        rows = self.hypotheses(t, "current")
        return [(self.placement(w), float(p)) for w, p in zip(rows.worlds, rows.world_posterior())]

    def belief_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        rows = self.hypotheses(t, "current")
        return [(self.placement(w), float(p)) for w, p in zip(rows.worlds, average_belief(rows))]

    def placement(self, state) -> str:
        return str(state) or "(no atoms)"

    def translate(self, sentence: str):
        try:
            return super().translate(sentence)
        except TranslationError as error:
            raise translation_note(error, self.signature, self.language_model)

    def resolve(self, text: str, mode: str | None = None):
        try:
            return super().resolve(text, mode)
        except TranslationError as error:
            raise translation_note(error, self.signature, self.language_model)

# -- loading ------------------------------------------------------------------------------


def open_scenario(spec: str | None, root: str | None = None):
    """A scenario from a path (``.scn``, dataset problem or plan), a built-in example name
    or a dataset plan id (under ``root``, default the dataset's usual place); the default
    example when ``spec`` is None."""
    from elot.domains.doors_keys_gems.load import load_scenario
    from elot.domains.doors_keys_gems.examples import default_example

    if spec is None:
        return default_example()
    return load_scenario(spec, root=root)


@dataclass
class DomainSession(ModelSession):
    """A session over a scenario of a domain of the inference engine (food trucks, or a
    researcher's own from a file): a :class:`ModelSession` over its
    :class:`~elot.domains.source.DomainSource`, with β and the model (``:set beta``,
    ``:model``) changed as the command line changes them. The engine infers the initial
    belief and the desires: a statement about the current belief after the first step is
    refused with a hint; what needs the gridworld (the map, k) says so."""

    data: str | None = None        # the food-truck experiment's folder, for :load ID

    @staticmethod
    def open_source(source: Any, **settings: Any) -> "DomainSession":
        session = DomainSession(scenario=source, **settings)
        session._check_times()
        return session

    def _rebuild(self, **changes) -> None:
        from elot.domains.source import DomainSource

        source = self.scenario
        self.scenario = DomainSource(source.front, source.scenario, dataclasses.replace(source.config, **changes),
                                     source.model)

    def load(self, spec: str) -> None:
        """Another scenario of the same domain, at its (last) judgment point, as it opens."""
        from elot.domains.source import DomainSource

        source = self.scenario
        self.scenario = DomainSource(source.front, source.front.scenario(spec, self.data), source.config, source.model)
        self.t = self.scenario.judgments[-1]

    @property
    def name(self) -> str:
        return self.scenario.name

    @property
    def model(self) -> str:
        return self.scenario.model

    @property
    def beta(self) -> float:
        return self.scenario.config.beta

    @property
    def agent_name(self) -> str:
        return str(self.signature.agent)

    def describe(self) -> str:
        config = self.scenario.config
        return (f"loaded {self.name}: {count(self.horizon, 'step')}, judgment points "
                f"{', '.join(map(str, self.judgments()))}; planner {config.planner}, β={config.beta:g}"
                + (f", inference {config.method} ({config.particles:,} particles, seed {config.seed})"
                   if config.may_sample else "")
                + f" (the engine infers the {self.signature.agent}'s initial belief and desires)")

    def _not_btom(self, what: str) -> ElotError:
        return ElotError(f"{what} is a setting of the Doors-Keys-Gems inference; the {self.scenario.front.name} "
                         "domain does not have it", hint="try :set beta B or :model NAME")

    def set_beta(self, beta: float | str) -> None:
        self._rebuild(beta=float(check_number("beta", beta)))

    def set_model(self, model: str) -> None:
        source = self.scenario
        from elot.domains.source import DomainSource

        ran = source.config   # how to infer and the budget stay as the session opened them
        config = source.front.config(model, beta=ran.beta, method=ran.method, particles=ran.particles, seed=ran.seed,
                                     memory_limit=ran.memory_limit, backend=ran.backend)
        self.scenario = DomainSource(source.front, source.scenario, config, source.front.model_name(model))

    def states(self) -> tuple:
        raise ElotError(f"the REPL draws no map of the {self.scenario.front.name} domain",
                        hint=":goals shows which object the agent likes best, :beliefs its initial belief; "
                             "elot run prints the domain's outputs")

    def _refuse_current(self, text: str, compiled: CompiledFormula, t: int, mode: str) -> None:
        from elot.domains.source import CurrentBeliefError

        if mode == CURRENT and t > 0 and compiled.needs_belief:
            raise CurrentBeliefError(
                f"this formula is about the {self.signature.agent}'s current belief at t={t}, which the "
                f"{self.scenario.front.name} model does not infer (it infers the initial belief and the desires)",
                hint=":initial to ask about the initial belief, or :goto 0", source=text, path="<formula>")

    def _score(self, text: str, compiled: CompiledFormula, t: int, mode: str) -> ScoreRow:
        self._refuse_current(text, compiled, t, mode)
        return super()._score(text, compiled, t, mode)

    def value(self, text: str, *, max_rows: int = 12) -> NumericValue:
        self._refuse_current(text, self.compile(text), self.t, self.mode)
        return super().value(text, max_rows=max_rows)

    def belief_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """The posterior mean of the initial belief (what the engine infers)."""
        rows = self.hypotheses(t, INITIAL)
        return [(self.placement(w), float(p)) for w, p in zip(rows.worlds, average_belief(rows))]
