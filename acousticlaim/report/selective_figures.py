"""Figures of the withholding and decomposition results: PNG for people, CSV beside each for ``dvc plots``.

* :func:`risk_coverage_figure` — Fig. 3: risk–coverage per quantity for the confidence head, the residual
  ridge (on the matched ridge) and random orderings of both, with the calibrated cut and the risk it realises
  on the evaluation halves (mean ± population s.d. over the calibration splits);
* :func:`withholding_figure` — per-quantity withholding on mixtures and twins under the pooled thresholds,
  and the risk reduction at the cut beside the random selector's;
* :func:`decomposition_figure` — Fig. 2: one drawn mixture's per-prefix-token terms (as multiples of an even
  split of the stated value's magnitude) beside the frames each instrument reads.

Every function returns the data frame it wrote as CSV.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from acousticlaim.io import write_csv  # noqa: E402
from acousticlaim.quantities import SCORED_KEYS, get  # noqa: E402
from acousticlaim.report.drawing import axis_label as _label  # noqa: E402
from acousticlaim.report.drawing import save_png as _save  # noqa: E402

HEAD_COLOUR = "#1f5fa8"
RIDGE_COLOUR = "#d9730d"
TWIN_COLOUR = "#7fb069"
GREY = "#8c8c8c"
PROFILE_LABEL = {
    "f0_voiced": "F0 frames read", "periods": "periods read", "harmonic": "periodic HNR frames",
    "nuclei": "syllable nuclei", "pause": "pause share", "speech_to_noise": "speech/noise dB",
}


def risk_coverage_figure(
    curves: pd.DataFrame,
    split_risks: pd.DataFrame,
    *,
    train_seed,
    coverage_target: float,
    png: str | Path,
    csv: str | Path,
    scope: str = "pooled",
) -> pd.DataFrame:
    """Fig. 3 on one scope and training seed; the CSV holds one row per quantity and coverage."""
    c = curves[(curves["train_seed"] == train_seed) & (curves["scope"] == scope)]
    wide = c.pivot_table(index=["quantity", "coverage"], columns=["system", "selector"], values="risk")
    wide.columns = [f"{sys}_{sel}" for sys, sel in wide.columns]
    wide = wide.reset_index()
    write_csv(csv, wide)

    quantities = [q for q in SCORED_KEYS if q in set(wide["quantity"])]
    ncols = 5
    nrows = max(1, int(np.ceil(len(quantities) / ncols)))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.8 * nrows), squeeze=False)
    at_cut = split_risks[(split_risks["train_seed"] == train_seed) & (split_risks["scope"] == scope)]
    styles = {
        "reference_head": dict(color=HEAD_COLOUR, lw=2.0, label="ours: confidence head"),
        "reference_random": dict(color=HEAD_COLOUR, lw=1.0, ls=":", label="ours: random selector"),
        "ridge_residual_ridge": dict(color=RIDGE_COLOUR, lw=2.0, label="ridge: residual-ridge selector"),
        "ridge_random": dict(color=RIDGE_COLOUR, lw=1.0, ls=":", label="ridge: random selector"),
    }
    for ax, q in zip(axes.flat, quantities):
        part = wide[wide["quantity"] == q]
        for column, style in styles.items():
            if column in part and part[column].notna().any():
                ax.plot(part["coverage"], part[column], **style)
        ax.axvline(coverage_target, color=GREY, lw=0.8, ls="--")
        cut = at_cut[at_cut["quantity"] == q]
        if not cut.empty and cut["risk_kept"].notna().any():
            ax.errorbar(cut["coverage"].mean(), cut["risk_kept"].mean(), xerr=cut["coverage"].std(ddof=0),
                        yerr=cut["risk_kept"].std(ddof=0), fmt="o", color=HEAD_COLOUR, ms=4, capsize=2,
                        label="calibrated cut (evaluation halves)")
        ax.set_title(_label(q), fontsize=9)
        ax.set_xlim(0, 1.02)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(quantities):]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("coverage", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("mean absolute error", fontsize=8)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.04))
    fig.suptitle(f"Risk–coverage per quantity ({scope}, training seed {train_seed}); dashed: coverage target "
                 f"{coverage_target:g}", fontsize=10)
    fig.tight_layout()
    _save(fig, png)
    return wide


def mean_relative_curve(curves: pd.DataFrame, *, train_seed, scope: str = "pooled") -> pd.DataFrame:
    """Risk relative to each curve's full-coverage risk, averaged over quantities: one row per coverage."""
    c = curves[(curves["train_seed"] == train_seed) & (curves["scope"] == scope)].copy()
    full = c[c["coverage"] == c["coverage"].max()].set_index(["quantity", "system", "selector"])["risk"]
    c["relative_risk"] = c["risk"].to_numpy() / full.loc[list(zip(c["quantity"], c["system"], c["selector"]))].to_numpy()
    wide = c.pivot_table(index="coverage", columns=["system", "selector"], values="relative_risk", aggfunc="mean")
    wide.columns = [f"{sys}_{sel}" for sys, sel in wide.columns]
    return wide.reset_index()


