"""Declaring a domain of one's own: objects, their types, predicates and the agents.

Two ways, one result (a :class:`~elot.lang.signature.Signature`):

* in Python, :func:`declare`::

      declare(objects={"agent": ["sally", "anne"], "container": ["basket", "box"],
                       "thing": ["marble"]},
              predicates={"inside": ("thing", "container")})

* in a small text file (``.domain``), :func:`read_domain` / :func:`parse_domain`::

      agent sally anne                 # agents; the first is the observed one
      object basket box : container
      object marble : thing
      predicate inside(thing, container)
      words marble = the marble | the ball   # English for the offline translator
      event move                       # an event: observed(agent, event), happened(event)
      words move = the marble being moved

Defaults make the minimal declaration work: every type named by an object or a predicate
that is not declared with ``type T < parent`` sits directly under ``object``; ``agent``
is always a type; the observed agent is the first object of type ``agent`` (``player``
is its alias in formulas); no predicate is derived. Mistakes (an unknown type, a name that
is an ELoT operator, an object declared twice, a predicate with no arguments) are
:class:`~elot.errors.ScenarioError` with the place and a hint.
"""

from __future__ import annotations

import re
from os import PathLike
from pathlib import Path
from typing import Iterable, Mapping

from elot.errors import ScenarioError, Span, expect, nearest, read_text
from elot.lang.signature import EVENT, PERCEPT_PREDICATES, PLAYER, Signature

#: Names of objects, predicates and types: what the ELoT parser reads as a constant.
NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
AGENT = "agent"
ROOT = "object"
_DECLARATION = re.compile(
    r"\s*(?:(?P<kw>type|agent|object|predicate|observed|event|words)\b(?P<rest>.*)|(?P<other>\S.*))\Z")
_PREDICATE = re.compile(r"\s*(?P<name>[^\s(]+)\s*\((?P<args>[^)]*)\)\s*\Z")


def _reserved() -> frozenset[str]:
    from elot.lang.operators import ADJECTIVES, OPERATORS

    return OPERATORS | frozenset(ADJECTIVES) | {"player", "threshold", "formula"}


class _Places:
    """Where each declared thing was written (for errors in a domain file)."""

    def __init__(self, text: str | None = None, path: str | None = None) -> None:
        self.text, self.path = text, path
        self.spans: dict[tuple[str, str], Span] = {}

    def error(self, message: str, hint: str, *key: str) -> ScenarioError:
        span = self.spans.get(key) if key else None
        return ScenarioError(message, hint=hint, span=span, source=self.text if span else None, path=self.path)


def declare(
    objects: Mapping[str, str] | Mapping[str, Iterable[str]],
    predicates: Mapping[str, Iterable[str]] | Iterable[str],
    *,
    agent: str | None = None,
    types: Mapping[str, str] | None = None,
    derived: Iterable[str] = (),
    events: Iterable[str] = (),
) -> Signature:
    """A signature from a few lines of Python.

    ``objects`` maps each object to its type (``{"sally": "agent", "basket":
    "container"}``) or each type to a list of objects (``{"agent": ["sally", "anne"]}``).
    ``predicates`` maps each predicate to its argument types, or lists declarations such
    as ``"inside(thing, container)"``. ``types`` gives parents (``{"box": "container"}``)
    where the hierarchy is deeper than one level. ``agent`` names the observed agent
    (default: the first object of type ``agent``, else ``player``, which is then added).
    ``derived`` names predicates computed from others (none by default). ``events`` names
    objects of type ``event`` (SPEC §10: what happened, and who perceived it), and adds the
    percept predicates ``observed(agent, event)`` and ``happened(event)``: ordinary atoms of a
    situation, ``observed(sally, move)`` ("Sally saw the marble being moved").
    """
    return _build(objects, predicates, agent=agent, types=types, derived=derived, places=_Places(),
                  events=events)


def _objects(objects, places: _Places) -> dict[str, str]:
    if not isinstance(objects, Mapping):
        raise places.error(f"objects must be a mapping, not {type(objects).__name__}",
                           'write {"sally": "agent", ...} or {"agent": ["sally", "anne"], ...}')
    out: dict[str, str] = {}
    for key, value in objects.items():
        pairs = [(key, value)] if isinstance(value, str) else [(name, key) for name in value]
        for name, kind in pairs:
            if name in out and out[name] != kind:
                raise places.error(f"object {name!r} is declared twice ({out[name]} and {kind})",
                                   "give each object one type", "object", name)
            out[name] = kind
    return out


def _predicates(predicates, places: _Places) -> dict[str, tuple[str, ...]]:
    if isinstance(predicates, Mapping):
        return {name: (args,) if isinstance(args, str) else tuple(args) for name, args in predicates.items()}
    if isinstance(predicates, (str, bytes)) or not isinstance(predicates, Iterable):
        raise places.error(f"predicates must be a mapping or a list of declarations, not {type(predicates).__name__}",
                           'write {"inside": ["thing", "container"]} or ["inside(thing, container)"]')
    out = {}
    for text in predicates:
        m = _PREDICATE.match(str(text))
        if not m:
            raise places.error(f"cannot read the predicate declaration {text!r}",
                               "write name(type, ...), e.g. inside(thing, container)")
        out[m["name"]] = tuple(a.strip() for a in m["args"].split(",") if a.strip())
    return out


