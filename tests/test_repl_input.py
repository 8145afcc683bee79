"""The REPL under a new user's and an attacker's hands:
Ctrl-C during a computation, English wherever a statement goes, the scenario's
statements by number, numeric terms, and huge lines."""

from __future__ import annotations

import time

import pexpect
import pytest
from test_repl import env, spawn  # noqa: F401 (env is a fixture)

from elot.errors import ElotError
from elot.repl.commands import execute
from elot.repl.render import plain_text
from elot.session import Session


@pytest.fixture()
def session():
    return Session.open()


def text(outputs) -> str:
    return "\n".join(plain_text(o, width=120) for o in outputs)


# -- Ctrl-C cancels the command, not the session ------------------------------------------


@pytest.mark.slow
def test_ctrl_c_during_inference_returns_to_the_prompt(env, tmp_path):
    # The reference backend with many belief particles: seconds of inference, all of it in
    # Python, so the interrupt lands while it runs.
    child = spawn(env, "two-doors", "--backend", "reference")
    prompt = r"elot\[t=\d+/15( initial)?\]> "
    child.expect(prompt)
    child.sendline(":initial")
    child.expect(prompt)
    child.sendline(":set k 30")
    child.expect(prompt)
    child.sendline(":goals")
    time.sleep(1.5)
    child.sendintr()
    child.expect("interrupted: the command was cancelled")
    child.expect(prompt)
    assert "goal posterior" not in child.before
    child.sendline(":model")                    # the session and its settings are intact
    child.expect(prompt)
    assert "k = 30" in child.before
    child.sendline(":set k 3")
    child.expect(prompt)
    child.sendline(":goals")                    # and inference runs again when asked
    child.expect(r"elot\[t=0/15 initial\]> ")
    assert "goal posterior at t=0" in child.before
    child.sendline(":quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert ":set k 30" in history and ":model" in history


# -- the line length is bounded ----------------------------------------------------------


@pytest.mark.slow
def test_pty_line_is_cut_at_the_bound(env, tmp_path):
    from elot.repl.app import MAX_LINE

    child = spawn(env)
    child.expect(r"elot\[t=0/23\]> ")
    time.sleep(0.3)
    child.send("x" * (MAX_LINE + 500))
    time.sleep(1.0)
    child.send("\r")
    child.expect(f"the line was cut at {MAX_LINE} characters")
    child.expect(r"elot\[t=0/23\]> ")
    child.sendline(":quit")
    child.expect(pexpect.EOF)
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert "+" + "x" * MAX_LINE + "\n" in history and "x" * (MAX_LINE + 1) not in history


def test_piped_huge_line_is_refused_with_a_bounded_echo():
    import io

    from rich.console import Console

    from elot.repl.app import MAX_LINE, run

    out = io.StringIO()
    huge = "believes(" * 20_000
    status = run(Session.open(), stdin=io.StringIO(f"{huge}\n:goals\n"), interactive=False,
                 console=Console(file=out, width=100, highlight=False))
    shown = out.getvalue()
    assert status == 2
    assert f"line too long ({len(huge)} characters; the REPL takes at most {MAX_LINE})" in shown
    assert len(shown) < 2_000 + 1_000      # an excerpt, not the line
    assert "goal posterior at t=0" in shown      # and the session goes on


# -- English wherever a statement is accepted -----------------------------------------------

SENTENCE = "The player initially believed box 1 was empty."
FORMULA = "believes(player, formula(empty(box1)))"


@pytest.mark.parametrize("name", ["type", "lower", "english", "explain", "trace"])
def test_statement_commands_accept_english_and_show_the_translation(session, name):
    outputs = execute(session, f":{name} {SENTENCE}")
    assert f"translation {FORMULA}  (initial belief)" in text(outputs[:1])
    # the same as the formula itself, in the translation's mode
    session.mode = "initial"
    assert text(outputs[1:]) == text(execute(session, f":{name} {FORMULA}"))
    assert session.mode == "initial"


def test_statement_commands_keep_the_session_mode(session):
    execute(session, ":goto 6")
    execute(session, f":explain {SENTENCE}")
    assert session.mode == "current"
    with pytest.raises(ElotError):
        execute(session, ":explain Colourless green ideas sleep furiously about box 9.")


# -- the scenario's statements by number ------------------------------------------------------


def test_score_statement_by_number_and_all(session):
    execute(session, ":goto 6")
    statements = session.statements()
    assert "9  initial  The player initially thought box 1 was empty." in text(execute(session, ":judgments"))
    one = text(execute(session, ":score 8"))                 # initial: empty(box1)
    assert "normalized L = 0.772" in one and "(initial belief, t=6)" in one
    assert session.mode == "current"
    everything = text(execute(session, ":score all"))
    assert everything.count("\n") >= len(statements)
    assert "→ believes(player, formula(empty(box1)))" in everything     # the English one, translated
    assert len(session.log) == 1 + len(statements)
    for bad, says in (("0", "no statement 0"), ("99", "numbered 1 to 9"), ("x", "whole number"), ("", "usage")):
        with pytest.raises(ElotError, match=says):
            execute(session, f":score {bad}")


# -- numeric terms show their value ---------------------------------------------------------


def test_numeric_term_shows_its_posterior_mean_and_distribution(session):
    shown = text(execute(session, "prob_of(player, empty(box1))"))
    assert "use value()" not in shown
    assert "Φ_F (a number)" in shown and "posterior mean 0.500" in shown
    value = session.value("prob_of(player, empty(box1))")
    assert sum(mass for _, mass, _ in value.distribution) == pytest.approx(1.0)
    assert value.mean == pytest.approx(sum(v * m for v, m, _ in value.distribution))
    execute(session, ":goto 6")                              # box 2 opened: box 1 must hold the key
    assert session.value("prob_of(player, empty(box1))").mean == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ElotError, match="is a number"):
        execute(session, ":trace prob_of(player, empty(box1))")


