"""Surveys without a browser: what `elot survey build` writes, the server's checks and
storage, export, and bad input (one clear error each, exit 2, nothing lost). The browser
takes the survey in tests/test_survey_browser.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers import ELOT, NEUTRAL_CWD, run_elot

from elot.study import stimuli
from elot.study.references import ScenarioRef, refs_of
from elot.survey import SurveyError, jspsych
from elot.survey.build import DATABASE, build_survey, load_config, play_once
from elot.survey.design import Settings, make_orders
from elot.survey.server import MAX_BODY, make_server
from elot.survey.store import Store

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = ("empty-box", "yellow-green")


def npm_cache() -> str | None:
    return os.environ.get("ELOT_NPM_CACHE")


@pytest.fixture(scope="module")
def stimulus_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stim") / "set"
    stimuli.make_stimuli([ScenarioRef(n) for n in SCENARIOS], folder, jobs=1, mp4=False, cell_px=24)
    return folder


@pytest.fixture()
def survey(stimulus_set, tmp_path):
    """A survey loading jsPsych from the CDN (no npm needed for what is tested here)."""
    settings = Settings(condition="both", pairs=[], orders=4)
    return build_survey(stimulus_set, tmp_path / "survey", settings, cdn=True).folder


# -- build --------------------------------------------------------------------------------


def test_the_survey_names_scenarios_as_fit_does_and_t_as_fit_counts(survey, stimulus_set):
    config = load_config(survey)
    entries = {e["name"]: e for e in json.loads((stimulus_set / "stimuli.json").read_text())}
    for scenario in config["scenarios"]:
        ref = ScenarioRef(scenario["scenario"])
        loaded = ref.load().detail
        entry = entries[scenario["name"]]
        # stimuli.json counts steps from 1; fit's t is the number of actions: t = times[k] - 1
        assert [s["t"] for s in scenario["segments"]] == [time - 1 for time in entry["times"]]
        assert [s["t"] for s in scenario["segments"] if s["judged"]] == list(loaded.judgments)
        assert scenario["gems"] == len(loaded.layout.gems)
        assert [s["mode"] for s in scenario["statements"]].count("initial") == \
            sum(1 for s in loaded.statements if s.mode == "initial")


def test_the_folder_holds_the_page_the_animations_and_the_gems(survey):
    config = load_config(survey)
    page = (survey / "index.html").read_text()
    assert "experiment.js" in page and "unpkg.com/jspsych@" in page
    script = (survey / "experiment.js").read_text()
    assert "/*SURVEY*/" not in script and f'"id": "{config["id"]}"' in script
    for scenario in config["scenarios"]:
        for segment in scenario["segments"]:
            data = (survey / segment["image"]).read_bytes()
            assert data.startswith(b"GIF89a") and b"NETSCAPE2.0" not in data    # plays once
            assert segment["duration_ms"] > 0 and segment["frames"] >= 1
    for icon in config["gem_icons"]:
        assert (survey / icon).read_bytes().startswith(b"\x89PNG")


def test_a_looping_gif_is_made_to_play_once_and_nothing_else_changes(stimulus_set):
    from PIL import Image

    # elot's stimuli play once by default; a set made with --loop (or elsewhere) loops
    with Image.open(next(stimulus_set.glob("*_2.gif"))) as gif:
        source = stimulus_set.parent / "looping.gif"
        gif.save(source, save_all=True, loop=0)
    data = source.read_bytes()
    once = play_once(data)
    assert b"NETSCAPE2.0" in data and b"NETSCAPE2.0" not in once and len(data) - len(once) == 19
    out = source.parent.parent / "once.gif"
    out.write_bytes(once)
    with Image.open(source) as a, Image.open(out) as b:
        assert a.n_frames == b.n_frames and "loop" not in b.info
        for n in range(a.n_frames):
            a.seek(n)
            b.seek(n)
            assert (np.asarray(a.convert("RGB")) == np.asarray(b.convert("RGB"))).all()


def test_orders_keep_pairs_apart_balance_them_and_alternate_conditions():
    scenarios = [{"name": n, "statements": [{"text": f"{n}{i}", "mode": m} for i, m in
                                            enumerate(["current"] * 4 + ["initial"] * 2)]} for n in "abcdef"]
    settings = Settings(condition="both", pairs=[["a", "b"], ["c", "d"]], controls=["f"], orders=8,
                        statements_per_point=2)
    orders = make_orders(scenarios, settings)
    assert [o["condition"] for o in orders[:4]] == ["current", "initial", "current", "initial"]
    shown = {n: 0 for n in "abcde"}
    for order in orders:
        names = [t["scenario"] for t in order["trials"]]
        assert not {"a", "b"} <= set(names) and not {"c", "d"} <= set(names)
        assert names.count("f") == 1 and names.index("f") <= 3 and order["trials"][names.index("f")]["control"]
        for trial in order["trials"]:
            modes = {scenarios["abcdef".index(trial["scenario"])]["statements"][i]["mode"] for i in trial["statements"]}
            assert modes == {order["condition"]} and len(trial["statements"]) == 2
            if trial["scenario"] != "f":
                shown[trial["scenario"]] += 1
    assert shown["a"] == shown["b"] and shown["c"] == shown["d"]


@pytest.mark.parametrize("settings, message", [
    (Settings(pairs=[["empty-box", "nowhere"]]), "'nowhere', which is not in the stimulus set"),
    (Settings(pairs=[["empty-box", "empty-box"]]), "names one scenario twice"),
    (Settings(controls=["yellow-green"], pairs=[["yellow-green", "empty-box"]]), "also in a pair"),
    (Settings(scenarios_per_participant=3), "3 scenarios per participant, but the pairs leave 2"),
    (Settings(condition="later"), "condition 'later'"),
    (Settings(controls=["yellow-green", "empty-box"]), "no scenario is left to ask"),
    (Settings(completion_url="javascript:alert(1)"), "is not a web address"),
    (Settings(contact="javascript:alert(1)"), "neither an e-mail address nor a web address"),
    (Settings(contact="<b>me</b>@example.org"), "neither an e-mail address nor a web address"),
    (Settings(contact="https://example.org/\"onclick=\"x"), "neither an e-mail address nor a web address"),
    (Settings(contact="the lab"), "neither an e-mail address nor a web address"),
    (Settings(contact=7), "contact must be text"),
])
def test_settings_that_cannot_make_orders_are_refused(stimulus_set, tmp_path, settings, message):
    with pytest.raises(SurveyError, match=message.replace("(", r"\(")):
        build_survey(stimulus_set, tmp_path / "s", settings, cdn=True)
    assert not (tmp_path / "s").exists()


def test_cli_build_copies_jspsych_from_the_npm_cache(stimulus_set, tmp_path):
    if shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail("npm is missing in CI: .ci/run installs it")
        pytest.skip("npm is not installed")
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"statements_per_point": 1, "completion_url": "https://example.org/done?cc=X"}))
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--scenarios",
                    *SCENARIOS, "--settings", str(settings), "--orders", "3", timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"wrote a survey of 2 scenarios (3 orders, current) to {tmp_path / 'survey'}"
    # the built-in scenarios' statements are ELoT: participants read them in English
    assert lines[1].startswith("note: 13 statements are ELoT formulas, shown to participants in generated English (e.g. ")
    assert lines[2].startswith("note: no contact for participants: ")
    for name, version in jspsych.PACKAGES.items():
        assert (tmp_path / "survey" / jspsych.FILES[name]).stat().st_size > 1000
    assert f"lib/jspsych.js" in (tmp_path / "survey" / "index.html").read_text()
    config = load_config(tmp_path / "survey")
    assert config["settings"]["completion_url"] == "https://example.org/done?cc=X"
    assert all(len(t["statements"]) == 1 for o in config["orders"] for t in o["trials"])


def test_build_keeps_the_contact_shows_it_and_refuses_one_participants_cannot_use(stimulus_set, tmp_path):
    """Issue 34: the page's messages read a contact the settings could not hold. build
    --contact keeps it in survey.json (checked: an e-mail address or a web address), says
    so, and the page script holds it as JSON a browser cannot read as markup."""
    contact = "https://example.org/help?study=maze&lang=en"
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--cdn", "--contact",
                    contact)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (f"participants are asked to contact {contact} in the consent and when "
                                            "their answers cannot reach the study server")
    assert load_config(tmp_path / "survey")["settings"]["contact"] == contact
    assert contact.replace("&", "\\u0026") in (tmp_path / "survey" / "experiment.js").read_text()
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"contact": "lab@example.org"}))
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "other"), "--cdn", "--settings",
                    str(settings))
    assert done.returncode == 0 and load_config(tmp_path / "other")["settings"]["contact"] == "lab@example.org"
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "bad"), "--cdn", "--contact",
                    "<script>alert(1)</script>")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the contact '<script>alert(1)</script>' is neither an e-mail address nor a web address" in done.stderr
    assert "--contact" in done.stderr and not (tmp_path / "bad").exists()


FAKE_NPM = """#!/bin/sh
# npm install ... --prefix ROOT SPEC...: write the packages slowly, counting the installs
while [ "$1" != "--prefix" ]; do shift; done
root="$2"; shift 2
echo x >> "$NPM_LOG"
mkdir -p "$root/node_modules/jspsych/css"
for spec in "$@"; do
  name="${spec%@*}"; version="${spec##*@}"
  mkdir -p "$root/node_modules/$name/dist"
  printf '{"version": "%s"}' "$version" > "$root/node_modules/$name/package.json"
  sleep 0.2
  printf 'window.x = 1;' > "$root/node_modules/$name/dist/index.browser.min.js"
