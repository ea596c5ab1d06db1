"""DVC stage `calibrate`: withholding thresholds, risk at the cut, selectors and risk–coverage (`calib:` group)."""

import argparse

from acousticlaim.params import load_group
from acousticlaim.selective.withholding import calibrate_stage


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--predictions", default="data/predict/predictions.parquet")
    ap.add_argument("--references", default="data/references/references.parquet")
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--features", default=None, help="pooled encoder features: clip_id + numeric columns")
    ap.add_argument("--out", default="data/calibrate")
    ap.add_argument("--metrics", default="metrics/calibrate.json")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    config = load_group("calib", args.params)
    result = calibrate_stage(args.predictions, args.references, args.manifest, args.features, args.out,
                             args.metrics, config)
    m = result.metrics
    pooled = m.get("pooled", {})
    print(f"calibrate: coverage target {m['coverage_target']}, pooled withholding "
          f"{pooled.get('withholding_rate', float('nan')):.3f} ± {pooled.get('withholding_rate_sd', float('nan')):.3f}, "
          f"risk down on {pooled.get('quantities_risk_down_every_split')} of {pooled.get('quantities')} quantities "
          f"on every split, {pooled.get('quantities_under_floor_kept')} under the nMAE floor on the kept clips "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
