"""Beliefs along the path, percepts, and beliefs about beliefs on a tabular domain's runs
(issue 43, the engine half), held to a brute-force enumeration.

A random tiny domain (two worlds, three states, two actions, probabilistic percepts, one
event, a witness with its own model of the agent's percepts and the agent with its own of
the witness's, a belief prior per world, a world that changes with the state) is run by the
engine and judged through its front; the same numbers are then computed by enumerating
every hypothesis and every percept history of both agents, with no merging and no tables,
each agent's belief by Bayes' rule on its own history and its nested belief by summing
over the other's histories. They must agree for statements about each agent's current and
initial belief, about what each saw, and at depth 2 both ways.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.domains.tabular import TabularFront
from elot.domains.tabular_source import TabularSource
from elot.embedding import declare
from elot.engine import (
    BeliefSpace,
    Case,
    DesireSpace,
    Engine,
    EngineConfig,
    Events,
    Tables,
    Witness,
)
from elot.engine.tables import minds
from elot.errors import DomainError
from elot.judging import score
from elot.lang.semantics import compile_formula

W, S, A, O = 2, 3, 2, 2
THETA = 0.75    # believes' threshold


class Tiny:
    """A random tiny domain with an event and a witness (see the module)."""

    name = "tiny"
    default_planner = "qmdp"
    default_beta = 1.5

    def __init__(self, rng: np.random.Generator, *, witness: bool = True, events: bool = True, changing: bool = True):
        self.trans = rng.integers(0, S, size=(W, S, A))
        self.outcomes = np.where(rng.random((W, S, A)) < 0.3, 0, -1)
        self.obs = self._observations(rng)
        self.happened = rng.random((W, S, 1)) < 0.5
        self.witness_obs = self._observations(rng)
        # the witness's initial belief: one for every world, or one per true world
        self.witness_belief = rng.dirichlet(np.ones(W), size=W if rng.random() < 0.5 else None)
        # each one's model of the other's percepts: the same percepts possible, other weights
        self.thinks_agent = self._reweighed(self.obs, rng)
        self.thinks_witness = self._reweighed(self.witness_obs, rng)
        self.beliefs = rng.dirichlet(np.ones(W), size=2)
        self.belief_prior = rng.dirichlet(np.ones(2), size=W)       # a prior per world
        self.utilities = np.array([[2.0], [6.0]])
        self.lit = rng.random((W, S)) < 0.5 if changing else np.repeat(rng.random((W, 1)) < 0.5, S, axis=1)
        self.with_witness, self.with_events, self.changing = witness, events, changing

    @staticmethod
    def _observations(rng) -> np.ndarray:
        obs = rng.dirichlet(np.ones(O), size=(W, S))
        obs[rng.random((W, S)) < 0.3] = np.eye(O)[0]                 # some certain percepts
        return obs

    @staticmethod
    def _reweighed(obs, rng) -> np.ndarray:
        other = np.where(obs > 0, rng.random(obs.shape) + 0.1, 0.0)
        return other / other.sum(axis=2, keepdims=True)

    def tables(self, layout) -> Tables:
        return Tables(tuple(f"s{s}" for s in range(S)), ("w0", "w1"), ("a0", "a1"), ("p0", "p1"), ("prize",),
                      np.ones(A), self.trans, self.obs, self.outcomes)

    def desires(self) -> DesireSpace:
        return DesireSpace(("prize",), self.utilities, np.array([0.5, 0.5]))

    def initial_beliefs(self, layout) -> BeliefSpace:
        return BeliefSpace(self.beliefs, self.belief_prior)

    def signature(self):
        return declare(objects={"agent": ["ann", "bob"], "thing": ["prize"], "place": ["lamp"]},
                       predicates={"lit": ("place",)}, events=["e"], agent="ann")

    def world_atoms(self, layout, world) -> frozenset:
        return self.world_atoms_at(layout, world, 0)

    def world_atoms_at(self, layout, world, state) -> frozenset:
        return frozenset({("lit", "lamp")}) if self.lit[world, state] else frozenset()


class WithEvents(Tiny):
    def events(self, layout) -> Events:
        witnesses = ()
        if self.with_witness:
            witnesses = (Witness("bob", ("q0", "q1"), self.witness_obs, {"q1": "e"}, self.witness_belief,
                                 thinks={"ann": self.thinks_agent}),)
        return Events(("e",), self.happened, {"p1": "e"} if self.with_events else {}, witnesses, agent="ann",
                      thinks={"bob": self.thinks_witness} if self.with_witness else {})


class Fixed(Tiny):
    """A Tiny whose worlds do not change (no ``world_atoms_at``)."""

    world_atoms_at = None

    def world_atoms(self, layout, world) -> frozenset:
        return Tiny.world_atoms_at(self, layout, world, 0)


def random_path(domain: Tiny, rng, world: int, steps: int) -> tuple[int, ...]:
    path = [int(rng.integers(S))]
    for _ in range(steps):
        path.append(int(domain.trans[world, path[-1], rng.integers(A)]))
    return tuple(path)


def run(domain, path, world, *, method="exact", quantum=0.0, particles=4000):
    """The front's source of the case under the domain's model (belief quantum 0 unless
    said, so that the enumeration's exact Bayes rule is the engine's)."""
    front = TabularFront(domain)
    episode = front.make_episode("case", Case("l", path, world, "case"))
    settings_ = front.settings()
    config = replace(front.engine_config(settings_), belief_quantum=quantum, method=method, particles=particles,
                     seed=5)
    return TabularSource(front, episode, settings_, Engine(domain, config))


def judge(source, formula: str, t: int, mode: str = "current"):
    rows = source.at(t, mode)
    return score(compile_formula(formula, source.signature), rows)


# -- the enumeration ----------------------------------------------------------------------------

def normalised(v):
    total = v.sum()
    return v / total if total > 0 else None


def agent_histories(d: Tiny, path, world, b0, obs):
    """Every history of the agent in ``world`` from initial belief b0: ``(belief at the end,
    whether it saw the event, its likelihood for each desire given q, chance under obs)`` as
    ``(belief, seen, [(belief before step t, action, percept)], first percept, chance)``;
    histories its own belief rules out are dropped."""
    out = []
    for o0 in range(O):
        if d.obs[world, path[0], o0] <= 0:
            continue
        b = normalised(b0 * d.obs[:, path[0], o0])
        if b is not None:
            out.append((b, o0 == 1, [], o0, obs[world, path[0], o0]))
    for t in range(len(path) - 1):
        here, there = path[t], path[t + 1]
        acts = [a for a in range(A) if d.trans[world, here, a] == there]
        grown = []
        for b, seen, steps, o0, chance in out:
            for a in acts:
                reach = (d.trans[:, here, a] == there).astype(float)
                for o in range(O):
                    after = normalised(b * reach * d.obs[:, there, o])
                    if d.obs[world, there, o] <= 0 or after is None:
                        continue
                    grown.append((after, seen or o == 1, steps + [(b, a, o)], o0,
                                  chance * obs[world, there, o] / len(acts)))
        out = grown
    return out


def likelihood(d: Tiny, path, world, q, u, beta, steps, o0) -> float:
    """The observer's probability of the path along one history of the agent, desire u."""
    out = d.obs[world, path[0], o0]
    for k, (b, a, o) in enumerate(steps):
        out *= policy(q, b, path[k], u, beta)[a] * d.obs[world, path[k + 1], o]
    return out


