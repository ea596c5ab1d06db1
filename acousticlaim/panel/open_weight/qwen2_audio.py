"""Qwen2-Audio-7B-Instruct (``Qwen2AudioForConditionalGeneration``).

Conversation: no system turn of our own (the template supplies "You are a helpful assistant."), one
user turn holding the audio first and the prompt after it. Published format::

    <|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n
    <|im_start|>user\\nAudio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\\n{prompt}<|im_end|>\\n
    <|im_start|>assistant\\n

The processor expands ``<|AUDIO|>`` to one token per 40 ms of audio (250 for 10 s) and computes
Whisper log-mel features (128 bins) from the raw waveform. A turn ends at ``<|im_end|>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from acousticlaim.audio import TARGET_SR
from acousticlaim.panel.open_weight.base import OpenWeightAdapter

_PINNED = (
    "{% set audio_n = namespace(value=0) %}"
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
    "{% set audio_n.value = audio_n.value + 1 %}"
    "{{ 'Audio ' + audio_n.value|string + ': <|audio_bos|><|AUDIO|><|audio_eos|>\\n' }}"
    "{% elif part['type'] == 'text' %}"
    "{{ part['text'] }}"
    "{% endif %}"
    "{% endfor %}"
    "{% endif %}"
    "{{ '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class Qwen2AudioAdapter(OpenWeightAdapter):
    family = "qwen2_audio"
    model_class_name = "Qwen2AudioForConditionalGeneration"
    stop_tokens = ("<|im_end|>", "<|endoftext|>")
    pinned_chat_template = _PINNED
    audio_placeholder = "<|AUDIO|>"

    def conversation(self, prompt: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [dict(self.AUDIO_PART), {"type": "text", "text": prompt}]}]

    def encode(self, prompts: list[str], audios: list[np.ndarray]):
        return self.processor(text=prompts, audio=audios, sampling_rate=TARGET_SR, return_tensors="pt", padding=True)
