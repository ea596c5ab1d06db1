"""DVC wiring of the withholding stages: `dvc exp run -S calib.coverage=0.8` reruns calibrate and report only."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.selective_fixtures import constructed_corpus, constructed_tables
from tests import pipeline_fixtures as fixtures

ROOT = Path(__file__).resolve().parents[1]
OUR_STAGES = ("calibrate", "decomposition", "report")


def test_only_the_calibrate_stage_reads_calib_and_only_report_reads_its_outputs():
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    readers = [name for name, st in stages.items()
               if any(str(p).split(".")[0] == "calib" for p in st.get("params", []))]
    assert readers == ["calibrate"]
    outs = {"data/calibrate", "metrics/calibrate.json"}
    downstream = [name for name, st in stages.items() if outs & set(map(str, st.get("deps", [])))]
    assert set(downstream) <= {"report", "scores"}
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    assert params["calib"]["coverage"] == 0.75 and params["calib"]["splits"] == 5


@pytest.mark.slow
def test_exp_run_on_coverage_reruns_calibration_and_report_only(tmp_path):
    repo = fixtures.project_copy(tmp_path / "project", {"calib": {"bootstrap": 50, "random_draws": 20},
                                                        "executor": {"kind": "local", "workers": 1}})
    # Keep our three stages; their inputs are planted as plain files (the upstream stages are tested elsewhere).
    dvc = yaml.safe_load((repo / "dvc.yaml").read_text())
    dvc["stages"] = {k: v for k, v in dvc["stages"].items() if k in OUR_STAGES}
    (repo / "dvc.yaml").write_text(yaml.safe_dump(dvc, sort_keys=False, allow_unicode=True))
    for sub in ("data/predict", "data/references", "data/features", "data/corpus"):
        (repo / sub).mkdir(parents=True, exist_ok=True)
    predictions, references, manifest, features = constructed_tables(n_mixtures=40)
    corpus_manifest, decomposition = constructed_corpus(repo / "data/corpus", n_mixtures=20, duration_s=2.4)
    # One manifest for both: the corpus's mixtures with stems (decomposition) and the predicted clips (calibrate).
    pd.concat([corpus_manifest, manifest], ignore_index=True).to_parquet(repo / "data/corpus/manifest.parquet")
    predictions.to_parquet(repo / "data/predict/predictions.parquet")
    decomposition.to_parquet(repo / "data/predict/decomposition.parquet")
    references.to_parquet(repo / "data/references/references.parquet")
    features.to_parquet(repo / "data/features/pooled.parquet")
    plant_scores(repo, tmp_path / "scores_inputs")  # the report stage also draws the scored cells
    fixtures.run(["git", "add", "-A"], repo)
    fixtures.run(["git", "commit", "-qm", "planted inputs"], repo)

    first = fixtures.run(["dvc", "repro"], repo)
    for stage in OUR_STAGES:
        assert f"Running stage '{stage}'" in first.stdout
    for png in ("fig3_risk_coverage.png", "fig2_decomposition.png", "withholding.png"):
        assert (repo / "plots" / png).stat().st_size > 0
    fixtures.run(["git", "add", "-A"], repo)
    fixtures.run(["git", "commit", "-qm", "ran"], repo)
    exp = fixtures.run(["dvc", "exp", "run", "-S", "calib.coverage=0.8"], repo)
    assert "Running stage 'calibrate'" in exp.stdout and "Running stage 'report'" in exp.stdout
    assert "Running stage 'decomposition'" not in exp.stdout
    shown = fixtures.run(["dvc", "exp", "show", "--csv"], repo).stdout
    table = pd.read_csv(__import__("io").StringIO(shown))
    assert {"pooled.withholding_rate", "pooled.risk_reduction_mean", "calib.coverage"} <= set(table.columns)
    assert set(table["calib.coverage"].astype(float)) == {0.75, 0.8}
    rate = pd.to_numeric(table["pooled.withholding_rate"], errors="coerce")
    assert rate.notna().all()  # every row, the experiment's included, carries its metrics
    by_cov = dict(zip(table["calib.coverage"].astype(float), rate))
    assert by_cov[0.8] < by_cov[0.75]  # a higher coverage target withholds less
    plots = fixtures.run(["dvc", "plots", "show", "-o", str(tmp_path / "rendered")], repo)
    assert plots.returncode == 0 and (tmp_path / "rendered" / "index.html").exists()
    # the report page shows the experiment's withholding figures beside the tables
    assert (repo / "reports" / "index.html").exists() and (repo / "reports" / "figures" / "withholding.png").exists()


def plant_scores(repo: Path, scratch: Path) -> None:
    """The scores stage's outputs (data/scores, metrics/scores.json), scored from constructed claims."""
    from tests.test_scoring_stage import scores_stage, write_inputs

    scratch.mkdir(parents=True, exist_ok=True)
    made = write_inputs(scratch, with_predictions=True)
    assert scores_stage.main([
        "--references", str(made["references.parquet"]), "--claims", str(made["claims.parquet"]),
        "--generations", str(made["generations.parquet"]), "--predictions", str(made["predictions.parquet"]),
        "--interval-claims", str(made["interval_claims.parquet"]), "--reference-intervals", str(made["intervals.parquet"]),
        "--manifest", str(made["manifest.parquet"]), "--reports", str(scratch / "reports"),
        "--cells", str(repo / "data/scores/cells.parquet"), "--metrics", str(repo / "metrics/scores.json"),
        "--params", str(made["params.yaml"])]) == 0
