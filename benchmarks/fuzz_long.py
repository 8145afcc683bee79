"""A long fuzz run over formulas, .scn text and PDDL text (issue 11: >= 10^6 inputs).

Each input goes through the stages that apply (parse, print, check, lower, evaluate for
formulas; the .scn reader; the PDDL problem reader and world builder; the plan reader).
Only ElotError may escape, and no input may take more than 2 s. Inputs are damaged
copies of valid seeds and random strings from a seeded RNG, so a run is reproducible.

    python benchmarks/fuzz_long.py --inputs 1000000 --workers 1 --seconds 3600

Prints counts per kind, every non-ElotError exception (with its input) and every input
over the time limit; exits 1 if there is any. Stops early, reporting what it did, when
``--seconds`` is spent.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

LIMIT_S = 2.0
KINDS = ("formula", "scn", "problem", "plan")


def _setup():
    import test_fuzz as T
    from elot.errors import ElotError

    seeds = {
        "formula": T.SEEDS,
        "scn": T.SCN_SEEDS,
        "problem": [T.PROBLEM_SEED],
        "plan": [T.PLAN_SEED],
    }
    runners = {"formula": T.formula_stages,
               "scn": T.scn_pipeline, "problem": T.problem_pipeline, "plan": T.plan_pipeline}
    return seeds, runners, T.SNIPPETS, ElotError


FORMULA_CHARS = list("abcdefgklmnoprstuwxyzKBCXY0123456789_(),. -><=\n\t") + ["(", ")", ","] * 4
FORMULA_SNIPPETS = ["exists(", "forall(", "and(", "or(", "not(", "believes(player, ", "formula(", "might(",
                    "box(B)", "key(K)", "item(X)", "inside(K, B)", "empty(box1)", "prob_of(player, ", "1e999",
                    ">=(", "threshold(likely)", "most(", "certain_about(player, ", "iscolor(K, red)"]


def damage(rng: random.Random, text: str, snippets) -> str:
    """1-5 edits of tests/test_fuzz.py's :func:`damage` (all its kinds), drawn from ``rng``;
    an insertion is a snippet or 1-4 random characters below U+0300."""
    from test_fuzz import EDITS, damage as edit

    def piece() -> str:
        if rng.random() < 0.5:
            return rng.choice(snippets)
        return "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(1, 4)))

    return edit(text, rng.randint(1, 5), rng.randint, rng.choice, piece, kinds=EDITS)


def make_input(rng: random.Random, kind: str, seeds, snippets) -> str:
    if kind == "formula":
        if rng.random() < 0.3:
            return "".join(rng.choice(FORMULA_CHARS) for _ in range(rng.randint(0, 80)))
        if rng.random() < 0.2:
            return "".join(rng.choice(FORMULA_SNIPPETS) for _ in range(rng.randint(1, 10))) + ")" * rng.randint(0, 10)
        return damage(rng, rng.choice(seeds[kind]), FORMULA_SNIPPETS)
    if rng.random() < 0.1:
        return "".join(chr(rng.randint(0, 0x17F)) for _ in range(rng.randint(0, 80)))
    return damage(rng, rng.choice(seeds[kind]), snippets)


def worker(args):
    index, count, seed, deadline = args
    seeds, runners, snippets, ElotError = _setup()
    rng = random.Random(seed)
    counts = dict.fromkeys(KINDS, 0)
    errors = dict.fromkeys(KINDS, 0)
    bad, slow = [], []
    done = 0
    for n in range(count):
        if time.time() > deadline:
            break
        kind = KINDS[n % len(KINDS)]
        text = make_input(rng, kind, seeds, snippets)
        start = time.perf_counter()
        try:
            runners[kind](text)
        except ElotError as error:
            error.render()
            errors[kind] += 1
        except Exception as error:  # noqa: BLE001 - counting these is the point
            bad.append((kind, text[:300], f"{type(error).__name__}: {error}"[:300],
                        traceback.format_exc(limit=-3)[-600:]))
        seconds = time.perf_counter() - start
        if seconds > LIMIT_S:
            slow.append((kind, text[:300], seconds))
        counts[kind] += 1
        done += 1
    return index, done, counts, errors, bad, slow


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=3600.0, help="stop after this long, reporting what was done")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--chunk", type=int, default=20_000, help="inputs per task")
    args = parser.parse_args(argv)
    deadline = time.time() + args.seconds
    tasks = [(i, min(args.chunk, args.inputs - i * args.chunk), args.seed * 1_000_003 + i, deadline)
             for i in range((args.inputs + args.chunk - 1) // args.chunk)]
    total = dict.fromkeys(KINDS, 0)
    errs = dict.fromkeys(KINDS, 0)
    bad, slow = [], []
    started = time.time()
    with mp.Pool(args.workers) as pool:
        for _, done, counts, errors, b, s in pool.imap_unordered(worker, tasks):
            for k in KINDS:
                total[k] += counts[k]
                errs[k] += errors[k]
            bad += b
            slow += s
            n = sum(total.values())
            print(f"[{time.time() - started:7.0f} s] {n:,} inputs, {len(bad)} non-ElotError, {len(slow)} over {LIMIT_S} s",
                  flush=True)
    n = sum(total.values())
    print(f"\n{n:,} inputs in {time.time() - started:.0f} s ({args.workers} worker(s))")
    for k in KINDS:
        print(f"  {k:8} {total[k]:>10,} inputs, {errs[k]:>10,} ElotError")
    print(f"non-ElotError exceptions: {len(bad)}")
    for kind, text, message, tb in bad[:20]:
        print(f"  [{kind}] {text!r}\n    {message}\n{tb}")
    print(f"inputs over {LIMIT_S} s: {len(slow)}")
    for kind, text, seconds in slow[:20]:
        print(f"  [{kind}] {seconds:.2f} s {text!r}")
    return 1 if bad or slow or n < args.inputs else 0


if __name__ == "__main__":
    sys.exit(main())
