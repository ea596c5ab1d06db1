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
  exact leave-one-out error inside each training fold on standardised features (the estimator of
  scikit-learn's ``StandardScaler`` + ``RidgeCV``, computed once for every penalty and quantity:
  :func:`ridge_loo_predict`).

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
from acousticlaim.selective.risk import aurc, aurc_weighted, relative_aurc

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


def ridge_loo_predict(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, alphas: np.ndarray = RIDGE_ALPHAS
) -> tuple[np.ndarray, np.ndarray]:
    """Ridge regression with an unpenalised intercept on standardised features, the penalty chosen per
    target column by exact leave-one-out squared error; predictions on ``x_test`` and the chosen penalties.

    The same estimator as scikit-learn's ``make_pipeline(StandardScaler(), RidgeCV(alphas,
    alpha_per_target=True))``, computed from one eigendecomposition for every penalty and target: with
    ``X = U S Vᵀ`` (centred, standardised) and ``Z = X V``, the fitted values are
    ``Z diag(1/(λ+α)) Zᵀ y`` and the leverages ``1/n + Σ_k Z_ik² / (λ_k + α)``; the leave-one-out residual is
    the residual over ``1 − leverage``.
    """
    x = np.asarray(x_train, dtype=float)
    y = np.asarray(y_train, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    n, p = x.shape
    mean = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd == 0] = 1.0
    xc = (x - mean) / sd
    xs = (np.asarray(x_test, dtype=float) - mean) / sd
    y_mean = y.mean(axis=0)
    yc = y - y_mean
    if n >= p:
        lam, v = np.linalg.eigh(xc.T @ xc)
        z = xc @ v
        zs = xs @ v
    else:  # fewer rows than features: decompose the Gram matrix instead
        lam, u = np.linalg.eigh(xc @ xc.T)
        root = np.sqrt(np.clip(lam, 0.0, None))
        keep = root > 1e-10 * max(1.0, float(root.max()))
        lam, u, root = lam[keep], u[:, keep], root[keep]
        z = u * root
        zs = (xs @ xc.T @ u) / root
    lam = np.clip(lam, 0.0, None)
    zty = z.T @ yc  # (r, Q)
    z2 = z * z
    best_err = np.full(y.shape[1], np.inf)
    best_alpha = np.zeros(y.shape[1])
    best_coef = np.zeros_like(zty)
    for alpha in np.asarray(alphas, dtype=float):
        shrink = 1.0 / (lam + alpha)
        coef = zty * shrink[:, None]
        leverage = 1.0 / n + z2 @ shrink
        loo = (yc - z @ coef) / (1.0 - leverage)[:, None]
        err = np.mean(loo * loo, axis=0)
        better = err < best_err
        best_err[better] = err[better]
        best_alpha[better] = alpha
        best_coef[:, better] = coef[:, better]
    return zs @ best_coef + y_mean, best_alpha


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

    ``residual`` is one column (n,) or one column per quantity (n, Q); the quantities share the folds, and
    those whose fitted rows coincide share one decomposition (a penalty chosen per quantity). Rows whose
    residual is NaN (no defined reference) are never fitted on but still get a score from their fold's ridge.
    """
    x = np.asarray(features, dtype=float)
    y = np.abs(np.asarray(residual, dtype=float))
    one_column = y.ndim == 1
    y = y[:, None] if one_column else y
    if x.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"features {x.shape} do not match {y.shape[0]} residuals")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite")
    fold = group_folds(groups, folds, seed)
    scores = np.empty(y.shape)
    for f in range(folds):
        train = fold != f
        test = fold == f
        masks: dict[bytes, list[int]] = {}
        for q in range(y.shape[1]):
            masks.setdefault((train & np.isfinite(y[:, q])).tobytes(), []).append(q)
        for key, columns in masks.items():
            rows = np.frombuffer(key, dtype=bool)
            if rows.sum() < 3:
                raise ValueError(f"fold {f}: only {int(rows.sum())} training residuals for the residual ridge")
            pred, _ = ridge_loo_predict(x[rows], y[np.ix_(rows, columns)], x[test], alphas)
            scores[np.ix_(test, columns)] = pred
    return scores[:, 0] if one_column else scores


def cluster_bootstrap_weights(clusters: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Multiplicities (resamples, n) of a cluster bootstrap: clusters drawn with replacement, as many as there
    are, each drawn cluster bringing all its slots."""
    clusters = np.asarray(clusters).astype(str)
    unique, inverse = np.unique(clusters, return_inverse=True)
    counts = rng.multinomial(unique.size, np.full(unique.size, 1.0 / unique.size), size=resamples)
    return counts[:, inverse]


def compare_selectors(
    errors_a: np.ndarray,
    scores_a: np.ndarray,
    errors_b: np.ndarray,
    scores_b: np.ndarray,
    clusters: np.ndarray,
    *,
    relative: bool,
    resamples: int = 1000,
    rng: np.random.Generator | None = None,
    weights: np.ndarray | None = None,
) -> dict[str, float | str]:
    """Compare selector A and selector B on the same slots (lower AURC wins).

    Returns the two (relative) AURCs, the difference A − B, its 95 % cluster-bootstrap interval, and the
    ``winner`` ("a", "b" or "tie"). ``weights`` (from :func:`cluster_bootstrap_weights`) reuses resamples
    already drawn; otherwise ``resamples`` are drawn from ``rng``.
    """
    ea, sa, eb, sb = (np.asarray(v, dtype=float) for v in (errors_a, scores_a, errors_b, scores_b))
    base = relative_aurc if relative else aurc
    area_a = float(base(ea, sa, COMPARISON_MIN_COVERAGE))
    area_b = float(base(eb, sb, COMPARISON_MIN_COVERAGE))
    if weights is None:
        if rng is None:
            raise ValueError("compare_selectors needs rng or weights")
        weights = cluster_bootstrap_weights(clusters, resamples, rng)
    diffs = (aurc_weighted(ea, sa, weights, COMPARISON_MIN_COVERAGE, relative=relative)
             - aurc_weighted(eb, sb, weights, COMPARISON_MIN_COVERAGE, relative=relative))
    diffs = diffs[np.isfinite(diffs)]
    low, high = (np.quantile(diffs, [0.025, 0.975]) if diffs.size else (np.nan, np.nan))
    winner = "tie"
    if np.isfinite(low) and high < 0:
        winner = "a"
    elif np.isfinite(low) and low > 0:
        winner = "b"
    return {"aurc_a": area_a, "aurc_b": area_b, "difference": area_a - area_b,
            "ci_low": float(low), "ci_high": float(high), "winner": winner}
