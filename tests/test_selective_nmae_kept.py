"""Readout B's nMAE on the kept clips, the floor recomputed on them, with known answers."""

import numpy as np
import pandas as pd
import pytest

from acousticlaim.selective.calibration import CalibrationConfig, calibrate
from acousticlaim.selective.risk import split_risks, summarise_risk
from acousticlaim.selective.slots import build_slots
from acousticlaim.selective.withholding import WithholdingConfig, run_withholding
from tests.selective_fixtures import constructed_tables

REFS = np.arange(1.0, 9.0)  # eight evaluation clips, references 1..8
KEPT = np.array([True] * 4 + [False] * 4)  # the cut keeps the clips with references 1..4


def _selection(quantity: str, value: np.ndarray, reference: np.ndarray = REFS) -> pd.DataFrame:
    n = len(reference)
    ev = pd.DataFrame({
        "scope": "pooled", "split": 0, "quantity": quantity, "half": "evaluation", "kept": KEPT[:n],
        "defined": True, "value": value, "reference": reference, "error": np.abs(value - reference),
    })
    # A calibration-half row with a wild value: it must not enter any evaluation figure.
    cal = ev.iloc[:1].assign(half="calibration", value=1e6, error=1e6)
    return pd.concat([ev, cal], ignore_index=True)


def test_perfect_predictions_on_the_kept_half_score_zero():
    value = np.where(KEPT, REFS, REFS + 10.0)  # exact where kept, 10 off where withheld
    row = split_risks(_selection("perfect", value), random_draws=50, seed=0).iloc[0]
    assert row["nmae_kept"] == 0.0
    # Full evaluation half: MAE 4*10/8 = 5 over the floor mean|r - 4.5| = 2.0 -> 2.5.
    assert row["nmae_full"] == pytest.approx(2.5)
    assert row["note"] == ""


def test_the_kept_clips_median_scores_one_against_the_floor_recomputed_on_them():
    # Median of the kept references 1..4 is 2.5; the floor on the kept clips is mean|r - 2.5| = 1.0.
    value = np.where(KEPT, 2.5, 0.0)
    row = split_risks(_selection("median", value), random_draws=50, seed=0).iloc[0]
    assert row["nmae_kept"] == pytest.approx(1.0)
    # Stating 2.5 is no longer the constant floor once the floor is taken over all eight clips:
    # MAE (1.5+.5+.5+1.5 + 5+6+7+8)/8 = 3.75 over mean|r - 4.5| = 2.0.
    assert row["nmae_full"] == pytest.approx(1.875)
    # The summary's mean over the one split, and it does not count as under the floor (1.0 is not below).
    summary = summarise_risk(split_risks(_selection("median", value), random_draws=50, seed=0)).iloc[0]
    assert summary["nmae_kept_mean"] == pytest.approx(1.0) and not summary["under_floor_kept"]


def test_a_constant_reference_on_the_kept_clips_is_a_noted_gap_not_a_silent_nan():
    reference = np.array([3.0, 3.0, 3.0, 3.0, 1.0, 5.0, 7.0, 9.0])
    row = split_risks(_selection("flat", reference + 1.0, reference), random_draws=50, seed=0).iloc[0]
    assert np.isnan(row["nmae_kept"]) and "constant reference on the kept clips" in row["note"]
    assert np.isfinite(row["nmae_full"])
    summary = summarise_risk(split_risks(_selection("flat", reference + 1.0, reference), random_draws=50, seed=0))
    assert not summary.iloc[0]["under_floor_kept"] and np.isnan(summary.iloc[0]["nmae_kept_mean"])


def test_selection_without_values_is_a_clear_error():
    selection = _selection("perfect", REFS).drop(columns=["value", "reference"])
    with pytest.raises(ValueError, match="no reference, value column"):
        split_risks(selection, random_draws=10, seed=0)


def test_calibrated_cut_headline_counts_quantities_under_the_floor_on_kept_clips():
    predictions, references, manifest, _ = constructed_tables(n_mixtures=80, seed=2)
    reference_system = predictions["system"] == "reference"
    truth = references.set_index(["clip_id", "quantity"])["value"]
    keys = list(zip(predictions["clip_id"], predictions["quantity"]))
    # f0_mean: readout B exact everywhere -> 0 on the kept clips of every split.
    exact = reference_system & (predictions["quantity"] == "f0_mean")
    predictions.loc[exact, "value"] = truth.reindex([k for k, e in zip(keys, exact) if e]).to_numpy()
    # jitter: a constant far from every reference (~N(10, 3)) -> far above the floor.
    predictions.loc[reference_system & (predictions["quantity"] == "jitter"), "value"] = 100.0

    slots = build_slots(predictions, references, manifest)
    _, selection = calibrate(slots, CalibrationConfig(0.75, 3, 0))
    table = split_risks(selection, random_draws=20, seed=0)
    assert (table.loc[table["quantity"] == "f0_mean", "nmae_kept"] == 0.0).all()
    assert (table.loc[table["quantity"] == "jitter", "nmae_kept"] > 5.0).all()
    # Every other row equals the definition recomputed by hand on that split's kept, defined clips.
    ev = selection[(selection["half"] == "evaluation") & selection["kept"] & selection["defined"]]
    for (scope, split, q), part in ev.groupby(["scope", "split", "quantity"]):
        r = part["reference"].to_numpy()
        by_hand = np.mean(np.abs(part["value"].to_numpy() - r)) / np.mean(np.abs(r - np.median(r)))
        got = table.loc[(table["scope"] == scope) & (table["split"] == split) & (table["quantity"] == q), "nmae_kept"]
        assert got.item() == pytest.approx(by_hand), (scope, split, q)

    result = run_withholding(slots.assign(train_seed=0), None,
                             WithholdingConfig(coverage=0.75, splits=3, random_draws=20, bootstrap=10))
    summary = result.risk_summary
    for scope in ("pooled", "mixtures"):
        block = result.metrics[scope]
        rs = summary[summary["scope"] == scope]
        assert block["quantities_under_floor_kept"] == int((rs["nmae_kept_mean"] < 1.0).sum())
        assert block["quantities_with_nmae_kept"] == 10
        assert "jitter" in block["nmae_kept_at_or_over_floor"] and "f0_mean" not in block["nmae_kept_at_or_over_floor"]
        assert bool(rs.set_index("quantity").loc["f0_mean", "under_floor_kept"])
