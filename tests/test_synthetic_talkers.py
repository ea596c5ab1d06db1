"""The instruments track the generative parameters of synthetic talkers (acousticlaim.corpus.synthetic)."""

import dataclasses

import numpy as np
import pytest
from scipy.signal import fftconvolve
from scipy.stats import spearmanr

from acousticlaim.corpus.rooms import RoomSpec, load_rir, simulate_room
from acousticlaim.corpus.synthetic import draw_talker, draw_talkers, synthesize_talker
from acousticlaim.instruments.praat import read_voice
from acousticlaim.instruments.srmr import srmr
from acousticlaim.instruments.timing import read_timing

SR = 16000
N_TALKERS = 32
DURATION_S = 7.0
# each voice reading against its generative parameter (sign: breathiness lowers HNR)
VOICE = [("jitter_pct", "jitter", 1), ("shimmer_pct", "shimmer", 1), ("breathiness", "hnr", -1)]


@pytest.fixture(scope="module")
def panel():
    """A panel of talkers drawn as the corpus draws a split's (the default ``corpus.talkers`` ranges)."""
    return draw_talkers(np.random.default_rng(2024), [f"t{i}" for i in range(N_TALKERS)])


@pytest.fixture(scope="module")
def talkers(panel):
    rows = []
    for i, p in enumerate(panel):
        utt = synthesize_talker(p, DURATION_S, seed=1000 + i)
        realised = utt.timing_until(DURATION_S)
        voice = read_voice(utt.waveform, SR)
        timing = read_timing(utt.waveform, SR)
        rows.append({
            "asked_f0": p.f0_hz, "f0_mean": voice.f0_mean.value,
            "asked_jitter": p.jitter_pct, "jitter": voice.jitter.value,
            "jitter_pct": p.jitter_pct, "shimmer_pct": p.shimmer_pct, "breathiness": p.breathiness,
            "shimmer": voice.shimmer.value, "hnr": voice.hnr.value,
            "asked_rate": realised["speaking_rate"], "speaking_rate": timing.speaking_rate.value,
            "asked_pauses": realised["pause_count"], "pause_count": timing.pause_count.value,
            "asked_articulation": p.articulation_rate, "articulation_rate": timing.articulation_rate.value,
        })
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


@pytest.mark.parametrize("asked, measured", [
    ("asked_f0", "f0_mean"),
    ("asked_rate", "speaking_rate"),
    ("asked_pauses", "pause_count"),
    ("asked_articulation", "articulation_rate"),
])
def test_readings_rank_the_talkers_as_asked(talkers, asked, measured):
    assert np.isfinite(talkers[measured]).all()
    assert len(np.unique(talkers[asked])) >= 4  # the talkers really differ
    assert spearmanr(talkers[asked], talkers[measured])[0] >= 0.9


@pytest.mark.parametrize("param, reading, sign", VOICE)
def test_voice_readings_rank_the_talkers_by_their_own_parameter_on_the_dry_source(talkers, param, reading, sign):
    # F0, intonation and rate vary independently across the talkers, jitter, shimmer and breathiness on
    # one voice-quality factor (pairwise 0.4), and each Praat reading ranks them by its own parameter
    # (the synthesiser's docstring: why it does, and the figures with independent draws)
    assert np.isfinite(talkers[reading]).all()
    assert sign * spearmanr(talkers[param], talkers[reading])[0] >= 0.9


@pytest.fixture(scope="module")
def mild_room(tmp_path_factory):
    """A small simulated room (measured RT60 ~0.15 s), talkers 0.3-0.5 m from the microphone."""
    rows = simulate_room(RoomSpec("mild", 5, 0.12, (0.3, 0.5)), tmp_path_factory.mktemp("rirs"))
    return rows[0]


@pytest.fixture(scope="module")
def in_mild_room(panel, mild_room):
    """The dry fixture's utterances through the mild room."""
    h = load_rir(mild_room["path"])
    waves = []
    for i, p in enumerate(panel):
        x = synthesize_talker(p, DURATION_S, seed=1000 + i).waveform
        waves.append(fftconvolve(x, h)[: x.size])
    return waves


def test_a_mild_room_keeps_the_voice_rankings(talkers, mild_room, in_mild_room):
    readings = {key: [] for _, key, _ in VOICE}
    for y in in_mild_room:
        voice = read_voice(y, SR)
        for _, key, _ in VOICE:
            readings[key].append(getattr(voice, key).value)
    assert 0.08 < mild_room["rt60"] < 0.25
    rho = {key: sign * spearmanr(talkers[param], readings[key])[0] for param, key, sign in VOICE}
    assert min(rho.values()) >= 0.8, rho


# SRMR of the released LibriMix clean twins (../shared/data/release/references/librimix_test.csv, the 3,000
# `_s1clean` rows): the median over all, and over the twins whose F0 mean reads 160 Hz or more
RELEASED_SRMR_MEDIAN = 3.868
RELEASED_SRMR_MEDIAN_HIGH_VOICES = 4.247


def test_srmr_reads_like_the_released_twins(panel, in_mild_room):
    # With a steady quiet hiss for each consonant instead of a stop (closure, then a release burst), the
    # syllables were a clean on/off envelope in the channels that carry the energy, and only a low voice's F0
    # reached SRMR's upper modulation bands: on this panel the median read 5.76 and the high voices' 7.22
    # (the synthesiser's docstring, "Why SRMR read high"). Within 15 % of the released medians, as
    # benchmarks/corpus_vs_release.py asks of the corpus.
    values = np.array([srmr(y, SR).value for y in in_mild_room])
    high = np.array([p.f0_hz >= 160 for p in panel])
    assert np.isfinite(values).all() and 8 <= high.sum() <= len(panel) - 8
    assert abs(np.median(values) / RELEASED_SRMR_MEDIAN - 1) <= 0.15, np.median(values)
    assert abs(np.median(values[high]) / RELEASED_SRMR_MEDIAN_HIGH_VOICES - 1) <= 0.15, np.median(values[high])


def test_f0_and_pauses_are_read_close_to_the_asked_values(talkers):
    assert np.median(np.abs(talkers["f0_mean"] / talkers["asked_f0"] - 1)) < 0.05
    assert np.mean(talkers["pause_count"] == talkers["asked_pauses"]) >= 0.8


@pytest.fixture(scope="module")
def base_talker():
    p = draw_talker(np.random.default_rng(3), "base")
    return dataclasses.replace(p, jitter_pct=1.0, shimmer_pct=4.0, breathiness=0.1)


@pytest.mark.parametrize("field, values, reading, direction", [
    ("jitter_pct", [0.4, 0.8, 1.2, 1.6, 2.0, 2.5, 3.0, 3.5], "jitter", 1),
    ("shimmer_pct", [1, 2, 3, 4, 5, 6, 8, 10], "shimmer", 1),
    ("breathiness", [0.04, 0.07, 0.1, 0.15, 0.2, 0.3, 0.45], "hnr", -1),
])
def test_one_parameter_swept_moves_its_reading_monotonically(base_talker, field, values, reading, direction):
    measured = []
    for v in values:
        utt = synthesize_talker(dataclasses.replace(base_talker, **{field: v}), 4.0, seed=7)
        measured.append(getattr(read_voice(utt.waveform, SR), reading).value)
    steps = np.diff(measured) * direction
    assert (steps > 0).all(), f"{field} -> {reading}: {np.round(measured, 3)}"