done
printf 'body {}' > "$root/node_modules/jspsych/css/jspsych.css"
"""

_INSTALL = "import sys; from elot.survey import jspsych; print(jspsych.install(sys.argv[1]))"


def test_builds_at_once_share_the_npm_cache_one_installs_the_others_wait(tmp_path):
    """Two builds (two terminals, two test workers) installing jsPsych into one cache at
    the same time: npm runs once, and neither reads the folder while npm writes it."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "npm").write_text(FAKE_NPM)
    (bin_ / "npm").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "NPM_LOG": str(tmp_path / "log")}
    runs = [subprocess.Popen([sys.executable, "-c", _INSTALL, str(tmp_path / "cache")], env=env, cwd=NEUTRAL_CWD,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [run.communicate(timeout=60) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], [err for _, err in done]
    assert len({out for out, _ in done}) == 1
    assert (tmp_path / "log").read_text() == "x\n"       # npm ran once
    survey = tmp_path / "survey"
    jspsych.copy_into(Path(done[0][0].strip()), survey)
    assert all((survey / target).read_text() == "window.x = 1;" for target in jspsych.FILES.values())


def test_jspsych_never_enters_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
    assert not [f for f in tracked if "node_modules" in f or Path(f).name in ("jspsych.js", "jspsych.css")
                or Path(f).name.startswith(("jspsych.", "plugin-")) and Path(f).suffix in (".js", ".css")]


# -- bad input to build -------------------------------------------------------------------


def test_a_folder_that_is_not_a_stimulus_set_is_refused(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    done = run_elot("survey", "build", str(tmp_path / "notes"), "-o", str(tmp_path / "survey"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {tmp_path / 'notes'} is not a stimulus set: it has no stimuli.json")
    assert "Traceback" not in done.stderr and not (tmp_path / "survey").exists()
    (tmp_path / "notes" / "stimuli.json").write_text('[{"name": "x"}]')
    done = run_elot("survey", "build", str(tmp_path / "notes"), "-o", str(tmp_path / "survey"))
    assert done.returncode == 2 and "is not a stimulus set elot can use: scenario x: no 'goal'" in done.stderr


def test_a_stimulus_whose_scenario_cannot_be_found_is_refused(stimulus_set, tmp_path):
    odd = tmp_path / "odd"
    shutil.copytree(stimulus_set, odd)
    entries = json.loads((odd / "stimuli.json").read_text())
    for entry in entries:      # the paper's schema: no scenario field to go by
        entry["name"] = "renamed-" + entry["name"]
        del entry["scenario"]
    (odd / "stimuli.json").write_text(json.dumps(entries))
    done = run_elot("survey", "build", str(odd), "-o", str(tmp_path / "survey"), "--cdn")
    assert done.returncode == 2 and "cannot tell which scenario the stimulus 'renamed-empty-box' shows" in done.stderr
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(tmp_path / "survey"), "--cdn",
                    "--scenarios", "two-doors", "empty-box")
    assert done.returncode == 2 and "cannot tell which scenario the stimulus 'yellow-green' shows" in done.stderr


def test_a_survey_holding_answers_is_never_rebuilt_over(survey, stimulus_set):
    (survey / DATABASE).write_bytes(b"answers")
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(survey), "--cdn")
    assert done.returncode == 2 and "holds answers (responses.sqlite); not replacing it" in done.stderr
    assert (survey / DATABASE).read_bytes() == b"answers"
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(survey), "--cdn", "--force")
    assert done.returncode == 2 and "not even with --force" in done.stderr
    assert (survey / DATABASE).read_bytes() == b"answers"


def test_a_hand_edited_page_is_kept_without_force_and_replaced_with_it(survey, stimulus_set):
    script = survey / "experiment.js"
    edited = script.read_text().replace("TEXT", "TEXT /* our wording */", 1)
    script.write_text(edited)
    (survey / "notes.md").write_text("pilot on Monday")
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(survey), "--cdn")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "experiment.js (changed since elot wrote it)" in done.stderr and "--force" in done.stderr
    assert script.read_text() == edited and (survey / "notes.md").read_text() == "pilot on Monday"
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(survey), "--cdn", "--force")
    assert done.returncode == 0, done.stderr
    assert "our wording" not in script.read_text() and load_config(survey)["kind"] == "elot survey"
    assert (survey / "notes.md").read_text() == "pilot on Monday"      # never elot's: kept, --force or not
    assert sorted(p.name for p in survey.parent.iterdir()) == ["survey"]
    done = run_elot("survey", "build", str(stimulus_set), "-o", str(stimulus_set), "--cdn", "--force")
    assert done.returncode == 2 and "it is the stimulus set the survey is built from" in done.stderr


