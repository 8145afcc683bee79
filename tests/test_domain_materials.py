"""``elot design``, ``elot storyboard`` and ``elot baseline`` on a domain of the engine
(issue 35 item 3: the same commands wherever they make sense, no parallel set): food-truck
scenarios (.trucks files, ``--domain foodtrucks``) and a domain from a Python file, through
the command line in-process; what they compute is held against ``elot run``'s scores of
the same scenarios, and every Doors-Keys-Gems option given with a domain is refused by
name."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers import run_elot
from test_domain_cli import LOOKED     # the student looks behind the wall, finds it empty, eats Korean

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"

#: Straight to the Korean truck, never looking.
STRAIGHT = """\
scenario straight-korean
map 2
spot2 lebanese
start 1 1
moves W S eat
"""

CANDIDATES = """\
believes(student, formula(empty(spot2)))
believes(student, likely(empty(spot2)))
likes_best(student, korean)
prefers(student, mexican, korean)
knows_that(student, empty(spot2))
"""


@pytest.fixture
def trucks(tmp_path) -> Path:
    path = tmp_path / "two.trucks"
    path.write_text(LOOKED + "\n" + STRAIGHT)
    (tmp_path / "candidates.txt").write_text(CANDIDATES)
    (tmp_path / "bare_shop.py").write_text(BARE_SHOP.format(shop=str(SHOP)))
    return path


#: The coffee shop without its drawing and wording hooks: what a researcher's first domain file holds.
BARE_SHOP = """
exec(open({shop!r}).read())
CoffeeShop.name = "bare-shop"
for hook in ("draw_frame", "frame_cells", "frame_caption", "tell", "scene_words"):
    delattr(CoffeeShop, hook)
"""


def run_scores(trucks: Path, pick: str, statements: str, *extra: str) -> dict[str, float]:
    """``elot run``'s L of each statement of ``statements`` on one scenario of the file."""
    done = run_elot("run", f"{trucks}:{pick}", "--statements", statements, "--csv", "-", *extra)
    assert done.returncode in (0, 2), done.stderr
    return {row["formula"]: float(row["normalized_likelihood"]) for row in csv.DictReader(io.StringIO(done.stdout))
            if row["normalized_likelihood"]}


