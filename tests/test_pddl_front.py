"""A PDDL domain as a client of the one front (#42): its scenarios read (a plan naming its
problem, a problem with --plan, a study's stimuli by id), its models' posteriors held to a
search written here, plans written by elot plan read back, its settings refused by name,
bad files refused at file:line:column, and the commands run through ``main(argv)``."""

from __future__ import annotations

import csv
import os
import tempfile
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.domains.front import SettingRefused
from elot.domains.pddl.front import PddlFront
from elot.domains.pddl.read import parse_plan, plan_marks
from elot.domains.registry import front_for
from elot.errors import DomainError, ElotError
from helpers import examples, run_elot

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "pddl"
DOMAIN = str(EXAMPLE / "towers.pddl")
PLAN = str(EXAMPLE / "spell.plan")
PROBLEM = str(EXAMPLE / "spell.pddl")
WORDS = {"tea": "tea", "eat": "eat", "sea": "sea", "set": "set"}


def elot(*args: str, cwd=None):
    result = run_elot(*args, cwd=cwd)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


# -- reading -----------------------------------------------------------------------------------


def test_a_plan_that_names_its_problem_is_a_scenario_with_its_marks_and_goals():
    episode = PddlFront(DOMAIN).episode(PLAN)
    scene = episode.detail
    assert episode.horizon == 4 and episode.judged == (0, 2, 3, 4)
    assert [g.name for g in scene.goals] == list(WORDS) and scene.true_goal == "tea"
    assert [s.text for s in episode.statements] == [f"wants(player, {w})" for w in WORDS]
    assert [s.text() for s in scene.steps] == ["(pick-up e)", "(stack e a)", "(pick-up t)", "(stack t e)"]
    # the same problem and plan given apart read the same
    apart = PddlFront(DOMAIN, plan=PLAN).episode(PROBLEM)
    assert apart.detail.steps == scene.steps and apart.judged == episode.judged
    assert [g.formula for g in apart.detail.goals] == [g.formula for g in scene.goals]


def test_the_signature_speaks_of_words_and_blocks():
    from elot.lang.english import constant

    signature = PddlFront(DOMAIN).signature(PddlFront(DOMAIN).episode(PLAN))
    assert constant("tea", signature) == "the word tea" and constant("e", signature) == "block e"
    assert constant(signature.agent, signature) == "the player"


def test_a_problem_without_goals_listed_takes_its_goal_and_its_alternatives(tmp_path):
    from elot.domains.pddl.scenes import alternatives
    from elot.domains.pddl.read import parse_domain, parse_problem

    domain = parse_domain("""(define (domain pick) (:requirements :typing) (:types gem spot)
      (:predicates (has ?g - gem) (at ?g - gem ?s - spot))
      (:action take :parameters (?g - gem ?s - spot) :precondition (at ?g ?s) :effect (has ?g)))""")
    problem = parse_problem("""(define (problem p) (:domain pick) (:objects gem1 gem2 gem3 - gem s - spot)
      (:init (at gem1 s) (at gem2 s) (at gem3 s)) (:goal (has gem2)))""", domain)
    assert [g.name for g in alternatives(problem)] == ["gem1", "gem2", "gem3"]
    (tmp_path / "pick.pddl").write_text(domain.source)
    (tmp_path / "p.pddl").write_text(problem.source)
    (tmp_path / "p.plan").write_text("; problem: p.pddl\n(take gem3 s)\n")
    episode = PddlFront(tmp_path / "pick.pddl").episode(str(tmp_path / "p.plan"))
    assert episode.detail.true_goal == "gem2" and episode.judged == (1,)


# -- the models, held to a search written here ------------------------------------------------


BLOCKS = ("a", "e", "s", "t")


def successors(state: frozenset) -> list[tuple[str, frozenset]]:
    """The towers world written out: each action's text and the state it leads to."""
    holding = next((a[1] for a in state if a[0] == "holding"), None)
    clear = {a[1] for a in state if a[0] == "clear"}
    out = []
    if holding is None:
        for x in sorted(clear):
            if ("ontable", x) in state:
                out.append((f"(pick-up {x})", state - {("ontable", x), ("clear", x), ("handempty",)}
                            | {("holding", x)}))
            for y in BLOCKS:
                if ("on", x, y) in state:
                    out.append((f"(unstack {x} {y})", state - {("on", x, y), ("clear", x), ("handempty",)}
                                | {("holding", x), ("clear", y)}))
    else:
        x = holding
        out.append((f"(put-down {x})", state - {("holding", x)} | {("ontable", x), ("clear", x), ("handempty",)}))
        for y in sorted(clear):
            out.append((f"(stack {x} {y})", state - {("holding", x), ("clear", y)}
                        | {("on", x, y), ("clear", x), ("handempty",)}))
    return out


