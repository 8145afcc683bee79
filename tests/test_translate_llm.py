"""The LLM backend: prompt data, ranking of samples, fallback, and the constrained
decoder on a small packaged model (skipped without the llm extra or a model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from elot.lang.checker import check
from elot.errors import TranslationError
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.lang.signature import Signature
from elot.translate import llm, llama_engine, prompt, translate
from elot.translate.offline import statement_mode
from helpers import small_language_model


def test_prompt_examples_typecheck_and_agree_with_the_offline_parser():
    data = prompt.prompt_data()
    assert len(data["examples"]) >= 10
    for example in data["examples"]:
        check(example["formula"])
        assert pretty(parse(example["formula"])) == example["formula"]
        assert translate(example["sentence"], translator="offline").formula == example["formula"]


def test_prompt_continues_a_cached_branch_and_ends_with_the_sentence():
    # The engine reuses a sequence per example (head + example): every prompt must start
    # with exactly one of those texts, the one of its first repeated example.
    sentence = "The player thinks box 2 is empty."
    text = prompt.build_prompt(sentence)
    assert text.endswith(f"Sentence: {sentence}\nELoT: ")
    first = prompt.similar_examples(sentence)[0]
    branches = [branch for branch in prompt.branch_texts() if text.startswith(branch)]
    assert branches == [f"{prompt.prompt_head()}\n\n{prompt.example_block(first)}\n\n"]
    assert len(prompt.branch_texts()) == len(prompt.prompt_data()["examples"])


def test_prompt_draft_lookup_copies_what_followed_the_last_tokens():
    ids = [5, 1, 2, 3, 9, 8, 7, 6, 4, 1, 2, 3]
    assert llama_engine.prompt_lookup(ids, match=3, tokens=3, window=400) == [9, 8, 7]
    assert llama_engine.prompt_lookup(ids + [9, 8], match=3, tokens=3, window=400) == [7, 6, 4]
    assert llama_engine.prompt_lookup([1, 2, 3, 4], match=3, tokens=3, window=400) == []
    assert llama_engine.prompt_lookup(ids, match=3, tokens=3, window=5) == []   # the match lies outside the window


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
    result = translate("The player thinks box 1 is empty.", translator="llm", language_model=str(model), n=2)
    assert result.backend == "offline"
    assert result.formula == "believes(player, formula(empty(box1)))"
    assert any("offline" in note for note in result.notes)


def test_llm_weights_and_mode(monkeypatch, tmp_path):
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"")
    f = "believes(player, formula(empty(box1)))"
    monkeypatch.setattr(llm, "sample", lambda *a, **k: [f, f, f, "believes(player, might(empty(box1)))"])
    result = translate("The player initially thought box 1 was empty.", translator="llm", language_model=str(model), n=4)
    assert result.backend == "llm:fake.gguf"
    assert result.candidates[0] == (f, 0.75, "initial")
    assert sum(c.weight for c in result.candidates) == pytest.approx(1.0)


def test_missing_model_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ELOT_MODEL", raising=False)
    with pytest.raises(TranslationError, match="no language model"):
        translate("The player thinks box 1 is empty.", translator="llm")
    with pytest.raises(TranslationError, match="model not found"):
        translate("The player thinks box 1 is empty.", translator="llm", language_model="/nonexistent/model.gguf")


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
from elot.lang.checker import check
out = []
for s in json.loads(sys.argv[2]):
    t = translate(s, translator="llm", language_model=sys.argv[1], n=2)
    out.append({"backend": t.backend, "candidates": [list(c) for c in t.candidates], "notes": list(t.notes)})
print(json.dumps(out))
"""


def _model():
    path = small_language_model()
    reason = llm.available(path)
    if reason:
        pytest.skip(reason)
    return path


@pytest.mark.slow
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


_ENGINE = """
import json, sys
import llama_cpp, numpy as np
from elot.translate import llm, llama_engine, prompt

path = llm.LanguageModel(sys.argv[1], cache_dir=sys.argv[2])
engine = llm.load_language_model(path)._interpreter.engine          # builds and saves the branches
example = prompt.similar_examples("The player thinks box 2 might hold the red key.")[-1]
ids = list(engine.tokenizer.encode((prompt.build_prompt("The player thinks box 2 might hold the red key.")
                                     + example["formula"]).encode()))
if engine.tokenizer.bos_token_id is not None and ids[:1] != [engine.tokenizer.bos_token_id]:
    ids.insert(0, engine.tokenizer.bos_token_id)
start = len(ids) - 12          # the formula's last 12 tokens, one at a time, as in decoding
def rows(engine):
    out = [engine.get_logits(ids[:start])]
    out += [engine.get_logits(ids[:m]) for m in range(start + 1, len(ids) + 1)]
    return out
fast = rows(engine)
timings = engine.timings
llm.load_language_model.cache_clear()
again = llm.load_language_model(path)._interpreter.engine           # restores the saved state
restored = rows(again)
llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(again.model_obj.ctx), True)
again._cached_token_ids, again._rows, again.branches = [], {}, ()
again.draft_batch = 0
plain = rows(again)                                        # from scratch, no branch, no draft
def gap(a, b):
    return max(float(np.abs(x["logits"] - y["logits"]).max() / np.abs(y["logits"]).max()) for x, y in zip(a, b))
first = prompt.prompt_data()["examples"].index(prompt.similar_examples("The player thinks box 2 might hold the red key.")[0])
print(json.dumps({"branch_cached": fast[0]["n_cached"], "branch_len": len(engine.branches[first][1]),
                  "drafted": timings.drafted, "accepted": timings.accepted,
                  "fast_vs_plain": gap(fast, plain), "restored_vs_fast": gap(restored, fast),
                  "same_choice": all(int(np.argmax(x["logits"])) == int(np.argmax(y["logits"])) for x, y in zip(fast, plain)),
                  "same_branches": engine.branches == again.branches or not again.branches}))
"""


