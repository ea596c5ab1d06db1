"""Selective risk: the error of the kept claims, risk–coverage curves and their area (AURC).

Definitions followed (Geifman & El-Yaniv 2017, the paper's ref. [19]):

* **risk** of a set of claims = their mean absolute error against the instrument reference, in the
  quantity's canonical unit; the *full-set* risk is that of every slot with a defined reference;
* **risk reduction** at a cut = ``1 - risk(kept) / risk(full)`` (positive when withholding lowers error);
* **random selector** at the same coverage = the risk of the same *number* of claims drawn uniformly at
  random from the same slots, averaged over many draws (its expectation is the full-set risk);
* **risk–coverage curve** of a selector score (lower = more confident): keep the *k* most confident
  claims, ``k = 1..n``; risk at coverage ``k/n`` is their mean error. Ties in the score are resolved by
  expectation over random tie-breaking (each tied claim carries the tie block's mean error), so a constant
  score gives the random selector's flat curve exactly;
* **AURC** = the mean of the *n* selective risks, ``(1/n) sum_k risk(k/n)``; the **relative AURC** divides
  it by the full-set risk (1.0 for a random ordering, lower is better), which puts selectors attached to
  different predictors on one scale. Selector comparisons use the area from 10 % coverage up
  (``min_coverage``), where every risk rests on at least a tenth of the claims;
* **nMAE on the kept clips** = :func:`acousticlaim.scoring.stats.nmae` of readout B on the claims kept at the
  cut, its constant floor (``mean |ref − median(ref)|``) recomputed on those same kept clips, so a value
  under 1.0 means the kept claims beat the best constant predictor *of the kept set* (the paper's "under the
  floor recomputed on the kept clips"); ``nmae_full`` is the same statistic on every evaluation slot with a
  defined reference. One copy of the statistic: the scoring package's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.scoring.stats import nmae


def _as_batch(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[None, :] if x.ndim == 1 else x


def tie_averaged_errors(errors: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort by score (ascending) and replace each tied block's errors by the block mean.

    Works on one row or a batch (B, n); returns ``(sorted_block_mean_errors, sorted_scores)``.
    """
    e = _as_batch(errors)
    s = _as_batch(scores)
    if e.shape != s.shape:
        raise ValueError(f"errors {e.shape} and scores {s.shape} differ in shape")
    order = np.argsort(s, axis=1, kind="stable")
    e = np.take_along_axis(e, order, axis=1)
    s = np.take_along_axis(s, order, axis=1)
    n = e.shape[1]
    pos = np.broadcast_to(np.arange(n), e.shape)
    new_block = np.ones(e.shape, dtype=bool)
    new_block[:, 1:] = s[:, 1:] != s[:, :-1]
    start = np.maximum.accumulate(np.where(new_block, pos, 0), axis=1)
    end_block = np.ones(e.shape, dtype=bool)
    end_block[:, :-1] = new_block[:, 1:]
    end = np.flip(np.minimum.accumulate(np.flip(np.where(end_block, pos, n - 1), axis=1), axis=1), axis=1)
    csum = np.concatenate([np.zeros((e.shape[0], 1)), np.cumsum(e, axis=1)], axis=1)
    block_sum = np.take_along_axis(csum, end + 1, axis=1) - np.take_along_axis(csum, start, axis=1)
    return block_sum / (end - start + 1), s


