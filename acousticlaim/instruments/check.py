"""`acousticlaim check`: each numeric claim in a text beside the instrument's reading of the file.

The claims come from the project's one parser (``acousticlaim.claims.parser.parse``, SPEC §1); a
claim carries at least ``.quantity`` (a registry key) and ``.value`` (in the canonical unit). The
error is stated − measured, in the quantity's canonical unit; the relative error divides by the
measured value. A claim is not compared when the reading is undefined (the reason is shown), or
when it is shimmer stated in dB (the SPEC keeps it in dB, not scored against percent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from acousticlaim.instruments.measure import FileMeasurement
from acousticlaim.instruments.reading import Reading
from acousticlaim.quantities import QUANTITIES, get


@dataclass(frozen=True)
class ClaimCheck:
    quantity: str
    stated: float
    unit: str
    measured: Reading | None
    error: float
    relative_error: float
    note: str = ""
    claim_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "quantity": self.quantity,
            "stated": self.stated,
            "unit": self.unit,
            "measured": None if self.measured is None else self.measured.to_dict(),
            "error": None if math.isnan(self.error) else self.error,
            "relative_error": None if math.isnan(self.relative_error) else self.relative_error,
            "note": self.note,
            "claim_text": self.claim_text,
        }


def _claim_unit_text(claim: Any) -> str:
    for attr in ("unit_text", "unit"):
        value = getattr(claim, attr, None)
        if isinstance(value, str):
            return value
    return ""


def _claim_span(claim: Any, text: str | None) -> str:
    start, end = getattr(claim, "start", None), getattr(claim, "end", None)
    if text is not None and isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
        return text[start:end]
    return ""


def _kept_unit(q, unit_text: str) -> str | None:
    """The registry unit kept as stated (shimmer in dB) that the claim is written in, if any."""
    written = unit_text.strip().lower()
    return next((u for u in q.extra_units if u.lower() in written), None) if written else None


def check_claims(measurement: FileMeasurement, claims: Iterable[Any], text: str | None = None) -> list[ClaimCheck]:
    """Compare each claim with the reading of the same quantity."""
    out = []
    for claim in claims:
        key = str(claim.quantity)
        stated = float(claim.value)
        span = _claim_span(claim, text)
        if key not in QUANTITIES:
            out.append(ClaimCheck(key, stated, "", None, math.nan, math.nan, f"unknown quantity {key!r}", span))
            continue
        q = get(key)
        unit = q.unit
        kept = _kept_unit(q, _claim_unit_text(claim))
        if kept is not None:
            out.append(ClaimCheck(key, stated, kept, None, math.nan, math.nan,
                                  f"{key} stated in {kept}: kept in {kept}, not compared with {q.name} in {unit}", span))
            continue
        reading = measurement.readings.get(key)
        if reading is None or not reading.defined:
            note = reading.reason if reading is not None else "no instrument reading for this quantity"
            out.append(ClaimCheck(key, stated, unit, reading, math.nan, math.nan, note, span))
            continue
        error = stated - reading.value
        relative = error / reading.value if reading.value != 0 else math.nan
        out.append(ClaimCheck(key, stated, unit, reading, error, relative, "", span))
    return out
