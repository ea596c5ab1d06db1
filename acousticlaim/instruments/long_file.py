"""`acousticlaim measure` on a long recording (a one-hour meeting) in bounded memory.

A file longer than :data:`LONG_FILE_S` is never loaded whole. It is streamed from disk
(:func:`acousticlaim.audio.stream_audio`) in :data:`SEGMENT_S`-second segments, each measured and
dropped before the next is read; what is kept from a segment is a few numbers per analysis frame
(F0 of the pitch frames, frame energies, block loudness), about 4 kB per second of audio, against
128 kB per second for the waveform alone and ~0.5 MB per second for the Praat analyses of a whole file.

How each reading is put together, and how close it is to reading the whole file at once:

* **duration**, **SNR** (dynamic range): frame energies carried across segments: exact.
* **SRMR** (fast mode): the filterbank streams with its state carried (:mod:`.srmr`): exact to
  rounding. Normal mode is limited to 10 minutes and reads undefined beyond.
* **F0 mean and s.d.**, the **F0 contour**: Praat's pitch frames of every segment, pooled. Praat's
  path finder sees one segment at a time, so frames within a few tens of ms of a segment boundary
  may differ from a whole-file analysis (about 0.1 % of the frames at 60-s segments).
* **jitter**, **shimmer**: each segment's value weighted by the periods it compared
  (:func:`acousticlaim.instruments.praat.read_periods`); **HNR**: weighted by its periodic frames.
  The pairs of periods straddling a boundary are not compared.
* **speaking and articulation rate**: syllable nuclei and phonation time summed over segments;
  **pauses**: the sounding intervals of all segments, joined across a boundary unless the silence
  around it lasts 0.3 s. Each segment sets its own intensity threshold (de Jong & Wempe's
  0.99-quantile − 25 dB), which on a meeting whose level drifts is, if anything, closer to the
  script's intent than one threshold over an hour.
* **loudness**: BS.1770 gating over the 400-ms blocks of every segment (the three blocks that
  straddle each boundary are not formed).

``tests/test_measure_long.py`` compares the two paths on a recording where both can run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from acousticlaim.audio import TARGET_SR, stream_audio
from acousticlaim.instruments.contour import f0_contour_summary
from acousticlaim.instruments.loudness import BLOCK_S, block_loudness, loudness_of_blocks
from acousticlaim.instruments.praat import (
    PraatAnalysis,
    periodic_frame_mask,
    read_hnr,
    read_jitter,
    read_periods,
    read_shimmer,
)
from acousticlaim.instruments.reading import Reading
from acousticlaim.instruments.snr import FRAME_S as SNR_FRAME_S
from acousticlaim.instruments.snr import HOP_S as SNR_HOP_S
from acousticlaim.instruments.snr import dynamic_range_of
from acousticlaim.instruments.srmr import srmr
from acousticlaim.instruments.timing import MIN_PAUSE_S, read_timing

LONG_FILE_S = 120.0  # longer files are streamed; shorter ones are read whole
SEGMENT_S = 60.0
STREAM_BLOCK_S = 10.0


@dataclass
class _Weighted:
    """A reading combined over segments as a weighted mean of the segments' defined values."""

    total: float = 0.0
    weight: float = 0.0
    reasons: list[str] = field(default_factory=list)

    def add(self, reading: Reading, weight: float) -> None:
        if reading.defined and weight > 0:
            self.total += reading.value * weight
            self.weight += weight
        elif not reading.defined:
            self.reasons.append(reading.reason)

    def reading(self, what: str) -> Reading:
        if self.weight > 0:
            return Reading(self.total / self.weight)
        why = self.reasons[0] if self.reasons else f"{what} undefined"
        return Reading.undefined(f"{why} (in every {SEGMENT_S:.0f}-s segment of the file)")


class _FrameEnergies:
    """The SNR's 25-ms frame energies every 10 ms of a signal given segment by segment (exact)."""

    def __init__(self, sr: int):
        self.frame, self.hop = int(round(SNR_FRAME_S * sr)), int(round(SNR_HOP_S * sr))
        self.carry = np.zeros(0)
        self.parts: list[np.ndarray] = []

    def add(self, x: np.ndarray) -> None:
        buffer = np.concatenate([self.carry, x])
        n = 0 if buffer.size < self.frame else 1 + (buffer.size - self.frame) // self.hop
        if n:
            squares = np.lib.stride_tricks.sliding_window_view(buffer**2, self.frame)
            self.parts.append(squares[: n * self.hop : self.hop].sum(axis=1))
        self.carry = buffer[n * self.hop :]

    def energies(self) -> np.ndarray:
        return np.concatenate(self.parts) if self.parts else np.zeros(0)


