"""Running a GGUF model fast with llama.cpp under guidance, for :mod:`elot.translate.llm`:
an engine that computes logits for the last position only and continues the longest
cached prefix among its sequences (:func:`_engine_class`), the prompt's fixed part and
one branch per example kept in one KV cache and saved to disk (:func:`prepare_prefixes`,
:func:`prefix_state_path`), speculative decoding by prompt lookup (:func:`prompt_lookup`),
where the time goes (:class:`Timings`), the thread count (:func:`threads`) and silencing
third-party chatter (:func:`quiet`).
"""

from __future__ import annotations

import contextlib
import logging
import operator
import os
import time
import warnings
from itertools import takewhile
from pathlib import Path

from elot.errors import TranslationError
from elot.translate.prompt import branch_texts, prompt_head

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
