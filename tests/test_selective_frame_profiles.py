import dataclasses

import numpy as np
import pytest

from acousticlaim.audio import load_audio, write_audio
from acousticlaim.corpus.synthetic import draw_talker, synthesize_talker
from acousticlaim.instruments.overlap import overlap_windows
from acousticlaim.instruments.praat import PraatAnalysis, voiced_frame_mask
from acousticlaim.instruments.timing import read_timing
from acousticlaim.selective.frame_profiles import (
    PROFILE_OF,
    ProfileJob,
    bin_frames,
    clip_profiles,
    count_events,
    interval_share,
    speech_to_noise_db,
)

SR = 16_000
TOKEN_S = 0.16


def _voiced_bursts(rng: np.random.Generator) -> np.ndarray:
    """5 s: a 150-Hz harmonic voice at 0.48–1.92 s and 3.04–4.48 s, near-silence elsewhere."""
    t = np.arange(int(5 * SR)) / SR
    voice = sum(np.sin(2 * np.pi * 150 * h * t) / h for h in range(1, 8))
    on = ((t >= 0.48) & (t < 1.92)) | ((t >= 3.04) & (t < 4.48))
    return 0.1 * voice * on + 1e-5 * rng.normal(size=t.size)


def test_bin_frames_averages_per_token():
    times = np.array([0.01, 0.05, 0.17, 0.2, 0.5])
    np.testing.assert_allclose(bin_frames(times, [1, 0, 1, 1, 1], 3, TOKEN_S), [0.5, 1.0, 0.0])


def test_count_events_and_interval_share_on_the_token_grid():
    np.testing.assert_allclose(count_events([0.01, 0.15, 0.17, 0.5, 9.0], 3, TOKEN_S), [2, 1, 0])
    # 0.08–0.40 s: half of token 0, all of token 1, half of token 2
    np.testing.assert_allclose(interval_share([(0.08, 0.40)], 3, TOKEN_S), [0.5, 1.0, 0.5])
    np.testing.assert_allclose(interval_share([], 2, TOKEN_S), [0.0, 0.0])


def _write_mixture(tmp_path, name, s1, s2, noise):
    paths = {}
    for part, x in (("s1", s1), ("s2", s2), ("noise", noise), ("mix", s1 + s2 + noise)):
        paths[part] = str(write_audio(tmp_path / f"{name}_{part}.flac", x))
    return paths


def _job(clip, paths, n_tokens):
    return ProfileJob(clip, paths["mix"], paths["s1"], paths["s2"], paths["noise"], n_tokens, TOKEN_S)


def test_clip_profiles_find_the_voiced_tokens_and_the_pause(tmp_path):
    rng = np.random.default_rng(0)
    s1 = _voiced_bursts(rng)
    paths = _write_mixture(tmp_path, "c1", s1, 1e-5 * rng.normal(size=s1.size), 0.01 * rng.normal(size=s1.size))
    n_tokens = int(5 / TOKEN_S)
    res = clip_profiles(_job("c1", paths, n_tokens))
    assert res.failures == []
    assert set(res.profiles) == {k for k in PROFILE_OF.values() if k}
    centre = (np.arange(n_tokens) + 0.5) * TOKEN_S
    inside = ((centre > 0.7) & (centre < 1.7)) | ((centre > 3.3) & (centre < 4.3))
    gap = (centre > 2.2) & (centre < 2.8)
    outside = (centre < 0.3) | (centre > 4.7)
    for kind in ("f0_voiced", "periods", "harmonic"):
        v = res.profiles[kind]
        assert v[inside].min() > 0.9 and v[gap].max() < 0.1 and v[outside].max() < 0.1, kind
    p = res.profiles["pause"]
    assert p[gap].min() > 0.9 and p[inside].max() == 0 and p[outside].max() == 0
    snr = res.profiles["speech_to_noise"]
    assert snr[inside].min() > snr[gap].max() + 20


@pytest.fixture(scope="module")
def two_talkers(tmp_path_factory):
    """A synthetic target talker and a synthetic interferer whose speech overlaps it, on disk."""
    tmp = tmp_path_factory.mktemp("talkers")
    rng = np.random.default_rng(3)
    # talkers at 4 syllables/s: vowels long enough that a 160-ms token can lie wholly inside one
    target = synthesize_talker(dataclasses.replace(draw_talker(rng, "a"), articulation_rate=4.0), 5.0, seed=1)
    interferer = synthesize_talker(dataclasses.replace(draw_talker(rng, "b"), articulation_rate=4.0), 5.0, seed=2)
    noise = 0.001 * rng.normal(size=target.waveform.size)
    paths = _write_mixture(tmp, "m", target.waveform, 0.8 * interferer.waveform, noise)
    n_tokens = int(5 / TOKEN_S)
    return target, paths, n_tokens, clip_profiles(_job("m", paths, n_tokens))


