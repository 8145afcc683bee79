"""What a study runs on, in any domain: scenarios by reference, loadable in any worker
(:class:`ScenarioRef`: the domain, rebuilt from :class:`DomainRef`, and its front's key for
the scenario), the scenarios a study's arguments name (:func:`expand`), and the statements
scored on them (the command line's, statements files', a scenario's own, each with its study
id and factors), checked as ``elot run`` checks them."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from elot.errors import ElotError, Span
from elot.statements import Statement, compile_statements, resolve_statements
from elot.output import count
from elot.settings import CURRENT, MODES
from elot.study.params import StudyError


def item(statement_id: str, text: str, mode: str = CURRENT, factors: tuple[tuple[str, str], ...] = ()) -> Statement:
    """A statement to score in a study (the one statement record, :class:`elot.statements.Statement`):
    its id, text as written, mode, and known factors."""
    return Statement(text, mode, id=statement_id, factors=factors)


@dataclass(frozen=True)
class DomainRef:
    """A domain as a study names it, rebuilt in any worker: ``spec`` (``--domain``, None: the
    one the scenarios claim, else the gridworld), its ``data`` folder and ``reading`` (the
    gridworld's ``exp``: which experiment plan ids are read from; a PDDL domain's
    ``goal_prior``)."""

    spec: str | None = None
    data: str | None = None
    reading: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, front, spec: str | None = None) -> "DomainRef":
        """The reference of a front the command line made (its domain and data folder)."""
        reading = tuple((k, v) for k in ("exp", "goal_prior") if (v := getattr(front, k, None)))
        return cls(spec if spec is not None else front.name, front.data, reading)

    def front(self):
        return _front(self)


@lru_cache(maxsize=16)
def _front(ref: DomainRef):
    from elot.domains.registry import front_for

    front = front_for(ref.spec, **dict(ref.reading))
    front.data = ref.data
    return front


@dataclass(frozen=True)
class ScenarioRef:
    """A scenario by reference, loadable in any worker: its ``name`` (a study table's
    ``scenario`` column), the front's ``key`` for it (None: the front reads ``name`` as a
    command line's scenario) and its ``domain``."""

    name: str
    key: Any = None
    domain: DomainRef = DomainRef()

    def load(self):
        """The scenario, as an :class:`~elot.domains.front.Episode` (read once per process)."""
        return _load(self)

    @property
    def front(self):
        return self.domain.front()

    @property
    def map(self) -> str:
        """The map (layout) it runs on, as a study table's ``map`` column says it."""
        return self.front.map_name(self.load())

    def signature(self):
        """The ELoT signature its statements are read (and translated) in."""
        return self.front.signature(self.load())


@lru_cache(maxsize=256)
def _load(ref: ScenarioRef):
    front = ref.front
    return front.episode(ref.name) if ref.key is None else front.restore(ref.key)


def expand(front, specs: Sequence[str], domain: DomainRef | None = None) -> list[ScenarioRef]:
    """The scenarios a study's arguments name, each once, in order (a file of several, the
    gridworld's ``all`` or a plan id in several experiments: each of them), every one read
    now so that bad input is reported here, not in a worker."""
    domain = domain or DomainRef.of(front)
    refs: list[ScenarioRef] = []
    for spec in specs:
        refs += [ScenarioRef(e.reference, e.key, domain) for e in front.episodes(spec)]
    if not refs:
        raise StudyError("no scenarios to run", hint=f"give scenarios of the {front.name} domain")
    return list(dict.fromkeys(refs))


def refs_of(specs: Sequence[str], domain: str | None = None, *, data: str | None = None,
            exp: str | None = None) -> list[ScenarioRef]:
    """The scenarios ``specs`` name, as a study reads them: in ``domain`` (None: the one
    the scenarios claim, else the gridworld), its data in ``data``, the gridworld's plan ids
    from the experiments ``exp`` names (comma-separated; default: every one)."""
    from elot.domains.registry import domain_named

    reading = (("exp", exp or "exp1,exp2"),) if domain_named(domain, specs) == "doors-keys-gems" else ()
    ref = DomainRef(domain_named(domain, specs), data, reading)
    return expand(ref.front(), specs, ref)


def given_items(statements: Sequence[str] = (), files: Sequence[str] = (), mode: str = "current") -> tuple[Statement, ...]:
    """Statements given on the command line (``s1``, ``s2``, ...; an ``initial:`` or
    ``current:`` before one says its mode) and in statements files (``FILE:LINE``, each
    keeping where it was written, so that an error points there)."""
    from elot.statements import given_statement, read_statements

    items = [dataclasses.replace(given_statement(text, mode), id=f"s{n}") for n, text in enumerate(statements, 1)]
    for path in files:
        items += [dataclasses.replace(s, id=f"{Path(path).name}:{s.line}") for s in read_statements(path, mode)]
    return tuple(items)


