"""PDDL input: an s-expression reader with positions, and the three file kinds elot reads.

* :func:`read_domain` — a domain file: its name, type hierarchy, predicates, derived
  predicates, functions and action names (the action bodies are not interpreted: the
  Doors-Keys-Gems rules live in :mod:`elot.btom.world`).
* :func:`read_problem` — a problem file: objects with their types (in file order), the
  initial atoms, the numeric fluents (``xloc``/``yloc``), the walls bit-matrix and the goal.
* :func:`read_plan` — a plan file of the LaBToM dataset: one action per line, and lines
  starting with ``;`` marking judgment points.
* :func:`world_from_problem` — the gridworld (:class:`~elot.btom.world.Layout` and initial
  :class:`~elot.btom.world.WorldState`) a problem describes.

Every error is a :class:`~elot.errors.ScenarioError` located at ``file:line:col``. Each
``read_*`` function has a ``parse_*_text`` twin that reads a string instead of a file.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Union

from elot.btom.world import KeyState, Layout, Pos, WorldState, fmt_pos
from elot.errors import LineIndex, ScenarioError, Span, read_text
from elot.lang.signature import Signature

# -- s-expressions ---------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    """An atom of an s-expression (a name, a number, ``?var``, ``-``), with its span."""

    text: str
    span: Span


@dataclass(frozen=True)
class SList:
    """A parenthesised list of s-expressions, with the span from ``(`` to ``)``."""

    items: tuple["SExpr", ...]
    span: Span

    def head(self) -> str | None:
        """The (lower-cased) text of the first item when it is a symbol, else None."""
        if self.items and isinstance(self.items[0], Sym):
            return self.items[0].text.lower()
        return None


SExpr = Union[Sym, SList]


def to_data(expr: SExpr) -> str | tuple:
    """An s-expression as plain data: symbols become strings, lists nested tuples."""
    if isinstance(expr, Sym):
        return expr.text
    return tuple(to_data(item) for item in expr.items)


#: Deepest nesting of parentheses accepted (the stages after reading are recursive).
MAX_NESTING = 200

#: Largest grid side accepted: the dataset's maps are at most about 20 cells wide.
MAX_GRID_SIDE = 256
#: The longest plan elot reads (PDDL or .scn): the dataset's are under 100 actions.
MAX_ACTIONS = 100_000


class _Reader:
    """One pass over a text: tokens with line/column, ``;`` comments skipped."""

    def __init__(self, text: str, path: str | None) -> None:
        self.text = text
        self.path = path
        self.lines = _line_index(text)

    def error(self, message: str, start: int, end: int | None = None, hint: str | None = None) -> ScenarioError:
        return ScenarioError(message, span=self.lines.span(start, end), source=self.text, path=self.path, hint=hint)

    def read(self, begin: int = 0, end: int | None = None) -> tuple[SExpr, ...]:
        """The s-expressions of ``text[begin:end]`` (spans stay relative to the whole text)."""
        text = self.text
        stack: list[tuple[int, list[SExpr]]] = []
        top: list[SExpr] = []
        i, n = begin, len(text) if end is None else end
        while i < n:
            c = text[i]
            if c.isspace():
                i += 1
            elif c == ";":
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif c == "(":
                stack.append((i, []))
                if len(stack) > MAX_NESTING:
                    raise self.error(f"nesting too deep (more than {MAX_NESTING} levels)", i, i + 1,
                                     hint="PDDL files of the dataset nest about 6 levels; check the parentheses")
                i += 1
            elif c == ")":
                if not stack:
                    raise self.error("unbalanced ')': nothing to close", i, i + 1, hint="remove this parenthesis")
                start, items = stack.pop()
                node = SList(tuple(items), self.lines.span(start, i + 1))
                (stack[-1][1] if stack else top).append(node)
                i += 1
            else:
                j = i
                while j < n and not text[j].isspace() and text[j] not in "();":
                    j += 1
                node = Sym(text[i:j], self.lines.span(i, j))
                (stack[-1][1] if stack else top).append(node)
                i = j
        if stack:
            start = stack[-1][0]
            error = self.error(
                f"unbalanced '(': {len(stack)} parenthes{'is' if len(stack) == 1 else 'es'} never closed",
                start,
                start + 1,
                hint="add the missing ')' (this is the innermost '(' left open)",
            )
            suspect = _suspect_line(text[begin:n], text.count("\n", 0, begin))
            if suspect is not None:
                error.notes = (f"line {suspect} opens more parentheses than it closes, and the next line is not nested in it",)
            raise error
        return tuple(top)


def _suspect_line(text: str, first: int) -> int | None:
    """The first line (1-based, counted from ``first`` + 1) that leaves a list open while
    the next non-blank line is indented no deeper: in indented PDDL, the likely place of
    a missing ')'."""
    lines = [l.split(";", 1)[0] for l in text.splitlines()]
    for i, line in enumerate(lines):
        if line.count("(") <= line.count(")") or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        nxt = next((l for l in lines[i + 1 :] if l.strip()), None)
        if nxt is None or len(nxt) - len(nxt.lstrip()) <= indent:
            return first + i + 1
    return None


def line_span(source: str | None, line: int | None) -> Span | None:
    """The span of the text of line ``line`` (1-based) of ``source``, without its
    indentation; None when either is unknown or the line does not exist."""
    if source is None or line is None:
        return None
    index = _line_index(source)
    found = index.line(line)
    if found is None or (line == len(index.starts) and found[0] == found[1] and line > 1):
        return None  # (a final newline does not start another line)
    offset, end = found
    text = source[offset:end].rstrip("\r")
    indent = len(text) - len(text.lstrip())
    return index.span(offset + indent, offset + len(text))


@lru_cache(maxsize=8)
def _line_index(source: str) -> LineIndex:
    # A plan's steps each ask for their line's span: one index per text keeps that
    # linear (re-splitting the text per step was quadratic).
    return LineIndex(source)


def parse_sexprs(text: str, path: str | None = None) -> tuple[SExpr, ...]:
    """All top-level s-expressions of ``text`` (``;`` starts a comment to end of line)."""
    return _Reader(text, path).read()


class _Ctx:
    """Error construction for one parsed text."""

    def __init__(self, text: str, path: str | None) -> None:
        self.text, self.path = text, path

    def error(self, message: str, node: SExpr | None = None, hint: str | None = None) -> ScenarioError:
        return ScenarioError(
            message, span=node.span if node is not None else None, source=self.text, path=self.path, hint=hint
        )

    def define(self, kind: str) -> tuple[str, SList]:
        """The single ``(define (kind NAME) ...)`` form and its name."""
        forms = parse_sexprs(self.text, self.path)
        if len(forms) != 1 or not isinstance(forms[0], SList) or forms[0].head() != "define":
            where = forms[1] if len(forms) > 1 else (forms[0] if forms else None)
            raise self.error(
                f"expected one (define ({kind} NAME) ...) form", where, hint=f"a PDDL {kind} file holds one define"
            )
        form = forms[0]
        if len(form.items) < 2 or not isinstance(form.items[1], SList) or form.items[1].head() != kind:
            raise self.error(f"expected ({kind} NAME) after define", form.items[1] if len(form.items) > 1 else form)
        header = form.items[1]
        if len(header.items) != 2 or not isinstance(header.items[1], Sym):
            raise self.error(f"expected ({kind} NAME)", header)
        return header.items[1].text, form

    def sym(self, node: SExpr, what: str) -> str:
        if not isinstance(node, Sym):
            raise self.error(f"expected {what}, found a list", node)
        return node.text

    def typed_list(self, items: tuple[SExpr, ...], default: str = "object") -> list[tuple[str, str, Sym]]:
        """``a b - t c - u d`` → [(a, t), (b, t), (c, u), (d, default)], in order."""
        out: list[tuple[str, str, Sym]] = []
        pending: list[Sym] = []
        i = 0
        while i < len(items):
            node = items[i]
            if isinstance(node, Sym) and node.text == "-":
                if i + 1 >= len(items) or not pending:
                    raise self.error("'-' must sit between names and their type", node, hint="write `a b - type`")
                kind = self.sym(items[i + 1], "a type name")
                out += [(p.text, kind, p) for p in pending]
                pending = []
                i += 2
                continue
            pending.append(node if isinstance(node, Sym) else Sym(self.sym(node, "a name"), node.span))
            i += 1
        out += [(p.text, default, p) for p in pending]
        return out


# -- domain ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """A PDDL domain: ``types`` maps each type to its parent; ``predicates`` each
    predicate to its argument types; ``derived`` names the derived predicates."""

    name: str
    types: dict[str, str]
    predicates: dict[str, tuple[str, ...]]
    derived: frozenset[str] = frozenset()
    functions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    actions: tuple[str, ...] = ()
    path: str | None = None


def parse_domain_text(text: str, path: str | None = None) -> Domain:
    """Parse the text of a PDDL domain file."""
    ctx = _Ctx(text, path)
    name, form = ctx.define("domain")
    types: dict[str, str] = {}
    predicates: dict[str, tuple[str, ...]] = {}
    functions: dict[str, tuple[str, ...]] = {}
    derived: set[str] = set()
    actions: list[str] = []
    for section in form.items[2:]:
        if not isinstance(section, SList) or not section.head():
            raise ctx.error("expected a (:section ...) form", section)
        head = section.head()
        body = section.items[1:]
        if head == ":types":
            for child, parent, _ in ctx.typed_list(body):
                types[child] = parent
        elif head == ":predicates":
            for pred in body:
                if not isinstance(pred, SList) or not pred.head():
                    raise ctx.error("expected (name ?arg - type ...)", pred)
                predicates[pred.items[0].text] = tuple(t for _, t, _ in ctx.typed_list(pred.items[1:]))
        elif head == ":functions":
            for item in body:
                if isinstance(item, SList) and item.head():
                    functions[item.items[0].text] = tuple(t for _, t, _ in ctx.typed_list(item.items[1:]))
        elif head == ":derived":
            if not body or not isinstance(body[0], SList) or not body[0].head():
                raise ctx.error("expected (:derived (name ?args) formula)", section)
            derived.add(body[0].items[0].text)
        elif head == ":action":
            actions.append(ctx.sym(body[0], "an action name") if body else "")
        # :requirements, :constants and unknown sections carry nothing elot needs.
    for name_ in derived:
        predicates.setdefault(name_, ())
    return Domain(name, types, predicates, frozenset(derived), functions, tuple(actions), path)


def read_domain(path: str | Path) -> Domain:
    """Read a PDDL domain file (errors name ``file:line:col``)."""
    return parse_domain_text(read_text(path, "PDDL domain"), str(path))


# -- problem ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A PDDL problem.

    ``objects`` maps names to types in file order; ``init`` holds the initial ground atoms
    as tuples of strings (``("locked", "door1")``); ``fluents`` the numeric fluents
    (``("xloc", "gem1") → 3``); ``walls`` the true cells of the ``walls`` bit-matrix as
    (row, col), 1-based, and ``grid`` its size (rows, cols); ``goal`` the goal as plain
    data (see :func:`to_data`). ``lines`` gives the source line of each object's
    position, atom and fluent where known (for error messages).
    """

    name: str
    domain: str
    objects: dict[str, str]
    init: tuple[tuple[str, ...], ...]
    fluents: dict[tuple[str, ...], int]
    walls: frozenset[tuple[int, int]]
    grid: tuple[int, int] | None
    goal: str | tuple
    path: str | None = None
    source: str | None = None
    lines: dict[tuple[str, ...], int] = field(default_factory=dict)

    def objects_of(self, kind: str) -> tuple[str, ...]:
        """Names of the objects declared with type ``kind``, in file order."""
        return tuple(n for n, t in self.objects.items() if t == kind)


