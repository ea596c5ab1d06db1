"""`acousticlaim measure` and `acousticlaim check` on real speech."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from acousticlaim.cli import app
from acousticlaim.instruments.check import check_claims
from acousticlaim.instruments.measure import measure_file
from acousticlaim.quantities import ALL_KEYS, SCORED_KEYS
from tests.speech_files import ARCTIC_MALE

runner = CliRunner()


def test_measure_json_has_the_ten_readings_loudness_and_contour():
    path = ARCTIC_MALE.require()
    result = runner.invoke(app, ["measure", str(path)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out["readings"]) == set(ALL_KEYS)
    assert sum(r["scored"] for r in out["readings"].values()) == len(SCORED_KEYS) == 10
    direct = measure_file(path)
    for key in SCORED_KEYS:
        assert out["readings"][key]["value"] == pytest.approx(direct.readings[key].value)
        assert out["readings"][key]["unit"]
    assert "dynamic range" in out["readings"]["snr"]["definition"]
    assert out["readings"]["duration"]["value"] == pytest.approx(4.0)
    assert -40 < out["loudness"]["integrated_lufs"]["value"] < -10
    assert len(out["loudness"]["contour_lufs"]) == 10
    contour = out["f0_contour"]
    assert 75 < contour["p10_hz"] <= contour["median_hz"] <= contour["p90_hz"] < 200
    assert 0.2 < contour["voiced_fraction"] < 0.9 and len(contour["contour_hz"]) == 10


def test_measure_table_and_several_files(tmp_path):
    path = ARCTIC_MALE.require()
    result = runner.invoke(app, ["measure", str(path), str(path), "--format", "table"])
    assert result.exit_code == 0, result.output
    assert result.output.count("f0_mean") == 2 and "LUFS" in result.output


def test_measure_bad_file_reports_and_exits_nonzero(tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"nope")
    result = runner.invoke(app, ["measure", str(bad)])
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert "cannot be decoded" in out["error"]
    assert all(not r["defined"] and "cannot be decoded" in r["reason"] for r in out["readings"].values())


def test_check_compares_each_claim_with_its_reading():
    m = measure_file(ARCTIC_MALE.require())
    text = "Pitch around 120 Hz, jitter 1.5%, shimmer 0.9 dB, 2 pauses, overlap 40%."
    claims = [
        SimpleNamespace(quantity="f0_mean", value=120.0, unit_text="Hz", start=13, end=19),
        SimpleNamespace(quantity="jitter", value=1.5, unit_text="%"),
        SimpleNamespace(quantity="shimmer", value=0.9, unit_text="dB"),
        SimpleNamespace(quantity="pause_count", value=2.0, unit_text=""),
        SimpleNamespace(quantity="overlap_ratio", value=0.4, unit_text="%"),
    ]
    checks = {c.quantity: c for c in check_claims(m, claims, text)}
    f0 = checks["f0_mean"]
    assert f0.error == pytest.approx(120.0 - m.readings["f0_mean"].value)
    assert f0.relative_error == pytest.approx(f0.error / m.readings["f0_mean"].value)
    assert f0.claim_text == "120 Hz"
    assert checks["jitter"].error == pytest.approx(1.5 - m.readings["jitter"].value)
    assert math.isnan(checks["shimmer"].error) and "dB" in checks["shimmer"].note
    assert checks["pause_count"].error == pytest.approx(2.0 - m.readings["pause_count"].value)
    assert math.isnan(checks["overlap_ratio"].error) and "stems" in checks["overlap_ratio"].note


def test_check_command_with_the_real_parser():
    path = ARCTIC_MALE.require()
    result = runner.invoke(app, ["check", str(path), "The mean pitch is about 180 Hz and jitter 1.2%.", "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    by_q = {c["quantity"]: c for c in out["claims"]}
    assert by_q["f0_mean"]["stated"] == pytest.approx(180.0)
    assert by_q["jitter"]["stated"] == pytest.approx(1.2)
    measured = measure_file(path).readings
    assert by_q["f0_mean"]["error"] == pytest.approx(180.0 - measured["f0_mean"].value)
