"""One instrument reading: a value, or an explicit undefined with the reason.

Praat answers ``--undefined--`` (NaN through parselmouth) when a quantity cannot be measured — no
voiced frames, too few glottal periods, a clip shorter than one analysis window. AcoustiClaim never
lets such a NaN travel silently: every reader returns a :class:`Reading`, and a reading without a
finite value must say why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

UNDEFINED = float("nan")


@dataclass(frozen=True)
class Reading:
    """``value`` (finite) with ``reason == ""``, or ``value`` NaN with a non-empty ``reason``."""

    value: float
    reason: str = ""

    def __post_init__(self) -> None:
        value = float(self.value)
        object.__setattr__(self, "value", value)
        if math.isfinite(value):
            if self.reason:
                raise ValueError(f"a defined reading ({value}) carries no reason, got {self.reason!r}")
        else:
            if not self.reason:
                raise ValueError("an undefined reading must say why (empty reason)")
            object.__setattr__(self, "value", UNDEFINED)

    @property
    def defined(self) -> bool:
        return math.isfinite(self.value)

    @classmethod
    def of(cls, value: float | None, reason_if_undefined: str) -> "Reading":
        """``value`` when it is a finite number, else undefined with ``reason_if_undefined``."""
        if value is None or not math.isfinite(float(value)):
            return cls(UNDEFINED, reason_if_undefined)
        return cls(float(value))

    @classmethod
    def undefined(cls, reason: str) -> "Reading":
        return cls(UNDEFINED, reason)

    def scaled(self, factor: float) -> "Reading":
        return Reading(self.value * factor) if self.defined else self

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value if self.defined else None, "defined": self.defined, "reason": self.reason}
