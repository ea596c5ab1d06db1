"""The tiny reference system on the embedded corpus: training wall time per epoch and held-out nMAE.

Trains one seed with the ``train:`` group of ``params.yaml`` (as the `train` stage does) on the cached
features and references, predicts the test split (as the `predict` stage does), and prints per-epoch wall
time and the nMAE per quantity of the reference system's readout B and of the matched ridge on the test
split (mixtures and twins pooled; mixtures and twins apart in the CSV). Needs the `features` and
`references` stages' outputs::

    dvc repro features references
    python3 benchmarks/bench_model_tiny.py --seed 0 --out /tmp/bench_model

The machine's other load changes the wall time; the script prints the CPU time beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.model.run import run_prediction, run_training  # noqa: E402
from acousticlaim.params import stage_params  # noqa: E402
from acousticlaim.quantities import SCORED_KEYS  # noqa: E402


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp/bench_model")
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--features", default="data/features")
    ap.add_argument("--references", default="data/references/references.parquet")
    args = ap.parse_args()
    out = Path(args.out)
    train_params = stage_params("train", args.params)
    predict_params = stage_params("predict", args.params)
    paths = dict(manifest=args.manifest, features=args.features, references=args.references)
    t0, c0 = time.perf_counter(), cpu_seconds()
    train = run_training(train_params, args.seed, **paths, out=out / "train" / f"seed_{args.seed}",
                         plots=out / "plots", metrics=out / "train.json",
                         progress=os.environ.get("ACOUSTICLAIM_NO_PROGRESS") != "1")
    train_wall, train_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    t1 = time.perf_counter()
    summary = run_prediction(predict_params, [args.seed], **paths, checkpoints=out / "train", out=out / "predict",
                             generations=out / "reference.jsonl", metrics=out / "predict.json")
    predict_wall = time.perf_counter() - t1
    nm = summary["nmae_test"]
    print(f"threads {train['threads']}, {train['n_train_clips']} training clips, {train['epochs']} epochs")
    print("seconds per epoch: " + ", ".join(f"{s:.1f}" for s in train["seconds_per_epoch"]))
    print(f"training wall {train_wall:.0f} s (CPU {train_cpu:.0f} s, incl. text-only decoder steps and ridge); "
          f"predict wall {predict_wall:.0f} s")
    print(f"{'quantity':<15}{'reference':>10}{'ridge':>10}")
    for q in SCORED_KEYS:
        print(f"{q:<15}{nm['reference'][q]['mean']:>10.3f}{nm['ridge'][q]['mean']:>10.3f}")
    print(f"{'below 1.0':<15}{nm['reference']['n_below_floor']:>10}{nm['ridge']['n_below_floor']:>10}")
    print(json.dumps({"readout_a": summary["readout_a"]}))


if __name__ == "__main__":
    main()
