"""The front of a domain: what every command asks of a domain, and nothing else.

Each domain implements one :class:`Front` in its own package (the gridworld in
:mod:`elot.domains.doors_keys_gems.front`, food trucks in :mod:`elot.domains.foodtrucks.front`,
a researcher's Python file through :class:`elot.domains.tabular.TabularFront`, a PDDL domain
file through :class:`elot.domains.pddl.front.PddlFront`), found by
:mod:`elot.domains.registry`; commands, the REPL's session, the study and the survey ask
the front and never name a domain. A front says

* how scenarios are named and read (:meth:`Front.episode`, :meth:`Front.episodes`): each
  an :class:`Episode`, the observed path with its judgment points, its own statements and
  the domain's own value of it;
* the models it offers and the settings they take (:meth:`Front.settings`: one
  :class:`~elot.engine.settings.Settings`, checked once; a setting the domain does not take
  is refused whatever its value);
* how a scenario is run (:meth:`Front.run`): a :class:`Source`, the judged run that elot's
  one score loop (:mod:`elot.judging`) scores statements on (:mod:`elot.domains.source`), and
  that reports itself to
  every output (terminal, ``--csv``, ``--json``, batch tables);
* and, as far as the domain goes, its hooks: drawing a frame (:meth:`Front.frames`: maps,
  stimuli, storyboards, surveys), telling a scene in words (:meth:`Front.tell`: language
  model baselines), running its agent forward (:meth:`Front.plan`) and its words (the
  signature's English: translation hints, REPL labels, generated English). A hook a domain
  does not have is one clear refusal, :class:`MissingHook`, naming the hook to write.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from elot.domains.source import MissingHook, Source, Summary, TextMap
from elot.engine.settings import Budget, InferenceSettings, ModelSettings, Settings
from elot.errors import ElotError, ScenarioError, nearest
from elot.settings import CURRENT, check_number


class SettingRefused(ElotError):
    """A setting the domain's models do not take, or a value they do not accept."""


@dataclass(frozen=True)
class Episode:
    """One observed path of a domain, ready to run: its ``name``, ``ref`` (what reads it
    back: a batch table's ``scenario`` column), ``horizon`` (the last time step: the path
    has ``horizon + 1`` states), the times judged (``judgments``; default: the path's end),
    its own statements (``statements``, :class:`elot.statements.Statement`), and the domain's
    own value of it (``detail``: a Doors-Keys-Gems ``Scenario``, a food-truck scenario, an
    engine ``Case``)."""

    name: str
    horizon: int
    detail: Any = field(compare=False)
    judgments: tuple[int, ...] = ()
    statements: tuple = ()
    ref: str = ""
    #: What the front restores it from in another process (:meth:`Front.restore`): a small
    #: picklable value (the gridworld: a dataset plan's reference, or a file's text).
    key: Any = field(default=None, compare=False)

    @property
    def judged(self) -> tuple[int, ...]:
        """The times statements are judged at: the episode's own, else its end."""
        return self.judgments or (self.horizon,)

    @property
    def reference(self) -> str:
        return self.ref or self.name


@dataclass(frozen=True)
class Parameter:
    """A setting of a domain's models besides the model and β: its ``name`` (a key of
    :attr:`ModelSettings.params` and the command line's attribute), its ``option``
    (``--k``), its ``default`` and ``check`` (the value as the models take it, or an
    :class:`~elot.errors.ElotError` saying what is accepted)."""

    name: str
    option: str
    default: Any
    check: Callable[[Any], Any] = lambda value: value
    #: Whether its one value is a list, comma-separated (``--hidden-colours red,blue``): a
    #: batch's ``--param`` then takes one value of it, not several.
    listed: bool = False


def numeric(name: str, whole: bool = False) -> Callable[[Any], Any]:
    """A :class:`Parameter`'s check: the number ``name`` takes
    (:func:`elot.settings.check_number`), an int where ``whole``."""
    return lambda value: int(check_number(name, value)) if whole else check_number(name, value)


