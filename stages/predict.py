"""DVC stage `predict`: readout A (generations), readout B and its decomposition, the ridge (`predict:` group)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.model.run import run_prediction  # noqa: E402
from acousticlaim.params import stage_params  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--features", default="data/features")
    ap.add_argument("--references", default="data/references/references.parquet")
    ap.add_argument("--checkpoints", default="data/train", help="folder of seed_<k>/ checkpoints")
    ap.add_argument("--out", default="data/predict")
    ap.add_argument("--generations", default="data/generations/reference.jsonl")
    ap.add_argument("--metrics", default="metrics/predict.json")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args()
    params = stage_params("predict", args.params)
    seeds = stage_params("train", args.params).get("seeds", [])
    summary = run_prediction(
        params, seeds, manifest=args.manifest, features=args.features, references=args.references,
        checkpoints=args.checkpoints, out=args.out, generations=args.generations, metrics=args.metrics,
    )
    print(f"predict: {summary['n_clips']} clips x {len(summary['seeds'])} seeds, "
          f"{summary['n_generations']} generations -> {args.out}")


if __name__ == "__main__":
    main()