def _check_name(name: str, what: str, places: _Places, *key: str) -> None:
    if not isinstance(name, str) or not NAME.match(name):
        raise places.error(f"{what} name {name!r} is not an ELoT name",
                           "names start with a lowercase letter, then letters, digits or _ "
                           "(uppercase names are variables)", *key)
    if name in _reserved():
        raise places.error(f"{what} name {name!r} is an ELoT operator", f"rename it, e.g. {name}_", *key)


def _build(objects, predicates, *, agent, types, derived, places: _Places, events: Iterable[str] = ()) -> Signature:
    objects = _objects(objects, places)
    predicates = _predicates(predicates, places)
    events = [events] if isinstance(events, str) else list(events)
    for name in events:
        if name in objects and objects[name] != EVENT:
            raise places.error(f"object {name!r} is declared twice ({objects[name]} and {EVENT})",
                               "give each object one type", "object", name)
        objects[name] = EVENT
    if events:
        for name, args in PERCEPT_PREDICATES.items():
            if predicates.setdefault(name, args) != args:
                usage = f"{name}({', '.join(args)})"
                raise places.error(f"a domain with events has the percept predicate {usage}, but {name} is "
                                   f"declared as {name}({', '.join(predicates[name])})",
                                   f"rename your predicate, or declare it as {usage}", "predicate", name)
    parents = dict(types or {})
    for child, parent in parents.items():
        _check_name(child, "type", places, "type", child)
        _check_name(parent, "type", places, "type", child)
    # Every type an object has is known; so are the declared ones, agent and the root.
    known = {ROOT, AGENT} | set(parents) | set(parents.values()) | set(objects.values())
    for name, kind in objects.items():
        _check_name(name, "object", places, "object", name)
        _check_name(kind, "type", places, "object", name)
    for name, args in predicates.items():
        _check_name(name, "predicate", places, "predicate", name)
        if not args:
            raise places.error(f"predicate {name} takes no arguments",
                               f"ELoT predicates apply to objects: give it one, e.g. {name}(thing)",
                               "predicate", name)
        for arg in args:
            if arg not in known:
                guess = nearest(arg, sorted(known))
                raise places.error(
                    f"predicate {name} has an argument of unknown type {arg!r}",
                    f"did you mean {guess!r}?" if guess else
                    f"declare an object of that type, or the type itself (type {arg})", "predicate", name)
    clashes = (set(objects) & (known | set(predicates))) | (set(predicates) & known)
    if clashes:
        name = sorted(clashes)[0]
        raise places.error(f"{name!r} is declared as more than one of object, type and predicate",
                           "objects, types and predicates need distinct names",
                           *(("object", name) if name in objects else ("predicate", name)))
    for kind in known - {ROOT}:
        parents.setdefault(kind, ROOT)
    _check_acyclic(parents, places)
    for name in derived:
        if name not in predicates:
            raise places.error(f"derived predicate {name!r} is not declared", "declare it under predicates")
    hierarchy = Signature(objects=(), predicates=(), parents=tuple(parents.items()), agent=PLAYER)
    agents = [n for n, k in objects.items() if hierarchy.is_subdomain(k, AGENT)]
    if agent is None:
        agent = agents[0] if agents else PLAYER
    elif agent not in objects:
        raise places.error(f"the observed agent {agent!r} is not an object of the domain",
                           "agents: " + (", ".join(agents) or "none; declare one, e.g. agent sally"),
                           "observed", agent)
    elif agent not in agents:
        raise places.error(f"the observed agent {agent!r} is a {objects[agent]}, not an agent",
                           "give it the type agent", "observed", agent)
    return Signature.from_objects(objects, agent=agent, predicates=predicates, types=parents, derived=derived)


def _check_acyclic(parents: Mapping[str, str], places: _Places) -> None:
    for start in parents:
        seen, kind = [], start
        while kind != ROOT:
            if kind in seen:
                raise places.error(f"the type hierarchy has a cycle: {' < '.join(seen + [kind])}",
                                   "every type needs a path up to object", "type", start)
            seen.append(kind)
            kind = parents.get(kind, ROOT)


# -- the text format -----------------------------------------------------------------------


