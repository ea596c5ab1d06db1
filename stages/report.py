"""DVC stage `report`: the figures (PNG with their data as CSV) under plots/, and the report page reports/index.html.

The page (acousticlaim.report.page) shows Tables 1 and 2 with a picture of every ranked and "c" cell, Table 2
as a heatmap, Table 3 (claims in time) with pictures of a few clips (reference against stated intervals on the
waveform), the withholding and decomposition figures, the headline metrics, the parameters and the commit.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from acousticlaim.params import load_group, load_params
from acousticlaim.report.interval_figures import manifest_waveforms
from acousticlaim.report.page import write_report
from acousticlaim.report.selective_figures import selective_report
from acousticlaim.scoring.pipeline import read_results

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
    ap.add_argument("--table3", default="data/scores/table3.parquet")
    ap.add_argument("--interval-pairs", default="data/scores/interval_pairs.parquet")
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--reports", default="reports")
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    args = ap.parse_args(argv)
    config = load_group("scores", args.params)

    calibrate = json.loads(Path(args.calibrate_metrics).read_text())
    decomposition = json.loads(Path(args.decomposition_metrics).read_text())
    written = selective_report(args.calibrate, args.decomposition, args.plots, calibrate, decomposition)
    print(f"report: {len(written)} files -> {args.plots}")

    results = read_results(args.cells, args.scores_metrics, config)
    page = write_report(results, args.reports, title="AcoustiClaim: the run's Tables 1, 2 and 3",
                        figures=[Path(args.plots) / name for name in FIGURES], params=load_params(args.params),
                        metrics={"calibrate": calibrate, "decomposition": decomposition},
                        table3=pd.read_parquet(args.table3), interval_pairs=pd.read_parquet(args.interval_pairs),
                        waveform=manifest_waveforms(args.manifest))
    print(f"report: {len(page)} files -> {args.reports} (open {Path(args.reports) / 'index.html'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
