"""The Sally–Anne false-belief task, judged with ELoT over a hand-written belief model.

Sally puts her marble in the basket and leaves; Anne moves it to the box; Sally comes back
and, later, looks in the basket. The observer is not quite sure Sally saw nothing: she
may have peeked through the window (probability 0.1). Each hypothesis is one way things
might be (the world, Sally's belief, Anne's belief) with its probability.

Run it (from the repository root): ``python examples/embedding/sally_anne.py``.
Query it interactively: ``elot repl --belief-model examples/embedding/sally_anne.py``.
"""

from __future__ import annotations

from pathlib import Path

from elot.embedding import judge, judge_series, read_domain
from elot.lang.states import State

#: The domain, declared in a few lines of text (sally_anne.domain).
DOMAIN = read_domain(Path(__file__).with_name("sally_anne.domain"))

STORY = (
    "Sally puts the marble in the basket",
    "Sally leaves the room",
    "Anne moves the marble to the box",
    "Sally comes back",
    "Sally looks in the basket",
)

STATEMENTS = {
    "Sally thinks the marble is in the basket": "believes(sally, formula(inside(marble, basket)))",
    "Sally knows where the marble is": "knows_about(sally, container(C), inside(marble, C))",
    "Anne knows where the marble is": "knows_about(anne, container(C), inside(marble, C))",
    "Sally and Anne disagree about where it is": "exists(container(C), and(believes(sally, formula(inside(marble, C))), "
                                                 "not(believes(anne, formula(inside(marble, C))))))",
}


def world(marble: str, *present: str) -> State:
    """A world state: where the marble is and who is in the room (checked against the domain)."""
    atoms = [f"inside(marble, {marble})"] + [f"in_room({a})" for a in present]
    return State.parse(", ".join(atoms), signature=DOMAIN)


class SallyAnne:
    """A belief model (see elot.embedding.BeliefModel): ``signature``, ``times`` and
    ``hypotheses(t)`` returning (world, {agent: belief}, weight) triples."""

    name = "sally-anne"
    signature = DOMAIN
    times = range(len(STORY))
    judgments = (2, 3, 4)

    def __init__(self, peek: float = 0.1) -> None:
        self.peek = peek

    def label(self, t: int) -> str:
        """What happened just before step t (shown by the REPL)."""
        return STORY[t]

    def hypotheses(self, t: int):
        where = "basket" if t < 2 else "box"
        present = ("sally", "anne") if t in (0, 3, 4) else ("anne",)
        truth = world(where, *present)
        # Sally's belief: the room as it is, the marble where she last saw it.
        if t < 2:
            return [(truth, {"sally": truth, "anne": truth}, 1.0)]
        seen_move = world("box", *present)
        missed_move = world("basket", *present)
        if t == 4:  # the basket is empty: now she knows
            return [(truth, {"sally": seen_move, "anne": truth}, 1.0)]
        return [
            (truth, {"sally": missed_move, "anne": truth}, 1.0 - self.peek),  # she did not peek
            (truth, {"sally": seen_move, "anne": truth}, self.peek),          # she peeked
        ]


model = SallyAnne()


def main() -> None:
    print(f"Sally–Anne: normalized likelihood L of each statement at each step "
          f"(the observer thinks Sally peeked with probability {model.peek:g})")
    for t in model.times:
        print(f"  t={t}: {model.label(t)}")
    width = max(map(len, STATEMENTS))
    print(" " * width + "".join(f"{f't={t}':>6}" for t in model.times))
    for sentence, formula in STATEMENTS.items():
        series = judge_series(formula, model)
        print(sentence.ljust(width) + "".join(f"  {j.L:.2f}" for j in series))
    before, after = (judge(STATEMENTS["Sally thinks the marble is in the basket"], model, t=t) for t in (3, 4))
    print(f"Sally thinks the marble is in the basket, when she comes back: {before}; after looking: {after}")


if __name__ == "__main__":
    main()
