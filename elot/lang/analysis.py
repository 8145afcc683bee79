"""What a lowered formula is made of: its ground ``prob_of`` terms (and ``utility_of``,
``prob_goal`` for desires) and the thresholds it compares them with (the REPL's
``:explain`` shows these per hypothesis).

Pure functions of a lowered term and a signature; nothing here knows about scenarios or
inference. :func:`prob_columns` evaluates each term over rows of hypotheses given as
:meth:`elot.lang.semantics.CompiledFormula.value` takes them.
"""

from __future__ import annotations

import itertools
from typing import Iterator, Sequence

import numpy as np

from elot.lang.bindings import infer_bindings
from elot.lang.operators import DESIRE_PRIMITIVES
from elot.lang.printer import pretty
from elot.lang.semantics import compile_formula
from elot.lang.signature import Signature
from elot.lang.syntax import QUANTIFIERS, Call, Const, Term, free_variables, subterms, substitute
from elot.lang.thresholds import Thresholds


#: The numbers of a lowered formula read from a hypothesis: its probabilities, and what
#: the agent wants (``utility_of``, ``prob_goal``).
HYPOTHESIS_NUMBERS = ("prob_of",) + DESIRE_PRIMITIVES


def prob_terms(lowered: Term, signature: Signature) -> list[Term]:
    """The ``prob_of`` terms of a lowered formula (and its ``utility_of`` and ``prob_goal``
    terms), ground: a term under quantifiers is instantiated with every object its bound
    variables can take (by their inferred domain types), so each is one number per
    hypothesis."""
    found: list[Term] = []

    def walk(node: Term, domains: dict[str, str | None]) -> None:
        if not isinstance(node, Call):
            return
        bound = frozenset(domains)
        if node.name in HYPOTHESIS_NUMBERS:
            # The outer variables φ mentions, including those an inner condition tests
            # (SPEC §2: a condition does not rebind an outer variable).
            variables = sorted(free_variables(node, bound))
            for binding in bindings(variables, domains, signature):
                found.append(substitute(node, binding, bound))
            return
        if node.name in QUANTIFIERS and len(node.args) == 2:
            inner = dict(domains)
            inner.update(infer_bindings(node.args[0], node.args[1:], signature, bound))
            for arg in node.args:
                walk(arg, inner)
            return
        for arg in node.args:
            walk(arg, domains)

    walk(lowered, {})
    return list(dict.fromkeys(found))


def bindings(variables: Sequence[str], domains: dict[str, str | None],
             signature: Signature) -> Iterator[dict[str, Const]]:
    """Every assignment of objects to ``variables``, each ranging over the objects of its
    domain type in ``domains`` (a variable of unknown domain has none, so no assignment),
    the first variable's object changing slowest."""
    pools = [signature.objects_of(domains[v]) if domains.get(v) else () for v in variables]
    for objects in itertools.product(*pools):
        yield {v: Const(name=o) for v, o in zip(variables, objects)}


def prob_columns(lowered: Term, signature: Signature, thresholds: Thresholds, worlds, beliefs,
                 true_index, desires=None, belief_tables=None) -> list[tuple[str, np.ndarray]]:
    """``(printed term, its value per row)`` for each of :func:`prob_terms`, the
    informative columns first (those whose value varies most across the rows);
    ``desires``: the rows' desires on the desire scale, for ``utility_of``/``prob_goal``;
    ``belief_tables``: each agent's belief in each situation, for nested beliefs."""
    columns = [(pretty(term), compile_formula(term, signature, thresholds).value(
                    worlds, beliefs, true_index, desires=desires, belief_tables=belief_tables))
               for term in prob_terms(lowered, signature)]
    columns.sort(key=lambda c: -float(np.ptp(c[1])))
    return columns


def thresholds_used(lowered: Term, thresholds: Thresholds) -> list[tuple[str, float]]:
    """``(name, value)`` of each threshold a lowered formula compares with, named ones
    (``threshold(believes)``) first in alphabetical order, then the ``most`` thresholds
    of quantified ones, without repeats."""
    names = sorted({a.args[0].name for a in subterms(lowered)
                    if isinstance(a, Call) and a.name == "threshold" and a.args
                    and isinstance(a.args[0], Const)})
    used = [(name, thresholds.value(name)) for name in names]
    for a in subterms(lowered):
        if isinstance(a, Call) and a.name == "threshold" and a.args and isinstance(a.args[0], Call):
            used.append((pretty(a.args[0]), thresholds.most(a.args[0].args[0].name)))
    return list(dict.fromkeys(used))


__all__ = ["prob_terms", "bindings", "prob_columns", "thresholds_used"]
