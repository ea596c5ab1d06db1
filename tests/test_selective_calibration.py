import numpy as np
import pandas as pd
import pytest

from acousticlaim.selective.calibration import (
    CalibrationConfig,
    calibrate,
    calibration_halves,
    draw_halves,
    threshold_for_coverage,
    withholding_rates,
)
from acousticlaim.selective.slots import InputError, build_slots, group_of
from tests.selective_fixtures import constructed_tables


def _slots(**kw):
    predictions, references, manifest, _ = constructed_tables(**kw)
    return build_slots(predictions, references, manifest)


def test_threshold_is_the_smallest_meeting_the_coverage():
    s = np.arange(1.0, 101.0)
    rng = np.random.default_rng(0)
    rng.shuffle(s)
    assert threshold_for_coverage(s, 0.75) == 75.0
    assert threshold_for_coverage(s, 0.751) == 76.0
    assert threshold_for_coverage(s, 1.0) == 100.0
    assert threshold_for_coverage(s, 0.001) == 1.0
    # Ties: every value equal → everything stated, coverage 1 ≥ target.
    assert threshold_for_coverage(np.zeros(10), 0.5) == 0.0
    for bad in (0.0, 1.2):
        with pytest.raises(ValueError, match="coverage"):
            threshold_for_coverage(s, bad)
    with pytest.raises(ValueError, match="non-finite"):
        threshold_for_coverage(np.array([1.0, np.nan]), 0.5)


def test_halves_keep_a_mixture_and_its_twin_together_and_are_reproducible():
    slots = _slots(n_mixtures=50)
    assert group_of("m0001_x_s1clean", "twin", "m0001_x") == "m0001_x" and group_of("m0001_x", "mixture", None) == "m0001_x"
    with pytest.raises(InputError, match="twin 'm0001_x_s1clean' has no mixture_id"):
        group_of("m0001_x_s1clean", "twin", None)
    halves = calibration_halves(slots, splits=5, seed=3)
    assert set(halves["group"]) == set(slots["group"]) and slots["group"].nunique() == 50
    assert (halves.groupby("split")["calibration"].sum() == 25).all()
    assert (draw_halves(np.unique(slots["group"]), 5, 3) == draw_halves(np.unique(slots["group"]), 5, 3)).all()
    _, selection = calibrate(slots, CalibrationConfig(0.75, 5, 3))
    per_group = selection.groupby(["scope", "split", "group"])["half"].nunique()
    assert (per_group == 1).all()
    # Splits differ from each other.
    masks = draw_halves(np.unique(slots["group"]), 5, 3)
    assert len({m.tobytes() for m in masks}) == 5


def test_realised_coverage_on_the_evaluation_half_is_within_sampling_error():
    slots = _slots(n_mixtures=400, seed=1)
    target = 0.75
    thresholds, selection = calibrate(slots, CalibrationConfig(target, 5, 0))
    # On the calibration half the target is met (ceil rule, continuous s: within one slot).
    assert (thresholds["coverage_calibration"] >= target).all()
    assert (thresholds["coverage_calibration"] <= target + 1.0 / thresholds["n_calibration"] + 1e-12).all()
    ev = selection[selection["half"] == "evaluation"]
    for (scope, split, q), part in ev.groupby(["scope", "split", "quantity"]):
        n_cal = thresholds.loc[(thresholds["scope"] == scope) & (thresholds["split"] == split)
                               & (thresholds["quantity"] == q), "n_calibration"].item()
        se = np.sqrt(target * (1 - target) * (1 / n_cal + 1 / len(part)))
        assert abs(part["kept"].mean() - target) < 4 * se, (scope, split, q)
    # Averaged over the 5 splits and 10 quantities the realised coverage is tighter still.
    rates = withholding_rates(selection)
    for scope, part in rates.groupby("scope"):
        n = part["n_slots"].mean()
        assert abs(part["coverage"].mean() - target) < 4 * np.sqrt(target * (1 - target) * 2 / n) + 0.01


