"""DVC stage `predict`: readout A (generations), readout B and its decomposition, the ridge (`predict:` group)."""

import argparse
from dataclasses import asdict

from acousticlaim.model.run import run_prediction
from acousticlaim.params import load_group


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--features", default="data/features")
    ap.add_argument("--references", default="data/references/references.parquet")
    ap.add_argument("--checkpoints", default="data/train", help="folder of seed_<k>/ checkpoints")
    ap.add_argument("--out", default="data/predict")
    ap.add_argument("--generations", default="data/generations/reference.jsonl")
    ap.add_argument("--metrics", default="metrics/predict.json")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    params = asdict(load_group("predict", args.params))
    seeds = list(load_group("train", args.params).seeds)
    summary = run_prediction(
        params, seeds, manifest=args.manifest, features=args.features, references=args.references,
        checkpoints=args.checkpoints, out=args.out, generations=args.generations, metrics=args.metrics,
    )
    print(f"predict: {summary['n_clips']} clips x {len(summary['seeds'])} seeds, "
          f"{summary['n_generations']} generations -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
