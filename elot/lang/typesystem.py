"""ELoT types (SPEC §2) as small frozen values compared structurally.

==========  =========================================================================
``A``        an agent (``player``); an object of domain type ``agent`` is one too
``O[d]``     an object of domain type ``d`` (``box``, ``key``, ``item``, ...)
``Φ``        a base formula (first-order logic over the domain's predicates)
``Prop``     a quoted base formula ``formula(φ)``
``Φ_F``      a numeric term (``prob_of(A, φ)``, ``threshold(might)``, ``0.2``)
``P``        a gradable adjective (``likely``, ``unlikely``)
``E``        an epistemic formula; ``Φ`` is a subtype of ``E``
``X/Y``      a function from ``X`` to ``Y``: ``E/A`` is a modal, ``Φ/O`` a condition
``Var``      a variable declared by ``most``/``least`` (``X`` in ``most(P, o, X, C, φ)``)
==========  =========================================================================

Subtyping among object types depends on the domain's type hierarchy, which lives in the
signature (:meth:`elot.lang.signature.Signature.is_subdomain`); :func:`is_subtype` takes it as
a function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union


@dataclass(frozen=True)
class Simple:
    """A type without parameters: ``A``, ``Φ``, ``Prop``, ``Φ_F``, ``P``, ``E``, ``Var``."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Obj:
    """``O[domain]``: an object of a domain type such as ``box`` or ``item``."""

    domain: str

    def __str__(self) -> str:
        return f"O[{self.domain}]"


@dataclass(frozen=True)
class Fn:
    """``X/Y``: a function from ``X`` to ``Y`` (``E/A`` modal, ``Φ/O`` condition)."""

    arg: "Type"
    result: "Type"

    def __str__(self) -> str:
        return f"{self.result}/{self.arg}"


Type = Union[Simple, Obj, Fn]

AGENT = Simple("A")
BASE = Simple("Φ")
PROP = Simple("Prop")
NUMERIC = Simple("Φ_F")
ADJECTIVE = Simple("P")
EPISTEMIC = Simple("E")
VARIABLE = Simple("Var")
MODAL = Fn(AGENT, EPISTEMIC)          # E/A
CONDITION = Fn(Obj("object"), BASE)   # Φ/O

#: Words for types in error messages (users think in these, not in symbols).
DESCRIPTIONS = {
    AGENT: "an agent",
    BASE: "a base formula",
    PROP: "a quoted formula formula(...)",
    NUMERIC: "a number",
    ADJECTIVE: "an adjective (likely or unlikely)",
    EPISTEMIC: "an epistemic formula",
    VARIABLE: "a variable",
    MODAL: "a modal (E/A)",
    CONDITION: "a condition (Φ/O)",
}


def describe(t: Type) -> str:
    """``t`` in words, with its symbol: ``a base formula (Φ)``."""
    if isinstance(t, Obj):
        return f"an object of type {t.domain} ({t})"
    return f"{DESCRIPTIONS.get(t, 'a term')} ({t})"


def is_subtype(sub: Type, sup: Type, is_subdomain: Callable[[str, str], bool]) -> bool:
    """``sub <: sup``: reflexive; ``Φ <: E``; ``O[d] <: O[e]`` when ``d`` is below ``e``;
    ``O[agent] <: A`` (an agent object is an agent)."""
    if sub == sup:
        return True
    if sub == BASE and sup == EPISTEMIC:
        return True
    if isinstance(sub, Obj) and isinstance(sup, Obj):
        return is_subdomain(sub.domain, sup.domain)
    if isinstance(sub, Obj) and sup == AGENT:
        return is_subdomain(sub.domain, "agent")
    return False
