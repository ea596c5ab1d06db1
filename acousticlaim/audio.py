"""The one place audio enters (and leaves) AcoustiClaim.

Everything is read through :func:`load_audio`: soundfile decodes, channels are averaged to mono, the
signal is resampled to 16 kHz with a polyphase filter, and the result is validated. Any problem —
a file that cannot be decoded, an empty or too-short signal, an all-zero signal, NaN or Inf samples,
samples far beyond full scale —
raises :class:`AudioError`, which names the file and the reason, so that a stage can record the
failure for that clip and carry on.

Waveforms are float64 in [-1, 1] for 16-bit sources; nothing is normalised (the models hear the raw,
unnormalised waveform and SNR references depend on absolute level).
"""

from __future__ import annotations

import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Iterator

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

TARGET_SR = 16_000
MIN_DURATION_S = 0.02  # shorter than one 20-ms frame there is nothing to measure
CLIP_LEVEL = 0.999  # |x| at or above this counts as a clipped sample
# Float files may go above full scale (our own mixtures are stored unclipped), but a sample 80 dB
# above it is not audio: energies of such values overflow (1e160 squared is inf) and every reading
# would come out NaN. Such a file is refused at load, naming the largest sample.
MAX_ABS_SAMPLE = 1e4


class AudioError(ValueError):
    """A clip that cannot be used, with the file (or clip id) and the reason."""

    def __init__(self, source: str | os.PathLike, reason: str):
        self.source = str(source)
        self.reason = reason
        super().__init__(f"{self.source}: {reason}")


def to_mono(x: np.ndarray) -> np.ndarray:
    """Average the channels of a (frames, channels) array; a 1-D array is returned as is."""
    x = np.asarray(x)
    if x.ndim == 1:
        return x
    if x.ndim == 2:
        return x.mean(axis=1)
    raise ValueError(f"expected a 1-D or (frames, channels) array, got shape {x.shape}")


def resample(x: np.ndarray, sr: int, target_sr: int = TARGET_SR) -> np.ndarray:
    """Polyphase resampling from ``sr`` to ``target_sr`` (identity when they match)."""
    if sr == target_sr:
        return x
    ratio = Fraction(target_sr, sr).limit_denominator(10_000)
    return resample_poly(x, ratio.numerator, ratio.denominator)


def clipped_fraction(x: np.ndarray, level: float = CLIP_LEVEL) -> float:
    """Share of samples at or beyond ``level`` in magnitude."""
    if x.size == 0:
        return 0.0
    return float(np.mean(np.abs(x) >= level))


