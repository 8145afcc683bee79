"""The public API (``elot.__all__`` and what the docs name) checks its arguments where
they come in: a value of the wrong type or out of range is an ElotError naming the
argument, never a TypeError, AttributeError or wrong answer from deep inside."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import elot
from elot import Belief, Signature, State, Thresholds
from elot.errors import ElotError

REPO = Path(__file__).resolve().parent.parent
STATE = State.parse("inside(key1, box1), iscolor(key1, red), closed(box1)")
OTHER = State.parse("closed(box1)")
BELIEF = Belief.of([(STATE, 0.7), (OTHER, 0.3)])
SIG = Signature.default()
F = "believes(player, might(empty(box1)))"

#: Values of the wrong type or out of range, tried in every argument of every call below.
BAD = [None, 1, -1, 1.5, math.nan, "x", b"x", [], {}, object()]


def _hypotheses():
    return elot.Hypotheses.of([(STATE, BELIEF, 0.5), (OTHER, BELIEF, 0.5)], signature=SIG)


#: (name, function, positional arguments, keyword arguments): a call that works.
CALLS = [
    ("check", elot.check, (F,), {"signature": SIG, "bind_free": False}),
    ("lower", elot.lower, (F,), {"signature": SIG}),
    ("evaluate", elot.evaluate, (F, STATE, BELIEF), {"signature": SIG, "thresholds": Thresholds()}),
    ("compile_formula", elot.compile_formula, (F,), {"signature": SIG, "thresholds": Thresholds()}),
    ("equivalent", elot.equivalent, (F, F), {"signature": SIG, "n_beliefs": 4, "seed": 0}),
    ("State.of", State.of, ([("closed", "box1")],), {}),
    ("State.parse", State.parse, ("closed(box1)",), {}),
    ("Belief.of", Belief.of, ([(STATE, 1.0)],), {}),
    ("Belief.parse", Belief.parse, ("1.0: closed(box1)",), {}),
    ("Thresholds.parse", Thresholds.parse, ("might=0.3",), {}),
    ("declare", elot.declare, ({"box1": "box", "ann": "agent"}, {"closed": ["box"]}), {}),
    ("read_domain", elot.read_domain, ("examples/embedding/sally_anne.domain",), {}),
    ("Hypotheses.from_arrays", elot.Hypotheses.from_arrays,
     (SIG, [STATE, OTHER], np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([0.5, 0.5])), {"true_index": np.array([0, 1])}),
    ("judge", elot.judge, ("empty(box1)", None), {"signature": SIG, "mode": "current"}),
]


def _variants():
    for name, fn, args, kwargs in CALLS:
        for i in range(len(args)):
            for bad in BAD:
                yield pytest.param(fn, args[:i] + (bad,) + args[i + 1:], kwargs, id=f"{name}-arg{i}-{bad!r:.12}")
        for key in kwargs:
            for bad in BAD:
                yield pytest.param(fn, args, {**kwargs, key: bad}, id=f"{name}-{key}-{bad!r:.12}")


def _call(fn, args, kwargs):
    if fn is elot.judge and args[1] is None:
        args = (args[0], _hypotheses())
    return fn(*args, **kwargs)


@pytest.mark.parametrize("name, fn, args, kwargs", [pytest.param(*c, id=c[0]) for c in CALLS])
def test_the_calls_work(name, fn, args, kwargs, monkeypatch):
    monkeypatch.chdir(REPO)  # the examples are files of the checkout, not of the installed package
    _call(fn, args, kwargs)


#: The values of :data:`BAD` that are good in that argument, and why: the call must
#: accept them. Any other value of BAD must be refused with an ElotError.
VALID = {
    "check-signature-None": "None is the default signature (Doors, Keys & Gems)",
    "lower-signature-None": "None is the default signature",
    "evaluate-signature-None": "None is the default signature",
    "compile_formula-signature-None": "None is the default signature",
    "equivalent-signature-None": "None is the default signature",
    "judge-signature-None": "None is the hypotheses' own signature",
    "evaluate-thresholds-None": "None is the default thresholds",
    "compile_formula-thresholds-None": "None is the default thresholds",
    "equivalent-n_beliefs-1": "one sampled belief is a (weak) test, still a test",
    "equivalent-seed-1": "any whole number >= 0 is a seed",
    "State.of-arg0-[]": "no atoms: the empty state",
    "State.of-arg0-{}": "no atoms (an empty iterable): the empty state",
    "State.parse-arg0-'x'": "x is a ground atom of arity 0",
    "declare-arg1-[]": "a domain may declare no predicates (types only)",
    "declare-arg1-{}": "a domain may declare no predicates (types only)",
    "Hypotheses.from_arrays-true_index-None": "None is its default: each row's true world is its own index",
    "judge-arg1-None": "not a bad value here: _call puts the hypotheses in its place",
}


def _variant_ids() -> list[str]:
    return [p.id for p in _variants()]


@pytest.mark.parametrize("fn, args, kwargs", list(_variants()))
def test_wrong_arguments_are_elot_errors(fn, args, kwargs, request, monkeypatch):
    monkeypatch.chdir(REPO)  # the examples are files of the checkout, not of the installed package
    case = request.node.callspec.id
    try:
        _call(fn, args, kwargs)
    except ElotError as error:
        assert error.render()
        assert case not in VALID, f"{case} is valid ({VALID[case]}) but was refused: {error.render()}"
    else:
        assert case in VALID, f"{case}: a bad value was accepted (refuse it, or say in VALID why it is valid)"


def test_every_valid_exception_names_a_case_tried():
    assert set(VALID) <= set(_variant_ids())


@pytest.mark.parametrize("value", [None, 1, 0, 1.5, math.nan, "yes", [], object(), np.bool_(True)],
                         ids=lambda v: "object()" if type(v) is object else repr(v))   # one id in every xdist worker
def test_check_refuses_a_bind_free_that_is_not_a_bool(value):
    with pytest.raises(elot.ArgumentError, match="bind_free must be a bool"):
        elot.check("exists(key(K), inside(K, box1))", bind_free=value)
    assert elot.check("inside(K, box1)", bind_free=True).term != elot.check("inside(key1, box1)").term


@pytest.mark.parametrize("value", [math.nan, -0.1, 1.5, math.inf, "0.3", None])
def test_thresholds_must_be_probabilities(value):
    with pytest.raises(ElotError, match="might"):
        Thresholds(might=value)


@pytest.mark.parametrize("kwargs, argument", [
    ({"n_beliefs": -1}, "n_beliefs"), ({"n_beliefs": 0}, "n_beliefs"), ({"seed": -1}, "seed"),
    ({"signature": 1}, "signature"), ({"thresholds": 1}, "thresholds"),
])
def test_errors_name_the_argument(kwargs, argument):
    with pytest.raises(ElotError, match=argument):
        elot.equivalent("empty(box1)", "empty(box1)", **kwargs)


# -- issue #24 item 13: inference, scoring and belief models ------------------------------------


@pytest.fixture(scope="module")
def inference():
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.examples import load_example

    return infer(load_example("default"))


@pytest.mark.parametrize("t", [-1, True, 1.5, None, 10**6])
def test_score_names_a_bad_time(inference, t):
    from elot.domains.doors_keys_gems.scoring import score

    with pytest.raises(elot.ArgumentError, match="time"):
        score(inference, "believes(player, formula(empty(box1)))", t)


@pytest.mark.parametrize("settings, name", [
    ({"k": 0}, "k"), ({"k": "3"}, "k"), ({"beta": "2"}, "beta"), ({"seed": 1.5}, "seed"), ({"seed": -1}, "seed"),
    ({"backend": "x"}, "backend"), ({"prior": "x"}, "prior"), ({"k": 2**31}, "k"),
])
def test_infer_names_a_bad_setting(settings, name):
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.examples import load_example

    with pytest.raises(elot.ArgumentError, match=name):
        infer(load_example("default"), **settings)


def test_infer_names_a_scenario_that_is_not_one():
    from elot.domains.doors_keys_gems.inference import infer

    with pytest.raises(elot.ArgumentError, match="scenario"):
        infer(None)


@pytest.mark.parametrize("times", [None, "abc", range(10**12), "count", [0, 2.5]], ids=repr)
def test_judge_names_model_times_it_cannot_use(times):
    import itertools

    class Model:
        signature = elot.declare({"box1": "box", "ann": "agent"}, {"closed": ["box"]})

        def hypotheses(self, t):
            return []

    model = Model()
    model.times = itertools.count() if times == "count" else times     # count() used to hang, past Ctrl-C
    with pytest.raises(elot.ArgumentError, match="times"):
        elot.judge("closed(box1)", model)


def _session_over(**methods):
    from elot.embedding.btom import BToMModel
    from elot.session import Session

    model = BToMModel(Session.open("default").run().inference)
    for name, method in methods.items():
        setattr(model, name, method)
    return Session.open_model(model)


def test_a_models_own_failing_label_is_the_models_error_not_an_internal_one():
    from elot.embedding.model import BeliefModelError

    def label(t):
        raise RuntimeError("no label here")

    session = _session_over(label=label)
    with pytest.raises(BeliefModelError, match="label.*RuntimeError: no label here"):
        session.action_before(2)


@pytest.mark.parametrize("value", [math.nan, -0.5, 1.5, "x"])
def test_a_goal_posterior_that_is_not_a_probability_is_refused(value):
    from elot.embedding.model import BeliefModelError

    session = _session_over(goal_posterior=lambda t: {"gem1": value, "gem2": 0.5})
    with pytest.raises(BeliefModelError, match="goal_posterior"):
        session.goal_posterior(2)
