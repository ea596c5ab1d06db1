"""The two readouts of a trained reference system on a table of clips.

* **Readout B** — the confidence head's value v_q (canonical unit) and log-variance s_q (dispersion units)
  per clip and scored quantity; the value is the sum of its per-prefix-token terms, which are returned as
  the **decomposition** (one row per clip, quantity and prefix token).
* **Readout A** — the decoder's greedy description (160 new tokens at most), its value slots filled with
  readout B's values, so every number in the text is the head's value rounded for printing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from acousticlaim.model.batching import check_table, pad_frames
from acousticlaim.model.system import ReferenceSystem
from acousticlaim.quantities import SCORED_KEYS

PREDICTION_COLUMNS = ["clip_id", "quantity", "value", "logvar"]
DECOMPOSITION_COLUMNS = ["clip_id", "quantity", "token", "term"]


@dataclass
class Readouts:
    predictions: pd.DataFrame  # clip_id, quantity, value, logvar
    decomposition: pd.DataFrame  # clip_id, quantity, token, term
    generations: list[dict] = field(default_factory=list)  # clip_id, text, slot_text, n_tokens, truncated, seconds, stated


def predict_clips(
    system: ReferenceSystem,
    table: pd.DataFrame,
    *,
    batch_size: int = 32,
    decompose: Sequence[bool] | None = None,
    generate: Sequence[bool] | None = None,
    max_new_tokens: int = 160,
) -> Readouts:
    """Readout B for every clip of ``table``; the decomposition and readout A for the rows flagged."""
    check_table(table, labelled=False)
    n = len(table)
    decompose = np.ones(n, bool) if decompose is None else np.asarray(decompose, bool)
    generate = np.zeros(n, bool) if generate is None else np.asarray(generate, bool)
    if len(decompose) != n or len(generate) != n:
        raise ValueError("decompose/generate flags must have one entry per clip")
    system.eval()
    device = system.device
    clip_ids = table["clip_id"].astype(str).tolist()
    features = list(table["features"])
    pred_rows: list[pd.DataFrame] = []
    dec_rows: list[pd.DataFrame] = []
    gens: list[dict] = []
    keys = np.array(SCORED_KEYS)
    for start in range(0, n, batch_size):
        idx = list(range(start, min(n, start + batch_size)))
        frames, lengths = pad_frames([features[i] for i in idx], device)
        out = system.readout(frames, lengths)
        q = len(SCORED_KEYS)
        pred_rows.append(pd.DataFrame({
            "clip_id": np.repeat([clip_ids[i] for i in idx], q),
            "quantity": np.tile(keys, len(idx)),
            "value": out["value"].reshape(-1),
            "logvar": out["logvar"].reshape(-1),
        }))
        for j, i in enumerate(idx):
            if decompose[i]:
                terms = out["terms"][j]  # (P, Q)
                p = terms.shape[0]
                dec_rows.append(pd.DataFrame({
                    "clip_id": clip_ids[i],
                    "quantity": np.tile(keys, p),
                    "token": np.repeat(np.arange(p, dtype=np.int32), q),
                    "term": terms.reshape(-1),
                }))
        gen_idx = [j for j, i in enumerate(idx) if generate[i]]
        if gen_idx:
            t0 = time.perf_counter()
            sel = torch.as_tensor(gen_idx, device=out["z"].device)
            texts = system.generate(out["z"][sel], out["mask"][sel], out["value"][gen_idx], max_new_tokens)
            per_clip = (time.perf_counter() - t0) / len(gen_idx)
            for j, g in zip(gen_idx, texts):
                gens.append({
                    "clip_id": clip_ids[idx[j]], "text": g.text, "slot_text": g.slot_text,
                    "n_tokens": g.n_tokens, "truncated": g.truncated, "seconds": per_clip, "stated": g.stated,
                })
    predictions = pd.concat(pred_rows, ignore_index=True)
    decomposition = (
        pd.concat(dec_rows, ignore_index=True) if dec_rows
        else pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(DECOMPOSITION_COLUMNS, ["str", "str", "int32", "float64"])})
    )
    return Readouts(predictions, decomposition, gens)
