"""Tables 1 and 2 from references, claims and predictions the tests construct."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acousticlaim.quantities import SCORED_KEYS, SPLIT_HALF_KEYS
from acousticlaim.scoring import stats
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.pipeline import score
from acousticlaim.report.tables import render_table1, render_table2
from acousticlaim.scoring.table1 import table1_frame

CONFIG = ScoringConfig(system_order=("sysB", "sysA"))
RNG = np.random.default_rng(21)
MIX = [f"{1000 + i}-1-0001_{2000 + i}-2-0002" for i in range(60)]
AMI = [f"ES2004a_{i}" for i in range(40)]


def long_refs(values: dict[tuple[str, str], float], halves: dict[tuple[str, str], tuple[float, float]] | None = None):
    rows = []
    for (clip, quantity), value in values.items():
        h1, h2 = (halves or {}).get((clip, quantity), (np.nan, np.nan))
        rows.append({"clip_id": clip, "quantity": quantity, "value": value, "defined": bool(np.isfinite(value)),
                     "reason": "" if np.isfinite(value) else "undefined", "tier": "", "signal": "", "half1": h1, "half2": h2})
    return pd.DataFrame(rows)


def gen(system, corpus, clip, rung, seed):
    return {"system": system, "corpus": corpus, "clip_id": clip, "rung": rung, "seed": seed}


def claim(system, corpus, clip, rung, seed, quantity, value):
    return {**gen(system, corpus, clip, rung, seed), "quantity": quantity, "value": float(value), "start": 0}


@pytest.fixture(scope="module")
def panel():
    ref = {(c, q): float(RNG.normal(10, 4)) for c in MIX + AMI for q in SCORED_KEYS}
    claims, gens = [], []
    for seed in (0, 1):
        for clip in MIX + AMI:
            corpus = "librimix" if clip in MIX else "ami"
            for system in ("sysA", "sysB"):
                for rung in ("P0_free", "P2_named", "P3_template"):
                    gens.append(gen(system, corpus, clip, rung, seed))
    for i, clip in enumerate(MIX):
        r = ref[(clip, "snr")]
        claims.append(claim("sysA", "librimix", clip, "P2_named", 0, "snr", round(r + RNG.normal(0, 0.5), 1)))
        claims.append(claim("sysA", "librimix", clip, "P3_template", 1, "snr", round(RNG.normal(10, 4), 1)))
        if i < 30:
            claims.append(claim("sysA", "librimix", clip, "P2_named", 0, "f0_mean", [100, 150, 200, 250][i % 4]))
        if i < 24:
            claims.append(claim("sysA", "librimix", clip, "P2_named", 1, "jitter", i * 0.1))
    for clip in AMI:
        claims.append(claim("sysA", "ami", clip, "P2_named", 0, "srmr", round(ref[(clip, "srmr")] + RNG.normal(0, 1), 2)))
        claims.append(claim("sysA", "ami", clip, "P2_named", 0, "snr", 5.0))  # excluded on AMI: never scored
    # our own system: three training seeds on the mixtures, two on AMI, one rung of its own
    for seed in (1, 2, 3):
        for i, clip in enumerate(MIX):
            gens.append(gen("reference", "librimix", clip, "own", seed))
            claims.append(claim("reference", "librimix", clip, "own", seed, "snr", ref[(clip, "snr")] + RNG.normal(0, 1)))
            if i < 30:
                claims.append(claim("reference", "librimix", clip, "own", seed, "f0_mean",
                                    ref[(clip, "f0_mean")] + RNG.normal(0, 1)))
    for seed in (1, 2):
        for clip in AMI:
            gens.append(gen("reference", "ami", clip, "own", seed))
            claims.append(claim("reference", "ami", clip, "own", seed, "srmr", ref[(clip, "srmr")] + RNG.normal(0, 1)))
    return pd.DataFrame(claims), pd.DataFrame(gens), long_refs(ref)


def test_table2_entries_marks_and_counts(panel):
    claims, gens, refs = panel
    result = score(claims, refs, CONFIG, generations=gens)
    t = result.table2.set_index(["corpus", "system", "quantity"])
    cells = result.cells
    a_snr = cells[(cells["system"] == "sysA") & (cells["corpus"] == "librimix") & (cells["quantity"] == "snr")]
    best = a_snr["spearman"].max()
    assert best > 0.3 and t.loc[("librimix", "sysA", "snr"), "rho"] == pytest.approx(best)
    assert t.loc[("librimix", "sysA", "snr"), "rung"] == "P2_named"
    assert t.loc[("librimix", "sysA", "snr"), "text"] == f"{best:+.3f}↑"
    assert t.loc[("librimix", "sysA", "f0_mean"), "text"] == "c"  # four distinct values
    assert t.loc[("librimix", "sysA", "jitter"), "text"] == "–"  # 24 clips
    assert t.loc[("librimix", "sysB", "snr"), "text"] == "–"
    assert t.loc[("ami", "sysA", "snr"), "text"] == "excl"
    assert t.loc[("ami", "sysA", "pause_rate"), "text"] == "excl"
    # counts: cells over the bar against cells at n >= 25, over every rung
    assert t.loc[("librimix", "sysA", "snr"), "cells"] == 3 and t.loc[("librimix", "sysA", "snr"), "over_bar"] == 1
    assert t.loc[("librimix", "sysB", "snr"), "cells"] == 0
    counts = result.metrics["table2"]["librimix"]
    assert counts["cells"] == 3 and counts["ranked"] == 2 and counts["constant"] == 1 and counts["over_bar"] == 1
    ranked_ns = cells[(cells["corpus"] == "librimix") & (cells["status"] == "ranked")]["n"]
    assert counts["null_expectation"] == pytest.approx(stats.null_expectation(ranked_ns, 0.3))
    assert result.metrics["panel_clips"] == {"ami": 40, "librimix": 60}
    # our row: mean over the ranked training seeds, § where read on part of the clips, ¶ on fewer seeds
    ours_snr = t.loc[("librimix", "reference", "snr")]
    seed_rhos = result.seed_cells.query("corpus == 'librimix' and quantity == 'snr'")["spearman"]
    assert len(seed_rhos) == 3 and ours_snr["rho"] == pytest.approx(seed_rhos.mean())
    assert ours_snr["text"].endswith("↑") and "§" not in ours_snr["text"]
    assert t.loc[("librimix", "reference", "f0_mean"), "text"].endswith("↑§")  # 30 of 60 clips
    assert t.loc[("ami", "reference", "srmr"), "text"].endswith("¶")  # two seeds against three
    md = render_table2(result.table2, result.cells, result.config, sampling_seeds=result.sampling_seeds)
    assert "| sysB |" in md and md.index("| sysB |") < md.index("| sysA |") < md.index("| reference |")
    assert "| 1/3 |" in md and "ref." in md and "1.06/(n−3)" in md
    assert "Libri2Mix: 3 cells at n ≥ 25, 2 ranked, 1 under 5 distinct values" in md


def test_mean_pooling_changes_values_not_counts(panel):
    claims, gens, refs = panel
    first = score(claims, refs, CONFIG, generations=gens).cells
    mean = score(claims, refs, ScoringConfig(pool="mean"), generations=gens).cells
    assert list(first["n"]) == list(mean["n"])


def _predictions():
    mixtures = MIX[:40]
    twins = [c + "_s1clean" for c in mixtures]
    train = [f"train{i}" for i in range(10)]
    ref, halves = {}, {}
    for clip in mixtures + twins + train:
        for q in SCORED_KEYS:
            ref[(clip, q)] = float(RNG.normal(10, 4))
            if q in SPLIT_HALF_KEYS:
                halves[(clip, q)] = (ref[(clip, q)] + RNG.normal(0, 2), ref[(clip, q)] + RNG.normal(0, 2))
    rows = []
    for system, noise in (("reference", 1.0), ("ridge", 6.0)):
        for seed in (0, 1):
            for clip in mixtures + twins + train:
                kind = "twin" if clip.endswith("_s1clean") else "mixture"
                split = "train" if clip.startswith("train") else "test"
                for q in SCORED_KEYS:
                    rows.append({"system": system, "train_seed": seed, "clip_id": clip, "split": split, "kind": kind,
                                 "quantity": q, "value": ref[(clip, q)] + RNG.normal(0, noise), "logvar": 0.0})
    speakers = {c: c.split("-")[0][:3] for c in mixtures + twins}
    return pd.DataFrame(rows), long_refs(ref, halves), speakers, mixtures, twins


def test_table1_readout_b_rows_seeds_ridge_and_caps():
    preds, refs, speakers, mixtures, twins = _predictions()
    table = table1_frame(preds, refs, ScoringConfig(), speakers=speakers).set_index("quantity")
    assert list(table.index) == ["srmr", "snr", "speaking_rate", "pause_count", "pause_rate", "f0_mean", "f0_sd",
                                 "jitter", "shimmer", "hnr"]
    assert table.loc["snr", "read_on"] == "mixtures" and table.loc["jitter", "read_on"] == "twins"
    assert table.loc["f0_mean", "tier"] == "masked" and table.loc["jitter", "tier"] == "stem_only"
    assert table.loc["snr", "readout"] == "B" and table.loc["snr", "stated"] == 1.0 and table.loc["snr", "clips"] == 40
    ref_values = refs.set_index(["clip_id", "quantity"])["value"]
    rhos, ridge_rhos = [], []
    for seed in (0, 1):
        for system, store in (("reference", rhos), ("ridge", ridge_rhos)):
            sel = preds.query("system == @system and train_seed == @seed and quantity == 'snr' and split == 'test' and kind == 'mixture'")
            store.append(stats.spearman(sel["value"], [ref_values[(c, "snr")] for c in sel["clip_id"]]))
    assert table.loc["snr", "ours_rho"] == pytest.approx(np.mean(rhos))
    assert table.loc["snr", "ours_sd"] == pytest.approx(np.std(rhos, ddof=1))
    assert table.loc["snr", "ridge_rho"] == pytest.approx(np.mean(ridge_rhos))
    assert table.loc["snr", "ours_rho"] > table.loc["snr", "ridge_rho"]
    twin_mask = refs["clip_id"].isin(twins) & (refs["quantity"] == "jitter")
    split = stats.split_half_reliability(refs.loc[twin_mask, "half1"], refs.loc[twin_mask, "half2"])
    assert table.loc["jitter", "cap"] == pytest.approx(split.cap)
    assert table.loc["jitter", "half_rho"] == pytest.approx(split.half_rho)
    assert np.isnan(table.loc["snr", "cap"])
    assert table.loc["snr", "ours_within"] is not None and np.isfinite(table.loc["snr", "ours_within"])
    md = render_table1(table.reset_index(), ScoringConfig())
    assert "| Jitter‡ | Stem-only |" in md and "| F0 mean‡ | Masked† |" in md
    assert "Spearman–Brown" in md and "Readout B" in md


def test_table1_readout_a_scores_the_ridge_on_the_clips_we_stated():
    preds, refs, speakers, mixtures, twins = _predictions()
    ref_values = refs.set_index(["clip_id", "quantity"])["value"]
    stated_clips = mixtures[:30]
    rows = [{"system": "reference", "corpus": "librimix", "rung": "own", "quantity": "snr", "seed": seed,
             "clip_id": c, "value": ref_values[(c, "snr")] + RNG.normal(0, 1)} for seed in (0, 1) for c in stated_clips]
    table = table1_frame(preds, refs, ScoringConfig(), reference_claims=pd.DataFrame(rows)).set_index("quantity")
    assert table.loc["snr", "readout"] == "A"
    assert table.loc["snr", "stated"] == pytest.approx(0.75)
    ridge = preds.query("system == 'ridge' and quantity == 'snr' and clip_id in @stated_clips")
    expected = np.mean([stats.spearman(g["value"], [ref_values[(c, "snr")] for c in g["clip_id"]])
                        for _, g in ridge.groupby("train_seed")])
    assert table.loc["snr", "ridge_rho"] == pytest.approx(expected)
    assert table.loc["hnr", "ours_mark"] == "–" and table.loc["hnr", "stated"] == 0.0


def test_table1_waits_for_the_predictions(panel):
    claims, gens, refs = panel
    result = score(claims, refs, CONFIG, generations=gens)
    assert result.table1 is None
    assert "waiting for the reference system's predictions" in render_table1(result.table1, result.config)
    assert result.metrics["table1"]["status"].startswith("waiting")