def risk_coverage_curve(errors: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coverage ``k/n`` and risk of the ``k`` most confident claims, ``k = 1..n`` (ties by expectation)."""
    errors = np.asarray(errors, dtype=float)
    _check(errors, scores)
    e, _ = tie_averaged_errors(errors, scores)
    k = np.arange(1, errors.size + 1)
    return k / errors.size, np.cumsum(e[0]) / k


def aurc(errors: np.ndarray, scores: np.ndarray, min_coverage: float = 0.0) -> np.ndarray | float:
    """Area under the risk–coverage curve, the mean of the selective risks ``risk_k``; a batch (B, n) gives B areas.

    With ``min_coverage`` > 0 the mean runs over ``k >= ceil(min_coverage * n)`` only (the curve from that
    coverage up), which leaves out the few most confident claims whose one-or-two-claim risks dominate the
    full area and make it a statistic of extremes (a bootstrap of it is anti-conservative).
    Computed as ``sum_j e_(j) (H_n - H_{max(j, k0) - 1}) / (n - k0 + 1)`` with ``H`` the harmonic numbers,
    the sum over claims in order of confidence (tie blocks averaged).
    """
    e, _ = tie_averaged_errors(errors, scores)
    n = e.shape[1]
    if n == 0:
        raise ValueError("AURC of an empty set of claims")
    k0 = max(1, int(np.ceil(min_coverage * n - 1e-9)))
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])
    j = np.arange(1, n + 1)
    weights = (harmonic[n] - harmonic[np.maximum(j, k0) - 1]) / (n - k0 + 1)
    areas = (e * weights).sum(axis=1)
    return float(areas[0]) if np.ndim(errors) == 1 else areas


def relative_aurc(errors: np.ndarray, scores: np.ndarray, min_coverage: float = 0.0) -> np.ndarray | float:
    """AURC divided by the full-set risk (the random ordering's AURC): 1.0 = no better than chance."""
    full = _as_batch(errors).mean(axis=1)
    rel = np.atleast_1d(aurc(errors, scores, min_coverage)) / full
    return float(rel[0]) if np.ndim(errors) == 1 else rel


def aurc_weighted(
    errors: np.ndarray, scores: np.ndarray, weights: np.ndarray, min_coverage: float = 0.0, relative: bool = False
) -> np.ndarray:
    """AURC of resamples given as multiplicities: row *b* of ``weights`` (B, n) says how many times each claim
    is drawn. Equal to :func:`aurc` on the expanded sample (``np.repeat(errors, weights[b])``, ties by
    expectation) without building or sorting it, so a bootstrap of thousands of resamples is cheap.

    A claim drawn ``w`` times that starts after ``A`` earlier units (in order of confidence) carries the
    weight ``G(A + w) − G(A)``, with ``G(m) = sum_{j<=m} (H_N − H_{max(j,k0)−1}) / (N − k0 + 1)``, ``N`` the
    resample size and ``k0 = ceil(min_coverage N)``; tied claims share their block's weight per unit.
    ``relative`` divides by the resample's mean error.
    """
    e = np.asarray(errors, dtype=float)
    s = np.asarray(scores, dtype=float)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[1] != e.size or s.shape != e.shape:
        raise ValueError(f"weights {w.shape} must be (B, {e.size}) for {e.size} errors and scores")
    order = np.argsort(s, kind="stable")
    e, s, w = e[order], s[order], w[:, order]
    total = w.sum(axis=1)
    if np.any(total <= 0):
        raise ValueError("a resample without any claim")
    n_max = int(total.max())
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n_max + 1))])  # H_0..H_N
    cum_h = np.cumsum(harmonic)  # S(t) = sum_{u<=t} H_u
    big_n = total.astype(int)
    k0 = np.maximum(1, np.ceil(min_coverage * big_n - 1e-9).astype(int))
    h_n = harmonic[big_n][:, None]
    h_k0 = harmonic[k0 - 1][:, None]
    k0c = k0[:, None]

    s_lo = cum_h[np.maximum(k0c - 2, 0)] * (k0c >= 2)
    scale = 1.0 / (big_n - k0 + 1)[:, None]

    def g_cum(m: np.ndarray) -> np.ndarray:
        m = m.astype(int)
        c = np.where(m < k0c, m * h_k0, (k0c - 1) * h_k0 + cum_h[np.maximum(m - 1, 0)] - s_lo)
        return (m * h_n - c) * scale

    # G at every boundary between claims (0, w_1, w_1 + w_2, …): a claim's weight is the step across it.
    bounds = np.concatenate([np.zeros((w.shape[0], 1)), np.cumsum(w, axis=1)], axis=1)
    item = np.diff(g_cum(bounds), axis=1)
    # Tie blocks (equal scores) share their total weight evenly per drawn unit.
    new_block = np.ones(e.size, dtype=bool)
    new_block[1:] = s[1:] != s[:-1]
    if not new_block.all():
        starts = np.flatnonzero(new_block)
        block_weight = np.add.reduceat(item, starts, axis=1)
        block_units = np.add.reduceat(w, starts, axis=1)
        block_of = np.cumsum(new_block) - 1
        per_unit = np.divide(block_weight, block_units, out=np.zeros_like(block_weight), where=block_units > 0)
        item = w * per_unit[:, block_of]
    areas = item @ e
    if relative:
        areas = areas / ((w @ e) / total)
    return areas


