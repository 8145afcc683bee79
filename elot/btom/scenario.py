"""Scenarios: a map, the true initial state, the agent's actions, judgment points and
statements to judge.

Three sources give the same :class:`Scenario`:

* elot's own ``.scn`` format (one readable file; see ``docs/scenarios.md``):
  :func:`parse_scn_text`, :func:`load_scn`, and the built-in examples
  (:func:`list_examples`, :func:`load_example`, :func:`default_example`);
* the LaBToM dataset: :func:`load_dataset_scenario` (a problem file, a plan file,
  statement files) and :func:`load_dataset_plan` (a plan id such as ``"1_1"``);
* :func:`load_scenario`, which tells them apart.

Every loader validates what it reads and raises :class:`~elot.errors.ScenarioError`
naming the file, the line (and column, and the step for actions) and a hint: the map must
be rectangular with one agent and only known characters, every gem reachable when all
doors are open, every action possible when it is taken, every judgment point within the
plan.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

from elot.btom import pddl
from elot.errors import ElotError, LineIndex, ScenarioError, Span, read_text
from elot.lang.parser import looks_like_formula
from elot.settings import MODES, Mode
from elot.btom.world import (
    ARITY,
    BOX_GLYPHS,
    DOOR_GLYPHS,
    KEY_GLYPHS,
    Action,
    KeyState,
    Layout,
    Pos,
    WorldState,
    fmt_action,
    fmt_pos,
    world_from_problem,
)

#: A statement line is read as an ELoT formula when it starts like a term: a lower-case
#: name followed by ``(`` (English sentences start with a capital or an article).
# A term's functor and its '(': a name (any case, so that 'Believes(' reaches the parser
# and its error) or a comparison of the lowered language (>=, <=, ==, >, <, -).
@dataclass(frozen=True)
class Statement:
    """A statement to judge, as written (an ELoT formula or an English sentence), about the
    agent's ``current`` or ``initial`` belief; ``line`` is its line in the source file and
    ``offset`` where it starts there, when known."""

    text: str
    mode: Mode = "current"
    line: int | None = None
    offset: int | None = None  # where the text starts in its file (0-based character offset)
    path: str | None = None    # the statements file, when it came from one

    def locate(self, error: ElotError) -> ElotError:
        """Point an error about this statement's text at its place in its statements file
        (an error about something else, such as its translation, is left as it is)."""
        if self.path is None or self.offset is None or error.source not in (None, self.text):
            return error
        try:
            source = read_text(self.path)
        except ElotError:
            return error
        if source[self.offset:self.offset + len(self.text)] != self.text:
            return error
        return error.within(source, self.offset, len(self.text), self.path)

    @property
    def is_formula(self) -> bool:
        """Whether the text is ELoT (else it is English to translate): see
        :func:`looks_like_formula`."""
        return looks_like_formula(self.text)


@dataclass(frozen=True)
class Scenario:
    """A layout, its TRUE initial state, the agent's actions, the judgment points (times
    t in 0..T, t = number of actions taken), the statements and the true goal.

    ``markers`` are the judgment markers as written in the source (for the dataset these
    include t = 0 and t = T, which are not judged; ``judgments`` leaves them out).
    ``action_lines`` gives each action's source line (None when unknown).
    """

    name: str
    layout: Layout
    initial: WorldState
    actions: tuple[Action, ...]
    judgments: tuple[int, ...]
    statements: tuple[Statement, ...] = ()
    true_goal: str | None = None
    path: str | None = None
    description: str = ""
    markers: tuple[int, ...] = ()
    action_lines: tuple[int | None, ...] = ()

    @property
    def T(self) -> int:  # noqa: N802 - the paper's name for the last time step
        """The number of actions."""
        return len(self.actions)

    @cached_property
    def _states(self) -> tuple[WorldState, ...]:
        states = [self.initial]
        for action in self.actions:
            states.append(states[-1].step(action))
        return tuple(states)

    def states(self) -> tuple[WorldState, ...]:
        """The true states s_0 .. s_T (computed once)."""
        return self._states

    def state_at(self, t: int) -> WorldState:
        """The true state after ``t`` actions."""
        return self._states[t]

    def statements_for(self, mode: Mode) -> tuple[Statement, ...]:
        """The statements about the ``current`` or the ``initial`` belief."""
        return tuple(s for s in self.statements if s.mode == mode)

    def signature_objects(self) -> dict[str, str]:
        """Every object of the scenario and its domain type (for an ELoT signature)."""
        return self.layout.objects()

    def signature(self):
        """The ELoT :class:`~elot.lang.signature.Signature` of this scenario's objects (built once)."""
        return self._signature

    @cached_property
    def _signature(self):
        from elot.lang.signature import Signature  # a sibling stage; imported when asked for

        return Signature.from_objects(self.signature_objects(), agent=self.layout.agent)


# -- shared validation -----------------------------------------------------------------


