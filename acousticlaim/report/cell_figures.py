"""Pictures of cells: the stated values beside the instrument's readings, as a reader of Table 2 wants next.

* :func:`scatter_picture` — one ranked cell: each clip's instrument reading (x) against the value the
  system stated (y), the identity line, the constant predictor (the median reference, the nMAE floor of
  1.0), and in a box ρ with its Fisher-z interval, n, the distinct values and nMAE. Our own system's
  cells are one per training seed: each seed is drawn in its own colour with its own figures.
* :func:`strip_picture` — a "c" cell (too few distinct values for a rank correlation): one row per value
  stated, the instrument readings of the clips it was stated on spread along it.
* :func:`table1_row_picture` — a Table 1 row: the reference system and the matched ridge side by side.
* :func:`table2_heatmap` — Table 2 itself: systems × quantities per corpus, the largest ρ over the rungs,
  entries over the bar outlined, the bar marked on the colour scale.

Every picture is a PNG with its data as CSV beside it (same name): the cell's points (``clip_id,
reference, stated`` and the seed where there is one), so ``dvc plots show`` can draw them with its
``scatter`` template. Nothing here computes a statistic: every figure shown is read off the scorer's
cell table (:mod:`acousticlaim.scoring.cells`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle

from acousticlaim.io import write_csv
from acousticlaim.quantities import get
from acousticlaim.report.drawing import axis_label, save_png
from acousticlaim.report.tables import CORPUS_NAMES, HEADINGS, ROW_NAMES
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.table2 import PANEL_CORPORA, TABLE_ORDER

CELL_DPI = 100  # hundreds of cell pictures: smaller files, quicker to draw
POINT_COLOUR = "#1f5fa8"
RIDGE_COLOUR = "#d9730d"
CONSTANT_COLOUR = "#8c8c8c"
SEED_COLOURS = ("#1f5fa8", "#d9730d", "#2a9d4b", "#b8336a", "#6a4c93", "#8c6d1f", "#3a8f9e", "#555555")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """A file-name piece: letters, digits, ``.``, ``_`` and ``-`` only."""
    return _SAFE.sub("_", str(text)).strip("_") or "_"


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def cell_caption(cell: pd.Series | dict, bar: float, ci_level: float) -> str:
    """The figures of one cell as the box of its picture shows them."""
    lines = []
    rho = _finite(cell.get("spearman"))
    if rho is not None:
        line = f"ρ = {rho:+.3f}"
        lo, hi = _finite(cell.get("ci_low")), _finite(cell.get("ci_high"))
        if lo is not None and hi is not None:
            line += f"  [{lo:+.3f}, {hi:+.3f}] ({ci_level:.0%} Fisher-z)"
        line += "  over the bar" if rho > bar else f"  not over the bar ({bar:g})"
        lines.append(line)
    else:
        lines.append(f"no rank correlation ({cell.get('status')})")
    lines.append(f"n = {int(cell.get('n', 0))} clips, {int(cell.get('distinct', 0))} distinct values stated")
    nmae, floor = _finite(cell.get("nmae")), _finite(cell.get("floor"))
    if nmae is not None:
        lines.append(f"nMAE = {nmae:.3f} (constant floor 1.0"
                     + (f" = MAE {floor:.3g}" if floor is not None else "") + ")")
    within = _finite(cell.get("within_speaker"))
    if within is not None:
        lines.append(f"within-speaker ρ = {within:+.3f}")
    return "\n".join(lines)


def short_caption(cell: pd.Series | dict) -> str:
    """One line: ρ [interval], n, nMAE (a seed's cell beside others)."""
    rho = _finite(cell.get("spearman"))
    lo, hi = _finite(cell.get("ci_low")), _finite(cell.get("ci_high"))
    text = f"ρ {rho:+.3f}" if rho is not None else f"{cell.get('status')}"
    if rho is not None and lo is not None and hi is not None:
        text += f" [{lo:+.2f}, {hi:+.2f}]"
    text += f", n {int(cell.get('n', 0))}"
    nmae = _finite(cell.get("nmae"))
    return text + (f", nMAE {nmae:.3f}" if nmae is not None else "")


def _constant_line(ax, reference: np.ndarray, label: str = "constant: median reference") -> None:
    if reference.size:
        ax.axhline(float(np.median(reference)), color=CONSTANT_COLOUR, lw=1.2, ls=":", label=label)


def _identity(ax, x: np.ndarray, y: np.ndarray) -> None:
    values = np.concatenate([x, y]) if x.size else np.array([0.0, 1.0])
    lo, hi = float(np.min(values)), float(np.max(values))
    pad = 0.05 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="black", lw=0.8, ls="--", label="stated = instrument")


def _box(ax, text: str) -> None:
    """The figures under the axes, so that no point hides behind them."""
    ax.text(0.0, -0.16, text, transform=ax.transAxes, va="top", ha="left", fontsize=8,
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "#cccccc"})


@dataclass(frozen=True)
class CellSeries:
    """One set of points of a picture with the cell they form (a training seed's, or the pooled cell)."""

    label: str
    points: pd.DataFrame  # clip_id, reference, stated
    cell: dict


