"""The four open-weight adapters, end to end on tiny random-weight builds of each architecture.

The generated text is gibberish; what is checked is the plumbing: the chat template, where the audio
sits and how many audio tokens it becomes, that the raw waveform reaches the feature extractor
untouched, left padding, greedy decoding, the truncation accounting, and loading from a folder.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from acousticlaim.claims.prompts import get_rung
from acousticlaim.panel.open_weight import ADAPTERS
from acousticlaim.panel.open_weight.base import resolve_dtype
from acousticlaim.panel.protocol import GenerationRequest
from tests.panel_tiny_models import BUILDERS

FAMILIES = list(BUILDERS)
SR = 16_000

# What each family's template renders for the prompt "Describe." (the published formats).
EXPECTED_PROMPT = {
    "qwen2_audio": (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nAudio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\nDescribe.<|im_end|>\n"
        "<|im_start|>assistant\n"
    ),
    "qwen2_5_omni": (
        "<|im_start|>system\nYou are Qwen, a virtual human developed by the Qwen Team, Alibaba Group, capable of "
        "perceiving auditory and visual inputs, as well as generating text and speech.<|im_end|>\n"
        "<|im_start|>user\n<|audio_bos|><|AUDIO|><|audio_eos|>Describe.<|im_end|>\n"
        "<|im_start|>assistant\n"
    ),
    "granite_speech": (
        "<|start_of_role|>system<|end_of_role|>Knowledge Cutoff Date: April 2024.\nToday's Date: April 9, 2025.\n"
        "You are Granite, developed by IBM. You are a helpful AI assistant<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|><|audio|>Describe.<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    ),
    "audio_flamingo3": (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\n<sound>Describe.<|im_end|>\n"
        "<|im_start|>assistant\n"
    ),
}
# Audio placeholder, and the text right before and after the expanded audio run in the token sequence.
AUDIO_TOKEN = {"qwen2_audio": "<|AUDIO|>", "qwen2_5_omni": "<|AUDIO|>", "granite_speech": "<|audio|>",
               "audio_flamingo3": "<sound>"}
BEFORE_AUDIO = {"qwen2_audio": "user\nAudio 1: <|audio_bos|>", "qwen2_5_omni": "user\n<|audio_bos|>",
                "granite_speech": "user<|end_of_role|>", "audio_flamingo3": "user\n"}
AFTER_AUDIO = {"qwen2_audio": "<|audio_eos|>\n", "qwen2_5_omni": "<|audio_eos|>", "granite_speech": "",
               "audio_flamingo3": ""}
# Audio tokens for a 10-s clip: 40 ms per token for the Whisper-style encoders (1000 mel frames → 250);
# Granite: 1001 mel frames → 500 encoder frames → ceil(500 / 15) = 34 projector windows × 3 queries.
N_AUDIO_TOKENS = {"qwen2_audio": 250, "qwen2_5_omni": 250, "granite_speech": 102, "audio_flamingo3": 250}


@pytest.fixture(scope="module")
def built():
    return {fam: BUILDERS[fam]() for fam in FAMILIES}


def adapter_for(built, fam, max_new_tokens=6, **kw):
    model, processor = built[fam]
    return ADAPTERS[fam](model, processor, max_new_tokens=max_new_tokens, batch_size=2, **kw)


def ten_seconds(seed=0, scale=0.03):
    return np.random.default_rng(seed).standard_normal(10 * SR) * scale


def request(clip="c1", rung="P0_free", seed=0, audio=None):
    return GenerationRequest(clip, ten_seconds() if audio is None else audio, get_rung(rung), seed)


@pytest.mark.parametrize("fam", FAMILIES)
def test_chat_template_renders_the_published_format(built, fam):
    assert adapter_for(built, fam).render_prompt("Describe.") == EXPECTED_PROMPT[fam]


def test_pinned_qwen2_audio_template_matches_the_processor_default(built):
    """Our pinned copy renders exactly what transformers' own Qwen2-Audio template renders."""
    adapter = adapter_for(built, "qwen2_audio")
    conv = adapter.conversation("Describe the recording quality of this audio.")
    ours = adapter.tokenizer.apply_chat_template(conv, chat_template=ADAPTERS["qwen2_audio"].pinned_chat_template,
                                                 tokenize=False, add_generation_prompt=True)
    theirs = adapter.tokenizer.apply_chat_template(conv, chat_template=adapter.processor.default_chat_template,
                                                   tokenize=False, add_generation_prompt=True)
    assert ours == theirs


