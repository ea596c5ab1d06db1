"""Interval claims: where in time a text places an overlap, a pause or a noise — the second kind of claim
beside the 13 quantities (for which such timestamps stay non-claims, ``SPEC.md`` §1).

A thin wrapper over the Rust extension (``parser_rs/src/intervals.rs``), which documents the forms it
reads: "from 2.1 to 5.4 s", "2.1–5.4 s", "between 2 and 5 seconds", "at 3.2 s" (a point), "00:02–00:05",
"0:02.5", "around the 3-second mark", lists after one name ("pauses at 1.2 s, 3.4 s and 5.0 s"), and JSON
objects or markdown tables with start/end fields. Each stated time is bound to an event type by one of its
names in the registry (:data:`acousticlaim.quantities.EVENTS`) within a bounded window of the same sentence;
a time with no event named beside it is not a claim, and neither is a duration ("a 0.5-second pause").
Intervals stated reversed or outside the clip are kept as stated and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from acousticlaim import _parser
from acousticlaim.quantities import EVENT_KEYS

EVENT_TYPES: tuple[str, ...] = tuple(_parser.event_types())
if EVENT_TYPES != EVENT_KEYS:  # the Rust vocabulary is generated from the registry at build time
    raise ImportError(f"acousticlaim._parser event types {EVENT_TYPES} differ from the registry {EVENT_KEYS}")

COLUMNS = ("text_index", "event", "start_s", "end_s", "point", "label", "span_start", "span_end", "reversed",
           "outside_clip")


@dataclass(frozen=True)
class IntervalClaim:
    """One stated interval (or point) of an event type of the registry."""

    event: str  # registry event type: "overlap" | "pause" | "noise"
    start_s: float  # seconds from the clip start, as stated
    end_s: float  # == start_s for a point claim ("at 3.2 s")
    point: bool
    label: str  # the words that named the event as written ("both speakers", "door", "silence")
    span: tuple[int, int]  # character (not byte) offsets of the stated interval+label in the text
    reversed: bool  # stated end before start; kept as stated, flagged
    outside_clip: bool  # a bound < 0 or > clip_s (always False when clip_s is None)


def _clip(clip_s, where: str) -> float | None:
    """A clip length in seconds; None, NaN and pandas' NA are an unknown length."""
    if clip_s is None or clip_s is pd.NA or (isinstance(clip_s, float) and clip_s != clip_s):
        return None
    try:
        value = float(clip_s)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: clip_s must be a number of seconds or None, not {clip_s!r}") from None
    if not value > 0:
        raise ValueError(f"{where}: clip_s must be a positive number of seconds, not {clip_s!r}")
    return value


def parse_intervals(text: str, clip_s: float | None = None) -> list[IntervalClaim]:
    """The interval claims stated in ``text``, in text order. ``clip_s``: the clip's length in seconds, to
    flag claims that fall outside it."""
    if not isinstance(text, str):
        raise TypeError(f"parse_intervals() takes a str, not {type(text).__name__}")
    raw = _parser.parse_intervals_one(text, _clip(clip_s, "parse_intervals()"))
    return [IntervalClaim(e, s, t, bool(p), lab, (a, b), bool(r), bool(o)) for (e, s, t, p, lab, a, b, r, o) in raw]


def _missing(text) -> bool:
    return text is None or text is pd.NA or (isinstance(text, float) and text != text)


def parse_intervals_batch(
    texts: Sequence[str] | Iterable[str],
    clip_s: Sequence[float | None] | None = None,
    *,
    threads: int | None = None,
) -> pd.DataFrame:
    """The interval claims of many texts, one row per claim: text_index, event (a categorical of
    :data:`EVENT_TYPES`), start_s, end_s, point, label, span_start, span_end (character offsets), reversed,
    outside_clip. ``clip_s[i]``: the length of text i's clip (None where unknown). A missing text (None, NaN)
    states nothing. ``threads``: None = all cores, 1 = this thread only. The GIL is released while parsing."""
    if isinstance(texts, (str, bytes)):
        raise TypeError("parse_intervals_batch() takes a collection of texts, not one string: use parse_intervals(text)")
    texts = list(texts.tolist() if isinstance(texts, pd.Series) else texts)
    for k, t in enumerate(texts):
        if not isinstance(t, str) and not _missing(t):
            raise TypeError(f"text {k} is a {type(t).__name__}, not a str")
    texts = ["" if _missing(t) else t for t in texts]
    clips = None
    if clip_s is not None:
        clips = [_clip(c, f"parse_intervals_batch(), clip {k}") for k, c in enumerate(list(clip_s))]
        if len(clips) != len(texts):
            raise ValueError(f"clip_s has {len(clips)} entries for {len(texts)} texts")
    nthreads = 0 if threads is None else int(threads)
    if nthreads < 0:
        raise ValueError(f"threads must be None or >= 1, not {threads}")
    raw = _parser.parse_intervals_many(texts, clips, nthreads)
    df = pd.DataFrame({c: raw[c] for c in COLUMNS if c != "event"}, columns=list(COLUMNS))
    codes = np.frombuffer(raw["event"], dtype=np.uint8).astype(np.int64)  # a list of u8 arrives as bytes
    df["event"] = pd.Categorical.from_codes(codes, categories=list(EVENT_TYPES))
    return df.astype({"text_index": "int64", "start_s": "float64", "end_s": "float64", "point": bool,
                      "label": str, "span_start": "int64", "span_end": "int64", "reversed": bool,
                      "outside_clip": bool})
