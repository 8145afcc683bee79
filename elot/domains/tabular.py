"""The front of a tabular domain of the engine (:class:`elot.engine.Domain`: a researcher's
Python file, or food trucks, whose front specializes this one).

**Scenarios of a domain.** A domain read from a file may define

* ``read_case(path)`` — a :class:`elot.engine.Case` (or a list of them) from a file of its own
  format, and/or
* ``cases()`` — a mapping of names to cases;

otherwise (and always) a JSON file works: ``{"layout": ..., "world": ..., "path": [...]}``,
with the world and the path's states by their names in the domain's tables (or indices),
``"world": null`` when the observer does not know the true world, and an optional
``"name"`` and ``"judgments"`` (the times judged; default: the path's end). A list of such
objects holds several; ``FILE:NAME`` (or ``FILE:N``, from 1) picks one.

**Models.** Every tabular domain offers ``btom`` (the agent plans in belief space, or by
QMDP: the domain's ``default_planner``), ``true-belief`` (it knows the true world) and
``no-cost`` (every action free); ``full`` is read as the first. β defaults to the domain's
``default_beta`` (else :data:`elot.settings.DEFAULT_BETA`); ``--planner`` overrides the model's.

**Runs.** :class:`TabularSource` is a scenario inverted by the engine: rows are (hidden
world, initial belief, desire) triples weighted by their posterior (every one exactly; the
particles drawn under ``smc``, whose scores then carry standard errors). The engine infers
the agent's initial belief and its desires: a statement about the agent's current belief
after t > 0 steps is refused with a hint.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from elot.domains.front import Episode, Front, Parameter, Planned, pick_one, split_pick, with_refs
from elot.domains.source import Source, Summary
from elot.engine import Case, Engine, EngineConfig
from elot.engine.settings import Settings
from elot.engine.tables.config import PLANNER_NAMES
from elot.engine.tables.protocol import ask, check_tables
from elot.errors import DomainError
from elot.errors import ArgumentError, EvaluationError, ScenarioError, load_json, read_text
from elot.settings import CURRENT, DEFAULT_BETA, INITIAL

#: The models every tabular domain offers, as changes to the engine's settings.
GENERIC_VARIANTS = {
    "btom": {},
    "true-belief": {"true_belief": True},
    "no-cost": {"costs": False},
}
#: What each generic model is.
GENERIC_MODELS = {
    "btom": "the agent plans over its beliefs (the domain's planner)",
    "true-belief": "the agent knows the true world",
    "no-cost": "every action is free",
}

CASE_HINT = ('a case file is JSON: {"layout": ..., "world": NAME or null, "path": [STATE, ...]} with the '
             "world and states named as in the domain's tables (docs/domains.md)")


def _planner(value: Any) -> str:
    if value not in PLANNER_NAMES:
        raise ArgumentError(f"unknown planner {value!r}", hint=f"choose one of {', '.join(PLANNER_NAMES)}")
    return str(value)


class CurrentBeliefError(EvaluationError):
    """A statement about the agent's current belief, which a tabular domain's run does not infer."""


@dataclass(frozen=True)
class Scene:
    """A tabular scenario as the engine runs it: its ``case`` (layout, states, true world)
    and the domain's own value of it (``own``: a food-truck scenario), if any."""

    case: Case
    own: Any = None


