"""The ``calibrate`` stage's computation: thresholds, risk at the cut, selectors and risk–coverage curves.

:func:`run_withholding` takes the slot table (:mod:`acousticlaim.selective.slots`) and, optionally, the pooled
frozen-encoder features the residual ridge is fitted on, and returns every table the stage writes plus the
headline metrics. Figures are read on one training seed (``train_seed``; the lowest present when not given),
as the paper reads its calibration on one training seed; selector comparisons count every
quantity-and-seed pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.io import write_json, write_parquet
from acousticlaim.params import param, settings_from
from acousticlaim.quantities import SCORED_KEYS
from acousticlaim.selective.calibration import (
    SCOPES,
    CalibrationConfig,
    calibrate,
    mean_and_sd,
    per_quantity_withholding,
    withholding_rates,
)
from acousticlaim.selective.risk import (
    aurc,
    random_selector_curve,
    relative_aurc,
    risk_at_coverages,
    split_risks,
    summarise_risk,
)
from acousticlaim.selective.selectors import cluster_bootstrap_weights, compare_selectors, residual_ridge_scores
from acousticlaim.selective.slots import load_slots, read_table

CURVE_COVERAGES = np.round(np.linspace(0.02, 1.0, 50), 4)


@dataclass(frozen=True)
class WithholdingConfig:
    """The ``calib:`` group of ``params.yaml``."""

    coverage: float = param(CalibrationConfig.coverage, gt=0, le=1)  # share of the calibration half's slots stated
    splits: int = param(CalibrationConfig.splits, ge=1)  # random halvings
    seed: int = param(CalibrationConfig.seed, ge=0)
    train_seed: int | None = param(None, ge=0)  # null: the lowest training seed present
    random_draws: int = param(200, ge=1)  # random-selector draws at each cut and along each curve
    folds: int = param(5, ge=2)  # out-of-fold folds of the residual-ridge selector
    bootstrap: int = param(1000, ge=1)  # paired cluster-bootstrap resamples

    @classmethod
    def from_params(cls, params: dict) -> "WithholdingConfig":
        return settings_from(cls, params, "calib")

    @property
    def calibration(self) -> CalibrationConfig:
        return CalibrationConfig(coverage=float(self.coverage), splits=int(self.splits), seed=int(self.seed))


@dataclass
class WithholdingResult:
    thresholds: pd.DataFrame
    selection: pd.DataFrame
    withholding: pd.DataFrame
    withholding_by_quantity: pd.DataFrame
    split_risks: pd.DataFrame
    risk_summary: pd.DataFrame
    selectors: pd.DataFrame
    curves: pd.DataFrame
    areas: pd.DataFrame
    metrics: dict = field(default_factory=dict)


def features_for(slots: pd.DataFrame, features: pd.DataFrame) -> np.ndarray:
    """The feature rows of ``slots``' clips (features: ``clip_id`` + numeric columns); a clear error if any is missing."""
    if "clip_id" not in features.columns:
        raise ValueError("features table: no clip_id column")
    numeric = features.drop(columns="clip_id").select_dtypes(include=[np.number])
    if numeric.shape[1] == 0:
        raise ValueError("features table: no numeric feature columns beside clip_id")
    table = numeric.set_index(features["clip_id"])
    if table.index.duplicated().any():
        raise ValueError(f"features table: duplicated clip_id(s), e.g. {table.index[table.index.duplicated()][:3].tolist()}")
    missing = sorted(set(slots["clip_id"]) - set(table.index))
    if missing:
        raise ValueError(f"features table: no features for {len(missing)} test clip(s), e.g. {missing[:3]}")
    return table.loc[slots["clip_id"]].to_numpy(dtype=float)


def _residual_ridge(slots: pd.DataFrame, features: pd.DataFrame | None, cfg: WithholdingConfig) -> pd.Series:
    """Out-of-fold residual-ridge score per slot (NaN everywhere without features or ridge predictions)."""
    scores = pd.Series(np.nan, index=slots.index)
    if features is None or not np.isfinite(slots["ridge_error"]).any():
        return scores
    for _, rows in slots.groupby("train_seed", sort=True):
        # One row per clip, one column per quantity: the quantities share folds and, where they can, fits.
        residual = (rows["ridge_value"] - rows["reference"]).to_numpy()
        wide = pd.DataFrame({"clip_id": rows["clip_id"].to_numpy(), "quantity": rows["quantity"].to_numpy(),
                             "residual": residual}).pivot(index="clip_id", columns="quantity", values="residual")
        clips = wide.index.to_numpy()
        group_of_clip = dict(zip(rows["clip_id"], rows["group"]))
        fitted = residual_ridge_scores(
            features_for(pd.DataFrame({"clip_id": clips}), features), wide.to_numpy(),
            np.array([group_of_clip[c] for c in clips]), folds=cfg.folds, seed=cfg.seed,
        )
        fitted = pd.DataFrame(fitted, index=wide.index, columns=wide.columns)
        stacked = fitted.stack()
        scores.loc[rows.index] = stacked.reindex(list(zip(rows["clip_id"], rows["quantity"]))).to_numpy()
    return scores


