"""The marks of the paper's Tables 1 and 2, and how an entry earns each.

Here and in both tables (the paper's caption of Table 1):

* ``–``  fewer than ``n_min`` (25) clips with a parsed claim at every rung;
* ``c``  cells at ``n ≥ n_min`` exist, but none reaches ``distinct_min`` (5) distinct values (or ρ is
  undefined there), so no rank correlation is reported;
* ``excl`` a reference not scored on that corpus (AMI's SNR and the two pause references);
* ``§``  our own row's entry read on part of the clips: the reference system speaks on less than
  ``full_coverage`` of the panel clips, or one of its training seeds falls under ``n_min`` there;
* ``¶``  our own row rests on fewer training seeds than the reference system ran on the other corpus;
* ``↑``  (the paper's red arrow) a value over the bar, ρ > ``bar``;
* ``[x]`` (Table 1) an nMAE at or above the constant-predictor floor, 1.0;
* ``‡``  (Table 1) a row read on the clean twins; ``†`` a Masked reference, read outside the overlap windows.
"""

from __future__ import annotations

import math

DASH = "–"
CONSTANT = "c"
EXCLUDED = "excl"
PART_OF_CLIPS = "§"
FEWER_SEEDS = "¶"
OVER_BAR = "↑"
TWIN_ROW = "‡"
MASKED = "†"

LEGEND = (
    f"{DASH} under the claim minimum at every rung; {CONSTANT} under the distinct-value minimum (no rank "
    f"correlation); {EXCLUDED} a reference not scored on that corpus; {PART_OF_CLIPS} our row read on part "
    f"of the clips; {FEWER_SEEDS} our row over fewer training seeds; {OVER_BAR} a value over the bar; "
    f"[x] an nMAE at or above the constant-predictor floor (1.0)."
)


def signed(value: float) -> str:
    """A correlation as the paper prints it, ``+0.311``."""
    return f"{value:+.3f}"


def rho_text(value: float | None, bar: float, extra: str = "") -> str:
    """A correlation with its marks: the arrow when over the bar, then any row mark (§, ¶)."""
    if value is None or not math.isfinite(value):
        raise ValueError("rho_text needs a finite correlation; use the entry's mark instead")
    return signed(value) + (OVER_BAR if value > bar else "") + extra


def nmae_text(value: float | None) -> str:
    """An nMAE, bracketed when at or above the floor; ``–`` when it does not exist."""
    if value is None or not math.isfinite(value):
        return DASH
    return f"[{value:.3f}]" if value >= 1.0 else f"{value:.3f}"


def unranked_mark(any_cell_at_minimum: bool) -> str:
    """``c`` when a cell reached the claim minimum but none is ranked, ``–`` when none reached it."""
    return CONSTANT if any_cell_at_minimum else DASH


def our_row_marks(seeds_run: int, seeds_below_minimum: int, mean_coverage: float | None,
                  most_seeds_run: int, full_coverage: float) -> str:
    """The § and ¶ marks of an entry of our own row (empty when it earns neither)."""
    marks = ""
    partial = seeds_below_minimum > 0 or (mean_coverage is not None and mean_coverage < full_coverage)
    if partial:
        marks += PART_OF_CLIPS
    if seeds_run < most_seeds_run:
        marks += FEWER_SEEDS
    return marks
