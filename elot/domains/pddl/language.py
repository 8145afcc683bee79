"""ELoT over a PDDL world: the signature from the domain and problem, its states as ELoT
states, and a goal posterior as the hypotheses a statement is judged on (docs/pddl.md).

**The signature.** Objects are the problem's objects and the domain's constants with their
PDDL types; the type hierarchy is the domain's ``:types``; predicates are the domain's, with
their argument types. PDDL names become ELoT names by lower case with ``-`` as ``_``
(``pick-up`` → ``pick_up``). What ELoT cannot say is left out, and listed by
:attr:`PddlLanguage.notes`: objects whose name is no ELoT name (PDDL.jl's numbers), predicates
without arguments (a bare name in ELoT is an object) and derived predicates (their truth is
not stored in a state). The observed agent is the problem's one object of type ``agent``, or
``player`` (every domain has one in ELoT, whether or not PDDL names it).

**Goals as objects.** Each candidate goal formula is an object of the signature, so that
``wants(player, G)`` can name it: the goal's own name where that is an object of the problem
(Doors-Keys-Gems' ``gem2``, the goal ``(has gem2)``), else a new object of type ``goal`` named
by the goal's name (Block-Words' ``power``, the tower p-o-w-e-r), or ``goal_<name>`` where the
name is taken (an operator, a predicate, a type, another object) or no ELoT name.

**Hypotheses.** :func:`goal_hypotheses` turns the goal posterior at a judgment point into
:class:`elot.judging.Hypotheses`: one row per candidate goal, weighted by its posterior, with
the goal prior as the rows' prior, the desire of row g being goal g (1 on it, 0 on the other
goals: :meth:`elot.judging.Desires.goals`), and, everything being visible, the state at the
judgment point both the true world and the agent's belief. So the P of ``wants(player, G)``
is the posterior of G (``prob_goal`` lowers it), and a statement about the state or the
agent's beliefs about it is judged in that state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from elot.domains.pddl import task as t
from elot.domains.pddl.errors import PddlError
from elot.judging import Desires, Hypotheses
from elot.lang.operators import OPERATORS, THRESHOLD_NAMES
from elot.lang.signature import PLAYER, Signature
from elot.lang.states import State

#: The type of the goal objects that are no object of the problem.
GOAL_TYPE = "goal"

_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")


def elot_name(name: str) -> str | None:
    """A PDDL name as an ELoT name (lower case, ``-`` as ``_``), None where it is none (a number)."""
    out = name.lower().replace("-", "_")
    return out if _NAME.match(out) else None


@dataclass(frozen=True)
class PddlLanguage:
    """The ELoT signature of a PDDL domain and problem with its candidate goals as objects.

    ``objects`` and ``predicates`` map PDDL names to ELoT names (only those ELoT can say);
    ``goals`` gives each candidate goal, in order, the object that names it; ``notes`` says
    what was left out, in words."""

    signature: Signature
    objects: tuple[tuple[str, str], ...]
    predicates: tuple[tuple[str, str], ...]
    goals: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def state(self, atoms) -> State:
        """The ELoT state of a PDDL state given as its true ground atoms (``(pred, arg, ...)``
        of PDDL names, as :meth:`elot.domains.pddl.ground.Grounded.atoms_of` gives them):
        the atoms over the signature's predicates and objects."""
        preds, objs = dict(self.predicates), dict(self.objects)
        out = []
        for pred, *args in atoms:
            if pred in preds and args and all(a in objs for a in args):
                out.append((preds[pred], *(objs[a] for a in args)))
        return State(frozenset(out))


