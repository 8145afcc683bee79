"""One pipeline (#41 item 6, #42): every command runs on a gridworld scenario, a food-truck
scenario, the coffee shop of examples/domains/coffee_shop.py (a researcher's own file), and
two PDDL worlds of Alanqary et al. (2021), Block-Words and their Doors-Keys-Gems (skipped
where those data are absent). Each is run through ``main(argv)`` in a folder of its own; a
command may refuse only for a hook its domain does not have (a MissingHook), never for
anything else."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import alanqary2021_path
from elot.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "domains"

TRUCKS = """\
scenario left-check-empty
map 1
spot2 empty
start 1 1
moves W N N stay S S S eat

scenario straight-korean
map 2
spot2 lebanese
start 1 1
moves W S eat
"""

#: Per domain: the --domain option (if any), two scenarios, three statements, how elot plan
#: is asked of its simulated agent.
DOMAINS = {
    "gridworld": dict(domain=[], scenarios=["two-doors", "default"],
                      statements=["believes(player, formula(empty(box1)))",
                                  "believes(player, might(exists(key(K), inside(K, box2))))",
                                  "wants(player, gem2)"],
                      plan=["two-doors", "-o", "planned.scn"]),
    "foodtrucks": dict(domain=[], scenarios=["lunch.trucks:left-check-empty", "lunch.trucks:straight-korean"],
                       statements=["initial: believes(student, formula(empty(spot2)))",
                                   "initial: likes_best(student, korean)",
                                   "initial: wants(student, mexican)"],
                       plan=[str(EXAMPLES / "lunch.trucks"), "--utilities", "korean=100,lebanese=40,mexican=-20",
                             "-o", "planned.trucks"]),
    "coffee-shop": dict(domain=["--domain", str(EXAMPLES / "coffee_shop.py")],
                        scenarios=[str(EXAMPLES / "coffee_peek.json"), "planned.json"],
                        statements=["initial: believes(visitor, formula(open(shop)))",
                                    "initial: wants(visitor, coffee)",
                                    "initial: believes(visitor, likely(open(shop)))"],
                        plan=[str(EXAMPLES / "coffee_start.json"), "--utilities", "coffee=20,soda=5",
                              "-o", "planned.json"]),
}
#: The PDDL worlds: stimuli of the study folders by id, the second scenario a plan elot plan
#: wrote (naming its problem), read back.
ALANQARY = alanqary2021_path()
PDDL = {
    "block-words": dict(domain=["--domain", str(ALANQARY / "block-words" / "domain.pddl")] if ALANQARY else [],
                        scenarios=["1_1", "planned.plan"],
                        statements=["wants(player, core)", "on(c, o)",
                                    "believes(player, formula(clear(c)))"],
                        plan=["1_1", "--goal", "pore", "--policy", "optimal", "-o", "planned.plan"]),
    "alanqary-dkg": dict(domain=["--domain", str(ALANQARY / "doors-keys-gems" / "domain.pddl")] if ALANQARY else [],
                         scenarios=["2_1", "planned.plan"],
                         statements=["wants(player, gem3)", "has(key1)", "believes(player, formula(has(key1)))"],
                         plan=["2_1", "--judge", "0,5,10", "-o", "planned.plan"]),
}

#: In this order: plan first (its scenario is the coffee shop's second), survey build after stimuli.
COMMANDS = ["plan", "run", "repl", "plot", "map", "batch", "fit", "design", "stimuli", "storyboard",
            "survey build", "baseline --dry-run"]


def argv_of(command: str, spec: dict) -> list[str]:
    """The command line of ``command`` on the domain of ``spec`` (run in its folder)."""
    first, both = spec["scenarios"][0], spec["scenarios"]
    domain, said = spec["domain"], ["--statements", "statements.txt"]
    return {
        "run": ["run", *domain, first, *said],
        "repl": ["repl", *domain, first],
        "plot": ["plot", *domain, first, *said, "-o", "plot.png"],
        "map": ["map", *domain, first, "-o", "map.png"],
        "batch": ["batch", *domain, *both, *said, "-o", "table.csv"],
        "fit": ["fit", "ratings.csv", *domain, "-o", "fit.json"],
        "plan": ["plan", *domain, *spec["plan"]],
        "design": ["design", *domain, first, *said, "--csv", "design.csv"],
        "stimuli": ["stimuli", *domain, *both, *said, "-o", "set", "--no-mp4", "--cell", "16"],
        "storyboard": ["storyboard", *domain, first, *said, "-o", "storyboard.png"],
        "survey build": ["survey", "build", "set", "-o", "survey", "--cdn"],
        "baseline --dry-run": ["baseline", *domain, first, *said, "--dry-run"],
    }[command]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A folder per domain holding its inputs, the batch table and ratings fit reads, and
    the stimulus set survey build reads (made by the commands themselves)."""
    made = {}
    for name, spec in {**DOMAINS, **PDDL}.items():
        here = tmp_path_factory.mktemp(name)
        (here / "statements.txt").write_text("\n".join(spec["statements"]) + "\n")
        (here / "lunch.trucks").write_text(TRUCKS)
        made[name] = here
    return made


