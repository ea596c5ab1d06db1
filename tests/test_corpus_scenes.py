"""RSA-Bench scenes: K coverage, the 17-condition design, the four steps, labelled sources in time,
each category's character, recordings from noise_dir/<soundscape>/, and the default corpus unchanged."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acousticlaim.executor import StageFailed, rejected_failures_path
import soundfile as sf

from acousticlaim.audio import load_audio
from acousticlaim.corpus import scenes
from acousticlaim.corpus.build import build_corpus
from acousticlaim.corpus.manifest import read_manifest, resolve_path
from acousticlaim.corpus.mixing import snr_db
from tests.corpus_fixtures import tiny_corpus_params
from tests.default_corpus_golden import default_corpus_values

SERIAL = {"kind": "local", "workers": 1}
SR = scenes.SR


def scene_params(**scene) -> dict:
    return tiny_corpus_params(n_train=0, n_test=1, n_speakers_test=2, scenes={"enabled": True, **scene})


# ------------------------------------------------------------------------------- K and the design

@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_k_builds_in_sample_mode(tmp_path, k):
    result = build_corpus(scene_params(k=[k, k]), tmp_path, executor=SERIAL)
    m = read_manifest(tmp_path)
    assert result.n_failures == 0, pd.read_parquet(tmp_path / "failures.parquet").reason.tolist()
    mixture = m[m.kind == "mixture"].iloc[0]
    assert mixture.scene_k == k and mixture.scene_categories.count("+") == k - 1
    assert mixture.scene_soundscape in scenes.SOUNDSCAPES
    # the summed interference sits at the mixture's drawn SNR (equal λ_k)
    s1, s2, noise = (load_audio(resolve_path(tmp_path, mixture[c]), allow_silent=True)[0]
                     for c in ("s1_path", "s2_path", "noise_path"))
    assert snr_db(s1 + s2, noise) == pytest.approx(mixture.snr_db, abs=0.05)


@pytest.fixture(scope="module")
def design_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("design")
    result = build_corpus(scene_params(mode="design", k=[1, 4]), out, executor=SERIAL)
    return out, result


def test_the_design_builds_16_configurations_and_the_clean_version(design_corpus):
    out, result = design_corpus
    m = read_manifest(out)
    assert result.n_failures == 0
    mixtures = m[m.kind == "mixture"]
    assert len(mixtures) == 17 and mixtures.scene_sample.nunique() == 1
    configs = set(zip(mixtures.scene_soundscape, mixtures.scene_k))
    assert configs == {(s, k) for s in scenes.SOUNDSCAPES for k in (1, 2, 3, 4)} | {("clean", 0)}
    clean = mixtures[mixtures.scene_soundscape == "clean"].iloc[0]
    assert np.isnan(clean.snr_db) and clean.clip_id == clean.scene_sample
    twins = m[m.kind == "twin"]
    assert twins.mixture_id.tolist() == [clean.clip_id]  # one twin per sample, on the clean version
    # configuration K adds one source to configuration K − 1 (nested), each source at 0 dB against the speech
    for scape, rows in mixtures[mixtures.scene_k > 0].groupby("scene_soundscape"):
        cats = rows.sort_values("scene_k").scene_categories.str.split("+").tolist()
        assert all(cats[i] == cats[i + 1][: i + 1] for i in range(3))
    assert (mixtures[mixtures.scene_k > 0].scene_source_snr_db == 0.0).all()
    # the interference level rises with K: one source aligned to the speech's RMS reads 0 dB, more read lower
    by_k = mixtures[mixtures.scene_k > 0].groupby("scene_k").snr_db.mean()
    assert by_k[1] == pytest.approx(0.0, abs=0.05)
    assert by_k.is_monotonic_decreasing and by_k[4] < -4.0
    # superposition then clipping to [-1, 1] (Step 4)
    for row in mixtures.itertuples():
        assert np.max(np.abs(load_audio(resolve_path(out, row.audio_path), allow_silent=True)[0])) <= 1.0


def test_sources_in_time_label_every_source_of_every_scene(design_corpus):
    out, _ = design_corpus
    m = read_manifest(out).set_index("clip_id")
    events = scenes.read_scene_events(out)
    assert list(events.columns) == scenes.EVENT_COLUMNS
    for clip_id, rows in events.groupby("clip_id"):
        row = m.loc[clip_id]
        assert (rows.onset_s < rows.offset_s).all() and rows.onset_s.min() >= 0.0
        assert rows.offset_s.max() <= row.duration_s + 1e-9
        by_source = rows.groupby("source_index").category.first()
        assert "+".join(by_source) == row.scene_categories
        assert int(rows.groupby("source_index").vocal_like.first().sum()) == row.scene_n_vocal_like
        for cat, kind, vocal in zip(rows.category, rows.kind, rows.vocal_like):
            assert (kind, vocal) == (scenes.CATEGORIES[cat].kind, scenes.CATEGORIES[cat].vocal_like)
    clean = m[m.scene_soundscape == "clean"].index
    assert not set(clean) & set(events.clip_id)


def test_a_failed_scene_is_recorded_in_words(tmp_path, monkeypatch):
    def broken(n, rng):
        raise IndexError("invalid index to scalar variable")

    for category in scenes.soundscape_categories("pasture"):
        monkeypatch.setitem(scenes._SYNTHS, category, broken)
    cfg = scene_params(mode="design", k=[1, 1], soundscapes=["pasture"])
    with pytest.raises(StageFailed, match="1 of 1 clips failed"):  # nothing came out: the stage fails loudly
        build_corpus(cfg, tmp_path, executor=SERIAL)
    failures = pd.read_parquet(rejected_failures_path(tmp_path))
    assert len(failures) == 1
    reason = failures.reason.iloc[0]
    assert reason.startswith("the mixture could not be built while making the pasture scene with K = 1")
    assert "(pasture: syn:" in reason and "IndexError: invalid index to scalar variable" in reason


def test_scene_params_are_checked():
    with pytest.raises(ValueError, match="corpus.scenes.mode: 'grid' is not allowed"):
        scenes.check_scene_params({"enabled": True, "mode": "grid"})
    with pytest.raises(ValueError, match=r"corpus.scenes.k: \[0, 4\] is not allowed"):
        scenes.check_scene_params({"enabled": True, "k": [0, 4]})
    with pytest.raises(ValueError, match=r"corpus.scenes.soundscapes: \['park'\] is not allowed"):
        scenes.check_scene_params({"enabled": True, "soundscapes": ["park"]})
    with pytest.raises(KeyError, match="corpus.scenes: unknown parameter.s. kk"):
        scenes.check_scene_params({"enabled": True, "kk": [1, 2]})


# ------------------------------------------------------------------------------ recordings, steps 2–3

def test_recordings_under_noise_dir_soundscape_folders_are_looped_and_rms_aligned(tmp_path):
    rng = np.random.default_rng(3)
    cow = tmp_path / "noise" / "Pasture" / "cow"
    cow.mkdir(parents=True)
    period = int(0.37 * SR)
    sf.write(cow / "moo.wav", 0.3 * np.sin(2 * np.pi * 130 * np.arange(period) / SR) * rng.uniform(0.5, 1.0, period),
             SR, subtype="FLOAT")
    cfg = scene_params(mode="design", k=[1, 1], soundscapes=["pasture", "classroom"])
    cfg["noise_dir"] = str(tmp_path / "noise")
    build_corpus(cfg, tmp_path / "out", executor=SERIAL)
    m = read_manifest(tmp_path / "out").set_index("clip_id")
    events = scenes.read_scene_events(tmp_path / "out")
    pasture = m[m.scene_soundscape == "pasture"].iloc[0]
    assert pasture.noise_id == "moo.wav" and pasture.scene_categories == "cow" and pasture.scene_n_vocal_like == 1
    recorded = events[events.soundscape == "pasture"]
    assert set(recorded.origin) == {"recording"} and set(recorded.kind) == {"animal call"}
    assert set(events[events.soundscape == "classroom"].origin) == {"synthetic"}  # no folder: synthesised
    noise = load_audio(resolve_path(tmp_path / "out", pasture.noise_path))[0]
    assert np.allclose(noise[period:], noise[:-period], atol=2e-4)  # Step 2: w̃[n] = w[n mod M]
    assert pasture.snr_db == pytest.approx(0.0, abs=0.05)  # Step 3: the source at the speech's RMS


# ------------------------------------------------------------------------------ each category's character

@pytest.mark.parametrize("rate", [scenes.CLOCK_TICK_HZ, 2.5])
def test_clock_ticks_at_the_set_rate(rate):
    x = scenes.synth_clock(8 * SR, np.random.default_rng(1), rate_hz=rate)
    frame = int(0.005 * SR)
    energy = np.add.reduceat(x**2, np.arange(0, x.size, frame))
    ticks = np.flatnonzero((energy[1:] > 0.05 * energy.max()) & (energy[:-1] <= 0.05 * energy.max())) + 1
    intervals = np.diff(ticks) * frame / SR
    assert len(ticks) == pytest.approx(8 * rate, abs=1)
    assert np.median(intervals) == pytest.approx(1 / rate, rel=0.02)


def test_thunder_is_low_frequency_and_bursty():
    x, onsets = scenes.thunder_bursts(10 * SR, np.random.default_rng(2))
    spectrum = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(x.size, 1 / SR)
    assert spectrum[freqs < 200].sum() / spectrum.sum() > 0.95
    assert onsets  # sudden: bursts, quiet between them
    frame = int(0.1 * SR)
    levels = 10 * np.log10(np.add.reduceat(x**2, np.arange(0, x.size, frame)) + 1e-20)
    assert levels.max() - np.percentile(levels, 10) > 20


def _pitch(x: np.ndarray):
    parselmouth = pytest.importorskip("parselmouth")
    snd = parselmouth.Sound(x, sampling_frequency=SR)
    f0 = snd.to_pitch_ac(time_step=0.01, pitch_floor=75.0, pitch_ceiling=600.0).selected_array["frequency"]
    intensity = snd.to_intensity(minimum_pitch=75.0, time_step=0.01).values[0]
    n = min(f0.size, intensity.size)
    sounding = intensity[:n] > intensity.max() - 25.0
    return f0[:n], sounding


@pytest.mark.parametrize("category", [c.name for c in scenes.CATEGORIES.values() if c.vocal_like])
def test_vocal_like_sources_are_voiced_with_f0_in_their_register(category):
    x = scenes.synthesize_source(category, 6 * SR, seed=7)
    f0, sounding = _pitch(x)
    voiced = f0 > 0
    assert voiced[sounding].mean() > 0.5
    lo, hi = scenes.CATEGORIES[category].register_hz
    assert lo * 0.9 <= np.median(f0[voiced]) <= hi * 1.1


@pytest.mark.parametrize("category", ["rain", "keyboard_typing", "stream"])
def test_mechanical_sources_are_not_voiced(category):
    f0, sounding = _pitch(scenes.synthesize_source(category, 6 * SR, seed=7))
    assert (f0 > 0)[sounding].mean() < 0.2


def test_every_category_is_labelled_and_sounds():
    assert set(scenes.CATEGORIES) == {c for s in scenes.SOUNDSCAPES for c in scenes.soundscape_categories(s)}
    assert all(len(scenes.soundscape_categories(s)) == 4 for s in scenes.SOUNDSCAPES)
    for name in scenes.CATEGORIES:
        x = scenes.synthesize_source(name, 2 * SR, seed=0)
        assert x.size == 2 * SR and np.isfinite(x).all() and scenes.rms(x) > 0, name
        assert np.array_equal(x, scenes.synthesize_source(name, 2 * SR, seed=0))  # a pure function of the seed


def test_sounding_intervals_of_a_known_signal():
    t = np.arange(5 * SR) / SR
    x = np.sin(2 * np.pi * 440 * t) * (((t >= 1.0) & (t < 2.0)) | ((t >= 3.0) & (t < 3.5)) | ((t >= 3.55) & (t < 4.0)))
    got = scenes.sounding_intervals(x, floor_db=-30.0, min_gap_s=0.1)
    assert len(got) == 2  # the 50-ms gap is bridged
    assert got[0] == pytest.approx((1.0, 2.0), abs=0.03) and got[1] == pytest.approx((3.0, 4.0), abs=0.03)


# ------------------------------------------------------------------------------ the default corpus

def test_default_corpus_is_unchanged(tmp_path):
    golden = pd.read_parquet(Path(__file__).parent / "data" / "default_corpus_golden.parquet")
    built = default_corpus_values(tmp_path)
    pd.testing.assert_frame_equal(built, golden, check_exact=True)
    assert not (tmp_path / "scene_events.parquet").exists()
