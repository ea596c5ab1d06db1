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

from dataclasses import dataclass, field
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
