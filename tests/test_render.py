"""Screenshot-equivalents of the REPL's views: render to plain text at a fixed width and
compare with golden files in tests/golden/repl/ (ELOT_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elot.errors import ElotSyntaxError, Span
from elot.lang.parser import parse
from elot.repl import render
from elot.repl.render import plain_text
from elot.repl.commands import execute
from elot.session import Session

GOLDEN = Path(__file__).parent / "golden" / "repl"
UPDATE = os.environ.get("ELOT_UPDATE_GOLDEN") == "1"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written; rerun")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs (ELOT_UPDATE_GOLDEN=1 to accept)"


@pytest.fixture(scope="module")
def session() -> Session:
    s = Session.open("default")
    s.goto(6)   # after `down, open box2`: box 2 seen empty
    return s


def test_map_golden(session):
    check_golden("map_default_t6.txt", plain_text(*execute(session, ":map")))


def test_goals_golden(session):
    check_golden("goals_default_t6.txt", plain_text(*execute(session, ":goals")))


def test_worlds_and_beliefs_golden(session):
    check_golden("worlds_beliefs_default_t6.txt",
                 plain_text(*execute(session, ":worlds"), *execute(session, ":beliefs")))


def test_map_shows_only_what_was_seen(session):
    text = plain_text(*execute(session, ":map"))
    assert "box2 open: empty" in text and "[1] box1 closed" in text
    assert " @ " in text and "•" in text          # the agent, and the path it walked
    assert "DR" in text                           # the locked red door
    start = Session.open("default")
    assert "[ ]" not in plain_text(*execute(start, ":map"))   # nothing opened at t = 0


def test_map_at_the_end_shows_the_unlocked_door_and_held_gem():
    s = Session.open("default")
    s.goto(s.horizon)
    text = plain_text(*execute(s, ":map"))
    assert "door1 red unlocked" in text and "gem2" in text.split("holding:")[1]
    assert "used keys: red" in text


def test_bar_is_proportional():
    assert render.bar(0, 10) == " " * 10
    assert render.bar(1, 10) == "█" * 10
    assert render.bar(0.5, 10).rstrip() == "█" * 5
    assert render.bar(0.55, 10).startswith("█████▌")
    assert render.bar(7, 4) == "████"   # clipped


def test_sparkline_and_trace_view_mark_judgment_points():
    assert render.sparkline([0, 0.5, 1]) == "▁▅█"
    text = plain_text(render.trace_view("f", [0.1, 0.2, 0.9, 0.95], judgments=[1, 3], now=2))
    lines = text.splitlines()
    spark = next(i for i, l in enumerate(lines) if "▁" in l)
    marks = lines[spark + 1]
    assert marks[4:8] == " ^|^"
    assert "0.200" in text and "0.950" in text and "(now)" in text


def test_error_view_has_location_caret_and_hint():
    source = "believes(player, formula(empty(box3))"
    with pytest.raises(ElotSyntaxError) as info:
        parse(source, path="<formula>")
    text = plain_text(render.error_view(info.value))
    assert text.startswith("<formula>:1:")
    assert "^" in text and "hint:" in text
    err = ElotSyntaxError("bad", span=Span.of("abc(", 3, 4), source="abc(", hint="close it")
    assert plain_text(render.error_view(err)).splitlines()[1:3] == ["    abc(", "       ^"]