def _check_gems_reachable(layout: Layout, start: Pos, fail) -> None:
    reach = layout.reachable(start, through_doors=True)
    for gem, pos in layout.gems:
        if layout.in_bounds(pos) and pos not in reach:
            raise fail(
                f"{gem} at {fmt_pos(pos)} cannot be reached from the agent at {fmt_pos(start)}, "
                "even with every door unlocked",
                gem,
                "open a path through the walls, or remove the gem",
            )


def _replay(
    initial: WorldState,
    actions: Sequence[Action],
    spans: Sequence[Span | None],
    *,
    path: str | None,
    source: str | None,
) -> tuple[WorldState, ...]:
    """s_0..s_T, or a ScenarioError naming the step, the line and the reason."""
    states = [initial]
    for step, (action, span) in enumerate(zip(actions, spans), start=1):
        reason = states[-1].why_not(action)
        if reason is not None:
            where = f" (line {span.line})" if span is not None else ""
            if action and action[0] not in ARITY:
                hint = f"actions are: {', '.join(ARITY)}"
            elif action and action[0] == "unlock" and " is " in reason and " but " in reason:
                hint = "a door opens only with a key of its own colour"
            else:
                hint = f"the agent is at {fmt_pos(states[-1].agent_pos)} before this step"
            raise ScenarioError(f"step {step}{where}: {reason}", path=path, source=source, span=span, hint=hint)
        states.append(states[-1]._apply(action))
    return tuple(states)


def _check_judgments(judgments: Iterable[int], T: int, fail) -> tuple[int, ...]:
    out = sorted(set(judgments))
    for t in out:
        if not 0 <= t <= T:
            raise fail(
                f"judgment point t={t} is past the end of the plan (T={T} actions)",
                t,
                f"judgment points must lie in 0..{T}",
            )
    return tuple(out)


# -- the dataset -----------------------------------------------------------------------


def read_statements(path: str | Path, mode: Mode = "current") -> list[Statement]:
    """The statements of a text file, one per line: an ELoT formula or an English sentence,
    optionally prefixed by ``initial:`` or ``current:`` (else ``mode``). Blank lines and
    lines starting with ``#`` are skipped; each statement keeps its line number."""
    path = Path(path)
    text = read_text(path, "statements")
    out = []
    start = 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        line, at = raw.strip(), start + len(raw) - len(raw.lstrip())
        start += len(raw)
        if not line or line.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        if sep and head.strip() in MODES:
            body = rest.strip()
            out.append(Statement(body, head.strip(), number, text.index(body, at), str(path)))  # type: ignore[arg-type]
        else:
            out.append(Statement(line, mode, number, at, str(path)))
    return out


def _mode_of(path: Path) -> Mode:
    return "initial" if "initial" in path.parent.name or "initial" in path.name else "current"


def load_dataset_scenario(
    problem_path: str | Path,
    plan_path: str | Path | None = None,
    statements_paths: Sequence[str | Path | tuple[str | Path, Mode]] = (),
    *,
    name: str | None = None,
) -> Scenario:
    """A scenario from a dataset problem file, an optional plan file and statement files.

    A statement file's mode is ``initial`` when its directory or name says so, else
    ``current``; pass ``(path, mode)`` to say it explicitly. Judgment points are the
    plan's ``;`` markers, leaving out a marker at t = 0 or t = T when an interior one
    remains (the dataset's first and last markers are not judged); all markers stay in
    ``markers``. The true goal is the problem's ``(has agent gem)`` goal, else the last
    gem the plan picks up.
    """
    problem = pddl.read_problem(problem_path)
    layout, initial = world_from_problem(problem)
    ppath = str(problem_path)

    def problem_fail(message: str, gem: str, hint: str) -> ScenarioError:
        return ScenarioError(
            message, path=ppath, source=problem.source, span=pddl.line_span(problem.source, problem.lines.get(("xloc", gem))), hint=hint
        )

    _check_gems_reachable(layout, initial.agent_pos, problem_fail)
    actions: tuple[Action, ...] = ()
    lines: tuple[int | None, ...] = ()
    markers: tuple[int, ...] = ()
    plan = None
    if plan_path is not None:
        plan = pddl.read_plan(plan_path)
        if plan.agent is not None and plan.agent != layout.agent:
            raise ScenarioError(
                f"the plan's agent is {plan.agent!r}, the problem's {layout.agent!r}",
                path=str(plan_path),
                source=plan.source,
                span=pddl.line_span(plan.source, plan.lines[0]),
                hint="plan and problem must come from the same puzzle",
            )
        actions, lines = plan.actions, plan.lines
        _replay(
            initial, actions, [pddl.line_span(plan.source, l) for l in lines], path=str(plan_path), source=plan.source
        )
        markers = tuple(plan.judgments)

        def plan_fail(message: str, t: int, hint: str) -> ScenarioError:
            return ScenarioError(message, path=str(plan_path), hint=hint)

        markers = _check_judgments(markers, len(actions), plan_fail)
    T = len(actions)
    interior = tuple(t for t in markers if 0 < t < T)
    judgments = interior if interior else markers
    statements: list[Statement] = []
    for item in statements_paths:
        spath, mode = (Path(item[0]), item[1]) if isinstance(item, tuple) else (Path(item), _mode_of(Path(item)))
        statements += read_statements(spath, mode)
    goal = problem.goal
    true_goal = None
    if isinstance(goal, tuple) and len(goal) == 3 and goal[0] == "has" and layout.is_gem(goal[2]):
        true_goal = goal[2]
    else:
        picked = [a[1] for a in actions if a[0] == "pickup" and layout.is_gem(a[1])]
        true_goal = picked[-1] if picked else None
    if name is None:
        stem = Path(problem_path).stem
        name = f"{Path(plan_path).parent.name}/{Path(plan_path).stem}" if plan_path is not None else stem
    return Scenario(
        name=name,
        layout=layout,
        initial=initial,
        actions=tuple(actions),
        judgments=judgments,
        statements=tuple(statements),
        true_goal=true_goal,
        path=str(plan_path if plan_path is not None else problem_path),
        description=f"LaBToM dataset problem {Path(problem_path).stem}",
        markers=markers,
        action_lines=tuple(lines),
    )


