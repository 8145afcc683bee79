"""PDDL.jl's dialect of PDDL, read by elot (the ``pddl`` package cannot read it).

PDDL.jl (the planner under Plinf.jl and InversePlanning.jl) accepts PDDL that the
standard grammar, and so the ``pddl`` package, refuses:

* numeric fluents and arithmetic as predicate arguments: ``(at ?i xpos ypos)``,
  ``(door (+ xpos (xdiff ?dir)) ypos)``;
* 0-ary fluents written bare or in parentheses: ``(= width 8)`` and ``(= (width) 9)``;
* negative numbers in the initial state (``(= (ydiff down) -1)``), numbers as objects
  (``(wall 1 1)``), and the domain's sections in any order (``:derived`` before ``:functions``).

Extending the package's grammar would not be enough: its logic values allow only
objects and variables as a predicate's arguments, so the dialect would need a fork of
its classes. This reader is small instead: the s-expressions with positions are
:mod:`elot.domains.sexpr`'s (the gridworld's PDDL reads on them too), and one function
per section builds elot's values (:mod:`elot.domains.pddl.task`). Every error points at
``file:line:column``.
"""

from __future__ import annotations

from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError, PddlSyntaxError
from elot.domains.sexpr import Forms, SExpr, SList, Sym, parse_sexprs

READER = "pddl.jl"


def read_sexprs(text: str, path: str | None = None) -> tuple[SExpr, ...]:
    """The s-expressions of ``text``; an unbalanced parenthesis is a :class:`PddlSyntaxError`."""
    return parse_sexprs(text, path, PddlSyntaxError)


class _Reader(Forms):
    """One file's forms and its readers of terms, formulas and effects."""

    failure = PddlError
    syntax = PddlSyntaxError

    def __init__(self, text: str, path: str | None) -> None:
        super().__init__(text, path)
        self.functions: set[str] = set()
        self.predicates: set[str] = set()

    def params(self, node: SExpr) -> tuple[tuple[str, str], ...]:
        if not isinstance(node, SList):
            raise self.error("expected a parameter list (?x - type ...)", node)
        out = self.typed(node.items)
        for name, _, _ in out:
            if not name.startswith("?"):
                raise self.error(f"a parameter is written ?{name}", node)
        return tuple((name[1:], kind) for name, kind, _ in out)

    # -- terms, formulas, effects ------------------------------------------------------

    def term(self, node: SExpr) -> t.Term:
        if isinstance(node, Sym):
            text = node.text
            if text.startswith("?"):
                return t.Var(text[1:], span=node.span)
            number = _integer(text)
            if number is not None:
                return t.Num(number, span=node.span)
            if _is_number(text):
                raise self.error(f"{text} is not a whole number", node, hint="elot grounds integer fluents only")
            if text in self.functions:
                return t.Fluent(text, (), span=node.span)
            return t.Obj(text, span=node.span)
        head = node.head()
        if head in ("+", "-", "*", "/"):
            if not 1 <= len(node.items) - 1 <= 2 or (head != "-" and len(node.items) != 3):
                raise self.error(f"({head} ...) takes two arguments", node)
            return t.Arith(head, tuple(self.term(a) for a in node.items[1:]), span=node.span)
        if head in self.functions:
            return t.Fluent(node.items[0].text, tuple(self.term(a) for a in node.items[1:]), span=node.span)
        raise self.error(f"expected a term: an object, ?variable, number, fluent or (+ a b); "
                         f"{head or 'this list'} is no declared function", node,
                         hint="declare numeric functions in (:functions ...)")

    def formula(self, node: SExpr) -> t.Formula:
        if isinstance(node, Sym):
            if node.text in self.predicates:
                return t.Atom(node.text, (), span=node.span)
            raise self.error(f"expected a condition, found {node.text!r}", node)
        head = node.head()
        args = node.items[1:]
        if head == "and":
            return t.And(tuple(self.formula(a) for a in args), span=node.span)
        if head == "or":
            return t.Or(tuple(self.formula(a) for a in args), span=node.span)
        if head in ("not", "imply"):
            want = 1 if head == "not" else 2
            if len(args) != want:
                raise self.error(f"({head} ...) takes {want} argument{'s' * (want > 1)}", node)
            if head == "not":
                return t.Not(self.formula(args[0]), span=node.span)
            return t.Imply(self.formula(args[0]), self.formula(args[1]), span=node.span)
        if head in ("exists", "forall"):
            if len(args) != 2:
                raise self.error(f"({head} (params) body) takes two arguments", node)
            return t.Quant(head, self.params(args[0]), self.formula(args[1]), span=node.span)
        if head in ("=", "<", "<=", ">", ">="):
            if len(args) != 2:
                raise self.error(f"({head} a b) takes two arguments", node)
            left, right = self.term(args[0]), self.term(args[1])
            if head == "=":
                return t.Eq(left, right, span=node.span)
            return t.Cmp(head, left, right, span=node.span)
        if head in self.predicates:
            return t.Atom(node.items[0].text, tuple(self.term(a) for a in args), span=node.span)
        raise self.error(f"undeclared predicate {head or 'in this list'}", node,
                         hint="declare it in (:predicates ...) or (:derived ...)")

    def effect(self, node: SExpr) -> t.Effect:
        if not isinstance(node, SList):
            raise self.error("expected an effect", node)
        head = node.head()
        args = node.items[1:]
        if head == "and":
            return t.AndE(tuple(self.effect(a) for a in args), span=node.span)
        if head == "not":
            if len(args) != 1:
                raise self.error("(not ...) takes one argument", node)
            inner = self.formula(args[0])
            if not isinstance(inner, t.Atom):
                raise self.error("an effect negates an atom", node)
            return t.Lit(inner, False, span=node.span)
        if head == "forall":
            if len(args) != 2:
                raise self.error("(forall (params) effect) takes two arguments", node)
            return t.ForallE(self.params(args[0]), self.effect(args[1]), span=node.span)
        if head == "when":
            if len(args) != 2:
                raise self.error("(when condition effect) takes two arguments", node)
            return t.When(self.formula(args[0]), self.effect(args[1]), span=node.span)
        if head in ("assign", "increase", "decrease", "scale-up", "scale-down"):
            if len(args) != 2:
                raise self.error(f"({head} fluent value) takes two arguments", node)
            target = self.term(args[0])
            if not isinstance(target, t.Fluent):
                raise self.error(f"({head} ...) changes a numeric fluent", args[0])
            return t.Update(head, target, self.term(args[1]), span=node.span)
        inner = self.formula(node)
        if not isinstance(inner, t.Atom):
            raise self.error("expected an effect: an atom, (not atom), and, forall, when or a numeric update", node)
        return t.Lit(inner, True, span=node.span)


