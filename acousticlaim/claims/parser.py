"""The claim parser's Python API: a thin wrapper over the Rust extension ``acousticlaim._parser``.

``parse(text)`` reads the numeric claims of one generated text; ``parse_batch(texts)`` reads many at
once into columns (one row per claim, with the index of its text) without a Python object per claim,
on all cores with the GIL released. Both follow ``SPEC.md`` §1 (the 13 quantities of
``acousticlaim.quantities`` and the parser unit rules):

* values are converted to the quantity's canonical unit: words per minute → syllables/s with 1.5
  syllables per word; pauses per second → per minute (×60); kHz → Hz (×1000); a bare jitter or
  shimmer fraction below 0.1 with no % sign is a fraction (×100); shimmer in dB stays in dB
  (``unit == "dB"``, not scored as percent); "40 % overlap" states 0.4;
* a range states its midpoint (``is_range``), "±" its central value (``approx``), an inequality its
  bound (``bound`` = +1 "above/at least", -1 "below/at most");
* a quantity stated twice keeps the last value; "no pauses" states pause_count 0; number words and
  decimal commas are read; markdown tables, JSON-like output and bold labels are read;
* timestamps, sample rates, list numbers, transcript content, LUFS loudness, RT60 and other
  measures are not claims; articulation rate is never read as speaking rate nor the reverse;
* refusals, qualitative words and unfilled template slots ("___ Hz", "[value] dB") state nothing.

What counts as a claim about *this* recording (SPEC §1): quantities are read only under the names of
the registry (``Quantity.aliases``); the worked example reproduced with its framing, values given as
typical or for comparison, values attached to one transcript sentence and the example column of a
two-column table are not claims. A claim whose value equals the worked example's value for its
quantity (:data:`WORKED_EXAMPLE`, read from the P4 prompt) carries ``echo``.

``truncated=True`` (a generation cut at its token cap) drops a bare number that ends the text, since
it may be cut ("Shimmer: 8.9" of "8.94 %"). Character offsets are Python ``str`` indices; byte
offsets are into the UTF-8 encoding (unpaired surrogates read as U+FFFD).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from acousticlaim import _parser
from acousticlaim.claims.prompts import get_rung
from acousticlaim.quantities import ALL_KEYS

QUANTITY_KEYS: tuple[str, ...] = tuple(_parser.quantity_keys())
UNIT_NAMES: tuple[str, ...] = tuple(_parser.unit_names())
if QUANTITY_KEYS != ALL_KEYS:  # the Rust enum and the registry must name the same quantities in order
    raise ImportError(f"acousticlaim._parser quantities {QUANTITY_KEYS} differ from the registry {ALL_KEYS}")

PARSER_VERSION: str = _parser.parser_version()


@dataclass(frozen=True)
class Claim:
    """One numeric claim: a registry quantity, its value in ``unit``, and where it was stated."""

    quantity: str
    value: float
    unit: str  # the unit of ``value``: the registry's canonical unit, or "dB" for shimmer stated in dB
    unit_text: str | None  # the unit as written (None when the value carried none)
    start: int  # character span of the value expression in the text
    end: int
    byte_start: int
    byte_end: int
    approx: bool
    is_range: bool
    bound: int
    echo: bool = False  # the value equals the worked example's value for this quantity (SPEC §1 rule 2)


def _worked_example() -> dict[str, float]:
    """The P4 prompt's worked example, quantity → value, read from the prompt by this parser: the
    sentences between its framing ("… for a different recording.") and its instruction ("Now give …")."""
    text = get_rung("P4_fewshot").text
    body = text.partition("for a different recording.")[2].partition("Now give")[0]
    out = {QUANTITY_KEYS[q]: v for (q, v, u, *_rest) in _parser.parse_one(body, False) if UNIT_NAMES[u] != "dB" or QUANTITY_KEYS[q] != "shimmer"}
    if len(out) != 10:
        raise ImportError(f"the P4 worked example should state the ten scored quantities, read {sorted(out)} from {body!r}")
    return out


WORKED_EXAMPLE: dict[str, float] = _worked_example()
# per quantity code, the example's value (NaN where it states none), for the batch columns
_EXAMPLE_BY_CODE = np.array([WORKED_EXAMPLE.get(k, np.nan) for k in QUANTITY_KEYS])
_SHIMMER = QUANTITY_KEYS.index("shimmer")
_DB = UNIT_NAMES.index("dB")


def _echo(quantity: np.ndarray, value: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Which claims equal the worked example's value for their quantity (shimmer in dB never does)."""
    ex = _EXAMPLE_BY_CODE[quantity.astype(np.int64)] if len(quantity) else np.empty(0)
    same = np.abs(value - ex) <= 1e-9 * np.maximum(1.0, np.abs(ex))
    return same & ~((quantity == _SHIMMER) & (unit == _DB))


def parse(text: str, *, truncated: bool = False) -> list[Claim]:
    """The claims stated in ``text``, at most one per quantity (the last), in text order."""
    if not isinstance(text, str):
        raise TypeError(f"parse() takes a str, not {type(text).__name__}")
    raw = _parser.parse_one(text, bool(truncated))
    echo = _echo(np.array([r[0] for r in raw]), np.array([r[1] for r in raw], dtype=float), np.array([r[2] for r in raw]))
    return [
        Claim(QUANTITY_KEYS[q], v, UNIT_NAMES[u], ut, s, e, bs, be, bool(a), bool(r), int(b), bool(x))
        for (q, v, u, ut, s, e, bs, be, a, r, b), x in zip(raw, echo)
    ]