def validate_waveform(
    x: np.ndarray,
    sr: int,
    source: str | os.PathLike,
    *,
    min_duration_s: float = MIN_DURATION_S,
    allow_silent: bool = False,
) -> np.ndarray:
    """Check a mono waveform and return it as float64; raise :class:`AudioError` if unusable."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise AudioError(source, f"expected a mono waveform, got an array of shape {x.shape}")
    if x.size == 0:
        raise AudioError(source, "the file holds no samples (empty)")
    bad = ~np.isfinite(x)
    if bad.any():
        raise AudioError(source, f"{int(bad.sum())} of {x.size} samples are NaN or Inf")
    peak = max(float(x.max()), -float(x.min()))  # no |x| copy: a one-hour clip is 460 MB already
    if peak > MAX_ABS_SAMPLE:
        n_out = int(np.count_nonzero(np.abs(x) > MAX_ABS_SAMPLE))
        raise AudioError(
            source,
            f"{n_out} of {x.size} samples are out of range (largest magnitude {peak:.3g}, limit {MAX_ABS_SAMPLE:g}; "
            "full scale is 1): rescale the file to audio levels",
        )
    duration = x.size / sr
    if duration < min_duration_s:
        raise AudioError(source, f"too short: {duration * 1000:.1f} ms, need at least {min_duration_s * 1000:.0f} ms")
    if not allow_silent and not np.any(x):
        raise AudioError(source, "silent: every sample is zero")
    return x


def load_audio(
    path: str | os.PathLike,
    *,
    target_sr: int = TARGET_SR,
    min_duration_s: float = MIN_DURATION_S,
    allow_silent: bool = False,
    max_duration_s: float | None = None,
    offset_s: float = 0.0,
) -> tuple[np.ndarray, int]:
    """Read ``path`` as a validated mono float64 waveform at ``target_sr``.

    ``offset_s`` and ``max_duration_s`` read a segment (only that segment is decoded, so a clip can be
    cut from an hour-long meeting recording); ``max_duration_s`` alone truncates, as the corpus does to 10 s.
    """
    path = Path(path)
    if not path.exists():
        raise AudioError(path, "no such file")
    try:
        if offset_s or max_duration_s is not None:
            native_sr = sf.info(str(path)).samplerate
            start = int(round(offset_s * native_sr))
            stop = None if max_duration_s is None else start + int(round(max_duration_s * native_sr))
            data, sr = sf.read(str(path), dtype="float64", always_2d=False, start=start, stop=stop)
        else:
            data, sr = sf.read(str(path), dtype="float64", always_2d=False)
    except Exception as exc:  # soundfile raises LibsndfileError, RuntimeError, TypeError… on bad files
        raise AudioError(path, f"cannot be decoded as audio ({type(exc).__name__}: {exc})") from exc
    data = to_mono(data)
    if data.size and np.isfinite(data).all():
        data = resample(data, sr, target_sr)
    if max_duration_s is not None:
        data = data[: int(round(max_duration_s * target_sr))]
    return validate_waveform(data, target_sr, path, min_duration_s=min_duration_s, allow_silent=allow_silent), target_sr


def audio_seconds(path: str | os.PathLike, target_sr: int = TARGET_SR) -> float:
    """Duration of an audio file from its header (nothing decoded); :class:`AudioError` if unreadable."""
    path = Path(path)
    if not path.exists():
        raise AudioError(path, "no such file")
    try:
        info = sf.info(str(path))
    except Exception as exc:  # noqa: BLE001 - soundfile's errors on bad files vary
        raise AudioError(path, f"cannot be decoded as audio ({type(exc).__name__}: {exc})") from exc
    return info.frames / info.samplerate


def stream_audio(path: str | os.PathLike, block_s: float, *, target_sr: int = TARGET_SR) -> Iterator[np.ndarray]:
    """The file as consecutive mono blocks of ``block_s`` seconds at ``target_sr``, validated like
    :func:`load_audio` (NaN, Inf or out-of-range samples raise :class:`AudioError` naming the time),
    so a recording of any length is read in the memory of one block. Silence is allowed. A file at
    another rate is resampled block by block (a filter edge at each block boundary).
    """
    path = Path(path)
    if not path.exists():
        raise AudioError(path, "no such file")
    try:
        handle = sf.SoundFile(str(path))
    except Exception as exc:  # noqa: BLE001
        raise AudioError(path, f"cannot be decoded as audio ({type(exc).__name__}: {exc})") from exc
    with handle:
        sr = handle.samplerate
        start = 0
        for block in handle.blocks(blocksize=max(1, int(round(block_s * sr))), dtype="float64", always_2d=True):
            where = f"{path} (at {start / sr:.1f}-{(start + block.shape[0]) / sr:.1f} s)"
            start += block.shape[0]
            x = to_mono(block)
            validate_waveform(x, sr, where, min_duration_s=0.0, allow_silent=True)
            yield resample(x, sr, target_sr)


def write_audio(path: str | os.PathLike, x: np.ndarray, sr: int = TARGET_SR, subtype: str | None = None) -> Path:
    """Write ``x`` atomically (temporary file in the same folder, then rename).

    The format follows the suffix (``.wav`` → 32-bit float by default so levels above full scale
    survive, ``.flac`` → 16-bit PCM).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    x = np.asarray(x, dtype=np.float64)
    fmt = path.suffix.lstrip(".").upper() or "WAV"
    if subtype is None:
        subtype = "PCM_16" if fmt == "FLAC" else "FLOAT"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        sf.write(tmp, x, sr, subtype=subtype, format=fmt)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
