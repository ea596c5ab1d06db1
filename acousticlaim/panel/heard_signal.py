"""The estimator suite's measure function: the instruments on the signal a panel system hears.

A panel system hears the clip's own waveform and nothing else — no stems, no noise track, no overlap
windows. So every instrument reads that waveform, as ``acousticlaim measure`` does for a lone file:
the SNR is the within-clip dynamic range (the mixing SNR needs the injected noise), F0 is read over
all voiced frames, timing and voice quantities over the whole clip. On a Libri2Mix mixture that
reproduces the SRMR reference exactly (SRMR is Exact: read on the signal heard) and estimates the
others as well as a signal-only instrument can.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np

from acousticlaim.quantities import SCORED_KEYS


def _value(reading: Any) -> float:
    value = getattr(reading, "value", reading)
    value = float(value) if value is not None else math.nan
    return value if math.isfinite(value) else math.nan


def measure_heard_signal(waveform: np.ndarray, sample_rate: int, *, srmr_fast: bool = True) -> Mapping[str, float]:
    """``{quantity: value}`` for the ten scored quantities read on ``waveform`` (NaN when undefined).

    ``srmr_fast`` is SRMR's pinned fast switch; keep it equal to ``references.srmr_fast`` so the
    estimator's SRMR is the reference's.
    """
    from acousticlaim.instruments.measure import measure_waveform

    readings = measure_waveform(np.asarray(waveform, dtype=np.float64), int(sample_rate), srmr_fast=srmr_fast)["readings"]
    return {key: _value(readings[key]) for key in SCORED_KEYS if key in readings}


def measure_for_config(cfg: Mapping[str, Any]):
    """The measure function an ``estimator`` entry of ``generations.panel`` configures."""
    srmr_fast = bool(cfg.get("srmr_fast", True))
    return functools.partial(measure_heard_signal, srmr_fast=srmr_fast)


def locate_for_config(cfg: Mapping[str, Any]):
    """The locate function (the interval rung's answer) an ``estimator`` entry configures: overlap, pauses
    and noise on the heard signal (:func:`acousticlaim.panel.heard_intervals.locate_heard_events`)."""
    from acousticlaim.panel.heard_intervals import NOISE_MIN_LEVEL_DB, locate_heard_events

    return functools.partial(locate_heard_events,
                             noise_min_level_db=float(cfg.get("noise_min_level_db", NOISE_MIN_LEVEL_DB)))
