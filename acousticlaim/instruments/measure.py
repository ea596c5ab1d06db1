"""`acousticlaim measure`: every instrument on one recording, as an evidence blueprint.

A file on its own has no stems, so each reading is taken on the file itself (as on AMI, where the
reference is read on the channel the models hear): the SNR is the within-clip dynamic range
(90th over 10th percentile of 25-ms frame energy), F0 is read over all voiced frames (no overlap
windows without stems), and the timing and voice quantities read the whole file. The overlap ratio
needs the two talkers' stems and is reported undefined. Beside the readings go the integrated
loudness (LUFS) and the F0 and loudness contour summaries — the kind of blueprint TRACE ("Hearing
Between the Lines") hands an LLM judge.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acousticlaim.audio import AudioError, audio_seconds, load_audio
from acousticlaim.instruments.contour import f0_contour_summary
from acousticlaim.instruments.long_file import LONG_FILE_S, measure_long_file
from acousticlaim.instruments.loudness import loudness_summary
from acousticlaim.instruments.readers import Signal, read_quantities
from acousticlaim.instruments.reading import Reading
from acousticlaim.quantities import QUANTITIES, Corpus, get

SNR_ON_FILE = "dynamic range: 10*log10 of the 90th over the 10th percentile of 25-ms frame energy (no stems)"
F0_ON_FILE = "Praat To Pitch (ac) 75-500 Hz, {} over all voiced frames of the file (no stems, so no overlap windows)"
TIMING_KEYS = ("speaking_rate", "pause_count", "pause_rate", "articulation_rate")
VOICE_KEYS = ("f0_mean", "f0_sd", "jitter", "shimmer", "hnr")
ON_FILE = {"snr": SNR_ON_FILE, "f0_mean": F0_ON_FILE.format("mean"), "f0_sd": F0_ON_FILE.format("s.d.")}


@dataclass
class FileMeasurement:
    """The readings of one file, keyed by quantity, plus the blueprint extras."""

    path: str
    readings: dict[str, Reading]
    duration_s: float | None = None
    loudness: dict[str, Any] = field(default_factory=dict)
    f0_contour: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        readings = {}
        for key in QUANTITIES:
            q = get(key)
            reading = self.readings[key]
            readings[key] = {
                **reading.to_dict(),
                "unit": q.unit,
                "scored": q.scored,
                "definition": ON_FILE.get(key, q.definition),
            }
        loudness = dict(self.loudness)
        if isinstance(loudness.get("integrated_lufs"), Reading):
            loudness["integrated_lufs"] = loudness["integrated_lufs"].to_dict()
        out = {"file": self.path, "duration_s": self.duration_s, "readings": readings, "loudness": loudness, "f0_contour": self.f0_contour}
        if self.error:
            out["error"] = self.error
        if self.notes:
            out["notes"] = list(self.notes)
        return out


class _FileClip:
    """A file as the readers see it: every signal is the file itself (read as on an AMI channel)."""

    def __init__(self, x: np.ndarray, sr: int, srmr_fast: bool):
        self.file = Signal(x, sr, halves=False)
        self.params = {"srmr_fast": srmr_fast}

    def signal(self, name: str) -> Signal:
        return self.file

    def stems(self):
        raise AudioError("file", "a single file has no stems")

    def overlap_windows(self):
        raise AudioError("file", "a single file has no stems")


def _guarded(name: str, keys: tuple[str, ...], read) -> dict[str, Reading]:
    """Run one instrument; any failure on this clip becomes each of its readings' undefined reason."""
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - an instrument's failure is that reading's reason, never a crash
        reason = f"{name} failed on this clip ({type(exc).__name__}: {' '.join(str(exc).split())})"
        return {key: Reading.undefined(reason) for key in keys}


def measure_waveform(x: np.ndarray, sr: int, *, srmr_fast: bool = True) -> dict[str, Any]:
    """Readings, loudness and F0 contour of one mono waveform (decoded once, Praat objects built once):
    every quantity of the registry by its reader, on the file as on an AMI channel.

    Every reader is run on its own: one that fails on this clip (too short for its analysis window, say)
    leaves its readings undefined with the reason, and the others are still read.
    """
    clip = _FileClip(x, sr, srmr_fast)
    readings = read_quantities(clip, Corpus.AMI, list(QUANTITIES), _guarded)
    try:
        times, f0 = clip.file.analysis.pitch_track
        contour = f0_contour_summary(times, f0, x.size / sr)
    except Exception as exc:  # noqa: BLE001 - Praat refuses very short clips; the reason is reported
        contour = {"reason": f"no pitch track: {' '.join(str(exc).split())}"}
    try:
        loudness = loudness_summary(x, sr)
    except Exception as exc:  # noqa: BLE001
        loudness = {"reason": f"no loudness: {type(exc).__name__}: {' '.join(str(exc).split())}"}
    return {"readings": readings, "loudness": loudness, "f0_contour": contour}


def measure_file(path: str | os.PathLike, *, srmr_fast: bool = True) -> FileMeasurement:
    """Measure one audio file; an unreadable file gives every reading undefined with the loader's reason.

    A file longer than :data:`acousticlaim.instruments.long_file.LONG_FILE_S` is streamed in segments
    (:func:`acousticlaim.instruments.long_file.measure_long_file`), so memory does not grow with its length.
    """
    try:
        if audio_seconds(path) > LONG_FILE_S:
            result = measure_long_file(path, srmr_fast=srmr_fast)
            return FileMeasurement(str(path), result["readings"], result["duration_s"], result["loudness"],
                                   result["f0_contour"], notes=result["notes"])
        x, sr = load_audio(path, allow_silent=True)
        result = measure_waveform(x, sr, srmr_fast=srmr_fast)
    except AudioError as exc:
        reason = f"audio unusable: {exc.reason}"
        return FileMeasurement(str(path), {k: Reading.undefined(reason) for k in QUANTITIES}, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - one file's failure never loses the other files' readings
        reason = f"measuring failed ({type(exc).__name__}: {' '.join(str(exc).split())})"
        return FileMeasurement(str(path), {k: Reading.undefined(reason) for k in QUANTITIES}, error=f"{path}: {reason}")
    return FileMeasurement(str(path), result["readings"], x.size / sr, result["loudness"], result["f0_contour"])
