import numpy as np
import pytest
import soundfile as sf

from acousticlaim.audio import AudioError, load_audio, write_audio


def tone(sr=16000, dur=0.5, f=220.0):
    t = np.arange(int(sr * dur)) / sr
    return 0.3 * np.sin(2 * np.pi * f * t)


def test_round_trip_wav(tmp_path):
    x = tone()
    p = write_audio(tmp_path / "a.wav", x)
    y, sr = load_audio(p)
    assert sr == 16000 and np.allclose(x, y, atol=1e-7)


def test_stereo_44k1_becomes_mono_16k(tmp_path):
    sr = 44100
    t = np.arange(sr) / sr
    left = 0.2 * np.sin(2 * np.pi * 200 * t)
    sf.write(tmp_path / "s.wav", np.stack([left, left], axis=1), sr)
    y, out_sr = load_audio(tmp_path / "s.wav")
    assert out_sr == 16000 and y.ndim == 1 and abs(len(y) - 16000) <= 1
    # the 200-Hz tone survives resampling at its level
    assert np.sqrt(np.mean(y[1000:-1000] ** 2)) == pytest.approx(0.2 / np.sqrt(2), rel=0.01)


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda p: p.write_bytes(b"not audio at all"), "cannot be decoded"),
        (lambda p: sf.write(p, np.zeros(0), 16000), "empty"),
        (lambda p: sf.write(p, np.zeros(16000), 16000), "silent"),
        (lambda p: sf.write(p, tone(dur=0.005), 16000), "too short"),
        (lambda p: sf.write(p, np.full(1600, np.nan), 16000, subtype="FLOAT"), "NaN or Inf"),
    ],
)
def test_bad_files_raise_one_error_naming_file_and_reason(tmp_path, make, reason):
    p = tmp_path / "bad.wav"
    make(p)
    with pytest.raises(AudioError, match=reason) as info:
        load_audio(p)
    assert info.value.source == str(p)


def test_missing_file(tmp_path):
    with pytest.raises(AudioError, match="no such file"):
        load_audio(tmp_path / "nope.wav")


def test_flac_write_is_pcm16(tmp_path):
    p = write_audio(tmp_path / "a.flac", tone())
    assert sf.info(p).subtype == "PCM_16"
