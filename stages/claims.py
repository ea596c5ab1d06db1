"""DVC stage ``claims``: generations JSONL → claims Parquet.

Reads every ``<system>.jsonl`` under ``--generations`` and writes, under ``--out``:
``claims.parquet`` (one row per claim), ``generations.parquet`` (one row per generation with its
claim count, so texts that state nothing are counted), ``intervals.parquet`` (the claims in time: one row
per stated interval or point of an overlap, pause or noise) and ``failures.parquet`` (lines that could not
be read); and ``--metrics`` (generations and parsed share, overall, per system and rung). The work is
:func:`acousticlaim.claims.extract.extract_claims`; this script only moves files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acousticlaim.claims.extract import claims_metrics, extract_claims, read_generations
from acousticlaim.failures import write_failures
from acousticlaim.io import write_json, write_parquet
from acousticlaim.params import load_group


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=Path, default=Path("data/generations"))
    ap.add_argument("--out", type=Path, default=Path("data/claims"))
    ap.add_argument("--metrics", type=Path, default=Path("metrics/claims.json"))
    ap.add_argument("--params", type=Path, default=Path("params.yaml"))
    a = ap.parse_args(argv)
    threads = load_group("claims", a.params).threads or None  # 0: all cores

    frame, failures = read_generations(a.generations)
    tables = extract_claims(frame, threads=threads)
    a.out.mkdir(parents=True, exist_ok=True)
    write_parquet(a.out / "claims.parquet", tables.claims)
    write_parquet(a.out / "generations.parquet", tables.generations)
    write_parquet(a.out / "intervals.parquet", tables.intervals)
    write_failures(a.out / "failures.parquet", failures)
    metrics = claims_metrics(tables)
    metrics["failures"] = len(failures)
    write_json(a.metrics, metrics)
    print(
        f"claims: {metrics['generations']} generations, {len(tables.claims)} claims, "
        f"parsed share {metrics['parsed_share']}, {len(tables.intervals)} claims in time, "
        f"{len(failures)} unreadable lines → {a.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
