"""Interval claims (the second kind of claim beside the 13 quantities): each form of stated time, bound to its
event type by one of the registry's names, with its span and flags; durations, unnamed times and quantity
claims are not interval claims."""

from __future__ import annotations

import pandas as pd
import pytest

from acousticlaim import _parser
from acousticlaim.claims.intervals import EVENT_TYPES, IntervalClaim, parse_intervals, parse_intervals_batch
from acousticlaim.quantities import EVENT_KEYS, EVENTS


def read(text: str, clip_s: float | None = 10.0) -> list[tuple[str, float, float, bool]]:
    return [(c.event, c.start_s, c.end_s, c.point) for c in parse_intervals(text, clip_s)]


@pytest.mark.parametrize(
    "text, want",
    [
        ("Both speakers talk from 2.1 to 5.4 s.", [("overlap", 2.1, 5.4, False)]),
        ("Overlap: 2.1–5.4 s.", [("overlap", 2.1, 5.4, False)]),
        ("There is crosstalk at 2.1-5.4 seconds.", [("overlap", 2.1, 5.4, False)]),
        ("Silence between 2 and 5 seconds.", [("pause", 2.0, 5.0, False)]),
        ("There is a long pause at 3.2 s.", [("pause", 3.2, 3.2, True)]),
        ("A door slams at 00:07.", [("noise", 7.0, 7.0, True)]),
    ],
)
def test_simple_forms(text, want):
    assert read(text) == want


def test_the_claim_carries_its_label_and_span_in_characters():
    text = "Ünïcode first — both speakers talk from 2.1 to 5.4 s."
    (c,) = parse_intervals(text)
    assert c.label == "both speakers"
    assert text[c.span[0]:c.span[1]] == "both speakers talk from 2.1 to 5.4 s"
    assert (c.reversed, c.outside_clip) == (False, False)


def test_reversed_and_outside_the_clip_are_kept_and_flagged():
    (c,) = parse_intervals("Overlap from 5.4 to 2.1 s.", 10.0)
    assert (c.start_s, c.end_s, c.reversed, c.outside_clip) == (5.4, 2.1, True, False)
    (c,) = parse_intervals("A pause at 12.5 s.", 10.0)
    assert (c.start_s, c.outside_clip) == (12.5, True)
    (c,) = parse_intervals("A pause at 12.5 s.")  # no clip length: nothing to be outside of
    assert c.outside_clip is False


@pytest.mark.parametrize(
    "text",
    [
        "There is a 0.5-second pause.",
        "Pauses of 0.3 s are frequent.",
        "At 3.2 s the speaker says hello.",
        "The SNR is 12 dB and the F0 moves from 120 to 180 Hz.",
    ],
)
def test_not_interval_claims(text):
    assert parse_intervals(text) == []


def test_event_names_are_the_registry_s_and_the_parser_has_no_other():
    """The Rust vocabulary of event names is generated from the registry (parser_rs/build.rs): the same
    phrases, under the same event types."""
    assert EVENT_TYPES == EVENT_KEYS
    rust = set(_parser.event_phrases())
    registry = {(_parser.event_phrase(a), e.key) for e in EVENTS.values() for a in e.aliases}
    assert rust == registry
    for e in EVENTS.values():
        for a in e.aliases:
            got = read(f"The {a} at 3 s.")
            assert got == [(e.key, 3.0, 3.0, True)], (e.key, a, got)


def test_batch_is_one_row_per_claim_with_the_text_index():
    texts = ["Overlap from 2 to 5 s.", None, "No times here.", "A pause at 12 s and a beep at 1 s."]
    df = parse_intervals_batch(texts, [10.0, None, 10.0, 10.0])
    assert list(df.columns) == ["text_index", "event", "start_s", "end_s", "point", "label", "span_start",
                                "span_end", "reversed", "outside_clip"]
    assert df["text_index"].tolist() == [0, 3, 3]
    assert df["event"].tolist() == ["overlap", "pause", "noise"]
    assert df["outside_clip"].tolist() == [False, True, False]
    one_by_one = [c for k, t in enumerate(texts) if t for c in parse_intervals(t, [10.0, None, 10.0, 10.0][k])]
    assert [(r.event, r.start_s, r.end_s, (r.span_start, r.span_end)) for r in df.itertuples()] == [
        (c.event, c.start_s, c.end_s, c.span) for c in one_by_one]
    assert parse_intervals_batch([]).empty
    with pytest.raises(ValueError, match="2 entries for 1 texts"):
        parse_intervals_batch(["x"], [1.0, 2.0])
    with pytest.raises(TypeError, match="not one string"):
        parse_intervals_batch("Overlap from 2 to 5 s.")
