"""The F0 contour summary of the ``measure`` blueprint (TRACE, "Hearing Between the Lines": pitch statistics and contour).

Read on the Praat pitch track of :mod:`acousticlaim.instruments.praat` (To Pitch (ac), 75–500 Hz),
voiced frames only: the voiced share of frames, median, 10th/90th percentiles, minimum and maximum
in Hz, the 10–90 % range in semitones, the slope of a straight line through the contour in
semitones per second, and a coarse contour (mean F0 in ten equal time spans).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from acousticlaim.instruments.loudness import coarse_contour


def f0_contour_summary(times: np.ndarray, f0: np.ndarray, duration_s: float) -> dict[str, Any]:
    """Summary of a pitch track (``f0`` = 0 where unvoiced)."""
    voiced = f0 > 0
    summary: dict[str, Any] = {"n_frames": int(f0.size), "voiced_fraction": round(float(voiced.mean()), 4) if f0.size else 0.0}
    if voiced.sum() < 2:
        summary["reason"] = "fewer than two voiced frames: no contour"
        return summary
    t, v = times[voiced], f0[voiced]
    p10, p50, p90 = np.percentile(v, [10, 50, 90])
    semitones = 12.0 * np.log2(v / 100.0)
    slope = float(np.polyfit(t, semitones, 1)[0]) if np.ptp(t) > 0 else 0.0
    summary.update(
        {
            "median_hz": round(float(p50), 2),
            "p10_hz": round(float(p10), 2),
            "p90_hz": round(float(p90), 2),
            "min_hz": round(float(v.min()), 2),
            "max_hz": round(float(v.max()), 2),
            "range_st": round(float(12.0 * np.log2(p90 / p10)), 2),
            "slope_st_per_s": round(slope, 3),
            "contour_hz": coarse_contour(t, v, duration_s),
        }
    )
    return summary
