"""The corpus builder: synthetic and LibriSpeech paths, SNR, failures, scenes, AMI, Libri2Mix CSV."""

import numpy as np
import pandas as pd
import pytest
import soundfile as sf

from acousticlaim.audio import load_audio
from acousticlaim.corpus.build import build_corpus
from acousticlaim.corpus.manifest import MANIFEST_COLUMNS, read_manifest, resolve_path
from acousticlaim.corpus.mixing import snr_db
from acousticlaim.corpus.noise import loop_to_length
from tests.corpus_fixtures import tiny_corpus_params, write_librispeech_fixture

SERIAL = {"kind": "local", "workers": 1}


@pytest.fixture(scope="module")
def synthetic_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    result = build_corpus(tiny_corpus_params(), out, executor=SERIAL)
    return out, result


def test_synthetic_corpus_rows_and_twins(synthetic_corpus):
    out, result = synthetic_corpus
    m = read_manifest(out)
    assert result.n_failures == 0 and len(m) == result.n_clips == 2 * (4 + 3)
    assert list(m.columns[: len(MANIFEST_COLUMNS)]) == MANIFEST_COLUMNS
    mixtures, twins = m[m.kind == "mixture"], m[m.kind == "twin"]
    assert set(twins.clip_id) == {f"{c}_s1clean" for c in mixtures.clip_id}
    assert all(cid == f"{a}_{b}" for cid, a, b in zip(mixtures.clip_id, mixtures.utt_1, mixtures.utt_2))
    # speaker-disjoint splits
    spk = {s: set(m[m.split == s].speaker_1) | set(m[m.split == s].speaker_2) for s in ("train", "test")}
    assert not spk["train"] & spk["test"]
    # the twin's audio is the target stem
    assert (twins.audio_path.values == twins.s1_path.values).all()
    assert (mixtures.duration_s <= 10.0 + 1e-9).all()
    assert mixtures.syn_f0_hz.notna().all()


@pytest.mark.parametrize("i", [0, 1, 2])
def test_mixture_measures_its_snr_against_its_own_stems(synthetic_corpus, i):
    out, _ = synthetic_corpus
    row = read_manifest(out).query("kind == 'mixture'").iloc[i]
    s1, s2, noise = (load_audio(resolve_path(out, row[c]))[0] for c in ("s1_path", "s2_path", "noise_path"))
    assert snr_db(s1 + s2, noise) == pytest.approx(row.snr_db, abs=0.05)
    mix = load_audio(resolve_path(out, row.audio_path))[0]
    assert np.max(np.abs(mix - (s1 + s2 + noise))) < 1e-3  # the mixture is the sum of its stems (16-bit FLAC)
    assert 20 * np.log10(np.std(s1) / np.std(s2)) == pytest.approx(row.ttr_db, abs=0.05)


def test_same_params_same_corpus(synthetic_corpus, tmp_path):
    out, _ = synthetic_corpus
    build_corpus(tiny_corpus_params(), tmp_path, executor=SERIAL)
    a, b = read_manifest(out), read_manifest(tmp_path)
    pd.testing.assert_frame_equal(a, b)
    first = a.iloc[0].audio_path
    assert np.array_equal(sf.read(out / first)[0], sf.read(tmp_path / first)[0])


