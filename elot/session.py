"""The session model: what an interactive session over a scenario of any domain, or over a
belief model of your own, knows and answers (the REPL displays it; this module never prints).

A :class:`Session` holds a :class:`~elot.domains.source.Source`: a domain's scenario run
under its settings (the domain's front reads the scenario, checks the settings and runs
it; inference is the expensive part, so it runs lazily, once per scenario and settings, and
is kept while the user moves through time or changes thresholds), or a user's
:class:`~elot.embedding.BeliefModel` seen as one (:class:`elot.embedding.model.ModelSource`).
Besides it: the time, the mode, the thresholds and the query log. It answers questions in
data: posteriors as ``(label, probability)`` rows, scores as :class:`ScoreRow`,
explanations as :class:`Explanation`; :mod:`elot.repl` turns those into renderables. A
setting the source does not have (β of your own model, k of food trucks) is refused with
what it does have.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from elot import judging
from elot.domains.front import Episode, Front
from elot.domains.registry import front_for
from elot.embedding.judge import translation_note
from elot.embedding.model import ModelSource, check_belief_model, load_belief_model
from elot.engine.settings import Settings
from elot.errors import ElotError, TranslationError
from elot.judging import Score, Scored, truth
from elot.statements import compile_statement
from elot.lang.analysis import prob_columns, thresholds_used
from elot.lang.checker import Checked, check
from elot.lang.lowering import lower
from elot.lang.english import constant
from elot.lang.printer import pretty
from elot.lang.semantics import CompiledFormula, compile_formula
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.lang.thresholds import Thresholds
from elot.numeric import dot
from elot.output import count, csv_text, write_output
from elot.settings import CURRENT, INITIAL, MODES, check_number


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
class Session:
    """Everything an interactive session remembers between queries (see the module): a
    domain's ``front``, its ``episode`` and the ``settings`` it runs under, or (with
    ``front`` None) a belief model as the ``source``."""

    front: Front | None = None
    episode: Episode | None = None
    settings: Settings | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    mode: str = CURRENT
    bind_free: bool = False
    language_model: Any = None      # translates what the offline parser refuses (elot.translate.LanguageModel or a path)
    t: int = 0
    log: list[dict] = field(default_factory=list)
    source: Any = None

    # -- opening -----------------------------------------------------------------------------

    @staticmethod
    def open(spec: str | None = None, front: Front | None = None, settings: Settings | None = None,
             **options: Any) -> "Session":
        """A session on the scenario ``spec`` of ``front``'s domain (None: the domain that
        claims ``spec``'s name, else the gridworld; its default scenario when ``spec`` is
        None), under ``settings`` (None: the domain's defaults); a run too large for the
        budget is refused now, before the prompt."""
        if front is None:
            front = front_for(scenarios=() if spec is None else (spec,))
        episode = front.episode(spec)
        settings = settings or front.settings()
        front.check([episode], settings)
        return Session(front, episode, settings, **options)

    @staticmethod
    def open_model(model: Any, **options: Any) -> "Session":
        """A session on a belief model: an object or a spec (``file.py``, ``file.py:ATTR``,
        ``module:ATTR``)."""
        model = load_belief_model(model) if isinstance(model, str) else check_belief_model(model)
        session = Session(source=ModelSource(model), **options)
        session.source.check_times()
        return session

    def load(self, spec: str) -> None:
        """Another scenario of the same domain (or, for a belief model, another model); time
        goes back to 0, or to the last judgment point of a domain whose runs judge the end."""
        if self.front is None:
            source = ModelSource(load_belief_model(spec))
            source.check_times()
            self.source, self.t = source, 0
            return
        self.episode = self.front.episode(spec)
        self.source = None
        self.t = self.episode.judged[-1] if self.front.default_mode == INITIAL else 0

    def help_for(self, command: str) -> str | None:
        """The REPL's help of ``command`` in the domain's words (None: the command's own)."""
        return self.front.help_words.get(command) if self.front is not None else None

    def examples(self) -> list[tuple[str, str]]:
        """Scenarios the domain opens by name: (name, one-line description)."""
        return self.front.examples() if self.front is not None else []

    # -- what is loaded ----------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.episode.name if self.episode is not None else self.source.name

    @property
    def signature(self) -> Signature:
        """The ELoT signature formulas are read in (the scenario's objects, the domain's words)."""
        if self.front is not None:
            return self.front.signature(self.episode)
        return self.source.signature

    @property
    def agent_words(self) -> str:
        """How English names the agent ("the student", "Sally": the domain's words)."""
        return constant(self.signature.agent, self.signature)

    @property
    def horizon(self) -> int:
        """T: steps run from 0 to T."""
        return self.episode.horizon if self.episode is not None else self.source.steps

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
        if self.episode is not None:
            return [int(t) for t in self.episode.judged]
        return [int(t) for t in self.source.judgments]

    def action_before(self, t: int) -> str | None:
        """What happened just before step ``t`` (None at t = 0)."""
        if t <= 0:
            return None
        label = self.front.label(self.episode, t) if self.front is not None else self.run().label(t)
        return label or None

    def statements(self) -> list[tuple[str, str]]:
        """The scenario's own statements as (mode, text)."""
        if self.episode is not None:
            return [(s.mode, s.text) for s in self.episode.statements]
        return [tuple(s) for s in self.source.statements]

    def describe(self) -> str:
        if self.front is None:
            signature = self.signature
            agents = [o for o, d in signature.objects if signature.is_subdomain(d, "agent")]
            return (f"loaded belief model {self.name}: times 0..{self.horizon}, agents {', '.join(agents)} "
                    f"(player = {signature.agent}), judgment points {', '.join(map(str, self.judgments())) or 'none'}")
        goal = getattr(self.episode.detail, "true_goal", None)
        return (f"loaded {self.name}: {count(self.horizon, 'step' if self.front.default_mode == INITIAL else 'action')}"
                f", judgment points {', '.join(map(str, self.judgments())) or 'none'}"
                + (f", true goal {goal}" if goal else "") + self._how())

    def _how(self) -> str:
        """What a tabular run infers, and how, after the scenario's description."""
        if self.front.default_mode != INITIAL:
            return ""
        inference = self.settings.inference
        return ((f"; model {self._model_line(' ')}" if self.settings else "")
                + (f", inference {inference.method} ({inference.particles:,} particles, seed {inference.seed})"
                   if inference.may_sample else "")
                + f" (the engine infers {self.agent_words}'s initial belief, its belief along the path and its "
                  "desires)")

    # -- settings ------------------------------------------------------------------------

    def set_threshold(self, name: str, value: float) -> None:
        self.thresholds = self.thresholds.replace(**{name: value})

    def _settings(self) -> Settings:
        """The settings of the domain's run (a belief model has none)."""
        if self.front is None:
            raise ElotError(f"{self.name} is your own model: elot's inference settings do not apply",
                            hint="change it in the model, or :load another model")
        return self.settings

    def configure(self, *, model: str | None = None, beta: float | None = None, **changes: Any) -> None:
        """Change the run's settings (checked by the domain's front as the command line's
        are: a setting its models do not take is refused); it reruns on the next query if
        they changed. ``changes``: the inference's fields (``method``, ``particles``,
        ``seed``) or the models' parameters (``k``, ``conventions``, ``planner``, ...)."""
        settings = self._settings()
        inference_fields = {f.name for f in dataclasses.fields(settings.inference)}
        inference = dataclasses.replace(settings.inference,
                                        **{k: v for k, v in changes.items() if k in inference_fields})
        params = {**dict(settings.model.params), **{k: v for k, v in changes.items() if k not in inference_fields}}
        name = settings.model.name if model is None else model
        # a new model takes its own β, unless one is given or the user set the old model's
        chosen = settings.model.beta != self.front.model_beta(settings.model.name)
        same = model is None or self.front.model_name(model) == settings.model.name
        keep = settings.model.beta if same or chosen else None
        if not same:
            # likewise its own parameters: the old model's kept where the user set them
            # (they differ from its defaults) and the new model takes them
            defaults = dict(self.front.settings(settings.model.name).model.params)
            taken = self.front.takes(self.front.model_name(name))
            params = {k: v for k, v in params.items()
                      if k in taken and (k in changes or k not in defaults or v != defaults[k])}
        new = self.front.settings(name, keep if beta is None else beta, inference, settings.budget, **params)
        if new != self.settings:
            self.settings, self.source = new, None

    @property
    def model(self) -> str:
        """The model's name (a belief model's own name)."""
        return self.settings.model.name if self.front is not None else self.source.name

    @property
    def beta(self) -> float | None:
        return self.settings.model.beta if self.front is not None else None

    def param(self, name: str) -> Any:
        return self.settings.model.get(name) if self.front is not None else None

    @property
    def k(self) -> Any:
        return self.param("k")

    @property
    def conventions(self) -> str:
        return self.param("conventions") or "elot"

    @property
    def method(self) -> str:
        """How inference runs: exact, smc or auto (``:set inference``)."""
        return self._settings().inference.method

    @property
    def particles(self) -> int:
        return self._settings().inference.particles

    @property
    def seed(self) -> int | None:
        return self._settings().inference.seed

    def set_beta(self, beta: float | str) -> None:
        self.configure(beta=float(check_number("beta", beta)))

    def set_param(self, name: str, value: Any) -> None:
        """A model parameter (``k``, ``conventions``, ``planner``), checked by the front."""
        self.configure(**{name: value})

    def set_k(self, k: int | str) -> None:
        self.set_param("k", k)

    def set_conventions(self, conventions: str) -> None:
        """``elot`` or ``paper`` (SPEC §7): how states are named and π is counted."""
        self.set_param("conventions", conventions)

    def set_model(self, model: str) -> None:
        self._settings()
        self.configure(model=model)

    def set_method(self, method: str) -> None:
        """``exact``, ``smc`` or ``auto``: how inference runs (SPEC §5, §8)."""
        self.configure(method=method)

    def set_particles(self, n: int | str) -> None:
        self.configure(particles=int(check_number("particles", n)))

    def set_seed(self, seed: int | str) -> None:
        self.configure(seed=int(check_number("seed", seed)))

    def model_line(self) -> str:
        """The model and its settings, as ``:model`` says them."""
        return f"model: {self._model_line()}"

    def _model_line(self, gap: str = "  ") -> str:
        settings = self.front.resolved(self._settings())
        shown = [f"beta = {settings.model.beta:g}"]
        shown += [f"{name} = {value}" for name, value in settings.model.params if value is not None]
        return f"{settings.model.name}{gap}({', '.join(shown)})"

    def set_mode(self, mode: str) -> None:
        """Judge statements about the agent's ``current`` or ``initial`` belief from now on;
        a belief model without ``initial_hypotheses(t)`` cannot judge the initial belief."""
        if mode not in MODES:
            raise ElotError(f"unknown mode {mode!r}", hint=f"use one of: {', '.join(MODES)}")
        if mode == INITIAL and self.front is None:
            self.source.check_initial()
        self.mode = mode

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

    # -- the run -------------------------------------------------------------------------

    def needs_inference(self) -> bool:
        """Whether the next question will run inference."""
        return self.source is None

    def run(self):
        """The source of hypotheses: the domain's run of the scenario (made once per
        scenario and settings), or the belief model."""
        if self.source is None:
            self.source = self.front.run(self.episode, self.settings)
        return self.source

    def goal_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """P(goal | what was seen up to t) for each goal (a tabular domain: the object the
        agent likes best)."""
        found = self.run().goal_posterior(self.t if t is None else t)
        return [(str(g), float(p)) for g, p in found.items()]

    def true_goal(self) -> str | None:
        return getattr(self.episode.detail, "true_goal", None) if self.episode is not None else None

    def world_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """P(hidden world | what was seen up to t), each world in the domain's words."""
        return self.run().world_posterior(self.t if t is None else t)

    def belief_posterior(self, t: int | None = None) -> list[tuple[str, float]]:
        """The agent's belief over the worlds at t (the initial belief where that is what
        the run infers), averaged over hypotheses by posterior."""
        return self.run().belief_posterior(self.t if t is None else t)

    def worlds_noun(self) -> str:
        """What ``:worlds`` and ``:beliefs`` range over."""
        return self.run().worlds_noun

    def map_text(self) -> str:
        """The scenario at t as text (the domain's ``map_text`` hook)."""
        if self.front is None:
            raise ElotError(f"the belief model {self.name} has no map", hint="try :worlds or :beliefs")
        return self.front.map_text(self.episode, self.t)

    # -- formulas ------------------------------------------------------------------------

    def check(self, text: str) -> Checked:
        with _at_formula(text):
            return check(text, self.signature, bind_free=self.bind_free, source=text)

    def lower(self, text: str):
        with _at_formula(text):
            return lower(text, self.signature, explain=True, bind_free=self.bind_free)

    @staticmethod
    def show(term: Term) -> str:
        return pretty(term)

    def compile(self, text: str) -> CompiledFormula:
        """Typecheck, lower and compile a formula against this scenario and thresholds."""
        with _at_formula(text):
            return compile_formula(text, self.signature, self.thresholds, self.bind_free)

    def score(self, text: str, t: int | None = None, mode: str | None = None) -> ScoreRow:
        """Type, lowered form and score of a formula at ``t`` (default now)."""
        return self._score(text, self.compile(text), self.t if t is None else t, mode or self.mode)

    def _score(self, text: str, compiled: CompiledFormula, t: int, mode: str) -> ScoreRow:
        source = self.run()
        with _at_formula(text):
            source.refuse(compiled, mode, t)
        hypotheses = self.hypotheses(t, mode)
        with _at_formula(text):
            compile_statement(compiled, self.signature)   # a number has no score: say so
        got = judging.score_truth(truth(compiled, hypotheses, text), hypotheses, source.conventions)
        return ScoreRow(
            formula=pretty(compiled.term), type=str(compiled.type), lowered=pretty(compiled.lowered),
            mode=mode, t=t, score=got, ess=hypotheses.ess,
        )

    def query(self, text: str, *, source: str | None = None, weight: float | None = None) -> ScoreRow:
        """Score a formula now and record it in the query log."""
        row = dataclasses.replace(self.score(text), source=source, weight=weight)
        self.log.append({
            "scenario": self.name, "t": row.t, "mode": row.mode, "model": self.model,
            "beta": self.beta if self.beta is not None else "", "english": source or "", "formula": row.formula,
            "lowered": row.lowered, "thresholds": self.threshold_overrides(),
            "posterior": row.posterior,
            "normalized_likelihood": row.normalized_likelihood,
        })
        return row

    def translate(self, sentence: str) -> list[tuple[str, float, str]]:
        """English → ranked ELoT candidates (formula text, weight, the mode it is judged in)."""
        from elot.translate import judged_mode, translate

        try:
            result = translate(sentence, signature=self.signature, language_model=self.language_model)
        except TranslationError as error:
            raise translation_note(error, self.signature, self.language_model) if self.front is None else error
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

        try:
            formula, mode, _ = resolve_statement(text, mode=mode or self.mode, signature=self.signature,
                                                 language_model=self.language_model)
        except TranslationError as error:
            raise translation_note(error, self.signature, self.language_model) if self.front is None else error
        return formula, mode

    def hypotheses(self, t: int | None = None, mode: str | None = None) -> judging.Hypotheses:
        """The hypotheses judged at t (default now) about the ``mode`` belief."""
        return self.run().at(self.t if t is None else t, mode or self.mode)

    def _rows_for(self, compiled: CompiledFormula) -> tuple[list, Any, np.ndarray, np.ndarray, Any, Any]:
        """The hypotheses judged now for ``compiled`` as ``(worlds, beliefs, true_index,
        posterior, desires, belief_tables)``: a statement about desires is judged on rows
        with one desire each (:func:`elot.judging.rows_for`); ``belief_tables``, each
        agent's belief in each situation, for nested beliefs."""
        self.run().refuse(compiled, self.mode, self.t)
        rows = judging.rows_for(compiled, self.hypotheses())
        desires = judging.desire_table(rows) if compiled.needs_desires else None
        return (list(rows.worlds), dict(rows.beliefs) or None, rows.true_index, rows.weights, desires,
                rows.belief_tables)

    def is_number(self, text: str) -> bool:
        """Whether a formula is a numeric term (type Φ_F, e.g. ``prob_of(...)``)."""
        from elot.lang.typesystem import NUMERIC

        return self.check(text).type == NUMERIC

    def value(self, text: str, *, max_rows: int = 12) -> NumericValue:
        """A numeric term's value now, for every (true state, belief) pair, weighted by
        the posterior: its mean and its distribution (values rounded to 3 places)."""
        compiled = self.compile(text)
        with _at_formula(text):
            worlds, beliefs, true_index, weights, desires, tables = self._rows_for(compiled)
        values = compiled.value(worlds, beliefs, true_index, desires=desires, belief_tables=tables)
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
        worlds, beliefs, true_index, weights, desires, tables = self._rows_for(compiled)
        columns = prob_columns(lowered, self.signature, self.thresholds, worlds, beliefs, true_index,
                               desires, tables)[:max_columns]
        holds = compiled.truth(worlds, beliefs, true_index, desires=desires, belief_tables=tables)
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


@contextlib.contextmanager
def _at_formula(text: str):
    """An :class:`ElotError` of the block, shown at the formula ``text`` the user typed."""
    try:
        yield
    except ElotError as error:
        raise error.located(source=text, path="<formula>")


LOG_FIELDS = ("scenario", "t", "mode", "model", "beta", "english", "formula", "lowered",
              "thresholds", "posterior", "normalized_likelihood")


__all__ = ["Explanation", "NumericValue", "ScoreRow", "Session", "LOG_FIELDS"]
