"""DVC stage `report`: the withholding and decomposition figures (PNG) with their data (CSV) under plots/."""

import argparse
import json
from pathlib import Path

from acousticlaim.report.selective_figures import selective_report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calibrate", default="data/calibrate")
    ap.add_argument("--decomposition", default="data/decomposition")
    ap.add_argument("--calibrate-metrics", default="metrics/calibrate.json")
    ap.add_argument("--decomposition-metrics", default="metrics/decomposition.json")
    ap.add_argument("--plots", default="plots")
    args = ap.parse_args(argv)
    written = selective_report(
        args.calibrate, args.decomposition, args.plots,
        json.loads(Path(args.calibrate_metrics).read_text()), json.loads(Path(args.decomposition_metrics).read_text()),
    )
    print(f"report: {len(written)} files -> {args.plots}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
