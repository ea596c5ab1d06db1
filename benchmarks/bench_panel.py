"""Generations per second for the panel's local systems (constant predictor, estimator suite).

    python3 benchmarks/bench_panel.py [--mixtures 12] [--seeds 8] [--systems constant estimator]

Builds a synthetic test corpus of N 10-s mixtures with the corpus builder (default parameters) into
a temporary folder, then runs each system over the full sampling design (every seed draws all N
mixtures when N ≤ 120; five rungs) through the same runner the `generations` stage uses: audio
decoding, generation and the fsync'd appends to the store are all inside the timing. The estimator
suite measures each clip once (its readings are cached by clip), so its rate is dominated by the
instruments on the clips and rises with the number of seeds. CPU time is printed beside wall time
because the machine's cores are shared with other work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")

import yaml  # noqa: E402

from acousticlaim.corpus.build import build_corpus  # noqa: E402
from acousticlaim.corpus.manifest import read_manifest  # noqa: E402
from acousticlaim.panel.local_systems import ConstantPredictor, EstimatorSuite  # noqa: E402
from acousticlaim.panel.runner import manifest_audio_loader, run_generations  # noqa: E402
from acousticlaim.panel.sampling import SamplingDesign, generation_jobs  # noqa: E402

MEDIANS = {"snr": 20.0, "srmr": 5.0, "speaking_rate": 4.0, "pause_count": 2.0, "pause_rate": 12.0, "f0_mean": 150.0,
           "f0_sd": 20.0, "jitter": 1.0, "shimmer": 5.0, "hnr": 12.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mixtures", type=int, default=12)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--systems", nargs="+", default=["constant", "estimator"])
    args = ap.parse_args()
    base = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())["corpus"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cfg = {**base, "n_train": 0, "n_test": args.mixtures, "n_rooms": 4}
        build_corpus(cfg, tmp / "corpus", executor={"kind": "local", "workers": 2})
        manifest = read_manifest(tmp / "corpus")
        jobs = generation_jobs(manifest, SamplingDesign(seeds=tuple(range(args.seeds))))
        loader = manifest_audio_loader(manifest, tmp / "corpus")
        for name in args.systems:
            if name == "constant":
                system = ConstantPredictor(MEDIANS, name=name)
            elif name == "estimator":
                from acousticlaim.panel.heard_signal import measure_heard_signal

                system = EstimatorSuite(measure_heard_signal, name=name)
            else:
                raise SystemExit(f"unknown local system {name!r}")
            t0, c0 = time.perf_counter(), time.process_time()
            summary, failures = run_generations(system, jobs, tmp / f"{name}.jsonl", loader, config_sha="bench")
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"{name:10s} {summary.n_generated} generations ({args.mixtures} clips × {args.seeds} seeds × 5 rungs, "
                  f"{len(failures)} failed) in {wall:.2f} s wall = {summary.n_generated / wall:.1f} generations/s; "
                  f"{cpu:.2f} s CPU = {summary.n_generated / cpu:.1f} generations/CPU-s (one process)")


if __name__ == "__main__":
    main()
