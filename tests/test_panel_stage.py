"""The `generations` stage on a tiny corpus: the local systems, resuming, stale records, the stage script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from acousticlaim.panel.stage import run_stage
from acousticlaim.panel.store import read_records
from tests.panel_fixtures import rms_measure, write_references, write_tiny_corpus

ROOT = Path(__file__).resolve().parents[1]


def params(clips_per_seed=3, seeds=(0, 1)):
    return {
        "systems": ["estimator", "constant"],
        "sampling": {"seeds": list(seeds), "clips_per_seed": clips_per_seed, "split": "test",
                     "kinds": ["mixture", "clip"]},
        "rungs": ["P0_free", "P1_numeric", "P2_named", "P3_template", "P4_fewshot"],
        "max_duration_s": 10.0,
        "panel": {"estimator": {"kind": "estimator"}, "constant": {"kind": "constant"}},
    }


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "corpus"
    manifest = write_tiny_corpus(root, n_test=4, n_train=4, n_ami=2)
    write_references(tmp_path / "references/references.parquet", manifest, lambda i, q: float(i))
    return root


def test_estimator_over_the_design_then_nothing_to_do(tmp_path, corpus):
    out = tmp_path / "gens"
    s = run_stage("estimator", params(), corpus, out, metrics_dir=tmp_path / "metrics", measure=rms_measure)
    # 2 seeds × (3 LibriMix mixtures + 2 AMI clips) × 5 rungs
    assert (s.n_jobs, s.n_generated, s.n_failed) == (50, 50, 0)
    records, _ = read_records(out / "estimator.jsonl")
    assert {r.corpus for r in records} == {"librimix", "ami"}
    assert not any(r.clip_id.endswith("_s1clean") for r in records)
    manifest = pd.read_parquet(corpus / "manifest.parquet").set_index("clip_id")
    for r in records:
        if r.rung == "P3_template":  # the stand-in instrument read the clip's own waveform
            f0 = 100 + 10 * list(manifest.index).index(r.clip_id)
            assert f"The F0 mean is {f0:.1f} Hz." in r.text
    metrics = json.loads((tmp_path / "metrics/estimator.json").read_text())
    assert metrics["n_generated"] == 50 and metrics["n_failed"] == 0 and metrics["generations_per_second"] > 0
    assert pd.read_parquet(out / "estimator.failures.parquet").empty

    again = run_stage("estimator", params(), corpus, out, measure=rms_measure)
    assert (again.n_generated, again.n_already_done) == (0, 50)


def test_constant_uses_training_medians_and_a_changed_design_drops_stale_records(tmp_path, corpus):
    out = tmp_path / "gens"
    refs = tmp_path / "references"
    run_stage("constant", params(clips_per_seed=3), corpus, out, references=refs)
    records, _ = read_records(out / "constant.jsonl")
    # references value = row index in the manifest; train mixtures sit at rows 0, 2, 4, 6 → median 3.0
    assert all("The SNR is 3.0 dB." in r.text for r in records if r.rung == "P3_template")
    assert len({r.text for r in records}) == 4  # one text per rung whatever the clip; P3 and P4 share the template

    smaller = run_stage("constant", params(clips_per_seed=2, seeds=(0,)), corpus, out, references=refs)
    records, _ = read_records(out / "constant.jsonl")
    assert smaller.n_stale_dropped > 0
    assert len(records) == smaller.n_jobs == 1 * (2 + 2) * 5


def test_unknown_system_and_bad_settings_are_clear(tmp_path, corpus):
    with pytest.raises(KeyError, match="no entry 'gemini'"):
        run_stage("gemini", params(), corpus, tmp_path / "g")
    bad = params()
    bad["panel"]["constant"]["checkpoint"] = "x"
    with pytest.raises(ValueError, match="unknown setting\\(s\\) checkpoint for kind 'constant'"):
        run_stage("constant", bad, corpus, tmp_path / "g", references=tmp_path / "references")


def test_stage_script_runs_the_constant_predictor(tmp_path, corpus):
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"generations": params()}))
    env = {**os.environ, "ACOUSTICLAIM_NO_PROGRESS": "1", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "stages/generations.py"), "--system", "constant", "--corpus", str(corpus),
           "--references", str(tmp_path / "references"), "--out", str(tmp_path / "gens"),
           "--metrics", str(tmp_path / "metrics"), "--params", str(tmp_path / "params.yaml")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "50 generated, 0 already done, 0 failed, of 50" in proc.stdout
    assert json.loads((tmp_path / "metrics/constant.json").read_text())["n_jobs"] == 50
