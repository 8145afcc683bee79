"""PDDL input: the three file kinds elot reads, each from its s-expressions.

* :func:`read_domain` — a domain file: its name, type hierarchy, predicates, derived
  predicates, functions and action names (the action bodies are not interpreted: the
  Doors-Keys-Gems rules live in :mod:`elot.domains.doors_keys_gems.world`).
* :func:`read_problem` — a problem file: objects with their types (in file order), the
  initial atoms, the numeric fluents (``xloc``/``yloc``), the walls bit-matrix and the goal.
* :func:`read_plan` — a plan file of the LaBToM dataset: one action per line, and lines
  starting with ``;`` marking judgment points.
* :func:`signature_of` — the ELoT signature of a problem and its domain.

The s-expression syntax underneath is :mod:`elot.domains.sexpr`, whose ``Forms`` reads the
``define``, the sections and the typed lists as the PDDL.jl dialect's reader does; a domain's
names are that reader's first pass (:func:`elot.domains.pddl.read_dialect.declarations`). The
gridworld a problem describes is built by
:func:`elot.domains.doors_keys_gems.problem_world.world_from_problem`.

Every error is a :class:`~elot.errors.ScenarioError` located at ``file:line:col``. Each
``read_*`` function has a ``parse_*_text`` twin that reads a string instead of a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from elot.domains.pddl.read_dialect import declarations
from elot.domains.sexpr import Forms, Reader, SExpr, SList, Sym, to_data
from elot.errors import ScenarioError, Span, read_text
from elot.lang.signature import Signature

__all__ = ["MAX_ACTIONS", "MAX_GRID_SIDE", "Domain", "Plan", "Problem", "parse_domain_text", "parse_plan_text", "parse_problem_text", "read_domain", "read_plan", "read_problem", "signature_of"]

#: Largest grid side accepted: the dataset's maps are at most about 20 cells wide.
MAX_GRID_SIDE = 256
#: The longest plan elot reads (PDDL or .scn): the dataset's are under 100 actions.
MAX_ACTIONS = 100_000


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
    ctx = Forms(text, path)
    name, form = ctx.define("domain")
    sections = ctx.sections(form)
    _, types, _, predicates, functions = declarations(ctx, sections)
    derived: set[str] = set()
    actions: list[str] = []
    for head, section in sections:
        body = section.items[1:]
        if head == ":derived":
            if not body or not isinstance(body[0], SList) or not body[0].head():
                raise ctx.error("expected (:derived (name ?args) formula)", section)
            derived.add(body[0].items[0].text)
        elif head == ":action":
            actions.append(ctx.sym(body[0], "an action name") if body else "")
    predicates = dict(predicates)
    for name_ in derived:
        predicates.setdefault(name_, ())
    return Domain(name, dict(types), predicates, frozenset(derived), dict(functions), tuple(actions), path)


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


def _int(ctx: Forms, node: SExpr) -> int:
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
    ctx = Forms(text, path)
    name, form = ctx.define("problem")
    domain = ""
    objects: dict[str, str] = {}
    init: list[tuple[str, ...]] = []
    fluents: dict[tuple[str, ...], int] = {}
    lines: dict[tuple[str, ...], int] = {}
    walls: set[tuple[int, int]] = set()
    grid: tuple[int, int] | None = None
    goal: str | tuple = "true"
    for head, section in ctx.sections(form):
        body = section.items[1:]
        if head == ":domain":
            domain = ctx.sym(body[0], "a domain name") if body else ""
        elif head == ":objects":
            for obj, kind, node in ctx.typed(body):
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
                    _declared(ctx, lhs.items[1:], objects, f"fluent {target}")
                    if target in fluents:
                        raise ctx.error(f"({' '.join(target)}) is set twice (first at line {lines[target]})", fact,
                                        hint="give each position once")
                    fluents[target] = _int(ctx, rhs)
                    lines[target] = fact.span.line
                else:
                    atom = to_data(fact)
                    if not all(isinstance(t, str) for t in atom):
                        raise ctx.error("expected a ground atom (pred arg ...)", fact)
                    _declared(ctx, fact.items[1:], objects, f"atom {atom}")
                    init.append(atom)
                    lines[atom] = fact.span.line
        elif head == ":goal":
            if len(body) != 1:
                raise ctx.error("expected (:goal formula)", section)
            goal = to_data(body[0])
    return Problem(name, domain, objects, tuple(init), fluents, frozenset(walls), grid, goal, path, text, lines)


def _declared(ctx: Forms, args: tuple[SExpr, ...], objects: dict[str, str], fact: str) -> None:
    """Every name among the arguments of ``fact`` (an atom or a fluent under :init) is a declared object."""
    for node in args:
        if isinstance(node, Sym) and node.text not in objects:
            raise ctx.error(f"unknown object {node.text!r} in {fact}", node,
                            hint="declare it under :objects (before :init)")


def _walls_assignment(ctx: Forms, rhs: SExpr, walls: set, grid: tuple[int, int] | None) -> tuple[int, int] | None:
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
    reader, ctx = Reader(text, path), Forms(text, path)

    def fail(message: str, start: int, end: int, hint: str) -> ScenarioError:
        """An error about the line from ``start`` to ``end``."""
        return ScenarioError(message, span=Span.of(text, start, end), source=text, path=path, hint=hint)

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
        end = line_start + len(raw.rstrip())
        forms = reader.read(start, line_start + len(raw))
        if len(forms) != 1 or not isinstance(forms[0], SList) or len(forms[0].items) < 2:
            raise fail("expected one action `(name agent args...)` on this line", start, end,
                       "write e.g. `(right human)` or `(open human box1)`")
        data = to_data(forms[0])
        if not all(isinstance(t, str) for t in data):
            raise ctx.error("action arguments must be names", forms[0], hint="write e.g. `(open human box1)`")
        name, who, *args = data
        if len(actions) >= MAX_ACTIONS:
            raise fail(f"too many actions: more than {MAX_ACTIONS:,} (at line {number})", start, end,
                       "a plan is at most a few hundred actions; check the file")
        if agent is None:
            agent = who
        elif who != agent:
            raise fail(f"action by {who!r}, but earlier actions are by {agent!r}", start, end,
                       "a plan has a single agent")
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
        signature = Signature.from_objects(dict(problem.objects))
    else:
        domain = read_domain(domain_path)
        signature = Signature.from_objects(
            dict(problem.objects),
            predicates=dict(domain.predicates),
            types={k: v for k, v in domain.types.items() if k != v},
            derived=domain.derived,
        )
    # the paper's statements call the agent "the player", whatever its object's name
    return signature.with_words({signature.agent: "the player"}) if signature.agent != "player" else signature