class Front:
    """A domain as the commands see it (see the module docstring). Subclasses set
    :attr:`name`, :attr:`models` and :attr:`default_beta` and implement :meth:`episode`,
    :meth:`run` and :meth:`signature`; the rest has defaults."""

    #: The domain's name, as ``--domain`` gives it.
    name: str = "domain"
    #: The models ``--model`` may name, each with what it is; the first is the default.
    models: dict[str, str] = {}
    #: Other spellings of the models (``full``: the gridworld's name of the first).
    aliases: dict[str, str] = {}
    #: The models a fit and a design compare by default (the first is the full model).
    fitted_models: tuple[str, ...] = ()
    #: The models' settings besides β (:class:`Parameter`).
    parameters: tuple[Parameter, ...] = ()
    #: β when none is given.
    default_beta: float = 2 ** 1.5
    #: What a statement that does not say is about (``current`` or ``initial``).
    default_mode: str = CURRENT
    #: The environment variable naming the domain's data folder (the command line reads it).
    data_variable: str | None = None
    #: What a run's budget may limit (:class:`~elot.engine.settings.Budget`'s fields).
    budget_settings: tuple[str, ...] = ("max_bytes",)
    #: The REPL's help of its commands in the domain's words (``:help``), where they differ.
    help_words: dict[str, str] = {}
    #: How a scenario of the domain holds statements of its own (a refusal's hint says it).
    statements_hint: str = ""
    #: How its scenarios may be read besides ``data`` (keyword arguments of the front: the
    #: gridworld's ``exp`` and ``plan``).
    reading: tuple[str, ...] = ()

    def __init__(self, data: str | None = None):
        #: The domain's data folder (scenarios by id), or None: its reader looks.
        self.data = data

    # -- scenarios -------------------------------------------------------------------------

    def episode(self, spec: str | None) -> Episode:
        """The scenario ``spec`` names (None: the domain's default, if it has one)."""
        raise NotImplementedError

    def episodes(self, spec: str) -> list[Episode]:
        """Every scenario ``spec`` names, for a batch (a file of several gives them all)."""
        return [self.episode(spec)]

    def restore(self, key: Any) -> Episode:
        """The episode whose :attr:`Episode.key` is ``key`` (made by :meth:`episodes`, read
        again in a worker). By default a key is ``(spec, n)``: the n-th of ``episodes(spec)``."""
        spec, n = key
        return self.episodes(spec)[n]

    def find(self, name: str, base: Path | None = None, map_name: str | None = None) -> Any:
        """The key (for :meth:`restore`) of the scenario a table's ``scenario`` value
        names, ``base`` the folder of the table (a relative file may be relative to it) and
        ``map_name`` its ``map`` value; None: the scenario is what :meth:`episode` reads."""
        return None

    def keyed(self, spec: str, episodes: Sequence[Episode]) -> list[Episode]:
        """``episodes`` (all that ``spec`` names) each with the default key, ``(spec, n)``."""
        return [dataclasses.replace(e, key=(spec, n)) for n, e in enumerate(episodes)]

    def inputs(self, spec: str | None) -> list[str]:
        """The files reading ``spec`` reads (never written over by a command's output)."""
        if not spec:
            return []
        path, _ = split_pick(spec)
        return [path] if Path(path).is_file() else []

    def episode_inputs(self, episode: Episode) -> list[str]:
        """The files a study of ``episode`` reads (its scenario file, its statements files)."""
        return self.inputs(episode.reference)

    def map_name(self, episode: Episode) -> str:
        """The map (layout) an episode runs on, as a study table's ``map`` column names it."""
        return episode.name

    def design_name(self, episode: Episode) -> str:
        """An episode's name in ``elot design``'s table."""
        return episode.reference

    def examples(self) -> list[tuple[str, str]]:
        """Scenarios a session can open by name, with a line about each."""
        return []

    # -- models and settings ---------------------------------------------------------------

    @property
    def ablations(self) -> list[str]:
        """The models a design compares with the full one (the domain's first)."""
        models = self.fitted_models or tuple(self.models)
        return [m for m in models if m != next(iter(self.models))]

    def model_name(self, model: str | None) -> str:
        """``model`` as the domain names it (None or an alias: resolved), or a refusal."""
        if model is None:
            return next(iter(self.models))
        name = self.aliases.get(model, model)
        if name not in self.models:
            close = nearest(model, [*self.models, *self.aliases])
            raise SettingRefused(f"the {self.name} domain has no model {model!r}"
                                 + (f" (did you mean {close}?)" if close else ""),
                                 hint=f"choose one of {', '.join(self.models)}"
                                      + "".join(f" ({a} means {n})" for a, n in self.aliases.items()))
        return name

    def takes(self, model: str) -> tuple[str, ...]:
        """The parameters ``model`` takes (by default every one the domain declares)."""
        return tuple(p.name for p in self.parameters)

    def model_params(self, model: str | None, params: dict) -> dict:
        """``params`` less those ``model`` does not take: what a command running several
        models (a batch's grid, a fit's ablations, a design) gives each of them."""
        taken = self.takes(self.model_name(model))
        return {k: v for k, v in params.items() if k in taken}

    def check_taken(self, models: Sequence[str | None], params: dict) -> None:
        """Refuse a parameter given (a value other than None, or values some of which are
        not) that none of ``models`` takes: it would change nothing."""
        for name, value in params.items():
            given = any(v is not None for v in value) if isinstance(value, tuple) else value is not None
            if given and not any(name in self.takes(self.model_name(m)) for m in models):
                shown = ", ".join(self.model_name(m) for m in models)
                takers = [m for m in self.models if name in self.takes(m)]
                raise SettingRefused(f"--param {name}: none of the models run ({shown}) takes {name}",
                                     hint=f"add a model that does ({', '.join(takers)}), or leave it out"
                                     if takers else "leave it out")

    def settings(self, model: str | None = None, beta: float | None = None,
                 inference: InferenceSettings | None = None, budget: Budget | None = None,
                 **params: Any) -> Settings:
        """The settings of a run, checked: ``model`` (None: the first), ``beta`` (None: the
        model's own), the parameters the model takes (None or left out: their defaults,
        :meth:`parameter_default`; a name the domain's models do not take is refused, as is
        one this model does not take), the model's own check of them (:meth:`check_model`)
        and the inference (:meth:`inference_of`)."""
        name = self.model_name(model)
        declared = {p.name: p for p in self.parameters}
        given = {k: v for k, v in params.items() if v is not None}
        unknown = [k for k in given if k not in declared]
        if unknown:
            raise self.refusal(unknown[0])
        taken = self.takes(name)
        untaken = [k for k in given if k not in taken]
        if untaken:
            close = nearest(untaken[0], list(taken))
            raise SettingRefused(f"{declared[untaken[0]].option}: the {name} model has no {untaken[0]}"
                                 + (f" (did you mean {close}?)" if close else ""),
                                 hint=f"its settings: β{''.join(', ' + p for p in taken)}; "
                                      + "; ".join(f"{m} takes {', '.join(self.takes(m))}"
                                                  for m in self.models if untaken[0] in self.takes(m)))
        values = []
        for p in (declared[k] for k in taken):
            try:
                values.append((p.name, self.parameter_default(name, p) if p.name not in given
                               else p.check(given[p.name])))
            except ElotError as error:      # named by its option, as the command line spells it
                raise SettingRefused(f"{p.option}: {error.message}", hint=error.hint) from None
        beta = self.model_beta(name) if beta is None else beta
        self.check_model(name, beta, dict(values))
        return Settings(ModelSettings(name, beta, tuple(values)), self.inference_of(inference), budget or Budget())

    def parameter_default(self, model: str, parameter: Parameter) -> Any:
        """The value of ``parameter`` that ``model`` takes when none is given."""
        return parameter.default

    def check_model(self, model: str, beta: float, values: dict) -> None:
        """Refuse β and the parameters' ``values`` where ``model`` does not take them together."""

    def inference_of(self, inference: InferenceSettings | None) -> InferenceSettings:
        """The inference a run takes (None: the default), or a refusal of one the domain cannot run."""
        return inference or InferenceSettings()

    def refuse(self, episode: Episode, compiled, mode: str, t: int) -> None:
        """Refuse, with the reason, a formula the domain's runs cannot judge in ``mode`` at
        t of ``episode`` (decided before any run: a study checks its statements with it)."""

    def admitted(self, episode: Episode, statements: Sequence) -> list:
        """``statements`` (compiled) with those the domain's runs cannot judge at the
        episode's judgment points marked failed, each with its reason."""
        out = []
        for st in statements:
            if st.compiled is not None:
                try:
                    for t in episode.judged:
                        self.refuse(episode, st.compiled, st.mode, t)
                except ElotError as error:
                    st = st.failed(error, error.kind)
            out.append(st)
        return out

    def label(self, episode: Episode, t: int) -> str:
        """What happened at step t (1..T) of ``episode``, in a few words ('' where the
        domain does not say); known before any run."""
        return ""

    def resolved(self, settings: Settings) -> Settings:
        """``settings`` with what the run will take by default said (a tabular domain's
        planner): what a user is shown before it runs."""
        return settings

    def model_beta(self, model: str) -> float:
        """β of ``model`` when none is given."""
        return self.default_beta

    @property
    def spec(self) -> str:
        """What ``--domain`` names this domain by (a stimulus set records it)."""
        return self.name

    def refusal(self, setting: str) -> SettingRefused:
        """The error for a setting the domain does not take (a model's, or the way another
        domain's data is read)."""
        takes = ", ".join(["--model", "--beta", *(p.option for p in self.parameters)])
        option = setting if setting.startswith("-") else "--" + setting.replace("_", "-")
        return SettingRefused(f"{option} is not a setting of the {self.name} domain",
                              hint=f"leave it out; its models take {takes}")

    # -- running ---------------------------------------------------------------------------

    def run(self, episode: Episode, settings: Settings, progress: Callable[[int, int], None] | None = None) -> Source:
        """``episode`` inverted under ``settings``: the judged source of its statements."""
        raise NotImplementedError

    def runs(self, episodes: Sequence[Episode], settings: Settings, betas: Sequence[float],
             progress: Callable[[int, int], None] | None = None) -> Iterator[list[Source]]:
        """For each β, the sources of every episode in order (a domain that plans once for
        every β shares the work; by default each runs on its own)."""
        for beta in betas:
            yield [self.run(e, settings.with_beta(beta)) for e in episodes]

    def check(self, episodes: Sequence[Episode], settings: Settings) -> None:
        """Refuse, before any work, running ``episodes`` over the budget (with the estimate)."""

    def group(self, episode: Episode) -> Any:
        """Episodes of one group share work (a batch runs a group in one task)."""
        return episode.reference

    #: Whether a run plans once for every β (a batch then runs all of them in one task).
    sweeps_betas = False
    #: Whether its models have settings a batch table's other columns do not hold: the
    #: table then has a ``params`` column (:meth:`Source.table_columns` fills it).
    table_params = False

    def task_cost(self, episodes: Sequence[Episode], settings: Settings, betas: int, scored: int) -> float:
        """Rough relative seconds of running ``episodes`` under ``settings`` for ``betas``
        β and scoring ``scored`` statements × thresholds at each judgment point (only the
        order and the ratios matter: the largest tasks are scheduled first)."""
        return len(episodes) * betas * (1.0 + 0.01 * scored)

    def task_bytes(self, episodes: Sequence[Episode], settings: Settings) -> int:
        """Peak memory of running ``episodes`` under ``settings``; a run over the budget is
        refused here, with its estimate, before any work."""
        return 64 * 2 ** 20

    # -- language --------------------------------------------------------------------------

    def signature(self, episode: Episode | None = None):
        """The ELoT signature statements about ``episode`` are read in (with its words)."""
        raise NotImplementedError

    def signature_for(self, spec: str | None):
        """The signature of the scenario ``spec`` names (None: the domain's own)."""
        return self.signature(None if spec is None else self.episode(spec))

    # -- hooks -----------------------------------------------------------------------------

    def missing(self, hook: str, command: str) -> MissingHook:
        """The refusal of ``command`` on a domain without ``hook``."""
        return MissingHook(f"{command} needs the {self.name} domain to draw or describe its scenes, and it has no "
                           f"{hook}", hint=f"write {hook}(...) in the domain (docs/domains.md, 'Hooks')")

    def map_text(self, episode: Episode, t: int) -> TextMap:
        """``episode`` at t as text (the REPL's ``:map``)."""
        raise MissingHook(f"the {self.name} domain draws no map as text", hint=":goals, :worlds and :beliefs show the "
                          "posteriors; write map_text(episode, t) in the domain for :map (docs/domains.md, 'Hooks')")

    def frames(self, episode: Episode, **options: Any):
        """What draws ``episode``'s frames (stimuli, storyboards, ``elot map``): an
        :class:`elot.draw.frames.Frames`."""
        raise self.missing("frames", "drawing")

    #: The module that tells the domain's scenes in words: its ``CONDITIONS``, each
    #: ``f(scene, t)`` of the scene :meth:`told` gives (None: the domain tells none).
    telling: str | None = None
    #: What a statement is about, as a language model is told it, by mode (where the domain
    #: words it; else :meth:`question` says it with the agent's words).
    question_words: dict[str, str] = {}

    def told(self, episode: Episode) -> Any:
        """What the domain's :attr:`telling` tells of ``episode``."""
        return episode.detail

    def tell(self, episode: Episode, t: int, condition: str) -> str:
        """``episode`` up to t told in words, for a language model (``condition`` ``plan``:
        the actions; ``narrative``: a story): only what an observer could see."""
        if self.telling is None:
            raise self.missing("tell", "elot baseline")
        from importlib import import_module

        return import_module(self.telling).CONDITIONS[condition](self.told(episode), t)

    def question(self, mode: str) -> str:
        """What a statement is about, as a language model is told it (``mode``)."""
        if mode in self.question_words:
            return self.question_words[mode]
        agent = self.agent_words()
        return (f"The statement below is about what {agent} believes now, at this point." if mode == CURRENT else
                f"The statement below is about what {agent} believed at the start, before it acted (judge it from "
                "everything it did so far).")

    #: Where its prompt templates are packaged: a package, and the file under its
    #: ``templates/`` (``{condition}`` is filled in).
    templates: tuple[str, str] = ("elot.domains", "scene.txt")

    def prompt_template(self, condition: str) -> tuple[str, str]:
        """The packaged prompt template of ``condition`` (its text, and where it is), for
        a language model rating statements about this domain's scenes."""
        from importlib import resources

        package, name = self.templates
        name = name.format(condition=condition)
        return (resources.files(package).joinpath("templates", name).read_text(encoding="utf-8"),
                f"templates/{name}")

    def shown(self, text: str, mode: str, signature) -> str:
        """A statement as participants read it (ELoT in English, :func:`elot.lang.english.shown`;
        a domain may keep its experiment's own wording)."""
        from elot.lang.english import shown

        return shown(text, mode, signature=signature)

    def agent_words(self) -> str:
        """How English names the agent watched (the signature's words: "the student")."""
        from elot.lang.english import constant

        signature = self.signature(None)
        return constant(signature.agent, signature)

    #: What ``elot plan`` may be told about this domain's simulated agent (the fields of
    #: :class:`PlanRequest` it reads besides β, the policy, the seed and the step limit).
    plan_settings: tuple[str, ...] = ()

    def plan(self, episodes: Sequence[Episode], request: "PlanRequest") -> "Planned":
        """``episodes`` completed by the domain's simulated agent (``elot plan``), as a file
        of the domain's own format that reads back as the same scenarios."""
        raise self.missing("plan", "elot plan")

    @staticmethod
    def continued(episodes: Sequence[Episode], hint: str) -> Episode:
        """The one scenario ``elot plan`` continues, for a domain whose plan continues one:
        several (a glob, a folder) are refused, ``hint`` saying what names one."""
        if len(episodes) != 1:
            raise ScenarioError(f"elot plan continues one scenario, and {len(episodes)} are named", hint=hint)
        return episodes[0]

    def questions(self, episode: Episode) -> list:
        """The statements a scenario is asked when none are given (its own)."""
        return list(episode.statements)

    # -- stimuli (what participants watch) ------------------------------------------------------

    def stimulus_points(self, episode: Episode) -> tuple[int, ...]:
        """Where a stimulus set cuts an episode: the end of each segment after the start
        (the first shows t = 0), each a time participants are asked at (default: its
        judgment points after the start, else its end); bad ones refused here."""
        points = tuple(t for t in episode.judged if t > 0)
        if not points:
            raise ScenarioError(f"{episode.name} is judged only at t = 0, before participants have seen a move",
                                hint="judge it after its first move, or leave its judgment points out (its end)")
        return points

    def stimulus_name(self, episode: Episode) -> str:
        """The scenario's name in a stimulus set (what its animations' files are named by)."""
        return episode.name

    def stimulus_fields(self, episode: Episode) -> dict:
        """The fields of a stimulus set's entry the domain says (``stimuli.json``): the
        goal to ask about (1-based; ``gems`` how many there are to tick, 0 for none), and
        whatever the domain's page and readers need (by default the page's ``scene``
        texts in the domain's ``words``: :meth:`page_words`)."""
        return {"goal": 1, "gems": 0, "texts": "scene", "words": self.page_words()}

    def page_words(self) -> dict:
        """What a survey's page calls the agent (``agent``) and says the animations show
        (``scene``, where the domain says)."""
        return {"agent": self.agent_words()}


