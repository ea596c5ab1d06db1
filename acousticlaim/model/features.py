"""The ``features`` stage: run the frozen encoder once per clip and cache its frames.

Each clip of the manifest is read with the project's one audio loader (16 kHz, mono, unnormalised,
truncated to ``max_duration_s``), encoded (:mod:`acousticlaim.model.encoder`), and written to
``<out>/clips/<clip_id>.safetensors`` — one float16 tensor ``frames`` (frames × dim; float16 halves the
cache and is far finer than the encoders' own precision matters here) with the clip id and the encoder
fingerprint in the file's metadata. A clip whose cached file already carries the same fingerprint is not
encoded again. ``<out>/index.parquet`` lists every encoded clip (clip id, path relative to ``out``,
frames, dim, fingerprint); ``<out>/pooled.parquet`` each clip's frames pooled to their mean and standard
deviation over time (``clip_id`` + ``mean_<d>`` + ``sd_<d>`` columns: the features the matched ridge and
the residual-ridge selector are fitted on); ``<out>/failures.parquet`` the clips that could not be read or
encoded. Newly encoded files are written to ``<out>/.staging/clips/`` and moved into ``clips/`` only when the
stage passes :func:`acousticlaim.executor.check_failures`, so a rejected run leaves the previous cache and
tables as they were.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from acousticlaim.audio import AudioError, load_audio
from acousticlaim.corpus.manifest import read_manifest, resolve_path
from acousticlaim.executor import check_failures, local_workers, map_clips, rejected_failures_path
from acousticlaim.failures import Failure, write_failures
from acousticlaim.io import atomic_path, write_json, write_parquet
from acousticlaim.model.batching import pooled_features
from acousticlaim.model.encoder import FRAME_RATE_HZ, EncoderSpec, build_encoder
from acousticlaim.params import param, settings_from
from acousticlaim.safe_names import clip_id_problem, path_under

STAGE = "features"
INDEX_COLUMNS = ["clip_id", "path", "n_frames", "dim", "fingerprint"]
_ENCODERS: dict[str, Any] = {}  # one encoder per worker process and fingerprint


def cached_fingerprint(path: Path) -> str | None:
    """The encoder fingerprint stored in a cached clip file (None if absent or unreadable)."""
    try:
        with safe_open(str(path), framework="pt") as f:
            return (f.metadata() or {}).get("fingerprint")
    except Exception:
        return None


@dataclass(frozen=True)
class FeaturesSettings:
    """The ``features:`` group of ``params.yaml``."""

    encoder: EncoderSpec = field(default_factory=EncoderSpec)
    max_duration_s: float | None = param(10.0, gt=0)  # clips truncated to this before encoding (null: whole)
    workers: int | None = param(None, ge=1)  # processes (null: executor.workers); 1 for an encoder on a GPU


def read_clip_features(path: str | Path) -> np.ndarray:
    """A cached clip's frames as float32 (frames, dim)."""
    with safe_open(str(path), framework="pt") as f:
        return f.get_tensor("frames").float().numpy()


def encode_clip(job: dict) -> dict:
    """Encode one clip (a pure function of the job); returns an index row or a failure record."""
    clip_id, out_path, spec_dict = job["clip_id"], Path(job["out_path"]), job["spec"]
    cache_path = Path(job.get("cache_path") or out_path)  # an earlier run's file, reused when its encoder matches
    spec = EncoderSpec.from_params(spec_dict)
    fingerprint = spec.fingerprint()
    try:
        if cached_fingerprint(cache_path) == fingerprint:
            frames = read_clip_features(cache_path)
        else:
            if job.get("threads"):
                torch.set_num_threads(int(job["threads"]))
            if fingerprint not in _ENCODERS:
                _ENCODERS[fingerprint] = build_encoder(spec)
            wave, _ = load_audio(job["audio_path"], max_duration_s=job.get("max_duration_s"))
            frames = _ENCODERS[fingerprint](wave)
            if frames.shape[0] == 0:
                raise AudioError(job["audio_path"], "too short to give one encoder frame")
            if not np.isfinite(frames).all():
                raise AudioError(job["audio_path"], "the encoder returned NaN or Inf")
            with atomic_path(out_path) as tmp:
                save_file(
                    {"frames": torch.from_numpy(np.ascontiguousarray(frames)).to(torch.float16)}, str(tmp),
                    metadata={"clip_id": clip_id, "fingerprint": fingerprint, "frame_rate_hz": str(FRAME_RATE_HZ)},
                )
        return {"clip_id": clip_id, "n_frames": int(frames.shape[0]), "dim": int(frames.shape[1]), "fingerprint": fingerprint}
    except AudioError as exc:
        return {"failure": Failure(clip_id, STAGE, str(exc))}
    except Exception as exc:  # an encoder error on one clip must not stop the stage
        return {"failure": Failure(clip_id, STAGE, f"{job['audio_path']}: encoder failed ({type(exc).__name__}: {exc})")}


