"""Table 1 (tiers): the reference system beside the matched ridge, per scored quantity.

Each row is read on the test split's mixtures, except the rows of ``table1_twin_rows`` (the five voice
quantities, marked ‡), read on the mixtures' clean twins; the tier printed is the tier on the mixture
(† a Masked reference). Per training seed the reference system's statements form one cell; the entry is
the mean ρ over the seeds whose cell is ranked ± the sample s.d. over them, and nMAE and within-speaker ρ
are the means over the same seeds. The matched ridge is scored on the clips each of our seeds stated (the
paper's "on the clips each row retained"), seed by seed. ``Stated`` is the mean share of the row's clips
the reference system states the quantity on. For jitter, shimmer and HNR the cap is the square root of
the Spearman–Brown stepped-up split-half reliability of the reference's two half-stem readings on the
row's clips.

Readout A (the emitted text, parsed) is used when the claims table carries the reference system (its
``seed`` is then the training seed); otherwise readout B (the confidence head's value in the predictions
table), which states every clip.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd

from acousticlaim.quantities import QUANTITIES, SPLIT_HALF_KEYS, Corpus

from . import marks, stats
from .cells import score_cell
from .config import ScoringConfig
from .pooling import check_columns
from .table2 import TABLE_ORDER

PREDICTION_COLUMNS = ("system", "train_seed", "clip_id", "split", "kind", "quantity", "value")
TABLE1_COLUMNS = (
    "quantity", "name", "tier", "read_on", "readout", "seeds", "clips", "stated", "n_mean",
    "ours_rho", "ours_sd", "ours_seeds_ranked", "ours_nmae", "ours_within", "ours_mark",
    "ridge_rho", "ridge_sd", "ridge_seeds_ranked", "ridge_nmae", "ridge_within", "ridge_mark",
    "half_rho", "stepped_up", "cap", "over_cap",
)


def check_predictions(frame: pd.DataFrame, what: str = "predictions table") -> pd.DataFrame:
    check_columns(frame, PREDICTION_COLUMNS, what)
    return frame


def _aggregate(cells: list[dict], config: ScoringConfig) -> dict:
    ranked = [c for c in cells if c["status"] == "ranked"]
    rho, sd, k = stats.mean_sd(c["spearman"] for c in ranked)
    at_min = [c for c in cells if c["n"] >= config.n_min]
    mark = "" if k else marks.unranked_mark(bool(at_min))
    return {"rho": rho, "sd": sd, "seeds_ranked": k, "nmae": stats.mean_sd(c["nmae"] for c in ranked)[0],
            "within": stats.mean_sd(c["within_speaker"] for c in ranked)[0], "mark": mark}


def _cell(stated: pd.DataFrame, reference: pd.Series, n_clips: int, speakers, config,
          points: list | None = None, **ident) -> tuple[dict, list[str]]:
    """Score stated values (``clip_id, value``) against ``reference`` (indexed by clip id).

    ``points``: when given, the scored pairs (``ident`` columns, ``clip_id, stated, reference``) and the
    cell (``ident`` with its figures) are appended to it as ``("points", frame)`` and ``("cell", dict)``.
    """
    ref = stated["clip_id"].map(reference)
    keep = np.isfinite(ref.to_numpy(dtype=float))
    used = stated.loc[keep]
    spk = None
    if speakers is not None:
        spk = [speakers.get(c) for c in used["clip_id"]]
        spk = None if any(s is None for s in spk) else spk
    cell = score_cell(used["value"].to_numpy(float), ref[keep].to_numpy(float), n_clips=n_clips,
                      config=config, speakers=spk)
    if points is not None:
        points.append(("points", pd.DataFrame({**ident, "clip_id": used["clip_id"].to_numpy(),
                                               "stated": used["value"].to_numpy(float),
                                               "reference": ref[keep].to_numpy(float)})))
        points.append(("cell", {**ident, **cell}))
    return cell, list(stated["clip_id"])


def split_collected(collected: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points and the per-seed cells :func:`table1_frame` collected, as two frames."""
    frames = [item for kind, item in collected if kind == "points"]
    cells = [item for kind, item in collected if kind == "cell"]
    points = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["quantity", "system", "train_seed", "clip_id", "stated", "reference"])
    return points, pd.DataFrame(cells)


