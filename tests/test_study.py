"""The study workflow: batch tables (serial, local processes, Dask), resumable output,
fitting Θ and β to ratings, reports, parameter files and --thresholds."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.cli import main
from elot.output import csv_text
from elot.study.batch import batch
from elot.study.references import _load, refs_of
from elot.study.tables import ALL_COLUMNS, read_table
from elot.study.tasks import Grid, plan_tasks
from elot.errors import ElotError
from elot.lang.thresholds import Thresholds
from elot.study.fit import ascend, precompute, read_ratings, synthetic_ratings
from elot.study.params import Params, StudyError, read_params, write_params

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [str(REPO / "elot" / "scenarios" / f"{name}.scn") for name in ("default", "two-doors")]


def _tasks(betas=(1.0, 2 ** 1.5), models=("full", "non-planning")):
    return plan_tasks(refs_of(EXAMPLES), Grid(models=models, betas=betas))


def test_batch_table_is_tidy_and_matches_scoring(tmp_path):
    from elot.domains.doors_keys_gems.inference import infer
    from elot.domains.doors_keys_gems.scn_read import load_scn
    from elot.domains.doors_keys_gems.scoring import score

    out = tmp_path / "table.csv"
    result = batch(_tasks(), out)
    rows = read_table(out)
    assert result.rows == len(rows) > 0 and list(rows[0]) == list(ALL_COLUMNS)
    keys = [(r["scenario"], r["model"], r["beta"], r["statement_id"], r["mode"], r["t"]) for r in rows]
    assert len(set(keys)) == len(keys)  # one row per observation
    row = next(r for r in rows if r["model"] == "non-planning" and r["beta"] == "1.0" and not r["error"])
    scenario = load_scn(row["scenario"])
    expected = score(infer(scenario, model="non-planning", beta=1.0), row["formula"], int(row["t"]), row["mode"],
                     bind_free=True)
    assert float(row["L"]) == expected.normalized_likelihood and float(row["P"]) == expected.posterior


def test_a_repeated_setting_value_counts_once(tmp_path, capsys):
    strict = tmp_path / "strict.json"
    write_params(strict, Thresholds().replace(might=0.9))
    once, twice = tmp_path / "once.csv", tmp_path / "twice.csv"
    common = [EXAMPLES[0], "--thresholds", str(strict)]
    assert main(["batch", *common, "--model", "full", "--beta", "1", "--k", "2", "--conventions", "elot",
                 "-o", str(once)]) == 0
    capsys.readouterr()
    assert main(["batch", *common, "--thresholds", str(strict), "--model", "full,full", "--beta", "1,1.0",
                 "--k", "2,2", "--conventions", "elot,elot", "-o", str(twice)]) == 0
    assert "(1 task)" in capsys.readouterr().err
    assert twice.read_bytes() == once.read_bytes()


def test_a_scenario_without_statements_is_refused_before_any_work(tmp_path, capsys):
    text = (REPO / "elot" / "scenarios" / "default.scn").read_text(encoding="utf-8")
    bare = tmp_path / "bare.scn"
    bare.write_text(text[: text.index("statements current:")], encoding="utf-8")
    out = tmp_path / "out" / "t.csv"
    assert main(["batch", EXAMPLES[0], str(bare), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"nothing to score: {bare} has no statements" in err and "--statement" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.scn"]       # nothing written, no folder
    assert main(["batch", str(bare), "-s", "believes(player, formula(empty(box1)))", "-o", str(out)]) == 0


@pytest.mark.slow
def test_serial_jobs_and_dask_give_identical_tables(tmp_path):
    distributed = pytest.importorskip("distributed")
    tasks = _tasks()
    batch(tasks, tmp_path / "serial.csv")
    batch(tasks, tmp_path / "jobs.csv", jobs=2)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        assert main(["batch", *EXAMPLES, "--model", "full,non-planning", "--beta", f"1,{2 ** 1.5!r}",
                     "--dask", cluster.scheduler_address, "-o", str(tmp_path / "dask.csv")]) == 0
    serial = (tmp_path / "serial.csv").read_bytes()
    assert serial == (tmp_path / "jobs.csv").read_bytes() == (tmp_path / "dask.csv").read_bytes()


@pytest.mark.slow
def test_scn_files_travel_with_the_tasks_so_workers_need_no_copy(tmp_path):
    # Workers on other machines have elot but not the user's files: a .scn scenario is
    # sent with its text. Here the file is gone before the cluster runs the tasks.
    distributed = pytest.importorskip("distributed")
    own = tmp_path / "mine.scn"
    own.write_text(Path(EXAMPLES[0]).read_text(encoding="utf-8"), encoding="utf-8")
    tasks = plan_tasks(refs_of([str(own)]), Grid(models=("non-planning",), betas=(1.0,)))
    batch(tasks, tmp_path / "serial.csv")
    own.unlink()
    _load.cache_clear()
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        batch(tasks, tmp_path / "dask.csv", dask=cluster.scheduler_address)
    assert (tmp_path / "serial.csv").read_bytes() == (tmp_path / "dask.csv").read_bytes()


def test_resume_after_a_crash_mid_write_loses_and_repeats_nothing(tmp_path):
    tasks = _tasks()
    batch(tasks, tmp_path / "whole.csv")
    out = tmp_path / "table.csv"

    def stop(done, total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        batch(tasks, out, progress=stop)
    assert not out.exists()
    partial = out.with_name("table.csv.partial")
    # A crash while writing the next task: half a row on disk, half a manifest line.
    with partial.open("a") as handle:
        handle.write("elot/scenarios/default.scn,false-belief,full,1.0,3,el")
    with out.with_name("table.csv.partial.done").open("a") as handle:
        handle.write("3 99")
    with pytest.raises(StudyError, match="--resume"):
        batch(tasks, out)
    result = batch(tasks, out, resume=True)
    assert result.resumed == 3 and result.tasks == len(tasks) - 3
    assert out.read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert not partial.exists()


def test_resume_refuses_a_different_batch(tmp_path):
    out = tmp_path / "table.csv"
    with pytest.raises(KeyboardInterrupt):  # stopped before any task finished: nothing is left
        batch(_tasks(), out, progress=lambda done, total: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert not list(tmp_path.iterdir())
    with pytest.raises(KeyboardInterrupt):
        batch(_tasks(), out, progress=lambda done, total: done and (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(StudyError, match="different batch"):
        batch(_tasks(betas=(3.0,)), out, resume=True)


def test_parquet_holds_the_same_table(tmp_path):
    pytest.importorskip("pyarrow")
    tasks = _tasks(betas=(1.0,), models=("full",))
    batch(tasks, tmp_path / "t.csv")
    batch(tasks, tmp_path / "t.parquet", fmt="parquet")
    assert read_table(tmp_path / "t.parquet") == read_table(tmp_path / "t.csv")


def _ratings(tmp_path, generator, beta, noise, scenarios=None):
    tasks = plan_tasks(refs_of(scenarios or [str(REPO / "elot" / "scenarios" / "*.scn")]),
                       Grid(models=("full",), betas=(beta,)), thresholds=(Params(generator, beta, "generator"),))
    rows = synthetic_ratings(batch(tasks).table, noise=noise, seed=1)
    path = tmp_path / "ratings.csv"
    path.write_text(csv_text(rows), encoding="utf-8")
    return path, rows


@pytest.mark.slow
@pytest.mark.parametrize("dataset", [False, pytest.param(True, marks=pytest.mark.dataset)])
def test_fit_recovers_the_generator(tmp_path, request, dataset):
    """Ratings from known Θ (thresholds 0.1–0.15 off their start) and β plus noise: the fit
    finds every threshold within one grid step, β exactly, and r within 0.02."""
    beta = 2 ** 1.5
    generator = Thresholds().replace(believes=0.85, might=0.35)
    scenarios = None
    if dataset:
        root = request.getfixturevalue("labtom")
        scenarios = [r.name for r in refs_of(["all"], data=str(root), exp=",".join(["exp2"]))]
    path, rows = _ratings(tmp_path, generator, beta, noise=0.02, scenarios=scenarios)
    ratings = read_ratings(path)
    problem = precompute(ratings, "full")
    index, b, r, evaluations = ascend(problem, ratings.rating)
    assert problem.betas[b] == beta
    # A threshold is recoverable where its value changes some L: on these few scenarios a
    # threshold between two observed probabilities can move freely without changing any.
    source = {n: int(np.argmin(abs(problem.grids[n] - getattr(generator, n)))) for n in index}
    L_source = problem.scores(source)[2][:, b]
    recovered = set()
    for name in index:
        if abs(problem.grids[name][index[name]] - getattr(generator, name)) <= 0.05 + 1e-9:
            recovered.add(name)
        else:  # only a threshold that changes no L may be elsewhere
            assert np.array_equal(problem.scores({**source, name: index[name]})[2][:, b], L_source), name
    if dataset:
        assert {"believes", "might"} <= recovered
    truth = np.array([float(row["L"]) for row in rows])
    noisy = np.array([float(row["rating"]) for row in rows])
    assert abs(r - np.corrcoef(truth, noisy)[0, 1]) <= 0.02
    assert len(evaluations) > 9


def test_fit_cli_writes_params_that_run_reads_back(tmp_path, capsys):
    path, _ = _ratings(tmp_path, Thresholds(), 2.0, noise=0.05)
    params = tmp_path / "fit.json"
    assert main(["fit", str(path), "--model", "full,non-planning", "--samples", "200", "-o", str(params)]) == 0
    shown = capsys.readouterr().out
    assert "non-planning" in shown and "Thresholds (full)" in shown
    data = json.loads(params.read_text())
    assert set(data["ablations"]) == {"non-planning"} and -1 <= data["r"] <= 1
    read = read_params(params)
    assert read.beta == data["beta"] and read.thresholds.believes == data["thresholds"]["believes"]
    assert main(["run", EXAMPLES[0], "--thresholds", str(params), "--json", str(tmp_path / "run.json")]) == 0
    assert json.loads((tmp_path / "run.json").read_text())["beta"] == data["beta"]
    assert main(["run", EXAMPLES[0], "--thresholds", str(params), "--beta", "1.5",
                 "--json", str(tmp_path / "run.json")]) == 0
    assert json.loads((tmp_path / "run.json").read_text())["beta"] == 1.5


def test_thresholds_change_run_scores(tmp_path, capsys):
    formula = "believes(player, might(exists(key(K), inside(K, box1))))"
    write_params(tmp_path / "strict.json", Thresholds().replace(might=0.99))
    main(["run", EXAMPLES[0], "-s", formula, "--csv", str(tmp_path / "a.csv")])
    main(["run", EXAMPLES[0], "-s", formula, "--thresholds", str(tmp_path / "strict.json"),
          "--csv", str(tmp_path / "b.csv")])
    a, b = (list(csv.DictReader(io.StringIO((tmp_path / name).read_text()))) for name in ("a.csv", "b.csv"))
    assert [r["posterior"] for r in a] != [r["posterior"] for r in b]


@pytest.mark.parametrize("content, where, message", [
    ("scenario,mode,t,statement\nx,current,1,y\n", ":1:1", "no 'rating' column"),
    ("scenario,mode,t,statement,rating\nnowhere.scn,current,1,empty(box1),3\n", ":2:1", "unknown scenario"),
    ("scenario,mode,t,statement,rating\n{s},current,4,\"believes(player, formula(empty(box1)))\",high\n",
     ":2:", "rating 'high' is not a number"),
    ("scenario,mode,t,statement,rating\n{s},current,4,believes(player formula,5\n", ":2:", "unknown statement"),
    ("scenario,mode,t,statement,rating\n{s},later,4,\"empty(box1)\",5\n", ":2:", "neither current nor initial"),
])
def test_bad_ratings_are_located_and_nothing_is_written(tmp_path, capsys, content, where, message):
    path = tmp_path / "ratings.csv"
    path.write_text(content.replace("{s}", EXAMPLES[0]), encoding="utf-8")
    out = tmp_path / "fit.json"
    assert main(["fit", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}{where}" in err and message in err and "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == [path]


def test_ratings_may_name_statements_by_id(tmp_path, capsys):
    read_table_rows = batch(plan_tasks(refs_of(EXAMPLES[:1]))).table
    lines = ["scenario,mode,t,statement_id,statement,rating"]
    lines += [f"{r['scenario']},{r['mode']},{r['t']},{r['statement_id']},,{n % 5}" for n, r in enumerate(read_table_rows)]
    path = tmp_path / "by-id.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ratings = read_ratings(path)
    assert {k.formula for k in ratings.keys} == {r["formula"] for r in read_table_rows}
    path.write_text(lines[0] + f"\n{EXAMPLES[0]},current,4,999,,3\n", encoding="utf-8")
    assert main(["fit", str(path)]) == 2
    assert f"{path}:2:" in capsys.readouterr().err


def test_bad_parameter_files(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"thresholds": {"believes": 0.75, "belives": 0.8}}')
    assert main(["run", EXAMPLES[0], "--thresholds", str(bad)]) == 2
    assert "thresholds.belives" in capsys.readouterr().err
    bad.write_text('{"thresholds": {"might": 2}, "beta": 1}')
    assert main(["run", EXAMPLES[0], "--thresholds", str(bad)]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["run", EXAMPLES[0], "--thresholds", str(tmp_path / "missing.json")]) == 2
    assert "cannot read thresholds file" in capsys.readouterr().err


@pytest.mark.slow
def test_report_writes_figures_and_summary(tmp_path):
    path, _ = _ratings(tmp_path, Thresholds(), 2.0, noise=0.05, scenarios=EXAMPLES)
    batch(plan_tasks(refs_of(EXAMPLES), Grid(models=("full", "non-planning"), betas=(2.0,))), tmp_path / "t.csv")
    assert main(["report", str(tmp_path / "t.csv"), "--ratings", str(path), "-o", str(tmp_path / "rep")]) == 0
    names = sorted(p.name for p in (tmp_path / "rep").iterdir())
    assert {"scatter.png", "scatter.svg", "summary.md", "summary.csv"} <= set(names)
    assert sum(n.startswith("curves-") for n in names) == 2 * len(EXAMPLES)
    summary = list(csv.DictReader(io.StringIO((tmp_path / "rep" / "summary.csv").read_text())))
    assert [r["model"] for r in summary] == ["full", "non-planning"]
    assert all(-1 <= float(r["r"]) <= 1 and float(r["ci_low"]) <= float(r["r"]) <= float(r["ci_high"])
               for r in summary)


@pytest.mark.parametrize("header, missing", [
    ("scenario,mode,t,statement,rating", "map, model, beta"),       # ratings given for the table
    ("a,b", "scenario, map, model"),
    ("", "scenario, map, model"),
])
@pytest.mark.parametrize("command", ["report", "simulate"])
def test_a_table_without_a_batch_tables_columns_is_refused_by_name(tmp_path, capsys, header, missing, command):
    table = tmp_path / "ratings.csv"
    table.write_text(header + "\n" + ("s,current,1,x,3\n" if "rating" in header else ""), encoding="utf-8")
    out = tmp_path / ("rep" if command == "report" else "sim.csv")
    assert main([command, str(table), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{table}: error: not a batch table: it has no {missing}")
    assert "elot batch" in err and "Traceback" not in err and not out.exists()


def test_batch_cli_options(tmp_path, capsys):
    from elot.cli.study import parse_betas

    assert parse_betas("0.5:4:x1.4142135623730951") == pytest.approx([2 ** (n / 2 - 1) for n in range(7)])
    assert parse_betas("1:2:0.5") == [1.0, 1.5, 2.0]
    assert main(["batch", EXAMPLES[0], "--model", "ful", "-o", str(tmp_path / "x.csv")]) == 2
    assert "has no model 'ful' (did you mean full?)" in capsys.readouterr().err
    assert main(["batch", EXAMPLES[0], "--beta", "1,x", "-o", str(tmp_path / "x.csv")]) == 2
    assert "--beta" in capsys.readouterr().err
    assert main(["batch", EXAMPLES[0], "-s", "believes(player, formula(empty(box1)))", "-o", "-"]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and {r["statement_id"] for r in rows} == {"s1"}
    assert not list(tmp_path.iterdir())


@pytest.mark.dataset
def test_dataset_batch_covers_every_plan(labtom, tmp_path):
    refs = refs_of(["all"], data=str(labtom), exp=",".join(["exp1", "exp2"]))
    assert len(refs) == 60
    table = batch(plan_tasks(refs[:3] + refs[20:23] + refs[40:43])).table
    assert {r["scenario"].split("/")[0] for r in table} == {"exp1", "exp2_current", "exp2_initial"}
    assert sum(1 for r in table if not r["error"]) > 0.8 * len(table)
    assert any(r["possibility"] for r in table)


def test_repl_set_thresholds_and_plot_read_the_file(tmp_path, capsys):
    from elot.repl.commands import execute
    from elot.session import Session

    params = tmp_path / "fit.json"
    write_params(params, Thresholds().replace(might=0.4), beta=1.5)
    session = Session.open(EXAMPLES[0])
    execute(session, f":set thresholds {params}")
    assert session.thresholds.might == 0.4 and session.thresholds.uncertain == Thresholds().uncertain
    assert session.beta == 1.5
    with pytest.raises(StudyError, match="cannot read thresholds file"):
        execute(session, f":set thresholds {tmp_path / 'missing.json'}")
    assert main(["plot", EXAMPLES[0], "--thresholds", str(params), "-o", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").stat().st_size > 0


def test_batch_refuses_work_that_would_exhaust_memory(tmp_path, monkeypatch):
    from elot.study import resources

    monkeypatch.setattr(resources, "available_memory", lambda: 100 * 2 ** 20)
    with pytest.raises(StudyError, match=r"would need about .* GiB at once \(2 worker\(s\)") as info:
        batch(_tasks(), tmp_path / "t.csv", jobs=2)
    assert "fewer --jobs" in info.value.hint and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_study_outputs_replace_only_files_a_study_wrote(tmp_path, capsys):
    notes = tmp_path / "notes.csv"
    notes.write_text("my,own\nnotes,here\n", encoding="utf-8")
    table = tmp_path / "table.csv"
    base = ["batch", EXAMPLES[0], "--model", "full", "--beta", "2"]
    # a user's file is refused before any work, and left as it was
    assert main([*base, "-o", str(notes)]) == 2
    assert "does not look like a file elot wrote" in capsys.readouterr().err
    assert notes.read_text(encoding="utf-8") == "my,own\nnotes,here\n"
    # our own table is replaced by a rerun; --force replaces the user's file
    assert main([*base, "-o", str(table)]) == 0
    assert main([*base, "-o", str(table)]) == 0
    assert main([*base, "-o", str(notes), "--force"]) == 0
    assert read_table(str(notes))[0]["scenario"] == EXAMPLES[0]
    # the same for the other study outputs: ratings, parameter files and reports
    ratings, params, outdir = tmp_path / "ratings.csv", tmp_path / "fit.json", tmp_path / "report"
    assert main(["simulate", str(table), "-o", str(ratings)]) == 0
    assert main(["simulate", str(table), "-o", str(ratings)]) == 0
    mine = tmp_path / "mine.json"
    mine.write_text('{"colour": "blue"}\n', encoding="utf-8")
    assert main(["fit", str(ratings), "--model", "full", "--beta", "2", "--samples", "20", "-o", str(mine)]) == 2
    assert mine.read_text(encoding="utf-8") == '{"colour": "blue"}\n'
    assert main(["fit", str(ratings), "--model", "full", "--beta", "2", "--samples", "20", "-o", str(params)]) == 0
    assert main(["fit", str(ratings), "--model", "full", "--beta", "2", "--samples", "20", "-o", str(params)]) == 0
    assert main(["report", str(table), "--ratings", str(ratings), "--no-curves", "-o", str(outdir)]) == 0
    assert main(["report", str(table), "--ratings", str(ratings), "--no-curves", "-o", str(outdir)]) == 0
    (outdir / "summary.md").write_text("# my own summary\n", encoding="utf-8")
    assert main(["report", str(table), "--ratings", str(ratings), "--no-curves", "-o", str(outdir)]) == 2
    assert (outdir / "summary.md").read_text(encoding="utf-8") == "# my own summary\n"


def test_study_inputs_that_are_not_utf8_are_located_errors(tmp_path, capsys):
    """A Latin-1 ratings, parameter or table file: an error naming the file and line of
    the bad byte, exit status 2, no traceback (it used to be a UnicodeDecodeError)."""
    ratings = tmp_path / "ratings.csv"
    ratings.write_bytes(b"scenario,mode,t,statement,rating\n" + f"{EXAMPLES[0]},current,4,caf\xe9,3\n".encode("latin-1"))
    params = tmp_path / "fit.json"
    params.write_bytes(b'{"thresholds": {},\n "note": "r\xe9sum\xe9"}\n')
    table = tmp_path / "table.csv"
    table.write_bytes(b"scenario,L\nd\xe9faut,0.5\n")
    for argv, path, line, what in [
        (["fit", str(ratings)], ratings, 2, "ratings"),
        (["run", EXAMPLES[0], "--thresholds", str(params)], params, 2, "thresholds"),
        (["simulate", str(table), "-o", str(tmp_path / "out.csv")], table, 2, "table"),
        (["report", str(table), "-o", str(tmp_path / "rep")], table, 2, "table"),
        (["report", str(table), "--ratings", str(ratings), "-o", str(tmp_path / "rep")], table, 2, "table"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"{path}:{line}: error: cannot read {what} file {path}"), err
        assert "not UTF-8" in err and "0xe9" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.json", "ratings.csv", "table.csv"]
    with pytest.raises(StudyError, match="cannot read thresholds file"):
        read_params(params)


def test_dataset_files_that_are_not_utf8_are_located_errors(tmp_path):
    from elot.domains.doors_keys_gems.refs import PlanRef, dataset_items
    from elot.errors import ScenarioError

    (tmp_path / "domain.pddl").write_text("(define (domain d))\n", encoding="utf-8")
    (tmp_path / "statements").mkdir()
    notes = tmp_path / "statements" / "exp2_current_annotations.csv"
    notes.write_bytes(b"plan_id,statement_id\n1_1,1\n1_1,d\xe9j\xe0\n")
    with pytest.raises(ScenarioError, match="dataset statements file is not UTF-8") as info:
        dataset_items(PlanRef("exp2_current/1_1", "exp2_current", "1_1", str(tmp_path)))
    assert info.value.path == f"{notes}:3"
    from elot.domains.doors_keys_gems.experiments import in_vs_out

    (tmp_path / "statements" / "exp1").mkdir()
    pairs = tmp_path / "statements" / "exp1" / "exp1_current_in_vs_out.csv"
    pairs.write_bytes(b"plan_id,map_id\n1_1,1\n1_1,\xe9\n")
    with pytest.raises(ScenarioError, match="not UTF-8") as info:
        in_vs_out(tmp_path, ("current",), ("full",))
    assert info.value.path == f"{pairs}:3"


def test_ratings_with_a_byte_order_mark(tmp_path):
    """A ratings CSV saved with a BOM (as spreadsheet programs do) reads like one without
    (it used to say the ratings had no 'scenario' column)."""
    path, _ = _ratings(tmp_path, Thresholds(), 2.0, noise=0.05, scenarios=EXAMPLES)
    plain = read_ratings(path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    marked = read_ratings(path)
    assert marked.keys == plain.keys and np.array_equal(marked.rating, plain.rating)
    assert list(read_table(path)[0])[0] == "scenario"


def test_study_numbers_are_checked_as_every_command_checks_them(tmp_path, capsys):
    """β, k, --jobs, --samples and --noise take the values (and give the messages) of
    elot.settings.NUMBERS, as run/plot/repl do: no k ≤ 6 cap of the study's own."""
    def refused(argv) -> str:
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        return capsys.readouterr().err

    wanted = "k must be a whole number between 1 and 2,147,483,647, not 0"
    assert wanted in refused(["run", EXAMPLES[0], "--k", "0"])
    assert wanted in refused(["fit", "r.csv", "--k", "0"])
    assert main(["batch", EXAMPLES[0], "--k", "3,0", "-o", "-"]) == 2
    assert f"--k: {wanted}" in capsys.readouterr().err
    with pytest.raises(StudyError, match=f"--k: {wanted}"):
        plan_tasks(refs_of(EXAMPLES[:1]), Grid(params=(("k", (0,)),)))
    assert main(["batch", EXAMPLES[0], "--beta", "1,0", "-o", "-"]) == 2
    assert "--beta: beta must be a finite number greater than 0 and at most 1,000,000,000, not 0" in capsys.readouterr().err
    with pytest.raises(StudyError, match="--beta: beta must be a finite number greater than 0"):
        plan_tasks(refs_of(EXAMPLES[:1]), Grid(betas=(-1.0,)))
    assert [t.settings.model.get("k") for t in plan_tasks(refs_of(EXAMPLES[:1]), Grid(params=(("k", (7,)),)))] == [7]
    assert "jobs must be a whole number at least 1, not 0" in refused(["batch", EXAMPLES[0], "-j", "0", "-o", "-"])
    with pytest.raises(StudyError, match="--jobs: jobs must be a whole number at least 1, not 0"):
        batch(_tasks(), jobs=0)
    assert "samples must be a whole number between 1 and 1,000,000, not 0" in refused(["fit", "r.csv", "--samples", "0"])
    assert "noise must be a finite number at least 0, not nan" in refused(
        ["simulate", "t.csv", "--noise", "nan", "-o", str(tmp_path / "r.csv")])
    assert "samples must be a whole number between 1 and 1,000,000, not 0" in refused(["translate", "-n", "0", "x"])
    assert not list(tmp_path.iterdir())


