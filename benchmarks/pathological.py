"""Pathological inputs from issue 11: each must end in under 2 s with an answer or a
clear ElotError (a budget error), at under 500 MB peak memory, never another exception.

Each case runs in a fresh subprocess so that its peak RSS is its own.

    python benchmarks/pathological.py            # the table
    python benchmarks/pathological.py CASE       # one case, in this process
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

LIMIT_S, LIMIT_MB = 2.0, 500


def _formula(text, belief=False):
    from elot.lang.semantics import evaluate
    from elot.lang.states import Belief, State

    state = State.parse("inside(key1, box1), iscolor(key1, red), hidden(key1), closed(box1)")
    return lambda: evaluate(text, state, Belief.of([(state, 1.0)]) if belief else None)


def _boxes(n, body):
    vs = [f"B{i}" for i in range(n)]
    return f"exists(and({', '.join(f'box({v})' for v in vs)}), {body(vs)})"


def _nested(n):
    text = "empty(box1)"
    for i in range(n):
        text = f"exists(item(X{i}), not({text}))"
    return text


def _scn(text):
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    return lambda: parse_scn_text(text, "case.scn")


def _row(cells):
    return "".join(cells)


def _boxes_map(n):
    # three gems behind a red, a blue and a yellow door; n closed boxes, two holding keys
    width = max(n, 7)
    return ("colours: red, blue, yellow\nmap:\n  " + "WgWgWgW".ljust(width, "W") + "\n  "
            + "WRWBWYW".ljust(width, "W") + "\n  h" + "." * (width - 1) + "\n  "
            + ("FO" + "C" * (n - 2)).ljust(width, "W") + "\n")


def _infer(text, **kw):
    def run():
        from elot.domains.doors_keys_gems.inference import infer
        from elot.domains.doors_keys_gems.scn_read import parse_scn_text

        return infer(parse_scn_text(text, "case.scn"), **kw)

    return run


def _colour_limits(text):
    def run():
        from elot.domains.doors_keys_gems.hypotheses import colour_limits
        from elot.domains.doors_keys_gems.scn_read import parse_scn_text

        return colour_limits(parse_scn_text(text, "case.scn").initial)

    return run


def _keys_map(n):
    # n red keys on the floor, a red door before the gem
    return ("colours: red\nmap:\n  h" + "r" * n + ".R" + "g\n")


def _pddl_problem(body):
    from elot.domains.doors_keys_gems.pddl import parse_problem_text as parse_problem

    return lambda: parse_problem(body, "p.pddl")


def _pddl_plan(n):
    from elot.domains.doors_keys_gems.pddl import parse_plan_text as parse_plan

    text = "".join("(right human)\n" for _ in range(n))
    return lambda: parse_plan(text, "plan.pddl")


def _scn_actions(n):
    return _scn("map:\n  h" + "." * 3 + "\nactions:\n" + "".join("  right, left\n" for _ in range(n // 2)))


def _deep_term():
    from elot.lang.syntax import Call, Var

    term = Var(name="X")
    for _ in range(5000):
        term = Call(name="not", args=(term,))
    hash(term), repr(term)


def cases():
    return {
        "13a exists over 10 boxes": _formula(_boxes(10, lambda vs: f"and({', '.join(f'empty({v})' for v in vs)})")),
        "13a exists over 11 boxes": _formula(_boxes(11, lambda vs: f"and({', '.join(f'closed({v})' for v in vs)})")),
        "13a 10 boxes, unprunable": _formula(_boxes(10, lambda vs: "and(not(empty(B0)), not(or(%s)))" % ", ".join(f"==({v}, {v})" for v in vs))),
        "13a 8 nested exists(item)": _formula(_nested(8)),
        "13a 12 nested, in a belief": _formula(f"believes(player, formula({_nested(12)}))", belief=True),
        "13 8,000 restrictor variables": _formula(
            f"exists(and({', '.join(f'box(X{i})' for i in range(8000))}), empty(X0))"),
        "13b 8-box map": _infer(_boxes_map(8)),
        "13b 16-box map": _infer(_boxes_map(16)),
        "13b --k 20": _infer(_boxes_map(4), k=20),
        "13c 12 keys on the floor": _colour_limits(_keys_map(12)),
        "13c 20 keys on the floor": _colour_limits(_keys_map(20)),
        "13d right x99999999999": _scn("map:\n  h..\nactions:\n  right x99999999999\n"),
        "13e bit matrix 100000^2": _pddl_problem("(define (problem p) (:domain d) (:objects human - agent) (:init (= (walls) (new-bit-matrix true 100000 100000)) (= (xpos human) 1) (= (ypos human) 1)) (:goal (has human gem1)))"),
        "13e 26-digit dimension": _pddl_problem("(define (problem p) (:domain d) (:objects human - agent) (:init (= (walls) (new-bit-matrix true 12345678901234567890123456 2)) (= (xpos human) 1) (= (ypos human) 1)) (:goal (has human gem1)))"),
        "13f PDDL plan, 16k actions": _pddl_plan(16_000),
        "13f .scn, 32k actions": _scn_actions(32_000),
        "14 33x32 map, 61 gems (core)": _infer("map:\n" + "".join(
            f"  {r}\n" for r in ["h" + "." * 32] + ["." * 33] * 29 + ["g" * 33, "g" * 28 + "." * 5])),
        "14 deeply nested PDDL": _pddl_problem("(define " + "(" * 100_000 + ")" * 100_000 + ")"),
        "14 parse 1e999": lambda: __import__("elot.lang.printer", fromlist=["pretty"]).pretty(
            __import__("elot.lang.parser", fromlist=["parse"]).parse(">=(1e999, 0.5)")),
        "14 hash/repr of 5000-deep term": _deep_term,
        "11 parse 156k characters": lambda: __import__("elot.lang.parser", fromlist=["parse"]).parse("x" * 156_000),
    }


def run_one(name):
    from elot.errors import ElotError

    fn = cases()[name]
    start = time.perf_counter()
    try:
        fn()
        outcome = "answer"
    except ElotError as error:
        outcome = "ElotError: " + error.message[:70]
    except BaseException as error:  # noqa: BLE001 - the point is to report it
        outcome = f"!! {type(error).__name__}: {str(error)[:60]}"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"case": name, "seconds": seconds, "peak_mb": peak, "outcome": outcome}))


def main(argv):
    if argv:
        return run_one(argv[0])
    print(f"{'case':32} {'seconds':>8} {'peak MB':>8}  ok  outcome")
    bad = 0
    for name in cases():
        # a memory cap a little above the target keeps a regression from taking the machine
        try:
            out = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                                 timeout=20, preexec_fn=lambda: resource.setrlimit(
                                     resource.RLIMIT_AS, (4 << 30, 4 << 30)))
            row = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {
                "case": name, "seconds": float("nan"), "peak_mb": float("nan"), "outcome": "crashed: " + out.stderr[-80:]}
        except subprocess.TimeoutExpired:
            row = {"case": name, "seconds": 20.0, "peak_mb": float("nan"), "outcome": "timed out (20 s)"}
        ok = row["seconds"] < LIMIT_S and row["peak_mb"] < LIMIT_MB and not row["outcome"].startswith(("!!", "crashed", "timed"))
        bad += not ok
        print(f"{row['case']:32} {row['seconds']:8.2f} {row['peak_mb']:8.0f}  {'yes' if ok else 'NO '} {row['outcome']}")
    print(f"{bad} case(s) over the limits ({LIMIT_S} s, {LIMIT_MB} MB)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
