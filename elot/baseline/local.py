"""The built-in local model as a baseline: a GGUF model run in this process by llama.cpp
(the backend of :mod:`elot.translate.llm`), rated by its token probabilities.

The prompt is put through the model's own chat template, followed by the start of the
answer the prompt asks for (``{"rating": ``); one forward pass gives the next token's
distribution, and the rating is the expected value over the seven tokens ``1`` … ``7``
(renormalized; their total probability is kept as ``mass``, a measure of how much the
model wanted to answer on the scale at all). No text is generated, so there is nothing
to parse and no answer is off-format; the same prompt always gives the same rating, so
repeats and temperature do not apply.

Prompts that share a beginning (every statement about the same scenario and judgment
point shares the scene) reuse llama.cpp's KV cache: only the tokens after the longest
common prefix with the previous prompt are evaluated. Rating the prompts in scene order
(:func:`elot.baseline.run.run_baseline` does) makes each scene cost one evaluation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from elot.baseline.endpoint import Answer
from elot.baseline.parse import Parsed
from elot.baseline.prompts import HIGH, LOW, BaselineError, Prompt
from elot.numeric import fsum
from elot.translate.llama_engine import _common_prefix

#: The start of the answer every template asks for; the next token is the rating.
ANSWER_START = '{"rating": '
#: llama.cpp's context: the longest prompt (a narrative of a long plan and its map) fits.
CONTEXT_TOKENS = 4096


@dataclass
class LocalModel:
    """A GGUF model rated in-process by llama.cpp (``threads``: None for every core this
    process may use)."""

    path: str
    threads: int | None = None
    verbose: bool = False
    context: int = CONTEXT_TOKENS
    _llama: object = field(default=None, repr=False)
    _tokens: list = field(default_factory=list, repr=False)   # what the KV cache holds
    evaluated: int = 0   # prompt tokens actually evaluated (the rest came from the KV cache)

    def describe(self) -> dict:
        p = Path(self.path)
        size = p.stat().st_size if p.is_file() else None
        return {"backend": "llama.cpp", "model": p.name, "bytes": size, "answer": "expected rating over 1-7 "
                "from the next-token probabilities after " + ANSWER_START}

    def load(self):
        if self._llama is not None:
            return self._llama
        from elot.translate.llama_engine import no_repacking, quiet, threads
        from elot.translate.llm import available

        if not Path(self.path).is_file():
            raise BaselineError(f"no model file at {self.path}",
                                hint="fetch the built-in model with elot models, or give a GGUF file with --language-model")
        why = available(self.path)
        if why is not None and "guidance" not in why:
            raise BaselineError(why, hint="pip install 'elot[llm]', or rate through an endpoint (--endpoint)")
        import llama_cpp

        with quiet(self.verbose), no_repacking():
            try:
                self._llama = llama_cpp.Llama(model_path=str(self.path), n_ctx=self.context, n_batch=512,
                                              n_threads=threads(self.threads), n_threads_batch=threads(self.threads),
                                              logits_all=False, verbose=self.verbose)
            except (ValueError, OSError, RuntimeError) as error:
                raise BaselineError(f"cannot load {Path(self.path).name}: {error}",
                                    hint="is it a GGUF model file that this llama-cpp-python can read?") from None
        self._answer_start, self._digits = self._rating_tokens()
        return self._llama

    def _decode(self, tokens: list[int], cached: int):
        """Evaluate ``tokens`` after the first ``cached`` (already in the KV cache) and
        return the logits after the last one (the only row llama.cpp computes)."""
        import llama_cpp
        import numpy as np

        from elot.translate.llama_engine import decode

        llama = self._llama
        ctx = llama._ctx.ctx
        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), 0, cached, -1)
        if not decode(ctx, llama._batch.batch, llama.n_batch, tokens, cached, len(tokens) - 1):
            self._tokens = []
            raise BaselineError("llama.cpp could not evaluate the prompt", hint="run with --verbose to see its log")
        row = llama_cpp.llama_get_logits_ith(ctx, -1)
        return np.ctypeslib.as_array(row, shape=(llama.n_vocab(),)).astype(np.float64)

    def _chat(self, messages: list[dict]) -> str:
        """The model's chat template applied to ``messages`` (ChatML when it has none)."""
        llama = self._llama
        template = (llama.metadata or {}).get("tokenizer.chat_template")
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def text_of(token: int) -> str:
                return llama._model.token_get_text(token) if token != -1 else ""

            formatter = Jinja2ChatFormatter(template=template, eos_token=text_of(llama.token_eos()),
                                            bos_token=text_of(llama.token_bos()), add_generation_prompt=True)
            return formatter(messages=messages).prompt
        return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages) + "<|im_start|>assistant\n"

    def _rating_tokens(self) -> tuple[str, list[int]]:
        """The answer start and the token of each rating after it: each digit must be one
        token of its own there (else the answer start loses its trailing space)."""
        llama = self._llama
        for start in (ANSWER_START, ANSWER_START.rstrip()):
            base = llama.tokenize(start.encode(), add_bos=False, special=False)
            digits = []
            for rating in range(LOW, HIGH + 1):
                sep = "" if start.endswith(" ") else " "
                ids = llama.tokenize(f"{start}{sep}{rating}".encode(), add_bos=False, special=False)
                if ids[:len(base)] == base and len(ids) == len(base) + 1:
                    digits.append(ids[-1])
            if len(digits) == HIGH - LOW + 1 and len(set(digits)) == len(digits):
                return start, digits
        raise BaselineError(f"{Path(self.path).name}: the ratings 1-7 are not single tokens after {ANSWER_START!r}",
                            hint="use another model, or rate through an endpoint (--endpoint)")

    def rate(self, prompt: Prompt, temperature: float = 0.0, seed: int = 0) -> Answer:
        if prompt.image is not None:
            raise BaselineError("the local model reads text only", hint="leave out --image, or use a multimodal endpoint")
        llama = self.load()
        text = self._chat(prompt.messages()) + self._answer_start
        tokens = llama.tokenize(text.encode("utf-8"), add_bos=True, special=True)
        if len(tokens) >= self.context:
            raise BaselineError(f"{prompt.item.scenario}: the prompt has {len(tokens):,} tokens, more than the "
                                f"model's context of {self.context:,}", hint="use the plan condition, or a shorter template")
        cached = min(_common_prefix(self._tokens, tokens), len(tokens) - 1)   # one token at least: its logits
        logits = self._decode(tokens, cached)
        self._tokens = tokens
        self.evaluated += len(tokens) - cached
        top = float(logits.max())
        log_z = top + math.log(fsum([math.exp(x) for x in (logits - top).tolist()]))
        probs = [math.exp(float(logits[t]) - log_z) for t in self._digits]
        mass = fsum(probs)
        if not mass > 0:
            return Answer("", Parsed(None, "no number"), 0.0, len(tokens), 0)
        rating = fsum([r * p for r, p in zip(range(LOW, HIGH + 1), probs)]) / mass
        shown = " ".join(f"{r}:{p / mass:.3f}" for r, p in zip(range(LOW, HIGH + 1), probs))
        return Answer(shown, Parsed(rating), mass, len(tokens), 0)
