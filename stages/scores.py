"""DVC stage `scores`: claims and references → cells, Tables 1 and 2, and the headline metrics.

Reads the `scores:` group of params.yaml. Table 2 needs the references and the claims; Table 1 needs
the reference system's predictions too (`data/predict/predictions.parquet`, from the `predict` stage) and,
when they are missing, says which stage to run. Speaker labels for the within-speaker ρ come from the
corpus manifest when it is there. ``scores.split_by`` (manifest columns, e.g. RSA-Bench's soundscape and
K) also writes Table 2 per group, ``reports/table2_split.md`` (see ``acousticlaim.scoring.split``).

Tables 1 and 2 score the quantity rungs (the released five); Table 3 scores the claims in time
(``data/claims/intervals.parquet``) against the references in time (``data/references/intervals.parquet`` and
``interval_lists.parquet``): ``reports/table3.md``/``.csv``, and under ``data/scores`` the table and the intervals
every clip was scored on (``interval_pairs.parquet``, which the report draws).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from acousticlaim.claims.prompts import QUANTITY_RUNG_IDS
from acousticlaim.instruments.intervals import read_interval_references
from acousticlaim.io import write_csv, write_parquet, write_text
from acousticlaim.params import load_group
from acousticlaim.report.table3 import render_table3
from acousticlaim.report.tables import render_split, write_tables_markdown
from acousticlaim.scoring.intervals import STATED_COLUMNS, interval_table, table3_metrics
from acousticlaim.scoring.pipeline import score, write_results
from acousticlaim.scoring.inputs import read_table, speakers_from_manifest
from acousticlaim.scoring.pooling import CLAIM_COLUMNS, GENERATION_KEY
from acousticlaim.scoring.references import read_references
from acousticlaim.scoring.split import score_split
from acousticlaim.scoring.table1 import check_predictions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--references", type=Path, default=Path("data/references/references.parquet"))
    ap.add_argument("--claims", type=Path, default=Path("data/claims/claims.parquet"))
    ap.add_argument("--generations", type=Path, default=Path("data/claims/generations.parquet"))
    ap.add_argument("--interval-claims", type=Path, default=Path("data/claims/intervals.parquet"))
    ap.add_argument("--reference-intervals", type=Path, default=Path("data/references/intervals.parquet"))
    ap.add_argument("--predictions", type=Path, default=Path("data/predict/predictions.parquet"))
    ap.add_argument("--manifest", type=Path, default=Path("data/corpus/manifest.parquet"))
    ap.add_argument("--reports", type=Path, default=Path("reports"))
    ap.add_argument("--cells", type=Path, default=Path("data/scores/cells.parquet"))
    ap.add_argument("--metrics", type=Path, default=Path("metrics/scores.json"))
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    args = ap.parse_args(argv)

    config = load_group("scores", args.params)
    references = read_references(args.references)
    claims = read_table(args.claims, CLAIM_COLUMNS, "claims table (run the claims stage first)")
    all_generations = read_table(args.generations, GENERATION_KEY, "generations table of the claims stage")
    # Tables 1 and 2 read the rungs that ask for the quantities; the rung that asks in time is Table 3's
    claims = claims[claims["rung"].isin(QUANTITY_RUNG_IDS)].reset_index(drop=True)
    generations = all_generations[all_generations["rung"].isin(QUANTITY_RUNG_IDS)].reset_index(drop=True)
    predictions = None
    if args.predictions.exists():
        predictions = check_predictions(pd.read_parquet(args.predictions), str(args.predictions))
    else:
        print(f"Table 1 is not written: {args.predictions} does not exist (run `dvc repro predict`).", file=sys.stderr)
    speakers = speakers_from_manifest(args.manifest)

    results = score(claims, references, config, generations=generations, predictions=predictions, speakers=speakers)
    manifest = None
    if config.split_by:
        if not args.manifest.exists():
            raise FileNotFoundError(f"{args.manifest}: scores.split_by names manifest columns, but there is no manifest")
        manifest = pd.read_parquet(args.manifest)
    split_table, split_counts, no_generations = score_split(claims, references, generations, manifest, config,
                                                            speakers=speakers)
    if split_counts:
        results.metrics["table2_split"] = split_counts
    interval_claims = read_table(args.interval_claims, STATED_COLUMNS, "claims in time of the claims stage")
    ref_intervals, ref_lists = read_interval_references(args.reference_intervals)
    table3, pairs = interval_table(all_generations, interval_claims, ref_intervals, ref_lists, config.intervals)
    results.metrics["table3"] = table3_metrics(table3)
    write_results(results, reports=args.reports, cells_path=args.cells, metrics_path=args.metrics)
    write_text(args.reports / "table3.md", render_table3(table3, config.intervals))
    write_csv(args.reports / "table3.csv", table3)
    write_parquet(args.cells.parent / "table3.parquet", table3)
    write_parquet(args.cells.parent / "interval_pairs.parquet", pairs)
    print(f"Table 3: {len(table3)} cells (system x corpus x event x rung) -> {args.reports / 'table3.md'}")
    write_tables_markdown(results, args.reports)
    write_text(args.reports / "table2_split.md", render_split(split_table, config, no_generations))
    write_csv(args.reports / "table2_split.csv", split_table)

    for corpus, counts in results.metrics["table2"].items():
        print(f"{corpus}: {counts['cells']} cells at n >= {config.n_min}, {counts['ranked']} ranked, "
              f"{counts['over_bar']} over {config.bar:g}, null expectation {counts['null_expectation']:.2f}")
    print(f"Table 1: {results.metrics['table1']['status']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