def dataset_root(root: str | Path | None = None) -> Path:
    """The LaBToM dataset directory: ``root`` if given, else ``$ELOT_LABTOM_DATA``, else a
    ``shared/labtom`` (or ``labtom``) directory beside the working directory or one of its
    parents."""
    if root is not None:
        candidates = [Path(root)]
    elif os.environ.get("ELOT_LABTOM_DATA"):
        candidates = [Path(os.environ["ELOT_LABTOM_DATA"])]
    else:
        here = Path.cwd().resolve()
        candidates = [p / sub for p in (here, *here.parents) for sub in ("labtom", "shared/labtom")]
    for candidate in candidates:
        if (candidate / "domain.pddl").is_file():
            return candidate
    raise ScenarioError(
        f"LaBToM dataset not found (looked for domain.pddl in {candidates[0]}"
        + (" and its parents)" if root is None and not os.environ.get("ELOT_LABTOM_DATA") else ")"),
        hint="set ELOT_LABTOM_DATA to the dataset directory",
    )


def load_dataset_plan(root: str | Path | None, plan_id: str, exp: str = "exp2_current") -> Scenario:
    """Dataset plan ``plan_id`` (e.g. ``"1_1"``) of experiment ``exp`` with the statements
    of ``statements/exp2_current/<id>.txt`` (current) and ``exp2_initial/<id>.txt``
    (initial) when present."""
    base = dataset_root(root)
    problem = base / "problems" / f"{plan_id}.pddl"
    plan = base / "plans" / exp / f"{plan_id}.pddl"
    for path, what in ((plan, "plan"), (problem, "problem")):
        if not path.is_file():
            known = sorted(p.stem for p in (base / "plans" / exp).glob("*.pddl")) if what == "plan" else []
            raise ScenarioError(
                f"dataset {what} file not found: {path}",
                path=str(path),
                hint=f"plan ids of {exp}: {', '.join(known)}" if known else "check the plan id and experiment",
            )
    statements: list[tuple[Path, Mode]] = []
    for mode in ("current", "initial"):
        spath = base / "statements" / f"exp2_{mode}" / f"{plan_id}.txt"
        if spath.is_file():
            statements.append((spath, mode))  # type: ignore[arg-type]
    return load_dataset_scenario(problem, plan, statements, name=f"{exp}/{plan_id}")


# -- the .scn format -------------------------------------------------------------------

#: Colours in their canonical order (others follow in order of first use).
PALETTE = ("red", "blue", "yellow", "green")

#: Built-in map characters: (kind, colour). ``goal`` is a gem that is the true goal.
DEFAULT_LEGEND: dict[str, tuple[str, str | None]] = {
    "W": ("wall", None),
    ".": ("floor", None),
    "h": ("agent", None),
    "g": ("gem", None),
    "G": ("goal", None),
    "C": ("box", None),
    **{glyph: ("box", colour) for colour, glyph in BOX_GLYPHS.items()},
    **{glyph: ("door", colour) for colour, glyph in DOOR_GLYPHS.items()},
    **{glyph: ("key", colour) for colour, glyph in KEY_GLYPHS.items()},
}

_KINDS = ("wall", "floor", "agent", "gem", "goal", "box", "door", "key")
_HEADER = re.compile(
    r"^(?P<key>name|description|goal|agent|colours|colors|judge|map|legend|actions"
    r"|statements(?:[ \t]+(?:current|initial))?)[ \t]*:[ \t]*(?P<value>.*?)\s*$"
)
_BLOCKS = {"map", "legend", "actions", "statements", "statements current", "statements initial"}
_MARKER_LINE = re.compile(r"^-{2,}\s*(judge\s*)?-*$")
_IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
#: Most actions a scenario may have (the dataset's longest plans have about 100).
_REPEAT = re.compile(r"^(?:x|\*)(\d+)$")
_MAP_HINT = f"a map is at most {pddl.MAX_GRID_SIDE} cells on a side (the dataset's are about 20)"


@dataclass(frozen=True)
class _Line:
    number: int  # 1-based
    offset: int  # of the line's first character in the source
    text: str  # without the newline