def test_librispeech_path_same_schema_and_disjoint_splits(synthetic_corpus, tmp_path):
    root = write_librispeech_fixture(tmp_path / "LibriSpeech", {"train-clean-100": 3, "test-clean": 2})
    cfg = tiny_corpus_params(source="librispeech", librispeech_dir=str(root), n_train=3, n_test=2)
    result = build_corpus(cfg, tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out")
    assert result.n_failures == 0 and len(m) == 10
    syn = read_manifest(synthetic_corpus[0])
    assert list(m.columns[: len(MANIFEST_COLUMNS)]) == list(syn.columns[: len(MANIFEST_COLUMNS)])
    assert set(m[m.split == "train"].speaker_1) <= {"1000", "1001", "1002"}
    assert set(m[m.split == "test"].speaker_1) <= {"1100", "1101"}
    assert m.transcript_1.str.startswith("SYNTHETIC UTTERANCE").all()
    assert (m.source == "librispeech").all()


def test_corrupt_and_empty_sources_are_recorded_and_the_stage_finishes(tmp_path):
    root = write_librispeech_fixture(tmp_path / "LS", {"train-clean-100": 2, "test-clean": 2}, utts_per_speaker=1)
    bad = sorted((root / "test-clean").rglob("*.flac"))
    bad[0].write_bytes(b"\x00garbage, not a flac file")
    sf.write(bad[1], np.zeros(0), 16000, format="FLAC")
    cfg = tiny_corpus_params(source="librispeech", librispeech_dir=str(root), n_train=1, n_test=1)
    result = build_corpus(cfg, tmp_path / "out", executor=SERIAL)
    failures = pd.read_parquet(tmp_path / "out" / "failures.parquet")
    assert result.n_failures == 1 and len(failures) == 1
    assert failures.stage.iloc[0] == "corpus"
    assert "cannot be decoded" in failures.reason.iloc[0] or "empty" in failures.reason.iloc[0]
    m = read_manifest(tmp_path / "out")
    assert set(m.split) == {"train"}  # the good mixture survived


def test_libri2mix_metadata_csv_keeps_ids_and_pairs(tmp_path):
    root = write_librispeech_fixture(tmp_path / "L2M", {"test-clean": 2}, utts_per_speaker=1)
    files = sorted((root / "test-clean").rglob("*.flac"))
    u1, u2 = files[0].stem, files[1].stem
    csv = tmp_path / "libri2mix_test.csv"
    pd.DataFrame({"mixture_ID": [f"{u1}_{u2}"], "source_1_path": [str(files[0].relative_to(root))],
                  "source_2_path": [str(files[1].relative_to(root))], "length": [1]}).to_csv(csv, index=False)
    cfg = tiny_corpus_params(source="libri2mix", libri2mix_metadata=str(csv), libri2mix_root=str(root),
                             n_train=None, n_test=None)
    build_corpus(cfg, tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out")
    assert sorted(m.clip_id) == [f"{u1}_{u2}", f"{u1}_{u2}_s1clean"]
    assert (m.split == "test").all() and m.speaker_1.iloc[0] == u1.split("-")[0]


def test_rsa_bench_scene_superimposes_k_sources_and_clips(tmp_path):
    cfg = tiny_corpus_params(n_train=0, n_test=4, scenes={"enabled": True, "k": [2, 4]}, snr_db=[-5.0, 0.0],
                             speech_level_dbfs=[-12.0, -10.0])
    build_corpus(cfg, tmp_path, executor=SERIAL)
    m = read_manifest(tmp_path).query("kind == 'mixture'")
    assert m.scene_k.between(2, 4).all()
    assert (m.noise_id.str.count(r"\+") == m.scene_k - 1).all()
    for row in m.itertuples():
        mix = load_audio(resolve_path(tmp_path, row.audio_path))[0]
        assert np.max(np.abs(mix)) <= 1.0


def test_loop_to_length_is_w_n_mod_m():
    w = np.arange(5.0)
    assert loop_to_length(w, 12, offset=3).tolist() == [3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4]


def test_ami_clips_cut_from_recordings(tmp_path):
    rec = tmp_path / "ami" / "EN2002a.Array1-01.wav"
    rec.parent.mkdir()
    rng = np.random.default_rng(0)
    sf.write(rec, 0.05 * rng.standard_normal(16000 * 25), 16000)
    (tmp_path / "ami" / "broken.Array1-01.wav").write_bytes(b"RIFF....nope")
    cfg = tiny_corpus_params(source="ami", ami_dir=str(tmp_path / "ami"), ami_cut="windows", ami_clip_s=10.0,
                             ami_meetings=None)
    result = build_corpus(cfg, tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out")
    assert list(m.clip_id) == ["AMI_EN2002a_sdm_0000000_0001000", "AMI_EN2002a_sdm_0001000_0002000"]
    assert (m.corpus == "ami").all() and (m.kind == "clip").all() and np.allclose(m.duration_s, 10.0)
    assert result.n_failures == 1


def test_unknown_source_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="corpus.source 'timit'"):
        build_corpus(tiny_corpus_params(source="timit"), tmp_path)


def test_missing_librispeech_dir_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="librispeech_dir"):
        build_corpus(tiny_corpus_params(source="librispeech", librispeech_dir=str(tmp_path / "nope")), tmp_path / "o")
