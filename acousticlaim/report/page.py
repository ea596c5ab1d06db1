"""The report page: ``index.html``, one static folder that opens from disk with no server and no network.

:func:`write_report` draws every cell's picture (:mod:`acousticlaim.report.cell_figures`), Table 2's
heatmap, copies the run's other figures beside them, and renders ``index.html`` (Jinja2, the template in
``templates/report.html.j2``; CSS inline, no script, no external asset): the headline metrics, Table 2 and
Table 1 as HTML tables whose entries link to their pictures, every cell at the claim minimum with its
picture and data, the figures, the parameters and the commit the run was made from. Links are relative,
so the folder can be moved or zipped whole.

The ``report`` DVC stage writes it for the pipeline's own run (``reports/index.html``), and
``acousticlaim rescore-release`` for the released panel (``reports/release/index.html``).
"""

from __future__ import annotations

import datetime as _dt
import math
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2
import pandas as pd
import yaml

from acousticlaim.io import write_text
from acousticlaim.quantities import EVENTS, QUANTITIES, get, table_order
from acousticlaim.report import cell_figures as cf
from acousticlaim.report.interval_figures import WaveformLoader, draw_interval_pictures
from acousticlaim.report.table3 import CORPUS_NAMES as _T3_CORPORA, chance_text, f1_text
from acousticlaim.report.tables import CORPUS_NAMES, TIER_NAMES
from acousticlaim.scoring import marks
from acousticlaim.scoring.pipeline import ScoreResults
from acousticlaim.scoring.table2 import PANEL_CORPORA

TEMPLATES = Path(__file__).resolve().parent / "templates"
PICTURES = "cells"  # folder of the cell pictures, under the report folder
FIGURES = "figures"  # folder of the heatmap and the copied figures


@dataclass
class Picture:
    """One drawn picture: where it is (relative to the report folder) and what it shows."""

    png: str
    csv: str
    kind: str  # scatter | strip | table1 | heatmap | figure
    title: str
    key: dict = field(default_factory=dict)


def git_commit(root: str | Path = ".") -> str:
    """The commit of ``root`` (``-dirty`` when tracked files changed), or ``unknown`` outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return "unknown (not a git checkout)"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"


def _cell_title(system: str, corpus: str, rung: str, quantity: str) -> str:
    return f"{system} · {QUANTITIES[quantity].heading} · {rung} · {CORPUS_NAMES.get(corpus, corpus)}"


def _picture_paths(out: Path, *parts: str) -> tuple[Path, Path, str, str]:
    rel = "/".join([PICTURES, *(cf.safe_name(p) for p in parts)])
    return out / f"{rel}.png", out / f"{rel}.csv", f"{rel}.png", f"{rel}.csv"


def draw_cell_pictures(results: ScoreResults, out: Path) -> list[Picture]:
    """A picture (and its CSV) for every ranked cell and every "c" cell, the panel's and ours."""
    config = results.config
    points = results.points
    keys = ["system", "corpus", "rung", "quantity"]
    pooled = points[points["seed"].isna()] if len(points) else points
    per_seed = points[points["seed"].notna()] if len(points) else points
    by_key = {k: g for k, g in pooled.groupby(keys, sort=False)} if len(pooled) else {}
    by_seed = {(*k[:4], int(k[4])): g for k, g in per_seed.groupby(keys + ["seed"], sort=False)} if len(per_seed) else {}
    pictures: list[Picture] = []
    for cell in cf.entries_to_draw(results.cells, config):
        key = tuple(cell[k] for k in keys)
        group = by_key.get(key)
        if group is None:
            raise ValueError(f"cell {'/'.join(map(str, key))} has n = {cell['n']} but no points")
        png, csv, rpng, rcsv = _picture_paths(out, cell["corpus"], cell["system"], f"{cell['rung']}__{cell['quantity']}")
        series = cf.CellSeries("pooled", group[["clip_id", "reference", "stated"]], cell.to_dict())
        title = _cell_title(*key)
        if cell["status"] == "ranked":
            cf.scatter_picture([series], quantity=cell["quantity"], title=title, config=config, png=png, csv=csv)
        else:
            cf.strip_picture(series, quantity=cell["quantity"], title=title, config=config, png=png, csv=csv)
        pictures.append(Picture(rpng, rcsv, "scatter" if cell["status"] == "ranked" else "strip", title,
                                dict(zip(keys, key))))
    # Our own system: one cell per training seed; one picture per (corpus, rung, quantity), seeds in colour.
    seed_cells = results.seed_cells
    if len(seed_cells):
        drawn = seed_cells[(seed_cells["n"] >= config.n_min) & seed_cells["status"].isin(["ranked", "constant"])]
        for key, cells in drawn.groupby(keys, sort=False):
            series = []
            for _, cell in cells.sort_values("seed").iterrows():
                group = by_seed.get((*key, int(cell["seed"])))
                if group is not None:
                    series.append(cf.CellSeries(f"training seed {cell['seed']}",
                                                group[["clip_id", "reference", "stated"]], cell.to_dict()))
            if not series:
                continue
            png, csv, rpng, rcsv = _picture_paths(out, key[1], key[0], f"{key[2]}__{key[3]}")
            title = _cell_title(*key) + " (our system, per training seed)"
            ranked = bool((cells["status"] == "ranked").any())
            if ranked:
                cf.scatter_picture([s for s in series if s.cell["status"] == "ranked"], quantity=key[3], title=title,
                                   config=config, png=png, csv=csv)
            else:
                cf.strip_picture(series[0], quantity=key[3], title=title + f", {series[0].label}", config=config,
                                 png=png, csv=csv)
            pictures.append(Picture(rpng, rcsv, "scatter" if ranked else "strip", title, dict(zip(keys, key))))
    return pictures