def test_chunks_cover_every_task_once_largest_first_and_split_large_scenarios():
    from elot.study.executors import chunk_tasks
    from elot.study.resources import task_cost

    tasks = plan_tasks(refs_of(EXAMPLES), Grid(models=("full", "true-belief", "non-planning"),
                                               betas=(0.5, 1.0, 2.0, 4.0), params=(("k", (2, 3, 4)),)))
    for workers in (1, 2, 16):
        chunks = chunk_tasks(tasks, workers)
        assert sorted(t.index for c in chunks for t in c) == [t.index for t in tasks]
        assert all(len({t.scenario for t in c}) == 1 for c in chunks)
        costs = [sum(task_cost(t) for t in c) for c in chunks]
        assert costs == sorted(costs, reverse=True)
        target = sum(task_cost(t) for t in tasks) / (4 * workers)
        # a chunk only passes the target by its last task
        assert all(cost - min(task_cost(t) for t in c) <= target for cost, c in zip(costs, chunks))
    # more workers, finer chunks: scenarios are split so that no worker is left alone with one
    assert len(EXAMPLES) < len(chunk_tasks(tasks, 1)) < len(chunk_tasks(tasks, 16))
    full = [t for t in tasks if t.model == "full" and t.betas == (1.0,) and t.scenario == tasks[0].scenario]
    assert [task_cost(t) for t in sorted(full, key=lambda t: t.settings.model.get("k"))] == \
        sorted(task_cost(t) for t in full)