@pytest.mark.parametrize("fam", FAMILIES)
def test_audio_placement_and_token_count(built, fam):
    adapter = adapter_for(built, fam)
    tok = adapter.tokenizer
    inputs = adapter.prepare_inputs([request(rung="P0_free"), request("c2", rung="P4_fewshot")])
    audio_id = tok.convert_tokens_to_ids(AUDIO_TOKEN[fam])
    for i, rung in enumerate(("P0_free", "P4_fewshot")):
        ids = inputs["input_ids"][i][inputs["attention_mask"][i].bool()].tolist()  # left padding stripped
        positions = [i for i, t in enumerate(ids) if t == audio_id]
        assert len(positions) == N_AUDIO_TOKENS[fam]
        assert positions == list(range(positions[0], positions[0] + len(positions)))  # one contiguous run
        before = tok.decode(ids[: positions[0]], skip_special_tokens=False)
        after = tok.decode(ids[positions[-1] + 1 :], skip_special_tokens=False)
        assert before.endswith(BEFORE_AUDIO[fam])
        assert after.startswith(AFTER_AUDIO[fam] + get_rung(rung).text)
    # the shorter prompt is padded on the left (the decoder continues from the right edge)
    mask = inputs["attention_mask"]
    assert mask[:, -1].tolist() == [1, 1]
    assert mask[0, 0].item() == 0 and mask[1, 0].item() == 1


@pytest.mark.parametrize("fam", FAMILIES)
def test_raw_waveform_reaches_the_feature_extractor_untouched(built, fam, monkeypatch):
    adapter = adapter_for(built, fam)
    extractor = getattr(adapter.processor, "feature_extractor", None) or adapter.processor.audio_processor
    seen = []
    original = type(extractor).__call__

    def spy(self, audio, *args, **kwargs):
        seen.append(audio)
        return original(self, audio, *args, **kwargs)

    monkeypatch.setattr(type(extractor), "__call__", spy)
    audio = ten_seconds(seed=3, scale=0.0123)  # quiet, far from full scale: any normalisation would show
    adapter.prepare_inputs([request(audio=audio)])
    got = seen[0][0]  # the first (only) waveform of the batch
    got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    np.testing.assert_array_equal(got, audio.astype(np.float32))


def force_stop(adapter, stop_row: int, stop_step: int):
    """Forbid stop tokens at every step, except in ``stop_row`` at decoding step ``stop_step`` (1-based)."""
    calls = {"n": 0}
    stops = adapter.stop_token_ids
    eos = adapter.stop_token_ids[0]

    def hook(module, args, output):
        calls["n"] += 1
        output = output.clone()
        output[:, -1, stops] = -1e9
        if calls["n"] == stop_step:
            output[stop_row, -1, eos] = 1e9
        return output

    return adapter.model.get_output_embeddings().register_forward_hook(hook)


@pytest.mark.parametrize("fam", FAMILIES)
def test_truncation_accounting(built, fam):
    cap = 7
    adapter = adapter_for(built, fam, max_new_tokens=cap)
    handle = force_stop(adapter, stop_row=0, stop_step=4)
    try:
        res = adapter.generate([request("a", "P1_numeric"), request("b", "P2_named")])
    finally:
        handle.remove()
    stopped, capped = res
    assert (stopped.n_tokens, stopped.truncated, stopped.finish_reason) == (3, False, "stop")
    assert (capped.n_tokens, capped.truncated, capped.finish_reason) == (cap, True, "length")
    assert stopped.seconds > 0 and stopped.seconds == capped.seconds  # the batch's time over its size