# -- the documented session replays --------------------------------------------------------------


def test_docs_repl_transcript_replays(env, tmp_path):
    """docs/repl.md's session (a ``text`` block, so test_docs does not run it) is what
    ``COLUMNS=96 elot repl < demo.txt`` prints, inference times aside; run in a folder of
    its own, where its ``:save`` writes."""
    import re
    from pathlib import Path

    from helpers import run_elot

    doc = (Path(__file__).resolve().parent.parent / "docs" / "repl.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(elot\[t=0/23\]> :help\n.*?)```", doc, re.S).group(1)
    lines = [re.sub(r"^elot\[[^\]]*\]> ", "", line) for line in block.splitlines()
             if re.match(r"^elot\[t=\d+/\d+( initial)?\]> ", line)]
    result = run_elot("repl", stdin="\n".join(lines) + "\n", env=dict(env, COLUMNS="96"), timeout=120,
                      cwd=tmp_path)
    assert result.stderr == "" and (tmp_path / "elot-demo.csv").stat().st_size > 0

    def plain(text: str) -> str:
        text = re.sub(r"\(inference: [0-9.]+ s\)", "(inference: … s)", text)
        return "\n".join(line.rstrip() for line in text.strip().splitlines())

    assert plain(result.stdout) == plain(block)


# -- words and modes the scenario cannot answer ---------------------------------------------

def test_a_bare_unknown_word_is_english_and_known_names_stay_formulas(session):
    with pytest.raises(ElotError) as info:
        execute(session, "hello")
    assert info.value.kind == "translation error"  # read as a sentence, as longer English is
    with pytest.raises(ElotError) as info:
        execute(session, "box1")
    assert "this is an object of type box" in info.value.message  # a name of the scenario: ELoT


def test_initial_is_refused_at_once_for_a_model_without_initial_hypotheses():
    from elot.embedding import Hypotheses, declare
    from elot.lang.states import Belief, State
    from elot.session import Session

    class NowOnly:
        name = "now-only"
        signature = declare({"ann": "agent", "box1": "box"}, {"closed": ["box"]})
        times = range(2)

        def hypotheses(self, t):
            state = State.of([("closed", "box1")])
            return Hypotheses.of([(state, Belief.point(state), 1.0)], signature=self.signature)

    session = Session.open_model(NowOnly())
    with pytest.raises(ElotError, match="no initial_hypotheses"):
        execute(session, ":initial")
    assert session.mode == "current"
    assert "normalized L = 1.000" in text(execute(session, "believes(player, formula(closed(box1)))"))


def test_a_colour_in_a_domain_without_colours_gets_a_whole_hint():
    from elot.embedding import declare
    from elot.translate import translate

    sig = declare({"ann": "agent", "box1": "box", "key1": "key"}, {"inside": ["key", "box"]})
    with pytest.raises(ElotError) as info:
        translate("The player thinks the red key is in box 1.", signature=sig, translator="offline")
    assert info.value.hint and not info.value.hint.rstrip().endswith("are")


def test_set_without_a_value_and_save_into_a_folder_say_what_is_wrong(session, tmp_path):
    with pytest.raises(ElotError, match=":set beta needs one value, not 0"):
        execute(session, ":set beta")
    execute(session, "believes(player, formula(empty(box1)))")
    with pytest.raises(ElotError, match="is a folder"):
        execute(session, f":save {tmp_path}")