def test_design_on_food_trucks_scores_what_run_scores(trucks, tmp_path):
    """Every L design shows is run's L of the same statement on the same scenario, under
    the full model and under each ablation (the domain's own: true-belief, no-cost);
    statements are about the initial belief by default, as run judges them."""
    out = tmp_path / "design.csv"
    done = run_elot("design", str(trucks), "--statements", "candidates.txt", "--csv", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert {r["scenario"] for r in rows} == {f"{trucks}:left-check-empty", f"{trucks}:straight-korean"}
    assert "disagree_true-belief" in rows[0] and "disagree_no-cost" in rows[0]
    assert all(r["mode"] == "initial" for r in rows)
    statements = str(tmp_path / "candidates.txt")
    for pick in ("left-check-empty", "straight-korean"):
        full = run_scores(trucks, pick, statements)
        ablated = {m: run_scores(trucks, pick, statements, "--model", m) for m in ("true-belief", "no-cost")}
        mine = [r for r in rows if r["scenario"].endswith(pick)]
        scored = [r for r in mine if r["L"]]
        assert len(scored) == 4                     # knows_that(student, empty(spot2)) is ill-typed
        for row in scored:
            assert float(row["L"]) == pytest.approx(full[row["formula"]], abs=1e-4)
            for model, scores in ablated.items():
                assert float(row[f"disagree_{model}"]) == pytest.approx(
                    abs(full[row["formula"]] - scores[row["formula"]]), abs=2e-4)
        flags = {r["statement"]: r["flag"] for r in mine}
        assert flags["knows_that(student, empty(spot2))"] == "ill-typed"
    # the desire statements are told apart from the belief ones: the student that looked did not like Korean best
    looked = {r["statement"]: float(r["L"]) for r in rows if r["scenario"].endswith("left-check-empty") and r["L"]}
    straight = {r["statement"]: float(r["L"]) for r in rows if r["scenario"].endswith("straight-korean") and r["L"]}
    assert straight["likes_best(student, korean)"] > looked["likes_best(student, korean)"]


def test_design_on_one_judgment_point_has_no_range_and_flags_twins(trucks, tmp_path):
    """A food-truck scenario is judged once, at the end of its path: its range and change
    are empty (not 0, and nothing is "constant"); two statements no model tells apart are
    still flagged, and the run says which files it wrote."""
    out, figure = tmp_path / "d.csv", tmp_path / "d.png"
    done = run_elot("design", "--domain", "foodtrucks", f"{trucks}:1", "--statements", "candidates.txt",
                    "--csv", str(out), "--figure", str(figure), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"wrote the table (5 rows) to {out} and the chart to {figure}" in done.stderr
    assert figure.read_bytes().startswith(b"\x89PNG")
    rows = {r["statement"]: r for r in csv.DictReader(out.open())}
    believed = rows["believes(student, formula(empty(spot2)))"]
    assert believed["range"] == "" and believed["change"] == "" and believed["points"] == "8"
    assert not any(r["flag"].startswith("constant") for r in rows.values())
    twin = rows["believes(student, likely(empty(spot2)))"]
    assert twin["flag"] == f"same L as #{believed['rank']}" and twin["L"] == believed["L"]


def test_design_on_a_case_file_with_several_points_has_a_range(tmp_path):
    """A domain from a file, its case judged at three points: L moves between them and
    design says by how much (range, signed change), as for the gridworld."""
    case = tmp_path / "peek.json"
    case.write_text(json.dumps({"name": "peek", "layout": "corridor", "world": "shop-closed", "judgments": [1, 2, 6],
                                "path": ["cell2", "cell3", "cell3", "cell2", "cell1", "cell0", "done"]}))
    (tmp_path / "c.txt").write_text("believes(visitor, formula(open(shop)))\n")
    out = tmp_path / "d.csv"
    done = run_elot("design", "--domain", str(SHOP), str(case), "--statements", "c.txt", "--csv", str(out),
                    "--ablations", "true-belief", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (row,) = csv.DictReader(out.open())
    values = [float(v) for v in row["L"].split(";")]
    assert row["points"] == "1;2;6" and len(values) == 3 and "disagree_no-cost" not in row
    assert float(row["range"]) == pytest.approx(max(values) - min(values), abs=2e-4)
    assert float(row["change"]) == pytest.approx(values[-1] - values[0], abs=2e-4)


@pytest.mark.parametrize("argv, said", [
    (["--exp", "exp1"], "--exp is not a setting of the foodtrucks domain"),
    (["--ablations", "non-planning"], "--ablations: the foodtrucks domain has no model 'non-planning'"),
    (["--ablations", "btom"], "--ablations: btom is the model the ablations are compared with"),
])
def test_design_refuses_gridworld_options_on_a_domain(trucks, tmp_path, argv, said):
    out = tmp_path / "d.csv"
    done = run_elot("design", str(trucks), "--statements", "candidates.txt", "--csv", str(out), *argv, cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not out.exists()


def test_design_refuses_domain_options_on_the_gridworld(tmp_path):
    (tmp_path / "c.txt").write_text("believes(player, formula(empty(box1)))\n")
    done = run_elot("design", "two-doors", "--statements", "c.txt", "--planner", "qmdp", cwd=tmp_path)
    assert done.returncode == 2 and "--planner is not a setting of the doors-keys-gems domain" in done.stderr, done.stderr


# -- elot baseline ---------------------------------------------------------------------------


def test_a_food_truck_scene_tells_spot_2_only_once_it_is_seen():
    """The observer learns what spot 2 holds when the student stands where at least half
    of it is in view (as the stimuli draw it), never before; the building's gaps, the
    Korean truck at spot 1 and the student's start are told in both conditions."""
    from elot.domains.foodtrucks.tell import narrative_text, plan_text
    from elot.domains.foodtrucks.trucksfile import parse_trucks

    looked, straight = parse_trucks(LOOKED + "\n" + STRAIGHT)
    for describe, seen in ((plan_text, "from here it sees spot 2: it is empty"),
                           (narrative_text, "from there it saw spot 2: it was empty")):
        before, after = describe(looked, 2), describe(looked, 3)
        assert "empty" not in before.split("hungry.")[1] and seen in after
        assert "(0,0) holds the Korean truck" in before and "starts at (1,1)" in before
        assert "passed at its west (left) and east (right) ends" in before
        assert "Lebanese truck is there" not in describe(straight, 3)     # map 2, spot 2 never in view
        assert "passed at its east (right) end." in describe(straight, 3)
    assert plan_text(looked, 8).splitlines()[-1] == "8. eats at the Korean truck"
    # map 2's corner (13, 0) shows a sixth of spot 2: told as a glimpse, the truck only from (14, 0)
    (corner,) = parse_trucks("scenario c\nmap 2\nspot2 mexican\nstart 12 0\nmoves E E N N N N eat\n")
    told = plan_text(corner, 2).splitlines()[-2:]
    assert told == ["1. goes east to (13,0) (from here about 17% of spot 2 is in view, too little to tell what is "
                    "there)", "2. goes east to (14,0) (from here it sees spot 2: the Mexican truck is there)"]
    assert narrative_text(looked, 8).endswith("It waited a step at (0,3). It went south 3 times, to (0,0). "
                                              "Then it ate at the Korean truck.")


def test_baseline_rates_food_truck_scenarios_through_the_endpoint(trucks, tmp_path):
    """Through the stand-in endpoint: one prompt per (scenario, statement) at the path's
    end, in the food-truck template, ELoT shown in the domain's English; a rating read from
    each answer and none made up (an answer without one leaves L empty with its reason); the
    table keyed as elot batch keys the same scenarios' rows (scenario, mode, t, formula), so
    report, fit and storyboard --table meet them; the manifest beside it."""
    from test_baseline import Stub, completion

    plays = ['{"rating": 7}', "no idea", '{"rating": 1}', '{"rating": 4}']
    out = tmp_path / "llm.csv"
    statements = ["likes_best(student, korean)", "At first the student thought the Lebanese truck was behind the "
                  "building."]
    with Stub(lambda b, n: completion(plays[n % len(plays)])) as stub:
        done = run_elot("baseline", str(trucks), *(a for s in statements for a in ("-s", s)), "--endpoint", stub.url,
                        "--llm", "stub-model", "-o", str(out), env={"OPENAI_API_KEY": "sk-x"})
    assert done.returncode == 0, done.stderr
    assert "4 prompts, 4 answers (4 asked, 0 from the cache)" in done.stderr and "3 rated, 1 without" in done.stderr
    sent = [b["messages"][-1]["content"] for b in stub.requests]
    assert all("The student's steps so far" in text for text in sent)
    assert sum('Statement: "The student initially liked the Korean truck best."' in text for text in sent) == 2
    assert "hungry student on a campus" in stub.requests[0]["messages"][0]["content"]
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 4 and {r["model"] for r in rows} == {"stub-model/plan"}
    rated = sorted(float(r["llm_rating"]) for r in rows if r["L"])
    assert rated == [1.0, 4.0, 7.0] and [r for r in rows if not r["L"]][0]["error"].startswith("no rating")
    assert all(float(r["L"]) == pytest.approx((float(r["llm_rating"]) - 1) / 6) for r in rows if r["L"])
    assert (tmp_path / "llm.csv.manifest.json").is_file()
    table = tmp_path / "batch.csv"
    done = run_elot("batch", str(trucks), *(a for s in statements for a in ("-s", s)), "-o", str(table))
    assert done.returncode == 0, done.stderr
    key = lambda r: (r["scenario"], r["mode"], r["t"], r["formula"])     # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, csv.DictReader(table.open())))


def test_baseline_asks_the_experiments_questions_by_default_and_refuses_bad_statements(trucks, tmp_path):
    done = run_elot("baseline", f"{trucks}:straight-korean", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("### ") == 3 and "t=3 initial #q1 (plan)" in done.stdout
    assert "The student initially believed that the Mexican truck was behind the building." in done.stdout
    from test_baseline import Stub, completion

    bad = tmp_path / "bad.txt"
    bad.write_text("knows_that(student, empty(spot2))\n"
                   "believes(student, formula(believes(student, formula(empty(spot2)))))\n")
    with Stub(lambda b, n: completion('{"rating": 4}')) as stub:
        done = run_elot("baseline", str(trucks), "--statements", str(bad), "--endpoint", stub.url, "--llm", "m",
                        "-o", str(tmp_path / "x.csv"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "2 of the 2 statements given cannot be rated; nothing was asked" in done.stderr
    assert "knows_that needs formula(...)" in done.stderr and "a belief about a belief" in done.stderr
    assert stub.requests == [] and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("argv, said", [
    (["--in-vs-out"], "--in-vs-out rates the LaBToM dataset's statements"),
    (["--exp", "exp1"], "--exp is not a setting of the foodtrucks domain"),
    (["--domain", "BARE", str(REPO / "examples" / "domains" / "coffee_peek.json"),
      "-s", "believes(visitor, formula(open(shop)))"],
     "elot baseline needs the bare-shop domain to draw or describe its scenes, and it has no tell"),
])
def test_baseline_refusals_on_a_domain(trucks, argv, said):
    argv = [a.replace("BARE", str(trucks.parent / "bare_shop.py")) for a in argv]
    done = run_elot("baseline", *([] if "--domain" in argv else [str(trucks)]), *argv, "--dry-run")
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


# -- elot storyboard -------------------------------------------------------------------------


def test_storyboard_of_a_food_truck_scenario_draws_its_frame_and_runs_l(trucks):
    """The frame at the judgment point is the one the stimuli draw (elot/draw/foodtrucks),
    captioned with what the student saw of spot 2; each model's L in the panels is elot
    run's for the same statement."""
    import numpy as np

    from elot.domains.foodtrucks.draw import frames
    from elot.study.references import refs_of
    from elot.study.storyboard import Candidate, score_candidates, storyboard

    (case,) = refs_of([f"{trucks}:left-check-empty"], "foodtrucks")
    candidates = [Candidate("likes_best(student, korean)", "initial"),
                  Candidate("believes(student, formula(empty(spot2)))", "initial")]
    statements = score_candidates(case, candidates, ["btom", "no-cost"], beta=None)
    fig = storyboard(case, statements, ["btom", "no-cost"])
    (frame,) = [ax for ax in fig.axes if ax.get_title().startswith("Judgment point")]
    assert frame.get_title() == "Judgment point 1 (t = 8)" and frame.get_xlabel() == "spot 2 seen: empty"
    (picture,) = frame.get_images()
    assert np.array_equal(picture.get_array(), frames(case.load().detail.own, [8], cell_px=40)[0])
    with open(trucks.parent / "statements.txt", "w") as handle:
        handle.write("".join(f"{c.text}\n" for c in candidates))
    for model in ("btom", "no-cost"):
        run = run_scores(trucks, "left-check-empty", str(trucks.parent / "statements.txt"), "--model", model)
        for st in statements:
            assert st.model[model] == [pytest.approx(run[st.text], abs=1e-9)]
    panel_lines = [line for ax in fig.axes for line in ax.get_lines() if line.get_gid() == "model:btom"]
    assert sorted(float(line.get_ydata()[0]) for line in panel_lines) == pytest.approx(
        sorted(st.model["btom"][0] for st in statements))


def test_storyboard_cli_on_food_trucks_with_a_table(trucks, tmp_path):
    """The experiment's questions by default; a batch table of the same scenario adds its
    model as one more series; the figure is written."""
    table, out = tmp_path / "t.csv", tmp_path / "sb.png"
    done = run_elot("batch", f"{trucks}:straight-korean", "--model", "true-belief", "-s",
                    "believes(student, formula(empty(spot2)))", "-o", str(table))
    assert done.returncode == 0, done.stderr
    done = run_elot("storyboard", f"{trucks}:straight-korean", "--table", str(table), "-o", str(out))
    assert done.returncode == 0 and f"wrote {out}" in done.stderr, done.stderr
    assert out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("argv, said", [
    (["TRUCKS:1", "--k", "4"], "--k is not a setting of the foodtrucks domain"),
    (["TRUCKS"], "names 2 scenarios; a storyboard draws one"),
    (["TRUCKS:1", "--model", "non-planning"], "--model: the foodtrucks domain has no model 'non-planning'"),
    (["--domain", "BARE", str(REPO / "examples" / "domains" / "coffee_peek.json"), "-s",
      "believes(visitor, formula(open(shop)))"],
     "drawing needs the bare-shop domain to draw or describe its scenes, and it has no draw_frame"),
    (["two-doors", "--planner", "qmdp"], "--planner is not a setting of the doors-keys-gems domain"),
])
def test_storyboard_refusals(trucks, tmp_path, argv, said):
    out = tmp_path / "sb.png"
    argv = [a.replace("TRUCKS", str(trucks)).replace("BARE", str(trucks.parent / "bare_shop.py")) for a in argv]
    done = run_elot("storyboard", *argv, "-o", str(out))
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not out.exists()


def test_baseline_on_food_trucks_keeps_its_own_seed_and_shows_the_frame(trucks):
    """``--seed`` is the endpoint's sampling seed here, not the gridworld's inference seed
    (it was refused as one); ``--image`` sends the food-truck frame at the judgment point,
    the one the stimuli draw."""
    from PIL import Image

    from elot.baseline.prompts import frame_png
    from elot.domains.foodtrucks.draw import frames
    from elot.study.references import refs_of

    done = run_elot("baseline", f"{trucks}:1", "--seed", "3", "--image", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("[image: the stimulus frame at t=8, PNG") == 3
    (case,) = refs_of([f"{trucks}:1"], "foodtrucks")
    picture = Image.open(io.BytesIO(frame_png(case, 8)))
    assert (picture.size[1], picture.size[0]) == frames(case.load().detail.own, [8], cell_px=44)[0].shape[:2]


def test_storyboard_on_food_trucks_draws_ratings_keyed_by_the_scenario(trucks, tmp_path):
    """People's ratings of the scenario (keyed as a batch table names it, FILE:NAME) are
    drawn beside the model; ratings of another scenario only are refused, naming it."""
    statements = ["believes(student, formula(empty(spot2)))", "likes_best(student, korean)",
                  "prefers(student, mexican, korean)"]
    argv = [a for s in statements for a in ("-s", s)]

    def ratings(name: str, t: int) -> Path:
        path = tmp_path / f"{name}.csv"
        rows = "".join(f'{trucks}:{name},initial,{t},"{s}",{v}\n' for s, v in zip(statements, (0.3, 0.1, 0.8)))
        path.write_text("scenario,mode,t,statement,rating\n" + rows)
        return path

    out = tmp_path / "sb.png"
    done = run_elot("storyboard", f"{trucks}:left-check-empty", *argv, "--ratings", str(ratings("left-check-empty", 8)),
                    "-o", str(out))
    assert done.returncode == 0 and out.read_bytes().startswith(b"\x89PNG"), done.stderr
    done = run_elot("storyboard", f"{trucks}:left-check-empty", *argv, "--ratings", str(ratings("straight-korean", 3)),
                    "-o", str(tmp_path / "other.png"))
    assert done.returncode == 2 and f"rates no statement of {trucks}:left-check-empty" in done.stderr, done.stderr
