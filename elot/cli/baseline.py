"""``elot baseline``: rate statements with a language model, as the paper's LLM baselines
(see docs/baselines.md and :mod:`elot.baseline`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from elot.cli import options
from elot.settings import EXIT_OK


def register(subparsers) -> None:
    """Add ``baseline``."""
    p = subparsers.add_parser(
        "baseline", help="Rate statements with a language model (an OpenAI-compatible endpoint or a local model).",
        description="Ask a language model how likely each statement is (1 to 7) after watching the scenario up "
        "to the judgment point, described in words from the scenario (--condition plan or narrative). The "
        "results are a study table with the language model as one more model (L = (rating - 1) / 6), a "
        "manifest (model, settings, token usage, answers without a rating) beside it, and every answer in a "
        "cache: a rerun costs nothing and a killed run resumes.")
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                   help=".scn files or globs, example names, dataset plan ids (1_1, exp1/1_1), or 'all'; or "
                        "food-truck scenarios (.trucks files, foodtrucks:ID, or with --domain foodtrucks ids and "
                        "'all')")
    p.add_argument("--in-vs-out", action="store_true",
                   help="rate the dataset's in- vs out-of-context statements (statements/exp1/*_in_vs_out.csv)")
    p.add_argument("--maps", metavar="M,...", help="with --in-vs-out: only these maps (e.g. 1,2)")
    options.add_domain_options(p)
    options.add_exp_option(p, how=options.MANY, default=EXP_DEFAULT)
    options.add_batch_statement_options(p)
    options.add_mode_option(p)
    p.add_argument("--at", metavar="T,...", type=_points,
                   help="only these judgment points (default: each scenario's own)")
    p.add_argument("--condition", default="plan", metavar="C,...",
                   help="prompt conditions, comma-separated: plan (the actions and what they showed) and/or "
                        "narrative (the scene and the moves told) (default: %(default)s)")
    p.add_argument("--template", metavar="FILE",
                   help="a prompt template of your own (see elot baseline --show-template plan)")
    p.add_argument("--show-template", metavar="CONDITION", help="print the packaged template of a condition and exit")
    p.add_argument("--image", action="store_true",
                   help="add the stimulus frame at the judgment point (PNG) to each prompt, for multimodal endpoints")
    p.add_argument("--few-shot", metavar="RATINGS.csv",
                   help="show people's ratings of the scenario's other statements (columns scenario, mode, "
                        "statement, rating on 1 to 7)")
    backend = p.add_argument_group("the model")
    backend.add_argument("--endpoint", metavar="URL", default=_env("ELOT_BASE_URL", "OPENAI_BASE_URL"),
                         help="an OpenAI-compatible API base URL, e.g. https://api.openai.com/v1 or "
                              "http://localhost:8080/v1 (default: $ELOT_BASE_URL or $OPENAI_BASE_URL; "
                              "without one, the local model runs in this process)")
    backend.add_argument("--llm", metavar="NAME", help="the model the endpoint serves (e.g. gpt-4o)")
    backend.add_argument("--api-key", metavar="KEY",
                         help="the endpoint's key (default: $ELOT_API_KEY or $OPENAI_API_KEY; never written anywhere)")
    backend.add_argument("--no-json", action="store_true",
                         help="do not ask the endpoint for a JSON answer (response_format)")
    backend.add_argument("--logprobs", action="store_true",
                         help="ask the endpoint for token probabilities; the rating is the expected one over 1-7")
    backend.add_argument("--language-model", metavar="PATH",
                         help="the local GGUF model (default: $ELOT_MODEL; elot models fetches the built-in one)")
    backend.add_argument("--timeout", type=_positive("timeout", float, least=0.01, most=3600), default=None,
                         metavar="S", help="seconds one whole answer may take, 0.01 to 3600 (default: 120)")
    backend.add_argument("--retries", type=_positive("retries", int, most=100), default=None, metavar="N",
                         help="tries of one request on rate limits, server errors and timeouts before the "
                              "endpoint counts as down (default: 6, waiting 1, 2, 4, ... s between them)")
    backend.add_argument("--verbose", action="store_true", help="show llama.cpp's log")
    p.add_argument("--label", metavar="NAME", help="the model column's name before /CONDITION "
                   "(default: the model's name)")
    p.add_argument("--repeats", type=_positive("repeats", int, most=1000), default=1, metavar="N",
                   help="answers per prompt, averaged (endpoints; default: %(default)s)")
    p.add_argument("--temperature", type=_positive("temperature", float, zero=True), default=0.0, metavar="T", help="sampling temperature (default: 0)")
    options.add_seed_option(p, of="the endpoint's sampling (repeat r uses S + r)", default=0)
    p.add_argument("--dry-run", action="store_true",
                   help="write the rendered prompts (to -o, or standard output) instead of asking a model")
    p.add_argument("-o", "--output", metavar="OUT", type=options.output_file,
                   help="the table (.csv or .parquet, - for standard output); OUT.manifest.json goes beside it")
    p.add_argument("--cache", metavar="FILE", help="the answer cache (default: OUT.cache.jsonl)")
    options.add_force_option(p)
    p.set_defaults(func=baseline_command)


def _positive(name: str, kind: type, *, zero: bool = False, least: float | None = None,
              most: float | None = None):
    """An argparse type: a positive (or, with ``zero``, non-negative) finite number, at
    least ``least`` and at most ``most`` when given."""
    import argparse
    import math

    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not math.isfinite(value) or value < 0 or (value == 0 and not zero) or \
                (most is not None and value > most) or (least is not None and value < least):
            raise argparse.ArgumentTypeError(f"{name} must be a {'whole' if kind is int else 'finite'} number "
                                             + (f"from {least:g} to {most:g}" if least is not None else
                                                f"{'>= 0' if zero else '> 0'}" + (f" and at most {most:g}" if most
                                                                                  else ""))
                                             + f", not {text!r}")
        return value

    parse.__name__ = name
    return parse


def _env(*names: str) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def _points(text: str) -> tuple[int, ...]:
    """An argparse type: ``--at T,...``, judgment points (whole numbers >= 0), each once."""
    import argparse

    parse = _positive("a judgment point", int, zero=True)
    points = tuple(dict.fromkeys(parse(t.strip()) for t in text.split(",") if t.strip()))
    if not points:
        raise argparse.ArgumentTypeError("give at least one judgment point, e.g. --at 4 or --at 4,9")
    return points


def _conditions(text: str) -> list[str]:
    """The prompt conditions of ``--condition``, each once."""
    from elot.baseline import BaselineError
    from elot.baseline.prompts import CONDITIONS, check_condition

    conditions = list(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    if not conditions:
        raise BaselineError("--condition names no prompt condition", hint=f"use {' or '.join(CONDITIONS)} (or both, "
                                                                          "comma-separated)")
    for condition in conditions:
        check_condition(condition)
    return conditions


def baseline_command(args) -> int:
    from elot.baseline import BaselineError

    front = options.front_of(args, scenarios=args.scenarios)
    if args.show_template:
        from elot.baseline.prompts import check_condition

        check_condition(args.show_template)
        sys.stdout.write(front.prompt_template(args.show_template)[0])
        return EXIT_OK
    conditions = _conditions(args.condition)
    if args.maps is not None and not args.in_vs_out:
        raise BaselineError("--maps chooses maps of the in-vs-out statements, and there is no --in-vs-out",
                            hint="add --in-vs-out, or leave out --maps (plan ids such as 1_1 choose plans)")
    if not args.dry_run and not args.output:
        raise BaselineError("elot baseline needs -o OUT for its table (or --dry-run to see the prompts)")
    items, scenarios, inputs = _items(args, front)
    if not args.dry_run:
        fmt, cache = _check_outputs(args, inputs)   # before anything is asked: a refused path fails fast
    prompts = _prompts(args, conditions, items, scenarios, front)
    if args.dry_run:
        text = "".join(f"### {p.item.scenario} t={p.item.t} {p.item.mode} #{p.item.statement_id} ({p.condition})\n"
                       f"{p.text()}\n" for p in prompts)
        if args.output in (None, "-"):
            sys.stdout.write(text)
        else:
            from elot.study.params import write_study

            write_study(args.output, text, force=args.force, inputs=inputs, option="the output")
            print(f"{len(prompts)} prompts written to {args.output}", file=sys.stderr)
        return EXIT_OK
    backend, label = _backend(args)
    from elot.baseline.run import CacheError, manifest_text, run_baseline
    from elot.output import count
    from elot.study.params import write_study
    from elot.study.tables import write_table_text

    settings = {"conditions": conditions, "template": args.template or "packaged", "image": args.image,
                "few_shot": args.few_shot, "in_vs_out": args.in_vs_out}
    try:
        with options.progress_bar("rating") as progress:
            result = run_baseline(prompts, backend, cache, label=args.label or label, repeats=args.repeats,
                                  temperature=args.temperature, seed=args.seed, settings=settings, progress=progress)
    except KeyboardInterrupt:
        print(f"interrupted: every answer so far is kept in {cache}; run the same command again to go on",
              file=sys.stderr)
        return 130
    except BaselineError as error:
        kept = () if isinstance(error, CacheError) or not os.path.exists(cache) else \
            (f"every answer so far is kept in {cache}",)
        error.notes = (*error.notes, *kept, f"nothing was written to {args.output}")
        raise
    m = result.manifest
    missing = sum(m["no_rating"].values())
    asked_logprobs = bool(m["backend"].get("logprobs"))
    print(f"{count(m['prompts'], 'prompt')}, {count(m['answers'], 'answer')} ({m['asked']} asked, "
          f"{m['from_cache']} from the cache) in {m['seconds']:.1f} s; "
          f"{m['rated']} rated, {missing} without a rating"
          + (" (" + ", ".join(f"{n} {s}" for s, n in m["no_rating"].items()) + ")" if missing else "")
          + (f"; {m['from_token_probabilities']} of {m['rated']} ratings from token probabilities"
             if asked_logprobs else ""),
          file=sys.stderr)
    if m["answers"] and not m["rated"]:
        from elot.output import excerpt

        raise BaselineError(f"no answer gave a rating, so nothing was written to {args.output}",
                            notes=(*(f"an answer ({status}): {excerpt(text)!r}" for status, text in result.unrated),
                                   f"every answer is kept in {cache}"),
                            hint="check the model and the template (elot baseline --dry-run shows the prompts; "
                                 "the cache holds each answer's text)")
    if asked_logprobs and m["from_token_probabilities"] < m["rated"]:
        print(f"warning: the endpoint gave no token probabilities for {m['rated'] - m['from_token_probabilities']} "
              f"of the {m['rated']} ratings; those were read from the answer's text", file=sys.stderr)
    write_table_text(args.output, result.table_text(), fmt, force=args.force, inputs=inputs)
    if args.output != "-":
        write_study(f"{args.output}.manifest.json", manifest_text(result.manifest), force=args.force,
                    inputs=inputs, option="the manifest")
    return EXIT_OK


#: The table formats of ``-o``, by suffix.
FORMATS = {".csv": "csv", ".parquet": "parquet"}


def _check_outputs(args, inputs):
    """The table's format and the answer cache, after the checks of every path the run
    writes (the table, the manifest beside it, the cache), made before anything is asked
    with the rules of the final write."""
    from elot.baseline import BaselineError
    from elot.baseline.run import check_cache
    from elot.study.params import check_replace

    output = args.output
    if output == "-":
        fmt = "csv"
    else:
        suffix = Path(output).suffix.lower()
        if suffix not in FORMATS:
            raise BaselineError(f"-o {output}: a baseline table is written as .csv or .parquet"
                                + (f", not {suffix}" if suffix else ""),
                                hint="name the table OUT.csv or OUT.parquet (or - for standard output)")
        fmt = FORMATS[suffix]
    if fmt == "parquet":
        from elot.study.tables import pyarrow_modules

        pyarrow_modules("Parquet output")
    targets = [(output, "-o")] + ([(f"{output}.manifest.json", "the manifest")] if output != "-" else [])
    for path, option in targets:
        check_replace(path, force=args.force, inputs=inputs, option=option)
    cache = args.cache or (f"{output}.cache.jsonl" if output != "-" else None)
    if cache is None:
        raise BaselineError("with -o - give the answer cache with --cache FILE")
    check_cache(cache, outputs=[p for p, _ in targets if p != "-"], inputs=inputs)
    return fmt, cache


def _items(args, front):
    """What is rated, the scenarios by table name, and the files the run reads (which
    it never writes over)."""
    from elot.baseline import BaselineError
    from elot.baseline.items import scenario_items
    from elot.baseline.prompts import Item
    from elot.errors import ElotError
    from elot.study.references import DomainRef, ScenarioRef, expand

    inputs = [p for p in (args.template, args.few_shot) if p]
    domain = DomainRef.of(front, args.domain)
    if args.in_vs_out:
        if not hasattr(front, "in_vs_out"):
            raise BaselineError(f"--in-vs-out rates the LaBToM dataset's statements; the {front.name} domain has none",
                                hint="give the domain's scenarios and statements")
        if args.scenarios or args.statement or args.statements:
            raise BaselineError("--in-vs-out rates the dataset's own statements",
                                hint="leave out the scenarios and statements, or --in-vs-out")
        maps = None
        if args.maps is not None:
            maps = list(dict.fromkeys(m.strip() for m in args.maps.split(",") if m.strip()))
            if not maps:
                raise BaselineError("--maps names no map", hint="give map numbers, e.g. --maps 1,2")
        try:
            rows, keys, read = front.in_vs_out(maps)
        except ElotError as error:
            raise BaselineError.of(error) from None
        items = [Item(*row) for row in rows]
        scenarios = {name: ScenarioRef(name, key, domain) for name, key in keys.items()}
        inputs += read
    else:
        if not args.scenarios:
            raise BaselineError("no scenarios to rate", hint=f"give scenarios of the {front.name} domain (or 'all'), "
                                                             "or --in-vs-out")
        refs = expand(front, args.scenarios, domain)
        items, scenarios = scenario_items(refs, _given(args, front))
        inputs += list(args.statements) + [f for ref in refs for f in front.episode_inputs(ref.load())]
    return _at(args, items), scenarios, list(dict.fromkeys(inputs))


#: ``--exp``'s default here.
EXP_DEFAULT = "exp1,exp2"


def _at(args, items):
    """Only the items at ``--at``'s judgment points (each must be one)."""
    from elot.baseline import BaselineError

    if args.at:
        there = sorted({item.t for item in items})
        absent = [t for t in args.at if t not in there]
        if absent:
            raise BaselineError(f"--at: no statement is judged at t = {', '.join(map(str, absent))}",
                                hint="the judgment points here are t = " + ", ".join(map(str, there)))
        items = [item for item in items if item.t in args.at]
    return items


