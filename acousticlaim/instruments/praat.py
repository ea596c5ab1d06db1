"""Praat voice readings through praat-parselmouth: F0 mean and s.d., jitter, shimmer, HNR.

Definitions (``SPEC.md`` §1), each with Praat's own arguments:

* **F0** — ``To Pitch (ac)``: time step 0 (auto), floor 75 Hz, 15 candidates, very accurate off,
  silence threshold 0.03, voicing threshold 0.45, octave cost 0.01, octave-jump cost 0.35,
  voiced/unvoiced cost 0.14, ceiling 500 Hz. ``f0_mean`` and ``f0_sd`` are the mean and the
  (n − 1) standard deviation of the voiced frames' F0 in Hz — what Praat's ``Get mean`` / ``Get
  standard deviation`` (0, 0, "Hertz") return. For the **Masked** tier the frames whose centre lies
  inside an overlap window are dropped first.
* **PointProcess (periodic, cc)** — built as ``Sound & Pitch: To PointProcess (cc)`` from the Pitch
  above, which is exactly what ``Sound: To PointProcess (periodic, cc) 75 500`` computes internally
  (it builds the same ac Pitch with default settings), so the Pitch is built once and shared.
* **jitter (local)** — ``Get jitter (local) 0 0 0.0001 0.02 1.3`` × 100 (percent).
* **shimmer (local)** — ``Sound & PointProcess: Get shimmer (local) 0 0 0.0001 0.02 1.3 1.6`` × 100.
* **HNR** — ``To Harmonicity (cc) 0.01 75 0.1 1.0`` then ``Get mean 0 0`` (dB; Praat skips the
  unvoiced −200 dB frames).

The half readings for split-half reliability read jitter, shimmer and HNR over the first and the
second half of the signal's time range, with Praat's own time-range arguments on the same objects.

Praat's ``--undefined--`` (NaN) and any Praat error become an undefined :class:`Reading` with the
reason; nothing here raises for a signal that is merely unmeasurable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np
import parselmouth
from parselmouth.praat import call

from acousticlaim.instruments.reading import Reading

PITCH_FLOOR_HZ = 75.0
PITCH_CEILING_HZ = 500.0
# To Pitch (ac): time step, floor, max candidates, very accurate, silence, voicing, octave, octave jump, v/uv, ceiling
PITCH_AC_ARGS = (0.0, PITCH_FLOOR_HZ, 15, "no", 0.03, 0.45, 0.01, 0.35, 0.14, PITCH_CEILING_HZ)
# Get jitter (local): shortest period, longest period, maximum period factor
JITTER_ARGS = (0.0001, 0.02, 1.3)
# Get shimmer (local): shortest period, longest period, maximum period factor, maximum amplitude factor
SHIMMER_ARGS = (0.0001, 0.02, 1.3, 1.6)
# To Harmonicity (cc): time step, minimum pitch, silence threshold, periods per window
HARMONICITY_CC_ARGS = (0.01, 75.0, 0.1, 1.0)
# Praat's Harmonicity writes this level in frames without periodicity; its Get mean skips them
HARMONICITY_UNVOICED_DB = -200.0

Window = tuple[float, float]


class PraatAnalysis:
    """The Praat objects of one waveform, each built at most once and shared by the readers."""

    def __init__(self, x: np.ndarray, sr: int):
        self.x = np.asarray(x, dtype=np.float64)
        self.sr = int(sr)
        self.duration = self.x.size / self.sr

    @cached_property
    def sound(self) -> parselmouth.Sound:
        return parselmouth.Sound(self.x, sampling_frequency=self.sr)

    @cached_property
    def pitch(self) -> parselmouth.Pitch:
        return call(self.sound, "To Pitch (ac)", *PITCH_AC_ARGS)

    @cached_property
    def point_process(self) -> parselmouth.Data:
        return call([self.sound, self.pitch], "To PointProcess (cc)")

    @cached_property
    def harmonicity(self) -> parselmouth.Harmonicity:
        return call(self.sound, "To Harmonicity (cc)", *HARMONICITY_CC_ARGS)

    @cached_property
    def pitch_track(self) -> tuple[np.ndarray, np.ndarray]:
        """Frame centre times and F0 in Hz (0 where unvoiced)."""
        pitch = self.pitch
        return np.asarray(pitch.xs(), dtype=np.float64), np.asarray(pitch.selected_array["frequency"], dtype=np.float64)

    @cached_property
    def n_periods(self) -> int:
        return int(call(self.point_process, "Get number of points"))

    @cached_property
    def pulse_times(self) -> np.ndarray:
        """Times (s) of the glottal pulses of the PointProcess (periodic, cc)."""
        if self.n_periods == 0:
            return np.zeros(0)
        return np.asarray(call(self.point_process, "To Matrix").values[0], dtype=np.float64)

    @cached_property
    def harmonicity_track(self) -> tuple[np.ndarray, np.ndarray]:
        """Frame centre times and HNR in dB of the Harmonicity (cc) (−200 where Praat finds no periodicity)."""
        harmonicity = self.harmonicity
        return np.asarray(harmonicity.xs(), dtype=np.float64), np.asarray(harmonicity.values[0], dtype=np.float64)


def _praat_guard(fn, what: str) -> Reading:
    """Run a Praat reading; a Praat error becomes an undefined reading that names it."""
    try:
        return fn()
    except parselmouth.PraatError as exc:
        message = " ".join(str(exc).split())
        return Reading.undefined(f"Praat could not {what}: {message}")


def voiced_frame_mask(analysis: PraatAnalysis, exclude: Sequence[Window] = ()) -> tuple[np.ndarray, np.ndarray]:
    """(frame times, mask) of the pitch frames F0 reads: voiced, centre outside every ``exclude`` window."""
    times, f0 = analysis.pitch_track
    keep = f0 > 0
    for start, end in exclude:
        keep &= ~((times >= start) & (times < end))
    return times, keep


def voiced_f0(analysis: PraatAnalysis, exclude: Sequence[Window] = ()) -> np.ndarray:
    """F0 (Hz) of the voiced frames whose centre lies outside every ``exclude`` window."""
    _, keep = voiced_frame_mask(analysis, exclude)
    return analysis.pitch_track[1][keep]


def read_periods(analysis: PraatAnalysis) -> list[Window]:
    """The periods (pulse to next pulse, seconds) that jitter (local) compares.

    Praat's ``Get jitter (local)`` sums ``|T_i − T_(i+1)|`` over consecutive periods that both lie within
    the shortest–longest period (``JITTER_ARGS``) and whose ratio is at most the maximum period factor; a
    period is read when it belongs to at least one such pair. Shimmer (local) compares the amplitudes of
    the same pairs (its amplitude factor, 1.6, can drop a few more).
    """
    t = analysis.pulse_times
    if t.size < 3:
        return []
    shortest, longest, factor = JITTER_ARGS
    periods = np.diff(t)
    valid = (periods >= shortest) & (periods <= longest)
    p1, p2 = periods[:-1], periods[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = valid[:-1] & valid[1:] & (p1 / p2 <= factor) & (p2 / p1 <= factor)
    read = np.zeros(periods.size, dtype=bool)
    read[:-1] |= pair
    read[1:] |= pair
    return [(float(t[i]), float(t[i + 1])) for i in np.flatnonzero(read)]


def periodic_frame_mask(analysis: PraatAnalysis) -> tuple[np.ndarray, np.ndarray]:
    """(frame times, mask) of the Harmonicity (cc) frames HNR's ``Get mean`` averages (not −200 dB)."""
    times, hnr = analysis.harmonicity_track
    return times, hnr != HARMONICITY_UNVOICED_DB


