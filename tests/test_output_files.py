"""Output files a user can trust (elot.output): elot replaces only what it marked as its
own, never a command's own input, never a device or a link, reads at most a bounded prefix
of an existing target, and every command follows one rule for missing folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from elot.cli import main
from elot.errors import ElotError
from elot.output import HEAD_BYTES, check_target, sidecar, write_output

from helpers import ELOT

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = str(REPO / "elot" / "scenarios" / "default.scn")
GOOD = "believes(player, formula(empty(box1)))"
FIT = ["--model", "full", "--beta", "2", "--samples", "20"]


def run(capsys, *argv: str) -> tuple[int, str]:
    """``elot ARGV`` in process: (exit status, stderr)."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = exit_.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


@pytest.fixture
def study(tmp_path, capsys):
    """A batch table and ratings simulated from it, both written by elot."""
    table, ratings = tmp_path / "t.csv", tmp_path / "r.csv"
    assert main(["batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", str(table)]) == 0
    assert main(["simulate", str(table), "-o", str(ratings)]) == 0
    capsys.readouterr()
    return table, ratings


# -- what is elot's own file -----------------------------------------------------------------


@pytest.mark.parametrize("argv, victim", [
    (["fit", "{r}", *FIT, "-o", "{r}"], "r"),
    (["fit", "{r}", *FIT, "--evaluations", "{r}"], "r"),
    (["simulate", "{t}", "-o", "{t}"], "t"),
    (["report", "{t}", "--ratings", "{r}", "--no-curves", "-o", "{dir}"], None),
])
@pytest.mark.parametrize("force", [False, True])
def test_a_command_never_writes_over_its_own_input(study, capsys, argv, victim, force):
    table, ratings = study
    names = {"t": str(table), "r": str(ratings), "dir": str(table.parent)}
    if victim is None:      # the report's summary.csv is the table itself
        table.rename(table.parent / "summary.csv")
        table = table.parent / "summary.csv"
        names["t"] = str(table)
    before = {p: p.read_bytes() for p in (table, ratings)}
    status, err = run(capsys, *(a.format(**names) for a in argv), *(["--force"] if force else []))
    assert status == 2 and "elot never writes over its own input" in err
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("exp, name", [("exp2", "exp2_current_annotations.csv"), ("exp1", "exp1/exp1_initial.csv")])
def test_a_batch_never_writes_over_the_datasets_statements(capsys, tmp_path, exp, name):
    import shutil

    from conftest import labtom_path

    if labtom_path() is None:
        pytest.skip("reads the LaBToM dataset")
    # A copy: were the protection ever to fail, the shared dataset must not be what is lost.
    root = tmp_path / "labtom"
    shutil.copytree(labtom_path(), root)
    target = root / "statements" / name
    before = target.read_bytes()
    status, err = run(capsys, "batch", "1_1", "--exp", exp, "--labtom", str(root), "-o", str(target), "--force")
    assert status == 2 and "elot never writes over its own input" in err
    assert target.read_bytes() == before


def test_an_input_reached_by_another_name_is_still_an_input(study, capsys):
    table, _ = study
    link = table.parent / "alias.csv"
    os.link(table, link)
    before = table.read_bytes()
    status, err = run(capsys, "simulate", str(table), "-o", str(link), "--force")
    assert status == 2 and "its own input" in err and table.read_bytes() == before


@pytest.mark.parametrize("header", [
    "participant,statement,rating,comment\np1,hello,0.5,ok\n",                     # a user's ratings
    "plan_id,statement_id,statement,possibility,probability,compositional,knowledge\n"
    "1_1,1,The player believes the blue key is in box 1.,none,none,0,0\n",     # the dataset's annotations
    "scenario,model\nmine,mine\n",                                                 # elot's column names
])
def test_files_with_elot_like_columns_are_not_elots(study, capsys, header):
    table, _ = study
    theirs = table.parent / "theirs.csv"
    theirs.write_text(header, encoding="utf-8")
    for argv in (["simulate", str(table), "-o", str(theirs)],
                 ["batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", str(theirs)],
                 ["run", EXAMPLE, "-s", GOOD, "--csv", str(theirs)]):
        status, err = run(capsys, *argv)
        assert status == 2 and "does not look like a file elot wrote" in err, argv
        assert theirs.read_text(encoding="utf-8") == header


