"""The prompt a language model translating English into ELoT is given: instructions and
few-shot examples, as a fixed head that is the same for every sentence of a domain
(:func:`prompt_head`), one cached branch per example (:func:`branch_texts`), and a tail per
sentence that repeats the examples most like it (:func:`prompt_tail`).
:mod:`elot.translate.llm` decodes after it.

The examples speak the domain (:func:`prompt_data`): a signature with the predicates of the
default one (Doors, Keys & Gems: boxes, keys, colours) gets our own packaged instructions and
examples (``data/prompt.json``), whose head and branches llama.cpp keeps evaluated on disk;
any other signature gets instructions naming its agent, objects and predicates, and examples
made from its own atoms (:func:`domain_prompt`): each an epistemic formula said in the
domain's words by :func:`elot.lang.english.english`, kept only where the offline reader
reads the sentence back to a formula said in the same words, so that no example teaches
what the reader and the generator disagree on.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from itertools import islice, product
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elot.lang.signature import Signature

#: Where the packaged prompt lives.
PROMPT_FILE = "prompt.json"
#: How many of the examples most like the sentence are repeated right before it. The
#: first continues a cached branch, the others are evaluated per sentence: on our corpus
#: (105 sentences) and held-out set (20) one was as accurate as two (0.505 / 0.600 and
#: 0.250 / 0.350, against 0.514 / 0.600 and 0.250 / 0.350), at 2.1 s instead of 3.3 s.
SIMILAR_EXAMPLES = 1
#: The most examples a domain's prompt is given (the packaged prompt has 16).
DOMAIN_EXAMPLES = 16
#: The most objects a domain's instructions name (the decoding grammar allows every one).
NAMED_OBJECTS = 40
#: The epistemic forms a domain's examples are made of, over atoms ``a`` and ``b`` and an
#: object ``o`` of the domain; the observed agent is ``A``.
FORMS = (
    "believes({A}, formula({a}))",
    "believes({A}, might({a}))",
    "knows_that({A}, formula(not({a})))",
    "certain({A}, formula({a}))",
    "believes({A}, likely({a}))",
    "uncertain_if({A}, formula({a}))",
    "believes({A}, could({a}))",
    "believes({A}, unlikely({a}))",
    "knows_that({A}, formula({a}))",
    "believes({A}, must(not({a})))",
    "believes({A}, formula(and({a}, {b})))",
    "believes({A}, formula(or({a}, {b})))",
    "certain({A}, must({a}))",
    "wants({A}, {o})",
)


def packaged_prompt() -> dict:
    """Our own instructions and few-shot examples (``elot/translate/data/prompt.json``),
    written for the default signature (Doors, Keys & Gems)."""
    text = resources.files("elot.translate").joinpath("data", PROMPT_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def prompt_data(signature: "Signature | None" = None) -> dict:
    """The instructions and few-shot examples for sentences over ``signature``: the
    packaged ones where the signature has the default signature's predicates (or none is
    given), else the domain's own (:func:`domain_prompt`)."""
    if signature is None or _speaks_default(signature):
        return packaged_prompt()
    return domain_prompt(signature)


def _speaks_default(signature: "Signature") -> bool:
    from elot.lang.signature import Signature

    own = signature.predicate_types
    return all(own.get(name) == types for name, types in Signature.default().predicate_types.items())


def _atoms(signature: "Signature") -> list[str]:
    """The domain's ground atoms a statement may be about, taken in turn from each
    predicate (the first objects of each argument type first), so that consecutive atoms
    vary."""
    rows = []
    for name, types in signature.predicate_types.items():
        objects = [signature.objects_of(t) for t in types]
        if name in signature.derived or signature.is_percept(name) or not types or not all(objects):
            continue
        rows.append([f"{name}({', '.join(args)})" for args in islice(product(*objects), DOMAIN_EXAMPLES)])
    return [row[i] for i in range(DOMAIN_EXAMPLES) for row in rows if i < len(row)]


def _wanted(signature: "Signature") -> list[str]:
    """The objects a desire example is about: those no fact is about (the coffee shop's
    drinks, a blocks world's words), else those the first fact is first about (the food
    trucks)."""
    used = {kind for types in signature.predicate_types.values() for kind in types}
    kinds = signature.object_types
    free = [name for name, kind in signature.objects if not signature.is_subdomain(kind, "agent")
            and not any(signature.is_subdomain(kind, other) for other in used)]
    first = next(iter(signature.predicate_types.values()), ())
    return free or [name for name in (signature.objects_of(first[0]) if first else ())
                    if not signature.is_subdomain(kinds[name], "agent")]


