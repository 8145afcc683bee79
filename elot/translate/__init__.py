"""English → ELoT.

:func:`translate` returns ranked candidate formulas, each parsed and typechecked against
the scenario's signature. Two translators:

* ``offline`` (:mod:`elot.translate.offline`): a deterministic parser for what people say
  about boxes, keys and colours; raises :class:`~elot.errors.TranslationError` when it
  does not understand a sentence.
* ``llm`` (:mod:`elot.translate.llm`): a local language model (a GGUF file or a
  transformers directory, given by ``language_model``), prompted with our own
  few-shot examples and constrained by a grammar generated from ``elot/grammar.lark``;
  several samples give a distribution over formulas. Needs ``pip install 'elot[llm]'``.

``translator="auto"`` asks the offline parser first: it answers what it fully understands
and refuses the rest. Only a refused sentence goes to the language model, when one is
given; its candidates are checked like any other. Each answer's ``backend`` says
which produced it. A sentence naming an object the scenario lacks is not passed on: that
refusal is an answer about the sentence, not a gap in the parser.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from elot.errors import ElotError, TranslationError
from elot.settings import CURRENT, INITIAL
from elot.translate.result import Candidate, Translation
from elot.translate.llm import SAMPLES, LanguageModel

if TYPE_CHECKING:
    from elot.lang.signature import Signature

__all__ = ["Candidate", "LanguageModel", "Translation", "translate", "translate_offline", "resolve_signature",
           "resolve_statement", "judged_mode"]

#: The translators :func:`translate` chooses among (``elot translate --translator``).
TRANSLATORS = ("auto", "offline", "llm")


def resolve_signature(scenario=None, signature: "Signature | None" = None) -> "Signature":
    """The signature to translate for: given, else the scenario's, else the default.

    ``scenario`` is an object with a ``signature`` attribute (a loaded scenario, a
    belief model): translation needs the scenario's objects, not its file format.
    """
    from elot.lang.signature import Signature

    if signature is not None:
        return signature
    if scenario is None:
        return Signature.default()
    if hasattr(scenario, "signature"):
        sig = scenario.signature
        return sig() if callable(sig) else sig
    raise TranslationError(
        f"cannot read objects from {scenario!r}",
        hint="give a loaded scenario (elot.domains.doors_keys_gems.load.load_scenario(path)) or a signature",
    )


def judged_mode(translated: str | None, given: str) -> str:
    """The mode a translated sentence is judged in: a sentence about the past ("initially
    believed ...") is about the initial belief whatever mode it came with; otherwise the
    mode given (a scenario's section, ``--initial``, the REPL's ``:initial``) stands."""
    return INITIAL if translated == INITIAL else given


def resolve_statement(text: str, *, mode: str = CURRENT, scenario=None, signature=None,
                      language_model: "str | LanguageModel | None" = None):
    """A statement as written → ``(formula, mode, translation)``.

    ELoT is kept as written (a malformed formula is reported by the parser, with a caret);
    English is translated (``translator="auto"``, with ``language_model`` when given) and
    its best candidate taken, ``translation`` being the full :class:`Translation`
    (``None`` for ELoT). Raises :class:`TranslationError` for English that cannot be
    translated.
    """
    from elot.lang.parser import looks_like_formula

    if looks_like_formula(text):
        return text, mode, None
    result = translate(text, scenario=scenario, signature=signature, language_model=language_model)
    return result.formula, judged_mode(result.mode, mode), result


def checked(formula: str, signature: "Signature"):
    """Parse and typecheck ``formula``; return its canonical text (raises on failure)."""
    from elot.lang.checker import check
    from elot.lang.parser import parse
    from elot.lang.printer import pretty

    from elot.lang.typesystem import EPISTEMIC, describe, is_subtype

    term = parse(formula)
    checked_term = check(term, signature)
    if not is_subtype(checked_term.type, EPISTEMIC, signature.is_subdomain):
        raise TranslationError(
            f"{pretty(term)} is a {describe(checked_term.type)}, not a statement",
            hint="a translation is an epistemic formula (type E) or a fact about the world (Φ)",
        )
    return pretty(term)


def translate_offline(sentence: str, signature: "Signature") -> Translation:
    """The offline parser's single candidate for ``sentence`` (weight 1)."""
    from elot.lang.printer import pretty
    from elot.translate.offline import parse_sentence

    start = time.perf_counter()
    reading = parse_sentence(sentence, signature)
    text = pretty(reading.term)
    try:
        text = checked(text, signature)
    except ElotError as error:
        # A parser rule built an ill-typed formula: never return it as an answer.
        raise TranslationError(
            f"the reading of {sentence.strip()!r} does not typecheck: {error.message}",
            hint="rephrase the sentence, or report it as a bug in the offline parser",
        ) from None
    return Translation(
        sentence=sentence,
        candidates=(Candidate(text, 1.0, reading.mode),),
        backend="offline",
        seconds=time.perf_counter() - start,
    )


def translate(
    sentence: str,
    *,
    scenario=None,
    signature: "Signature | None" = None,
    translator: str = "auto",
    language_model: "str | LanguageModel | None" = None,
    n: int = SAMPLES,
) -> Translation:
    """Translate one English sentence into ranked, typechecked ELoT candidates.

    ``scenario`` (a loaded scenario or a file) or ``signature`` gives the objects a
    sentence may mention (default: Doors, Keys & Gems). ``translator`` is ``"auto"``,
    ``"offline"`` or ``"llm"`` (``auto``: the offline parser, and the LLM for the
    sentences it refuses when a language model is given); ``language_model`` is a local
    GGUF file or transformers directory, or a :class:`LanguageModel` with its settings
    (the command line's default is ``$ELOT_MODEL``; the library reads no environment);
    ``n`` is the number of LLM samples. Past-tense sentences ("initially believed ...")
    get mode ``"initial"``.

    Raises :class:`TranslationError` when no typechecking translation is found.
    """
    if translator not in TRANSLATORS:
        raise TranslationError(f"unknown translator {translator!r}", hint=f"use one of {', '.join(TRANSLATORS)}")
    sig = resolve_signature(scenario, signature)
    model = language_model or None
    from elot.translate.llm import translate_llm

    if translator == "llm":
        return translate_llm(sentence, sig, model=model, n=n)
    try:
        return translate_offline(sentence, sig)
    except TranslationError as refusal:
        if translator == "offline" or not model or getattr(refusal, "definite", False):
            raise
        refused = refusal.message
        try:
            answer = translate_llm(sentence, sig, model=model, n=n, fallback=False)
        except TranslationError as error:
            refusal.notes = tuple(refusal.notes) + (f"the language model did not help: {error.message}",)
            raise refusal from None
    return replace(answer, notes=(f"the offline parser refused: {refused}",) + answer.notes)
