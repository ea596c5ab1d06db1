"""The instrument references as the scorer reads them.

The references table (``data/references/references.parquet``, long format) holds one row per clip and
quantity: ``clip_id, quantity, value, defined, reason, tier, signal, half1, half2``. A reference that is
undefined (``defined`` false, or a NaN value) is kept as such: the clip then carries no pair for that
quantity and the cell counts it under ``n_without_reference``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.instruments.reference_table import check_references, read_references  # noqa: F401 (re-exported)

def reference_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """``clip_id, quantity, reference`` with ``reference`` NaN wherever the reading is undefined."""
    value = pd.to_numeric(frame["value"], errors="coerce").astype(float)
    defined = frame["defined"].astype(bool) & np.isfinite(value)
    return pd.DataFrame({
        "clip_id": frame["clip_id"].astype(str).to_numpy(),
        "quantity": frame["quantity"].astype(str).to_numpy(),
        "reference": value.where(defined).to_numpy(),
    })
