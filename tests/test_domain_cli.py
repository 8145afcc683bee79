"""The same commands on any domain of the engine (issue 35): ``elot run`` (and ``elot repl``)
on food trucks (.trucks files, the experiment's scenarios by id) and on a researcher's
domain from a Python file (the coffee shop of examples/domains), through the command line
in-process (``elot.cli.main``); every bad domain, scenario and option is one error, no
traceback."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import baker2017_path as baker_path   # where the food-truck data are

from elot.cli import main
from elot.domains.foodtrucks.hypotheses import hypotheses, result_at
from elot.domains.foodtrucks.language import signature as foodtruck_signature
from elot.domains.foodtrucks.model import prediction_of
from elot.domains.foodtrucks.trucksfile import read_trucks
from elot.engine import Case, Engine, EngineConfig, load_domain
from elot.judging import score
from elot.statements import compile_statement

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"
PEEK = REPO / "examples" / "domains" / "coffee_peek.json"

#: The student walks up the left gap, looks behind the wall, finds it empty, goes back to eat Korean.
LOOKED = """\
# the student checks behind the wall, finds it empty, and goes back
scenario left-check-empty
map 1
spot2 empty
start 1 1
moves W N N stay S S S eat
"""




def elot(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def trucks(tmp_path) -> Path:
    path = tmp_path / "looked.trucks"
    path.write_text(LOOKED)
    return path


# -- food trucks through elot run ------------------------------------------------------------

def test_run_a_trucks_file_prints_and_reports_what_ran(capsys, trucks):
    code, out, err = elot(capsys, "run", trucks, "--json", "-",
                          "-s", "believes(student, formula(not(empty(spot2))))",
                          "-s", "At first the student thought the Lebanese truck was probably behind the building.",
                          "-s", "The student likes the Korean truck best.")
    assert code == 0, err
    data = json.loads(out)
    assert data["domain"] == "foodtrucks" and data["model"] == "btom"
    ran = data["ran"]["config"]
    assert ran["planner"] == "belief-vi" and ran["beta"] == 2.5 and ran["costs"] and not ran["true_belief"]
    # the outputs are the model's own predictions for this scenario
    [scenario] = read_trucks(trucks)
    result = result_at(scenario, len(scenario.states) - 1)
    want = prediction_of(scenario, result)
    got = {(o["judgment"], o["option"]): o["value"] for o in data["outputs"]}
    assert [got["desire", k] for k in "KLM"] == pytest.approx(list(want.desire), abs=1e-12)
    assert [got["belief", k] for k in "LMN"] == pytest.approx(list(want.belief), abs=1e-12)
    # each statement scored at the path's end as the food-truck hypotheses score it
    [judgment] = data["judgments"]
    assert judgment["t"] == len(scenario.states) - 1
    looked, lebanese, korean = judgment["statements"]
    rows = hypotheses(result)
    expected = score(compile_statement("believes(student, formula(not(empty(spot2))))", foodtruck_signature()), rows)
    assert looked["mode"] == "initial" and looked["posterior"] == pytest.approx(expected.posterior, abs=1e-12)
    assert looked["posterior"] > looked["prior_fraction"]     # it went to look: it expected a truck
    assert lebanese["formula"] == "believes(player, likely(at(lebanese, spot2)))"
    # it went to look before settling for the Korean truck: it liked another truck better
    assert korean["formula"] == "likes_best(player, korean)" and korean["posterior"] < 0.05
    assert got["desire", "K"] < max(got["desire", "L"], got["desire", "M"])


def test_the_models_planner_and_beta_are_what_run_reports(capsys, trucks):
    for model, key, value in (("true-belief", "true_belief", True), ("no-cost", "costs", False)):
        code, out, err = elot(capsys, "run", trucks, "--model", model, "--beta", "4", "--json", "-")
        assert code == 0, err
        ran = json.loads(out)["ran"]["config"]
        assert ran[key] is value and ran["beta"] == 4.0
    code, out, _ = elot(capsys, "run", trucks, "--planner", "qmdp", "--json", "-")
    data = json.loads(out)
    assert data["ran"]["config"]["planner"] == "qmdp"
    [scenario] = read_trucks(trucks)
    direct = prediction_of(scenario, result_at(scenario, len(scenario.states) - 1, EngineConfig(planner="qmdp")))
    assert [o["value"] for o in data["outputs"][:3]] == pytest.approx(list(direct.desire), abs=1e-12)


def test_csv_has_a_row_per_statement_with_the_outputs(capsys, trucks):
    code, out, err = elot(capsys, "run", trucks, "--csv", "-", "-s", "empty(spot2)", "-s", "at(korean, spot1)")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["formula"] for r in rows] == ["empty(spot2)", "at(korean, spot1)"]
    assert all(float(r["posterior"]) == 1.0 for r in rows)          # both true in the known world
    assert {"desire_K", "desire_L", "desire_M", "belief_L", "belief_M", "belief_N"} <= set(rows[0])


def test_a_statement_about_the_current_belief_is_judged_on_the_belief_at_that_point(capsys, trucks, tmp_path):
    """The student looked behind the building and saw spot 2 empty: now it believes so, though
    at first it did not (issue 43: beliefs along the path in every tabular domain)."""
    statement = "believes(student, formula(empty(spot2)))"
    scored = {}
    for mode in ("current", "initial"):
        code, out, err = elot(capsys, "run", trucks, "--mode", mode, "--json", "-", "-s", statement,
                              "-s", "wants(student, korean)")
        assert code == 0, err
        scored[mode] = {s["formula"]: s for s in json.loads(out)["judgments"][0]["statements"]}
    assert scored["current"][statement]["posterior"] > 0.99 > 0.5 > scored["initial"][statement]["posterior"]
    # a statement about desires does not depend on the mode (its rows are the agent's states at t, or its
    # initial beliefs: the same posterior over desires, summed otherwise)
    assert scored["current"]["wants(student, korean)"]["posterior"] == pytest.approx(
        scored["initial"]["wants(student, korean)"]["posterior"], rel=1e-12)


def test_a_belief_about_a_belief_is_refused_on_a_domain_without_events(capsys, trucks, tmp_path):
    out_file = tmp_path / "scores.json"
    code, out, err = elot(capsys, "run", trucks, "--json", out_file, "-s", "wants(student, korean)",
                          "-s", "believes(student, formula(believes(student, formula(empty(spot2)))))")
    assert code == 2 and "Traceback" not in err
    assert "a belief about a belief" in err and "declares no events" in err
    data = json.loads(out_file.read_text())    # what was scored is written
    assert [s["formula"] for s in data["judgments"][0]["statements"]] == ["wants(student, korean)"]


def test_experiment_scenarios_by_id_equal_the_authors_predictions(capsys):
    data = baker_path()
    if data is None:
        pytest.skip("the food-truck data are not at ../shared/baker2017 (or $ELOT_BAKER2017_DATA)")
    stored = {}
    with open(data / "model_predictions_btom.csv", newline="") as f:
        for row in csv.DictReader(f):
            stored[row["scenario"], row["judgment"], row["option"]] = float(row["value"])
    for ref in ("foodtrucks:1", "12"):
        argv = ["run", ref, "--data", data, "--json", "-"] + (["--domain", "foodtrucks"] if ":" not in ref else [])
        code, out, err = elot(capsys, *argv)
        assert code == 0, err
        sid = ref.rpartition(":")[2]
        for o in json.loads(out)["outputs"]:
            assert o["value"] == pytest.approx(stored[sid, o["judgment"], o["option"]], abs=1e-6)


@pytest.mark.parametrize("argv, message", [
    (["foodtrucks:999", "--data", "{data}"], "has no scenario '999'"),   # read from the experiment's data
    (["12", "--domain", "foodtrucks", "--data", "{tmp}"], "no scenarios.json in"),
    (["nothing-here.trucks"], "no food-truck scenario 'nothing-here.trucks'"),
    (["12", "--domain", "no-such-domain"], "no domain 'no-such-domain'"),
    (["{trucks}", "--model", "non-planning"], "has no model 'non-planning'"),
    (["{trucks}", "--k", "5"], "--k is not a setting of the foodtrucks domain"),
    (["--planner", "qmdp"], "--planner is not a setting of the doors-keys-gems domain"),
    (["--model", "no-cost"], "has no model 'no-cost'"),      # the gridworld's models are its own
    (["{trucks}", "--max-memory", "1K"], "refused before any work"),
])
def test_bad_food_truck_runs_are_one_error(capsys, tmp_path, trucks, argv, message):
    data = baker_path()
    if "{data}" in argv and data is None:
        pytest.skip("the food-truck data are not at ../shared/baker2017 (or $ELOT_BAKER2017_DATA)")
    argv = [a.format(tmp=tmp_path, trucks=trucks, data=data) for a in argv]
    code, out, err = elot(capsys, "run", *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_malformed_trucks_file_is_pointed_at_its_line(capsys, tmp_path):
    bad = tmp_path / "bad.trucks"
    bad.write_text(LOOKED.replace("moves W N N", "moves W N Q"))
    code, _, err = elot(capsys, "run", bad)
    assert code == 2 and f"{bad}:6:" in err and "unknown move 'Q'" in err


def test_a_file_of_several_scenarios_needs_one_picked(capsys, tmp_path):
    two = tmp_path / "two.trucks"
    two.write_text(LOOKED + LOOKED.replace("left-check-empty", "again").replace("spot2 empty", "spot2 mexican")
                   .replace("S S S eat", "S S S"))
    code, _, err = elot(capsys, "run", two)
    assert code == 2 and "holds 2 scenarios" in err and f"{two}:NAME" in err
    code, out, err = elot(capsys, "run", f"{two}:again", "--json", "-")
    assert code == 0, err
    assert json.loads(out)["scenario"] == "again"


# -- a researcher's own domain from a file -----------------------------------------------------

def test_the_coffee_shop_runs_from_its_file(capsys):
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--json", "-",
                          "-s", "believes(visitor, likely(open(shop)))", "-s", "open(shop)")
    assert code == 0, err
    data = json.loads(out)
    assert data["domain"] == "coffee-shop" and data["ran"]["config"]["planner"] == "belief-vi"
    shop = load_domain(SHOP)
    [[peek]] = Engine(shop).run([Case("corridor", (2, 3, 3, 2, 1, 0, 5), world=1)])
    got = {o["option"]: o["value"] for o in data["outputs"]}
    assert [got["coffee"], got["soda"]] == pytest.approx(list(peek.mean_utility()), abs=1e-12)
    assert [got["shop-open"], got["shop-closed"]] == pytest.approx(list(peek.mean_belief()), abs=1e-12)
    likely, is_open = data["judgments"][0]["statements"]
    # it went to look: it thought the shop likely open (belief row 0.9 open is the only one above likely's 0.7)
    posterior = peek.posterior()[0]                       # [initial belief, desire]
    assert likely["posterior"] == pytest.approx(float(posterior[0].sum()), abs=1e-12)
    assert likely["posterior"] > likely["prior_fraction"]
    assert is_open["posterior"] == 0.0                    # the true world: closed


def test_a_domain_file_with_an_unknown_world_runs_over_every_world(capsys, tmp_path):
    case = tmp_path / "unknown.json"
    case.write_text(json.dumps({"layout": "corridor", "world": None, "path": ["cell2", "cell1", "cell0", "done"]}))
    code, out, err = elot(capsys, "run", "--domain", SHOP, case, "--json", "-", "-s", "open(shop)")
    assert code == 0, err
    data = json.loads(out)
    assert data["ran"]["worlds"] == [0, 1]
    [is_open] = data["judgments"][0]["statements"]
    assert 0.0 < is_open["posterior"] < 1.0


def _shop_with(tmp_path: Path, extra: str, name: str = "broken.py") -> Path:
    path = tmp_path / name
    path.write_text(SHOP.read_text() + "\n\n" + extra)
    return path


@pytest.mark.parametrize("extra, message", [
    ("class Broken(CoffeeShop):\n    def tables(self, layout):\n        raise RuntimeError('no map')\n"
     "domain = Broken()\n", "coffee-shop.tables raised RuntimeError: no map"),
    ("import dataclasses\nclass Broken(CoffeeShop):\n    def tables(self, layout):\n"
     "        t = super().tables(layout)\n        return dataclasses.replace(t, costs=t.costs[:2])\n"
     "domain = Broken()\n", "coffee-shop.tables: costs has shape (2,), expected (4,)"),
    ("class Broken(CoffeeShop):\n    def desires(self):\n"
     "        n = 3_000_000\n        return DesireSpace(('coffee', 'soda'), np.zeros((n, 2)), np.full(n, 1 / n))\n"
     "domain = Broken()\n", "refused before any work"),
    ("def oops(:\n    pass\n", "does not parse"),
    ("raise ValueError('half written')\n", "raised ValueError: half written"),
])
def test_a_domain_that_breaks_the_protocol_is_one_error_naming_it(capsys, tmp_path, extra, message):
    path = _shop_with(tmp_path, extra)
    code, _, err = elot(capsys, "run", "--domain", path, PEEK)
    assert code == 2 and message in err and "Traceback" not in err
    if "parse" in message:
        assert f"{path}:" in err        # the file and its line


def test_a_file_with_no_domain_is_named(capsys, tmp_path):
    empty = tmp_path / "nothing.py"
    empty.write_text("x = 1\n")
    code, _, err = elot(capsys, "run", "--domain", empty, PEEK)
    assert code == 2 and str(empty) in err and "no class with the domain methods" in err


@pytest.mark.parametrize("case, message", [
    ({"layout": "corridor", "world": "shop-gone", "path": ["cell2"]}, "no world 'shop-gone'"),
    ({"layout": "corridor", "world": 1, "path": ["cell2", "cell9"]}, "no state 'cell9'"),
    ({"layout": "corridor", "path": []}, "path must be a non-empty list"),
    ({"world": 1, "path": ["cell2"]}, "no layout"),
])
def test_a_bad_case_file_is_named(capsys, tmp_path, case, message):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    code, _, err = elot(capsys, "run", "--domain", SHOP, path)
    assert code == 2 and message in err and str(path) in err


# -- elot repl on a domain ---------------------------------------------------------------------

def repl(capsys, monkeypatch, lines: str, *argv) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    monkeypatch.setenv("COLUMNS", "200")    # messages on one line each
    return elot(capsys, "repl", *argv)


def test_repl_opens_a_food_truck_scenario_at_its_judgment_point(capsys, monkeypatch, trucks):
    formula = "believes(student, formula(not(empty(spot2))))"
    code, out, _ = elot(capsys, "run", trucks, "-s", formula, "-s", "likes_best(student, mexican)", "--json", "-")
    looked, mexican = json.loads(out)["judgments"][0]["statements"]
    code, out, err = repl(capsys, monkeypatch, f"{formula}\nThe student likes the Mexican truck best.\n"
                          f":explain {formula}\n:load {trucks}\n", trucks)
    assert code == 0, out + err
    assert "t=8/8 initial" in out                                  # at the path's end, initial belief
    assert f"P = {looked['posterior']:.3f}" in out and f"P = {mexican['posterior']:.3f}" in out
    assert "likes_best(player, mexican)" in out                    # English translated
    assert "prob_of(student, not(empty(spot2)))" in out            # :explain's column
    assert out.rstrip().endswith("judgment points 8; model btom (beta = 2.5, planner = belief-vi) (the engine infers "
                                 "the student's initial belief, its belief along the path and its desires)")
    # :load opens at the judgment point too


def test_repl_says_plainly_what_does_not_apply(capsys, monkeypatch, trucks):
    code, out, err = repl(capsys, monkeypatch, ":map\n:current\nbelieves(student, formula(empty(spot2)))\n"
                          "believes(student, formula(believes(student, formula(empty(spot2)))))\n"
                          ":set k 4\n:goals\n", trucks)
    assert code == 2 and "Traceback" not in out + err                  # failed lines set the status
    assert "the foodtrucks domain draws no map as text" in out
    assert "(current belief, t=8)" in out                              # the current belief is judged
    assert "a belief about a belief" in out and "declares no events" in out
    assert "k is not a setting of the foodtrucks domain" in out
    assert "korean" in out and "mexican" in out                    # :goals still answers after the errors


def test_repl_settings_rerun_the_engine(capsys, monkeypatch, trucks):
    code, out, err = repl(capsys, monkeypatch, "wants(student, mexican)\n:set beta 1\nwants(student, mexican)\n"
                          ":model true-belief\nwants(student, mexican)\n", trucks)
    assert code == 0, out + err
    assert "model: true-belief  (beta = 1, planner = qmdp)" in out
    scores = [float(line.split("P = ")[1].split()[0]) for line in out.splitlines() if "P = " in line]
    assert len(set(scores)) == 3                                   # each setting changed the answer


def test_repl_on_the_coffee_shop_from_its_file(capsys, monkeypatch):
    code, out, err = repl(capsys, monkeypatch, "believes(visitor, likely(open(shop)))\n:goto 0\n:current\n"
                          "believes(visitor, likely(open(shop)))\n", "--domain", SHOP, PEEK)
    assert code == 0, out + err
    shop = load_domain(SHOP)
    [[peek]] = Engine(shop).run([Case("corridor", (2, 3, 3, 2, 1, 0, 5), world=1)])
    assert f"P = {float(peek.posterior()[0][0].sum()):.3f}" in out
    [[start]] = Engine(shop).run([Case("corridor", (2,), world=1)])
    assert f"P = {float(start.posterior()[0][0].sum()):.3f}" in out    # at t=0 the current belief is the initial one


# -- elot batch on a domain ---------------------------------------------------------------------

def test_batch_runs_food_truck_scenarios_by_settings_into_the_tidy_table(capsys, tmp_path, trucks):
    two = tmp_path / "two.trucks"
    two.write_text(LOOKED + LOOKED.replace("left-check-empty", "right-start").replace("map 1", "map 2")
                   .replace("start 1 1", "start 13 1").replace("moves W N N stay S S S eat", "moves E N N N"))
    out = tmp_path / "table.csv"
    code, _, err = elot(capsys, "batch", two, "--model", "btom,no-cost", "--beta", "1,2.5", "-o", out,
                        "-s", "believes(student, formula(not(empty(spot2))))", "-s", "likes_best(student, korean)")
    assert code == 0, err
    rows = list(csv.DictReader(out.open(newline="")))
    from elot.study.tables import ALL_COLUMNS

    assert tuple(rows[0]) == ALL_COLUMNS
    assert len(rows) == 2 * 2 * 2 * 2           # scenarios x models x betas x statements, one judgment each
    assert {(r["model"], r["beta"]) for r in rows} == {("btom", "1.0"), ("btom", "2.5"), ("no-cost", "1.0"),
                                                       ("no-cost", "2.5")}
    # each row is what elot run scores for the same scenario and setting
    code, text, err = elot(capsys, "run", f"{two}:left-check-empty", "--model", "no-cost", "--beta", "1", "--json", "-",
                           "-s", "believes(student, formula(not(empty(spot2))))")
    [want] = json.loads(text)["judgments"][0]["statements"]
    [got] = [r for r in rows if r["scenario"] == f"{two}:left-check-empty" and r["model"] == "no-cost"
             and r["beta"] == "1.0" and r["statement_id"] == "s1"]
    assert float(got["P"]) == want["posterior"] and float(got["L"]) == want["normalized_likelihood"]
    assert got["k"] == "" and got["mode"] == "initial" and got["t"] == "8"


def test_batch_of_a_domain_refuses_the_gridworlds_settings(capsys, tmp_path, trucks):
    code, _, err = elot(capsys, "batch", trucks, "--k", "2", "-s", "empty(spot2)", "-o", tmp_path / "t.csv")
    assert code == 2 and "--k is not a setting of the foodtrucks domain" in err
    code, _, err = elot(capsys, "batch", trucks, "--model", "non-planning", "-s", "empty(spot2)", "-o", tmp_path / "t.csv")
    assert code == 2 and "has no model 'non-planning'" in err
    code, _, err = elot(capsys, "batch", trucks, "-o", tmp_path / "t.csv")
    assert code == 2 and "nothing to score" in err
    assert not (tmp_path / "t.csv").exists()


def test_batch_runs_a_domain_from_a_file(capsys, tmp_path):
    out = tmp_path / "shop.csv"
    code, _, err = elot(capsys, "batch", "--domain", SHOP, PEEK, "--beta", "1,2.5,5", "-o", out,
                        "-s", "believes(visitor, likely(open(shop)))")
    assert code == 0, err
    rows = list(csv.DictReader(out.open(newline="")))
    assert [r["beta"] for r in rows] == ["1.0", "2.5", "5.0"]
    shop = load_domain(SHOP)
    for row in rows:
        [[peek]] = Engine(shop, EngineConfig(beta=float(row["beta"]))).run([Case("corridor", (2, 3, 3, 2, 1, 0, 5), world=1)])
        assert float(row["P"]) == pytest.approx(float(peek.posterior()[0][0].sum()), abs=1e-12)


# -- elot fit on a domain -----------------------------------------------------------------------

THREE = LOOKED + """
scenario right-look-mexican
map 2
spot2 mexican
start 13 1
moves E N N N stay eat

