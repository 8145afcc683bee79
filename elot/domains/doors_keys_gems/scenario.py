"""Scenarios: a map, the true initial state, the agent's actions, judgment points and
statements to judge.

A :class:`Scenario` is read from elot's ``.scn`` format by :mod:`elot.domains.doors_keys_gems.scn` (which
also holds the built-in examples) or from the LaBToM dataset by :mod:`elot.domains.doors_keys_gems.dataset`;
:func:`elot.domains.doors_keys_gems.load.load_scenario` tells the sources apart. This module holds the values
and the checks both readers make: every gem reachable when all doors are open
(:func:`check_gems_reachable`), every action possible when it is taken (:func:`replay`),
every judgment point within the plan (:func:`check_judgments`). Each raises a
:class:`~elot.errors.ScenarioError` naming the file, the line (and the step for actions)
and a hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

from elot.errors import ScenarioError, Span
from elot.statements import Statement  # the one statement record, from a file to its scores
from elot.settings import Mode
from elot.domains.doors_keys_gems.world import ARITY, Action, Layout, Pos, WorldState, fmt_pos



@dataclass(frozen=True)
class Scenario:
    """A layout, its TRUE initial state, the agent's actions, the judgment points (times
    t in 0..T, t = number of actions taken), the statements and the true goal.

    ``markers`` are the judgment markers as written in the source (for the dataset these
    include t = 0 and t = T, which are not judged; ``judgments`` leaves them out).
    ``action_lines`` gives each action's source line (None when unknown).
    """

    name: str
    layout: Layout
    initial: WorldState
    actions: tuple[Action, ...]
    judgments: tuple[int, ...]
    statements: tuple[Statement, ...] = ()
    true_goal: str | None = None
    path: str | None = None
    description: str = ""
    markers: tuple[int, ...] = ()
    action_lines: tuple[int | None, ...] = ()

    @property
    def T(self) -> int:  # noqa: N802 - the paper's name for the last time step
        """The number of actions."""
        return len(self.actions)

    @cached_property
    def _states(self) -> tuple[WorldState, ...]:
        states = [self.initial]
        for action in self.actions:
            states.append(states[-1].step(action))
        return tuple(states)

    def states(self) -> tuple[WorldState, ...]:
        """The true states s_0 .. s_T (computed once)."""
        return self._states

    def state_at(self, t: int) -> WorldState:
        """The true state after ``t`` actions."""
        return self._states[t]

    def statements_for(self, mode: Mode) -> tuple[Statement, ...]:
        """The statements about the ``current`` or the ``initial`` belief."""
        return tuple(s for s in self.statements if s.mode == mode)

    def signature_objects(self) -> dict[str, str]:
        """Every object of the scenario and its domain type (for an ELoT signature)."""
        return self.layout.objects()

    def signature(self):
        """The ELoT :class:`~elot.lang.signature.Signature` of this scenario's objects (built once)."""
        return self._signature

    @cached_property
    def _signature(self):
        from elot.lang.signature import Signature  # a sibling stage; imported when asked for

        signature = Signature.from_objects(self.signature_objects(), agent=self.layout.agent)
        return signature.with_words({signature.agent: "the player"}) if signature.agent != "player" else signature


# -- checks every reader makes ------------------------------------------------------


def check_gems_reachable(layout: Layout, start: Pos, fail) -> None:
    """Raise ``fail(message, gem, hint)`` for the first gem that cannot be reached from
    ``start`` even with every door unlocked."""
    reach = layout.reachable(start, through_doors=True)
    for gem, pos in layout.gems:
        if layout.in_bounds(pos) and pos not in reach:
            raise fail(
                f"{gem} at {fmt_pos(pos)} cannot be reached from the agent at {fmt_pos(start)}, "
                "even with every door unlocked",
                gem,
                "open a path through the walls, or remove the gem",
            )


def replay(
    initial: WorldState,
    actions: Sequence[Action],
    spans: Sequence[Span | None],
    *,
    path: str | None,
    source: str | None,
) -> tuple[WorldState, ...]:
    """s_0..s_T, or a ScenarioError naming the step, the line and the reason."""
    states = [initial]
    for step, (action, span) in enumerate(zip(actions, spans), start=1):
        reason = states[-1].why_not(action)
        if reason is not None:
            where = f" (line {span.line})" if span is not None else ""
            if action and action[0] not in ARITY:
                hint = f"actions are: {', '.join(ARITY)}"
            elif action and action[0] == "unlock" and " is " in reason and " but " in reason:
                hint = "a door opens only with a key of its own colour"
            else:
                hint = f"the agent is at {fmt_pos(states[-1].agent_pos)} before this step"
            raise ScenarioError(f"step {step}{where}: {reason}", path=path, source=source, span=span, hint=hint)
        states.append(states[-1]._apply(action))
    return tuple(states)


def check_judgments(judgments: Iterable[int], T: int, fail) -> tuple[int, ...]:
    """The judgment points sorted and without repeats; ``fail(message, t, hint)`` for one
    outside 0..T."""
    out = sorted(set(judgments))
    for t in out:
        if not 0 <= t <= T:
            raise fail(
                f"judgment point t={t} is past the end of the plan (T={T} actions)",
                t,
                f"judgment points must lie in 0..{T}",
            )
    return tuple(out)