def test_thresholds_never_see_the_evaluation_half():
    slots = _slots(n_mixtures=120, seed=2)
    cfg = CalibrationConfig(0.75, 5, 7)
    thresholds, selection = calibrate(slots, cfg)
    halves = calibration_halves(slots, cfg.splits, cfg.seed)
    rng = np.random.default_rng(99)
    for split in range(cfg.splits):
        cal_groups = set(halves.loc[(halves["split"] == split) & halves["calibration"], "group"])
        poisoned = slots.copy()
        eval_rows = ~poisoned["group"].isin(cal_groups)
        # Poison everything the evaluation half carries: its log-variances, errors and references.
        poisoned.loc[eval_rows, "s"] = rng.choice([-1e9, 1e9], eval_rows.sum())
        poisoned.loc[eval_rows, "error"] = 1e9
        poisoned.loc[eval_rows, "reference"] = -1e9
        t2, _ = calibrate(poisoned, cfg)
        a = thresholds[thresholds["split"] == split].reset_index(drop=True)
        b = t2[t2["split"] == split].reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)
        # …whereas poisoning the calibration half does move them.
        poisoned = slots.copy()
        poisoned.loc[~eval_rows, "s"] = poisoned.loc[~eval_rows, "s"] + 5.0
        t3, _ = calibrate(poisoned, cfg)
        assert not np.allclose(t3.loc[t3["split"] == split, "tau"], a["tau"])


def test_pooled_thresholds_withhold_more_on_the_harder_mixtures_and_recalibration_restores_the_target():
    # Twins are easier (smaller error scale), so an informative head is surer on them.
    slots = _slots(n_mixtures=400, seed=4, twin_scale=0.3)
    _, selection = calibrate(slots, CalibrationConfig(0.75, 5, 0))
    rates = withholding_rates(selection)
    pooled = rates[rates["scope"] == "pooled"]
    mixtures = rates[rates["scope"] == "mixtures"]
    assert (pooled["withheld_mixtures"] > pooled["withheld_twins"] + 0.2).all()
    assert abs(pooled["withheld"].mean() - 0.25) < 0.03
    assert abs(mixtures["withheld"].mean() - 0.25) < 0.03
    assert mixtures["withheld_twins"].isna().all()


def test_slot_table_rejects_bad_inputs_with_clear_errors():
    predictions, references, manifest, _ = constructed_tables(n_mixtures=20)
    with pytest.raises(InputError, match="p.parquet: missing column.*logvar"):
        build_slots(predictions.drop(columns="logvar"), references, manifest, predictions_source="p.parquet")
    with pytest.raises(InputError, match="duplicated 'reference' rows"):
        build_slots(pd.concat([predictions, predictions.head(1)]), references, manifest)
    bad = predictions.copy()
    bad.loc[bad.index[0], "logvar"] = np.nan
    with pytest.raises(InputError, match="without a finite value or logvar"):
        build_slots(bad, references, manifest)
    with pytest.raises(InputError, match="refs.parquet: no reference row for 1 predicted slot"):
        build_slots(predictions, references.iloc[1:], manifest, references_source="refs.parquet")
    bad = predictions.copy()
    bad.loc[bad.index[0], "quantity"] = "loudness"
    with pytest.raises(InputError, match="unknown quantity key.*loudness"):
        build_slots(bad, references, manifest)
    with pytest.raises(InputError, match="m.parquet: 1 predicted clip.*not in the manifest, e.g. m0000_x"):
        build_slots(predictions, references, manifest.iloc[1:], manifest_source="m.parquet")


def test_slot_table_keeps_undefined_references_without_an_error_value():
    predictions, references, manifest, _ = constructed_tables(n_mixtures=20)
    references = references.copy()
    undefined = references.index[:5]
    references.loc[undefined, ["defined"]] = False
    references.loc[undefined, ["value"]] = np.nan
    slots = build_slots(predictions, references, manifest)
    assert (~slots["defined"]).sum() == 5
    assert slots.loc[~slots["defined"], "error"].isna().all()
    assert slots.loc[slots["defined"], "error"].notna().all()
    # Clusters follow the target talker; a twin shares its mixture's.
    twin = slots[slots["clip_id"] == "m0003_x_s1clean"]["cluster"].iloc[0]
    assert twin == slots[slots["clip_id"] == "m0003_x"]["cluster"].iloc[0] == "spk:spk03"
