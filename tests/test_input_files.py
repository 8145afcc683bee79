"""Files and names a user hands elot: JSON too deep or with huge numbers, names too long
for the file system. Each is a clear error with the place, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from elot.cli import main
from elot.errors import ElotError

DEEP = "[" * 100_000 + "]" * 100_000
HUGE = '{"thresholds": {"might": ' + "1" * 5000 + "}}"


def _fail(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return err


@pytest.mark.parametrize("content, says", [(DEEP, "nested too deeply"), (HUGE, "cannot read this JSON")])
def test_json_files_too_deep_or_with_huge_numbers(tmp_path, capsys, content, says):
    path = tmp_path / "p.json"
    path.write_text(content, encoding="utf-8")
    assert says in _fail(capsys, ["run", "default", "--thresholds", str(path)])
    ratings = tmp_path / "r.csv"
    ratings.write_text("scenario,statement,mode,t,rating\n", encoding="utf-8")
    assert says in _fail(capsys, ["fit", str(ratings), "--start", str(path)])
    assert says in _fail(capsys, ["eval", "empty(box1)", "--state", "closed(box1)", "--belief", str(path)])


def test_repl_set_thresholds_from_a_too_deep_file(tmp_path):
    from elot.repl.commands import execute
    from elot.session import Session

    path = tmp_path / "p.json"
    path.write_text(DEEP, encoding="utf-8")
    session = Session.open()
    with pytest.raises(ElotError, match="nested too deeply"):  # the REPL shows it, and goes on
        execute(session, f":set thresholds {path}")


def test_a_scenario_given_as_a_belief_model_is_explained():
    from elot.embedding.model import BeliefModelError, load_belief_model

    with pytest.raises(BeliefModelError, match="is not a Python file") as info:
        load_belief_model(str(Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "default.scn"))
    assert "elot repl" in info.value.hint


def test_a_transformers_directory_without_transformers_is_explained(tmp_path):
    import importlib.util

    if importlib.util.find_spec("transformers") is not None:
        pytest.skip("transformers is installed here")
    from elot.errors import TranslationError
    from elot.translate.llm import load_language_model

    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(TranslationError, match="transformers is not installed") as info:
        load_language_model(str(tmp_path))
    assert "pip install" in info.value.hint


@pytest.mark.parametrize("command", ["fit", "report"])
def test_a_csv_field_over_the_csv_modules_limit_is_an_error_at_its_line(tmp_path, capsys, command):
    path = tmp_path / "big.csv"
    path.write_text("scenario,map,model,statement,mode,t,L,rating\n"
                    f"default,m,full,\"{'x' * 200_000}\",current,1,0.5,0.5\n", encoding="utf-8")
    argv = ["fit", str(path)] if command == "fit" else ["report", str(path), "-o", str(tmp_path / "rep")]
    err = _fail(capsys, argv)
    assert f"{path}:2" in err and "field larger than field limit" in err


@pytest.mark.parametrize("argv", [
    ["eval", "empty(box1)", "--state", "closed(box1)", "--belief", "b" * 300 + ".txt"],
    ["run", "n" * 300],
    ["run", "default", "--statements", "s" * 300 + ".txt"],
    ["run", "/tmp/" + "n" * 300 + ".scn"],
    ["batch", "/tmp/" + "n" * 300 + ".scn", "-o", "t.csv"],
    ["repl", "--belief-model", "m" * 300 + ".py"],
])
def test_names_too_long_for_the_file_system(capsys, argv):
    err = _fail(capsys, argv)
    assert "File name too long" in err or "not found" in err



def test_the_repl_reports_a_name_too_long_and_goes_on():
    import io

    from rich.console import Console

    from elot.repl.app import run
    from elot.session import Session

    out = io.StringIO()
    status = run(Session.open(), stdin=io.StringIO(":load " + "n" * 300 + "\n:goals\n"), interactive=False,
                 console=Console(file=out, width=100, highlight=False))
    shown = out.getvalue()
    assert status == 2 and "File name too long" in shown and "internal error" not in shown
    assert "gem2" in shown  # :goals still ran
