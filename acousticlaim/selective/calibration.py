"""Calibrated withholding thresholds (SPEC §6; the paper's §2.2 and "Withholding").

A claim on slot *i* of quantity *q* is **stated** when its predicted log-variance is at or below the
quantity's threshold, ``S_q = {i : s_{q,i} <= tau_q}``, and **withheld** otherwise.

``tau_q`` is calibrated on one half of the test clips so that the share of that half's slots with
``s_q <= tau_q`` meets the coverage target (``calib.coverage``, default 0.75): with the half's *n* values
sorted, ``tau_q`` is the ``ceil(coverage * n)``-th smallest, the smallest threshold whose calibration
coverage is at least the target. It is then applied, unchanged, to the other (evaluation) half.

Halvings are drawn over *mixtures*, a mixture and its clean twin always falling in the same half, so
nothing about a twin leaks into its mixture's threshold. ``calib.splits`` (5) independent halvings are
drawn from ``calib.seed``; every figure is reported as the mean and the **population** s.d. (``ddof=0``)
over them, as the paper does.

Two calibration scopes:

* ``pooled``   — thresholds calibrated on mixtures and twins together, applied to both;
* ``mixtures`` — thresholds recalibrated on the mixtures alone, applied to the mixtures.

The withholding rate is the share of evaluation-half slots withheld (ten scored slots per clip), realised
on mixtures and on twins separately and on both together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

SCOPES: dict[str, tuple[str, ...]] = {"pooled": ("mixture", "twin"), "mixtures": ("mixture",)}


@dataclass(frozen=True)
class CalibrationConfig:
    """The ``calib:`` parameters that fix the thresholds."""

    coverage: float = 0.75
    splits: int = 5
    seed: int = 0

    def __post_init__(self) -> None:
        if not (0.0 < float(self.coverage) <= 1.0):
            raise ValueError(f"calib.coverage must lie in (0, 1], got {self.coverage}")
        if int(self.splits) < 1:
            raise ValueError(f"calib.splits must be at least 1, got {self.splits}")


def threshold_for_coverage(s: np.ndarray, coverage: float) -> float:
    """The smallest ``tau`` with ``mean(s <= tau) >= coverage``: the ``ceil(coverage*n)``-th smallest of ``s``."""
    s = np.asarray(s, dtype=float)
    if s.size == 0:
        raise ValueError("cannot calibrate a threshold on an empty calibration half")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{int((~np.isfinite(s)).sum())} non-finite log-variance(s) in the calibration half")
    if not (0.0 < coverage <= 1.0):
        raise ValueError(f"coverage must lie in (0, 1], got {coverage}")
    k = max(1, math.ceil(coverage * s.size - 1e-9))
    return float(np.partition(s, k - 1)[k - 1])


def draw_halves(groups: np.ndarray | list[str], splits: int, seed: int) -> np.ndarray:
    """Calibration masks over the unique ``groups``: a boolean array (splits, n_groups), True = calibration half.

    Each split is an independent random permutation of the sorted unique groups; the first
    ``floor(n/2)`` form the calibration half. Deterministic in ``seed``.
    """
    unique = np.unique(np.asarray(groups, dtype=object).astype(str))
    if unique.size < 2:
        raise ValueError(f"need at least two mixtures to halve, got {unique.size}")
    rng = np.random.default_rng(seed)
    masks = np.zeros((splits, unique.size), dtype=bool)
    for j in range(splits):
        masks[j, rng.permutation(unique.size)[: unique.size // 2]] = True
    return masks


def calibration_halves(slots: pd.DataFrame, splits: int, seed: int) -> pd.DataFrame:
    """Per (split, group) whether the group sits in the calibration half: columns ``split``, ``group``, ``calibration``."""
    unique = np.unique(slots["group"].astype(str))
    masks = draw_halves(unique, splits, seed)
    return pd.DataFrame(
        {
            "split": np.repeat(np.arange(splits), unique.size),
            "group": np.tile(unique, splits),
            "calibration": masks.reshape(-1),
        }
    )


def calibrate(slots: pd.DataFrame, config: CalibrationConfig) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Thresholds and the per-slot selection for one training seed's slot table.

    Returns ``(thresholds, selection)``:

    * ``thresholds``: ``scope``, ``split``, ``quantity``, ``tau``, ``n_calibration``, ``coverage_calibration``;
    * ``selection``: one row per (scope, split, slot): ``scope``, ``split``, ``clip_id``, ``kind``, ``group``,
      ``cluster``, ``quantity``, ``half`` ("calibration" | "evaluation"), ``s``, ``tau``, ``kept``, ``defined``,
      ``error``, ``ridge_error``, ``value`` (readout B) and ``reference`` (so error relative to the constant
      floor can be recomputed on the kept clips).

    Only the calibration half's ``s`` values enter ``tau``; the evaluation half is looked at only to apply it.
    """
    if slots["train_seed"].nunique() > 1:
        raise ValueError("calibrate() takes one training seed's slots; split the table by train_seed first")
    unique_groups = np.unique(slots["group"].astype(str))
    masks = draw_halves(unique_groups, config.splits, config.seed)  # (splits, groups), as calibration_halves
    threshold_parts = []
    selection_parts = []
    columns = ["clip_id", "kind", "group", "cluster", "quantity", "s", "defined", "error", "ridge_error",
               "value", "reference"]
    for scope, kinds in SCOPES.items():
        in_scope = slots.loc[slots["kind"].isin(kinds), columns]
        if in_scope.empty:
            continue
        codes, names = pd.factorize(in_scope["quantity"], sort=True)
        s = in_scope["s"].to_numpy(dtype=float)
        group_code = np.searchsorted(unique_groups, in_scope["group"].astype(str).to_numpy())
        for split in range(config.splits):
            is_cal = masks[split, group_code]
            taus = np.empty(len(names))
            n_cal = np.empty(len(names), dtype=int)
            cov_cal = np.empty(len(names))
            for k, quantity in enumerate(names):
                # Only the calibration half's s enters tau.
                s_cal = s[is_cal & (codes == k)]
                if s_cal.size == 0:
                    raise ValueError(f"scope {scope}, split {split}, quantity {quantity}: the calibration half has no slots")
                taus[k] = threshold_for_coverage(s_cal, config.coverage)
                n_cal[k] = s_cal.size
                cov_cal[k] = float(np.mean(s_cal <= taus[k]))
            threshold_parts.append(pd.DataFrame({
                "scope": scope, "split": split, "quantity": np.asarray(names, dtype=object), "tau": taus,
                "n_calibration": n_cal, "coverage_calibration": cov_cal,
            }))
            tau = taus[codes]
            part = in_scope.copy()
            part.insert(0, "split", split)
            part.insert(0, "scope", scope)
            part["half"] = np.where(is_cal, "calibration", "evaluation")
            part["tau"] = tau
            part["kept"] = s <= tau
            selection_parts.append(part)
    thresholds = pd.concat(threshold_parts, ignore_index=True)[
        ["scope", "split", "quantity", "tau", "n_calibration", "coverage_calibration"]
    ]
    selection = pd.concat(selection_parts, ignore_index=True)[
        ["scope", "split", *columns[:5], "half", "s", "tau", "kept", "defined", "error", "ridge_error",
         "value", "reference"]
    ]
    return thresholds, selection


