"""The frozen encoder: WavLM read at one hidden layer, or a log-mel front end, at 50 frames per second.

Two kinds, chosen by ``features.encoder.kind`` in ``params.yaml``:

* ``wavlm`` — ``transformers.WavLMModel`` with ``output_hidden_states``; the features are
  ``hidden_states[layer]`` (index 0 is the output of the convolutional feature projection, index *k* the
  output of transformer layer *k*, so layer 7 is the paper's reading). ``checkpoint`` is a local folder
  or hub id; with ``checkpoint: null`` a **tiny** WavLM is built from ``WavLMConfig`` with random weights,
  deterministic from ``seed`` (same class, same code path, a few layers). The waveform goes in raw and
  unnormalised, as every system hears it. Frame hop 20 ms (the conv stack's stride of 320 samples).
* ``logmel`` — log10 mel-band energies (HTK mel scale, Hann window, power spectrum) at a 20-ms hop, so
  the compressor sees the same frame rate. Levels are absolute (no normalisation), so the noise floor
  and speech level the SNR depends on stay in the features.

The encoder is frozen: no gradient flows into it and the ``features`` stage caches its output per clip.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from acousticlaim.params import param, settings_from

SAMPLE_RATE = 16_000
FRAME_HOP = 320  # samples per encoder frame (20 ms), for both kinds
FRAME_RATE_HZ = SAMPLE_RATE / FRAME_HOP

TINY_WAVLM_DEFAULTS: dict[str, Any] = {
    "hidden_size": 64,
    "num_hidden_layers": 8,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "conv_dim": [32, 32, 32, 32, 32, 32, 32],
    "conv_stride": [5, 2, 2, 2, 2, 2, 2],
    "conv_kernel": [10, 3, 3, 3, 3, 2, 2],
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4,
    "num_buckets": 32,
    "max_bucket_distance": 100,
}


@dataclass(frozen=True)
class EncoderSpec:
    """What the ``features.encoder`` group of ``params.yaml`` says."""

    kind: str = param("logmel", choices=("wavlm", "logmel"))
    checkpoint: str | None = None  # WavLM local folder or hub id; None builds the tiny random WavLM
    layer: int = param(7, ge=0)
    seed: int = 0
    tiny: dict[str, Any] = field(default_factory=dict)  # overrides of TINY_WAVLM_DEFAULTS
    n_mels: int = param(80, ge=1)
    n_fft: int = param(1024, ge=16)
    win_length: int = param(800, ge=16)
    f_min: float = param(40.0, ge=0)
    f_max: float = param(8000.0, gt=0, le=8000)
    device: str = "cpu"
    dtype: str = "float32"

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "EncoderSpec":
        return settings_from(cls, params, "features.encoder")

    def fingerprint(self) -> str:
        """A short hash of everything that changes the features (stored with each cached clip)."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


def mel_filterbank(n_mels: int, n_fft: int, sr: int, f_min: float, f_max: float) -> np.ndarray:
    """Triangular HTK-mel filters, shape (n_mels, n_fft // 2 + 1), each peaking at 1."""
    if not 0 <= f_min < f_max <= sr / 2:
        raise ValueError(f"need 0 <= f_min < f_max <= {sr / 2}, got f_min={f_min}, f_max={f_max}")
    bins = np.linspace(0.0, sr / 2, n_fft // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(f_min), _hz_to_mel(f_max), n_mels + 2))
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - lower) / (centre - lower)
    falling = (upper - bins[None, :]) / (upper - centre)
    return np.clip(np.minimum(rising, falling), 0.0, None)


class LogMelEncoder:
    """log10 mel energies at a 20-ms hop: (frames, n_mels) float32."""

    def __init__(self, spec: EncoderSpec):
        if spec.win_length > spec.n_fft:
            raise ValueError(f"win_length {spec.win_length} exceeds n_fft {spec.n_fft}")
        self.spec = spec
        self.filters = torch.from_numpy(
            mel_filterbank(spec.n_mels, spec.n_fft, SAMPLE_RATE, spec.f_min, spec.f_max)
        ).float()
        self.window = torch.hann_window(spec.win_length)
        self.dim = spec.n_mels

    @torch.no_grad()
    def __call__(self, waveform: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(waveform, dtype=np.float32))
        if x.numel() < self.spec.n_fft:
            x = torch.nn.functional.pad(x, (0, self.spec.n_fft - x.numel()))
        spec = torch.stft(
            x, n_fft=self.spec.n_fft, hop_length=FRAME_HOP, win_length=self.spec.win_length,
            window=self.window, center=False, return_complex=True,
        )
        power = spec.abs().pow(2)  # (freq, frames)
        mel = self.filters @ power
        return torch.log10(mel + 1e-10).T.contiguous().numpy()


class WavLMEncoder:
    """``WavLMModel`` hidden states at ``spec.layer``: (frames, hidden_size) float32."""

    def __init__(self, spec: EncoderSpec):
        from transformers import WavLMConfig, WavLMModel

        self.spec = spec
        dtype = getattr(torch, spec.dtype)
        if spec.checkpoint:
            # safetensors where the checkpoint has them; a .bin is read by transformers with weights_only=True
            self.model = WavLMModel.from_pretrained(spec.checkpoint, dtype=dtype)
        else:
            config = WavLMConfig(**{**TINY_WAVLM_DEFAULTS, **spec.tiny})
            generator_state = torch.random.get_rng_state()
            torch.manual_seed(spec.seed)
            try:
                self.model = WavLMModel(config).to(dtype)
            finally:
                torch.random.set_rng_state(generator_state)
        n_layers = self.model.config.num_hidden_layers
        if not 0 <= spec.layer <= n_layers:
            raise ValueError(f"encoder layer {spec.layer} is outside 0..{n_layers} of this WavLM")
        self.model.eval().requires_grad_(False).to(spec.device)
        self.dim = self.model.config.hidden_size
        self.dtype = dtype

    @torch.no_grad()
    def __call__(self, waveform: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(waveform, dtype=np.float32))[None].to(self.spec.device, self.dtype)
        out = self.model(x, output_hidden_states=True)
        return out.hidden_states[self.spec.layer][0].float().cpu().numpy()


def build_encoder(spec: EncoderSpec) -> LogMelEncoder | WavLMEncoder:
    return WavLMEncoder(spec) if spec.kind == "wavlm" else LogMelEncoder(spec)
