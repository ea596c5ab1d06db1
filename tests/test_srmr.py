"""SRMR against SRMRpy's published values (``../shared/data/srmr_golden``), both modes."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import soundfile as sf

from acousticlaim.instruments.srmr import (
    SRMRParams,
    fft_gammatonegram,
    lower_cutoffs,
    modulation_centre_frequencies,
    srmr,
    srmr_details,
)
from tests.shared_data import missing_reason, require_shared_data, shared_data_path
from tests.speech_files import golden_path

GOLDEN_DIR = shared_data_path("srmr_golden")


def _golden_rows():
    if GOLDEN_DIR is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=missing_reason("srmr_golden")))]
    frame = pd.read_csv(GOLDEN_DIR / "srmr_golden.csv")
    return [pytest.param(r, id=f"{Path(r.file).name}-fast={r.fast}") for r in frame.itertuples(index=False)]


@pytest.mark.parametrize("row", _golden_rows())
def test_matches_srmrpy(row):
    path = golden_path(row.file, GOLDEN_DIR).require()
    x, fs = sf.read(path, dtype="float64")  # as SRMRpy's values were made: no resampling, no normalisation
    assert fs == row.fs and x.size == row.n_samples
    value = srmr(x, fs, fast=bool(row.fast), norm=bool(row.norm))
    assert value.value == pytest.approx(row.srmr, rel=1e-6)


def test_in_folder_reverberant_files_are_all_present_and_fall_with_rt60():
    values = []
    for rt60 in ("0.3", "0.6", "0.9"):
        x, fs = sf.read(require_shared_data("srmr_golden", f"arctic_a0007_rt60_{rt60}.wav"), dtype="float64")
        values.append(srmr(x, fs).value)
    assert values[0] > values[1] > values[2]


def test_band_layout_is_srmrpys():
    cfs = modulation_centre_frequencies()
    assert cfs == pytest.approx([4, 6.563, 10.767, 17.665, 28.983, 47.552, 78.017, 128], abs=1e-3)
    assert lower_cutoffs(cfs, 16000) == pytest.approx([3.0, 4.92, 8.07, 13.25, 21.74, 35.66, 58.51, 95.99], abs=0.01)


def test_gammatonegram_equals_the_gammatone_package():
    from gammatone.fftweight import fft_gtgram

    x = np.random.default_rng(0).normal(0, 0.1, 16000 + 321)
    assert np.allclose(fft_gammatonegram(x, 16000, 23, 125.0), fft_gtgram(x, 16000, 0.010, 0.0025, 23, 125.0), rtol=1e-10, atol=1e-14)
    # a length where the package's frame loop stops one column short: that column stays zero in both
    y = np.random.default_rng(1).normal(0, 0.1, 512 + 40 * 100)
    assert np.allclose(fft_gammatonegram(y, 16000, 23, 125.0), fft_gtgram(y, 16000, 0.010, 0.0025, 23, 125.0), rtol=1e-10, atol=1e-14)


def test_scale_invariant_and_norm_mode_bounded():
    x, fs = sf.read(require_shared_data("srmr_golden", "arctic_a0007_rt60_0.3.wav"), dtype="float64")
    assert srmr(0.1 * x, fs).value == pytest.approx(srmr(x, fs).value, rel=1e-9)
    reading, avg, kstar = srmr_details(x, fs, SRMRParams(norm=True))
    assert reading.defined and 5 <= kstar <= 8 and avg.shape == (23, 8)


def test_unmeasurable_inputs_are_explained():
    short = srmr(np.random.default_rng(0).normal(0, 0.1, 2000), 16000)
    assert not short.defined and "shorter than one 256-ms modulation frame" in short.reason
    silent = srmr(np.zeros(16000), 16000)
    assert not silent.defined and "silent" in silent.reason


def test_blocks_give_the_reading_of_the_whole_clip(monkeypatch):
    """Fast mode runs in blocks of envelope columns; the block size must not change the value."""
    import acousticlaim.instruments.srmr as srmr_module

    x, fs = sf.read(GOLDEN_DIR / "arctic_a0007_rt60_0.6.wav", dtype="float64")
    x = np.concatenate([x, x[::-1], x])  # ~3x the file, so many blocks at the small sizes
    whole = {}
    for norm in (False, True):
        monkeypatch.setattr(srmr_module, "BLOCK_COLUMNS", 10**9)
        whole[norm] = srmr_details(x, fs, SRMRParams(norm=norm))
        for block in (7, 103, 1000):  # smaller than a modulation frame, one frame, many frames
            monkeypatch.setattr(srmr_module, "BLOCK_COLUMNS", block)
            reading, avg, kstar = srmr_details(x, fs, SRMRParams(norm=norm))
            assert reading.value == pytest.approx(whole[norm][0].value, rel=1e-12)
            assert np.allclose(avg, whole[norm][1], rtol=1e-12, atol=0) and kstar == whole[norm][2]


def test_clips_shorter_than_one_spectrogram_frame_and_long_normal_mode_are_explained():
    for n in (320, 400, 511):  # 20-32 ms: shorter than the 512-point spectrogram frame
        reading = srmr(np.random.default_rng(n).normal(0, 0.1, n), 16000)
        assert not reading.defined and "shorter than one 256-ms modulation frame" in reading.reason
    long_normal = srmr(np.zeros(16000 * 601), 16000, fast=False)
    assert not long_normal.defined and "limited to 600 s" in long_normal.reason
