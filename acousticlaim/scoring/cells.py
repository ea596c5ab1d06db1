"""Cells: one system × quantity × rung × corpus, scored against the instrument.

A cell's fields and statuses are the released scorer's, so results compare one to one:

* ``n`` — distinct clips carrying a parsed claim (seeds pooled by clip) *and* a defined reference;
* ``distinct`` — distinct stated values (rounded to ``stated_decimals``), ``distinct_reference`` — distinct
  reference values (rounded to ``reference_decimals``);
* ``floor`` — ``mean |ref − median(ref)|`` over the cell's clips; ``nmae`` — MAE over that floor (both
  reported whenever a value was stated);
* ``spearman`` — Spearman ρ, only for a cell with ``n ≥ n_min`` and ``distinct ≥ distinct_min``;
* ``status`` — ``few`` under ``n_min`` clips, ``constant`` under ``distinct_min`` distinct values,
  ``undefined`` where ρ does not exist (a constant reference), ``ranked`` otherwise;
* ``coverage`` — ``n`` over the clips in the panel on that corpus.

Beside them this project adds the Fisher-z interval (``ci_low``, ``ci_high``), ``within_speaker`` ρ,
``over_bar`` (ranked and ρ > bar), ``null_p`` (probability that an independent ranked cell of this ``n``
clears the bar), ``panel_clips`` and ``n_without_reference`` (clips with a claim whose reference is
undefined or absent).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from acousticlaim.quantities import QUANTITIES, Tier

from . import stats
from .config import ScoringConfig
from .pooling import CELL_KEY

STATUSES = ("few", "constant", "undefined", "ranked")
RELEASED_FIELDS = ("n", "distinct", "distinct_reference", "floor", "spearman", "nmae", "status", "coverage")
EXTRA_FIELDS = ("ci_low", "ci_high", "within_speaker", "over_bar", "null_p", "panel_clips", "n_without_reference")


@lru_cache(maxsize=None)
def scored_quantities(corpus: str) -> tuple[str, ...]:
    """Scored quantities on a corpus condition, in registry order, leaving out those excluded there."""
    return tuple(
        q.key for q in QUANTITIES.values()
        if q.scored and q.tier(corpus) is not None and q.tier(corpus) is not Tier.EXCLUDED
    )


@lru_cache(maxsize=None)
def excluded_quantities(corpus: str) -> tuple[str, ...]:
    """Scored quantities whose reference is not scored on this corpus (Table 2's ``excl``)."""
    return tuple(q.key for q in QUANTITIES.values() if q.scored and q.tier(corpus) is Tier.EXCLUDED)


def score_cell(stated: Sequence[float], reference: Sequence[float], *, n_clips: int | None,
               config: ScoringConfig, speakers: Sequence[object] | None = None) -> dict:
    """Score the values one system stated for one quantity against the instrument (one cell)."""
    x = np.asarray(stated, dtype=float)
    y = np.asarray(reference, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"{len(x)} stated values for {len(y)} references")
    n = int(len(x))
    cell: dict = {
        "n": n, "distinct": 0, "distinct_reference": 0, "floor": None, "spearman": None, "nmae": None,
        "status": "few", "coverage": stats.coverage(n, n_clips) if n_clips else None,
        "ci_low": None, "ci_high": None, "within_speaker": None, "over_bar": False, "null_p": None,
        "panel_clips": n_clips,
    }
    if n == 0:
        return cell
    cell["distinct"] = stats.distinct_values(x, config.stated_decimals)
    cell["distinct_reference"] = stats.distinct_values(y, config.reference_decimals)
    cell["floor"] = stats.constant_floor(y)
    cell["nmae"] = stats.nmae(x, y, cell["floor"])
    if n < config.n_min:
        return cell
    if cell["distinct"] < config.distinct_min:
        cell["status"] = "constant"
        return cell
    rho = stats.spearman(x, y)
    if rho is None:
        cell["status"] = "undefined"
        return cell
    cell.update(status="ranked", spearman=rho, over_bar=bool(rho > config.bar),
                null_p=stats.null_exceedance(n, config.bar))
    interval = stats.fisher_z_interval(rho, n, config.ci_level, config.fieller_variance)
    if interval is not None:
        cell["ci_low"], cell["ci_high"] = interval
    if speakers is not None:
        cell["within_speaker"] = stats.within_speaker_spearman(x, y, speakers)
    return cell


def score_cells(values: pd.DataFrame, references: pd.DataFrame, panel_clips: Mapping[str, Collection[str]],
                config: ScoringConfig, *, combos: pd.DataFrame | None = None,
                speakers: Mapping[str, object] | None = None, keys: Sequence[str] = CELL_KEY) -> pd.DataFrame:
    """Score every cell.

    ``values``: one stated value per cell key and clip (``pooling.pool_seeds`` or ``per_seed_values``),
    columns ``keys + (clip_id, value)``. ``references``: ``clip_id, quantity, reference`` (NaN where
    undefined; ``references.reference_pairs``). ``panel_clips``: the clips in the panel per corpus
    condition (the coverage denominator); a stated clip outside it is an error. ``combos``: the
    (``keys`` minus ``quantity``) tuples that generated text at all, so a cell nobody stated still
    appears with ``n = 0``. ``speakers``: clip → speaker, for the within-speaker ρ.

    Quantities not scored, or excluded on the cell's corpus, get no cell.
    """
    keys = list(keys)
    group_keys = [k for k in keys if k != "quantity"]
    missing = [c for c in [*keys, "clip_id", "value"] if c not in values.columns]
    if missing:
        raise ValueError(f"stated values lack column(s) {', '.join(missing)}")
    panel = {corpus: set(map(str, clips)) for corpus, clips in panel_clips.items()}

    values = values[[*keys, "clip_id", "value"]].copy()
    values["clip_id"] = values["clip_id"].astype(str)
    scored_pairs = {(c, q) for c in set(values["corpus"]) for q in scored_quantities(c)}
    keep = [(c, q) in scored_pairs for c, q in zip(values["corpus"], values["quantity"])]
    values = values.loc[keep]
    dup = values.duplicated([*keys, "clip_id"])
    if dup.any():
        row = values.loc[dup].iloc[0]
        raise ValueError(f"clip {row['clip_id']} is counted twice in cell {tuple(row[k] for k in keys)}: pool the seeds first")
    for corpus, clips in values.groupby("corpus")["clip_id"]:
        if corpus not in panel:
            raise ValueError(f"claims on corpus {corpus!r} but no panel clip list for it")
        outside = sorted(set(clips) - panel[corpus])
        if outside:
            raise ValueError(f"{len(outside)} stated clip(s) on {corpus} are not in its panel clip list, e.g. {outside[0]}")

    merged = values.merge(references[["clip_id", "quantity", "reference"]], on=["clip_id", "quantity"], how="left")
    rows = []
    for key, group in merged.groupby(keys, sort=False, observed=True):
        ident = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        defined = group[np.isfinite(group["reference"].to_numpy(dtype=float))]
        spk = [speakers.get(c) for c in defined["clip_id"]] if speakers is not None else None
        if spk is not None and any(s is None for s in spk):
            spk = None  # within-speaker ρ needs every clip's speaker
        cell = score_cell(defined["value"].to_numpy(), defined["reference"].to_numpy(),
                          n_clips=len(panel[ident["corpus"]]), config=config, speakers=spk)
        cell["n_without_reference"] = int(len(group) - len(defined))
        rows.append({**ident, **cell})

    seen = {tuple(r[k] for k in keys) for r in rows}
    if combos is not None and len(combos):
        for combo in combos[group_keys].drop_duplicates().itertuples(index=False):
            ident = dict(zip(group_keys, combo))
            corpus = ident["corpus"]
            for quantity in scored_quantities(corpus):
                full = {**ident, "quantity": quantity}
                if tuple(full[k] for k in keys) in seen:
                    continue
                n_clips = len(panel[corpus]) if corpus in panel else None
                cell = score_cell([], [], n_clips=n_clips, config=config)
                cell["n_without_reference"] = 0
                rows.append({**full, **cell})

    columns = [*keys, *RELEASED_FIELDS, *EXTRA_FIELDS]
    frame = pd.DataFrame(rows, columns=columns)
    for column in ("floor", "spearman", "nmae", "coverage", "ci_low", "ci_high", "within_speaker", "null_p"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    for column in ("n", "distinct", "distinct_reference", "n_without_reference"):
        frame[column] = frame[column].astype(int)
    frame["panel_clips"] = pd.to_numeric(frame["panel_clips"], errors="coerce").astype("Int64")
    frame["over_bar"] = frame["over_bar"].astype(bool)
    frame["tier"] = [QUANTITIES[q].tier(c).value for c, q in zip(frame["corpus"], frame["quantity"])]
    order = {q: i for i, q in enumerate(QUANTITIES)}
    frame = frame.assign(_q=frame["quantity"].map(order)).sort_values([*group_keys, "_q"], kind="stable")
    return frame.drop(columns="_q").reset_index(drop=True)


def cell_points(values: pd.DataFrame, references: pd.DataFrame, keys: Sequence[str] = CELL_KEY) -> pd.DataFrame:
    """The points each cell is scored on: ``keys + (clip_id, stated, reference)``, one row per clip.

    The same selection as :func:`score_cells` (scored quantities not excluded on the cell's corpus, a
    defined reference), so a cell's ``n`` is its number of points; what a reader's picture of the cell draws.
    """
    keys = list(keys)
    columns = [*keys, "clip_id", "stated", "reference"]
    if values.empty:
        return pd.DataFrame(columns=columns)
    values = values[[*keys, "clip_id", "value"]].copy()
    values["clip_id"] = values["clip_id"].astype(str)
    keep = [q in scored_quantities(c) for c, q in zip(values["corpus"], values["quantity"])]
    merged = values.loc[keep].merge(references[["clip_id", "quantity", "reference"]], on=["clip_id", "quantity"],
                                    how="inner")
    merged = merged[np.isfinite(merged["reference"].to_numpy(dtype=float))]
    return merged.rename(columns={"value": "stated"})[columns].reset_index(drop=True)


def cell_counts(cells: pd.DataFrame, config: ScoringConfig) -> dict:
    """Cells at ``n ≥ n_min``, ranked, constant, undefined, over the bar, and the null expectation."""
    scored = cells[cells["n"] >= config.n_min]
    ranked = scored[scored["status"] == "ranked"]
    return {
        "cells": int(len(scored)),
        "ranked": int(len(ranked)),
        "constant": int((scored["status"] == "constant").sum()),
        "undefined": int((scored["status"] == "undefined").sum()),
        "over_bar": int(ranked["over_bar"].sum()),
        "null_expectation": stats.null_expectation(ranked["n"], config.bar),
    }