START = frozenset({("ontable", b) for b in BLOCKS} | {("clear", b) for b in BLOCKS} | {("handempty",)})
GOALS = {"tea": {("clear", "t"), ("on", "t", "e"), ("on", "e", "a"), ("ontable", "a")},
         "eat": {("clear", "e"), ("on", "e", "a"), ("on", "a", "t"), ("ontable", "t")},
         "sea": {("clear", "s"), ("on", "s", "e"), ("on", "e", "a"), ("ontable", "a")},
         "set": {("clear", "s"), ("on", "s", "e"), ("on", "e", "t"), ("ontable", "t")}}


def twin_posterior(actions: list[str], beta: float) -> np.ndarray:
    """Bayes over the four words, each a Boltzmann agent on the fewest actions left."""
    states, queue = {START}, deque([START])
    while queue:
        for _, nxt in successors(queue.popleft()):
            if nxt not in states:
                states.add(nxt)
                queue.append(nxt)
    distance = {word: _distances(states, goal) for word, goal in GOALS.items()}
    post = [np.full(4, 0.25)]
    state = START
    for text in actions:
        moves = successors(state)
        lik = []
        for word in GOALS:
            q = np.array([-(1.0 + distance[word][n]) for _, n in moves])
            p = np.exp(beta * (q - q.max()))
            lik.append(p[[m for m, _ in moves].index(text)] / p.sum())
        state = dict(moves)[text]
        belief = post[-1] * np.array(lik)
        post.append(belief / belief.sum())
    return np.array(post)


def _distances(states, goal) -> dict:
    """The fewest actions from each state to one where ``goal`` holds (value iteration)."""
    d = {s: (0.0 if goal <= s else np.inf) for s in states}
    changed = True
    while changed:
        changed = False
        for s in states:
            best = min([d[s]] + [1.0 + d[n] for _, n in successors(s)])
            if best < d[s]:
                d[s], changed = best, True
    return d


def walk(choices: list[int]) -> list[str]:
    state, out = START, []
    for c in choices:
        moves = successors(state)
        text, state = moves[c % len(moves)]
        out.append(text)
    return out


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.integers(0, 50), max_size=8), st.sampled_from([0.5, 1.0, 3.0]))
def test_the_boltzmann_posterior_equals_a_search_written_here(choices, beta):
    actions = walk(choices)
    with tempfile.TemporaryDirectory() as folder:
        plan = Path(folder) / "walk.plan"
        plan.write_text(f"; problem: {PROBLEM}\n" + "".join(a + "\n" for a in actions))
        front = PddlFront(DOMAIN)
        episode = front.episode(str(plan))
        mine = front.run(episode, front.settings("boltzmann", beta)).posterior
        exact = front.run(episode, front.settings("boltzmann-exact", beta)).posterior
    twin = twin_posterior(actions, beta)
    assert np.allclose(mine, twin, atol=1e-12) and np.allclose(exact, twin, atol=1e-12)


def test_every_model_runs_with_its_defaults_and_its_lapses_keep_every_action_possible():
    front = PddlFront(DOMAIN)
    episode = front.episode(PLAN)
    for model in front.models:
        source = front.run(episode, front.settings(model))
        assert source.posterior.shape == (5, 4) and np.allclose(source.posterior.sum(axis=1), 1.0)
        assert source.goal_posterior(4)["tea"] > 0.5, model
    settings_ = front.settings("heuristic", 2.0, epsilon="0.1")
    assert dict(settings_.model.params) == {"epsilon": 0.1, "weight": 0.2} and settings_.beta == 2.0


# -- settings ------------------------------------------------------------------------------------


def test_a_setting_a_model_does_not_take_is_refused_by_name():
    front = PddlFront(DOMAIN)
    with pytest.raises(SettingRefused, match="the boltzmann model has no epsilon"):
        front.settings("boltzmann", epsilon=0.1)
    with pytest.raises(SettingRefused, match="epsilon must be a finite number between 0 and 1"):
        front.settings("lapse", epsilon=2)
    with pytest.raises(SettingRefused, match="never slips"):
        front.settings("partial-plans", epsilon=0, horizon=3)
    with pytest.raises(SettingRefused, match="did you mean epsilon"):
        front.settings("lapse", epsiln=0.1)
    from elot.engine.settings import InferenceSettings

    with pytest.raises(SettingRefused, match="exact"):
        front.settings(inference=InferenceSettings(method="smc"))
    assert front.settings("full").model.name == "boltzmann"


