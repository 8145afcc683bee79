"""One vocabulary of options across ``run``, ``plot``, ``repl`` and ``map``: numbers checked,
``-`` for standard output, files never overwritten by surprise. The commands run in process through :func:`elot.cli.main`."""

from __future__ import annotations

import csv
import io
import json

import pytest
from PIL import Image

from elot.cli import build_parser, main
from elot.settings import check_number
from elot.errors import ElotError
from elot.repl.commands import execute
from elot.session import Session

GOOD = "believes(player, formula(empty(box1)))"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``elot ARGV``: (exit status, stdout, stderr); argparse's exits count as statuses."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# -- numbers ------------------------------------------------------------------------


@pytest.mark.parametrize("argv, option, says", [
    (["run", "--k", "0"], "--k", "between 1 and 2,147,483,647"),
    (["run", "--k", "2.5"], "--k", "whole number"),
    (["run", "--k", "1e99"], "--k", "whole number"),
    (["run", "--beta", "nan"], "--beta", "finite"),
    (["run", "--beta", "inf"], "--beta", "finite"),
    (["run", "--beta", "-1"], "--beta", "greater than 0"),
    (["run", "--beta", "0"], "--beta", "greater than 0"),
    (["plot", "--k", "-3", "-o", "x.png"], "--k", "between 1 and 2,147,483,647"),
    (["repl", "--beta", "nan"], "--beta", "finite"),
    (["map", "-t", "-1", "-o", "x.png"], "--time", "at least 0"),
    (["run", "--model", "ful"], "--model", "did you mean full?"),
])
def test_bad_numbers_and_models_are_usage_errors(capsys, argv, option, says):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert f"argument {option}" in err or f"/{option}" in err or f"error: {option}:" in err
    assert says in err


def test_repl_checks_numbers_as_the_command_line_does():
    session = Session.open()
    for bad in ("0", "nan", "2.5"):
        with pytest.raises(ElotError):
            execute(session, f":set k {bad}")
    for bad in ("nan", "inf", "-1"):
        with pytest.raises(ElotError, match="finite number greater than 0"):
            execute(session, f":set beta {bad}")
    # the REPL used to cap k at 6 while `elot run --k 7` worked: both take 7 now
    execute(session, ":set k 7")
    assert session.k == 7 == build_parser().parse_args(["run", "--k", "7"]).k
    assert check_number("beta", "3") == 3.0


# -- one vocabulary -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "plot", "repl", "map"])
def test_every_scenario_command_takes_the_same_scenario_options(command):
    extra = ["-o", "x.png"] if command in ("plot", "map") else []
    args = build_parser().parse_args([command, "1_1", "--labtom", "DIR", "--exp", "exp1",
                                      "--plan", "P", *extra])
    assert (args.scenario, args.data, args.exp, args.plan) == ("1_1", "DIR", "exp1", "P")


@pytest.mark.parametrize("command", ["run", "plot", "repl"])
def test_mode_and_its_older_spelling(command):
    extra = ["-o", "x.png"] if command == "plot" else []
    parse = build_parser().parse_args
    assert parse([command, *extra]).mode == "current"
    assert parse([command, "--mode", "initial", *extra]).mode == "initial"
    assert parse([command, "--initial", *extra]).mode == "initial"
    args = parse([command, "--model", "true-belief", "--beta", "1.5", "--k", "4", "--backend",
                  "reference", "--bind-free", *extra])
    assert (args.model, args.beta, args.k, args.backend, args.bind_free) == (
        "true-belief", 1.5, 4, "reference", True)


def test_plot_takes_the_statement_short_option(capsys, tmp_path):
    out = tmp_path / "p.png"
    status, stdout, err = run(capsys, "plot", "-s", GOOD, "--initial", "-o", str(out))
    assert status == 0, err
    assert "1 statement, 3 goals" in stdout
    with Image.open(out) as image:
        assert image.text["elot:statements"] == "1"


def test_repl_options_reach_the_session(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(":model\n"))
    status, out, err = run(capsys, "repl", "--k", "7", "--beta", "2", "--model", "true-belief",
                           "--initial")
    assert status == 0, err
    assert "model: true-belief  (beta = 2, k = 7, conventions = elot)" in out
    assert "elot[t=0/23 initial]>" in out