@pytest.mark.parametrize("wobble", [4e-16, -4e-16])
def test_fit_breaks_ties_the_same_way_whatever_the_last_bit(wobble):
    """Two β whose r differ only by rounding (numpy 1.26 and 2.x disagree in the last
    bit) are a tie: the smaller β is taken, whichever of the two came out larger."""
    from elot.study.fit import best_beta

    values = np.array([0.1, 0.8, 0.5, 0.8 + wobble, 0.3])
    assert best_beta(values) == 1
    assert best_beta(np.array([0.1, 0.8 - 1e-6, 0.8])) == 2  # a real difference still counts


def test_bootstrap_memory_is_bounded_and_the_draws_unchanged(monkeypatch):
    """fit --samples 99999999999 used to ask for 13 TiB at once: samples are drawn in
    chunks, and the intervals are those of drawing them all at once."""
    from elot.study import fit

    rng = np.random.default_rng(1)
    L = rng.random(300)
    y = L + rng.normal(0, 0.1, 300)
    whole = fit.bootstrap(L, y, samples=5000, seed=3)
    monkeypatch.setattr(fit, "BOOTSTRAP_CHUNK", 300 * 7)  # 7 samples per chunk
    assert fit.bootstrap(L, y, samples=5000, seed=3) == whole


def test_fit_finds_a_tables_scenarios_from_anywhere(tmp_path, monkeypatch):
    """Scenario paths in a table are as the batch was given them, from where it ran: fit
    also looks for them from the table's folder upwards, and says where it looked."""
    import shutil

    from elot.cli import main

    project = tmp_path / "project"
    (project / "maps").mkdir(parents=True)
    shutil.copy(REPO / "elot" / "scenarios" / "two-doors.scn", project / "maps" / "two.scn")
    monkeypatch.chdir(project)
    assert main(["batch", "maps/two.scn", "-o", "out/table.csv"]) == 0
    assert main(["simulate", "out/table.csv", "--seed", "1", "-o", "out/ratings.csv"]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["fit", str(project / "out" / "ratings.csv"), "--model", "full", "--samples", "20"]) == 0
    moved = tmp_path / "moved.csv"
    shutil.copy(project / "out" / "ratings.csv", moved)
    with pytest.raises(ElotError) as info:
        read_ratings(moved)
    assert "maps/two.scn of map two-doors not found" in info.value.message
    assert f"looked in {tmp_path}" in info.value.notes


