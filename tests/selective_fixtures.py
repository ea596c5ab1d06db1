"""Constructed prediction tables with known selective behaviour, for the withholding tests.

Each test mixture ``m0007_x`` has a clean twin ``m0007_x_s1clean``. For every slot the reference system's
error has a known scale ``sigma``: its log-variance ``s`` is ``log sigma**2`` (an informative head) or drawn
independently of ``sigma`` (a head that is pure noise). The matched ridge's error scale is a known linear
function of the clip's features, so a residual ridge can learn it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.quantities import SCORED_KEYS


def constructed_tables(
    n_mixtures: int = 300,
    *,
    informative: bool = True,
    seed: int = 0,
    train_seeds: tuple[int, ...] = (0,),
    twin_scale: float = 1.0,
    n_features: int = 6,
    quantities: tuple[str, ...] = SCORED_KEYS,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(predictions, references, manifest, features)`` in the interface schemas of HELPERS.md.

    ``twin_scale`` multiplies the error scale on twins (below 1: twins are easier, so the head is surer there).
    """
    rng = np.random.default_rng(seed)
    mixtures = [f"m{i:04d}_x" for i in range(n_mixtures)]
    clips = mixtures + [m + "_s1clean" for m in mixtures]
    kinds = ["mixture"] * n_mixtures + ["twin"] * n_mixtures
    speakers = [f"spk{i % 40:02d}" for i in range(n_mixtures)] * 2
    feats = rng.normal(size=(len(clips), n_features))
    features = pd.DataFrame(feats, columns=[f"f{j}" for j in range(n_features)])
    features.insert(0, "clip_id", clips)
    manifest = pd.DataFrame({
        "clip_id": clips, "kind": kinds, "split": "test",
        "mixture_id": [None] * n_mixtures + mixtures, "speaker_1": speakers,
    })

    ref_rows, pred_rows = [], []
    scale_of_kind = np.array([1.0] * n_mixtures + [twin_scale] * n_mixtures)
    for q in quantities:
        reference = rng.normal(10.0, 3.0, len(clips))
        ref_rows.append(pd.DataFrame({
            "clip_id": clips, "quantity": q, "value": reference, "defined": True, "reason": "",
            "tier": "exact", "signal": "mixture", "half1": np.nan, "half2": np.nan,
        }))
        ridge_sigma = np.exp(0.8 * feats[:, 0] - 0.5 * feats[:, 1]) * scale_of_kind
        ridge_value = reference + ridge_sigma * rng.normal(size=len(clips))
        for ts in train_seeds:
            sigma = np.exp(rng.normal(0.0, 0.8, len(clips))) * scale_of_kind
            value = reference + sigma * rng.normal(size=len(clips))
            s = np.log(sigma**2) if informative else rng.normal(0.0, 1.6, len(clips))
            pred_rows.append(pd.DataFrame({
                "system": "reference", "train_seed": ts, "clip_id": clips, "split": "test", "kind": kinds,
                "quantity": q, "value": value, "logvar": s,
            }))
            pred_rows.append(pd.DataFrame({
                "system": "ridge", "train_seed": ts, "clip_id": clips, "split": "test", "kind": kinds,
                "quantity": q, "value": ridge_value, "logvar": np.nan,
            }))
    return pd.concat(pred_rows, ignore_index=True), pd.concat(ref_rows, ignore_index=True), manifest, features
