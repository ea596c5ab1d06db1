import math
import re

import pytest

from acousticlaim.model.descriptions import (
    DECLINE_SENTENCE,
    N_PHRASINGS,
    SLOT_TOKENS,
    declines_voice,
    describe,
    fill_slots,
    format_value,
    render,
    slots_in,
    stated_keys_for,
    tokenizer_corpus,
)
from acousticlaim.quantities import SCORED_KEYS, VOICE_KEYS

VALUES = {k: 10.0 + i + 0.123 for i, k in enumerate(SCORED_KEYS)}


@pytest.mark.parametrize("phrasing", range(N_PHRASINGS))
def test_low_overlap_description_states_all_ten(phrasing):
    text = describe(0.3, phrasing)
    assert sorted(slots_in(text)) == sorted(SCORED_KEYS)
    assert DECLINE_SENTENCE not in text


@pytest.mark.parametrize("phrasing", range(N_PHRASINGS))
def test_high_overlap_description_declines_the_five_voice_quantities(phrasing):
    text = describe(0.51, phrasing)
    stated = slots_in(text)
    assert not set(stated) & set(VOICE_KEYS)
    assert sorted(stated) == sorted(k for k in SCORED_KEYS if k not in VOICE_KEYS)
    assert DECLINE_SENTENCE in text


def test_the_decline_rule_is_strictly_above_one_half():
    assert not declines_voice(0.5)
    assert declines_voice(0.5000001)
    assert stated_keys_for(0.5) == tuple(slots_in(describe(0.5)))
    with pytest.raises(ValueError, match="finite"):
        declines_voice(float("nan"))


def test_descriptions_carry_no_digits_of_their_own():
    for text in tokenizer_corpus():
        without_slots = re.sub(r"<\|value:[a-z0-9_]+\|>", "", text)
        assert not re.search(r"(?<![A-Za-z])\d", without_slots), text  # "F0" is a name, not a number


def test_filled_values_are_the_given_values_rounded_for_printing():
    text = render(0.0, VALUES, phrasing=0)
    assert "The SNR is 10.12 dB." in text
    assert f"contains {round(VALUES['pause_count'])} pauses" in text
    assert "<|value:" not in text


def test_format_value_rules():
    assert format_value("pause_count", 2.6) == "3"
    assert format_value("pause_count", -0.7) == "0"
    assert format_value("snr", -3.456) == "-3.46"
    assert format_value("snr", -0.001) == "0.00"
    with pytest.raises(ValueError, match="non-finite"):
        format_value("hnr", math.nan)


def test_fill_slots_needs_a_value_for_every_stated_quantity():
    with pytest.raises(KeyError, match="jitter"):
        fill_slots(f"The jitter is {SLOT_TOKENS['jitter']}%.", {"snr": 1.0})


def test_bad_phrasing_index_is_an_error():
    with pytest.raises(ValueError, match="phrasing"):
        describe(0.0, N_PHRASINGS)


def test_the_project_parser_reads_the_stated_values_and_nothing_from_a_decline():
    from acousticlaim.claims import parser
    for phrasing in range(N_PHRASINGS):
        claims = {c.quantity: c.value for c in parser.parse(render(0.0, VALUES, phrasing))}
        for k in SCORED_KEYS:
            expected = float(format_value(k, VALUES[k]))
            assert claims.get(k) == pytest.approx(expected, abs=1e-9), (phrasing, k, claims)
        declined = {c.quantity for c in parser.parse(render(0.9, VALUES, phrasing))}
        assert not declined & set(VOICE_KEYS)
        assert {k for k in SCORED_KEYS if k not in VOICE_KEYS} <= declined
