"""DVC stage `features`: the frozen encoder's frames for every clip, cached per clip (`features:` group)."""

import argparse

from acousticlaim.model.features import extract_features
from acousticlaim.params import load_params


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--out", default="data/features")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    params = load_params(args.params)
    index, failures = extract_features(args.manifest, args.out, params.get("features") or {}, params.get("executor"))
    print(f"features: {len(index)} clips encoded, {len(failures)} recorded failures -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
