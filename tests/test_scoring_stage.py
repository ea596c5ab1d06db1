"""The `scores` DVC stage script end to end on tables written to disk."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from acousticlaim.quantities import SCORED_KEYS

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("scores_stage", ROOT / "stages" / "scores.py")
scores_stage = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scores_stage)


def write_inputs(tmp: Path, with_predictions: bool) -> dict[str, Path]:
    rng = np.random.default_rng(8)
    mixtures = [f"{10 + i % 6}-a-{i}_{90 + i}-b-{i}" for i in range(50)]
    twins = [m + "_s1clean" for m in mixtures]
    refs, claims, gens, preds = [], [], [], []
    truth = {}
    for clip in mixtures + twins:
        for q in SCORED_KEYS:
            truth[(clip, q)] = float(rng.normal(10, 3))
            refs.append({"clip_id": clip, "quantity": q, "value": truth[(clip, q)], "defined": True, "reason": "",
                         "tier": "", "signal": "", "half1": truth[(clip, q)] + rng.normal(0, 1),
                         "half2": truth[(clip, q)] + rng.normal(0, 1)})
    for seed in range(2):
        for clip in mixtures:
            gens.append({"system": "panelist", "corpus": "librimix", "clip_id": clip, "rung": "P2_named", "seed": seed, "n_claims": 1})
            claims.append({"system": "panelist", "corpus": "librimix", "clip_id": clip, "rung": "P2_named", "seed": seed,
                           "quantity": "srmr", "value": round(truth[(clip, "srmr")] + rng.normal(0, 1), 2), "unit_text": "",
                           "start": 10, "end": 14, "approx": False, "is_range": False})
    for system in ("reference", "ridge"):
        for clip in mixtures + twins:
            for q in SCORED_KEYS:
                preds.append({"system": system, "train_seed": 0, "clip_id": clip, "split": "test",
                              "kind": "twin" if clip.endswith("_s1clean") else "mixture", "quantity": q,
                              "value": truth[(clip, q)] + rng.normal(0, 1 if system == "reference" else 3), "logvar": 0.0})
    # The rung that asks in time: one pause per mixture at 2.0-2.5 s; the estimator states it, the panelist
    # states a point at 2.2 s on the first 20 mixtures and nothing on the others, and a (wrong) SRMR that
    # Table 2 must not read, as P5_intervals is not a quantity rung.
    lists, ref_intervals, stated = [], [], []
    for i, clip in enumerate(mixtures):
        lists += [{"clip_id": clip, "event": e, "defined": True, "reason": None, "n": int(e == "pause"),
                   "duration_s": 8.0, "signal": "stem"} for e in ("overlap", "pause", "noise")]
        ref_intervals.append({"clip_id": clip, "event": "pause", "start_s": 2.0, "end_s": 2.5})
        for system in ("panelist", "estimator"):
            gens.append({"system": system, "corpus": "librimix", "clip_id": clip, "rung": "P5_intervals", "seed": 0, "n_claims": 0})
        key = {"corpus": "librimix", "clip_id": clip, "rung": "P5_intervals", "seed": 0, "event": "pause"}
        stated.append({"system": "estimator", **key, "start_s": 2.0, "end_s": 2.5, "point": False})
        if i < 20:
            stated.append({"system": "panelist", **key, "start_s": 2.2, "end_s": 2.2, "point": True})
        claims.append({"system": "panelist", "corpus": "librimix", "clip_id": clip, "rung": "P5_intervals", "seed": 0,
                       "quantity": "srmr", "value": float(-i), "unit_text": "", "start": 0, "end": 4, "approx": False,
                       "is_range": False})
    manifest = pd.DataFrame({"clip_id": mixtures + twins, "speaker_1": [c.split("-")[0] for c in mixtures + twins]})
    paths = {name: tmp / name for name in ("references.parquet", "claims.parquet", "generations.parquet",
                                           "predictions.parquet", "manifest.parquet", "params.yaml",
                                           "interval_claims.parquet", "intervals.parquet", "interval_lists.parquet")}
    pd.DataFrame(refs).to_parquet(paths["references.parquet"])
    pd.DataFrame(claims).to_parquet(paths["claims.parquet"])
    pd.DataFrame(gens).to_parquet(paths["generations.parquet"])
    pd.DataFrame(stated).to_parquet(paths["interval_claims.parquet"])
    pd.DataFrame(ref_intervals).to_parquet(paths["intervals.parquet"])
    pd.DataFrame(lists).to_parquet(paths["interval_lists.parquet"])
    if with_predictions:
        pd.DataFrame(preds).to_parquet(paths["predictions.parquet"])
    manifest.to_parquet(paths["manifest.parquet"])
    group = yaml.safe_load((ROOT / "params.yaml").read_text())["scores"]
    paths["params.yaml"].write_text(yaml.safe_dump({"scores": group}))
    return paths


def no_claims_in_time(tmp: Path) -> dict[str, Path]:
    """Empty claims in time and references in time, for a test about Tables 1 and 2 alone."""
    from acousticlaim.instruments.intervals import INTERVAL_COLUMNS, LIST_COLUMNS
    from acousticlaim.scoring.intervals import STATED_COLUMNS

    folder = tmp / "no_claims_in_time"
    folder.mkdir(exist_ok=True)
    paths = {"interval_claims.parquet": folder / "claims_in_time.parquet", "intervals.parquet": folder / "intervals.parquet",
             "interval_lists.parquet": folder / "interval_lists.parquet"}
    for name, columns in (("interval_claims.parquet", STATED_COLUMNS), ("intervals.parquet", INTERVAL_COLUMNS),
                          ("interval_lists.parquet", LIST_COLUMNS)):
        pd.DataFrame(columns=columns).to_parquet(paths[name])
    return paths


def run_stage(tmp: Path, paths: dict[str, Path]) -> None:
    if "interval_claims.parquet" not in paths:
        paths = {**paths, **no_claims_in_time(tmp)}
    scores_stage.main([
        "--references", str(paths["references.parquet"]), "--claims", str(paths["claims.parquet"]),
        "--generations", str(paths["generations.parquet"]), "--predictions", str(paths["predictions.parquet"]),
        "--interval-claims", str(paths["interval_claims.parquet"]), "--reference-intervals", str(paths["intervals.parquet"]),
        "--manifest", str(paths["manifest.parquet"]), "--reports", str(tmp / "reports"),
        "--cells", str(tmp / "data" / "scores" / "cells.parquet"), "--metrics", str(tmp / "metrics" / "scores.json"),
        "--params", str(paths["params.yaml"]),
    ])


def test_stage_writes_both_tables_cells_and_metrics(tmp_path):
    paths = write_inputs(tmp_path, with_predictions=True)
    run_stage(tmp_path, paths)
    for name in ("table1.md", "table1.csv", "table2.md", "table2.csv"):
        assert (tmp_path / "reports" / name).stat().st_size > 0
    metrics = json.loads((tmp_path / "metrics" / "scores.json").read_text())
    assert metrics["table2"]["librimix"]["cells"] == 1 and metrics["table2"]["librimix"]["ranked"] == 1
    assert metrics["table2"]["librimix"]["over_bar"] == 1
    assert metrics["table1"]["status"] == "ready" and metrics["table1"]["readout"] == "B"
    assert metrics["mean_nmae"]["panelist"] < 1.0
    cells = pd.read_parquet(tmp_path / "data" / "scores" / "cells.parquet")
    srmr = cells[(cells["system"] == "panelist") & (cells["quantity"] == "srmr")].iloc[0]
    assert srmr["n"] == 50 and srmr["coverage"] == 1.0 and np.isfinite(srmr["within_speaker"])
    assert set(cells["rung"]) == {"P2_named"}  # the interval rung's SRMR is not Table 2's
    # Table 3: the panelist's 20 points inside the pause are hits, its 30 silent clips misses; the estimator exact
    table3 = pd.read_csv(tmp_path / "reports" / "table3.csv").set_index(["system", "event"])
    assert table3.loc[("panelist", "pause"), "event_f1"] == pytest.approx(2 * 20 / (2 * 20 + 0 + 30))
    assert table3.loc[("panelist", "pause"), "estimator_event_f1"] == 1.0
    assert table3.loc[("estimator", "pause"), "segment_f1"] == 1.0
    assert "| panelist | Libri2Mix | pause | P5_intervals | 50 | 50 | 20 | 0.571 |" in (tmp_path / "reports" / "table3.md").read_text()
    assert metrics["table3"]["panelist"]["cells"] == 3
    table1 = pd.read_csv(tmp_path / "reports" / "table1.csv").set_index("quantity")
    assert table1.loc["srmr", "ours_rho"] > table1.loc["srmr", "ridge_rho"]
    assert table1.loc["jitter", "read_on"] == "twins" and table1.loc["jitter", "cap"] > 0.8


def test_stage_says_table1_is_waiting_without_predictions(tmp_path, capsys):
    paths = write_inputs(tmp_path, with_predictions=False)
    run_stage(tmp_path, paths)
    assert "waiting" in (tmp_path / "reports" / "table1.md").read_text()
    assert "run `dvc repro predict`" in capsys.readouterr().err
    metrics = json.loads((tmp_path / "metrics" / "scores.json").read_text())
    assert metrics["table1"]["status"].startswith("waiting")
    assert (tmp_path / "reports" / "table2.md").exists()


def test_stage_names_a_malformed_claims_file(tmp_path):
    paths = write_inputs(tmp_path, with_predictions=False)
    pd.DataFrame({"system": ["x"]}).to_parquet(paths["claims.parquet"])
    with pytest.raises(ValueError, match=r"claims.parquet: missing column\(s\) corpus, clip_id"):
        run_stage(tmp_path, paths)


def test_dvc_yaml_declares_the_stage_with_its_params_and_metrics():
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["scores"]
    assert stage["params"] == ["scores"]
    declared = [m if isinstance(m, str) else next(iter(m)) for m in stage["metrics"]]
    assert "metrics/scores.json" in declared
    assert {"data/references/references.parquet", "data/claims/claims.parquet",
            "data/predict/predictions.parquet"} <= set(stage["deps"])
    assert {"reports/table1.md", "reports/table2.md", "reports/table1.csv", "reports/table2.csv"} <= set(stage["outs"])
    group = yaml.safe_load((ROOT / "params.yaml").read_text())["scores"]
    assert (group["n_min"], group["distinct_min"], group["bar"], group["pool"]) == (25, 5, 0.3, "first")
