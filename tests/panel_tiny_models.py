"""Tiny random-weight builds of the four open-weight panel architectures, made offline for the tests.

Each builder returns ``(model, processor)``: the model from its ``transformers`` config class (two
layers, hidden size 32, random weights), and the real processor class of the family over a
byte-level BPE tokenizer with no merges (every string round-trips, so templates can be checked
exactly) and the family's feature extractor built from its class with default arguments.
"""

from __future__ import annotations

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import (
    AudioFlamingo3Config,
    AudioFlamingo3ForConditionalGeneration,
    AudioFlamingo3Processor,
    GraniteSpeechConfig,
    GraniteSpeechForConditionalGeneration,
    GraniteSpeechProcessor,
    PreTrainedTokenizerFast,
    Qwen2_5OmniThinkerConfig,
    Qwen2_5OmniThinkerForConditionalGeneration,
    Qwen2AudioConfig,
    Qwen2AudioForConditionalGeneration,
    Qwen2AudioProcessor,
    WhisperFeatureExtractor,
)

from acousticlaim.panel.open_weight.granite_features import TorchGraniteSpeechFeatureExtractor
from acousticlaim.panel.open_weight.qwen2_5_omni import AudioTextOmniProcessor

HIDDEN = 32
TEXT = dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=64)
WHISPER_ENCODER = dict(d_model=HIDDEN, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=64, num_mel_bins=128)


def byte_tokenizer(special: list[str], named: dict[str, str] | None = None, *, eos: str, pad: str):
    """A byte-level BPE tokenizer without merges (256 byte symbols) plus the given special tokens."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, extra_special_tokens=dict(named or {}))
    tok.add_special_tokens({"extra_special_tokens": special}, replace_extra_special_tokens=False)
    tok.eos_token = eos
    tok.pad_token = pad
    return tok


def _seeded(seed: int):
    torch.manual_seed(seed)


def tiny_qwen2_audio(seed: int = 0):
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"],
                         eos="<|im_end|>", pad="<|endoftext|>")
    processor = Qwen2AudioProcessor(feature_extractor=WhisperFeatureExtractor(feature_size=128), tokenizer=tok)
    config = Qwen2AudioConfig(
        audio_config=WHISPER_ENCODER,
        text_config=dict(model_type="qwen2", vocab_size=len(tok), **TEXT),
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"),
    )
    _seeded(seed)
    return Qwen2AudioForConditionalGeneration(config).eval(), processor


OMNI_NAMED = {
    "image_token": "<|IMAGE|>", "audio_token": "<|AUDIO|>", "video_token": "<|VIDEO|>",
    "vision_bos_token": "<|vision_bos|>", "vision_eos_token": "<|vision_eos|>",
    "audio_bos_token": "<|audio_bos|>", "audio_eos_token": "<|audio_eos|>",
}


def tiny_qwen2_5_omni(seed: int = 0):
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>"], OMNI_NAMED, eos="<|im_end|>", pad="<|endoftext|>")
    processor = AudioTextOmniProcessor(WhisperFeatureExtractor(feature_size=128), tok)
    ids = tok.convert_tokens_to_ids
    config = Qwen2_5OmniThinkerConfig(
        audio_config=dict(output_dim=HIDDEN, **WHISPER_ENCODER),
        vision_config=dict(depth=1, hidden_size=HIDDEN, intermediate_size=HIDDEN, num_heads=2, out_hidden_size=HIDDEN,
                           fullatt_block_indexes=[0]),
        text_config=dict(vocab_size=len(tok), rope_parameters={"rope_type": "default", "rope_theta": 1e6,
                                                               "mrope_section": [2, 3, 3]}, **TEXT),
        audio_token_index=ids("<|AUDIO|>"), image_token_index=ids("<|IMAGE|>"), video_token_index=ids("<|VIDEO|>"),
        audio_start_token_id=ids("<|audio_bos|>"), audio_end_token_id=ids("<|audio_eos|>"),
        vision_start_token_id=ids("<|vision_bos|>"), user_token_id=ids("u"),
    )
    _seeded(seed)
    return Qwen2_5OmniThinkerForConditionalGeneration(config).eval(), processor


def tiny_granite_speech(seed: int = 0):
    tok = byte_tokenizer(["<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>", "<|audio|>", "<|pad|>"],
                         eos="<|end_of_text|>", pad="<|pad|>")
    processor = GraniteSpeechProcessor(TorchGraniteSpeechFeatureExtractor(), tok)
    config = GraniteSpeechConfig(
        encoder_config=dict(input_dim=160, num_layers=2, hidden_dim=HIDDEN, feedforward_mult=2, num_heads=2,
                            output_dim=8, conv_kernel_size=3),
        projector_config=dict(model_type="blip_2_qformer", hidden_size=HIDDEN, num_hidden_layers=1,
                              num_attention_heads=2, intermediate_size=64, encoder_hidden_size=HIDDEN,
                              cross_attention_frequency=1),
        text_config=dict(model_type="granite", vocab_size=len(tok), **TEXT),
        audio_token_index=tok.convert_tokens_to_ids("<|audio|>"),
        has_lora_adapter=False,
    )
    _seeded(seed)
    return GraniteSpeechForConditionalGeneration(config).eval(), processor


def tiny_audio_flamingo3(seed: int = 0):
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<sound>"], eos="<|im_end|>", pad="<|endoftext|>")
    processor = AudioFlamingo3Processor(
        feature_extractor=WhisperFeatureExtractor(feature_size=128, return_attention_mask=True), tokenizer=tok
    )
    config = AudioFlamingo3Config(
        audio_config=dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                          num_mel_bins=128),
        text_config=dict(model_type="qwen2", vocab_size=len(tok), **TEXT),
        audio_token_id=tok.convert_tokens_to_ids("<sound>"),
    )
    _seeded(seed)
    return AudioFlamingo3ForConditionalGeneration(config).eval(), processor


BUILDERS = {
    "qwen2_audio": tiny_qwen2_audio,
    "qwen2_5_omni": tiny_qwen2_5_omni,
    "granite_speech": tiny_granite_speech,
    "audio_flamingo3": tiny_audio_flamingo3,
}
