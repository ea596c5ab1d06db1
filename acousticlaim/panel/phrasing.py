"""Prose with numbers, one phrasing per rung, for the local systems (estimator suite, constant predictor).

The local systems know a value per scored quantity and must answer each rung the way the rung asks:

* ``P0_free`` — a free description in sentences;
* ``P1_numeric`` — a description that gives numeric values;
* ``P2_named`` — the ten quantities named with units, in the prompt's order;
* ``P3_template`` and ``P4_fewshot`` — the template's ten sentences in its exact wording, filled in;
* ``P5_intervals`` — one line per interval, "Pause from 2.51 to 2.98 s.", by event type
  (:func:`phrase_intervals`; the local systems locate the intervals, not numbers).

Units are spelled the way the parser reads them (dB, Hz, syllables per second, per minute, percent);
the values are in each quantity's canonical unit (``acousticlaim.quantities``). A quantity whose
value is undefined (NaN or missing) is said to be unmeasurable and states nothing — never a number.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

from acousticlaim.quantities import EVENT_KEYS, FREE_GROUPS, QUANTITIES, prompt_order

# Every sentence, phrase, decimal count and the prompt's order come from the registry entry of each
# quantity (``acousticlaim.quantities``: ``phrases``, ``decimals``, ``prompt_order``, ``free_group``).


def _defined(values: Mapping[str, float], key: str) -> bool:
    v = values.get(key)
    return v is not None and math.isfinite(float(v))


def format_value(key: str, value: float) -> str:
    """The value as stated: fixed decimals per quantity; counts as integers."""
    return QUANTITIES[key].format_value(value)


def _phrases(key: str):
    return QUANTITIES[key].phrases


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _template(values: Mapping[str, float]) -> str:
    out = []
    for key in prompt_order():
        p = _phrases(key)
        out.append(p.template.format(format_value(key, values[key])) if _defined(values, key) else p.unmeasurable)
    return " ".join(out)


def _named(values: Mapping[str, float]) -> str:
    order = prompt_order()
    stated = [_phrases(k).named.format(format_value(k, values[k])) for k in order if _defined(values, k)]
    missing = [_phrases(k).named_name for k in order if not _defined(values, k)]
    parts = []
    if stated:
        parts.append("For this recording, " + "; ".join(stated) + ".")
    if missing:
        parts.append("Not measurable on this recording: " + _join(missing) + ".")
    return " ".join(parts)


def _numeric(values: Mapping[str, float]) -> str:
    order = prompt_order()
    stated = [_phrases(k).numeric.format(format_value(k, values[k])) for k in order if _defined(values, k)]
    missing = [_phrases(k).short_name for k in order if not _defined(values, k)]
    parts = ["Recording quality in numbers: " + ("; ".join(stated) if stated else "nothing could be measured") + "."]
    if missing:
        parts.append("The " + _join(missing) + " could not be measured.")
    return " ".join(parts)


def _free(values: Mapping[str, float]) -> str:
    """Sentences by group (channel, timing, voice), each quantity in registry order within its group."""
    sentences: list[str] = []
    for group, opening in FREE_GROUPS.items():
        phrases = [q.phrases.free.format(format_value(q.key, values[q.key]))
                   for q in QUANTITIES.values() if q.scored and q.free_group == group and _defined(values, q.key)]
        if phrases:
            sentences.append(opening + _join(phrases) + ".")
    missing = [_phrases(k).named_name for k in prompt_order() if not _defined(values, k)]
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


# How each event type of the references in time is named in an answer to P5_intervals: the event's own name
# first on each line, so the claim parser binds the interval to it; "No …" when the list is empty.
EVENT_WORDS: dict[str, tuple[str, str, str]] = {  # event -> (line opening, none, not located)
    "overlap": ("Overlap", "No overlapped speech.", "Overlapped speech could not be located."),
    "pause": ("Pause", "No pauses.", "Pauses could not be located."),
    "noise": ("Noise", "No non-speech noise.", "Non-speech noise could not be located."),
}
if tuple(EVENT_WORDS) != EVENT_KEYS:
    raise ImportError(f"phrasing covers event types {tuple(EVENT_WORDS)}, the registry has {EVENT_KEYS}")


def phrase_intervals(intervals: Mapping[str, Sequence[tuple[float, float]] | None]) -> str:
    """The answer to ``P5_intervals``: per event type (overlap, pause, noise) one line per interval,
    "Overlap from 1.22 to 2.30 s.", two decimals; ``None`` for an event type says it could not be located."""
    unknown = set(intervals) - set(EVENT_WORDS)
    if unknown:
        raise KeyError(f"unknown event type(s) {sorted(unknown)}; the event types are {', '.join(EVENT_WORDS)}")
    lines = []
    for event, (opening, none, unlocated) in EVENT_WORDS.items():
        located = intervals.get(event)
        if located is None:
            lines.append(unlocated)
        elif not located:
            lines.append(none)
        else:
            lines.extend(f"{opening} from {a:.2f} to {b:.2f} s." for a, b in located)
    return "\n".join(lines)
