"""DVC stage `report`: the figures (PNG with their data as CSV) under plots/, and the report page reports/index.html.

The page (acousticlaim.report.page) shows Tables 1 and 2 with a picture of every ranked and "c" cell, Table 2
as a heatmap, the withholding and decomposition figures, the headline metrics, the parameters and the commit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.params import load_params, stage_params  # noqa: E402
from acousticlaim.report.page import write_report  # noqa: E402
from acousticlaim.report.selective_figures import selective_report  # noqa: E402
from acousticlaim.scoring.config import ScoringConfig  # noqa: E402
from acousticlaim.scoring.pipeline import read_results  # noqa: E402

FIGURES = ("fig3_risk_coverage.png", "fig2_decomposition.png", "withholding.png")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibrate", default="data/calibrate")
    ap.add_argument("--decomposition", default="data/decomposition")
    ap.add_argument("--calibrate-metrics", default="metrics/calibrate.json")
    ap.add_argument("--decomposition-metrics", default="metrics/decomposition.json")
    ap.add_argument("--plots", default="plots")
    ap.add_argument("--cells", default="data/scores/cells.parquet")
    ap.add_argument("--scores-metrics", default="metrics/scores.json")
    ap.add_argument("--reports", default="reports")
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    args = ap.parse_args(argv)

    calibrate = json.loads(Path(args.calibrate_metrics).read_text())
    decomposition = json.loads(Path(args.decomposition_metrics).read_text())
    written = selective_report(args.calibrate, args.decomposition, args.plots, calibrate, decomposition)
    print(f"report: {len(written)} files -> {args.plots}")

    config = ScoringConfig.from_params(stage_params("scores", args.params))
    results = read_results(args.cells, args.scores_metrics, config)
    page = write_report(results, args.reports, title="AcoustiClaim: the run's Tables 1 and 2",
                        figures=[Path(args.plots) / name for name in FIGURES], params=load_params(args.params),
                        metrics={"calibrate": calibrate, "decomposition": decomposition})
    print(f"report: {len(page)} files -> {args.reports} (open {Path(args.reports) / 'index.html'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