scenario straight-to-korean
map 1
spot2 lebanese
start 7 1
moves W W W W W W W S eat
"""


def test_fit_recovers_the_beta_ratings_were_made_at(capsys, tmp_path):
    """Ratings made from the model's own L at beta 2.5 (elot batch, then noise-free): the fit
    over 1, 2.5 and 5 finds 2.5, with r = 1, and reads the scenarios back by the table's names."""
    scenarios = tmp_path / "three.trucks"
    scenarios.write_text(THREE)
    table = tmp_path / "table.csv"
    code, _, err = elot(capsys, "batch", scenarios, "--beta", "2.5", "-o", table,
                        "-s", "believes(student, formula(not(empty(spot2))))",
                        "-s", "The student likes the Mexican truck best.",
                        "-s", "believes(student, likely(at(lebanese, spot2)))")
    assert code == 0, err
    rows = list(csv.DictReader(table.open(newline="")))
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["scenario", "mode", "t", "statement", "formula", "rating"])
        writer.writeheader()
        for row in rows:
            writer.writerow({**{k: row[k] for k in ("scenario", "mode", "t", "statement", "formula")},
                             "rating": row["L"]})
    fitted = tmp_path / "fit.json"
    code, out, err = elot(capsys, "fit", "--domain", "foodtrucks", ratings, "--model", "btom,no-cost",
                          "--beta", "1,2.5,5", "--samples", "50", "-o", fitted)
    assert code == 0, err
    data = json.loads(fitted.read_text())
    assert data["model"] == "btom" and data["beta"] == 2.5 and data["r"] == pytest.approx(1.0, abs=1e-9)
    assert "no-cost" in data["ablations"]


