"""The estimator suite wired to the real instruments, on a tiny synthetic corpus with its references."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from acousticlaim.corpus.build import build_corpus
from acousticlaim.instruments.references import build_references
from acousticlaim.panel.heard_signal import measure_heard_signal
from acousticlaim.panel.stage import run_stage
from acousticlaim.panel.store import read_records
from acousticlaim.quantities import SCORED_KEYS
from tests.corpus_fixtures import tiny_corpus_params

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus_and_refs(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    build_corpus(tiny_corpus_params(n_train=2, n_test=2), corpus, executor={"kind": "local", "workers": 1})
    refs = tmp_path_factory.mktemp("references")
    build_references(corpus, refs, {}, executor={"kind": "local", "workers": 1})
    return corpus, refs


def params():
    return {"sampling": {"seeds": [0, 1], "clips_per_seed": 2, "split": "test", "kinds": ["mixture", "clip"]},
            "rungs": ["P0_free", "P3_template"], "max_duration_s": 10.0,
            "panel": {"estimator": {"kind": "estimator", "srmr_fast": True}, "constant": {"kind": "constant"}}}


def test_estimator_states_the_srmr_reference_on_the_mixture_it_hears(corpus_and_refs, tmp_path):
    from acousticlaim.panel.heard_signal import measure_for_config

    corpus, refs = corpus_and_refs
    summary = run_stage("estimator", params(), corpus, tmp_path, default_measure=measure_for_config)
    assert (summary.n_jobs, summary.n_generated, summary.n_failed) == (8, 8, 0)
    references = pd.read_parquet(refs / "references.parquet").set_index(["clip_id", "quantity"])
    for rec in read_records(tmp_path / "estimator.jsonl")[0]:
        if rec.rung != "P3_template":
            continue
        stated = float(re.search(r"The SRMR is ([0-9.]+)\.", rec.text).group(1))
        # SRMR is Exact: the reference is read on the very mixture the system hears
        assert stated == pytest.approx(references.loc[(rec.clip_id, "srmr"), "value"], abs=0.005)
        assert re.search(r"The SNR is -?[0-9.]+ dB\.", rec.text)


def test_measure_heard_signal_gives_the_ten_scored_quantities(corpus_and_refs):
    from acousticlaim.audio import load_audio

    corpus, _ = corpus_and_refs
    manifest = pd.read_parquet(corpus / "manifest.parquet")
    row = manifest[(manifest.kind == "mixture") & (manifest.split == "test")].iloc[0]
    wave, sr = load_audio(corpus / row.audio_path)
    values = measure_heard_signal(wave, sr)
    assert set(values) == set(SCORED_KEYS)
    assert all(isinstance(v, float) for v in values.values())
    assert 75 <= values["f0_mean"] <= 500 and np.isfinite(values["srmr"])


def test_constant_states_the_training_median_of_the_real_references(corpus_and_refs, tmp_path):
    corpus, refs = corpus_and_refs
    run_stage("constant", params(), corpus, tmp_path, references=refs)
    references = pd.read_parquet(refs / "references.parquet")
    manifest = pd.read_parquet(corpus / "manifest.parquet")
    train = set(manifest.loc[(manifest.split == "train") & (manifest.kind == "mixture"), "clip_id"])
    f0 = references[(references.quantity == "f0_mean") & references.clip_id.isin(train) & references.defined]
    texts = {r.text for r in read_records(tmp_path / "constant.jsonl")[0] if r.rung == "P3_template"}
    assert texts == {next(iter(texts))}
    assert f"The F0 mean is {np.median(f0.value):.1f} Hz." in next(iter(texts))
