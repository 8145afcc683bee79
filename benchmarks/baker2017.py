"""The food-truck experiment (Baker, Jara-Ettinger, Saxe & Tenenbaum 2017) on elot's engine.

Runs a model on all 78 scenarios for each beta, chooses beta on the **dev split only**
(the largest r_belief + r_desire over the dev split's included scenarios; the first on
ties), writes the predictions at that beta (``scenario,judgment,option,value``: desires K,
L, M on the 1..7 scale; beliefs L, M, N), and prints r_belief and r_desire on the dev split
next to the authors' stored models, with the time each part took (wall and CPU seconds).

    python benchmarks/baker2017.py --data ../shared/baker2017 -o predictions.csv
        [--model btom|true-belief|no-cost] [--beta B ...] [--planner qmdp|belief-vi]
        [--baseline]

``--scenarios FILE`` predicts scenarios of one's own (a ``.trucks`` file, or JSON shaped like
``scenarios.json``) at one beta (default 2.5), with nothing to score them against.
``--baseline`` also times the NumPy twins of the kernels at the chosen beta (slow: about a
minute) and prints the ratio. Targets: one beta <= 2 s, the 20-beta sweep <= 20 s, on one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from elot.cli import run_command  # noqa: E402
from elot.domains.foodtrucks import scoring  # noqa: E402
from elot.domains.foodtrucks.model import BETAS, VARIANTS, predict, variant_config  # noqa: E402
from elot.domains.foodtrucks.scenarios import SCENARIOS_FILE, data_root, read_scenarios  # noqa: E402
from elot.domains.foodtrucks.trucksfile import read_trucks  # noqa: E402
from elot.engine import PLANNER_NAMES  # noqa: E402
from elot.errors import ArgumentError  # noqa: E402
from elot.output import csv_text, write_output  # noqa: E402

#: The authors' name of each model in reference_correlations.txt.
AUTHORS_NAME = {"btom": "BToM", "true-belief": "TrueBelief", "no-cost": "NoCost"}
TARGET_ONE, TARGET_SWEEP = 2.0, 20.0


def default_data() -> str:
    return os.environ.get("ELOT_BAKER2017_DATA") or str(REPO.parent / "shared" / "baker2017")


def progress_bar():
    """A rich progress bar on a terminal (as a context manager and a callback), else nothing."""
    if not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    return Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                    console=Console(stderr=True), transient=True)


def run_own(args) -> int:
    """Predictions for scenarios of one's own (a .trucks or scenarios.json file) at one beta."""
    path = Path(args.scenarios)
    scenarios = read_trucks(path) if path.suffix != ".json" else read_scenarios(path)
    if args.beta and len(args.beta) > 1:
        raise ArgumentError("--scenarios runs one --beta (there are no ratings to choose it by)")
    beta = args.beta[0] if args.beta else 2.5
    config = variant_config(args.model, **({"planner": args.planner} if args.planner else {}))
    if args.output and args.output != "-":
        from elot.output import check_target
        check_target(args.output, force=args.force, option="-o", inputs=[path])
    engine, [predictions] = predict(scenarios, config, [beta])
    rows = [dict(zip(("scenario", "judgment", "option", "value"), (s.name or sid, j, o, repr(v))))
            for s, p in zip(scenarios, predictions) for sid, j, o, v in p.rows()]
    text = csv_text(rows, ("scenario", "judgment", "option", "value"))
    if args.output:
        write_output(args.output, text, force=args.force, option="-o", inputs=[path])
    else:
        print(text, end="")
    print(f"{len(scenarios)} scenario(s), model {args.model} (planner {engine.config.planner}), beta {beta:g}: "
          f"{engine.timings.cpu_total:.2f} s CPU", file=sys.stderr)
    return 0


def run(args) -> int:
    if args.scenarios:
        return run_own(args)
    root = data_root(args.data)
    scenarios = read_scenarios(root / SCENARIOS_FILE)
    human, included = scoring.read_human(root / scoring.HUMAN_FILE)
    betas = sorted(set(args.beta)) if args.beta else list(BETAS)
    if any(not (0 <= b < 1e6) for b in betas):
        raise ArgumentError("--beta takes numbers between 0 and 1e6")
    changes = {"backend": "core"}
    if args.planner:
        changes["planner"] = args.planner
    config = variant_config(args.model, **changes)
    if args.output and args.output != "-":
        from elot.output import check_target
        check_target(args.output, force=args.force, option="-o")   # refuse before the work
    bar = progress_bar()
    wall, cpu = time.perf_counter(), time.process_time()
    if bar:
        with bar:
            task = bar.add_task(f"{args.model}: planning, then {len(betas)} beta(s)", total=None)
            engine, runs = predict(scenarios, config, betas,
                                   lambda done, total: bar.update(task, completed=done, total=total))
    else:
        engine, runs = predict(scenarios, config, betas)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    scores = {beta: scoring.correlate(scoring.as_values(preds), human, included, scenarios)
              for beta, preds in zip(betas, runs)}
    chosen = scoring.choose_beta(scores)
    predictions = runs[betas.index(chosen)]
    if args.output:
        rows = [dict(zip(("scenario", "judgment", "option", "value"), (sid, j, o, repr(v))))
                for p in predictions for sid, j, o, v in p.rows()]
        write_output(args.output, csv_text(rows, ("scenario", "judgment", "option", "value")),
                     force=args.force, option="-o", inputs=[root / SCENARIOS_FILE])
    report(args, engine, scores, chosen, betas, root, human, included, scenarios, wall, cpu)
    if args.baseline:
        t = engine.timings
        baseline(scenarios, variant_config(args.model, **{**changes, "backend": "reference"}), chosen,
                 t.cpu_planning + t.cpu_building + t.cpu_evaluating[betas.index(chosen)])
    return 0


