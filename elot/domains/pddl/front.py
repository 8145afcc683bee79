"""The front of a PDDL domain (``--domain DOMAIN.pddl``): scenarios as problems with the
agent's observed actions (:mod:`elot.domains.pddl.scenes`), the agent models that make
mistakes with their parameters (:mod:`elot.domains.pddl.agents`, set with ``--param
NAME=VALUE``), a run (:class:`~elot.domains.pddl.source.PddlSource`: the goal posterior,
statements judged on it) and the hooks: frames (a grid or the towers of a blocks world,
else the state's atoms), the scene told in words, the signature's words, and the agent
run forward (``elot plan``).

Goal inference over a PDDL world is exact: its hypotheses are the candidate goals, and
``--inference smc`` is refused.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Sequence

from elot.domains.front import Episode, Front, Parameter, Planned, PlanRequest, SettingRefused, numeric
from elot.domains.pddl.agents import MODELS, PARAMETERS
from elot.domains.pddl.goals import parse_goal_prior
from elot.domains.pddl.read import read_domain
from elot.domains.pddl.scenes import STIMULUS, Reader, Scene
from elot.domains.source import TextMap
from elot.engine.settings import InferenceSettings, Settings
from elot.errors import ElotError, ScenarioError, nearest
from elot.statements import Statement


class PddlFront(Front):
    """A PDDL domain (see the module docstring): ``domain_path`` its domain file, ``data``
    a study folder (stimuli by id; default: the domain file's folder when it is one),
    ``plan`` the plan of a problem given as the scenario (``--plan``), ``goal_prior`` the
    weights of candidate goals by name (``--goal-prior gem1=2,gem2=1``; the others weigh 1,
    or what their ``goals.json`` says)."""

    models = {name: m.what for name, m in MODELS.items()}
    aliases = {"full": "boltzmann", "btom": "boltzmann"}
    fitted_models = ("boltzmann", "boltzmann-ff", "heuristic")
    parameters = tuple(Parameter(name, f"--param {name}", None, numeric(name)) for name in PARAMETERS)
    default_beta = MODELS["boltzmann"].defaults[0][1]
    reading = ("plan", "goal_prior")
    table_params = True
    telling = "elot.domains.pddl.tell"
    sweeps_betas = True
    statements_hint = "each scenario is asked wants(player, G) of its candidate goals by default"
    help_words = {"load": "load another scenario: a problem file, a plan naming its problem, or a stimulus id",
                  "map": "the state now: the grid, or the towers",
                  "goals": "posterior over the agent's goal now (its candidate goals)",
                  "worlds": "the state now (everything is visible)",
                  "beliefs": "the state now, which the agent sees as it is",
                  "model": "show or change the agent model (Tab lists them)"}

    def __init__(self, domain_path: str | Path, data: str | None = None, plan: str | None = None,
                 goal_prior: str | None = None):
        super().__init__(data)
        self.domain_path = str(domain_path)
        self.domain = read_domain(domain_path)
        self.name = self.domain.name.lower()
        self.plan_file = plan
        self.goal_prior = goal_prior
        self._prior = parse_goal_prior(goal_prior) if goal_prior else ()
        self._readers: dict[str | None, Reader] = {}

    @property
    def spec(self) -> str:
        """The domain file, absolute (a stimulus set names its domain by it)."""
        return str(Path(self.domain_path).resolve())

    @property
    def reader(self) -> Reader:
        """What reads this domain's scenarios from its data folder (``data`` may be set after
        the front is made: the command line reads it from its options)."""
        if self.data not in self._readers:
            self._readers[self.data] = Reader(self.domain_path, self.domain, self.data, self._prior)
        return self._readers[self.data]

    # -- scenarios -------------------------------------------------------------------------

    def episode(self, spec: str | None) -> Episode:
        if spec is None:
            raise ScenarioError(f"which scenario of the {self.name} domain?",
                                hint="give a problem file (with --plan PLAN for the agent's actions), a plan file "
                                     "that names its problem (; problem: FILE.pddl), or a stimulus id such as 1_1 "
                                     "of the study folder --data names")
        return self.of(self.reader.read(spec, self.plan_file), spec)

    def of(self, scene: Scene, ref: str) -> Episode:
        """A scene as an episode, asked ``wants(player, G)`` of each candidate goal G."""
        agent = scene.language.signature.agent
        statements = tuple(Statement(f"wants({agent}, {obj})", given=False, id=f"wants_{name}")
                           for obj, name in zip(scene.language.goals, (g.name for g in scene.goals)))
        return Episode(scene.name, len(scene.steps), scene, scene.judgments, statements, ref, (ref, 0))

    def episodes(self, spec: str) -> list[Episode]:
        """Every scenario ``spec`` names: ``all`` (every stimulus of the study folder),
        ``dev`` (those of its dev split, C_1 and C_3), else the one it names."""
        if spec in ("all", "dev") and not Path(spec).exists():
            study = self.reader.study(f"{spec!r} (the study's stimuli)")
            return [self.episode(s.id) for s in study.stimuli if spec == "all" or s.dev]
        return [self.episode(spec)]

    def restore(self, key: Any) -> Episode:
        spec, _ = key
        return self.episode(spec)

    def find(self, name: str, base: Path | None = None, map_name: str | None = None):
        """A table's scenario that is a file named relative to where the table was made:
        looked for from here, then from ``base`` (the table's folder) and each folder
        above; else (a stimulus id, a file found from here) None: read as it is named."""
        path = Path(name)
        if base is None or path.is_absolute() or path.exists() or name in ("all", "dev") or STIMULUS.match(name):
            return None
        for place in (Path(base).resolve(), *Path(base).resolve().parents):
            if (place / path).is_file():
                return str(place / path), 0
        return None

    def map_name(self, episode: Episode) -> str:
        return Path(episode.detail.problem.path or episode.detail.problem.name).stem

    def inputs(self, spec: str | None) -> list[str]:
        return [p for p in (spec, self.plan_file, self.domain_path) if p and Path(p).is_file()]

    def episode_inputs(self, episode: Episode) -> list[str]:
        scene = episode.detail
        return [p for p in (scene.problem.path, scene.plan, self.domain_path) if p and Path(p).is_file()]

    def label(self, episode: Episode, t: int) -> str:
        """The action taken at step t."""
        return episode.detail.steps[t - 1].text()

    # -- models and settings ---------------------------------------------------------------

    def model_beta(self, model: str) -> float:
        return float(MODELS[model].defaults[0][1])

    def takes(self, model: str) -> tuple[str, ...]:
        return MODELS[self.model_name(model)].params

    def parameter_default(self, model: str, parameter: Parameter) -> Any:
        return dict(MODELS[model].defaults)[parameter.name]

    def check_model(self, model: str, beta: float, values: dict) -> None:
        try:
            MODELS[model].check({"beta": float(beta), **values})
        except ElotError as error:
            raise SettingRefused(f"the {model} model: {error.message}", hint=error.hint) from None

    def inference_of(self, inference: InferenceSettings | None) -> InferenceSettings:
        """Exact inference only: particle inference is refused (the candidate goals are
        enumerated exactly)."""
        inference = inference or InferenceSettings()
        if inference.method == "smc":
            raise SettingRefused("--inference smc: goal inference over a PDDL world is exact (its hypotheses are "
                                 "the candidate goals, a handful)", hint="leave --inference out, or give exact")
        return dataclasses.replace(inference, method="exact")

    def refusal(self, setting: str) -> SettingRefused:
        name = setting.split()[-1].lstrip("-").replace("-", "_")
        hint = "its models take --model, --beta and --param NAME=VALUE with NAME one of " + ", ".join(PARAMETERS)
        if setting.startswith("--param") or name in PARAMETERS or not setting.startswith("-"):
            close = nearest(name, list(PARAMETERS))
            return SettingRefused(f"--param {name} is not a setting of the {self.name} domain's models"
                                  + (f" (did you mean {close}?)" if close else ""), hint=hint)
        return SettingRefused(f"{setting} is not a setting of the {self.name} domain", hint=hint)

    # -- running ---------------------------------------------------------------------------

    def run(self, episode: Episode, settings: Settings, progress: Callable[[int, int], None] | None = None):
        from elot.domains.pddl.source import PddlSource

        return PddlSource(self, episode, settings)

    def task_cost(self, episodes, settings: Settings, betas: int, scored: int) -> float:
        return sum(0.2 + 0.002 * e.horizon * betas * (1 + 0.01 * scored) for e in episodes)

    # -- language --------------------------------------------------------------------------

    def signature(self, episode: Episode | None = None):
        if episode is not None:
            return episode.detail.language.signature
        from elot.domains.pddl import task as t
        from elot.domains.pddl.language import signature_of

        empty = t.Problem("none", self.domain.name, (), (), (), t.TRUE)
        return signature_of(self.domain, empty).signature

    # -- hooks -----------------------------------------------------------------------------

    def frames(self, episode: Episode, **options: Any):
        from elot.domains.pddl.draw import PddlFrames

        return PddlFrames(episode.detail)

    def map_text(self, episode: Episode, t: int) -> TextMap:
        from elot.domains.pddl.draw import text_map

        return text_map(episode.detail, t)

    def stimulus_fields(self, episode: Episode) -> dict:
        """The true goal (1-based, among the candidates; 1 when the problem's goal is none
        of them) and, where the candidates are gems, how many to tick."""
        scene = episode.detail
        names = [g.name for g in scene.goals]
        kinds = scene.language.signature.object_types
        gems = all(kinds.get(obj) == "gem" for obj in scene.language.goals)
        true = scene.true_goal
        return {"goal": names.index(true) + 1 if true in names else 1, "gems": len(names) if gems else 0,
                "texts": "scene", "words": self.page_words()}

    def page_words(self) -> dict:
        return {**super().page_words(),
                "scene": f"The animations show {self.agent_words()} acting in a {self.name.replace('-', ' ')} "
                         "world, step by step."}

    plan_settings = ("goal", "judge", "points", "model", "params")

    def plan(self, episodes: Sequence[Episode], request: PlanRequest) -> Planned:
        """A scenario's actions continued by the agent of ``--model`` (default the Boltzmann
        agent on exact costs) at β with its ``--param`` settings, toward ``--goal`` (a
        candidate; default the problem's own goal) until it holds, written as a plan naming
        its problem, its judgment points marked (:mod:`elot.domains.pddl.simulate`)."""
        from elot.domains.pddl.simulate import plan

        return plan(self, self.continued(episodes, "name one: a problem file, a plan file or a stimulus id"), request)


def is_domain_file(spec: str) -> bool:
    """Whether ``spec`` names a PDDL domain file (``(define (domain ...``), or a folder
    holding one as ``domain.pddl`` (a study folder)."""
    import re

    path = Path(spec)
    if path.is_dir():
        return (path / "domain.pddl").is_file()
    if path.suffix.lower() != ".pddl" or not path.is_file():
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return False
    return re.match(r"\s*\(\s*define\s*\(\s*domain\b", re.sub(r";[^\n]*", "", head), flags=re.I) is not None


def domain_file(spec: str) -> str:
    """The domain file ``spec`` names: itself, or a folder's ``domain.pddl``."""
    path = Path(spec)
    return str(path / "domain.pddl") if path.is_dir() else spec
