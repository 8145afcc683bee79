"""The REPL's commands: one handler per ``:command``, each returning renderables.

A handler takes the session and the text after the command name and returns what to
show (a list of rich renderables); it raises :class:`~elot.errors.ElotError` for bad
input, which the loop renders and survives. Lines that are not commands are queries: an
ELoT formula, or an English sentence to translate first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from elot.errors import ElotError, nearest
from elot.output import count
from elot.repl import render
from elot.lang.parser import looks_like_formula
from elot.session import Session
from elot.settings import CURRENT, INITIAL


class Quit(Exception):
    """Raised by ``:quit`` to end the loop."""


Handler = Callable[[Session, str], list[RenderableType]]


@dataclass(frozen=True)
class Command:
    """A REPL command: its name, argument synopsis, one-line help and handler.

    ``complete`` names what its argument completes to: ``formula``, ``path``,
    ``scenario``, ``model``, ``set`` or ``None``.
    """

    name: str
    args: str
    help: str
    handler: Handler
    complete: str | None = None


COMMANDS: dict[str, Command] = {}


def command(name: str, args: str, help: str, complete: str | None = None):
    """Register the decorated function as the handler of ``:name``."""

    def wrap(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, args, help, fn, complete)
        return fn

    return wrap


def _need(arg: str, usage: str) -> str:
    if not arg.strip():
        raise ElotError("missing argument", hint=f"usage: {usage}")
    return arg.strip()


def _int(text: str, what: str, usage: str, kind=int, called: str = "a whole number"):
    """``text`` as a ``kind`` (an int; :func:`_float`), else an error saying what it must be."""
    try:
        return kind(text)
    except ValueError:
        raise ElotError(f"{what} must be {called}, not {text!r}", hint=f"usage: {usage}") from None


def _float(text: str, what: str, usage: str) -> float:
    return _int(text, what, usage, float, "a number")


# -- help, scenarios, time ------------------------------------------------------------------


@command("help", "", "list the commands")
def _help(session: Session, arg: str) -> list[RenderableType]:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("command", style="bold cyan", no_wrap=True)
    table.add_column("help")
    for cmd in COMMANDS.values():
        table.add_row(Text(f":{cmd.name} {cmd.args}".rstrip()), Text(session.help_for(cmd.name) or cmd.help))
    table.add_row(Text("FORMULA"), Text("type, lowered form and score of an ELoT formula now"))
    table.add_row(Text("SENTENCE"), Text("translate an English sentence to ELoT, then score it"))
    return [table]


@command("load", "PATH|NAME", "load another scenario of the domain (or another belief model)", "path")
def _load(session: Session, arg: str) -> list[RenderableType]:
    session.load(_need(arg, ":load PATH|NAME"))
    return [render.message(session.describe(), "green")]


@command("scenarios", "", "list the built-in example scenarios")
def _scenarios(session: Session, arg: str) -> list[RenderableType]:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("name", style="bold")
    table.add_column("")
    for name, note in session.examples():
        table.add_row(Text(name), Text(note))
    return [render.titled("built-in scenarios (:load NAME; dataset plans load by id, e.g. :load 1_1)", table)]


def _where(session: Session) -> str:
    return render.where(session.t, session.horizon, session.action_before(session.t),
                        session.t in session.judgments())


@command("step", "[N]", "move N steps forward (default 1; negative goes back)")
def _step(session: Session, arg: str) -> list[RenderableType]:
    n = _int(arg.strip(), "N", ":step [N]") if arg.strip() else 1
    session.goto(min(max(session.t + n, 0), session.horizon))
    return [render.message(_where(session))]


@command("goto", "T", "go to step T (0 = before the first action)")
def _goto(session: Session, arg: str) -> list[RenderableType]:
    session.goto(_int(_need(arg, ":goto T"), "T", ":goto T"))
    return [render.message(_where(session))]


@command("judgments", "", "the scenario's judgment points and its statements")
def _judgments(session: Session, arg: str) -> list[RenderableType]:
    table = Table(box=None, pad_edge=False)
    table.add_column("t", justify="right")
    table.add_column("last action")
    for t in session.judgments():
        table.add_row(str(t), Text(session.action_before(t) or "–"))
    out: list[RenderableType] = [render.titled("judgment points (:goto T)", table)]
    statements = session.statements()
    if statements:
        st = Table(box=None, show_header=False, pad_edge=False)
        st.add_column("#", justify="right")
        st.add_column("mode")
        st.add_column("text")
        for n, (mode, text) in enumerate(statements, 1):
            st.add_row(str(n), Text(mode), Text(text))
        out.append(render.titled("statements (:score N)", st))
    return out


# -- views ----------------------------------------------------------------------------------


@command("map", "", "the scene now, as text (where the domain draws one)")
def _map(session: Session, arg: str) -> list[RenderableType]:
    title = f"{session.name}  {_where(session)}"
    return [render.map_view(session.map_text(), title=title)]


@command("goals", "", "posterior over what the agent wants now")
def _goals(session: Session, arg: str) -> list[RenderableType]:
    goal = session.true_goal()
    return [render.bar_chart(f"goal posterior at t={session.t}", session.goal_posterior(),
                             highlight=goal, style="magenta",
                             caption="* true goal" if goal else None)]


@command("worlds", "", "posterior over the hidden world")
def _worlds(session: Session, arg: str) -> list[RenderableType]:
    return [render.bar_chart(f"{session.run().worlds_title} posterior at t={session.t}",
                             session.world_posterior(), style="yellow")]


@command("beliefs", "", "the agent's belief over the hidden worlds now (posterior average)")
def _beliefs(session: Session, arg: str) -> list[RenderableType]:
    return [render.bar_chart(session.run().belief_title(session.t, session.agent_words),
                             session.belief_posterior(), style="cyan",
                             caption="posterior-weighted average of the agent's belief")]


# -- formulas -------------------------------------------------------------------------------


def _statement(session: Session, arg: str, usage: str) -> tuple[str, str, list[RenderableType]]:
    """The argument of a command that takes a statement, as (formula, mode, what to show
    first): ELoT as written in the session's mode, or English translated (its best
    candidate, in the mode its tense gives), the translation shown."""
    text = _need(arg, usage)
    formula, mode = session.resolve(text)
    if formula == text:
        return formula, mode, []
    judged = f"  ({mode} belief)" if mode != session.mode else ""
    return formula, mode, [Text.assemble(("translation ", "bold"), (formula, "cyan"), judged)]


@command("type", "F", "the type of a formula (or of an English sentence's translation)", "formula")
def _type(session: Session, arg: str) -> list[RenderableType]:
    formula, _, out = _statement(session, arg, ":type F")
    checked = session.check(formula)
    return out + [Text.assemble((session.show(checked.term), "cyan"), " : ", (str(checked.type), "bold"))]


@command("lower", "F", "the lowered form of a formula, with the rules that fired", "formula")
def _lower(session: Session, arg: str) -> list[RenderableType]:
    formula, _, out = _statement(session, arg, ":lower F")
    lowered, steps = session.lower(formula)
    out.append(Text(session.show(lowered), style="cyan"))
    if steps:
        table = Table(box=None, show_header=False, pad_edge=False)
        table.add_column("op", style="bold")
        table.add_column("rule", style="dim")
        for step in steps:
            table.add_row(Text(step.operator), Text(step.rule))
        out.append(table)
    return out


@command("english", "F", "a formula in English, as participants and language models are shown it", "formula")
def _english(session: Session, arg: str) -> list[RenderableType]:
    from elot.lang.english import english

    formula, mode, out = _statement(session, arg, ":english F")
    checked = session.check(formula)   # an ill-typed formula has no meaning to tell
    return out + [Text(english(checked.term, mode, signature=session.signature))]


@command("explain", "F", "which prob_of, goal or utility values and thresholds decided the score", "formula")
def _explain(session: Session, arg: str) -> list[RenderableType]:
    formula, mode, out = _statement(session, arg, ":explain F")
    with session.in_mode(mode):
        return out + [render.explanation_view(session.explain(formula))]


@command("trace", "F", "the score at every step as a sparkline, judgment points marked", "formula")
def _trace(session: Session, arg: str) -> list[RenderableType]:
    formula, mode, out = _statement(session, arg, ":trace F")
    values = session.trace(formula, mode)
    title = f"{session.show(session.check(formula).term)}  ({mode} belief, model {session.model})"
    return out + [render.trace_view(title, values, judgments=session.judgments(), now=session.t)]


@command("score", "N|all", "score the scenario's own statement N (see :judgments), or all of them, now")
def _score_statements(session: Session, arg: str) -> list[RenderableType]:
    usage = ":score N|all"
    statements = session.statements()
    if not statements:
        raise ElotError("this scenario has no statements of its own", hint="type a formula or a sentence instead")
    which = _need(arg, usage)
    if which == "all":
        numbers = range(1, len(statements) + 1)
    else:
        numbers = [_int(which, "N", usage)]
        if not 1 <= numbers[0] <= len(statements):
            raise ElotError(f"there is no statement {numbers[0]}",
                            hint=f"the statements are numbered 1 to {len(statements)} (:judgments lists them)")
    if len(numbers) == 1:
        mode, text = statements[numbers[0] - 1]
        formula, mode = session.resolve(text, mode)
        with session.in_mode(mode):
            row = session.query(formula, source=None if formula == text else text)
        return [render.score_table(row)]
    table = Table(box=None, pad_edge=False, title=f"the scenario's statements at t={session.t}",
                  title_justify="left")
    for name, justify in (("#", "right"), ("mode", "left"), ("statement", "left"), ("L", "right"), ("P", "right")):
        table.add_column(name, justify=justify, overflow="fold" if name == "statement" else None)
    for n in numbers:
        mode, text = statements[n - 1]
        formula = text
        try:
            formula, mode = session.resolve(text, mode)
            with session.in_mode(mode):
                row = session.query(formula, source=None if formula == text else text)
            cells = (f"{row.normalized_likelihood:.3f}", f"{row.posterior:.3f}")
        except ElotError as error:     # one statement's error does not hide the others
            cells = (Text(error.kind, style="red"), "")
        shown = text if formula == text else f"{text}\n→ {formula}"
        table.add_row(str(n), mode, Text(shown), *cells)
    return [table]


@command("initial", "", "score formulas about the agent's initial belief")
def _initial(session: Session, arg: str) -> list[RenderableType]:
    session.set_mode(INITIAL)
    return [render.message("mode: initial (formulas are about the agent's initial belief)")]


@command("current", "", "score formulas about the agent's current belief")
def _current(session: Session, arg: str) -> list[RenderableType]:
    session.set_mode(CURRENT)
    return [render.message("mode: current (formulas are about the agent's belief now)")]


# -- settings -------------------------------------------------------------------------------

_SET_USAGE = (":set threshold NAME VALUE | :set thresholds FILE | :set beta VALUE | :set k N | "
              ":set conventions elot|paper | :set inference exact|smc|auto | :set particles N | :set seed S")
SETTINGS = ["threshold", "thresholds", "beta", "k", "conventions", "inference", "particles", "seed"]


#: The settings that take one value and rerun inference: the session's method that changes
#: each, and how its value is shown.
_RERUNS = {
    "beta": ("set_beta", lambda session: f"{session.beta:g}"),
    "k": ("set_k", lambda session: session.k),
    "conventions": ("set_conventions", lambda session: session.conventions),
    "inference": ("set_method", lambda session: session.method),
    "particles": ("set_particles", lambda session: session.particles),
    "seed": ("set_seed", lambda session: session.seed),
}


def _rerun_message(name: str, value) -> RenderableType:
    return render.message(f"{name} = {value} (inference reruns on the next query)")


@command("set", "SETTING VALUE",
         "change a setting: threshold NAME V, thresholds FILE (elot fit's), beta V (rationality), "
         "k N (belief size), conventions elot|paper, inference exact|smc|auto, particles N, seed S, or a "
         "parameter of the domain's models (a PDDL model's epsilon V, weight V, horizon N, gamma V)",
         "set")
def _set(session: Session, arg: str) -> list[RenderableType]:
    words = _need(arg, _SET_USAGE).split()
    what = words[0]
    if what == "threshold" and len(words) == 3:
        session.set_threshold(words[1], _float(words[2], "the threshold", _SET_USAGE))
        return [render.message(f"threshold {words[1]} = {session.thresholds_dict()[words[1]]:g}")]
    if what == "thresholds" and len(words) == 2:
        from elot.study.params import read_params

        params = read_params(words[1])
        session.thresholds = params.thresholds
        if params.beta is not None:
            session.set_beta(params.beta)
        changed = session.threshold_overrides() or "the defaults"
        beta = f"; beta = {session.beta:g}" if params.beta is not None else ""
        return [render.message(f"thresholds from {words[1]}: {changed}{beta}")]
    if what in _RERUNS and len(words) == 2:
        change, shown = _RERUNS[what]
        getattr(session, change)(words[1])
        return [_rerun_message(what, shown(session))]
    params = model_parameters(session)
    if what in params and len(words) == 2:
        return _set_param(session, what, words[1])
    if what in SETTINGS or what in params:  # a known setting with the wrong number of values
        raise ElotError(f":set {what} needs {'a name and a value' if what == 'threshold' else 'one value'}, "
                        f"not {len(words) - 1}", hint=f"usage: {_set_usage(session)}")
    suggestion = nearest(what, SETTINGS + params)
    hint = f"did you mean :set {suggestion}? " if suggestion else ""
    raise ElotError(f"cannot set {arg.strip()!r}", hint=f"{hint}usage: {_set_usage(session)}")


def model_parameters(session: Session) -> list[str]:
    """The settings of the domain's models ``:set NAME VALUE`` changes besides those
    :data:`SETTINGS` names (a PDDL domain's epsilon, weight, horizon, gamma; the
    gridworld's hidden_keys, ...); none for a belief model of your own."""
    if session.front is None:
        return []
    return [p.name for p in session.front.parameters if p.name not in SETTINGS]


def _set_usage(session: Session) -> str:
    params = model_parameters(session)
    return _SET_USAGE + "".join(f" | :set {name} VALUE" for name in params)


def _set_param(session: Session, name: str, value: str) -> list[RenderableType]:
    """``:set NAME VALUE`` for a parameter of the domain's models, checked by its front as
    ``--param NAME=VALUE`` is; a model that does not take it is refused with the
    parameters it does take."""
    try:
        session.set_param(name, value)
    except ElotError as error:
        said = re.sub(r"^--param \S+: ", "", error.message)
        hint = error.hint
        if said.startswith(f"the {session.model} model has no"):
            hint = f"{hint}; :model NAME changes the model"
        raise ElotError(f":set {name}: {said}", hint=hint) from None
    shown = session.param(name)
    return [_rerun_message(name, f"{shown:g}" if isinstance(shown, (int, float)) else shown)]


@command("model", "[MODEL]", "show or change the model: the domain's full model or an ablation (Tab lists them)",
         "model")
def _model(session: Session, arg: str) -> list[RenderableType]:
    if arg.strip():
        session.set_model(arg.strip())
    return [render.message(session.model_line())]


@command("thresholds", "", "the thresholds in use")
def _thresholds(session: Session, arg: str) -> list[RenderableType]:
    return [render.thresholds_table(session.thresholds_dict(), session.default_thresholds())]


@command("save", "FILE [--force]", "save this session's queries and scores (.csv or .json); "
         "--force replaces a file that is not an elot query log", "path")
def _save(session: Session, arg: str) -> list[RenderableType]:
    text = _need(arg, ":save FILE [--force]")
    force = text == "--force" or text.endswith(" --force")
    path = session.save(_need(text.removesuffix("--force"), ":save FILE [--force]"), force=force)
    return [render.message(f"saved {count(len(session.log), 'query', 'queries')} to {path}", "green")]


@command("quit", "", "leave (also Ctrl-D)")
def _quit(session: Session, arg: str) -> list[RenderableType]:
    raise Quit


# -- dispatch -------------------------------------------------------------------------------

_COMMAND_RE = re.compile(r"^:(\S*)\s*(.*)$", re.S)


def suggest(name: str) -> str | None:
    """The known command closest to ``name``, if any is close."""
    names = list(COMMANDS)
    prefixed = [n for n in names if n.startswith(name)] if name else []
    if len(prefixed) == 1:
        return prefixed[0]
    return nearest(name, names, cutoff=0.5) or None


def execute(session: Session, line: str) -> list[RenderableType]:
    """Run one input line; raises :class:`ElotError` on bad input and :class:`Quit`."""
    line = line.strip()
    if not line or line.startswith("#"):
        return []
    match = _COMMAND_RE.match(line)
    if match:
        name, arg = match.groups()
        cmd = COMMANDS.get(name)
        if cmd is None:
            close = suggest(name)
            raise ElotError(
                f"unknown command :{name}",
                hint=(f"did you mean :{close}? " if close else "") + "type :help for the list",
            )
        return cmd.handler(session, arg)
    if not looks_like_formula(line) or _unknown_word(session, line):
        return english(session, line)
    if session.is_number(line):
        return [render.value_view(session.value(line))]
    return [render.score_table(session.query(line))]


def _unknown_word(session: Session, line: str) -> bool:
    """A single word that names nothing of the scenario (``hello``): English, not ELoT.
    A known name (an object, a predicate, a variable, a number) stays a formula."""
    if "(" in line or len(line.split()) != 1 or line[0].isupper():
        return False
    sig = session.signature
    try:
        float(line)
        return False
    except ValueError:
        pass
    return line not in sig.object_types and line not in sig.predicate_types and line not in sig.domains


def english(session: Session, sentence: str) -> list[RenderableType]:
    """Translate a sentence, list the candidates, then score each as a formula."""
    candidates = session.translate(sentence)
    if not candidates:
        raise ElotError(f"no translation for {sentence!r}", hint="write the ELoT formula instead")
    out: list[RenderableType] = []
    table = Table(box=None, pad_edge=False)
    table.add_column("weight", justify="right")
    table.add_column("mode")
    table.add_column("formula", style="cyan", overflow="fold")
    for text, weight, mode in candidates:
        table.add_row(f"{weight:.2f}", Text(mode), Text(text))
    out.append(render.titled("translations", table))
    for text, weight, mode in candidates[:3]:
        with session.in_mode(mode):
            out.append(render.score_table(session.query(text, source=sentence, weight=weight)))
    return out