def _compare(slots: pd.DataFrame, cfg: WithholdingConfig) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng([cfg.seed, 1])
    for (seed, quantity), part in slots.groupby(["train_seed", "quantity"], sort=True):
        for scope, kinds in SCOPES.items():
            sel = part[part["kind"].isin(kinds) & part["defined"] & np.isfinite(part["ridge_error"]) & np.isfinite(part["rr_score"])]
            if len(sel) < 10:
                continue
            clusters = sel["cluster"].to_numpy()
            common = dict(clusters=clusters, weights=cluster_bootstrap_weights(clusters, cfg.bootstrap, rng))
            for comparison, relative in (("selector", True), ("assembled", False)):
                r = compare_selectors(
                    sel["error"], sel["s"], sel["ridge_error"], sel["rr_score"], relative=relative, **common
                )
                rows.append({
                    "train_seed": seed, "quantity": quantity, "scope": scope, "comparison": comparison,
                    "n": len(sel), "n_clusters": int(sel["cluster"].nunique()),
                    "head": r["aurc_a"], "residual_ridge": r["aurc_b"], "difference": r["difference"],
                    "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                    "winner": {"a": "head", "b": "residual_ridge", "tie": "tie"}[r["winner"]],
                })
    return pd.DataFrame(rows)


def _curves(slots: pd.DataFrame, cfg: WithholdingConfig) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Risk–coverage curves and areas on each scope's full test set, per seed, quantity and selector."""
    rng = np.random.default_rng([cfg.seed, 2])
    curve_rows, area_rows = [], []
    for (seed, quantity), part in slots.groupby(["train_seed", "quantity"], sort=True):
        for scope, kinds in SCOPES.items():
            sel = part[part["kind"].isin(kinds) & part["defined"]]
            if sel.empty:
                continue
            entries = [("reference", "head", sel["error"].to_numpy(), sel["s"].to_numpy())]
            ridge_ok = sel[np.isfinite(sel["ridge_error"]) & np.isfinite(sel["rr_score"])]
            if not ridge_ok.empty:
                entries.append(("ridge", "residual_ridge", ridge_ok["ridge_error"].to_numpy(), ridge_ok["rr_score"].to_numpy()))
            for system, selector, errors, scores in entries:
                risk = risk_at_coverages(errors, scores, CURVE_COVERAGES)
                rnd = random_selector_curve(errors, CURVE_COVERAGES, cfg.random_draws, rng)
                for label, values in ((selector, risk), ("random", rnd)):
                    curve_rows.append(pd.DataFrame({
                        "train_seed": seed, "quantity": quantity, "scope": scope, "system": system,
                        "selector": label, "coverage": CURVE_COVERAGES, "risk": values,
                    }))
                area_rows.append({
                    "train_seed": seed, "quantity": quantity, "scope": scope, "system": system,
                    "selector": selector, "n": errors.size, "risk_full": float(errors.mean()),
                    "aurc": aurc(errors, scores), "relative_aurc": relative_aurc(errors, scores)
                    if errors.mean() > 0 else np.nan,
                })
    return pd.concat(curve_rows, ignore_index=True), pd.DataFrame(area_rows)


