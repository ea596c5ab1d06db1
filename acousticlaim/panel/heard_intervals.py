"""The estimator suite's answer in time: overlap, pauses and noise located on the signal a system hears.

A panel system hears the mixture alone, so the estimator does too (the best a system could do without the
stems, the anchor of Table 3). Three signal-only estimates, each a plain rule over instruments the project
already runs:

``overlap``
    Silero VAD on the heard mixture (:func:`acousticlaim.instruments.overlap.speech_segments`, the
    references' VAD settings). One waveform cannot tell one talker from two, and overlap is a part of the
    speech, so the estimator states every speech stretch at least ``min_overlap_s`` long as overlapped:
    the reference's overlap windows lie inside them, and on two-talker mixtures cut to the shorter talker
    most speech is overlapped.
``pause``
    The silent gaps of at least 0.3 s (de Jong & Wempe's minimum pause,
    :data:`acousticlaim.instruments.timing.MIN_PAUSE_S`) between consecutive speech stretches of that VAD,
    leading and trailing silence excluded as the pause count excludes it.
``noise``
    Energy: 25-ms frames (10-ms hop) outside the speech whose level is at least ``noise_min_level_db``
    against the speech's own level (the RMS over the VAD speech, the same level the references' noise
    threshold is set against) are noise; a speech stretch with noise on both sides is taken to hold the
    noise too (a stationary noise runs under the speech), and gaps under 0.1 s are bridged.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from acousticlaim.instruments.intervals import Segment, merge_segments
from acousticlaim.instruments.overlap import DEFAULT_VAD, MIN_OVERLAP_S, speech_segments
from acousticlaim.instruments.timing import MIN_PAUSE_S

FRAME_S, HOP_S = 0.025, 0.010
MIN_NOISE_GAP_S = 0.1
NOISE_MIN_LEVEL_DB = -30.0  # as references.intervals.noise_min_level_db


def _frame_levels_db(x: np.ndarray, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """(frame start times, level in dB re full scale) of 25-ms frames at a 10-ms hop."""
    frame, hop = int(round(FRAME_S * sr)), int(round(HOP_S * sr))
    if x.size < frame:
        return np.zeros(0), np.zeros(0)
    n = 1 + (x.size - frame) // hop
    idx = np.arange(frame)[None, :] + hop * np.arange(n)[:, None]
    power = np.mean(np.square(x[idx]), axis=1)
    return np.arange(n) * HOP_S, 10 * np.log10(np.maximum(power, 1e-20))


def pauses_between(speech: list[Segment], min_pause_s: float = MIN_PAUSE_S) -> list[Segment]:
    """The gaps of at least ``min_pause_s`` between consecutive speech stretches."""
    return [(a[1], b[0]) for a, b in zip(speech, speech[1:]) if b[0] - a[1] >= min_pause_s - 1e-12]


def noise_by_energy(x: np.ndarray, sr: int, speech: list[Segment], min_level_db: float = NOISE_MIN_LEVEL_DB
                    ) -> list[Segment]:
    """Where non-speech sound is at least ``min_level_db`` against the speech (rules in the module docstring)."""
    starts, level = _frame_levels_db(x, sr)
    if starts.size == 0:
        return []
    in_speech = np.zeros(starts.size, dtype=bool)
    for a, b in speech:
        in_speech |= (starts + FRAME_S > a) & (starts < b)
    if in_speech.any():
        speech_db = 10 * np.log10(np.mean(np.power(10.0, level[in_speech] / 10)))
    else:  # no speech heard: the loudest frames stand for it
        speech_db = float(np.quantile(level, 0.99))
    label = np.where(in_speech, -1, (level >= speech_db + min_level_db).astype(int))  # -1: unknown (speech)
    known = np.flatnonzero(label >= 0)
    if known.size == 0:
        return []
    # a speech run takes the noise label when the known frames on both sides (or the one side at an edge) are noise
    for i in np.flatnonzero(label < 0):
        left, right = known[known < i], known[known > i]
        sides = [label[left[-1]]] if left.size else []
        sides += [label[right[0]]] if right.size else []
        label[i] = int(all(s == 1 for s in sides))
    duration = x.size / sr
    runs = [(float(t), min(float(t) + FRAME_S, duration)) for t, lab in zip(starts, label) if lab == 1]
    merged: list[list[float]] = []
    for a, b in merge_segments(runs):
        if merged and a - merged[-1][1] < MIN_NOISE_GAP_S:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return [(round(a, 3), round(b, 3)) for a, b in merged]


def locate_heard_events(waveform: np.ndarray, sample_rate: int, *, vad: Mapping[str, Any] | None = None,
                        min_overlap_s: float = MIN_OVERLAP_S, noise_min_level_db: float = NOISE_MIN_LEVEL_DB
                        ) -> dict[str, list[Segment]]:
    """``{event type: [(start, end) s]}`` located on the heard waveform (16 kHz mono)."""
    x = np.asarray(waveform, dtype=np.float64)
    speech = speech_segments(x.astype(np.float32), int(sample_rate), dict(vad or DEFAULT_VAD))
    out = {
        "overlap": [(round(a, 3), round(b, 3)) for a, b in speech if b - a >= min_overlap_s],
        "pause": [(round(a, 3), round(b, 3)) for a, b in pauses_between(speech)],
        "noise": noise_by_energy(x, int(sample_rate), speech, noise_min_level_db),
    }
    return out
