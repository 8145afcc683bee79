"""The classic theory-of-mind tasks of examples/domains/tom/ (issue 43, item 5): every
question of Sally–Anne (and the variant where she peeks), Smarties, seeing leads to knowing
and the ice-cream van, in its false- and true-belief versions, answered as the literature
expects, exactly and with particles; and the Sally–Anne domain through the command line
(``elot run`` and ``elot batch`` through ``main(argv)``), judging "after finding the basket
empty, she thinks it is in the box" at each judgment point and reporting the posterior that
she saw the move."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from elot.cli import main
from elot.domains.tabular import TabularFront
from elot.engine.settings import InferenceSettings
from elot.judging import score
from elot.lang.english import english
from elot.lang.semantics import compile_formula

REPO = Path(__file__).resolve().parent.parent
TOM = REPO / "examples" / "domains" / "tom"
SALLY = TOM / "sally_anne.py"
CASES = TOM / "sally_anne.json"


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"tom_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES = {name: load(TOM / f"{name}.py") for name in ("sally_anne", "smarties", "seeing", "ice_cream")}
QUESTIONS = [(name, *q) for name, module in MODULES.items() for q in module.QUESTIONS]


def judged(name, case, t, mode, statement, inference=None):
    front = TabularFront(MODULES[name].domain, origin=str(TOM / f"{name}.py"))
    source = front.run(front.episode(case), front.settings(inference=inference))
    return score(compile_formula(statement, source.signature), source.at(t, mode)), source


@pytest.mark.parametrize("name, case, t, mode, statement, expected, what", QUESTIONS,
                         ids=[f"{q[0]}:{q[1]}:{q[6][:40]}" for q in QUESTIONS])
def test_every_battery_question_is_answered_as_expected(name, case, t, mode, statement, expected, what):
    got, _ = judged(name, case, t, mode, statement)
    assert (got.P > 0.5) == expected, f"{what}: P = {got.P}"


def test_each_task_has_a_false_and_a_true_belief_version():
    for module in MODULES.values():
        cases = {q[0] for q in module.QUESTIONS}
        assert len(cases) >= 2 and set(module.CASES) == cases
        assert any("control" in q[5] for q in module.QUESTIONS)


@pytest.mark.parametrize("name", ["sally_anne", "ice_cream"])
def test_particles_answer_the_battery_too(name):
    inference = InferenceSettings(method="smc", particles=2000, seed=3)
    for case, t, mode, statement, expected, what in MODULES[name].QUESTIONS:
        got, _ = judged(name, case, t, mode, statement, inference)
        assert (got.P > 0.5) == expected, what
        assert got.stderr is not None


def test_sally_anne_by_hand():
    """The numbers behind the answers: at t = 2 Sally has not looked yet and nothing she did
    tells whether she peeked, so P is the prior 0.9 and L is 1/2; Anne, who thinks Sally
    peeked with probability 0.2, gives 0.8 ≥ 0.75 to Sally's believing the basket; once the
    basket is empty Sally knows; going straight to the box says she saw the move."""
    got, source = judged("sally_anne", "false-belief", 2, "current", "believes(sally, formula(inside(marble, basket)))")
    assert (got.P, got.L, got.pi) == pytest.approx((0.9, 0.5, 0.9), abs=1e-12)
    anne = compile_formula("prob_of(anne, believes(sally, formula(inside(marble, basket))))", source.signature)
    rows = source.at(2, "current")
    assert set(anne.value(rows.worlds, rows.beliefs, rows.true_index, belief_tables=rows.belief_tables).round(12)) \
        == {0.8}
    peek, _ = judged("sally_anne", "peek", 3, "current", "observed(sally, move)")
    assert 0.8 < peek.P < 0.9 and peek.pi == pytest.approx(0.1)


def test_the_battery_speaks_english():
    sig = MODULES["sally_anne"].domain.signature()
    assert english("believes(anne, formula(believes(sally, formula(inside(marble, basket)))))", signature=sig) == \
        "Anne thinks that Sally thinks that the marble is in the basket."
    assert english("observed(sally, move)", signature=sig) == "Sally saw the marble being moved."


# -- the command line ----------------------------------------------------------------------------

def elot(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_judges_her_belief_at_each_point_and_reports_what_she_saw(capsys):
    code, out, err = elot(capsys, "run", "--domain", SALLY, f"{CASES}:1", "--json", "-",
                          "-s", "current: Sally thinks that the marble is in the box.",
                          "-s", "current: believes(anne, formula(believes(sally, formula(inside(marble, basket)))))")
    assert code == 0, err
    data = json.loads(out)
    assert [j["t"] for j in data["judgments"]] == [2, 3, 5]
    belief = [{s["formula"]: s["posterior"] for s in j["statements"]}["believes(player, formula(inside(marble, box)))"]
              for j in data["judgments"]]
    assert belief == pytest.approx([0.1, 1.0, 1.0])          # before she looks; after finding the basket empty
    second = [j["statements"][-1]["posterior"] for j in data["judgments"]]
    assert second == pytest.approx([1.0, 0.0, 0.0])          # Anne sees her look in the basket: she knows now
    saw = [{o["option"]: o["value"] for o in j["outputs"]}["observed(sally, move)"] for j in data["judgments"]]
    assert saw[0] == pytest.approx(0.1) and saw[1] < 0.01    # looking in the basket says she did not see the move
    outputs = {(o["judgment"], o["option"]) for o in data["outputs"]}
    assert {("percept", "observed(anne, move)"), ("event", "happened(move)")} <= outputs


def test_run_prints_the_percepts_at_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = elot(capsys, "run", "--domain", SALLY, f"{CASES}:2", "-s", "current: Sally saw the marble being moved.")
    assert code == 0, err
    words = " ".join(out.split())     # the note wraps at the terminal's width
    assert "observed(sally, move)" in out and "happened(move)" in out
    assert "percept: the posterior that an agent saw an event; event: that it happened" in words
    assert "→ observed(player, move)" in out


def test_batch_has_the_percepts_column(capsys, tmp_path):
    table = tmp_path / "battery.csv"
    code, _, err = elot(capsys, "batch", "--domain", SALLY, CASES, "-s", "current: observed(sally, move)",
                          "-o", table)
    assert code == 0, err
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 7 and all(r["percepts"].startswith("observed(sally, move)=") for r in rows)
    peek = next(r for r in rows if r["scenario"].endswith(":2") and r["t"] == "3")
    assert float(peek["P"]) == pytest.approx(float(peek["percepts"].split(";")[0].split("=")[1]))


def test_a_witness_the_signature_lacks_is_refused_by_name(capsys, tmp_path):
    broken = tmp_path / "sally_anne_broken.py"
    broken.write_text(SALLY.read_text().replace('Witness("anne"', 'Witness("annie"'))
    code, _, err = elot(capsys, "run", "--domain", broken, "false-belief", "-s", "observed(sally, move)")
    assert code == 2 and "Traceback" not in err
    assert "events: agent 'annie' is not in the domain's signature (did you mean anne?)" in err


def test_the_repl_judges_nested_beliefs_and_shows_beliefs_by_world(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(
        ":current\n:goto 2\nbelieves(anne, formula(believes(sally, formula(inside(marble, basket)))))\n"
        ":beliefs\n:worlds\n"))
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = elot(capsys, "repl", "--domain", SALLY, f"{CASES}:1")
    assert code == 0, out + err
    assert "P = 1.000" in out and "(current belief, t=2)" in out
    assert "stays" in out and "moved" in out                  # :beliefs over the worlds by name
    lines = [line for line in out.splitlines() if line.startswith("happened(move), inside(marble, box), observed(anne")]
    assert len(lines) == 2                                    # :worlds: situations that read alike added up
