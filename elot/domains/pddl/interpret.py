"""A plain Python successor function over the lifted domain: no grounding, no bitsets.

A state is ``(frozenset of dynamic ground atoms, tuple of dynamic fluent values)``; each call
binds every action's parameters, evaluates its precondition against the state and applies its
effects. It is the baseline ``benchmarks/pddl_grounding.py`` measures the compiled search
against, and a third reading of the semantics beside the grounder's rows.
"""

from __future__ import annotations

from collections import deque

from elot.domains.pddl.ground import _bindings, _Ctx
from elot.domains.pddl import task as t


def _holds(x, atoms) -> bool:
    if x is True or x is False:
        return x
    if x[0] == "lit":
        return (x[1] in atoms) == x[2]
    parts = (_holds(p, atoms) for p in x[1])
    return all(parts) if x[0] == "and" else any(parts)


class Interpreter:
    """``successors(state)``: ``[(action, next state), ...]`` in the domain's action order."""

    def __init__(self, domain: t.Domain, problem: t.Problem) -> None:
        self.ctx = _Ctx(domain, problem)
        self.keys = self.ctx.fluent_keys
        self.init = (self.ctx.init_dynamic, tuple(self.ctx.init_fluents[k] for k in self.keys))

    def successors(self, state):
        atoms, values = state
        val = dict(zip(self.keys, values))
        out = []
        for action in self.ctx.domain.actions:
            for env, combo in _bindings(self.ctx, action):
                if not _holds(self.ctx.simplify(action.precondition, env, val), atoms):
                    continue
                adds, dels, updates = set(), set(), {}
                self.ctx.effects(action.effect, env, val, adds, dels, updates)
                nxt = ((atoms - dels) | adds, tuple(updates.get(k, v) for k, v in zip(self.keys, values)))
                out.append(((action.name, combo), nxt))
        return out

    def reachable(self, limit: int | None = None) -> int:
        """How many states a breadth-first search with :meth:`successors` reaches."""
        seen, queue = {self.init}, deque([self.init])
        while queue and (limit is None or len(seen) < limit):
            for _, nxt in self.successors(queue.popleft()):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return len(seen)
