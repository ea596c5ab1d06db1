"""Recorded failures: a clip that cannot be read or measured never crashes a stage.

Each stage collects :class:`Failure` rows (clip id, stage, reason) and writes them beside its
outputs, so a run finishes and says exactly what it could not do.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from acousticlaim.io import write_parquet

FAILURE_COLUMNS = ["clip_id", "stage", "reason"]


@dataclass(frozen=True)
class Failure:
    clip_id: str
    stage: str
    reason: str


def failures_frame(failures: list[Failure]) -> pd.DataFrame:
    return pd.DataFrame([asdict(f) for f in failures], columns=FAILURE_COLUMNS)


def write_failures(path: str | Path, failures: list[Failure]) -> Path:
    """Write the failures as Parquet (an empty table when there were none)."""
    return write_parquet(path, failures_frame(failures))
