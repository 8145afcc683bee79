"""ELoT syntax trees: frozen, keyword-only dataclasses with a source span.

A term is a :class:`Call` (``name(arg, ...)``), a :class:`Const` (lowercase name), a
:class:`Var` (uppercase name) or a :class:`Num` (numeric literal). Equality and hashing
are structural and ignore spans, so a tree built by hand equals the one parsed from text.

The module also holds the few purely syntactic helpers every later stage needs (depth
guard, free variables, substitution); they are iterative or depth-guarded so that no
stage can hit Python's recursion limit on a deep tree. Among them is the one definition
of SPEC §2's binding rule, :func:`binding`: a condition binds the variables it mentions
that are not already bound outside. The checker, lowering, evaluator and REPL use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from elot.errors import ElotSyntaxError, Span

#: The deepest nesting any stage accepts. Real formulas nest about 10 levels; the limit
#: keeps every recursive stage far below Python's recursion limit.
MAX_DEPTH = 200


@dataclass(frozen=True, kw_only=True)
class _Name:
    """A leaf that is a name: a :class:`Var` or a :class:`Const` (equal only to its own kind)."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


class Var(_Name):
    """A variable such as ``K`` or ``B1`` (names start with an uppercase letter)."""


class Const(_Name):
    """A name used as a constant: an object (``box1``), an adjective (``likely``), ..."""


@dataclass(frozen=True, kw_only=True)
class Num:
    """A numeric literal such as ``0.75``."""

    value: float
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class Call:
    """An application ``name(arg, ..., arg)``; ``name`` may be an operator like ``>=``."""

    name: str
    args: tuple["Term", ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    # Equality, hashing and repr walk the tree iteratively, so that a tree built by hand
    # deeper than Python's recursion limit still compares, hashes and prints.

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Call):
            return NotImplemented
        stack: list[tuple[object, object]] = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if isinstance(a, Call) and isinstance(b, Call):
                if a.name != b.name or len(a.args) != len(b.args):
                    return False
                stack.extend(zip(a.args, b.args))
            elif isinstance(a, Call) or isinstance(b, Call) or a != b:
                return False
        return True

    def __hash__(self) -> int:
        return _fold(self, lambda node, parts: hash((node.name, tuple(parts))), hash)

    def __repr__(self) -> str:
        # emitted piece by piece (joining at each level would be quadratic in depth)
        out: list[str] = []
        stack: list[object] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, Call) and isinstance(item.args, tuple):
                out.append(f"Call(name={item.name!r}, args=(")
                seq: list[object] = []
                for i, arg in enumerate(item.args):
                    seq += [", ", arg] if i else [arg]
                seq.append(",))" if len(item.args) == 1 else "))")
                stack.extend(reversed(seq))
            elif isinstance(item, Call):  # malformed, built by hand
                out.append(f"Call(name={item.name!r}, args={item.args!r})")
            else:
                out.append(repr(item))
        return "".join(out)


Term = Union[Call, Const, Var, Num]


def _args(node: Call) -> tuple:
    return node.args if isinstance(node.args, tuple) else ()