def read_f0(analysis: PraatAnalysis, exclude: Sequence[Window] = ()) -> tuple[Reading, Reading]:
    """(f0_mean, f0_sd) in Hz over the voiced frames outside ``exclude``."""

    def compute() -> tuple[Reading, Reading]:
        f0 = voiced_f0(analysis, exclude)
        where = " outside the overlap windows" if exclude else ""
        if f0.size == 0:
            reason = f"no voiced frames{where} (Praat To Pitch (ac) 75-500 Hz)"
            return Reading.undefined(reason), Reading.undefined(reason)
        mean = Reading(float(np.mean(f0)))
        if f0.size < 2:
            return mean, Reading.undefined(f"one voiced frame{where}: no standard deviation")
        return mean, Reading(float(np.std(f0, ddof=1)))

    try:
        return compute()
    except parselmouth.PraatError as exc:
        reason = f"Praat could not compute a pitch track: {' '.join(str(exc).split())}"
        return Reading.undefined(reason), Reading.undefined(reason)


def _period_reason(analysis: PraatAnalysis, what: str) -> str:
    n = analysis.n_periods
    if n < 3:
        return f"{what} undefined: {n} glottal pulse(s) found, too few periods (Praat --undefined--)"
    return f"{what} undefined: no consecutive periods within 0.0001-0.02 s and factor 1.3 (Praat --undefined--)"