@dataclass
class _Sections:
    headers: dict[str, tuple[str, _Line]] = field(default_factory=dict)
    blocks: dict[str, list[_Line]] = field(default_factory=dict)
    block_lines: dict[str, _Line] = field(default_factory=dict)


class _ScnReader:
    """Reads one ``.scn`` text into a :class:`Scenario`; ``fail`` builds located errors."""

    def __init__(self, text: str, path: str | None) -> None:
        self.text = text
        self.path = path
        self.lines = LineIndex(text)

    # -- errors --

    def fail(self, message: str, line: _Line | None = None, col: int = 0, width: int | None = None, hint: str | None = None) -> ScenarioError:
        span = None
        if line is not None:
            if width is None:
                stripped = line.text.strip()
                col = len(line.text) - len(line.text.lstrip()) if col == 0 else col
                width = max(1, len(stripped))
            span = Span.of(self.text, line.offset + col, line.offset + col + width)
        return ScenarioError(message, path=self.path, source=self.text, span=span, hint=hint)

    # -- sections --

    def sections(self) -> _Sections:
        out = _Sections()
        current: str | None = None
        offset = 0
        for number, raw in enumerate(self.text.splitlines(keepends=True), start=1):
            line = _Line(number, offset, raw.rstrip("\r\n"))
            offset += len(raw)
            stripped = line.text.strip()
            match = _HEADER.match(line.text)
            if match:
                key = " ".join(match["key"].split())
                key = "colours" if key == "colors" else key
                if key in _BLOCKS:
                    if key in out.blocks or (key in ("statements", "statements current") and ("statements" in out.blocks or "statements current" in out.blocks)):
                        raise self.fail(f"section {key!r} appears twice", line, hint="merge the two sections")
                    out.blocks[key] = []
                    out.block_lines[key] = line
                    current = key
                    if match["value"]:
                        out.blocks[key].append(_Line(number, line.offset + match.start("value"), match["value"]))
                    continue
                if key in out.headers and key != "description":
                    raise self.fail(f"{key!r} is given twice", line, hint=f"keep one `{key}:` line")
                if key == "description" and key in out.headers:
                    prev, first = out.headers[key]
                    out.headers[key] = (f"{prev} {match['value']}".strip(), first)
                else:
                    out.headers[key] = (match["value"], line)
                current = "description" if key == "description" else None
                continue
            if not stripped or stripped.startswith("#"):
                continue
            if current == "description" and line.text[:1].isspace():
                prev, first = out.headers["description"]
                out.headers["description"] = (f"{prev} {stripped}".strip(), first)
                continue
            if current is None or current == "description":
                raise self.fail(
                    "unexpected line outside any section",
                    line,
                    hint="start a section (`map:`, `actions:`, `statements current:`, ...) or write `key: value`",
                )
            out.blocks[current].append(line)
        return out

    # -- legend and colours --

    def legend(self, sections: _Sections) -> dict[str, tuple[str, str | None, _Line | None]]:
        legend: dict[str, tuple[str, str | None, _Line | None]] = {c: (k, col, None) for c, (k, col) in DEFAULT_LEGEND.items()}
        for line in sections.blocks.get("legend", []):
            body = line.text.split("#", 1)[0].strip() if not line.text.strip().startswith("#") else ""
            col0 = len(line.text) - len(line.text.lstrip())
            match = re.match(r"^(\S)\s*=\s*(\w+)(?:\s+(\w+))?\s*$", body)
            if not match:
                raise self.fail(
                    "expected a legend entry `X = kind [colour]`",
                    line,
                    hint=f"kinds: {', '.join(_KINDS)}; e.g. `1 = box yellow`, `V = door green`",
                )
            char, kind, colour = match[1], match[2].lower(), (match[3] or "").lower() or None
            if char in "#|,":
                raise self.fail(f"{char!r} cannot be a map character", line, col0, 1, hint="pick another character")
            if kind not in _KINDS:
                raise self.fail(f"unknown kind {kind!r} in the legend", line, hint=f"kinds: {', '.join(_KINDS)}")
            if kind in ("door", "key") and colour is None:
                raise self.fail(f"a {kind} needs a colour", line, hint=f"write e.g. `{char} = {kind} red`")
            if kind not in ("door", "key", "box") and colour is not None:
                raise self.fail(f"a {kind} has no colour", line, hint=f"write `{char} = {kind}`")
            if colour is not None and not _IDENT.match(colour):
                raise self.fail(f"bad colour name {colour!r}", line, hint="colours are lower-case names")
            legend[char] = (kind, colour, line)
        return legend

    # -- map --

    def build(self) -> Scenario:
        sections = self.sections()
        headers = sections.headers
        name = headers.get("name", ("", None))[0] or (Path(self.path).stem if self.path else "scenario")
        description = headers.get("description", ("", None))[0]
        agent = headers.get("agent", ("human", None))[0] or "human"
        if "map" not in sections.blocks or not sections.blocks["map"]:
            first = self.text.splitlines()[0] if self.text.strip() else ""
            raise self.fail(
                "no map",
                sections.block_lines.get("map") or _Line(1, 0, first),
                hint="add a `map:` section with one line per row of the grid",
            )
        legend = self.legend(sections)
        declared: tuple[str, ...] | None = None
        if "colours" in headers:
            value, line = headers["colours"]
            declared = tuple(c.lower() for c in re.split(r"[,\s]+", value) if c)
            for c in declared:
                if not _IDENT.match(c):
                    raise self.fail(f"bad colour name {c!r}", line, hint="colours are lower-case names: `colours: red, blue`")

        rows = sections.blocks["map"]
        cells: list[tuple[Pos, str, _Line, int]] = []
        width = None
        first_row = rows[0]
        for y, line in enumerate(rows, start=1):
            text = line.text.split("#", 1)[0].rstrip() if "#" in line.text else line.text.rstrip()
            col0 = len(text) - len(text.lstrip())
            row = text.strip()
            side = pddl.MAX_GRID_SIDE  # the limit of a PDDL problem's grid
            if len(row) > side:
                raise self.fail(f"map too wide: row {y} has {len(row):,} cells (at most {side})",
                                line, col0 + side, len(row) - side, hint=_MAP_HINT)
            if y > side:
                raise self.fail(f"map too tall: row {y} (at most {side} rows)", line, col0, max(1, len(row)),
                                hint=_MAP_HINT)
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise self.fail(
                    f"ragged map: row {y} has {len(row)} cells, row 1 has {width}",
                    line,
                    col0,
                    max(1, len(row)),
                    hint=f"every row must have the same length (row 1 is line {first_row.number}); write walls `W` or floor `.` to pad",
                )
            for x, char in enumerate(row, start=1):
                if char not in legend:
                    raise self.fail(
                        f"unknown map character {char!r}",
                        line,
                        col0 + x - 1,
                        1,
                        hint="known characters: " + " ".join(sorted(legend)) + "; declare others under `legend:`",
                    )
                cells.append(((x, y), char, line, col0 + x - 1))
        height = len(rows)
        assert width is not None

        used_colours: list[str] = []
        for _, char, line, col in cells:
            kind, colour, legend_line = legend[char]
            if colour is None:
                continue
            if declared is not None and colour not in declared:
                what = "key hidden in a box" if kind == "box" else kind
                raise self.fail(
                    f"{what} colour {colour!r} (map character {char!r}) is not declared",
                    line,
                    col,
                    1,
                    hint=f"add {colour} to `colours: {', '.join(declared)}`",
                )
            if colour not in used_colours:
                used_colours.append(colour)
        if declared is not None:
            colours = declared
        else:
            colours = tuple(c for c in PALETTE if c in used_colours) + tuple(c for c in used_colours if c not in PALETTE)

        walls, gems, doors, boxes = set(), [], [], []
        visible_keys: list[tuple[Pos, str]] = []
        hidden_keys: list[tuple[Pos, str, str]] = []  # (pos, box, colour)
        agents: list[tuple[Pos, _Line, int]] = []
        goal_cells: list[tuple[str, _Line, int]] = []
        gem_cells: dict[str, tuple[_Line, int]] = {}
        for pos, char, line, col in cells:
            kind, colour, _ = legend[char]
            if kind == "wall":
                walls.add(pos)
            elif kind == "agent":
                agents.append((pos, line, col))
            elif kind in ("gem", "goal"):
                gem = f"gem{len(gems) + 1}"
                gems.append((gem, pos))
                gem_cells[gem] = (line, col)
                if kind == "goal":
                    goal_cells.append((gem, line, col))
            elif kind == "door":
                doors.append((f"door{len(doors) + 1}", pos, colour))
            elif kind == "box":
                box = f"box{len(boxes) + 1}"
                boxes.append((box, pos))
                if colour is not None:
                    hidden_keys.append((pos, box, colour))
            elif kind == "key":
                visible_keys.append((pos, colour))
        if not agents:
            raise self.fail("the map has no agent", first_row, hint="put an `h` on the agent's starting cell")
        if len(agents) > 1:
            _, line, col = agents[1]
            raise self.fail(
                f"the map has {len(agents)} agents", line, col, 1, hint="a scenario has one agent: keep a single `h`"
            )
        start = agents[0][0]
        if "agent" in headers:
            taken = {n for n, _ in gems} | {n for n, _, _ in doors} | {n for n, _ in boxes} | set(colours)
            value, line = headers["agent"]
            col = line.text.index(value) if value and value in line.text else 0
            if not _IDENT.match(agent):
                raise self.fail(f"agent name {agent!r} is not an ELoT name", line, col, max(1, len(value)),
                                hint="use lowercase letters, digits and '_', starting with a letter: `agent: player`")
            if agent in taken or re.fullmatch(r"key\d+", agent):
                raise self.fail(f"agent name {agent!r} is already the name of an object of the map", line, col,
                                len(value), hint="name the agent something else: `agent: player`")

        # Keys: visible and hidden ones in reading order, then spare keys off the grid so
        # that hypotheses with up to two hidden keys have key objects to use.
        placed = sorted([(p[1], p[0], ("cell", p), c) for p, c in visible_keys] + [(p[1], p[0], ("box", b), c) for p, b, c in hidden_keys])
        total = len(visible_keys) + max(len(hidden_keys), 2)
        key_states = [(f"key{i}", KeyState(c, where)) for i, (_, _, where, c) in enumerate(placed, start=1)]
        key_states += [(f"key{i}", KeyState(None, ("offgrid",))) for i in range(len(placed) + 1, total + 1)]

        layout = Layout(
            width=width,
            height=height,
            walls=frozenset(walls),
            agent=agent,
            gems=tuple(gems),
            doors=tuple(doors),
            boxes=tuple(boxes),
            keys=tuple(k for k, _ in key_states),
            colours=colours,
        )
        initial = WorldState(
            layout=layout,
            agent_pos=start,
            keys=tuple(sorted(key_states)),
            locked=frozenset(d for d, _, _ in doors),
            closed=frozenset(b for b, _ in boxes),
            held_gems=frozenset(),
        )

        def gem_fail(message: str, gem: str, hint: str) -> ScenarioError:
            line, col = gem_cells[gem]
            return self.fail(message, line, col, 1, hint=hint)

        _check_gems_reachable(layout, start, gem_fail)

        true_goal = self.goal(headers, goal_cells, layout)
        actions, spans, markers = self.actions(sections)
        _replay(initial, actions, spans, path=self.path, source=self.text)
        judgments = list(markers)
        if "judge" in headers:
            value, line = headers["judge"]
            for part in re.split(r"[,\s]+", value):
                if not part:
                    continue
                if not part.isdigit():
                    raise self.fail(f"bad judgment point {part!r}", line, hint="write times as numbers of actions: `judge: 3, 7`")
                judgments.append(int(part))
            judge_line = line
        else:
            judge_line = sections.block_lines.get("actions")

        def judge_fail(message: str, t: int, hint: str) -> ScenarioError:
            return self.fail(message, judge_line, hint=hint)

        judgments_t = _check_judgments(judgments, len(actions), judge_fail)
        statements = self.statements(sections)
        return Scenario(
            name=name,
            layout=layout,
            initial=initial,
            actions=tuple(actions),
            judgments=judgments_t,
            statements=tuple(statements),
            true_goal=true_goal,
            path=self.path,
            description=description,
            markers=judgments_t,
            action_lines=tuple(s.line if s is not None else None for s in spans),
        )

    def goal(self, headers, goal_cells, layout: Layout) -> str | None:
        if len(goal_cells) > 1:
            _, line, col = goal_cells[1]
            raise self.fail("more than one goal gem `G`", line, col, 1, hint="mark only the true goal with `G`")
        marked = goal_cells[0][0] if goal_cells else None
        if "goal" not in headers:
            return marked
        value, line = headers["goal"]
        value = value.strip()
        if value in ("", "none", "unknown"):
            return marked
        if not layout.is_gem(value):
            gems = ", ".join(g for g, _ in layout.gems) or "none"
            raise self.fail(f"unknown goal {value!r}", line, hint=f"gems, in reading order: {gems}")
        if marked is not None and marked != value:
            raise self.fail(f"goal {value} disagrees with the `G` in the map ({marked})", line, hint="keep one of the two")
        return value

    # -- actions --

    def actions(self, sections: _Sections) -> tuple[list[Action], list[Span | None], list[int]]:
        actions: list[Action] = []
        spans: list[Span | None] = []
        markers: list[int] = []
        for line in sections.blocks.get("actions", []):
            text = line.text.split("#", 1)[0]
            if _MARKER_LINE.match(text.strip()):
                markers.append(len(actions))
                continue
            for match in re.finditer(r"\||[^,|]+", text):
                chunk = match.group()
                if chunk == "|":
                    markers.append(len(actions))
                    continue
                if not chunk.strip():
                    continue
                col = match.start() + len(chunk) - len(chunk.lstrip())
                words = chunk.split()
                span = self.lines.span(line.offset + col, line.offset + col + len(chunk.strip()))
                repeat = 1
                if len(words) > 1 and (m := _REPEAT.match(words[-1])):
                    repeat = int(m[1]) if len(m[1]) <= 9 else pddl.MAX_ACTIONS + 1
                    words = words[:-1]
                    if repeat < 1:
                        raise self.fail("a repeat count must be at least 1", line, col, len(chunk.strip()), hint="write e.g. `right x2`")
                if len(actions) + repeat > pddl.MAX_ACTIONS:
                    raise self.fail(
                        f"too many actions: more than {pddl.MAX_ACTIONS:,} (at step {len(actions) + 1})",
                        line, col, len(chunk.strip()),
                        hint="a plan is at most a few hundred actions; check the repeat count",
                    )
                name = words[0].lower()
                if name not in ARITY:
                    raise ScenarioError(
                        f"step {len(actions) + 1} (line {line.number}): unknown action {words[0]!r}",
                        path=self.path,
                        source=self.text,
                        span=span,
                        hint=f"actions are: {', '.join(ARITY)} (repeat with `x2`), separated by commas",
                    )
                if len(words) - 1 != ARITY[name]:
                    n = ARITY[name]
                    example = {0: name, 1: f"{name} box1" if name == "open" else f"{name} key1", 2: "unlock key1 door1"}[n]
                    raise ScenarioError(
                        f"step {len(actions) + 1} (line {line.number}): {name} takes {n} argument{'s' if n != 1 else ''}, got {len(words) - 1}",
                        path=self.path,
                        source=self.text,
                        span=span,
                        hint=f"write e.g. `{example}`; separate actions with commas",
                    )
                for _ in range(repeat):
                    actions.append((name, *words[1:]))
                    spans.append(span)
        return actions, spans, markers

    # -- statements --

    def statements(self, sections: _Sections) -> list[Statement]:
        out: list[Statement] = []
        for key, mode in (("statements", "current"), ("statements current", "current"), ("statements initial", "initial")):
            for line in sections.blocks.get(key, []):
                out.append(Statement(line.text.strip(), mode, line.number))  # type: ignore[arg-type]
        return out


