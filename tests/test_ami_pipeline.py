"""`dvc repro references` with `corpus.source=ami` on the AMI fixture, then `acousticlaim compare-references`
against a small reference table in the released layout."""

import sys

import pandas as pd
import pytest

from tests.ami_fixtures import KEPT_IDS, SPEAKERS, ami_params, write_ami_fixture
from tests.pipeline_fixtures import project_copy, run
from tests.test_reference_agreement import write_release_csv

pytestmark = pytest.mark.slow

SHORT_A = "AMI_EN2002a_sdm_MEE071_0001000_0001250"  # A's 2.50-s segment, kept when the shortest bound is 2.5 s


def test_repro_references_on_ami_segments_then_compare_with_a_released_table(tmp_path):
    fixture = write_ami_fixture(tmp_path / "src")
    # one planned segment of four lies past the recording's end: a recorded failure the stage is allowed here
    repo = project_copy(tmp_path / "project", {"corpus": ami_params(fixture, ami_segment_s=[2.5, 12.0]),
                                               "executor": {"max_failure_share": 0.25}})
    run(["dvc", "repro", "references"], repo)

    manifest = pd.read_parquet(repo / "data/corpus/manifest.parquet")
    assert sorted(manifest.clip_id) == sorted([*KEPT_IDS, SHORT_A])
    assert dict(zip(manifest.clip_id, manifest.speaker_1)) == {
        KEPT_IDS[0]: SPEAKERS["A"], KEPT_IDS[1]: SPEAKERS["B"], SHORT_A: SPEAKERS["A"]}
    failures = pd.read_parquet(repo / "data/corpus/failures.parquet")
    assert list(failures.clip_id) == ["AMI_EN2002a_sdm_MEE071_0001400_0001800"]

    refs = pd.read_parquet(repo / "data/references/references.parquet")
    assert set(refs.clip_id) == set(manifest.clip_id) and (refs.signal == "channel").all()
    # references in time on AMI: pauses read on the channel; overlap where two participants' annotated speech
    # meets (no stems to run VAD on); no noise stem, so no noise events
    lists = pd.read_parquet(repo / "data/references/interval_lists.parquet").set_index(["clip_id", "event"])
    pause_count = refs[refs.quantity == "pause_count"].set_index("clip_id")
    for clip in manifest.clip_id:
        assert lists.loc[(clip, "pause"), "signal"] == "channel"
        assert bool(lists.loc[(clip, "pause"), "defined"]) == bool(pause_count.loc[clip, "defined"])
        assert lists.loc[(clip, "overlap"), "defined"] and lists.loc[(clip, "overlap"), "signal"] == "annotations"
        assert not lists.loc[(clip, "noise"), "defined"]
    # B's 5.00-8.00 s segment lies inside A's annotated 1.00-13.01 s stretch: overlapped throughout; A's own
    # segments meet only A's
    intervals = pd.read_parquet(repo / "data/references/intervals.parquet")
    overlap = intervals[intervals.event == "overlap"]
    assert list(zip(overlap.clip_id, overlap.start_s, overlap.end_s)) == [(KEPT_IDS[1], 0.0, 3.0)]
    speech = pd.read_parquet(repo / "data/corpus/ami_speech.parquet")
    assert sorted(speech[speech.clip_id == KEPT_IDS[1]].speaker) == sorted([SPEAKERS["A"], SPEAKERS["B"]])
    f0 = refs[refs.quantity == "f0_mean"].set_index("clip_id").value
    assert f0[KEPT_IDS[1]] > f0[KEPT_IDS[0]] + 40  # the female speaker's segment reads higher than the male's

    # the released layout: our values × 1.05 on the three clips, plus a clip we do not have
    wide = refs[refs.defined].pivot(index="clip_id", columns="quantity", values="value")
    released = {clip: {k: 1.05 * v for k, v in row.dropna().items()} for clip, row in wide.iterrows()}
    released["AMI_EN2002a_sdm_FEO070_0100000_0100400"] = {"f0_mean": 200.0}
    write_release_csv(tmp_path / "ami_test.csv", released)
    proc = run([sys.executable, "-m", "acousticlaim.cli", "compare-references", str(tmp_path / "ami_test.csv"),
                "--ours", "data/references", "--out", "reports/agreement"], repo)
    assert "3 in both" in proc.stdout
    table = pd.read_csv(repo / "reports/agreement/agreement.csv").set_index("quantity")
    assert table.loc["f0_mean", "n"] == 3 and table.loc["f0_mean", "spearman_rho"] == pytest.approx(1.0)
    assert table.loc["f0_mean", "median_rel_diff"] == pytest.approx(1 / 1.05 - 1)
    assert (repo / "reports/agreement/agreement.png").exists()