def scenario_items(ref: ScenarioRef, *, asked: bool = False) -> tuple[Statement, ...]:
    """The scenario's own statements, each with its study id (and factors, where known);
    with ``asked``, what its domain asks of it when none are given (its
    :meth:`~elot.domains.front.Front.questions`: food trucks' experiment questions)."""
    own = ref.front.questions(ref.load()) if asked else ref.load().statements
    return tuple(s if s.id else dataclasses.replace(s, id=str(s.line) if s.line is not None else f"s{n}")
                 for n, s in enumerate(own, 1))


@lru_cache(maxsize=4096)
def resolve(ref: ScenarioRef, text: str, mode: str) -> tuple[str, str]:
    """A statement's formula and mode (English is translated); raises ElotError."""
    from elot.translate import resolve_statement

    formula, mode, _ = resolve_statement(text, mode=mode, signature=ref.signature())
    return formula, mode


def checked(ref: ScenarioRef, statements: Sequence[Statement]) -> list[Statement]:
    """``statements`` resolved (English translated) and compiled against the scenario, as
    ``elot run`` does, and refused where its domain's runs cannot judge them: each with
    its ``formula``, or its ``error``."""
    resolved = resolve_statements(statements, lambda text, mode: (resolve(ref, text, mode)[0], mode))
    return ref.front.admitted(ref.load(), compile_statements(resolved, ref.signature()))


#: A statements file's line that starts with a word and a colon: a mode, or a mistaken one.
_PREFIX = re.compile(r"([A-Za-z][\w-]*)\s*:\s*\S")


def located(st: Statement, n: int) -> ElotError:
    """A given statement's error, pointed at its line in its statements file (or at
    ``<statement N>``, the N-th given); a line whose failure starts with an unknown mode
    (``sideways: ...``) is that error instead."""
    prefix = _PREFIX.match(st.text) if st.path is not None else None
    if prefix and prefix[1] not in MODES and st.source is not None and st.offset is not None:
        return StudyError(f"unknown mode {prefix[1]!r} before the statement", path=st.path, source=st.source,
                          span=Span.of(st.source, st.offset, st.offset + len(prefix[1])),
                          hint=f"a line may start with {' or '.join(m + ':' for m in MODES)} (else --initial "
                               "decides the mode)")
    error = st.locate(st.error) if st.path is not None else st.error
    return error.located(source=st.formula if st.formula is not None else st.text,
                         path=st.origin or f"<statement {n + 1}>")


class StatementErrors(StudyError):
    """Given statements that cannot be used: each one's own error (a syntax, type or
    translation error at its place, with the scenarios it fails in), then one line that
    sums them up, saying what the command would have done (``use``) and did not (``kept``)."""

    def __init__(self, errors: Sequence[ElotError], failed: int, total: int, *, use: str = "used",
                 kept: str = "nothing was done") -> None:
        which = "the statement given" if total == 1 else f"{failed} of the {total} statements given"
        super().__init__(f"{which} cannot be {use}; {kept}",
                         hint="fix the statements above (elot run SCENARIO -s STATEMENT shows the same errors)")
        self.errors = tuple(errors)

    def render(self) -> str:
        return "\n".join([e.render() for e in self.errors] + [super().render()])


def check_given(refs: Sequence[ScenarioRef], given: Sequence[Statement], *, use: str = "used",
                kept: str = "nothing was done") -> dict[str, list[Statement]]:
    """Each scenario's ``given`` statements, :func:`checked` against it (by ``ref.name``);
    if any fails in any scenario, :class:`StatementErrors` with every failure, once, naming
    the scenarios it fails in: nothing is done with a statement ``elot run`` would refuse."""
    out: dict[str, list[Statement]] = {}
    failed: dict[tuple[int, str], tuple[ElotError, list[str]]] = {}
    for ref in refs:
        out[ref.name] = statements = checked(ref, given)
        for n, st in enumerate(statements):
            if st.error is not None:
                error = located(st, n)
                failed.setdefault((n, error.render()), (error, []))[1].append(ref.name)
    if failed:
        errors = []
        for error, names in failed.values():
            if len(refs) > 1:
                shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                error.notes = (*error.notes, f"in {count(len(names), 'scenario')}: {shown}")
            errors.append(error)
        raise StatementErrors(errors, len({n for n, _ in failed}), len(given), use=use, kept=kept)
    return out