def _int(ctx: _Ctx, node: SExpr) -> int:
    text = ctx.sym(node, "an integer")
    try:
        value = int(text) if len(text) <= 18 else None  # int() of a huge one is slow
    except ValueError:
        raise ctx.error(f"expected an integer, found {text!r}", node) from None
    if value is None:
        raise ctx.error(f"number too large: {text[:30]}{'...' if len(text) > 30 else ''}", node,
                        hint="coordinates and sizes are small whole numbers")
    return value


def parse_problem_text(text: str, path: str | None = None) -> Problem:
    """Parse the text of a PDDL problem file."""
    ctx = _Ctx(text, path)
    name, form = ctx.define("problem")
    domain = ""
    objects: dict[str, str] = {}
    init: list[tuple[str, ...]] = []
    fluents: dict[tuple[str, ...], int] = {}
    lines: dict[tuple[str, ...], int] = {}
    walls: set[tuple[int, int]] = set()
    grid: tuple[int, int] | None = None
    goal: str | tuple = "true"
    for section in form.items[2:]:
        if not isinstance(section, SList) or not section.head():
            raise ctx.error("expected a (:section ...) form", section)
        head, body = section.head(), section.items[1:]
        if head == ":domain":
            domain = ctx.sym(body[0], "a domain name") if body else ""
        elif head == ":objects":
            for obj, kind, node in ctx.typed_list(body):
                if obj in objects:
                    raise ctx.error(f"object {obj!r} declared twice", node, hint="object names must be unique")
                objects[obj] = kind
        elif head == ":init":
            for fact in body:
                if not isinstance(fact, SList) or not fact.items:
                    raise ctx.error("expected an atom (pred args...) or (= (fluent args) value)", fact)
                if fact.head() == "=":
                    if len(fact.items) != 3:
                        raise ctx.error("expected (= (fluent args) value)", fact)
                    lhs, rhs = fact.items[1], fact.items[2]
                    target = to_data(lhs)
                    if target == ("walls",):
                        grid = _walls_assignment(ctx, rhs, walls, grid)
                        continue
                    if not isinstance(target, tuple) or not all(isinstance(t, str) for t in target):
                        raise ctx.error("expected a fluent (name args...)", lhs)
                    for arg_node in lhs.items[1:]:
                        if isinstance(arg_node, Sym) and arg_node.text not in objects:
                            raise ctx.error(f"unknown object {arg_node.text!r} in fluent {target}", arg_node,
                                            hint="declare it under :objects (before :init)")
                    if target in fluents:
                        raise ctx.error(f"({' '.join(target)}) is set twice (first at line {lines[target]})", fact,
                                        hint="give each position once")
                    fluents[target] = _int(ctx, rhs)
                    lines[target] = fact.span.line
                else:
                    atom = to_data(fact)
                    if not all(isinstance(t, str) for t in atom):
                        raise ctx.error("expected a ground atom (pred arg ...)", fact)
                    for arg_node in fact.items[1:]:
                        if isinstance(arg_node, Sym) and arg_node.text not in objects:
                            raise ctx.error(
                                f"unknown object {arg_node.text!r} in atom {atom}",
                                arg_node,
                                hint="declare it under :objects (before :init)",
                            )
                    init.append(atom)
                    lines[atom] = fact.span.line
        elif head == ":goal":
            if len(body) != 1:
                raise ctx.error("expected (:goal formula)", section)
            goal = to_data(body[0])
    return Problem(name, domain, objects, tuple(init), fluents, frozenset(walls), grid, goal, path, text, lines)