def test_answers_arriving_during_the_build_stop_the_swap(survey, stimulus_set, monkeypatch):
    from elot.survey import build

    before = {p.relative_to(survey): p.read_bytes() for p in survey.rglob("*") if p.is_file()}
    real = build.gem_icon

    def gem_icon(index, path, size_px=64):      # a participant answers while the survey is rebuilt
        (survey / DATABASE).write_bytes(b"a participant's answers")
        real(index, path, size_px)

    monkeypatch.setattr(build, "gem_icon", gem_icon)
    with pytest.raises(SurveyError, match=r"holds answers \(responses.sqlite\)"):
        build_survey(stimulus_set, survey, Settings(condition="current", pairs=[], orders=2), cdn=True, force=True)
    after = {p.relative_to(survey): p.read_bytes() for p in survey.rglob("*") if p.is_file()}
    assert after.pop(Path(DATABASE)) == b"a participant's answers" and after == before
    assert sorted(p.name for p in survey.parent.iterdir()) == ["survey"]        # no temporary left


# -- the server ---------------------------------------------------------------------------


@pytest.fixture()
def served(survey):
    server = make_server(survey, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    server.store.close()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def post(url, value, *, raw: bytes | None = None, content_type="application/json"):
    data = raw if raw is not None else json.dumps(value).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def judgment(config, order, position=1):
    """A well-formed judgment of the order's ``position``-th scenario at its first point."""
    trial = config["orders"][order]["trials"][position - 1]
    scenario = next(s for s in config["scenarios"] if s["name"] == trial["scenario"])
    k = next(k for k, s in enumerate(scenario["segments"]) if s["judged"])
    step = f"s{position}-{k}"
    return step, {"elot_step": step, "elot_kind": "judgment", "elot_scenario": scenario["name"],
                  "elot_t": scenario["segments"][k]["t"], "elot_statements": trial["statements"],
                  "elot_goals": [1], "elot_ratings": [5] * len(trial["statements"])}


def test_the_server_listens_on_localhost_by_default(survey):
    server = make_server(survey, port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
        server.store.close()


def test_only_the_survey_files_are_served_never_the_database(served, survey):
    server, url = served
    assert get(url)[0] == 200 and get(url + "experiment.js")[0] == 200
    (survey.parent / "secret.txt").write_text("outside")
    for path in ["responses.sqlite", "responses.sqlite-wal", "responses.sqlite.lock", "survey.json",
                 "../secret.txt", "%2e%2e/secret.txt", "..%2fsecret.txt", "stimuli/../../secret.txt",
                 "/etc/passwd", "%2fetc%2fpasswd", "stimuli/", "."]:
        status, body = get(url + path)
        assert status == 404, path
        assert b"outside" not in body and b"SQLite" not in body


def test_participants_get_balanced_orders_and_a_returning_one_resumes(served):
    server, url = served
    config = server.config
    orders, sessions = [], []
    count = len(config["orders"])            # 4 orders of each condition, alternating
    for n in range(2 * count):
        status, reply = post(url + "api/start", {"survey": config["id"], "prolific_pid": f"P{n}"})
        assert status == 200 and reply["participant"] == f"P{n}" and not reply["duplicate"]
        orders.append(reply["order"])
        sessions.append(reply)
    assert orders == list(range(count)) * 2   # each arrival takes the order fewest have started
    first = sessions[0]
    step, data = judgment(config, first["order"])
    assert post(url + "api/trial", {"survey": config["id"], "token": first["token"], "step": step, "data": data})[0] \
        == 200
    status, again = post(url + "api/start", {"survey": config["id"], "prolific_pid": "P0", "token": first["token"]})
    assert again["token"] == first["token"] and again["order"] == orders[0] and step in again["done"]
    status, by_token = post(url + "api/start", {"survey": config["id"], "token": first["token"]})
    assert by_token["participant"] == "P0" and step in by_token["done"]
    # the PROLIFIC_PID alone (another browser) is not the session: a new one, flagged as a duplicate
    status, other = post(url + "api/start", {"survey": config["id"], "prolific_pid": "P0"})
    assert status == 200 and other["token"] != first["token"] and other["done"] == {} and other["duplicate"]
    assert other["participant"] != "P0"


def test_only_well_formed_trials_of_this_survey_are_stored(served):
    server, url = served
    config = server.config
    _, session = post(url + "api/start", {"survey": config["id"]})
    token = session["token"]
    step, good = judgment(config, session["order"])
    bad = [
        ({"survey": "another", "token": token, "step": step, "data": good}, 400),
        ({"survey": config["id"], "token": "nobody", "step": step, "data": good}, 403),
        ({"survey": config["id"], "token": token, "step": "s99-1", "data": good}, 400),
        ({"survey": config["id"], "token": token, "step": step, "data": {**good, "elot_ratings": [9, 9][:len(
            good["elot_ratings"])]}}, 400),
        ({"survey": config["id"], "token": token, "step": step, "data": {**good, "elot_goals": []}}, 400),
        ({"survey": config["id"], "token": token, "step": step, "data": {**good, "elot_goals": [7]}}, 400),
        ({"survey": config["id"], "token": token, "step": step, "data": {**good, "elot_t": good["elot_t"] + 1}}, 400),
        ({"survey": config["id"], "token": token, "step": step, "data": "text"}, 400),
        ({"survey": config["id"], "token": ["x"], "step": step, "data": good}, 400),
    ]
    for body, status in bad:
        assert post(url + "api/trial", body)[0] == status, body
    huge = {"survey": config["id"], "token": token, "step": step, "data": {**good, "pad": "x" * MAX_BODY}}
    assert post(url + "api/trial", huge)[0] == 413
    assert post(url + "api/trial", None, raw=b"{not json", content_type="application/json")[0] == 400
    assert post(url + "api/trial", None, raw=json.dumps({}).encode(), content_type="text/plain")[0] == 415
    assert server.store.db.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 0
    body = {"survey": config["id"], "token": token, "step": step, "data": good}
    assert post(url + "api/trial", body)[0] == 200
    # a resent trial changes nothing: the first copy is kept
    assert post(url + "api/trial", {**body, "data": {**good, "elot_ratings": [1] * len(good["elot_ratings"])}})[0] == 200
    rows = server.store.db.execute("SELECT data FROM trials").fetchall()
    assert len(rows) == 1 and json.loads(rows[0][0])["elot_ratings"] == good["elot_ratings"]


def test_sql_in_what_participants_send_is_data_not_sql(served):
    server, url = served
    config = server.config
    sneaky = "x'); DROP TABLE trials; --"
    status, session = post(url + "api/start", {"survey": config["id"], "prolific_pid": sneaky})
    assert status == 200 and session["participant"] == sneaky
    assert post(url + "api/start", {"survey": config["id"], "token": "' OR '1'='1"})[1]["participant"] != sneaky
    tables = {r[0] for r in server.store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"trials", "participants", "meta"} <= tables


# -- bad input to serve -------------------------------------------------------------------


def _serve(survey, *args, env=None):
    return subprocess.Popen([*ELOT, "survey", "serve", str(survey), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=NEUTRAL_CWD, env=env)


def _wait_serving(process) -> int:
    line = process.stderr.readline()
    assert line.startswith("serving "), line + process.stderr.read()
    return int(line.split("http://127.0.0.1:")[1].split("/")[0])


def test_a_port_in_use_is_refused(survey):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_elot("survey", "serve", str(survey), "--port", str(port), timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"error: port {port} on 127.0.0.1 is in use\nhint: give another --port (or stop what " \
                          "uses it)\n"


def test_two_servers_on_one_database_and_a_database_of_another_survey_are_refused(survey, stimulus_set, tmp_path):
    first = _serve(survey, "--port", "0")
    try:
        _wait_serving(first)
        done = run_elot("survey", "serve", str(survey), "--port", "0", timeout=60)
        assert done.returncode == 2 and done.stderr.startswith(f"error: another server is using {survey / DATABASE}")
    finally:
        first.terminate()
        assert first.wait(timeout=30) == 0
    # served to nobody: no database is left behind, so the survey can be rebuilt as it was built
    assert not [p.name for p in survey.iterdir() if p.name.startswith(DATABASE)]
    store = Store(survey / DATABASE, load_config(survey)["id"])
    store.start(token=None, prolific_pid="K", study_id="", session_id="", orders=1)
    store.close(drop_empty=True)   # a participant came: kept
    assert (survey / DATABASE).is_file()
    other = build_survey(stimulus_set, tmp_path / "other", Settings(title="Another"), cdn=True).folder
    done = run_elot("survey", "serve", str(other), "--port", "0", "--db", str(survey / DATABASE), timeout=60)
    assert done.returncode == 2 and "holds the answers of another survey" in done.stderr
    assert sqlite3.connect(survey / DATABASE).execute("SELECT value FROM meta WHERE key = 'survey'").fetchone()[0] \
        == load_config(survey)["id"]
    (tmp_path / "junk.sqlite").write_text("not a database at all, but some notes")
    done = run_elot("survey", "serve", str(other), "--port", "0", "--db", str(tmp_path / "junk.sqlite"), timeout=60)
    assert done.returncode == 2 and "is not a survey's database" in done.stderr
    assert (tmp_path / "junk.sqlite").read_text() == "not a database at all, but some notes"


def test_a_store_keeps_what_was_committed_when_its_process_is_killed(survey, tmp_path):
    """A killed server loses no answer already stored (each trial is its own commit)."""
    config = load_config(survey)
    code = (f"import sys, json\nfrom elot.survey.store import Store\n"
            f"s = Store({str(tmp_path / 'a.sqlite')!r}, {config['id']!r})\n"
            f"p = s.start(token=None, prolific_pid='K', study_id='', session_id='', orders=1)\n"
            f"s.add_trial(p['id'], 'consent', {{'elot_step': 'consent'}}, last=False)\n"
            f"print('stored', p['token'], flush=True)\nimport time; time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO)
    said, token = process.stdout.readline().split()
    assert said == "stored"
    process.kill()
    process.wait()
    store = Store(tmp_path / "a.sqlite", config["id"])     # the lock went with the process
    try:
        assert store.start(token=token, prolific_pid="K", study_id="", session_id="", orders=1)["done"] == \
            {"consent": {}}
    finally:
        store.close()


# -- export -------------------------------------------------------------------------------


def test_export_writes_a_static_site_without_the_database(survey, tmp_path):
    (survey / DATABASE).write_bytes(b"answers")
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "site.zip"))
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(tmp_path / "site.zip") as archive:
        names = set(archive.namelist())
        assert {"index.html", "experiment.js", "survey.json"} <= names
        assert not [n for n in names if "sqlite" in n]
        assert b'jatos.js' not in archive.read("index.html")
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "site"))
    assert done.returncode == 0 and (tmp_path / "site" / "index.html").is_file()
    assert not list((tmp_path / "site").rglob("*sqlite*"))
    done = run_elot("survey", "export", str(survey), "-o", str(tmp_path / "site"))   # its own export: replaced
    assert done.returncode == 0, done.stderr


def test_export_never_replaces_what_it_did_not_write_without_force(survey, tmp_path):
    mine = tmp_path / "mine.zip"
    mine.write_text("my notes, not an archive")
    done = run_elot("survey", "export", str(survey), "-o", str(mine))
    assert done.returncode == 2 and "does not look like a file elot wrote" in done.stderr
    assert mine.read_text() == "my notes, not an archive"
    done = run_elot("survey", "export", str(survey), "-o", str(mine), "--force")
    assert done.returncode == 0, done.stderr
    assert "index.html" in zipfile.ZipFile(mine).namelist()
    done = run_elot("survey", "export", str(survey), "-o", str(mine))   # now elot's own: replaced
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("my own page")
    done = run_elot("survey", "export", str(survey), "-o", str(site))
    assert done.returncode == 2 and (site / "index.html").read_text() == "my own page"
    (site / "index.html").unlink()
    (site / "notes.txt").write_text("kept")
    done = run_elot("survey", "export", str(survey), "-o", str(site))
    assert done.returncode == 2, "a folder elot did not write needs --force"
    done = run_elot("survey", "export", str(survey), "-o", str(site), "--force")
    assert done.returncode == 0, done.stderr
    assert (site / "notes.txt").read_text() == "kept" and (site / "index.html").is_file()
    (site / "experiment.js").write_text("// edited by hand")
    done = run_elot("survey", "export", str(survey), "-o", str(site))
    assert done.returncode == 2 and (site / "experiment.js").read_text() == "// edited by hand"


def test_serving_or_importing_a_folder_that_is_not_a_survey_is_refused(stimulus_set, survey, tmp_path):
    done = run_elot("survey", "serve", str(stimulus_set), "--port", "0", timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {stimulus_set} is not a survey: it has no survey.json")
    done = run_elot("survey", "import", str(survey), "-o", str(tmp_path / "r.csv"))
    assert done.returncode == 2 and f"error: {survey} holds no answers (responses.sqlite)" in done.stderr
    done = run_elot("survey", "import", str(tmp_path / "answers.json"), "-o", str(tmp_path / "r.csv"))
    assert done.returncode == 2 and "which survey are these answers to?" in done.stderr


@pytest.mark.dataset
def test_a_dataset_stimulus_set_needs_no_scenarios_named(labtom, tmp_path):
    """Plan ids are found by their names (a set without its scenario field, as the paper's
    schema has none): the survey names them as batch does."""
    stimuli.make_stimuli(refs_of(["1_1"], data=str(labtom), exp="exp2_current"), tmp_path / "set",
                         jobs=1, mp4=False, cell_px=16)
    listed = tmp_path / "set" / "stimuli.json"
    entries = json.loads(listed.read_text())
    for entry in entries:
        del entry["scenario"]
    listed.write_text(json.dumps(entries))
    done = run_elot("survey", "build", str(tmp_path / "set"), "-o", str(tmp_path / "survey"), "--cdn",
                    "--labtom", str(labtom), "--exp", "exp3")
    assert done.returncode == 2 and "cannot tell which scenario the stimulus '1_1' shows" in done.stderr
    assert "note: unknown dataset experiment 'exp3'" in done.stderr   # the reason, which is the fix
    done = run_elot("survey", "build", str(tmp_path / "set"), "-o", str(tmp_path / "survey"), "--cdn",
                    "--labtom", str(labtom))
    assert done.returncode == 0, done.stderr
    scenario = load_config(tmp_path / "survey")["scenarios"][0]
    assert scenario["name"] == "1_1" and scenario["scenario"] == "exp2_current/1_1"
    assert scenario["gems"] == 4 and {s["mode"] for s in scenario["statements"]} == {"current"}


def test_stimuli_with_chosen_statements_say_each_ones_mode_and_the_scenario(tmp_path):
    """`elot stimuli --statements FILE` (the ones chosen with design): stimuli.json gives
    each statement's mode and the scenario as batch and fit name it, and the survey takes
    both from there (no --scenarios)."""
    chosen = tmp_path / "chosen.txt"
    chosen.write_text("# chosen with elot design\nbelieves(player, formula(empty(box2)))\n"
                      "initial: The player initially believed that box 2 was empty.\n"
                      "believes(player, might(exists(key(K), inside(K, box2))))\n")
    done = run_elot("stimuli", "empty-box", "-o", str(tmp_path / "set"), "--no-mp4", "--cell", "16",
                    "--statements", str(chosen))
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads((tmp_path / "set" / "stimuli.json").read_text())
    assert entry["statements"] == ["believes(player, formula(empty(box2)))",
                                   "The player initially believed that box 2 was empty.",
                                   "believes(player, might(exists(key(K), inside(K, box2))))"]
    assert entry["modes"] == ["current", "initial", "current"] and entry["scenario"] == "empty-box"
    assert not stimuli.check_stimuli([entry], tmp_path / "set")
    done = run_elot("survey", "build", str(tmp_path / "set"), "-o", str(tmp_path / "survey"), "--cdn",
                    "--condition", "both", "--orders", "2")
    assert done.returncode == 0, done.stderr
    config = load_config(tmp_path / "survey")
    assert [s["mode"] for s in config["scenarios"][0]["statements"]] == ["current", "initial", "current"]
    assert [t["statements"] for o in config["orders"] for t in o["trials"]][:2] == [[0, 2], [1]]
    # participants read ELoT in English; the formula stays the statement import gives fit
    first, second, third = config["scenarios"][0]["statements"]
    assert first == {"text": "believes(player, formula(empty(box2)))", "mode": "current",
                     "shown": "The player believes that box 2 is empty."}
    assert "shown" not in second and third["shown"] == "The player thinks that box 2 might have a key."