def parse_scn_text(text: str, path: str | None = None) -> Scenario:
    """Parse and validate a scenario written in elot's ``.scn`` format."""
    return _ScnReader(text, path).build()


def load_scn(path: str | Path) -> Scenario:
    """Read and validate a ``.scn`` file."""
    p = Path(path)
    if not p.is_file():
        raise ScenarioError(f"scenario file not found: {p}", path=str(p), hint="check the path")
    return parse_scn_text(read_text(p, "scenario"), str(p))


def format_scn(scenario: Scenario, groups: Sequence[tuple[int, int, str]] | None = None) -> str:
    """A ``.scn`` text for ``scenario`` that :func:`parse_scn_text` reads back to an equal
    layout, initial state, actions, judgment points, statements and goal — provided the
    objects are named in reading order as the format names them.

    ``groups`` — ``(start, end, comment)`` covering the actions in order — writes the
    actions one line per group under a ``# comment`` line, repeated actions as ``xN``
    (e.g. one group per subgoal); without it they are written on one line."""
    layout, state = scenario.layout, scenario.initial
    reverse = {(kind, colour): char for char, (kind, colour) in DEFAULT_LEGEND.items()}
    extra: dict[tuple[str, str | None], str] = {}
    spare = iter("123456789@$%&*+=")

    def char_for(kind: str, colour: str | None = None) -> str:
        if (kind, colour) in reverse:
            return reverse[(kind, colour)]
        if (kind, colour) not in extra:
            extra[(kind, colour)] = next(spare)
        return extra[(kind, colour)]

    grid = [["." for _ in range(layout.width)] for _ in range(layout.height)]

    def put(pos: Pos, char: str) -> None:
        grid[pos[1] - 1][pos[0] - 1] = char

    for pos in layout.walls:
        put(pos, "W")
    for gem, pos in layout.gems:
        put(pos, "G" if gem == scenario.true_goal else "g")
    for _, pos, colour in layout.doors:
        put(pos, char_for("door", colour))
    for box, pos in layout.boxes:
        inside = state.box_contents(box)
        put(pos, char_for("box", state.key(inside[0]).colour if inside else None))
    for key, ks in state.keys:
        if ks.where[0] == "cell":
            put(ks.where[1], char_for("key", ks.colour))
    put(state.agent_pos, "h")
    out = [f"name: {scenario.name}"]
    if scenario.description:
        out.append(f"description: {scenario.description}")
    if layout.agent != "human":
        out.append(f"agent: {layout.agent}")
    out.append(f"colours: {', '.join(layout.colours)}")
    out += ["", "map:"] + ["  " + "".join(row) for row in grid]
    if extra:
        out += ["", "legend:"] + [f"  {c} = {k}{' ' + col if col else ''}" for (k, col), c in extra.items()]
    out += ["", "actions:"]
    marks = set(scenario.judgments)
    if groups is not None:
        out += _grouped_actions(scenario.actions, marks, groups)
        groups_done = True
    else:
        groups_done = False
    chunk: list[str] = []
    for t, action in enumerate(scenario.actions):
        if t in marks:
            chunk.append("|")
        chunk.append(fmt_action(action))
    if len(scenario.actions) in marks:
        chunk.append("|")
    line = ", ".join(chunk).replace(", |, ", " | ").replace("|, ", "| ").replace(", |", " |")
    if not groups_done:
        out.append("  " + line if chunk else "")
    for mode in ("current", "initial"):
        statements = scenario.statements_for(mode)  # type: ignore[arg-type]
        if statements:
            out += ["", f"statements {mode}:"] + ["  " + s.text for s in statements]
    return "\n".join(out) + "\n"