def test_elots_file_stops_being_ours_once_someone_changes_it(study, capsys):
    _, ratings = study
    table = ratings.parent / "t.csv"
    assert main(["simulate", str(table), "-o", str(ratings)]) == 0     # marked: replaced
    edited = ratings.read_text(encoding="utf-8") + "my,extra,row\n"
    ratings.write_text(edited, encoding="utf-8")
    status, err = run(capsys, "simulate", str(table), "-o", str(ratings))
    assert status == 2 and "not replacing it" in err and ratings.read_text(encoding="utf-8") == edited
    assert main(["simulate", str(table), "-o", str(ratings), "--force"]) == 0
    assert main(["simulate", str(table), "-o", str(ratings)]) == 0       # marked again


def test_the_sidecar_records_exactly_what_was_written(tmp_path):
    target = tmp_path / "x.csv"
    write_output(target, "a,b\n1,2\n")
    mark = sidecar(target).read_text(encoding="utf-8")
    assert '"size": 8' in mark and target.read_text() == "a,b\n1,2\n"      # the CSV stays plain
    write_output(target, "a,b\n3,4\n")                                     # ours: replaced
    sidecar(target).write_text(mark.replace("8", "9"), encoding="utf-8")   # a mark that lies
    with pytest.raises(ElotError, match="not replacing it"):
        write_output(target, "a,b\n5,6\n")


@pytest.mark.parametrize("where", ["target", "sidecar"])
def test_links_are_not_followed(tmp_path, capsys, where):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    target = tmp_path / "out.csv"
    if where == "target":
        target.symlink_to(precious)
    else:       # a planted sidecar link is not a mark
        precious.write_text("")
        sidecar(target).symlink_to(precious)
        target.write_text("user data\n")
    status, err = run(capsys, "run", EXAMPLE, "-s", GOOD, "--csv", str(target))
    assert status == 2 and "not replacing it" in err
    assert precious.read_text() in ("keep me\n", "")
    if where == "target":
        assert main(["run", EXAMPLE, "-s", GOOD, "--csv", str(target), "--force"]) == 0
        assert not target.is_symlink() and precious.read_text() == "keep me\n"   # the link replaced, not followed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux devices and /proc")
