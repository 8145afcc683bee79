"""Reading elot's ``.scn`` scenario format (see ``docs/scenarios.md``).

:func:`parse_scn_text` and :func:`load_scn` read and check a scenario, one step of
:class:`_ScnReader` per part of the file (sections, legend, map, colours, objects, agent,
world, goal, actions, judgment points, statements). :data:`DEFAULT_LEGEND` is the map
characters both the reader and :func:`elot.domains.doors_keys_gems.scn_write.format_scn` know.

Every error is a :class:`~elot.errors.ScenarioError` naming the file, the line and column
and a hint: the map must be rectangular with one agent and only known characters, every
gem reachable when all doors are open, every action possible when it is taken, every
judgment point within the plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from elot.domains.doors_keys_gems import pddl
from elot.domains.doors_keys_gems.scenario import Scenario, Statement, check_gems_reachable, check_judgments, replay
from elot.domains.doors_keys_gems.world import (
    ARITY,
    BOX_GLYPHS,
    DOOR_GLYPHS,
    KEY_GLYPHS,
    Action,
    KeyState,
    Layout,
    Pos,
    WorldState,
)
from elot.errors import LineIndex, ScenarioError, Span, read_text


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


#: A map cell as read: its position, its character, its line and its column there.
_Cell = tuple[Pos, str, _Line, int]
#: Map characters and what they stand for: (kind, colour, the legend line declaring it).
_Legend = dict[str, tuple[str, str | None, _Line | None]]


@dataclass
class _Objects:
    """What a map's characters place, objects named in reading order."""

    walls: set[Pos] = field(default_factory=set)
    gems: list[tuple[str, Pos]] = field(default_factory=list)
    doors: list[tuple[str, Pos, str]] = field(default_factory=list)
    boxes: list[tuple[str, Pos]] = field(default_factory=list)
    visible_keys: list[tuple[Pos, str]] = field(default_factory=list)
    hidden_keys: list[tuple[Pos, str, str]] = field(default_factory=list)  # (pos, box, colour)
    agents: list[tuple[Pos, _Line, int]] = field(default_factory=list)
    goal_cells: list[tuple[str, _Line, int]] = field(default_factory=list)
    gem_cells: dict[str, tuple[_Line, int]] = field(default_factory=dict)


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

    # -- the legend --

    def legend(self, sections: _Sections) -> _Legend:
        legend: _Legend = {c: (k, col, None) for c, (k, col) in DEFAULT_LEGEND.items()}
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

    # -- the whole scenario --

    def build(self) -> Scenario:
        """The scenario, each part read and checked in turn (the order decides which error a
        file with several gets)."""
        sections = self.sections()
        headers = sections.headers
        name = headers.get("name", ("", None))[0] or (Path(self.path).stem if self.path else "scenario")
        description = headers.get("description", ("", None))[0]
        rows = self.map_rows(sections)
        legend = self.legend(sections)
        declared = self.declared_colours(headers)
        cells, width = self.grid(rows, legend)
        colours = self.colours(cells, legend, declared)
        objects = self.objects(cells, legend)
        start = self.start(objects, rows[0])
        agent = self.agent(headers, objects, colours)
        layout, initial = self.world(width, len(rows), agent, start, objects, colours)

        def gem_fail(message: str, gem: str, hint: str) -> ScenarioError:
            line, col = objects.gem_cells[gem]
            return self.fail(message, line, col, 1, hint=hint)

        check_gems_reachable(layout, start, gem_fail)
        true_goal = self.goal(headers, objects.goal_cells, layout)
        actions, spans, markers = self.actions(sections)
        replay(initial, actions, spans, path=self.path, source=self.text)
        judgments = self.judgments(sections, markers, len(actions))
        return Scenario(
            name=name,
            layout=layout,
            initial=initial,
            actions=tuple(actions),
            judgments=judgments,
            statements=tuple(self.statements(sections)),
            true_goal=true_goal,
            path=self.path,
            description=description,
            markers=judgments,
            action_lines=tuple(s.line if s is not None else None for s in spans),
        )

    # -- the map --

    def map_rows(self, sections: _Sections) -> list[_Line]:
        """The lines of the ``map:`` section (at least one)."""
        if "map" not in sections.blocks or not sections.blocks["map"]:
            first = self.text.splitlines()[0] if self.text.strip() else ""
            raise self.fail(
                "no map",
                sections.block_lines.get("map") or _Line(1, 0, first),
                hint="add a `map:` section with one line per row of the grid",
            )
        return sections.blocks["map"]

    def declared_colours(self, headers) -> tuple[str, ...] | None:
        """The colours of a ``colours:`` line, if there is one."""
        if "colours" not in headers:
            return None
        value, line = headers["colours"]
        declared = tuple(c.lower() for c in re.split(r"[,\s]+", value) if c)
        for c in declared:
            if not _IDENT.match(c):
                raise self.fail(f"bad colour name {c!r}", line, hint="colours are lower-case names: `colours: red, blue`")
        return declared

    def grid(self, rows: list[_Line], legend: _Legend) -> tuple[list[_Cell], int]:
        """Every cell of a rectangular map of known characters, and the map's width."""
        cells: list[_Cell] = []
        width = None
        side = pddl.MAX_GRID_SIDE  # the limit of a PDDL problem's grid
        for y, line in enumerate(rows, start=1):
            text = line.text.split("#", 1)[0].rstrip() if "#" in line.text else line.text.rstrip()
            col0 = len(text) - len(text.lstrip())
            row = text.strip()
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
                    hint=f"every row must have the same length (row 1 is line {rows[0].number}); write walls `W` or floor `.` to pad",
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
        assert width is not None
        return cells, width

    def colours(self, cells: list[_Cell], legend: _Legend, declared: tuple[str, ...] | None) -> tuple[str, ...]:
        """The declared colours (every colour on the map must be one of them), else the
        map's colours in :data:`PALETTE` order, then the others in order of first use."""
        used: list[str] = []
        for _, char, line, col in cells:
            kind, colour, _ = legend[char]
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
            if colour not in used:
                used.append(colour)
        if declared is not None:
            return declared
        return tuple(c for c in PALETTE if c in used) + tuple(c for c in used if c not in PALETTE)

    # -- objects --

    def objects(self, cells: list[_Cell], legend: _Legend) -> _Objects:
        """The walls, gems, doors, boxes, keys and agents the cells place."""
        out = _Objects()
        for pos, char, line, col in cells:
            kind, colour, _ = legend[char]
            if kind == "wall":
                out.walls.add(pos)
            elif kind == "agent":
                out.agents.append((pos, line, col))
            elif kind in ("gem", "goal"):
                gem = f"gem{len(out.gems) + 1}"
                out.gems.append((gem, pos))
                out.gem_cells[gem] = (line, col)
                if kind == "goal":
                    out.goal_cells.append((gem, line, col))
            elif kind == "door":
                out.doors.append((f"door{len(out.doors) + 1}", pos, colour))
            elif kind == "box":
                box = f"box{len(out.boxes) + 1}"
                out.boxes.append((box, pos))
                if colour is not None:
                    out.hidden_keys.append((pos, box, colour))
            elif kind == "key":
                out.visible_keys.append((pos, colour))
        return out

    def start(self, objects: _Objects, first_row: _Line) -> Pos:
        """The agent's cell: the map has exactly one."""
        if not objects.agents:
            raise self.fail("the map has no agent", first_row, hint="put an `h` on the agent's starting cell")
        if len(objects.agents) > 1:
            _, line, col = objects.agents[1]
            raise self.fail(
                f"the map has {len(objects.agents)} agents", line, col, 1, hint="a scenario has one agent: keep a single `h`"
            )
        return objects.agents[0][0]

    def agent(self, headers, objects: _Objects, colours: tuple[str, ...]) -> str:
        """The agent's name: ``human``, or an ``agent:`` line's ELoT name that no object has."""
        agent = headers.get("agent", ("human", None))[0] or "human"
        if "agent" in headers:
            taken = {n for n, _ in objects.gems} | {n for n, _, _ in objects.doors} | {n for n, _ in objects.boxes} | set(colours)
            value, line = headers["agent"]
            col = line.text.index(value) if value and value in line.text else 0
            if not _IDENT.match(agent):
                raise self.fail(f"agent name {agent!r} is not an ELoT name", line, col, max(1, len(value)),
                                hint="use lowercase letters, digits and '_', starting with a letter: `agent: player`")
            if agent in taken or re.fullmatch(r"key\d+", agent):
                raise self.fail(f"agent name {agent!r} is already the name of an object of the map", line, col,
                                len(value), hint="name the agent something else: `agent: player`")
        return agent

    # -- the hidden state --

    def world(self, width: int, height: int, agent: str, start: Pos, objects: _Objects,
              colours: tuple[str, ...]) -> tuple[Layout, WorldState]:
        """The layout and the true initial state: every door locked, every box closed.

        Keys are named in reading order, visible and hidden ones alike, then come spare keys
        off the grid so that hypotheses with up to two hidden keys have key objects to use.
        """
        placed = sorted([(p[1], p[0], ("cell", p), c) for p, c in objects.visible_keys]
                        + [(p[1], p[0], ("box", b), c) for p, b, c in objects.hidden_keys])
        total = len(objects.visible_keys) + max(len(objects.hidden_keys), 2)
        key_states = [(f"key{i}", KeyState(c, where)) for i, (_, _, where, c) in enumerate(placed, start=1)]
        key_states += [(f"key{i}", KeyState(None, ("offgrid",))) for i in range(len(placed) + 1, total + 1)]
        layout = Layout(
            width=width,
            height=height,
            walls=frozenset(objects.walls),
            agent=agent,
            gems=tuple(objects.gems),
            doors=tuple(objects.doors),
            boxes=tuple(objects.boxes),
            keys=tuple(k for k, _ in key_states),
            colours=colours,
        )
        initial = WorldState(
            layout=layout,
            agent_pos=start,
            keys=tuple(sorted(key_states)),
            locked=frozenset(d for d, _, _ in objects.doors),
            closed=frozenset(b for b, _ in objects.boxes),
            held_gems=frozenset(),
        )
        return layout, initial

    # -- the goal --

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

    # -- judgment points --

    def judgments(self, sections: _Sections, markers: list[int], T: int) -> tuple[int, ...]:
        """The judgment points: the action list's markers and a ``judge:`` line's times."""
        headers = sections.headers
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

        return check_judgments(judgments, T, judge_fail)

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
