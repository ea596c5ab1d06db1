"""The matched ridge: a linear probe per quantity on the same frozen, pooled encoder features.

Features: each clip's encoder frames pooled to their mean and standard deviation over time
(:func:`acousticlaim.model.batching.pooled_features`), standardised with the training split's mean and
s.d. For each scored quantity, ridge regression (scikit-learn ``Ridge``) on the clips whose reference is
defined, with the penalty α chosen from a grid by grouped K-fold cross-validation on the training split
alone (mean absolute error; groups keep a speaker's — or a mixture's and its twin's — clips in one fold),
then refitted on the whole training split. The fold assignment is shuffled by the training seed.

Saved as safetensors (coefficients, intercepts, scaler) and JSON (keys, α per quantity).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from acousticlaim.io import atomic_path, write_json
from acousticlaim.quantities import SCORED_KEYS

DEFAULT_ALPHAS = tuple(float(a) for a in np.logspace(-2, 5, 15))


@dataclass
class RidgeProbe:
    keys: tuple[str, ...]
    mean: np.ndarray  # (D,) feature mean on train
    scale: np.ndarray  # (D,) feature s.d. on train (1 where 0)
    coef: np.ndarray  # (Q, D)
    intercept: np.ndarray  # (Q,)
    alpha: np.ndarray  # (Q,)

    def predict(self, pooled: np.ndarray) -> np.ndarray:
        x = (np.asarray(pooled, dtype=np.float64) - self.mean) / self.scale
        return x @ self.coef.T + self.intercept

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        tensors = {name: torch.from_numpy(np.ascontiguousarray(getattr(self, name), dtype=np.float64))
                   for name in ("mean", "scale", "coef", "intercept", "alpha")}
        with atomic_path(folder / "ridge.safetensors") as tmp:
            save_file(tensors, str(tmp))
        write_json(folder / "ridge.json", {"keys": list(self.keys), "alpha": self.alpha.tolist()})

    @classmethod
    def load(cls, folder: str | Path) -> "RidgeProbe":
        folder = Path(folder)
        t = {k: v.numpy() for k, v in load_file(str(folder / "ridge.safetensors")).items()}
        keys = tuple(json.loads((folder / "ridge.json").read_text())["keys"])
        return cls(keys, t["mean"], t["scale"], t["coef"], t["intercept"], t["alpha"])


def _group_folds(groups: np.ndarray, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold index per row: whole groups assigned to folds in a seeded random order, balancing sizes."""
    uniq, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    order = rng.permutation(len(uniq))
    fold_of_group = np.empty(len(uniq), dtype=int)
    sizes = np.zeros(n_folds, dtype=int)
    for g in order[np.argsort(-counts[order], kind="stable")]:
        f = int(np.argmin(sizes))
        fold_of_group[g] = f
        sizes[f] += counts[g]
    return fold_of_group[inverse]


def _fit(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import Ridge

    model = Ridge(alpha=alpha).fit(x, y)
    return model.coef_.astype(np.float64), float(model.intercept_)


def fit_ridge_probe(
    pooled: np.ndarray,
    labels: np.ndarray,
    groups: Sequence,
    *,
    keys: Sequence[str] = SCORED_KEYS,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    n_folds: int = 5,
    seed: int = 0,
) -> RidgeProbe:
    """Fit one ridge per column of ``labels`` (NaN = undefined), α by grouped CV on these rows alone."""
    x = np.asarray(pooled, dtype=np.float64)
    y_all = np.asarray(labels, dtype=np.float64)
    groups = np.asarray(groups)
    if x.ndim != 2 or y_all.shape != (x.shape[0], len(keys)) or groups.shape != (x.shape[0],):
        raise ValueError(f"shapes disagree: pooled {x.shape}, labels {y_all.shape}, groups {groups.shape}, {len(keys)} keys")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    xs = (x - mean) / scale
    rng = np.random.default_rng(seed)
    folds = _group_folds(groups, n_folds, rng)
    coef = np.zeros((len(keys), x.shape[1]))
    intercept = np.zeros(len(keys))
    chosen = np.zeros(len(keys))
    for j, key in enumerate(keys):
        ok = np.isfinite(y_all[:, j])
        if ok.sum() < 2:
            raise ValueError(f"ridge: fewer than two defined training labels for {key}")
        xj, yj, fj = xs[ok], y_all[ok, j], folds[ok]
        present = np.unique(fj)
        if len(present) < 2:
            best = float(np.median(alphas))
        else:
            errors = []
            for alpha in alphas:
                err = 0.0
                for f in present:
                    tr, te = fj != f, fj == f
                    c, b = _fit(xj[tr], yj[tr], alpha)
                    err += float(np.abs(xj[te] @ c + b - yj[te]).sum())
                errors.append(err / len(yj))
            best = float(alphas[int(np.argmin(errors))])
        coef[j], intercept[j] = _fit(xj, yj, best)
        chosen[j] = best
    return RidgeProbe(tuple(keys), mean, scale, coef, intercept, chosen)
