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
particles drawn under ``smc``, whose scores then carry standard errors), and for a
statement about the agent's current belief at t, its states at t (its belief after its
percepts so far). A domain with ``events(layout)`` is judged in situations that carry
what each agent perceived, with every agent's belief table, so beliefs about beliefs are
judged; a domain without them refuses such a statement by name (:meth:`TabularFront.refuse`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from elot.domains.front import Episode, Front, Parameter, Planned, pick_one, split_pick, with_refs
from elot.domains.source import MissingHook, TextMap
from elot.domains.tabular_source import NestedBeliefError, TabularSource
from elot.engine import Case, Engine, EngineConfig
from elot.engine.settings import Settings
from elot.engine.tables.config import PLANNER_NAMES
from elot.engine.tables.protocol import ask, check_tables, world_atoms
from elot.errors import DomainError
from elot.errors import ArgumentError, ScenarioError, load_json, nearest, read_text
from elot.settings import DEFAULT_BETA, INITIAL

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
        self._spoken: set = set()        # the layouts whose words were checked (:meth:`check_words`)

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
        """A belief about a belief is refused where the domain has no events: its situations
        are its worlds, and one agent's belief in each world is not a function of the world
        (it is of what the agent perceived, which only a domain with events carries)."""
        if compiled.nested and not self.has_events(episode.detail.case.layout):
            raise NestedBeliefError(
                f"this statement is about a belief about a belief, which the {self.name} domain cannot judge: it "
                "declares no events, so its situations are its worlds and no agent's belief is known in each",
                hint="ask about one agent's belief at a time; a domain judges nested beliefs when it declares "
                     "events(layout) (docs/domains.md, 'Percepts, events and other agents')")

    @property
    def reports_percepts(self) -> bool:
        """Whether its runs report percepts and events (a batch table's ``percepts`` column)."""
        return self.has_events(None)

    def has_events(self, layout: Any) -> bool:
        """Whether the domain declares events (and so situations with what each agent perceived)."""
        return callable(getattr(self.domain, "events", None))

    def changes(self, layout: Any) -> bool:
        """Whether the domain's worlds change along the path (it has ``world_atoms_at``)."""
        return callable(getattr(self.domain, "world_atoms_at", None))

    def state_of(self, layout: Any, world: int, state: int):
        """World ``world`` as an ELoT state when the path is in ``state`` (``world_atoms_at``)."""
        from elot.lang.states import State

        return State.of(world_atoms(self.domain, layout, world, state=state))

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
        """An episode of ``case``, its path checked: a step no action of the domain takes
        (in the true world, or in any world when it is unknown) is refused, naming it."""
        episode = Episode(name, len(case.path) - 1, Scene(case, own), tuple(judgments))
        self.check_words(case.layout)
        for t, label in enumerate(self.step_labels(episode), 1):
            if not label:
                tables = self.tables(case.layout)
                where = "any world" if case.world is None else f"the world {tables.worlds[case.world]}"
                raise ScenarioError(
                    f"{name}: step {t} of the path, {tables.states[case.path[t - 1]]} -> "
                    f"{tables.states[case.path[t]]}, is impossible: no action of the {self.name} domain "
                    f"takes it in {where}",
                    hint="check the path's states (each step one action), its world and its layout")
        return episode

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

    def map_text(self, episode: Episode, t: int) -> TextMap:
        """The domain's ``map_cells(layout, path, world, t)`` (``{(x, y): label or (label,
        style)}``, x from 1 to the right, y from 1 down) on its ``frame_cells(layout)`` grid,
        with its ``map_legend`` (a line) under it: the REPL's ``:map``."""
        if not callable(getattr(self.domain, "map_cells", None)):
            yours = Path(self.origin).is_file()      # a file of the user's, who can add the hook
            raise MissingHook(f"the {self.name} domain draws no map as text",
                              hint=":goals, :worlds and :beliefs show the posteriors"
                                   + ("; write map_cells(layout, path, world, t) in the domain for :map "
                                      "(docs/domains.md, 'Hooks')" if yours else ""))
        case = episode.detail.case
        found = ask(self.domain, "map_cells", case.layout, case.path, case.world, t)
        if not isinstance(found, dict):
            raise DomainError(f"{self.name}.map_cells: returned {type(found).__name__}, not a dict of (x, y) -> label")
        cells = {tuple(pos): (label, "") if isinstance(label, str) else tuple(label) for pos, label in found.items()}
        if callable(getattr(self.domain, "frame_cells", None)):
            width, height = ask(self.domain, "frame_cells", case.layout)
        else:
            width, height = max(x for x, _ in cells), max(y for _, y in cells)
        legend = getattr(self.domain, "map_legend", "")
        return TextMap(int(width), int(height), cells, frozenset(), ((str(legend), "dim"),) if legend else ())

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
        return ("desire: the posterior mean utility of each object; belief: the agent's initial belief in each world"
                + ("; percept: the posterior that an agent saw an event; event: that it happened"
                   if self.has_events(None) else ""))

    def label(self, episode: Episode, t: int) -> str:
        return self.step_labels(episode)[t - 1]

    def check_words(self, layout: Any) -> None:
        """The domain's desire objects and the atoms of each world of ``layout`` checked
        against its signature, once per layout: a name the signature lacks (a predicate
        ``in`` where it has ``inside``, a desire object ``exitt``) would make every
        statement about it silently false; it is refused, with the nearest name it has."""
        if layout in self._spoken:
            return
        signature = self.signature(None)
        objects = set(signature.object_types)

        def unknown(what: str, name: str, known, where: str) -> DomainError:
            close = nearest(name, known)
            return DomainError(f"{self.name}.{where}: {what} {name!r} is not in the domain's signature"
                               + (f" (did you mean {close}?)" if close else ""),
                               hint=f"name it as signature() does, or add it there (its {what}s: "
                                    f"{', '.join(sorted(known)[:12])})")

        for name in ask(self.domain, "desires").objects:
            if name not in objects:
                raise unknown("object", str(name), objects, "desires")
        tables = self.tables(layout)
        said = [(f"world_atoms (world {world})", world_atoms(self.domain, layout, w, world))
                for w, world in enumerate(tables.worlds)]
        if self.changes(layout):
            said += [(f"world_atoms_at (world {world}, state {name})", world_atoms(self.domain, layout, w, world, s, name))
                     for w, world in enumerate(tables.worlds) for s, name in enumerate(tables.states)]
        for where, atoms in said:
            for atom in atoms:
                predicate, *args = atom
                if predicate not in signature.predicate_types:
                    raise unknown("predicate", str(predicate), signature.predicate_types, where)
                for arg in args:
                    if arg not in objects:
                        raise unknown("object", str(arg), objects, where)
        if self.has_events(layout):
            from elot.engine.tables.protocol import check_events

            events = check_events(self.domain, ask(self.domain, "events", layout), tables)
            for name in events.names:
                if signature.object_types.get(name) != "event":
                    raise unknown("event", str(name), signature.objects_of("event") or objects, "events")
            for name in [events.agent] * bool(events.agent) + [w.name for w in events.witnesses]:
                if name not in objects or name not in signature.objects_of("agent") + (signature.agent,):
                    raise unknown("agent", str(name), signature.objects_of("agent") or objects, "events")
            if events.agent and signature.resolve(events.agent) != signature.agent:
                raise DomainError(f"{self.name}.events: its agent {events.agent!r} is not the signature's observed "
                                  f"agent {signature.agent!r}", hint="name the agent whose path is observed")
        self._spoken.add(layout)

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
            out.append("/".join(acts[:2]) + ("/..." if len(acts) > 2 else ""))   # '' where none does
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
