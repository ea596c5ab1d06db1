"""Selectors: who decides which claims to withhold, and how they compare.

Every selector is a score per slot, **lower = more confident** (kept first), so one risk–coverage
machinery (:mod:`acousticlaim.selective.risk`) serves them all:

* **confidence head** — the reference system's predicted log-variance ``s_q`` (readout B);
* **random selector** — an ordering drawn uniformly at random (see :func:`random_scores`; its
  risk at a coverage is averaged over many draws in :mod:`risk`);
* **residual ridge** — a second ridge regression on the same frozen-encoder features as the matched ridge,
  fitted *out of fold* to the matched ridge's residual magnitude ``|ridge − reference|``: the test clips are
  cut into ``folds`` folds by mixture (a twin with its mixture), and each fold's scores come from a ridge
  fitted on the other folds only, so no clip's score has seen its own residual. The penalty is chosen by
  leave-one-out cross-validation inside each training fold (scikit-learn ``RidgeCV``) on standardised
  features.

**As a selector alone** (the paper's "orders errors at least as well"): each selector orders the errors of
the predictor it is attached to (the head the reference system's, the residual ridge the matched ridge's),
and the comparison is on the *relative* AURC (AURC over full-set risk), which takes the mean predictor's
accuracy out. **As assembled systems** the comparison is on the raw AURC (predictor and selector together).
Both read the area from 10 % coverage up (``COMPARISON_MIN_COVERAGE``).
For each quantity-and-seed pair a side **wins** when a paired cluster bootstrap (clusters resampled with
replacement, both selectors on the same resample) puts the 95 % interval of the difference wholly on its
side; otherwise the pair is a tie.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from acousticlaim.selective.risk import aurc, relative_aurc

RIDGE_ALPHAS = np.logspace(-3, 4, 15)
# Comparisons read the area from 10 % coverage up: the full area is dominated by the one or two most
# confident claims, and a bootstrap of it then declares twice its nominal 5 % of false wins between two
# random orderings (checked by simulation); from 10 % up it holds its level.
COMPARISON_MIN_COVERAGE = 0.1


def head_scores(slots: pd.DataFrame) -> np.ndarray:
    """The confidence head's selector score: the predicted log-variance ``s_q``."""
    return slots["s"].to_numpy(dtype=float)


def random_scores(n: int, rng: np.random.Generator) -> np.ndarray:
    """One random selector ordering over ``n`` slots."""
    return rng.random(n)


def group_folds(groups: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold index per row: whole groups (mixtures) assigned to ``folds`` folds at random, balanced in count."""
    groups = np.asarray(groups).astype(str)
    unique = np.unique(groups)
    if unique.size < folds:
        raise ValueError(f"cannot cut {unique.size} mixtures into {folds} folds")
    rng = np.random.default_rng(seed)
    fold_of_group = np.empty(unique.size, dtype=int)
    fold_of_group[rng.permutation(unique.size)] = np.arange(unique.size) % folds
    return fold_of_group[np.searchsorted(unique, groups)]


def residual_ridge_scores(
    features: np.ndarray,
    residual: np.ndarray,
    groups: np.ndarray,
    *,
    folds: int = 5,
    seed: int = 0,
    alphas: np.ndarray = RIDGE_ALPHAS,
) -> np.ndarray:
    """Out-of-fold predictions of ``|residual|`` from ``features`` (higher = less confident).

    Rows whose residual is NaN (no defined reference) are never fitted on but still get a score from their
    fold's ridge.
    """
    x = np.asarray(features, dtype=float)
    y = np.abs(np.asarray(residual, dtype=float))
    if x.ndim != 2 or x.shape[0] != y.size:
        raise ValueError(f"features {x.shape} do not match {y.size} residuals")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite")
    fold = group_folds(groups, folds, seed)
    scores = np.empty(y.size)
    for f in range(folds):
        train = (fold != f) & np.isfinite(y)
        test = fold == f
        if train.sum() < 3:
            raise ValueError(f"fold {f}: only {int(train.sum())} training residuals for the residual ridge")
        model = make_pipeline(StandardScaler(), RidgeCV(alphas=alphas))
        model.fit(x[train], y[train])
        scores[test] = model.predict(x[test])
    return scores


def cluster_bootstrap_indices(clusters: np.ndarray, resamples: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices of ``resamples`` cluster-bootstrap samples (clusters drawn with replacement)."""
    clusters = np.asarray(clusters).astype(str)
    unique, inverse = np.unique(clusters, return_inverse=True)
    members = [np.flatnonzero(inverse == c) for c in range(unique.size)]
    out = []
    for _ in range(resamples):
        pick = rng.integers(0, unique.size, unique.size)
        out.append(np.concatenate([members[c] for c in pick]))
    return out


def _batched(metric, errors: np.ndarray, scores: np.ndarray, samples: list[np.ndarray]) -> np.ndarray:
    """``metric`` on each bootstrap sample; samples of equal length run as one batch."""
    values = np.empty(len(samples))
    by_len: dict[int, list[int]] = {}
    for i, idx in enumerate(samples):
        by_len.setdefault(idx.size, []).append(i)
    for _, members in by_len.items():
        idx = np.stack([samples[i] for i in members])
        values[members] = metric(errors[idx], scores[idx])
    return values


def compare_selectors(
    errors_a: np.ndarray,
    scores_a: np.ndarray,
    errors_b: np.ndarray,
    scores_b: np.ndarray,
    clusters: np.ndarray,
    *,
    relative: bool,
    resamples: int,
    rng: np.random.Generator,
) -> dict[str, float | str]:
    """Compare selector A and selector B on the same slots (lower AURC wins).

    Returns the two (relative) AURCs, the difference A − B, its 95 % cluster-bootstrap interval, and the
    ``winner`` ("a", "b" or "tie").
    """
    ea, sa, eb, sb = (np.asarray(v, dtype=float) for v in (errors_a, scores_a, errors_b, scores_b))
    base = relative_aurc if relative else aurc

    def metric(e, s):
        return base(e, s, COMPARISON_MIN_COVERAGE)

    area_a = float(metric(ea, sa))
    area_b = float(metric(eb, sb))
    samples = cluster_bootstrap_indices(clusters, resamples, rng)
    diffs = _batched(metric, ea, sa, samples) - _batched(metric, eb, sb, samples)
    diffs = diffs[np.isfinite(diffs)]
    low, high = (np.quantile(diffs, [0.025, 0.975]) if diffs.size else (np.nan, np.nan))
    winner = "tie"
    if np.isfinite(low) and high < 0:
        winner = "a"
    elif np.isfinite(low) and low > 0:
        winner = "b"
    return {"aurc_a": area_a, "aurc_b": area_b, "difference": area_a - area_b,
            "ci_low": float(low), "ci_high": float(high), "winner": winner}
