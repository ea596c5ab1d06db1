"""Phrasing, the estimator suite (with a measure function the test provides) and the constant predictor."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from acousticlaim.claims.prompts import RUNGS, get_rung
from acousticlaim.panel.local_systems import ConstantPredictor, EstimatorSuite, training_intervals, training_medians
from acousticlaim.panel.phrasing import phrase, phrase_intervals
from acousticlaim.panel.protocol import GenerationRequest

VALUES = {"snr": 12.345, "srmr": 6.8, "f0_mean": 138.24, "f0_sd": 21.5, "speaking_rate": 3.9, "pause_count": 5,
          "pause_rate": 18.7, "jitter": 1.3, "shimmer": 4.6, "hnr": 14.25}


def test_template_rungs_fill_the_exact_wording():
    expected = ("The SNR is 12.3 dB. The SRMR is 6.80. The F0 mean is 138.2 Hz. The F0 SD is 21.5 Hz. "
                "The speaking rate is 3.90 syllables per second. The recording contains 5 pauses. "
                "The pause rate is 18.7 per minute. The jitter is 1.30 percent. The shimmer is 4.60 percent. "
                "The HNR is 14.2 dB.")
    assert phrase(VALUES, "P3_template") == expected
    assert phrase(VALUES, "P4_fewshot") == expected
    # the template's own wording, blank for blank
    assert get_rung("P3_template").text.split("wording. ")[1].replace("___", "{}").count("{}") == 10


def test_each_rung_states_every_value_and_undefined_values_state_nothing():
    values = dict(VALUES, jitter=float("nan"), hnr=None)
    for rung in (r for r in RUNGS if r.released):  # the quantity rungs; P5_intervals asks in time
        text = phrase(values, rung.id)
        for number in ("12.3", "6.80", "138.2", "21.5", "3.90", "18.7", "4.60"):
            assert number in text, (rung.id, number)
        assert "nan" not in text.lower() and "none" not in text.lower()
        assert "could not be measured" in text or "Not measurable" in text
        assert "jitter" in text.lower() and "1.30" not in text and "14.2" not in text
    assert ("The jitter could not be measured. The shimmer is 4.60 percent. The HNR could not be measured."
            in phrase(values, "P3_template"))
    assert phrase(VALUES, "P2_named").startswith("For this recording, the signal-to-noise ratio is 12.3 dB; "
                                                 "the speech-to-reverberation modulation energy ratio is 6.80;")
    assert phrase(VALUES, "P1_numeric").startswith("Recording quality in numbers: signal-to-noise ratio 12.3 dB;")
    with pytest.raises(KeyError, match="unknown quantity"):
        phrase({"loudness": 3.0}, "P0_free")


def request(clip, audio, rung="P0_free", seed=0):
    return GenerationRequest(clip, audio, get_rung(rung), seed)


def test_estimator_states_what_the_measure_function_reads_on_the_heard_signal():
    calls = []

    def measure(x, sr):
        calls.append(x.copy())
        return {"snr": float(20 * np.log10(np.max(np.abs(x)) * 100)), "srmr": 4.2, "f0_sd": float("nan")}

    sine = 0.5 * np.sin(np.linspace(0, 200, 16000))
    est = EstimatorSuite(measure, batch_size=4)
    res = est.generate([request("a", sine, "P3_template"), request("a", sine, "P0_free", seed=3),
                        request("b", sine * 0.1, "P3_template")])
    assert res[0].text.startswith("The SNR is 34.0 dB. The SRMR is 4.20. The F0 mean could not be measured.")
    assert "The SNR is 14.0 dB." in res[2].text  # 20·log10(0.05·100)
    assert "signal-to-noise ratio of about 34.0 dB" in res[1].text
    assert len(calls) == 2  # measured once per clip, whatever the rung or seed
    np.testing.assert_array_equal(calls[0], sine)  # the waveform as heard
    assert all((r.n_tokens, r.truncated, r.finish_reason) == (None, False, "stop") for r in res)


def test_estimator_refuses_unknown_quantities():
    est = EstimatorSuite(lambda x, sr: {"loudness_lufs": -23.0})
    with pytest.raises(ValueError, match="unknown quantity key"):
        est.generate([request("a", np.ones(100) * 0.1)])


def test_constant_predictor_states_training_medians():
    manifest = pd.DataFrame({
        "clip_id": ["tr1", "tr2", "tr3", "tr4", "tr1_s1clean", "te1"],
        "split": ["train"] * 5 + ["test"],
        "kind": ["mixture"] * 4 + ["twin", "mixture"],
    })
    rows = []
    snr = {"tr1": 1.0, "tr2": 3.0, "tr3": 10.0, "tr4": 20.0, "tr1_s1clean": 100.0, "te1": -50.0}
    pauses = {"tr1": 1, "tr2": 2, "tr3": 3, "tr4": 6, "tr1_s1clean": 9, "te1": 9}
    for clip in manifest.clip_id:
        rows.append({"clip_id": clip, "quantity": "snr", "value": snr[clip], "defined": True})
        rows.append({"clip_id": clip, "quantity": "pause_count", "value": float(pauses[clip]), "defined": True})
        rows.append({"clip_id": clip, "quantity": "jitter", "value": float("nan"), "defined": False})
    rows.append({"clip_id": "tr4", "quantity": "hnr", "value": 99.0, "defined": False})  # undefined: ignored
    medians = training_medians(pd.DataFrame(rows), manifest)
    assert medians["snr"] == 6.5  # median of train mixtures only (no twin, no test clip)
    assert medians["pause_count"] == 2.0  # the lower median: an integer
    assert math.isnan(medians["jitter"]) and math.isnan(medians["hnr"]) and math.isnan(medians["srmr"])
    const = ConstantPredictor(medians)
    [a, b] = const.generate([request("x", np.ones(10) * 0.1, "P3_template"), request("y", np.ones(10), "P3_template")])
    assert a.text == b.text
    assert a.text.startswith("The SNR is 6.5 dB. The SRMR could not be measured.")
    assert "The recording contains 2 pauses." in a.text


def test_training_medians_needs_training_clips():
    manifest = pd.DataFrame({"clip_id": ["a"], "split": ["test"], "kind": ["mixture"]})
    refs = pd.DataFrame({"clip_id": ["a"], "quantity": ["snr"], "value": [1.0], "defined": [True]})
    with pytest.raises(ValueError, match="no 'train' clips"):
        training_medians(refs, manifest)


def test_the_interval_rung_states_one_line_per_interval_by_event_type():
    text = phrase_intervals({"overlap": [(1.224, 2.3)], "pause": [], "noise": None})
    assert text.splitlines() == ["Overlap from 1.22 to 2.30 s.", "No pauses.", "Non-speech noise could not be located."]
    with pytest.raises(KeyError, match="unknown event type"):
        phrase_intervals({"laughter": [(0.0, 1.0)]})


def test_estimator_answers_the_interval_rung_with_its_locate_function_once_per_clip():
    located = []

    def locate(x, sr):
        located.append(sr)
        return {"overlap": [(0.5, 1.5)], "pause": [(2.0, 2.4)], "noise": []}

    est = EstimatorSuite(lambda x, sr: {"snr": 10.0}, locate=locate)
    sine = 0.5 * np.sin(np.linspace(0, 200, 16000))
    [a, b, c] = est.generate([request("a", sine, "P5_intervals"), request("a", sine, "P5_intervals", seed=2),
                              request("a", sine, "P3_template")])
    assert a.text == b.text == "Overlap from 0.50 to 1.50 s.\nPause from 2.00 to 2.40 s.\nNo non-speech noise."
    assert c.text.startswith("The SNR is 10.0 dB.") and located == [16000]
    assert EstimatorSuite(lambda x, sr: {}).generate([request("a", sine, "P5_intervals")])[0].text.count("could not be located") == 3


def test_constant_predictor_states_the_training_splits_typical_intervals():
    manifest = pd.DataFrame({"clip_id": ["tr1", "tr2", "tr3", "te1"], "split": ["train"] * 3 + ["test"],
                             "kind": ["mixture"] * 4})
    # pauses: tr1 has 1, tr2 has 2, tr3 has 3 -> the lower median is 2 intervals, each the median of its rank
    starts = {"tr1": [1.0], "tr2": [2.0, 5.0], "tr3": [3.0, 7.0, 9.0], "te1": [0.0, 0.1, 0.2, 0.3]}
    intervals = pd.DataFrame([{"clip_id": c, "event": "pause", "start_s": s, "end_s": s + 0.5}
                              for c, ss in starts.items() for s in ss])
    lists = pd.DataFrame([{"clip_id": c, "event": e, "defined": e != "overlap", "n": len(starts[c]) if e == "pause" else 0}
                          for c in starts for e in ("overlap", "pause", "noise")])
    typical = training_intervals(intervals, lists, manifest)
    assert typical == {"overlap": None, "pause": [(2.0, 2.5), (6.0, 6.5)], "noise": []}
    const = ConstantPredictor({"snr": 5.0}, intervals=typical)
    [a, b] = const.generate([request("x", np.ones(10) * 0.1, "P5_intervals"), request("y", np.ones(10), "P5_intervals")])
    assert a.text == b.text == ("Overlapped speech could not be located.\nPause from 2.00 to 2.50 s.\n"
                                "Pause from 6.00 to 6.50 s.\nNo non-speech noise.")
