"""The scorer end to end: claims and references in; cells, Tables 1 and 2 and the headline metrics out.

Used by the ``scores`` DVC stage (``stages/scores.py``) and by ``acousticlaim rescore-release``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from acousticlaim.io import write_csv, write_json, write_parquet

from .cells import cell_points, score_cells
from .config import ScoringConfig
from .pooling import per_seed_values, pool_seeds, with_conditions
from .references import reference_pairs
from .table1 import split_collected, table1_frame
from .table2 import PANEL_CORPORA, mean_nmae_per_system, summary_counts, table2_frame


POINTS_FILE = "points.parquet"
TABLE2_FILE = "table2.parquet"
TABLE1_FILE = "table1.parquet"
TABLE1_POINTS_FILE = "table1_points.parquet"
TABLE1_CELLS_FILE = "table1_cells.parquet"


@dataclass
class ScoreResults:
    """What the scorer computed; :mod:`acousticlaim.report` lays it out for a reader."""

    cells: pd.DataFrame  # the panel's pooled cells (and any other system's), one row per cell
    seed_cells: pd.DataFrame  # our own system's cells, one per training seed
    table2: pd.DataFrame
    table1: pd.DataFrame | None
    config: ScoringConfig
    metrics: dict = field(default_factory=dict)
    # the points every cell is scored on (cells: seed NA; our own cells: the training seed)
    points: pd.DataFrame = field(default_factory=pd.DataFrame)
    # Table 1's scored points and per-seed cells, ours and the matched ridge's
    table1_points: pd.DataFrame | None = None
    table1_seed_cells: pd.DataFrame | None = None
    sampling_seeds: dict = field(default_factory=dict)  # sampling seeds per panel corpus
    title: str = "Table 2"


def panel_clips_from_generations(generations: pd.DataFrame, config: ScoringConfig) -> dict[str, set[str]]:
    """The clips in the panel per corpus condition: every clip a panel system generated text on."""
    panel = with_conditions(generations[generations["system"] != config.reference_system])
    return {corpus: set(clips.astype(str)) for corpus, clips in panel.groupby("corpus")["clip_id"]}


def score(claims: pd.DataFrame, references: pd.DataFrame, config: ScoringConfig, *,
          generations: pd.DataFrame | None = None, panel_clips: Mapping[str, set[str]] | None = None,
          predictions: pd.DataFrame | None = None, speakers: Mapping[str, object] | None = None,
          title: str = "Table 2") -> ScoreResults:
    """Score the claims table against the references.

    ``generations``: one row per generation (``system, corpus, clip_id, rung, seed``), so a system and
    rung whose every text parsed to nothing still has its cells, and the panel clip set is known.
    ``panel_clips``: the coverage denominator per corpus condition; by default every clip a panel
    system generated on. ``predictions``: the reference system's and the ridge's predictions; without
    them Table 1 says it is waiting for them.
    """
    pairs = reference_pairs(references)
    source = generations if generations is not None else claims
    if panel_clips is None:
        panel_clips = panel_clips_from_generations(source, config)
    panel_clips = {k: set(map(str, v)) for k, v in panel_clips.items()}

    is_ours = claims["system"] == config.reference_system
    panel_claims = claims[~is_ours]
    pooled = pool_seeds(panel_claims, config.pool)
    combos = with_conditions(source[source["system"] != config.reference_system])[["system", "corpus", "rung"]]
    cells = score_cells(pooled, pairs, panel_clips, config, combos=combos, speakers=speakers)
    cells.insert(4, "pool", config.pool)
    points = cell_points(pooled, pairs).assign(seed=pd.NA)

    ours_values = per_seed_values(claims[is_ours])
    in_panel = [clip in panel_clips.get(c, ()) for c, clip in zip(ours_values["corpus"], ours_values["clip_id"])]
    ours_panel = ours_values[np.asarray(in_panel, dtype=bool)] if len(ours_values) else ours_values
    ours_source = with_conditions(source[source["system"] == config.reference_system])
    ours_source = ours_source[ours_source["corpus"].isin(PANEL_CORPORA)]
    seed_cells = score_cells(ours_panel, pairs, panel_clips, config,
                             combos=ours_source[["system", "corpus", "rung", "seed"]] if len(ours_source) else None,
                             speakers=speakers, keys=("system", "corpus", "rung", "quantity", "seed"))
    if len(ours_panel):
        points = pd.concat([points, cell_points(ours_panel, pairs, ("system", "corpus", "rung", "quantity", "seed"))],
                           ignore_index=True)
    points["seed"] = pd.to_numeric(points["seed"], errors="coerce").astype("Int64")

    seeds_per_corpus = {
        corpus: int(n) for corpus, n in
        with_conditions(source[source["system"] != config.reference_system]).groupby("corpus")["seed"].nunique().items()
    }
    table2 = table2_frame(cells, config, seed_cells)

    table1 = table1_points = table1_seed_cells = None
    if predictions is not None:
        ours_claims = ours_values if len(ours_values) else None
        collected: list = []
        table1 = table1_frame(predictions, references, config, reference_claims=ours_claims, speakers=speakers,
                              collect=collected)
        table1_points, table1_seed_cells = split_collected(collected)

    metrics = {
        "pool": config.pool,
        "sampling_seeds": seeds_per_corpus,
        "panel_clips": {corpus: len(clips) for corpus, clips in sorted(panel_clips.items())},
        "table2": summary_counts(cells, config),
        "mean_nmae": mean_nmae_per_system(cells, config),
        "table1": table1_metrics(table1),
    }
    return ScoreResults(cells, seed_cells, table2, table1, config, metrics, points=points,
                        table1_points=table1_points, table1_seed_cells=table1_seed_cells,
                        sampling_seeds=seeds_per_corpus, title=title)


def table1_metrics(table1: pd.DataFrame | None) -> dict:
    """Headline numbers of Table 1 (or its waiting status)."""
    if table1 is None:
        return {"status": "waiting for data/predict/predictions.parquet"}
    out = {"status": "ready", "readout": str(table1["readout"].iloc[0])}
    for column in ("ours_rho", "ridge_rho", "ours_nmae", "ridge_nmae"):
        values = pd.to_numeric(table1[column], errors="coerce")
        out[f"mean_{column}"] = float(values.mean()) if values.notna().any() else None
    out["rows_ranked"] = int((table1["ours_seeds_ranked"] > 0).sum())
    return out


def write_results(results: ScoreResults, *, reports: str | Path, cells_path: str | Path,
                  metrics_path: str | Path | None, table1: bool = True) -> list[Path]:
    """Write what the scorer computed, atomically: the tables as CSV under ``reports``, every cell (Parquet),
    the points each cell is scored on (``points.parquet`` beside the cells; Table 1's in
    ``table1_points.parquet`` and its per-seed cells in ``table1_cells.parquet``) and the metrics JSON.

    ``table1=False`` leaves Table 1 out (the released panel has no reference-system predictions). The
    Markdown tables, pictures and page are :mod:`acousticlaim.report`'s.
    """
    reports = Path(reports)
    cells_path = Path(cells_path)
    all_cells = pd.concat([results.cells.assign(seed=pd.NA), results.seed_cells.assign(pool="per_seed")],
                          ignore_index=True)
    all_cells["seed"] = pd.to_numeric(all_cells["seed"], errors="coerce").astype("Int64")
    folder = cells_path.parent
    written = [
        write_csv(reports / "table2.csv", results.table2),
        write_parquet(folder / TABLE2_FILE, results.table2),
        write_parquet(cells_path, all_cells),
        write_parquet(folder / POINTS_FILE, results.points),
    ]
    if table1:
        written.append(write_csv(reports / "table1.csv", results.table1 if results.table1 is not None
                                 else pd.DataFrame(columns=["status"], data=[["waiting for data/predict/predictions.parquet"]])))
        if results.table1 is not None:
            written += [write_parquet(folder / TABLE1_FILE, results.table1),
                        write_parquet(folder / TABLE1_POINTS_FILE, results.table1_points),
                        write_parquet(folder / TABLE1_CELLS_FILE, results.table1_seed_cells)]
    if metrics_path is not None:
        written.append(write_json(metrics_path, results.metrics))
    return written


def read_results(cells_path: str | Path, metrics_path: str | Path, config: ScoringConfig,
                 title: str = "Table 2") -> ScoreResults:
    """What :func:`write_results` wrote, read back (the report stage's input)."""
    cells_path = Path(cells_path)
    folder = cells_path.parent
    for path in (cells_path, folder / POINTS_FILE, folder / TABLE2_FILE, Path(metrics_path)):
        if not path.exists():
            raise FileNotFoundError(f"{path}: not found (run the scores stage first)")
    all_cells = pd.read_parquet(cells_path)
    per_seed = all_cells["pool"] == "per_seed"
    cells = all_cells[~per_seed].drop(columns="seed").reset_index(drop=True)
    seed_cells = all_cells[per_seed].drop(columns="pool").reset_index(drop=True)
    metrics = json.loads(Path(metrics_path).read_text())
    table1 = table1_points = table1_cells = None
    if (folder / TABLE1_FILE).exists():
        table1 = pd.read_parquet(folder / TABLE1_FILE)
        table1_points = pd.read_parquet(folder / TABLE1_POINTS_FILE)
        table1_cells = pd.read_parquet(folder / TABLE1_CELLS_FILE)
    return ScoreResults(cells, seed_cells, pd.read_parquet(folder / TABLE2_FILE), table1, config, metrics,
                        points=pd.read_parquet(folder / POINTS_FILE), table1_points=table1_points,
                        table1_seed_cells=table1_cells, sampling_seeds=metrics.get("sampling_seeds", {}), title=title)