def draw_table1_pictures(results: ScoreResults, out: Path) -> dict[str, Picture]:
    """One picture per Table 1 row (ours beside the matched ridge), keyed by quantity."""
    if results.table1 is None or results.table1_points is None:
        return {}
    pictures = {}
    for _, row in results.table1.iterrows():
        png, csv, rpng, rcsv = _picture_paths(out, "table1", row["quantity"])
        cf.table1_row_picture(results.table1_points, results.table1_seed_cells, row, config=results.config,
                              png=png, csv=csv)
        pictures[row["quantity"]] = Picture(rpng, rcsv, "table1", f"Table 1 · {QUANTITIES[row['quantity']].label}",
                                            {"quantity": row["quantity"]})
    return pictures


def _strip_rungs(results: ScoreResults) -> dict[tuple, str]:
    """For each (system, corpus, quantity): the rung of its "c" cell with most distinct values (then most clips)."""
    config = results.config
    cells = pd.concat([results.cells, results.seed_cells], ignore_index=True) if len(results.seed_cells) else results.cells
    c = cells[(cells["status"] == "constant") & (cells["n"] >= config.n_min)]
    c = c.sort_values(["distinct", "n"], ascending=False, kind="stable")
    return {key: group["rung"].iloc[0] for key, group in c.groupby(["system", "corpus", "quantity"], sort=False)}


def _entry_picture(entry: pd.Series, by_cell: dict, strip_rungs: dict) -> Picture | None:
    """The picture a Table 2 entry links to: its rung's cell, or for "c" the strip of the cell with most values."""
    key = (entry["system"], entry["corpus"], entry["quantity"])
    if isinstance(entry.get("rung"), str) and entry["rung"]:
        return by_cell.get((key[0], key[1], entry["rung"], key[2]))
    if entry.get("text") == marks.CONSTANT and key in strip_rungs:
        return by_cell.get((key[0], key[1], strip_rungs[key], key[2]))
    return None


def _fmt(value, form: str = "{:.3f}") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)) or value is pd.NA:
        return marks.DASH
    try:
        return form.format(value)
    except (TypeError, ValueError):
        return str(value)


def _table2_blocks(results: ScoreResults, by_cell: dict) -> list[dict]:
    config, table = results.config, results.table2
    strip_rungs = _strip_rungs(results)
    blocks = []
    for corpus in [c for c in PANEL_CORPORA if c in set(table["corpus"])]:
        block = table[table["corpus"] == corpus]
        rows = []
        for system, entries in block.groupby("system", sort=False):
            by_q = {e["quantity"]: e for _, e in entries.iterrows()}
            cells = []
            for q in table_order():
                e = by_q.get(q)
                if e is None:
                    cells.append({"text": marks.DASH, "href": None, "title": "", "cls": "none"})
                    continue
                picture = _entry_picture(e, by_cell, strip_rungs)
                rho = pd.to_numeric(pd.Series([e.get("rho")]), errors="coerce").iloc[0]
                cls = "over" if pd.notna(rho) and rho > config.bar else ("ranked" if pd.notna(rho) else "none")
                tip = (f"rung {e['rung']}, n {_fmt(e.get('n'), '{:.0f}')}, nMAE {_fmt(e.get('nmae'))}"
                       if pd.notna(rho) else "")
                cells.append({"text": e["text"], "href": picture.png if picture else None, "title": tip, "cls": cls})
            first = entries.iloc[0]
            count = ("ref." if system == config.reference_system
                     else f"{int(first['over_bar'])}/{int(first['cells'])}" if pd.notna(first.get("cells")) else "")
            rows.append({"system": system, "cells": cells, "count": count})
        seeds = results.sampling_seeds.get(corpus)
        counts = results.metrics.get("table2", {}).get(corpus, {})
        blocks.append({"name": CORPUS_NAMES[corpus], "seeds": seeds, "rows": rows, "counts": counts})
    return blocks