def pooled_table(features_dir: str | Path, index: pd.DataFrame) -> pd.DataFrame:
    """clip_id + the mean and s.d. over frames of every indexed clip (:func:`pooled_features`)."""
    rows = [pooled_features(read_clip_features(Path(features_dir) / p)) for p in index["path"]]
    dim = int(index["dim"].iloc[0]) if len(index) else 0
    columns = [f"mean_{d:04d}" for d in range(dim)] + [f"sd_{d:04d}" for d in range(dim)]
    table = pd.DataFrame(np.asarray(rows, dtype=np.float64).reshape(len(rows), 2 * dim), columns=columns)
    table.insert(0, "clip_id", index["clip_id"].to_numpy())
    return table


def extract_features(
    manifest_path: str | Path,
    out: str | Path,
    params: dict[str, Any],
    executor: dict[str, Any] | None = None,
) -> tuple[pd.DataFrame, list[Failure]]:
    """Encode every clip of the manifest into ``out`` (the ``features`` group of ``params.yaml``)."""
    out = Path(out).absolute()  # jobs carry absolute paths: a worker's working directory is not ours
    manifest_path = Path(manifest_path).absolute()
    manifest = read_manifest(manifest_path)
    manifest_dir = manifest_path if manifest_path.is_dir() else manifest_path.parent
    params = asdict(settings_from(FeaturesSettings, params, "features"))
    spec = EncoderSpec.from_params(params["encoder"])
    executor = dict(executor or {})
    if spec.device != "cpu" and executor.get("kind") == "dask":
        executor["kind"] = "local"  # an encoder on this machine's accelerator stays on it; CPU encoders distribute
    if params["workers"] is not None:
        executor["workers"] = params["workers"]
    workers = local_workers(executor)
    staging = out / ".staging" / "clips"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    failures: list[Failure] = []
    jobs = []
    for row in manifest.itertuples(index=False):
        clip_id = str(row.clip_id)
        problem = clip_id_problem(clip_id)
        if problem:
            failures.append(Failure(clip_id, STAGE, f"{manifest_path}: {problem}"))
            continue
        audio = resolve_path(manifest_dir, row.audio_path)
        if audio is None:
            failures.append(Failure(clip_id, STAGE, "the manifest gives no audio_path"))
            continue
        jobs.append({
            "clip_id": clip_id, "audio_path": str(audio),
            "out_path": str(path_under(staging, f"{clip_id}.safetensors")),
            "cache_path": str(path_under(out, "clips", f"{clip_id}.safetensors")),
            "spec": params["encoder"], "max_duration_s": params["max_duration_s"],
            "threads": 1 if workers > 1 else None,
        })
    try:
        results = map_clips(encode_clip, jobs, executor=executor, label="features")
        rows = []
        for r in results:
            if "failure" in r:
                failures.append(r["failure"])
            else:
                rows.append({**r, "path": f"clips/{r['clip_id']}.safetensors"})
        check_failures(STAGE, n_clips=len(manifest), n_rows=len(rows), failures=failures, executor=executor,
                       rejected_failures=rejected_failures_path(out))
        (out / "clips").mkdir(parents=True, exist_ok=True)
        for fresh in staging.glob("*.safetensors"):
            os.replace(fresh, out / "clips" / fresh.name)
    finally:
        shutil.rmtree(staging.parent, ignore_errors=True)
    index = pd.DataFrame(rows, columns=INDEX_COLUMNS)
    expected = {f"{j['clip_id']}.safetensors" for j in jobs}
    for stale in (out / "clips").glob("*.safetensors"):
        if stale.name not in expected:
            stale.unlink()  # clips no longer in the manifest
    write_parquet(out / "index.parquet", index)
    write_parquet(out / "pooled.parquet", pooled_table(out, index))
    write_failures(out / "failures.parquet", failures)
    write_json(out / "encoder.json", {"spec": asdict(spec), "fingerprint": spec.fingerprint(), "frame_rate_hz": FRAME_RATE_HZ,
                                       "n_clips": len(index), "n_failures": len(failures)})
    return index, failures
