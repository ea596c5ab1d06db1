"""The corpus manifest: one row per clip, as Parquet, with paths relative to the manifest's folder.

Clip ids follow LibriMix and the paper's release, so released references and generations join:
a mixture is ``<utt1>_<utt2>`` and its clean twin ``<utt1>_<utt2>_s1clean``; an AMI clip is a speaker
segment ``AMI_<meeting>_sdm_<speaker>_<start>_<end>`` (start and end in centiseconds; the speaker is also
``speaker_1``), or with ``corpus.ami_cut: windows`` a window ``AMI_<meeting>_sdm_<start>_<end>``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from acousticlaim.io import write_parquet

MANIFEST_NAME = "manifest.parquet"
TWIN_SUFFIX = "_s1clean"

# The manifest's columns, in order. Synthetic generative parameters (``syn_*``) follow them.
MANIFEST_COLUMNS = [
    "clip_id", "corpus", "source", "split", "kind", "mixture_id",
    "audio_path", "s1_path", "s2_path", "noise_path",
    "speaker_1", "speaker_2", "utt_1", "utt_2", "transcript_1",
    "snr_db", "ttr_db", "level_dbfs", "gain", "clipped_fraction",
    "room_id", "rir_1", "rt60_1", "rir_2", "rt60_2",
    "noise_id", "scene_k", "s2_offset_s",
    "overlap_fraction", "duration_s",
    "meeting", "start_s", "end_s",
]


def twin_id(mixture_id: str) -> str:
    return f"{mixture_id}{TWIN_SUFFIX}"


def mixture_id_of(utt_1: str, utt_2: str) -> str:
    return f"{utt_1}_{utt_2}"


def resolve_path(manifest_dir: str | Path, rel: str | None) -> Path | None:
    """The absolute path of a manifest path column (``None`` stays ``None``)."""
    if rel is None or (isinstance(rel, float) and pd.isna(rel)) or rel == "":
        return None
    p = Path(rel)
    return p if p.is_absolute() else Path(manifest_dir) / p


def to_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for col in MANIFEST_COLUMNS:
        if col not in frame:
            frame[col] = None
    extra = sorted(c for c in frame.columns if c not in MANIFEST_COLUMNS)
    return frame[MANIFEST_COLUMNS + extra].sort_values(["split", "clip_id"], kind="stable").reset_index(drop=True)


def write_manifest(out_dir: str | Path, rows: list[dict]) -> Path:
    return write_parquet(Path(out_dir) / MANIFEST_NAME, to_frame(rows))


def read_manifest(path: str | Path) -> pd.DataFrame:
    """Read a manifest (a folder holding ``manifest.parquet``, or the file itself)."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.exists():
        raise FileNotFoundError(f"{path}: no corpus manifest (run `dvc repro corpus` first)")
    return pd.read_parquet(path)
