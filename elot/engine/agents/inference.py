"""The goal posterior of an observed path, from a model's per-step likelihoods."""

from __future__ import annotations

import numpy as np

from elot.errors import ArgumentError


def goal_posterior(step_likelihoods: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``float64[T + 1, G]``: the posterior over goals after each prefix of the path (row t:
    the first t actions seen), from ``P(a_t | a_<t, g)`` (``[T, G]``) and the prior. Products
    are taken as sums of logs, in path order."""
    lik = np.asarray(step_likelihoods, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    if lik.ndim != 2 or prior.shape != (lik.shape[1],) or prior.min() < 0 or not prior.sum() > 0:
        raise ArgumentError("goal_posterior needs likelihoods [T, G] and a prior of G weights")
    with np.errstate(divide="ignore"):
        log = np.vstack([np.log(prior / prior.sum()), np.log(lik)])
    acc = np.cumsum(log, axis=0)
    acc -= acc.max(axis=1, keepdims=True)
    post = np.exp(acc)
    return post / post.sum(axis=1, keepdims=True)
