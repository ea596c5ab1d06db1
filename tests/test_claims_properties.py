"""Property tests (hypothesis): any string returns without error, with consistent spans, and the
batch call agrees with the one-text call."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acousticlaim.claims.parser import QUANTITY_KEYS, parse, parse_batch

PIECES = [
    "SNR", "F0", "pitch", "SD", "jitter", "shimmer", "HNR", "pauses", "pause rate", "no", "speaking rate",
    "articulation rate", "overlap", "clip", "dB", "Hz", "kHz", "%", "syllables/s", "wpm", "per minute", "s",
    "LUFS", "RT60", ":", ",", ".", "(", ")", "|", "\n", "-", "–", "±", "~", "<", "___", "N/A", "between", "and",
    "to", "five", "12.4", "-3", "3,5", ".5", "0.0081", "1:49", "**", "{", "}", '"', "'", "e.g.", "says",
]
any_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=300)  # includes surrogates
claimish = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=60).map(" ".join)


def _check(text, truncated=False):
    claims = parse(text, truncated=truncated)
    assert len(claims) <= 14
    seen = set()
    for c in claims:
        assert c.quantity in QUANTITY_KEYS
        assert c.value == c.value and abs(c.value) != float("inf")
        assert 0 <= c.start <= c.end <= len(text)
        assert c.byte_start <= c.byte_end
        key = (c.quantity, c.unit)
        assert key not in seen  # one claim per quantity (and shimmer unit)
        seen.add(key)
    return claims


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text, st.booleans())
def test_any_string_parses_without_error(text, truncated):
    _check(text, truncated)


@settings(max_examples=400, deadline=None)
@given(claimish)
def test_claim_like_strings_parse_with_spans_on_the_text(text):
    for c in _check(text):
        written = text[c.start : c.end]
        assert written.strip() == written and written  # a value span is trimmed text, never empty


@settings(max_examples=50, deadline=None)
@given(st.lists(claimish, max_size=40))
def test_batch_agrees_with_single_parses(texts):
    df = parse_batch(texts).to_pandas()
    expected = [(i, c.quantity, c.value, c.start, c.end) for i, t in enumerate(texts) for c in parse(t)]
    assert list(zip(df.text_index, df.quantity.astype(str), df.value, df.start, df.end)) == expected
