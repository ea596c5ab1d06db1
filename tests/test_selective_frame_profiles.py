import numpy as np
import pytest

from acousticlaim.audio import write_audio
from acousticlaim.selective.frame_profiles import (
    ProfileJob,
    bin_frames,
    clip_profiles,
    pause_frames,
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


def test_pause_frames_exclude_leading_and_trailing_silence_and_short_gaps():
    step = 0.01
    sounding = np.zeros(300, dtype=bool)
    sounding[50:100] = True   # 0.5–1.0 s
    sounding[120:150] = True  # a 0.2-s gap before: too short for a pause
    sounding[200:250] = True  # a 0.5-s gap before: a pause
    times = np.arange(300) * step
    pause = pause_frames(times, sounding)
    assert pause[150:200].all() and pause.sum() == 50
    assert not pause[:50].any() and not pause[250:].any()


def test_clip_profiles_find_the_voiced_tokens_and_the_pause(tmp_path):
    rng = np.random.default_rng(0)
    s1 = _voiced_bursts(rng)
    write_audio(tmp_path / "s1.flac", s1)
    write_audio(tmp_path / "s2.flac", 1e-5 * rng.normal(size=s1.size))
    write_audio(tmp_path / "noise.flac", 0.01 * rng.normal(size=s1.size))
    n_tokens = int(5 / TOKEN_S)
    res = clip_profiles(ProfileJob("c1", str(tmp_path / "s1.flac"), str(tmp_path / "s2.flac"),
                                   str(tmp_path / "noise.flac"), n_tokens, TOKEN_S))
    assert res.failures == []
    centre = (np.arange(n_tokens) + 0.5) * TOKEN_S
    inside = ((centre > 0.7) & (centre < 1.7)) | ((centre > 3.3) & (centre < 4.3))
    gap = (centre > 2.2) & (centre < 2.8)
    outside = (centre < 0.3) | (centre > 4.7)
    v = res.profiles["voiced"]
    assert v[inside].min() > 0.9 and v[gap].max() < 0.1 and v[outside].max() < 0.1
    p = res.profiles["pause"]
    assert p[gap].min() > 0.9 and p[inside].max() == 0 and p[outside].max() == 0
    snd = res.profiles["sounding"]
    assert snd[inside].min() > 0.9 and snd[gap].max() < 0.1
    snr = res.profiles["speech_to_noise"]
    assert snr[inside].min() > snr[gap].max() + 20


def test_clip_profiles_record_unreadable_sources(tmp_path):
    res = clip_profiles(ProfileJob("c2", str(tmp_path / "missing.flac"), None, None, 10, TOKEN_S))
    assert res.profiles == {} and len(res.failures) == 1
    assert res.failures[0].clip_id == "c2" and "no such file" in res.failures[0].reason
    rng = np.random.default_rng(1)
    write_audio(tmp_path / "s1.flac", _voiced_bursts(rng))
    res = clip_profiles(ProfileJob("c3", str(tmp_path / "s1.flac"), None, None, 31, TOKEN_S))
    assert set(res.profiles) == {"voiced", "sounding", "pause"}
    assert "no SNR profile" in res.failures[0].reason


def test_speech_to_noise_per_token():
    speech = np.concatenate([np.ones(2560), np.zeros(2560)])  # one token of speech at power 1, one silent
    noise = np.full(5120, 0.1)  # power 0.01
    out = speech_to_noise_db(speech, noise, SR, 2, TOKEN_S)
    assert out[0] == pytest.approx(20.0) and out[1] == -30.0
