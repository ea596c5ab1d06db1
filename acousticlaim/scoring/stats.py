"""The statistics a cell is scored with, each a small function with its definition.

Definitions (``../shared/SPEC.md`` §4 and the project's paper):

* **Spearman ρ** — Pearson's correlation of the two variables' ranks, tied values sharing their average
  rank (``scipy.stats.rankdata(method="average")``). It does not exist (``None``) on fewer than three
  pairs or when either side is constant.
* **Fisher-z interval** — ``tanh(atanh ρ ± z_{1-α/2} · sqrt(1.06 / (n − 3)))``: Fieller, Hartley &
  Pearson's (1957) variance ``1.06/(n−3)`` of ``atanh`` of a Spearman coefficient, in place of
  Pearson's ``1/(n−3)``.
* **Constant floor** — the mean absolute error of the best constant predictor of the reference, its
  median over the same clips: ``mean |ref − median(ref)|``.
* **nMAE** — ``mean |stated − ref|`` over that floor, so a predictor stating the median scores 1.0.
* **Within-speaker ρ** — ranks taken over the whole cell, then centred by subtracting each speaker's
  mean rank on both sides; the Pearson correlation of the centred ranks. A correlation carried only by
  speaker register (which talker is higher) falls to zero.
* **Split-half reliability** — Spearman ρ between the two half-stem readings of a Praat quantity
  (jitter, shimmer, HNR); the **Spearman–Brown** step-up to full length ``2r/(1+r)``; the **cap** on any
  correlate of the full-length reading, ``sqrt(stepped-up r)``.
* **Null exceedance** — the probability that an independent cell of ``n`` clips clears the bar,
  ``P(ρ > bar)`` under no association, from the Student-t approximation to Spearman's null
  distribution (``t = ρ·sqrt((n−2)/(1−ρ²))`` on ``n−2`` degrees of freedom); the **null expectation**
  is that probability summed over the ranked cells, each at its own ``n``.
* **Coverage** — the share of the panel's clips on which a system states a quantity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from scipy import stats as _st

# Fieller, Hartley & Pearson (1957): var(atanh r_s) ≈ 1.06 / (n − 3) for Spearman's coefficient.
FIELLER_VARIANCE = 1.06


def _as_float_array(values: Iterable[float], name: str) -> np.ndarray:
    array = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional sequence, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: {int((~np.isfinite(array)).sum())} non-finite value(s); drop them first")
    return array


def _paired(a: Iterable[float], b: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    x = _as_float_array(a, "first variable")
    y = _as_float_array(b, "second variable")
    if len(x) != len(y):
        raise ValueError(f"paired samples differ in length: {len(x)} and {len(y)}")
    return x, y


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    xc = x - x.mean()
    yc = y - y.mean()
    denom = math.sqrt(float(np.dot(xc, xc)) * float(np.dot(yc, yc)))
    if not denom > 0:
        return None
    return float(np.clip(np.dot(xc, yc) / denom, -1.0, 1.0))


def spearman(stated: Sequence[float], reference: Sequence[float]) -> float | None:
    """Spearman's ρ with ties at their average rank; ``None`` under three pairs or a constant side."""
    x, y = _paired(stated, reference)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return _pearson(_st.rankdata(x), _st.rankdata(y))


def fisher_z_interval(rho: float, n: int, level: float = 0.95,
                      variance_factor: float = FIELLER_VARIANCE) -> tuple[float, float] | None:
    """Fisher-z interval of a Spearman ρ on ``n`` pairs with Fieller's variance ``1.06/(n−3)``.

    ``None`` when it does not exist (``n ≤ 3``). ``|ρ| = 1`` gives the degenerate interval ``(ρ, ρ)``.
    """
    if not 0 < level < 1:
        raise ValueError(f"interval level must lie in (0, 1), got {level}")
    if rho is None or not math.isfinite(rho) or not -1.0 <= rho <= 1.0:
        raise ValueError(f"a correlation must lie in [-1, 1], got {rho}")
    if n <= 3:
        return None
    if abs(rho) == 1.0:
        return (float(rho), float(rho))
    z = math.atanh(rho)
    half = _st.norm.ppf(0.5 + level / 2) * math.sqrt(variance_factor / (n - 3))
    return (math.tanh(z - half), math.tanh(z + half))


def constant_floor(reference: Sequence[float]) -> float:
    """Mean absolute error of the median of ``reference`` against ``reference`` itself."""
    ref = _as_float_array(reference, "reference")
    if len(ref) == 0:
        raise ValueError("the constant floor of an empty reference does not exist")
    return float(np.mean(np.abs(ref - np.median(ref))))


def nmae(stated: Sequence[float], reference: Sequence[float], floor: float | None = None) -> float | None:
    """MAE of ``stated`` over the constant floor; ``None`` where the floor is zero (constant reference)."""
    x, y = _paired(stated, reference)
    if len(x) == 0:
        raise ValueError("nMAE of an empty cell does not exist")
    if floor is None:
        floor = constant_floor(y)
    if not floor > 0:
        return None
    return float(np.mean(np.abs(x - y)) / floor)


