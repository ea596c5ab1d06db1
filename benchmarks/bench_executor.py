"""Clips per second of the `references` stage on the local pool and through a real Dask scheduler.

    nice python3 benchmarks/bench_executor.py [--clips 200] [--workers 1 2 4] [--json benchmarks/results/executor.json]

Builds a synthetic corpus of ``--clips`` clips (half mixtures, half their clean twins; the default 40
simulated rooms) once, then reads every reference of every clip with:

* the local process pool of 1, 2 and 4 workers;
* a Dask cluster of `dask scheduler` + `dask worker --nworkers N --nthreads 1` started as separate processes
  on 127.0.0.1 (their start-up is timed apart and not counted), the workers' working directory outside the
  repository, as on a cluster.

Each row is the wall time of the whole stage (planning, the jobs, gathering) and clips per second. The two
back-ends must give the same table, which is checked. The load average before and after is printed: on a
shared machine the figures move with whatever else runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")

import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from acousticlaim.corpus.build import build_corpus  # noqa: E402
from acousticlaim.corpus.manifest import read_manifest  # noqa: E402
from acousticlaim.instruments.references import compute_references  # noqa: E402
from tests.dask_cluster import dask_processes  # noqa: E402


def timed(manifest: pd.DataFrame, corpus: Path, executor: dict) -> tuple[float, pd.DataFrame]:
    t0 = time.perf_counter()
    result = compute_references(manifest, corpus, {}, executor=executor)
    return time.perf_counter() - t0, result.references


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", type=int, default=200, help="clips (mixtures + twins); even")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    mixtures = max(1, args.clips // 2)
    cfg = yaml.safe_load((ROOT / "params.yaml").read_text())["corpus"]
    cfg.update({"n_train": mixtures // 2, "n_test": mixtures - mixtures // 2})
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        corpus = tmp / "corpus"
        t0 = time.perf_counter()
        build_corpus(cfg, corpus, executor={"kind": "local", "workers": 2})
        print(f"corpus: {mixtures} mixtures + twins built in {time.perf_counter() - t0:.0f} s", flush=True)
        manifest = read_manifest(corpus)
        n = len(manifest)
        reference = None
        for workers in args.workers:
            seconds, refs = timed(manifest, corpus, {"kind": "local", "workers": workers})
            reference = refs if reference is None else reference
            pd.testing.assert_frame_equal(refs, reference)
            rows.append({"executor": "local pool", "workers": workers, "clips": n, "seconds": round(seconds, 2),
                         "clips_per_s": round(n / seconds, 3), "startup_s": None})
            print(rows[-1], flush=True)
        for workers in args.workers:
            t0 = time.perf_counter()
            with dask_processes(tmp / f"dask{workers}", worker_groups=1, nworkers=workers) as cluster:
                startup = time.perf_counter() - t0
                seconds, refs = timed(manifest, corpus, {"kind": "dask", "scheduler": cluster.address})
            pd.testing.assert_frame_equal(refs, reference)
            rows.append({"executor": "dask (scheduler + worker processes)", "workers": workers, "clips": n,
                         "seconds": round(seconds, 2), "clips_per_s": round(n / seconds, 3),
                         "startup_s": round(startup, 1)})
            print(rows[-1], flush=True)
    load_after = os.getloadavg()
    print()
    print(f"references on {n} clips; {os.cpu_count()} CPUs; load average (1, 5, 15 min) before "
          f"{', '.join(f'{x:.1f}' for x in load_before)}, after {', '.join(f'{x:.1f}' for x in load_after)}")
    print("| executor | workers | seconds | clips/s |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['executor']} | {r['workers']} | {r['seconds']:.1f} | {r['clips_per_s']:.2f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "cpus": os.cpu_count(), "load_before": load_before,
                                         "load_after": load_after}, indent=2) + "\n")


if __name__ == "__main__":
    main()
