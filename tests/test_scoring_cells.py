"""Cells, pooling and statuses on claims tables the tests construct."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acousticlaim.scoring import stats
from acousticlaim.scoring.cells import score_cell, score_cells, scored_quantities
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.pooling import corpus_condition, one_value_per_generation, pool_seeds

CONFIG = ScoringConfig()


def claim(system="sysA", corpus="librimix", clip="c0", rung="P3_template", seed=0, quantity="snr", value=1.0, start=0):
    return {"system": system, "corpus": corpus, "clip_id": clip, "rung": rung, "seed": seed,
            "quantity": quantity, "value": value, "start": start}


def refs_frame(values: dict[tuple[str, str], float]) -> pd.DataFrame:
    return pd.DataFrame([{"clip_id": c, "quantity": q, "reference": v} for (c, q), v in values.items()])


def test_first_keeps_the_lowest_seed_that_states_a_value_and_mean_averages():
    claims = pd.DataFrame([
        claim(seed=3, quantity="snr", value=30.0),
        claim(seed=1, quantity="snr", value=10.0),
        claim(seed=5, quantity="snr", value=50.0),
        claim(seed=0, quantity="hnr", value=7.0),  # seed 0 states HNR only
        claim(seed=2, quantity="f0_mean", value=120.0),
    ])
    first = pool_seeds(claims, "first").set_index("quantity")
    assert first.loc["snr", "value"] == 10.0 and first.loc["snr", "seeds"] == 3
    assert first.loc["hnr", "value"] == 7.0
    assert first.loc["f0_mean", "value"] == 120.0
    mean = pool_seeds(claims, "mean").set_index("quantity")
    assert mean.loc["snr", "value"] == pytest.approx(30.0)


def test_a_quantity_stated_twice_in_one_text_keeps_the_last_value():
    claims = pd.DataFrame([claim(value=12.0, start=40), claim(value=5.0, start=3)])
    kept = one_value_per_generation(claims)
    assert list(kept["value"]) == [12.0]


def test_shimmer_stated_in_db_is_not_scored_as_percent():
    by_unit = pd.DataFrame([claim(quantity="shimmer", value=0.9, start=5) | {"unit": "dB"},
                            claim(quantity="shimmer", value=4.0, start=1) | {"unit": "%"},
                            claim(quantity="jitter", value=1.0) | {"unit": "%"}])
    kept = one_value_per_generation(by_unit).set_index("quantity")["value"].to_dict()
    assert kept == {"shimmer": 4.0, "jitter": 1.0}
    as_written = pd.DataFrame([claim(quantity="shimmer", value=0.9) | {"unit_text": "dB"},
                               claim(clip="c1", quantity="shimmer", value=3.0) | {"unit_text": "%"}])
    assert list(one_value_per_generation(as_written)["clip_id"]) == ["c1"]
    # the claims stage writes quantity, unit and unit_text as categoricals
    categorical = pd.concat([by_unit, by_unit.assign(seed=1)], ignore_index=True).assign(unit_text=None)
    for column in ("quantity", "unit", "unit_text"):
        categorical[column] = categorical[column].astype("category")
    pooled = pool_seeds(categorical).set_index("quantity")
    assert pooled["value"].to_dict() == {"jitter": 1.0, "shimmer": 4.0} and set(pooled["seeds"]) == {2}


def test_non_finite_claim_is_a_clear_error():
    with pytest.raises(ValueError, match="non-finite.*sysA/c0/P3_template/seed 0/snr"):
        one_value_per_generation(pd.DataFrame([claim(value=float("nan"))]))


def test_pooling_eight_seeds_by_clip_never_counts_a_clip_twice():
    rng = np.random.default_rng(5)
    clips = [f"m{i:03d}" for i in range(200)]
    reference = {(c, "snr"): float(rng.normal(15, 8)) for c in clips}
    rows, drawn = [], set()
    for seed in range(8):
        sample = rng.choice(clips, 120, replace=False)  # each seed draws its own 120-clip sample
        for clip in sample:
            drawn.add(clip)
            if rng.random() < 0.7:  # greedy: the same text on every seed that draws the clip
                rows.append(claim(clip=clip, seed=seed, value=round(reference[(clip, "snr")] + 3, 1)))
    claims = pd.DataFrame(rows)
    stated = set(claims["clip_id"])
    pooled = pool_seeds(claims, "first")
    cells = score_cells(pooled, refs_frame(reference), {"librimix": drawn}, CONFIG)
    snr = cells[cells["quantity"] == "snr"].iloc[0]
    assert snr["n"] == len(stated) < len(claims)
    assert snr["coverage"] == pytest.approx(len(stated) / len(drawn))
    assert snr["panel_clips"] == len(drawn)
    # a table that lists a clip twice in one cell is refused rather than counted twice
    with pytest.raises(ValueError, match="counted twice"):
        score_cells(claims[["system", "corpus", "rung", "quantity", "clip_id", "value"]], refs_frame(reference),
                    {"librimix": drawn}, CONFIG)


def test_a_cell_with_24_clips_is_few_and_one_with_four_distinct_values_is_constant():
    ref = np.linspace(0, 10, 30)
    few = score_cell(ref[:24] * 2, ref[:24], n_clips=100, config=CONFIG)
    assert few["status"] == "few" and few["spearman"] is None and few["n"] == 24
    assert few["nmae"] is not None and few["floor"] == pytest.approx(stats.constant_floor(ref[:24]))
    stated = np.repeat([1.0, 2.0, 3.0, 4.0], 8)[:30]
    const = score_cell(stated, ref, n_clips=100, config=CONFIG)
    assert const["status"] == "constant" and const["distinct"] == 4 and const["spearman"] is None
    five = score_cell(np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], 6), ref, n_clips=100, config=CONFIG)
    assert five["status"] == "ranked" and five["spearman"] == pytest.approx(stats.spearman(np.repeat([1.0, 2, 3, 4, 5], 6), ref))
    undefined = score_cell(np.arange(30.0), np.full(30, 2.0), n_clips=100, config=CONFIG)
    assert undefined["status"] == "undefined" and undefined["nmae"] is None and undefined["floor"] == 0.0


def test_ranked_cell_carries_every_figure():
    rng = np.random.default_rng(2)
    ref = rng.normal(0, 1, 80)
    stated = np.round(ref + rng.normal(0, 0.5, 80), 2)
    cell = score_cell(stated, ref, n_clips=839, config=CONFIG, speakers=[i % 8 for i in range(80)])
    rho = stats.spearman(stated, ref)
    assert cell["spearman"] == pytest.approx(rho)
    assert (cell["ci_low"], cell["ci_high"]) == pytest.approx(stats.fisher_z_interval(rho, 80))
    assert cell["over_bar"] is True and cell["null_p"] == pytest.approx(stats.null_exceedance(80, 0.3))
    assert cell["coverage"] == pytest.approx(80 / 839)
    assert cell["within_speaker"] == pytest.approx(stats.within_speaker_spearman(stated, ref, [i % 8 for i in range(80)]))
    assert cell["distinct"] == len(np.unique(stated)) and cell["distinct_reference"] == 80


def test_undefined_references_are_counted_apart_and_never_paired():
    clips = [f"m{i}" for i in range(30)]
    claims = pd.DataFrame([claim(clip=c, quantity="f0_mean", value=100.0 + i) for i, c in enumerate(clips)])
    reference = {(c, "f0_mean"): (np.nan if i < 4 else 90.0 + 2 * i) for i, c in enumerate(clips)}
    cells = score_cells(pool_seeds(claims), refs_frame(reference), {"librimix": set(clips)}, CONFIG)
    cell = cells[cells["quantity"] == "f0_mean"].iloc[0]
    assert cell["n"] == 26 and cell["n_without_reference"] == 4
    assert cell["status"] == "ranked" and cell["spearman"] == pytest.approx(1.0)


def test_twins_form_their_own_condition_and_ami_excludes_three_references():
    assert corpus_condition("librimix", "a_b_s1clean") == "twin"
    assert corpus_condition("librimix", "a_b") == "librimix"
    assert corpus_condition("ami", "x_s1clean") == "ami"
    assert "snr" not in scored_quantities("ami") and "pause_count" not in scored_quantities("ami")
    assert len(scored_quantities("librimix")) == 10 and len(scored_quantities("ami")) == 7
    claims = pd.DataFrame([
        claim(clip="a_b", quantity="snr", value=3.0),
        claim(clip="a_b_s1clean", quantity="snr", value=9.0),
        claim(corpus="ami", clip="ES2004a_1", quantity="snr", value=9.0),
        claim(corpus="ami", clip="ES2004a_1", quantity="srmr", value=5.0),
    ])
    refs = refs_frame({("a_b", "snr"): 1.0, ("a_b_s1clean", "snr"): 40.0, ("ES2004a_1", "snr"): 20.0,
                       ("ES2004a_1", "srmr"): 4.0})
    panel = {"librimix": {"a_b"}, "twin": {"a_b_s1clean"}, "ami": {"ES2004a_1"}}
    cells = score_cells(pool_seeds(claims), refs, panel, CONFIG)
    keyed = cells.set_index(["corpus", "quantity"])
    assert keyed.loc[("librimix", "snr"), "n"] == 1 and keyed.loc[("twin", "snr"), "n"] == 1
    assert ("ami", "snr") not in keyed.index and keyed.loc[("ami", "srmr"), "n"] == 1
    assert keyed.loc[("ami", "srmr"), "tier"] == "exact"


def test_cells_nobody_stated_appear_with_n_zero_when_the_generations_are_given():
    claims = pd.DataFrame([claim(clip="m1", quantity="snr", value=3.0)])
    combos = pd.DataFrame([{"system": "sysA", "corpus": "librimix", "rung": r} for r in ("P0_free", "P3_template")])
    cells = score_cells(pool_seeds(claims), refs_frame({("m1", "snr"): 2.0}), {"librimix": {"m1", "m2"}}, CONFIG,
                        combos=combos)
    assert len(cells) == 20  # two rungs × ten scored quantities
    assert (cells.loc[cells["rung"] == "P0_free", "n"] == 0).all()
    assert set(cells["status"]) == {"few"}


def test_a_stated_clip_outside_the_panel_list_is_an_error():
    claims = pd.DataFrame([claim(clip="stray")])
    with pytest.raises(ValueError, match="not in its panel clip list, e.g. stray"):
        score_cells(pool_seeds(claims), refs_frame({("stray", "snr"): 1.0}), {"librimix": {"m1"}}, CONFIG)


def test_config_reads_the_params_group_and_rejects_unknown_keys():
    cfg = ScoringConfig.from_params({"n_min": 25, "distinct_min": 5, "bar": 0.3, "pool": "mean"})
    assert cfg.pool == "mean"
    with pytest.raises(ValueError, match="unknown key"):
        ScoringConfig.from_params({"nmin": 25})
    with pytest.raises(ValueError, match="pool"):
        ScoringConfig.from_params({"pool": "last"})
