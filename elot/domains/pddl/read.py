"""Reading PDDL files: a domain, a problem, a plan; each ``read_*`` has a ``parse_*`` twin on text.

``reader`` chooses who reads a domain or problem:

* ``"pddl"`` — the ``pddl`` package (standard PDDL 3.1);
* ``"pddl.jl"`` — elot's reader of PDDL.jl's dialect (:mod:`elot.domains.pddl.read_dialect`);
* ``"auto"`` (the default) — the package first; where it refuses the text, the dialect's
  reader. When both refuse, the error is the one of the reader that read further into the
  file (the other's is kept as a note), so a broken standard file is reported by the
  package and a broken PDDL.jl file by the dialect's reader.

A problem is read with its domain's reader when ``reader`` is ``auto`` and the domain was
read as the dialect (the dialect's problems write ``(= width 8)``, which the package refuses).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elot.domains.pddl import read_dialect, read_standard
from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError, PddlSyntaxError
from elot.errors import ArgumentError, Span, read_text

READERS = ("auto", "pddl", "pddl.jl")

#: The longest plan elot reads.
MAX_PLAN_ACTIONS = 100_000


def _check_reader(reader: str) -> None:
    if reader not in READERS:
        raise ArgumentError(f"unknown PDDL reader {reader!r}", hint=f"choose one of {', '.join(READERS)}")


def _either(standard, dialect, reader: str, text: str):
    if reader == "pddl":
        return standard()
    if reader == "pddl.jl":
        return dialect()
    try:
        return standard()
    except (PddlError, PddlSyntaxError) as first:
        try:
            return dialect()
        except (PddlError, PddlSyntaxError) as second:
            def reach(e):
                return e.span.start if e.span is not None else -1
            worse, better = (first, second) if reach(second) > reach(first) else (second, first)
            better.notes = better.notes + (f"read as {'PDDL.jl' if worse is second else 'standard PDDL'} too: "
                                           f"{worse.location() or 'it'}: {worse.message}",)
            raise better from None


def parse_domain(text: str, path: str | None = None, reader: str = "auto") -> t.Domain:
    """The domain in ``text``."""
    _check_reader(reader)
    return _either(lambda: read_standard.parse_domain(text, path), lambda: read_dialect.parse_domain(text, path),
                   reader, text)


def parse_problem(text: str, domain: t.Domain, path: str | None = None, reader: str = "auto") -> t.Problem:
    """The problem in ``text``, for ``domain`` (checked: the problem names it)."""
    _check_reader(reader)
    if reader == "auto" and domain.reader == read_dialect.READER:
        reader = "pddl.jl"
    problem = _either(lambda: read_standard.parse_problem(text, domain, path),
                      lambda: read_dialect.parse_problem(text, domain, path), reader, text)
    if problem.domain.lower() != domain.name.lower():
        raise PddlError(f"the problem is for the domain {problem.domain}, not {domain.name}", path=path,
                        source=text, span=_find(text, problem.domain), hint="give the domain file the problem names")
    return problem


def read_domain(path: str | Path, reader: str = "auto") -> t.Domain:
    """The domain in the file ``path``."""
    return parse_domain(read_text(path, "PDDL domain"), str(path), reader)


def read_problem(path: str | Path, domain: t.Domain, reader: str = "auto") -> t.Problem:
    """The problem in the file ``path``, for ``domain``."""
    return parse_problem(read_text(path, "PDDL problem"), domain, str(path), reader)


def _find(text: str, word: str) -> Span | None:
    at = text.find(word)
    return Span.of(text, at, at + len(word)) if at >= 0 else None


@dataclass(frozen=True)
class PlanStep:
    """One action of a plan: its name and arguments, and where it was written."""

    name: str
    args: tuple[str, ...]
    span: Span | None = None

    def text(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


def parse_plan(text: str, path: str | None = None) -> tuple[PlanStep, ...]:
    """A plan: one ``(action args...)`` per line (``;`` comments and blank lines skipped),
    as Plinf.jl's ``.dat`` files and planners' outputs write it."""
    forms = read_dialect.read_sexprs(text, path)
    steps = []
    for form in forms:
        if not isinstance(form, read_dialect.SList) or not form.items or \
                not all(isinstance(i, read_dialect.Sym) for i in form.items):
            raise PddlSyntaxError("expected a ground action (name objects...)", span=form.span, source=text,
                                  path=path, hint="a plan holds one (action args...) per line")
        steps.append(PlanStep(form.items[0].text.lower(), tuple(i.text for i in form.items[1:]), form.span))
        if len(steps) > MAX_PLAN_ACTIONS:
            raise PddlError(f"the plan is longer than {MAX_PLAN_ACTIONS:,} actions", path=path,
                            hint="give a shorter plan")
    return tuple(steps)


def plan_marks(text: str, steps: tuple[PlanStep, ...]) -> tuple[int, ...]:
    """The judgment points a plan's text marks, as LaBToM's plans mark them: a line that
    holds only ``;`` is a judgment point after the actions above it (``steps``, as
    :func:`parse_plan` read them from ``text``); a ``;`` followed by words is a comment."""
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip() == ";"]
    starts = [step.span.line if step.span is not None else 0 for step in steps]
    return tuple(dict.fromkeys(sum(1 for at in starts if at < line) for line in lines))


def read_plan(path: str | Path) -> tuple[PlanStep, ...]:
    """The plan in the file ``path``."""
    return parse_plan(read_text(path, "PDDL plan"), str(path))


def parse_goal(text: str, domain: t.Domain, path: str | None = None) -> t.Formula:
    """A goal condition written as PDDL (``(and (on a b) (clear a))``), read against ``domain``
    (either dialect: a condition is the same s-expression in both)."""
    forms = read_dialect.read_sexprs(text, path)
    if len(forms) != 1:
        raise PddlSyntaxError("expected one condition", span=forms[1].span if len(forms) > 1 else Span.of(text, 0),
                              source=text, path=path, hint="write the goal as one (and ...) condition")
    reader = read_dialect._Reader(text, path)
    reader.functions = {n for n, _ in domain.functions}
    reader.predicates = {n for n, _ in domain.predicates} | {d.name for d in domain.derived}
    return reader.formula(forms[0])