def _walls_assignment(ctx: _Ctx, rhs: SExpr, walls: set, grid: tuple[int, int] | None) -> tuple[int, int] | None:
    """Apply ``(new-bit-matrix false R C)`` or ``(set-index walls true R C)``."""
    if not isinstance(rhs, SList) or not rhs.head():
        raise ctx.error("expected (new-bit-matrix false ROWS COLS) or (set-index walls BOOL ROW COL)", rhs)
    head = rhs.head()
    if head == "new-bit-matrix" and len(rhs.items) == 4:
        rows, cols = _int(ctx, rhs.items[2]), _int(ctx, rhs.items[3])
        for size, node in ((rows, rhs.items[2]), (cols, rhs.items[3])):
            if not 1 <= size <= MAX_GRID_SIDE:
                raise ctx.error(f"grid size {size} out of range (1 to {MAX_GRID_SIDE})", node,
                                hint="a map is at most a few dozen cells on a side")
        if ctx.sym(rhs.items[1], "false or true").lower() == "true":
            walls.update((r, c) for r in range(1, rows + 1) for c in range(1, cols + 1))
        return rows, cols
    if head == "set-index" and len(rhs.items) == 5:
        value = ctx.sym(rhs.items[2], "true or false").lower()
        cell = (_int(ctx, rhs.items[3]), _int(ctx, rhs.items[4]))
        if grid is not None and not (1 <= cell[0] <= grid[0] and 1 <= cell[1] <= grid[1]):
            raise ctx.error(f"wall {cell} outside the {grid[0]}x{grid[1]} grid", rhs)
        (walls.add if value == "true" else walls.discard)(cell)
        return grid
    raise ctx.error("expected (new-bit-matrix false ROWS COLS) or (set-index walls BOOL ROW COL)", rhs)


