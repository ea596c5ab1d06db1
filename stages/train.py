"""DVC stage `train` (one per training seed): the reference system and the matched ridge (`train:` group)."""

import argparse
from dataclasses import asdict
import os
import time

from acousticlaim.model.run import run_training
from acousticlaim.params import load_group


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--features", default="data/features")
    ap.add_argument("--references", default="data/references/references.parquet")
    ap.add_argument("--out", required=True, help="checkpoint folder of this seed")
    ap.add_argument("--plots", required=True, help="folder for this seed's loss curve (losses.csv)")
    ap.add_argument("--metrics", required=True, help="JSON file for this seed's training figures")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    params = asdict(load_group("train", args.params))
    t0 = time.perf_counter()
    summary = run_training(
        params, args.seed, manifest=args.manifest, features=args.features, references=args.references,
        out=args.out, plots=args.plots, metrics=args.metrics,
        progress=os.environ.get("ACOUSTICLAIM_NO_PROGRESS") != "1",
    )
    print(f"train seed {args.seed}: {summary['n_train_clips']} clips, {summary['epochs']} epochs, "
          f"{summary['seconds_per_epoch_mean']:.1f} s/epoch, {time.perf_counter() - t0:.0f} s in all -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