def signature_of(domain: t.Domain, problem: t.Problem, goals: Sequence[str] = ()) -> PddlLanguage:
    """The ELoT signature of ``domain`` and ``problem`` with the candidate goals named
    ``goals`` (their names, in order: a word, a gem) as objects (see the module docstring)."""
    notes: list[str] = []
    types = {}
    for kind, parent in domain.types:
        name, up = elot_name(kind), elot_name(parent)
        if name is None or up is None:
            raise PddlError(f"the type {kind} has no ELoT name", path=domain.path,
                            hint="name PDDL types with a letter first")
        if name != up:
            types[name] = up
    objects: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for obj, kind in tuple(domain.constants) + tuple(problem.objects):
        name = elot_name(obj)
        if name is None:
            notes.append(f"object {obj} left out: {obj} is no ELoT name")
            continue
        if name in OPERATORS:
            notes.append(f"object {obj} left out: {name} is an operator of ELoT")
            continue
        objects[obj] = name
        kinds[name] = elot_name(kind) or "object"
    predicates: dict[str, str] = {}
    arg_types: dict[str, tuple[str, ...]] = {}
    derived = {d.name for d in domain.derived}
    for pred, args in domain.predicates:
        name = elot_name(pred)
        if pred in derived:
            notes.append(f"predicate {pred} left out: it is derived, its truth is not stored in a state")
        elif not args:
            notes.append(f"predicate {pred} left out: ELoT reads a name without arguments as an object")
        elif name is None or name in OPERATORS:
            notes.append(f"predicate {pred} left out: {name or pred} is no ELoT name for a predicate")
        else:
            predicates[pred] = name
            arg_types[name] = tuple(elot_name(a) or "object" for a in args)
    agents = [n for n, k in kinds.items() if k == "agent"]
    agent = agents[0] if len(agents) == 1 else PLAYER
    taken = (set(OPERATORS) | set(THRESHOLD_NAMES) | set(arg_types) | set(types) | set(types.values())
             | {"object", "agent", GOAL_TYPE, agent, PLAYER} | set(kinds))
    named: list[str] = []
    for goal in goals:
        name = elot_name(goal)
        if goal in objects:                         # the goal is an object of the problem: gem2
            named.append(objects[goal])
            continue
        if name is None or name in taken or name in named:
            name = "goal_" + re.sub(r"[^A-Za-z0-9_]", "_", goal.lower())
            while name in taken or name in named or not _NAME.match(name):
                name = name + "_"
        named.append(name)
        kinds[name] = GOAL_TYPE
    if any(kinds.get(n) == GOAL_TYPE for n in named):
        types[GOAL_TYPE] = "object"
    signature = Signature.from_objects(kinds, agent=agent, predicates=arg_types, types=types, derived=())
    return PddlLanguage(signature, tuple(objects.items()), tuple(predicates.items()), tuple(named), tuple(notes))


def goal_hypotheses(language: PddlLanguage, posterior, state: State, prior=None) -> Hypotheses:
    """The hypotheses a statement is judged on at a judgment point: one row per candidate
    goal (``language.goals``), weighted by ``posterior`` (``float[G]``, the goal posterior
    there), with ``prior`` (the goal prior, uniform by default) as the rows' prior, each
    row's desire its goal, and ``state`` (the ELoT state there, :meth:`PddlLanguage.state`)
    both the world and what the agent believes (everything is visible)."""
    weights = np.asarray(posterior, dtype=np.float64).reshape(-1)
    n = len(language.goals)
    if len(weights) != n or not np.all(np.isfinite(weights)) or weights.min() < 0 or not weights.sum() > 0:
        raise PddlError(f"a goal posterior is {n} probabilities, one per candidate goal, not {weights!r:.80}",
                        hint="give the posterior at the judgment point, in the order of the goals")
    prior = np.full(n, 1.0 / n) if prior is None else np.asarray(prior, dtype=np.float64).reshape(-1)
    if len(prior) != n:
        raise PddlError(f"a goal prior is {n} weights, one per candidate goal", hint="or leave it out: uniform")
    signature = language.signature
    return Hypotheses(signature, (state,), np.zeros(n, dtype=np.intp), {signature.agent: np.ones((n, 1))},
                      weights / weights.sum(), prior=prior, labels=language.goals, per_agent=False,
                      desires=Desires.goals(language.goals, np.arange(n)))