def test_speaking_rate_profile_counts_the_syllable_nuclei_of_the_stem(two_talkers):
    target, paths, n_tokens, res = two_talkers
    assert res.failures == []
    nuclei = res.profiles["nuclei"]
    s1, sr = load_audio(paths["s1"])
    timing = read_timing(s1, sr)
    # exactly the nuclei the speaking rate counts, on the stem (not the mixture)
    assert nuclei.sum() == timing.n_nuclei == pytest.approx(timing.speaking_rate.value * 5.0)
    assert abs(nuclei.sum() - len(target.nuclei)) <= 2
    # every token holding a nucleus overlaps one of the synthesiser's vowel nuclei
    for t in np.flatnonzero(nuclei):
        lo, hi = t * TOKEN_S, (t + 1) * TOKEN_S
        assert any(a < hi and b > lo for a, b in target.nuclei), t


def test_pause_profile_covers_the_talkers_pauses_only(two_talkers):
    target, _, n_tokens, res = two_talkers
    pause = res.profiles["pause"]
    lo = np.arange(n_tokens) * TOKEN_S
    hi = lo + TOKEN_S
    margin = 0.08
    in_pause = np.array([any(a + margin <= l and h <= b - margin for a, b in target.pauses) for l, h in zip(lo, hi)])
    in_phrase = np.array([any(a + margin <= l and h <= b - margin for a, b in target.sounding)
                          for l, h in zip(lo, hi)])
    assert in_pause.sum() >= 2 and in_phrase.sum() >= 10
    assert pause[in_pause].min() == pytest.approx(1.0) and pause[in_phrase].max() == 0.0
    assert pause[(hi <= target.sounding[0][0])].max(initial=0) == 0  # leading silence is no pause


def test_f0_profile_drops_the_overlap_windows_of_the_mixture(two_talkers):
    _, paths, n_tokens, res = two_talkers
    s1, sr = load_audio(paths["s1"])
    s2, _ = load_audio(paths["s2"])
    windows = overlap_windows(s1, s2, sr).windows
    assert len(windows) >= 1  # the two talkers do overlap
    f0 = res.profiles["f0_voiced"]
    lo = np.arange(n_tokens) * TOKEN_S
    hi = lo + TOKEN_S
    covered = np.array([any(a <= l and h <= b for a, b in windows) for l, h in zip(lo, hi)])
    assert covered.sum() >= 3 and f0[covered].max() == 0.0
    # outside the windows it is the mixture's voiced frames (the interferer's included, as the reference reads)
    mix, _ = load_audio(paths["mix"])
    times, voiced = voiced_frame_mask(PraatAnalysis(mix, sr))
    unmasked = bin_frames(times, voiced, n_tokens, TOKEN_S)
    assert unmasked[covered].mean() > 0.7  # voiced there: the windows, not silence, zero those tokens
    untouched = np.array([not any(a < h and b > l for a, b in windows) for l, h in zip(lo, hi)])
    assert untouched.sum() >= 5
    np.testing.assert_array_equal(f0[untouched], unmasked[untouched])
    assert f0[untouched].max() > 0.9


def test_clip_profiles_record_unreadable_sources(tmp_path):
    res = clip_profiles(ProfileJob("c2", None, str(tmp_path / "missing.flac"), None, None, 10, TOKEN_S))
    assert res.profiles == {} and len(res.failures) == 1
    assert res.failures[0].clip_id == "c2" and "no such file" in res.failures[0].reason
    rng = np.random.default_rng(1)
    write_audio(tmp_path / "s1.flac", _voiced_bursts(rng))
    res = clip_profiles(ProfileJob("c3", None, str(tmp_path / "s1.flac"), None, None, 31, TOKEN_S))
    assert set(res.profiles) == {"periods", "harmonic", "nuclei", "pause"}
    reasons = [f.reason for f in res.failures]
    assert len(reasons) == 2 and "F0 profile" in reasons[0] and "no mixture audio" in reasons[0]
    assert "no SNR profile" in reasons[1]
    # a silent target stem: the timing reader says why, no profile of zeros
    write_audio(tmp_path / "silent.flac", np.zeros(SR), )
    res = clip_profiles(ProfileJob("c4", None, str(tmp_path / "silent.flac"), None, None, 6, TOKEN_S))
    assert res.profiles == {} and "silent" in res.failures[0].reason


def test_speech_to_noise_per_token():
    speech = np.concatenate([np.ones(2560), np.zeros(2560)])  # one token of speech at power 1, one silent
    noise = np.full(5120, 0.1)  # power 0.01
    out = speech_to_noise_db(speech, noise, SR, 2, TOKEN_S)
    assert out[0] == pytest.approx(20.0) and out[1] == -30.0