def test_an_installed_pyarrow_that_does_not_import_is_named_with_numpy(monkeypatch):
    """pyarrow 26 with numpy 1.26 raised ImportError, reported as 'needs pyarrow': the
    error says which versions are installed and what works together."""
    import builtins
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        pytest.skip("pyarrow is not installed")
    from elot.study.tables import pyarrow_modules

    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError("pyarrow requires NumPy 2.0 or newer, found 1.26.4")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(ElotError) as info:
        pyarrow_modules("Parquet output")
    assert "is installed but does not import with numpy" in info.value.message
    assert "requires NumPy 2.0" in info.value.message and "pyarrow < 26" in info.value.hint


# -- rows that could not be scored are reported, not hidden ---------------------------------------


def test_batch_and_report_say_which_rows_could_not_be_scored(tmp_path, capsys):
    table = tmp_path / "t.csv"
    base = ["batch", *EXAMPLES, "--model", "full", "--beta", "2", "-s", "believes(player, formula(empty(box1)))",
            "-s", "believes(player, formula(empty(box99)))", "-s", "believes(player, formula(has(player, gem9)))",
            "-o", str(table)]
    assert main(base) == 0
    err = capsys.readouterr().err
    rows = read_table(table)
    failed = [r for r in rows if r["error"]]
    statements = {(r["scenario"], r["statement_id"]) for r in failed}
    assert failed and len(statements) == 4       # two statements, in two scenarios
    assert f"{len(failed)} rows could not be scored (4 distinct statements)" in err
    assert f"{EXAMPLES[0]} #" in err and "box99" in err
    assert main([*base, "--strict"]) == 1         # --strict: any failed row fails the command
    assert read_table(table) == rows              # ... and the table is still written
    capsys.readouterr()
    assert main(["report", str(table), "--no-curves", "-o", str(tmp_path / "report")]) == 0
    assert f"{len(failed)} rows could not be scored (4 distinct statements)" in capsys.readouterr().err
    clean = tmp_path / "clean.csv"
    assert main(["batch", EXAMPLES[0], "--model", "full", "--beta", "2", "-s", "believes(player, formula(empty(box1)))",
                 "--strict", "-o", str(clean)]) == 0
    assert "could not be scored" not in capsys.readouterr().err


