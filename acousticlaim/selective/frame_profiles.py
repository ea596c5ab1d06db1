"""Frame profiles: the frames each instrument reads, summarised on the prefix-token grid (Fig. 2).

For the decomposition diagnostic every time-resolved quantity gets a per-token **profile**: the share of
the token's analysis frames the instrument reads, or the level it reads there. Profiles are computed on
the clip's sources as the corpus manifest names them (``s1`` the target talker as it sits in the mixture,
``s2`` the interferer, ``noise``):

* ``voiced`` (F0 mean, F0 s.d., jitter, shimmer, HNR): share of voiced Praat pitch frames of the target
  talker (To Pitch (ac), 75–500 Hz, Praat's default 0.75/floor time step), the frames Praat's F0, point
  process and harmonicity analyses are built on. The F0 references are further masked by the overlap
  windows; the profile does not apply that mask;
* ``sounding`` (speaking rate): share of sounding intensity frames of the target (Praat To Intensity,
  50 Hz, 10 ms), sounding = at or above the 0.99-quantile minus 25 dB (de Jong & Wempe's threshold), the
  intervals syllable nuclei are counted in;
* ``pause`` (pause count, pause rate): share of the token inside a pause — a silent run of at least 0.3 s
  between two sounding runs, leading and trailing silence excluded (de Jong & Wempe's minpause);
* ``speech_to_noise`` (SNR): the token's speech-to-noise level, ``10·log10(P(s1+s2)/P(noise))`` in dB,
  clipped to [−30, 60]: where the SNR reference's numerator and denominator are read;
* SRMR has no time-resolved reference and gets no profile.

Token *t* covers ``[t·token_s, (t+1)·token_s)``; a token with no analysis frame reads 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from acousticlaim.audio import AudioError, load_audio
from acousticlaim.failures import Failure

STAGE = "decomposition"
PROFILE_OF: dict[str, str | None] = {
    "snr": "speech_to_noise",
    "srmr": None,
    "speaking_rate": "sounding",
    "pause_count": "pause",
    "pause_rate": "pause",
    "f0_mean": "voiced",
    "f0_sd": "voiced",
    "jitter": "voiced",
    "shimmer": "voiced",
    "hnr": "voiced",
}
PITCH_FLOOR_HZ = 75.0
PITCH_CEILING_HZ = 500.0
INTENSITY_MIN_PITCH_HZ = 50.0
INTENSITY_STEP_S = 0.01
SILENCE_DB = -25.0
MIN_PAUSE_S = 0.3
SNR_CLIP_DB = (-30.0, 60.0)


def bin_frames(times: np.ndarray, values: np.ndarray, n_tokens: int, token_s: float) -> np.ndarray:
    """Mean of frame ``values`` per token (frames at ``times`` seconds); 0 for a token with no frame."""
    idx = np.floor(np.asarray(times) / token_s).astype(int)
    ok = (idx >= 0) & (idx < n_tokens)
    sums = np.bincount(idx[ok], weights=np.asarray(values, dtype=float)[ok], minlength=n_tokens)
    counts = np.bincount(idx[ok], minlength=n_tokens)
    return np.divide(sums, counts, out=np.zeros(n_tokens), where=counts > 0)


def voiced_frames(x: np.ndarray, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """Times and voiced flags of Praat's To Pitch (ac), 75–500 Hz."""
    import parselmouth

    pitch = parselmouth.Sound(x, sampling_frequency=sr).to_pitch_ac(
        pitch_floor=PITCH_FLOOR_HZ, pitch_ceiling=PITCH_CEILING_HZ
    )
    return np.asarray(pitch.xs()), pitch.selected_array["frequency"] > 0


def sounding_frames(x: np.ndarray, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """Times and sounding flags: intensity at or above its 0.99-quantile minus 25 dB."""
    import parselmouth

    intensity = parselmouth.Sound(x, sampling_frequency=sr).to_intensity(
        minimum_pitch=INTENSITY_MIN_PITCH_HZ, time_step=INTENSITY_STEP_S
    )
    level = np.asarray(intensity.values[0], dtype=float)
    finite = np.isfinite(level)
    if not finite.any():
        return np.asarray(intensity.xs()), np.zeros(level.size, dtype=bool)
    threshold = np.quantile(level[finite], 0.99) + SILENCE_DB
    return np.asarray(intensity.xs()), finite & (level >= threshold)


def pause_frames(times: np.ndarray, sounding: np.ndarray, min_pause_s: float = MIN_PAUSE_S) -> np.ndarray:
    """Flags of frames inside a pause: a silent run of at least ``min_pause_s`` between two sounding runs."""
    sounding = np.asarray(sounding, dtype=bool)
    out = np.zeros(sounding.size, dtype=bool)
    if sounding.size < 2 or not sounding.any():
        return out
    step = float(np.median(np.diff(times))) if times.size > 1 else INTENSITY_STEP_S
    first, last = np.flatnonzero(sounding)[[0, -1]]
    i = first
    while i <= last:
        if sounding[i]:
            i += 1
            continue
        j = i
        while j <= last and not sounding[j]:
            j += 1
        if (j - i) * step >= min_pause_s - 1e-9:
            out[i:j] = True
        i = j
    return out


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
    """One clip: absolute paths of its sources and the token grid of its decomposition."""

    clip_id: str
    s1_path: str
    s2_path: str | None
    noise_path: str | None
    n_tokens: int
    token_s: float


@dataclass
class ClipProfiles:
    clip_id: str
    profiles: dict[str, np.ndarray] = field(default_factory=dict)  # profile kind -> per-token values
    failures: list[Failure] = field(default_factory=list)  # a profile that could not be read, with why


def clip_profiles(job: ProfileJob) -> ClipProfiles:
    """Every profile kind of one clip; a source that cannot be read becomes a recorded failure."""
    result = ClipProfiles(job.clip_id)
    if not job.s1_path:
        result.failures.append(Failure(job.clip_id, STAGE, "no target stem (s1_path) in the manifest"))
        return result
    try:
        s1, sr = load_audio(job.s1_path)
    except AudioError as exc:
        result.failures.append(Failure(job.clip_id, STAGE, f"target stem: {exc}"))
        return result
    t, voiced = voiced_frames(s1, sr)
    result.profiles["voiced"] = bin_frames(t, voiced, job.n_tokens, job.token_s)
    t, sounding = sounding_frames(s1, sr)
    result.profiles["sounding"] = bin_frames(t, sounding, job.n_tokens, job.token_s)
    result.profiles["pause"] = bin_frames(t, pause_frames(t, sounding), job.n_tokens, job.token_s)
    if not job.noise_path:
        result.failures.append(Failure(job.clip_id, STAGE, "no noise stem in the manifest: no SNR profile"))
        return result
    try:
        noise, _ = load_audio(job.noise_path, allow_silent=True)
        speech = s1
        if job.s2_path:
            s2, _ = load_audio(job.s2_path, allow_silent=True)
            n = min(s1.size, s2.size)
            speech = s1[:n] + s2[:n]
    except AudioError as exc:
        result.failures.append(Failure(job.clip_id, STAGE, f"SNR profile: {exc}"))
        return result
    result.profiles["speech_to_noise"] = speech_to_noise_db(speech, noise, sr, job.n_tokens, job.token_s)
    return result