def scatter_picture(series: list[CellSeries], *, quantity: str, title: str, config: ScoringConfig,
                    png: str | Path, csv: str | Path) -> pd.DataFrame:
    """A ranked cell (or one per seed) as stated-against-instrument scatter; returns the CSV's frame."""
    fig, ax = plt.subplots(figsize=(6.2, 4.8))
    xs, ys, captions, frames = [], [], [], []
    for i, s in enumerate(series):
        x = s.points["reference"].to_numpy(float)
        y = s.points["stated"].to_numpy(float)
        colour = POINT_COLOUR if len(series) == 1 else SEED_COLOURS[i % len(SEED_COLOURS)]
        ax.scatter(x, y, s=14, alpha=0.65, color=colour, edgecolors="none",
                   label=s.label if len(series) > 1 else f"clips (n = {len(x)})")
        xs.append(x)
        ys.append(y)
        caption = cell_caption(s.cell, config.bar, config.ci_level)
        captions.append(caption if len(series) == 1 else f"{s.label}: " + short_caption(s.cell))
        frames.append(s.points.assign(series=s.label))
    x_all = np.concatenate(xs) if xs else np.array([])
    y_all = np.concatenate(ys) if ys else np.array([])
    _identity(ax, x_all, y_all)
    _constant_line(ax, x_all)
    ax.set_xlabel(axis_label(quantity, "instrument: "))
    ax.set_ylabel(axis_label(quantity, "stated: "))
    ax.set_title(title, fontsize=10)
    _box(ax, "\n".join(captions))
    ax.legend(loc="lower right", fontsize=7, frameon=True)
    ax.grid(alpha=0.25)
    save_png(fig, png, dpi=CELL_DPI)
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["clip_id", "reference", "stated"])
    write_csv(csv, data)
    return data


def strip_picture(series: CellSeries, *, quantity: str, title: str, config: ScoringConfig,
                  png: str | Path, csv: str | Path) -> pd.DataFrame:
    """A "c" cell: one row per distinct value stated, the instrument readings of its clips along it."""
    points = series.points
    values = np.sort(points["stated"].unique())
    fig, ax = plt.subplots(figsize=(6.2, 1.2 + 0.45 * max(1, len(values))))
    rng = np.random.default_rng(0)  # vertical jitter only, so overlapping clips stay visible
    for row, value in enumerate(values):
        refs = points.loc[points["stated"] == value, "reference"].to_numpy(float)
        ax.scatter(refs, row + rng.uniform(-0.18, 0.18, refs.size), s=14, alpha=0.65, color=POINT_COLOUR,
                   edgecolors="none")
        ax.text(1.01, row, f"{refs.size} clips", transform=ax.get_yaxis_transform(), va="center", fontsize=7)
    ref = points["reference"].to_numpy(float)
    if ref.size:
        ax.axvline(float(np.median(ref)), color=CONSTANT_COLOUR, lw=1.2, ls=":", label="median reference")
        ax.legend(loc="lower right", fontsize=7)
    ax.set_yticks(range(len(values)))
    unit = get(quantity).unit
    ax.set_yticklabels([f"{v:g} {unit}" for v in values], fontsize=8)
    ax.set_ylim(-0.6, len(values) - 0.4)
    ax.set_xlabel(axis_label(quantity, "instrument: "))
    ax.set_ylabel("value stated")
    ax.set_title(title + f"\n{len(values)} distinct value(s) (under {config.distinct_min}: no rank correlation)",
                 fontsize=10)
    ax.grid(axis="x", alpha=0.25)
    save_png(fig, png, dpi=CELL_DPI)
    data = points[["clip_id", "reference", "stated"]].copy()
    write_csv(csv, data)
    return data


