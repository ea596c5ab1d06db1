"""Synthetic talkers: a source–filter speech synthesiser with known voice and timing parameters.

This is the embedded default corpus's speech. It exists so that the whole pipeline runs with nothing
downloaded, and so that the instruments have known answers to be checked against.

The model, per utterance:

* **Timeline.** Leading silence, then ``n_pauses + 1`` phrases separated by silent pauses of 0.35–0.9 s
  (longer than the 0.3-s minimum pause of de Jong & Wempe), then trailing silence. Each phrase is a
  run of syllables at the talker's *articulation rate*; a syllable is a short unvoiced onset (low-level
  fricative noise) followed by a voiced vowel nucleus with a raised-cosine amplitude envelope, so the
  intensity dips well over 2 dB between nuclei.
* **Source.** A glottal pulse train placed at fractional sample positions (windowed-sinc impulses)
  whose periods follow an F0 contour (the talker's register, phrase declination, syllable accents and
  a slow drift, with an s.d. of ``f0_range_st`` semitones), perturbed cycle to cycle by independent
  Gaussian period noise (jitter) and amplitude noise (shimmer). For i.i.d. Gaussian perturbations of
  relative s.d. σ, the mean absolute difference of consecutive values is 2σ/√π, so σ = J·√π/2 gives a
  local jitter (and likewise shimmer) of J. A one-pole spectral tilt shapes the pulses.
* **Breathiness.** Aspiration noise added to the voiced excitation at ``breathiness`` times the
  voiced excitation's RMS; it lowers the harmonics-to-noise ratio.
* **Filter.** Each nucleus goes through a cascade of three formant resonators for one of five vowels,
  scaled by the talker's vocal-tract factor (about 1.0 for a male, 1.15 for a female voice).

All randomness comes from the ``seed`` passed in, so a clip is a pure function of (talker, seed).
:func:`draw_talker` draws talker parameters whose measured references spread like the released
LibriMix references (F0 80–300 Hz, jitter 1–4 %, shimmer 6–13 %, HNR 8–16 dB, 2.5–6 syllables/s,
1–5 pauses).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.signal import lfilter, sosfilt

SR = 16_000

# Vowel formants (Hz) and bandwidths for an adult male tract (Peterson & Barney-like averages).
_VOWELS = {
    "a": ((730, 1090, 2440), (90, 110, 160)),
    "e": ((530, 1840, 2480), (70, 100, 150)),
    "i": ((270, 2290, 3010), (60, 90, 150)),
    "o": ((570, 840, 2410), (80, 90, 150)),
    "u": ((300, 870, 2240), (60, 90, 140)),
}
_VOWEL_KEYS = tuple(_VOWELS)


@dataclass(frozen=True)
class TalkerParams:
    """The generative parameters of one synthetic talker (all recorded in the manifest)."""

    talker_id: str
    sex: str  # "male" | "female"
    f0_hz: float  # register: median F0
    f0_range_st: float  # intonation: s.d. of the F0 contour in semitones
    jitter_pct: float  # asked local jitter, percent
    shimmer_pct: float  # asked local shimmer, percent
    breathiness: float  # aspiration noise RMS relative to the voiced excitation RMS
    articulation_rate: float  # syllables per second of phonation
    pause_count: int  # pauses asked per utterance
    formant_scale: float  # vocal-tract length factor

    def as_record(self, prefix: str = "syn_") -> dict:
        return {f"{prefix}{k}": v for k, v in asdict(self).items()}


@dataclass
class Utterance:
    """A synthesised utterance and its timeline (seconds)."""

    waveform: np.ndarray
    sr: int
    nuclei: list[tuple[float, float]] = field(default_factory=list)  # voiced vowel nuclei (start, end)
    pauses: list[tuple[float, float]] = field(default_factory=list)  # silent pauses between phrases
    sounding: list[tuple[float, float]] = field(default_factory=list)  # phrases (start, end)

    @property
    def duration(self) -> float:
        return self.waveform.size / self.sr

    def timing_until(self, length_s: float) -> dict:
        """Syllables, pauses and rates realised in the first ``length_s`` seconds (after truncation).

        A syllable counts when its nucleus ends inside the clip; a pause counts when it ends inside
        the clip and a nucleus starts after it (so trailing silence is never a pause).
        """
        n_syl = sum(1 for _, e in self.nuclei if e <= length_s)
        n_pause = sum(
            1 for _, pe in self.pauses if pe < length_s and any(pe <= s < length_s for s, _ in self.nuclei)
        )
        phonation = sum(max(0.0, min(e, length_s) - s) for s, e in self.sounding if s < length_s)
        return {
            "n_syllables": n_syl,
            "pause_count": n_pause,
            "speaking_rate": n_syl / length_s if length_s > 0 else float("nan"),
            "articulation_rate_realised": n_syl / phonation if phonation > 0 else float("nan"),
            "pause_rate": n_pause / (length_s / 60.0) if length_s > 0 else float("nan"),
        }


def draw_talker(rng: np.random.Generator, talker_id: str) -> TalkerParams:
    """Draw one talker's parameters (ranges chosen so measured references spread like LibriMix)."""
    sex = "female" if rng.random() < 0.5 else "male"
    if sex == "male":
        f0 = float(np.clip(rng.lognormal(np.log(118), 0.16), 82, 175))
        formant_scale = float(rng.uniform(0.95, 1.05))
    else:
        f0 = float(np.clip(rng.lognormal(np.log(205), 0.14), 150, 295))
        formant_scale = float(rng.uniform(1.10, 1.20))
    return TalkerParams(
        talker_id=talker_id,
        sex=sex,
        f0_hz=round(f0, 2),
        f0_range_st=round(float(rng.uniform(0.8, 3.0)), 3),
        jitter_pct=round(float(rng.uniform(0.4, 3.5)), 3),
        shimmer_pct=round(float(rng.uniform(1.0, 10.0)), 3),
        breathiness=round(float(rng.uniform(0.05, 0.6)), 3),
        articulation_rate=round(float(rng.uniform(3.0, 6.5)), 3),
        pause_count=int(rng.integers(1, 6)),
        formant_scale=round(formant_scale, 3),
    )