@pytest.mark.parametrize("argv, said", [
    (["run", "--domain", DOMAIN, PLAN, "--k", "3"], "--k is not a setting of the towers domain"),
    (["run", "--domain", DOMAIN, PLAN, "--param", "epsilon=0.1"], "the boltzmann model has no epsilon"),
    (["run", "--domain", DOMAIN, PLAN, "--param", "gama=0.1", "--model", "goal-noise"], "did you mean gamma"),
    (["run", "--domain", DOMAIN, PLAN, "--param", "epsilon"], "expected NAME=VALUE"),
    (["run", "default", "--param", "epsilon=0.1"], "--param epsilon is not a setting of the doors-keys-gems"),
    (["run", "--domain", DOMAIN, PLAN, "--model", "lapse", "--param", "epsilon=0.1", "--param", "epsilon=0.2"],
     "given twice"),
    (["batch", "--domain", DOMAIN, PLAN, "--model", "boltzmann,boltzmann-ff", "--param", "weight=0.2", "-o", "-"],
     "none of the models run (boltzmann, boltzmann-ff) takes weight"),
    (["run", "--domain", DOMAIN, PLAN, "--inference", "smc"], "goal inference over a PDDL world is exact"),
])
def test_the_command_line_refuses_what_the_models_do_not_take(argv, said):
    result = elot(*argv)
    assert result.returncode == 2 and said in result.stderr, result.stderr


# -- bad files, at their place ------------------------------------------------------------------


@pytest.mark.parametrize("plan, said", [
    ("(pick-up e)\n(pick-up t)\n", "{plan}:3:1: PDDL error: step 2 of the path, (pick-up t), is not applicable"),
    ("(pick-up e)\n(fly e a)\n", "{plan}:3:1: PDDL error: the plan's action (fly e a) is no action of the domain"),
    ("(pick-up e\n", "{plan}:2:1: PDDL syntax error: unbalanced '(': 1 parenthesis never closed"),
])
def test_a_bad_plan_is_refused_at_its_line(tmp_path, plan, said):
    path = tmp_path / "bad.plan"
    path.write_text(f"; problem: {PROBLEM}\n" + plan)
    result = elot("run", "--domain", DOMAIN, str(path))
    assert result.returncode == 2 and said.format(plan=path) in result.stderr, result.stderr


def test_bad_domain_and_problem_files_are_refused_at_their_place(tmp_path):
    broken = tmp_path / "towers.pddl"
    broken.write_text(Path(DOMAIN).read_text().replace(":effect (holding ?x)", ":efect (holding ?x)", 1)
                      .replace(":effect (and (holding ?x) (not (ontable", ":efect (and (holding ?x) (not (ontable"))
    result = elot("run", "--domain", str(broken), PLAN)
    assert result.returncode == 2 and f"{broken}:" in result.stderr and "PDDL syntax error" in result.stderr
    problem = tmp_path / "spell.pddl"
    problem.write_text(Path(PROBLEM).read_text().replace("(:init", "(:int"))
    result = elot("run", "--domain", DOMAIN, str(problem))
    assert result.returncode == 2 and f"{problem}:5:4: PDDL syntax error" in result.stderr, result.stderr
    result = elot("run", "--domain", PROBLEM, PLAN)
    assert result.returncode == 2 and "is no PDDL domain file" in result.stderr
    lone = tmp_path / "lone.plan"
    lone.write_text("(pick-up e)\n")
    result = elot("run", "--domain", DOMAIN, str(lone))
    assert result.returncode == 2 and "names no problem" in result.stderr and "; problem: FILE.pddl" in result.stderr
    result = elot("run", "--domain", DOMAIN, "1_1")
    assert result.returncode == 2 and "no study folder" in result.stderr


def test_the_registry_names_a_pddl_domain_by_its_file_or_its_folder(tmp_path):
    (tmp_path / "domain.pddl").write_text(Path(DOMAIN).read_text())
    assert isinstance(front_for(DOMAIN), PddlFront) and isinstance(front_for(str(tmp_path)), PddlFront)
    assert front_for(str(tmp_path)).name == "towers" and front_for(DOMAIN).spec == str(Path(DOMAIN).resolve())
    with pytest.raises(DomainError, match="is no PDDL domain file"):
        front_for(PROBLEM)


# -- plans written and read back -----------------------------------------------------------------


ACTIONS = ["(pick-up e)", "(stack e a)", "(put-down t)", "(unstack s t)"]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.sampled_from(ACTIONS), max_size=12), st.data())
def test_judgment_marks_read_back_as_written(actions, data):
    marks = sorted(data.draw(st.sets(st.integers(0, len(actions)))))
    lines = [";"] if 0 in marks else []
    for k, action in enumerate(actions, 1):
        lines.append(action)
        lines += [";"] if k in marks else []
    text = "; a comment is no mark\n" + "\n".join(lines) + "\n"
    steps = parse_plan(text)
    assert [s.text() for s in steps] == actions and list(plan_marks(text, steps)) == marks


