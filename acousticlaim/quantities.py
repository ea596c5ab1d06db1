"""The registry of the 13 quantities (``../shared/SPEC.md`` §1).

Every part of AcoustiClaim — the parser, the instruments, the scorer, the reference system — names a
quantity by the key defined here and reads from its entry what it needs: unit, scoring status, tier and
the signal read on per corpus, the definition of its instrument, the labels of both tables, the decimals
and sentences the local systems and the reference system's descriptions state it with, its place in
the prompts and tables, whether it is a voice quantity or read on half-stems, and units kept as stated
(shimmer in dB). There is no second list of quantities anywhere in the project: a quantity added here
appears in the templates and both tables with no other edit.

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


# The signal a clip's reading is taken on when the registry names no other: the mixture itself, the clean
# twin itself, the AMI channel the models hear.
OWN_SIGNAL: Mapping[Corpus, str] = {Corpus.LIBRIMIX: "mixture", Corpus.TWIN: "twin", Corpus.AMI: "channel"}
# The groups of the free description (P0_free), in the order it states them, with their openings.
FREE_GROUPS: Mapping[str, str] = {"channel": "The recording has ", "timing": "The talker speaks ",
                                  "voice": "The voice has "}


@dataclass(frozen=True)
class Phrases:
    """How the local systems and the reference system state a quantity; ``{}`` is the value."""

    template: str  # P3_template / P4_fewshot, in the released template's exact wording
    unmeasurable: str  # the same template sentence when the value is undefined
    named: str  # P2_named: "the <name> is {} <unit>" (the part before " is {}" names it when unmeasurable)
    numeric: str  # P1_numeric: a compact "<name> {} <unit>" item
    short_name: str  # P1_numeric's name of the quantity when it is unmeasurable
    free: str  # P0_free: a phrase inside its group's sentence
    description: str  # the reference system's second training phrasing (the first is ``template``)

    @property
    def named_name(self) -> str:
        return self.named.split(" is {}")[0]


@dataclass(frozen=True)
class Quantity:
    key: str
    name: str
    unit: str  # canonical unit, as the parser converts to it
    scored: bool
    definition: str  # how the instrument reads it, in words (SPEC §1)
    tiers: Mapping[Corpus, Tier] = field(default_factory=dict)
    # Column names used by the paper's released reference tables, per corpus.
    release_columns: Mapping[str, str] = field(default_factory=dict)
    integer: bool = False
    # The signal the reference is read on, per corpus condition, where it is not the clip's own
    # (OWN_SIGNAL): "stem" (the target talker's clean stem), "masked_mixture" (outside overlap windows).
    signals: Mapping[Corpus, str] = field(default_factory=dict)
    label: str = ""  # Table 1's row name
    heading: str = ""  # Table 2's column heading
    decimals: int = 2  # decimal places a value is stated with
    prompt_order: int | None = None  # place in the prompts' list of quantities (P2–P4); scored only
    table_order: int | None = None  # place in both tables; scored only
    free_group: str | None = None  # the sentence of the free description it sits in (FREE_GROUPS)
    phrases: Phrases | None = None  # scored only
    voice: bool = False  # a voice quantity: declined on high-overlap clips by the reference system
    split_half: bool = False  # read on Praat's half-stem readings too (split-half reliability)
    extra_units: tuple[str, ...] = ()  # units kept as stated and never scored against ``unit`` (shimmer in dB)
    reader: str = ""  # the reader of acousticlaim.instruments.readers that reads it (snr, srmr, timing, voice, …)
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

    def signal(self, corpus: Corpus | str) -> str:
        """The signal the reference is read on for ``corpus`` (``stem``, ``mixture``, ``twin``, …)."""
        corpus = Corpus(corpus)
        return self.signals.get(corpus, OWN_SIGNAL[corpus])

    def format_value(self, value: float) -> str:
        """The value as stated: counts as integers, others with this quantity's decimals."""
        if self.integer:
            return str(int(round(value)))
        return f"{value:.{self.decimals}f}"


def _voice_tiers(on_mixture: Tier) -> dict[Corpus, Tier]:
    return {Corpus.LIBRIMIX: on_mixture, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT}


