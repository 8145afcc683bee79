"""``elot translate``: English sentences → ranked ELoT formulas.

One sentence as an argument, or many from ``--file F`` (``-`` for standard input), one
per line. Each sentence's candidates are printed with their weights, modes and lowered
forms (a table, or JSON lines with ``--json``). A sentence that cannot be translated
prints its error on stderr; with ``--file`` the other lines are still processed. The exit
status is 2 if any sentence failed, else 0.
"""

from __future__ import annotations

import json
import sys
from typing import Iterator

from elot.cli import EXIT_OK, EXIT_USAGE
from elot.errors import ElotError
from elot.translate import BACKENDS


def register(subparsers) -> None:
    """Add ``translate``."""
    p = subparsers.add_parser(
        "translate",
        help="Translate English sentences into ELoT formulas.",
        description="Translate English sentences about an agent's beliefs into ranked ELoT "
        "formulas, each parsed and typechecked.",
    )
    p.add_argument("sentence", nargs="?", metavar="SENTENCE",
                   help="an English sentence, or - to read sentences from standard input")
    p.add_argument("--file", "-f", metavar="FILE", help="read sentences from FILE, one per line")
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="auto (default): the LLM if a model is configured, else the offline parser")
    p.add_argument("--model", metavar="PATH",
                   help="a local GGUF file or transformers directory (default: $ELOT_MODEL)")
    p.add_argument("--scenario", metavar="PATH",
                   help="take boxes and colours from a scenario (.scn) or PDDL problem (.pddl) file")
    p.add_argument("-n", "--samples", type=int, default=10, metavar="N",
                   help="LLM samples per sentence (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object per sentence")
    p.set_defaults(func=handler)


def _sentences(args) -> Iterator[tuple[str, int | None, str]]:
    """(path, line number or None, sentence) for each sentence asked for."""
    if args.file and args.sentence is not None:
        raise ElotError("give a sentence or --file, not both", hint="elot translate --file sentences.txt")
    source = args.file or (args.sentence if args.sentence == "-" else None)
    if source is None:
        if not args.sentence:
            raise ElotError("no sentence given", hint='elot translate "The player thinks box 1 is empty."')
        yield "<argument>", None, args.sentence
        return
    if source == "-":
        lines, path = sys.stdin.read().splitlines(), "<stdin>"
    else:
        from elot.errors import read_text

        lines, path = read_text(source, "sentences").splitlines(), source
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield path, number, line.strip()


def _lowered(formula: str, signature) -> str:
    from elot.lowering import lower
    from elot.printer import pretty

    try:
        return pretty(lower(formula, signature))
    except ElotError as error:
        return f"(cannot lower: {error.message})"


def handler(args) -> int:
    from elot.translate import resolve_signature, translate

    signature = resolve_signature(args.scenario)
    status = EXIT_OK
    console = None
    if not args.json:
        from rich.console import Console

        console = Console(highlight=False)
    for path, number, sentence in _sentences(args):
        try:
            result = translate(sentence, signature=signature, backend=args.backend,
                               model=args.model, n=args.samples)
        except ElotError as error:
            status = EXIT_USAGE
            if number is not None and error.path is None:
                error.path = f"{path}:{number}"
            print(error.render(), file=sys.stderr)
            continue
        rows = [(c.formula, c.weight, c.mode, _lowered(c.formula, signature)) for c in result.candidates]
        if args.json:
            print(json.dumps({
                "sentence": sentence,
                "line": number,
                "backend": result.backend,
                "seconds": round(result.seconds, 4),
                "candidates": [
                    {"formula": f, "weight": w, "mode": m, "lowered": low} for f, w, m, low in rows
                ],
                "notes": list(result.notes),
            }), flush=True)
            continue
        _table(console, sentence, number, result, rows)
    return status


def _table(console, sentence, number, result, rows) -> None:
    from rich.table import Table

    title = f"{number}: {sentence}" if number is not None else sentence
    table = Table(title=title, title_justify="left", caption=f"backend: {result.backend}",
                  caption_justify="left", show_lines=True)
    table.add_column("weight", justify="right")
    table.add_column("mode")
    table.add_column("formula / lowered", overflow="fold")
    for formula, weight, mode, lowered in rows:
        table.add_row(f"{weight:.2f}", mode, f"{formula}\n[dim]{lowered}[/dim]")
    console.print(table)
    for note in result.notes:
        console.print(f"[dim]note: {note}[/dim]")
