"""Praat readings: equal to direct parselmouth calls, plausible on real speech, explained when undefined."""

import numpy as np
import parselmouth
import pytest
import soundfile as sf
from parselmouth.praat import call

from acousticlaim.audio import load_audio
from acousticlaim.instruments.measure import measure_file
from acousticlaim.corpus.synthetic import draw_talker, synthesize_talker
from acousticlaim.instruments.praat import (
    PraatAnalysis,
    periodic_frame_mask,
    read_f0,
    read_hnr,
    read_periods,
    read_voice,
    voiced_f0,
    voiced_frame_mask,
)
from acousticlaim.quantities import ALL_KEYS
from tests.speech_files import ALL_SPEECH, AMFM_FEMALE, ARCTIC_FEMALE, ARCTIC_MALE, LIBRIVOX_MALE

SR = 16000


def test_readings_equal_direct_parselmouth_calls():
    x, sr = load_audio(LIBRIVOX_MALE[0].require())
    v = read_voice(x, sr, halves=True)

    snd = parselmouth.Sound(x, sampling_frequency=sr)
    pitch = snd.to_pitch_ac(pitch_floor=75.0, pitch_ceiling=500.0)  # every other argument at Praat's default
    pp = call(snd, "To PointProcess (periodic, cc)", 75, 500)  # Praat builds its own pitch inside
    harm = snd.to_harmonicity_cc(time_step=0.01, minimum_pitch=75.0, silence_threshold=0.1, periods_per_window=1.0)

    assert v.f0_mean.value == pytest.approx(call(pitch, "Get mean", 0, 0, "Hertz"), rel=1e-12)
    assert v.f0_sd.value == pytest.approx(call(pitch, "Get standard deviation", 0, 0, "Hertz"), rel=1e-12)
    assert v.jitter.value == pytest.approx(100 * call(pp, "Get jitter (local)", 0, 0, 0.0001, 0.02, 1.3), rel=1e-12)
    assert v.shimmer.value == pytest.approx(100 * call([snd, pp], "Get shimmer (local)", 0, 0, 0.0001, 0.02, 1.3, 1.6), rel=1e-12)
    assert v.hnr.value == pytest.approx(call(harm, "Get mean", 0, 0), rel=1e-12)

    mid = snd.xmax / 2
    assert v.halves["jitter"][0].value == pytest.approx(100 * call(pp, "Get jitter (local)", 0, mid, 0.0001, 0.02, 1.3), rel=1e-12)
    assert v.halves["shimmer"][1].value == pytest.approx(100 * call([snd, pp], "Get shimmer (local)", mid, snd.xmax, 0.0001, 0.02, 1.3, 1.6), rel=1e-12)
    assert v.halves["hnr"][1].value == pytest.approx(call(harm, "Get mean", mid, snd.xmax), rel=1e-12)
    # the halves are different stretches of speech, so they differ, and they straddle the whole
    assert v.halves["hnr"][0].value != v.halves["hnr"][1].value
    assert min(h.value for h in v.halves["hnr"]) <= v.hnr.value <= max(h.value for h in v.halves["hnr"])


def test_each_praat_object_is_built_once(monkeypatch):
    x, sr = load_audio(ARCTIC_MALE.require())
    built = []
    real_call = call

    def counting_call(obj, command, *args):
        if command.startswith("To "):
            built.append(command)
        return real_call(obj, command, *args)

    monkeypatch.setattr("acousticlaim.instruments.praat.call", counting_call)
    read_voice(x, sr, halves=True)
    assert sorted(built) == ["To Harmonicity (cc)", "To Pitch (ac)", "To PointProcess (cc)"]


def test_masked_f0_drops_the_frames_inside_the_windows():
    x, sr = load_audio(LIBRIVOX_MALE[2].require())
    analysis = PraatAnalysis(x, sr)
    windows = [(0.5, 1.5), (3.0, 4.0)]
    mean, sd = read_f0(analysis, windows)
    times, f0 = analysis.pitch_track
    keep = (f0 > 0) & ~(((times >= 0.5) & (times < 1.5)) | ((times >= 3.0) & (times < 4.0)))
    assert 0 < keep.sum() < (f0 > 0).sum()
    assert mean.value == pytest.approx(f0[keep].mean()) and sd.value == pytest.approx(f0[keep].std(ddof=1))
    everything = read_f0(analysis, [(0.0, analysis.duration + 1)])
    assert not everything[0].defined and "outside the overlap windows" in everything[0].reason
    # the frame mask is those very frames: what the frame profiles of the decomposition read
    mask_times, mask = voiced_frame_mask(analysis, windows)
    np.testing.assert_array_equal(mask_times, times)
    np.testing.assert_array_equal(mask, keep)
    np.testing.assert_array_equal(voiced_f0(analysis, windows), f0[keep])
    np.testing.assert_array_equal(voiced_frame_mask(analysis)[1], f0 > 0)


def _synthetic_talker(seed: int = 3):
    talker = draw_talker(np.random.default_rng(seed), "t")
    return talker, synthesize_talker(talker, 5.0, seed=seed)