def run_in(folder: Path, argv: list[str], monkeypatch, capsys, stdin: str = "") -> tuple[int, str]:
    import io

    monkeypatch.chdir(folder)
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    return code, err + out      # the REPL says what went wrong on its own output


def ratings_from_table(folder: Path) -> None:
    """Made-up ratings of every row of the batch table (what fit reads)."""
    rows = list(csv.DictReader((folder / "table.csv").open(newline="")))
    with (folder / "ratings.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["scenario", "mode", "t", "statement", "rating"])
        writer.writeheader()
        for n, r in enumerate(rows):
            writer.writerow({"scenario": r["scenario"], "mode": r["mode"], "t": r["t"], "statement": r["statement"],
                             "rating": round(0.2 + 0.6 * ((n * 7) % 5) / 4, 2)})


#: The domains whose every command takes over 2 s on one core (the marker "slow" means that):
#: the quick loop keeps the gridworld and a researcher's file, the whole suite runs them all.
SLOW_DOMAINS = {"foodtrucks"}


@pytest.mark.parametrize("domain", [
    *(pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_DOMAINS else []) for name in DOMAINS),
    *(pytest.param(name, marks=[pytest.mark.slow, pytest.mark.skipif(
        ALANQARY is None, reason="the Alanqary et al. 2021 data are absent")]) for name in PDDL)])
def test_every_command_runs_on_every_domain(domain, folders, monkeypatch, capsys):
    folder, spec = folders[domain], {**DOMAINS, **PDDL}[domain]
    refused = {}
    for command in COMMANDS:
        if command == "fit":
            ratings_from_table(folder)
        stdin = ":goals\n:worlds\n:beliefs\n" + spec["statements"][0].split(": ", 1)[-1] + "\n"
        code, err = run_in(folder, argv_of(command, spec), monkeypatch, capsys, stdin)
        if code != 0:
            refused[command] = err
    # a refusal is allowed only for a hook the domain lacks (none of these three lacks one)
    assert not {c: e for c, e in refused.items() if "missing hook" not in e}, refused
    assert refused == {}
    for name in ("plot.png", "map.png", "storyboard.png"):
        assert (folder / name).read_bytes().startswith(b"\x89PNG"), name
    assert (folder / "survey" / "survey.json").is_file() and (folder / "fit.json").is_file()


#: The coffee shop without its drawing and wording hooks, as a researcher's first file is.
BARE = """
exec(open({shop!r}).read())
CoffeeShop.name = "bare-shop"
for hook in ("draw_frame", "frame_cells", "frame_caption", "tell", "scene_words", "map_cells", "map_legend"):
    delattr(CoffeeShop, hook)
"""


def test_a_domain_without_hooks_runs_the_rest_and_each_command_names_the_hook_it_needs(tmp_path, monkeypatch,
                                                                                        capsys):
    (tmp_path / "bare.py").write_text(BARE.format(shop=str(EXAMPLES / "coffee_shop.py")))
    spec = dict(DOMAINS["coffee-shop"], domain=["--domain", "bare.py"],
                scenarios=[str(EXAMPLES / "coffee_peek.json"), str(EXAMPLES / "coffee_peek.json")])
    (tmp_path / "statements.txt").write_text("\n".join(spec["statements"]) + "\n")
    needs = {"map": "draw_frame", "storyboard": "draw_frame", "stimuli": "draw_frame", "baseline --dry-run": "tell",
             "repl": "map_cells"}
    for command in ("run", "plot", "batch", "design", "plan", *needs):
        stdin = ":map\n" if command == "repl" else ""
        code, err = run_in(tmp_path, argv_of(command, spec), monkeypatch, capsys, stdin)
        if command in needs:
            assert code == 2 and err.count("missing hook") == 1 and needs[command] in err, (command, err)
        else:
            assert code == 0, (command, err)