# -- - is standard output ---------------------------------------------------------------


def test_csv_and_json_dash_write_to_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "run", "-s", GOOD, "--csv", "-")
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["t"] for r in rows] == ["4", "6", "13"] and rows[0]["formula"] == GOOD
    assert "Goal posterior" in err          # the summary goes to stderr then
    status, out, err = run(capsys, "run", "-s", GOOD, "--json", "-")
    assert status == 0, err
    assert json.loads(out)["judgments"][0]["statements"][0]["formula"] == GOOD
    assert not (tmp_path / "-").exists()


# -- no silent overwrites, atomic ------------------------------------------------------


def test_run_refuses_to_replace_a_file_that_is_not_ours(capsys, tmp_path):
    notes = tmp_path / "important.txt"
    notes.write_text("my notes\n")
    status, _, err = run(capsys, "run", "-s", GOOD, "--csv", str(notes))
    assert status == 2 and "not replacing it" in err and "--force" in err
    assert notes.read_text() == "my notes\n"
    status, _, err = run(capsys, "run", "-s", GOOD, "--json", str(notes))
    assert status == 2 and notes.read_text() == "my notes\n"
    # our own table is replaced, and --force replaces anything
    table = tmp_path / "table.csv"
    assert run(capsys, "run", "-s", GOOD, "--csv", str(table))[0] == 0
    assert run(capsys, "run", "--csv", str(table))[0] == 0
    assert run(capsys, "run", "-s", GOOD, "--csv", str(notes), "--force")[0] == 0
    assert notes.read_text().startswith("t,statement,formula,mode")
    data = tmp_path / "out.json"
    assert run(capsys, "run", "--json", str(data))[0] == 0
    assert run(capsys, "run", "--json", str(data))[0] == 0
    # no temporary files left; each table and log marked as elot's by its sidecar
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [
        ".important.txt.elot", ".out.json.elot", ".table.csv.elot"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["plot", "map"])
def test_figures_refuse_foreign_files_and_create_missing_folders(capsys, tmp_path, command):
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\nnot elot's")
    status, _, err = run(capsys, command, "-o", str(photo))
    assert status == 2 and "not replacing it" in err
    assert photo.read_bytes() == b"\x89PNG\r\n\x1a\nnot elot's"
    missing = tmp_path / "no" / "such" / "x.png"
    assert run(capsys, command, "-o", str(missing))[0] == 0      # the one rule: folders are made
    with Image.open(missing) as image:
        assert image.text["Software"] == "elot"
    figure = tmp_path / "f.png"
    assert run(capsys, command, "-o", str(figure))[0] == 0
    assert run(capsys, command, "-o", str(figure))[0] == 0        # ours: replaced
    assert run(capsys, command, "-o", str(photo), "--force")[0] == 0
    with Image.open(photo) as image:
        assert image.text["Software"] == "elot"


def test_repl_save_never_writes_an_empty_log_or_over_foreign_files(tmp_path):
    session = Session.open()
    target = tmp_path / "notes.csv"
    target.write_text("precious,data\n1,2\n")
    with pytest.raises(ElotError, match="nothing to save"):
        execute(session, f":save {target}")
    execute(session, GOOD)
    with pytest.raises(ElotError, match="not replacing it"):
        execute(session, f":save {target}")
    assert target.read_text() == "precious,data\n1,2\n"
    execute(session, f":save {target} --force")
    execute(session, f":save {target}")        # now an elot query log: replaced
    assert list(csv.DictReader(target.open()))[0]["formula"] == GOOD
    log = tmp_path / "log.json"
    execute(session, f":save {log}")
    execute(session, f":save {log}")
    assert json.loads(log.read_text())[0]["formula"] == GOOD


# -- a numeric statement is that statement's error ----------------------------------------


