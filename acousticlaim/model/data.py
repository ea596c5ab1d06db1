"""Assembling the model's clip table from the corpus manifest, the cached features and the references.

* the **manifest** (``data/corpus/manifest.parquet``) gives each clip's split, kind, corpus, target
  speaker and labelled overlap fraction; a clean twin's labelled overlap is 0 (one talker), whatever
  its row carries;
* the **features** index (``data/features/index.parquet``) points at each clip's cached frames;
* the **references** (``data/references/references.parquet``, long format: clip_id, quantity, value,
  defined, …) give the labels: a slot's label is its value where ``defined`` is true, NaN otherwise.

A clip that lacks features, or (when labels are asked for) lacks every reference or its overlap label,
is left out with a recorded :class:`~acousticlaim.failures.Failure` naming what is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from acousticlaim.corpus.manifest import read_manifest
from acousticlaim.failures import Failure
from acousticlaim.model.features import read_clip_features
from acousticlaim.instruments.reference_table import read_references, reference_labels

def read_reference_labels(path: str | Path) -> pd.DataFrame:
    """Wide labels: index clip_id, one column per scored quantity, NaN where undefined or absent."""
    return reference_labels(read_references(path))


def read_feature_index(features_dir: str | Path) -> pd.DataFrame:
    path = Path(features_dir) / "index.parquet"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no feature index (run `dvc repro features` first)")
    return pd.read_parquet(path)


def labelled_overlap(manifest: pd.DataFrame) -> pd.Series:
    """The overlap label per clip: the manifest's overlap fraction, 0 on clean twins."""
    overlap = manifest["overlap_fraction"].astype(float)
    return overlap.where(manifest["kind"].astype(str) != "twin", 0.0)


def build_clip_table(
    manifest_path: str | Path,
    features_dir: str | Path,
    references_path: str | Path | None = None,
    *,
    splits: Sequence[str] | None = None,
    corpora: Sequence[str] | None = None,
    stage: str = "model",
) -> tuple[pd.DataFrame, list[Failure]]:
    """The clip table (clip_id, split, kind, corpus, group, overlap, features[, labels]) and its failures."""
    manifest = read_manifest(manifest_path)
    if splits is not None:
        manifest = manifest[manifest["split"].isin(list(splits))]
    if corpora is not None:
        manifest = manifest[manifest["corpus"].isin(list(corpora))]
    index = read_feature_index(features_dir).set_index("clip_id")
    labels = read_reference_labels(references_path) if references_path is not None else None
    failures: list[Failure] = []
    rows = []
    overlap = labelled_overlap(manifest)
    for (_, m), ov in zip(manifest.iterrows(), overlap):
        clip_id = str(m["clip_id"])
        if clip_id not in index.index:
            failures.append(Failure(clip_id, stage, "no cached encoder features (see data/features/failures.parquet)"))
            continue
        row = {
            "clip_id": clip_id, "split": m["split"], "kind": m["kind"], "corpus": m["corpus"],
            "group": str(m["speaker_1"]) if pd.notna(m.get("speaker_1")) else str(m.get("mixture_id") or clip_id),
            "overlap": float(ov) if pd.notna(ov) else np.nan,
        }
        if labels is not None:
            if clip_id not in labels.index:
                failures.append(Failure(clip_id, stage, "no reference row for this clip"))
                continue
            if not np.isfinite(row["overlap"]):
                failures.append(Failure(clip_id, stage, "no labelled overlap fraction in the manifest"))
                continue
            row.update(labels.loc[clip_id].to_dict())
        row["features"] = read_clip_features(Path(features_dir) / index.loc[clip_id, "path"])
        rows.append(row)
    table = pd.DataFrame(rows)
    return table, failures