def read_problem(path: str | Path) -> Problem:
    """Read a PDDL problem file (errors name ``file:line:col``)."""
    return parse_problem_text(read_text(path, "PDDL problem"), str(path))


# -- plans -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """A plan: ``actions`` with the agent argument dropped (``("open", "box3")``), the
    1-based source ``lines`` of each, the ``judgments`` (the number of actions read when
    each ``;`` line occurs) and the ``agent`` named in the actions (None if no action)."""

    actions: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]
    judgments: tuple[int, ...]
    agent: str | None = None
    path: str | None = None
    source: str | None = None


def parse_plan_text(text: str, path: str | None = None) -> Plan:
    """Parse a plan: one ``(action agent args...)`` per line; a line starting with ``;``
    is a judgment point after the actions so far (an action may follow the ``;``)."""
    actions: list[tuple[str, ...]] = []
    lines: list[int] = []
    judgments: list[int] = []
    agent: str | None = None
    reader, ctx = _Reader(text, path), _Ctx(text, path)
    offset = 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        line_start = offset
        offset += len(raw)
        body = raw.strip()
        start = line_start + (len(raw) - len(raw.lstrip()))
        if body.startswith(";"):
            judgments.append(len(actions))
            rest = body[1:]
            start += 1 + (len(rest) - len(rest.lstrip()))
            body = rest.strip()
            if not body.startswith("("):
                continue  # a bare marker, possibly followed by a comment
        if not body:
            continue
        forms = reader.read(start, line_start + len(raw))
        if len(forms) != 1 or not isinstance(forms[0], SList) or len(forms[0].items) < 2:
            raise ScenarioError(
                "expected one action `(name agent args...)` on this line",
                span=Span.of(text, start, line_start + len(raw.rstrip())),
                source=text,
                path=path,
                hint="write e.g. `(right human)` or `(open human box1)`",
            )
        data = to_data(forms[0])
        if not all(isinstance(t, str) for t in data):
            raise ctx.error("action arguments must be names", forms[0], hint="write e.g. `(open human box1)`")
        name, who, *args = data
        if len(actions) >= MAX_ACTIONS:
            raise ScenarioError(f"too many actions: more than {MAX_ACTIONS:,} (at line {number})",
                                span=Span.of(text, start, line_start + len(raw.rstrip())), source=text, path=path,
                                hint="a plan is at most a few hundred actions; check the file")
        if agent is None:
            agent = who
        elif who != agent:
            raise ScenarioError(
                f"action by {who!r}, but earlier actions are by {agent!r}",
                span=Span.of(text, start, line_start + len(raw.rstrip())),
                source=text,
                path=path,
                hint="a plan has a single agent",
            )
        actions.append((name.lower(), *args))
        lines.append(number)
    return Plan(tuple(actions), tuple(lines), tuple(judgments), agent, path, text)


def read_plan(path: str | Path) -> Plan:
    """Read a plan file of the LaBToM dataset (errors name ``file:line:col``)."""
    return parse_plan_text(read_text(path, "plan"), str(path))


def signature_of(domain_path: str | Path | None, problem_path: str | Path) -> Signature:
    """The ELoT signature of a PDDL problem: its objects, with the predicates, types and
    derived predicates of its domain file (Doors, Keys & Gems when ``domain_path`` is
    None). The problem's agent object (``human`` in the dataset) gets the alias ``player``."""
    problem = read_problem(problem_path)
    if domain_path is None:
        return Signature.from_objects(dict(problem.objects))
    domain = read_domain(domain_path)
    return Signature.from_objects(
        dict(problem.objects),
        predicates=dict(domain.predicates),
        types={k: v for k, v in domain.types.items() if k != v},
        derived=domain.derived,
    )