def test_elot_plan_writes_a_scenario_that_reads_back(tmp_path):
    out = tmp_path / "more.plan"
    result = elot("plan", "--domain", DOMAIN, PLAN, "--goal", "set", "--policy", "optimal", "-o", str(out))
    assert result.returncode == 0, result.stderr
    front = PddlFront(DOMAIN)
    before, after = front.episode(PLAN).detail, front.episode(str(out)).detail
    assert [s.text() for s in after.steps[:4]] == [s.text() for s in before.steps]
    assert after.problem.path.endswith("spell.pddl")
    holds = after.task.goal_masks[[g.name for g in after.goals].index("set")]
    assert holds[after.tables.path.states[-1]] and not holds[after.tables.path.states[-2]]
    episode = front.episode(str(out))
    assert episode.judged[-1] == episode.horizon and "judgment points (auto)" in result.stderr
    again = tmp_path / "again.plan"
    result = elot("plan", "--domain", DOMAIN, str(out), "--goal", "set", "--judge",
                  ",".join(map(str, episode.judged)), "-o", str(again))
    assert result.returncode == 0 and "0 actions simulated" in result.stderr
    assert [line for line in again.read_text().splitlines() if not line.startswith("; ")] == \
        [line for line in out.read_text().splitlines() if not line.startswith("; ")]


# -- hooks ---------------------------------------------------------------------------------------


def test_the_hooks_draw_and_tell_the_towers():
    from elot.domains.pddl.draw import PddlFrames, text_map

    front = PddlFront(DOMAIN)
    episode = front.episode(PLAN)
    frames = front.frames(episode)
    assert isinstance(frames, PddlFrames) and frames.blocks and (frames.width, frames.height) == (4, 6)
    assert frames.captions([0, 2]) == ["the start", "(stack e a)"]
    drawn = text_map(episode.detail, 2)
    assert drawn.cells[(1, drawn.height)] == ("a", "bold") and drawn.cells[(1, drawn.height - 1)] == ("e", "bold")
    told = front.tell(episode, 3, "plan")
    assert "1. (pick-up e)" in told and "3. (pick-up t)" in told and "(stack t e)" not in told
    assert "pick up e, stack e a, pick up t" in front.tell(episode, 3, "narrative")
    assert front.stimulus_fields(episode)["goal"] == 1 and front.stimulus_fields(episode)["gems"] == 0


# -- studies ----------------------------------------------------------------------------------


def test_a_batch_records_each_models_settings_and_fit_reads_it_back(tmp_path):
    table = tmp_path / "table.csv"
    result = elot("batch", "--domain", DOMAIN, PLAN, "--model", "boltzmann,lapse", "--param", "epsilon=0.05,0.2",
                  "--beta", "1,2", "-o", str(table))
    assert result.returncode == 0 and "(3 tasks)" in result.stderr, result.stderr
    rows = list(csv.DictReader(table.open()))
    assert {(r["model"], r["params"]) for r in rows} == {("boltzmann", ""), ("lapse", "epsilon=0.05"),
                                                         ("lapse", "epsilon=0.2")}
    assert len(rows) == 3 * 2 * 4 * 4        # settings × β × statements × judgment points
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["scenario", "mode", "t", "statement", "rating"])
        for r in rows:
            if r["model"] == "boltzmann" and r["beta"] == "1.0":
                writer.writerow([r["scenario"], r["mode"], r["t"], r["statement"], round(float(r["P"]), 2)])
    result = elot("fit", str(ratings), "--domain", DOMAIN, "--model", "boltzmann,lapse", "--param", "epsilon=0.05",
                  "--samples", "50", "-o", str(tmp_path / "fit.json"))
    assert result.returncode == 0, result.stderr
    assert "lapse" in result.stdout and (tmp_path / "fit.json").is_file()
    result = elot("simulate", str(table), "--model", "lapse", "--beta", "1", "-o", str(tmp_path / "sim.csv"))
    assert result.returncode == 2 and "2 values of params" in result.stderr
    result = elot("report", str(table), "--ratings", str(ratings), "--domain", DOMAIN, "-o", str(tmp_path / "report"),
                  "--format", "png", "--no-curves")
    assert result.returncode == 0, result.stderr
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "| params |" in summary and "| lapse | 2 |  | elot | default | epsilon=0.2 |" in summary


