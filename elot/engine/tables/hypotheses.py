"""A tabular result as ELoT's hypotheses: the rows a statement is scored on (every
hypothesis of an exact result, the particles of a sampled one), each with its hidden world,
the agent's initial belief and its desires, so that statements about beliefs, desires and
the world score through :mod:`elot.judging` as the gridworld's do."""

from __future__ import annotations

import numpy as np

from elot.engine.tables.run import Result
from elot.judging import Desires, Hypotheses
from elot.lang.states import State


def result_hypotheses(result: Result, signature, worlds: tuple[State, ...], *, with_beliefs: bool = True,
                      per_agent: bool = True) -> Hypotheses:
    """A result's rows (every hypothesis, or the particles with their effective sample size
    and prior draws, so that scores carry standard errors) as ELoT hypotheses over
    ``worlds`` (the states of the layout's worlds); with ``with_beliefs``, each row's
    belief is its initial belief, the signature's agent's."""
    rows = result.rows()
    beliefs: dict[str, np.ndarray] = {}
    if with_beliefs:
        table = np.asarray(result.belief_space.beliefs, dtype=np.float64)
        beliefs = {signature.agent: (table / table.sum(axis=1, keepdims=True))[rows.belief]}
    utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)[rows.desire]
    return Hypotheses(signature, worlds, np.asarray(result.worlds, dtype=np.intp)[rows.world], beliefs,
                      rows.weights, prior=rows.prior, ess=rows.ess, prior_draws=rows.draws, per_agent=per_agent,
                      desires=Desires(tuple(result.desire_space.objects), utilities))
