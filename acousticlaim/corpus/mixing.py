"""Libri2Mix-style mixing: two reverberant talkers plus noise at an independent SNR.

Following LibriMix's "min" mode, a mixture lasts as long as the shorter source, then is truncated to
``max_duration_s`` (10 s). Each dry source is convolved with its room impulse response and cut back to
that length. Levels:

* the reverberant target talker ``s1`` is set to ``level_dbfs`` RMS over the clip;
* the reverberant interferer ``s2`` to ``level_dbfs − ttr_db`` (the talker-to-talker ratio);
* the noise to ``10·log10(P(s1 + s2) / P(noise)) = snr_db`` — the SNR reference of the SPEC, drawn
  independently of the talker-to-talker ratio.

The mixture is ``s1 + s2 + noise`` and is not normalised; only if its peak would pass full scale is
the whole mixture (stems included) scaled down together, which leaves the SNR and the ratio unchanged
(the gain is recorded). In an RSA-Bench scene the interference is several environmental sources and the
sum is clipped to [-1, 1] as in RSA-Bench (Zhang et al., arXiv:2601.10384) (the clipped share is recorded).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import fftconvolve

from acousticlaim.corpus.noise import rms

PEAK_LIMIT = 0.99


@dataclass
class Mixture:
    mixture: np.ndarray
    s1: np.ndarray  # reverberant target talker, as it sits in the mixture (the clean twin)
    s2: np.ndarray  # reverberant interferer
    noise: np.ndarray
    gain: float  # the common scale applied to avoid passing full scale (1.0 when none)
    clipped_fraction: float

    @property
    def snr_db(self) -> float:
        return snr_db(self.s1 + self.s2, self.noise)

    @property
    def ttr_db(self) -> float:
        return 20 * np.log10(rms(self.s1) / rms(self.s2))


def snr_db(speech: np.ndarray, noise: np.ndarray) -> float:
    """10·log10(P_speech / P_noise) over the clip."""
    return float(10 * np.log10(np.mean(speech**2) / np.mean(noise**2)))


def reverberate(x: np.ndarray, h: np.ndarray | None, length: int) -> np.ndarray:
    y = x if h is None else fftconvolve(x, h)
    y = y[:length]
    if y.size < length:
        y = np.pad(y, (0, length - y.size))
    return y


def mix_sources(
    s1_dry: np.ndarray,
    s2_dry: np.ndarray,
    h1: np.ndarray | None,
    h2: np.ndarray | None,
    noise_unit: np.ndarray,
    *,
    snr: float,
    ttr: float,
    level_dbfs: float,
    max_samples: int,
    s2_offset: int = 0,
    clip: bool = False,
) -> Mixture:
    """Mix two dry talkers (the second delayed by ``s2_offset`` samples) with unit-RMS noise."""
    if s2_offset:
        s2_dry = np.concatenate([np.zeros(s2_offset), s2_dry])
    length = min(s1_dry.size, s2_dry.size, max_samples)
    s1 = reverberate(s1_dry, h1, length)
    s2 = reverberate(s2_dry, h2, length)
    level = 10 ** (level_dbfs / 20)
    s1 = s1 * (level / (rms(s1) + 1e-12))
    s2 = s2 * (level * 10 ** (-ttr / 20) / (rms(s2) + 1e-12))
    speech = s1 + s2
    n = noise_unit[:length]
    noise = n * (rms(speech) / (rms(n) + 1e-12)) * 10 ** (-snr / 20)
    mixture = speech + noise
    gain = 1.0
    if clip:
        clipped = float(np.mean(np.abs(mixture) > 1.0))
        mixture = np.clip(mixture, -1.0, 1.0)
    else:
        clipped = 0.0
        peak = float(np.max(np.abs(mixture)))
        if peak > PEAK_LIMIT:
            gain = PEAK_LIMIT / peak
            mixture, s1, s2, noise = mixture * gain, s1 * gain, s2 * gain, noise * gain
    return Mixture(mixture, s1, s2, noise, gain, clipped)


def active_frames(x: np.ndarray, sr: int, frame_s: float = 0.025, hop_s: float = 0.010, floor_db: float = -30.0):
    """Frame-wise activity: frame energy within ``floor_db`` of the loud frames (99th percentile)."""
    frame, hop = int(frame_s * sr), int(hop_s * sr)
    if x.size < frame:
        return np.zeros(0, dtype=bool)
    idx = np.arange(frame)[None, :] + hop * np.arange(1 + (x.size - frame) // hop)[:, None]
    energy = 10 * np.log10(np.mean(x[idx] ** 2, axis=1) + 1e-20)
    return energy > np.percentile(energy, 99) + floor_db


def overlap_fraction(s1: np.ndarray, s2: np.ndarray, sr: int) -> float:
    """Share of the clip's frames in which both talkers' stems are active (energy-based)."""
    a, b = active_frames(s1, sr), active_frames(s2, sr)
    n = min(a.size, b.size)
    return float(np.mean(a[:n] & b[:n])) if n else 0.0
