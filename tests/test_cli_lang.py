"""``elot parse | check | lower | eval`` through the real entry points (subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "formulas.elot"


def run(*args: str, stdin: str | None = None, module: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return run_elot(*args, stdin=stdin, env=env, module=module, timeout=60)


def test_parse_prints_the_canonical_form():
    r = run("parse", "believes(player,formula( empty(box1) ))")
    assert (r.returncode, r.stdout, r.stderr) == (0, "believes(player, formula(empty(box1)))\n", "")


def test_python_dash_m_works_too():
    r = run("check", "believes(player, might(empty(box1)))", module=True)
    assert (r.returncode, r.stdout) == (0, "E\n")


def test_check_prints_the_type_or_every_error():
    assert run("check", "exists(key(K), inside(K, box1))").stdout == "Φ\n"
    r = run("check", "believes(player, formula(and(inisde(key1, box1), empty(box7))))")
    assert r.returncode == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines()[:4] == [
        "<formula>:1:30: type error: unknown predicate or operator 'inisde'",
        "    believes(player, formula(and(inisde(key1, box1), empty(box7))))",
        "                                 ^^^^^^^^^^^^^^^^^^",
        "hint: did you mean 'inside'?",
    ]
    assert "<formula>:1:56: type error: unknown object 'box7'" in r.stderr


def test_lower_and_explain():
    r = run("lower", "knows_that(player, formula(empty(box1)))")
    assert r.stdout == "and(>=(prob_of(player, empty(box1)), threshold(believes)), empty(box1))\n"
    r = run("lower", "believes(player, might(empty(box1)))", "--explain")
    assert r.stdout.splitlines() == [
        ">=(prob_of(player, empty(box1)), threshold(might))",
        "  1:1 believes: believes(A, M) ⟶ M·A  (likewise certain(A, M), hopes(A, M))",
        "  1:18 might: might(φ)·A ⟶ >=(prob_of(A, φ), threshold(might))",
    ]


def test_bind_free():
    r = run("check", "believes(player, formula(inside(K, box1)))")
    assert r.returncode == 2 and "variable K is not bound" in r.stderr and "--bind-free" in r.stderr
    r = run("lower", "believes(player, formula(inside(K, box1)))", "--bind-free")
    assert r.stdout == "exists(item(K), >=(prob_of(player, inside(K, box1)), threshold(believes)))\n"


def test_file_input_continues_after_a_bad_line(tmp_path):
    path = tmp_path / "f.elot"
    path.write_text("# comment\nempty(box1)\n\nknows_that(player, empty(box1))\nbelieves(player, formula(empty(box2))\n"
                    "believes(player, might(empty(box1)))\n", encoding="utf-8")
    r = run("check", "--file", str(path))
    assert r.returncode == 2
    assert r.stdout.splitlines() == [f"{path}:2: Φ", f"{path}:6: E"]
    err = r.stderr.splitlines()
    assert err[0] == f"{path}:4:20: type error: knows_that needs formula(...), but empty(box1) is a base formula (Φ)"
    assert err[1:4] == ["    knows_that(player, empty(box1))", "                       ^^^^^^^^^^^",
                        "hint: wrap it in formula(...): formula(empty(box1))"]
    assert err[4] == f"{path}:5:9: syntax error: unbalanced parentheses: 1 '(' never closed"
    assert "Traceback" not in r.stderr


def test_stdin_input():
    r = run("parse", "-", stdin="empty( box1 )\nf(a,\n")
    assert r.returncode == 2
    assert r.stdout == "<stdin>:1: empty(box1)\n"
    assert r.stderr.startswith("<stdin>:2:2: syntax error")


def test_examples_file_is_all_good():
    r = run("check", "--file", str(EXAMPLES))
    assert r.returncode == 0, r.stderr
    formulas = [x for x in EXAMPLES.read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]
    assert len(r.stdout.splitlines()) == len(formulas) == 40


def test_eval_with_state_and_inline_belief():
    belief = "0.5: inside(key1, box1), iscolor(key1, red) | 1/4: inside(key1, box2) | 1/4:"
    r = run("eval", "believes(player, might(exists(and(key(K), iscolor(K, red)), inside(K, box1))))",
            "--state", "inside(key1, box1), iscolor(key1, red)", "--belief", belief)
    assert (r.returncode, r.stdout) == (0, "true\n")
    r = run("eval", "prob_of(player, exists(key(K), inside(K, box1)))", "--belief", belief)
    assert r.stdout == "0.5\n"
    r = run("eval", "believes(player, formula(exists(key(K), inside(K, box1))))", "--belief", belief,
            "--thresholds", "believes=0.5")
    assert r.stdout == "true\n"
    assert run("eval", "empty(box1)", "--state", "inside(key1, box1)").stdout == "false\n"


def test_eval_with_belief_files(tmp_path):
    text = tmp_path / "b.txt"
    text.write_text("# two worlds\n0.5: inside(key1, box1)\n0.5: inside(key1, box2)\n", encoding="utf-8")
    r = run("eval", "believes(player, more(likely, empty(box3), empty(box1)))", "--belief", str(text))
    assert r.stdout == "true\n"
    js = tmp_path / "b.json"
    js.write_text(json.dumps([[0.25, "inside(key1, box1)"], [0.75, ["inside(key1, box2)"]]]), encoding="utf-8")
    r = run("eval", "prob_of(player, empty(box1))", "--belief", str(js))
    assert r.stdout == "0.75\n"


def test_eval_errors_are_rendered_without_traceback():
    r = run("eval", "believes(player, might(empty(box1)))")
    assert r.returncode == 2 and "no belief was given" in r.stderr
    r = run("eval", "empty(box1)", "--state", "inside(key1, box1")
    assert r.returncode == 2 and r.stderr.startswith("--state:1:7: syntax error")
    r = run("eval", "empty(box1)", "--belief", "1: closed(box1)", "--thresholds", "migth=0.3")
    assert r.returncode == 2 and "did you mean 'might'" in r.stderr
    r = run("eval", "empty(box1)", "--belief", "0.3: closed(box1)")
    assert r.returncode == 2 and "sum to 0.3" in r.stderr
    for result in (r,):
        assert "Traceback" not in result.stderr


def test_no_formula_is_a_usage_error():
    r = run("check")
    assert r.returncode == 2 and "no formula given" in r.stderr


def test_signature_from_a_problem_file(labtom):
    problem = labtom / "problems" / "1_1.pddl"
    r = run("check", "believes(player, formula(empty(box4)))", "--signature", str(problem))
    assert r.returncode == 2 and "unknown object 'box4'" in r.stderr
    r = run("eval", "has(player, key2)", "--signature", str(problem), "--state", "has(human, key2)")
    assert r.stdout == "true\n"