def _join_sounding(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sounding intervals of consecutive segments, joined where the silence between is under 0.3 s."""
    joined: list[tuple[float, float]] = []
    for start, end in intervals:
        if joined and start - joined[-1][1] < MIN_PAUSE_S:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def _try(problems: list[str], what: str, t0: float, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one segment's failure is reported, the others still count
        problems.append(f"{what} failed on the segment at {t0:.0f} s ({type(exc).__name__}: {' '.join(str(exc).split())})")
        return None


def measure_long_file(path: str | os.PathLike, *, srmr_fast: bool = True) -> dict[str, Any]:
    """Readings, loudness and F0 contour of a long file, streamed (see the module docstring).

    Raises :class:`acousticlaim.audio.AudioError` when the file cannot be read or holds NaN, Inf or
    out-of-range samples (naming the time).
    """
    sr = TARGET_SR
    n_samples = 0
    snr_frames = _FrameEnergies(sr)
    f0_parts: list[np.ndarray] = []
    time_parts: list[np.ndarray] = []
    jitter, shimmer, hnr = _Weighted(), _Weighted(), _Weighted()
    n_nuclei, phonation, sounding = 0, 0.0, []
    timing_reasons: list[str] = []
    loud_parts: list[np.ndarray] = []
    loud_times: list[np.ndarray] = []
    problems: list[str] = []
    for segment in stream_audio(path, SEGMENT_S, target_sr=sr):
        t0 = n_samples / sr
        n_samples += segment.size
        snr_frames.add(segment)
        analysis = PraatAnalysis(segment, sr)
        track = _try(problems, "Praat To Pitch", t0, lambda: analysis.pitch_track)
        if track is not None:
            time_parts.append(track[0] + t0)
            f0_parts.append(track[1])
        for combined, reader, weight in (
            (jitter, read_jitter, lambda: len(read_periods(analysis))),
            (shimmer, read_shimmer, lambda: len(read_periods(analysis))),
            (hnr, read_hnr, lambda: int(np.count_nonzero(periodic_frame_mask(analysis)[1]))),
        ):
            value = _try(problems, reader.__name__.removeprefix("read_"), t0, lambda: (reader(analysis), weight()))
            if value is not None:
                combined.add(*value)
        del analysis
        timing = _try(problems, "the timing reader", t0, lambda: read_timing(segment, sr))
        if timing is not None:
            if timing.sounding_intervals or timing.n_nuclei:
                n_nuclei += timing.n_nuclei
                phonation += timing.phonation_time_s
                sounding.extend((a + t0, b + t0) for a, b in timing.sounding_intervals)
            else:
                timing_reasons.append(timing.pause_count.reason)
        if segment.size / sr >= BLOCK_S:
            blocks = _try(problems, "loudness", t0, lambda: block_loudness(segment, sr))
            if blocks is not None:
                loud_parts.append(blocks)
                loud_times.append(t0 + BLOCK_S * 0.25 * np.arange(blocks.size) + BLOCK_S / 2)
    duration = n_samples / sr

    def stream():
        return stream_audio(path, STREAM_BLOCK_S, target_sr=sr)

    f0 = np.concatenate(f0_parts) if f0_parts else np.zeros(0)
    times = np.concatenate(time_parts) if time_parts else np.zeros(0)
    voiced = f0[f0 > 0]
    if voiced.size >= 2:
        f0_mean, f0_sd = Reading(float(voiced.mean())), Reading(float(np.std(voiced, ddof=1)))
    else:
        reason = "fewer than two voiced frames in the file (Praat To Pitch (ac) 75-500 Hz)"
        f0_mean = Reading(float(voiced[0])) if voiced.size == 1 else Reading.undefined(reason)
        f0_sd = Reading.undefined(reason)
    joined = _join_sounding(sounding)
    if joined:
        pause_count = Reading(len(joined) - 1)
        pause_rate = Reading((len(joined) - 1) / (duration / 60.0))
        articulation = Reading(n_nuclei / phonation) if phonation > 0 else Reading.undefined(
            "articulation rate undefined: no sounding interval (zero phonation time)")
    else:
        reason = (timing_reasons[0] if timing_reasons else "pauses undefined: no sounding interval") + " (in every segment)"
        pause_count = pause_rate = articulation = Reading.undefined(reason)
    readings = {
        "snr": dynamic_range_of(snr_frames.energies(), duration),
        "srmr": srmr(stream, sr, fast=srmr_fast, n_samples=n_samples),
        "speaking_rate": Reading(n_nuclei / duration) if joined else articulation,
        "pause_count": pause_count,
        "pause_rate": pause_rate,
        "f0_mean": f0_mean,
        "f0_sd": f0_sd,
        "jitter": jitter.reading("jitter"),
        "shimmer": shimmer.reading("shimmer"),
        "hnr": hnr.reading("HNR"),
        "overlap_ratio": Reading.undefined("overlap needs the two talkers' separated stems; a single file has none"),
        "articulation_rate": articulation,
        "duration": Reading(duration),
    }
    if loud_parts:
        loudness = loudness_of_blocks(np.concatenate(loud_parts), np.concatenate(loud_times), duration)
    else:
        loudness = {"reason": "no loudness: " + ("; ".join(problems) or "no 400-ms block")}
    contour = f0_contour_summary(times, f0, duration) if f0.size else {"reason": "no pitch track"}
    notes = [f"a {duration:.0f}-s file (over {LONG_FILE_S:.0f} s) is streamed and measured in {SEGMENT_S:.0f}-s segments; "
             "see acousticlaim.instruments.long_file for how each reading is combined", *problems]
    return {"readings": readings, "loudness": loudness, "f0_contour": contour, "duration_s": duration, "notes": notes}
