"""How long the test suite and elot's start-up take (issue 33): ``pytest -m "not slow"``,
the README's plain ``pytest`` and ``python -m elot --help`` (and the console script
``elot --help``), each in a subprocess, with wall times and the ratio to a baseline run
in the same process of this script:

* by default the baseline is this checkout run serially (``pytest -n 0``): the ratio is
  what pytest-xdist gives on this machine;
* with ``--baseline-ref REF`` it is the checkout at git ref REF (e.g. ``main`` or the
  commit before issue 33's work), extracted with ``git archive`` into a temporary folder
  and run with its own settings (its pyproject.toml, its profiles); its compiled core is
  copied from this checkout when the ``.pyx`` sources are the same, else built there.

Targets (2 cores, dataset present): ``pytest`` ≤ 6 min, ``pytest -m "not slow"`` ≤ 90 s,
``elot --help`` ≤ 0.3 s. The machine should be otherwise idle; the load average is printed.

    python benchmarks/test_suite_timing.py                      # this checkout, parallel vs -n 0
    python benchmarks/test_suite_timing.py --baseline-ref main  # this checkout vs main
    python benchmarks/test_suite_timing.py --quick              # start-up and "not slow" only
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Wall seconds, exit status and the last line of output of ``command``."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = (done.stdout + done.stderr).strip().splitlines()
    return seconds, done.returncode, lines[-1] if lines else ""


def startup(command: list[str], cwd: Path, env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median and best wall seconds of ``command`` over ``repeat`` runs (one warm-up first)."""
    timed(command, cwd, env)
    times = [timed(command, cwd, env)[0] for _ in range(repeat)]
    return statistics.median(times), min(times)


def extract(ref: str, into: Path) -> Path:
    """The tree of ``ref`` in ``into``, its compiled core copied from here or built there."""
    archive = into / "tree.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), ref], cwd=REPO, check=True)
    tree = into / "tree"
    tree.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(tree)
    archive.unlink()
    same = all((tree / "btom_ext" / p.name).is_file() and (tree / "btom_ext" / p.name).read_bytes() == p.read_bytes()
               for p in (REPO / "btom_ext").glob("*.p*"))
    built = list((REPO / "btom_ext").glob("*.so"))
    if same and built:
        for library in built:
            shutil.copy2(library, tree / "btom_ext" / library.name)
    else:
        print(f"building the compiled core of {ref} ...", flush=True)
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, check=True,
                       capture_output=True)
    return tree


def measure(label: str, tree: Path, pytest_args: list[str], runs: list[tuple[str, list[str]]], repeat: int,
            env: dict[str, str]) -> dict[str, float]:
    """Time ``python -m elot --help`` and the pytest ``runs`` in ``tree`` (whose elot is the
    one imported: it is first on PYTHONPATH)."""
    env = dict(env, PYTHONPATH=str(tree) + os.pathsep + env.get("PYTHONPATH", ""))
    out: dict[str, float] = {}
    median, best = startup([sys.executable, "-m", "elot", "--help"], tree, env, repeat)
    out["python -m elot --help"] = median
    print(f"{label:>10}  python -m elot --help      median {median:6.3f} s  best {best:6.3f} s", flush=True)
    for name, extra in runs:
        seconds, status, last = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                       *extra, *pytest_args], tree, env)
        out[name] = seconds
        print(f"{label:>10}  {name:<26} {seconds:8.1f} s  (exit {status}: {last})", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-ref", metavar="REF",
                        help="compare with the checkout at this git ref (default: this checkout with pytest -n 0)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of elot --help (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help='start-up and pytest -m "not slow" only')
    parser.add_argument("pytest_args", nargs="*", help="more arguments for every pytest run (after --)")
    args = parser.parse_args(argv)

    env = dict(os.environ)
    dataset = REPO.parent / "shared" / "labtom"
    if "ELOT_LABTOM_DATA" not in env and (dataset / "domain.pddl").is_file():
        env["ELOT_LABTOM_DATA"] = str(dataset)   # a tree extracted elsewhere finds it too
    runs = [('pytest -m "not slow"', ["-m", "not slow"])]
    if not args.quick:
        runs.append(("pytest", []))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores, "
          f"CI={env.get('CI', '')!r}, HYPOTHESIS_PROFILE={env.get('HYPOTHESIS_PROFILE', '')!r}, "
          f"dataset {env.get('ELOT_LABTOM_DATA', 'absent')}", flush=True)

    script = Path(sys.executable).with_name("elot")
    if script.exists():
        median, best = startup([str(script), "--help"], Path(tempfile.gettempdir()), env, args.repeat)
        print(f"{'this':>10}  elot --help (script)      median {median:6.3f} s  best {best:6.3f} s  (target ≤ 0.3 s)")

    current = measure("this", REPO, args.pytest_args, runs, args.repeat, env)
    with tempfile.TemporaryDirectory(prefix="elot-baseline-") as scratch:
        if args.baseline_ref:
            tree = extract(args.baseline_ref, Path(scratch))
            base = measure(args.baseline_ref, tree, args.pytest_args, runs, args.repeat, env)
        else:
            base = measure("-n 0", REPO, args.pytest_args, [(n, [*x, "-n", "0"]) for n, x in runs], args.repeat, env)
    print()
    print(f"{'':26} {'this':>9} {'baseline':>9} {'ratio':>7}")
    for name, seconds in current.items():
        print(f"{name:<26} {seconds:9.2f} {base[name]:9.2f} {seconds / base[name]:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