def test_fit_of_a_domain_names_an_unknown_scenario(capsys, tmp_path):
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("scenario,mode,t,statement,rating\nnowhere.trucks,initial,3,empty(spot2),0.5\n")
    code, _, err = elot(capsys, "fit", "--domain", "foodtrucks", ratings)
    assert code == 2 and "unknown scenario 'nowhere.trucks'" in err and f"{ratings}:2" in err


def test_food_truck_hypotheses_carry_desires_so_desire_statements_score(capsys, trucks):
    """foodtrucks.hypotheses (the library's rows) and elot run (the command line's) judge a
    desire statement alike: "The student likes the Mexican truck best"."""
    [scenario] = read_trucks(trucks)
    rows = hypotheses(result_at(scenario, len(scenario.states) - 1))
    assert rows.desires is not None and rows.desires.objects == ("korean", "lebanese", "mexican")
    said = score(compile_statement("likes_best(student, korean)", foodtruck_signature()), rows)
    code, out, err = elot(capsys, "run", trucks, "-s", "likes_best(student, korean)", "--json", "-")
    [got] = json.loads(out)["judgments"][0]["statements"]
    assert got["posterior"] == pytest.approx(said.posterior, abs=1e-12)
    assert got["prior_fraction"] == pytest.approx(said.prior_fraction, abs=1e-12)


