"""The domain signature: objects, their domain types, predicates and the type hierarchy.

The typechecker asks the signature which names are objects and predicates and what
their types are; the evaluator asks it which objects a quantifier ranges over. The
default is Doors, Keys & Gems (the predicates of the dataset's ``domain.pddl``) with a
generous set of objects; :func:`elot.domains.doors_keys_gems.pddl.signature_of` takes the objects of a problem file
and :meth:`Signature.from_objects` builds one by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Iterable, Mapping

from elot.errors import ScenarioError, expect, nearest

#: The name formulas use for the observed agent, whatever the scenario calls it.
PLAYER = "player"

#: Doors, Keys & Gems type hierarchy: each type and its parent (``object`` is the root).
DKG_TYPES: dict[str, str] = {
    "key": "item",
    "gem": "item",
    "item": "physical",
    "box": "physical",
    "door": "physical",
    "agent": "physical",
    "physical": "object",
    "color": "object",
}

#: Doors, Keys & Gems predicates and their argument types (from ``domain.pddl``).
DKG_PREDICATES: dict[str, tuple[str, ...]] = {
    "has": ("agent", "item"),
    "iscolor": ("physical", "color"),
    "offgrid": ("item",),
    "locked": ("door",),
    "closed": ("box",),
    "empty": ("box",),
    "hidden": ("item",),
    "inside": ("item", "box"),
}

#: Predicates computed from the others rather than stored in states.
DKG_DERIVED = frozenset({"empty"})

#: The type of events (SPEC §10: what happened, and who perceived it). A domain with events
#: (``declare(..., events=["move"])``, or ``event move`` in a .domain file) has the two
#: percept predicates below; each is an ordinary atom of a *situation* (the world with what
#: each agent perceived), typed, lowered, evaluated and said in English like any other.
EVENT = "event"
#: ``observed(agent, event)``: the agent perceived the event ("Sally saw the marble being
#: moved"); ``happened(event)``: the event took place ("the marble was moved").
PERCEPT_PREDICATES: dict[str, tuple[str, ...]] = {"observed": ("agent", EVENT), "happened": (EVENT,)}


def _default_objects() -> dict[str, str]:
    objects: dict[str, str] = {}
    for kind, count in (("box", 5), ("key", 5), ("gem", 4), ("door", 4)):
        objects.update({f"{kind}{i}": kind for i in range(1, count + 1)})
    objects.update({color: "color" for color in ("red", "blue", "yellow", "green")})
    objects[PLAYER] = "agent"
    return objects


@dataclass(frozen=True)
class Signature:
    """Objects with their domain types, predicates with argument types, the type
    hierarchy and agent aliases. Immutable and hashable (compiled formulas are cached
    per signature); build one with :meth:`default`, :meth:`from_objects` or
    :func:`elot.domains.doors_keys_gems.pddl.signature_of`."""

    objects: tuple[tuple[str, str], ...]
    predicates: tuple[tuple[str, tuple[str, ...]], ...]
    parents: tuple[tuple[str, str], ...]
    agent: str
    aliases: tuple[tuple[str, str], ...] = ()
    derived: frozenset[str] = field(default=DKG_DERIVED)
    #: English for the domain (:meth:`with_words`): ``(ELoT, phrase)`` pairs, an object
    #: (``("mexican", "the Mexican truck")``) or an atom about ``_``, the subject of a clause
    #: (``("at(_, spot2)", "behind the building")``). The first phrase given for a name is
    #: how English output says it; the offline translator reads every one.
    words: tuple[tuple[str, str], ...] = ()

    # -- constructors ------------------------------------------------------------------

    @staticmethod
    def default() -> "Signature":
        """Doors, Keys & Gems with box1..box5, key1..key5, gem1..gem4, door1..door4, the
        colours red, blue, yellow, green and the agent ``player``."""
        return _DEFAULT

    @staticmethod
    def from_objects(
        objects: Mapping[str, str],
        *,
        agent: str | None = None,
        predicates: Mapping[str, Iterable[str]] | None = None,
        types: Mapping[str, str] | None = None,
        derived: Iterable[str] = DKG_DERIVED,
    ) -> "Signature":
        """A signature over the given objects (name → domain type).

        ``agent`` names the observed agent (default: the only object of type ``agent``,
        else ``player``); ``player`` becomes its alias. Predicates and types default to
        Doors, Keys & Gems.
        """
        types = dict(DKG_TYPES if types is None else types)
        types.setdefault("agent", "object")  # every domain has agents; no need to restate it
        predicates = {k: tuple(v) for k, v in (DKG_PREDICATES if predicates is None else predicates).items()}
        known = set(types) | set(types.values()) | {"object"}
        for name, domain in objects.items():
            if domain not in known:
                raise ScenarioError(
                    f"object {name!r} has unknown type {domain!r}",
                    hint=f"known types: {', '.join(sorted(known))}",
                )
        if agent is None:
            agents = [n for n, d in objects.items() if d == "agent"]
            agent = agents[0] if len(agents) == 1 else PLAYER
        objects = dict(objects)
        objects.setdefault(agent, "agent")
        aliases = () if agent == PLAYER else ((PLAYER, agent),)
        return Signature(
            objects=tuple(sorted(objects.items())),
            predicates=tuple(sorted(predicates.items())),
            parents=tuple(sorted(types.items())),
            agent=agent,
            aliases=aliases,
            derived=frozenset(derived),
        )

    @staticmethod
    def given(signature: "Signature | None", name: str = "signature") -> "Signature":
        """``signature``, or the default when it is None; anything else is an
        :class:`~elot.errors.ArgumentError` naming the argument."""
        if signature is None:
            return Signature.default()
        return expect(signature, Signature, name,
                      hint="Signature.default(), elot.declare(...) or elot.read_domain(path)")

    def with_words(self, words: Mapping[str, str | Iterable[str]]) -> "Signature":
        """This signature with English for its objects and atoms: ``{ELoT: phrase or
        phrases}``, e.g. ``{"mexican": ["the Mexican truck", "the Mexican food truck"],
        "at(_, spot2)": "behind the building", "student": "the student"}``. A key is an
        object of the signature, or an atom whose first argument is ``_`` (the subject:
        "the Lebanese truck is behind the building") and whose other arguments are objects.
        Phrases add to those already given; the first one for a key is how it is said."""
        from elot.lang.parser import parse
        from elot.lang.syntax import Call, Const, Var

        expect(words, Mapping, "words", hint='e.g. {"mexican": "the Mexican truck", "at(_, spot2)": "behind the building"}')
        pairs = list(self.words)
        for key, phrases in words.items():
            phrases = [phrases] if isinstance(phrases, str) else list(phrases)
            if not isinstance(key, str) or not phrases or not all(isinstance(p, str) and p.strip() for p in phrases):
                raise ScenarioError(f"words for {key!r} must be a phrase or a list of phrases",
                                    hint='e.g. {"mexican": ["the Mexican truck"]}')
            if key in self.object_types:
                canonical = key
            else:
                try:
                    term = parse(key.replace("(_", "(Subject_"))
                except Exception:  # noqa: BLE001 - any parse failure is the same mistake
                    term = None
                good = (isinstance(term, Call) and term.name in self.predicate_types and term.args
                        and isinstance(term.args[0], Var) and len(term.args) == len(self.predicate_types[term.name])
                        and all(isinstance(a, Const) and a.name in self.object_types for a in term.args[1:]))
                if not good:
                    raise ScenarioError(f"words are for objects or atoms about _, not {key!r}",
                                        hint="give an object (mexican) or an atom such as at(_, spot2) over "
                                             "the signature's predicates and objects")
                canonical = f"{term.name}({', '.join(['_'] + [a.name for a in term.args[1:]])})"
            pairs += [(canonical, " ".join(p.split())) for p in phrases]
        return replace(self, words=tuple(dict.fromkeys(pairs)))

    def is_percept(self, name: str) -> bool:
        """Whether ``name`` is a percept predicate of this domain (:data:`PERCEPT_PREDICATES`,
        with the argument types given there)."""
        return self.predicate_types.get(name) == PERCEPT_PREDICATES.get(name, ())

    def phrases(self, key: str) -> tuple[str, ...]:
        """The English given for an object or an atom about ``_`` (:meth:`with_words`)."""
        return tuple(p for k, p in self.words if k == key)

    # -- lookups -------------------------------------------------------------------------

    @cached_property
    def object_types(self) -> dict[str, str]:
        """Object name → domain type, aliases included."""
        table = dict(self.objects)
        for alias, target in self.aliases:
            table.setdefault(alias, table[target])
        return table

    @cached_property
    def predicate_types(self) -> dict[str, tuple[str, ...]]:
        """Predicate name → argument domain types."""
        return dict(self.predicates)

    @cached_property
    def parent(self) -> dict[str, str]:
        """Domain type → its parent type."""
        return dict(self.parents)

    @cached_property
    def domains(self) -> frozenset[str]:
        """Every domain type, ``object`` included (each is also a unary type predicate)."""
        return frozenset(self.parent) | frozenset(self.parent.values()) | {"object"}

    def resolve(self, name: str) -> str:
        """The object a name denotes (``player`` → the scenario's agent)."""
        for alias, target in self.aliases:
            if alias == name:
                return target
        return name

    def is_subdomain(self, sub: str, sup: str) -> bool:
        """Whether domain type ``sub`` is ``sup`` or below it in the hierarchy."""
        seen = set()
        while sub not in seen:
            if sub == sup or sup == "object":
                return True
            seen.add(sub)
            if sub not in self.parent:
                return False
            sub = self.parent[sub]
        return False

    def ancestors(self, domain: str) -> list[str]:
        """``domain`` and its supertypes, most specific first."""
        out = [domain]
        while out[-1] in self.parent and self.parent[out[-1]] not in out:
            out.append(self.parent[out[-1]])
        if out[-1] != "object":
            out.append("object")
        return out

    def meet(self, a: str, b: str) -> str | None:
        """The more specific of two comparable domain types, None if they are disjoint."""
        if self.is_subdomain(a, b):
            return a
        if self.is_subdomain(b, a):
            return b
        return None

    def join(self, a: str, b: str) -> str:
        """The most specific common supertype of two domain types."""
        up = self.ancestors(b)
        return next(t for t in self.ancestors(a) if t in up)

    def objects_of(self, domain: str) -> tuple[str, ...]:
        """The objects whose type is ``domain`` or below it, in name order."""
        found = self._objects_of.get(domain)
        if found is None:  # asked once per bound variable: a condition may bind thousands
            found = self._objects_of[domain] = tuple(
                name for name, d in self.objects if self.is_subdomain(d, domain))
        return found

    @cached_property
    def _objects_of(self) -> dict[str, tuple[str, ...]]:
        return {}

    def suggest(self, name: str, candidates: Iterable[str]) -> str | None:
        """The closest known name to a misspelt one (difflib), if any is close."""
        return nearest(name, candidates) or None


_DEFAULT = Signature.from_objects(_default_objects(), agent=PLAYER)