def _table1_rows(results: ScoreResults, pictures: dict[str, Picture]) -> list[dict]:
    if results.table1 is None:
        return []
    rows = []
    for _, r in results.table1.iterrows():
        def rho(prefix):
            value = r[f"{prefix}_rho"]
            if value is None or pd.isna(value):
                return r[f"{prefix}_mark"] or marks.DASH
            sd = r[f"{prefix}_sd"]
            seeds = r[f"{prefix}_seeds_ranked"]
            text = marks.signed(value)
            return text + (f" ± {sd:.3f}" if seeds and seeds > 1 and sd is not None and pd.notna(sd) else "")
        rows.append({
            "name": QUANTITIES[r["quantity"]].label + (marks.TWIN_ROW if r["read_on"] == "twins" else ""),
            "unit": get(r["quantity"]).unit, "tier": TIER_NAMES.get(r["tier"], r["tier"]),
            "stated": _fmt(r["stated"], "{:.2f}"), "ours": rho("ours"), "ridge": rho("ridge"),
            "ours_nmae": marks.nmae_text(r["ours_nmae"] if pd.notna(r["ours_nmae"]) else None),
            "ridge_nmae": marks.nmae_text(r["ridge_nmae"] if pd.notna(r["ridge_nmae"]) else None),
            "ours_within": _fmt(r["ours_within"], "{:+.3f}"), "ridge_within": _fmt(r["ridge_within"], "{:+.3f}"),
            "cap": _fmt(r["cap"], "{:.2f}"), "href": pictures[r["quantity"]].png if r["quantity"] in pictures else None,
        })
    return rows


def _all_cells(results: ScoreResults, by_cell: dict) -> list[dict]:
    config = results.config
    cells = pd.concat([results.cells.assign(seed=pd.NA), results.seed_cells], ignore_index=True) \
        if len(results.seed_cells) else results.cells.assign(seed=pd.NA)
    cells = cells[cells["n"] >= config.n_min]
    rows = []
    for _, c in cells.iterrows():
        picture = by_cell.get((c["system"], c["corpus"], c["rung"], c["quantity"]))
        rows.append({
            "system": c["system"], "corpus": CORPUS_NAMES.get(c["corpus"], c["corpus"]), "rung": c["rung"],
            "seed": "" if pd.isna(c["seed"]) else int(c["seed"]), "quantity": QUANTITIES[c["quantity"]].heading,
            "status": c["status"], "n": int(c["n"]), "distinct": int(c["distinct"]),
            "rho": _fmt(c["spearman"], "{:+.3f}"),
            "ci": (f"[{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]" if pd.notna(c["ci_low"]) else marks.DASH),
            "nmae": _fmt(c["nmae"]), "over": bool(c["over_bar"]),
            "png": picture.png if picture else None, "csv": picture.csv if picture else None,
        })
    return rows


def _scalars(metrics: Mapping[str, Any], prefix: str = "", depth: int = 2) -> list[tuple[str, str]]:
    """The scalar figures of a metrics JSON, nested keys joined with dots (two levels deep)."""
    out = []
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            if depth > 1:
                out += _scalars(value, name + ".", depth - 1)
        elif isinstance(value, bool) or value is None or isinstance(value, str):
            out.append((name, str(value)))
        elif isinstance(value, (int, float)):
            out.append((name, f"{value:.4g}" if isinstance(value, float) else str(value)))
    return out


def _copy_figures(figures: Sequence[str | Path], out: Path) -> list[Picture]:
    """Copy each figure PNG (and the CSV of the same name, when there is one) into ``figures/``."""
    copied = []
    for figure in figures:
        figure = Path(figure)
        if not figure.exists():
            continue
        target = out / FIGURES / figure.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(figure, target)
        csv = figure.with_suffix(".csv")
        rel_csv = ""
        if csv.exists():
            shutil.copy2(csv, target.with_suffix(".csv"))
            rel_csv = f"{FIGURES}/{csv.name}"
        copied.append(Picture(f"{FIGURES}/{figure.name}", rel_csv, "figure", figure.stem.replace("_", " ")))
    return copied