def report(args, engine, scores, chosen, betas, root, human, included, scenarios, wall, cpu) -> None:
    print(f"model {args.model} (planner {engine.config.planner}, gamma {engine.config.gamma}, "
          f"{engine.config.sweeps} sweeps, costs {'on' if engine.config.costs else 'off'}); "
          f"{len(scenarios)} scenarios; beta chosen on the dev split ({len(included)} included "
          f"scenarios) from {len(betas)} value(s): {chosen:g}")
    if len(betas) > 1:
        print(f"  {'beta':>5} {'r_belief':>9} {'r_desire':>9}")
        for beta in betas:
            mark = "  <- chosen" if beta == chosen else ""
            print(f"  {beta:5.1f} {scores[beta].r_belief:9.4f} {scores[beta].r_desire:9.4f}{mark}")
    print()
    print(f"split=dev: {len(included)} included scenarios x 3 options")
    print(f"{'model':<36} {'beta':>5} {'r_belief':>9} {'r_desire':>9} {'r_bel_grp':>10} {'r_des_grp':>10}")
    ours = scores[chosen]
    print(f"{'elot ' + args.model:<36} {chosen:5.1f} {ours.r_belief:9.4f} {ours.r_desire:9.4f} "
          f"{ours.r_belief_group:10.4f} {ours.r_desire_group:10.4f}")
    authors_file = root / scoring.AUTHORS_FILE
    if authors_file.is_file():
        stored = scoring.correlate(scoring.read_values(authors_file, "value", "prediction file"),
                                   human, included, scenarios)
        print(f"{'authors BToM (stored csv)':<36} {2.5:5.1f} {stored.r_belief:9.4f} {stored.r_desire:9.4f} "
              f"{stored.r_belief_group:10.4f} {stored.r_desire_group:10.4f}")
    reference_file = root / scoring.REFERENCE_FILE
    if reference_file.is_file():
        for name, row in scoring.read_reference(reference_file).get("dev", {}).items():
            beta = f"{row[0]:5.1f}" if row[0] is not None else " " * 5
            print(f"{'authors ' + name + ' (reference)':<36} {beta} {row[1]:9.4f} {row[2]:9.4f} "
                  f"{row[3]:10.4f} {row[4]:10.4f}")
    t = engine.timings
    per_beta, cpu_beta = (sum(t.evaluating) / len(t.evaluating), sum(t.cpu_evaluating) / len(t.cpu_evaluating))
    print()
    print(f"time (wall / CPU seconds; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores): "
          f"planning {t.planning:.2f} / {t.cpu_planning:.2f} (3 maps x {len(engine.desires().utilities)} "
          f"utility vectors), building the inversions {t.building:.2f} / {t.cpu_building:.2f}, "
          f"evaluating {per_beta:.3f} / {cpu_beta:.3f} per beta")
    one, one_cpu = t.planning + t.building + per_beta, t.cpu_planning + t.cpu_building + cpu_beta
    print(f"one beta: {one:.2f} s wall, {one_cpu:.2f} s CPU (target <= {TARGET_ONE:g} s); "
          f"all {len(betas)} beta(s): {wall:.2f} s wall, {cpu:.2f} s CPU"
          + (f" (target for 20: <= {TARGET_SWEEP:g} s)" if len(betas) == 20 else ""))


def baseline(scenarios, config, beta, compiled) -> None:
    """The NumPy twins at one beta, against the compiled kernels' time for the same work."""
    wall, cpu = time.perf_counter(), time.process_time()
    engine, _ = predict(scenarios, config, [beta])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    t = engine.timings
    print(f"baseline (the kernels' NumPy twins) at beta {beta:g}: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(planning {t.cpu_planning:.2f}, building {t.cpu_building:.2f}, evaluating "
          f"{sum(t.cpu_evaluating):.2f} s CPU); compiled {compiled:.2f} s CPU: "
          f"{cpu / compiled:.1f}x faster")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_data(),
                        help="the experiment's folder (default: $ELOT_BAKER2017_DATA, else ../shared/baker2017 beside the repository)")
    parser.add_argument("--scenarios", metavar="FILE",
                        help="predict scenarios of your own (.trucks, or JSON like scenarios.json) at one beta; nothing is scored")
    parser.add_argument("-o", "--output", help="write the predictions at the chosen beta here (- for stdout)")
    parser.add_argument("--force", action="store_true", help="replace an output file elot did not write")
    parser.add_argument("--model", choices=tuple(VARIANTS), default="btom", help="the model (default btom)")
    parser.add_argument("--beta", type=float, nargs="+", help="beta values (default 0.5, 1.0, ..., 10.0)")
    parser.add_argument("--planner", choices=PLANNER_NAMES, help="override the model's planner")
    parser.add_argument("--baseline", action="store_true",
                        help="also time the NumPy twins of the kernels at the chosen beta")
    args = parser.parse_args()
    return run_command(lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