# -- the world a problem describes ---------------------------------------------------------

#: The object types of the Doors, Keys & Gems domain.
OBJECT_TYPES = ("agent", "gem", "door", "box", "key", "color")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_INIT_EXAMPLE = {"inside": "(inside key1 box1)", "iscolor": "(iscolor key1 red)", "has": "(has human key1)",
                 "locked": "(locked door1)", "closed": "(closed box1)", "offgrid": "(offgrid key2)",
                 "hidden": "(hidden key1)", "empty": "(empty box2)"}
_INIT_ARITY = {name: example.count(" ") for name, example in _INIT_EXAMPLE.items()}


def world_from_problem(problem: Problem) -> tuple[Layout, WorldState]:
    """The layout and initial state described by a :class:`Problem`.

    Keys inside a box (``inside``) are placed there, keys with ``offgrid`` off the grid
    (held when ``has`` says so), other keys on their cell; keys without ``iscolor`` have
    no colour.
    """
    path, source = problem.path, problem.source

    def fail(message: str, hint: str | None = None, atom: tuple | None = None) -> ScenarioError:
        span = line_span(source, problem.lines.get(atom)) if atom is not None else None
        return ScenarioError(message, path=path, source=source, span=span, hint=hint)

    def declared(name: str, message: str, hint: str) -> ScenarioError:
        # the object's declaration under :objects (Problem keeps no line per object)
        start = source.find(":objects") if source else -1
        found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", source[start:]) if start >= 0 else None
        span = LineIndex(source).span(start + found.start(), start + found.end()) if found else None
        return ScenarioError(message, path=path, source=source, span=span, hint=hint)

    for name, kind in problem.objects.items():
        if kind not in OBJECT_TYPES:
            raise declared(name, f"object {name} has unknown type {kind!r}",
                           f"the types of this domain are {', '.join(OBJECT_TYPES)}")
        if not _NAME.match(name):
            hint = (f"an uppercase name is a variable in ELoT: write {name.lower()!r}" if name[:1].isupper()
                    else "use lowercase letters, digits and '_', starting with a letter")
            raise declared(name, f"object name {name!r} is not an ELoT name", hint)
    for atom in problem.init:
        arity = _INIT_ARITY.get(atom[0])
        if arity is None:
            close = difflib.get_close_matches(atom[0], _INIT_ARITY, n=1)
            raise fail(f"unknown predicate {atom[0]!r} in :init",
                       hint=(f"did you mean {close[0]!r}? " if close else "")
                       + f"the domain's predicates are {', '.join(sorted(_INIT_ARITY))}", atom=atom)
        if len(atom) - 1 != arity:
            raise fail(f"{atom[0]} takes {arity} argument{'s' if arity > 1 else ''}, got {len(atom) - 1}",
                       hint=f"write e.g. {_INIT_EXAMPLE[atom[0]]}", atom=atom)
    if not problem.objects_of("gem"):
        raise fail("the problem has no gems, so there is no goal to infer", hint="declare gems: `gem1 gem2 - gem`")
    agents = problem.objects_of("agent")
    if len(agents) != 1:
        raise fail(f"expected exactly one agent object, found {len(agents)}", hint="declare one object `- agent`")
    agent = agents[0]
    if problem.grid is None:
        raise fail("no grid size: missing (= (walls) (new-bit-matrix false ROWS COLS))")
    height, width = problem.grid
    atoms = set(problem.init)
    colour_of = {a[1]: a[2] for a in problem.init if a[0] == "iscolor" and len(a) == 3}

    def pos_of(name: str) -> Pos:
        try:
            pos = (problem.fluents[("xloc", name)], problem.fluents[("yloc", name)])
        except KeyError:
            raise fail(f"{name} has no position (xloc/yloc)", hint=f"add (= (xloc {name}) X) and (= (yloc {name}) Y)")
        if not (1 <= pos[0] <= width and 1 <= pos[1] <= height):
            raise fail(f"{name} at {fmt_pos(pos)} is outside the {width}x{height} grid", atom=("xloc", name))
        return pos

    walls = frozenset((c, r) for r, c in problem.walls)
    held_gems = frozenset(g for g in problem.objects_of("gem") if ("has", agent, g) in atoms)
    gems = tuple((g, pos_of(g)) for g in problem.objects_of("gem") if g not in held_gems)
    gems += tuple((g, (-1, -1)) for g in problem.objects_of("gem") if g in held_gems)
    doors = []
    for d in problem.objects_of("door"):
        if d not in colour_of:
            raise fail(f"door {d} has no colour", hint=f"add (iscolor {d} COLOUR)")
        doors.append((d, pos_of(d), colour_of[d]))
    boxes = tuple((b, pos_of(b)) for b in problem.objects_of("box"))
    box_names = {b for b, _ in boxes}
    keys: list[tuple[str, KeyState]] = []
    for k in problem.objects_of("key"):
        colour = colour_of.get(k)
        inside = [a[2] for a in problem.init if a[0] == "inside" and a[1] == k]
        if len(inside) > 1:
            raise fail(f"key {k} is inside both {inside[0]} and {inside[1]}",
                       hint="a key is inside one box at most: remove one of the atoms", atom=("inside", k, inside[1]))
        if ("has", agent, k) in atoms:
            where: tuple = ("held",)
        elif inside:
            if inside[0] not in box_names:
                raise fail(f"key {k} is inside {inside[0]}, which is not a box", atom=("inside", k, inside[0]))
            where = ("box", inside[0])
        elif ("offgrid", k) in atoms:
            where = ("offgrid",)
        else:
            where = ("cell", pos_of(k))
        if where[0] in ("cell", "box") and colour is None:
            raise fail(f"key {k} is on the map but has no colour", hint=f"add (iscolor {k} COLOUR)")
        keys.append((k, KeyState(colour, where)))
    for atom in sorted(a for a in atoms if a[0] == "empty"):   # derived in the domain: it must agree
        inside = [k for k, state in keys if state.where == ("box", atom[1])]
        if atom[1] not in box_names or inside:
            raise fail(f"{atom[1]} is not a box" if atom[1] not in box_names
                       else f"box {atom[1]} is said to be empty, but {inside[0]} is inside it",
                       hint="empty is derived from inside: remove the atom", atom=atom)
    layout = Layout(
        width=width,
        height=height,
        walls=walls,
        agent=agent,
        gems=gems,
        doors=tuple(doors),
        boxes=boxes,
        keys=tuple(problem.objects_of("key")),
        colours=problem.objects_of("color"),
    )
    if pos_of(agent) in walls:
        raise fail(f"the agent {agent} starts on a wall at {fmt_pos(pos_of(agent))}",
                   hint="move the agent (xloc/yloc) or remove the wall (set-index walls false ROW COL)",
                   atom=("xloc", agent))
    state = WorldState(
        layout=layout,
        agent_pos=pos_of(agent),
        keys=tuple(sorted(keys)),
        locked=frozenset(d for d, _, _ in doors if ("locked", d) in atoms),
        closed=frozenset(b for b, _ in boxes if ("closed", b) in atoms),
        held_gems=held_gems,
    )
    return layout, state
