"""DVC stage `features`: the frozen encoder's frames for every clip, cached per clip (`features:` group)."""

import argparse
from dataclasses import asdict

from acousticlaim.model.features import extract_features
from acousticlaim.executor import fails_loudly
from acousticlaim.params import load_group


@fails_loudly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--out", default="data/features")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    settings, executor = load_group("features", args.params), load_group("executor", args.params)
    index, failures = extract_features(args.manifest, args.out, asdict(settings), asdict(executor))
    print(f"features: {len(index)} clips encoded, {len(failures)} recorded failures -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