_QUANTITIES: tuple[Quantity, ...] = (
    Quantity(
        "snr", "signal-to-noise ratio", "dB", True,
        "mixing SNR 10·log10(P_speech/P_noise); AMI: 90th/10th percentile frame-energy dynamic range",
        {Corpus.LIBRIMIX: Tier.MEASURABLE, Corpus.TWIN: Tier.MEASURABLE, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "snr_db", "ami": "snr_db"},
        signals={Corpus.LIBRIMIX: "stem", Corpus.TWIN: "stem"}, label="SNR", heading="SNR", decimals=1,
        prompt_order=0, table_order=1, free_group="channel",
        phrases=Phrases("The SNR is {} dB.", "The SNR could not be measured.", "the signal-to-noise ratio is {} dB",
                        "signal-to-noise ratio {} dB", "signal-to-noise ratio",
                        "a signal-to-noise ratio of about {} dB", "The signal-to-noise ratio is {} dB."),
        reader="snr",
    ),
    Quantity(
        "srmr", "speech-to-reverberation modulation energy ratio", "ratio", True,
        "SRMR (Falk et al. 2010), SRMRpy parameters",
        {Corpus.LIBRIMIX: Tier.EXACT, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT},
        {"librimix": "srmr", "ami": "srmr"},
        label="SRMR", heading="SRMR", decimals=2, prompt_order=1, table_order=0, free_group="channel",
        phrases=Phrases("The SRMR is {}.", "The SRMR could not be measured.",
                        "the speech-to-reverberation modulation energy ratio is {}", "SRMR {}", "SRMR",
                        "a speech-to-reverberation modulation energy ratio of {}",
                        "The speech-to-reverberation modulation energy ratio is {}."),
        reader="srmr",
    ),
    Quantity(
        "speaking_rate", "speaking rate", "syllables/s", True,
        "syllable nuclei (de Jong & Wempe) / total stem duration",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXACT},
        {"librimix": "praat_speaking_rate_syl_sec", "ami": "praat_speaking_rate_syl_sec"},
        signals={Corpus.LIBRIMIX: "stem"}, label="Speaking rate", heading="Sp. rate", decimals=2,
        prompt_order=4, table_order=2, free_group="timing",
        phrases=Phrases("The speaking rate is {} syllables per second.", "The speaking rate could not be measured.",
                        "the speaking rate is {} syllables per second", "speaking rate {} syllables per second",
                        "speaking rate", "at {} syllables per second",
                        "The speaking rate is {} syllables per second."),
        reader="timing",
    ),
    Quantity(
        "pause_count", "number of pauses", "count", True,
        "silent intervals >= 0.3 s between sounding intervals",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "praat_pause_count", "ami": "praat_pause_count"},
        integer=True,
        signals={Corpus.LIBRIMIX: "stem"}, label="Pause count", heading="P. count", decimals=0,
        prompt_order=5, table_order=3, free_group="timing",
        phrases=Phrases("The recording contains {} pauses.", "The number of pauses could not be measured.",
                        "the number of pauses is {}", "{} pauses", "number of pauses", "with {} pauses",
                        "The number of pauses is {}."),
        reader="timing",
    ),
    Quantity(
        "pause_rate", "pause rate", "pauses/min", True,
        "pause_count / stem duration in minutes",
        {Corpus.LIBRIMIX: Tier.STEM_ONLY, Corpus.TWIN: Tier.EXACT, Corpus.AMI: Tier.EXCLUDED},
        {"librimix": "praat_pause_rate_per_min", "ami": "praat_pause_rate_per_min"},
        signals={Corpus.LIBRIMIX: "stem"}, label="Pause rate", heading="P. rate", decimals=1,
        prompt_order=6, table_order=4, free_group="timing",
        phrases=Phrases("The pause rate is {} per minute.", "The pause rate could not be measured.",
                        "the pause rate is {} per minute", "pause rate {} per minute", "pause rate",
                        "a pause rate of {} per minute", "The pause rate is {} pauses per minute."),
        reader="timing",
    ),
    Quantity(
        "f0_mean", "mean fundamental frequency", "Hz", True,
        "Praat To Pitch (ac) 75-500 Hz, mean over voiced frames outside overlap windows",
        _voice_tiers(Tier.MASKED),
        {"librimix": "f0_mean_hz", "ami": "f0_mean_hz"},
        signals={Corpus.LIBRIMIX: "masked_mixture"}, label="F0 mean", heading="F0 mean", decimals=1,
        prompt_order=2, table_order=5, free_group="voice", voice=True,
        phrases=Phrases("The F0 mean is {} Hz.", "The F0 mean could not be measured.",
                        "the fundamental frequency mean is {} Hz", "mean F0 {} Hz", "mean F0",
                        "a mean fundamental frequency of {} Hz", "The mean fundamental frequency is {} Hz."),
        reader="voice",
    ),
    Quantity(
        "f0_sd", "F0 standard deviation", "Hz", True,
        "Praat To Pitch (ac) 75-500 Hz, s.d. over the same frames as f0_mean",
        _voice_tiers(Tier.MASKED),
        {"librimix": "f0_sd_hz", "ami": "f0_sd_hz"},
        signals={Corpus.LIBRIMIX: "masked_mixture"}, label="F0 s.d.", heading="F0 s.d.", decimals=1,
        prompt_order=3, table_order=6, free_group="voice", voice=True,
        phrases=Phrases("The F0 SD is {} Hz.", "The F0 SD could not be measured.",
                        "the fundamental frequency standard deviation is {} Hz", "F0 standard deviation {} Hz",
                        "F0 standard deviation", "an F0 standard deviation of {} Hz",
                        "The fundamental frequency standard deviation is {} Hz."),
        reader="voice",
    ),
    Quantity(
        "jitter", "jitter (local)", "%", True,
        "Praat PointProcess (periodic, cc), Get jitter (local) 0 0 0.0001 0.02 1.3",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "jitter_local_pct", "ami": "jitter_local_pct"},
        signals={Corpus.LIBRIMIX: "stem"}, label="Jitter", heading="Jitter", decimals=2,
        prompt_order=7, table_order=7, free_group="voice", voice=True, split_half=True,
        phrases=Phrases("The jitter is {} percent.", "The jitter could not be measured.", "the jitter is {} percent",
                        "jitter {} percent", "jitter", "jitter of {} percent", "The jitter is {}%."),
        reader="voice",
    ),
    Quantity(
        "shimmer", "shimmer (local)", "%", True,
        "Praat Get shimmer (local) 0 0 0.0001 0.02 1.3 1.6",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "shimmer", "ami": "shimmer_pct"},
        signals={Corpus.LIBRIMIX: "stem"}, label="Shimmer", heading="Shimmer", decimals=2,
        prompt_order=8, table_order=8, free_group="voice", voice=True, split_half=True, extra_units=("dB",),
        phrases=Phrases("The shimmer is {} percent.", "The shimmer could not be measured.",
                        "the shimmer is {} percent", "shimmer {} percent", "shimmer", "shimmer of {} percent",
                        "The shimmer is {}%."),
        reader="voice",
    ),
    Quantity(
        "hnr", "harmonics-to-noise ratio", "dB", True,
        "Praat To Harmonicity (cc) 0.01 75 0.1 1.0, mean",
        _voice_tiers(Tier.STEM_ONLY),
        {"librimix": "hnr", "ami": "hnr_db"},
        signals={Corpus.LIBRIMIX: "stem"}, label="HNR", heading="HNR", decimals=1,
        prompt_order=9, table_order=9, free_group="voice", voice=True, split_half=True,
        phrases=Phrases("The HNR is {} dB.", "The HNR could not be measured.", "the harmonics-to-noise ratio is {} dB",
                        "HNR {} dB", "HNR", "a harmonics-to-noise ratio of {} dB",
                        "The harmonics-to-noise ratio is {} dB."),
        reader="voice",
    ),
    Quantity(
        "overlap_ratio", "share of the clip where the talkers overlap", "fraction", False,
        "echoes a mixing input",
        {},
        {"librimix": "overlap_ratio", "ami": "overlap_ratio"},
        signals={Corpus.LIBRIMIX: "stem"},
        reader="overlap",
    ),
    Quantity(
        "articulation_rate", "articulation rate", "syllables/s", False,
        "syllable nuclei / phonation time",
        {},
        {"librimix": "praat_articulation_rate_syl_sec", "ami": "praat_articulation_rate_syl_sec"},
        signals={Corpus.LIBRIMIX: "stem"},
        reader="timing",
    ),
    Quantity(
        "duration", "duration of the recording", "s", False,
        "the clip's length",
        {},
        {"ami": "duration_sec"},
        reader="duration",
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
# The voice quantities that the reference system declines on high-overlap clips.
VOICE_KEYS: tuple[str, ...] = tuple(q.key for q in _QUANTITIES if q.voice)
# The ones read on Praat's half-stem readings for split-half reliability.
SPLIT_HALF_KEYS: tuple[str, ...] = tuple(q.key for q in _QUANTITIES if q.split_half)


# --- events in time (SPEC §1 and the interval claims beside the 13 quantities) -------------------------------


@dataclass(frozen=True)
class EventType:
    """A kind of event a text can place in time ("overlap from 2.1 to 5.4 s", "a pause at 3.2 s", "a door
    slams at 7 s"), with the names the interval parser binds a stated time to. Like ``Quantity.aliases``, the
    names are data in plain sight: matched in any case, whole words, hyphens and underscores read as spaces;
    the Rust parser builds its event vocabulary from these lists (parser_rs/build.rs) and has none of its own.
    Plurals and verb forms are listed as written, so that nothing is guessed."""

    key: str
    name: str
    definition: str  # the instrument's reading it is scored against
    aliases: tuple[str, ...] = ()


# The scene sources of the RSA-Bench scenes (acousticlaim/corpus/scenes.py, CATEGORIES and the recording
# labels of its ALIASES) as a text names them: each is a noise event. (That module needs numpy; this one
# stays standard-library only, so the names are written here and a test checks they cover its categories.)
_SCENE_SOURCE_NAMES: tuple[str, ...] = (
    "cow", "cows", "mooing", "dog", "dogs", "barking", "bark", "barks", "hen", "hens", "rooster", "chicken",
    "chickens", "sheep", "bleating", "rain", "raindrops", "wind", "thunder", "thunderstorm", "wind chimes",
    "wind chime", "chimes", "chime", "church bells", "bell", "bells", "clock", "clock tick", "clock ticking",
    "ticking", "tick", "ticks", "cough", "coughs", "coughing", "keyboard typing", "keyboard", "typing",
    "drinking", "sipping", "gulp", "gulps", "slurp", "children playing", "children", "kids", "birds", "bird",
    "birdsong", "chirping", "chirps", "stream", "water", "flowing water", "footsteps", "footsteps on grass",
    "footstep",
)
_EVENTS: tuple[EventType, ...] = (
    EventType(
        "overlap", "overlapped speech",
        "overlap windows: Silero VAD on each separated stem, intersections of at least 0.1 s (SPEC §1)",
        (
            "overlap", "overlaps", "overlapping", "overlapped", "overlapping speech", "overlapped speech",
            "speech overlap", "talker overlap", "speaker overlap", "both speakers", "both talkers", "both voices",
            "talk over", "talks over", "talking over", "talked over",
            "speak over", "speaks over", "speaking over", "crosstalk", "cross-talk", "cross talk",
            "simultaneous speech", "simultaneous talking", "speak simultaneously", "speaking simultaneously",
            "talk simultaneously", "talking simultaneously", "double talk", "interruption", "interruptions",
            "interrupts", "interrupting", "interrupted", "concurrent speech",
        ),
    ),
    EventType(
        "pause", "pause",
        "silent intervals of at least 0.3 s between sounding intervals of the target stem (de Jong & Wempe)",
        (
            "pause", "pauses", "paused", "pausing", "silent pause", "silent pauses", "silence", "silences",
            "silent", "gap", "gaps", "hesitation", "hesitations", "no speech", "lull", "lulls",
        ),
    ),
    EventType(
        "noise", "non-speech noise",
        "when each scene source or noise of the corpus manifest sounds (a stationary noise: one event over the clip)",
        (
            "noise", "noises", "noisy", "background noise", "non-speech", "nonspeech", "non-speech sound",
            "non-speech sounds", "door", "doors", "door slam", "slam", "slams", "slammed", "slamming", "bang",
            "bangs", "banging", "knock", "knocks", "knocking", "click", "clicks", "clicking", "beep", "beeps",
            "beeping", "music", "hum", "humming", "buzz", "buzzing", "static", "hiss", "crackle", "thump",
            "thud", "crash", "clatter", "siren", "alarm", "ringing", "phone", "traffic", "engine", "laughter",
            "laughing", "applause", "clapping", "background sound", "background sounds",
        ) + _SCENE_SOURCE_NAMES,
    ),
)
EVENTS: dict[str, EventType] = {e.key: e for e in _EVENTS}
EVENT_KEYS: tuple[str, ...] = tuple(e.key for e in _EVENTS)


def event_of(name: str) -> EventType | None:
    """The event type that ``name`` (one of the aliases, in any case) names, or ``None``."""
    folded = " ".join(name.replace("-", " ").replace("_", " ").lower().split())
    for e in _EVENTS:
        if any(" ".join(a.replace("-", " ").replace("_", " ").lower().split()) == folded for a in e.aliases):
            return e
    return None


def get(key: str) -> Quantity:
    """The quantity registered under ``key``; a clear error for an unknown key."""
    try:
        return QUANTITIES[key]
    except KeyError:
        raise KeyError(f"unknown quantity {key!r}; known quantities: {', '.join(ALL_KEYS)}") from None


def release_column_map(corpus: str) -> dict[str, str]:
    """Map release-table column name → quantity key for a released reference table."""
    return {q.release_columns[corpus]: q.key for q in _QUANTITIES if corpus in q.release_columns}


# Orders read from the registry when they are used (so a quantity added to ``QUANTITIES`` takes its place).

def scored() -> list[Quantity]:
    return [q for q in QUANTITIES.values() if q.scored]


def prompt_order() -> tuple[str, ...]:
    """The scored quantities in the prompts' order (P2_named, P3_template, P4_fewshot)."""
    return tuple(q.key for q in sorted(scored(), key=lambda q: q.prompt_order))


def table_order() -> tuple[str, ...]:
    """The scored quantities in the order both tables print them (the paper's)."""
    return tuple(q.key for q in sorted(scored(), key=lambda q: q.table_order))


def voice_keys() -> tuple[str, ...]:
    return tuple(q.key for q in QUANTITIES.values() if q.voice)


def split_half_keys() -> tuple[str, ...]:
    return tuple(q.key for q in QUANTITIES.values() if q.split_half)


def kept_as_stated(quantity: str, unit: str | None) -> bool:
    """Whether a claim of ``quantity`` in ``unit`` is one of its units kept as stated (shimmer in dB, SPEC §1):
    a slot of its own, never converted to nor scored against the canonical unit."""
    q = QUANTITIES.get(quantity)
    return q is not None and unit is not None and unit in q.extra_units


def _check_registry() -> None:
    """Every scored quantity has its phrases, labels and places; the places are distinct."""
    for q in _QUANTITIES:
        if q.scored and (q.phrases is None or not q.label or not q.heading or q.prompt_order is None
                         or q.table_order is None or q.free_group not in FREE_GROUPS):
            raise ValueError(f"quantity {q.key!r} is scored but lacks phrases, labels, places or its free group")
        if not q.reader:
            raise ValueError(f"quantity {q.key!r} names no reader")
    named: dict[str, str] = {}
    for e in _EVENTS:
        for a in e.aliases:
            folded = " ".join(a.replace("-", " ").replace("_", " ").lower().split())
            if named.setdefault(folded, e.key) != e.key:
                raise ValueError(f"event name {a!r} is listed under both {named[folded]!r} and {e.key!r}")
    for attr in ("prompt_order", "table_order"):
        places = [getattr(q, attr) for q in _QUANTITIES if q.scored]
        if len(set(places)) != len(places):
            raise ValueError(f"two scored quantities share a {attr}")


_check_registry()
