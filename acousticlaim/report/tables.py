"""Tables 1 and 2 as a reader sees them: Markdown (``reports/table1.md``, ``table2.md``).

The scorer (:mod:`acousticlaim.scoring`) computes the tables as frames (``table1_frame``,
``table2_frame``) with every figure and the text of each entry; this module only lays them out. The HTML
page (:mod:`acousticlaim.report.page`) lays out the same frames.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from acousticlaim.io import write_text
from acousticlaim.quantities import Tier
from acousticlaim.scoring import marks
from acousticlaim.scoring.cells import cell_counts
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.pipeline import ScoreResults
from acousticlaim.scoring.table2 import PANEL_CORPORA, TABLE_ORDER

# Column headings of the ten scored quantities (Table 2) and Table 1's row names.
HEADINGS = {"srmr": "SRMR", "snr": "SNR", "speaking_rate": "Sp. rate", "pause_count": "P. count",
            "pause_rate": "P. rate", "f0_mean": "F0 mean", "f0_sd": "F0 s.d.", "jitter": "Jitter",
            "shimmer": "Shimmer", "hnr": "HNR"}
MAX_LISTED = 12  # cells over the bar listed under each corpus block
CORPUS_NAMES = {"librimix": "Libri2Mix", "ami": "AMI", "twin": "Libri2Mix clean twins"}

WAITING = (
    "Table 1 is waiting for the reference system's predictions: `data/predict/predictions.parquet` "
    "(the `predict` stage) does not exist yet. It is written here as soon as that table exists."
)


def _rho_sd(rho, sd, seeds_ranked, mark) -> str:
    """``+0.809 ± 0.012`` over several seeds, the bare value over one, the mark over none."""
    if rho is None or (isinstance(rho, float) and not math.isfinite(rho)):
        return mark or marks.DASH
    if seeds_ranked and seeds_ranked > 1 and sd is not None and math.isfinite(sd):
        return f"{marks.signed(rho)} ± {sd:.3f}"
    return marks.signed(rho)


def _num(value, form="{:+.3f}") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return marks.DASH
    return form.format(value)


TIER_NAMES = {Tier.EXACT.value: "Exact", Tier.MEASURABLE.value: "Measurable", Tier.STEM_ONLY.value: "Stem-only",
               Tier.MASKED.value: "Masked" + marks.MASKED, Tier.EXCLUDED.value: "excl"}
ROW_NAMES = {"srmr": "SRMR", "snr": "SNR", "speaking_rate": "Speaking rate", "pause_count": "Pause count",
              "pause_rate": "Pause rate", "f0_mean": "F0 mean", "f0_sd": "F0 s.d.", "jitter": "Jitter",
              "shimmer": "Shimmer", "hnr": "HNR"}


def render_table1(table: pd.DataFrame | None, config: ScoringConfig) -> str:
    """Markdown of Table 1, or the plain statement that it is waiting for the predictions."""
    lines = ["# Table 1: tiers — the reference system beside the matched ridge", ""]
    if table is None:
        return "\n".join(lines + [WAITING, ""])
    t = table.astype(object).where(table.notna(), None)
    lines.append("| Quantity | Tier | Stated | ρ ours | ρ ridge | nMAE ours | nMAE ridge | within-speaker ours | within-speaker ridge | cap |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in t.itertuples(index=False):
        name = ROW_NAMES[r.quantity] + (marks.TWIN_ROW if r.read_on == "twins" else "")
        lines.append(
            f"| {name} | {TIER_NAMES[r.tier]} | {_num(r.stated, '{:.2f}')} | {_rho_sd(r.ours_rho, r.ours_sd, r.ours_seeds_ranked, r.ours_mark)} | "
            f"{_rho_sd(r.ridge_rho, r.ridge_sd, r.ridge_seeds_ranked, r.ridge_mark)} | {marks.nmae_text(r.ours_nmae)} | {marks.nmae_text(r.ridge_nmae)} | "
            f"{_num(r.ours_within)} | {_num(r.ridge_within)} | {_num(r.cap, '{:.2f}')} |"
        )
    first = t.iloc[0]
    seeds = int(first["seeds"])
    lines += ["", (
        f"Notes. Readout {first['readout']} ({'the emitted text, parsed' if first['readout'] == 'A' else 'the confidence head'}), "
        f"test split, {int(t.loc[t['read_on'] == 'mixtures', 'clips'].max() or 0)} mixtures; rows marked {marks.TWIN_ROW} are read on "
        f"the clips' clean twins and Tier is the tier on the mixture; {marks.MASKED} a reference read outside the overlap windows. "
        f"ρ is Spearman's (ties at average rank), the mean over the training seeds whose cell is ranked ± a sample s.d. over "
        f"{seeds} seed{'s' if seeds != 1 else ''}; the matched ridge is scored on the clips each of our seeds stated. "
        f"Stated is the share of the row's clips our system states the quantity on. Within-speaker ρ correlates ranks centred "
        f"by speaker. nMAE is the MAE over that of the median reference on the same clips; [x] at or above that floor. "
        f"Fisher-z {config.ci_level:.0%} intervals (cell table) use Fieller's variance {config.fieller_variance:g}/(n−3)."
    )]
    reliab = t[t["half_rho"].notna()]
    if len(reliab):
        parts = [f"{ROW_NAMES[r.quantity]} {r.half_rho:.2f} → {r.stepped_up:.2f} → cap {r.cap:.2f}"
                 for r in reliab.itertuples(index=False) if r.cap is not None]
        lines.append("")
        lines.append("Split-half reliability (two half-stem readings, Spearman–Brown 2r/(1+r), cap √): " + "; ".join(parts) + ".")
        over = t[t["over_cap"].astype(bool)]
        for r in over.itertuples(index=False):
            lines.append(f"{ROW_NAMES[r.quantity]}'s {marks.signed(r.ours_rho)} exceeds its cap {r.cap:.2f}"
                         + (f"; its within-speaker ρ is {marks.signed(r.ours_within)}." if r.ours_within is not None else "."))
    lines.append("")
    return "\n".join(lines)


def render_table2(table: pd.DataFrame, cells: pd.DataFrame, config: ScoringConfig, *,
                  sampling_seeds: dict[str, int] | None = None, title: str = "Table 2") -> str:
    """Markdown: one block per corpus, the counts under it, the cells over the bar, the notes."""
    lines = [f"# {title}: largest Spearman ρ over the rungs against the instrument", ""]
    panel = cells[(cells["system"] != config.reference_system)]
    for corpus in [c for c in PANEL_CORPORA if c in set(table["corpus"])]:
        block = table[table["corpus"] == corpus]
        tally = cell_counts(panel[panel["corpus"] == corpus], config)
        seeds = (sampling_seeds or {}).get(corpus)
        lines.append(f"## {CORPUS_NAMES[corpus]}" + (f" ({seeds} sampling seed{'s' if seeds != 1 else ''} pooled by clip)" if seeds else ""))
        lines.append("")
        lines.append("| System | " + " | ".join(HEADINGS[q] for q in TABLE_ORDER) + f" | > {config.bar:g} |")
        lines.append("|---|" + "---:|" * len(TABLE_ORDER) + "---:|")
        for system, rows in block.groupby("system", sort=False):
            texts = dict(zip(rows["quantity"], rows["text"]))
            if system == config.reference_system:
                count = "ref."
            else:
                first = rows.iloc[0]
                count = f"{int(first['over_bar'])}/{int(first['cells'])}"
            lines.append(f"| {system} | " + " | ".join(texts[q] for q in TABLE_ORDER) + f" | {count} |")
        lines.append("")
        lines.append(
            f"{CORPUS_NAMES[corpus]}: {tally['cells']} cells at n ≥ {config.n_min}, {tally['ranked']} ranked, "
            f"{tally['constant']} under {config.distinct_min} distinct values, {tally['undefined']} undefined, "
            f"{tally['over_bar']} over {config.bar:g}; a null panel would put {tally['null_expectation']:.2f} "
            f"of the ranked cells over the bar in expectation."
        )
        over = panel[(panel["corpus"] == corpus) & panel["over_bar"]].sort_values("spearman", ascending=False)
        for cell in over.head(MAX_LISTED).itertuples(index=False):
            contains = "contains" if cell.ci_low <= config.bar else "clears"
            lines.append(
                f"- over the bar: {cell.system} / {cell.rung} / {cell.quantity} {marks.signed(cell.spearman)} "
                f"[{cell.ci_low:.3f}, {cell.ci_high:.3f}] (interval {contains} the bar), n {cell.n}, "
                f"{cell.distinct} distinct, nMAE {cell.nmae:.3f}"
            )
        if len(over) > MAX_LISTED:
            lines.append(f"- … and {len(over) - MAX_LISTED} more cells over the bar (every cell is in the cell table)")
        lines.append("")
    lines += [
        "Notes. Every panel row is parsed emitted text; the sampling seeds are pooled by clip "
        f"(rule `{config.pool}`: {'the value of the lowest seed that states one' if config.pool == 'first' else 'the mean of the seeds that state one'}), "
        "so n counts distinct clips carrying a parsed claim and a defined reference. An entry is the largest ρ among the "
        "system's ranked cells over the rungs; the last column counts its cells over the bar against its cells at "
        f"n ≥ {config.n_min}, over every rung. ρ is Spearman's, tied values at their average rank. Fisher-z "
        f"{config.ci_level:.0%} intervals use Fieller's variance {config.fieller_variance:g}/(n−3) for Spearman's ρ. "
        "The null expectation sums, over the ranked cells, the probability that an independent cell of the same n "
        "clears the bar (Student-t approximation). Our row is the mean over the training seeds whose cell is ranked.",
        "",
        "Marks: " + marks.LEGEND,
        "",
    ]
    return "\n".join(lines)


def write_tables_markdown(results: ScoreResults, reports: str | Path, *, table1: bool = True) -> list[Path]:
    """``table2.md`` (and ``table1.md`` unless ``table1`` is false) under ``reports``, atomically."""
    reports = Path(reports)
    written = [write_text(reports / "table2.md", render_table2(results.table2, results.cells, results.config,
                                                                 sampling_seeds=results.sampling_seeds,
                                                                 title=results.title))]
    if table1:
        written.append(write_text(reports / "table1.md", render_table1(results.table1, results.config)))
    return written
