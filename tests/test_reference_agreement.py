"""Our references against a released-layout table, clip by clip: known answers for ρ and relative differences."""

import csv

import numpy as np
import pandas as pd
import pytest

from acousticlaim.quantities import release_column_map
from acousticlaim.scoring.reference_agreement import compare_with_release, plot_agreement

AMI_COLUMNS = {key: column for column, key in release_column_map("ami").items()}


def write_release_csv(path, rows: dict[str, dict[str, float]]) -> None:
    """A reference table in the released layout (``filename`` with ``.wav``, the released column names)."""
    header = ["filename", *AMI_COLUMNS.values()]
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for clip, values in rows.items():
            by_column = {AMI_COLUMNS[k]: v for k, v in values.items()}
            writer.writerow([f"{clip}.wav", *[by_column.get(c, "") for c in header[1:]]])


def long_table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"clip_id": clip, "quantity": key, "value": value, "defined": bool(np.isfinite(value))}
                         for clip, values in rows.items() for key, value in values.items()])


def test_agreement_per_quantity_on_the_clips_in_both(tmp_path):
    ours = {"a": {"f0_mean": 100.0, "hnr": 5.0, "jitter": np.nan},
            "b": {"f0_mean": 200.0, "hnr": 10.0, "jitter": 1.0},
            "c": {"f0_mean": 300.0, "hnr": 15.0, "jitter": 2.0},
            "only_ours": {"f0_mean": 1.0, "hnr": 1.0, "jitter": 1.0}}
    released = {"a": {"f0_mean": 110.0, "hnr": 15.0, "jitter": 1.0},
                "b": {"f0_mean": 220.0, "hnr": 10.0, "jitter": 1.5},
                "c": {"f0_mean": 330.0, "hnr": 5.0, "jitter": 2.0},
                "only_released": {"f0_mean": 9.0, "hnr": 9.0, "jitter": 9.0}}
    long_table(ours).to_parquet(tmp_path / "references.parquet")
    write_release_csv(tmp_path / "ami_test.csv", released)
    agreement = compare_with_release(tmp_path, tmp_path / "ami_test.csv", "ami")
    assert agreement.clips == {"ours": 4, "released": 4, "common": 3}
    t = agreement.table.set_index("quantity")
    assert t.loc["f0_mean", "n"] == 3 and t.loc["f0_mean", "spearman_rho"] == pytest.approx(1.0)
    assert t.loc["f0_mean", "median_rel_diff"] == pytest.approx(-1 / 11)
    assert t.loc["f0_mean", "median_abs_rel_diff"] == pytest.approx(1 / 11)
    # hnr reversed: ρ = −1; relative differences −2/3, 0, +2 → median 0, median |·| 2/3
    assert t.loc["hnr", "spearman_rho"] == pytest.approx(-1.0)
    assert t.loc["hnr", "median_rel_diff"] == pytest.approx(0.0)
    assert t.loc["hnr", "median_abs_rel_diff"] == pytest.approx(2 / 3)
    # jitter undefined on our side for one clip: two pairs, no ρ; (1−1.5)/1.5 and 0 → median −1/6
    assert t.loc["jitter", "n"] == 2 and np.isnan(t.loc["jitter", "spearman_rho"])
    assert t.loc["jitter", "n_undefined_ours"] == 1
    assert t.loc["jitter", "median_rel_diff"] == pytest.approx(-1 / 6)
    assert sorted(t.index) == ["f0_mean", "hnr", "jitter"]
    png = plot_agreement(agreement, tmp_path / "agreement.png")
    assert png.stat().st_size > 1000


def test_no_common_clip_is_a_clear_error(tmp_path):
    long_table({"AMI_EN2002a_sdm_0000000_0001000": {"f0_mean": 100.0}}).to_parquet(tmp_path / "references.parquet")
    write_release_csv(tmp_path / "ami_test.csv", {"AMI_EN2002a_sdm_FEO070_0000000_0000400": {"f0_mean": 100.0}})
    with pytest.raises(ValueError, match="share no clip id .*corpus.ami_cut: segments"):
        compare_with_release(tmp_path / "references.parquet", tmp_path / "ami_test.csv", "ami")
