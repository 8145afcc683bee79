"""Scenarios: the .scn format, the dataset loaders, validation errors, the examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from elot.errors import ScenarioError
from elot.domains.doors_keys_gems.dataset import load_dataset_plan, load_dataset_scenario
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.scenario import Scenario, Statement
from elot.domains.doors_keys_gems.examples import default_example, list_examples, load_example
from elot.domains.doors_keys_gems.scn_write import format_scn
from elot.domains.doors_keys_gems.scn_read import parse_scn_text

FIXTURES = Path(__file__).parent / "fixtures" / "scenarios"
PLAN_IDS = [f"{m}_{p}" for m, n in ((1, 3), (2, 3), (3, 3), (4, 3), (5, 2), (6, 3), (7, 3)) for p in range(1, n + 1)]

SMALL = """\
# a comment
name: small
description: A short
  two-line description.
goal: gem2
colours: red, blue

legend:
  1 = box red   # a box hiding a red key

map:
  gW.W.
  .R.Bg
  .h.1b

actions:
  right x2, open box1 |
  right, pickup key2
  --- judge ---
  up, unlock key2 door2, pickup gem2

statements current:
  believes(player, formula(empty(box1)))
  The player thinks box 1 is empty.

statements initial:
  believes(player, might(exists(key(K), inside(K, box1))))
