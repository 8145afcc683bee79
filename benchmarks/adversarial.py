"""An adversarial pass over the commands of issue #24 (generate, plan, stimuli, storyboard,
design, batch, fit, run with particles, the REPL's :set): N cases of mutated arguments and
files through the real ``elot`` entry point, each in its own process under a memory limit
(``RLIMIT_AS``) and a time limit.

It counts:

* ``cases`` run;
* ``tracebacks``: a Python traceback on stderr, or an exit status other than 0, 1, 2 or
  130 (a crash) — must be 0;
* ``data_loss``: a file or folder that existed before the command (hand-written, not
  elot's) and was changed or removed, with no ``--force`` given — must be 0;
* ``refusals_with_estimates``: refusals that give a size or time figure (GiB, hours,
  initial states, ...);
* ``timeouts``: cases still running at the time limit (a hang, or work never refused).

With ``--survey N``, also N hostile cases against the study server and ``survey import``
(issue 44; ``survey_attacks.py``: escape codes in participants' ids, malformed trials,
databases whose views never end, zip bombs, a refused ``serve --db``, sessions of one
PROLIFIC_PID), each in its own process under the same limits, counted the same way and
also for ``raw_escapes`` (a character a terminal acts on printed raw), ``wrong`` (a
result or a refusal other than the case's: a hostile input accepted, the wrong session of
a PROLIFIC_PID kept, a malformed value not named) and ``slow`` (a hostile database or
archive refused after more than 10 s, start-up included) — all must be 0; then the server itself
attacked in this process (``server``: malformed trials answered 5xx, a participant locked
out while one client holds hundreds of connections, new sessions past the per-client limit
not refused, a raw control character in its log — all must be 0).

Usage::

    python benchmarks/adversarial.py [--cases N] [--seed S] [--jobs J] [--memory MB] [--timeout S] [--survey N]

Prints one JSON object with the counts and the first failing cases. Not a timed test:
the numbers go in the issue's notes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "elot" / "scenarios"
ELOT = [sys.executable, "-m", "elot"]

#: Values that have broken options before: out of range, past 32 or 53 bits, not numbers.
NUMBERS = ["0", "-1", "1", "2", "1.5", "1e308", "-1e308", "nan", "inf", "2147483648", "9007199254740993",
           "100000", "3000", "32", "x", "", "0x10", "1_000", "٣"]
STATEMENT = "believes(player, formula(empty(box1)))"
HAND_WRITTEN = "name: mine\n\nmap:\n  W.g.W\n  ..a..\n  W...W\n\nstatements:\n  " + STATEMENT + "\n"


def _files(folder: Path) -> dict[str, Path]:
    """Inputs a user might give by mistake, or on purpose."""
    made = {
        "empty": "", "blank": " \n" * 10, "cr": "scenario,mode,t,statement,rating\rdefault,current,1,x,3\r",
        "binary": b"\x00\xff\xfe" * 100, "junk": "not, a, table\n\"unclosed\n",
        "statements": STATEMENT + "\nbelieves(player, might(empty(box2)))\n",
        "hand.scn": HAND_WRITTEN,
    }
    paths = {}
    for name, content in made.items():
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        paths[name] = path
    # issue 44's engine cases: a food-truck path of 100,000 steps, and domain files whose
    # belief rows, utilities or world atoms are wrong
    (folder / "long.trucks").write_text("scenario long\nmap 1\nspot2 empty\nstart 1 1\nmoves "
                                        + " ".join(["stay"] * 100_000) + "\n")
    paths["long.trucks"] = folder / "long.trucks"
    shop = (REPO / "examples" / "domains" / "coffee_shop.py").read_text()
    for name, old, new in (("beliefs", "[0.5, 0.5]", "[0.5, 0.4]"),
                           ("utilities", "levels = (0.0, 10.0, 20.0)", "levels = (0.0, 10.0, 1e308)"),
                           ("atoms", 'return frozenset({("open", "machine")}', 'return 5 or frozenset({("open", "machine")}')):
        (folder / f"shop_{name}.py").write_text(shop.replace(old, new))
        paths[f"shop_{name}.py"] = folder / f"shop_{name}.py"
    (folder / "dir").mkdir(exist_ok=True)
    paths["dir"] = folder / "dir"
    paths["missing"] = folder / "missing"
    paths["zero"] = Path("/dev/zero")
    return paths


def _targets(folder: Path, n: int) -> dict[str, Path]:
    """Outputs that already exist and are not elot's: a hand-written file, a folder with a
    file in it, a link to a file: none may change without --force."""
    hand = folder / f"out{n}.scn"
    hand.write_text(HAND_WRITTEN)
    full = folder / f"set{n}"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    target = folder / f"target{n}.txt"
    target.write_text("pointed at")
    link = folder / f"link{n}"
    link.symlink_to(target)
    return {"file": hand, "folder": full, "link": link}


def _snapshot(paths) -> dict[str, str]:
    out = {}
    for path in paths:
        path = Path(path)
        if path.is_symlink():
            out[str(path)] = "link:" + os.readlink(path) + ":" + (path.resolve().read_text()
                                                                 if path.resolve().is_file() else "")
        elif path.is_dir():
            out[str(path)] = "dir:" + json.dumps(sorted((p.name, p.read_bytes().hex()) for p in path.iterdir()
                                                        if p.is_file()))
        elif path.exists():
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[str(path)] = "absent"
    return out


def _case(rng: random.Random, files: dict[str, Path], targets: dict[str, Path]) -> tuple[list[str], str | None]:
    """One mutated command line, and the REPL input when it is a REPL case."""
    num = lambda: rng.choice(NUMBERS)                                         # noqa: E731
    scn = lambda: str(rng.choice([*(SCENARIOS / f"{n}.scn" for n in ("default", "two-doors")),  # noqa: E731
                                  "default", files["hand.scn"], files["empty"], files["dir"], files["binary"],
                                  files["missing"], files["zero"]]))
    # half the cases write somewhere new, so that they get past the output checks to the work
    fresh = str(targets["file"].parent / "new" / "out")
    out_file = str(rng.choice([targets["file"], targets["link"], targets["folder"], fresh + ".scn", fresh + ".csv",
                               fresh + ".txt"]))
    out_dir = str(rng.choice([targets["folder"], targets["link"], targets["file"], fresh, fresh, fresh]))
    any_file = lambda: str(rng.choice(list(files.values())))                   # noqa: E731
    kind = rng.choice(["generate", "plan", "stimuli", "storyboard", "design", "batch", "fit", "run", "repl",
                       "trucks", "domain"])
    trucks = str(REPO / "examples" / "domains" / "check-empty.trucks")
    if kind == "trucks":      # issue 44: particles counted from N, long paths, utilities past the float range
        argv = rng.choice([["run", trucks, "--inference", "smc", "--particles", num(), "--seed", "1"],
                           ["batch", trucks, "--statement", "initial: The student believes that spot 2 is empty.",
                            "--inference", "smc", "--particles", num(), "-o", out_file],
                           ["run", str(files["long.trucks"]), "--max-memory", "1G",
                            *rng.choice([[], ["--inference", "smc"]])],
                           ["plan", str(REPO / "examples" / "domains" / "lunch.trucks"), "--utilities",
                            f"korean={num()},lebanese=1,mexican=1", "--belief", "uniform", "-o", fresh + ".trucks"]])
        return argv, None
    if kind == "domain":      # issue 44: a domain's mistakes named
        domain = str(files[rng.choice(["shop_beliefs.py", "shop_utilities.py", "shop_atoms.py"])])
        peek = str(REPO / "examples" / "domains" / "coffee_peek.json")
        return ["run", "--domain", domain, peek, *rng.choice([[], ["--inference", "smc", "--particles", num()]])], None
    if kind == "generate":
        argv = ["generate", *rng.choice([["--boxes", num()], ["--doors", num()], ["--gems", num()],
                                         ["--colours", num()], ["--hidden", num()], ["--seed", num()],
                                         ["--walls", num()], ["--steps", num()]]), "-o", out_file]
    elif kind == "plan":
        argv = ["plan", scn(), *rng.choice([["--seed", num()], ["--points", num()], ["--judge", num()],
                                            ["--max-steps", num()], ["--beta", num()]]), "-o", out_file]
    elif kind == "stimuli":
        argv = ["stimuli", scn(), *rng.choice([["--cell", num()], ["--jobs", num()], []]), "--no-mp4", "-o", out_dir]
    elif kind == "storyboard":
        argv = ["storyboard", scn(), *rng.choice([["--ratings", any_file()], ["--beta", num()], []]),
                "-o", out_file + ".png"]
    elif kind == "design":
        argv = ["design", scn(), "--statements", rng.choice([str(files["statements"]), any_file()]),
                *rng.choice([["--ablations", rng.choice(["full", "x", "", "true-belief,true-belief"])],
                             ["--beta", num()], []])]
    elif kind == "batch":
        argv = ["batch", scn(), "--statement", STATEMENT, "--model", "full",
                *rng.choice([["--k", num()], ["--beta", num()], ["--jobs", num()], ["--seed", num()],
                             ["--inference", "smc", "--particles", num()], ["--inference", "smc", "--k", num()]]),
                "-o", out_file]
    elif kind == "fit":
        argv = ["fit", any_file(), *rng.choice([["--beta", num()], ["--samples", num()], ["--k", num()], []]),
                *rng.choice([["-o", out_file], []])]
    elif kind == "run":
        argv = ["run", scn(), "--inference", "smc",
                *rng.choice([["--particles", num()], ["--k", num()], ["--seed", num()], ["--beta", num()]])]
    else:
        lines = [f":set {rng.choice(['k', 'beta', 'particles', 'seed', 'inference', 'model', 't'])} {num()}"
                 for _ in range(3)]
        return ["repl", scn()], "\n".join([*lines, ":goals", F":score {STATEMENT}"]) + "\n"
    return argv, None


ESTIMATE_WORDS = ("GiB", "MiB", " hours", "initial states", "would need about", "would run about")


def run(cases: int, seed: int, jobs: int, memory_mb: int, timeout: float) -> dict:
    rng = random.Random(seed)
    counts = {"cases": 0, "tracebacks": 0, "data_loss": 0, "refusals_with_estimates": 0, "timeouts": 0,
              "exit_0": 0, "exit_2": 0}
    failures: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="elot-adversarial-") as root:
        root = Path(root)
        files = _files(root)
        plans = []
        for n in range(cases):
            folder = root / f"case{n}"
            folder.mkdir()
            targets = _targets(folder, n)
            argv, stdin = _case(rng, files, targets)
            plans.append((n, argv, stdin, targets, folder))

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

        def one(plan):
            n, argv, stdin, targets, folder = plan
            watched = [*targets.values(), *files.values()]
            before = _snapshot(p for p in watched if p != files["zero"])
            try:
                result = subprocess.run([*ELOT, *argv], input=stdin, capture_output=True, text=True,
                                        timeout=timeout, cwd=folder, preexec_fn=limit)
                rc, err = result.returncode, result.stdout + result.stderr
            except subprocess.TimeoutExpired:
                rc, err = None, ""
            after = _snapshot(p for p in watched if p != files["zero"])
            return n, argv, stdin, rc, err, before, after

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for n, argv, stdin, rc, err, before, after in pool.map(one, plans):
                counts["cases"] += 1
                case = {"argv": argv, "stdin": stdin, "rc": rc}
                if rc is None:
                    counts["timeouts"] += 1
                    failures.append({**case, "why": "timeout"})
                    continue
                counts["exit_0"] += rc == 0
                counts["exit_2"] += rc == 2
                if "Traceback" in err or "internal error" in err or rc not in (0, 1, 2, 130):
                    counts["tracebacks"] += 1
                    failures.append({**case, "why": "traceback", "tail": err[-1500:]})
                changed = [p for p in before if before[p] != after[p]]
                if changed and "--force" not in argv:
                    counts["data_loss"] += 1
                    failures.append({**case, "why": "data loss", "changed": changed})
                if rc == 2 and any(word in err for word in ESTIMATE_WORDS):
                    counts["refusals_with_estimates"] += 1
    return {**counts, "failures": failures[:20]}


def survey_run(cases: int, seed: int, jobs: int, memory_mb: int, timeout: float) -> dict:
    """``cases`` hostile survey cases, each in its own process; then the server attacked."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("survey_attacks", Path(__file__).with_name("survey_attacks.py"))
    attacks = sys.modules["survey_attacks"] = importlib.util.module_from_spec(spec)   # dataclasses look it up
    spec.loader.exec_module(attacks)
    from elot.survey.build import load_config

    rng = random.Random(seed)
    counts = {"cases": 0, "tracebacks": 0, "data_loss": 0, "raw_escapes": 0, "wrong": 0, "slow": 0, "timeouts": 0}
    failures: list[dict] = []
    by_kind: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="elot-adversarial-survey-") as root:
        root = Path(root)
        survey = attacks.build(root / "built")
        config = load_config(survey)
        plans = []
        for n in range(cases):
            folder = root / f"case{n}"
            folder.mkdir()
            plans.append((attacks.generate(rng, survey, config, folder, endless=True), folder))

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

        def one(plan):
            case, folder = plan
            before = _snapshot(case.keep)
            listing = sorted(p.name for p in case.listing.iterdir()) if case.listing else None
            started = time.monotonic()
            try:
                result = subprocess.run([*ELOT, *case.argv], capture_output=True, text=True, timeout=timeout,
                                        cwd=folder, preexec_fn=limit)
                rc, out, err = result.returncode, result.stdout, result.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = None, "", ""
            took = time.monotonic() - started
            changed = [p for p, digest in _snapshot(case.keep).items() if before[p] != digest]
            if listing is not None and sorted(p.name for p in case.listing.iterdir()) != listing:
                changed.append(f"files made beside {case.keep[0]}")
            return case, folder, rc, out, err, changed, took

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for case, folder, rc, out, err, changed, took in pool.map(one, plans):
                counts["cases"] += 1
                by_kind[case.kind] = by_kind.get(case.kind, 0) + 1
                report = {"kind": case.kind, "what": case.what, "argv": case.argv, "rc": rc}
                if rc is None:
                    counts["timeouts"] += 1
                    failures.append({**report, "why": "timeout"})
                    continue
                if "Traceback" in err or rc not in (0, 2):
                    counts["tracebacks"] += 1
                    failures.append({**report, "why": "traceback", "tail": err[-1500:]})
                if changed:
                    counts["data_loss"] += 1
                    failures.append({**report, "why": "data loss", "changed": changed})
                raw = attacks.raw_in(out + err)
                if raw:
                    counts["raw_escapes"] += 1
                    failures.append({**report, "why": f"printed {raw!r} raw"})
                wrong = [] if case.refuse is None or (rc == 2) == case.refuse else [f"exit {rc}"]
                if case.check is not None:
                    wrong += case.check(rc, out, err, folder)
                if case.seconds is not None and took > case.seconds:
                    counts["slow"] += 1
                    failures.append({**report, "why": f"took {took:.1f} s, more than {case.seconds:g} s"})
                if wrong:
                    counts["wrong"] += 1
                    failures.append({**report, "why": "; ".join(wrong), "tail": err[-600:]})
        server = attacks.server_checks(survey)
    return {**counts, "by_kind": by_kind, "server": server, "failures": failures[:20]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--memory", type=int, default=3000, help="address-space limit per case, MB")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("--survey", type=int, default=0, metavar="N",
                        help="also N hostile cases against the study server and survey import, then the server itself")
    args = parser.parse_args()
    report = run(args.cases, args.seed, args.jobs, args.memory, args.timeout) if args.cases else {}
    if args.survey:
        report["survey"] = survey_run(args.survey, args.seed, args.jobs, args.memory, args.timeout)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