def test_the_front_gives_the_dev_r_the_benchmark_reports(alanqary2021):
    """Doors-Keys-Gems: the heuristic model at the parameters the benchmark chooses (β 4, ε
    0, w 0.2), each dev stimulus run by the front, correlates 0.938 with people."""
    from elot.domains.pddl.fitting import pearson

    root = alanqary2021 / "doors-keys-gems"
    front = front_for(str(root / "domain.pddl"))
    human = {(r["scenario"], int(r["t"]), r["goal"]): float(r["human"])
             for r in csv.DictReader((root / "human_dev.csv").open())}
    xs, ys = [], []
    for episode in front.episodes("dev"):
        source = front.run(episode, front.settings("heuristic", 4.0, epsilon=0.0, weight=0.2))
        for t in episode.judged:
            for goal, p in source.goal_posterior(t).items():
                xs.append(p)
                ys.append(human[episode.name, t, goal])
    assert len(xs) == 102 and round(pearson(xs, ys), 3) == 0.938
    with pytest.raises(ElotError, match="has no stimulus 9_9"):
        front.episode("9_9")


def test_a_batch_in_worker_processes_writes_the_table_a_serial_one_does(tmp_path):
    argv = ["batch", "--domain", DOMAIN, PLAN, "--model", "heuristic,partial-plans", "--param", "weight=0.2,0.5",
            "--beta", "1,2"]
    assert elot(*argv, "-o", str(tmp_path / "serial.csv")).returncode == 0
    assert elot(*argv, "-j", "2", "-o", str(tmp_path / "jobs.csv")).returncode == 0
    assert (tmp_path / "serial.csv").read_bytes() == (tmp_path / "jobs.csv").read_bytes()


# -- fitting the models' settings ---------------------------------------------------------------

#: Two stimuli of a small study of our own in Alanqary et al.'s layout (both of its dev split):
#: the speller of examples/pddl building tea, and one building set.
TINY = {"1_1": ["(pick-up e)", "(stack e a)", "(pick-up t)", "(stack t e)"],
        "1_3": ["(pick-up e)", "(stack e t)", "(pick-up s)", "(stack s e)"]}
TINY_POINTS = {"1_1": [1, 3, 4, 5], "1_3": [1, 3, 5]}


def tiny_study(root: Path) -> Path:
    """The study folder: the towers domain, the spell problem for each stimulus, the words,
    and made-up ratings of each word's probability (a model's posterior, nudged)."""
    import json
    import math

    (root / "problems").mkdir(parents=True)
    (root / "actions").mkdir()
    (root / "domain.pddl").write_text((EXAMPLE / "towers.pddl").read_text())
    words = json.loads((EXAMPLE / "goals.json").read_text())["spell"]
    for sid, actions in TINY.items():
        (root / "problems" / f"scenario-{sid.replace('_', '-')}.pddl").write_text(Path(PROBLEM).read_text())
        (root / "actions" / f"{sid}.dat").write_text("\n".join(actions) + "\n")
    (root / "judgment_points.json").write_text(json.dumps(TINY_POINTS))
    (root / "goals.json").write_text(json.dumps({sid: words for sid in TINY}))
    front = PddlFront(root / "domain.pddl")
    rows, n = [], 0
    for sid in TINY:
        episode = front.episode(sid)
        source = front.run(episode, front.settings("heuristic", 2.0, epsilon=0.2, weight=0.5))
        for t in episode.judged:
            for goal, p in source.goal_posterior(t).items():
                n += 1
                rows.append([sid, t, t, goal, round(min(1.0, max(0.0, p + 0.04 * math.sin(n))), 3)])
    with (root / "human_dev.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows([["scenario", "judgment", "t", "goal", "human"], *rows])
    return root


def test_elot_fit_chooses_the_settings_the_benchmarks_grid_search_chooses(tmp_path):
    """``elot fit --measure P`` over a grid of β and --param values, on ratings of each goal's
    probability, chooses the setting and reaches the r the benchmarks' grid search
    (elot/domains/pddl/fitting.py) does on the same ratings: both run the front."""
    import json

    from elot.domains.pddl.dataset import load_study
    from elot.domains.pddl.fitting import Family, fit as grid_search, prepare

    root = tiny_study(tmp_path / "study")
    study = load_study(root)
    grid = {"beta": (0.5, 1.0, 2.0, 4.0), "epsilon": (0.05, 0.2), "weight": (0.2, 0.5)}
    [found] = grid_search(prepare(study), study.human(), [Family("heuristic", grid, "")])
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["scenario", "mode", "t", "statement", "rating"])
        for (sid, t, goal), value in study.human().items():
            writer.writerow([sid, "current", t, f"wants(player, {goal})", value])
    result = elot("fit", str(ratings), "--domain", str(root / "domain.pddl"), "--model", "heuristic,boltzmann",
                  "--beta", "0.5,1,2,4", "--param", "epsilon=0.05,0.2", "--param", "weight=0.2,0.5",
                  "--measure", "P", "--samples", "20", "-o", str(tmp_path / "fit.json"),
                  "--evaluations", str(tmp_path / "evaluations.csv"))
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "fit.json").read_text())
    assert (data["model"], data["beta"], data["params"]) == ("heuristic", found.params["beta"],
                                                            {"epsilon": found.params["epsilon"],
                                                             "weight": found.params["weight"]})
    assert data["r"] == pytest.approx(found.r, abs=1e-9) and data["measure"] == "P"
    assert data["chosen"]["model"] == "heuristic" and data["ablations"]["boltzmann"]["params"] == {}
    assert "Settings tried (each with every β): heuristic 4" in result.stdout
    evaluations = list(csv.DictReader((tmp_path / "evaluations.csv").open()))
    assert {(e["epsilon"], e["weight"]) for e in evaluations if e["model"] == "heuristic"} == {
        ("0.05", "0.2"), ("0.05", "0.5"), ("0.2", "0.2"), ("0.2", "0.5")}
    # the same ratings correlated with L choose by L: another r, the same kind of answer
    result = elot("fit", str(ratings), "--domain", str(root / "domain.pddl"), "--model", "heuristic",
                  "--beta", "0.5,1,2,4", "--param", "epsilon=0.05,0.2", "--samples", "20")
    assert result.returncode == 0 and "maximizing Pearson r\n" in result.stdout, result.stderr


