"""The slot table: one row per (training seed, test clip, scored quantity), the unit withholding acts on.

A *slot* is one scored quantity on one clip (SPEC §6; the paper: "one quantity on one clip is a slot, ten
scored per clip"). This module joins the reference system's readout B (value ``v_q`` and log-variance
``s_q``), the matched ridge's value, and the instrument reference into that table, and validates the inputs
so that a bad file fails with its name and what is wrong.

Inputs (``HELPERS.md`` interfaces):

* predictions (``data/predict/predictions.parquet``): ``system`` ("reference" | "ridge"), ``train_seed``,
  ``clip_id``, ``split``, ``kind``, ``quantity``, ``value``, ``logvar`` (NaN for the ridge);
* references (``data/references/references.parquet``): ``clip_id``, ``quantity``, ``value``, ``defined``;
* the corpus manifest: ``clip_id``, ``mixture_id`` (a twin's parent) and ``speaker_1`` (the target talker),
  used to keep a mixture and its clean twin in the same calibration half and to cluster the bootstrap by
  speaker.

Only Libri2Mix-style test clips enter (``split == "test"``, ``kind`` "mixture" or "twin"); AMI clips are
zero-shot and not calibrated on. Errors are absolute errors in the quantity's canonical unit; a slot whose
reference is undefined keeps its log-variance (it still counts as stated or withheld) but has no error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.quantities import SCORED_KEYS

REFERENCE_SYSTEM = "reference"
RIDGE_SYSTEM = "ridge"
KINDS = ("mixture", "twin")

PREDICTION_COLUMNS = ("system", "train_seed", "clip_id", "split", "kind", "quantity", "value", "logvar")
REFERENCE_COLUMNS = ("clip_id", "quantity", "value", "defined")
SLOT_COLUMNS = (
    "train_seed", "clip_id", "kind", "group", "cluster", "quantity",
    "value", "s", "ridge_value", "reference", "defined", "error", "ridge_error",
)


class InputError(ValueError):
    """An input table that cannot be used, naming the file (or table) and what is wrong."""


def _require_columns(frame: pd.DataFrame, columns: tuple[str, ...], source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, frame.columns))}")


def _examples(frame: pd.DataFrame, columns: list[str], n: int = 3) -> str:
    return "; ".join(", ".join(f"{c}={row[c]}" for c in columns) for _, row in frame.head(n).iterrows())


def read_table(path: str | Path, columns: tuple[str, ...]) -> pd.DataFrame:
    """Read a Parquet table and check it has ``columns`` (a clear error naming the file otherwise)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types on a damaged file
        raise InputError(f"{path}: cannot be read as Parquet ({type(exc).__name__}: {exc})") from exc
    _require_columns(frame, columns, str(path))
    return frame


def group_of(clip_id: str, kind: str, mixture_id: object) -> str:
    """The mixture a clip belongs to: a twin's parent mixture (the manifest's ``mixture_id``), a mixture itself."""
    if kind == "mixture":
        return clip_id
    if isinstance(mixture_id, str) and mixture_id:
        return mixture_id
    raise InputError(f"manifest: twin {clip_id!r} has no mixture_id")