def within_speaker_spearman(stated: Sequence[float], reference: Sequence[float],
                            speakers: Sequence[object]) -> float | None:
    """Spearman ρ on ranks centred by speaker.

    Both sides are ranked over all the cell's clips (ties at their average rank); each speaker's mean
    rank is subtracted from that speaker's clips; the result is the Pearson correlation of the centred
    ranks. ``None`` when no speaker contributes two clips or the centred ranks are constant.
    """
    x, y = _paired(stated, reference)
    groups = np.asarray(list(speakers), dtype=object)
    if len(groups) != len(x):
        raise ValueError(f"{len(groups)} speaker labels for {len(x)} pairs")
    if len(x) < 3:
        return None
    rx = _st.rankdata(x)
    ry = _st.rankdata(y)
    _, codes = np.unique(groups.astype(str), return_inverse=True)
    counts = np.bincount(codes)
    rx_c = rx - (np.bincount(codes, rx) / counts)[codes]
    ry_c = ry - (np.bincount(codes, ry) / counts)[codes]
    return _pearson(rx_c, ry_c)


def spearman_brown(r: float, factor: float = 2.0) -> float:
    """Spearman–Brown prophecy: reliability of a test ``factor`` times as long, ``k r / (1 + (k−1) r)``."""
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"a reliability must lie in [-1, 1], got {r}")
    denom = 1.0 + (factor - 1.0) * r
    if denom == 0:
        raise ValueError(f"Spearman–Brown is undefined at r = {r} for factor {factor}")
    return factor * r / denom


def reliability_cap(reliability: float) -> float | None:
    """Largest correlation any variable can reach with a reading of this reliability, ``sqrt(rel)``.

    ``None`` for a non-positive reliability (no cap can be stated).
    """
    if reliability > 1.0 + 1e-12:
        raise ValueError(f"a reliability cannot exceed 1, got {reliability}")
    if not reliability > 0:
        return None
    return math.sqrt(min(reliability, 1.0))


@dataclass(frozen=True)
class SplitHalf:
    """Split-half reliability of one reading: half-length ρ, stepped up, and the cap it implies."""

    n: int
    half_rho: float | None
    stepped_up: float | None
    cap: float | None


def split_half_reliability(half1: Sequence[float], half2: Sequence[float]) -> SplitHalf:
    """Spearman ρ between two half-stem readings, stepped up by Spearman–Brown, and its cap.

    Pairs where either half is undefined (NaN) are left out; ``n`` says how many were used.
    """
    a = np.asarray(half1, dtype=float)
    b = np.asarray(half2, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"half readings differ in length: {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    r = spearman(a[keep], b[keep])
    if r is None:
        return SplitHalf(int(keep.sum()), None, None, None)
    full = spearman_brown(r) if r > -1.0 else None
    cap = reliability_cap(full) if full is not None else None
    return SplitHalf(int(keep.sum()), r, full, cap)


def null_exceedance(n: int, bar: float) -> float:
    """P(ρ > bar) for an independent cell of ``n`` clips (Student-t approximation, ``n−2`` d.o.f.)."""
    if not -1.0 < bar < 1.0:
        raise ValueError(f"the bar must lie in (-1, 1), got {bar}")
    if n < 3:
        raise ValueError(f"a null Spearman distribution needs n ≥ 3, got {n}")
    t = bar * math.sqrt((n - 2) / (1.0 - bar * bar))
    return float(_st.t.sf(t, n - 2))


def null_expectation(ns: Iterable[int], bar: float) -> float:
    """Expected number of cells over the bar if every cell were independent noise at its own ``n``."""
    return float(sum(null_exceedance(int(n), bar) for n in ns))


def coverage(n_stated: int, n_clips: int) -> float:
    """Share of the panel's ``n_clips`` on which a system states the quantity."""
    if n_clips <= 0:
        raise ValueError(f"coverage needs a positive clip count, got {n_clips}")
    if not 0 <= n_stated <= n_clips:
        raise ValueError(f"{n_stated} stated clips out of {n_clips}: a clip was counted twice or lost")
    return n_stated / n_clips


def distinct_values(values: Sequence[float], decimals: int) -> int:
    """Number of distinct values after rounding to ``decimals`` (the released scorer's rule)."""
    array = _as_float_array(values, "values")
    return int(len(np.unique(np.round(array, decimals))))


def mean_sd(values: Iterable[float | None]) -> tuple[float | None, float | None, int]:
    """Mean and sample s.d. (ddof 1; 0.0 for one value) over the values that exist, and their count."""
    kept = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not kept:
        return None, None, 0
    sd = float(np.std(kept, ddof=1)) if len(kept) > 1 else 0.0
    return float(np.mean(kept)), sd, len(kept)
