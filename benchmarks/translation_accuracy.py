"""Translation accuracy and speed per translator (offline, llm, auto) on gold sets.

For each row of a gold CSV (a ``statement`` column and a gold formula column; an optional
``plan_id`` names the dataset problem whose objects form the signature), translate the
statement with each translator asked for and score:

* exact: canonical text equality after parse + pretty;
* equivalent: :func:`elot.lang.equivalence.equivalent` on the row's signature (free variables
  bound);
* refused: no translation (a TranslationError);
* s/sentence, and for the LLM where the time went (prompt evaluation, generation, the
  rest), with the per-sentence times of the first and last fifth of the run.

The gold column is taken by name: ``gold_formula`` if the file has one, else
``gold_elot``, else ``formula`` (the exp1 in-vs-out files, whose pairs repeat); the one
used is printed. ``--gold-column`` overrides.

    python benchmarks/translation_accuracy.py [GOLD.csv ...] [--translator offline,llm,auto]
        [--language-model PATH] [-n N] [--limit K] [--show-misses]

Default gold: our own corpus (``tests/fixtures/translation_corpus.csv``, written for
elot, not from any dataset). The dataset's statement files are development sets: the
offline rules were written while reading them, so their scores are not comparable with
held-out figures such as the paper's.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import os
import statistics
import sys
import time
from functools import lru_cache
from pathlib import Path

from elot.lang.equivalence import equivalent
from elot.errors import ElotError
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.domains.doors_keys_gems.pddl import signature_of
from elot.cli import options
from elot.lang.signature import Signature
from elot.translate import llm, llama_engine, translate

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "fixtures" / "translation_corpus.csv"
GOLD_COLUMNS = ("gold_formula", "gold_elot", "formula")


def labtom_root() -> Path:
    env = os.environ.get("ELOT_LABTOM_DATA")
    return Path(env) if env else REPO.parent / "shared" / "labtom"


@lru_cache(maxsize=None)
def plan_signature(root: str, plan_id: str) -> Signature:
    problem = Path(root) / "problems" / f"{plan_id}.pddl"
    if not plan_id or not problem.is_file():
        return Signature.default()
    return signature_of(Path(root) / "domain.pddl", problem)


def read_gold(path: Path, column: str | None = None) -> tuple[list[dict], str]:
    """Rows with ``statement``, ``gold`` and ``plan_id``, and the gold column used;
    repeated (statement, formula, plan) rows are kept once."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows, header = list(reader), reader.fieldnames or []
    except OSError as error:
        raise SystemExit(f"error: cannot read {path}: {error.strerror or error}")
    column = column or next((c for c in GOLD_COLUMNS if c in header), None)
    if "statement" not in header or column not in header:
        raise SystemExit(f"error: {path} needs a 'statement' column and a gold column "
                         f"({', '.join(GOLD_COLUMNS)}, or name one with --gold-column); it has {', '.join(header)}")
    out, seen = [], set()
    for row in rows:
        key = (row["statement"].strip(), row[column].strip(), row.get("plan_id", ""))
        if key in seen:
            continue
        seen.add(key)
        out.append({"statement": key[0], "gold": key[1], "plan_id": key[2], "mode": row.get("mode", "")})
    return out, column


def score(row: dict, root: Path, backend: str, model: str | None, n: int) -> dict:
    signature = plan_signature(str(root), row["plan_id"])
    start = time.perf_counter()
    timings: dict = {}
    try:
        result = translate(row["statement"], signature=signature, translator=backend, language_model=model, n=n)
        got, error, used, timings = result.formula, None, result.backend, result.timings
    except ElotError as exc:
        got, error, used = None, exc.message, "refused"
    seconds = time.perf_counter() - start
    try:
        gold = pretty(parse(row["gold"]))
    except ElotError:
        gold = row["gold"]
    exact = got is not None and got == gold
    equiv = exact
    if got is not None and not exact:
        try:
            equiv, _ = equivalent(got, gold, signature, bind_free=True)
        except ElotError:
            equiv = False  # an ill-formed gold formula has no meaning to compare with
    return {**row, "got": got, "error": error, "exact": exact, "equivalent": bool(equiv),
            "seconds": seconds, "backend": used, "timings": timings}


