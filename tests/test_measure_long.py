"""A long file is streamed in segments; its readings must agree with reading the file whole.

The file here is 45 s with 15-s segments (two boundaries, more boundary per second than the
60-s segments of a real long file), so both paths run in seconds. Tolerances, and why:
SNR, SRMR and duration are exact (state carried across segments); F0 pools the same pitch frames
but for those near a boundary (0.1 % / 1 %); jitter, shimmer and HNR are period- and frame-weighted
means of the segments (2 %, 1 %, 0.1 dB); a syllable nucleus or two is lost at each boundary
(speaking and articulation rate within 5 %); a pause can only be split or missed at a boundary
(±1 per boundary); loudness loses the three 400-ms blocks across each boundary (0.1 LU).
"""

import json

import numpy as np
import pytest
import soundfile as sf

import acousticlaim.instruments.long_file as long_file
import acousticlaim.instruments.measure as measure
from acousticlaim.audio import load_audio
from acousticlaim.cli import app
from benchmarks.measure_memory import write_speechlike

TOLERANCE = {  # key -> (relative, absolute)
    "snr": (1e-9, 0), "srmr": (1e-9, 0), "duration": (1e-12, 0),
    "f0_mean": (1e-3, 0), "f0_sd": (1e-2, 0), "jitter": (2e-2, 0), "shimmer": (1e-2, 0), "hnr": (0, 0.1),
    "speaking_rate": (5e-2, 0), "articulation_rate": (5e-2, 0), "pause_count": (0, 2), "pause_rate": (0, 2 * 60 / 45),
}


@pytest.fixture(scope="module")
def speech_45s(tmp_path_factory):
    return write_speechlike(tmp_path_factory.mktemp("long") / "speech_45s.wav", 45.0)


def test_streamed_readings_agree_with_the_whole_file(speech_45s, monkeypatch):
    monkeypatch.setattr(long_file, "SEGMENT_S", 15.0)
    monkeypatch.setattr(measure, "LONG_FILE_S", 30.0)
    streamed = measure.measure_file(speech_45s)
    assert streamed.notes and "15-s segments" in streamed.notes[0]
    x, sr = load_audio(speech_45s)
    whole = measure.measure_waveform(x, sr)
    for key, (rel, abs_) in TOLERANCE.items():
        got, want = streamed.readings[key], whole["readings"][key]
        assert want.defined and got.defined, key
        assert got.value == pytest.approx(want.value, rel=rel, abs=abs_), key
    assert not streamed.readings["overlap_ratio"].defined
    lufs = streamed.loudness["integrated_lufs"].value
    assert lufs == pytest.approx(whole["loudness"]["integrated_lufs"].value, abs=0.1)
    assert streamed.f0_contour["median_hz"] == pytest.approx(whole["f0_contour"]["median_hz"], rel=1e-2)


def test_a_bad_sample_in_a_long_file_names_its_time(tmp_path, monkeypatch):
    monkeypatch.setattr(long_file, "SEGMENT_S", 5.0)
    monkeypatch.setattr(measure, "LONG_FILE_S", 10.0)
    x = 0.1 * np.sin(2 * np.pi * 200 * np.arange(16000 * 12) / 16000)
    x[16000 * 7] = np.nan
    sf.write(tmp_path / "nan.wav", x, 16000, subtype="FLOAT")
    m = measure.measure_file(tmp_path / "nan.wav")
    assert "(at 5.0-10.0 s): 1 of 80000 samples are NaN or Inf" in m.error
    assert all(not r.defined and "NaN or Inf" in r.reason for r in m.readings.values())


def test_measure_cli_streams_a_long_file(speech_45s, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.setattr(long_file, "SEGMENT_S", 20.0)
    monkeypatch.setattr(measure, "LONG_FILE_S", 30.0)
    result = CliRunner().invoke(app, ["measure", str(speech_45s)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["duration_s"] == pytest.approx(45.0) and "streamed" in out["notes"][0]
    assert out["readings"]["srmr"]["defined"] and out["readings"]["f0_mean"]["value"] == pytest.approx(140, abs=5)