def _fold(term: Call, combine, leaf):
    """``combine(node, [results of its arguments])`` bottom-up over ``term``, with
    ``leaf(x)`` for the leaves, without recursion."""
    done: dict[int, object] = {}
    stack: list[tuple[Call, bool]] = [(term, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            done[id(node)] = combine(node, [done[id(a)] if isinstance(a, Call) else leaf(a) for a in _args(node)])
        elif id(node) not in done:
            stack.append((node, True))
            stack.extend((a, False) for a in _args(node) if isinstance(a, Call))
    return done[id(term)]


def call(name: str, *args: Term, span: Span | None = None) -> Call:
    """Shorthand for ``Call(name=name, args=args, span=span)``."""
    return Call(name=name, args=tuple(args), span=span)


def subterms(term: Term) -> Iterator[Term]:
    """Every node of ``term`` in pre-order (iterative: safe on any depth)."""
    stack = [term]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Call):
            stack.extend(reversed(node.args))


def depth(term: Term) -> int:
    """Nesting depth of ``term`` (a leaf has depth 1), computed iteratively."""
    best = 0
    stack = [(term, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        if isinstance(node, Call):
            stack.extend((arg, d + 1) for arg in node.args)
    return best


def guard_depth(term: Term, source: str | None = None) -> None:
    """Raise :class:`ElotSyntaxError` if ``term`` is not a well-formed tree (a
    :class:`Call` with a string name and a tuple of terms, a :class:`Var`/:class:`Const`
    with a string name, a :class:`Num` with a real value) or nests deeper than
    :data:`MAX_DEPTH`.

    Every stage calls this on trees it did not parse itself (trees built by hand, or
    whatever a caller passed), so that a wrong argument is an :class:`ElotError` rather
    than an ``AttributeError`` deep inside, and the recursive stages never overflow the
    Python stack.
    """
    # Depth counts nested calls, as the parser counts nested parentheses, so that a tree
    # the parser accepts passes here too (the leaves add no level).
    stack = [(term, 1)]
    while stack:
        node, d = stack.pop()
        if d > MAX_DEPTH and isinstance(node, Call):
            raise too_deep(getattr(term, "span", None), source)
        problem = _malformed(node)
        if problem:
            raise ElotSyntaxError(
                f"not an ELoT term: {problem}", source=source,
                hint="pass formula text, or a tree of Call, Const, Var and Num from elot.lang.syntax",
            )
        if isinstance(node, Call):
            stack.extend((arg, d + 1) for arg in node.args)


def _malformed(node: object) -> str | None:
    """What is wrong with ``node`` as a single tree node, or None."""
    if isinstance(node, (Var, Const)):
        return None if isinstance(node.name, str) and node.name else f"{type(node).__name__} with name {node.name!r}"
    if isinstance(node, Num):
        ok = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return None if ok else f"Num with value {node.value!r}"
    if isinstance(node, Call):
        if not isinstance(node.name, str) or not node.name:
            return f"Call with name {node.name!r}"
        if not isinstance(node.args, tuple):
            return f"{node.name}(...) with args {type(node.args).__name__} (a tuple is needed)"
        return None
    shown = repr(node)
    return f"{type(node).__name__} {shown[:40]}{'...' if len(shown) > 40 else ''}"


def too_deep(span: Span | None, source: str | None = None, path: str | None = None) -> ElotSyntaxError:
    """The error for a formula nesting deeper than :data:`MAX_DEPTH`, at ``span``."""
    return ElotSyntaxError(
        f"nesting too deep (more than {MAX_DEPTH} levels)",
        span=span,
        source=source,
        path=path,
        hint="split the formula into smaller parts; real formulas nest about 10 levels",
    )


#: The quantifiers of the base and lowered languages: ``Q(C, φ)`` with a condition first.
QUANTIFIERS = frozenset({"exists", "forall", "maximum", "minimum"})

#: Position of the condition ``C`` of every binding operator, by (name, arity). The
#: condition and every later argument are in the scope of what it binds; earlier
#: arguments (the agent ``A``, the adjective ``P``, the object ``o``) are not.
CONDITION_POSITION: dict[tuple[str, int], int] = {
    **{(q, 2): 0 for q in QUANTIFIERS},
    **{(op, 3): 1 for op in ("knows_about", "not_knows_about", "certain_about", "uncertain_about")},
    ("uncertain_if", 4): 1,
    ("more", 4): 1,
    ("less", 4): 1,
    ("most", 5): 3,
    ("least", 5): 3,
}

#: Position of the explicitly named variable ``X`` of ``most/least(P, o, X, C, φ)``. The
#: operator binds ``X`` even when an outer ``X`` is bound (it shadows that one).
EXPLICIT_VARIABLE: dict[tuple[str, int], int] = {("most", 5): 2, ("least", 5): 2}


@dataclass(frozen=True)
class Binding:
    """What a binding operator binds where it stands (see :func:`binding`).

    ``condition`` is the position of its condition (arguments from there on are in the
    scope of the new variables), ``explicit`` the position of an explicit variable (or
    None), ``new`` the variables it binds, and ``inner`` the variables bound in its scope.
    """

    condition: int
    explicit: int | None
    new: frozenset[str]
    inner: frozenset[str]


def binding(node: Call, bound: frozenset[str] = frozenset()) -> Binding | None:
    """The variables the binding operator ``node`` binds when ``bound`` are bound around
    it, or None if ``node`` binds nothing (SPEC §2, *Conditions*).

    A condition ``C`` binds every variable free in it that is not already bound outside:
    ``vars(C) − bound``. An outer-bound variable it mentions is not rebound; the condition
    tests it (``exists(and(key(K), inside(K, B)), φ)`` inside ``forall(box(B), ...)`` binds
    only ``K``). The explicit ``X`` of ``most/least(P, o, X, C, φ)`` is bound regardless.
    """
    found = _binding(node, bound)
    return None if found is None else found[0]


def _binding(node: Call, bound: frozenset[str]) -> tuple[Binding, set[str]] | None:
    """:func:`binding`, and the free variables of the condition (computed once: the
    condition's free variables in its own scope are these, and recomputing them at every
    level would cost exponential time in the nesting of conditions)."""
    key = (node.name, len(node.args))
    pos = CONDITION_POSITION.get(key)
    if pos is None:
        return None
    explicit = EXPLICIT_VARIABLE.get(key)
    x = node.args[explicit].name if explicit is not None and isinstance(node.args[explicit], Var) else None
    outer = bound - {x} if x else bound
    in_condition = free_variables(node.args[pos], outer)
    new = frozenset(in_condition) - outer
    if x:
        new |= {x}
    return Binding(condition=pos, explicit=explicit, new=new, inner=outer | new), in_condition


def scopes(node: Call, bound: frozenset[str] = frozenset()) -> Iterator[tuple[int, Term, frozenset[str]]]:
    """Each argument of ``node`` with its position and the variables bound around it.

    The explicit variable of ``most/least(P, o, X, C, φ)`` is a binder, not a use, and is
    left out. Every other node passes ``bound`` on unchanged.
    """
    b = binding(node, bound)
    for i, arg in enumerate(node.args):
        if b is None or i < b.condition:
            if b is None or i != b.explicit:
                yield i, arg, bound
        else:
            yield i, arg, b.inner


def free_variables(term: Term, bound: frozenset[str] = frozenset()) -> set[str]:
    """Variables occurring free in ``term`` when the variables ``bound`` are bound around it.

    Binding follows SPEC §2: a binding operator (a quantifier ``Q(C, φ)``, or an
    epistemic operator with a condition, see :data:`CONDITION_POSITION`) binds the
    variables of its condition that are *not* bound outside, ``vars(C) − bound``. A
    variable in ``bound`` that ``C`` or ``φ`` mentions is not rebound: its occurrences are
    free occurrences of ``term`` and are in the result: for
    ``t = exists(and(key(K), inside(K, B)), iscolor(K, red))``,
    ``free_variables(t, {"B"}) == {"B"}``, while ``free_variables(t) == set()`` (with
    nothing bound outside, the condition binds ``B`` too). Only the explicit variable
    ``X`` of ``most/least(P, o, X, C, φ)`` may shadow an outer ``X``.
    """
    if isinstance(term, Var):
        return {term.name}
    if not isinstance(term, Call):
        return set()
    found = _binding(term, bound)
    if found is None:
        out: set[str] = set()
        for arg in term.args:
            out |= free_variables(arg, bound)
        return out
    b, in_condition = found
    out = in_condition - b.new
    for i, arg in enumerate(term.args):
        if i == b.explicit or i == b.condition:
            continue
        out |= free_variables(arg, bound) if i < b.condition else free_variables(arg, b.inner) - b.new
    return out


def variables(term: Term) -> set[str]:
    """Every variable name occurring in ``term``, bound or free."""
    return {n.name for n in subterms(term) if isinstance(n, Var)}


def fresh(name: str, taken: set[str] | frozenset[str]) -> str:
    """``name`` followed by the smallest number that makes it not in ``taken``."""
    i = 1
    while f"{name}{i}" in taken:
        i += 1
    return f"{name}{i}"


def substitute(term: Term, mapping: dict[str, Term], bound: frozenset[str] = frozenset()) -> Term:
    """Capture-free replacement of free variables by terms, ``φ[X:=o]``.

    ``bound`` are the variables bound around ``term``; the replaced variables count as
    bound outside too (that is what makes them free in ``term``). So, by SPEC §2's rule, a
    condition inside ``term`` that mentions a replaced ``X`` does not rebind it, and the
    substitution enters it: ``exists(and(key(K), inside(K, X)), φ)[X:=box2]`` is
    ``exists(and(key(K), inside(K, box2)), φ[X:=box2])``. Only the explicit variable of
    ``most/least(P, o, X, C, φ)`` shadows ``X``. A variable that an inner condition binds
    and that occurs in a replacement term is renamed first, so nothing is captured.
    """
    if isinstance(term, Var):
        return mapping.get(term.name, term)
    if not isinstance(term, Call) or not mapping:
        return term
    context = bound | frozenset(mapping)
    b = binding(term, context)
    if b is None:
        return Call(name=term.name, args=tuple(substitute(a, mapping, bound) for a in term.args), span=term.span)
    inner = {k: t for k, t in mapping.items() if k not in b.new}  # only an explicit X shadows
    used = set().union(*(variables(t) for t in inner.values())) if inner else set()
    clash = b.new & used
    if clash:
        taken = variables(term) | used | context
        for name in sorted(clash):
            new_name = fresh(name, taken)
            taken.add(new_name)
            inner[name] = Var(name=new_name)
    args = []
    for i, arg in enumerate(term.args):
        if i == b.explicit:
            args.append(inner.get(arg.name, arg) if isinstance(arg, Var) and arg.name in clash else arg)
        elif i < b.condition:
            args.append(substitute(arg, mapping, bound))
        else:
            args.append(substitute(arg, inner, bound | b.new))
    return Call(name=term.name, args=tuple(args), span=term.span)