_DTYPES = {
    "text_index": np.int64,
    "quantity": np.uint8,
    "value": np.float64,
    "unit": np.uint8,
    "unit_text": np.int32,
    "start": np.int64,
    "end": np.int64,
    "byte_start": np.int64,
    "byte_end": np.int64,
    "approx": np.uint8,
    "is_range": np.uint8,
    "bound": np.int8,
    "n_claims": np.uint32,
}


@dataclass
class ClaimColumns:
    """Claims of many texts as columns. ``quantity``/``unit`` are integer codes into
    ``QUANTITY_KEYS``/``UNIT_NAMES``; ``unit_text`` is a code into ``unit_text_categories`` (-1 = none);
    ``n_claims[i]`` is the number of claims of text ``i`` (0 for texts that state nothing); ``echo``
    marks claims equal to the worked example's value for their quantity."""

    text_index: np.ndarray
    quantity: np.ndarray
    value: np.ndarray
    unit: np.ndarray
    unit_text: np.ndarray
    start: np.ndarray
    end: np.ndarray
    byte_start: np.ndarray
    byte_end: np.ndarray
    approx: np.ndarray
    is_range: np.ndarray
    bound: np.ndarray
    n_claims: np.ndarray
    unit_text_categories: list[str]
    echo: np.ndarray

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @classmethod
    def _from_raw(cls, raw: dict, index_offset: int = 0) -> "ClaimColumns":
        cols = {k: np.frombuffer(raw[k], dtype=dt) for k, dt in _DTYPES.items()}
        if index_offset:
            cols["text_index"] = cols["text_index"] + index_offset
        echo = _echo(cols["quantity"], cols["value"], cols["unit"])
        return cls(**cols, unit_text_categories=list(raw["unit_text_categories"]), echo=echo)

    def to_pandas(self) -> pd.DataFrame:
        """One row per claim: text_index, quantity, value, unit, unit_text, start, end, byte_start,
        byte_end, approx, is_range, bound, echo (quantity/unit/unit_text as categoricals)."""
        ut_codes = self.unit_text.astype(np.int64)
        return pd.DataFrame(
            {
                "text_index": self.text_index,
                "quantity": pd.Categorical.from_codes(self.quantity.astype(np.int64), categories=list(QUANTITY_KEYS)),
                "value": self.value,
                "unit": pd.Categorical.from_codes(self.unit.astype(np.int64), categories=list(UNIT_NAMES)),
                "unit_text": pd.Categorical.from_codes(ut_codes, categories=self.unit_text_categories),
                "start": self.start,
                "end": self.end,
                "byte_start": self.byte_start,
                "byte_end": self.byte_end,
                "approx": self.approx.astype(bool),
                "is_range": self.is_range.astype(bool),
                "bound": self.bound,
                "echo": self.echo,
            }
        )


def _arrow_arrays(texts) -> list:
    """The ``(schema, array)`` capsule pairs of an Arrow array, a pyarrow ChunkedArray (one pair per
    chunk) or any object with ``__arrow_c_array__`` (the Arrow PyCapsule interface)."""
    import pyarrow as pa

    if isinstance(texts, (pa.Array, pa.ChunkedArray)) and not (
        pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)
    ):
        raise TypeError(f"parse_batch() needs a string or large_string Arrow array, not {texts.type}")
    chunks = list(texts.chunks) if isinstance(texts, pa.ChunkedArray) else [texts]
    return [chunk.__arrow_c_array__() for chunk in chunks]


def _texts_for_batch(texts) -> list:
    """``texts`` as a list for the extension: a bare string is refused. A missing text (None, NaN,
    pandas' NA) is read as an empty one by the extension itself, without a pass over the texts here."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            f"parse_batch() takes a collection of texts, not one {type(texts).__name__} (it would be read "
            "character by character): use parse(text) for one text, or parse_batch([text])"
        )
    if isinstance(texts, pd.Series):
        texts = texts.tolist()
    elif not isinstance(texts, (list, tuple)):
        texts = list(texts)
    return texts


def parse_batch(
    texts: Sequence[str] | Iterable[str],
    *,
    truncated: Sequence[bool] | None = None,
    threads: int | None = None,
) -> ClaimColumns:
    """Parse many texts into columns. ``texts``: a sequence of ``str``, a pandas Series of ``str``,
    or Arrow strings (a pyarrow string/large_string Array or ChunkedArray, or any object with
    ``__arrow_c_array__``, read zero-copy through the Arrow PyCapsule interface). A missing text
    (``None``, NaN in a Series, an Arrow null) states nothing; a bare ``str`` is a ``TypeError``.
    ``truncated[i]`` marks generations cut at the token cap. ``threads``: None = all cores, 1 = this
    thread only, n = n threads. The GIL is released while parsing."""
    nthreads = 0 if threads is None else int(threads)
    if nthreads < 0:
        raise ValueError(f"threads must be None or >= 1, not {threads}")
    mask = None if truncated is None else [bool(x) for x in truncated]
    import pyarrow as pa

    if isinstance(texts, pa.ChunkedArray) or hasattr(texts, "__arrow_c_array__"):
        arrays = _arrow_arrays(texts)
        return ClaimColumns._from_raw(_parser.parse_arrow(arrays, mask, nthreads))
    texts = _texts_for_batch(texts)
    return ClaimColumns._from_raw(_parser.parse_many(texts, mask, nthreads))
