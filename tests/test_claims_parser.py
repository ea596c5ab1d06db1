"""The claim parser's Python API on known texts: values, units, spans, batches, Arrow input, errors."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from acousticlaim import _parser
from acousticlaim.claims.parser import QUANTITY_KEYS, UNIT_NAMES, Claim, parse, parse_batch
from acousticlaim.quantities import ALL_KEYS, QUANTITIES


def kv(text, **kw):
    return [(c.quantity, round(c.value, 6)) for c in parse(text, **kw)]


def test_codes_follow_the_registry():
    assert QUANTITY_KEYS == ALL_KEYS
    # every canonical unit the parser emits is the registry's, plus dB for shimmer in dB
    assert {q.unit for q in QUANTITIES.values()} <= set(UNIT_NAMES)


def test_a_gemini_style_list():
    text = (
        "- **Signal-to-Noise Ratio (SNR)**: 23.49 dB\n"
        "- **Fundamental Frequency Standard Deviation (F0 SD)**: 35.80 Hz\n"
        "- **Speaking Rate**: 165 words per minute\n"
        "- **Pause Rate**: 0.2 pauses per second\n"
        "- **Jitter**: 0.0044\n"
        "- **Shimmer**: 0.31 dB\n"
    )
    claims = parse(text)
    assert [(c.quantity, round(c.value, 4), c.unit) for c in claims] == [
        ("snr", 23.49, "dB"),
        ("f0_sd", 35.8, "Hz"),
        ("speaking_rate", 4.125, "syllables/s"),
        ("pause_rate", 12.0, "pauses/min"),
        ("jitter", 0.44, "%"),
        ("shimmer", 0.31, "dB"),
    ]
    first = claims[0]
    assert isinstance(first, Claim)
    assert text[first.start : first.end] == "23.49 dB"
    assert first.unit_text == "dB"
    assert (first.approx, first.is_range, first.bound) == (False, False, 0)


def test_range_plus_minus_and_bound_flags():
    (c,) = parse("The SNR is between 10 and 15 dB.")
    assert (c.value, c.is_range) == (12.5, True)
    (c,) = parse("F0 of about 120 ± 20 Hz")
    assert (c.quantity, c.value, c.approx) == ("f0_mean", 120.0, True)
    (c,) = parse("HNR below 5 dB")
    assert (c.value, c.bound) == (5.0, -1)


def test_character_spans_with_non_ascii_and_surrogates():
    text = "Pitch (F₀) ≈ 120 Hz; \ud800 SNR −3 dB"  # an unpaired surrogate, as Python allows
    claims = parse(text)
    assert [(c.quantity, c.value) for c in claims] == [("f0_mean", 120.0), ("snr", -3.0)]
    assert text[claims[0].start : claims[0].end] == "120 Hz"
    assert text[claims[1].start : claims[1].end] == "−3 dB"


def test_truncated_generations_drop_a_cut_final_number():
    text = "- Jitter: 0.44%\n- Shimmer: 8.9"
    assert kv(text) == [("jitter", 0.44), ("shimmer", 8.9)]
    assert kv(text, truncated=True) == [("jitter", 0.44)]


def test_ten_megabytes_of_digits_and_empty_text():
    assert parse("9" * (10 * 1024 * 1024)) == []
    assert parse("") == []


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError, match="takes a str"):
        parse(b"SNR 10 dB")


def test_batch_matches_one_by_one_and_counts_empty_texts():
    texts = [
        "The SNR is 12.4 dB. The F0 mean is 138.2 Hz.",
        "The recording quality is poor.",
        "Jitter: 1.3 %, shimmer 4.6 %, five pauses.",
        "",
    ] * 300
    cols = parse_batch(texts)
    assert list(cols.n_claims[:4]) == [2, 0, 3, 0]
    df = cols.to_pandas()
    expected = [(i, c.quantity, c.value, c.start, c.end) for i, t in enumerate(texts) for c in parse(t)]
    got = list(zip(df.text_index, df.quantity.astype(str), df.value, df.start, df.end))
    assert got == expected
    assert cols.unit_text_categories == ["dB", "Hz", "%", "pauses"]
    one = parse_batch(texts, threads=1).to_pandas()
    pd.testing.assert_frame_equal(df, one)


def test_batch_unit_texts_agree_across_parts():
    # the batch is parsed in parts of 256 texts, each with its own unit-text codes: a part that meets
    # "dB" before "Hz" must still decode to the units as written
    import pyarrow as pa

    texts = ["F0 mean 120 Hz"] * 256 + ["SNR 12 dB. F0 mean 130 Hz."] * 10 + ["Jitter 1.2 percent", ""] * 150
    expected = [(i, c.quantity, c.value, c.unit_text) for i, t in enumerate(texts) for c in parse(t)]
    for batch in (texts, pa.array(texts)):
        for threads in (1, None):
            df = parse_batch(batch, threads=threads).to_pandas()
            got = list(zip(df.text_index, df.quantity.astype(str), df.value, df.unit_text.astype(str)))
            assert got == expected
            assert list(df.unit_text.cat.categories) == ["Hz", "dB", "percent"]


def test_arrow_batch_with_invalid_utf8_reads_the_rest():
    # Arrow promises UTF-8 but a buffer may break it: the bad bytes become U+FFFD, the text still parses
    import pyarrow as pa

    first = b"SNR 12 dB \xff\xfe jitter 1.5 %"
    data = first + b"F0 mean 120 Hz"
    offsets = pa.py_buffer(np.array([0, len(first), len(data)], dtype=np.int32).tobytes())
    arr = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(data)])
    df = parse_batch(arr, threads=1).to_pandas()
    got = list(zip(df.text_index, df.quantity.astype(str), df.value))
    assert got == [(0, "snr", 12.0), (0, "jitter", 1.5), (1, "f0_mean", 120.0)]


def test_batch_truncated_mask_and_errors():
    cols = parse_batch(["Shimmer: 8.9", "Shimmer: 8.9"], truncated=[True, False])
    assert list(cols.n_claims) == [0, 1]
    with pytest.raises(ValueError, match="2 texts"):
        parse_batch(["a", "b"], truncated=[True])
    with pytest.raises(TypeError, match="text 1 is a int"):
        parse_batch(["SNR 1 dB", 3])
    with pytest.raises(ValueError, match="threads"):
        parse_batch(["a"], threads=-1)


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_arrow_arrays_zero_copy_with_nulls_offsets_and_chunks(kind):
    texts = ["The SNR is 5 dB.", None, "F0: 0.2 kHz", "nothing", "Jitter 2 %"]
    arr = pa.array(texts, type=kind)
    cols = parse_batch(arr)
    assert list(cols.n_claims) == [1, 0, 1, 0, 1]
    df = cols.to_pandas()
    assert list(df.text_index) == [0, 2, 4]
    assert list(df.value) == [5.0, 200.0, 2.0]
    # a slice has a non-zero offset into the buffers
    sliced = parse_batch(arr.slice(2, 3)).to_pandas()
    assert list(sliced.text_index) == [0, 2] and list(sliced.value) == [200.0, 2.0]
    chunked = parse_batch(pa.chunked_array([arr, arr.slice(2)])).to_pandas()
    assert list(chunked.text_index) == [0, 2, 4, 5, 7]
    with pytest.raises(TypeError, match="string or large_string"):
        parse_batch(pa.array([1, 2]))


def test_pandas_series_input():
    s = pd.Series(["SNR 3 dB", "HNR 4 dB"], index=[10, 20])
    assert list(parse_batch(s).to_pandas().text_index) == [0, 1]


def test_a_rust_panic_becomes_a_python_exception():
    with pytest.raises(RuntimeError, match="claim parser failed.*boom"):
        _parser._panic_for_test("boom")


def test_columns_are_compact_numpy_arrays():
    cols = parse_batch(["SNR 3 dB"] * 10)
    assert cols.value.dtype == np.float64 and cols.quantity.dtype == np.uint8
    assert len(cols) == 10
