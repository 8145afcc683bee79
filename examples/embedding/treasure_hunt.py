"""A treasure hunt with two onlookers whose beliefs differ, as an array-backed belief model.

A magician hides a red key and a blue key in two of four boxes. Alice watches the red key
being hidden but looks away for the blue one; Bob half-sees the red one and watches the
blue one closely. The observer (us) does not know where the keys are, nor how well each
onlooker saw: each hypothesis is a placement of the keys and one level of attention for
Alice and one for Bob; each onlooker's belief follows from what they saw. That makes
12 placements x 25 x 25 attention levels = 7500 hypotheses, given to elot as arrays and
judged in one vectorized pass per statement.

Run it (from the repository root): ``python examples/embedding/treasure_hunt.py``.
Query it interactively: ``elot repl --belief-model examples/embedding/treasure_hunt.py``.
"""

from __future__ import annotations

import itertools

import numpy as np

from elot.embedding import Hypotheses, declare, judge, judge_series
from elot.lang.states import State

#: The domain in a few lines of Python: objects by type, predicates with argument types.
DOMAIN = declare(
    objects={"agent": ["alice", "bob"], "box": ["box1", "box2", "box3", "box4"],
             "key": ["key1", "key2"], "color": ["red", "blue"]},
    predicates={"inside": ("key", "box"), "iscolor": ("key", "color")},
)
BOXES = ("box1", "box2", "box3", "box4")
#: Every placement of the red key (key1) and the blue key (key2) in two different boxes.
PLACEMENTS = [(r, b) for r, b in itertools.product(range(4), repeat=2) if r != b]
WORLDS = [State.parse(f"inside(key1, {BOXES[r]}), inside(key2, {BOXES[b]}), iscolor(key1, red), "
                      f"iscolor(key2, blue)", signature=DOMAIN) for r, b in PLACEMENTS]
STORY = ("before the keys are hidden", "the red key is hidden", "the blue key is hidden")

RED_IN = "exists(and(key(K), iscolor(K, red)), inside(K, {}))"
BLUE_IN = "exists(and(key(K), iscolor(K, blue)), inside(K, {}))"
STATEMENTS = {
    "Alice thinks the red key is in box 2": f"believes(alice, formula({RED_IN.format('box2')}))",
    "Bob is unsure if red is in box 1 or box 2": f"uncertain_if(bob, formula({RED_IN.format('box1')}), "
                                                 f"formula({RED_IN.format('box2')}))",
    "Alice thinks box 2 is likelier than box 3 for red": f"believes(alice, more(likely, {RED_IN.format('box2')}, "
                                                         f"{RED_IN.format('box3')}))",
    "Alice is surer than Bob that red is in box 2": f">(prob_of(alice, {RED_IN.format('box2')}), "
                                                    f"prob_of(bob, {RED_IN.format('box2')}))",
    "Bob knows where the blue key is": "knows_about(bob, box(B), inside(key2, B))",
    "Alice knows where the blue key is": "knows_about(alice, box(B), inside(key2, B))",
}


def belief_rows(red_accuracy: np.ndarray, blue_accuracy: np.ndarray) -> np.ndarray:
    """Each onlooker's belief over the 12 placements, for every (true placement,
    accuracy) pair: a box gets ``accuracy`` if it is where the key is, ``(1 − accuracy)/3``
    otherwise; both keys' evidence multiply, then each row is normalized. Shape (12, A, 12)."""
    red = np.array([r for r, _ in PLACEMENTS])
    blue = np.array([b for _, b in PLACEMENTS])
    same_red = red[:, None] == red[None, :]      # (true, believed)
    same_blue = blue[:, None] == blue[None, :]
    ra, ba = red_accuracy[None, :, None], blue_accuracy[None, :, None]
    weight = np.where(same_red[:, None, :], ra, (1 - ra) / 3) * np.where(same_blue[:, None, :], ba, (1 - ba) / 3)
    return weight / weight.sum(axis=2, keepdims=True)


class TreasureHunt:
    """A belief model whose hypotheses are arrays (see elot.embedding.BeliefModel)."""

    name = "treasure-hunt"
    signature = DOMAIN
    times = range(len(STORY))
    judgments = (1, 2)

    def __init__(self, levels: int = 25) -> None:
        self.levels = levels
        self._cache: dict[int, Hypotheses] = {}

    def label(self, t: int) -> str:
        return STORY[t]

    def hypotheses(self, t: int) -> Hypotheses:
        if t not in self._cache:
            self._cache[t] = self._build(t)
        return self._cache[t]

    def _build(self, t: int) -> Hypotheses:
        n, chance = self.levels, np.full(self.levels, 0.25)
        attention = np.linspace(0.3, 0.95, n)            # how well an onlooker saw, per level
        alice_red = attention if t >= 1 else chance
        bob_red = 0.25 + (attention - 0.25) * 0.4 if t >= 1 else chance
        bob_blue = attention if t >= 2 else chance
        alice = belief_rows(alice_red, chance)            # (12, n, 12): Alice never saw blue
        bob = belief_rows(bob_red, bob_blue)
        # Hypothesis (w, i, j): placement w, Alice's level i, Bob's level j.
        shape = (len(WORLDS), n, n, len(WORLDS))
        beliefs = {
            "alice": np.broadcast_to(alice[:, :, None, :], shape).reshape(-1, len(WORLDS)),
            "bob": np.broadcast_to(bob[:, None, :, :], shape).reshape(-1, len(WORLDS)),
        }
        # The observer glimpsed the red key going into box 2 (or box 1: it was quick).
        red_prior = np.array([0.3, 0.5, 0.1, 0.1])[[r for r, _ in PLACEMENTS]] if t >= 1 else np.ones(len(WORLDS))
        world_prior = red_prior / red_prior.sum()
        weights = np.broadcast_to(world_prior[:, None, None], shape[:3]).ravel() / (n * n)
        true_index = np.repeat(np.arange(len(WORLDS)), n * n)
        return Hypotheses.from_arrays(DOMAIN, WORLDS, beliefs, weights, true_index)


model = TreasureHunt()


def main() -> None:
    rows = model.hypotheses(2)
    print(f"Treasure hunt: {len(rows)} hypotheses over {len(rows.worlds)} placements; "
          "normalized likelihood L of each statement at each step")
    for t in model.times:
        print(f"  t={t}: {model.label(t)}")
    width = max(map(len, STATEMENTS))
    print(" " * width + "".join(f"{f't={t}':>6}" for t in model.times))
    for sentence, formula in STATEMENTS.items():
        print(sentence.ljust(width) + "".join(f"  {j.L:.2f}" for j in judge_series(formula, model)))
    english = "The player thinks the red key is in box 2."
    result = judge(english, model, t=1)
    print(f"{english!r} (the player is {DOMAIN.agent}) reads as {result.formula}\n  at t=1: {result}")


if __name__ == "__main__":
    main()
