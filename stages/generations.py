"""DVC stage `generations`: one panel system over the sampling design (`generations:` group of params.yaml)."""

import argparse
from dataclasses import asdict

from acousticlaim.panel.heard_signal import locate_for_config, measure_for_config
from acousticlaim.panel.stage import run_stage
from acousticlaim.executor import ExecutorSettings, fails_loudly
from acousticlaim.params import load_group, load_params, settings_from


@fails_loudly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--system", required=True, help="a name under generations.panel")
    ap.add_argument("--corpus", default="data/corpus")
    ap.add_argument("--references", default="data/references")
    ap.add_argument("--out", default="data/generations")
    ap.add_argument("--metrics", default="metrics/generations")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    summary = run_stage(
        args.system, load_group("generations", args.params), args.corpus, args.out,
        references=args.references, metrics_dir=args.metrics, default_measure=measure_for_config, default_locate=locate_for_config,
        executor=asdict(settings_from(ExecutorSettings, load_params(args.params).get("executor"), "executor")),
    )
    m = summary.as_metrics()
    print(f"generations {args.system}: {m['n_generated']} generated, {m['n_already_done']} already done, "
          f"{m['n_failed']} failed, of {m['n_jobs']} -> {args.out}/{args.system}.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
