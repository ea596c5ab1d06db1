"""Every per-clip stage on a real Dask cluster, as a new user would start one.

`dask scheduler` and `dask worker --nworkers 2` run as separate processes on 127.0.0.1 from a folder
outside the repository; the stage scripts run from a project folder of their own with relative paths
(``data/corpus`` …), as `dvc repro` runs them. Every table they write must equal the local pool's.
A second cluster of two single-worker processes loses one worker mid-stage: the stage's output must
still equal the undisturbed run, with no clip lost or repeated.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import soundfile as sf
import yaml

from acousticlaim.model.features import read_clip_features
from acousticlaim.panel.store import read_records
from acousticlaim.quantities import SCORED_KEYS
from tests.dask_cluster import dask_processes
from tests.pipeline_fixtures import TINY_PARAMS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[1]
TOKEN_S = 0.16
STAGES = [
    ["corpus.py", "--out", "data/corpus"],
    ["references.py", "--corpus", "data/corpus", "--out", "data/references", "--metrics", "metrics/references.json",
     "--plot", "plots/references/overlap_agreement.csv"],
    ["generations.py", "--system", "estimator", "--corpus", "data/corpus", "--references", "data/references",
     "--out", "data/generations", "--metrics", "metrics/generations"],
    ["generations.py", "--system", "constant", "--corpus", "data/corpus", "--references", "data/references",
     "--out", "data/generations", "--metrics", "metrics/generations"],
    ["features.py", "--manifest", "data/corpus/manifest.parquet", "--out", "data/features"],
    ["decomposition.py", "--decomposition", "data/predict/decomposition.parquet", "--manifest",
     "data/corpus/manifest.parquet", "--out", "data/decomposition", "--metrics", "metrics/decomposition.json"],
]
# every table the per-clip stages write
TABLES = [
    "corpus/manifest.parquet", "corpus/failures.parquet", "corpus/rirs.parquet",
    "references/references.parquet", "references/overlap.parquet", "references/failures.parquet",
    "references/intervals.parquet", "references/interval_lists.parquet",
    "generations/estimator.failures.parquet", "generations/constant.failures.parquet",
    "features/index.parquet", "features/pooled.parquet", "features/failures.parquet",
    "decomposition/profiles.parquet", "decomposition/identification.parquet", "decomposition/drawn.parquet",
    "decomposition/failures.parquet",
]


def tiny_params(executor: dict) -> dict:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    for group, values in TINY_PARAMS.items():
        params.setdefault(group, {}).update(values)
    params["corpus"].update({"n_train": 2, "n_test": 2, "n_speakers_train": 3, "n_speakers_test": 3})
    params["generations"]["sampling"].update({"seeds": [0, 1], "clips_per_seed": 2})
    params["decomposition"].update({"n_candidates": 3, "token_s": TOKEN_S})
    params["executor"] = {"scheduler": None, "max_failure_share": 0.05, **executor}
    params["features"]["workers"] = None  # the executor's
    return params


def write_decomposition(project: Path) -> None:
    """The reference system's readout B stand-in: seeded terms on each test mixture's token grid."""
    manifest = pd.read_parquet(project / "data/corpus/manifest.parquet")
    tests = manifest[(manifest["split"] == "test") & (manifest["kind"] == "mixture")].sort_values("clip_id")
    rng = np.random.default_rng(11)
    parts = []
    for clip, duration in zip(tests["clip_id"], tests["duration_s"]):
        n = int(round(float(duration) / TOKEN_S))
        for q in SCORED_KEYS:
            parts.append(pd.DataFrame({"train_seed": 0, "clip_id": clip, "quantity": q, "token": np.arange(n),
                                       "term": rng.standard_normal(n)}))
    path = project / "data/predict/decomposition.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.concat(parts, ignore_index=True).to_parquet(path, index=False)


def run_stages(project: Path, executor: dict) -> Path:
    project.mkdir(parents=True)
    (project / "params.yaml").write_text(yaml.safe_dump(tiny_params(executor), sort_keys=False))
    env = {**os.environ, "ACOUSTICLAIM_NO_PROGRESS": "1"}
    for stage in STAGES:
        if stage[0] == "decomposition.py":
            write_decomposition(project)
        proc = subprocess.run([sys.executable, str(ROOT / "stages" / stage[0]), *stage[1:]], cwd=project, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(stage)} with {executor}:\n{proc.stdout}\n{proc.stderr[-4000:]}"
    return project / "data"


def audio_files(corpus: Path) -> dict[str, np.ndarray]:
    """Every audio file of a corpus, decoded (a float WAV's bytes may differ in the sign of a zero)."""
    return {str(p.relative_to(corpus)): sf.read(p)[0] for p in sorted(corpus.rglob("*")) if p.suffix in (".flac", ".wav")}


def generations_frame(path: Path) -> pd.DataFrame:
    records, _ = read_records(path)
    frame = pd.DataFrame([r.__dict__ for r in records]).drop(columns=["seconds"])  # wall time differs run to run
    return frame.sort_values(["clip_id", "rung", "seed"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    return run_stages(tmp_path_factory.mktemp("local") / "project", {"kind": "local", "workers": 2})


@pytest.fixture(scope="module")
def dask_run(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("dask-workers")  # outside the repository and the project
    with dask_processes(workdir, worker_groups=1, nworkers=2) as cluster:
        return run_stages(tmp_path_factory.mktemp("dask") / "project", {"kind": "dask", "scheduler": cluster.address})


def test_every_per_clip_stage_on_a_real_scheduler_equals_the_local_pool(local_run, dask_run):
    for table in TABLES:
        local, dask = pd.read_parquet(local_run / table), pd.read_parquet(dask_run / table)
        pd.testing.assert_frame_equal(local, dask, obj=table)
    manifest = pd.read_parquet(local_run / "corpus/manifest.parquet")
    assert len(manifest) == 8 and pd.read_parquet(local_run / "corpus/failures.parquet").empty
    assert pd.read_parquet(local_run / "references/references.parquet")["defined"].any()
    assert len(pd.read_parquet(local_run / "features/index.parquet")) == 8
    assert not pd.read_parquet(local_run / "decomposition/profiles.parquet").empty
    # the audio itself, sample for sample: the room responses, mixtures and stems
    local_audio, dask_audio = audio_files(local_run / "corpus"), audio_files(dask_run / "corpus")
    assert sorted(local_audio) == sorted(dask_audio) and any(name.startswith("rirs/") for name in dask_audio)
    for name, wave in local_audio.items():
        np.testing.assert_array_equal(wave, dask_audio[name], err_msg=name)
    for system in ("estimator", "constant"):
        local, dask = (generations_frame(run / f"generations/{system}.jsonl") for run in (local_run, dask_run))
        assert len(local) == 2 * 2 * 6  # 2 seeds x 2 clips x 6 rungs (the released five and P5_intervals)
        pd.testing.assert_frame_equal(local, dask, obj=system)
    # the features' cached frames too
    for name in pd.read_parquet(local_run / "features/index.parquet")["path"]:
        np.testing.assert_array_equal(read_clip_features(local_run / "features" / name),
                                      read_clip_features(dask_run / "features" / name), err_msg=name)


def test_a_worker_killed_mid_stage_loses_and_repeats_no_clip(local_run, tmp_path):
    from distributed import Client

    from acousticlaim.corpus.manifest import read_manifest
    from acousticlaim.instruments.references import compute_references

    corpus = local_run / "corpus"
    manifest = read_manifest(corpus)
    undisturbed = pd.read_parquet(local_run / "references/references.parquet")
    killed: dict[str, object] = {}
    with dask_processes(tmp_path / "workers", worker_groups=2, nworkers=1) as cluster:
        victim = cluster.workers[0]

        def kill_when_busy() -> None:
            with Client(cluster.address) as client:
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline and "at" not in killed:
                    info = client.scheduler_info()["workers"]
                    for address, tasks in client.processing().items():
                        if tasks and str(info.get(address, {}).get("name", "")).startswith("w0"):
                            killed["tasks"] = len(tasks)
                            cluster.kill_worker(0)
                            killed["at"] = time.monotonic()
                            return
                    time.sleep(0.05)

        watcher = threading.Thread(target=kill_when_busy, daemon=True)
        watcher.start()
        result = compute_references(manifest, corpus, {}, executor={"kind": "dask", "scheduler": cluster.address})
        watcher.join(timeout=30)
        assert "at" in killed and killed["tasks"] >= 1, "the worker was not killed while it held a job"
        assert victim.poll() is not None
    refs = result.references
    assert not refs.duplicated(["clip_id", "quantity"]).any()
    assert set(refs["clip_id"]) == set(manifest["clip_id"])
    pd.testing.assert_frame_equal(refs, undisturbed)

