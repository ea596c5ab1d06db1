"""Table 2 split by corpus-manifest columns: per RSA-Bench soundscape and K, or by vocal-like interference.

``scores.split_by`` names manifest columns (``[scene_soundscape, scene_k]`` on a scenes corpus, or
``[scene_n_vocal_like]``). The mixtures are grouped by those columns and Table 2 is scored again inside
each group — the same cells, thresholds and marks, the panel's clips restricted to the group's — so the
benchmark can ask RSA-Bench's question of the panel's claims (seed 002, Obs. 4): does "vocal-like"
interference (children playing, animal calls) hurt them more than mechanical noise (ticks, typing, rain)?
The design's clean version (``scene_soundscape`` ``clean``, K = 0) is a group of its own, the baseline.

Written to ``reports/table2_split.md`` and ``.csv`` (one row per group, system and quantity); with no
split configured both say so.
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from .config import ScoringConfig
from .pipeline import score
from .pooling import check_columns
from .table2 import HEADINGS, TABLE_ORDER

SPLIT_CSV_COLUMNS = ("group", "system", "quantity", "rho", "rung", "n", "marks", "text", "over_bar", "cells", "ranked")


def split_groups(manifest: pd.DataFrame, split_by: tuple[str, ...], what: str = "corpus manifest") -> dict[tuple, set[str]]:
    """Mixture clip ids per value tuple of the ``split_by`` columns (groups in sorted order)."""
    check_columns(manifest, ("clip_id", "kind", *split_by), f"{what} (scores.split_by)")
    mixtures = manifest[manifest["kind"] == "mixture"]
    if mixtures[list(split_by)].isna().all().any():
        empty = [c for c in split_by if mixtures[c].isna().all()]
        raise ValueError(f"{what}: scores.split_by column(s) {', '.join(empty)} are empty on every mixture "
                         "(is this a scenes corpus? set corpus.scenes.enabled: true)")
    groups: dict[tuple, set[str]] = {}
    for key, rows in mixtures.groupby(list(split_by), sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        groups[key] = set(rows["clip_id"].astype(str))
    return groups


def group_label(split_by: tuple[str, ...], key: tuple) -> str:
    """``scene_soundscape=pasture, scene_k=3``."""
    return ", ".join(f"{column}={value}" for column, value in zip(split_by, key))


def score_split(claims: pd.DataFrame, references: pd.DataFrame, generations: pd.DataFrame, manifest: pd.DataFrame,
                config: ScoringConfig, *, speakers: Mapping[str, object] | None = None) -> tuple[pd.DataFrame, str, dict]:
    """Table 2 inside each group: the long table, its markdown and per-group counts for the metrics."""
    split_by = config.split_by
    if not split_by:
        note = "# Table 2 split\n\nNo split configured (`scores.split_by` is empty).\n"
        return pd.DataFrame(columns=list(SPLIT_CSV_COLUMNS)), note, {}
    frames, counts, sections = [], {}, []
    for key, clips in split_groups(manifest, split_by).items():
        label = group_label(split_by, key)
        gens = generations[generations["clip_id"].astype(str).isin(clips)]
        if gens.empty:
            sections.append((label, None))
            continue
        mine = claims[claims["clip_id"].astype(str).isin(clips)]
        results = score(mine, references, config, generations=gens, speakers=speakers)
        table = results.table2[results.table2["corpus"] == "librimix"].assign(group=label)
        frames.append(table)
        counts[label] = results.metrics["table2"].get("librimix", {})
        sections.append((label, table))
    long = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(SPLIT_CSV_COLUMNS))
    long = long.reindex(columns=list(SPLIT_CSV_COLUMNS))
    return long, render_split(sections, split_by, config), counts


def render_split(sections: list[tuple[str, pd.DataFrame | None]], split_by: tuple[str, ...], config: ScoringConfig) -> str:
    """One block per system: a row per group, the quantities across (the largest ρ over the rungs)."""
    lines = [f"# Table 2 split by {', '.join(split_by)}: largest Spearman ρ over the rungs, per group", ""]
    tables = [(label, t) for label, t in sections if t is not None]
    systems: list[str] = []
    for _, table in tables:
        systems += [s for s in table["system"].unique() if s not in systems]
    for system in systems:
        lines += [f"## {system}", "", "| Group | " + " | ".join(HEADINGS[q] for q in TABLE_ORDER) + f" | > {config.bar:g} |",
                  "|---|" + "---:|" * len(TABLE_ORDER) + "---:|"]
        for label, table in tables:
            rows = table[table["system"] == system]
            if rows.empty:
                continue
            texts = dict(zip(rows["quantity"], rows["text"]))
            first = rows.iloc[0]
            count = "ref." if system == config.reference_system or pd.isna(first.get("cells")) else \
                f"{int(first['over_bar'])}/{int(first['cells'])}"
            lines.append(f"| {label} | " + " | ".join(str(texts.get(q, "")) for q in TABLE_ORDER) + f" | {count} |")
        lines.append("")
    empty = [label for label, t in sections if t is None]
    if empty:
        lines += [f"Groups with no panel generation: {'; '.join(empty)}.", ""]
    lines += ["Each group is scored as Table 2 is (same thresholds, pooling and marks) on the panel's clips in that "
              f"group alone, so a cell needs n ≥ {config.n_min} clips of the group.", ""]
    return "\n".join(lines)