@lru_cache(maxsize=8)
def domain_prompt(signature: "Signature") -> dict:
    """Instructions and examples in ``signature``'s own terms (see the module): the
    instructions name its agent, objects and predicates; the examples are :data:`FORMS`
    over its atoms (at most :data:`DOMAIN_EXAMPLES`), each kept where it typechecks, the
    domain's English says it, and the offline reader reads that sentence back to a
    formula the same English says (the reader's formula is the example's)."""
    from elot.errors import ElotError
    from elot.lang.english import constant, english
    from elot.translate import translate_offline

    atoms = _atoms(signature)
    agent = next((alias for alias, target in signature.aliases if target == signature.agent), signature.agent)
    wanted = _wanted(signature)
    examples: list[dict] = []
    seen: set[str] = set()
    for turn in range(len(FORMS) * max(1, len(atoms))):
        if len(examples) >= DOMAIN_EXAMPLES or not atoms:
            break
        form, k = FORMS[turn % len(FORMS)], turn + turn // len(FORMS)   # each round shifts the atoms
        if "{o}" in form and not wanted:
            continue
        text = form.format(A=agent, a=atoms[k % len(atoms)], b=atoms[(k + 1) % len(atoms)],
                           o=wanted[k % len(wanted)] if wanted else "")
        try:
            sentence = english(text, signature=signature)
            formula = translate_offline(sentence, signature).formula
            if formula in seen or english(formula, signature=signature) != sentence:
                continue
        except ElotError:
            continue
        seen.add(formula)
        examples.append({"sentence": sentence, "formula": formula})
    said = constant(signature.agent, signature)
    named = ", ".join(f"{name} ({kind})" for name, kind in signature.objects[:NAMED_OBJECTS])
    more = f" and {len(signature.objects) - NAMED_OBJECTS} more" if len(signature.objects) > NAMED_OBJECTS else ""
    predicates = ", ".join(f"{name}({', '.join(types)})" for name, types in signature.predicate_types.items()
                           if name not in signature.derived)
    atom = atoms[0] if atoms else "..."
    instructions = "\n".join([
        f"Translate English sentences about what {said} believes into ELoT, an epistemic language of thought.",
        f"Formulas are Prolog-like terms. The objects are {named}{more}; {said} is written {agent}.",
        f"The predicates are {predicates or 'none'}.",
        f"Facts go inside formula(...): believes({agent}, formula({atom})).",
        f"Modals wrap the fact directly: believes({agent}, might({atom})), with might, may, could, can, "
        "should, must, likely, unlikely.",
        f"Knowledge: knows_that({agent}, formula(...)); certainty: certain({agent}, ...); "
        f"uncertainty: uncertain_if({agent}, formula(...)).",
        f"Desires take objects, not formulas: wants({agent}, {wanted[0] if wanted else 'OBJECT'}).",
        f"Statements about what {said} initially believed are translated like present-tense ones.",
    ])
    return {"about": "made from the domain's signature", "instructions": instructions, "examples": examples}


@lru_cache(maxsize=8)
def prompt_head(signature: "Signature | None" = None) -> str:
    """Instructions and every example: the same for every sentence and every scenario of
    a domain, so that llama.cpp evaluates it once and reuses it from its KV cache."""
    data = prompt_data(signature)
    parts = [data["instructions"].strip()]
    parts.extend(example_block(example) for example in data["examples"])
    return "\n\n".join(parts)


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+|\d+", text.lower())) - {"the", "player", "a", "is", "that"}


def similar_examples(sentence: str, k: int | None = None, signature: "Signature | None" = None) -> list[dict]:
    """The ``k`` examples whose words overlap most with the sentence's (Jaccard), best
    last (nearest the sentence)."""
    words = _words(sentence)
    examples = prompt_data(signature)["examples"]

    def score(index: int) -> tuple[float, int]:
        other = _words(examples[index]["sentence"])
        return (len(words & other) / (len(words | other) or 1), -index)

    best = sorted(range(len(examples)), key=score, reverse=True)[:SIMILAR_EXAMPLES if k is None else k]
    return [examples[i] for i in reversed(best)]


def example_block(example: dict) -> str:
    return f"Sentence: {example['sentence']}\nELoT: {example['formula']}"


def prompt_tail(sentence: str, k: int | None = None, signature: "Signature | None" = None) -> str:
    """What changes per sentence: the ``k`` examples most like the sentence (the first
    continues a cached branch of the head, see :func:`branch_texts`) and the sentence,
    with ``ELoT:`` left for the model to complete. The scenario's objects are not named:
    the decoding grammar allows only those (naming them cost about 30 tokens, a second
    per new scenario, and no accuracy on our corpus: docs/translation.md)."""
    k = SIMILAR_EXAMPLES if k is None else k
    parts = [example_block(example) for example in (similar_examples(sentence, k, signature) if k else [])]
    parts.append(f"Sentence: {sentence.strip()}\nELoT: ")
    return "\n\n".join(parts)


def branch_texts() -> list[str]:
    """The prompt head followed by each example: what every prompt starts with (the
    tail's first example is one of them). llama.cpp keeps each as a sequence of its own,
    sharing the head's cells, so that a sentence pays only for what follows."""
    head = prompt_head()
    return [f"{head}\n\n{example_block(example)}\n\n" for example in packaged_prompt()["examples"]]


def build_prompt(sentence: str, k: int | None = None, signature: "Signature | None" = None) -> str:
    """The completion prompt for ``sentence`` over ``signature``: the domain's fixed head,
    then :func:`prompt_tail`."""
    return f"{prompt_head(signature)}\n\n{prompt_tail(sentence, k, signature)}"