@pytest.mark.parametrize("points_to", ["/dev/null", "/proc/self/fd/1", "folder", "chain"])
def test_force_never_replaces_a_link_to_a_device_folder_or_descriptor(tmp_path, capsys, points_to):
    # what `--csv /dev/stdout --force` would do (as root: replace /dev/stdout), safely in a temp folder
    link = tmp_path / "out.csv"
    if points_to == "folder":
        (tmp_path / "sub").mkdir()
        link.symlink_to(tmp_path / "sub")
    elif points_to == "chain":      # a link to a link to standard output
        (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
        link.symlink_to(tmp_path / "stdout")
    else:
        link.symlink_to(points_to)
    status, err = run(capsys, "run", EXAMPLE, "-s", GOOD, "--csv", str(link), "--force")
    assert status == 2 and "never replaces, not even with --force" in err and "standard output" in err
    assert link.is_symlink()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_a_folder_that_refuses_new_files_is_an_error_naming_the_target(capsys):
    status, err = run(capsys, "run", EXAMPLE, "-s", GOOD, "--csv", "/proc/self/status", "--force")
    assert status == 2 and "cannot write /proc/self/status: " in err


# -- bounded reads, regular files only ---------------------------------------------------------


def test_a_recognizer_sees_a_bounded_prefix(tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * (4 * HEAD_BYTES))
    seen = []
    with pytest.raises(ElotError, match="not replacing it"):
        check_target(big, ours=lambda head: seen.append(len(head)) or False)
    assert seen == [HEAD_BYTES]


def _limit_memory():
    """Bound the command's address space, so that reading a device whole fails fast
    (MemoryError) instead of filling the machine."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 * 2 ** 30, 3 * 2 ** 30))


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux devices")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full"])
@pytest.mark.parametrize("argv", [
    ["run", EXAMPLE, "-s", GOOD, "--csv", "{dev}"],
    ["run", EXAMPLE, "-s", GOOD, "--json", "{dev}"],
    ["batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", "{dev}"],
    ["simulate", "{t}", "-o", "{dev}"],
    ["fit", "{r}", *FIT, "-o", "{dev}"],
    ["fit", "{r}", *FIT, "--evaluations", "{dev}"],
], ids=["run-csv", "run-json", "batch", "simulate", "fit-o", "fit-evaluations"])
def test_devices_are_refused_without_reading_them(study, device, argv):
    table, ratings = study
    command = [a.format(dev=device, t=table, r=ratings) for a in argv]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    result = subprocess.run([*ELOT, *command], capture_output=True, text=True, preexec_fn=_limit_memory,
                            cwd=table.parent, env=env, timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "not a regular file" in result.stderr and "Traceback" not in result.stderr


# -- one rule for folders -----------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["run", EXAMPLE, "-s", GOOD, "--csv", "{d}/x/y.csv"],
    ["run", EXAMPLE, "-s", GOOD, "--json", "{d}/x/y.json"],
    ["plot", EXAMPLE, "-o", "{d}/p/q.png"],
    ["batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", "{d}/a/b/t.csv"],
])
def test_every_command_creates_missing_folders(tmp_path, capsys, argv):
    argv = [a.format(d=tmp_path) for a in argv]
    status, err = run(capsys, *argv)
    assert status == 0, err
    assert Path(argv[-1]).stat().st_size > 0


@pytest.mark.parametrize("argv", [
    ["run", EXAMPLE, "-s", GOOD, "--csv", "{f}/y.csv"],
    ["plot", EXAMPLE, "-o", "{f}/q.png"],
    ["batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", "{f}/sub/t.csv"],
    ["simulate", "{f}", "-o", "{f}/r.csv"],
])
def test_a_path_under_a_file_is_refused_alike(tmp_path, capsys, argv):
    afile = tmp_path / "afile"
    afile.write_text("scenario,model\n")
    status, err = run(capsys, *(a.format(f=afile) for a in argv))
    assert status == 2 and f"{afile} is not a folder" in err
    assert afile.read_text() == "scenario,model\n"


def test_a_failed_command_leaves_no_empty_folders(tmp_path, capsys):
    status, _ = run(capsys, "run", EXAMPLE, "-s", GOOD, "--k", "0", "--csv", str(tmp_path / "n" / "t.csv"))
    assert status == 2 and not (tmp_path / "n").exists()


def test_one_task_is_one_task(tmp_path, capsys):
    status, err = run(capsys, "batch", EXAMPLE, "--model", "full", "--beta", "2", "-o", str(tmp_path / "t.csv"))
    assert status == 0 and "(1 task)" in err


# -- csv_text ------------------------------------------------------------------------------


def test_any_text_in_any_cell_reads_back_the_same_with_pythons_csv_module():
    """Issue 34: a cell holding a bare carriage return was written unquoted (Python's
    writer quotes only the characters of its own line terminator), which split the row
    for every reader. Every cell, header included, now reads back as written, under
    either line terminator."""
    import csv
    import io

    from hypothesis import given
    from hypothesis import strategies as st

    from elot.output import csv_text

    cell = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8) | st.sampled_from(
        ["\r", "\n", "\r\n", "a\rb", '"', ",", " ", ""])

    @given(st.lists(cell, min_size=1, max_size=4, unique=True).flatmap(
        lambda columns: st.tuples(st.just(columns), st.lists(st.lists(cell, min_size=len(columns),
                                                                       max_size=len(columns)), max_size=4))),
           st.sampled_from(["\n", "\r\n"]))
    def check(table, terminator):
        columns, rows = table
        text = csv_text([dict(zip(columns, row)) for row in rows], columns, lineterminator=terminator)
        assert list(csv.reader(io.StringIO(text, newline=""))) == [columns, *rows]

    check()


def test_a_bare_carriage_return_is_quoted_and_nothing_else_changes():
    from elot.output import csv_text

    assert csv_text([{"a": "x\ry", "b": "1"}], ["a", "b"]) == 'a,b\n"x\ry",1\n'
    assert csv_text([{"a": "plain", "b": 0.25}], ["a", "b"], lineterminator="\r\n") == "a,b\r\nplain,0.25\r\n"


def test_the_statement_design_table_quotes_a_statement_with_a_carriage_return():
    """Statement design writes users' statements: it goes through csv_text too."""
    import csv
    import io

    from elot.study.design import design_csv

    row = {"scenario": "s", "statement": "The player\rbelieves", "points": [1, 2], "values": [0.5, 0.25],
           "min": 0.25, "max": 0.5, "range": 0.25, "change": 0.25, "informativeness": 0.1, "note": "a\rb"}
    (read,) = csv.DictReader(io.StringIO(design_csv([row]), newline=""))
    assert read["statement"] == "The player\rbelieves" and read["note"] == "a\rb" and read["L"] == "0.5000;0.2500"
