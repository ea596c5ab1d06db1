"""The two SNR references (``SPEC.md`` §1).

* **Mixing SNR** (Libri2Mix-style mixtures, Measurable): ``10·log10(P_speech / P_noise)`` over the
  clip, where the speech is the sum of the two reverberant talker stems as they sit in the mixture
  and the noise is the injected noise stem; P is the mean square over the clip.
* **Dynamic range** (AMI, and any single recording with no stems): ``10·log10`` of the 90th over
  the 10th percentile of frame energy, frames of 25 ms every 10 ms (whole frames only; energy is
  the sum of squares in the frame; percentiles with linear interpolation).
"""

from __future__ import annotations

import numpy as np

from acousticlaim.instruments.reading import Reading

FRAME_S = 0.025
HOP_S = 0.010
HIGH_PERCENTILE = 90.0
LOW_PERCENTILE = 10.0


def mixing_snr(speech_stems: list[np.ndarray] | tuple[np.ndarray, ...], noise: np.ndarray) -> Reading:
    """Mixing SNR in dB of the summed ``speech_stems`` against ``noise`` (equal lengths)."""
    n = noise.shape[0]
    lengths = {s.shape[0] for s in speech_stems} | {n}
    if len(lengths) != 1:
        return Reading.undefined(f"mixing SNR undefined: stems of different lengths {sorted(lengths)}")
    speech = np.sum(np.stack(speech_stems), axis=0)
    p_speech = float(np.mean(speech**2))
    p_noise = float(np.mean(np.asarray(noise, dtype=np.float64) ** 2))
    if p_noise <= 0:
        return Reading.undefined("mixing SNR undefined: the noise stem is silent (no noise injected)")
    if p_speech <= 0:
        return Reading.undefined("mixing SNR undefined: the speech stems are silent")
    return Reading(10.0 * np.log10(p_speech / p_noise))


def frame_energies(x: np.ndarray, sr: int, frame_s: float = FRAME_S, hop_s: float = HOP_S) -> np.ndarray:
    """Sum of squares in each whole frame."""
    frame, hop = int(round(frame_s * sr)), int(round(hop_s * sr))
    if x.shape[0] < frame:
        return np.zeros(0)
    return np.lib.stride_tricks.sliding_window_view(np.asarray(x, dtype=np.float64) ** 2, frame)[::hop].sum(axis=1)


def dynamic_range_snr(x: np.ndarray, sr: int) -> Reading:
    """10·log10(P90 / P10) of 25-ms frame energies every 10 ms, in dB."""
    return dynamic_range_of(frame_energies(x, sr), x.shape[0] / sr)


def dynamic_range_of(energy: np.ndarray, seconds: float) -> Reading:
    """The dynamic-range SNR of frame energies already computed (a long file's, block by block)."""
    if energy.size == 0:
        return Reading.undefined(f"dynamic-range SNR undefined: {seconds * 1000:.0f} ms is shorter than one 25-ms frame")
    high, low = np.percentile(energy, [HIGH_PERCENTILE, LOW_PERCENTILE])
    if high <= 0:
        return Reading.undefined("dynamic-range SNR undefined: the 90th-percentile frame is digital silence (the signal is silent)")
    if low <= 0:
        return Reading.undefined("dynamic-range SNR undefined: the 10th-percentile frame is digital silence (infinite range)")
    return Reading(10.0 * np.log10(high / low))