class TabularFront(Front):
    """The front of a tabular domain (see the module docstring)."""

    parameters = (Parameter("planner", "--planner", None, _planner),)
    default_mode = INITIAL
    help_words = {"load": "load another case of the domain: a JSON case file, or a case it names",
                  "goals": "posterior over the object the agent likes best (from what it did)",
                  "beliefs": "the agent's initial belief over the worlds, as inferred now (posterior average)"}

    def __init__(self, domain: Any, origin: str = "", data: str | None = None):
        super().__init__(data)
        self.domain = domain
        self.origin = origin or str(getattr(domain, "name", type(domain).__name__))
        self.name = str(getattr(domain, "name", type(domain).__name__))
        self.default_beta = float(getattr(domain, "default_beta", DEFAULT_BETA))
        self.models = dict(GENERIC_MODELS)
        self.aliases = {"full": next(iter(self.models))}
        self.fitted_models = tuple(self.models)
        self._engines: dict[Any, Engine] = {}

    @property
    def spec(self) -> str:
        """The domain's file (absolute, so a stimulus set names it from anywhere), else
        the name it was given by (an entry point)."""
        path = Path(self.origin)
        return str(path.resolve()) if path.is_file() else self.origin

    # -- models ----------------------------------------------------------------------------

    def variants(self) -> dict[str, dict]:
        """The models' changes to the engine's settings."""
        return GENERIC_VARIANTS

    def engine_config(self, settings: Settings) -> EngineConfig:
        """The engine's settings of a run."""
        model, inference = settings.model, settings.inference
        changes = dict(self.variants()[model.name])
        if model.get("planner") is not None:
            changes["planner"] = model.get("planner")
        return replace(EngineConfig(**changes), beta=model.beta, memory_limit=settings.budget.max_bytes,
                       backend=inference.backend, method=inference.method, particles=inference.particles,
                       seed=inference.seed, ess_threshold=inference.ess_threshold, moves=inference.moves)

    def engine(self, settings: Settings) -> Engine:
        """An engine of the run's model (one per model and inference: runs at other β share
        its plans, which do not depend on β)."""
        config = self.engine_config(settings)
        key = replace(config, beta=0.0)
        if key not in self._engines:
            self._engines[key] = Engine(self.domain, config)
        return self._engines[key]

    def refuse(self, episode: Episode, compiled, mode: str, t: int) -> None:
        """A statement about the agent's current belief after the first step is refused:
        the engine infers the initial belief."""
        if mode == CURRENT and t > 0 and compiled.needs_belief:
            raise CurrentBeliefError(
                f"this statement is about the {self.signature(episode).agent}'s current belief at t={t}, which the "
                f"{self.name} model does not infer (it infers the initial belief and the desires)",
                hint="ask about the initial belief: 'initial:' before the statement, --mode initial (:initial in "
                     "the REPL), or English such as 'At first the student thought ...'")

    def resolved(self, settings: Settings) -> Settings:
        """``settings`` with the planner the run will use: the one given, else its model's,
        else the domain's."""
        if settings.model.get("planner") is not None:
            return settings
        planner = self.variants()[settings.model.name].get("planner") or getattr(self.domain, "default_planner", "qmdp")
        params = tuple((k, planner if k == "planner" else v) for k, v in settings.model.params)
        return dataclasses.replace(settings, model=dataclasses.replace(settings.model, params=params))

    def ran(self, settings: Settings, engine: Engine, result) -> Settings:
        """``settings`` as they ran: the planner resolved, the method ``auto`` chose and the
        seed drawn."""
        ran = result.config
        params = tuple((k, ran.planner if k == "planner" else v) for k, v in settings.model.params)
        settings = dataclasses.replace(settings, model=dataclasses.replace(settings.model, params=params))
        return settings.with_inference(method=ran.method, seed=settings.inference.seed if ran.seed is None
                                       else ran.seed)

    # -- language --------------------------------------------------------------------------

    def signature(self, episode: Episode | None = None):
        return ask(self.domain, "signature")

    # -- scenarios -------------------------------------------------------------------------

    def tables(self, layout: Any):
        return check_tables(self.domain, ask(self.domain, "tables", layout))

    def episode(self, spec: str | None) -> Episode:
        if spec is None:
            raise ScenarioError(f"which scenario of the {self.name} domain?",
                                hint="give a scenario: a JSON case file (docs/domains.md)"
                                     + (", or one of " + ", ".join(self._case_names()) if self._case_names() else ""))
        path, pick = split_pick(spec)
        if not Path(path).is_file():
            named = self._named_case(spec)
            if named is not None:
                return named
            raise ScenarioError(f"no scenario {spec!r} for the {self.name} domain: no such file"
                                + (" or case name" if self._case_names() else ""),
                                hint="give a JSON case file (docs/domains.md)"
                                     + (f" or one of {', '.join(self._case_names())}" if self._case_names() else ""))
        return pick_one(self._read(path), pick, path)

    def episodes(self, spec: str) -> list[Episode]:
        from pathlib import Path

        path, pick = split_pick(spec)
        if pick is None and Path(path).is_file():
            return self.keyed(spec, self._read(path))
        return self.keyed(spec, [self.episode(spec)])

    def map_name(self, episode: Episode) -> str:
        return str(episode.detail.case.layout)

    def _read(self, path: str) -> list[Episode]:
        if callable(getattr(self.domain, "read_case", None)) and not path.endswith(".json"):
            found = ask(self.domain, "read_case", path)
            cases = list(found) if isinstance(found, (list, tuple)) else [found]
            return with_refs([self._checked(c, f"{self.name}.read_case({path})") for c in cases], path)
        return self._json_cases(path)

    def _case_names(self) -> list[str]:
        if not callable(getattr(self.domain, "cases", None)):
            return []
        found = ask(self.domain, "cases")
        if not isinstance(found, dict):
            raise DomainError(f"{self.name}.cases: returned {type(found).__name__}, not a dict of name -> Case")
        return [str(k) for k in found]

    def _named_case(self, spec: str) -> Episode | None:
        if not self._case_names():
            return None
        found = {str(k): v for k, v in ask(self.domain, "cases").items()}
        if spec not in found:
            return None
        return replace(self._checked(found[spec], f"{self.name}.cases()[{spec!r}]", spec), ref=spec)

    def make_episode(self, name: str, case: Case, judgments: Sequence[int] = (), own: Any = None) -> Episode:
        return Episode(name, len(case.path) - 1, Scene(case, own), tuple(judgments))

    def _checked(self, case: Any, where: str, name: str | None = None) -> Episode:
        if not isinstance(case, Case):
            raise DomainError(f"{where}: returned {type(case).__name__}, not elot.engine.Case",
                              hint="return Case(layout, path, world, name) (docs/domains.md)")
        return self.make_episode(name or case.name or "case", case)

    def _json_cases(self, path: str) -> list[Episode]:
        data = load_json(read_text(path, "case file"), path=path, hint=CASE_HINT)
        items = data if isinstance(data, list) else [data]
        return with_refs([self._json_case(item, path, n) for n, item in enumerate(items)], path)

    def _json_case(self, item: Any, path: str, n: int) -> Episode:
        where = f"{path}: case {n + 1}"
        if not isinstance(item, dict):
            raise ScenarioError(f"{where}: not a JSON object", hint=CASE_HINT)
        missing = [k for k in ("layout", "path") if k not in item]
        if missing:
            raise ScenarioError(f"{where}: no {' or '.join(missing)}", hint=CASE_HINT)
        layout = item["layout"]
        if isinstance(layout, list):
            layout = tuple(layout)
        tables = self.tables(layout)
        name = str(item.get("name") or f"case {n + 1}")
        world = item.get("world")
        if world is not None:
            world = _index(world, tables.worlds, f"{where}: world", "world")
        steps = item["path"]
        if not isinstance(steps, list) or not steps:
            raise ScenarioError(f"{where}: path must be a non-empty list of states", hint=CASE_HINT)
        states = tuple(_index(s, tables.states, f"{where}: path step {i}", "state") for i, s in enumerate(steps))
        judgments = item.get("judgments", [])
        if not (isinstance(judgments, list) and all(isinstance(t, int) and 0 <= t < len(states) for t in judgments)):
            raise ScenarioError(f"{where}: judgments must be a list of times 0..{len(states) - 1}", hint=CASE_HINT)
        return self.make_episode(name, Case(layout, states, world, name), judgments)

    # -- running ---------------------------------------------------------------------------

    def run(self, episode: Episode, settings: Settings, progress: Callable[[int, int], None] | None = None) -> "TabularSource":
        engine = self.engine(settings)
        return TabularSource(self, episode, settings, engine)

    def runs(self, episodes: Sequence[Episode], settings: Settings, betas: Sequence[float],
             progress: Callable[[int, int], None] | None = None) -> Iterator[list["TabularSource"]]:
        """Every episode's whole path for every β, each layout planned once (one β's
        likelihood tables held at a time)."""
        engine = self.engine(settings)
        each = engine.each_beta([e.detail.case for e in episodes], list(betas), progress)
        for beta, results in zip(betas, each):
            at = settings.with_beta(beta)
            yield [TabularSource(self, e, at, engine, {e.horizon: r}) for e, r in zip(episodes, results)]

    def check(self, episodes: Sequence[Episode], settings: Settings) -> None:
        self.engine(settings).check([e.detail.case.layout for e in episodes])

    def estimate(self, episode: Episode, settings: Settings):
        return self.engine(settings).estimate([episode.detail.case.layout])

    def group(self, episode: Episode) -> Any:
        return episode.detail.case.layout

    sweeps_betas = True

    def task_cost(self, episodes, settings: Settings, betas: int, scored: int) -> float:
        """Planning the layout once, and each scenario's inversion and scores for every β."""
        return 1.0 + len(episodes) * betas * (0.01 + 0.002 * scored)

    def task_bytes(self, episodes, settings: Settings) -> int:
        """The engine's estimate for the layout (it refuses its own budget when it runs)."""
        return self.engine(settings).estimate([episodes[0].detail.case.layout]).bytes

    # -- the simulated agent -----------------------------------------------------------------

    plan_settings = ("utilities", "belief", "planner")

    def plan(self, episodes, request) -> "Planned":
        """The case's path completed by the domain's simulated agent
        (:mod:`elot.engine.tables.simulate`), as a JSON case that the domain reads back."""
        import json

        from elot.domains.agent import belief_of, utilities_of
        from elot.engine.tables.simulate import SimulatedAgent, simulate
        from elot.output import count

        episode = pick_one(list(episodes), None, episodes[0].reference if episodes else "the case file")
        case = episode.detail.case
        engine = Engine(self.domain, EngineConfig(beta=request.beta, planner=request.planner))
        tables = engine.tables(case.layout)
        if case.world is None:
            raise ScenarioError(f"{episode.name}: the case does not say its true world; the simulated agent acts in one",
                                hint="give the case a world (docs/domains.md)")
        objects = tables.objects
        hint = f"e.g. --utilities {','.join(f'{o}=1' for o in objects[:3])}"
        if request.utilities is None:
            raise ArgumentError(f"elot plan on the {self.name} domain needs the agent's --utilities", hint=hint)
        utilities = utilities_of(request.utilities, objects, hint)
        belief = belief_of(request.belief, tables.worlds, case.world,
                           f"uniform, true, or weights over the worlds ({', '.join(tables.worlds)}) summing to 1")
        agent = SimulatedAgent(tables, objects, utilities, engine.config, engine.config.planner)
        run = simulate(agent, case.world, case.path, belief, policy=request.policy, seed=request.seed,
                       max_steps=request.max_steps)
        layout = list(case.layout) if isinstance(case.layout, tuple) else case.layout
        data = {"name": episode.name, "layout": layout, "world": tables.worlds[case.world],
                "path": [tables.states[s] for s in run.path]}
        moves = len(run.path) - len(case.path)
        if run.finished:
            note = (f"{episode.name}: {count(moves, 'action')} simulated; the agent reached "
                    f"{tables.states[run.path[-1]]}")
        else:
            note = (f"warning: {episode.name}: the agent did not finish within {request.max_steps} actions; its path "
                    "is written unfinished")
        return Planned(json.dumps(data, indent=2) + "\n", (note,))

    # -- hooks a domain file may define --------------------------------------------------------

    def frames(self, episode: Episode, **options):
        """The domain's ``draw_frame(ax, layout, path, world, t)`` (the scene at step t of
        the path's states, in the world, into matplotlib axes), with its
        ``frame_cells(layout)`` (columns, rows) if it says, as the frames of every picture."""
        from elot.draw.frames import PlotFrames

        draw = getattr(self.domain, "draw_frame", None)
        if not callable(draw):
            raise self.missing("draw_frame", "drawing")
        case = episode.detail.case
        cells = getattr(self.domain, "frame_cells", None)
        width, height = ask(self.domain, "frame_cells", case.layout) if callable(cells) else (len(self.tables(
            case.layout).states), 1)
        caption = getattr(self.domain, "frame_caption", None)
        return PlotFrames(lambda ax, t: ask(self.domain, "draw_frame", ax, case.layout, case.path, case.world, t),
                          int(width), int(height), episode.horizon,
                          (lambda t: ask(self.domain, "frame_caption", case.layout, case.path, case.world, t))
                          if callable(caption) else None)

    def page_words(self) -> dict:
        """The agent's words, and the domain's ``scene_words`` (a paragraph saying what its
        animations show), if it has them."""
        scene = getattr(self.domain, "scene_words", None)
        return {**super().page_words(), **({"scene": str(scene)} if scene else {})}

    def tell(self, episode: Episode, t: int, condition: str) -> str:
        """The domain's ``tell(layout, path, world, t, condition)``: the path up to t in words."""
        if not callable(getattr(self.domain, "tell", None)):
            raise self.missing("tell", "elot baseline")
        case = episode.detail.case
        text = ask(self.domain, "tell", case.layout, case.path, case.world, t, condition)
        if not isinstance(text, str):
            raise DomainError(f"{self.name}.tell: returned {type(text).__name__}, not the scene in words (str)")
        return text

    # -- outputs ---------------------------------------------------------------------------

    def outputs(self, result) -> list[tuple[str, str, float]]:
        """``(judgment, option, value)`` rows a run prints and tabulates: the posterior mean
        utility of each object, and of the agent's initial belief in each world."""
        tables = self.tables(result.layout)
        mean_u = result.mean_utility()
        mean_b = result.mean_belief()
        return ([("desire", o, float(v)) for o, v in zip(result.desire_space.objects, mean_u)]
                + [("belief", w, float(v)) for w, v in zip(tables.worlds, mean_b)])

    def describe_outputs(self) -> str:
        return "desire: the posterior mean utility of each object; belief: the agent's initial belief in each world"

    def label(self, episode: Episode, t: int) -> str:
        return self.step_labels(episode)[t - 1]

    def step_labels(self, episode: Episode) -> list[str]:
        """What happened at each step t = 1..T: the actions that take the path's state at
        t - 1 to its state at t (in the true world, or any world when it is unknown)."""
        case = episode.detail.case
        tables = self.tables(case.layout)
        trans = np.asarray(tables.transitions)
        worlds = range(len(tables.worlds)) if case.world is None else [case.world]
        out = []
        for before, after in zip(case.path, case.path[1:]):
            acts = [tables.actions[a] for a in range(len(tables.actions))
                    if any(trans[w, before, a] == after for w in worlds)]
            out.append("/".join(acts[:2]) + ("/..." if len(acts) > 2 else "") if acts else "(no action leads here)")
        return out


