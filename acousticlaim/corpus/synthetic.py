"""Synthetic talkers: a source–filter speech synthesiser with known voice and timing parameters.

This is the embedded default corpus's speech. It exists so that the whole pipeline runs with nothing
downloaded, and so that the instruments have known answers to be checked against: each of Praat's
jitter (local), shimmer (local) and HNR (cc) ranks the talkers by its own generative parameter.

The model, per utterance:

* **Timeline.** Leading silence, then phrases separated by silent pauses of 0.35–0.9 s (longer than
  the 0.3-s minimum pause of de Jong & Wempe), then trailing silence. The number of pauses is the
  talker's ``pauses_per_min`` over the utterance's length, rounded at random. Each phrase is a run of
  syllables at the talker's *articulation rate*; a syllable is an unvoiced onset, a voiceless stop (a
  silent closure for its first ``ONSET_CLOSURE``, then the release: noise at ``ONSET_LEVEL`` of the vowel's
  RMS, mostly aspiration through the following vowel's formants), a voiced vowel nucleus, and a
  short ring-out of the vowel's formants tapered to silence, so the intensity dips well over 2 dB
  between nuclei.
* **Source.** A glottal pulse train at fractional sample positions (windowed-sinc impulses) whose
  periods follow an F0 contour: phrase declination, a slow drift and an accent per syllable, read once
  per syllable, so the pitch moves in the unvoiced onsets and only glides within a vowel; the contour's
  s.d. is ``f0_range_st`` semitones. The periods are perturbed cycle to cycle by independent Gaussian
  period noise (jitter) and the pulse amplitudes by amplitude noise (shimmer). For i.i.d. Gaussian
  perturbations of relative s.d. σ the mean absolute difference of consecutive values is 2σ/√π, so
  σ = J·√π/2 asks a local jitter (and likewise shimmer) of J. The vowel's gentle amplitude arch
  (``NUCLEUS_ARCH``) scales the pulses, not the output, and a one-pole tilt shapes them.
* **Filter.** Each nucleus goes through three formant resonators for one of five vowels, scaled by the
  talker's vocal-tract factor (about 1.0 male, 1.15 female), with the bandwidths of running speech
  (``BANDWIDTH_SCALE`` × the closed-glottis values); the filters ring out after the last pulse.
* **Breathiness.** Aspiration noise, high-passed above ``ASPIRATION_HIGHPASS_HZ``, under each vowel's
  envelope at ``breathiness`` × the voiced RMS: it lowers the harmonics-to-noise ratio.

:func:`draw_talkers` draws a split's panel from the ``corpus.talkers`` ranges of ``params.yaml`` (a
Latin hypercube: every range covered evenly, the female share exact), jitter, shimmer and breathiness
on one latent voice-quality factor; :func:`draw_utterance_duration` draws LibriSpeech-like utterance
lengths. All randomness comes from the generators and seeds passed in, so a clip is a pure function of
(talker, duration, seed) and a corpus of ``corpus.seed``.

Why shimmer read flat, and what each change bought
--------------------------------------------------

Measured with Praat's readings (:func:`acousticlaim.instruments.praat.read_voice`) on dry 5-s
utterances: Spearman ρ of each reading against its own parameter over talkers drawn independently
(20 unless said), one change at a time. ``tests/test_synthetic_talkers.py`` holds the floors on a
panel; ``benchmarks/corpus_vs_release.py`` prints the corpus's figures beside the released twins'.

* **Before** (white aspiration noise added at the source, so the vocal tract shaped it like the vowel;
  output envelope 0.75→1→0.75 with 6-ms fades; closed-glottis bandwidths; 16 talkers): jitter +0.90,
  **shimmer +0.05**, HNR −0.86, and shimmer ranked the talkers by *breathiness* (+0.89). One talker
  with every perturbation at zero read 1.8–3.7 % shimmer; breathiness 0.3 alone read 6.3–9.2 %; jitter
  2 % alone 3.9–6.9 %; asked shimmer 10 % alone 9.9–11.0 %. On the default corpus's reverberant twins
  shimmer followed the room's RT60 (ρ +0.44) instead.
* **Aspiration noise (the main cause).** Praat's shimmer compares the Hann-windowed RMS over ±0.2
  period around each pulse; noise with the vowel's spectrum (its energy under F1) adds to that RMS
  cycle by cycle. Noise high-passed above 1.5–2 kHz and added after the tract leaves the per-cycle peak
  energy alone but still counts fully in HNR: shimmer ρ 0.59 → 0.80, shimmer–breathiness +0.47 → −0.05,
  HNR ρ −0.75 → −0.94 (ranges 4–13 % shimmer, 1–3.5 % jitter, breathiness 0.12–0.6).
* **Glottal pulse and formant ringing.** With closed-glottis F1 bandwidths (60–90 Hz) the formants ring
  3.5–5 ms, as long as a 200-Hz period, so each cycle starts on the previous one's tail and a period
  perturbation becomes an amplitude perturbation: at F0 220 Hz jitter 3.5 % alone read shimmer 7.5 %
  (10.7 % at 7 syl/s). Doubling the bandwidths (open-phase, running-speech values): 4.5 %. With the arch
  cut to 8 %: shimmer ρ 0.83 → 0.95, jitter 0.94, HNR −0.95.
* **Syllable envelope.** A smooth amplitude change of ΔA per cycle adds |ΔA| to Praat's mean
  |A_i − A_(i+1)| when nothing else perturbs the cycle, so the old 25 % arch alone read about 0.55/N
  (N cycles per vowel: 2–5 %, more for low voices and fast talkers); once the asked shimmer is larger
  than the per-cycle trend the trend adds only to second order. Vowel onsets and offsets themselves are
  *not* a cause: Praat's amplitude factor 1.6 drops the pairs across an abrupt edge, and moving the
  envelope onto the pulses (no fade cutting into a cycle) changed ρ by under 0.01.
* **Vowel transitions and intonation (jitter).** A pitch accent inside a vowel is a period-to-period
  trend that jitter (local) reads as jitter; moving the pitch between syllables removes it. What is left:
  at 250 Hz an exactly periodic voice reads 0.42 % jitter (0.01 % at 100 Hz), Praat's cross-correlation
  placing pulses to about a sixth of a sample at 64-sample periods, so high voices read slightly high.
* **HNR's ceiling.** With almost no aspiration (0.03 of the voiced RMS, −30 dB) HNR (cc) reads 19.7 dB
  at jitter 0.5 % and 15.5 dB at 2.2 % (F0 120 Hz): period and amplitude perturbation decorrelate
  consecutive cycles as noise does. Drawn independently, jitter's share left ρ(HNR, breathiness) at
  −0.84 to −0.87. Real voices are rough in all three at once (the released twins: ρ +0.50 jitter–shimmer,
  −0.67 shimmer–HNR, −0.31 jitter–HNR), so the panel draws them on one latent factor (pairwise 0.4):
  ρ −0.91 to −0.96, jitter +0.94 to +0.97, shimmer +0.96 to +0.98 (panels of 30–32 talkers).
* **The room.** A reverberant tail, like formant ringing, lays earlier cycles over each cycle. Dry
  shimmer 10.5 % (6 talkers) read 11.7 % at RT60 0.18 s with the talker 0.3 m from the microphone and
  15.6 % at 1.5 m; 13.7 % and 19.2 % at RT60 0.45 s; HNR 9.0 dB dry read 8.2 / 6.2 and 7.2 / 4.8 dB.
  The direct-to-reverberant ratio matters as much as RT60, hence ``corpus.mic_distance_m`` for
  simulated rooms (:mod:`acousticlaim.corpus.rooms`). Per-RT60-band ρ on the reverberant twins is in the
  README's table (``benchmarks/corpus_vs_release.py``).
* **Onsets and HNR.** Praat's Harmonicity averages every frame above its silence threshold (0.1
  of the peak), so unvoiced onsets that pass it only for some voices pull HNR down by a share that
  differs between talkers: on a 32-talker panel, steady onsets at 0.2 of the vowel's RMS left
  ρ(HNR, breathiness) at −0.87 / −0.90 (two panels), at 0.1 −0.93 / −0.94. Onsets loud enough to pass
  it for every voice are a fixed share of every syllable, whatever the rate or the voice, and lower HNR
  by about the same for all: steady onsets at 0.5 left the dry ρ at −0.926, as at 0.1 (100 twins).

Why SRMR read high, and the stop releases
-----------------------------------------

SRMR (:mod:`acousticlaim.instruments.srmr`) is the modulation energy at 4–18 Hz over that at 28–128 Hz,
summed over 23 gammatone channels. Figures on the default corpus's 200 test twins
(``benchmarks/corpus_vs_release.py``; Q1 / median / Q3) unless said.

* **Before** (onsets of steady pre-emphasised noise at 0.1 of the vowel's RMS): SRMR 2.94 / 5.97 / 7.17
  against the released twins' 2.80 / 3.87 / 5.39, and it followed the talker's F0 (ρ +0.88; released
  +0.23), not the room (ρ −0.09 against RT60): twins under 165 Hz read a median 2.72 and those above
  7.14, where the released twins under and over 160 Hz read 3.40 and 4.25.
* **Why.** About 95 % of the synthetic voice's modulation energy lies in the channels under 1.6 kHz
  (18–57 % of it lies above in five LibriVox readings and CMU ARCTIC's a0007). In those channels each
  syllable was a clean on/off envelope at the syllable rate, and little reached the upper modulation bands but a
  low voice's F0: fast mode's 16-ms spectrogram window still passes pitch modulation up to about 170 Hz
  (one talker at 170 Hz read 4.88, at 210 Hz 7.10, 250 Hz 7.68), and abrupt vowel edges (softer edges
  raise SRMR: a 30 % amplitude arch 9.56 against 8 %'s 7.10; formant transitions over 50 ms into and out
  of each vowel, F1 from 0.6 of its target, put the median of 100 twins at 8.4).
* **Not the rooms.** The released twins are reverberated with recorded room responses, and a strong room
  does lower SRMR (RT60 0.49 s at 1.5–2 m: a 210-Hz synthetic talker 6.6 → 3.9, a studio female voice,
  CMU ARCTIC a0009, 21.1 → 6.1). But the default rooms barely move it (talkers 1–2.5 m away: median
  6.11 over 100 twins), and rooms reverberant enough to (Sabine RT60 0.3–0.9 s at 0.15–0.4 m: 4.47)
  smear shimmer (11.8 %, +22 % on the released median; ρ against its parameter +0.11) and HNR (9.1 dB,
  −18 %), undoing what the corpus is for. The rooms stay as they are.
* **The voice.** A real syllable's consonant is not a steady hiss: a voiceless stop is a silent closure,
  then a release burst of a few milliseconds. The steps into and out of the burst put energy into the
  fast modulation bands of every channel, where steady noise only lifts the floor of the slow ones.
  Louder steady noise (0.5 of the vowel's RMS, 100 twins) brought SRMR only to 4.93, filled the intensity
  dips between nuclei, so the syllable count read 3.58 syllables/s (−31 %), and lowered HNR to 7.3 dB
  (−34 %). A release aspirated through the following vowel's formants lowered SRMR too, but Silero VAD
  (the overlap windows, :mod:`acousticlaim.instruments.overlap`) then missed up to 93 % of a slow
  talker's speech (4 syllables/s), so the burst is frication alone.
* **The fix: stops.** Each onset is now a silent closure for its first ``ONSET_CLOSURE`` = 75 %, then the
  release burst, pre-emphasised noise at ``ONSET_LEVEL`` = 0.4 of the vowel's RMS. Twins: SRMR 2.45 /
  3.92 / 4.57 (+1 %, interquartile ranges overlapping 0.68 of the wider), talkers over 165 Hz 4.42
  (released twins reading over 160 Hz: 4.25); speaking rate 5.32 (+3 %); HNR 10.4 dB (−6 %); jitter
  1.98 % (−8 %), shimmer 8.78 % (−9 %); all ten scored quantities hold (the README's table). Dry ρ on
  the test panel of ``tests/test_synthetic_talkers.py``: jitter 0.982, shimmer 0.980, HNR −0.939 (before
  0.978, 0.982, −0.940); on the default corpus's 20 test talkers 0.965, 0.977, −0.937 (before 0.965, 0.985,
  −0.940). On the twins ρ against the parameter: jitter +0.72, shimmer +0.38, HNR +0.75 (before +0.63,
  +0.32, +0.71). Silero VAD finds at least 93 % of every talker's speech (12 talkers, at 4 and at 6.5
  syllables/s).
* **What is left.** SRMR still follows F0 more than the released twins' does (ρ +0.85): the low voices
  (under 165 Hz) read a median 2.38 against the released 3.40, since an impulse source with running-speech
  bandwidths lets each cycle's envelope fall back before the next, a deeper pitch modulation than a real
  voice's (formant bandwidths ×1.5 instead of ×2 took it only from 2.28 to 2.5 with aspirated releases);
  and SRMR does not follow the room (ρ −0.11 against RT60), because the rooms are mild.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
from scipy.signal import butter, lfilter, sosfilt
from scipy.stats import norm

from acousticlaim.params import reject_unknown_keys

SR = 16_000

# Vowel formants (Hz) for an adult male tract (Peterson & Barney-like averages) and their closed-glottis
# bandwidths; BANDWIDTH_SCALE widens them to running-speech (open-phase) values, see the docstring.
_VOWELS = {
    "a": ((730, 1090, 2440), (90, 110, 160)),
    "e": ((530, 1840, 2480), (70, 100, 150)),
    "i": ((270, 2290, 3010), (60, 90, 150)),
    "o": ((570, 840, 2410), (80, 90, 150)),
    "u": ((300, 870, 2240), (60, 90, 140)),
}
_VOWEL_KEYS = tuple(_VOWELS)
BANDWIDTH_SCALE = 2.0
PULSE_HALF_TAPS = 24  # the fractional-delay impulse spans ±24 samples (±1.5 ms)
GLOTTAL_TILT_POLES = (0.9,)  # spectral tilt of the pulses, one-pole sections (lip radiation folded in)
NUCLEUS_ARCH = 0.08  # the vowel's amplitude arch on the pulses: 1 - ARCH at its edges, 1 at its centre
ASPIRATION_HIGHPASS_HZ = 2000.0  # aspiration noise lies above this (4th-order Butterworth)
# Each syllable's unvoiced onset is a voiceless stop: a closure (silence) for its first ONSET_CLOSURE, then the
# release burst, pre-emphasised noise (s.d.) at ONSET_LEVEL of the voiced RMS. See the docstring on SRMR.
ONSET_CLOSURE = 0.75
ONSET_LEVEL = 0.4


@dataclass(frozen=True)
class TalkerRanges:
    """The drawing ranges of the synthetic talkers (``params.yaml``: ``corpus.talkers``).

    Pairs ``[lo, hi]`` are drawn uniformly (``breathiness`` log-uniformly; jitter, shimmer and
    breathiness through one shared voice-quality factor, pairwise correlation
    ``voice_quality_correlation``); ``f0_male_hz`` and
    ``f0_female_hz`` are a log-normal register ``[median, sigma]``; ``utterance_s`` is the log-normal
    duration of one utterance ``[median, sigma, shortest, longest]`` (a mixture lasts as long as the
    shorter of its two, LibriMix's "min" mode).
    """

    female_share: float = 0.5
    f0_male_hz: tuple[float, float] = (128.0, 0.16)
    f0_female_hz: tuple[float, float] = (205.0, 0.12)
    f0_limits_hz: tuple[float, float] = (82.0, 300.0)
    f0_range_st: tuple[float, float] = (1.5, 4.5)
    jitter_pct: tuple[float, float] = (0.45, 2.3)
    shimmer_pct: tuple[float, float] = (3.5, 9.0)
    breathiness: tuple[float, float] = (0.03, 0.3)
    voice_quality_correlation: float = 0.4
    articulation_rate: tuple[float, float] = (6.5, 9.5)
    pauses_per_min: tuple[float, float] = (8.0, 34.0)
    utterance_s: tuple[float, float, float, float] = (6.0, 0.45, 2.5, 20.0)

    @classmethod
    def from_params(cls, params: dict[str, Any] | None) -> "TalkerRanges":
        """The ranges of a ``corpus.talkers`` mapping (missing keys keep their defaults)."""
        params = dict(params or {})
        reject_unknown_keys("corpus.talkers", params, cls)
        values = {}
        for f in fields(cls):
            if f.name not in params:
                continue
            v = params[f.name]
            default = getattr(cls, f.name)
            if isinstance(default, tuple):
                if not isinstance(v, (list, tuple)) or len(v) != len(default):
                    raise ValueError(f"corpus.talkers.{f.name}: expected a list of {len(default)} numbers, got {v!r}")
                v = tuple(float(x) for x in v)
            else:
                v = float(v)
            values[f.name] = v
        ranges = cls(**values)
        for name in ("f0_limits_hz", "f0_range_st", "jitter_pct", "shimmer_pct", "breathiness",
                     "articulation_rate", "pauses_per_min"):
            lo, hi = getattr(ranges, name)
            if not 0 <= lo <= hi:
                raise ValueError(f"corpus.talkers.{name}: need 0 <= lo <= hi, got [{lo}, {hi}]")
        if not 0.0 <= ranges.voice_quality_correlation < 1.0:
            raise ValueError("corpus.talkers.voice_quality_correlation: a correlation in [0, 1), got "
                             f"{ranges.voice_quality_correlation}")
        if not 0.0 <= ranges.female_share <= 1.0:
            raise ValueError(f"corpus.talkers.female_share: a share in [0, 1], got {ranges.female_share}")
        if ranges.breathiness[0] <= 0:
            raise ValueError("corpus.talkers.breathiness: drawn log-uniformly, so the lower end must be > 0")
        return ranges


@dataclass(frozen=True)
class TalkerParams:
    """The generative parameters of one synthetic talker (all recorded in the manifest)."""

    talker_id: str
    sex: str  # "male" | "female"
    f0_hz: float  # register: median F0
    f0_range_st: float  # intonation: s.d. of the F0 contour in semitones
    jitter_pct: float  # asked local jitter, percent
    shimmer_pct: float  # asked local shimmer, percent
    breathiness: float  # aspiration noise RMS relative to the voiced speech RMS
    articulation_rate: float  # syllables per second of phonation
    pauses_per_min: float  # pauses per minute of speech (each utterance draws its count from it)
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


def _stratified(rng: np.random.Generator, n: int, order: np.ndarray | None = None) -> np.ndarray:
    """``n`` uniform quantiles, one in each of the ``n`` equal strata of [0, 1] (a Latin hypercube
    column), assigned in ``order``'s rank order (at random when None)."""
    ranks = rng.permutation(n) if order is None else np.argsort(np.argsort(order))
    return (ranks + rng.random(n)) / n


def _scaled(u: np.ndarray, lo_hi: tuple[float, float], log: bool = False) -> np.ndarray:
    lo, hi = (np.log(lo_hi[0]), np.log(lo_hi[1])) if log else lo_hi
    x = lo + u * (hi - lo)
    return np.exp(x) if log else x


def draw_talkers(rng: np.random.Generator, talker_ids: list[str], ranges: TalkerRanges | None = None) -> list[TalkerParams]:
    """A panel of talkers that covers ``ranges`` (``corpus.talkers``; the defaults when None) evenly.

    Each parameter is a Latin-hypercube column: the talkers take one value from each of ``n`` equal
    strata of its range, so a panel of 20 spreads over the whole range rather than wherever 20 random
    draws fall, and the female share is exact (rounded). Jitter, shimmer and breathiness share one
    latent voice-quality factor (Gaussian copula, pairwise correlation ``voice_quality_correlation``):
    a rough voice is rough in period, amplitude and noise at once, as the released LibriMix twins read
    (Spearman ρ +0.50 jitter–shimmer, −0.67 shimmer–HNR, −0.31 jitter–HNR).
    """
    r = ranges or TalkerRanges()
    n = len(talker_ids)
    if n == 0:
        return []
    n_female = int(np.floor(r.female_share * n + rng.random()))  # exact share, the remainder at random
    female = rng.permutation(np.arange(n) < n_female)
    register = norm.ppf(np.clip(_stratified(rng, n), 1e-6, 1 - 1e-6))
    c = r.voice_quality_correlation
    latent = rng.standard_normal(n)
    quality = [_stratified(rng, n, np.sqrt(c) * latent + np.sqrt(1 - c) * rng.standard_normal(n)) for _ in range(3)]
    jitter = _scaled(quality[0], r.jitter_pct)
    shimmer = _scaled(quality[1], r.shimmer_pct)
    breathiness = _scaled(quality[2], r.breathiness, log=True)
    f0_range = _scaled(_stratified(rng, n), r.f0_range_st)
    rate = _scaled(_stratified(rng, n), r.articulation_rate)
    pauses = _scaled(_stratified(rng, n), r.pauses_per_min)
    talkers = []
    for i, talker_id in enumerate(talker_ids):
        median, sigma = r.f0_female_hz if female[i] else r.f0_male_hz
        f0 = float(np.clip(median * np.exp(sigma * register[i]), *r.f0_limits_hz))
        formant_scale = float(rng.uniform(1.10, 1.20) if female[i] else rng.uniform(0.95, 1.05))
        talkers.append(TalkerParams(
            talker_id=talker_id,
            sex="female" if female[i] else "male",
            f0_hz=round(f0, 2),
            f0_range_st=round(float(f0_range[i]), 3),
            jitter_pct=round(float(jitter[i]), 3),
            shimmer_pct=round(float(shimmer[i]), 3),
            breathiness=round(float(breathiness[i]), 4),
            articulation_rate=round(float(rate[i]), 3),
            pauses_per_min=round(float(pauses[i]), 2),
            formant_scale=round(formant_scale, 3),
        ))
    return talkers


def draw_talker(rng: np.random.Generator, talker_id: str, ranges: TalkerRanges | None = None) -> TalkerParams:
    """Draw one talker's parameters from ``ranges`` (a panel of one: every parameter uniform in its range)."""
    return draw_talkers(rng, [talker_id], ranges)[0]


def draw_utterance_duration(rng: np.random.Generator, ranges: TalkerRanges | None = None) -> float:
    """One utterance's duration in seconds (log-normal, clipped; ``corpus.talkers.utterance_s``)."""
    median, sigma, shortest, longest = (ranges or TalkerRanges()).utterance_s
    return float(np.clip(rng.lognormal(np.log(median), sigma), shortest, longest))


def _pause_count(p: TalkerParams, duration_s: float, rng: np.random.Generator) -> int:
    """Pauses in one utterance: the talker's rate over its duration, rounded at random (unbiased)."""
    expected = p.pauses_per_min * duration_s / 60.0
    return int(np.floor(expected + rng.random()))


def _timeline(p: TalkerParams, duration_s: float, rng: np.random.Generator):
    lead = rng.uniform(0.1, 0.3)
    trail = rng.uniform(0.15, 0.35)
    n_pauses = _pause_count(p, duration_s, rng)
    pauses = rng.uniform(0.35, 0.9, size=n_pauses)
    speech = duration_s - lead - trail - pauses.sum()
    n_phr = n_pauses + 1
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
    """(onset_start, nucleus_start, nucleus_end, syllable_end) per syllable; the nucleus's formants
    ring out in the last 8 % of the syllable."""
    syl = []
    for a, b in phrases:
        n = max(1, int(round((b - a) * rate)))
        w = rng.uniform(0.85, 1.15, size=n)
        edges = a + (b - a) * np.concatenate([[0.0], np.cumsum(w) / w.sum()])
        for s, e in zip(edges[:-1], edges[1:]):
            onset = (e - s) * rng.uniform(0.2, 0.3)
            syl.append((s, s + onset, e - 0.08 * (e - s), e))
    return syl


def _f0_contour(p: TalkerParams, n: int, phrases, syl, rng: np.random.Generator) -> np.ndarray:
    """F0 in Hz per sample: phrase declination, an accent per syllable and a slow drift, read off once per
    syllable; within the syllable F0 only glides (a straight line in semitones).

    The pitch moves between syllables, in the unvoiced onsets, so the intonation (``f0_range_st``) gives
    the F0 s.d. without a period-to-period trend inside the vowels: jitter (local) reads the jitter.
    """
    t = np.arange(n) / SR
    st = np.zeros(n)
    for a, b in phrases:  # declination over each phrase
        m = (t >= a) & (t < b)
        st[m] = 1.2 * (1 - 2 * (t[m] - a) / max(b - a, 1e-3))
    st += np.interp(t, np.linspace(0, t[-1] if n > 1 else 1, 12), rng.normal(0, 1.0, 12))  # slow drift
    for os_, ns, ne, se in syl:  # the syllable's level (with its accent) and a glide across it
        lo, hi = int(os_ * SR), min(n, int(se * SR))
        if hi <= lo:
            continue
        centre = min(n - 1, int(0.5 * (ns + ne) * SR))
        level = st[centre] + rng.normal(0, 0.6)
        glide = rng.normal(0, 0.1) * np.linspace(-0.5, 0.5, hi - lo)
        st[lo:hi] = level + glide
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
    half = PULSE_HALF_TAPS
    out = np.zeros(n + 2 * half + 2)
    taps = np.arange(-half, half + 1)
    pos = 0.0
    while pos < n - 1:
        i = int(pos)
        period = SR / f0[i]
        if voiced[i]:
            amp = 1.0 + sig_s * rng.standard_normal()
            frac = pos - i
            # a fractional-delay impulse: a sinc under a Hann window centred on the pulse itself, so every
            # pulse has the same spectrum whatever its sub-sample position (a fixed window would move the
            # high harmonics' phase with the fraction and read as jitter, most at high F0)
            x = taps - frac
            k = np.sinc(x) * (0.5 + 0.5 * np.cos(np.pi * np.clip(x / (half + 1), -1, 1)))
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
        r = np.exp(-np.pi * bw * BANDWIDTH_SCALE * scale / SR)
        a1, a2 = -2 * r * np.cos(2 * np.pi * f / SR), r * r
        g = 1 + a1 + a2  # unit gain at DC
        sos.append([g, 0, 0, 1, a1, a2])
    return np.asarray(sos)


def synthesize_talker(p: TalkerParams, duration_s: float, seed: int) -> Utterance:
    """Synthesise one utterance of ``duration_s`` seconds by talker ``p`` (peak-free, voiced RMS 0.05)."""
    rng = np.random.default_rng(seed)
    n = int(round(duration_s * SR))
    phrases, pauses = _timeline(p, duration_s, rng)
    syl = _syllables(phrases, p.articulation_rate, rng)
    f0 = _f0_contour(p, n, phrases, syl, rng)

    voiced = np.zeros(n, dtype=bool)
    arch = np.ones(n)
    for _, ns, ne, _ in syl:
        a, b = int(ns * SR), int(ne * SR)
        voiced[a:b] = True
        arch[a:b] = 1.0 - NUCLEUS_ARCH + NUCLEUS_ARCH * np.sin(np.linspace(0, np.pi, b - a))
    # the vowel's envelope scales the pulses, so each cycle starts at its own amplitude and the filters
    # ring out after the last one: no sample-wise fade cuts into a glottal cycle
    pulses = _pulse_train(f0, voiced, p, rng) * arch
    source = pulses
    for pole in GLOTTAL_TILT_POLES:
        source = lfilter([1.0 - pole], [1.0, -pole], source)
    noise = rng.standard_normal(n)
    highpass = butter(4, ASPIRATION_HIGHPASS_HZ, "highpass", fs=SR, output="sos")

    voice = np.zeros(n)
    aspiration = np.zeros(n)
    onsets = np.zeros(n)
    nuclei = []
    for os_, ns, ne, se in syl:
        a, b = int(ns * SR), int(ne * SR)
        end = min(n, int(se * SR))
        vowel = _VOWELS[_VOWEL_KEYS[rng.integers(len(_VOWEL_KEYS))]]
        gain = rng.uniform(0.7, 1.0)
        vowel_out = sosfilt(_resonator_sos(*vowel, p.formant_scale), source[a:end]) * gain
        if end > b:  # the ring-out after the last pulse, tapered to silence by the syllable's end
            vowel_out[b - a :] *= 0.5 + 0.5 * np.cos(np.linspace(0, np.pi, end - b))
        voice[a:end] += vowel_out
        # aspiration: high-passed noise under the vowel's envelope (5-ms raised-cosine edges)
        seg = sosfilt(highpass, noise[a:b])
        env = arch[a:b] * gain
        fade = min((b - a) // 2, int(0.005 * SR))
        if fade > 0:
            ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))
            env = env.copy()
            env[:fade] *= ramp
            env[-fade:] *= ramp[::-1]
        aspiration[a:b] += seg / (np.sqrt(np.mean(seg**2)) + 1e-12) * env
        nuclei.append((ns, ne))
        # unvoiced onset: a stop's closure (silence), then its release up to the vowel (2-ms edges); the
        # closure keeps the intensity dip between nuclei that the syllable count needs
        oa, ob = int(os_ * SR), a
        if ob > oa:
            oa += int(ONSET_CLOSURE * (ob - oa))
            edge = np.minimum(1.0, np.minimum(np.arange(ob - oa) + 1, np.arange(ob - oa)[::-1] + 1) / (0.002 * SR))
            burst = rng.standard_normal(ob - oa) * edge
            onsets[oa:ob] += lfilter([1, -0.95], [1], burst)
    voice_rms = np.sqrt(np.mean(voice[voiced] ** 2)) if voiced.any() else 1.0
    out = voice + (aspiration * p.breathiness + onsets * ONSET_LEVEL) * voice_rms
    rms = np.sqrt(np.mean(out[voiced] ** 2)) if voiced.any() else 1.0
    out *= 0.05 / rms
    return Utterance(out, SR, nuclei=nuclei, pauses=pauses, sounding=phrases)
