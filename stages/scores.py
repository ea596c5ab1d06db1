"""DVC stage `scores`: claims and references → cells, Tables 1 and 2, and the headline metrics.

Reads the `scores:` group of params.yaml. Table 2 needs the references and the claims; Table 1 needs
the reference system's predictions too (`data/predict/predictions.parquet`) and, until they
exist, says plainly that it is waiting for them. Speaker labels for the within-speaker ρ come from the
corpus manifest when it is there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from acousticlaim.params import stage_params
from acousticlaim.report.tables import write_tables_markdown
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.pipeline import score, write_results
from acousticlaim.scoring.pooling import CLAIM_COLUMNS, GENERATION_KEY, check_columns
from acousticlaim.scoring.references import read_references
from acousticlaim.scoring.table1 import check_predictions


def read_table(path: Path, required, what: str) -> pd.DataFrame:
    if not path.exists():
        raise FileNotFoundError(f"{path}: {what} not found")
    frame = pd.read_parquet(path)
    check_columns(frame, required, str(path))
    return frame


def speakers_from_manifest(path: Path) -> dict[str, str] | None:
    """clip id → target talker (``speaker_1``) from the corpus manifest; ``None`` when it is absent."""
    if not path.exists():
        return None
    manifest = pd.read_parquet(path, columns=None)
    check_columns(manifest, ("clip_id", "speaker_1"), str(path))
    known = manifest.dropna(subset=["speaker_1"])
    return dict(zip(known["clip_id"].astype(str), known["speaker_1"].astype(str)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--references", type=Path, default=Path("data/references/references.parquet"))
    ap.add_argument("--claims", type=Path, default=Path("data/claims/claims.parquet"))
    ap.add_argument("--generations", type=Path, default=Path("data/claims/generations.parquet"))
    ap.add_argument("--predictions", type=Path, default=Path("data/predict/predictions.parquet"))
    ap.add_argument("--manifest", type=Path, default=Path("data/corpus/manifest.parquet"))
    ap.add_argument("--reports", type=Path, default=Path("reports"))
    ap.add_argument("--cells", type=Path, default=Path("data/scores/cells.parquet"))
    ap.add_argument("--metrics", type=Path, default=Path("metrics/scores.json"))
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    args = ap.parse_args(argv)

    config = ScoringConfig.from_params(stage_params("scores", args.params))
    references = read_references(args.references)
    claims = read_table(args.claims, CLAIM_COLUMNS, "claims table (run the claims stage first)")
    generations = read_table(args.generations, GENERATION_KEY, "generations table of the claims stage")
    predictions = None
    if args.predictions.exists():
        predictions = check_predictions(pd.read_parquet(args.predictions), str(args.predictions))
    else:
        print(f"Table 1 is waiting: {args.predictions} does not exist yet (the predict stage).", file=sys.stderr)
    speakers = speakers_from_manifest(args.manifest)

    results = score(claims, references, config, generations=generations, predictions=predictions, speakers=speakers)
    write_results(results, reports=args.reports, cells_path=args.cells, metrics_path=args.metrics)
    write_tables_markdown(results, args.reports)
    for corpus, counts in results.metrics["table2"].items():
        print(f"{corpus}: {counts['cells']} cells at n >= {config.n_min}, {counts['ranked']} ranked, "
              f"{counts['over_bar']} over {config.bar:g}, null expectation {counts['null_expectation']:.2f}")
    print(f"Table 1: {results.metrics['table1']['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
