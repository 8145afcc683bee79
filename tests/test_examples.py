"""The built-in examples teach something: each leaves the observer uncertain about the key
placement and the agent's belief, so its statements have scores to move (``two-doors`` had a single state and a single belief)."""

from __future__ import annotations

import pytest

from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.examples import list_examples, load_example


@pytest.mark.parametrize("name", list_examples())
def test_example_has_a_hidden_state_to_infer(name):
    scenario = load_example(name)
    inference = infer(scenario)
    space = inference.space
    assert space.n_states >= 2 and space.n_beliefs >= 2 and space.n_goals >= 2
    # some statement of its own changes its score between the first and the last judgment
    from elot.domains.doors_keys_gems.scoring import score

    first, last = scenario.judgments[0], scenario.judgments[-1]
    moved = [s.text for s in scenario.statements if s.text.startswith(("believes", "knows", "uncertain"))
             and abs(score(inference, s.text, first, s.mode).normalized_likelihood
                     - score(inference, s.text, last, s.mode).normalized_likelihood) > 0.1]
    assert moved
