"""The `references` stage end to end on a tiny synthetic corpus, with failures and both executors."""

import shutil

import numpy as np
import pandas as pd
import pytest
import soundfile as sf

from acousticlaim.corpus.build import build_corpus
from acousticlaim.instruments.praat import read_voice
from acousticlaim.audio import load_audio
from acousticlaim.instruments.references import REFERENCE_COLUMNS, build_references, compute_references
from acousticlaim.quantities import ALL_KEYS, SPLIT_HALF_KEYS, Corpus, get
from tests.corpus_fixtures import tiny_corpus_params
from tests.speech_files import LIBRIVOX_MALE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    build_corpus(tiny_corpus_params(n_train=2, n_test=1), out, executor={"kind": "local", "workers": 1})
    return out


@pytest.fixture(scope="module")
def built(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("references")
    result = build_references(corpus, out, {}, executor={"kind": "local", "workers": 1})
    return out, result


def test_one_row_per_clip_and_quantity_with_registry_tiers(corpus, built):
    out, result = built
    refs = pd.read_parquet(out / "references.parquet")
    manifest = pd.read_parquet(corpus / "manifest.parquet")
    assert list(refs.columns) == REFERENCE_COLUMNS
    assert len(refs) == len(manifest) * len(ALL_KEYS)
    assert not refs.duplicated(["clip_id", "quantity"]).any()
    assert refs.defined.all(), refs.loc[~refs.defined, ["clip_id", "quantity", "reason"]]
    assert (refs.reason == "").all() and refs.value.notna().all()
    kinds = manifest.set_index("clip_id").kind
    for row in refs.itertuples():
        condition = Corpus.LIBRIMIX if kinds[row.clip_id] == "mixture" else Corpus.TWIN
        tier = get(row.quantity).tier(condition)
        assert (None if pd.isna(row.tier) else row.tier) == (tier.value if tier else None)
    assert (pd.read_parquet(out / "failures.parquet").shape[0]) == 0 and result.summary["failures"] == 0


def test_signals_read_on_follow_the_spec(corpus, built):
    refs = built[1].references.merge(pd.read_parquet(corpus / "manifest.parquet")[["clip_id", "kind"]], on="clip_id")
    signal = refs.set_index(["kind", "quantity"]).signal.groupby(level=[0, 1]).unique().map(lambda s: list(s))
    assert signal["mixture", "snr"] == ["stem"] and signal["mixture", "srmr"] == ["mixture"]
    assert signal["mixture", "f0_mean"] == ["masked_mixture"] and signal["mixture", "f0_sd"] == ["masked_mixture"]
    for key in ("speaking_rate", "pause_count", "pause_rate", "jitter", "shimmer", "hnr"):
        assert signal["mixture", key] == ["stem"]
        assert signal["twin", key] == ["twin"]
    assert signal["twin", "snr"] == ["stem"]  # the twin carries its mixture's mixing SNR (Measurable)


def test_values_agree_with_the_corpus_and_the_stem(corpus, built):
    refs = built[1].references
    manifest = pd.read_parquet(corpus / "manifest.parquet").set_index("clip_id")
    wide = refs.pivot(index="clip_id", columns="quantity", values="value")
    # the mixing SNR read back from the 16-bit stems is the SNR the corpus mixed at
    assert np.allclose(wide.snr, manifest.loc[wide.index, "snr_db"], atol=0.01)
    assert np.allclose(wide.duration, manifest.loc[wide.index, "duration_s"])
    mixtures = manifest.index[manifest.kind == "mixture"]
    for mix in mixtures:
        twin = f"{mix}_s1clean"
        # the twin is the stem s1: stem-only readings on the mixture equal the twin's own
        for key in ("jitter", "shimmer", "hnr", "speaking_rate", "pause_count"):
            assert wide.loc[mix, key] == wide.loc[twin, key]
        assert wide.loc[twin, "overlap_ratio"] == 0.0 and 0 < wide.loc[mix, "overlap_ratio"] < 1
        stem, sr = load_audio(corpus / manifest.loc[mix, "s1_path"])
        direct = read_voice(stem, sr, halves=True)
        row = refs[(refs.clip_id == mix) & (refs.quantity == "jitter")].iloc[0]
        assert row.value == direct.jitter.value
        assert (row.half1, row.half2) == (direct.halves["jitter"][0].value, direct.halves["jitter"][1].value)
    halves = refs[refs.quantity.isin(SPLIT_HALF_KEYS)]
    assert halves[["half1", "half2"]].notna().all().all()
    assert refs[~refs.quantity.isin(SPLIT_HALF_KEYS)][["half1", "half2"]].isna().all().all()


def test_overlap_windows_checked_against_the_manifest(built):
    out, result = built
    overlap = pd.read_parquet(out / "overlap.parquet")
    assert len(overlap) == 3 and (overlap.n_windows > 0).all()
    agreement = result.summary["overlap_agreement"]
    assert agreement["n"] == 3
    assert agreement["mean_abs_diff"] == pytest.approx(np.mean(np.abs(overlap.manifest_overlap_fraction - overlap.vad_overlap_fraction)))
    assert agreement["mean_abs_diff"] < 0.25  # energy activity and Silero agree on where both talk


def test_unreadable_audio_is_a_recorded_failure(corpus, tmp_path):
    broken = tmp_path / "corpus"
    shutil.copytree(corpus, broken)
    manifest = pd.read_parquet(broken / "manifest.parquet")
    mix = manifest[manifest.kind == "mixture"].iloc[0]
    (broken / mix.audio_path).write_bytes(b"not audio")
    (broken / mix.noise_path).unlink()
    result = compute_references(manifest, broken, {}, executor={"kind": "local", "workers": 1})
    failures = {(f.clip_id, f.stage) for f in result.failures}
    assert (mix.clip_id, "references") in failures
    reasons = " ".join(f.reason for f in result.failures)
    assert "cannot be decoded" in reasons and "no such file" in reasons  # the twin's mixing SNR needs the noise stem
    rows = result.references[result.references.clip_id == mix.clip_id]
    assert len(rows) == len(ALL_KEYS) and not rows.defined.any() and rows.reason.str.contains("cannot be decoded").all()
    twin = result.references[result.references.clip_id == f"{mix.clip_id}_s1clean"].set_index("quantity")
    assert not twin.loc["snr", "defined"] and "no such file" in twin.loc["snr", "reason"]
    assert twin.drop(index="snr").defined.all()  # everything read on the twin itself is still there
    others = result.references[~result.references.clip_id.str.startswith(mix.clip_id)]
    assert others.defined.all()


def test_a_silent_noise_stem_is_an_explained_undefined_snr(corpus, tmp_path):
    quiet = tmp_path / "corpus"
    shutil.copytree(corpus, quiet)
    manifest = pd.read_parquet(quiet / "manifest.parquet")
    mix = manifest[manifest.kind == "mixture"].iloc[0]
    n = sf.info(quiet / mix.noise_path).frames
    sf.write(quiet / mix.noise_path, np.zeros(n), 16000, subtype="PCM_16")
    result = compute_references(manifest[manifest.mixture_id == mix.clip_id], quiet, {}, executor={"kind": "local", "workers": 1})
    assert result.failures == []
    snr = result.references[result.references.quantity == "snr"]
    assert len(snr) == 2 and not snr.defined.any() and snr.reason.str.contains("noise stem is silent").all()
    assert result.references[result.references.quantity != "snr"].defined.all()


def test_an_ami_clip_is_read_on_its_channel_with_exclusions(tmp_path):
    wav = LIBRIVOX_MALE[0].require()
    manifest = pd.DataFrame([{"clip_id": "AMI_TEST_sdm_0_710", "corpus": "ami", "source": "ami", "split": "test",
                              "kind": "clip", "audio_path": str(wav)}])
    refs = compute_references(manifest, tmp_path, {}, executor={"kind": "local", "workers": 1}).references.set_index("quantity")
    assert (refs.signal == "channel").all()
    assert refs.loc["snr", "tier"] == "excluded" and refs.loc["snr", "defined"]
    assert refs.loc["pause_count", "tier"] == "excluded" and refs.loc["pause_rate", "tier"] == "excluded"
    assert refs.loc["speaking_rate", "tier"] == "exact" and refs.loc["f0_mean", "tier"] == "exact"
    assert not refs.loc["overlap_ratio", "defined"] and "no separated stems" in refs.loc["overlap_ratio", "reason"]
    assert 75 < refs.loc["f0_mean", "value"] < 170


def test_local_pool_and_dask_give_identical_references(corpus):
    from distributed import Client, LocalCluster

    manifest = pd.read_parquet(corpus / "manifest.parquet")
    local = compute_references(manifest, corpus, {}, executor={"kind": "local", "workers": 2})
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        dask = compute_references(manifest, corpus, {}, executor={"kind": "dask", "scheduler": client})
    pd.testing.assert_frame_equal(local.references, dask.references)
    pd.testing.assert_frame_equal(local.overlap, dask.overlap)


def test_references_in_time_are_the_instruments_intervals(corpus, built):
    """Overlap windows, pauses and noise events per clip: the overlap list is the VAD windows the overlap
    fraction is read from, the pause list holds exactly the pauses the pause count counts, the stationary
    noise is one event over the clip, and a twin has no overlap and no noise."""
    out, result = built
    intervals = pd.read_parquet(out / "intervals.parquet")
    lists = pd.read_parquet(out / "interval_lists.parquet")
    manifest = pd.read_parquet(corpus / "manifest.parquet").set_index("clip_id")
    assert list(intervals.columns) == ["clip_id", "event", "start_s", "end_s"]
    assert len(lists) == 3 * len(manifest) and lists.defined.all()
    assert (intervals.end_s >= intervals.start_s).all()
    refs = result.references.set_index(["clip_id", "quantity"]).value
    overlap = result.overlap.set_index("clip_id")
    for clip_id, row in manifest.iterrows():
        mine = intervals[intervals.clip_id == clip_id]
        pauses = mine[mine.event == "pause"]
        assert len(pauses) == refs[clip_id, "pause_count"]
        assert (pauses.end_s - pauses.start_s >= 0.3 - 1e-9).all()
        noise = mine[mine.event == "noise"]
        ov = mine[mine.event == "overlap"]
        duration = float(lists[(lists.clip_id == clip_id) & (lists.event == "noise")].duration_s.iloc[0])
        if row["kind"] == "twin":
            assert ov.empty and noise.empty
            continue
        assert abs((ov.end_s - ov.start_s).sum() / duration - overlap.loc[clip_id, "vad_overlap_fraction"]) < 1e-9
        if -row["snr_db"] >= -30.0:
            assert noise[["start_s", "end_s"]].values.tolist() == [[0.0, duration]]
        else:
            assert noise.empty
