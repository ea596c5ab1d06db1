"""The ``scores:`` group of ``params.yaml``: thresholds, pooling rule and table options."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from acousticlaim.quantities import QUANTITIES, VOICE_KEYS

POOL_RULES = ("first", "mean")


@dataclass(frozen=True)
class ScoringConfig:
    """Every threshold and option the scorer reads (defaults are the paper's and the released scorer's)."""

    n_min: int = 25  # a cell under this many clips with a parsed claim reads "–"
    distinct_min: int = 5  # a cell under this many distinct stated values reads "c"
    bar: float = 0.3  # a ranked cell tracks the reference when ρ > bar
    pool: str = "first"  # first: the lowest sampling seed that states a value; mean: their mean
    ci_level: float = 0.95  # Fisher-z interval level
    fieller_variance: float = 1.06  # var(atanh ρ_s) = fieller_variance / (n − 3)
    stated_decimals: int = 6  # distinct stated values are counted after rounding to this many decimals
    reference_decimals: int = 9  # ... and distinct reference values after rounding to this many
    reference_system: str = "reference"  # our own system: its seeds are training seeds, never pooled
    ridge_system: str = "ridge"  # the matched ridge in the predictions table
    table1_twin_rows: tuple[str, ...] = VOICE_KEYS  # Table 1 rows read on the clean twins (‡)
    full_coverage: float = 0.95  # our row's cell is read on part of the clips (§) under this coverage
    system_order: tuple[str, ...] = field(default_factory=tuple)  # Table 2 row order (others follow A–Z)
    split_by: tuple[str, ...] = field(default_factory=tuple)  # manifest columns Table 2 is also split by (split.py)

    def __post_init__(self) -> None:
        if self.pool not in POOL_RULES:
            raise ValueError(f"scores.pool must be one of {', '.join(POOL_RULES)}, got {self.pool!r}")
        if self.n_min < 3:
            raise ValueError(f"scores.n_min must be at least 3, got {self.n_min}")
        if self.distinct_min < 2:
            raise ValueError(f"scores.distinct_min must be at least 2, got {self.distinct_min}")
        if not -1.0 < self.bar < 1.0:
            raise ValueError(f"scores.bar must lie in (-1, 1), got {self.bar}")
        if not 0 < self.ci_level < 1:
            raise ValueError(f"scores.ci_level must lie in (0, 1), got {self.ci_level}")
        if not 0 < self.full_coverage <= 1:
            raise ValueError(f"scores.full_coverage must lie in (0, 1], got {self.full_coverage}")
        unknown = [key for key in self.table1_twin_rows if key not in QUANTITIES]
        if unknown:
            raise ValueError(f"scores.table1_twin_rows names unknown quantities: {', '.join(unknown)}")

    @classmethod
    def from_params(cls, group: Mapping[str, Any] | None) -> "ScoringConfig":
        """Build from the ``scores:`` group; an unknown key is an error naming it."""
        group = dict(group or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(group) - known)
        if unknown:
            raise ValueError(f"params.yaml scores: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        for key in ("table1_twin_rows", "system_order", "split_by"):
            if key in group:
                group[key] = tuple(group[key] or ())
        return cls(**group)
