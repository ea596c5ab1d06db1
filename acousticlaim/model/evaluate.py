"""How the reference system and the ridge do on held-out clips, in the paper's units.

**nMAE** (``SPEC.md`` §4): the mean absolute error over the clips with a defined reference, divided by
the mean absolute error of the best constant on the same clips — the median reference — so the
constant-predictor floor is 1.0 and a system that beats it reads below 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.quantities import SCORED_KEYS, VOICE_KEYS
from acousticlaim.scoring import stats


def nmae(pred: np.ndarray, ref: np.ndarray) -> float:
    """The project's nMAE (:func:`acousticlaim.scoring.stats.nmae`) over the pairs where both are finite;
    NaN where fewer than two pairs remain or the reference is constant (no floor)."""
    pred, ref = np.asarray(pred, float), np.asarray(ref, float)
    ok = np.isfinite(pred) & np.isfinite(ref)
    if ok.sum() < 2:
        return float("nan")
    value = stats.nmae(pred[ok], ref[ok])
    return float("nan") if value is None else value


def nmae_by_quantity(predictions: pd.DataFrame, labels: pd.DataFrame, clip_ids) -> dict[str, float]:
    """nMAE per scored quantity of one system/seed's long predictions on ``clip_ids``.

    ``predictions`` has clip_id, quantity, value; ``labels`` is wide (index clip_id, one column per quantity).
    """
    clip_ids = [c for c in clip_ids if c in labels.index]
    wide = predictions.pivot(index="clip_id", columns="quantity", values="value")
    wide = wide.reindex(index=clip_ids, columns=list(SCORED_KEYS))
    ref = labels.reindex(index=clip_ids, columns=list(SCORED_KEYS))
    return {k: nmae(wide[k].to_numpy(), ref[k].to_numpy()) for k in SCORED_KEYS}


def decline_rates(generations: list[dict], overlap: dict[str, float], kind: dict[str, str]) -> dict[str, float]:
    """Readout A's rule, recovered: share of high-overlap mixtures whose text declines every voice quantity,
    and share of clean twins whose text states all five."""
    high = [g for g in generations if kind.get(g["clip_id"]) == "mixture" and overlap.get(g["clip_id"], 0.0) > 0.5]
    twins = [g for g in generations if kind.get(g["clip_id"]) == "twin"]
    declined = [not any(k in VOICE_KEYS for k in g["stated"]) for g in high]
    stated = [all(k in g["stated"] for k in VOICE_KEYS) for g in twins]
    return {
        "n_high_overlap_mixtures": len(high),
        "decline_rate_high_overlap_mixtures": float(np.mean(declined)) if declined else float("nan"),
        "n_twins": len(twins),
        "state_rate_twins": float(np.mean(stated)) if stated else float("nan"),
        "truncated_rate": float(np.mean([g["truncated"] for g in generations])) if generations else float("nan"),
    }