def _grouped_actions(actions: Sequence[Action], marks: set[int], groups: Sequence[tuple[int, int, str]]) -> list[str]:
    """The lines of an ``actions:`` section, one per group: a judgment point at t goes
    before action t (at the end of the line when it closes a group)."""
    ends = [0] + [end for _, end, _ in groups]
    if [start for start, _, _ in groups] != ends[:-1] or ends[-1] != len(actions):
        raise ValueError("groups must cover the actions in order")
    lines: list[str] = []
    for start, end, comment in groups:
        words: list[str] = ["|"] if start == 0 and 0 in marks else []
        t = start
        while t < end:
            run = 1
            while t + run < end and actions[t + run] == actions[t] and t + run not in marks:
                run += 1
            words.append(fmt_action(actions[t]) + (f" x{run}" if run > 1 else ""))
            t += run
            if t in marks:
                words.append("|")
        text = ""
        for word in words:
            text += (" |" if text else "|") if word == "|" else (word if not text else
                                                                   (" " if text.endswith("|") else ", ") + word)
        if comment:
            lines.append(f"  # {comment}")
        lines.append("  " + text)
    return lines


# -- examples and auto-detection -------------------------------------------------------

DEFAULT_EXAMPLE = "default"


def _examples_dir():
    return resources.files("elot.scenarios")


