"""Table 2 (the panel): each system's largest ρ over the rungs, per quantity and corpus.

Every panel row is parsed emitted text, the sampling seeds pooled by clip, mixtures only (the clean
twins are Table 1's business). An entry is the largest Spearman ρ among the system's *ranked* cells of
that quantity and corpus over the rungs, marked as in :mod:`acousticlaim.scoring.marks`; the last column
counts the system's cells over the bar against its cells at ``n ≥ n_min``, over every rung.

Our own row (the reference system) is not pooled: each training seed is a cell of its own, and the entry
is the mean ρ over the seeds whose cell is ranked (the released scorer's rule), marked § / ¶.
"""

from __future__ import annotations

import math

import pandas as pd

from acousticlaim.quantities import SCORED_KEYS, Corpus

from . import marks
from .cells import cell_counts, excluded_quantities
from .config import ScoringConfig
from .stats import mean_sd

# The order both tables print the ten scored quantities in (the paper's).
TABLE_ORDER = ("srmr", "snr", "speaking_rate", "pause_count", "pause_rate", "f0_mean", "f0_sd", "jitter", "shimmer", "hnr")
assert set(TABLE_ORDER) == set(SCORED_KEYS), "Table order must name exactly the registry's scored quantities"

PANEL_CORPORA = (Corpus.LIBRIMIX.value, Corpus.AMI.value)
GRID_COLUMNS = ("corpus", "system", "quantity", "rho", "rung", "n", "distinct", "nmae", "ci_low", "ci_high",
                "marks", "text", "seeds_run", "seeds_ranked")


def order_systems(systems, config: ScoringConfig) -> list[str]:
    """``config.system_order`` first, in its order; the others alphabetically."""
    systems = set(systems)
    first = [s for s in config.system_order if s in systems]
    return first + sorted(systems - set(first))


def panel_grid(cells: pd.DataFrame, config: ScoringConfig) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The panel rows of Table 2 (long format) and each system's count of cells over the bar."""
    panel = cells[cells["corpus"].isin(PANEL_CORPORA) & (cells["system"] != config.reference_system)]
    entries, counts = [], []
    for corpus in [c for c in PANEL_CORPORA if c in set(panel["corpus"])]:
        here = panel[panel["corpus"] == corpus]
        excluded = excluded_quantities(corpus)
        for system in order_systems(here["system"].unique(), config):
            own = here[here["system"] == system]
            at_min = own[own["n"] >= config.n_min]
            tally = cell_counts(own, config)
            counts.append({"corpus": corpus, "system": system, "over_bar": tally["over_bar"],
                           "cells": tally["cells"], "ranked": tally["ranked"]})
            for quantity in TABLE_ORDER:
                entry = {"corpus": corpus, "system": system, "quantity": quantity}
                if quantity in excluded:
                    entries.append({**entry, "marks": marks.EXCLUDED, "text": marks.EXCLUDED})
                    continue
                ranked = at_min[(at_min["quantity"] == quantity) & (at_min["status"] == "ranked")]
                if ranked.empty:
                    mark = marks.unranked_mark(bool((at_min["quantity"] == quantity).any()))
                    entries.append({**entry, "marks": mark, "text": mark})
                    continue
                best = ranked.loc[ranked["spearman"].idxmax()]
                over = marks.OVER_BAR if best["spearman"] > config.bar else ""
                entries.append({**entry, "rho": best["spearman"], "rung": best["rung"], "n": best["n"],
                                "distinct": best["distinct"], "nmae": best["nmae"], "ci_low": best["ci_low"],
                                "ci_high": best["ci_high"], "marks": over,
                                "text": marks.rho_text(best["spearman"], config.bar)})
    grid = pd.DataFrame(entries, columns=list(GRID_COLUMNS))
    return grid, pd.DataFrame(counts, columns=["corpus", "system", "over_bar", "cells", "ranked"])


