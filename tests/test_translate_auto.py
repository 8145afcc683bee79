"""``auto``: the offline parser first, the language model only for what it refuses, the
LLM's samples grouped by meaning; the LLM backend's clear errors; ``--scenario`` names."""

from __future__ import annotations

import json
import sys

import pytest

from elot.cli import main
from elot.errors import TranslationError
from elot.lang.signature import Signature
from elot.translate import llm, llama_engine, prompt, translate

REFUSED = "The player reckons the gem is shiny."            # nothing the offline rules read
SPLIT = "believes(player, formula(exists(key(K), or(inside(K, box1), inside(K, box2)))))"
SPLIT_TOO = ("believes(player, formula(or(exists(key(K), inside(K, box1)), "
             "exists(key(K), inside(K, box2)))))")          # the same meaning, another text
MIGHT = "believes(player, might(empty(box1)))"


@pytest.fixture()
def fake_model(monkeypatch, tmp_path):
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF")
    calls = []

    def sample(sentence, signature, path, n, timings=None):
        calls.append(sentence)
        return [SPLIT, SPLIT_TOO, MIGHT, "empty(player)"][:n]

    monkeypatch.setattr(llm, "sample", sample)
    return calls, str(model)


def test_auto_answers_offline_first_even_with_a_model(fake_model):
    calls, model = fake_model
    result = translate("The player thinks box 1 is empty.", language_model=model)
    assert result.backend == "offline" and result.formula == "believes(player, formula(empty(box1)))"
    assert calls == []


def test_auto_asks_the_model_only_for_refusals_and_groups_by_meaning(fake_model):
    calls, model = fake_model
    with pytest.raises(TranslationError):
        translate(REFUSED, translator="offline", language_model=model)
    result = translate(REFUSED, n=4, language_model=model)
    assert calls == [REFUSED]
    assert result.backend == "llm:fake.gguf"
    # SPLIT and SPLIT_TOO mean the same: one candidate with two of the three good samples
    assert [(c.formula, round(c.weight, 3)) for c in result.candidates] == [(SPLIT, 0.667), (MIGHT, 0.333)]
    assert any("offline parser refused" in note for note in result.notes)
    assert any("dropped 'empty(player)'" in note for note in result.notes)


def test_auto_does_not_pass_on_unknown_objects(fake_model):
    calls, model = fake_model
    with pytest.raises(TranslationError, match="no box9"):
        translate("The player thinks box 9 is empty.", language_model=model)
    assert calls == []


def test_the_library_reads_no_elot_model_the_command_line_does(monkeypatch, fake_model, capsys):
    calls, model = fake_model
    monkeypatch.setenv("ELOT_MODEL", model)
    with pytest.raises(TranslationError) as caught:
        translate(REFUSED, n=1)                  # no language model given: the offline answer stands
    assert calls == [] and not any("language model" in note for note in caught.value.notes)
    assert main(["translate", "--json", "-n", "4", REFUSED]) == 0     # elot translate reads $ELOT_MODEL
    assert calls == [REFUSED] and json.loads(capsys.readouterr().out)["backend"] == "llm:fake.gguf"


def test_llm_settings_come_from_the_command_lines_environment(monkeypatch, fake_model, tmp_path):
    from elot.cli import options

    _, model = fake_model
    monkeypatch.setenv("ELOT_MODEL", model)
    monkeypatch.setenv("ELOT_LLM_THREADS", "3")
    monkeypatch.setenv("ELOT_CACHE_DIR", str(tmp_path))
    assert options.language_model(verbose=True) == llm.LanguageModel(model, threads=3, cache_dir=str(tmp_path),
                                                                      verbose=True)
    assert options.language_model("other.gguf").path == "other.gguf"
    monkeypatch.delenv("ELOT_MODEL")
    assert options.language_model() is None
    assert llama_engine.threads(2) == 2 and llama_engine.threads() >= 1
    assert llama_engine.prefix_state_path.__defaults__ == (None,)      # the cache folder is an argument


def test_old_spellings_of_translate_options_name_the_new_ones(capsys):
    for old, new in (("--backend", "--translator"), ("--model", "--language-model")):
        with pytest.raises(SystemExit) as exit_:
            main(["translate", old, "offline", "The player thinks box 1 is empty."])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and f"{old} is now {new}: write {new} offline" in err


def test_auto_keeps_the_offline_refusal_when_the_model_gives_nothing(monkeypatch, fake_model):
    _, model = fake_model
    monkeypatch.setattr(llm, "sample", lambda *a, **k: ["empty(player)"])
    with pytest.raises(TranslationError) as caught:
        translate(REFUSED, n=1, language_model=model)
    assert "attitude" in caught.value.message
    assert any("language model did not help" in note for note in caught.value.notes)


def test_group_by_meaning_keeps_distinct_meanings_apart():
    sig = Signature.default()
    candidates, dropped = llm.rank([MIGHT, SPLIT, MIGHT, SPLIT_TOO, SPLIT_TOO], sig, "current")
    assert [(c.formula, c.weight) for c in candidates] == [(SPLIT_TOO, 0.6), (MIGHT, 0.4)]
    assert not dropped


