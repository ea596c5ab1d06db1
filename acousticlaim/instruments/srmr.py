"""SRMR, the speech-to-reverberation modulation energy ratio (Falk, Zheng & Chan 2010).

Why it is carried here: SRMRpy, the published implementation, is not on PyPI. torchmetrics' SRMR
needs ``torchaudio.functional.lfilter``; PyPI's newest torchaudio (2.11.1+cu132) does import beside
our torch (2.15.0+cu132) — checked 2026-11-30 — and its fast mode agrees with SRMRpy to 2e-6
relative, but torchaudio is pinned to another torch release, would be a large CUDA dependency for
one filter call, and torchmetrics' normal mode is ~20× slower than SRMRpy's. So AcoustiClaim
carries its own, on scipy and the ``gammatone`` package (the filterbank code SRMRpy itself uses),
following SRMRpy (jfsantos/SRMRpy at commit ``fee0097``) step by step with SRMRpy's parameter set,
which ``SPEC.md`` pins:

1. **Acoustic filterbank**, 23 gammatone channels from ``low_freq`` = 125 Hz to fs/2.
   ``fast`` (default, as SRMRpy and VERSA): the FFT gammatonegram (``gammatone.fftweight``
   weights on a 512-point spectrogram, 10-ms Hann window, 2.5-ms hop), an envelope at 400 Hz.
   Normal: the ERB filterbank (``gammatone.filters.erb_filterbank``) and the magnitude of the
   analytic signal, an envelope at the full sample rate.
2. **Modulation filterbank**, 8 second-order band-pass filters (Q = 2), centre frequencies
   log-spaced from ``min_cf`` = 4 Hz to ``max_cf`` = 128 Hz, on each channel's envelope.
3. **Energy** in 256-ms periodic-Hamming frames every 64 ms (only whole frames:
   ``1 + (T - L) // hop`` of them), averaged over frames.
4. **K\\***: the ERB bandwidth of the channel where the cumulative energy (summed from the
   end of the channel order) first passes 90 % picks the highest modulation band kept
   (5–8, against the bands' lower 3-dB cut-offs computed with the audio rate, as SRMRpy does).
5. **SRMR** = energy of modulation bands 1–4 over bands 5..K\\*. ``norm`` (off by default and
   in the SPEC) clips the energies to a 30-dB range below the peak first.

Three deliberate differences from SRMRpy, none of which changes a value SRMRpy returns beyond
rounding: the spectrogram and the frame energies are vectorised instead of looped; fast mode runs in
blocks of about 10 s of envelope (the modulation filters carry their state across blocks and a frame
straddling two blocks waits for its samples), so a one-hour meeting measures in the memory of a
10-s clip instead of SRMRpy's ~4.7 MB per second of audio; and where SRMRpy leaves K\\*
unassigned (a bandwidth exactly on a cut-off, or below the fifth, which cannot happen with a
125-Hz lowest channel) we take the band whose range the bandwidth reaches. A clip shorter than one
modulation frame (or than one 32-ms spectrogram frame), or with no envelope energy, is an undefined
reading, not an exception. Normal mode (opt-in, ~20x slower) filters the whole clip at the audio rate at
once and is limited to 10 minutes; longer clips are read in fast mode.

``tests/test_srmr.py`` checks the values against SRMRpy's on real speech (``../shared/data/srmr_golden``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Iterator

import numpy as np
from gammatone.fftweight import fft_weights
from gammatone.filters import centre_freqs, erb_filterbank, make_erb_filters
from gammatone.gtgram import gtgram_strides
from scipy.signal import hilbert, lfilter

from acousticlaim.instruments.reading import Reading

N_COCHLEAR_FILTERS = 23
LOW_FREQ_HZ = 125.0
MIN_CF_HZ = 4.0
MAX_CF_HZ = 128.0
N_MODULATION_FILTERS = 8
MODULATION_Q = 2.0
FRAME_S = 0.256
HOP_S = 0.064
FAST_ENVELOPE_RATE = 400.0
FAST_WINDOW_S = 0.010
FAST_HOP_S = 0.0025
NORM_RANGE_DB = 30.0
EAR_Q = 9.26449  # Glasberg and Moore
MIN_BW_HZ = 24.7


@dataclass(frozen=True)
class SRMRParams:
    n_cochlear_filters: int = N_COCHLEAR_FILTERS
    low_freq: float = LOW_FREQ_HZ
    min_cf: float = MIN_CF_HZ
    max_cf: float = MAX_CF_HZ
    fast: bool = True
    norm: bool = False


def modulation_centre_frequencies(min_cf: float = MIN_CF_HZ, max_cf: float = MAX_CF_HZ, n: int = N_MODULATION_FILTERS) -> np.ndarray:
    """Log-spaced centre frequencies, built by repeated multiplication as SRMRpy does."""
    factor = (max_cf / min_cf) ** (1.0 / (n - 1))
    cfs = np.empty(n)
    cfs[0] = min_cf
    for k in range(1, n):
        cfs[k] = cfs[k - 1] * factor
    return cfs


def modulation_filter(w0: float, q: float = MODULATION_Q) -> tuple[np.ndarray, np.ndarray]:
    """Second-order band-pass (b, a) at normalised angular frequency ``w0`` (bilinear, pre-warped)."""
    warped = np.tan(w0 / 2.0)
    bw = warped / q
    b = np.array([bw, 0.0, -bw])
    a = np.array([1.0 + bw + warped**2, 2.0 * warped**2 - 2.0, 1.0 - bw + warped**2])
    return b, a


def lower_cutoffs(cfs: np.ndarray, fs: float, q: float = MODULATION_Q) -> np.ndarray:
    """Lower 3-dB cut-offs of the modulation band-passes (SRMRpy computes them with the audio rate)."""
    w0 = 2.0 * np.pi * cfs / fs
    return cfs - np.tan(w0 / 2.0) / q * fs / (2.0 * np.pi)


def channel_erbs(low_freq: float, fs: float, n_filters: int) -> np.ndarray:
    """ERB bandwidth of each gammatone channel, lowest channel first."""
    return np.flipud(centre_freqs(fs, n_filters, low_freq) / EAR_Q + MIN_BW_HZ)


@lru_cache(maxsize=8)
def _fft_gammatone_weights(fs: int, n_filters: int, low_freq: float) -> tuple[np.ndarray, int, int, int]:
    nfft = int(2 ** np.ceil(np.log2(2 * FAST_WINDOW_S * fs)))
    nwin, nhop, _ = gtgram_strides(fs, FAST_WINDOW_S, FAST_HOP_S, 0)
    weights, _ = fft_weights(nfft, fs, n_filters, 1, low_freq, fs / 2, nfft / 2 + 1)
    return weights, nfft, nwin, nhop


def _centred_hann(nfft: int, nwin: int) -> np.ndarray:
    """Hann window of width ``nwin`` centred in ``nfft`` points (Ellis's ``specgram`` window)."""
    half_len = nwin // 2
    half_fft = nfft // 2
    used = min(half_fft, half_len)
    half = 0.5 * (1 + np.cos(np.pi * np.arange(half_len + 1) / half_len))
    win = np.zeros(nfft)
    win[half_fft : half_fft + used] = half[:used]
    win[half_fft : half_fft - used : -1] = half[:used]
    return win


BLOCK_COLUMNS = 4096  # envelope samples per block (about 10 s at the fast envelope rate)
NORMAL_MODE_MAX_S = 600.0  # normal mode filters the whole clip at the audio rate (23 x 8 bytes per sample)


def _fast_envelope_blocks(samples: Iterable[np.ndarray], fs: int, n_filters: int, low_freq: float, block_cols: int) -> Iterator[np.ndarray]:
    """The FFT-weighted gammatonegram (``gammatone.fftweight.fft_gtgram``) of a signal given as
    consecutive blocks of samples, ``block_cols`` columns at a time.

    Frames start every ``hop`` samples at ``0 <= b < len(x) - nfft``; there are
    ``1 + (len(x) - nfft) // hop`` columns, the last one zero when the loop stops short of it. A frame
    is computed once its samples and at least one more have arrived (so the last start, which the
    loop excludes, is never computed early); the samples no later frame needs are dropped, so memory
    does not grow with the signal.
    """
    weights, nfft, nwin, nhop = _fft_gammatone_weights(int(fs), int(n_filters), float(low_freq))
    window = _centred_hann(nfft, nwin)
    buffer, buffer_start, next_col, total = np.zeros(0), 0, 0, 0
    for block in samples:
        buffer = np.concatenate([buffer, np.asarray(block, dtype=np.float64)])
        total += len(block)
        ready = -(-(total - nfft) // nhop) if total > nfft else 0  # starts b with b + nfft < total
        while next_col < ready:
            k1 = min(next_col + block_cols, ready)
            segment = buffer[next_col * nhop - buffer_start : (k1 - 1) * nhop + nfft - buffer_start]
            frames = np.lib.stride_tricks.sliding_window_view(segment, nfft)[::nhop] * window
            yield weights.dot(np.abs(np.fft.rfft(frames, axis=1)).T) / nfft
            next_col = k1
        drop = next_col * nhop - buffer_start
        buffer, buffer_start = buffer[drop:], buffer_start + drop
    if total >= nfft and 1 + (total - nfft) // nhop > next_col:  # the column the loop stops short of
        yield np.zeros((weights.shape[0], 1 + (total - nfft) // nhop - next_col))


def _sample_blocks(x: np.ndarray, block_samples: int) -> Iterator[np.ndarray]:
    for start in range(0, x.shape[0], block_samples):
        yield x[start : start + block_samples]


def fft_gammatonegram(x: np.ndarray, fs: int, n_filters: int, low_freq: float) -> np.ndarray:
    """The whole FFT-weighted gammatonegram, shape (channels, columns) (see :func:`_fast_envelope_blocks`)."""
    x = np.asarray(x, dtype=np.float64)
    blocks = list(_fast_envelope_blocks([x], fs, n_filters, low_freq, BLOCK_COLUMNS))
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((n_filters, 0))


def gammatone_envelopes(x: np.ndarray | Callable[[], Iterable[np.ndarray]], fs: int, params: SRMRParams) -> tuple[Iterator[np.ndarray], float]:
    """(channel envelopes in blocks of columns, envelope rate): the acoustic filterbank stage.

    ``x`` is a waveform, or (fast mode) a function returning its consecutive blocks of samples (a
    file streamed from disk). Fast mode streams the gammatonegram block by block. Normal mode takes
    the analytic-signal magnitude of the whole clip (the Hilbert transform is not causal), as one block.
    """
    if params.fast:
        hop = _fft_gammatone_weights(int(fs), params.n_cochlear_filters, float(params.low_freq))[3]
        samples = x() if callable(x) else _sample_blocks(x, BLOCK_COLUMNS * hop)
        blocks = _fast_envelope_blocks(samples, fs, params.n_cochlear_filters, params.low_freq, BLOCK_COLUMNS)
        return blocks, FAST_ENVELOPE_RATE
    if callable(x):
        x = np.concatenate(list(x()))
    cfs = centre_freqs(fs, params.n_cochlear_filters, params.low_freq)
    channels = erb_filterbank(x, make_erb_filters(fs, cfs))
    return iter([np.abs(hilbert(channels, axis=-1))]), float(fs)


def modulation_energy(envelope_blocks: Iterable[np.ndarray], envelope_rate: float, params: SRMRParams) -> Iterator[np.ndarray]:
    """Windowed modulation-band energy, in blocks of frames, each of shape (channels, 8, frames).

    The band-pass filters carry their state from block to block and the samples of a frame that
    straddles two blocks are kept until the frame is whole, so the frames and their energies are
    those of the whole clip filtered at once (to rounding), while only one block is held at a time.
    """
    frame = int(np.ceil(FRAME_S * envelope_rate))
    hop = int(np.ceil(HOP_S * envelope_rate))
    window_sq = (np.hamming(frame + 1)[:-1]) ** 2  # periodic Hamming, squared
    filters = [modulation_filter(w0) for w0 in 2.0 * np.pi * modulation_centre_frequencies(params.min_cf, params.max_cf) / envelope_rate]
    states: list[np.ndarray] | None = None
    pending: np.ndarray | None = None  # squared band samples from the next frame's start on
    for envelopes in envelope_blocks:
        if states is None:
            states = [np.zeros((envelopes.shape[0], 2)) for _ in filters]
            pending = np.zeros((envelopes.shape[0], N_MODULATION_FILTERS, 0))
        bands = np.empty((envelopes.shape[0], N_MODULATION_FILTERS, envelopes.shape[1]))
        for j, (b, a) in enumerate(filters):
            filtered, states[j] = lfilter(b, a, envelopes, axis=-1, zi=states[j])
            bands[:, j, :] = filtered**2
        buffer = np.concatenate([pending, bands], axis=-1)
        n_frames = 0 if buffer.shape[-1] < frame else 1 + (buffer.shape[-1] - frame) // hop
        if n_frames:
            frames = np.lib.stride_tricks.sliding_window_view(buffer, frame, axis=-1)[:, :, : n_frames * hop : hop]
            yield frames @ window_sq
        pending = buffer[:, :, n_frames * hop :]


def _modulation_energy_mean(x: np.ndarray | Callable[[], Iterable[np.ndarray]], fs: int, params: SRMRParams) -> tuple[np.ndarray, int]:
    """(energy per channel and band averaged over frames, number of frames); two passes with ``norm``."""
    def blocks() -> Iterator[np.ndarray]:
        envelopes, rate = gammatone_envelopes(x, fs, params)
        return modulation_energy(envelopes, rate, params)

    clip_range: tuple[float, float] | None = None
    if params.norm:  # the 30-dB range is set by the peak over the whole clip: one pass to find it
        peak = max((float(np.max(np.mean(e, axis=0))) for e in blocks()), default=0.0)
        clip_range = (peak * 10.0 ** (-NORM_RANGE_DB / 10.0), peak)
    total = np.zeros((params.n_cochlear_filters, N_MODULATION_FILTERS))
    n_frames = 0
    for energy in blocks():
        if clip_range is not None:
            energy = np.clip(energy, *clip_range)
        total += energy.sum(axis=2)
        n_frames += energy.shape[2]
    return (total / n_frames if n_frames else total), n_frames


def _kstar(bandwidth: float, cutoffs: np.ndarray) -> int:
    """Highest modulation band kept (5..8) for the 90 %-energy bandwidth."""
    for k in (7, 6, 5):
        if bandwidth > cutoffs[k]:
            return k + 1
    return 5


def srmr_details(x: np.ndarray | Callable[[], Iterable[np.ndarray]], fs: int, params: SRMRParams = SRMRParams(),
                 *, n_samples: int | None = None) -> tuple[Reading, np.ndarray, int]:
    """(SRMR reading, mean energy per channel and modulation band, K*).

    ``x`` is a waveform, or a function returning its consecutive sample blocks (then ``n_samples``
    gives its length): a recording of any length is read in the memory of one block.
    """
    if not callable(x):
        x = np.asarray(x, dtype=np.float64)
        n_samples = x.size
    seconds = (n_samples or 0) / fs
    if not params.fast and seconds > NORMAL_MODE_MAX_S:
        return Reading.undefined(
            f"SRMR undefined: normal mode filters the whole clip at the audio rate and is limited to "
            f"{NORMAL_MODE_MAX_S:.0f} s ({seconds:.0f} s given); fast mode reads any length in bounded memory"
        ), np.zeros((0, 0)), 0
    avg, n_frames = _modulation_energy_mean(x, fs, params)
    if n_frames == 0:
        return Reading.undefined(f"SRMR undefined: {seconds:.3f} s is shorter than one {FRAME_S * 1000:.0f}-ms modulation frame"), np.zeros((0, 0)), 0
    total = avg.sum()
    if not np.isfinite(total) or total <= 0:
        return Reading.undefined("SRMR undefined: no modulation energy in the signal (silent input)"), avg, 0
    channel_share = np.cumsum(np.flipud(avg.sum(axis=1) * 100.0 / total))
    k90 = int(np.nonzero(channel_share > 90)[0][0])
    bandwidth = channel_erbs(params.low_freq, fs, params.n_cochlear_filters)[k90]
    kstar = _kstar(bandwidth, lower_cutoffs(modulation_centre_frequencies(params.min_cf, params.max_cf), fs))
    denominator = avg[:, 4:kstar].sum()
    if denominator <= 0:
        return Reading.undefined("SRMR undefined: no energy in the high modulation bands"), avg, kstar
    return Reading(float(avg[:, :4].sum() / denominator)), avg, kstar


def srmr(x: np.ndarray | Callable[[], Iterable[np.ndarray]], fs: int, *, fast: bool = True, norm: bool = False,
         n_samples: int | None = None, **overrides) -> Reading:
    """The SRMR of ``x`` (a ratio) with SRMRpy's parameters; ``fast`` selects the FFT gammatonegram.
    ``x`` may be a function returning the signal's sample blocks (see :func:`srmr_details`)."""
    return srmr_details(x, fs, SRMRParams(fast=fast, norm=norm, **overrides), n_samples=n_samples)[0]