@pytest.mark.parametrize("argv, said", [
    (["--model", "lapse", "--param", "epsilon=0.05,x"], "--param epsilon: epsilon must be a finite number"),
    (["--model", "boltzmann", "--param", "epsilon=0.05,0.2"], "none of the models run (boltzmann) takes epsilon"),
    (["--model", "lapse", "--param", "gama=0.1"], "did you mean gamma?"),
    (["--measure", "Q"], "invalid choice: 'Q'"),
])
def test_a_fit_refuses_a_grid_it_cannot_run(tmp_path, argv, said):
    root = tiny_study(tmp_path / "study")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("scenario,mode,t,statement,rating\n" + "".join(
        f"1_1,current,{t},\"wants(player, {w})\",{r}\n" for t, w, r in
        ((0, "tea", 0.2), (2, "tea", 0.5), (4, "tea", 0.9), (4, "sea", 0.1))))
    result = elot("fit", str(ratings), "--domain", str(root / "domain.pddl"), *argv)
    assert result.returncode == 2 and said in result.stderr, result.stderr


# -- the REPL -----------------------------------------------------------------------------------


def test_the_repl_sets_a_models_parameters_by_name_and_refuses_those_it_does_not_take():
    lines = (":model heuristic\n:set epsilon 0.3\n:model\n:goto 3\nwants(player, sea)\n:model lapse\n:model boltzmann\n"
             ":set epsilon 0.1\n:set gama 0.1\n:model partial-plans\n:set horizon 0\n:set horizon 3\n:model\n")
    result = run_elot("repl", "--domain", DOMAIN, PLAN, stdin=lines, env={**os.environ, "COLUMNS": "200"})
    out, err = result.stdout, result.stderr
    assert "Traceback" not in out + err
    assert "epsilon = 0.3 (inference reruns on the next query)" in out
    assert "model: heuristic  (beta = 2, epsilon = 0.3, weight = 0.2)" in out
    # the posterior under the setting the REPL made is the front's under the same setting
    front = PddlFront(DOMAIN)
    episode = front.episode(PLAN)
    sea = front.run(episode, front.settings("heuristic", 2.0, epsilon=0.3)).goal_posterior(3)["sea"]
    default = front.run(episode, front.settings("heuristic")).goal_posterior(3)["sea"]
    assert f"P = {sea:.3f}" in out and f"{sea:.3f}" != f"{default:.3f}"
    # a setting the user made travels to a model that takes it; the others take their own
    assert "model: lapse  (beta = 4, epsilon = 0.3)" in out and "model: boltzmann  (beta = 1)" in out
    assert "error: :set epsilon: the boltzmann model has no epsilon" in out + err
    assert "heuristic takes epsilon, weight" in out + err and ":model NAME changes the model" in out + err
    assert "did you mean :set gamma?" in out + err
    assert "horizon must be a whole number between 1 and 20, not 0" in out + err
    assert "model: partial-plans  (beta = 2, epsilon = 0.05, weight = 0.2, horizon = 3)" in out


# -- the goal prior ----------------------------------------------------------------------------