"""


def test_small_scenario():
    s = parse_scn_text(SMALL, "small.scn")
    assert s.name == "small" and s.description == "A short two-line description."
    assert s.true_goal == "gem2"
    layout = s.layout
    assert layout.colours == ("red", "blue")
    assert layout.gems == (("gem1", (1, 1)), ("gem2", (5, 2)))
    assert layout.doors == (("door1", (2, 2), "red"), ("door2", (4, 2), "blue"))
    assert layout.boxes == (("box1", (4, 3)),)
    # reading order: the hidden red key (4,3) before the blue key (5,3); then spares
    assert layout.keys == ("key1", "key2", "key3")
    assert s.initial.key("key1").where == ("box", "box1") and s.initial.key("key1").colour == "red"
    assert s.initial.key("key2").where == ("cell", (5, 3))
    assert s.initial.key("key3").where == ("offgrid",)
    assert s.actions == (("right",), ("right",), ("open", "box1"), ("right",), ("pickup", "key2"),
                         ("up",), ("unlock", "key2", "door2"), ("pickup", "gem2"))
    assert s.judgments == (3, 5) and s.T == 8
    assert s.action_lines == (17, 17, 17, 18, 18, 20, 20, 20)
    assert s.statements == (
        Statement("believes(player, formula(empty(box1)))", "current", 23),
        Statement("The player thinks box 1 is empty.", "current", 24),
        Statement("believes(player, might(exists(key(K), inside(K, box1))))", "initial", 27),
    )
    assert [st.is_formula for st in s.statements] == [True, False, True]
    assert len(s.states()) == 9 and s.states() is s.states()
    assert s.state_at(8).agent_pos == (5, 2)
    assert s.signature_objects() == {
        "red": "color", "blue": "color", "key1": "key", "key2": "key", "key3": "key",
        "door1": "door", "door2": "door", "human": "agent", "gem1": "gem", "gem2": "gem", "box1": "box",
    }


def test_goal_from_map_and_defaults():
    s = parse_scn_text("map:\n  gh.G\n")
    assert s.true_goal == "gem2" and s.actions == () and s.judgments == () and s.name == "scenario"
    assert s.layout.keys == ("key1", "key2") and s.layout.colours == ()
    assert parse_scn_text("map:\n  gh.g\n").true_goal is None
    with pytest.raises(ScenarioError, match="disagrees"):
        parse_scn_text("goal: gem1\nmap:\n  gh.G\n")


def test_round_trip_of_examples_and_small():
    scenarios = [load_example(n) for n in list_examples()] + [parse_scn_text(SMALL)]
    for s in scenarios:
        again = parse_scn_text(format_scn(s))
        assert again.layout == s.layout and again.initial == s.initial
        assert (again.actions, again.judgments, again.true_goal, again.name) == (s.actions, s.judgments, s.true_goal, s.name)
        assert [(x.text, x.mode) for x in again.statements] == [(x.text, x.mode) for x in s.statements]
        assert format_scn(again) == format_scn(s)


# -- validation errors, each with a fixture of our own ---------------------------------

ERRORS = [
    # fixture, line, column (None: any), words in the message
    ("unknown_char.scn", 4, 5, ["unknown map character '?'"]),
    ("ragged_map.scn", 5, 3, ["ragged map", "row 3 has 3 cells"]),
    ("no_agent.scn", 3, None, ["no agent"]),
    ("two_agents.scn", 4, 5, ["2 agents"]),
    ("unreachable_gem.scn", 4, 7, ["gem1 at (5,2) cannot be reached"]),
    ("impossible_step.scn", 10, 3, ["step 4 (line 10)", "cannot move up from (3,2): wall"]),
    ("judge_past_end.scn", 2, None, ["t=9 is past the end", "T=3"]),
    ("colour_mismatch.scn", 7, 3, ["step 4 (line 7)", "key1 is red but door1 is blue"]),
    ("undeclared_colour.scn", 5, 5, ["colour 'blue'", "not declared"]),
    ("unknown_action.scn", 5, 10, ["step 2 (line 5)", "unknown action 'jump'"]),
    ("unknown_goal.scn", 2, None, ["unknown goal 'gem7'"]),
    ("malformed.pddl", 5, 3, ["unbalanced '('"]),
]


@pytest.mark.parametrize("name, line, col, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_validation_errors(name, line, col, words):
    path = FIXTURES / name
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    error = info.value
    text = error.render()
    assert error.path == str(path) and str(path) in text
    assert error.span is not None and error.span.line == line
    if col is not None:
        assert error.span.column == col
        assert f"{path}:{line}:{col}:" in text
    for word in words:
        assert word in error.message
    assert error.hint


def test_missing_files(tmp_path):
    with pytest.raises(ScenarioError, match="not found") as info:
        load_scenario(tmp_path / "nope.scn")
    assert "nope.scn" in info.value.render()
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "nope.pddl")
    with pytest.raises(ScenarioError, match="no scenario file, example or dataset plan"):
        load_scenario("no such thing")
    with pytest.raises(ScenarioError, match="no example scenario") as info:
        load_example("nope")
    assert "default" in info.value.hint


@pytest.mark.parametrize(
    "text, words",
    [
        ("map:\n  h.\nactions:\n  open x3 box1\n", "open takes 1 argument"),
        ("map:\n  h.\nactions:\n  right x0\n", "at least 1"),
        ("foo bar\nmap:\n  h.\n", "outside any section"),
        ("name: a\nname: b\nmap:\n  h.\n", "given twice"),
        ("name: a\n", "no map"),
        ("map:\n  h.\nlegend:\n  1 box red\n", "legend entry"),
        ("map:\n  h.\nlegend:\n  1 = door\n", "needs a colour"),
        ("map:\n  h.\nlegend:\n  1 = tree\n", "unknown kind"),
        ("map:\n  h.\nlegend:\n  1 = gem red\n", "has no colour"),
        ("colours: red\nmap:\n  h.\nlegend:\n  1 = box blue\n  \nactions:\n", None),
        ("map:\n  hGG\n", "more than one goal"),
        ("judge: x\nmap:\n  h.\n", "bad judgment point"),
        ("map:\n  h.\nmap:\n  h.\n", "appears twice"),
    ],
)
def test_more_format_errors(text, words):
    if words is None:  # an unused undeclared colour in the legend is fine
        parse_scn_text(text)
        return
    with pytest.raises(ScenarioError) as info:
        parse_scn_text(text, "t.scn")
    assert words in info.value.message
    assert info.value.span is not None and info.value.render().startswith("t.scn:")


def test_other_colours_through_the_legend():
    s = parse_scn_text("colours: purple\nlegend:\n  P = door purple\n  p = key purple\nmap:\n  gPph\nactions:\n  left, pickup key1, unlock key1 door1\n")
    assert s.layout.doors == (("door1", (2, 1), "purple"),) and s.layout.colours == ("purple",)
    assert "?" in s.initial.render()


# -- the examples ----------------------------------------------------------------------


def test_examples_are_there():
    names = list_examples()
    assert "default" in names and len(names) >= 3
    assert default_example().name == load_example("default").name


@pytest.mark.parametrize("name", list_examples())
def test_example(name):
    s = load_example(name)
    layout = s.layout
    assert isinstance(s, Scenario) and s.description
    assert len(layout.boxes) <= 3 and 2 <= len(layout.gems) <= 4
    assert 6 <= layout.width <= 10 and 4 <= layout.height <= 9
    hidden = [k for k in layout.keys if s.initial.hidden(k)]
    assert len(hidden) <= 2
    assert len(s.judgments) >= 2 and all(0 < t < s.T for t in s.judgments)
    assert 4 <= len(s.statements_for("current")) <= 6
    assert s.true_goal is not None and s.states()[-1].goal_reached(s.true_goal)


@pytest.mark.parametrize("name", list_examples())
def test_example_statements_typecheck(name):
    from elot.lang.checker import check
    from elot.lang.parser import parse

    s = load_example(name)
    signature = s.signature()
    for statement in s.statements:
        if statement.is_formula:
            check(parse(statement.text, path=f"{name}.scn"), signature)


# -- the dataset -----------------------------------------------------------------------


@pytest.mark.parametrize("exp", ["exp1", "exp2_current", "exp2_initial"])
def test_every_dataset_plan_loads(labtom, exp):
    for plan_id in PLAN_IDS:
        s = load_dataset_plan(labtom, plan_id, exp)
        assert s.name == f"{exp}/{plan_id}"
        assert s.true_goal is not None and s.states()[-1].goal_reached(s.true_goal)
        assert s.judgments and all(0 < t < s.T for t in s.judgments)
        assert set(s.judgments) <= set(s.markers)
        assert len(s.statements_for("current")) == 5 and len(s.statements_for("initial")) == 5
        assert s.signature_objects()["human"] == "agent"


def test_dataset_scenario_details(labtom):
    s = load_dataset_plan(labtom, "1_1")
    assert s.markers == (0, 5, 8, 14, 26) and s.judgments == (5, 8, 14)
    assert s.true_goal == "gem2"  # from the problem's goal
    assert s.statements[0].line == 1 and s.statements[0].mode == "current"
    assert s.action_lines[0] == 2
    # goal from the last gem picked up when the problem's goal is `true`
    assert load_dataset_plan(labtom, "2_1").true_goal == "gem3"
    # a problem alone: no actions
    alone = load_dataset_scenario(labtom / "problems" / "1_1.pddl")
    assert alone.actions == () and alone.judgments == ()


def test_load_scenario_auto_detects(labtom, monkeypatch):
    by_id = load_scenario("1_2", root=labtom)
    assert by_id.name == "exp2_current/1_2"
    assert load_scenario("exp1/1_2", root=labtom).name == "exp1/1_2"
    assert load_scenario("1_2", exp="exp2_initial", root=labtom).name == "exp2_initial/1_2"
    by_plan = load_scenario(labtom / "plans" / "exp1" / "3_1.pddl")
    assert by_plan.name == "exp1/3_1" and by_plan.T == 45
    by_problem = load_scenario(labtom / "problems" / "3_1.pddl", plan="3_1", exp="exp1")
    assert by_problem.actions == by_plan.actions and len(by_problem.statements) == 10
    assert load_scenario(labtom / "problems" / "3_1.pddl").actions == ()
    assert load_scenario("default").name == default_example().name
    assert load_scenario(FIXTURES.parent.parent.parent / "elot" / "scenarios" / "two-doors.scn").name == "two-doors"


def test_dataset_plan_impossible_step(labtom):
    path = FIXTURES / "impossible_plan.pddl"
    with pytest.raises(ScenarioError) as info:
        load_dataset_scenario(labtom / "problems" / "1_1.pddl", path)
    text = info.value.render()
    assert f"{path}:4:1:" in text and "step 3 (line 4)" in text and "wall" in text


def test_missing_dataset_plan(labtom):
    with pytest.raises(ScenarioError, match="not found") as info:
        load_dataset_plan(labtom, "9_9")
    assert "1_1" in info.value.hint


@pytest.mark.parametrize("shape", ["wide", "tall"])
def test_a_map_larger_than_a_pddl_grid_is_refused_at_its_line(tmp_path, capsys, shape):
    """A .scn map has the PDDL grid's size limit (pddl.MAX_GRID_SIDE cells on a side),
    refused at the row that passes it, before any cell is read."""
    from elot.cli import main
    from elot.domains.doors_keys_gems.pddl import MAX_GRID_SIDE as side

    rows = ["h" + "." * side] if shape == "wide" else ["h."] + [".."] * side
    path = tmp_path / "big.scn"
    path.write_text("name: big\nmap:\n" + "".join(f"  {r}\n" for r in rows) + "actions:\n  right\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    line, col = (3, 3 + side) if shape == "wide" else (3 + side, 3)
    assert (info.value.span.line, info.value.span.column) == (line, col)
    assert f"map too {shape}" in info.value.message and f"at most {side}" in info.value.message
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:{col}: scenario error: map too {shape}") and "Traceback" not in err
    path.write_text("name: ok\nmap:\n" + f"  h{'.' * (side - 1)}\n" * 1 + "actions:\n  right\n", encoding="utf-8")
    assert load_scenario(path).layout.width == side


# -- bad or unusual scenario files: bounded actions, encodings, agent names ---------------

def test_repeat_count_is_bounded():
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    with pytest.raises(ScenarioError, match="too many actions") as info:
        parse_scn_text("map:\n  h..\nactions:\n  right x99999999999\n", "big.scn")
    assert info.value.location() == "big.scn:4:3"


def test_long_plans_load_in_linear_time():
    from elot.domains.doors_keys_gems.pddl import parse_plan_text
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    plan = parse_plan_text("(right human)\n" * 16_000, "plan.pddl")
    scenario = parse_scn_text("map:\n  h...\nactions:\n" + "  right, left\n" * 16_000)
    assert len(plan.actions) == 16_000 and len(scenario.actions) == 32_000


LATIN1 = "inside(key1, box1)\n# caf\xe9\n".encode("latin-1")


@pytest.mark.parametrize("command", [
    ["check", "--file", "{path}"],
    ["run", "default", "--statements", "{path}"],
    ["eval", "empty(box1)", "--state", "inside(key1, box1)", "--belief", "{path}"],
    ["run", "{path}"],
])
def test_non_utf8_files_name_the_path(command, tmp_path, capsys):
    from elot.cli import main

    path = tmp_path / ("bad.scn" if command == ["run", "{path}"] else "bad.txt")
    path.write_bytes(LATIN1)
    assert main([c.format(path=path) for c in command]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2" in err and "not UTF-8" in err and "Traceback" not in err


def test_utf8_bom_is_accepted(tmp_path, capsys):
    from elot.cli import main
    from elot.statements import read_statements
    from elot.domains.doors_keys_gems.scn_read import load_scn

    elot_file = tmp_path / "f.elot"
    elot_file.write_text("\ufeffbelieves(player, formula(empty(box1)))\n", encoding="utf-8")
    assert main(["check", "--file", str(elot_file)]) == 0
    scn = tmp_path / "s.scn"
    scn.write_text("\ufeffmap:\n  h.g\n", encoding="utf-8")
    assert load_scn(scn).layout.width == 3
    statements = tmp_path / "s.txt"
    statements.write_text("\ufeffempty(box1)\n", encoding="utf-8")
    assert read_statements(statements)[0].text == "empty(box1)"


@pytest.mark.parametrize("header, message", [
    ("agent: box1", "already the name of an object"),
    ("agent: a(b)", "not an ELoT name"),
    ("agent: Player", "not an ELoT name"),
    ("agent: key2", "already the name of an object"),
])
def test_bad_agent_names_are_rejected(header, message):
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    with pytest.raises(ScenarioError, match=message) as info:
        parse_scn_text(f"{header}\nmap:\n  h.C.g\n", "a.scn")
    assert info.value.location() == "a.scn:1:8"


def test_a_pddl_file_without_define_must_be_a_plan(tmp_path):
    from elot.errors import ScenarioError
    from elot.domains.doors_keys_gems.load import load_scenario

    path = tmp_path / "notes.pddl"
    path.write_text("just some notes\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert "read as a plan" in " ".join(info.value.notes)
    path.write_text("; only a comment\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="neither a PDDL problem"):
        load_scenario(path)


def dataset_above(folder):
    """A LaBToM dataset in a folder the search walks up to from ``folder`` (a machine may hold
    one beside /tmp), or None: then a search from ``folder`` finds nothing."""
    return next((p / sub for p in (folder, *folder.parents) for sub in ("labtom", "shared/labtom")
                 if (p / sub / "domain.pddl").is_file()), None)


def test_a_missing_dataset_names_every_place_searched_and_how_to_point_at_it(tmp_path, monkeypatch):
    from elot.domains.doors_keys_gems.dataset import dataset_root

    monkeypatch.delenv("ELOT_LABTOM_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    if dataset_above(tmp_path.resolve()) is not None:
        assert dataset_root() == dataset_above(tmp_path.resolve())    # found where the search looks
        pytest.skip(f"a dataset lies above {tmp_path}: nothing is missing from here")
    with pytest.raises(ScenarioError) as info:
        dataset_root()
    searched = [n for n in info.value.notes if n.startswith("searched ")]
    assert f"searched {tmp_path / 'labtom'}" in searched and f"searched {tmp_path / 'shared' / 'labtom'}" in searched
    assert "--labtom" in info.value.hint and "ELOT_LABTOM_DATA" in info.value.hint
    with pytest.raises(ScenarioError, match=r"in .*nowhere \(from --labtom\)"):
        dataset_root(tmp_path / "nowhere")


def test_the_library_reads_no_elot_labtom_data_the_command_line_does(labtom, tmp_path, monkeypatch, capsys):
    from elot.domains.doors_keys_gems.dataset import dataset_root
    from elot.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ELOT_LABTOM_DATA", str(labtom))
    if dataset_above(tmp_path.resolve()) is None:
        with pytest.raises(ScenarioError, match="in any of the"):
            dataset_root()                    # the library looks only where it is told, and around
    else:
        assert dataset_root() == dataset_above(tmp_path.resolve())   # around, not ELOT_LABTOM_DATA
    assert main(["run", "2_1", "-s", "believes(player, formula(empty(box1)))"]) == 0   # the CLI's default
    capsys.readouterr()
    monkeypatch.setenv("ELOT_LABTOM_DATA", str(tmp_path / "nowhere"))
    assert main(["run", "2_1"]) == 2
    assert "nowhere (from ELOT_LABTOM_DATA)" in capsys.readouterr().err
