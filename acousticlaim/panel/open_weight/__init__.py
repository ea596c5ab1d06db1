"""Open-weight panel members through ``transformers``: one adapter per model family.

=====================  ==============================================  ==========================
kind (``params.yaml``)  model class                                      released checkpoint
=====================  ==============================================  ==========================
``qwen2_audio``         ``Qwen2AudioForConditionalGeneration``            Qwen/Qwen2-Audio-7B-Instruct
``qwen2_5_omni``        ``Qwen2_5OmniThinkerForConditionalGeneration``    Qwen/Qwen2.5-Omni-7B
``granite_speech``      ``GraniteSpeechForConditionalGeneration``         ibm-granite/granite-speech-3.3-8b
``audio_flamingo3``     ``AudioFlamingo3ForConditionalGeneration``        nvidia/audio-flamingo-3-hf
=====================  ==============================================  ==========================
"""

from __future__ import annotations

from acousticlaim.panel.open_weight.audio_flamingo3 import AudioFlamingo3Adapter
from acousticlaim.panel.open_weight.base import OpenWeightAdapter
from acousticlaim.panel.open_weight.granite_speech import GraniteSpeechAdapter
from acousticlaim.panel.open_weight.qwen2_5_omni import Qwen25OmniAdapter
from acousticlaim.panel.open_weight.qwen2_audio import Qwen2AudioAdapter

ADAPTERS: dict[str, type[OpenWeightAdapter]] = {
    cls.family: cls for cls in (Qwen2AudioAdapter, Qwen25OmniAdapter, GraniteSpeechAdapter, AudioFlamingo3Adapter)
}

__all__ = ["ADAPTERS", "OpenWeightAdapter", "Qwen2AudioAdapter", "Qwen25OmniAdapter", "GraniteSpeechAdapter",
           "AudioFlamingo3Adapter"]
