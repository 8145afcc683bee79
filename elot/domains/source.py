"""What a domain's run gives every command: a :class:`Source`, the judged run elot's score
loop scores statements on and that reports itself to every output (terminal, ``--csv``,
``--json``, batch tables), with the tables it prints (:class:`Summary`) and, for the REPL's
``:map``, its scene as text (:class:`TextMap`). A front (:mod:`elot.domains.front`) makes
one; the defaults here are what every domain shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from elot.engine.settings import Settings
from elot.errors import ElotError
from elot.settings import CURRENT, INITIAL


class MissingHook(ElotError):
    """A command needs a hook the domain does not implement."""

    kind = "missing hook"


@dataclass(frozen=True)
class Summary:
    """A table a run prints above its statements (the gridworld: the goal posterior at each
    judgment point; a tabular domain: its outputs at the end): a title, column headers
    (``justify`` ``left`` or ``right`` each), rows of cells, and a note printed under it."""

    title: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


@dataclass(frozen=True)
class TextMap:
    """A scene as text (the REPL's ``:map``): a ``width`` × ``height`` grid (x from 1 to the
    right, y from 1 down), its labelled ``cells`` (position -> (label, terminal style)), the
    cells the agent ``walked``, and the ``legend`` under it as (text, style) pieces."""

    width: int
    height: int
    cells: dict
    walked: frozenset
    legend: tuple[tuple[str, str], ...] = ()


class Source:
    """A scenario run under settings: the judged source elot's score loop scores statements
    on (``judged(t, at)``: the hypotheses at t, with beliefs at ``at``: t, or 0 for a
    statement about the initial belief) and what its outputs report. A front's
    :meth:`Front.run` makes one; the defaults here are what every domain shares."""

    front: Any             # the elot.domains.front.Front that made it
    episode: Any           # its elot.domains.front.Episode
    settings: Settings         # what ran: auto's choice and the seed drawn, resolved
    conventions = "elot"

    @property
    def name(self) -> str:
        return self.episode.name

    @property
    def judgments(self) -> tuple[int, ...]:
        return self.episode.judged

    @property
    def steps(self) -> int:
        return self.episode.horizon

    @property
    def times(self) -> range:
        return range(self.episode.horizon + 1)

    @property
    def model(self) -> str:
        return self.settings.model.name

    @property
    def beta(self) -> float:
        return self.settings.model.beta

    @property
    def signature(self):
        raise NotImplementedError

    #: Whether the figures are estimates (particles), whose scores carry standard errors.
    estimated = False

    def judged(self, t: int, at: int):
        raise NotImplementedError

    def at(self, t: int, mode: str):
        """The rows at t for a statement about the ``mode`` belief (the current one: at t;
        the initial one: at 0, weighted by the posterior at t)."""
        return self.judged(t, 0 if mode == INITIAL else t)

    def hypotheses(self, t: int):
        """The rows at t about the current belief (what the REPL and a belief model ask)."""
        return self.at(t, CURRENT)

    def initial_hypotheses(self, t: int):
        return self.at(t, INITIAL)

    def refuse(self, compiled, mode: str, t: int) -> None:
        """Refuse, with the reason, a formula this run cannot judge in ``mode`` at t (its
        domain's rule, :meth:`Front.refuse`)."""
        if self.front is not None:
            self.front.refuse(self.episode, compiled, mode, t)

    def admit(self, statements: Sequence) -> list:
        """The statements with those this run cannot judge marked failed (each with its
        reason); the others as they are."""
        return self.front.admitted(self.episode, statements) if self.front is not None else list(statements)

    #: What the hidden worlds are (``:worlds``, ``:beliefs``) and how ``:worlds`` titles them.
    worlds_noun = "world"
    worlds_title = "world"

    def world_label(self, state) -> str:
        return str(state) or "(no atoms)"

    def world_posterior(self, t: int) -> list[tuple[str, float]]:
        """P(hidden world | what was seen up to t), each world by its label."""
        rows = self.at(t, CURRENT)
        return [(self.world_label(w), float(p)) for w, p in zip(rows.worlds, rows.world_posterior())]

    def belief_posterior(self, t: int) -> list[tuple[str, float]]:
        """The agent's belief over the worlds at t, averaged over hypotheses by posterior."""
        from elot.numeric import dot_columns

        rows = self.at(t, CURRENT)
        agent = self.signature.agent
        if agent not in rows.beliefs:
            raise ElotError(f"no belief of {agent} is known at t={t}", hint="try :initial, or :goto 0")
        average = dot_columns(rows.weights, rows.beliefs[agent])
        return [(self.world_label(w), float(p)) for w, p in zip(rows.worlds, average)]

    def belief_title(self, t: int, agent: str) -> str:
        """The title of ``:beliefs`` at t; ``agent`` is how English names the agent ("the student")."""
        return f"{agent}'s belief over {self.worlds_noun}s at t={t}"

    def label(self, t: int) -> str:
        """What happened at step t (1..T): its domain's :meth:`~elot.domains.front.Front.label`."""
        return self.front.label(self.episode, t) if self.front is not None else ""

    def how(self) -> str:
        """How the run inferred, in a few words (under particles: how many), or ''."""
        return ""

    def goal_posterior(self, t: int) -> dict[str, float]:
        raise MissingHook(f"the {self.front.name} domain reports no goals", hint="ask about its outputs")

    # -- what a run reports --------------------------------------------------------------

    def header(self, times: Sequence[int]) -> list[str]:
        """Lines (rich markup) printed before the tables: what ran."""
        return [f"[bold]{self.name}[/bold]"]

    def summary(self, times: Sequence[int]) -> Summary | None:
        """The table printed above the statements."""
        return None

    def csv_columns(self, t: int) -> dict:
        """Cells a ``--csv`` row at t adds after the statement's scores."""
        return {}

    def report_head(self) -> dict:
        """``--json``'s fields before the judgments."""
        return {"scenario": self.name, "model": self.model}

    def report_at(self, t: int) -> dict:
        """``--json``'s fields of the judgment at t, before its statements."""
        return {}

    def report_tail(self, times: Sequence[int]) -> dict:
        """``--json``'s fields after the judgments and the statements skipped."""
        return {}

    def table_columns(self) -> dict:
        """A batch table's cells that say how the run ran (model, beta, k, conventions, and
        under particles inference, particles, seed)."""
        return {"model": self.model, "beta": self.beta, "k": "", "conventions": self.conventions}

    def diagnostics(self, t: int) -> dict:
        """A batch table's cells at t (under particles: the effective sample size and a
        warning when the estimate is poor)."""
        return {}

    def percept_cells(self, t: int) -> dict:
        """A batch table's ``percepts`` cell at t, where the domain has events (the posterior
        that each agent saw each event and that each event happened); else none."""
        return {}
