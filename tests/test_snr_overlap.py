"""SNR references and Silero overlap windows on signals with known answers."""

import numpy as np
import pytest

from acousticlaim.audio import load_audio
from acousticlaim.instruments.overlap import intersect_segments, overlap_windows, speech_segments
from acousticlaim.instruments.snr import dynamic_range_snr, frame_energies, mixing_snr
from tests.speech_files import ARCTIC_MALE, LIBRIVOX_MALE

SR = 16000


def test_mixing_snr_is_summed_speech_power_over_noise_power():
    rng = np.random.default_rng(0)
    s1, s2 = rng.normal(0, 0.1, SR), rng.normal(0, 0.05, SR)
    noise = rng.normal(0, 1.0, SR)
    speech = s1 + s2
    noise *= np.sqrt(np.mean(speech**2) / np.mean(noise**2)) / 10 ** (12.5 / 20)  # exactly 12.5 dB below
    assert mixing_snr([s1, s2], noise).value == pytest.approx(12.5, abs=1e-9)


def test_mixing_snr_undefined_cases():
    x = np.ones(100)
    assert "silent" in mixing_snr([x, x], np.zeros(100)).reason
    assert "different lengths" in mixing_snr([x, x[:50]], x).reason


def test_dynamic_range_is_the_90_over_10_percentile_frame_energy():
    # half the frames at amplitude 0.5, half at 0.005 (a ±A square wave: every 25-ms frame sums to 400·A²)
    loud = 0.5 * np.where(np.arange(SR) % 2, 1.0, -1.0)
    quiet = 0.005 * np.where(np.arange(SR) % 2, 1.0, -1.0)
    x = np.concatenate([loud, quiet])
    energy = frame_energies(x, SR)
    assert energy.size == 1 + (x.size - 400) // 160
    assert energy.max() == pytest.approx(400 * 0.25)
    assert dynamic_range_snr(x, SR).value == pytest.approx(20 * np.log10(0.5 / 0.005), abs=1e-9)


def test_dynamic_range_undefined_cases():
    assert "10th-percentile frame is digital silence" in dynamic_range_snr(np.concatenate([np.zeros(SR), 0.1 * np.ones(SR)]), SR).reason
    assert "signal is silent" in dynamic_range_snr(np.concatenate([np.zeros(SR), 0.1 * np.ones(SR // 20)]), SR).reason
    assert "shorter than one 25-ms frame" in dynamic_range_snr(np.ones(100), SR).reason


def test_intersections_keep_only_those_of_at_least_0_1_s():
    a = [(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)]
    b = [(0.95, 2.05), (2.5, 4.08)]
    assert intersect_segments(a, b) == [(2.5, 3.0)]  # 0.05 s, 0.05 s and 0.08 s overlaps are dropped
    assert intersect_segments(a, b, min_duration_s=0.05) == [(0.95, 1.0), (2.0, 2.05), (2.5, 3.0), (4.0, 4.08)]
    assert intersect_segments([], b) == []


def test_vad_windows_on_real_speech_placed_at_known_times():
    a, _ = load_audio(LIBRIVOX_MALE[0].require())  # 7.1 s of speech
    b, _ = load_audio(ARCTIC_MALE.require())  # 4.0 s
    n = 10 * SR
    s1 = np.zeros(n)
    s1[: a.size] = a
    s2 = np.zeros(n)
    s2[5 * SR : 5 * SR + b.size] = b  # from 5 s to 9 s
    result = overlap_windows(s1, s2, SR)
    assert result.s1_speech[0][0] < 0.5 and result.s1_speech[-1][1] == pytest.approx(7.0, abs=0.3)
    assert result.s2_speech[0][0] == pytest.approx(5.2, abs=0.35)
    assert len(result.windows) >= 1
    start, end = result.windows[0][0], result.windows[-1][1]
    assert start >= result.s2_speech[0][0] and end <= result.s1_speech[-1][1]
    assert 0.1 < result.fraction < 0.2  # about 1.5-1.8 s of the 10 s
    mask = result.mask(n, SR)
    assert not mask[int(6.0 * SR)] and mask[int(2.0 * SR)] and mask[int(9.5 * SR)]


def test_vad_on_silence_and_one_talker():
    assert speech_segments(np.zeros(SR), SR) == []
    a, _ = load_audio(ARCTIC_MALE.require())
    assert overlap_windows(a, np.zeros_like(a), SR).windows == []
    with pytest.raises(ValueError, match="16-kHz"):
        speech_segments(a, 8000)
