"""Granite-Speech features without torchaudio, against a plain numpy STFT of the documented definition."""

from __future__ import annotations

import numpy as np
import torch
from transformers.audio_utils import mel_filter_bank

from acousticlaim.panel.open_weight.granite_features import TorchGraniteSpeechFeatureExtractor


def numpy_log_mel_pairs(x: np.ndarray) -> np.ndarray:
    """Power STFT (n_fft 512, periodic Hann 400 centred, hop 160, reflect-padded centred frames), HTK mel 80,
    log10 floored at 1e-10 and at max − 8, /4 + 1, odd last frame dropped, frame pairs stacked."""
    n_fft, win, hop = 512, 400, 160
    padded = np.pad(x, n_fft // 2, mode="reflect")
    window = np.zeros(n_fft)
    window[(n_fft - win) // 2:(n_fft - win) // 2 + win] = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(win) / win)
    n_frames = 1 + (padded.size - n_fft) // hop
    frames = np.stack([padded[i * hop:i * hop + n_fft] * window for i in range(n_frames)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    bank = mel_filter_bank(257, 80, 0.0, 8000.0, 16000, norm=None, mel_scale="htk")
    logmel = np.log10(np.maximum(power @ bank, 1e-10))
    logmel = np.maximum(logmel, logmel.max() - 8.0) / 4 + 1
    if logmel.shape[0] % 2:
        logmel = logmel[:-1]
    return logmel.reshape(-1, 160)


def test_features_match_the_definition():
    rng = np.random.default_rng(1)
    t = np.arange(16000 * 2) / 16000
    x = (0.3 * np.sin(2 * np.pi * 180 * t) + 0.02 * rng.standard_normal(t.size)).astype(np.float32)
    fe = TorchGraniteSpeechFeatureExtractor()
    out = fe([torch.from_numpy(x)])
    got = out["input_features"][0].numpy()
    want = numpy_log_mel_pairs(x.astype(np.float64))
    assert got.shape == want.shape == (100, 160)
    np.testing.assert_allclose(got, want, atol=2e-4)
    # 2 s → 201 mel frames → 100 encoder frames → ceil(100/15) = 7 windows × 3 queries
    assert out["audio_embed_sizes"] == [21]
    assert out["input_features_mask"].shape == (1, 21) and bool(out["input_features_mask"].all())


def test_lengths_of_a_padded_batch():
    fe = TorchGraniteSpeechFeatureExtractor()
    out = fe([torch.zeros(16000) + 0.1, torch.zeros(32000) + 0.1])
    assert out["audio_embed_sizes"] == [12, 21]
    assert out["input_features_mask"].sum(1).tolist() == [12, 21]