def test_read_periods_lie_in_the_voiced_nuclei_and_follow_f0():
    talker, utt = _synthetic_talker()
    analysis = PraatAnalysis(utt.waveform, utt.sr)
    periods = read_periods(analysis)
    assert len(periods) > 0.8 * (analysis.n_periods - 1)
    lengths = np.array([b - a for a, b in periods])
    assert np.all((lengths >= 0.0001) & (lengths <= 0.02))
    assert np.median(1 / lengths) == pytest.approx(talker.f0_hz, rel=0.2)
    spans = [(a - 0.02, b + 0.02) for a, b in utt.nuclei]
    inside = [any(lo <= a and b <= hi for lo, hi in spans) for a, b in periods]
    assert np.mean(inside) > 0.98  # pulses are the vowel nuclei's glottal cycles
    assert read_periods(PraatAnalysis(np.zeros(SR), SR)) == []


def test_periodic_frames_are_the_frames_hnr_averages():
    x = np.concatenate([np.zeros(SR // 2), _tone(1.0), np.zeros(SR // 2)])
    x = x + 1e-4 * np.random.default_rng(0).normal(size=x.size)
    analysis = PraatAnalysis(x, SR)
    times, periodic = periodic_frame_mask(analysis)
    hnr = analysis.harmonicity_track[1]
    assert read_hnr(analysis).value == pytest.approx(hnr[periodic].mean(), rel=1e-9)
    assert periodic[(times > 0.6) & (times < 1.4)].all()
    assert not periodic[(times < 0.4) | (times > 1.6)].any()


@pytest.mark.parametrize("speech", ALL_SPEECH, ids=lambda s: s.name)
def test_real_speech_lands_in_adult_ranges(speech):
    x, sr = load_audio(speech.require())
    v = read_voice(x, sr)
    lo, hi = (75, 170) if speech.sex == "male" else (150, 300)
    assert lo <= v.f0_mean.value <= hi
    assert 0.1 <= v.jitter.value <= 5.0  # Praat's normal adult range is under ~1 %, read speech ~0.5–3 %
    assert 1.0 <= v.shimmer.value <= 20.0
    assert 3.0 <= v.hnr.value <= 30.0
    assert 2.0 <= v.f0_sd.value <= 80.0


def test_male_below_female_in_f0():
    males = [ARCTIC_MALE, *LIBRIVOX_MALE]
    females = [ARCTIC_FEMALE, AMFM_FEMALE]
    m = [read_voice(*load_audio(s.require())).f0_mean.value for s in males]
    f = [read_voice(*load_audio(s.require())).f0_mean.value for s in females]
    assert max(m) < min(f)


def _tone(dur_s, f0=150.0, amp=0.3):
    t = np.arange(int(dur_s * SR)) / SR
    return amp * np.sin(2 * np.pi * f0 * t)


def test_silence_is_undefined_with_reasons(tmp_path):
    path = tmp_path / "silence.wav"
    sf.write(path, np.zeros(SR * 2), SR)
    m = measure_file(path)
    assert not m.error
    for key in ALL_KEYS:
        if key == "duration":
            assert m.readings[key].value == pytest.approx(2.0)
            continue
        r = m.readings[key]
        assert not r.defined and r.reason, key
    assert "silent" in m.readings["srmr"].reason
    assert "no voiced frames" in m.readings["f0_mean"].reason
    assert not m.to_dict()["loudness"]["integrated_lufs"]["defined"]


def test_fifty_ms_clip_reads_or_explains(tmp_path):
    path = tmp_path / "short.wav"
    sf.write(path, _tone(0.05), SR)
    m = measure_file(path)
    assert m.readings["f0_mean"].value == pytest.approx(150.0, rel=0.01)  # two analysis frames fit
    assert not m.readings["srmr"].defined and "shorter than one 256-ms" in m.readings["srmr"].reason
    assert not m.readings["speaking_rate"].defined and "Praat could not" in m.readings["speaking_rate"].reason
    assert not m.to_dict()["loudness"]["integrated_lufs"]["defined"]
    for key, r in m.readings.items():
        assert r.defined or r.reason, key


def test_clipped_clip_is_read(tmp_path):
    path = tmp_path / "clipped.wav"
    sf.write(path, np.clip(4 * _tone(1.0), -1, 1), SR)
    m = measure_file(path)
    assert m.readings["f0_mean"].value == pytest.approx(150.0, rel=0.01)
    # clipping squares the wave off but keeps it periodic: tiny jitter, still a strong harmonic structure
    assert m.readings["jitter"].value < 0.1 and m.readings["hnr"].value > 30


def test_nan_clip_is_an_explained_failure(tmp_path):
    path = tmp_path / "nan.wav"
    x = _tone(1.0)
    x[100:200] = np.nan
    sf.write(path, x, SR, subtype="FLOAT")
    m = measure_file(path)
    assert "NaN or Inf" in m.error and str(path) in m.error
    assert all(not r.defined and "NaN or Inf" in r.reason for r in m.readings.values())


def test_stereo_44k1_file_reads_like_its_mono_16k_content(tmp_path):
    mono, sr = load_audio(ARCTIC_MALE.require())
    from scipy.signal import resample_poly

    x44 = resample_poly(mono, 441, 160)
    path = tmp_path / "stereo.wav"
    sf.write(path, np.stack([x44, x44], axis=1), 44100, subtype="FLOAT")
    stereo = measure_file(path)
    original = measure_file(ARCTIC_MALE.require())
    assert stereo.duration_s == pytest.approx(original.duration_s, abs=1e-3)
    assert stereo.readings["f0_mean"].value == pytest.approx(original.readings["f0_mean"].value, rel=0.01)
    assert stereo.readings["srmr"].value == pytest.approx(original.readings["srmr"].value, rel=0.05)
    assert stereo.readings["hnr"].value == pytest.approx(original.readings["hnr"].value, abs=0.5)