def risk_at_coverages(errors: np.ndarray, scores: np.ndarray, coverages: np.ndarray) -> np.ndarray:
    """Risk of the ``ceil(c*n)`` most confident claims at each coverage ``c`` (at least one claim)."""
    cov, risk = risk_coverage_curve(errors, scores)
    n = cov.size
    k = np.clip(np.ceil(np.asarray(coverages) * n - 1e-9).astype(int), 1, n)
    return risk[k - 1]


def random_selector_risk(errors: np.ndarray, n_kept: int, draws: int, rng: np.random.Generator) -> float:
    """Mean risk of ``n_kept`` claims drawn uniformly without replacement, averaged over ``draws`` draws."""
    errors = np.asarray(errors, dtype=float)
    if not 0 < n_kept <= errors.size:
        raise ValueError(f"cannot keep {n_kept} of {errors.size} claims")
    keys = rng.random((draws, errors.size))
    picks = np.argpartition(keys, n_kept - 1, axis=1)[:, :n_kept]
    return float(errors[picks].mean())


def random_selector_curve(errors: np.ndarray, coverages: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Risk–coverage of random orderings at ``coverages``, averaged over ``draws`` random permutations."""
    errors = np.asarray(errors, dtype=float)
    n = errors.size
    perms = np.argsort(rng.random((draws, n)), axis=1)
    cum = np.cumsum(errors[perms], axis=1) / np.arange(1, n + 1)
    k = np.clip(np.ceil(np.asarray(coverages) * n - 1e-9).astype(int), 1, n)
    return cum[:, k - 1].mean(axis=0)


def _check(errors: np.ndarray, scores: np.ndarray) -> None:
    errors = np.asarray(errors, dtype=float)
    scores = np.asarray(scores, dtype=float)
    if errors.shape != scores.shape or errors.ndim != 1:
        raise ValueError(f"errors {errors.shape} and scores {scores.shape} must be equal-length vectors")
    if errors.size == 0:
        raise ValueError("no claims")
    if not (np.all(np.isfinite(errors)) and np.all(np.isfinite(scores))):
        raise ValueError("errors and scores must be finite (drop slots without a defined reference first)")


def split_risks(selection: pd.DataFrame, *, random_draws: int, seed: int) -> pd.DataFrame:
    """Risk at the calibrated cut on each split's evaluation half, per scope and quantity.

    Columns ``scope``, ``split``, ``quantity``, ``n_eval`` (slots with a defined reference), ``n_kept``,
    ``coverage`` (share of all evaluation slots kept, defined or not), ``risk_full``, ``risk_kept``,
    ``risk_reduction``, ``random_risk``, ``random_reduction``, ``nmae_full``, ``nmae_kept`` (readout B's nMAE
    with the floor recomputed on the kept clips), ``note`` ("" or why a figure is missing).
    """
    missing = sorted({"value", "reference"} - set(selection.columns))
    if missing:
        raise ValueError(f"selection table: no {', '.join(missing)} column(s); nMAE on the kept clips needs "
                         "readout B's value and the reference (build it with calibrate())")
    rng = np.random.default_rng(seed)
    rows = []
    ev = selection[selection["half"] == "evaluation"]
    for (scope, split, quantity), part in ev.groupby(["scope", "split", "quantity"], sort=True):
        kept_all = part["kept"].to_numpy()
        defined = part["defined"].to_numpy()
        errors = part["error"].to_numpy()[defined]
        values = part["value"].to_numpy(dtype=float)[defined]
        references = part["reference"].to_numpy(dtype=float)[defined]
        kept = kept_all[defined]
        row = {
            "scope": scope, "split": int(split), "quantity": quantity, "n_eval": int(defined.sum()),
            "n_kept": int(kept.sum()), "coverage": float(kept_all.mean()),
            "risk_full": np.nan, "risk_kept": np.nan, "risk_reduction": np.nan,
            "random_risk": np.nan, "random_reduction": np.nan, "nmae_full": np.nan, "nmae_kept": np.nan,
            "note": "",
        }
        notes = []
        if errors.size == 0:
            notes.append("no defined reference on the evaluation half")
        elif kept.sum() == 0:
            row["risk_full"] = float(errors.mean())
            row["nmae_full"] = _nmae_or_nan(values, references, "the evaluation half", notes)
            notes.append("every claim with a defined reference withheld")
        else:
            full = float(errors.mean())
            row["risk_full"] = full
            row["risk_kept"] = float(errors[kept].mean())
            row["random_risk"] = random_selector_risk(errors, int(kept.sum()), random_draws, rng)
            if full > 0:
                row["risk_reduction"] = 1.0 - row["risk_kept"] / full
                row["random_reduction"] = 1.0 - row["random_risk"] / full
            else:
                notes.append("zero error on the full set")
            row["nmae_full"] = _nmae_or_nan(values, references, "the evaluation half", notes)
            row["nmae_kept"] = _nmae_or_nan(values[kept], references[kept], "the kept clips", notes)
        row["note"] = "; ".join(notes)
        rows.append(row)
    return pd.DataFrame(rows)


def _nmae_or_nan(stated: np.ndarray, reference: np.ndarray, where: str, notes: list[str]) -> float:
    """:func:`acousticlaim.scoring.stats.nmae`, NaN with a note where the floor is zero (constant reference)."""
    value = nmae(stated, reference)
    if value is None:
        notes.append(f"constant reference on {where}: no nMAE floor")
        return np.nan
    return value


def summarise_risk(split_table: pd.DataFrame) -> pd.DataFrame:
    """Per scope and quantity: mean and population s.d. of the risk reduction over splits, whether it is
    positive in the mean and on every split, the random selector's mean change, and the mean and
    population s.d. of readout B's nMAE on the kept clips, ``under_floor_kept`` when that mean is below
    1.0 (every split must carry the figure)."""
    rows = []
    for (scope, quantity), part in split_table.groupby(["scope", "quantity"], sort=True):
        red = part["risk_reduction"].to_numpy(dtype=float)
        rnd = part["random_reduction"].to_numpy(dtype=float)
        nk = part["nmae_kept"].to_numpy(dtype=float)
        nf = part["nmae_full"].to_numpy(dtype=float)
        nmae_complete = bool(np.all(np.isfinite(nk)))
        complete = bool(np.all(np.isfinite(red)))
        rows.append(
            {
                "scope": scope, "quantity": quantity,
                "coverage_mean": float(part["coverage"].mean()), "coverage_sd": float(part["coverage"].std(ddof=0)),
                "risk_full_mean": float(part["risk_full"].mean()), "risk_kept_mean": float(part["risk_kept"].mean()),
                "risk_reduction_mean": float(np.mean(red)) if complete else np.nan,
                "risk_reduction_sd": float(np.std(red, ddof=0)) if complete else np.nan,
                "reduces_in_mean": bool(complete and np.mean(red) > 0),
                "reduces_every_split": bool(complete and np.all(red > 0)),
                "random_reduction_mean": float(np.mean(rnd)) if np.all(np.isfinite(rnd)) else np.nan,
                "nmae_full_mean": float(np.mean(nf)) if np.all(np.isfinite(nf)) else np.nan,
                "nmae_kept_mean": float(np.mean(nk)) if nmae_complete else np.nan,
                "nmae_kept_sd": float(np.std(nk, ddof=0)) if nmae_complete else np.nan,
                "under_floor_kept": bool(nmae_complete and np.mean(nk) < 1.0),
                "note": "; ".join(sorted({piece for n in part["note"] if n for piece in n.split("; ")})),
            }
        )
    return pd.DataFrame(rows)