def parse_domain(text: str, *, path: str | None = None) -> Signature:
    """A signature from the text of a ``.domain`` file (see the module docstring).

    One declaration per line, ``#`` comments:

    * ``type T`` or ``type T < PARENT`` (types used by objects need no declaration);
    * ``agent NAME ...``: objects of type ``agent``; the first is the observed agent;
    * ``object NAME ... : TYPE``;
    * ``predicate NAME(TYPE, ...)``;
    * ``observed NAME``: the observed agent, if not the first one;
    * ``event NAME ...``: events (objects of type ``event``), with the percept predicates
      ``observed(agent, event)`` and ``happened(event)`` (see :func:`declare`);
    * ``words KEY = PHRASE | PHRASE ...``: English for an object (``words mexican = the
      Mexican truck``) or an atom about ``_`` (``words at(_, spot2) = behind the
      building | around the corner``), as :meth:`~elot.lang.signature.Signature.with_words`
      takes them; the first phrase given for a key is how it is said.
    """
    places = _Places(text, path)
    objects: dict[str, str] = {}
    predicates: dict[str, tuple[str, ...]] = {}
    types: dict[str, str] = {}
    observed = None
    events: list[str] = []
    words: list[tuple[str, list[str], Span]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.split("#", 1)[0].rstrip()
        start = offset
        offset += len(line)
        if not body.strip():
            continue
        m = _DECLARATION.match(body)
        here = Span.of(text, start + len(body) - len(body.lstrip()), start + len(body))
        if m["other"] is not None:
            word = m["other"].split()[0]
            guess = nearest(word, ["type", "agent", "object", "predicate", "observed", "event", "words"])
            raise ScenarioError(f"unknown declaration {word!r}", span=here, source=text, path=path,
                                hint=(f"did you mean {guess!r}? " if guess else "")
                                + "lines start with type, agent, object, predicate, observed, event or words")
        kw, rest = m["kw"], m["rest"]
        rest_at = start + m.start("rest")

        def span_of(word: str) -> Span:
            at = rest.find(word)
            return Span.of(text, rest_at + at, rest_at + at + len(word)) if at >= 0 else here

        if kw == "words":
            key, sep, said = rest.partition("=")
            phrases = [" ".join(p.split()) for p in said.split("|")]
            if not sep or not key.strip() or not all(phrases):
                raise ScenarioError("cannot read this words line", span=here, source=text, path=path,
                                    hint="write words KEY = PHRASE, or several phrases separated by |, e.g. "
                                         "words at(_, spot2) = behind the building | around the corner")
            words.append((key.strip(), phrases, span_of(key.strip())))
            continue
        if kw == "predicate":
            pm = _PREDICATE.match(rest)
            if not pm:
                raise ScenarioError("cannot read this predicate declaration", span=here, source=text, path=path,
                                    hint="write predicate name(type, ...), e.g. predicate inside(thing, container)")
            name = pm["name"]
            if name in predicates:
                raise ScenarioError(f"predicate {name} is declared twice", span=span_of(name), source=text,
                                    path=path, hint="declare each predicate once")
            predicates[name] = tuple(a.strip() for a in pm["args"].split(",") if a.strip())
            places.spans[("predicate", name)] = span_of(name)
            continue
        if kw == "object":
            names, sep, kind = rest.partition(":")
            if not sep or len(kind.split()) != 1 or not names.split():
                raise ScenarioError("cannot read this object declaration", span=here, source=text, path=path,
                                    hint="write object NAME ... : TYPE, e.g. object basket box : container")
            kind, names = kind.strip(), names.split()
        elif kw == "agent":
            kind, names = AGENT, rest.split()
        elif kw == "event":
            kind, names = EVENT, rest.split()
            events += names
        elif kw == "type":
            child, sep, parent = rest.partition("<")
            if len(child.split()) != 1 or (sep and len(parent.split()) != 1):
                raise ScenarioError("cannot read this type declaration", span=here, source=text, path=path,
                                    hint="write type NAME or type NAME < PARENT")
            types[child.strip()] = parent.strip() if sep else ROOT
            places.spans[("type", child.strip())] = span_of(child.strip())
            continue
        else:  # observed
            if len(rest.split()) != 1:
                raise ScenarioError("cannot read this line", span=here, source=text, path=path,
                                    hint="write observed NAME, one of the agents")
            observed = rest.strip()
            places.spans[("observed", observed)] = span_of(observed)
            continue
        if not names:
            raise ScenarioError(f"no names in this {kw} declaration", span=here, source=text, path=path,
                                hint=f"e.g. {kw} sally anne" if kw == "agent" else "e.g. object basket box : container")
        for name in names:
            if name in objects:
                raise ScenarioError(f"object {name} is declared twice", span=span_of(name), source=text,
                                    path=path, hint="declare each object once")
            objects[name] = kind
            places.spans[("object", name)] = span_of(name)
    signature = _build(objects, predicates, agent=observed, types=types, derived=(), places=places, events=events)
    for key, phrases, span in words:   # once every object and predicate they may name is known
        try:
            signature = signature.with_words({key: phrases})
        except ScenarioError as error:
            raise ScenarioError(error.message, span=span, source=text, path=path, hint=error.hint) from None
    return signature


def read_domain(path: str | Path) -> Signature:
    """A signature from a ``.domain`` file (see :func:`parse_domain`)."""
    expect(path, (str, PathLike), "path", hint="the path of a .domain file, e.g. \"my.domain\"")
    return parse_domain(read_text(path, "domain"), path=str(path))
