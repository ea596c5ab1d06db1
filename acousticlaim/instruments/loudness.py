"""Loudness (ITU-R BS.1770-4 through pyloudnorm) for the ``measure`` blueprint.

Integrated loudness in LUFS (K-weighting, 400-ms blocks with 75 % overlap, absolute gate −70 LUFS
and the relative gate −10 LU), and the momentary loudness of those blocks (every 100 ms) summarised
as in TRACE's blueprint ("Hearing Between the Lines"): standard deviation, range and a coarse contour. Loudness is
not a scored quantity; "−23 LUFS" in a text is not a claim (``SPEC.md`` parser rules).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pyloudnorm

from acousticlaim.instruments.reading import Reading

BLOCK_S = 0.4
ABSOLUTE_GATE_LUFS = -70.0
CONTOUR_POINTS = 10


def coarse_contour(times: np.ndarray, values: np.ndarray, duration_s: float, n_points: int = CONTOUR_POINTS) -> list[float | None]:
    """Mean of ``values`` in each of ``n_points`` equal time spans (``None`` where a span holds none)."""
    edges = np.linspace(0.0, duration_s, n_points + 1)
    out: list[float | None] = []
    for k in range(n_points):
        inside = (times >= edges[k]) & ((times < edges[k + 1]) if k < n_points - 1 else (times <= edges[k + 1]))
        out.append(round(float(np.mean(values[inside])), 2) if inside.any() else None)
    return out


def loudness_summary(x: np.ndarray, sr: int) -> dict[str, Any]:
    """Integrated loudness (a :class:`Reading`) and the momentary-loudness contour summary."""
    duration = x.size / sr
    if duration < BLOCK_S:
        reason = f"loudness undefined: {duration * 1000:.0f} ms is shorter than one 400-ms gating block"
        return {"integrated_lufs": Reading.undefined(reason), "momentary_sd_lu": None, "momentary_min_lufs": None, "momentary_max_lufs": None, "contour_lufs": []}
    blocks = block_loudness(x, sr)
    block_times = BLOCK_S * 0.25 * np.arange(blocks.size) + BLOCK_S / 2  # block centres
    return loudness_of_blocks(blocks, block_times, duration)


def block_loudness(x: np.ndarray, sr: int) -> np.ndarray:
    """The loudness (LUFS) of each 400-ms block, every 100 ms (pyloudnorm's K-weighting and blocks)."""
    meter = pyloudnorm.Meter(sr, block_size=BLOCK_S)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meter.integrated_loudness(np.asarray(x, dtype=np.float64))
    return np.asarray(meter.blockwise_loudness, dtype=np.float64)


def gated_loudness(blocks: np.ndarray) -> float:
    """BS.1770-4 integrated loudness from block loudness values: the absolute gate (−70 LUFS), the
    relative gate (10 LU below the mean of the blocks above it), the mean power of those left."""
    with np.errstate(divide="ignore"):
        power = 10.0 ** ((blocks + 0.691) / 10.0)
        audible = np.isfinite(blocks) & (blocks >= ABSOLUTE_GATE_LUFS)
        if not audible.any():
            return float("nan")
        relative = -0.691 + 10.0 * np.log10(power[audible].mean()) - 10.0
        kept = audible & (blocks > relative) & (blocks > ABSOLUTE_GATE_LUFS)
        return float(-0.691 + 10.0 * np.log10(power[kept].mean())) if kept.any() else float("nan")


def loudness_of_blocks(blocks: np.ndarray, block_times: np.ndarray, duration: float) -> dict[str, Any]:
    """The loudness summary from block loudness values at their centre times (s)."""
    audible = np.isfinite(blocks) & (blocks >= ABSOLUTE_GATE_LUFS)
    return {
        "integrated_lufs": Reading.of(gated_loudness(blocks), "loudness undefined: every 400-ms block is below the -70 LUFS absolute gate (silence)"),
        "momentary_sd_lu": round(float(np.std(blocks[audible])), 2) if audible.sum() > 1 else None,
        "momentary_min_lufs": round(float(blocks[audible].min()), 2) if audible.any() else None,
        "momentary_max_lufs": round(float(blocks[audible].max()), 2) if audible.any() else None,
        "contour_lufs": coarse_contour(block_times[audible], blocks[audible], duration),
    }