# -- how a domain is found, and its own scenario formats -------------------------------------------

def test_a_package_domain_is_found_by_its_entry_point(capsys, monkeypatch):
    """``--domain NAME`` loads what a package registers under the ``elot.domains`` group."""
    import importlib.metadata as metadata
    import sys
    import types

    module = types.ModuleType("fake_shop_package")
    shop = load_domain(SHOP)
    module.Shop = type(shop)
    monkeypatch.setitem(sys.modules, "fake_shop_package", module)
    point = metadata.EntryPoint(name="coffee", value="fake_shop_package:Shop", group="elot.domains")
    broken = metadata.EntryPoint(name="broken", value="fake_shop_package:Missing", group="elot.domains")
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None: [point, broken] if group == "elot.domains" else [])
    code, out, err = elot(capsys, "run", "--domain", "coffee", PEEK, "--json", "-")
    assert code == 0, err
    assert json.loads(out)["domain"] == "coffee-shop"
    code, _, err = elot(capsys, "run", "--domain", "broken", PEEK)
    assert code == 2 and "the entry point broken (fake_shop_package:Missing) does not load" in err


def test_a_domain_reads_its_own_scenarios(capsys, tmp_path):
    """A domain's ``cases()`` names scenarios; its ``read_case(path)`` reads its own format."""
    path = _shop_with(tmp_path, """
class Named(CoffeeShop):
    def cases(self):
        from elot.engine import Case
        return {"straight": Case("corridor", (2, 1, 0, 5), world=1, name="straight")}

    def read_case(self, path):
        from elot.engine import Case
        cells = [int(word) for word in open(path).read().split()]
        return Case("corridor", tuple(cells), world=0, name="walk")

domain = Named()
""", name="named.py")
    code, out, err = elot(capsys, "run", "--domain", path, "straight", "--json", "-")
    assert code == 0, err
    shop = load_domain(SHOP)
    [[straight]] = Engine(shop).run([Case("corridor", (2, 1, 0, 5), world=1)])
    got = {o["option"]: o["value"] for o in json.loads(out)["outputs"]}
    assert [got["coffee"], got["soda"]] == pytest.approx(list(straight.mean_utility()), abs=1e-12)
    walk = tmp_path / "walk.txt"
    walk.write_text("2 3 4 5\n")
    code, out, err = elot(capsys, "run", "--domain", path, walk, "--json", "-")
    assert code == 0, err
    data = json.loads(out)
    assert data["scenario"] == "walk" and data["ran"]["worlds"] == [0] and data["ran"]["steps"] == 3
    code, _, err = elot(capsys, "run", "--domain", path, "crooked")
    assert code == 2 and "no scenario 'crooked'" in err and "straight" in err