def _given(args, front):
    """The statements given (``-s``, then each ``--statements`` file's), each with where
    it was written, so that an error points there."""
    from elot.baseline import BaselineError
    from elot.errors import ElotError
    from elot.study.references import given_items

    try:
        return given_items(args.statement, args.statements, options.mode_of(args, front))
    except ElotError as error:   # a statements file missing or unreadable: the baseline's error
        raise BaselineError.of(error) from None


def _prompts(args, conditions, items, scenarios, front):
    from elot.baseline import BaselineError
    from elot.baseline.items import read_shots
    from elot.baseline.prompts import load_template, render

    shots = None
    if args.few_shot:
        shots = read_shots(args.few_shot)
        if not shots:
            raise BaselineError(f"{args.few_shot}: the few-shot ratings file has no ratings",
                                hint="give people's ratings (columns scenario, mode, statement, rating), "
                                     "or leave out --few-shot")
        rated = {(item.scenario, item.mode) for item in items}
        if not rated & set(shots):
            have = sorted({f"{s} ({m})" for s, m in shots})
            raise BaselineError(f"{args.few_shot}: no rating is about a scenario and mode rated here, so no "
                                "prompt would show one",
                                notes=(f"it rates {', '.join(have[:5])}" + (f" and {len(have) - 5} more"
                                                                             if len(have) > 5 else ""),),
                                hint="its scenario column names scenarios as the table does (exp1/1_1, "
                                     "two-doors); its mode is current or initial")
        bare = sorted(rated - set(shots))
        if bare:
            print(f"warning: {args.few_shot} has no ratings for {_count_pairs(bare)}; their prompts show no "
                  "examples", file=sys.stderr)
    scenes: dict = {}
    prompts = []
    for condition in conditions:
        template = load_template(condition, args.template, front)
        prompts += [render(item, scenarios[item.scenario], condition, template, ratings=shots, image=args.image,
                           _scenes=scenes) for item in items]
    return prompts


