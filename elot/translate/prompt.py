"""The prompt a language model translating English into ELoT is given: our own
instructions and few-shot examples (``data/prompt.json``), as a fixed head that is the same
for every sentence and scenario (:func:`prompt_head`), one cached branch per example
(:func:`branch_texts`), and a tail per sentence that repeats the examples most like it
(:func:`prompt_tail`). :mod:`elot.translate.llm` decodes after it.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

#: Where the packaged prompt lives.
PROMPT_FILE = "prompt.json"
#: How many of the examples most like the sentence are repeated right before it. The
#: first continues a cached branch, the others are evaluated per sentence: on our corpus
#: (105 sentences) and held-out set (20) one was as accurate as two (0.505 / 0.600 and
#: 0.250 / 0.350, against 0.514 / 0.600 and 0.250 / 0.350), at 2.1 s instead of 3.3 s.
SIMILAR_EXAMPLES = 1


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
