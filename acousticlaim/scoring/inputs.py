"""The scores stage's inputs read from disk, each checked for the columns the scorer needs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from acousticlaim.scoring.pooling import check_columns


def read_table(path: Path, required, what: str) -> pd.DataFrame:
    """The Parquet table at ``path``; a clear error naming ``what`` when it is missing or lacks a column."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: {what} not found")
    frame = pd.read_parquet(path)
    check_columns(frame, required, str(path))
    return frame


def speakers_from_manifest(path: Path) -> dict[str, str] | None:
    """clip id → target talker (``speaker_1``) from the corpus manifest; ``None`` when it is absent."""
    path = Path(path)
    if not path.exists():
        return None
    manifest = pd.read_parquet(path)
    check_columns(manifest, ("clip_id", "speaker_1"), str(path))
    known = manifest.dropna(subset=["speaker_1"])
    return dict(zip(known["clip_id"].astype(str), known["speaker_1"].astype(str)))
