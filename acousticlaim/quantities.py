"""The registry of the 13 quantities (``../shared/SPEC.md`` §1).

Every part of AcoustiClaim — the parser, the instruments, the scorer, the reference system — names a
quantity by the key defined here and reads its unit, its scoring status and its tier from here.
There is no second list of quantities anywhere in the project.

Tiers say where the reference sits relative to the signal a model hears:

* ``exact``       — fixed by the signal the model hears;
* ``measurable``  — a mixing parameter;
* ``stem_only``   — read on the clean stem the model never hears;
* ``masked``      — read on the mixture outside the overlap windows;
* ``excluded``    — not scored on that corpus.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Mapping


class Tier(str, Enum):
    EXACT = "exact"
    MEASURABLE = "measurable"
    STEM_ONLY = "stem_only"
    MASKED = "masked"
    EXCLUDED = "excluded"


class Corpus(str, Enum):
    """Corpus conditions a reference can be read on."""

    LIBRIMIX = "librimix"  # Libri2Mix-style two-talker mixtures (and the synthetic default built the same way)
    TWIN = "twin"  # the clean twin of a mixture: every reference read on the twin itself
    AMI = "ami"  # distant-microphone meeting clips, zero-shot


@dataclass(frozen=True)
class Quantity:
    key: str
    name: str
    unit: str  # canonical unit, as the parser converts to it
    scored: bool
    instrument: str
    tiers: Mapping[Corpus, Tier] = field(default_factory=dict)
    # Column names used by the paper's released reference tables, per corpus.
    release_columns: Mapping[str, str] = field(default_factory=dict)
    integer: bool = False
    # The names, abbreviations and label forms the parser reads this quantity under (SPEC §1, "What
    # counts as a claim", rule 1). Matched in any case, with hyphens, underscores and camelCase
    # splits ignored ("F0_stddev", "SpeechRate", "PAUSE_num"), "/" read as "per" and "%" as
    # "percent". The Rust parser builds its vocabulary from these lists (parser_rs/build.rs); it has
    # no list of its own. A label not here is not read, however close its spelling: `acousticlaim
    # audit-parser` lists such labels so that a person can decide whether one belongs here.
    aliases: tuple[str, ...] = ()

    def tier(self, corpus: Corpus | str) -> Tier | None:
        """The tier of this quantity on ``corpus`` (``None`` for unscored quantities)."""
        return self.tiers.get(Corpus(corpus))


def _voice_tiers(on_mixture: Tier) -> dict[Corpus, Tier]:
    return {Corpus.LIBRIMIX: on_mixture, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT}


_QUANTITIES: tuple[Quantity, ...] = (
    Quantity(
        "snr", "signal-to-noise ratio", "dB", True,
        "mixing SNR 10·log10(P_speech/P_noise); AMI: 90th/10th percentile frame-energy dynamic range",
        {Corpus.LIBRIMIX: Tier.MEASURABLE, Corpus.TWIN: Tier.MEASURABLE, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "snr_db", "ami": "snr_db"},
    ),
    Quantity(
        "srmr", "speech-to-reverberation modulation energy ratio", "ratio", True,
        "SRMR (Falk et al. 2010), SRMRpy parameters",
        {Corpus.LIBRIMIX: Tier.EXACT, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT},
        {"librimix": "srmr", "ami": "srmr"},
    ),
    Quantity(
        "speaking_rate", "speaking rate", "syllables/s", True,
        "syllable nuclei (de Jong & Wempe) / total stem duration",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT},
        {"librimix": "praat_speaking_rate_syl_sec", "ami": "praat_speaking_rate_syl_sec"},
    ),
    Quantity(
        "pause_count", "number of pauses", "count", True,
        "silent intervals >= 0.3 s between sounding intervals",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "praat_pause_count", "ami": "praat_pause_count"},
        integer=True,
    ),
    Quantity(
        "pause_rate", "pause rate", "pauses/min", True,
        "pause_count / stem duration in minutes",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "praat_pause_rate_per_min", "ami": "praat_pause_rate_per_min"},
    ),
    Quantity(
        "f0_mean", "mean fundamental frequency", "Hz", True,
        "Praat To Pitch (ac) 75-500 Hz, mean over voiced frames outside overlap windows",
        _voice_tiers(Tier.MASKED),
        {"librimix": "f0_mean_hz", "ami": "f0_mean_hz"},
    ),
    Quantity(
        "f0_sd", "F0 standard deviation", "Hz", True,
        "Praat To Pitch (ac) 75-500 Hz, s.d. over the same frames as f0_mean",
        _voice_tiers(Tier.MASKED),
        {"librimix": "f0_sd_hz", "ami": "f0_sd_hz"},
    ),
    Quantity(
        "jitter", "jitter (local)", "%", True,
        "Praat PointProcess (periodic, cc), Get jitter (local) 0 0 0.0001 0.02 1.3",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "jitter_local_pct", "ami": "jitter_local_pct"},
    ),
    Quantity(
        "shimmer", "shimmer (local)", "%", True,
        "Praat Get shimmer (local) 0 0 0.0001 0.02 1.3 1.6",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "shimmer", "ami": "shimmer_pct"},
    ),
    Quantity(
        "hnr", "harmonics-to-noise ratio", "dB", True,
        "Praat To Harmonicity (cc) 0.01 75 0.1 1.0, mean",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "hnr", "ami": "hnr_db"},
    ),
    Quantity(
        "overlap_ratio", "share of the clip where the talkers overlap", "fraction", False,
        "echoes a mixing input",
        {},
        {"librimix": "overlap_ratio", "ami": "overlap_ratio"},
    ),
    Quantity(
        "articulation_rate", "articulation rate", "syllables/s", False,
        "syllable nuclei / phonation time",
        {},
        {"librimix": "praat_articulation_rate_syl_sec", "ami": "praat_articulation_rate_syl_sec"},
    ),
    Quantity(
        "duration", "duration of the recording", "s", False,
        "the clip's length",
        {},
        {"ami": "duration_sec"},
    ),
)

# Each quantity's names (see ``Quantity.aliases``). F0 mean and F0 s.d. are also read as a pitch
# name with a mean word or a spread word beside it, in either order ("mean F0", "F0 SD", "Std. dev.
# of F0", "pitch variability", "SD around 15 Hz" once pitch is named): the three lists below.
_ALIASES: dict[str, tuple[str, ...]] = {
    "snr": (
        "SNR", "SNRs", "signal-to-noise ratio", "signal-to-noise ratios", "signal-to-noise", "signal noise ratio",
        "signal and noise ratio", "S/N ratio", "S/N", "SN ratio", "sound-to-noise ratio", "sound-to-noise",
        "speech-to-noise ratio", "speech-to-noise", "signal-to-noise level", "SNR value",
    ),
    "srmr": (
        "SRMR", "speech-to-reverberation modulation energy ratio", "speech-to-reverberation modulation ratio",
        "speech-to-reverberation modulation", "speech-to-reverberation energy ratio",
        "speech-to-reverberant modulation energy ratio", "speech reverberation modulation energy ratio",
        "reverberation modulation energy ratio", "modulation energy ratio",
    ),
    "speaking_rate": (
        "speaking rate", "speaking rates", "speech rate", "speech rates", "speaking speed", "speech speed",
        "speaking pace", "speech pace", "speaking tempo", "speech tempo", "rate of speech", "rate of speaking",
        "talking rate", "talking speed", "syllable rate", "syllabic rate", "speakingrate", "speechrate",
        "delivery rate", "rate of delivery", "speed of speech", "pace of speech", "tempo of speech",
        "speaking rate SR",
    ),
    "pause_count": (
        "number of pauses", "number of pause", "number of the pauses", "pause count", "pauses count",
        "count of pauses", "num pauses", "num of pauses", "number pauses", "total pauses", "total number of pauses",
        "pause number", "pauses number", "pause num", "pauses num", "pause counts", "pauses", "pause",
        "total pause count", "number of silent pauses", "silent pauses", "number of silences", "silence count",
        "pause total", "pauses total", "pauses detected", "number of pauses detected", "pause总数",
    ),
    "pause_rate": (
        "pause rate", "pause rates", "rate of pauses", "rate of pausing", "pausing rate", "pause frequency",
        "frequency of pauses", "pauserate", "pauses rate", "pause rate PR",
    ),
    "f0_mean": ("F0mean", "F0avg", "avgF0", "meanF0", "F0 mean", "mean F0"),
    "f0_sd": (
        "F0SD", "F0std", "F0stdev", "F0stddev", "F0dev", "F0 SD", "pitch variability", "pitch variation",
        "F0 variability", "F0 variation", "pitch spread", "F0 spread",
    ),
    "jitter": ("jitter", "jitters", "local jitter", "jitter local", "jit", "jitt"),
    "shimmer": ("shimmer", "shimmers", "local shimmer", "shimmer local", "shim"),
    "hnr": (
        "HNR", "HNRs", "harmonics-to-noise ratio", "harmonic-to-noise ratio", "harmonics-to-noise ratios",
        "harmonic-to-noise ratios", "harmonics-to-noise", "harmonic-to-noise", "harmonic noise ratio",
        "harmonics noise ratio", "harmonicity", "H/N ratio", "H/N", "harmonics-to-noise ratio HNR",
    ),
    "overlap_ratio": (
        "overlap", "overlap ratio", "overlap fraction", "overlap percentage", "overlap proportion",
        "overlapping speech", "overlapped speech", "speech overlap", "overlap rate", "overlapratio",
        "proportion of overlap", "percentage of overlap", "degree of overlap", "amount of overlap", "overlapping",
        "talker overlap", "overlaps", "overlapped", "overlap between speakers", "overlap between the speakers",
        "overlap between talkers",
    ),
    "articulation_rate": (
        "articulation rate", "articulation rates", "articulatory rate", "rate of articulation", "articulation speed",
        "articulationrate", "articulation tempo",
    ),
    # read as the recording's duration unless the sentence is about pauses ("each pause lasts 0.4 s")
    "duration": (
        "duration", "length", "total duration", "total length", "recording duration", "clip duration",
        "audio duration", "file duration", "recording length", "clip length", "audio length", "lasts", "lasting",
        "runtime", "running time", "duration of the recording", "duration of the clip", "duration of the audio",
        "length of the recording", "length of the clip", "length of the audio",
    ),
}
# Names of pitch whose mean or spread is still open ("F0", "pitch"), and the words that settle it.
PITCH_NAMES: tuple[str, ...] = (
    "F0", "Fo", "fundamental frequency", "fundamental frequencies", "fundamental", "fundamental freq",
    "pitch", "voice pitch", "vocal pitch", "F0s", "pitched",
)
PITCH_MEAN_WORDS: tuple[str, ...] = ("mean", "average", "avg", "median", "averaged")
PITCH_SPREAD_WORDS: tuple[str, ...] = (
    "SD", "std", "stdev", "stddev", "std dev", "standard deviation", "standard deviations", "st dev", "sigma", "σ",
    "s d", "variability", "spread",
)

_QUANTITIES = tuple(replace(q, aliases=_ALIASES[q.key]) for q in _QUANTITIES)
QUANTITIES: dict[str, Quantity] = {q.key: q for q in _QUANTITIES}
ALL_KEYS: tuple[str, ...] = tuple(q.key for q in _QUANTITIES)
SCORED_KEYS: tuple[str, ...] = tuple(q.key for q in _QUANTITIES if q.scored)
# The five voice quantities that the reference system declines on high-overlap clips.
VOICE_KEYS: tuple[str, ...] = ("f0_mean", "f0_sd", "jitter", "shimmer", "hnr")
# The three read on Praat's half-stem readings for split-half reliability.
SPLIT_HALF_KEYS: tuple[str, ...] = ("jitter", "shimmer", "hnr")


def get(key: str) -> Quantity:
    """The quantity registered under ``key``; a clear error for an unknown key."""
    try:
        return QUANTITIES[key]
    except KeyError:
        raise KeyError(f"unknown quantity {key!r}; known quantities: {', '.join(ALL_KEYS)}") from None


def release_column_map(corpus: str) -> dict[str, str]:
    """Map release-table column name → quantity key for a released reference table."""
    return {q.release_columns[corpus]: q.key for q in _QUANTITIES if corpus in q.release_columns}
