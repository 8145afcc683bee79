"""The paper's in-context vs out-of-context comparison on the dataset's maps 1-3."""

from __future__ import annotations

import pytest

from elot.domains.doors_keys_gems.experiments import PAPER, in_vs_out

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def table(labtom):
    return {(r.condition, r.model): r for r in in_vs_out(labtom)}


@pytest.mark.parametrize("condition", ["current", "initial"])
def test_full_model_at_least_the_paper(table, condition):
    row = table[(condition, "full")]
    paper_in, paper_out, paper_diff, _, paper_acc = PAPER[(condition, "full")]
    assert row.n == 99
    # the paper gives two decimals (initial: ours is 69/99 = 0.697, i.e. 0.70)
    assert round(row.accuracy, 2) >= paper_acc
    assert row.diff >= paper_diff
    assert row.diff > 3 * row.se


@pytest.mark.parametrize("condition", ["current", "initial"])
@pytest.mark.parametrize("model", ["true-belief", "non-planning"])
def test_ablations_classify_worse(table, condition, model):
    assert table[(condition, model)].accuracy < table[(condition, "full")].accuracy


def test_ill_typed_formulas_are_counted(table):
    # current: a 3-argument forall and the colour `pink`; initial: 4-argument `least`
    # (twice), a 4-argument `uncertain_about` and `pink`
    for (condition, _), row in table.items():
        assert row.ill_typed == {"current": 2, "initial": 4}[condition]


def test_rounding_noise_is_not_a_win(table):
    # The non-planning model has no evidence about initial beliefs: its scores sit at 0.5,
    # some a few ulps above; only the literal float comparison counts those as wins.
    row = table[("initial", "non-planning")]
    assert abs(row.diff) < 0.01
    assert row.strict > row.accuracy
