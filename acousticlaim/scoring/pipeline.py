"""The scorer end to end: claims and references in; cells, Tables 1 and 2 and the headline metrics out.

Used by the ``scores`` DVC stage (``stages/scores.py``) and by ``acousticlaim rescore-release``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from acousticlaim.io import write_csv, write_json, write_parquet, write_text

from .cells import score_cells
from .config import ScoringConfig
from .pooling import per_seed_values, pool_seeds, with_conditions
from .references import reference_pairs
from .table1 import render_table1, table1_frame
from .table2 import PANEL_CORPORA, echo_share_p4, mean_nmae_per_system, render_table2, summary_counts, table2_frame


@dataclass
class ScoreResults:
    cells: pd.DataFrame  # the panel's pooled cells (and any other system's), one row per cell
    seed_cells: pd.DataFrame  # our own system's cells, one per training seed
    table2: pd.DataFrame
    table2_md: str
    table1: pd.DataFrame | None
    table1_md: str
    metrics: dict = field(default_factory=dict)


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

    ours_values = per_seed_values(claims[is_ours])
    in_panel = [clip in panel_clips.get(c, ()) for c, clip in zip(ours_values["corpus"], ours_values["clip_id"])]
    ours_panel = ours_values[np.asarray(in_panel, dtype=bool)] if len(ours_values) else ours_values
    ours_source = with_conditions(source[source["system"] == config.reference_system])
    ours_source = ours_source[ours_source["corpus"].isin(PANEL_CORPORA)]
    seed_cells = score_cells(ours_panel, pairs, panel_clips, config,
                             combos=ours_source[["system", "corpus", "rung", "seed"]] if len(ours_source) else None,
                             speakers=speakers, keys=("system", "corpus", "rung", "quantity", "seed"))

    seeds_per_corpus = {
        corpus: int(n) for corpus, n in
        with_conditions(source[source["system"] != config.reference_system]).groupby("corpus")["seed"].nunique().items()
    }
    table2 = table2_frame(cells, config, seed_cells)
    echo = echo_share_p4(claims, config)
    table2_md = render_table2(table2, cells, config, sampling_seeds=seeds_per_corpus, title=title, echo_share=echo)

    table1 = None
    if predictions is not None:
        ours_claims = ours_values if len(ours_values) else None
        table1 = table1_frame(predictions, references, config, reference_claims=ours_claims, speakers=speakers)
    table1_md = render_table1(table1, config)

    metrics = {
        "pool": config.pool,
        "panel_clips": {corpus: len(clips) for corpus, clips in sorted(panel_clips.items())},
        "table2": summary_counts(cells, config),
        "mean_nmae": mean_nmae_per_system(cells, config),
        "p4_echo_share": echo,
        "table1": table1_metrics(table1),
    }
    return ScoreResults(cells, seed_cells, table2, table2_md, table1, table1_md, metrics)


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
    """Write the tables (markdown and CSV), the cell Parquet and the metrics JSON, atomically.

    ``table1=False`` leaves Table 1 out (the released panel has no reference-system predictions).
    """
    reports = Path(reports)
    all_cells = pd.concat([results.cells.assign(seed=pd.NA), results.seed_cells.assign(pool="per_seed")],
                          ignore_index=True)
    all_cells["seed"] = pd.to_numeric(all_cells["seed"], errors="coerce").astype("Int64")
    written = [
        write_text(reports / "table2.md", results.table2_md),
        write_csv(reports / "table2.csv", results.table2),
        write_parquet(cells_path, all_cells),
    ]
    if table1:
        written += [
            write_text(reports / "table1.md", results.table1_md),
            write_csv(reports / "table1.csv", results.table1 if results.table1 is not None
                      else pd.DataFrame(columns=["status"], data=[["waiting for data/predict/predictions.parquet"]])),
        ]
    if metrics_path is not None:
        written.append(write_json(metrics_path, results.metrics))
    return written
