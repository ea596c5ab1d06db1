"""Our instrument references against a released reference table, clip by clip.

For the clips present in both tables (same clip id; the released ``.wav`` suffix dropped) and each
quantity both carry, over the clips where both readings are defined: Spearman's ρ (ties at their
average rank, :func:`acousticlaim.scoring.stats.spearman`), the median relative difference
``(ours − released) / |released|`` (signed: a bias) and the median of its absolute value, over the
pairs whose released value is not zero. Used to check that a rebuilt AMI test set
(``corpus.ami_cut: segments``) reads as the paper's ``ami_test.csv`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.instruments.reference_table import read_references
from acousticlaim.quantities import ALL_KEYS

from .references import reference_pairs
from .release import read_release_references
from .stats import spearman

COLUMNS = ["quantity", "n", "spearman_rho", "median_rel_diff", "median_abs_rel_diff", "n_rel", "n_undefined_ours",
           "n_undefined_released"]


@dataclass
class ReferenceAgreement:
    table: pd.DataFrame  # one row per quantity (COLUMNS)
    pairs: pd.DataFrame  # clip_id, quantity, ours, released (both defined)
    clips: dict  # ours, released, common


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if values.size else float("nan")


def compare_references(ours: pd.DataFrame, released: pd.DataFrame) -> ReferenceAgreement:
    """Agreement per quantity between two long references tables (``clip_id, quantity, value, defined``)."""
    a = reference_pairs(ours).rename(columns={"reference": "ours"})
    b = reference_pairs(released).rename(columns={"reference": "released"})
    common = sorted(set(a["clip_id"]) & set(b["clip_id"]))
    joined = a.merge(b, on=["clip_id", "quantity"], how="inner")
    joined = joined[joined["clip_id"].isin(common)]
    rows = []
    for key in [k for k in ALL_KEYS if k in set(joined["quantity"])]:
        q = joined[joined["quantity"] == key]
        both = q.dropna(subset=["ours", "released"])
        x, y = both["ours"].to_numpy(float), both["released"].to_numpy(float)
        nonzero = y != 0
        rel = (x[nonzero] - y[nonzero]) / np.abs(y[nonzero])
        rows.append({
            "quantity": key, "n": len(both), "spearman_rho": spearman(x, y) if len(both) else None,
            "median_rel_diff": _median(rel), "median_abs_rel_diff": _median(np.abs(rel)), "n_rel": int(rel.size),
            "n_undefined_ours": int(q["ours"].isna().sum()), "n_undefined_released": int(q["released"].isna().sum()),
        })
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["spearman_rho"] = pd.to_numeric(table["spearman_rho"], errors="coerce").astype(float)
    pairs = joined.dropna(subset=["ours", "released"]).reset_index(drop=True)
    clips = {"ours": int(a["clip_id"].nunique()), "released": int(b["clip_id"].nunique()), "common": len(common)}
    return ReferenceAgreement(table, pairs, clips)


def compare_with_release(ours_path: str | Path, release_csv: str | Path, corpus: str = "ami") -> ReferenceAgreement:
    """:func:`compare_references` on our ``references.parquet`` (or its folder) and a released-layout CSV."""
    agreement = compare_references(read_references(ours_path), read_release_references(release_csv, corpus))
    if agreement.clips["common"] == 0:
        raise ValueError(f"{ours_path} and {release_csv} share no clip id (ours: {agreement.clips['ours']} clips, "
                         f"released: {agreement.clips['released']}); were the clips cut the release's way "
                         "(corpus.ami_cut: segments)?")
    return agreement


def plot_agreement(agreement: ReferenceAgreement, path: str | Path) -> Path:
    """One scatter per quantity, ours against released, with the identity line and ρ in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(agreement.table["quantity"])
    ncols = min(4, max(1, len(keys)))
    nrows = max(1, -(-len(keys) // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 3.0 * nrows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.axis("off")
    for ax, row in zip(axes.flat, agreement.table.itertuples(index=False)):
        q = agreement.pairs[agreement.pairs["quantity"] == row.quantity]
        ax.scatter(q["released"], q["ours"], s=6, alpha=0.6)
        if len(q):
            lo, hi = float(min(q["released"].min(), q["ours"].min())), float(max(q["released"].max(), q["ours"].max()))
            ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8)
        rho = "–" if pd.isna(row.spearman_rho) else f"{row.spearman_rho:.2f}"
        ax.set_title(f"{row.quantity}  ρ={rho}  n={row.n}", fontsize=9)
        ax.set_xlabel("released", fontsize=8)
        ax.set_ylabel("ours", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
