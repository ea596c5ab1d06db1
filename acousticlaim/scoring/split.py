"""Table 2 split by corpus-manifest columns: per RSA-Bench soundscape and K, or by vocal-like interference.

``scores.split_by`` names manifest columns (``[scene_soundscape, scene_k]`` on a scenes corpus, or
``[scene_n_vocal_like]``). The mixtures are grouped by those columns and Table 2 is scored again inside
each group — the same cells, thresholds and marks, the panel's clips restricted to the group's — so the
benchmark can ask RSA-Bench's question of the panel's claims (RSA-Bench, Obs. 4): does "vocal-like"
interference (children playing, animal calls) hurt them more than mechanical noise (ticks, typing, rain)?
The design's clean version (``scene_soundscape`` ``clean``, K = 0) is a group of its own, the baseline.

Written to ``reports/table2_split.md`` (laid out by :func:`acousticlaim.report.tables.render_split`) and
``.csv`` (one row per group, system and quantity); with no split configured the page says so.
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from .config import ScoringConfig
from .pipeline import score
from .pooling import check_columns

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


def score_split(claims: pd.DataFrame, references: pd.DataFrame, generations: pd.DataFrame,
                manifest: pd.DataFrame | None, config: ScoringConfig, *,
                speakers: Mapping[str, object] | None = None) -> tuple[pd.DataFrame, dict, list[str]]:
    """Table 2 inside each group: the long table (a ``group`` column, groups in order), the per-group
    counts for the metrics, and the groups no panel system generated on. Laid out by
    :func:`acousticlaim.report.tables.render_split`."""
    split_by = config.split_by
    if not split_by:
        return pd.DataFrame(columns=list(SPLIT_CSV_COLUMNS)), {}, []
    frames, counts, empty = [], {}, []
    for key, clips in split_groups(manifest, split_by).items():
        label = group_label(split_by, key)
        gens = generations[generations["clip_id"].astype(str).isin(clips)]
        if gens.empty:
            empty.append(label)
            continue
        mine = claims[claims["clip_id"].astype(str).isin(clips)]
        results = score(mine, references, config, generations=gens, speakers=speakers)
        frames.append(results.table2[results.table2["corpus"] == "librimix"].assign(group=label))
        counts[label] = results.metrics["table2"].get("librimix", {})
    long = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(SPLIT_CSV_COLUMNS))
    return long.reindex(columns=list(SPLIT_CSV_COLUMNS)), counts, empty