def test_numeric_statement_is_its_own_error_and_the_rest_are_scored(capsys, tmp_path):
    table = tmp_path / "t.csv"
    status, out, err = run(capsys, "run", "-s", "prob_of(player, empty(box1))", "-s", GOOD,
                           "--csv", str(table))
    assert status == 2
    assert "<statement 1>:1:1: type error: prob_of(player, empty(box1)) is a number" in err
    assert "1 of 2 statement(s) could not be scored" in err
    assert {r["formula"] for r in csv.DictReader(table.open())} == {GOOD}
    statements = tmp_path / "s.txt"
    statements.write_text(f"{GOOD}\ninitial: prob_of(player, empty(box1))\n")
    status, _, err = run(capsys, "run", "--statements", str(statements))
    assert status == 2 and f"{statements}:2:" in err


# -- plurals -------------------------------------------------------------------------------


def test_counts_agree_with_their_nouns(capsys, tmp_path):
    one_gem = tmp_path / "one.scn"
    one_gem.write_text("name: one-gem\ngoal: gem1\n\nmap:\n  h..g\n\nactions:\n  right x3, pickup gem1\n")
    status, out, err = run(capsys, "run", str(one_gem))
    assert status == 0, err
    assert "(1 goal × 1 state × 1 belief), 4 actions" in out


def test_repl_loads_plan_ids_from_its_labtom_directory(capsys, monkeypatch, labtom):
    monkeypatch.delenv("ELOT_LABTOM_DATA", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(":load 2_1\n"))
    status, out, err = run(capsys, "repl", "--labtom", str(labtom))
    assert status == 0, out + err
    assert "loaded exp2_current/2_1: 31 actions" in out


def test_run_table_shows_a_bounded_excerpt_of_a_huge_statement(capsys):
    huge = "believes(player, formula(empty(box1" + "1" * 20_000 + ")))"
    status, out, _ = run(capsys, "run", "-s", huge)
    assert status == 2
    assert "… (20038" in out and len(out) < 20_000


# -- outputs named empty, seeds, β ranges ------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["run", "default", "--csv", ""], ["run", "default", "--json", " "], ["fit", "r.csv", "-o", ""],
    ["batch", "default", "-o", ""], ["simulate", "t.csv", "-o", ""], ["plot", "default", "-o", ""],
])
def test_an_empty_output_name_is_refused_not_ignored(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "output file name cannot be empty" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["fit", "r.csv"], ["simulate", "t.csv", "-o", "x.csv"]])
def test_a_negative_seed_is_a_usage_error(capsys, command):
    with pytest.raises(SystemExit) as info:
        main([*command, "--seed", "-1"])
    assert info.value.code == 2 and "seed must be a whole number at least 0" in capsys.readouterr().err


def test_a_beta_range_with_too_many_values_says_so():
    from elot.cli.study import parse_betas
    from elot.errors import ElotError

    assert len(parse_betas("1:1000:1")) == 1000
    with pytest.raises(ElotError, match="gives 1,000,000 values, more than 1,000"):
        parse_betas("1:1e6:+1")


def test_plot_refuses_more_statements_than_a_figure_can_show(capsys, tmp_path):
    from elot.cli.repl import MAX_PLOTTED

    statements = tmp_path / "many.txt"
    statements.write_text("believes(player, formula(empty(box1)))\n" * (MAX_PLOTTED + 1), encoding="utf-8")
    assert main(["plot", "default", "--statements", str(statements), "-o", str(tmp_path / "p.png")]) == 2
    assert "too many for one figure" in capsys.readouterr().err
    assert not (tmp_path / "p.png").exists()


def test_a_folder_given_as_an_input_file_is_called_a_folder(capsys, tmp_path):
    status, _, err = run(capsys, "check", "--file", str(tmp_path))
    assert status == 2
    assert f"formula file {tmp_path} is a directory" in err and "not found" not in err


# -- one word, one meaning; each shared option declared once ---------------------------------

def _helps() -> dict[str, dict[str, list[str]]]:
    """option -> help text -> the commands that show it."""
    import argparse

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    out: dict[str, dict[str, list[str]]] = {}
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for option in action.option_strings:
                out.setdefault(option, {}).setdefault(action.help, []).append(name)
    return out


