"""Timing: syllable nuclei, speaking and articulation rate, pauses (de Jong & Wempe 2009).

The Praat script "Syllable Nuclei" v2 (de Jong & Wempe, as modified 2010 by Quené, Persoon & de
Jong), step by step through parselmouth, with ``SPEC.md``'s settings: silence threshold −25 dB,
minimum dip 2 dB, minimum pause 0.3 s.

1. ``To Intensity 50 0 yes``. threshold = 0.99-quantile − 25 dB (raised to the minimum intensity
   if below it); the silence threshold for the TextGrid is −25 − (maximum − 0.99-quantile) dB.
2. ``To TextGrid (silences)`` with that threshold, minimum silent interval 0.3 s, minimum sounding
   interval 0.1 s. Phonation time is the summed duration of the sounding intervals; the pauses are
   the silent intervals *between* sounding intervals (``n_sounding − 1``), so leading and trailing
   silence never counts.
3. Intensity peaks: the intensity contour as a Sound, ``To PointProcess (extrema) Left yes no
   Sinc70``; a peak is a candidate when its (cubic-interpolated) intensity exceeds the threshold.
4. A candidate is kept when the dip (the intensity minimum) between it and the next candidate lies
   more than 2 dB below it (the script's loop: the last candidate is never tested).
5. A kept peak is a syllable nucleus when it is voiced — ``To Pitch (ac) 0.02 30 4 no 0.03 0.25
   0.01 0.35 0.25 450`` defined there — and lies in a sounding interval.

Then speaking rate = nuclei / total duration (syllables/s), articulation rate = nuclei / phonation
time, pause count = silent intervals ≥ 0.3 s between sounding intervals, pause rate = pause count /
total duration in minutes (the release's relation: 1 pause over a 3.57-s stem reads 16.83/min).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import parselmouth
from parselmouth.praat import call

from acousticlaim.instruments.reading import Reading

SILENCE_DB = -25.0
MIN_DIP_DB = 2.0
MIN_PAUSE_S = 0.3
MIN_SOUNDING_S = 0.1
INTENSITY_MIN_PITCH_HZ = 50.0
# To Pitch (ac) of the script: time step, floor, max candidates, very accurate, silence, voicing,
# octave cost, octave-jump cost, voiced/unvoiced cost, ceiling
NUCLEI_PITCH_ARGS = (0.02, 30, 4, "no", 0.03, 0.25, 0.01, 0.35, 0.25, 450)


@dataclass(frozen=True)
class TimingReadings:
    speaking_rate: Reading
    articulation_rate: Reading
    pause_count: Reading
    pause_rate: Reading
    n_nuclei: int
    phonation_time_s: float
    duration_s: float
    nuclei_times: tuple[float, ...] = ()
    sounding_intervals: tuple[tuple[float, float], ...] = ()

    @property
    def pause_intervals(self) -> tuple[tuple[float, float], ...]:
        """The pauses the pause count counts: the silent gaps between consecutive sounding intervals."""
        s = self.sounding_intervals
        return tuple((s[i][1], s[i + 1][0]) for i in range(len(s) - 1))

    def as_dict(self) -> dict[str, Reading]:
        return {
            "speaking_rate": self.speaking_rate,
            "articulation_rate": self.articulation_rate,
            "pause_count": self.pause_count,
            "pause_rate": self.pause_rate,
        }

    @classmethod
    def undefined(cls, reason: str, duration_s: float) -> "TimingReadings":
        u = Reading.undefined(reason)
        return cls(u, u, u, u, 0, float("nan"), duration_s)


def sounding_intervals(textgrid: parselmouth.TextGrid) -> list[tuple[float, float]]:
    """The intervals of tier 1 labelled "sounding", as (start, end) in seconds."""
    tier = call(textgrid, "Extract tier", 1)
    starts = _point_times(call(tier, "Get starting points", "sounding"))
    ends = _point_times(call(tier, "Get end points", "sounding"))
    return list(zip(starts.tolist(), ends.tolist()))


def _point_times(point_process: parselmouth.Data) -> np.ndarray:
    """All times of a PointProcess in one call (its Matrix holds them)."""
    if int(call(point_process, "Get number of points")) == 0:
        return np.zeros(0)
    return np.asarray(call(point_process, "To Matrix").values[0], dtype=np.float64)


def _in_any(t: float, intervals: list[tuple[float, float]]) -> bool:
    return any(start <= t < end for start, end in intervals)


def syllable_nuclei(sound: parselmouth.Sound) -> tuple[list[float], list[tuple[float, float]]]:
    """(nucleus times, sounding intervals) of ``sound`` by de Jong & Wempe (steps 1-5 above).

    Values of the intensity contour and the pitch come from parselmouth's own accessors, which are
    Praat's ``Get value at time`` (cubic, and linear in Hertz) without a command round trip.
    """
    intensity = call(sound, "To Intensity", INTENSITY_MIN_PITCH_HZ, 0, "yes")
    min_int = call(intensity, "Get minimum", 0, 0, "Parabolic")
    max_int = call(intensity, "Get maximum", 0, 0, "Parabolic")
    max99 = call(intensity, "Get quantile", 0, 0, 0.99)
    threshold = max99 + SILENCE_DB
    silence_threshold = SILENCE_DB - (max_int - max99)
    if threshold < min_int:
        threshold = min_int

    textgrid = call(intensity, "To TextGrid (silences)", silence_threshold, MIN_PAUSE_S, MIN_SOUNDING_S, "silent", "sounding")
    sounding = sounding_intervals(textgrid)

    # The intensity contour as a Sound has the same samples and time axis as the Intensity, so its
    # cubic value at a time is the Intensity's.
    intensity_sound = call(call(intensity, "Down to Matrix"), "To Sound (slice)", 1)
    peak_times = _point_times(call(intensity_sound, "To PointProcess (extrema)", "Left", "yes", "no", "Sinc70"))
    cubic = parselmouth.ValueInterpolation.CUBIC
    candidates = []
    for t in peak_times:
        value = intensity.get_value(float(t), cubic)
        if value > threshold:
            candidates.append((float(t), value))

    kept = []
    if candidates:
        current_time, current_int = candidates[0]
        for p in range(len(candidates) - 1):
            following_time = candidates[p + 1][0]
            dip = call(intensity, "Get minimum", current_time, following_time, "None")
            if abs(current_int - dip) > MIN_DIP_DB:
                kept.append(candidates[p][0])
            current_time = following_time
            current_int = intensity.get_value(following_time, cubic)

    pitch = call(sound, "To Pitch (ac)", *NUCLEI_PITCH_ARGS)
    nuclei = [t for t in kept if np.isfinite(pitch.get_value_at_time(t)) and _in_any(t, sounding)]
    return nuclei, sounding


def read_timing(x: np.ndarray, sr: int) -> TimingReadings:
    """Speaking rate, articulation rate, pause count and pause rate of a waveform."""
    x = np.asarray(x, dtype=np.float64)
    duration = x.size / sr
    if not np.any(x):
        return TimingReadings.undefined("timing undefined: the signal is silent (no sounding interval)", duration)
    try:
        nuclei, sounding = syllable_nuclei(parselmouth.Sound(x, sampling_frequency=sr))
    except parselmouth.PraatError as exc:
        return TimingReadings.undefined(f"Praat could not find syllable nuclei: {' '.join(str(exc).split())}", duration)
    phonation = float(sum(end - start for start, end in sounding))
    n = len(nuclei)
    speaking_rate = Reading(n / duration)
    articulation_rate = Reading(n / phonation) if phonation > 0 else Reading.undefined("articulation rate undefined: no sounding interval (zero phonation time)")
    if sounding:
        n_pauses = len(sounding) - 1
        pause_count, pause_rate = Reading(n_pauses), Reading(n_pauses / (duration / 60.0))
    else:
        reason = "pauses undefined: no sounding interval above the silence threshold"
        pause_count = pause_rate = Reading.undefined(reason)
    return TimingReadings(speaking_rate, articulation_rate, pause_count, pause_rate, n, phonation, duration, tuple(nuclei), tuple(sounding))