@dataclass(frozen=True)
class PlanRequest:
    """What ``elot plan`` asks of a domain's simulated agent: its goal or utilities, its
    initial belief, β, the policy, the seed, the step limit, how judgment points are chosen,
    the planner it plans with (None: its domain's) and the name of what is written."""

    goal: str | None = None
    utilities: str | None = None
    belief: str = "uniform"
    beta: float | None = None
    policy: str = "boltzmann"
    seed: int | None = 0
    max_steps: int = 500
    judge: Any = "auto"
    points: int = 3
    purposeful: bool = True
    planner: str | None = None
    name: str | None = None
    #: The file written (None: standard output), for a scenario that names another file
    #: relative to itself (a PDDL plan names its problem).
    output: str | None = None
    #: The model whose agent acts (None: the domain's simulated agent) and its settings
    #: besides β (``--param NAME=VALUE``: ``(name, value)`` pairs).
    model: str | None = None
    params: tuple = ()

    #: The options each field is given by (what a refusal names).
    OPTIONS = {"goal": "--goal", "utilities": "--utilities", "belief": "--belief", "judge": "--judge",
               "points": "--points", "purposeful": "--purposeful/--no-purposeful", "planner": "--planner",
               "model": "--model", "params": "--param"}


@dataclass(frozen=True)
class Planned:
    """What a simulated agent did: the ``text`` to write (the domain's own format), the
    lines said about it before (``notes``), and what was written, said after its place
    (``summary``: "wrote OUT: SUMMARY")."""

    text: str
    notes: tuple[str, ...] = ()
    summary: str = ""