@pytest.mark.parametrize("option, phrase", [
    ("--model", "the domain's model"), ("--k", "the belief size k: "), ("--beta", "the agent's rationality β"),
    ("--conventions", "the conventions: "), ("--seed", "the random seed of "),
    ("--particles", "the particles of particle inference"), ("--inference", "exact enumeration, particle"),
    ("--exp", "the gridworld: the dataset experiment of plan ids"), ("--jobs", "local worker processes"),
    ("--thresholds", "thresholds (and β) from elot fit's JSON file"), ("--force", "replace an existing output"),
    ("--statement", "an ELoT formula (or English sentence) to score"), ("--statements", "statements to score, one per"),
])
def test_a_shared_option_says_the_same_thing_in_every_command(option, phrase):
    helps = _helps()[option]
    if option == "--thresholds":      # eval's --thresholds overrides the thresholds of one formula
        helps = {text: names for text, names in helps.items() if names != ["eval"]}
    assert all(text.startswith(phrase) for text in helps), helps


def test_no_help_text_calls_the_belief_size_particles():
    for option, helps in _helps().items():
        for text in helps:
            if text and option != "--particles":
                assert "particles per" not in text and "belief particles" not in text, (option, text)


def test_reading_the_thresholds_option_leaves_the_arguments_as_parsed(tmp_path):
    from elot.cli import options

    params = tmp_path / "fit.json"
    params.write_text(json.dumps({"thresholds": {"believes": 0.8}, "beta": 1.5}))
    args = build_parser().parse_args(["run", "--thresholds", str(params)])
    thresholds, beta = options.thresholds_and_beta(args)
    assert (thresholds.value("believes"), beta) == (0.8, 1.5) and args.beta is None
    given = build_parser().parse_args(["run", "--thresholds", str(params), "--beta", "2"])
    assert options.thresholds_and_beta(given)[1] == 2 and options.with_beta(args, 3).beta == 3 and args.beta is None


@pytest.mark.slow
def test_the_library_reads_no_environment_variable():
    """Only the command line (elot/cli) and the REPL's entry (elot/repl) read $ELOT_*:
    everything else takes its settings as arguments."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "elot"
    readers = []
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] in ("cli", "repl"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") \
                    and isinstance(node.value, ast.Name) and node.value.id == "os":
                readers.append(f"{path.relative_to(root)}:{node.lineno}")
    assert readers == []


def test_no_module_flag_for_callers_to_set():
    from elot.translate import llm

    assert not hasattr(llm, "VERBOSE")


def test_a_beta_range_has_no_rounding_noise_in_its_values():
    """0.5 × √2² is 1.0000000000000002 in floating point, which the table's beta column
    then showed; a value within a few ulps of a short one is that one, and others (the
    paper's 2^1.5) are kept as computed."""
    from elot.cli.study import parse_betas

    assert parse_betas("0.5:4") == [0.5, 2 ** -0.5, 1.0, parse_betas("0.5:4")[3], 2.0, parse_betas("0.5:4")[5], 4.0]
    assert parse_betas("0.1:0.5:0.1") == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert abs(parse_betas("0.5:4")[5] - 2 ** 1.5) < 1e-14


def test_errors_found_from_outside_name_the_place_and_the_fix(tmp_path):
    from helpers import run_elot

    belief = tmp_path / "bel.txt"
    belief.write_text("0.5: inside(key1, box1) | 0.5: insde(key1, box2)\n")
    done = run_elot("plan", "two-doors", "--belief", str(belief), "-o", str(tmp_path / "p.scn"))
    assert done.returncode == 2 and done.stderr.startswith(f"{belief}:1:32: type error: unknown predicate 'insde'")
    done = run_elot("generate", "--walls", "0.6", "-o", str(tmp_path / "w.scn"))
    assert done.returncode == 2 and "hint: give --walls the share" in done.stderr
    statements = tmp_path / "s.txt"
    statements.write_text("believes(player, formula(empty(box1)))\n")
    done = run_elot("design", "two-doors", "--statements", str(statements), "--thresholds", "believes=2")
    assert done.returncode == 2 and "hint: thresholds are probabilities, e.g. believes=0.7" in done.stderr
    ratings = tmp_path / "r.csv"
    ratings.write_text('scenario,mode,t,statement,rating\ntwo-doors,sideways,1,"believes(player, '
                       'formula(empty(box1)))",0.5\n')
    done = run_elot("fit", str(ratings))
    assert done.returncode == 2 and f"{ratings}:2:11" in done.stderr and "hint: write current" in done.stderr