def test_a_goal_prior_weighs_the_candidates_as_bayes_rule_says(tmp_path):
    """--goal-prior (and a goals.json "prior") gives the posterior the uniform run's
    posterior reweighted by the prior and renormalized, at every judgment point."""
    import json

    front = PddlFront(DOMAIN)
    uniform = front.run(front.episode(PLAN), front.settings())
    weights = np.array([1.0, 1.0, 3.0, 0.5])        # tea, eat, sea, set
    expected = uniform.posterior * weights
    expected /= expected.sum(axis=1, keepdims=True)
    given = PddlFront(DOMAIN, goal_prior="sea=3,set=0.5")
    weighted = given.run(given.episode(PLAN), given.settings())
    assert np.allclose(weighted.posterior, expected, atol=1e-12)
    # the same weights in a goals.json of the problem's folder
    folder = tmp_path / "ex"
    folder.mkdir()
    for name in ("towers.pddl", "spell.pddl", "spell.plan"):
        (folder / name).write_text((EXAMPLE / name).read_text())
    words = json.loads((EXAMPLE / "goals.json").read_text())
    for goal, w in zip(words["spell"], weights):
        if w != 1:
            goal["prior"] = float(w)
    (folder / "goals.json").write_text(json.dumps(words))
    mine = PddlFront(folder / "towers.pddl")
    assert np.allclose(mine.run(mine.episode(str(folder / "spell.plan")), mine.settings()).posterior, expected)
    # through the command line, in a batch's worker processes too
    result = elot("run", "--domain", DOMAIN, PLAN, "--goal-prior", "sea=3,set=0.5")
    assert result.returncode == 0 and "goal prior tea 1, eat 1, sea 3, set 0.5" in result.stdout.replace("\n", " ")
    table = tmp_path / "table.csv"
    assert elot("batch", "--domain", DOMAIN, PLAN, str(EXAMPLE / "spell.plan"), "--goal-prior", "sea=3,set=0.5",
                "-j", "2", "-o", str(table)).returncode == 0
    rows = [r for r in csv.DictReader(table.open()) if r["statement_id"] == "wants_sea"]
    assert [round(float(r["P"]), 12) for r in rows][:4] == [round(p, 12) for p in expected[list(
        front.episode(PLAN).judged), 2]]


@pytest.mark.parametrize("prior, said", [
    ("sea", "'sea' is not NAME=WEIGHT"),
    ("sea=0", "the weight of sea is '0', not a positive number"),
    ("sea=x", "the weight of sea is 'x', not a positive number"),
    ("sea=inf", "the weight of sea is 'inf', not a positive number"),
    ("sea=1,sea=2", "sea is given twice"),
    ("sae=2", "sae is no candidate goal of spell"),
    ("sea=2,", "'sea=2,' has an empty part"),
    ("=2", "'=2' is not NAME=WEIGHT"),
])
def test_a_malformed_goal_prior_is_refused_by_name(prior, said):
    result = elot("run", "--domain", DOMAIN, PLAN, "--goal-prior", prior)
    assert result.returncode == 2 and f"--goal-prior: {said}" in result.stderr, result.stderr
    assert "hint:" in result.stderr