def table1_row_picture(points: pd.DataFrame, seed_cells: pd.DataFrame, row: pd.Series, *, config: ScoringConfig,
                       png: str | Path, csv: str | Path) -> pd.DataFrame:
    """A Table 1 row: our system (left) and the matched ridge (right), each training seed in its colour."""
    quantity = row["quantity"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharex=True, sharey=True)
    frames = []
    for ax, system, name in ((axes[0], config.reference_system, "reference system"),
                             (axes[1], config.ridge_system, "matched ridge")):
        mine = points[(points["quantity"] == quantity) & (points["system"] == system)]
        cells = seed_cells[(seed_cells["quantity"] == quantity) & (seed_cells["system"] == system)] \
            if len(seed_cells) else seed_cells
        captions, xs, ys = [], [], []
        for i, (seed, group) in enumerate(mine.groupby("train_seed", sort=True)):
            colour = SEED_COLOURS[i % len(SEED_COLOURS)]
            x, y = group["reference"].to_numpy(float), group["stated"].to_numpy(float)
            ax.scatter(x, y, s=10, alpha=0.55, color=colour, edgecolors="none", label=f"training seed {seed}")
            xs.append(x)
            ys.append(y)
            cell = cells[cells["train_seed"] == seed]
            if len(cell):
                captions.append(f"seed {seed}: " + short_caption(cell.iloc[0].to_dict()))
            frames.append(group.assign(system=system))
        x_all = np.concatenate(xs) if xs else np.array([])
        y_all = np.concatenate(ys) if ys else np.array([])
        _identity(ax, x_all, y_all)
        _constant_line(ax, x_all)
        prefix = "ours" if system == config.reference_system else "ridge"
        rho, sd = _finite(row.get(f"{prefix}_rho")), _finite(row.get(f"{prefix}_sd"))
        seeds_ranked = int(_finite(row.get(f"{prefix}_seeds_ranked")) or 0)
        nmae = _finite(row.get(f"{prefix}_nmae"))
        head = (f"{name}: ρ {rho:+.3f}" + (f" ± {sd:.3f}" if sd is not None and seeds_ranked > 1 else "")
                if rho is not None
                else f"{name}: {row.get(f'{prefix}_mark') or 'no ranked seed'}")
        head += f", nMAE {nmae:.3f}" if nmae is not None else ""
        ax.set_title(head, fontsize=9)
        _box(ax, "\n".join(captions) or "nothing stated")
        ax.set_xlabel(axis_label(quantity, "instrument: "))
        ax.grid(alpha=0.25)
        ax.legend(loc="lower right", fontsize=7)
    axes[0].set_ylabel(axis_label(quantity, "stated: "))
    read_on = "clean twins" if row.get("read_on") == "twins" else "mixtures"
    fig.suptitle(f"Table 1 · {ROW_NAMES[quantity]} · read on the test {read_on} · readout {row.get('readout')}",
                 fontsize=11)
    save_png(fig, png, dpi=CELL_DPI)
    data = (pd.concat(frames, ignore_index=True)[["system", "train_seed", "clip_id", "reference", "stated"]]
            if frames else pd.DataFrame(columns=["system", "train_seed", "clip_id", "reference", "stated"]))
    write_csv(csv, data)
    return data


def table2_heatmap(table2: pd.DataFrame, config: ScoringConfig, *, png: str | Path, csv: str | Path,
                   system_names: dict[str, str] | None = None) -> pd.DataFrame:
    """Table 2 as a heatmap per panel corpus: ρ in colour, every entry's text, the bar on the colour scale."""
    corpora = [c for c in PANEL_CORPORA if c in set(table2["corpus"])]
    grid = table2.copy()
    grid["rho"] = pd.to_numeric(grid["rho"], errors="coerce")
    grid["over_bar"] = grid["rho"] > config.bar
    heights = [max(1, grid.loc[grid["corpus"] == c, "system"].nunique()) for c in corpora] or [1]
    fig, axes = plt.subplots(len(heights), 1, figsize=(11, 0.6 + 0.42 * sum(heights) + 0.55 * len(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False, layout="constrained")
    norm = TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0)
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="#eeeeee")
    image = None
    for ax, corpus in zip(axes[:, 0], corpora):
        block = grid[grid["corpus"] == corpus]
        systems = list(dict.fromkeys(block["system"]))
        values = np.full((len(systems), len(TABLE_ORDER)), np.nan)
        for r, system in enumerate(systems):
            for c, quantity in enumerate(TABLE_ORDER):
                entry = block[(block["system"] == system) & (block["quantity"] == quantity)]
                if not len(entry):
                    continue
                entry = entry.iloc[0]
                values[r, c] = entry["rho"]
                ax.text(c, r, str(entry["text"]), ha="center", va="center", fontsize=8,
                        color="white" if _finite(entry["rho"]) is not None and abs(entry["rho"]) > 0.6 else "black")
                if bool(entry["over_bar"]):
                    ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, lw=2.2, edgecolor="black"))
        image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm, aspect="auto")
        ax.set_xticks(range(len(TABLE_ORDER)))
        ax.set_xticklabels([HEADINGS[q] for q in TABLE_ORDER], fontsize=8)
        ax.set_yticks(range(len(systems)))
        ax.set_yticklabels([(system_names or {}).get(s, s) for s in systems], fontsize=8)
        ax.set_title(f"{CORPUS_NAMES[corpus]}: largest ρ over the rungs (outlined: over the bar ρ > {config.bar:g})",
                     fontsize=9)
    if image is not None:
        bar = fig.colorbar(image, ax=axes[:, 0].tolist(), fraction=0.03, pad=0.01)
        bar.ax.axhline(config.bar, color="black", lw=2)
        ticks = sorted({-1.0, -0.5, 0.0, 0.5, 1.0, float(config.bar)})
        bar.set_ticks(ticks, labels=[f"bar {t:g}" if t == config.bar else f"{t:g}" for t in ticks])
        bar.set_label("Spearman ρ")
    save_png(fig, png, dpi=CELL_DPI)
    data = grid[["corpus", "system", "quantity", "rho", "rung", "n", "nmae", "text", "over_bar"]]
    write_csv(csv, data)
    return data


def entries_to_draw(cells: pd.DataFrame, config: ScoringConfig) -> Iterable[pd.Series]:
    """The cells that get a picture: every ranked cell, and every "c" cell (n ≥ n_min, too few values)."""
    drawn = cells[(cells["n"] >= config.n_min) & cells["status"].isin(["ranked", "constant"])]
    return (row for _, row in drawn.iterrows())
