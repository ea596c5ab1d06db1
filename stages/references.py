"""DVC stage `references`: every instrument reading of every corpus clip (`references:` and `executor:` groups)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.instruments.references import build_references  # noqa: E402
from acousticlaim.io import write_csv, write_json  # noqa: E402
from acousticlaim.params import load_params  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default="data/corpus")
    ap.add_argument("--out", default="data/references")
    ap.add_argument("--metrics", default="metrics/references.json")
    ap.add_argument("--plot", default="plots/references/overlap_agreement.csv")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args()
    params = load_params(args.params)
    result = build_references(args.corpus, args.out, params.get("references") or {}, executor=params.get("executor"))
    write_json(args.metrics, result.summary)
    write_csv(args.plot, result.overlap[["clip_id", "manifest_overlap_fraction", "vad_overlap_fraction"]])
    s = result.summary
    print(f"references: {s['clips']} clips, {s['rows']} rows, {s['failures']} recorded failures -> {args.out}")


if __name__ == "__main__":
    main()
