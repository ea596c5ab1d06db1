"""DVC stage `features`: the frozen encoder's frames for every clip, cached per clip (`features:` group)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.model.features import extract_features  # noqa: E402
from acousticlaim.params import load_params  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--out", default="data/features")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args()
    params = load_params(args.params)
    index, failures = extract_features(args.manifest, args.out, params.get("features") or {}, params.get("executor"))
    print(f"features: {len(index)} clips encoded, {len(failures)} recorded failures -> {args.out}")


if __name__ == "__main__":
    main()