def table1_frame(predictions: pd.DataFrame, references: pd.DataFrame, config: ScoringConfig, *,
                 reference_claims: pd.DataFrame | None = None,
                 speakers: Mapping[str, object] | None = None, collect: list | None = None) -> pd.DataFrame:
    """Table 1 as a frame, one row per scored quantity in the paper's order.

    ``references``: the references table (long format, with ``half1``/``half2`` where present).
    ``reference_claims``: our system's stated values per training seed (``pooling.per_seed_values``
    restricted to it), or ``None`` to read the confidence head (readout B). ``collect``: a list that
    receives every seed's scored points and cell, ours and the ridge's (:func:`split_collected`).
    """
    check_predictions(predictions)
    test = predictions[predictions["split"] == "test"]
    clip_sets = {kind: set(test.loc[test["kind"] == kind, "clip_id"].astype(str)) for kind in ("mixture", "twin")}
    refs = references.copy()
    refs["clip_id"] = refs["clip_id"].astype(str)
    ref_value = pd.to_numeric(refs["value"], errors="coerce").where(refs["defined"].astype(bool))

    ours_b = test[test["system"] == config.reference_system]
    ridge = test[test["system"] == config.ridge_system]
    readout = "A" if reference_claims is not None and len(reference_claims) else "B"
    if readout == "A":
        rungs = sorted(set(reference_claims["rung"]))
        if len(rungs) > 1:
            raise ValueError(f"the reference system's claims span several rungs ({', '.join(rungs)}); Table 1 reads one")
        seeds = sorted(set(reference_claims["seed"]))
    else:
        seeds = sorted(set(ours_b["train_seed"]))
    ridge_seeds = sorted(set(ridge["train_seed"]))

    rows = []
    for quantity in TABLE_ORDER:
        q = QUANTITIES[quantity]
        on_twins = quantity in config.table1_twin_rows
        kind = "twin" if on_twins else "mixture"
        clips = clip_sets[kind]
        mask = (refs["quantity"] == quantity) & refs["clip_id"].isin(clips)
        reference = pd.Series(ref_value[mask].to_numpy(float), index=refs.loc[mask, "clip_id"].to_numpy())
        ours_cells, ridge_cells, stated_shares, ns = [], [], [], []
        for seed in seeds:
            if readout == "A":
                condition = Corpus.TWIN.value if on_twins else Corpus.LIBRIMIX.value
                sel = reference_claims[(reference_claims["seed"] == seed) & (reference_claims["quantity"] == quantity)
                                       & (reference_claims["corpus"] == condition)]
            else:
                sel = ours_b[(ours_b["train_seed"] == seed) & (ours_b["quantity"] == quantity)]
            sel = sel[sel["clip_id"].astype(str).isin(clips)]
            sel = sel[np.isfinite(pd.to_numeric(sel["value"], errors="coerce").to_numpy(float))]
            stated = pd.DataFrame({"clip_id": sel["clip_id"].astype(str).to_numpy(),
                                   "value": sel["value"].to_numpy(float)})
            if stated["clip_id"].duplicated().any():
                raise ValueError(f"Table 1: training seed {seed} states {quantity} twice on one clip")
            cell, stated_clips = _cell(stated, reference, len(clips), speakers, config, collect,
                                       quantity=quantity, system=config.reference_system, train_seed=seed)
            ours_cells.append(cell)
            ns.append(cell["n"])
            stated_shares.append(len(stated_clips) / len(clips) if clips else math.nan)
            if ridge_seeds:
                ridge_seed = seed if seed in ridge_seeds else ridge_seeds[0]
                rsel = ridge[(ridge["train_seed"] == ridge_seed) & (ridge["quantity"] == quantity)
                             & ridge["clip_id"].astype(str).isin(set(stated_clips))]
                rstated = pd.DataFrame({"clip_id": rsel["clip_id"].astype(str).to_numpy(),
                                        "value": pd.to_numeric(rsel["value"], errors="coerce").to_numpy(float)})
                rstated = rstated[np.isfinite(rstated["value"].to_numpy())]
                ridge_cells.append(_cell(rstated, reference, len(clips), speakers, config, collect,
                                         quantity=quantity, system=config.ridge_system, train_seed=seed)[0])
        ours = _aggregate(ours_cells, config)
        ridge_agg = _aggregate(ridge_cells, config) if ridge_cells else {
            "rho": None, "sd": None, "seeds_ranked": 0, "nmae": None, "within": None, "mark": marks.DASH}
        half = {"half_rho": None, "stepped_up": None, "cap": None}
        if quantity in SPLIT_HALF_KEYS and {"half1", "half2"} <= set(refs.columns):
            split = stats.split_half_reliability(refs.loc[mask, "half1"].to_numpy(float),
                                                 refs.loc[mask, "half2"].to_numpy(float))
            half = {"half_rho": split.half_rho, "stepped_up": split.stepped_up, "cap": split.cap}
        over_cap = bool(half["cap"] is not None and ours["rho"] is not None and ours["rho"] > half["cap"])
        rows.append({
            "quantity": quantity, "name": q.name, "tier": q.tier(Corpus.LIBRIMIX).value,
            "read_on": "twins" if on_twins else "mixtures", "readout": readout, "seeds": len(seeds),
            "clips": len(clips), "stated": stats.mean_sd(stated_shares)[0],
            "n_mean": float(np.mean(ns)) if ns else None,
            "ours_rho": ours["rho"], "ours_sd": ours["sd"], "ours_seeds_ranked": ours["seeds_ranked"],
            "ours_nmae": ours["nmae"], "ours_within": ours["within"], "ours_mark": ours["mark"],
            "ridge_rho": ridge_agg["rho"], "ridge_sd": ridge_agg["sd"], "ridge_seeds_ranked": ridge_agg["seeds_ranked"],
            "ridge_nmae": ridge_agg["nmae"], "ridge_within": ridge_agg["within"], "ridge_mark": ridge_agg["mark"],
            **half, "over_cap": over_cap,
        })
    return pd.DataFrame(rows, columns=list(TABLE1_COLUMNS))
