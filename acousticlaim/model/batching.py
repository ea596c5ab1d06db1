"""Turning a plain table of clips into padded tensors.

The training and prediction functions take a :class:`pandas.DataFrame` with one row per clip:

* ``clip_id`` (str);
* ``features`` — the frozen encoder's frames, a float array of shape (T, D) (T may differ per clip);
* ``overlap`` — the labelled overlap fraction (training only; decides whether the description declines
  the voice quantities);
* one float column per scored quantity (:data:`acousticlaim.quantities.SCORED_KEYS`), NaN where the
  reference is undefined (training only).

Tests construct such tables directly; the stages build them from the manifest, the references and the
cached features (:mod:`acousticlaim.model.data`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import torch

from acousticlaim.quantities import SCORED_KEYS


def check_table(table: pd.DataFrame, *, labelled: bool) -> None:
    """Raise a clear error if ``table`` lacks a column the model needs, or a clip has unusable features."""
    need = ["clip_id", "features"] + (["overlap", *SCORED_KEYS] if labelled else [])
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise ValueError(f"the clip table lacks column(s) {missing}; it has {list(table.columns)}")
    if table.empty:
        raise ValueError("the clip table is empty")
    dims = set()
    for cid, f in zip(table["clip_id"], table["features"]):
        f = np.asarray(f)
        if f.ndim != 2 or f.shape[0] == 0:
            raise ValueError(f"clip {cid}: features must be a non-empty (frames, dim) array, got shape {f.shape}")
        if not np.isfinite(f).all():
            raise ValueError(f"clip {cid}: features hold NaN or Inf")
        dims.add(f.shape[1])
    if len(dims) != 1:
        raise ValueError(f"clips have features of different widths {sorted(dims)}")
    if labelled:
        bad = table.loc[~np.isfinite(table["overlap"].astype(float)), "clip_id"].tolist()
        if bad:
            raise ValueError(f"{len(bad)} clip(s) have no labelled overlap, e.g. {bad[:3]}")


def feature_dim(table: pd.DataFrame) -> int:
    return int(np.asarray(table["features"].iloc[0]).shape[1])


def pad_frames(features: Sequence[np.ndarray], device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad (T_i, D) arrays to (B, T_max, D) float32 with their lengths."""
    lengths = torch.tensor([len(f) for f in features], dtype=torch.long)
    out = torch.zeros(len(features), int(lengths.max()), np.asarray(features[0]).shape[1], dtype=torch.float32)
    for i, f in enumerate(features):
        out[i, : len(f)] = torch.from_numpy(np.asarray(f, dtype=np.float32))
    return out.to(device), lengths.to(device)


def label_matrix(table: pd.DataFrame) -> np.ndarray:
    """(N, 10) float64 labels in registry order, NaN where undefined."""
    return table[list(SCORED_KEYS)].to_numpy(dtype=np.float64)


def pooled_features(features: np.ndarray) -> np.ndarray:
    """Mean and standard deviation over frames of one clip's (T, D) features → (2D,)."""
    f = np.asarray(features, dtype=np.float64)
    return np.concatenate([f.mean(axis=0), f.std(axis=0)])


def pooled_matrix(table: pd.DataFrame) -> np.ndarray:
    return np.stack([pooled_features(f) for f in table["features"]])