def _index(value: Any, names: tuple[str, ...], where: str, what: str) -> int:
    if isinstance(value, bool):
        value = str(value)
    if isinstance(value, int):
        if 0 <= value < len(names):
            return value
        raise ScenarioError(f"{where}: {what} {value} is not one of 0..{len(names) - 1}", hint=CASE_HINT)
    if isinstance(value, str) and value in names:
        return names.index(value)
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    raise ScenarioError(f"{where}: no {what} {value!r} (the domain's {what}s are {shown})", hint=CASE_HINT)


class TabularSource(Source):
    """An episode of a tabular domain inverted by the engine under ``settings``; results are
    made on demand for each time and kept (``results``: already run, by time)."""

    def __init__(self, front: TabularFront, episode: Episode, settings: Settings, engine: Engine,
                 results: dict | None = None):
        self.front = front
        self.episode = episode
        self._asked = settings
        self.engine = engine
        self._results: dict[int, Any] = dict(results or {})
        self._signature = None
        self._worlds = None

    @property
    def case(self) -> Case:
        return self.episode.detail.case

    @property
    def settings(self) -> Settings:
        """What ran: the method ``auto`` chose, the seed drawn."""
        return self.front.ran(self._asked, self.engine, self.result())

    @property
    def config(self) -> EngineConfig:
        """The engine's settings of the run (the planner resolved)."""
        return self.engine.config.with_beta(self._asked.beta)

    @property
    def signature(self):
        if self._signature is None:
            self._signature = self.front.signature(self.episode)
        return self._signature

    @property
    def estimated(self) -> bool:
        return bool(self.result().estimated)

    def result(self, t: int | None = None):
        """The inversion of the path's first ``t`` steps (default: all of it)."""
        t = self.episode.horizon if t is None else int(t)
        if not 0 <= t <= self.episode.horizon:
            raise ArgumentError(f"time {t} is not one of 0..{self.episode.horizon} ({self.name})")
        if t not in self._results:
            case = self.case
            part = type(case)(case.layout, tuple(case.path[:t + 1]), case.world, case.name)
            [[self._results[t]]] = self.engine.run([part], [self._asked.beta])
        return self._results[t]

    def how(self) -> str:
        result = self.result()
        return f"smc with {result.particles:,} particles" if result.estimated else ""

    def worlds(self):
        from elot.lang.states import State

        if self._worlds is None:
            layout = self.case.layout
            tables = self.front.tables(layout)
            self._worlds = tuple(State.of(frozenset(ask(self.front.domain, "world_atoms", layout, w)))
                                 for w in range(len(tables.worlds)))
        return self._worlds

    def judged(self, t: int, at: int):
        """The rows at t, with the initial belief for a statement about it (``at`` 0)."""
        return result_hypotheses(self.result(t), self.signature, self.worlds(), with_beliefs=at == 0)

    def admit(self, statements):
        out = []
        for st in super().admit(statements):
            if isinstance(st.error, CurrentBeliefError):
                st = dataclasses.replace(st, note="current belief: not inferred")
            out.append(st)
        return out

    def belief_posterior(self, t: int) -> list[tuple[str, float]]:
        """The posterior mean of the agent's initial belief (what the engine infers)."""
        from elot.numeric import dot_columns

        rows = self.at(t, INITIAL)
        average = dot_columns(rows.weights, rows.beliefs[self.signature.agent])
        return [(self.world_label(w), float(p)) for w, p in zip(rows.worlds, average)]

    def belief_title(self, t: int, agent: str) -> str:
        return f"{agent}'s initial belief over worlds (as inferred at t={t})"

    def goal_posterior(self, t: int) -> dict[str, float]:
        """The posterior probability that each object is the one the agent wants most
        (ties shared), what ``:goals`` shows."""
        result = self.result(t)
        utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)
        best = utilities == utilities.max(axis=1, keepdims=True)
        share = best / best.sum(axis=1, keepdims=True)
        return {o: float(p) for o, p in zip(result.desire_space.objects, result.desire_posterior() @ share)}

    # -- reporting ---------------------------------------------------------------------------

    def header(self, times: Sequence[int]) -> list[str]:
        result = self.result()
        config = self.config
        case = self.case
        world = "unknown" if case.world is None else self.front.tables(case.layout).worlds[case.world]
        lines = [f"[bold]{self.name}[/bold] ({self.front.name}, layout {case.layout}, true world {world}): "
                 f"{len(result.belief_space.beliefs)} initial beliefs × {len(result.desire_space.utilities)} "
                 f"desires, {self.episode.horizon} steps, model {self.model} (planner {config.planner}, "
                 f"β={config.beta:g})"]
        if result.estimated:
            lines.append(f"particle inference: {result.particles:,} particles (seed {result.config.seed}), "
                         f"{result.planned:,} distinct utility vectors planned, effective sample size "
                         f"{result.ess:,.1f}; figures are estimates, L ± its standard error")
        if result.note:
            lines.append(f"[dim]{result.note}[/dim]")
        if not result.possible:
            lines.append("[yellow]no hypothesis gives this path a positive probability: the posterior is empty"
                         "[/yellow]")
        return lines

    def summary(self, times: Sequence[int]) -> Summary:
        rows = tuple((judgment, option, f"{value:.3f}") for judgment, option, value in self.front.outputs(self.result()))
        return Summary(f"Outputs at t={self.episode.horizon}", (("judgment", "left"), ("option", "left"),
                                                                ("value", "right")), rows,
                       self.front.describe_outputs())

    def csv_columns(self, t: int) -> dict:
        return {f"{judgment}_{option}": value for judgment, option, value in self.front.outputs(self.result(t))}

    def report_head(self) -> dict:
        outputs = self.front.outputs(self.result())
        return {"domain": self.front.name, "scenario": self.name, "model": self.model,
                "settings": self.settings.described(), "ran": self.result().describe(),
                "outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in outputs]}

    def report_at(self, t: int) -> dict:
        return {"outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in self.front.outputs(self.result(t))]}

    def table_columns(self) -> dict:
        result = self.result()
        sampled = result.estimated
        ran = self.settings.inference
        return {"model": self.model, "beta": self.beta, "k": "", "conventions": "elot",
                "inference": result.config.method, "particles": result.particles if sampled else "",
                "seed": result.config.seed if sampled else "",
                "ess_threshold": ran.ess_threshold if sampled else "", "moves": ran.moves if sampled else ""}

    def diagnostics(self, t: int) -> dict:
        return {"ess": getattr(self.result(t), "ess", ""), "warning": ""}


def result_hypotheses(result, signature, worlds, *, with_beliefs: bool = True, per_agent: bool = True):
    """A result's rows (every hypothesis, or the particles with their effective sample size
    and prior draws, so that scores carry standard errors) as ELoT hypotheses over
    ``worlds`` (the states of the layout's worlds); with ``with_beliefs``, each row's
    belief is its initial belief, the signature's agent's."""
    from elot.judging import Desires, Hypotheses

    rows = result.rows()
    beliefs: dict[str, np.ndarray] = {}
    if with_beliefs:
        table = np.asarray(result.belief_space.beliefs, dtype=np.float64)
        beliefs = {signature.agent: (table / table.sum(axis=1, keepdims=True))[rows.belief]}
    utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)[rows.desire]
    return Hypotheses(signature, worlds, np.asarray(result.worlds, dtype=np.intp)[rows.world], beliefs,
                      rows.weights, prior=rows.prior, ess=rows.ess, prior_draws=rows.draws, per_agent=per_agent,
                      desires=Desires(tuple(result.desire_space.objects), utilities))
