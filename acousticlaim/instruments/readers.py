"""The readers: each reads a group of quantities on one signal of a clip (``SPEC.md`` §1).

A quantity's registry entry names its reader (``Quantity.reader``) and the signal it is read on per
corpus condition (``Quantity.signal``); :func:`read_quantities` asks each (reader, signal) pair once and
hands every quantity its reading. The ``references`` stage and ``acousticlaim measure`` both read this
way, so a quantity added to the registry with a reader here is read by both.

Signals: ``mixture``, ``twin`` and ``channel`` are the clip's own audio; ``stem`` is the target talker's
clean stem ``s1`` (for ``snr``: the three stems, the mixing SNR); ``masked_mixture`` is the mixture
outside the overlap windows of the two stems (Silero VAD).
"""

from __future__ import annotations

from typing import Callable, Iterable, Protocol

import numpy as np

from acousticlaim.instruments.praat import PraatAnalysis, VoiceReadings, read_f0, read_voice
from acousticlaim.instruments.reading import Reading
from acousticlaim.instruments.snr import dynamic_range_snr, mixing_snr
from acousticlaim.instruments.srmr import srmr
from acousticlaim.instruments.timing import TimingReadings, read_timing
from acousticlaim.quantities import QUANTITIES, Corpus

NO_STEMS = "no separated stems for this clip: overlap windows cannot be read"


class Signal:
    """One decoded waveform with its Praat objects, voice readings and timing, each built once."""

    def __init__(self, x: np.ndarray, sr: int, *, halves: bool = True):
        self.x, self.sr, self.halves = x, sr, halves
        self.analysis = PraatAnalysis(x, sr)
        self._voice: VoiceReadings | None = None
        self._timing: TimingReadings | None = None

    @property
    def duration(self) -> float:
        return self.x.size / self.sr

    def voice(self) -> VoiceReadings:
        if self._voice is None:
            self._voice = read_voice(self.analysis, halves=self.halves)
        return self._voice

    def timing(self) -> TimingReadings:
        if self._timing is None:
            self._timing = read_timing(self.x, self.sr)
        return self._timing


class Clip(Protocol):
    """What a reader may ask of a clip."""

    params: dict

    def signal(self, name: str) -> Signal: ...

    def stems(self) -> tuple[Signal, Signal, Signal]:  # s1, s2, noise
        ...

    def overlap_windows(self) -> tuple[float, list[tuple[float, float]]]:  # (fraction, windows)
        ...


def _snr(clip: Clip, signal: str) -> dict[str, Reading]:
    if signal == "stem":
        s1, s2, noise = clip.stems()
        return {"snr": mixing_snr([s1.x, s2.x], noise.x)}
    sig = clip.signal(signal)
    return {"snr": dynamic_range_snr(sig.x, sig.sr)}


def _srmr(clip: Clip, signal: str) -> dict[str, Reading]:
    sig = clip.signal(signal)
    return {"srmr": srmr(sig.x, sig.sr, fast=bool(clip.params.get("srmr_fast", True)))}


def _timing(clip: Clip, signal: str) -> dict[str, Reading]:
    return clip.signal(signal).timing().as_dict()


def _voice(clip: Clip, signal: str) -> dict[str, Reading]:
    if signal == "masked_mixture":
        _, windows = clip.overlap_windows()
        f0_mean, f0_sd = read_f0(clip.signal("mixture").analysis, windows)
        return {"f0_mean": f0_mean, "f0_sd": f0_sd}
    return clip.signal(signal).voice().as_dict()


def _overlap(clip: Clip, signal: str) -> dict[str, Reading]:
    if signal == "stem":
        return {"overlap_ratio": Reading(clip.overlap_windows()[0])}
    if signal == "twin":
        return {"overlap_ratio": Reading(0.0)}  # one talker
    return {"overlap_ratio": Reading.undefined(NO_STEMS)}


def _duration(clip: Clip, signal: str) -> dict[str, Reading]:
    return {"duration": Reading(clip.signal(signal).duration)}


Reader = Callable[[Clip, str], dict]
READERS: dict[str, Reader] = {
    "snr": _snr, "srmr": _srmr, "timing": _timing, "voice": _voice, "overlap": _overlap, "duration": _duration,
}


def describe(reader: str, signal: str) -> str:
    """The words a failure of this reader on this signal is recorded under."""
    special = {("snr", "stem"): "mixing SNR", ("voice", "masked_mixture"): "overlap windows and masked F0",
               ("overlap", "stem"): "overlap windows and masked F0", ("timing", "stem"): "timing on stem s1",
               ("voice", "stem"): "Praat on stem s1", ("snr", "channel"): "dynamic-range SNR",
               ("voice", "twin"): "Praat", ("voice", "channel"): "Praat", ("timing", "twin"): "timing",
               ("timing", "channel"): "timing"}
    return special.get((reader, signal), reader if reader != "srmr" else "SRMR")


Guard = Callable[[str, tuple[str, ...], Callable[[], dict]], dict]


def read_quantities(clip: Clip, corpus: Corpus | str, keys: Iterable[str], guard: Guard) -> dict[str, Reading]:
    """Every quantity of ``keys`` read on ``clip`` as the registry says for ``corpus``: each (reader,
    signal) pair is asked once, through ``guard(what, keys, fn)`` (which turns an error into undefined
    readings and records it)."""
    corpus = Corpus(corpus)
    pairs: dict[tuple[str, str], list[str]] = {}
    for key in keys:
        q = QUANTITIES[key]
        pairs.setdefault((q.reader, q.signal(corpus)), []).append(key)
    readings: dict[str, Reading] = {}
    for (reader, signal), group in pairs.items():
        got = guard(describe(reader, signal), tuple(group), lambda: READERS[reader](clip, signal))
        readings.update({k: got[k] for k in group})
    return readings