def build_slots(
    predictions: pd.DataFrame,
    references: pd.DataFrame,
    manifest: pd.DataFrame,
    *,
    predictions_source: str = "predictions",
    references_source: str = "references",
    manifest_source: str = "manifest",
) -> pd.DataFrame:
    """Join readout B, the matched ridge and the references into the slot table (columns ``SLOT_COLUMNS``).

    Raises :class:`InputError` for missing columns, unknown quantities, duplicated rows, a reference-system
    row without a value or log-variance, a slot without a reference row, or a clip the manifest lacks.
    """
    _require_columns(predictions, PREDICTION_COLUMNS, predictions_source)
    _require_columns(references, REFERENCE_COLUMNS, references_source)
    _require_columns(manifest, ("clip_id", "mixture_id"), manifest_source)

    unknown = sorted(set(predictions["quantity"]) - set(SCORED_KEYS) - {"overlap_ratio", "articulation_rate", "duration"})
    if unknown:
        raise InputError(f"{predictions_source}: unknown quantity key(s) {', '.join(map(str, unknown))}")
    pred = predictions[
        (predictions["split"] == "test")
        & predictions["kind"].isin(KINDS)
        & predictions["quantity"].isin(SCORED_KEYS)
    ]
    ours = pred[pred["system"] == REFERENCE_SYSTEM]
    ridge = pred[pred["system"] == RIDGE_SYSTEM]
    if ours.empty:
        raise InputError(
            f"{predictions_source}: no '{REFERENCE_SYSTEM}' rows on Libri2Mix test mixtures/twins for the scored quantities"
        )
    key = ["train_seed", "clip_id", "quantity"]
    for name, part in ((REFERENCE_SYSTEM, ours), (RIDGE_SYSTEM, ridge)):
        dup = part[part.duplicated(key, keep=False)]
        if not dup.empty:
            raise InputError(f"{predictions_source}: {len(dup)} duplicated '{name}' rows, e.g. {_examples(dup, key)}")
    bad = ours[~np.isfinite(ours["value"].astype(float)) | ~np.isfinite(ours["logvar"].astype(float))]
    if not bad.empty:
        raise InputError(
            f"{predictions_source}: {len(bad)} '{REFERENCE_SYSTEM}' rows without a finite value or logvar "
            f"(readout B always emits both), e.g. {_examples(bad, key)}"
        )

    slots = ours[["train_seed", "clip_id", "kind", "quantity", "value", "logvar"]].rename(columns={"logvar": "s"})
    slots = slots.astype({"value": float, "s": float})
    if ridge.empty:
        slots["ridge_value"] = np.nan
    else:
        ridge_part = ridge[["train_seed", "clip_id", "quantity", "value"]].rename(columns={"value": "ridge_value"})
        ridge_seeds = ridge_part["train_seed"].unique()
        if len(ridge_seeds) == 1 and set(slots["train_seed"].unique()) != set(ridge_seeds):
            # One ridge fit serves every training seed of the reference system (the ridge has no seed).
            ridge_part = ridge_part.drop(columns="train_seed")
            slots = slots.merge(ridge_part, on=["clip_id", "quantity"], how="left")
        else:
            slots = slots.merge(ridge_part, on=key, how="left")

    ref = references[list(REFERENCE_COLUMNS)]
    ref = ref[ref["quantity"].isin(SCORED_KEYS)]
    dup = ref[ref.duplicated(["clip_id", "quantity"], keep=False)]
    if not dup.empty:
        raise InputError(
            f"{references_source}: {len(dup)} rows share a (clip_id, quantity), e.g. {_examples(dup, ['clip_id', 'quantity'])}"
        )
    ref = ref.rename(columns={"value": "reference"})
    slots = slots.merge(ref, on=["clip_id", "quantity"], how="left", indicator=True)
    orphans = slots[slots["_merge"] == "left_only"]
    if not orphans.empty:
        raise InputError(
            f"{references_source}: no reference row for {len(orphans)} predicted slot(s), "
            f"e.g. {_examples(orphans, ['clip_id', 'quantity'])}"
        )
    slots = slots.drop(columns="_merge")
    slots["defined"] = slots["defined"].astype(bool) & np.isfinite(slots["reference"].astype(float))
    slots["reference"] = slots["reference"].astype(float)

    unknown_clips = sorted(set(slots["clip_id"]) - set(manifest["clip_id"]))
    if unknown_clips:
        raise InputError(f"{manifest_source}: {len(unknown_clips)} predicted clip(s) not in the manifest, "
                         f"e.g. {', '.join(unknown_clips[:3])}")
    mixture_ids = dict(zip(manifest["clip_id"], manifest["mixture_id"]))
    speakers = dict(zip(manifest["clip_id"], manifest["speaker_1"])) if "speaker_1" in manifest.columns else {}
    slots["group"] = [group_of(c, k, mixture_ids.get(c)) for c, k in zip(slots["clip_id"], slots["kind"])]
    # Bootstrap clusters: the target talker when the manifest names one (a twin shares its mixture's), else the mixture.
    cluster = []
    for clip, group in zip(slots["clip_id"], slots["group"]):
        spk = speakers.get(clip, speakers.get(group))
        cluster.append(f"spk:{spk}" if isinstance(spk, str) and spk else f"mix:{group}")
    slots["cluster"] = cluster

    slots["error"] = np.where(slots["defined"], np.abs(slots["value"] - slots["reference"]), np.nan)
    slots["ridge_error"] = np.where(slots["defined"], np.abs(slots["ridge_value"] - slots["reference"]), np.nan)
    slots = slots[list(SLOT_COLUMNS)].sort_values(["train_seed", "quantity", "clip_id"]).reset_index(drop=True)
    return slots


def load_slots(
    predictions_path: str | Path,
    references_path: str | Path,
    manifest_path: str | Path,
) -> pd.DataFrame:
    """Read the three files and build the slot table (see :func:`build_slots`)."""
    predictions = read_table(predictions_path, PREDICTION_COLUMNS)
    references = read_table(references_path, REFERENCE_COLUMNS)
    manifest = read_table(manifest_path, ("clip_id", "mixture_id"))
    return build_slots(
        predictions, references, manifest, predictions_source=str(predictions_path),
        references_source=str(references_path), manifest_source=str(manifest_path),
    )