def test_simulate_takes_one_setting_and_fit_warns_outside_its_grid(tmp_path, capsys):
    """Ratings simulated across every model and β of a table had no single true answer for
    a fit to recover: simulate needs the setting when the table holds several, and fit
    says when the simulated setting is not on its grid."""
    table = tmp_path / "t.csv"
    batch(_tasks(betas=(1.0, 1.5)), table)
    ratings = tmp_path / "r.csv"
    assert main(["simulate", str(table), "-o", str(ratings)]) == 2
    assert "2 values of model (full, non-planning)" in capsys.readouterr().err
    assert main(["simulate", str(table), "--model", "non-planning", "-o", str(ratings)]) == 2
    assert "choose one with --beta" in capsys.readouterr().err
    assert main(["simulate", str(table), "--model", "full", "--beta", "1.5", "--seed", "1", "-o", str(ratings)]) == 0
    assert "simulated from model full, beta 1.5, k 3" in capsys.readouterr().err
    rows = list(csv.DictReader(io.StringIO(ratings.read_text(encoding="utf-8"))))
    assert {(r["model"], float(r["beta"])) for r in rows} == {("full", 1.5)}
    assert main(["fit", str(ratings), "--model", "full", "--samples", "20"]) == 0
    assert "simulated at β = 1.5, which is not on this fit's β grid" in capsys.readouterr().err
    assert main(["fit", str(ratings), "--model", "full", "--beta", "1,1.5", "--samples", "20"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["simulate", str(table), "--model", "full", "--beta", "3", "-o", str(ratings)]) == 2
    assert "no rows with beta 3" in capsys.readouterr().err


def test_a_constant_l_has_no_correlation_whatever_its_last_bits():
    """Non-planning's L for initial statements was 0.5 up to rounding; r of those last
    bits came out -0.08 on numpy 2.x and 0.07 on numpy 1.26. L constant to 1e-12 has r 0
    as the search's objective, and no r (undefined, NaN) as a reported figure."""
    from elot.study.fit import bootstrap, pearson

    rng = np.random.default_rng(0)
    y = rng.random(14)
    L = 0.5 + rng.choice([-1.1e-16, 0.0, 1.1e-16], size=14)
    assert pearson(L[:, None], y)[0] == 0.0
    figure = bootstrap(L, y, samples=50)
    assert math.isnan(figure.r) and figure.undefined == "constant L" and str(figure) == "undefined (constant L)"
    assert pearson((L + 1e-6 * y)[:, None], y)[0] > 0.99  # a real spread still correlates


def test_fit_skips_a_same_named_scenario_of_another_map(tmp_path, monkeypatch):
    """From a folder holding another td.scn, fit used that one: the table's map column
    tells them apart, and the search goes on to the right file."""
    import shutil

    project = tmp_path / "f"
    project.mkdir()
    shutil.copy(REPO / "elot" / "scenarios" / "two-doors.scn", project / "td.scn")
    monkeypatch.chdir(project)
    assert main(["batch", "td.scn", "-o", "sub/t.csv"]) == 0
    assert main(["simulate", "sub/t.csv", "--seed", "1", "-o", "sub/r.csv"]) == 0
    other = tmp_path / "g"
    other.mkdir()
    shutil.copy(REPO / "elot" / "scenarios" / "default.scn", other / "td.scn")
    monkeypatch.chdir(other)
    ratings = read_ratings(project / "sub" / "r.csv")
    assert ratings.refs["td.scn"].load().name == "two-doors"


def test_fit_samples_are_bounded_before_any_work(capsys):
    """--samples 99999999999 used to allocate 745 GiB (and 999999999 ran for ten minutes)."""
    with pytest.raises(SystemExit):
        main(["fit", "r.csv", "--samples", "99999999999"])
    assert "between 1 and 1,000,000" in capsys.readouterr().err


def test_parallel_results_are_written_one_sync_per_chunk(tmp_path, monkeypatch):
    """The single writer synced once per task, which capped a parallel batch; a worker's
    chunk is now appended and synced once, and the table is the serial one."""
    import os

    from elot.study import journal
    from elot.study.executors import chunk_tasks

    tasks = plan_tasks(refs_of(EXAMPLES), Grid(models=("full", "non-planning"), betas=(0.5, 1.0, 2.0),
                                               params=(("k", (2, 3)),)))
    batch(tasks, tmp_path / "serial.csv")
    syncs = []
    real = os.fsync
    monkeypatch.setattr(journal.os, "fsync", lambda fd: (syncs.append(fd), real(fd))[1])
    batch(tasks, tmp_path / "jobs.csv", jobs=2)
    assert (tmp_path / "jobs.csv").read_bytes() == (tmp_path / "serial.csv").read_bytes()
    chunks = len(chunk_tasks(tasks, 2))
    assert chunks < len(tasks) and len(syncs) <= chunks + 2   # + the finished table's own writes


def test_a_serial_batch_syncs_now_and_then_not_after_every_task(tmp_path, monkeypatch):
    """Plain ``elot batch`` (no --jobs) synced after every task (4-25 s on the 6,480-task
    sweep); its tasks now go through the same writer as a pool's chunks, which syncs at
    most every SYNC_SECONDS, and the table is the same."""
    import os

    from elot.study import journal

    tasks = _tasks()
    batch(tasks, tmp_path / "each.csv")
    syncs = []
    real = os.fsync
    monkeypatch.setattr(journal.os, "fsync", lambda fd: (syncs.append(fd), real(fd))[1])
    monkeypatch.setattr(journal, "SYNC_SECONDS", 3600.0)
    batch(tasks, tmp_path / "once.csv")
    assert (tmp_path / "once.csv").read_bytes() == (tmp_path / "each.csv").read_bytes()
    assert len(tasks) > 3 and len(syncs) <= 2      # the rows once, then the finished table


def test_two_parameter_files_of_one_name_stay_apart_in_the_table(tmp_path):
    """``--thresholds a/fit.json --thresholds b/fit.json``: each row says which file by its
    path (both were labelled ``fit.json``, and report could not tell them apart)."""
    from helpers import run_elot

    for name, value in (("a", 0.6), ("b", 0.9)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "fit.json").write_text(json.dumps({"thresholds": {"believes": value}}))
    a, b = str(tmp_path / "a" / "fit.json"), str(tmp_path / "b" / "fit.json")
    done = run_elot("batch", "empty-box", "--thresholds", a, "--thresholds", b, "-o", str(tmp_path / "t.csv"))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert {r["thresholds"] for r in rows} == {a, b}
    by = {label: {(r["statement_id"], r["t"]): r["P"] for r in rows if r["thresholds"] == label} for label in (a, b)}
    assert by[a].keys() == by[b].keys() and by[a] != by[b]   # the same items, scored under each file's thresholds


def test_a_batch_too_large_for_exact_names_the_scenario_and_what_batch_can_do(tmp_path):
    from helpers import run_elot

    big = tmp_path / "big.scn"
    done = run_elot("generate", "--boxes", "12", "--colours", "4", "--doors", "4", "--gems", "4", "--seed", "11",
                    "--steps", "0", "-o", str(big))
    assert done.returncode == 0, done.stderr
    done = run_elot("batch", "two-doors", str(big), "-s", "believes(player, formula(empty(box1)))", "-o",
                    str(tmp_path / "t.csv"))
    assert done.returncode == 2 and not (tmp_path / "t.csv").exists()
    assert "big.scn (model full, k = 3): the hypothesis space is too large" in done.stderr
    hint = done.stderr.split("hint:")[1]
    assert "--inference smc" in hint and "--max-hypotheses" not in hint and "max_bytes" not in hint


def test_a_statements_file_read_again_after_it_changes(tmp_path):
    """Plans of one experiment share its statements file, parsed once while it is unchanged;
    a changed file is read again, and callers never share the rows they get."""
    import os

    from elot.domains.doors_keys_gems.refs import _read_csv

    path = tmp_path / "exp1_initial.csv"
    path.write_text("plan_id,statement\n1_1,first\n", encoding="utf-8")
    first = _read_csv(path)
    first[0]["statement"] = "changed by a caller"
    assert _read_csv(path) == [{"plan_id": "1_1", "statement": "first"}]
    path.write_text("plan_id,statement\n1_1,second one\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    assert _read_csv(path) == [{"plan_id": "1_1", "statement": "second one"}]
    assert _read_csv(tmp_path / "missing.csv") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1_1", "2_3", "x,y", 'say "hi"']), st.sampled_from(["s1", "s2"]),
                          st.sampled_from(["", "", "no rule for 'x'", "bad\nline 3", "unknown 7"]),
                          st.integers(-1, 1)), max_size=12))