def withholding_rates(selection: pd.DataFrame) -> pd.DataFrame:
    """Withholding realised on each split's evaluation half, per scope: overall, on mixtures and on twins.

    Columns ``scope``, ``split``, ``withheld``, ``withheld_mixtures``, ``withheld_twins`` (NaN where the scope
    holds no clip of that kind), ``coverage``, ``n_slots``.
    """
    ev = selection[selection["half"] == "evaluation"]
    rows = []
    for (scope, split), part in ev.groupby(["scope", "split"], sort=True):
        withheld = ~part["kept"].to_numpy()
        kinds = part["kind"].to_numpy()
        rows.append(
            {
                "scope": scope, "split": int(split),
                "withheld": float(withheld.mean()),
                "withheld_mixtures": float(withheld[kinds == "mixture"].mean()) if (kinds == "mixture").any() else np.nan,
                "withheld_twins": float(withheld[kinds == "twin"].mean()) if (kinds == "twin").any() else np.nan,
                "coverage": float(1.0 - withheld.mean()),
                "n_slots": int(withheld.size),
            }
        )
    return pd.DataFrame(rows)


def per_quantity_withholding(selection: pd.DataFrame) -> pd.DataFrame:
    """Withholding per quantity and kind on each split's evaluation half: ``scope``, ``split``, ``quantity``, ``kind``, ``withheld``."""
    ev = selection[selection["half"] == "evaluation"]
    out = (
        ev.assign(withheld=~ev["kept"])
        .groupby(["scope", "split", "quantity", "kind"], sort=True)["withheld"]
        .mean()
        .reset_index()
    )
    return out


def mean_and_sd(values: np.ndarray | pd.Series) -> tuple[float, float]:
    """Mean and population s.d. (ddof = 0) over calibration splits, ignoring nothing (NaN propagates)."""
    v = np.asarray(values, dtype=float)
    return float(np.mean(v)), float(np.std(v, ddof=0))