class GoalReport:
    """What a :class:`Source` over candidate goals reports (the gridworld's, a PDDL world's):
    its ``goal_posterior(t)`` over its ``goals`` (their names, in order) as the terminal's
    table, the ``--csv`` columns and ``--json``'s entry at t; the true goal is its scenario's."""

    def summary(self, times: Sequence[int]) -> Summary:
        true = self.episode.detail.true_goal
        columns = (("t", "right"), *((g + (" (true)" if g == true else ""), "right") for g in self.goals))
        rows = tuple((str(t), *(f"{p:.3f}" for p in self.goal_posterior(t).values())) for t in times)
        return Summary("Goal posterior", columns, rows)

    def csv_columns(self, t: int) -> dict:
        return {f"p({g})": p for g, p in self.goal_posterior(t).items()}

    def report_at(self, t: int) -> dict:
        return {"goal_posterior": self.goal_posterior(t)}


# -- naming one of a file's scenarios -------------------------------------------------------


def split_pick(spec: str) -> tuple[str, str | None]:
    """``FILE:PICK`` -> (FILE, PICK) when FILE exists and PICK has no slash (a file whose
    own name holds a colon is that file)."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and tail and "/" not in tail and Path(head).is_file() and not Path(spec).is_file():
        return head, tail
    return spec, None


def pick_one(episodes: list[Episode], pick: str | None, path: str) -> Episode:
    """The one of a file's ``episodes`` that ``pick`` (a name, or a number from 1) names."""
    if pick is None:
        if len(episodes) == 1:
            return episodes[0]
        raise ScenarioError(f"{path} holds {len(episodes)} scenarios",
                            hint=f"pick one: {path}:NAME or {path}:N (1..{len(episodes)}); names: "
                                 + ", ".join(e.name for e in episodes[:8]))
    for e in episodes:
        if e.name == pick:
            return e
    if pick.isdigit() and 1 <= int(pick) <= len(episodes):
        return episodes[int(pick) - 1]
    raise ScenarioError(f"{path} has no scenario {pick!r}",
                        hint=f"names: {', '.join(e.name for e in episodes[:8])}; or a number 1..{len(episodes)}")


def with_refs(episodes: Iterable[Episode], path: str) -> list[Episode]:
    """A file's episodes, each with the reference that reads it back."""
    episodes = list(episodes)
    if len(episodes) == 1:
        return [dataclasses.replace(episodes[0], ref=path)]
    return [dataclasses.replace(e, ref=f"{path}:{n + 1}") for n, e in enumerate(episodes)]
