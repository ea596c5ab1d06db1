"""DVC stage `references`: every instrument reading of every corpus clip (`references:` and `executor:` groups)."""

import argparse
from dataclasses import asdict

from acousticlaim.instruments.references import build_references
from acousticlaim.io import write_csv, write_json
from acousticlaim.executor import fails_loudly
from acousticlaim.params import load_group


@fails_loudly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default="data/corpus")
    ap.add_argument("--out", default="data/references")
    ap.add_argument("--metrics", default="metrics/references.json")
    ap.add_argument("--plot", default="plots/references/overlap_agreement.csv")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    settings, executor = load_group("references", args.params), load_group("executor", args.params)
    result = build_references(args.corpus, args.out, asdict(settings), executor=asdict(executor))
    write_json(args.metrics, result.summary)
    write_csv(args.plot, result.overlap[["clip_id", "manifest_overlap_fraction", "vad_overlap_fraction"]])
    s = result.summary
    print(f"references: {s['clips']} clips, {s['rows']} rows, {s['failures']} recorded failures -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