def test_repl_refuses_a_space_too_large_before_the_prompt(capsys, monkeypatch, trucks):
    code, out, err = repl(capsys, monkeypatch, "wants(student, korean)\n", trucks, "--max-memory", "1M")
    assert code == 2 and "refused before any work" in err and "elot[" not in out


@pytest.mark.parametrize("command", [["map"], ["plot"]])
def test_the_gridworlds_figures_draw_a_domain_scenario_too(capsys, tmp_path, trucks, command):
    """One pipeline (#41): the map and the plot of a food-truck scenario are drawn as the
    gridworld's are, by its front."""
    code, _, err = elot(capsys, *command, trucks, "-o", tmp_path / "out.png")
    assert code == 0 and "Traceback" not in err, err
    assert (tmp_path / "out.png").read_bytes().startswith(b"\x89PNG")


def test_batch_of_a_domain_in_worker_processes_equals_the_serial_one(capsys, tmp_path):
    scenarios = tmp_path / "three.trucks"
    scenarios.write_text(THREE)
    tables = []
    for jobs in ("1", "2"):
        out = tmp_path / f"table{jobs}.csv"
        code, _, err = elot(capsys, "batch", scenarios, "--jobs", jobs, "--model", "btom,no-cost", "-o", out,
                            "-s", "wants(student, mexican)")
        assert code == 0, err
        tables.append(sorted(tuple(r.values()) for r in csv.DictReader(out.open(newline=""))))
    assert tables[0] == tables[1] and len(tables[0]) == 3 * 2


