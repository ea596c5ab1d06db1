"""The calibrate, decomposition and report stages on constructed inputs written to disk."""

import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from acousticlaim.report.selective_figures import selective_report
from acousticlaim.selective.diagnostic import decomposition_stage
from acousticlaim.selective.slots import InputError
from acousticlaim.selective.withholding import OUTPUT_TABLES, calibrate_stage
from tests.selective_fixtures import constructed_corpus, constructed_tables

CALIB = {"coverage": 0.75, "splits": 5, "seed": 0, "train_seed": None, "random_draws": 50, "folds": 5,
         "bootstrap": 100}
DECOMP = {"n_candidates": 20, "ramp_limit": 0.7, "token_s": 0.16, "seed": 0, "train_seed": None}
SERIAL = {"kind": "local", "workers": 1}


@pytest.fixture(scope="module")
def stage_outputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("selective")
    predictions, references, manifest, features = constructed_tables(n_mixtures=80, train_seeds=(0, 1), seed=11,
                                                                     twin_scale=0.5)
    for name, frame in (("predictions", predictions), ("references", references), ("manifest", manifest),
                        ("features", features)):
        frame.to_parquet(root / f"{name}.parquet")
    calib = calibrate_stage(root / "predictions.parquet", root / "references.parquet", root / "manifest.parquet",
                            root / "features.parquet", root / "calibrate", root / "metrics/calibrate.json", CALIB)

    corpus = root / "corpus"
    corpus.mkdir()
    cmanifest, decomposition = constructed_corpus(corpus, n_mixtures=24, duration_s=3.2, seed=2)
    decomposition.to_parquet(root / "decomposition.parquet")
    (corpus / cmanifest.loc[3, "noise_path"]).unlink()  # one mixture loses its noise stem
    diag = decomposition_stage(root / "decomposition.parquet", corpus / "manifest.parquet", root / "decomposition",
                               root / "metrics/decomposition.json", DECOMP, lambda rel: corpus / rel if rel else None,
                               SERIAL)
    written = selective_report(root / "calibrate", root / "decomposition", root / "plots",
                               json.loads((root / "metrics/calibrate.json").read_text()),
                               json.loads((root / "metrics/decomposition.json").read_text()))
    return root, calib, diag, written


def test_calibrate_stage_writes_every_table_and_consistent_metrics(stage_outputs):
    root, calib, _, _ = stage_outputs
    for name in OUTPUT_TABLES:
        assert (root / "calibrate" / f"{name}.parquet").exists()
    metrics = json.loads((root / "metrics/calibrate.json").read_text())
    assert metrics["coverage_target"] == 0.75 and metrics["train_seed"] == 0
    w = pd.read_parquet(root / "calibrate/withholding.parquet")
    pooled = w[(w["train_seed"] == 0) & (w["scope"] == "pooled")]
    assert metrics["pooled"]["withholding_rate"] == pytest.approx(pooled["withheld"].mean())
    assert metrics["pooled"]["withholding_rate_sd"] == pytest.approx(pooled["withheld"].std(ddof=0))
    # Twins are easier in the constructed tables: the pooled thresholds withhold more on the mixtures.
    assert metrics["pooled"]["withholding_rate_mixtures"] > metrics["pooled"]["withholding_rate_twins"]
    assert metrics["pooled"]["quantities"] == 10
    assert metrics["pooled"]["quantities_risk_down_in_mean"] == 10
    thresholds = pd.read_parquet(root / "calibrate/thresholds.parquet")
    assert len(thresholds) == 2 * 2 * 5 * 10  # seeds × scopes × splits × quantities
    selection = pd.read_parquet(root / "calibrate/selection.parquet")
    assert set(selection["half"]) == {"calibration", "evaluation"}
    assert metrics["selector_wins"]["pooled"]["pairs"] == 20  # 10 quantities × 2 seeds


def test_decomposition_stage_scores_the_informative_quantities_and_records_failures(stage_outputs):
    root, _, diag, _ = stage_outputs
    ident = pd.read_parquet(root / "decomposition/identification.parquet").set_index("quantity")
    for q in ("f0_mean", "jitter", "hnr"):
        assert ident.loc[q, "scored"] and ident.loc[q, "score"] > 8, q
    for q in ("f0_sd", "shimmer", "speaking_rate"):
        assert ident.loc[q, "score"] < 1 + 4 * ident.loc[q, "score_se"], q
    assert not ident.loc["srmr", "scored"] and ident.loc["srmr", "reason"] == "no time-resolved reference"
    failures = pd.read_parquet(root / "decomposition/failures.parquet")
    assert list(failures["clip_id"]) == ["m003_x"] and "SNR profile" in failures["reason"].iloc[0]
    assert ident.loc["snr", "n_clips"] == 23 and ident.loc["f0_mean", "n_clips"] == 24
    drawn = pd.read_parquet(root / "decomposition/drawn.parquet")
    assert drawn["clip_id"].nunique() == 1 and drawn["clip_id"].iloc[0] != "m003_x"
    sums = drawn.groupby("quantity")["even_multiple"].mean()
    np.testing.assert_allclose(sums, 1.0)  # multiples of an even split average to one


def test_report_writes_readable_figures_with_their_data(stage_outputs):
    root, _, _, written = stage_outputs
    for path in written:
        assert path.exists() and path.stat().st_size > 0
        if path.suffix == ".png":
            with Image.open(path) as im:
                assert im.size[0] > 800 and im.size[1] > 300
    fig3 = pd.read_csv(root / "plots/fig3_risk_coverage.csv")
    assert set(fig3["quantity"]) == {"snr", "srmr", "speaking_rate", "pause_count", "pause_rate", "f0_mean",
                                     "f0_sd", "jitter", "shimmer", "hnr"}
    assert {"reference_head", "reference_random", "ridge_residual_ridge", "ridge_random"} <= set(fig3.columns)
    full = fig3[fig3["coverage"] == 1.0]
    # At full coverage every ordering keeps everything: head and random agree.
    np.testing.assert_allclose(full["reference_head"], full["reference_random"], rtol=1e-9)
    mean_curve = pd.read_csv(root / "plots/risk_coverage_mean.csv")
    assert mean_curve["reference_head"].iloc[-1] == pytest.approx(1.0)
    assert mean_curve["reference_head"].iloc[len(mean_curve) // 2] < 0.9
    bars = pd.read_csv(root / "plots/withholding.csv")
    assert len(bars) == 10 and (bars["withheld_mixtures_pooled_mean"] > bars["withheld_twins_pooled_mean"]).all()


def test_stages_name_the_bad_file(tmp_path):
    (tmp_path / "p.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="p.parquet: cannot be read as Parquet"):
        calibrate_stage(tmp_path / "p.parquet", tmp_path / "r.parquet", tmp_path / "m.parquet", None,
                        tmp_path / "out", tmp_path / "m.json", CALIB)
    with pytest.raises(KeyError, match="calib: unknown parameter"):
        calibrate_stage(tmp_path / "p.parquet", tmp_path / "r.parquet", tmp_path / "m.parquet", None,
                        tmp_path / "out", tmp_path / "m.json", {**CALIB, "coverge": 0.8})
    pd.DataFrame({"train_seed": [0], "clip_id": ["a"], "quantity": ["snr"], "token": [0]}).to_parquet(
        tmp_path / "d.parquet")
    with pytest.raises(InputError, match="d.parquet: missing column"):
        decomposition_stage(tmp_path / "d.parquet", tmp_path / "m.parquet", tmp_path / "out", tmp_path / "m.json",
                            DECOMP, lambda rel: None)
