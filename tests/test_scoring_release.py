"""Importing the released panel (run files, reference CSVs, panel clip lists) and re-scoring it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acousticlaim.claims.prompts import get_rung
from acousticlaim.report.tables import write_tables_markdown
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.release import (
    read_panel_clips, read_release_references, release_generations, release_speaker, rescore_release, write_release,
)

LIBRI_HEADER = ("filename,snr_db,srmr,f0_mean_hz,praat_speaking_rate_syl_sec,praat_articulation_rate_syl_sec,"
                "praat_pause_count,praat_pause_rate_per_min,f0_sd_hz,jitter_local_pct,jitter_rap_pct,shimmer,hnr,"
                "overlap_ratio,overlap_segments,overlap_segments_vad,overlap_ratio_vad")
_ROOT = Path(__file__).resolve().parents[1]
# the released data sit in ../shared beside the checkout (a worktree sits one level deeper)
SHARED = next((p / "shared" / "data" for p in (_ROOT.parent, _ROOT.parent.parent) if (p / "shared" / "data").exists()),
              _ROOT.parent / "shared" / "data")
MIXTURES = [f"{100 + i}-{i}-0001_{300 + i}-{i}-0002" for i in range(40)]


def write_release_tree(root: Path, seeds=(0, 1)) -> tuple[list[Path], dict]:
    rng = np.random.default_rng(4)
    refs, lines = {}, [LIBRI_HEADER]
    for clip in MIXTURES + [m + "_s1clean" for m in MIXTURES]:
        values = {"snr_db": rng.uniform(0, 40), "srmr": rng.uniform(1, 9), "f0_mean_hz": rng.uniform(90, 250)}
        refs[clip] = values
        f0 = "" if clip == MIXTURES[0] else f"{values['f0_mean_hz']:.2f}"  # one undefined F0 reference
        lines.append(f"{clip}.wav,{values['snr_db']},{values['srmr']:.4f},{f0},4.1,5.0,2,30.0,20.0,1.9,0.7,8.9,11.1,0.5,1-2,,")
    (root / "references").mkdir(parents=True)
    (root / "references" / "librimix_test.csv").write_text("\n".join(lines) + "\n")
    (root / "manifests").mkdir()
    (root / "manifests" / "panel_clips_librimix.txt").write_text("\n".join(MIXTURES) + "\n")
    files = []
    for seed in seeds:
        sample = MIXTURES[seed * 5: seed * 5 + 30]  # overlapping 30-clip samples per seed
        # a later seed states +1000 dB on the clips an earlier seed drew too, so pooling shows in the error
        gens = [{"stem": c, "text": f"The SNR is {refs[c]['snr_db'] + (1000 if seed and c in MIXTURES[:30] else 0):.4f} dB."}
                for c in sample]
        dump = {"system": "Sys-X", "corpus": "librimix", "seed": seed,
                "results": {"Sys-X": {"P2_named": {"prompt": get_rung("P2_named").text, "generations": gens},
                                      "P0_free": {"prompt": get_rung("P0_free").text,
                                                  "generations": [{"stem": c, "text": "Clear."} for c in sample]}}}}
        path = root / "panel" / f"sys-x_librimix_seed{seed}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(dump))
        files.append(path)
    return files, refs


def test_release_references_map_columns_to_registry_keys_and_keep_undefined(tmp_path):
    write_release_tree(tmp_path)
    refs = read_release_references(tmp_path / "references" / "librimix_test.csv", "librimix")
    assert set(refs["quantity"]) >= {"snr", "srmr", "f0_mean", "jitter", "shimmer", "hnr", "pause_rate"}
    assert len(refs[refs["quantity"] == "snr"]) == 80
    f0 = refs.set_index(["clip_id", "quantity"]).loc[(MIXTURES[0], "f0_mean")]
    assert not f0["defined"] and "empty" in f0["reason"] and np.isnan(f0["value"])
    twin = refs.set_index(["clip_id", "quantity"]).loc[(MIXTURES[1] + "_s1clean", "jitter")]
    assert twin["signal"] == "twin" and twin["tier"] == "exact"
    mix = refs.set_index(["clip_id", "quantity"]).loc[(MIXTURES[1], "f0_mean")]
    assert mix["signal"] == "masked_mixture" and mix["tier"] == "masked"


def test_malformed_release_inputs_are_named(tmp_path):
    bad = tmp_path / "x_librimix_seed0.json"
    bad.write_text(json.dumps({"corpus": "librimix", "seed": 0,
                               "results": {"X": {"P0_free": {"generations": [{"stem": 3, "text": "a"}]}}}}))
    with pytest.raises(ValueError, match=r"x_librimix_seed0.json:results.X.P0_free.generations\[0\].stem"):
        release_generations(bad)
    bad.write_text(json.dumps({"corpus": "ami", "seed": 0,
                               "results": {"X": {"P0_free": {"generations": [{"stem": "a", "text": "a"}]}}}}))
    with pytest.raises(ValueError, match="its name says 'librimix' seed 0"):
        release_generations(bad)
    with pytest.raises(ValueError, match="not a released run file name"):
        release_generations(tmp_path / "whatever.json")
    csv = tmp_path / "librimix_test.csv"
    csv.write_text("filename,srmr\na.wav,1\n")
    with pytest.raises(ValueError, match="missing reference column"):
        read_release_references(csv, "librimix")
    listing = tmp_path / "list.txt"
    listing.write_text("a\nb\na\n")
    with pytest.raises(ValueError, match="listed twice"):
        read_panel_clips(listing)


def test_rescore_pools_seeds_by_clip_against_the_panel_list(tmp_path):
    files, refs = write_release_tree(tmp_path)
    gens = pd.concat([release_generations(f) for f in files])
    assert len(gens) == 120 and set(gens["seed"]) == {0, 1}
    # the texts go through the project's parser (the claims stage's code)
    result = rescore_release(files, tmp_path / "references", tmp_path / "manifests")
    claims = result.claims
    assert set(claims["quantity"]) == {"snr"} and len(claims) == 60
    cells = result.results.cells.set_index(["rung", "quantity"])
    snr = cells.loc[("P2_named", "snr")]
    drawn = set(MIXTURES[0:30]) | set(MIXTURES[5:35])
    assert snr["n"] == len(drawn) == 35  # 30 + 30 drawn, 25 of them twice: each clip once
    assert snr["coverage"] == pytest.approx(35 / 40) and snr["panel_clips"] == 40
    assert snr["status"] == "ranked" and snr["spearman"] == pytest.approx(1.0)
    # `first`: the overlap clips keep seed 0's value (the reference itself), so the error is the rounding
    assert snr["nmae"] < 1e-3
    mean = rescore_release(files, tmp_path / "references", tmp_path / "manifests", claims=claims,
                           config=ScoringConfig(pool="mean")).results.cells.set_index(["rung", "quantity"])
    assert mean.loc[("P2_named", "snr"), "n"] == 35
    assert mean.loc[("P2_named", "snr"), "nmae"] * snr["floor"] == pytest.approx(500 * 25 / 35, rel=1e-3)
    assert cells.loc[("P0_free", "snr"), "n"] == 0
    assert result.consistency["librimix"]["clips_per_seed"] == {0: 30, 1: 30}
    assert result.consistency["generations_parsing_to_nothing"] == 60
    written = write_release(result, tmp_path / "out") + write_tables_markdown(result.results, tmp_path / "out",
                                                                               table1=False)
    assert {p.name for p in written} == {"table2.md", "table2.csv", "table2.parquet", "cells.parquet",
                                         "points.parquet", "metrics.json"}
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["table2"]["librimix"]["ranked"] == 1 and "table1" not in metrics
    assert "| Sys-X |" in (tmp_path / "out" / "table2.md").read_text()


def test_a_generated_clip_outside_the_panel_list_is_refused(tmp_path):
    files, _ = write_release_tree(tmp_path)
    (tmp_path / "manifests" / "panel_clips_librimix.txt").write_text("\n".join(MIXTURES[:10]) + "\n")
    with pytest.raises(ValueError, match="not in panel_clips_librimix.txt"):
        rescore_release(files, tmp_path / "references", tmp_path / "manifests",
                        claims=pd.DataFrame(columns=["system", "corpus", "clip_id", "rung", "seed", "quantity", "value"]))


def test_release_speakers_from_clip_ids():
    assert release_speaker("1089-134691-0017_5142-36586-0004") == "1089"
    assert release_speaker("AMI_EN2002a_sdm_FEO070_0003404_0003804") == "FEO070"
    assert release_speaker("unknown") is None


@pytest.mark.skipif(not (SHARED / "release" / "references" / "librimix_test.csv").exists(),
                    reason="the released data folder ../shared/data is not on this machine")
def test_the_real_release_imports_consistently():
    refs = read_release_references(SHARED / "release" / "references" / "librimix_test.csv", "librimix")
    clips = set(refs["clip_id"])
    assert len(clips) == 6000 and sum(c.endswith("_s1clean") for c in clips) == 3000
    f0 = refs[(refs["quantity"] == "f0_mean")]
    assert int((~f0["defined"]).sum()) == 212
    panel = read_panel_clips(SHARED / "release" / "manifests" / "panel_clips_librimix.txt")
    assert len(panel) == 839 and set(panel) <= clips and not any(c.endswith("_s1clean") for c in panel)
    gens = release_generations(SHARED / "panel_sample" / "qwen2-audio-7b_librimix_seed0.json")
    assert len(gens) == 600 and gens["clip_id"].nunique() == 120 and set(gens["clip_id"]) <= set(panel)


@pytest.mark.skipif(not (SHARED / "panel_sample").exists(), reason="the released data folder ../shared/data is not on this machine")
def test_released_seed0_rescores_consistently(tmp_path):
    from acousticlaim.scoring.release import PAPER_SYSTEM_ORDER, panel_files_in

    files = panel_files_in(SHARED / "panel_sample", ["librimix"])
    result = rescore_release(files, SHARED / "release" / "references", SHARED / "release" / "manifests",
                             ScoringConfig(system_order=PAPER_SYSTEM_ORDER))
    cells = result.results.cells
    assert len(files) == 5 and len(cells) == 5 * 5 * 10  # every system × rung × scored quantity has its cell
    assert (cells["panel_clips"] == 839).all() and cells["n"].max() <= 120
    assert np.allclose(cells["coverage"], cells["n"] / 839)
    assert ((cells["status"] == "few") == (cells["n"] < 25)).all()
    # Table 2's entry is the largest ranked ρ over the rungs, and its counts are the cells' own
    table = result.results.table2.set_index(["system", "quantity"])
    ranked = cells[cells["status"] == "ranked"]
    for (system, quantity), rhos in ranked.groupby(["system", "quantity"])["spearman"]:
        assert table.loc[(system, quantity), "rho"] == pytest.approx(rhos.max())
    counts = result.results.metrics["table2"]["librimix"]
    assert counts["ranked"] == len(ranked) and counts["over_bar"] == int((ranked["spearman"] > 0.3).sum())
    assert counts["cells"] == counts["ranked"] + counts["constant"] + counts["undefined"]
    assert result.consistency["generations_parsing_to_nothing"] + result.consistency["generations_with_a_claim"] == 3000