def _table3_rows(table3: pd.DataFrame | None) -> list[dict] | None:
    """Table 3's rows as the page shows them (the same texts as ``reports/table3.md``)."""
    if table3 is None:
        return None
    return [{"system": r.system, "corpus": _T3_CORPORA.get(r.corpus, r.corpus), "event": EVENTS[r.event].name,
             "rung": r.rung, "n_clips": int(r.n_clips), "n_reference": int(r.n_reference), "n_stated": int(r.n_stated),
             "event_f1": f1_text(r.event_f1), "chance_event": chance_text(r.chance_event_f1, r.chance_event_se),
             "estimator_event": f1_text(r.estimator_event_f1), "segment_f1": f1_text(r.segment_f1),
             "chance_segment": chance_text(r.chance_segment_f1, r.chance_segment_se),
             "estimator_segment": f1_text(r.estimator_segment_f1)} for r in table3.itertuples(index=False)]


def render_page(context: Mapping[str, Any]) -> str:
    """``index.html`` from ``templates/report.html.j2`` (autoescaped)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context)


def write_report(results: ScoreResults, out: str | Path, *, title: str, figures: Sequence[str | Path] = (),
                 params: Mapping[str, Any] | None = None, commit: str | None = None,
                 metrics: Mapping[str, Mapping[str, Any]] | None = None,
                 tables: Sequence[str] = ("table2.md", "table2.csv", "table1.md", "table1.csv", "table3.md", "table3.csv"),
                 table1: bool = True, table3: pd.DataFrame | None = None, interval_pairs: pd.DataFrame | None = None,
                 waveform: WaveformLoader | None = None) -> list[Path]:
    """Draw every picture and write ``index.html`` under ``out``; returns the files written.

    ``figures``: PNGs of the run to show (copied with their CSVs). ``params``: the parameters the run
    was made from (written beside the page as ``params.yaml`` and shown). ``metrics``: further metrics
    files by name (``{"calibrate": {...}}``), whose scalars join the headline figures. ``tables``: files
    already under ``out`` (the Markdown and CSV tables) to link; those missing are left out. ``table3`` and
    ``interval_pairs``: Table 3 and the intervals its clips were scored on; the page shows the table and a picture
    of ``config.intervals.figure_clips`` clips (``waveform(clip_id)`` loads a clip's audio for them).
    """
    out = Path(out)
    for stale in (out / PICTURES, out / FIGURES):
        if stale.exists():
            shutil.rmtree(stale)
    cell_pictures = draw_cell_pictures(results, out)
    by_cell = {(p.key["system"], p.key["corpus"], p.key["rung"], p.key["quantity"]): p for p in cell_pictures}
    row_pictures = draw_table1_pictures(results, out) if table1 else {}
    heatmap = None
    if len(results.table2):
        cf.table2_heatmap(results.table2, results.config, png=out / FIGURES / "table2_heatmap.png",
                          csv=out / FIGURES / "table2_heatmap.csv")
        heatmap = Picture(f"{FIGURES}/table2_heatmap.png", f"{FIGURES}/table2_heatmap.csv", "heatmap",
                          "Table 2 as a heatmap")
    copied = _copy_figures(figures, out)
    interval_pictures = []
    if interval_pairs is not None and len(interval_pairs):
        interval_pictures = draw_interval_pictures(interval_pairs, out, f"{FIGURES}/intervals",
                                                   n_clips=results.config.intervals.figure_clips, waveform=waveform)
    written = [out / p.png for p in cell_pictures] + [out / p.png for p in row_pictures.values()]
    written += [out / p["png"] for p in interval_pictures]
    written += [out / p.png for p in copied] + ([out / heatmap.png] if heatmap else [])
    params_link = None
    if params is not None:
        written.append(write_text(out / "params.yaml", yaml.safe_dump(dict(params), sort_keys=False, allow_unicode=True)))
        params_link = "params.yaml"
    headline = [("scores", _scalars(results.metrics))]
    for name, values in (metrics or {}).items():
        headline.append((name, _scalars(values)))
    config = results.config
    context = {
        "title": title,
        "commit": commit or git_commit(),
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "config": config,
        "headings": [QUANTITIES[q].heading for q in table_order()],
        "units": [get(q).unit for q in table_order()],
        "table2": _table2_blocks(results, by_cell),
        "table1": _table1_rows(results, row_pictures) if table1 else None,
        "table1_waiting": table1 and results.table1 is None,
        "heatmap": heatmap,
        "table3": _table3_rows(table3),
        "interval_pictures": interval_pictures,
        "figures": copied,
        "cells": _all_cells(results, by_cell),
        "headline": headline,
        "counts": dict(sorted(results.metrics.get("table2", {}).items(), key=lambda kv: kv[0] == "all")),
        "mean_nmae": results.metrics.get("mean_nmae", {}),
        "params_yaml": yaml.safe_dump(dict(params), sort_keys=False, allow_unicode=True) if params is not None else None,
        "params_link": params_link,
        "tables": [t for t in tables if (out / t).exists()],
        "legend": marks.LEGEND,
        "corpus_names": CORPUS_NAMES,
    }
    written.append(write_text(out / "index.html", render_page(context)))
    return written