def test_a_bad_prior_in_goals_json_is_refused_at_its_file(tmp_path):
    import json

    for name in ("towers.pddl", "spell.pddl", "spell.plan"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    words = json.loads((EXAMPLE / "goals.json").read_text())
    words["spell"][1]["prior"] = "two"
    (tmp_path / "goals.json").write_text(json.dumps(words))
    result = elot("run", "--domain", str(tmp_path / "towers.pddl"), str(tmp_path / "spell.plan"))
    assert result.returncode == 2 and "the prior of eat (spell) is 'two', not a positive number" in result.stderr
    assert "goals.json" in result.stderr
    result = elot("run", "--goal-prior", "gem1=2")
    assert result.returncode == 2 and "--goal-prior is not a setting of the doors-keys-gems domain" in result.stderr


# -- elot plan with every model -------------------------------------------------------------------


@pytest.mark.parametrize("model", ["boltzmann", "boltzmann-ff", "lapse", "heuristic", "horizon", "partial-plans",
                                   "goal-noise"])
def test_each_models_agent_acts_by_the_models_own_action_probabilities(model):
    """Where the agent of ``elot plan`` stands after each of its actions, the model's
    likelihoods of the path extended by each applicable action sum to 1 (the model is a
    distribution over what the agent does next, which the simulation draws from); a model
    marked as depending on the state alone gives the same from the state alone."""
    from elot.domains.pddl.agents import MODELS, Tables
    from elot.domains.pddl.simulate import _goal, next_action, walk
    from elot.engine.agents.graph import Path as AgentPath

    front = PddlFront(DOMAIN)
    scene = front.episode(PLAN).detail
    settings = front.settings(model, None, **({"horizon": 3} if model == "partial-plans" else {}))
    values = {"beta": settings.model.beta, **dict(settings.model.params)}
    goal = _goal(scene, "set")
    taken, _ = walk(scene, goal, values["beta"], "boltzmann", 5, 6, model, dict(settings.model.params))
    graph = scene.task.graph
    states, edges = [int(s) for s in scene.tables.path.states], [int(e) for e in scene.tables.path.edges]
    row = scene.goals.index(goal)
    for action in taken:
        s = states[-1]
        raw = [MODELS[model].likelihoods(Tables(scene.task, AgentPath(np.array([*states, int(graph.successors[e])]),
                                                                          np.array([*edges, e]))), values)[-1, row]
               for e in range(graph.indptr[s], graph.indptr[s + 1])]
        assert sum(raw) == pytest.approx(1.0, abs=1e-9)
        full = np.array(raw) / sum(raw)
        assert np.allclose(next_action(MODELS[model], values, scene.task, row, states, edges), full, atol=1e-12)
        e = graph.edge(s, action)
        states.append(int(graph.successors[e]))
        edges.append(int(e))


def test_elot_plan_runs_the_agent_of_the_model_it_is_given(tmp_path):
    out = tmp_path / "partial.plan"
    result = elot("plan", "--domain", DOMAIN, PLAN, "--goal", "set", "--model", "partial-plans", "--param",
                  "horizon=3", "--seed", "2", "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "of the partial-plans agent (β 2, epsilon 0.05, weight 0.2, horizon 3, policy boltzmann, seed 2)" in text
    episode = PddlFront(DOMAIN).episode(str(out))
    assert episode.detail.pursued == "set" and episode.horizon > 4
    # the same seed, the same plan; another model, its own
    again = tmp_path / "again.plan"
    elot("plan", "--domain", DOMAIN, PLAN, "--goal", "set", "--model", "partial-plans", "--param", "horizon=3",
         "--seed", "2", "-o", str(again))
    assert again.read_text() == text
    result = elot("plan", "--domain", DOMAIN, PLAN, "--goal", "set", "--model", "boltzmann", "--param",
                  "epsilon=0.1", "-o", str(tmp_path / "no.plan"))
    assert result.returncode == 2 and "the boltzmann model has no epsilon" in result.stderr
    result = elot("plan", "--domain", DOMAIN, PLAN, "--model", "lapce", "-o", str(tmp_path / "no.plan"))
    assert result.returncode == 2 and "no model 'lapce' (did you mean lapse?)" in result.stderr
    result = elot("plan", "--model", "lapse", "-o", str(tmp_path / "no.scn"))
    assert result.returncode == 2 and "--model is not a setting of the doors-keys-gems domain's simulated agent" \
        in result.stderr


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
                       st.floats(min_value=1e-6, max_value=1e6), min_size=1, max_size=5))
def test_a_goal_prior_reads_back_as_written(weights):
    from elot.domains.pddl.goals import parse_goal_prior

    text = ",".join(f"{name}={w!r}" for name, w in weights.items())
    assert dict(parse_goal_prior(text)) == weights
    assert dict(parse_goal_prior(text.replace(",", " , ").replace("=", " = "))) == weights


def test_a_fit_file_runs_the_model_and_settings_it_was_fitted_for(tmp_path):
    """``--thresholds fit.json`` gives run the file's model, β and settings where --model and
    --param do not: the same numbers as giving them by hand; another --model runs without the
    file's settings (they are the fitted model's); a model the domain lacks is refused naming
    the file."""
    import json

    fit = tmp_path / "fit.json"
    fit.write_text(json.dumps({"thresholds": {}, "beta": 2, "model": "heuristic",
                               "params": {"epsilon": 0.2, "weight": 0.5}}))

    def report(*args):
        result = run_elot("run", "--domain", DOMAIN, PLAN, "-s", "wants(player, set)", "--json", "-", *args)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    from_file = report("--thresholds", str(fit))
    by_hand = report("--model", "heuristic", "--beta", "2", "--param", "epsilon=0.2", "--param", "weight=0.5")
    assert from_file["settings"]["model"] == {"name": "heuristic", "beta": 2.0, "epsilon": 0.2, "weight": 0.5}
    assert from_file["settings"] == by_hand["settings"] and from_file["judgments"] == by_hand["judgments"]
    assert report("--thresholds", str(fit), "--model", "boltzmann")["settings"]["model"] == {"name": "boltzmann",
                                                                                            "beta": 2.0}
    refused = run_elot("run", "--domain", DOMAIN, PLAN, "--thresholds", str(fit), "--model", "nosuch")
    assert refused.returncode == 2 and "--model: the towers domain has no model 'nosuch'" in refused.stderr
    fit.write_text(json.dumps({"thresholds": {}, "model": "nosuch"}))
    refused = run_elot("run", "--domain", DOMAIN, PLAN, "--thresholds", str(fit))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"--thresholds {fit}: its model 'nosuch'" in refused.stderr and "give --model" in refused.stderr
    fit.write_text(json.dumps({"thresholds": {}, "params": ["epsilon", 0.2]}))
    refused = run_elot("run", "--domain", DOMAIN, PLAN, "--thresholds", str(fit))
    assert refused.returncode == 2 and '"params" must map' in refused.stderr
