"""The ``scores:`` group of ``params.yaml``: thresholds, pooling rule and table options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from acousticlaim.params import param, settings_from
from acousticlaim.quantities import ALL_KEYS, VOICE_KEYS
from acousticlaim.scoring.stats import FIELLER_VARIANCE

POOL_RULES = ("first", "mean")
COLLAR_S = 0.2  # Table 3: event-based onset collar (s)
SEGMENT_S = 1.0  # Table 3: segment-based resolution (s)


@dataclass(frozen=True)
class IntervalScoring:
    """``scores.intervals``: Table 3, the claims in time (:mod:`acousticlaim.scoring.intervals`)."""

    collar_s: float = param(COLLAR_S, ge=0)  # event-based onset collar
    segment_s: float = param(SEGMENT_S, gt=0)  # segment-based resolution
    chance_draws: int = param(100, ge=2)  # random placements averaged for the chance anchor
    seed: int = param(0, ge=0)  # the chance anchor's draws
    estimator_system: str = "estimator"  # the anchor: the instruments on the heard signal
    figure_clips: int = param(3, ge=0)  # clips drawn with their reference and stated intervals on the waveform


@dataclass(frozen=True)
class ScoringConfig:
    """Every threshold and option the scorer reads (defaults are the paper's and the released scorer's)."""

    n_min: int = param(25, ge=3)  # a cell under this many clips with a parsed claim reads "–"
    distinct_min: int = param(5, ge=2)  # a cell under this many distinct stated values reads "c"
    bar: float = param(0.3, gt=-1, lt=1)  # a ranked cell tracks the reference when ρ > bar
    pool: str = param("first", choices=POOL_RULES)  # first: the lowest sampling seed that states a value; mean
    ci_level: float = param(0.95, gt=0, lt=1)  # Fisher-z interval level
    fieller_variance: float = param(FIELLER_VARIANCE, gt=0)  # var(atanh ρ_s) = fieller_variance / (n − 3)
    stated_decimals: int = param(6, ge=0)  # distinct stated values are counted after rounding to this many decimals
    reference_decimals: int = param(9, ge=0)  # ... and distinct reference values after rounding to this many
    reference_system: str = "reference"  # our own system: its seeds are training seeds, never pooled
    ridge_system: str = "ridge"  # the matched ridge in the predictions table
    table1_twin_rows: tuple[str, ...] = param(VOICE_KEYS, choices=ALL_KEYS)  # Table 1 rows read on the twins (‡)
    full_coverage: float = param(0.95, gt=0, le=1)  # our row's cell is read on part of the clips (§) under this
    system_order: tuple[str, ...] = ()  # Table 2 row order (others follow A–Z)
    split_by: tuple[str, ...] = ()  # manifest columns Table 2 is also split by (acousticlaim.scoring.split)
    intervals: IntervalScoring = field(default_factory=IntervalScoring)  # Table 3, the claims in time

    @classmethod
    def from_params(cls, group: Mapping[str, Any] | None) -> "ScoringConfig":
        """Build from the ``scores:`` group, every value checked (:func:`acousticlaim.params.settings_from`)."""
        return settings_from(cls, group, "scores")