def list_examples() -> tuple[str, ...]:
    """Names of the built-in example scenarios (``elot/scenarios/*.scn``), sorted."""
    return tuple(sorted(p.name[:-4] for p in _examples_dir().iterdir() if p.name.endswith(".scn")))


def load_example(name: str) -> Scenario:
    """The built-in example scenario ``name`` (see :func:`list_examples`)."""
    stem = name[:-4] if name.endswith(".scn") else name
    resource = _examples_dir().joinpath(f"{stem}.scn")
    if not resource.is_file():
        raise ScenarioError(
            f"no example scenario named {name!r}",
            hint=f"examples: {', '.join(list_examples())}",
        )
    return parse_scn_text(resource.read_text(encoding="utf-8"), f"examples/{stem}.scn")


def default_example() -> Scenario:
    """The scenario ``elot run`` and the REPL open by default."""
    return load_example(DEFAULT_EXAMPLE)


_PLAN_ID = re.compile(r"^(?:(?P<exp>exp\w+)[/:])?(?P<id>[A-Za-z0-9]+_[A-Za-z0-9]+|demo)$")


def load_scenario(
    spec: str | Path,
    plan: str | Path | None = None,
    *,
    exp: str = "exp2_current",
    root: str | Path | None = None,
) -> Scenario:
    """Load a scenario, telling apart what ``spec`` names:

    * a ``.scn`` file;
    * a dataset problem ``.pddl`` (with ``plan``, a plan file or a plan id of ``exp``);
    * a dataset plan ``.pddl`` (its problem is found in ``../../problems``);
    * a built-in example name (``default``, ...);
    * a dataset plan id (``1_1``, ``exp2_initial/1_1``), found under :func:`dataset_root`.
    """
    text = str(spec)
    path = Path(spec)
    if path.suffix == ".scn":
        return load_scn(path)
    if path.suffix == ".pddl":
        if not path.is_file():
            raise ScenarioError(f"file not found: {path}", path=str(path), hint="check the path")
        source = read_text(path, "PDDL")
        if "(define" in source.lower():
            return _load_problem(path, plan, exp)
        # no define: it must be a plan, and should read as one before its problem is sought
        try:
            read = pddl.parse_plan_text(source, str(path))
        except ScenarioError as error:
            error.notes = (*error.notes, "this .pddl file has no `(define`, so it was read as a plan")
            raise
        if not read.actions:
            raise ScenarioError(
                f"{path} is neither a PDDL problem (it has no `(define ...)`) nor a plan (it has no actions)",
                path=str(path), hint="a problem holds (define (problem NAME) ...); a plan one (action agent args) per line",
            )
        base = path.resolve().parent.parent.parent
        return _load_problem(base / "problems" / f"{path.stem}.pddl", path, path.parent.name)
    if path.is_file():
        raise ScenarioError(
            f"cannot tell what kind of scenario {path} is", path=str(path), hint="use a .scn or a dataset .pddl file"
        )
    if text in list_examples():
        return load_example(text)
    match = _PLAN_ID.match(text)
    if match:
        return load_dataset_plan(root, match["id"], match["exp"] or exp)
    raise ScenarioError(
        f"no scenario file, example or dataset plan named {text!r}",
        hint=f"give a .scn or .pddl path, an example ({', '.join(list_examples())}) or a plan id such as 1_1",
    )


def _load_problem(problem: Path, plan: str | Path | None, exp: str) -> Scenario:
    if plan is None:
        return load_dataset_scenario(problem)
    plan_path = Path(plan)
    base = problem.resolve().parent.parent
    if plan_path.suffix != ".pddl" and not plan_path.is_file():
        plan_path = base / "plans" / exp / f"{plan}.pddl"
    statements = []
    for mode in ("current", "initial"):
        spath = base / "statements" / f"exp2_{mode}" / f"{plan_path.stem}.txt"
        if spath.is_file() and plan_path.stem == problem.stem:
            statements.append((spath, mode))
    return load_dataset_scenario(problem, plan_path, statements)