def our_row(seed_cells: pd.DataFrame, config: ScoringConfig) -> pd.DataFrame:
    """Our own row from per-training-seed cells (columns of ``score_cells`` with a ``seed`` key)."""
    if seed_cells.empty:
        return pd.DataFrame(columns=list(GRID_COLUMNS))
    mine = seed_cells[seed_cells["corpus"].isin(PANEL_CORPORA)]
    seeds_per_corpus = mine.groupby("corpus")["seed"].nunique()
    most_seeds = int(seeds_per_corpus.max()) if len(seeds_per_corpus) else 0
    entries = []
    for corpus in [c for c in PANEL_CORPORA if c in seeds_per_corpus.index]:
        here = mine[mine["corpus"] == corpus]
        seeds_run = int(seeds_per_corpus[corpus])
        for quantity in TABLE_ORDER:
            entry = {"corpus": corpus, "system": config.reference_system, "quantity": quantity,
                     "seeds_run": seeds_run}
            if quantity in excluded_quantities(corpus):
                entries.append({**entry, "marks": marks.EXCLUDED, "text": marks.EXCLUDED})
                continue
            best = None
            for rung, cells in here[here["quantity"] == quantity].groupby("rung"):
                ranked = cells[cells["status"] == "ranked"]
                rho, _, k = mean_sd(ranked["spearman"])
                summary = {
                    "rung": rung, "rho": rho, "seeds_ranked": k,
                    "below": int((cells["n"] < config.n_min).sum()),
                    "coverage": mean_sd(cells["coverage"])[0],
                    "n": int(round(cells["n"].mean())), "distinct": int(round(cells["distinct"].mean())),
                    "nmae": mean_sd(ranked["nmae"])[0],
                    "at_min": bool((cells["n"] >= config.n_min).all()),
                }
                if best is None or (rho is not None and (best["rho"] is None or rho > best["rho"])):
                    best = summary
            if best is None or best["rho"] is None:
                mark = marks.CONSTANT if best is not None and best["at_min"] else marks.DASH
                entries.append({**entry, "marks": mark, "text": mark,
                                "seeds_ranked": 0 if best is None else best["seeds_ranked"]})
                continue
            row_marks = marks.our_row_marks(seeds_run, best["below"], best["coverage"], most_seeds,
                                            config.full_coverage)
            over = marks.OVER_BAR if best["rho"] > config.bar else ""
            entries.append({**entry, "rho": best["rho"], "rung": best["rung"], "n": best["n"],
                            "distinct": best["distinct"], "nmae": best["nmae"], "marks": over + row_marks,
                            "text": marks.rho_text(best["rho"], config.bar, row_marks),
                            "seeds_ranked": best["seeds_ranked"]})
    return pd.DataFrame(entries, columns=list(GRID_COLUMNS))


def table2_frame(cells: pd.DataFrame, config: ScoringConfig, seed_cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 2 in long format (one row per corpus, system and quantity), our row last in each corpus."""
    grid, counts = panel_grid(cells, config)
    grid = grid.merge(counts, on=["corpus", "system"], how="left")
    if seed_cells is not None and len(seed_cells):
        grid = pd.concat([grid, our_row(seed_cells, config)], ignore_index=True)
    order = {c: i for i, c in enumerate(PANEL_CORPORA)}
    grid["_corpus"] = grid["corpus"].map(order)
    grid["_ours"] = grid["system"] == config.reference_system
    grid = grid.sort_values(["_corpus", "_ours"], kind="stable").drop(columns=["_corpus", "_ours"])
    return grid.reset_index(drop=True)


def summary_counts(cells: pd.DataFrame, config: ScoringConfig) -> dict:
    """Headline counts per panel corpus and over both, the reference system left out."""
    panel = cells[(cells["system"] != config.reference_system) & cells["corpus"].isin(PANEL_CORPORA)]
    out = {corpus: cell_counts(panel[panel["corpus"] == corpus], config) for corpus in PANEL_CORPORA
           if corpus in set(panel["corpus"])}
    out["all"] = cell_counts(panel, config)
    return out


def mean_nmae_per_system(cells: pd.DataFrame, config: ScoringConfig) -> dict[str, float]:
    """Mean nMAE over each system's ranked cells (panel corpora); systems with none are left out."""
    ranked = cells[(cells["status"] == "ranked") & cells["corpus"].isin(PANEL_CORPORA)]
    means = ranked.groupby("system")["nmae"].mean()
    return {system: float(v) for system, v in means.items() if math.isfinite(v)}