def _count_pairs(pairs) -> str:
    from elot.output import count

    shown = ", ".join(f"{s} ({m})" for s, m in pairs[:3])
    return f"{count(len(pairs), 'scenario and mode', 'scenarios and modes')} ({shown}{' ...' if len(pairs) > 3 else ''})"


def _backend(args):
    from elot.baseline import BaselineError

    if args.endpoint:
        from elot.baseline.endpoint import Endpoint

        if not args.llm:
            raise BaselineError("--endpoint needs --llm NAME, the model to ask there", hint="e.g. --llm gpt-4o")
        kwargs = {} if args.timeout is None else {"timeout": args.timeout}
        if args.retries is not None:
            kwargs["retries"] = args.retries
        endpoint = Endpoint(args.endpoint, args.llm, api_key=args.api_key or _env("ELOT_API_KEY", "OPENAI_API_KEY"),
                            json_mode=not args.no_json, logprobs=args.logprobs, **kwargs)
        return endpoint, args.llm
    from elot.baseline.local import LocalModel

    path = args.language_model or os.environ.get("ELOT_MODEL")
    if not path:
        raise BaselineError("no model to ask", hint="give --endpoint URL --llm NAME, or a local GGUF model with "
                                                    "--language-model PATH or $ELOT_MODEL (elot models fetches one)")
    threads = os.environ.get("ELOT_LLM_THREADS", "")
    model = LocalModel(str(Path(path).expanduser()), threads=int(threads) if threads.isdigit() and int(threads) else None,
                       verbose=args.verbose)
    if args.repeats != 1 or args.temperature:
        raise BaselineError("the local model gives the expected rating, the same every time",
                            hint="leave out --repeats and --temperature with a local model")
    return model, Path(path).stem.replace("-instruct", "").replace("-q4_k_m", "")