def witness_histories(d: Tiny, path, world, obs, perceived=True):
    """Every history of the witness in ``world``: ``(belief at the end, events seen, chance under obs)``."""
    start = d.witness_belief[world] if d.witness_belief.ndim == 2 else d.witness_belief
    out = [(start / start.sum(), False, 1.0)]
    if not perceived:
        return out
    for t, there in enumerate(path):
        reach = np.ones(W) if t == 0 else (d.trans[:, path[t - 1], :] == there).any(axis=1).astype(float)
        grown = []
        for b, seen, chance in out:
            for o in range(O):
                p = obs[world, there, o]
                after = normalised(b * reach * d.witness_obs[:, there, o])
                if p <= 0 or after is None:
                    continue
                grown.append((after, seen or o == 1, chance * p))
        out = grown
    return out


def policy(q, b, s, u, beta):
    mixed = sum(b[w] * q[(w * S + s) * A: (w * S + s) * A + A, u] for w in range(W))
    scaled = beta * mixed
    odds = np.exp(scaled - scaled.max())
    return odds / odds.sum()


def enumerate_scores(d: Tiny, path, world, q, beta, t, initial=False):
    """P and π of each statement of :data:`STATEMENTS` at time t about the current belief
    (or the initial one: before any percept), by enumeration (see the module)."""
    path = path[:t + 1]
    at = path[0] if initial else path[-1]
    lit_now = d.lit[:, at]
    hidden = [world] if world is not None else list(range(W))

    def p_lit(b):
        return float(b @ lit_now)

    def agent_states(w, b0, model):
        """The agent's possible (belief, seen, chance) in world w under a model of its percepts."""
        if initial:
            return [(b0 / b0.sum(), False, 1.0)]
        return [(b, seen, c) for b, seen, _, _, c in agent_histories(d, path, w, b0, model)]

    def witness_states(w, model):
        return witness_histories(d, path, w, model, perceived=not initial)

    def nested(outer, inner_states, test):
        """Pr_outer(φ) over worlds by ``outer``'s belief and the other's states by its model, ≥ θ."""
        num = den = 0.0
        for w2 in range(W):
            for state in inner_states(w2):
                mass = outer[w2] * state[-1]
                den += mass
                num += mass * test(state)
        return den > 0 and num / den >= THETA

    truths, weights, priors = [], [], []
    for w in hidden:
        for b_i, b0 in enumerate(d.beliefs):
            for u in range(2):
                prior = (1.0 if world is not None else 1.0 / W) * d.belief_prior[w, b_i] * 0.5
                full = agent_histories(d, path, w, b0, d.obs)
                if initial:
                    total = sum(likelihood(d, path, w, q, u, beta, steps, o0) for _, _, steps, o0, _ in full)
                    histories = [(b0 / b0.sum(), False, total, 1.0)]
                else:
                    histories = [(b, seen, likelihood(d, path, w, q, u, beta, steps, o0), chance)
                                 for b, seen, steps, o0, chance in full]
                for b_now, seen, lik, chance in histories:
                    bobs = witness_states(w, d.witness_obs) if d.with_witness else [(None, False, 1.0)]
                    for bob, bob_seen, bob_chance in bobs:
                        truth = {"ann": p_lit(b_now) >= THETA, "seen_ann": seen, "happened": bool(d.happened[w, at, 0])}
                        if d.with_witness:
                            truth["bob"] = p_lit(bob) >= THETA
                            truth["seen_bob"] = bob_seen
                            truth["bob_ann"] = nested(bob, lambda w2, b0=b0: agent_states(w2, b0, d.thinks_agent),
                                                      lambda state: p_lit(state[0]) >= THETA)
                            truth["ann_bob"] = nested(b_now, lambda w2: witness_states(w2, d.thinks_witness),
                                                      lambda state: p_lit(state[0]) >= THETA)
                            truth["bob_seen_ann"] = nested(bob, lambda w2, b0=b0: agent_states(w2, b0,
                                                                                               d.thinks_agent),
                                                           lambda state: state[1])
                        truths.append(truth)
                        weights.append(prior * lik * bob_chance)
                        priors.append(prior * chance * bob_chance)
    weights, priors = np.array(weights), np.array(priors)
    out = {}
    for name in truths[0]:
        holds = np.array([tr[name] for tr in truths], dtype=float)
        out[name] = (float(weights @ holds / weights.sum()), float(priors @ holds / priors.sum()))
    return out


