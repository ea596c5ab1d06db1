"""Granite-Speech-3.3-8B (``GraniteSpeechForConditionalGeneration``).

Conversation: Granite's system turn with a fixed date (the published template otherwise inserts
today's date, which would make the prompt depend on the day it runs), then one user turn whose text
starts with the ``<|audio|>`` placeholder and continues with the prompt — the audio sits in the user
turn, as the paper notes. Published format::

    <|start_of_role|>system<|end_of_role|>{system}<|end_of_text|>\\n
    <|start_of_role|>user<|end_of_role|><|audio|>{prompt}<|end_of_text|>\\n
    <|start_of_role|>assistant<|end_of_role|>

The processor expands ``<|audio|>`` to the projector's output length (3 tokens per 15 encoder frames
of 20 ms). Its feature extractor needs ``torchaudio``; where that is missing,
:class:`~acousticlaim.panel.open_weight.granite_features.TorchGraniteSpeechFeatureExtractor`
computes the same features with ``torch`` alone. A turn ends at ``<|end_of_text|>``. The model's
LoRA adapter, when the checkpoint has one, is switched on for audio inputs by the model itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from acousticlaim.panel.open_weight.base import OpenWeightAdapter

SYSTEM_PROMPT = (
    "Knowledge Cutoff Date: April 2024.\nToday's Date: April 9, 2025.\n"
    "You are Granite, developed by IBM. You are a helpful AI assistant"
)

_PINNED = (
    "{% for message in messages %}"
    "{{ '<|start_of_role|>' + message['role'] + '<|end_of_role|>' + message['content'] + '<|end_of_text|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_of_role|>assistant<|end_of_role|>' }}{% endif %}"
)


class GraniteSpeechAdapter(OpenWeightAdapter):
    family = "granite_speech"
    model_class_name = "GraniteSpeechForConditionalGeneration"
    stop_tokens = ("<|end_of_text|>",)
    pinned_chat_template = _PINNED
    audio_placeholder = "<|audio|>"

    @property
    def audio_token(self) -> str:
        return getattr(self.processor, "audio_token", "<|audio|>")

    def conversation(self, prompt: str) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": self.audio_token + prompt},
        ]

    def encode(self, prompts: list[str], audios: list[np.ndarray]):
        waveforms = [torch.from_numpy(a) for a in audios]
        return self.processor(text=prompts, audio=waveforms, device="cpu", return_tensors="pt")

    @classmethod
    def load_processor(cls, checkpoint: str):
        from transformers import AutoProcessor, AutoTokenizer, GraniteSpeechProcessor
        from transformers.utils import is_torchaudio_available

        if is_torchaudio_available():
            return AutoProcessor.from_pretrained(checkpoint)
        import inspect

        from transformers.feature_extraction_utils import FeatureExtractionMixin

        from acousticlaim.panel.open_weight.granite_features import TorchGraniteSpeechFeatureExtractor

        fe_config, _ = FeatureExtractionMixin.get_feature_extractor_dict(checkpoint)
        fe_config = fe_config.get("audio_processor", fe_config)  # a unified processor_config.json nests it
        accepted = set(inspect.signature(TorchGraniteSpeechFeatureExtractor.__init__).parameters) - {"self", "kwargs"}
        feature_extractor = TorchGraniteSpeechFeatureExtractor(**{k: v for k, v in fe_config.items() if k in accepted})
        return GraniteSpeechProcessor(feature_extractor, AutoTokenizer.from_pretrained(checkpoint))
