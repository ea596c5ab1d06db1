"""Overlap windows: where both talkers speak (``SPEC.md`` §1, tiers).

Silero VAD (the ``silero-vad`` package, its bundled JIT weights, nothing downloaded) marks speech
on each of the two separated stems — the talkers' sources before mixing. The overlap windows are
the intersections of the two stems' speech segments that last at least 0.1 s. The **Masked** F0
references are read on the mixture outside these windows; the overlap fraction is their summed
duration over the clip's duration.

VAD settings are Silero's defaults (threshold 0.5, minimum speech 250 ms, minimum silence 100 ms,
30 ms padding) and are parameters of the ``references`` stage. Audio comes from our own loader
(:func:`acousticlaim.audio.load_audio`), never from Silero's ``read_audio``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

MIN_OVERLAP_S = 0.1
VAD_SAMPLE_RATE = 16_000
DEFAULT_VAD = {"threshold": 0.5, "min_speech_duration_ms": 250, "min_silence_duration_ms": 100, "speech_pad_ms": 30}

Segment = tuple[float, float]


@lru_cache(maxsize=1)
def vad_model() -> Any:
    """Silero VAD's JIT model from the package's own files (loaded once per process)."""
    from silero_vad import load_silero_vad

    return load_silero_vad(onnx=False)


def speech_segments(x: np.ndarray, sr: int, vad: dict[str, Any] | None = None) -> list[Segment]:
    """Silero VAD speech segments of a 16-kHz mono waveform, in seconds."""
    import torch
    from silero_vad import get_speech_timestamps

    if sr != VAD_SAMPLE_RATE:
        raise ValueError(f"Silero VAD reads 16-kHz audio here; got {sr} Hz (load it with acousticlaim.audio.load_audio)")
    settings = {**DEFAULT_VAD, **(vad or {})}
    if not np.any(x):
        return []
    audio = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    stamps = get_speech_timestamps(audio, vad_model(), sampling_rate=sr, return_seconds=False, **settings)
    return [(s["start"] / sr, s["end"] / sr) for s in stamps]


def intersect_segments(a: Sequence[Segment], b: Sequence[Segment], min_duration_s: float = MIN_OVERLAP_S) -> list[Segment]:
    """Intersections of two sorted segment lists that last at least ``min_duration_s``."""
    out: list[Segment] = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if end - start >= min_duration_s - 1e-12:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


@dataclass(frozen=True)
class OverlapWindows:
    windows: list[Segment]
    duration_s: float
    s1_speech: list[Segment] = field(default_factory=list)
    s2_speech: list[Segment] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        """Share of the clip inside the overlap windows (0-1)."""
        if self.duration_s <= 0:
            return 0.0
        return float(sum(end - start for start, end in self.windows) / self.duration_s)

    def mask(self, n_samples: int, sr: int) -> np.ndarray:
        """Boolean per-sample mask, True outside the overlap windows."""
        keep = np.ones(n_samples, dtype=bool)
        for start, end in self.windows:
            keep[int(round(start * sr)) : int(round(end * sr))] = False
        return keep


def overlap_windows(
    s1: np.ndarray, s2: np.ndarray, sr: int, *, min_overlap_s: float = MIN_OVERLAP_S, vad: dict[str, Any] | None = None
) -> OverlapWindows:
    """The overlap windows of two separated stems of the same clip."""
    a, b = speech_segments(s1, sr, vad), speech_segments(s2, sr, vad)
    duration = max(s1.shape[0], s2.shape[0]) / sr
    return OverlapWindows(intersect_segments(a, b, min_overlap_s), duration, a, b)


def masked_mixture(mixture: np.ndarray, windows: OverlapWindows, sr: int) -> np.ndarray:
    """The mixture with the overlap windows zeroed (for listening and inspection; F0 drops frames instead)."""
    return np.where(windows.mask(mixture.shape[0], sr), mixture, 0.0)
