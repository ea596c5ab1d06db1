"""DVC wiring of the `scores` stage: repro, a no-op second repro, and `dvc exp run -S scores.pool=mean`."""

from __future__ import annotations

import io
import shutil

import pandas as pd
import pytest
import yaml

from tests.test_scoring_stage import write_inputs
from tests import pipeline_fixtures as fixtures

PLANTED = {
    "references.parquet": "data/references/references.parquet",
    "claims.parquet": "data/claims/claims.parquet",
    "generations.parquet": "data/claims/generations.parquet",
    "interval_claims.parquet": "data/claims/intervals.parquet",
    "intervals.parquet": "data/references/intervals.parquet",
    "interval_lists.parquet": "data/references/interval_lists.parquet",
    "predictions.parquet": "data/predict/predictions.parquet",
    "manifest.parquet": "data/corpus/manifest.parquet",
}


@pytest.mark.slow
def test_exp_run_on_the_pooling_rule_reruns_scores_and_exp_show_lists_the_counts(tmp_path):
    repo = fixtures.project_copy(tmp_path / "project")
    # Keep the scores stage alone; its inputs are planted as plain files (the upstream stages are tested elsewhere).
    dvc = yaml.safe_load((repo / "dvc.yaml").read_text())
    dvc["stages"] = {"scores": dvc["stages"]["scores"]}
    dvc.pop("plots", None)
    (repo / "dvc.yaml").write_text(yaml.safe_dump(dvc, sort_keys=False, allow_unicode=True))
    made = write_inputs(tmp_path, with_predictions=True)
    for name, rel in PLANTED.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(made[name], repo / rel)
    fixtures.run(["git", "add", "-A"], repo)
    fixtures.run(["git", "commit", "-qm", "planted inputs"], repo)

    first = fixtures.run(["dvc", "repro"], repo)
    assert "Running stage 'scores'" in first.stdout
    for name in ("table1.md", "table2.md", "table1.csv", "table2.csv", "table3.md", "table3.csv"):
        assert (repo / "reports" / name).stat().st_size > 0
    assert "up to date" in fixtures.run(["dvc", "repro"], repo).stdout
    fixtures.run(["git", "add", "-A"], repo)
    fixtures.run(["git", "commit", "-qm", "ran"], repo)

    exp = fixtures.run(["dvc", "exp", "run", "-S", "scores.pool=mean"], repo)
    assert "Running stage 'scores'" in exp.stdout
    table = pd.read_csv(io.StringIO(fixtures.run(["dvc", "exp", "show", "--csv"], repo).stdout))
    assert {"table2.librimix.over_bar", "table2.librimix.ranked", "table2.librimix.null_expectation",
            "mean_nmae.panelist", "scores.pool"} <= set(table.columns)
    assert set(table["scores.pool"]) == {"first", "mean"}
    assert pd.to_numeric(table["table2.librimix.ranked"], errors="coerce").notna().all()  # every row carries them
