"""Record what elot writes on a fixed set of runs, and compare two recordings byte for byte.

A change that should not move any number (a refactoring, a module moved, one pipeline for
every domain) is checked by recording before and after and comparing:

    python benchmarks/outputs_unchanged.py record before/ [--full]
    ...change the code, reinstall...
    python benchmarks/outputs_unchanged.py record after/ [--full]
    python benchmarks/outputs_unchanged.py compare before/ after/

The runs cover the three kinds of domain: the Doors-Keys-Gems gridworld (built-in
scenarios, the LaBToM dataset's plans under every model and convention, particles with a
fixed seed, the simulated agent, batches), the food trucks of Baker et al. 2017 (the
experiment's scenarios, ``.trucks`` files, batch, the simulated student) and a domain from a
Python file (the coffee shop). Each run writes its table (``--csv``, ``--json``, ``-o``)
into the recording's folder; its standard output is kept too, when it is the table. Runs
that need the dataset (``../shared/labtom``) or the food-truck data (``../shared/baker2017``)
are skipped without them, and the recording says which ran. ``--full`` adds the batches
over the whole dataset (minutes).

``compare`` prints each file that differs (and the first differing line) and exits 1 if
any does; files only in one recording are listed too.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABTOM = REPO.parent / "shared" / "labtom"
BAKER = REPO.parent / "shared" / "baker2017"

#: (name, arguments after ``elot``, what the run needs). ``{out}`` is the recording's
#: folder. A name ending in ``.stdout`` keeps the run's standard output.
RUNS = [
    # -- Doors-Keys-Gems, built in
    ("dkg-default.csv", ["run", "--csv", "{out}/dkg-default.csv"], ()),
    ("dkg-two-doors-k2.csv", ["run", "two-doors", "--k", "2", "--csv", "{out}/dkg-two-doors-k2.csv"], ()),
    ("dkg-two-doors.json", ["run", "two-doors", "--json", "{out}/dkg-two-doors.json"], ()),
    ("dkg-plan-default.scn", ["plan", "default", "-o", "{out}/dkg-plan-default.scn"], ()),
    ("dkg-plan-two-doors-optimal.scn", ["plan", "two-doors", "--policy", "optimal", "-o",
                                        "{out}/dkg-plan-two-doors-optimal.scn"], ()),
    ("dkg-batch-examples.csv", ["batch", "default", "two-doors", "empty-box", "--model", "full,non-planning",
                                "--beta", "1,2", "-o", "{out}/dkg-batch-examples.csv"], ()),
    ("dkg-smc-default.json", ["run", "default", "--inference", "smc", "--particles", "400", "--seed", "5",
                              "--json", "{out}/dkg-smc-default.json"], ()),
    ("dkg-design.csv", ["design", "elot/scenarios/two-doors.scn", "--statements", "examples/statements.txt",
                        "--csv", "{out}/dkg-design.csv"], ()),
    # -- Doors-Keys-Gems, the LaBToM dataset
    ("dkg-1_1.csv", ["run", "1_1", "--csv", "{out}/dkg-1_1.csv"], ("labtom",)),
    ("dkg-1_1.json", ["run", "1_1", "--json", "{out}/dkg-1_1.json"], ("labtom",)),
    ("dkg-1_1-non-planning.csv", ["run", "1_1", "--model", "non-planning", "--csv",
                                  "{out}/dkg-1_1-non-planning.csv"], ("labtom",)),
    ("dkg-2_3-paper.csv", ["run", "2_3", "--conventions", "paper", "--csv", "{out}/dkg-2_3-paper.csv"], ("labtom",)),
    ("dkg-3_3-true-belief.csv", ["run", "3_3", "--model", "true-belief", "--csv",
                                 "{out}/dkg-3_3-true-belief.csv"], ("labtom",)),
    ("dkg-1_1-smc.csv", ["run", "1_1", "--inference", "smc", "--particles", "500", "--seed", "3", "--csv",
                         "{out}/dkg-1_1-smc.csv"], ("labtom",)),
    ("dkg-1_1-smc.json", ["run", "1_1", "--inference", "smc", "--particles", "500", "--seed", "3", "--json",
                          "{out}/dkg-1_1-smc.json"], ("labtom",)),
    ("dkg-2_3-smc.csv", ["run", "2_3", "--inference", "smc", "--particles", "500", "--seed", "3", "--csv",
                         "{out}/dkg-2_3-smc.csv"], ("labtom",)),
    ("dkg-batch-plans.csv", ["batch", "1_1", "2_3", "3_3", "--exp", "exp2_current", "-o",
                             "{out}/dkg-batch-plans.csv"], ("labtom",)),
    ("dkg-batch-plans-smc.csv", ["batch", "1_1", "2_3", "--exp", "exp2_current", "--inference", "smc",
                                 "--particles", "300", "--seed", "9", "-o", "{out}/dkg-batch-plans-smc.csv"],
     ("labtom",)),
    # -- food trucks
    ("trucks-check-empty.csv", ["run", "examples/domains/check-empty.trucks", "-s",
                                "The student likes the Korean truck best.", "-s",
                                "At first the student thought the Lebanese truck was probably behind the building.",
                                "--csv", "{out}/trucks-check-empty.csv"], ()),
    ("trucks-check-empty.json", ["run", "examples/domains/check-empty.trucks", "-s",
                                 "The student likes the Korean truck best.", "--json",
                                 "{out}/trucks-check-empty.json"], ()),
    ("trucks-plan-lunch.trucks", ["plan", "examples/domains/lunch.trucks", "--utilities",
                                  "korean=60,lebanese=100,mexican=-20", "--belief",
                                  "lebanese=0.5,mexican=0.25,none=0.25", "--policy", "optimal", "-o",
                                  "{out}/trucks-plan-lunch.trucks"], ()),
    ("trucks-design.csv", ["design", "examples/domains/check-empty.trucks", "--statements",
                           "examples/domains/trucks-statements.txt", "--csv", "{out}/trucks-design.csv"], ()),
    ("trucks-12.csv", ["run", "foodtrucks:12", "-s", "likes_best(student, korean)", "--csv",
                       "{out}/trucks-12.csv"], ("baker",)),
    ("trucks-12.json", ["run", "foodtrucks:12", "-s", "likes_best(student, korean)", "--json",
                        "{out}/trucks-12.json"], ("baker",)),
    ("trucks-12-smc.json", ["run", "foodtrucks:12", "-s", "likes_best(student, korean)", "--inference", "smc",
                            "--particles", "2000", "--seed", "4", "--json", "{out}/trucks-12-smc.json"], ("baker",)),
    ("trucks-batch.csv", ["batch", "--domain", "foodtrucks", "1", "2", "3", "12", "40", "--model", "btom,no-cost",
                          "--beta", "1,2.5", "-s", "likes_best(student, korean)", "-s",
                          "believes(student, formula(at(lebanese, spot2)))", "-o", "{out}/trucks-batch.csv"],
     ("baker",)),
    # -- a domain from a Python file
    ("coffee-peek.csv", ["run", "--domain", "examples/domains/coffee_shop.py", "examples/domains/coffee_peek.json",
                         "-s", "believes(visitor, formula(open(shop)))", "--csv", "{out}/coffee-peek.csv"], ()),
    ("coffee-peek.json", ["run", "--domain", "examples/domains/coffee_shop.py", "examples/domains/coffee_peek.json",
                          "-s", "believes(visitor, formula(open(shop)))", "--json", "{out}/coffee-peek.json"], ()),
    ("coffee-plan.json", ["plan", "--domain", "examples/domains/coffee_shop.py", "examples/domains/coffee_start.json",
                          "--utilities", "coffee=20,soda=5", "--belief", "shop-open=0.95,shop-closed=0.05",
                          "--policy", "optimal", "-o", "{out}/coffee-plan.json"], ()),
]

#: The whole dataset: minutes (``--full``).
FULL = [
    ("dkg-all-models.csv", ["batch", "all", "--model", "full,true-belief,non-planning", "-j", "2", "-o",
                            "{out}/dkg-all-models.csv"], ("labtom",)),
    ("dkg-all-paper-k.csv", ["batch", "all", "--conventions", "paper", "--k", "2,5", "-j", "2", "-o",
                             "{out}/dkg-all-paper-k.csv"], ("labtom",)),
    ("dkg-all-smc.csv", ["batch", "all", "--inference", "smc", "--particles", "300", "--seed", "9", "-j", "2",
                         "-o", "{out}/dkg-all-smc.csv"], ("labtom",)),
]


def _elot() -> list[str]:
    script = Path(sys.executable).with_name("elot")
    return [str(script)] if script.exists() else [sys.executable, "-m", "elot"]


def record(folder: Path, full: bool) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ELOT_LABTOM_DATA": str(LABTOM), "ELOT_BAKER2017_DATA": str(BAKER), "COLUMNS": "100"}
    have = {"labtom": (LABTOM / "domain.pddl").is_file(), "baker": (BAKER / "scenarios.json").is_file()}
    log = []
    failed = 0
    for name, args, needs in RUNS + (FULL if full else []):
        if not all(have[n] for n in needs):
            log.append(f"skipped {name}: needs {', '.join(needs)}")
            continue
        command = [a.replace("{out}", str(folder)) for a in args]
        start = time.perf_counter()
        done = subprocess.run(_elot() + command + ["--force"] * ("-o" in command or "--csv" in command
                                                                 or "--json" in command),
                              cwd=REPO, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            failed += 1
            log.append(f"FAILED {name} (status {done.returncode}): {done.stderr.strip()[-400:]}")
        else:
            log.append(f"ran {name} in {seconds:.1f} s")
        print(log[-1], flush=True)
    (folder / "recording.log").write_text("\n".join(log) + "\n")
    return 1 if failed else 0


def compare(before: Path, after: Path) -> int:
    names = sorted(({p.name for p in before.iterdir()} | {p.name for p in after.iterdir()})
                   - {"recording.log"})   # the log holds timings
    differ = 0
    for name in names:
        a, b = before / name, after / name
        if not a.exists() or not b.exists():
            print(f"only in {'before' if a.exists() else 'after'}: {name}")
            differ += 1
            continue
        if a.is_dir() or a.read_bytes() == b.read_bytes():
            continue
        differ += 1
        left, right = a.read_text(errors="replace").splitlines(), b.read_text(errors="replace").splitlines()
        first = next((d for d in difflib.unified_diff(left, right, lineterm="", n=0)
                      if d.startswith(("-", "+")) and not d.startswith(("---", "+++"))), "(whitespace)")
        print(f"differs: {name}: {first[:200]}")
    same = len(names) - differ
    print(f"{same} of {len(names)} files identical")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("record", help="run every case, writing into FOLDER")
    r.add_argument("folder", type=Path)
    r.add_argument("--full", action="store_true", help="also the batches over the whole dataset (minutes)")
    c = sub.add_parser("compare", help="compare two recordings byte for byte")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.verb == "record":
        return record(args.folder, args.full)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