STATEMENTS = {
    "ann": "believes(ann, formula(lit(lamp)))",
    "seen_ann": "observed(ann, e)",
    "happened": "happened(e)",
    "bob": "believes(bob, formula(lit(lamp)))",
    "seen_bob": "observed(bob, e)",
    "bob_ann": "believes(bob, formula(believes(ann, formula(lit(lamp)))))",
    "ann_bob": "believes(ann, formula(believes(bob, formula(lit(lamp)))))",
    "bob_seen_ann": "believes(bob, formula(observed(ann, e)))",
}


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 3), known=st.booleans(), initial=st.booleans())
def test_nested_beliefs_on_a_domain_run_equal_the_enumeration(seed, steps, known, initial):
    rng = np.random.default_rng(seed)
    d = WithEvents(rng)
    world = int(rng.integers(W))
    path = random_path(d, rng, world, steps)
    source = run(d, path, world if known else None)
    t = len(path) - 1
    if not source.result(t).possible:
        return
    q = source.engine.plan("l").q
    initial = initial or t == 0          # at t = 0 the current belief is the initial one (before any percept)
    expected = enumerate_scores(d, path, world if known else None, q, source.config.beta, t, initial=initial)
    for name, formula in STATEMENTS.items():
        got = judge(source, formula, t, "initial" if initial else "current")
        P, pi = expected[name]
        assert got.P == pytest.approx(P, abs=1e-9), (name, formula)
        assert got.pi == pytest.approx(pi, abs=1e-9), (name, formula)


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 3), known=st.booleans())
def test_one_agent_at_depth_one_the_current_belief_equals_the_enumeration(seed, steps, known):
    """Without events (the worlds are the situations), the agent's current belief at every
    time is what Bayes' rule on each of its possible histories gives."""
    rng = np.random.default_rng(seed)
    d = Fixed(rng, witness=False, events=False, changing=False)
    world = int(rng.integers(W))
    path = random_path(d, rng, world, steps)
    source = run(d, path, world if known else None)
    q = source.engine.plan("l").q
    for t in range(len(path)):
        if not source.result(t).possible:
            return
        got = judge(source, STATEMENTS["ann"], t)
        P, pi = enumerate_scores(replace_witness(d), path, world if known else None, q, source.config.beta, t,
                                 initial=t == 0)["ann"]
        assert (got.P, got.pi) == pytest.approx((P, pi), abs=1e-9)