def test_a_finished_batch_counts_its_rows_and_failures_as_reading_them_all_would(rows):
    """The batch's writer tallies its table from the CSV records, making dicts only of rows
    with an error: the same count and failures as a dict per row (short and long rows, quoted
    fields and newlines in them, blank lines)."""
    import csv as csvmod
    import io

    from elot.study.tables import Failures, tally_table_text

    out = io.StringIO()
    writer = csvmod.writer(out, lineterminator="\n")
    writer.writerow(["scenario", "statement_id", "statement", "error"])
    for scenario, statement_id, error, shape in rows:
        record = [scenario, statement_id, "believes(a, b)", error]
        writer.writerow(record[:2] if shape < 0 else record + ["extra"] if shape > 0 else record)
        if shape > 0:
            out.write("\n")
    text = out.getvalue()
    table = list(csvmod.DictReader(io.StringIO(text)))
    assert tally_table_text(text) == (len(table), Failures.of(table))
    assert tally_table_text("") == (0, Failures())


def test_a_batch_fingerprint_is_the_hash_of_its_tasks_reprs(labtom):
    """The journal's fingerprint (what --resume checks) is the SHA-256 of the tasks' reprs,
    one a line, however it is computed; planning checks each setting once and the tasks
    share it."""
    import hashlib

    from elot.study.batch import fingerprint

    tasks = plan_tasks(refs_of(["1_1", "1_2"], data=str(labtom), exp="exp1"), Grid(models=("full", "non-planning"), betas=(1.0, 2.0),
                                                              params=(("k", (3, 4)),)))
    assert fingerprint(tasks) == hashlib.sha256("\n".join(repr(t) for t in tasks).encode()).hexdigest()
    assert len({id(t.settings) for t in tasks}) == len({t.settings for t in tasks}) == 8 < len(tasks)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_counts_its_rows_and_failures_task_by_task_as_its_table_says(tmp_path, jobs):
    """Workers send each task's rows counted, with the ones that could not be scored; the
    writer's tally of them, in table order, is the table's own (read back as dicts), and a
    resumed batch, whose earlier tasks came as text, reads its table back instead."""
    from elot.statements import Statement
    from elot.study.tables import Failures, tally_table_text

    items = [Statement("believes(player, formula(empty(box2)))", "current", id="good"),
             Statement("believes(player, formula(has(player, zebra)))", "current", id="zebra"),
             Statement("wants(nobody, gem1)", "current", id="nobody")]
    tasks = plan_tasks(refs_of(EXAMPLES[:2]), Grid(models=("full", "non-planning"), betas=(1.0,)), items=items)
    done = batch(tasks, tmp_path / "t.csv", jobs=jobs)
    table = list(csv.DictReader((tmp_path / "t.csv").open(newline="", encoding="utf-8")))
    assert (done.rows, done.failures) == (len(table), Failures.of(table))
    assert 0 < done.failures.rows < len(table) and len(done.failures.examples) == 3

    def stop(finished, total):
        if finished == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        batch(tasks, tmp_path / "r.csv", progress=stop)
    resumed = batch(tasks, tmp_path / "r.csv", resume=True)
    assert resumed.resumed == 2 and (resumed.rows, resumed.failures) == (done.rows, done.failures)
    assert tally_table_text((tmp_path / "r.csv").read_text(encoding="utf-8")) == (done.rows, done.failures)