def _timeline(p: TalkerParams, duration_s: float, rng: np.random.Generator):
    lead = rng.uniform(0.1, 0.3)
    trail = rng.uniform(0.15, 0.35)
    pauses = rng.uniform(0.35, 0.9, size=p.pause_count)
    speech = duration_s - lead - trail - pauses.sum()
    n_phr = p.pause_count + 1
    min_phrase = 0.6
    if speech < n_phr * min_phrase:  # too short for the asked pauses: drop pauses until it fits
        keep = max(0, int((duration_s - lead - trail) // (min_phrase + 0.6)) - 1)
        pauses = pauses[:keep]
        n_phr = len(pauses) + 1
        speech = duration_s - lead - trail - pauses.sum()
    shares = rng.dirichlet(np.full(n_phr, 4.0))
    phrase_durs = min_phrase + shares * (speech - n_phr * min_phrase)
    phrases, pause_iv, t = [], [], lead
    for i, d in enumerate(phrase_durs):
        phrases.append((t, t + d))
        t += d
        if i < len(pauses):
            pause_iv.append((t, t + pauses[i]))
            t += pauses[i]
    return phrases, pause_iv


def _syllables(phrases, rate: float, rng: np.random.Generator):
    """(onset_start, nucleus_start, nucleus_end) per syllable."""
    syl = []
    for a, b in phrases:
        n = max(1, int(round((b - a) * rate)))
        w = rng.uniform(0.85, 1.15, size=n)
        edges = a + (b - a) * np.concatenate([[0.0], np.cumsum(w) / w.sum()])
        for s, e in zip(edges[:-1], edges[1:]):
            onset = (e - s) * rng.uniform(0.2, 0.3)
            syl.append((s, s + onset, e - 0.01 * (e - s)))
    return syl


def _f0_contour(p: TalkerParams, n: int, phrases, syl, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / SR
    st = np.zeros(n)
    for a, b in phrases:  # declination over each phrase
        m = (t >= a) & (t < b)
        st[m] = 1.2 * (1 - 2 * (t[m] - a) / max(b - a, 1e-3))
    for _, ns, ne in syl:  # one accent bump per syllable, random height (evaluated within ±4 widths)
        c, w = 0.5 * (ns + ne), 0.35 * (ne - ns) + 1e-3
        lo, hi = max(0, int((c - 4 * w) * SR)), min(n, int((c + 4 * w) * SR) + 1)
        st[lo:hi] += rng.normal(0, 1.0) * np.exp(-0.5 * ((t[lo:hi] - c) / w) ** 2)
    knots = np.interp(t, np.linspace(0, t[-1] if n > 1 else 1, 12), rng.normal(0, 0.8, 12))
    st += knots
    sd = st.std()
    if sd > 0:
        st = (st - st.mean()) / sd * p.f0_range_st
    # keep the contour inside Praat's 75–500 Hz pitch range so the register is read without octave errors
    return np.clip(p.f0_hz * 2.0 ** (st / 12.0), 80.0, 480.0)


def _pulse_train(f0: np.ndarray, voiced: np.ndarray, p: TalkerParams, rng: np.random.Generator):
    """Glottal impulses at fractional positions, with jitter and shimmer, inside voiced regions."""
    n = f0.size
    sig_j = p.jitter_pct / 100 * np.sqrt(np.pi) / 2
    sig_s = p.shimmer_pct / 100 * np.sqrt(np.pi) / 2
    out = np.zeros(n + 64)
    half = 8
    taps = np.arange(-half, half + 1)
    win = np.hanning(2 * half + 3)[1:-1]
    pos = 0.0
    while pos < n - 1:
        i = int(pos)
        period = SR / f0[i]
        if voiced[i]:
            amp = 1.0 + sig_s * rng.standard_normal()
            frac = pos - i
            k = np.sinc(taps - frac) * win
            lo = i - half
            if lo >= 0:
                out[lo : lo + k.size] += amp * k
            pos += period * (1.0 + sig_j * rng.standard_normal())
        else:
            pos += period
    return out[:n]


def _resonator_sos(freqs, bws, scale: float) -> np.ndarray:
    sos = []
    for f, bw in zip(freqs, bws):
        f = min(f * scale, 0.45 * SR)
        r = np.exp(-np.pi * bw * scale / SR)
        a1, a2 = -2 * r * np.cos(2 * np.pi * f / SR), r * r
        g = 1 + a1 + a2  # unit gain at DC
        sos.append([g, 0, 0, 1, a1, a2])
    return np.asarray(sos)


def synthesize_talker(p: TalkerParams, duration_s: float, seed: int) -> Utterance:
    """Synthesise one utterance of ``duration_s`` seconds by talker ``p`` (peak-free, RMS ≈ 0.05)."""
    rng = np.random.default_rng(seed)
    n = int(round(duration_s * SR))
    phrases, pauses = _timeline(p, duration_s, rng)
    syl = _syllables(phrases, p.articulation_rate, rng)
    f0 = _f0_contour(p, n, phrases, syl, rng)

    voiced = np.zeros(n, dtype=bool)
    for _, ns, ne in syl:
        voiced[int(ns * SR) : int(ne * SR)] = True
    pulses = _pulse_train(f0, voiced, p, rng)
    source = lfilter([1.0], [1.0, -0.9], pulses)  # glottal tilt (with lip radiation folded in)
    src_rms = np.sqrt(np.mean(source[voiced] ** 2)) if voiced.any() else 1.0
    aspiration = rng.standard_normal(n) * p.breathiness * src_rms
    excitation = source + aspiration

    out = np.zeros(n)
    nuclei = []
    for os_, ns, ne in syl:
        a, b = int(ns * SR), int(ne * SR)
        vowel = _VOWELS[_VOWEL_KEYS[rng.integers(len(_VOWEL_KEYS))]]
        seg = sosfilt(_resonator_sos(*vowel, p.formant_scale), excitation[a:b])
        m = b - a
        # a gentle arch (0.75 → 1 → 0.75) with 6-ms fades: the per-cycle amplitude change stays small,
        # so the measured shimmer follows the asked shimmer rather than the envelope
        env = 0.75 + 0.25 * np.sin(np.linspace(0, np.pi, m))
        fade = min(m // 2, int(0.006 * SR))
        if fade > 0:
            ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))
            env[:fade] *= ramp
            env[-fade:] *= ramp[::-1]
        out[a:b] += seg * env * rng.uniform(0.7, 1.0)
        nuclei.append((ns, ne))
        # unvoiced onset: a quiet fricative-like noise burst
        oa, ob = int(os_ * SR), a
        if ob > oa:
            burst = rng.standard_normal(ob - oa) * np.hanning(ob - oa)
            out[oa:ob] += lfilter([1, -0.95], [1], burst) * 0.04 * src_rms
    rms = np.sqrt(np.mean(out[voiced] ** 2)) if voiced.any() else 1.0
    out *= 0.05 / rms
    return Utterance(out, SR, nuclei=nuclei, pauses=pauses, sounding=phrases)
