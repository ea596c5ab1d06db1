"""Audio-Flamingo-3 (``AudioFlamingo3ForConditionalGeneration``, checkpoint ``nvidia/audio-flamingo-3-hf``).

Conversation: no system turn of our own (the template supplies "You are a helpful assistant."), one
user turn with the audio and the prompt; the template puts the ``<sound>`` placeholder first and the
text straight after it. Published format::

    <|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n
    <|im_start|>user\\n<sound>{prompt}<|im_end|>\\n
    <|im_start|>assistant\\n

The processor cuts the waveform into 30-s windows (one for a 10-s clip), computes Whisper log-mel
features (128 bins) and expands ``<sound>`` to one token per 40 ms of audio. A turn ends at
``<|im_end|>``. The checkpoint's generation config samples (temperature 0.7, top-p 0.8): the base
adapter replaces it with greedy decoding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from acousticlaim.audio import TARGET_SR
from acousticlaim.panel.open_weight.base import OpenWeightAdapter

_PINNED = (
    "{% if messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{% endif %}"
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{% if message['content'] is string %}"
    "{{ message['content'] }}"
    "{% else %}"
    "{% set has_audio = namespace(value=false) %}"
    "{% set text = namespace(value='') %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'audio' %}{% set has_audio.value = true %}"
    "{% elif part['type'] == 'text' %}{% set text.value = text.value + part['text'] %}"
    "{% endif %}"
    "{% endfor %}"
    "{% if has_audio.value %}{{ '<sound>' }}{% endif %}"
    "{{ text.value }}"
    "{% endif %}"
    "{{ '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class AudioFlamingo3Adapter(OpenWeightAdapter):
    family = "audio_flamingo3"
    model_class_name = "AudioFlamingo3ForConditionalGeneration"
    stop_tokens = ("<|im_end|>", "<|endoftext|>")
    pinned_chat_template = _PINNED
    audio_placeholder = "<sound>"

    def conversation(self, prompt: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [{"type": "text", "text": prompt}, dict(self.AUDIO_PART)]}]

    def encode(self, prompts: list[str], audios: list[np.ndarray]):
        return self.processor(text=prompts, audio=audios, sampling_rate=TARGET_SR)
