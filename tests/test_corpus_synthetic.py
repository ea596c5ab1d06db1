"""The synthetic talker says what it was asked: F0 register, syllable rate, pauses."""

import dataclasses

import numpy as np
import parselmouth
import pytest
from parselmouth.praat import call
from scipy.signal import find_peaks
from scipy.stats import spearmanr

from acousticlaim.corpus.synthetic import TalkerParams, draw_talker, synthesize_talker

BASE = TalkerParams("x", "male", 120.0, 1.5, 1.0, 4.0, 0.1, 4.5, 12.0, 1.0)


def praat_f0_mean(x):
    pitch = call(parselmouth.Sound(x, 16000), "To Pitch (ac)", 0, 75, 15, "no", 0.03, 0.45, 0.01, 0.35, 0.14, 500)
    return call(pitch, "Get mean", 0, 0, "Hertz")


def intensity_peaks(x):
    db = parselmouth.Sound(x, 16000).to_intensity(minimum_pitch=100).values[0]
    peaks, _ = find_peaks(db, prominence=3, height=db.max() - 25)
    return len(peaks)


def test_f0_register_is_what_was_asked():
    rng = np.random.default_rng(11)
    asked, measured = [], []
    for i in range(12):
        p = draw_talker(rng, str(i))
        asked.append(p.f0_hz)
        measured.append(praat_f0_mean(synthesize_talker(p, 5.0, seed=i).waveform))
    asked, measured = np.array(asked), np.array(measured)
    assert np.median(np.abs(measured / asked - 1)) < 0.05
    assert spearmanr(asked, measured)[0] > 0.9


@pytest.mark.parametrize("rate", [3.0, 4.5, 6.0])
def test_syllable_rate_is_what_was_asked(rate):
    p = dataclasses.replace(BASE, articulation_rate=rate)
    u = synthesize_talker(p, 8.0, seed=3)
    phonation = sum(e - s for s, e in u.sounding)
    assert len(u.nuclei) / phonation == pytest.approx(rate, rel=0.1)
    # every nucleus is an intensity peak a syllable counter can find, and nothing else is
    assert intensity_peaks(u.waveform) == len(u.nuclei)


@pytest.mark.parametrize("pauses", [1, 3, 5])
def test_pauses_are_silent_and_long_enough(pauses):
    # a rate of 6·pauses per minute over 10 s asks exactly `pauses` pauses (no rounding left to chance)
    u = synthesize_talker(dataclasses.replace(BASE, pauses_per_min=6.0 * pauses), 10.0, seed=pauses)
    assert len(u.pauses) == pauses
    for a, b in u.pauses:
        assert b - a >= 0.35
        seg = u.waveform[int(a * 16000) + 10 : int(b * 16000) - 10]
        assert np.max(np.abs(seg)) == 0.0
    assert u.timing_until(u.duration)["pause_count"] == pauses


def test_truncation_drops_pauses_and_syllables_after_the_cut():
    u = synthesize_talker(dataclasses.replace(BASE, pauses_per_min=24.0), 10.0, seed=1)
    # cut just before the second pause: the first pause is followed by speech and counts
    realised = u.timing_until(u.pauses[1][0] - 0.01)
    assert realised["pause_count"] == 1
    assert realised["n_syllables"] < len(u.nuclei)
    # cut inside the first pause: it is trailing silence, not a pause
    assert u.timing_until(0.5 * (u.pauses[0][0] + u.pauses[0][1]))["pause_count"] == 0


def test_same_seed_same_waveform_other_seed_other_waveform():
    a = synthesize_talker(BASE, 3.0, seed=5).waveform
    b = synthesize_talker(BASE, 3.0, seed=5).waveform
    c = synthesize_talker(BASE, 3.0, seed=6).waveform
    assert np.array_equal(a, b) and not np.array_equal(a, c)
