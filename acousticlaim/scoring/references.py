"""The instrument references as the scorer reads them.

The references table (``data/references/references.parquet``, long format) holds one row per clip and
quantity: ``clip_id, quantity, value, defined, reason, tier, signal, half1, half2``. A reference that is
undefined (``defined`` false, or a NaN value) is kept as such: the clip then carries no pair for that
quantity and the cell counts it under ``n_without_reference``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.quantities import ALL_KEYS

from .pooling import check_columns

REFERENCE_COLUMNS = ("clip_id", "quantity", "value", "defined")


def read_references(path: str | Path) -> pd.DataFrame:
    """Read and check a references Parquet file (a clear error naming the file when it is malformed)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: references table not found (run the references stage first)")
    return check_references(pd.read_parquet(path), str(path))


def check_references(frame: pd.DataFrame, what: str = "references table") -> pd.DataFrame:
    """Validate a references table: required columns, known quantities, one row per clip and quantity."""
    check_columns(frame, REFERENCE_COLUMNS, what)
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


def reference_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """``clip_id, quantity, reference`` with ``reference`` NaN wherever the reading is undefined."""
    value = pd.to_numeric(frame["value"], errors="coerce").astype(float)
    defined = frame["defined"].astype(bool) & np.isfinite(value)
    return pd.DataFrame({
        "clip_id": frame["clip_id"].astype(str).to_numpy(),
        "quantity": frame["quantity"].astype(str).to_numpy(),
        "reference": value.where(defined).to_numpy(),
    })