def test_without_llama_cpp_the_llm_backend_is_a_clear_error(monkeypatch, tmp_path, capsys):
    pytest.importorskip("guidance", reason="the check after guidance is the one tested")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)      # import llama_cpp fails
    assert "llama-cpp-python" in llm.available()
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    llm.load_language_model.cache_clear()
    status = main(["translate", "--translator", "llm", "--language-model", str(model),
                   "The player thinks box 1 is empty."])
    err = capsys.readouterr().err
    assert status == 2 and "llama-cpp-python" in err and "Traceback" not in err


def test_prompt_tail_repeats_the_most_similar_examples():
    sentence = "The player is certain that box 3 must contain a key."
    tail = prompt.prompt_tail(sentence, k=2)
    examples = prompt.similar_examples(sentence, 2)
    assert tail.endswith(f"Sentence: {sentence}\nELoT: ")
    assert examples[-1]["sentence"] == "The player is certain that box 2 must contain a key."
    assert all(e["sentence"] in tail for e in examples)
    assert prompt.build_prompt(sentence).startswith(prompt.prompt_head())


@pytest.mark.parametrize("scenario", ["default", "empty-box"])
def test_cli_scenario_takes_example_names(scenario, capsys):
    assert main(["translate", "--json", "--scenario", scenario, "The player thinks box 1 is empty."]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"][0]["formula"] == "believes(player, formula(empty(box1)))"


def test_cli_scenario_takes_plan_ids(labtom, capsys):
    args = ["translate", "--json", "--labtom", str(labtom), "--scenario", "2_1"]
    assert main(args + ["The player thinks box 2 is empty."]) == 0
    assert json.loads(capsys.readouterr().out)["backend"] == "offline"
    assert main(args + ["The player thinks box 5 is empty."]) == 2    # 2_1 has fewer boxes
    assert "no box5 in this scenario" in capsys.readouterr().err


def test_cli_unknown_scenario_is_a_clear_error(capsys):
    assert main(["translate", "--scenario", "no-such-thing", "The player thinks box 1 is empty."]) == 2
    assert "no scenario file, example or dataset plan" in capsys.readouterr().err


def test_forget_trace_drops_dead_references_of_finished_samples():
    models = pytest.importorskip("guidance.models", reason="the decoder needs guidance")
    import guidance
    from guidance.registry import get_trace_handler

    lm = models.Mock()
    node = get_trace_handler().id_node_map[lm._id]
    for _ in range(5):
        state = lm + "x" + guidance.gen(name="f", max_tokens=2)
        del state
    assert list.__len__(node.children) >= 5          # guidance keeps a reference per call
    llm.forget_trace(lm)
    assert list.__len__(node.children) == 0           # none of them is alive any more


def test_how_many_similar_examples_the_prompt_repeats_is_a_setting_of_the_model(monkeypatch):
    asked = []

    class Stop(Exception):
        pass

    def build_prompt(sentence, k=None, signature=None):
        asked.append(k)
        raise Stop

    monkeypatch.setattr(llm, "load_language_model", lambda model: object())
    monkeypatch.setattr(llm, "build_prompt", build_prompt)
    for setting in (llm.LanguageModel("m.gguf", similar_examples=2), "m.gguf"):
        with pytest.raises(Stop):
            llm.sample("The player thinks box 1 is empty.", Signature.default(), setting, 1)
    assert asked == [2, prompt.SIMILAR_EXAMPLES]
    assert prompt.prompt_tail("The player thinks box 1 is empty.", 2).count("Sentence:") == 3


def test_the_kv_sequences_are_set_on_the_models_own_context_not_on_llama_cpps_defaults(monkeypatch):
    """llama_cpp.Llama takes no n_seq_max/kv_unified: its context is made again from its own
    parameters (read against llama-cpp-python 0.3.36's Llama and _internals.LlamaContext)."""
    import contextlib
    import types

    made = []

    class Context:
        def __init__(self, *, model, params, verbose):
            made.append((model, params.n_seq_max, params.kv_unified, verbose))
            self.closed = False

        def close(self):
            self.closed = True

    package = types.ModuleType("llama_cpp")
    internals = types.ModuleType("llama_cpp._internals")
    internals.LlamaContext = Context
    package._internals = internals
    monkeypatch.setitem(sys.modules, "llama_cpp", package)
    monkeypatch.setitem(sys.modules, "llama_cpp._internals", internals)
    first = Context(model="m", params=types.SimpleNamespace(n_seq_max=1, kv_unified=False), verbose=False)
    llama = types.SimpleNamespace(context_params=types.SimpleNamespace(n_seq_max=1, kv_unified=False, n_ctx=4096),
                                  _ctx=first, _model="m", verbose=False, _stack=contextlib.ExitStack())
    llm._with_sequences(llama, 7)
    assert made[-1] == ("m", 7, True, False) and first.closed and llama._ctx is not first
    assert llama.context_params.n_ctx == 4096
    llama._stack.close()
    assert llama._ctx.closed      # freed with the Llama, as its first context was
