"""Where the halves meet (elot.judging): one Hypotheses type, one Score, one statement
record and one score loop, whatever inference (or belief model) gave the hypotheses;
one InferenceConfig passed whole; results that say how they ran."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from elot import judging
from elot.statements import read_statements
from elot.domains.doors_keys_gems.inference import InferenceConfig, infer
from elot.engine.worlds.methods import ParticleError
from elot.domains.doors_keys_gems.examples import load_example
from elot.domains.doors_keys_gems.scoring import score
from elot.embedding import BToMModel, Hypotheses, judge
from elot.errors import ArgumentError, ElotError, ElotTypeError
from elot.judging import score_statements
from elot.statements import Statement, compile_statements, resolve_statements
from elot.session import Session
from elot.domains.rows import judged as judged_rows, signature as signature_of

REPO = Path(__file__).resolve().parent.parent
EMPTY = "believes(player, formula(empty(box1)))"


@pytest.fixture(scope="module")
def scenario():
    return load_example("default")


@pytest.fixture(scope="module")
def exact(scenario):
    return infer(scenario)


@pytest.fixture(scope="module")
def particles(scenario):
    return infer(scenario, InferenceConfig(method="smc", particles=300, seed=5))


def test_every_source_hands_scoring_the_same_hypotheses(exact, particles):
    for inference in (exact, particles):
        rows = judged_rows(inference, 6, 0)
        assert type(rows) is judging.Hypotheses
        model = BToMModel(inference)
        assert type(model.initial_hypotheses(6)) is judging.Hypotheses
    assert issubclass(Hypotheses, judging.Hypotheses)   # the embedding's adds checked constructors


def test_a_belief_model_over_particles_keeps_the_standard_error(particles):
    """BToMModel dropped the particles' ESS, so elot.judge gave no s.e. where elot run did."""
    direct = score(particles, EMPTY, 6)
    judged = judge(EMPTY, BToMModel(particles), t=6)
    assert direct.stderr is not None and judged.score == direct
    assert (judged.P, judged.L, judged.pi, judged.stderr) == (direct.P, direct.L, direct.pi, direct.stderr)


def test_the_prior_is_named_once():
    sig = load_example("default").signature()
    from elot.lang.states import State

    world = State.of([("inside", "key1", "box1")])
    rows = Hypotheses.from_arrays(sig, [world], np.ones((1, 1)), np.ones(1), multiplicity=np.array([2.0]))
    assert rows.prior.tolist() == [2.0] and rows.multiplicity is rows.prior


def test_errors_are_argument_errors_and_keep_their_old_classes(exact, scenario):
    with pytest.raises(ArgumentError) as error:
        judged_rows(exact, exact.steps + 1)
    assert isinstance(error.value, IndexError) and f"0..{exact.steps}" in error.value.message
    with pytest.raises(ArgumentError) as error:
        score(exact, EMPTY, 1, "later")
    assert isinstance(error.value, ValueError)
    with pytest.raises(ParticleError):
        infer(scenario, InferenceConfig(method="smc", particles=10, k=0))


def test_one_config_passed_whole(scenario):
    config = InferenceConfig(variant="non-planning", beta=1.5, k=2)
    by_config, by_keywords = infer(scenario, config), infer(scenario, model="non-planning", beta=1.5, k=2)
    assert np.array_equal(by_config.log_weights, by_keywords.log_weights)
    with pytest.raises(ParticleError):
        InferenceConfig(particles=0)
    with pytest.raises(ElotError, match="nonsense"):
        InferenceConfig(method="nonsense")
    with pytest.raises(ArgumentError, match="modle"):     # a typo is an ElotError, not a TypeError
        infer(scenario, modle="full")
    session = Session.open("default")
    session.set_particles("300")
    session.set_method("smc")
    assert session.front.config(session.settings) == InferenceConfig(method="smc", particles=300)
    assert session.run().inference.n_particles == 300


def test_results_say_how_they_ran(exact, particles):
    assert exact.describe([4]) == "" and exact.summary() == ""
    # the settings that ran, for exact inference too (issue 35: a report of what ran)
    assert exact.report([4]) == {**exact.config.described(), "hypotheses": exact.size}
    assert exact.report([4])["method"] == "exact" and "seed" not in exact.report([4])
    assert exact.diagnostics(4) == {} and not exact.estimated
    assert particles.describe([4]).startswith("inference: smc, 300 particles, seed 5; effective sample size")
    assert particles.report([4])["ess"] == {"4": float(particles.ess[4])}
    assert particles.columns() == {"inference": "smc", "particles": 300, "seed": 5}
    assert particles.diagnostics(4) == {"ess": float(particles.ess[4]), "warning": ""}   # a healthy filter
    assert particles.estimated


def test_no_caller_asks_which_method_ran():
    """Outside where the method is chosen and a result says which ran
    (elot/domains/doors_keys_gems/{config,inference,particles,engine}.py; the engine's filters
    and trajectory, its settings, and for tabular domains its config and run, issue 35; a PDDL
    front, whose runs are exact, #42), nothing tests a method name."""
    allowed = {REPO / "elot" / "domains" / "doors_keys_gems" / name
               for name in ("config.py", "inference.py", "particles.py", "engine.py")}
    allowed |= {REPO / "elot" / "engine" / "worlds" / name for name in ("filters.py", "trajectory.py")}
    allowed |= {REPO / "elot" / "engine" / "tables" / name for name in ("config.py", "run.py")}
    allowed.add(REPO / "elot" / "engine" / "settings.py")   # samples(method): the one place a setting's method is read
    allowed.add(REPO / "elot" / "domains" / "pddl" / "front.py")   # where a PDDL run's method is chosen: exact
    found = []
    for path in (REPO / "elot").rglob("*.py"):
        if path in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(isinstance(c, ast.Constant) and c.value in ("smc", "exact")
                                                     for c in node.comparators):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found


def test_a_statement_is_located_without_reading_its_file_again(tmp_path):
    path = tmp_path / "statements.txt"
    path.write_text("# two\nbelieves(player, formula(empty(key1)))\n", encoding="utf-8")
    (statement,) = read_statements(path)
    path.unlink()   # the record keeps what it needs
    sig = load_example("default").signature()
    (compiled,) = compile_statements(resolve_statements([statement], lambda text, mode: (text, mode)), sig)
    assert isinstance(compiled.error, ElotTypeError)
    error = compiled.locate(compiled.error)
    assert error.path == str(path) and error.span.line == 2 and "empty(key1)" in error.render()


def test_the_score_loop_keeps_going_past_a_bad_statement(exact):
    statements = [Statement(EMPTY), Statement("believes(player,"), Statement("The player thinks box 1 is empty.")]
    from elot.translate import resolve_statement

    resolved = resolve_statements(statements, lambda text, mode: resolve_statement(text, mode=mode,
                                                                                   signature=signature_of(exact))[:2])
    compiled = compile_statements(resolved, signature_of(exact))
    from elot.domains.doors_keys_gems.front import GridFront

    front = GridFront()
    source = front.run(front.of(exact.scenario), front.settings())     # the gridworld's judged source
    scored, table = score_statements(source, compiled, (4, 6))
    assert [st.error is None for st in scored] == [True, False, True]
    assert [sorted(scores) for scores in table] == [[0, 2], [0, 2]]
    assert table[1][0] == score(exact, EMPTY, 6) and table[1][2] == table[1][0]
    assert statements[0].formula is None   # each step makes new records
    assert dataclasses.replace(scored[0]) == scored[0]