def _integer(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isdigit() else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def declarations(r: Forms, sections: list[tuple[str, SList]]) -> tuple[list, list, list, list, list]:
    """A domain's names, before any body is read (a body may use a function declared in a
    later section): its requirements, types, constants, predicates and functions, each in
    file order. A function's value type (``(xloc ?o) - integer``) is PDDL.jl's; elot's
    fluents are integers. This pass is the gridworld's whole reading of a domain too
    (:mod:`elot.domains.doors_keys_gems.pddl`)."""
    requirements, types, constants, predicates, functions = [], [], [], [], []
    for head, sec in sections:
        if head == ":requirements":
            requirements += [r.sym(x, "a requirement").lstrip(":").lower() for x in sec.items[1:]]
        elif head in (":types", ":constants"):
            (types if head == ":types" else constants).extend((n, kind) for n, kind, _ in r.typed(sec.items[1:]))
        elif head in (":predicates", ":functions"):
            decls = sec.items[1:]
            for i, decl in enumerate(decls):
                dash = [isinstance(d, Sym) and d.text == "-" for d in decls[max(i - 1, 0): i + 1]]
                if head == ":functions" and isinstance(decl, Sym) and any(dash):
                    continue  # ``- integer`` after a function: the type of its values
                if not isinstance(decl, SList) or not decl.items:
                    raise r.error("expected (name ?x - type ...)", decl)
                entry = (r.sym(decl.items[0], "a name"), tuple(kind for _, kind, _ in r.typed(decl.items[1:])))
                (predicates if head == ":predicates" else functions).append(entry)
        elif head not in (":derived", ":action"):
            raise r.error(f"section {head} is not read by elot", sec,
                          hint="a domain has :requirements, :types, :constants, :predicates, :functions, "
                               ":derived and :action sections")
    return requirements, types, constants, predicates, functions


def parse_domain(text: str, path: str | None = None) -> t.Domain:
    """The domain of ``text`` in PDDL.jl's dialect."""
    r = _Reader(text, path)
    name, form = r.define("domain")
    sections = r.sections(form)
    requirements, types, constants, predicates, functions = declarations(r, sections)
    r.functions = {n for n, _ in functions}
    r.predicates = {n for n, _ in predicates}
    derived, actions = [], []
    for head, sec in sections:
        if head == ":derived":
            if len(sec.items) != 3 or not isinstance(sec.items[1], SList) or not sec.items[1].items:
                raise r.error("expected (:derived (name ?x ...) condition)", sec)
            decl = sec.items[1]
            params = r.params(SList(decl.items[1:], decl.span))
            derived.append(t.Derived(r.sym(decl.items[0], "a name"), params, r.formula(sec.items[2]), span=sec.span))
        elif head == ":action":
            actions.append(_action(r, sec))
    return t.Domain(name, tuple(requirements), tuple(types), tuple(constants),
                    tuple(predicates), tuple(functions), tuple(derived), tuple(actions), reader=READER,
                    path=path, source=text)


def _action(r: _Reader, sec: SList) -> t.Action:
    if len(sec.items) < 2:
        raise r.error("expected (:action NAME ...)", sec)
    name = r.sym(sec.items[1], "the action's name")
    fields: dict[str, SExpr] = {}
    items = sec.items[2:]
    if len(items) % 2:
        raise r.error("expected :keyword value pairs", items[-1])
    for key, value in zip(items[::2], items[1::2]):
        word = r.sym(key, "a :keyword").lower()
        if word not in (":parameters", ":precondition", ":effect"):
            raise r.error(f"{word} is not a part of an action elot reads", key,
                          hint="an action has :parameters, :precondition and :effect")
        fields[word] = value
    params = r.params(fields[":parameters"]) if ":parameters" in fields else ()
    pre = r.formula(fields[":precondition"]) if ":precondition" in fields else t.TRUE
    eff = r.effect(fields[":effect"]) if ":effect" in fields else t.AndE(())
    return t.Action(name, params, pre, eff, span=sec.span)


def parse_problem(text: str, domain: t.Domain, path: str | None = None) -> t.Problem:
    """The problem of ``text`` in PDDL.jl's dialect, read against ``domain``."""
    r = _Reader(text, path)
    r.functions = {n for n, _ in domain.functions}
    r.predicates = {n for n, _ in domain.predicates} | {d.name for d in domain.derived}
    name, form = r.define("problem")
    domain_name, objects, init, fluents, ignored, goal = None, [], [], [], [], t.TRUE
    for head, sec in r.sections(form):
        if head == ":domain":
            domain_name = r.sym(sec.items[1], "the domain's name") if len(sec.items) == 2 else None
        elif head == ":objects":
            objects += [(n, kind) for n, kind, _ in r.typed(sec.items[1:])]
        elif head == ":init":
            for fact in sec.items[1:]:
                _init_fact(r, fact, init, fluents, ignored)
        elif head == ":goal":
            if len(sec.items) != 2:
                raise r.error("expected (:goal condition)", sec)
            goal = r.formula(sec.items[1])
        else:
            raise r.error(f"section {head} is not read by elot", sec,
                          hint="a problem has :domain, :objects, :init and :goal")
    if domain_name is None:
        raise r.error("expected (:domain NAME)", form)
    return t.Problem(name, domain_name, tuple(objects), tuple(init), tuple(fluents), goal, tuple(ignored),
                     reader=READER, path=path, source=text)


def _init_fact(r: _Reader, fact: SExpr, init: list, fluents: list, ignored: list) -> None:
    if not isinstance(fact, SList) or not fact.items:
        raise r.error("expected an initial fact (pred args...) or (= fluent number)", fact)
    head = fact.head()
    if head == "=":
        if len(fact.items) != 3:
            raise r.error("expected (= fluent number)", fact)
        target, value = r.term(fact.items[1]), r.term(fact.items[2])
        if not isinstance(target, t.Fluent) or not isinstance(value, t.Num) \
                or not all(isinstance(a, (t.Obj, t.Num)) for a in target.args):
            raise r.error("expected (= (fluent objects...) integer)", fact,
                          hint="an initial fluent value is a whole number")
        fluents.append(((target.name, tuple(_ground_text(a) for a in target.args)), value.value))
        return
    args = []
    for a in fact.items[1:]:
        term = r.term(a)
        if not isinstance(term, (t.Obj, t.Num)):
            raise r.error("an initial fact holds objects and numbers only", a)
        args.append(_ground_text(term))
    entry = (r.sym(fact.items[0], "a predicate"), tuple(args))
    (init if entry[0] in r.predicates else ignored).append(entry)


def _ground_text(term: t.Term) -> str:
    return t.number_text(term.value) if isinstance(term, t.Num) else term.name
