"""The estimator suite's measure function: the instruments on the signal a panel system hears.

A panel system hears the clip's own waveform and nothing else — no stems, no noise track, no overlap
windows. So every instrument reads that waveform, as ``acousticlaim measure`` does for a lone file:
the SNR is the within-clip dynamic range (the mixing SNR needs the injected noise), F0 is read over
all voiced frames, timing and voice quantities over the whole clip. On a Libri2Mix mixture that
reproduces the SRMR reference exactly (SRMR is Exact: read on the signal heard) and estimates the
others as well as a signal-only instrument can.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from acousticlaim.quantities import SCORED_KEYS


def _value(reading: Any) -> float:
    value = getattr(reading, "value", reading)
    value = float(value) if value is not None else math.nan
    return value if math.isfinite(value) else math.nan


def measure_heard_signal(waveform: np.ndarray, sample_rate: int) -> Mapping[str, float]:
    """``{quantity: value}`` for the ten scored quantities read on ``waveform`` (NaN when undefined)."""
    from acousticlaim.instruments.measure import measure_waveform

    readings = measure_waveform(np.asarray(waveform, dtype=np.float64), int(sample_rate))["readings"]
    return {key: _value(readings[key]) for key in SCORED_KEYS if key in readings}