def read_jitter(analysis: PraatAnalysis, start: float = 0.0, end: float = 0.0) -> Reading:
    """Jitter (local) in percent over [start, end] (0, 0 = the whole signal)."""

    def compute() -> Reading:
        value = call(analysis.point_process, "Get jitter (local)", start, end, *JITTER_ARGS)
        return Reading.of(value * 100.0, _period_reason(analysis, "jitter"))

    return _praat_guard(compute, "read jitter")


def read_shimmer(analysis: PraatAnalysis, start: float = 0.0, end: float = 0.0) -> Reading:
    """Shimmer (local) in percent over [start, end]."""

    def compute() -> Reading:
        value = call([analysis.sound, analysis.point_process], "Get shimmer (local)", start, end, *SHIMMER_ARGS)
        return Reading.of(value * 100.0, _period_reason(analysis, "shimmer"))

    return _praat_guard(compute, "read shimmer")


def read_hnr(analysis: PraatAnalysis, start: float = 0.0, end: float = 0.0) -> Reading:
    """Mean harmonics-to-noise ratio in dB over [start, end]."""

    def compute() -> Reading:
        value = call(analysis.harmonicity, "Get mean", start, end)
        return Reading.of(value, "HNR undefined: no periodic frame above the 0.1 silence threshold (Praat --undefined--)")

    return _praat_guard(compute, "compute harmonicity (cc)")


@dataclass(frozen=True)
class VoiceReadings:
    """The five Praat readings of one signal, and the half readings of jitter, shimmer and HNR."""

    f0_mean: Reading
    f0_sd: Reading
    jitter: Reading
    shimmer: Reading
    hnr: Reading
    halves: dict[str, tuple[Reading, Reading]] = field(default_factory=dict)
    n_voiced_frames: int = 0
    n_periods: int = 0

    def as_dict(self) -> dict[str, Reading]:
        return {"f0_mean": self.f0_mean, "f0_sd": self.f0_sd, "jitter": self.jitter, "shimmer": self.shimmer, "hnr": self.hnr}


def read_voice(
    x: np.ndarray | PraatAnalysis,
    sr: int | None = None,
    *,
    f0_exclude: Sequence[Window] = (),
    halves: bool = False,
) -> VoiceReadings:
    """All five Praat readings of a waveform, building Sound, Pitch, PointProcess and Harmonicity once.

    ``f0_exclude`` drops pitch frames inside those windows from F0 (the Masked tier); jitter, shimmer
    and HNR always read the whole signal. ``halves`` adds the readings over each half of the signal.
    """
    analysis = x if isinstance(x, PraatAnalysis) else PraatAnalysis(x, int(sr))  # type: ignore[arg-type]
    f0_mean, f0_sd = read_f0(analysis, f0_exclude)
    jitter, shimmer, hnr = read_jitter(analysis), read_shimmer(analysis), read_hnr(analysis)
    half_readings: dict[str, tuple[Reading, Reading]] = {}
    if halves:
        t0, t1 = float(analysis.sound.xmin), float(analysis.sound.xmax)
        mid = 0.5 * (t0 + t1)
        for key, reader in (("jitter", read_jitter), ("shimmer", read_shimmer), ("hnr", read_hnr)):
            half_readings[key] = (reader(analysis, t0, mid), reader(analysis, mid, t1))
    try:
        n_voiced = int(np.count_nonzero(analysis.pitch_track[1] > 0))
        n_periods = analysis.n_periods
    except parselmouth.PraatError:
        n_voiced, n_periods = 0, 0
    return VoiceReadings(f0_mean, f0_sd, jitter, shimmer, hnr, half_readings, n_voiced, n_periods)