def replace_witness(d: Tiny) -> Tiny:
    d.with_witness = False
    return d


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 3), known=st.booleans())
def test_declaring_events_changes_no_depth_one_score_bit_for_bit(seed, steps, known):
    """With one agent, a statement of depth 1 scores the same bits judged over the worlds
    (no events) as over the situations an events declaration adds (each row's belief then
    read from the agent's table), about the current belief at every time and the initial one.
    (An event the agent may see splits its states by whether it saw it, which sums the same
    posterior otherwise: the same to about 1e-16, not bit for bit.)"""
    rng = np.random.default_rng(seed)
    plain = Tiny(rng, witness=False)
    declared = WithEvents(np.random.default_rng(seed), witness=False, events=False)
    declared.happened[:] = False                       # nothing that happens
    world = int(rng.integers(W))
    path = random_path(plain, rng, world, steps)
    a, b = run(plain, path, world if known else None, quantum=2.0**-16), run(
        declared, path, world if known else None, quantum=2.0**-16)
    for t in range(len(path)):
        if not a.result(t).possible:
            return
        for formula in ("believes(ann, formula(lit(lamp)))", ">(prob_of(ann, lit(lamp)), 0.4)",
                        "believes(ann, likely(not(lit(lamp))))", "wants(ann, prize)"):
            for mode in ("current", "initial"):
                assert judge(a, formula, t, mode) == judge(b, formula, t, mode), (formula, mode, t)


def test_the_initial_rows_are_those_of_the_initial_belief_as_before():
    """A domain without events judges a statement about the initial belief on the same rows
    as before beliefs along the path were added: (world, initial belief, desire), each
    belief its initial one, in order (what every recorded output rests on)."""
    from elot.domains.tabular_source import result_hypotheses

    d = Fixed(np.random.default_rng(3), witness=False, events=False, changing=False)
    source = run(d, (0, int(d.trans[1, 0, 0]), int(d.trans[1, int(d.trans[1, 0, 0]), 1])), 1, quantum=2.0**-16)
    for t in range(3):
        rows, before = source.at(t, "initial"), result_hypotheses(source.result(t), source.signature, source.worlds())
        for field in ("true_index", "weights", "prior"):
            assert np.array_equal(getattr(rows, field), getattr(before, field))
        assert np.array_equal(rows.beliefs["ann"], before.beliefs["ann"])


