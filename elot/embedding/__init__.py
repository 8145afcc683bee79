"""Embedding ELoT: your own domain, your own model of an agent, elot's language and scores.

* :func:`declare` / :func:`read_domain`: a domain (objects, types, predicates, agents) in
  a few lines of Python or a small text file;
* :class:`Hypotheses`: the observer's hypotheses (worlds, each agent's belief, posterior
  weights), from triples or arrays, checked against the domain;
* :class:`BeliefModel`: the protocol a model implements (``signature``, ``times``,
  ``hypotheses(t)``) to be judged over time and queried in the REPL; :class:`BToMModel`
  is elot's own inference behind it;
* :func:`judge` / :func:`judge_series`: P, L and π of a statement.

See docs/embedding.md.
"""

from elot.embedding.btom import BToMModel
from elot.embedding.domain import declare, parse_domain, read_domain
from elot.embedding.judge import Judgment, judge, judge_series
from elot.embedding.model import (BeliefModel, BeliefModelError, Hypotheses, check_belief_model, hypotheses_of,
                                  load_belief_model)

__all__ = [
    "declare", "parse_domain", "read_domain", "Hypotheses", "BeliefModel", "BToMModel", "BeliefModelError",
    "judge", "judge_series", "Judgment", "load_belief_model", "check_belief_model", "hypotheses_of",
]