def _llm_line(results: list[dict]) -> list[str]:
    timed = [r for r in results if r["timings"].get("prompt") is not None]
    if not timed:
        return []
    total = {k: sum(r["timings"].get(k, 0) for r in timed) for k in
             ("load", "overhead") + llama_engine.Timings.FIELDS}
    count = len(timed)
    lines = [f"    LLM on {count} sentences: load {total['load']:.1f} s once; per sentence: prompt "
             f"{total['prompt'] / count:.2f} s ({total['prompt_tokens'] / count:.0f} tokens evaluated in batches), "
             f"generate {total['generate'] / count:.2f} s "
             f"({total['passes'] / count:.0f} passes of {total['generated_tokens'] / count:.0f} tokens, and "
             f"{total['accepted'] / count:.0f} of {total['drafted'] / count:.0f} drafted tokens taken), "
             f"other {total['overhead'] / count:.2f} s"]
    times = [r["seconds"] for r in timed]
    fifth = max(1, count // 5)
    if count >= 2:
        lines.append(f"    LLM s/sentence: first {times[0]:.1f} s (cold), median of the rest "
                     f"{statistics.median(times[1:]):.2f} s, first fifth {statistics.mean(times[:fifth]):.2f} s, "
                     f"last fifth {statistics.mean(times[-fifth:]):.2f} s")
    return lines


def report(name: str, column: str, backend: str, results: list[dict]) -> list[str]:
    total = len(results) or 1
    exact = sum(r["exact"] for r in results) / total
    equiv = sum(r["equivalent"] for r in results) / total
    refused = sum(r["got"] is None for r in results)
    seconds = sum(r["seconds"] for r in results) / total
    by = {}
    for r in results:
        by[r["backend"].split(":")[0]] = by.get(r["backend"].split(":")[0], 0) + 1
    answered = ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
    lines = [f"{name} [{column}] rows {len(results)}  {backend:8s} exact {exact:.3f}  equivalent {equiv:.3f}  "
             f"refused {refused}  s/sentence {seconds:.3f}  (answered by: {answered})"]
    return lines + _llm_line(results)


def _score_all(rows: list[dict], root: Path, backend: str, args) -> tuple[list[dict], bool]:
    """Score every row, with a progress bar on a terminal; Ctrl-C keeps what is done."""
    results: list[dict] = []
    progress = None
    if sys.stderr.isatty():
        from rich.progress import Progress

        progress = Progress(transient=True)
        progress.start()
        task = progress.add_task(backend, total=len(rows))
    try:
        for row in rows:
            results.append(score(row, root, backend, args.language_model, args.samples))
            if progress:
                progress.advance(task)
    except KeyboardInterrupt:
        return results, True
    finally:
        if progress:
            progress.stop()
    return results, False


@contextlib.contextmanager
def shortcuts_off(model):
    """The LLM engine without its KV branches (every prompt continues from the head) and
    without draft tokens: what it did before them, with today's prompt."""
    engine = llm.load_language_model(model)._interpreter.engine
    saved = engine.branches, engine.draft_batch
    engine.branches, engine.draft_batch = (), 0
    try:
        yield
    finally:
        engine.branches, engine.draft_batch = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Dataset sets (development sets, not held out): "
                                     "$ELOT_LABTOM_DATA/statements/exp2_current_translations.csv, "
                                     "statements/exp1/exp1_{current,initial}_in_vs_out.csv")
    parser.add_argument("gold", nargs="*", type=Path, help=f"gold CSV files (default: {CORPUS.relative_to(REPO)})")
    parser.add_argument("--gold-column", help=f"the gold formula column (default: the first of {', '.join(GOLD_COLUMNS)})")
    parser.add_argument("--translator", default="offline",
                        help="comma-separated translators among offline, llm, auto (default: offline)")
    parser.add_argument("--language-model", metavar="PATH",
                        help="local GGUF file or transformers directory (llm, auto; default $ELOT_MODEL)")
    parser.add_argument("-n", "--samples", type=int, default=1, help="LLM samples per sentence (default 1)")
    parser.add_argument("--similar", type=int, help="examples most like the sentence repeated in the LLM prompt")
    parser.add_argument("--limit", type=int, help="only the first K rows of each file")
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="only every K-th row (a spread-out subset for slow backends)")
    parser.add_argument("--show-misses", action="store_true", help="list the sentences not matched exactly")
    parser.add_argument("--baseline", action="store_true",
                        help="llm: run the rows again with the engine's KV branches and draft tokens off, "
                             "in the same process, and print the ratio of median warm times")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.translator.split(",") if b.strip()]
    if any(b not in ("offline", "llm", "auto") for b in backends):
        parser.error(f"--translator: choose among offline, llm, auto, got {args.translator!r}")
    args.language_model = options.language_model(args.language_model)   # and $ELOT_LLM_THREADS, $ELOT_CACHE_DIR
    if args.similar is not None and args.language_model is not None:
        args.language_model = dataclasses.replace(args.language_model, similar_examples=args.similar)
    files = args.gold or [CORPUS]
    status = 0
    for path in files:
        if not path.is_file():
            print(f"gold file not found: {path} (set ELOT_LABTOM_DATA for the dataset's files)", file=sys.stderr)
            status = 2
            continue
        parents = path.resolve().parents
        root = next((p for p in parents if (p / "problems").is_dir()), labtom_root())
        rows, column = read_gold(path, args.gold_column)
        rows = rows[:: max(1, args.every)][: args.limit]
        for backend in backends:
            results, interrupted = _score_all(rows, root, backend, args)
            lines = report(path.name, column, backend, results)
            if interrupted:
                lines[0] += f"  (interrupted: {len(results)} of {len(rows)} rows)"
            print("\n".join(lines), flush=True)
            if interrupted:
                return 130
            if args.baseline and backend == "llm" and len(results) > 1:
                with shortcuts_off(args.language_model):
                    slow, interrupted = _score_all(rows, root, backend, args)
                print("\n".join(["  baseline (KV branches and drafts off):"] + report(path.name, column, backend, slow)))
                if interrupted:
                    return 130
                fast_median = statistics.median(r["seconds"] for r in results[1:])
                slow_median = statistics.median(r["seconds"] for r in slow[1:])
                print(f"    warm median {slow_median:.2f} s -> {fast_median:.2f} s: {slow_median / fast_median:.2f}x faster",
                      flush=True)
            if args.show_misses:
                for r in results:
                    if not r["exact"]:
                        tag = "equiv" if r["equivalent"] else "MISS"
                        print(f"  [{tag}] {r['statement']}\n      gold: {r['gold']}\n"
                              f"      got : {r['got'] or 'refused: ' + str(r['error'])} ({r['backend']})")
    return status


if __name__ == "__main__":
    sys.exit(main())
