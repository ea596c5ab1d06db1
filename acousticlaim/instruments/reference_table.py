"""Reading the references table that the `references` stage writes (the one reader of it).

``data/references/references.parquet`` is long: one row per clip and quantity with ``clip_id, quantity,
value, defined, reason, tier, signal, half1, half2``. :func:`read_references` checks it (required columns,
known quantity keys, one row per clip and quantity) with errors that name the file; :func:`reference_labels`
turns it into one column per scored quantity, NaN wherever a reading is undefined.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.quantities import ALL_KEYS, SCORED_KEYS

REFERENCES_NAME = "references.parquet"
REFERENCE_COLUMNS = ["clip_id", "quantity", "value", "defined"]


def check_references(frame: pd.DataFrame, what: str = "references table") -> pd.DataFrame:
    """Validate a references table: required columns, known quantities, one row per clip and quantity."""
    missing = [c for c in REFERENCE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: reference table lacks column(s) {missing}; it has {list(frame.columns)}")
    unknown = sorted(set(frame["quantity"]) - set(ALL_KEYS))
    if unknown:
        raise ValueError(f"{what}: unknown quantity key(s) {', '.join(map(str, unknown))}")
    dup = frame.duplicated(["clip_id", "quantity"], keep=False)
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise ValueError(
            f"{what}: {int(dup.sum())} rows repeat a (clip_id, quantity) pair, e.g. {row['clip_id']}/{row['quantity']}"
        )
    return frame


def read_references(path: str | Path) -> pd.DataFrame:
    """Read and check the references table (a folder holding ``references.parquet``, or the file)."""
    path = Path(path)
    if path.is_dir():
        path = path / REFERENCES_NAME
    if not path.exists():
        raise FileNotFoundError(f"{path}: no references table (run `dvc repro references` first)")
    return check_references(pd.read_parquet(path), str(path))


def reference_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """Wide labels: index ``clip_id``, one column per scored quantity, NaN where undefined or absent."""
    refs = frame[frame["quantity"].isin(SCORED_KEYS)].copy()
    value = pd.to_numeric(refs["value"], errors="coerce").astype(float)
    refs["label"] = value.where(refs["defined"].astype(bool) & np.isfinite(value))
    wide = refs.pivot(index="clip_id", columns="quantity", values="label")
    return wide.reindex(columns=list(SCORED_KEYS))
