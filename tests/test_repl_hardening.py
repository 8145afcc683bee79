"""The REPL under a new user's and an attacker's hands (issue 11, items 3, 4, 5, 10, 11):
Ctrl-C during a computation, English wherever a statement goes, the scenario's
statements by number, numeric terms, and huge lines."""

from __future__ import annotations

import os
import time

import pexpect
import pytest
from helpers import ELOT, NEUTRAL_CWD

from elot.errors import ElotError
from elot.repl.commands import execute
from elot.repl.render import plain_text
from elot.repl.session import Session


@pytest.fixture()
def env(tmp_path):
    e = dict(os.environ, HOME=str(tmp_path), ELOT_HISTORY=str(tmp_path / "history"),
             TERM="dumb", COLUMNS="100", NO_COLOR="1")
    e.pop("XDG_DATA_HOME", None)
    return e


@pytest.fixture()
def session():
    return Session.open()


def text(outputs) -> str:
    return "\n".join(plain_text(o, width=120) for o in outputs)


# -- item 3: Ctrl-C cancels the command, not the session ------------------------------------------


def test_ctrl_c_during_inference_returns_to_the_prompt(env, tmp_path):
    # The reference backend with many belief particles: seconds of inference, all of it in
    # Python, so the interrupt lands while it runs.
    child = pexpect.spawn(ELOT[0], [*ELOT[1:], "repl", "two-doors", "--backend", "reference"],
                          env=env, encoding="utf-8", timeout=60, dimensions=(50, 100), cwd=NEUTRAL_CWD)
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