def test_particles_converge_to_the_exact_current_belief_and_percepts():
    """smc's rows about the current belief (each particle spread over its states at t by
    their posterior) agree with exact inference, and so do the reported percepts."""
    rng = np.random.default_rng(11)
    d = WithEvents(rng)
    path = random_path(d, rng, 0, 3)
    exact, particles = run(d, path, None), run(d, path, None, method="smc", particles=4000)
    t = len(path) - 1
    for formula in STATEMENTS.values():
        got, want = judge(particles, formula, t), judge(exact, formula, t)
        assert got.P == pytest.approx(want.P, abs=0.03) and got.stderr is not None
    for (_, name, p), (_, name2, q) in zip(particles.percepts(t), exact.percepts(t)):
        assert name == name2 and p == pytest.approx(q, abs=0.03)


def test_a_belief_prior_per_world_is_bayes_rule_by_hand():
    """With the initial belief's prior depending on the world, the posterior over (world,
    initial belief) is prior(world) prior(belief | world) L, and particles draw each belief
    from its world's prior."""
    rng = np.random.default_rng(2)
    d = Fixed(rng, witness=False, events=False, changing=False)
    d.belief_prior = np.array([[0.9, 0.1], [0.2, 0.8]])
    path = random_path(d, rng, 0, 2)
    [[result]] = Engine(d).run([Case("l", path, None)])
    joint = result.likelihood * (0.5 * d.belief_prior)[:, :, None] * 0.5
    assert result.posterior() == pytest.approx(joint / joint.sum(), rel=1e-12)
    [[drawn]] = Engine(d, EngineConfig(method="smc", particles=20000, seed=4, ess_threshold=0)).run(
        [Case("l", path[:1], None)])
    world, belief, _ = drawn.drawn
    for w in range(W):
        share = np.mean(belief[world == w] == 0)
        assert share == pytest.approx(d.belief_prior[w, 0], abs=0.02)


def test_bad_events_are_refused_naming_the_domain_and_what_is_wrong():
    rng = np.random.default_rng(1)
    for change, message in [
        (lambda e: replace(e, happened=np.zeros((W, S, 2), dtype=bool)), "happened has shape"),
        (lambda e: replace(e, seen={"p9": "e"}), "seen names the percept 'p9'"),
        (lambda e: replace(e, seen={"p1": "nope"}), "sees 'nope', which is not one of the events"),
        (lambda e: replace(e, thinks={"carl": e.thinks["bob"]}), "thinks names 'carl'"),
        (lambda e: replace(e, witnesses=(replace(e.witnesses[0], belief=np.array([0.5, 0.6])),)),
         "belief must be a distribution"),
        (lambda e: replace(e, witnesses=(replace(e.witnesses[0], thinks={"ann": np.full((W, S, O), 0.5)}),)),
         "the same percepts as the true one"),
    ]:
        d = WithEvents(rng)
        d.obs[0, 0] = (1.0, 0.0)                          # a percept the true model rules out
        good = d.events

        class Broken(WithEvents):
            def events(self, layout, change=change, good=good):
                return change(good(layout))

        broken = Broken(np.random.default_rng(1))
        broken.obs = d.obs
        with pytest.raises(DomainError, match=message) as caught:
            Engine(broken).events("l")
        assert caught.value.message.startswith("tiny.events: ")


def test_too_many_situations_are_refused_by_name():
    rng = np.random.default_rng(4)
    d = WithEvents(rng)
    path = random_path(d, rng, 0, 2)
    source = run(d, path, 0)
    result = source.result(2)
    used = minds.models(source.events, source.engine.tables("l"))["ann"]
    now = result.now(True, tuple(used[0][1:]))
    with pytest.raises(minds.TooManySituations, match="there are more than 1 of them here"):
        minds.build(now, source.events, source.engine.tables("l"), list(path), 0.0, limit=1, where="case")


def test_a_nested_statement_is_refused_on_a_domain_without_events():
    from elot.domains.tabular_source import NestedBeliefError

    d = Fixed(np.random.default_rng(0), witness=False, events=False, changing=False)
    source = run(d, (0,), 0)
    compiled = compile_formula("believes(ann, formula(believes(ann, formula(lit(lamp)))))", source.signature)
    with pytest.raises(NestedBeliefError, match="declares no events"):
        source.refuse(compiled, "current", 0)
    assert list(itertools.islice(source.percepts(0), 1)) == []        # and it reports no percepts
