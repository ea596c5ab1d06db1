"""Frame profiles: the frames each instrument reads, summarised on the prefix-token grid (Fig. 2).

For the decomposition diagnostic every time-resolved quantity gets a per-token **profile**: the share of
the token the instrument reads, or what it counts or reads there. The frames come from the instruments
themselves (:mod:`acousticlaim.instruments`), on the signal each reference is read on (the reference
table of ``acousticlaim.instruments.references``), so there is one definition of every frame:

* ``f0_voiced`` (F0 mean, F0 s.d.; the Masked tier): share of the **mixture's** pitch frames that F0 reads —
  voiced in :class:`~acousticlaim.instruments.praat.PraatAnalysis`'s To Pitch (ac) and centred outside the
  overlap windows (:func:`~acousticlaim.instruments.overlap.overlap_windows`, Silero VAD on ``s1`` and
  ``s2`` with the ``references`` stage's settings): :func:`~acousticlaim.instruments.praat.voiced_frame_mask`;
* ``periods`` (jitter, shimmer): share of the token covered by the target stem's glottal periods that
  jitter (local) compares (:func:`~acousticlaim.instruments.praat.read_periods`);
* ``harmonic`` (HNR): share of the target stem's Harmonicity (cc) frames that HNR's mean averages
  (:func:`~acousticlaim.instruments.praat.periodic_frame_mask`);
* ``nuclei`` (speaking rate): number of de Jong & Wempe syllable nuclei of the target stem in the token
  (:func:`~acousticlaim.instruments.timing.read_timing`, the nuclei the speaking rate counts);
* ``pause`` (pause count, pause rate): share of the token inside a pause of the target stem — a silent
  interval between two sounding intervals of ``read_timing`` (the pauses the pause count counts);
* ``speech_to_noise`` (SNR): the token's speech-to-noise level, ``10·log10(P(s1+s2)/P(noise))`` in dB,
  clipped to [−30, 60]: where the SNR reference's numerator and denominator are read;
* SRMR has no time-resolved reference and gets no profile.

Token *t* covers ``[t·token_s, (t+1)·token_s)``; a frame belongs to the token holding its centre; a token
with no analysis frame reads 0. A profile that cannot be read is a recorded failure, never zeros.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from acousticlaim.audio import AudioError, load_audio
from acousticlaim.failures import Failure
from acousticlaim.instruments.overlap import overlap_windows
from acousticlaim.instruments.settings import ReferencesSettings
from acousticlaim.instruments.praat import PraatAnalysis, periodic_frame_mask, read_periods, voiced_frame_mask
from acousticlaim.instruments.timing import read_timing

STAGE = "decomposition"
PROFILE_OF: dict[str, str | None] = {
    "snr": "speech_to_noise",
    "srmr": None,
    "speaking_rate": "nuclei",
    "pause_count": "pause",
    "pause_rate": "pause",
    "f0_mean": "f0_voiced",
    "f0_sd": "f0_voiced",
    "jitter": "periods",
    "shimmer": "periods",
    "hnr": "harmonic",
}
SNR_CLIP_DB = (-30.0, 60.0)
# the references stage's overlap settings (``references:`` group of params.yaml) read here
OVERLAP_DEFAULTS: dict[str, Any] = {k: v for k, v in asdict(ReferencesSettings()).items()
                                     if k in ("min_overlap_s", "vad", "torch_threads")}


def bin_frames(times: np.ndarray, values: np.ndarray, n_tokens: int, token_s: float) -> np.ndarray:
    """Mean of frame ``values`` per token (frames at ``times`` seconds); 0 for a token with no frame."""
    idx = np.floor(np.asarray(times) / token_s).astype(int)
    ok = (idx >= 0) & (idx < n_tokens)
    sums = np.bincount(idx[ok], weights=np.asarray(values, dtype=float)[ok], minlength=n_tokens)
    counts = np.bincount(idx[ok], minlength=n_tokens)
    return np.divide(sums, counts, out=np.zeros(n_tokens), where=counts > 0)


def count_events(times: Sequence[float], n_tokens: int, token_s: float) -> np.ndarray:
    """Number of events (e.g. syllable nuclei) at ``times`` seconds per token."""
    idx = np.floor(np.asarray(times, dtype=float) / token_s).astype(int)
    return np.bincount(idx[(idx >= 0) & (idx < n_tokens)], minlength=n_tokens).astype(float)


def interval_share(intervals: Sequence[tuple[float, float]], n_tokens: int, token_s: float) -> np.ndarray:
    """Share of each token's duration covered by ``intervals`` (seconds; assumed not to overlap)."""
    lo = np.arange(n_tokens) * token_s
    hi = lo + token_s
    covered = np.zeros(n_tokens)
    for start, end in intervals:
        covered += np.clip(np.minimum(hi, end) - np.maximum(lo, start), 0.0, None)
    return np.minimum(covered / token_s, 1.0)


