"""The features stage on a manifest the test writes: per-clip cache, failures recorded, clip table built."""

import numpy as np
import pandas as pd
import pytest

from acousticlaim.audio import write_audio
from acousticlaim.corpus.manifest import write_manifest
from acousticlaim.model.data import build_clip_table, read_reference_labels
from acousticlaim.model.features import cached_fingerprint, extract_features, read_clip_features
from acousticlaim.quantities import SCORED_KEYS

PARAMS = {"encoder": {"kind": "logmel", "n_mels": 20}, "max_duration_s": 1.0, "workers": 1}

# the fixture's x3 has no audio file: one clip of four fails, which the stage records and tolerates here
ONE_OF_FOUR_MAY_FAIL = {"kind": "local", "workers": 1, "max_failure_share": 0.25}


@pytest.fixture()
def corpus(tmp_path):
    """Four clips: a mixture and its twin (train), a second train mixture, and a test clip whose file is missing."""
    rng = np.random.default_rng(0)
    write_audio(tmp_path / "corpus" / "audio" / "m0.flac", 0.1 * rng.normal(size=24000))
    write_audio(tmp_path / "corpus" / "stems" / "m0_s1.flac", 0.1 * rng.normal(size=24000))
    write_audio(tmp_path / "corpus" / "audio" / "x2.flac", 0.1 * rng.normal(size=16000))
    common = {"corpus": "librimix"}
    rows = [
        {**common, "clip_id": "m0", "split": "train", "kind": "mixture", "mixture_id": "m0",
         "audio_path": "audio/m0.flac", "speaker_1": "s0", "overlap_fraction": 0.7},
        {**common, "clip_id": "m0_s1clean", "split": "train", "kind": "twin", "mixture_id": "m0",
         "audio_path": "stems/m0_s1.flac", "speaker_1": "s0", "overlap_fraction": 0.7},
        {**common, "clip_id": "x2", "split": "train", "kind": "mixture", "mixture_id": "x2",
         "audio_path": "audio/x2.flac", "speaker_1": "s1", "overlap_fraction": 0.2},
        {**common, "clip_id": "x3", "split": "test", "kind": "mixture", "mixture_id": "x3",
         "audio_path": "audio/missing.flac", "speaker_1": "s2", "overlap_fraction": 0.6},
    ]
    write_manifest(tmp_path / "corpus", rows)
    return tmp_path


def test_features_are_cached_per_clip_and_failures_recorded(corpus):
    out = corpus / "features"
    index, failures = extract_features(corpus / "corpus" / "manifest.parquet", out, PARAMS, ONE_OF_FOUR_MAY_FAIL)
    assert sorted(index["clip_id"]) == ["m0", "m0_s1clean", "x2"]
    assert [f.clip_id for f in failures] == ["x3"] and "no such file" in failures[0].reason
    frames = read_clip_features(out / index.set_index("clip_id").loc["m0", "path"])
    assert frames.shape == (47, 20)  # truncated to 1.0 s → (16000 - 1024) // 320 + 1 frames
    assert pd.read_parquet(out / "failures.parquet")["clip_id"].tolist() == ["x3"]
    pooled = pd.read_parquet(out / "pooled.parquet").set_index("clip_id")
    assert pooled.shape == (3, 40) and list(pooled.columns[:2]) == ["mean_0000", "mean_0001"]
    assert np.allclose(pooled.loc["m0"].to_numpy(), np.concatenate([frames.mean(0), frames.std(0)]))
    # a second run finds the cache (same fingerprint) and leaves the file as it was
    path = out / "clips" / "m0.safetensors"
    stamp = path.stat().st_mtime_ns
    extract_features(corpus / "corpus" / "manifest.parquet", out, PARAMS, ONE_OF_FOUR_MAY_FAIL)
    assert path.stat().st_mtime_ns == stamp
    # a different encoder setting re-encodes
    extract_features(corpus / "corpus" / "manifest.parquet", out, {**PARAMS, "encoder": {"kind": "logmel", "n_mels": 24}},
                     ONE_OF_FOUR_MAY_FAIL)
    assert read_clip_features(path).shape[1] == 24 and cached_fingerprint(path) is not None


def test_clip_table_joins_labels_and_zeroes_twin_overlap(corpus):
    out = corpus / "features"
    extract_features(corpus / "corpus" / "manifest.parquet", out, PARAMS, ONE_OF_FOUR_MAY_FAIL)
    refs = []
    for cid in ["m0", "m0_s1clean"]:
        for j, q in enumerate(SCORED_KEYS):
            refs.append({"clip_id": cid, "quantity": q, "value": float(j), "defined": q != "jitter",
                         "reason": "" if q != "jitter" else "undefined", "tier": "exact", "signal": "mixture",
                         "half1": np.nan, "half2": np.nan})
    pd.DataFrame(refs).to_parquet(corpus / "refs.parquet")
    table, failures = build_clip_table(corpus / "corpus" / "manifest.parquet", out, corpus / "refs.parquet", splits=["train"])
    assert sorted(table["clip_id"]) == ["m0", "m0_s1clean"]
    assert {f.clip_id: f.reason for f in failures} == {"x2": "no reference row for this clip"}
    by_id = table.set_index("clip_id")
    assert by_id.loc["m0", "overlap"] == 0.7 and by_id.loc["m0_s1clean", "overlap"] == 0.0
    assert np.isnan(by_id.loc["m0", "jitter"]) and by_id.loc["m0", "hnr"] == SCORED_KEYS.index("hnr")
    wide = read_reference_labels(corpus / "refs.parquet")
    assert list(wide.columns) == list(SCORED_KEYS)


def test_reference_table_without_needed_columns_is_named(tmp_path):
    pd.DataFrame({"clip_id": ["a"], "quantity": ["snr"]}).to_parquet(tmp_path / "r.parquet")
    with pytest.raises(ValueError, match=r"r.parquet: reference table lacks column\(s\) \['value', 'defined'\]"):
        read_reference_labels(tmp_path / "r.parquet")
