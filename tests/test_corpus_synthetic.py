"""The synthetic talker says what it was asked: F0 register, syllable rate, pauses."""

import dataclasses

import numpy as np
import parselmouth
import pytest
from parselmouth.praat import call
from scipy.signal import find_peaks
from scipy.stats import spearmanr

from acousticlaim.corpus.build import room_bank
from acousticlaim.corpus.rooms import RoomSpec, simulate_room
from acousticlaim.corpus.synthetic import (TalkerParams, TalkerRanges, draw_talker, draw_talkers, draw_utterance_duration,
                                           synthesize_talker)
from acousticlaim.params import UnknownParameters

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


def test_a_panel_covers_every_range_evenly_with_the_exact_female_share():
    ranges = TalkerRanges()
    panel = draw_talkers(np.random.default_rng(0), [str(i) for i in range(20)], ranges)
    assert sum(p.sex == "female" for p in panel) == 10
    for name in ("jitter_pct", "shimmer_pct", "f0_range_st", "articulation_rate", "pauses_per_min"):
        lo, hi = getattr(ranges, name)
        strata = np.floor((np.array([getattr(p, name) for p in panel]) - lo) / (hi - lo) * 20).clip(0, 19)
        assert sorted(strata) == list(range(20)), name  # one talker in each twentieth of the range
    breath = np.log([p.breathiness for p in panel])
    lo, hi = np.log(ranges.breathiness)
    assert sorted(np.floor((breath - lo) / (hi - lo) * 20).clip(0, 19)) == list(range(20))
    # one voice-quality factor: jitter, shimmer and breathiness rise together
    jitter, shimmer = [p.jitter_pct for p in panel], [p.shimmer_pct for p in panel]
    assert spearmanr(jitter, shimmer)[0] > 0 and spearmanr(shimmer, breath)[0] > 0


def test_same_seed_same_panel():
    ids = [str(i) for i in range(5)]
    assert draw_talkers(np.random.default_rng(4), ids) == draw_talkers(np.random.default_rng(4), ids)
    assert draw_talkers(np.random.default_rng(4), ids) != draw_talkers(np.random.default_rng(5), ids)


def test_talker_ranges_from_params_and_their_errors():
    assert TalkerRanges.from_params(None) == TalkerRanges()
    assert TalkerRanges.from_params({"jitter_pct": [1, 2]}).jitter_pct == (1.0, 2.0)
    with pytest.raises(UnknownParameters, match="corpus.talkers: unknown parameter"):
        TalkerRanges.from_params({"jiter_pct": [1, 2]})
    with pytest.raises(ValueError, match="corpus.talkers.shimmer_pct: need 0 <= lo <= hi"):
        TalkerRanges.from_params({"shimmer_pct": [9, 3]})
    with pytest.raises(ValueError, match="corpus.talkers.f0_male_hz: expected a list of 2 numbers"):
        TalkerRanges.from_params({"f0_male_hz": 120})


def test_pause_count_follows_the_talkers_rate_over_the_utterance():
    p = dataclasses.replace(BASE, pauses_per_min=20.0)
    counts = [len(synthesize_talker(p, 9.0, seed=s).pauses) for s in range(12)]
    assert set(counts) <= {2, 3, 4} and 2.5 <= np.mean(counts) <= 3.5  # 20/min over 9 s asks 3


def test_utterance_lengths_are_librispeech_like():
    rng = np.random.default_rng(1)
    lengths = np.array([draw_utterance_duration(rng) for _ in range(400)])
    assert lengths.min() >= 2.5 and lengths.max() <= 20.0
    assert 5.0 < np.median(lengths) < 7.0


def test_simulated_talkers_sit_at_the_asked_distance_from_the_microphone(tmp_path):
    rows = simulate_room(RoomSpec("r", 1, 0.2, (0.3, 0.5)), tmp_path)
    for row in rows:
        assert 0.3 <= row["mic_distance_m"] <= np.hypot(0.5, 0.2) + 1e-9


def test_the_room_bank_places_talkers_at_corpus_mic_distance_m(tmp_path):
    cfg = {"rir_dir": None, "n_rooms": 2, "rt60_s": [0.15, 0.2], "seed": 3, "mic_distance_m": [1.5, 1.7]}
    rows = room_bank(cfg, tmp_path, {"kind": "local", "workers": 1})
    assert len(rows) == 4
    assert all(1.5 <= row["mic_distance_m"] <= np.hypot(1.7, 0.2) + 1e-9 for row in rows)
