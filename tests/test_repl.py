"""The REPL as a user drives it: through a pty (pexpect spawning `elot repl`), through
piped stdin, and command by command in process."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import time

import pexpect
import pytest
from helpers import ELOT, NEUTRAL_CWD, run_elot
from prompt_toolkit.document import Document

from elot.errors import ElotError
from elot.repl.commands import COMMANDS, execute, suggest
from elot.repl.complete import ElotCompleter
from elot.domains.doors_keys_gems.world import describe_placement
from elot.session import Session
from elot.repl.render import plain_text, prompt

PROMPT0 = r"elot\[t=0/23\]> "


@pytest.fixture()
def env(tmp_path):
    """A clean environment: tmp HOME and history file, a dumb terminal."""
    e = dict(os.environ, HOME=str(tmp_path), ELOT_HISTORY=str(tmp_path / "history"),
             TERM="dumb", COLUMNS="100", NO_COLOR="1")
    e.pop("XDG_DATA_HOME", None)
    return e


def spawn(env, *args: str) -> pexpect.spawn:
    child = pexpect.spawn(ELOT[0], [*ELOT[1:], "repl", *args], env=env, encoding="utf-8",
                          timeout=30, dimensions=(50, 100), cwd=NEUTRAL_CWD)
    return child


def send(child: pexpect.spawn, line: str, prompt: str = r"elot\[t=\d+/\d+( initial)?\]> ") -> str:
    """Type a line, wait for the next prompt, return what was printed in between."""
    child.sendline(line)
    child.expect(prompt)
    return child.before


# -- through a pty -----------------------------------------------------------------------------


@pytest.mark.slow
def test_pty_session(env, tmp_path):
    child = spawn(env)
    child.expect(PROMPT0)
    assert "false-belief" in child.before
    out = send(child, "believes(player, formula(empty(box3))")      # malformed: one ')' short
    assert "syntax error" in out and "^" in out and "hint:" in out
    out = send(child, "believes(player, formula(exists(key(K), inside(K, box2))))")
    assert "normalized L = 0.500" in out and "P = 0.250" in out
    out = send(child, ":gota 4")
    assert "unknown command :gota" in out and "did you mean :goto?" in out
    out = send(child, ":goto 999")
    assert "step 999 is outside" in out and "0 to 23" in out
    child.sendline(":goto 4")
    child.expect(r"elot\[t=4/23\]> ")
    out = send(child, "believes(player, formula(exists(key(K), inside(K, box2))))")
    assert "normalized L = 0.614" in out
    out = send(child, ":map")
    assert "[1]" in out and "@" in out
    time.sleep(0.3)   # let prompt_toolkit take the terminal before a control key
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert ":goto 4" in history and "believes(player" in history


@pytest.mark.slow
def test_pty_history_survives_sessions(env, tmp_path):
    child = spawn(env)
    child.expect(PROMPT0)
    send(child, ":goals")
    time.sleep(0.3)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child = spawn(env)
    child.expect(PROMPT0)
    time.sleep(0.3)
    child.send("\x1b[A")           # up arrow: the previous session's last line
    time.sleep(0.2)
    child.send("\r")
    child.expect(PROMPT0)
    assert "goal posterior at t=0" in child.before
    child.sendline(":quit")
    child.expect(pexpect.EOF)


def test_pty_tab_completes_commands(env):
    child = spawn(env)
    child.expect(PROMPT0)
    time.sleep(0.3)
    child.send(":judg\t")
    time.sleep(0.3)
    child.send("\r")
    child.expect(PROMPT0)
    assert "judgment points" in child.before
    child.sendline(":quit")
    child.expect(pexpect.EOF)


# -- piped stdin --------------------------------------------------------------------------------


def run_piped(env, text: str, *args: str) -> subprocess.CompletedProcess:
    return run_elot("repl", *args, stdin=text, env=env, timeout=60)


def test_piped_stdin_is_a_transcript(env, tmp_path):
    save = tmp_path / "log.json"
    result = run_piped(env, "\n".join([
        ":goto 6",
        "believes(player, formula(empty(box2)))",
        ":initial",
        "believes(player, formula(empty(box1)))",
        f":save {save}",
    ]) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "elot[t=6/23]> believes(player, formula(empty(box2)))" in out
    assert "elot[t=6/23 initial]> believes(player, formula(empty(box1)))" in out
    assert "\x1b[" not in out                   # no escape codes when piped
    log = json.loads(save.read_text())
    assert [row["mode"] for row in log] == ["current", "initial"]
    assert log[0]["normalized_likelihood"] == pytest.approx(1.0)


def test_piped_errors_do_not_stop_and_set_the_exit_status(env):
    result = run_piped(env, "and(\n:nope\n:goto 999\n:goals\n")
    assert result.returncode == 2
    out = result.stdout
    assert out.count("error") >= 3
    assert "goal posterior at t=0" in out        # the line after the errors still ran


# -- in process -----------------------------------------------------------------------------


@pytest.fixture()
def session() -> Session:
    return Session.open("default")


def test_every_command_has_help_and_help_lists_them(session):
    text = plain_text(*execute(session, ":help"))
    for name, cmd in COMMANDS.items():
        assert cmd.help and f":{name}" in text


def test_time_moves(session):
    execute(session, ":step")
    assert session.t == 1 and prompt(session.t, session.horizon, session.mode) == "elot[t=1/23]> "
    execute(session, ":step 3")
    assert session.t == 4
    execute(session, ":step -10")
    assert session.t == 0
    with pytest.raises(ElotError, match="outside"):
        execute(session, ":goto -1")
    with pytest.raises(ElotError, match="whole number"):
        execute(session, ":goto x")


def test_unknown_commands_suggest_the_closest(session):
    assert suggest("thres") == "thresholds"
    assert suggest("belief") == "beliefs"
    with pytest.raises(ElotError) as info:
        execute(session, ":lod default")
    assert "did you mean :load?" in info.value.hint


def test_settings_rerun_inference_only_when_needed(session):
    first = session.run().inference
    execute(session, ":set threshold might 0.25")
    execute(session, ":goto 3")
    assert session.run().inference is first
    assert session.thresholds.might == 0.25
    execute(session, ":set beta 2.0")
    second = session.run().inference
    assert second is not first and second.beta == 2.0
    execute(session, ":model non-planning")
    assert session.run().inference.model == "non-planning"
    with pytest.raises(ElotError, match=r"has no model .truebelief. \(did you mean true-belief\?\)"):
        execute(session, ":model truebelief")
    with pytest.raises(ElotError, match="unknown threshold"):
        execute(session, ":set threshold mihgt 0.3")
    with pytest.raises(ElotError, match="cannot set"):
        execute(session, ":set gamma 1")


def test_thresholds_change_scores(session):
    session.goto(4)
    formula = "believes(player, might(exists(key(K), inside(K, box1))))"
    before = session.score(formula).posterior
    session.set_threshold("might", 0.9)
    assert session.score(formula).posterior < before
    assert "might" in plain_text(*execute(session, ":thresholds"))


def test_type_lower_explain_trace(session):
    assert "E" in plain_text(*execute(session, ":type believes(player, formula(empty(box1)))"))
    lowered = plain_text(*execute(session, ":lower knows_that(player, formula(empty(box2)))"))
    assert "and(>=(prob_of(player, empty(box2)), threshold(believes)), empty(box2))" in lowered
    session.goto(4)
    explanation = session.explain("uncertain_about(player, box(B), exists(key(K), inside(K, B)))")
    assert len(explanation.columns) == 2 and ("uncertain", 0.7) in explanation.thresholds
    assert sum(g[2] for g in explanation.groups) == pytest.approx(1.0)
    assert explanation.score.posterior == pytest.approx(
        sum(mass for _, holds, mass, _ in explanation.groups if holds))
    trace = session.trace("believes(player, formula(empty(box2)))")
    assert len(trace) == 24 and trace[-1] == pytest.approx(1.0)
    text = plain_text(*execute(session, ":trace believes(player, formula(empty(box2)))"))
    assert "^" in text and "judgment point" in text


def test_explain_grounds_prob_of_per_outer_binding_an_inner_condition_tests(session):
    # SPEC §2: the inner condition tests the outer B, so there is one probability per box.
    session.goto(4)
    explanation = session.explain("uncertain_about(player, box(B), exists(and(key(K), inside(K, B)), hidden(K)))")
    assert explanation.columns == [f"prob_of(player, exists(and(key(K), inside(K, {box})), hidden(K)))"
                                   for box in ("box1", "box2")]


def test_english_goes_through_translation(session):
    text = plain_text(*execute(session, "The player initially thought box 1 was empty."))
    assert "believes(player, formula(empty(box1)))" in text and "initial belief" in text
    assert session.mode == "current"   # the translation's mode does not stick
    assert session.log[-1]["english"] == "The player initially thought box 1 was empty."


def test_save_csv_and_bad_extension(session, tmp_path):
    execute(session, "believes(player, formula(empty(box1)))")
    execute(session, ":save " + str(tmp_path / "q.csv"))
    rows = list(csv.DictReader(open(tmp_path / "q.csv")))
    assert rows[0]["formula"] == "believes(player, formula(empty(box1)))"
    with pytest.raises(ElotError, match="cannot save"):
        execute(session, ":save " + str(tmp_path / "q.txt"))


def test_load_and_scenarios(session, labtom):
    assert "default" in plain_text(*execute(session, ":scenarios"))
    execute(session, ":load empty-box")
    assert session.name != "false-belief" and session.t == 0
    execute(session, f":load {labtom / 'plans' / 'exp2_current' / '1_1.pddl'}")
    assert session.horizon == 26 and session.judgments() == [5, 8, 14]
    session.goto(session.horizon)   # box 1 has been opened: the key was there
    worlds = dict(session.world_posterior())
    assert set(worlds) == {"box1: blue, box2: –, box3: –", "box1: –, box2: blue, box3: –",
                           "box1: –, box2: –, box3: blue"}
    assert worlds["box1: blue, box2: –, box3: –"] == pytest.approx(1.0)
    with pytest.raises(ElotError):
        execute(session, ":load /nonexistent/x.scn")


def test_placement_description(session):
    assert describe_placement(session.episode.detail.layout, session.episode.detail.initial) == "box1: red, box2: –"


def test_completion(session):
    completer = ElotCompleter(session)

    def complete(text):
        return [c.text for c in completer.get_completions(Document(text), None)]

    assert ":goals" in complete(":go") and ":goto" in complete(":go")
    assert "believes" in complete("beli")
    assert "box1" in complete("believes(player, formula(empty(bo")
    assert "inside" in complete("exists(key(K), ins")
    assert complete(":model tr") == ["true-belief", "true-belief-paper"]
    assert "might" in complete(":set threshold mi")
    assert "default" in complete(":load def")
