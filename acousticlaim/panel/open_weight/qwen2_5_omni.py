"""Qwen2.5-Omni-7B, text output only (its *thinker*, ``Qwen2_5OmniThinkerForConditionalGeneration``).

The full checkpoint holds a thinker (audio/vision encoders and the language model) and a talker that
speaks; only the thinker is loaded (``enable_audio_output=False``), so the system answers in text.
Conversation: the model's own system prompt, then one user turn with the audio first and the prompt
after it. Published format::

    <|im_start|>system\\nYou are Qwen, a virtual human developed by the Qwen Team, …<|im_end|>\\n
    <|im_start|>user\\n<|audio_bos|><|AUDIO|><|audio_eos|>{prompt}<|im_end|>\\n
    <|im_start|>assistant\\n

The full ``Qwen2_5OmniProcessor`` also carries image and video processors, and the video processor
needs ``torchvision``. Where ``torchvision`` is missing, :class:`AudioTextOmniProcessor` — the same
processor class with only its feature extractor and tokenizer — does the audio and text part, which
is all this adapter uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from acousticlaim.audio import TARGET_SR
from acousticlaim.panel.open_weight.base import OpenWeightAdapter, checkpoint_chat_template, load_model

SYSTEM_PROMPT = (
    "You are Qwen, a virtual human developed by the Qwen Team, Alibaba Group, capable of perceiving "
    "auditory and visual inputs, as well as generating text and speech."
)

_PINNED = (
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{% if message['content'] is string %}"
    "{{ message['content'] }}"
    "{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'audio' %}"
    "{{ '<|audio_bos|><|AUDIO|><|audio_eos|>' }}"
    "{% elif part['type'] == 'text' %}"
    "{{ part['text'] }}"
    "{% endif %}"
    "{% endfor %}"
    "{% endif %}"
    "{{ '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_TOKEN_ATTRIBUTES = (
    "image_token", "audio_token", "video_token", "image_token_id", "audio_token_id", "video_token_id",
    "vision_bos_token", "vision_eos_token", "audio_bos_token", "audio_eos_token",
)


def _omni_processor_class():
    from transformers import Qwen2_5OmniProcessor
    from transformers.processing_utils import ProcessorMixin

    class AudioTextOmniProcessor(Qwen2_5OmniProcessor):
        """``Qwen2_5OmniProcessor`` restricted to its feature extractor and tokenizer (no torchvision)."""

        def __init__(self, feature_extractor=None, tokenizer=None, chat_template=None):
            ProcessorMixin.__init__(self, feature_extractor, tokenizer, chat_template=chat_template)
            for attr in _TOKEN_ATTRIBUTES:
                setattr(self, attr, getattr(self.tokenizer, attr))

    return AudioTextOmniProcessor


def AudioTextOmniProcessor(feature_extractor, tokenizer, chat_template=None):
    """Build the audio-and-text Qwen2.5-Omni processor (see the module docstring)."""
    return _omni_processor_class()(feature_extractor=feature_extractor, tokenizer=tokenizer, chat_template=chat_template)


class Qwen25OmniAdapter(OpenWeightAdapter):
    family = "qwen2_5_omni"
    model_class_name = "Qwen2_5OmniThinkerForConditionalGeneration"
    stop_tokens = ("<|im_end|>", "<|endoftext|>")
    pinned_chat_template = _PINNED
    audio_placeholder = "<|AUDIO|>"

    def conversation(self, prompt: str) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]},
            {"role": "user", "content": [dict(self.AUDIO_PART), {"type": "text", "text": prompt}]},
        ]

    def encode(self, prompts: list[str], audios: list[np.ndarray]):
        return self.processor(text=prompts, audio=audios, sampling_rate=TARGET_SR, return_tensors="pt", padding=True)

    @classmethod
    def load_model(cls, checkpoint: str, device: torch.device, dtype: torch.dtype):
        import transformers
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(checkpoint)
        if config.model_type == "qwen2_5_omni":  # the released checkpoint: thinker + talker
            full = load_model(transformers.Qwen2_5OmniForConditionalGeneration, checkpoint, device, dtype,
                              enable_audio_output=False)
            return full.thinker
        return load_model(transformers.Qwen2_5OmniThinkerForConditionalGeneration, checkpoint, device, dtype)

    @classmethod
    def load_processor(cls, checkpoint: str):
        from transformers import AutoProcessor, AutoTokenizer, WhisperFeatureExtractor
        from transformers.utils import is_torchvision_available

        if is_torchvision_available():
            return AutoProcessor.from_pretrained(checkpoint)
        return AudioTextOmniProcessor(
            WhisperFeatureExtractor.from_pretrained(checkpoint),
            AutoTokenizer.from_pretrained(checkpoint),
            chat_template=checkpoint_chat_template(checkpoint),
        )
