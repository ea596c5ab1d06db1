"""Prose with numbers, one phrasing per rung, for the local systems (estimator suite, constant predictor).

The local systems know a value per scored quantity and must answer each rung the way the rung asks:

* ``P0_free`` — a free description in sentences;
* ``P1_numeric`` — a description that gives numeric values;
* ``P2_named`` — the ten quantities named with units, in the prompt's order;
* ``P3_template`` and ``P4_fewshot`` — the template's ten sentences in its exact wording, filled in.

Units are spelled the way the parser reads them (dB, Hz, syllables per second, per minute, percent);
the values are in each quantity's canonical unit (``acousticlaim.quantities``). A quantity whose
value is undefined (NaN or missing) is said to be unmeasurable and states nothing — never a number.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

from acousticlaim.quantities import QUANTITIES, SCORED_KEYS

# The prompt's order of the ten quantities (P2_named, P3_template, P4_fewshot).
PROMPT_ORDER: tuple[str, ...] = (
    "snr", "srmr", "f0_mean", "f0_sd", "speaking_rate", "pause_count", "pause_rate", "jitter", "shimmer", "hnr",
)
assert set(PROMPT_ORDER) == set(SCORED_KEYS), "the phrasing must cover exactly the scored quantities"

# Decimal places each quantity is stated with.
DECIMALS: dict[str, int] = {
    "snr": 1, "srmr": 2, "f0_mean": 1, "f0_sd": 1, "speaking_rate": 2, "pause_count": 0, "pause_rate": 1,
    "jitter": 2, "shimmer": 2, "hnr": 1,
}


def _defined(values: Mapping[str, float], key: str) -> bool:
    v = values.get(key)
    return v is not None and math.isfinite(float(v))


def format_value(key: str, value: float) -> str:
    """The value as stated: fixed decimals per quantity; counts as integers."""
    if QUANTITIES[key].integer:
        return str(int(round(value)))
    return f"{value:.{DECIMALS[key]}f}"


# (stated form, unmeasurable form) per quantity for the template rungs, in the template's exact wording.
_TEMPLATE: dict[str, tuple[str, str]] = {
    "snr": ("The SNR is {} dB.", "The SNR could not be measured."),
    "srmr": ("The SRMR is {}.", "The SRMR could not be measured."),
    "f0_mean": ("The F0 mean is {} Hz.", "The F0 mean could not be measured."),
    "f0_sd": ("The F0 SD is {} Hz.", "The F0 SD could not be measured."),
    "speaking_rate": ("The speaking rate is {} syllables per second.", "The speaking rate could not be measured."),
    "pause_count": ("The recording contains {} pauses.", "The number of pauses could not be measured."),
    "pause_rate": ("The pause rate is {} per minute.", "The pause rate could not be measured."),
    "jitter": ("The jitter is {} percent.", "The jitter could not be measured."),
    "shimmer": ("The shimmer is {} percent.", "The shimmer could not be measured."),
    "hnr": ("The HNR is {} dB.", "The HNR could not be measured."),
}

# P2_named: the quantity named as the prompt names it.
_NAMED: dict[str, tuple[str, str]] = {
    "snr": ("the signal-to-noise ratio is {} dB", "the signal-to-noise ratio"),
    "srmr": ("the speech-to-reverberation modulation energy ratio is {}", "the speech-to-reverberation modulation energy ratio"),
    "f0_mean": ("the fundamental frequency mean is {} Hz", "the fundamental frequency mean"),
    "f0_sd": ("the fundamental frequency standard deviation is {} Hz", "the fundamental frequency standard deviation"),
    "speaking_rate": ("the speaking rate is {} syllables per second", "the speaking rate"),
    "pause_count": ("the number of pauses is {}", "the number of pauses"),
    "pause_rate": ("the pause rate is {} per minute", "the pause rate"),
    "jitter": ("the jitter is {} percent", "the jitter"),
    "shimmer": ("the shimmer is {} percent", "the shimmer"),
    "hnr": ("the harmonics-to-noise ratio is {} dB", "the harmonics-to-noise ratio"),
}

# P1_numeric: compact "name value unit" items.
_NUMERIC: dict[str, str] = {
    "snr": "signal-to-noise ratio {} dB",
    "srmr": "SRMR {}",
    "f0_mean": "mean F0 {} Hz",
    "f0_sd": "F0 standard deviation {} Hz",
    "speaking_rate": "speaking rate {} syllables per second",
    "pause_count": "{} pauses",
    "pause_rate": "pause rate {} per minute",
    "jitter": "jitter {} percent",
    "shimmer": "shimmer {} percent",
    "hnr": "HNR {} dB",
}
_NUMERIC_NAMES: dict[str, str] = {
    "snr": "signal-to-noise ratio", "srmr": "SRMR", "f0_mean": "mean F0", "f0_sd": "F0 standard deviation",
    "speaking_rate": "speaking rate", "pause_count": "number of pauses", "pause_rate": "pause rate",
    "jitter": "jitter", "shimmer": "shimmer", "hnr": "HNR",
}


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _template(values: Mapping[str, float]) -> str:
    out = []
    for key in PROMPT_ORDER:
        stated, missing = _TEMPLATE[key]
        out.append(stated.format(format_value(key, values[key])) if _defined(values, key) else missing)
    return " ".join(out)


def _named(values: Mapping[str, float]) -> str:
    stated = [_NAMED[k][0].format(format_value(k, values[k])) for k in PROMPT_ORDER if _defined(values, k)]
    missing = [_NAMED[k][1] for k in PROMPT_ORDER if not _defined(values, k)]
    parts = []
    if stated:
        parts.append("For this recording, " + "; ".join(stated) + ".")
    if missing:
        parts.append("Not measurable on this recording: " + _join(missing) + ".")
    return " ".join(parts)


def _numeric(values: Mapping[str, float]) -> str:
    stated = [_NUMERIC[k].format(format_value(k, values[k])) for k in PROMPT_ORDER if _defined(values, k)]
    missing = [_NUMERIC_NAMES[k] for k in PROMPT_ORDER if not _defined(values, k)]
    parts = ["Recording quality in numbers: " + ("; ".join(stated) if stated else "nothing could be measured") + "."]
    if missing:
        parts.append("The " + _join(missing) + " could not be measured.")
    return " ".join(parts)


def _free(values: Mapping[str, float]) -> str:
    d = {k: _defined(values, k) for k in PROMPT_ORDER}
    f = {k: format_value(k, values[k]) for k in PROMPT_ORDER if d[k]}
    sentences: list[str] = []
    channel = []
    if d["snr"]:
        channel.append(f"a signal-to-noise ratio of about {f['snr']} dB")
    if d["srmr"]:
        channel.append(f"a speech-to-reverberation modulation energy ratio of {f['srmr']}")
    if channel:
        sentences.append("The recording has " + _join(channel) + ".")
    timing = []
    if d["speaking_rate"]:
        timing.append(f"at {f['speaking_rate']} syllables per second")
    if d["pause_count"]:
        timing.append(f"with {f['pause_count']} pauses")
    if d["pause_rate"]:
        timing.append(f"a pause rate of {f['pause_rate']} per minute")
    if timing:
        sentences.append("The talker speaks " + _join(timing) + ".")
    voice = []
    if d["f0_mean"]:
        voice.append(f"a mean fundamental frequency of {f['f0_mean']} Hz")
    if d["f0_sd"]:
        voice.append(f"an F0 standard deviation of {f['f0_sd']} Hz")
    if d["jitter"]:
        voice.append(f"jitter of {f['jitter']} percent")
    if d["shimmer"]:
        voice.append(f"shimmer of {f['shimmer']} percent")
    if d["hnr"]:
        voice.append(f"a harmonics-to-noise ratio of {f['hnr']} dB")
    if voice:
        sentences.append("The voice has " + _join(voice) + ".")
    missing = [_NAMED[k][1] for k in PROMPT_ORDER if not d[k]]
    if missing:
        sentences.append(_join(missing).capitalize() + " could not be measured.")
    return " ".join(sentences)


_PHRASERS: dict[str, Callable[[Mapping[str, float]], str]] = {
    "P0_free": _free,
    "P1_numeric": _numeric,
    "P2_named": _named,
    "P3_template": _template,
    "P4_fewshot": _template,
}


def phrase(values: Mapping[str, float], rung_id: str) -> str:
    """The answer to rung ``rung_id`` stating ``values`` (quantity key → value in its canonical unit)."""
    unknown = set(values) - set(QUANTITIES)
    if unknown:
        raise KeyError(f"unknown quantity key(s) {sorted(unknown)}")
    try:
        phraser = _PHRASERS[rung_id]
    except KeyError:
        raise KeyError(f"no phrasing for rung {rung_id!r}; rungs: {', '.join(_PHRASERS)}") from None
    return phraser(values)