def speech_to_noise_db(speech: np.ndarray, noise: np.ndarray, sr: int, n_tokens: int, token_s: float) -> np.ndarray:
    """Per-token ``10·log10(P_speech/P_noise)``, clipped to ``SNR_CLIP_DB``."""
    n = min(speech.size, noise.size)
    hop = int(round(token_s * sr))
    out = np.full(n_tokens, SNR_CLIP_DB[0])
    for t in range(n_tokens):
        seg = slice(t * hop, min((t + 1) * hop, n))
        if seg.start >= n:
            break
        ps = float(np.mean(speech[seg] ** 2))
        pn = float(np.mean(noise[seg] ** 2))
        if pn <= 0:
            out[t] = SNR_CLIP_DB[1]
        elif ps > 0:
            out[t] = float(np.clip(10 * np.log10(ps / pn), *SNR_CLIP_DB))
    return out


@dataclass(frozen=True)
class ProfileJob:
    """One mixture: absolute paths of its audio and sources, the token grid, and the overlap settings."""

    clip_id: str
    audio_path: str | None  # the mixture (F0's Masked reference is read on it)
    s1_path: str
    s2_path: str | None
    noise_path: str | None
    n_tokens: int
    token_s: float
    overlap: dict[str, Any] = field(default_factory=dict)  # min_overlap_s, vad, torch_threads (references group)


@dataclass
class ClipProfiles:
    clip_id: str
    profiles: dict[str, np.ndarray] = field(default_factory=dict)  # profile kind -> per-token values
    failures: list[Failure] = field(default_factory=list)  # a profile that could not be read, with why


class UndefinedProfile(Exception):
    """The instrument reads nothing here (its reading is undefined, with the instrument's reason)."""


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if isinstance(exc, (AudioError, UndefinedProfile)) else f"{type(exc).__name__}: {text}"


def f0_frames(job: ProfileJob, s1: np.ndarray, sr: int) -> np.ndarray:
    """The ``f0_voiced`` profile: the mixture's voiced pitch frames outside the overlap windows of s1 and s2."""
    if not job.audio_path:
        raise AudioError(job.clip_id, "the manifest gives no mixture audio (audio_path)")
    if not job.s2_path:
        raise AudioError(job.clip_id, "the manifest gives no interferer stem (s2_path): no overlap windows")
    settings = {**OVERLAP_DEFAULTS, **job.overlap}
    if settings.get("torch_threads"):
        import torch

        if torch.get_num_threads() != int(settings["torch_threads"]):
            torch.set_num_threads(int(settings["torch_threads"]))
    mix, mix_sr = load_audio(job.audio_path)
    s2, _ = load_audio(job.s2_path, allow_silent=True)
    windows = overlap_windows(s1, s2, sr, min_overlap_s=float(settings["min_overlap_s"]), vad=settings["vad"])
    times, read = voiced_frame_mask(PraatAnalysis(mix, mix_sr), windows.windows)
    return bin_frames(times, read, job.n_tokens, job.token_s)


def clip_profiles(job: ProfileJob) -> ClipProfiles:
    """Every profile kind of one mixture; a source or an instrument that fails becomes a recorded failure."""
    result = ClipProfiles(job.clip_id)
    n, step = job.n_tokens, job.token_s
    if not job.s1_path:
        result.failures.append(Failure(job.clip_id, STAGE, "no target stem (s1_path) in the manifest"))
        return result
    try:
        s1, sr = load_audio(job.s1_path)
    except AudioError as exc:
        result.failures.append(Failure(job.clip_id, STAGE, f"target stem: {exc}"))
        return result

    def guarded(what: str, read) -> None:
        try:
            read()
        except Exception as exc:  # noqa: BLE001 - an instrument's error is this clip's recorded failure
            result.failures.append(Failure(job.clip_id, STAGE, f"{what}: {_reason(exc)}"))

    def f0() -> None:
        result.profiles["f0_voiced"] = f0_frames(job, s1, sr)

    stem = PraatAnalysis(s1, sr)

    def voice() -> None:
        periods = interval_share(read_periods(stem), n, step)
        times, periodic = periodic_frame_mask(stem)
        result.profiles["periods"] = periods
        result.profiles["harmonic"] = bin_frames(times, periodic, n, step)

    def timing() -> None:
        readings = read_timing(s1, sr)
        if not readings.speaking_rate.defined:
            raise UndefinedProfile(readings.speaking_rate.reason)
        result.profiles["nuclei"] = count_events(readings.nuclei_times, n, step)
        if not readings.pause_count.defined:
            raise UndefinedProfile(readings.pause_count.reason)
        result.profiles["pause"] = interval_share(readings.pause_intervals, n, step)

    guarded("F0 profile", f0)
    guarded("period and harmonicity profiles", voice)
    guarded("timing profiles", timing)
    if not job.noise_path:
        result.failures.append(Failure(job.clip_id, STAGE, "no noise stem in the manifest: no SNR profile"))
        return result
    try:
        noise, _ = load_audio(job.noise_path, allow_silent=True)
        speech = s1
        if job.s2_path:
            s2, _ = load_audio(job.s2_path, allow_silent=True)
            m = min(s1.size, s2.size)
            speech = s1[:m] + s2[:m]
    except AudioError as exc:
        result.failures.append(Failure(job.clip_id, STAGE, f"SNR profile: {exc}"))
        return result
    result.profiles["speech_to_noise"] = speech_to_noise_db(speech, noise, sr, n, step)
    return result