def _metrics(result: WithholdingResult, cfg: WithholdingConfig, seed: int) -> dict:
    """Headline figures for ``metrics/calibrate.json`` (means ± population s.d. over the splits)."""
    w = result.withholding[result.withholding["train_seed"] == seed]
    summary = result.risk_summary[result.risk_summary["train_seed"] == seed]
    metrics: dict = {"coverage_target": float(cfg.coverage), "splits": int(cfg.splits), "train_seed": int(seed)}
    for scope in SCOPES:
        ws = w[w["scope"] == scope]
        rs = summary[summary["scope"] == scope]
        if ws.empty:
            continue
        m, sd = mean_and_sd(ws["withheld"])
        block = {
            "withholding_rate": m, "withholding_rate_sd": sd,
            "coverage_realised": float(ws["coverage"].mean()),
            "quantities": int(len(rs)),
            "quantities_risk_down_in_mean": int(rs["reduces_in_mean"].sum()),
            "quantities_risk_down_every_split": int(rs["reduces_every_split"].sum()),
            "risk_reduction_mean": float(rs["risk_reduction_mean"].mean()),
            "random_selector_max_abs_change": float(np.nanmax(np.abs(rs["random_reduction_mean"]))),
            # Readout B's nMAE on the kept clips, the floor recomputed on them (mean over splits).
            "quantities_under_floor_kept": int(rs["under_floor_kept"].sum()),
            "quantities_with_nmae_kept": int(np.isfinite(rs["nmae_kept_mean"]).sum()),
            "nmae_kept_at_or_over_floor": {
                q: float(v) for q, v in zip(rs["quantity"], rs["nmae_kept_mean"]) if np.isfinite(v) and v >= 1.0
            },
        }
        if scope == "pooled":
            block["withholding_rate_mixtures"] = float(ws["withheld_mixtures"].mean())
            block["withholding_rate_twins"] = float(ws["withheld_twins"].mean())
        metrics[scope] = block
    sel = result.selectors
    if not sel.empty:
        for comparison in ("selector", "assembled"):
            for scope in SCOPES:
                part = sel[(sel["comparison"] == comparison) & (sel["scope"] == scope)]
                metrics.setdefault(f"{comparison}_wins", {})[scope] = {
                    "pairs": int(len(part)),
                    "residual_ridge": int((part["winner"] == "residual_ridge").sum()),
                    "head": int((part["winner"] == "head").sum()),
                }
    areas = result.areas[(result.areas["train_seed"] == seed)]
    metrics["relative_aurc_mean"] = {
        f"{scope}_{system}": float(part["relative_aurc"].mean())
        for (scope, system), part in areas.groupby(["scope", "system"], sort=True)
    }
    return metrics


def run_withholding(slots: pd.DataFrame, features: pd.DataFrame | None, cfg: WithholdingConfig) -> WithholdingResult:
    """Everything the ``calibrate`` stage writes, computed from the slot table."""
    seeds = sorted(slots["train_seed"].unique())
    headline = seeds[0] if cfg.train_seed is None else cfg.train_seed
    if headline not in seeds:
        raise ValueError(f"calib.train_seed={cfg.train_seed} is not among the training seeds present: {seeds}")
    missing = sorted(set(SCORED_KEYS) - set(slots["quantity"]))
    slots = slots.copy()
    slots["rr_score"] = _residual_ridge(slots, features, cfg)

    parts: dict[str, list[pd.DataFrame]] = {k: [] for k in ("thr", "sel", "w", "wq", "risk", "sum")}
    for seed in seeds:
        seed_slots = slots[slots["train_seed"] == seed]
        thresholds, selection = calibrate(seed_slots, cfg.calibration)
        risks = split_risks(selection, random_draws=cfg.random_draws, seed=cfg.seed)
        for key, table in (
            ("thr", thresholds), ("sel", selection), ("w", withholding_rates(selection)),
            ("wq", per_quantity_withholding(selection)), ("risk", risks), ("sum", summarise_risk(risks)),
        ):
            table.insert(0, "train_seed", seed)
            parts[key].append(table)
    curves, areas = _curves(slots, cfg)
    result = WithholdingResult(
        thresholds=pd.concat(parts["thr"], ignore_index=True),
        selection=pd.concat(parts["sel"], ignore_index=True),
        withholding=pd.concat(parts["w"], ignore_index=True),
        withholding_by_quantity=pd.concat(parts["wq"], ignore_index=True),
        split_risks=pd.concat(parts["risk"], ignore_index=True),
        risk_summary=pd.concat(parts["sum"], ignore_index=True),
        selectors=_compare(slots, cfg),
        curves=curves,
        areas=areas,
    )
    result.metrics = _metrics(result, cfg, headline)
    result.metrics["quantities_without_predictions"] = missing
    result.metrics["residual_ridge"] = "fitted" if np.isfinite(slots["rr_score"]).any() else (
        "not fitted: no features table given" if features is None else "not fitted: no ridge predictions"
    )
    return result


OUTPUT_TABLES = (
    "thresholds", "selection", "withholding", "withholding_by_quantity", "split_risks", "risk_summary",
    "selectors", "curves", "areas",
)


def calibrate_stage(
    predictions_path: str | Path,
    references_path: str | Path,
    manifest_path: str | Path,
    features_path: str | Path | None,
    out_dir: str | Path,
    metrics_path: str | Path,
    params: dict,
) -> WithholdingResult:
    """The ``calibrate`` DVC stage: read the inputs, compute, write ``<out_dir>/<table>.parquet`` and the metrics."""
    cfg = WithholdingConfig.from_params(params)
    slots = load_slots(predictions_path, references_path, manifest_path)
    features = read_table(features_path, ("clip_id",)) if features_path else None
    result = run_withholding(slots, features, cfg)
    out_dir = Path(out_dir)
    for name in OUTPUT_TABLES:
        write_parquet(out_dir / f"{name}.parquet", getattr(result, name))
    write_json(metrics_path, result.metrics)
    return result