@pytest.mark.slow
def test_branches_drafts_and_saved_state_give_the_models_own_logits(tmp_path):
    # The engine's shortcuts (a cached branch per example, draft tokens evaluated ahead,
    # the state saved for the next process) must not change what the model computes.
    model = _model()
    run = subprocess.run([sys.executable, "-c", _ENGINE, model, str(tmp_path)], capture_output=True, text=True,
                         timeout=900)
    if run.returncode < 0:
        pytest.skip(f"llama.cpp crashed on this machine (signal {-run.returncode}); rebuild llama-cpp-python")
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["branch_cached"] >= result["branch_len"] - 1   # the prompt continued a branch
    assert result["accepted"] > 0 and result["drafted"] >= result["accepted"]
    assert result["restored_vs_fast"] == 0.0   # the saved state is the built one, bit for bit
    # llama.cpp's sums depend on which KV cells a prompt occupies: with an unrelated
    # sequence merely holding cells (at any positions) the logits of SmolLM2 move by 2-3%
    # of the largest; the shortcuts may move them that much, never the model's choice.
    assert result["same_choice"] and result["fast_vs_plain"] < 0.05
    assert list(tmp_path.glob("prompt-state/*.bin"))


# -- the constrained decoder with a random "model" ---------------------------------------


@pytest.fixture()
def random_model(monkeypatch):
    """guidance's Mock model: picks each token at random among those the grammar allows,
    so only the grammar keeps its output inside ELoT. Runs everywhere guidance does."""
    models = pytest.importorskip("guidance.models", reason="the LLM backend needs guidance")
    from pathlib import Path

    monkeypatch.setattr(llm, "load_language_model", lambda path: models.Mock())
    monkeypatch.setattr(llm, "_model_path", lambda model: Path("mock-model"))


SIG = Signature.default()


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("sentence", ["The player thinks box 2 is empty.",
                                      "The player initially believed that box 1 held a key."])
def test_translate_with_a_random_model_returns_only_typechecked_statements(random_model, sentence):
    from elot.lang.typesystem import EPISTEMIC, is_subtype

    result = translate(sentence, translator="llm", signature=SIG, n=8)
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


def _shop_signature():
    from pathlib import Path

    from elot.engine.loading import load_domain

    return load_domain(Path(__file__).resolve().parent.parent / "examples" / "domains" / "coffee_shop.py").signature()


def test_a_domains_prompt_speaks_its_own_words():
    """Outside the gridworld the few-shot examples are the domain's own (#41 item 8): each
    typechecks against its signature, is said in its words, and reads back through the
    offline parser; nothing of boxes, keys or colours is left in the prompt."""
    from elot.lang.english import english

    shop = _shop_signature()
    data = prompt.prompt_data(shop)
    assert len(data["examples"]) >= 10
    assert len({example["formula"] for example in data["examples"]}) == len(data["examples"])
    for example in data["examples"]:
        check(example["formula"], shop)
        assert pretty(parse(example["formula"])) == example["formula"]
        assert example["sentence"].startswith("The visitor ")
        assert english(example["formula"], signature=shop) == example["sentence"]
        assert translate(example["sentence"], signature=shop, translator="offline").formula == example["formula"]
    text = prompt.build_prompt("The visitor thinks the coffee shop is closed.", signature=shop)
    assert text.startswith(prompt.prompt_head(shop)) and text.endswith("ELoT: ")
    for word in ("box", "key", "colour", "gem"):
        assert word not in text.lower()
    assert "wants(player, coffee)" in data["instructions"]            # a drink: what no fact is about
    assert {"The visitor wants coffee.", "The visitor wants soda."} & {e["sentence"] for e in data["examples"]}


def test_the_gridworlds_prompt_is_the_packaged_one_on_every_map():
    """A signature with the default one's predicates (any Doors-Keys-Gems map) keeps the
    packaged prompt, whose head and branches llama.cpp has cached."""
    from elot.domains.registry import front_for

    front = front_for(None)
    for spec in ("examples/new-map.scn", "default"):
        signature = front.signature(front.episode(str(Path(__file__).resolve().parent.parent / spec)
                                                  if spec.endswith(".scn") else spec))
        assert prompt.prompt_data(signature) == prompt.packaged_prompt()
        assert prompt.build_prompt("The player thinks box 2 is empty.", signature=signature) == \
            prompt.build_prompt("The player thinks box 2 is empty.")


def test_the_sampler_is_given_the_domains_prompt(monkeypatch):
    shop = _shop_signature()
    given = []

    class Stop(Exception):
        pass

    def decode(lm, text):
        given.append(text)
        raise Stop

    class Model:
        def __add__(self, text):
            decode(self, text)

    monkeypatch.setattr(llm, "load_language_model", lambda model: Model())
    monkeypatch.setattr(llm, "_grammar", lambda signature: "start: \"x\"")
    with pytest.raises(Stop):
        llm.sample("The visitor thinks the coffee shop is open.", shop, "m.gguf", 1)
    assert given and given[0] == prompt.build_prompt("The visitor thinks the coffee shop is open.", signature=shop)