def test_the_command_lines_planners_are_the_engines():
    from elot.cli import options
    from elot.engine import PLANNER_NAMES

    assert options.PLANNERS == PLANNER_NAMES


def test_a_case_files_judgment_points_are_each_judged_on_the_path_so_far(capsys, tmp_path):
    case = tmp_path / "peek.json"
    data = json.loads(PEEK.read_text())
    case.write_text(json.dumps({**data, "judgments": [2, 6]}))
    code, out, err = elot(capsys, "run", "--domain", SHOP, case, "--mode", "initial", "--json", "-",
                          "-s", "believes(visitor, likely(open(shop)))")
    assert code == 0, err
    early, late = json.loads(out)["judgments"]
    assert (early["t"], late["t"]) == (2, 6)
    shop = load_domain(SHOP)
    for judged, path in ((early, (2, 3, 3)), (late, (2, 3, 3, 2, 1, 0, 5))):
        [[result]] = Engine(shop).run([Case("corridor", path, world=1)])
        [got] = judged["statements"]
        assert got["posterior"] == pytest.approx(float(result.posterior()[0][0].sum()), abs=1e-12)


# -- judgment points along a food-truck path --------------------------------------------------

def test_a_judge_line_scores_each_point_with_the_outputs_there(capsys, tmp_path):
    """Before the first move nothing is known (the outputs are the prior's: every truck
    alike); once the student has checked the empty spot and gone back to Korean, it is
    judged to like the missing trucks more, and not to like Korean best."""
    path = tmp_path / "judged.trucks"
    path.write_text(LOOKED + "judge 0 3 8\n")
    code, out, err = elot(capsys, "run", path, "--csv", "-", "-s", "The student likes the Korean truck best.")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["t"] for r in rows] == ["0", "3", "8"]
    start, end = rows[0], rows[-1]
    assert float(start["desire_K"]) == pytest.approx(float(start["desire_L"]), abs=1e-9)
    assert float(end["desire_L"]) > float(end["desire_K"]) + 0.5
    assert float(end["posterior"]) < 0.01 < float(start["posterior"])


def test_judgment_points_round_trip_through_the_file(tmp_path):
    from elot.domains.foodtrucks.trucksfile import format_trucks, parse_trucks

    [scenario] = parse_trucks(LOOKED + "judge 2 8\n")
    assert scenario.judgments == (2, 8)
    assert parse_trucks(format_trucks([scenario])) == [scenario]
    [plain] = parse_trucks(LOOKED)
    assert plain.judgments == () and "judge" not in format_trucks([plain])


@pytest.mark.parametrize("line, message", [
    ("judge 9", "not a time 0..8"),
    ("judge 3 3", "does not come after 3"),
    ("judge 4 two", "'two' is not a time"),
    ("judge", "a judge line with no time"),
])
def test_a_bad_judge_line_is_pointed_at(capsys, tmp_path, line, message):
    bad = tmp_path / "bad.trucks"
    bad.write_text(LOOKED + line + "\n")
    code, _, err = elot(capsys, "run", bad)
    assert code == 2 and message in err and f"{bad}:7:" in err and "Traceback" not in err