def withholding_figure(
    withholding_by_quantity: pd.DataFrame,
    risk_summary: pd.DataFrame,
    *,
    train_seed,
    coverage_target: float,
    png: str | Path,
    csv: str | Path,
) -> pd.DataFrame:
    """Per-quantity withholding (pooled thresholds; mixtures vs twins) and risk reduction at the cut."""
    w = withholding_by_quantity[(withholding_by_quantity["train_seed"] == train_seed)]
    pooled = w[w["scope"] == "pooled"].groupby(["quantity", "kind"])["withheld"].agg(
        mean="mean", sd=lambda v: float(np.std(v, ddof=0))).unstack("kind")
    recal = w[(w["scope"] == "mixtures")].groupby("quantity")["withheld"].agg(
        mean="mean", sd=lambda v: float(np.std(v, ddof=0)))
    rs = risk_summary[risk_summary["train_seed"] == train_seed].set_index(["scope", "quantity"])
    quantities = [q for q in SCORED_KEYS if q in pooled.index]
    table = pd.DataFrame({"quantity": quantities})
    for kind, name in (("mixture", "mixtures"), ("twin", "twins")):
        for stat in ("mean", "sd"):
            col = (stat, kind)
            table[f"withheld_{name}_pooled_{stat}"] = [pooled[col].get(q, np.nan) if col in pooled else np.nan
                                                       for q in quantities]
    table["withheld_mixtures_recalibrated_mean"] = [recal["mean"].get(q, np.nan) for q in quantities]
    table["withheld_mixtures_recalibrated_sd"] = [recal["sd"].get(q, np.nan) for q in quantities]
    for scope in ("pooled", "mixtures"):
        for col in ("risk_reduction_mean", "risk_reduction_sd", "random_reduction_mean"):
            table[f"{scope}_{col}"] = [rs[col].get((scope, q), np.nan) for q in quantities]
    write_csv(csv, table)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.2))
    x = np.arange(len(quantities))
    width = 0.38
    ax1.bar(x - width / 2, 100 * table["withheld_mixtures_pooled_mean"], width,
            yerr=100 * table["withheld_mixtures_pooled_sd"], color=HEAD_COLOUR, capsize=2, label="mixtures")
    ax1.bar(x + width / 2, 100 * table["withheld_twins_pooled_mean"], width,
            yerr=100 * table["withheld_twins_pooled_sd"], color=TWIN_COLOUR, capsize=2, label="clean twins")
    ax1.axhline(100 * (1 - coverage_target), color=GREY, ls="--", lw=0.8, label=f"target {1 - coverage_target:.0%}")
    ax1.set_ylabel("withheld slots (%)")
    ax1.set_title("Withholding under the pooled thresholds (evaluation halves)", fontsize=10)
    ax2.bar(x - width, 100 * table["pooled_risk_reduction_mean"], width, yerr=100 * table["pooled_risk_reduction_sd"],
            color=HEAD_COLOUR, capsize=2, label="head, pooled")
    ax2.bar(x, 100 * table["mixtures_risk_reduction_mean"], width, yerr=100 * table["mixtures_risk_reduction_sd"],
            color="#6fa0d8", capsize=2, label="head, mixtures (recalibrated)")
    # The random selector sits near zero by construction: a marker keeps it visible where a bar would vanish.
    ax2.plot(x + width, 100 * table["pooled_random_reduction_mean"], ls="none", marker="D", ms=4, color="black",
             label="random selector, pooled")
    ax2.axhline(0, color="black", lw=0.6)
    ax2.set_ylabel("risk reduction at the cut (%)")
    ax2.set_title("Error of the kept claims against the full set", fontsize=10)
    for ax in (ax1, ax2):
        ax.set_xticks(x)
        ax.set_xticklabels([get(q).key for q in quantities], rotation=40, ha="right", fontsize=8)
        ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Per-quantity withholding, target coverage {coverage_target:g}, training seed {train_seed}; "
                 "bars: mean over calibration splits, whiskers: population s.d.", fontsize=10)
    fig.tight_layout()
    _save(fig, png)
    return table