@pytest.mark.parametrize("fam", FAMILIES)
def test_decoding_is_greedy_whatever_the_checkpoint_says(built, fam):
    from transformers import GenerationConfig

    model, processor = built[fam]
    model.generation_config = GenerationConfig(do_sample=True, temperature=1.5, top_k=5, repetition_penalty=1.3)
    adapter = ADAPTERS[fam](model, processor, max_new_tokens=4, batch_size=2)
    assert adapter.model.generation_config.do_sample is False
    assert adapter.model.generation_config.repetition_penalty == 1.0
    reqs = [request("a", "P0_free", seed=1), request("b", "P3_template", seed=7)]
    batched = [r.text for r in adapter.generate(reqs)]
    # sampling at temperature 1.5 from 5 candidates would not repeat itself; greedy decodes the same
    # text for a request alone as inside a left-padded batch with another seed
    alone = adapter.generate([reqs[1]])[0].text
    assert alone == batched[1]


def test_dtype_rule():
    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
    assert resolve_dtype("auto", torch.device("cuda")) == torch.bfloat16
    assert resolve_dtype("float16", torch.device("cpu")) == torch.float16
    with pytest.raises(ValueError, match="unknown dtype"):
        resolve_dtype("int8", torch.device("cpu"))


@pytest.mark.parametrize("fam", FAMILIES)
def test_loads_from_a_checkpoint_folder(built, fam, tmp_path):
    model, processor = built[fam]
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    loaded = ADAPTERS[fam].from_checkpoint(str(tmp_path), name=f"tiny-{fam}", device="cpu", dtype="auto",
                                           max_new_tokens=4, batch_size=2)
    assert loaded.describe()["dtype"] == "float32"
    assert loaded.describe()["checkpoint"] == str(tmp_path)
    assert loaded.render_prompt("Describe.") == EXPECTED_PROMPT[fam]
    in_memory = ADAPTERS[fam](model, processor, max_new_tokens=4, batch_size=2)
    reqs = [request("a", "P0_free"), request("b", "P2_named")]
    assert [r.text for r in loaded.generate(reqs)] == [r.text for r in in_memory.generate(reqs)]


def test_a_checkpoint_template_that_tests_the_audio_key_places_the_audio():
    """The hub's Qwen2-Audio template tests ``'audio' in part`` rather than the type: our parts satisfy both."""
    model, processor = BUILDERS["qwen2_audio"]()
    processor.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% for c in m['content'] %}"
        "{% if 'audio' in c or 'audio_url' in c %}Audio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\n"
        "{% elif 'text' in c %}{{ c['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    adapter = ADAPTERS["qwen2_audio"](model, processor, max_new_tokens=2)
    assert adapter.render_prompt("Hi.") == (
        "<|im_start|>user\nAudio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\nHi.<|im_end|>\n<|im_start|>assistant\n")


def test_a_template_that_drops_the_audio_is_refused():
    model, processor = BUILDERS["qwen2_audio"]()
    processor.chat_template = (
        "{% for m in messages %}{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
        "{% endfor %}{% endfor %}"
    )
    adapter = ADAPTERS["qwen2_audio"](model, processor, max_new_tokens=2)
    with pytest.raises(ValueError, match="placed the audio placeholder '<\\|AUDIO\\|>' 0 times"):
        adapter.generate([request()])


def test_missing_checkpoint_is_a_clear_error():
    with pytest.raises(ValueError, match="no checkpoint configured"):
        ADAPTERS["qwen2_audio"].from_checkpoint("")


def test_wrong_sample_rate_is_refused(built):
    adapter = adapter_for(built, "qwen2_audio")
    bad = GenerationRequest("c", ten_seconds(), get_rung("P0_free"), 0, sample_rate=8000)
    with pytest.raises(ValueError, match="8000 Hz"):
        adapter.generate([bad])
