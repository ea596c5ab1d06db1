"""DVC stage `generations`: one panel system over the sampling design (`generations:` group of params.yaml)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.panel.heard_signal import measure_for_config  # noqa: E402
from acousticlaim.panel.stage import run_stage  # noqa: E402
from acousticlaim.params import load_params, stage_params  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--system", required=True, help="a name under generations.panel")
    ap.add_argument("--corpus", default="data/corpus")
    ap.add_argument("--references", default="data/references")
    ap.add_argument("--out", default="data/generations")
    ap.add_argument("--metrics", default="metrics/generations")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args()
    summary = run_stage(
        args.system, stage_params("generations", args.params), args.corpus, args.out,
        references=args.references, metrics_dir=args.metrics, default_measure=measure_for_config,
        executor=load_params(args.params).get("executor"),
    )
    m = summary.as_metrics()
    print(f"generations {args.system}: {m['n_generated']} generated, {m['n_already_done']} already done, "
          f"{m['n_failed']} failed, of {m['n_jobs']} -> {args.out}/{args.system}.jsonl")


if __name__ == "__main__":
    main()