def decomposition_figure(
    drawn: pd.DataFrame,
    identification: pd.DataFrame,
    *,
    train_seed,
    png: str | Path,
    csv: str | Path,
) -> pd.DataFrame:
    """Fig. 2: per-token term magnitudes of one drawn mixture beside each instrument's frame profile."""
    write_csv(csv, drawn)
    quantities = [q for q in SCORED_KEYS if q in set(drawn["quantity"])]
    fig, axes = plt.subplots(len(quantities), 1, figsize=(11, 0.95 * len(quantities) + 1.2), sharex=True,
                             squeeze=False)
    clip = drawn["clip_id"].iloc[0] if not drawn.empty else "(none)"
    ident = identification[identification["train_seed"] == train_seed].set_index("quantity")
    for ax, q in zip(axes[:, 0], quantities):
        part = drawn[drawn["quantity"] == q]
        token_s = float(part["t_start_s"].iloc[1] - part["t_start_s"].iloc[0]) if len(part) > 1 else 0.16
        kind = part["profile"].iloc[0]
        bars = ax
        if kind:
            # The profile sits behind on the primary axis; the terms are drawn over it on the twin.
            edges = np.append(part["t_start_s"].to_numpy(), part["t_start_s"].iloc[-1] + token_s)
            values = np.append(part["profile_value"].to_numpy(), part["profile_value"].iloc[-1])
            bars = ax.twinx()  # (twinx moves ax's ticks to the left; set both sides after it)
            ax.fill_between(edges, values, step="post", color=GREY, alpha=0.35, lw=0)
            ax.step(edges, values, where="post", color="#555555", lw=0.6)
            if kind == "speech_to_noise":
                ax.set_ylim(-30, 60)
            else:  # shares in [0, 1]; nuclei are counts per token
                ax.set_ylim(0, max(1.05, 1.05 * float(np.nanmax(values)) if np.isfinite(values).any() else 1.05))
            ax.yaxis.tick_right()
            ax.tick_params(axis="y", labelsize=6, colors="#555555")
            bars.yaxis.tick_left()
            ax.text(1.035, 0.5, PROFILE_LABEL.get(kind, kind), transform=ax.transAxes, rotation=90, ha="left",
                    va="center", fontsize=6, color="#555555")
        bars.bar(part["t_start_s"], part["even_multiple"], width=token_s, align="edge", color=HEAD_COLOUR,
                 alpha=0.8)
        bars.axhline(1.0, color="black", lw=0.5, ls=":")
        top = float(np.nanmax(part["even_multiple"])) if part["even_multiple"].notna().any() else 2.0
        bars.set_ylim(0, max(2.0, 1.1 * top))
        bars.tick_params(labelsize=6)
        note = "no time-resolved\nreference"
        if q in ident.index:
            r = ident.loc[q]
            if r["scored"]:
                note = f"{r['score']:.2f}× chance"
            elif "ramp" in str(r["reason"]):
                note = "dropped: ramp"
            elif "time-resolved" in str(r["reason"]):
                note = "no time-resolved\nreference"
            elif r["reason"]:
                note = "not scored"
        ax.text(-0.075, 0.5, f"{q}\n{note}", transform=ax.transAxes, ha="right", va="center", fontsize=7)
    axes[-1, 0].set_xlabel("time (s)", fontsize=8)
    axes[-1, 0].tick_params(axis="x", labelsize=7)
    fig.suptitle(f"Decomposition of one drawn mixture ({clip}, training seed {train_seed})\nblue: each prefix token's "
                 f"|term| as a multiple of an even split (left axis, dotted = even); grey: the frames the instrument "
                 f"reads (right axis); left labels: identification score", fontsize=9)
    fig.tight_layout()
    _save(fig, png)
    return drawn


def selective_report(calibrate_dir: str | Path, decomposition_dir: str | Path, plots_dir: str | Path,
                     calibrate_metrics: dict, decomposition_metrics: dict) -> list[Path]:
    """The ``report`` stage's figures: Fig. 3, the withholding bars, Fig. 2 and the mean relative curve (CSV)."""
    calibrate_dir, decomposition_dir, plots_dir = Path(calibrate_dir), Path(decomposition_dir), Path(plots_dir)
    seed = calibrate_metrics["train_seed"]
    target = float(calibrate_metrics["coverage_target"])
    curves = pd.read_parquet(calibrate_dir / "curves.parquet")
    written = []
    risk_coverage_figure(curves, pd.read_parquet(calibrate_dir / "split_risks.parquet"), train_seed=seed,
                         coverage_target=target, png=plots_dir / "fig3_risk_coverage.png",
                         csv=plots_dir / "fig3_risk_coverage.csv")
    write_csv(plots_dir / "risk_coverage_mean.csv", mean_relative_curve(curves, train_seed=seed))
    withholding_figure(pd.read_parquet(calibrate_dir / "withholding_by_quantity.parquet"),
                       pd.read_parquet(calibrate_dir / "risk_summary.parquet"), train_seed=seed,
                       coverage_target=target, png=plots_dir / "withholding.png", csv=plots_dir / "withholding.csv")
    decomposition_figure(pd.read_parquet(decomposition_dir / "drawn.parquet"),
                         pd.read_parquet(decomposition_dir / "identification.parquet"),
                         train_seed=decomposition_metrics["train_seed"],
                         png=plots_dir / "fig2_decomposition.png", csv=plots_dir / "fig2_decomposition.csv")
    for name in ("fig3_risk_coverage.png", "fig3_risk_coverage.csv", "risk_coverage_mean.csv", "withholding.png",
                 "withholding.csv", "fig2_decomposition.png", "fig2_decomposition.csv"):
        written.append(plots_dir / name)
    return written
