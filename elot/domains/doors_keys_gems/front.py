"""The gridworld's front: Doors, Keys & Gems scenarios (``.scn`` files, the built-in
examples, the LaBToM dataset's PDDL problems and plans, plan ids), the paper's models
(``full``, its ablations, and the reproduction variant ``true-belief-paper``) with their
settings (β, the belief size k, the conventions, the prior over hidden keys), a run
(:class:`GridSource`: exact or particle inference on the engine's filters) and the hooks
(the map painter's frames, the scene told in words, the simulated agent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from elot.domains import rows
from elot.domains.front import Episode, Front, GoalReport, Parameter, Planned, PlanRequest, numeric
from elot.domains.source import Source
from elot.engine.settings import Settings
from elot.errors import DomainError, ScenarioError
from elot.output import count
from elot.settings import DEFAULT_BETA, DEFAULT_K, MAX_HYPOTHESES, check_conventions

#: The models ``--model`` names, the full model first.
MODELS = {
    "full": "the paper's model: the agent plans over its belief (QMDP) and perceives",
    "true-belief": "the paper's ablation: the agent knows the true world",
    "non-planning": "the paper's ablation: the agent heads for its goal, ignoring walls, doors and keys",
    "true-belief-paper": "a reproduction of an artifact of the paper's evaluation code (SPEC §7.4)",
}


def _colours(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [c.strip() for c in value.split(",") if c.strip()]
    return tuple(str(c) for c in value)


#: What a statement is about, as a language model is told it.
QUESTIONS = {
    "current": "The statement below is about what the player believes now, at this point of its plan.",
    "initial": "The statement below is about what the player believed at the start, before it acted "
               "(judge it from everything it did so far).",
}


class GridFront(Front):
    """Doors, Keys & Gems (see the module docstring). ``data`` is the LaBToM dataset's
    folder (plan ids are looked up there), ``exp`` the experiment plan ids are read from."""

    name = "doors-keys-gems"
    models = MODELS
    aliases = {"btom": "full"}
    fitted_models = ("full", "true-belief", "non-planning")
    parameters = (
        Parameter("k", "--k", DEFAULT_K, numeric("k", whole=True)),
        Parameter("conventions", "--conventions", "elot", check_conventions),
        Parameter("hidden_keys", "--hidden-keys", None, numeric("hidden-keys", whole=True)),
        Parameter("hidden_colours", "--hidden-colours", None, _colours, listed=True),
    )
    default_beta = DEFAULT_BETA
    data_variable = "ELOT_LABTOM_DATA"
    budget_settings = ("max_bytes", "max_hypotheses")
    reading = ("exp", "plan")
    templates = ("elot.domains.doors_keys_gems", "{condition}.txt")
    telling = "elot.domains.doors_keys_gems.tell"
    question_words = QUESTIONS
    statements_hint = "add a 'statements current:' section to the scenario"
    help_words = {"load": "load a scenario: a .scn file, a dataset plan, or a built-in example",
                  "map": "the grid now: walls, agent, gems, doors, boxes, keys seen, path walked",
                  "goals": "posterior over the agent's goal now",
                  "worlds": "posterior over the hidden key placement (initial state)",
                  "beliefs": "the agent's belief over key placements now (posterior average)",
                  "model": "show or change the BToM model: the full model or an ablation (Tab lists them)"}

    def __init__(self, data: str | None = None, exp: str = "exp2_current", plan: str | None = None):
        super().__init__(data)
        self.exp = exp
        self.plan_file = plan

    # -- scenarios -------------------------------------------------------------------------

    def episode(self, spec: str | None) -> Episode:
        from elot.domains.doors_keys_gems.examples import default_example
        from elot.domains.doors_keys_gems.load import load_scenario

        if spec is None:
            if self.plan_file:
                raise ScenarioError("--plan needs a PROBLEM.pddl",
                                    hint="elot run problems/1_1.pddl --plan plans/exp2_current/1_1.pddl")
            return self.of(default_example())
        return self.of(load_scenario(spec, self.plan_file, exp=self.exp, root=self.data), ref=spec)

    @staticmethod
    def of(scenario, ref: str = "", key: Any = None, statements: tuple | None = None) -> Episode:
        """A Doors-Keys-Gems scenario as an episode."""
        return Episode(scenario.name, len(scenario.actions), scenario, tuple(scenario.judgments),
                       tuple(scenario.statements) if statements is None else statements, ref, key)

    def episodes(self, spec: str) -> list[Episode]:
        """Every scenario ``spec`` names, for a study: ``all`` (every plan of each of the
        dataset's experiments ``exp`` names, comma-separated), a plan id (in each of them),
        ``.scn`` files or globs, PDDL files, example names; a dataset plan with its
        experiment's statements and their annotated factors."""
        from elot.domains.doors_keys_gems.refs import expand_scenarios

        return [self.restore(ref) for ref in expand_scenarios([spec], root=self.data,
                                                    exps=[e for e in self.exp.split(",") if e])]

    def restore(self, key: Any) -> Episode:
        from elot.domains.doors_keys_gems.refs import plan_items

        return self.of(key.load(), key.name, key, plan_items(key))

    def find(self, name: str, base: Path | None = None, map_name: str | None = None):
        """The scenario a table's ``scenario`` value names (a dataset ``exp/plan``, a file
        or an example). A relative file path is as the batch was given it, from where the
        batch ran: it is looked for from here, then from ``base`` (the folder of the file
        that names it) and each folder above, so a table can be fitted from anywhere. A file
        found there whose map is not the table's ``map_name`` is another scenario that
        happens to have the same name, and the search goes on."""
        from elot.domains.doors_keys_gems.dataset import PLAN_ID, dataset_root
        from elot.domains.doors_keys_gems.refs import PlanRef
        from elot.errors import read_text

        match = PLAN_ID.match(name)
        if match and match["exp"]:
            return PlanRef(name, match["exp"], match["id"], str(dataset_root(self.data)))
        path = Path(name)
        if path.suffix not in (".scn", ".pddl") or path.is_absolute() or base is None:
            return PlanRef(name)
        places = list(dict.fromkeys([Path.cwd(), Path(base).resolve(), *Path(base).resolve().parents]))
        notes = []
        for place in places:
            found = place / path
            notes.append(f"looked in {place}")
            if not found.is_file():
                continue
            if path.suffix == ".scn":  # keeps the table's name, so rows still match by it
                ref = PlanRef(name, text=read_text(found, "scenario"))
            else:
                ref = PlanRef(name if place == places[0] else str(found))
            if map_name and ref.map != map_name:
                notes.append(f"{found} is another map ({ref.map}, the table's is {map_name})")
                continue
            return ref
        raise ScenarioError(f"scenario file {name}" + (f" of map {map_name}" if map_name else "") + " not found",
                         notes=tuple(notes),
                         hint="run from the folder the batch ran in, or give the batch absolute paths")

    def design_name(self, episode: Episode) -> str:
        return episode.reference if episode.key is not None and episode.key.plan_id else episode.name

    def map_name(self, episode: Episode) -> str:
        return episode.key.map if episode.key is not None else episode.name

    def inputs(self, spec: str | None) -> list[str]:
        return [p for p in (spec, self.plan_file) if p and Path(p).is_file()]

    def episode_inputs(self, episode: Episode) -> list[str]:
        from elot.domains.doors_keys_gems.refs import input_files

        return input_files([episode.key]) if episode.key is not None else self.inputs(episode.reference)

    def examples(self) -> list[tuple[str, str]]:
        from elot.domains.doors_keys_gems.examples import list_examples, load_example
        from elot.errors import ElotError

        out = []
        for name in list_examples():
            try:
                note = load_example(name).description.strip().splitlines()[0]
            except (ElotError, IndexError):
                note = ""
            out.append((name, note))
        return out

    # -- settings --------------------------------------------------------------------------

    def config(self, settings: Settings):
        """The inference configuration of a run (the filters' view of the settings)."""
        from elot.domains.doors_keys_gems.config import InferenceConfig
        from elot.domains.doors_keys_gems.hypotheses import Prior

        model, inference, budget = settings.model, settings.inference, settings.budget
        return InferenceConfig(variant=model.name, beta=model.beta, k=model.get("k", DEFAULT_K),
                               conventions=model.get("conventions", "elot"), method=inference.method,
                               particles=inference.particles, seed=inference.seed,
                               prior=Prior(model.get("hidden_keys"), model.get("hidden_colours")),
                               backend=inference.backend,
                               max_hypotheses=budget.max_hypotheses or MAX_HYPOTHESES, max_bytes=budget.max_bytes,
                               ess_threshold=inference.ess_threshold, moves=inference.moves)

    # -- running ---------------------------------------------------------------------------

    def run(self, episode: Episode, settings: Settings, progress: Callable[[int, int], None] | None = None) -> "GridSource":
        from elot.domains.doors_keys_gems.inference import infer

        return GridSource(self, episode, settings, infer(episode.detail, self.config(settings), progress=progress))

    def task_bytes(self, episodes: Sequence[Episode], settings: Settings) -> int:
        """Peak memory of one scenario's inference: what exact inference allocates, or its
        particles per step, plus a fixed overhead; a space too large for exact
        enumeration is refused here, before any work starts (``auto`` runs particles on
        it instead), by the budget inference itself checks."""
        from elot.domains.doors_keys_gems.costs import SpaceTooLarge
        from elot.domains.doors_keys_gems.workload import task_bytes

        [episode] = episodes
        config = self.config(settings)
        try:
            return task_bytes(episode.detail, config)
        except SpaceTooLarge as error:   # say which scenario, and what batch can do instead
            raise ScenarioError(f"{episode.reference} (model {config.variant}, k = {config.k}): {error.size}",
                                hint="run it with particle inference (--inference smc, or auto to choose per "
                                     "scenario), or use a smaller --k") from None

    def task_cost(self, episodes: Sequence[Episode], settings: Settings, betas: int, scored: int) -> float:
        from elot.domains.doors_keys_gems.workload import task_cost

        return betas * sum(task_cost(e.detail, self.config(settings), scored) for e in episodes)

    # -- language --------------------------------------------------------------------------

    def signature(self, episode: Episode | None = None):
        from elot.lang.signature import Signature

        return episode.detail.signature() if episode is not None else Signature.default()

    plan_settings = ("goal", "belief", "judge", "points", "purposeful")

    def plan(self, episodes: Sequence[Episode], request: PlanRequest) -> Planned:
        """The map's agent simulated (SPEC §8) into a complete ``.scn`` (map, hidden state,
        goal, description, the actions a line per subgoal, judgment points)."""
        from elot.domains.doors_keys_gems.plan import plan

        episode = self.continued(episodes, "name one: a .scn file, an example or a plan id such as 1_1")
        result = plan(episode.detail, goal=request.goal, belief=request.belief,
                      beta=DEFAULT_BETA if request.beta is None else request.beta, policy=request.policy,
                      seed=request.seed, max_steps=request.max_steps, judge=request.judge, points=request.points,
                      name=request.name, purposeful=request.purposeful)
        read = result.scenario
        points = ", ".join(map(str, read.judgments)) or "none"
        return Planned(result.text, (), f"{count(len(read.actions), 'action')} to {read.true_goal} in "
                                        f"{count(len(result.subgoals), 'subgoal')}; judgment points ({result.judge}): "
                                        f"{points}")

    def label(self, episode: Episode, t: int) -> str:
        """The action taken at step t."""
        from elot.domains.doors_keys_gems.world import fmt_action

        return fmt_action(episode.detail.actions[t - 1])

    def frames(self, episode: Episode, **options):
        from elot.domains.doors_keys_gems.draw import GridFrames

        return GridFrames(episode.detail.states())

    def stimulus_points(self, episode: Episode) -> tuple[int, ...]:
        """The judgment points strictly inside the plan, then its end (a scenario without
        any is refused: its stimuli would ask nothing before the end)."""
        scenario = episode.detail
        judged = [t for t in scenario.judgments if 0 < t < scenario.T]
        if not judged:
            raise DomainError(f"{scenario.name} has no judgment points between its start and its end",
                             path=scenario.path,
                             hint="mark them in the actions with | (or take elot plan's suggestions); a stimulus "
                                  "set shows the plan in segments that end at judgment points")
        return (*judged, scenario.T)

    def stimulus_name(self, episode: Episode) -> str:
        """Its plan id, else its name."""
        return episode.key.plan_id if episode.key is not None and episode.key.plan_id else episode.name

    def stimulus_fields(self, episode: Episode) -> dict:
        """The true goal gem (1-based, as the map orders them) and the number of gems; the
        keys hidden at the start that the plan picks up (``relevant_colors``,
        ``relevant_boxes``: SPEC §8)."""
        from elot.domains.doors_keys_gems.stimuli import relevant
        scenario = episode.detail
        if scenario.true_goal is None:
            raise DomainError(f"{scenario.name} has no true goal", path=scenario.path,
                             hint="name it with `goal: gemN` or mark its gem G on the map")
        gems = [g for g, _ in scenario.layout.gems]
        colours, boxes = relevant(scenario)
        return {"goal": gems.index(scenario.true_goal) + 1, "gems": len(gems), "relevant_colors": colours,
                "relevant_boxes": boxes}

    def in_vs_out(self, maps=None) -> tuple[list[tuple], dict, list[str]]:
        """The dataset's in- vs out-of-context statements (SPEC §6) as a baseline rates them:
        the items (scenario, map, t, statement id, statement, mode, formula), each plan's
        reference by name, and the files read."""
        from elot.domains.doors_keys_gems.dataset import dataset_root
        from elot.domains.doors_keys_gems.experiments import in_vs_out_file, in_vs_out_items
        from elot.settings import MODES

        items, refs = in_vs_out_items(self.data, maps=maps)
        return items, refs, [str(in_vs_out_file(dataset_root(self.data), mode)) for mode in MODES]

    def map_text(self, episode: Episode, t: int):
        from elot.domains.doors_keys_gems.textmap import text_map

        return text_map(episode.detail.states(), t)

    def signature_for(self, spec: str | None):
        """A scenario's signature; a PDDL problem needs no plan (its domain is the
        ``domain.pddl`` beside it or one folder up, else Doors, Keys & Gems')."""
        if spec is None:
            return None
        problem = Path(spec)
        if problem.suffix == ".pddl" and problem.is_file() and "plans" not in problem.parts:
            from elot.domains.doors_keys_gems.pddl import signature_of

            domain = next((c for c in (problem.parent / "domain.pddl", problem.parent.parent / "domain.pddl")
                           if c.is_file()), None)
            return signature_of(domain, problem)
        return self.signature(self.episode(spec))


class GridSource(GoalReport, Source):
    """A Doors-Keys-Gems scenario inferred under ``settings`` (``inference``: the engine's
    exact or particle result)."""

    def __init__(self, front: GridFront, episode: Episode, asked: Settings, inference):
        self.front = front
        self.episode = episode
        self.inference = inference
        ran = inference.config
        self.settings = asked.with_inference(method=ran.method, seed=ran.seed)

    @property
    def scenario(self):
        return self.episode.detail

    @property
    def goals(self) -> tuple[str, ...]:
        return self.inference.space.goals

    @property
    def signature(self):
        return rows.signature(self.inference)

    @property
    def conventions(self) -> str:
        return self.inference.conventions

    @property
    def estimated(self) -> bool:
        return bool(self.inference.estimated)

    def judged(self, t: int, at: int):
        return rows.judged(self.inference, t, at)

    def goal_posterior(self, t: int) -> dict[str, float]:
        return self.inference.goal_posterior(t)

    def how(self) -> str:
        return self.inference.summary()

    worlds_noun = "key placement"
    worlds_title = "key placement (initial state)"

    def world_label(self, state) -> str:
        """A hidden-key placement as ``box1: red, box2: –``."""
        from elot.domains.doors_keys_gems.world import describe_placement

        return describe_placement(self.scenario.layout, state)

    def world_posterior(self, t: int) -> list[tuple[str, float]]:
        """P(initial key placement | actions up to t), each described box by box."""
        inf = self.inference
        return [(self.world_label(s), float(p)) for s, p in zip(inf.worlds(0), inf.state_posterior(t))]

    def belief_posterior(self, t: int) -> list[tuple[str, float]]:
        """The agent's belief over placements at t, averaged over hypotheses by posterior."""
        inf = self.inference
        average = inf.average_belief(t)      # world j at t evolved from initial state j
        return [(self.world_label(s), float(p)) for s, p in zip(inf.worlds(0), average)]

    # -- reporting ---------------------------------------------------------------------------

    def header(self, times: Sequence[int]) -> list[str]:
        inference = self.inference
        space = inference.space

        def many(n: int, noun: str, plural: str | None = None) -> str:   # 10^47 hypotheses at k = 50
            return count(n, noun, plural) if n < 10**15 else f"about {float(n):.2e} {plural or noun + 's'}"

        lines = [f"[bold]{self.scenario.name}[/bold]: {many(inference.size, 'hypothesis', 'hypotheses')} "
                 f"({count(space.n_goals, 'goal')} × {count(space.n_states, 'state')} × "
                 f"{many(space.n_beliefs, 'belief')}), {count(inference.steps, 'action')}, model {inference.model}"]
        how = inference.describe(list(times))
        if how:
            lines.append(how)
        if inference.conventions != "elot":
            lines.append(f"conventions: {inference.conventions} (the reference pipeline's, SPEC §7)")
        family = space.family
        if family is not None and not family.is_default:
            lines.append(family.describe())
        return lines

    def report_head(self) -> dict:
        ran = self.inference.config   # what ran (auto's choice, the seed drawn), not what was typed
        return {"scenario": self.scenario.name, "model": ran.variant, "conventions": ran.conventions,
                "beta": ran.beta, "k": ran.k, "true_goal": self.scenario.true_goal}

    def report_tail(self, times: Sequence[int]) -> dict:
        return {"settings": self.settings.described(), "inference": self.inference.report(list(times))}

    def table_columns(self) -> dict:
        ran = self.inference.config
        sampled = self.inference.estimated
        return {"model": ran.variant, "beta": ran.beta, "k": ran.k, "conventions": ran.conventions,
                **self.inference.columns(), "ess_threshold": ran.ess_threshold if sampled else "",
                "moves": ran.moves if sampled else ""}

    def diagnostics(self, t: int) -> dict:
        return self.inference.diagnostics(t)
