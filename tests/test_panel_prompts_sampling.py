"""The five released rungs, the project's sixth, and the sampling design."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from acousticlaim.claims.prompts import (PROMPT_VERSION, RELEASED_RUNG_IDS, RUNG_IDS, RUNGS, get_rung, released_prompts_json,
                                        rung_version, select_rungs)
from acousticlaim.panel.sampling import SamplingDesign, draw_samples, generation_jobs
from tests.shared_data import missing_reason, shared_data_path

SHARED = shared_data_path("panel_sample", "prompts.json")


def test_rungs_are_the_released_five_in_order_then_the_projects_own():
    assert RELEASED_RUNG_IDS == ("P0_free", "P1_numeric", "P2_named", "P3_template", "P4_fewshot")
    assert RUNG_IDS == RELEASED_RUNG_IDS + ("P5_intervals",)
    assert [r.index for r in RUNGS] == list(range(6))
    assert "overlapped speech" in get_rung("P5_intervals").text and "pauses" in get_rung("P5_intervals").text
    assert "noise" in get_rung("P5_intervals").text and "seconds" in get_rung("P5_intervals").text
    assert get_rung("P3_template").text.startswith("Complete each sentence with a number, using this exact wording.")
    assert "The HNR is ___ dB." in get_rung("P3_template").text
    assert get_rung("P0_free").text == "Describe the recording quality of this audio."


@pytest.mark.skipif(SHARED is None, reason=missing_reason("panel_sample", "prompts.json"))
def test_rungs_are_verbatim_the_released_prompts_json():
    assert released_prompts_json() == json.loads(SHARED.read_text())


def test_prompt_version_pins_the_text():
    # Changing any prompt changes this version; the store then regenerates everything made under the old one.
    assert PROMPT_VERSION == "release-ad19d028+1b609685e275"
    # The released five keep it, untouched by the added rung; the added rung is versioned on its own text.
    assert {rung_version(r) for r in RELEASED_RUNG_IDS} == {PROMPT_VERSION}
    assert rung_version("P5_intervals") == "intervals-v1+b924ca9aff98"


def test_select_rungs():
    assert [r.id for r in select_rungs(["P4_fewshot", "P0_free"])] == ["P0_free", "P4_fewshot"]
    assert select_rungs(None) == RUNGS
    with pytest.raises(KeyError, match="unknown rung 'P5'"):
        select_rungs(["P5"])
    with pytest.raises(ValueError, match="listed twice"):
        select_rungs(["P0_free", "P0_free"])


def manifest(n_mix=300, n_ami=50):
    rows = [{"clip_id": f"m{i:03d}", "corpus": "librimix", "split": "test", "kind": "mixture"} for i in range(n_mix)]
    rows += [{"clip_id": f"m{i:03d}_s1clean", "corpus": "librimix", "split": "test", "kind": "twin"} for i in range(n_mix)]
    rows += [{"clip_id": f"t{i:03d}", "corpus": "librimix", "split": "train", "kind": "mixture"} for i in range(40)]
    rows += [{"clip_id": f"AMI_{i:03d}", "corpus": "ami", "split": "test", "kind": "clip"} for i in range(n_ami)]
    return pd.DataFrame(rows)


def test_eight_seeds_each_draw_their_own_sample_of_test_mixtures():
    design = SamplingDesign()
    samples = draw_samples(manifest(), design)
    libri = [samples[("librimix", s)] for s in range(8)]
    assert all(len(s) == 120 and len(set(s)) == 120 for s in libri)
    assert all(c.startswith("m") and not c.endswith("_s1clean") for s in libri for c in s)  # test mixtures only
    assert len({tuple(s) for s in libri}) == 8  # each seed its own sample
    pooled = set().union(*libri)
    assert 120 < len(pooled) <= 300
    assert all(len(samples[("ami", s)]) == 50 for s in range(8))  # fewer eligible than 120: all of them
    assert draw_samples(manifest(), design) == samples  # deterministic


def test_a_corpus_sample_does_not_depend_on_the_other_corpora():
    design = SamplingDesign(seeds=(0, 1))
    with_ami = draw_samples(manifest(), design)
    without = draw_samples(manifest(n_ami=0), design)
    assert with_ami[("librimix", 1)] == without[("librimix", 1)]


def test_jobs_cover_every_clip_rung_and_seed_once():
    design = SamplingDesign(seeds=(0, 1, 2), clips_per_seed=10)
    jobs = generation_jobs(manifest(), design, ["P0_free", "P2_named"])
    assert len(jobs) == 3 * (10 + 10) * 2
    keys = [(j.clip_id, j.rung.id, j.seed) for j in jobs]
    assert len(set(keys)) == len(keys)
    assert [j.rung.id for j in jobs[:4]] == ["P0_free", "P2_named", "P0_free", "P2_named"]  # a clip's rungs together


def test_bad_designs_are_refused():
    with pytest.raises(ValueError, match="seeds repeat"):
        SamplingDesign(seeds=(0, 0))
    with pytest.raises(ValueError, match="clips_per_seed"):
        SamplingDesign(clips_per_seed=0)
    with pytest.raises(ValueError, match="no eligible clips"):
        draw_samples(manifest(), SamplingDesign(split="validation"))
