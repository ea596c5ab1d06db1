"""DVC stage `decomposition`: frame profiles and the identification diagnostic of Fig. 2 (`decomposition:` group)."""

import argparse
from dataclasses import asdict
from functools import partial
from pathlib import Path

from acousticlaim.corpus.manifest import resolve_path
from acousticlaim.instruments.settings import overlap_settings
from acousticlaim.params import load_group
from acousticlaim.executor import fails_loudly
from acousticlaim.selective.diagnostic import decomposition_stage


@fails_loudly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--decomposition", default="data/predict/decomposition.parquet")
    ap.add_argument("--manifest", default="data/corpus/manifest.parquet")
    ap.add_argument("--out", default="data/decomposition")
    ap.add_argument("--metrics", default="metrics/decomposition.json")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    config = load_group("decomposition", args.params)
    executor = load_group("executor", args.params)
    # the F0 profile drops the overlap windows the references stage's Masked F0 dropped: its settings
    overlap = overlap_settings(load_group("references", args.params))
    resolve = partial(resolve_path, Path(args.manifest).parent)
    result = decomposition_stage(args.decomposition, args.manifest, args.out, args.metrics,
                                 config, resolve, asdict(executor), overlap)
    m = result.metrics
    print(f"decomposition: {m['mixtures']} mixtures, scored {', '.join(m['scored_quantities']) or 'none'}; "
          f"above chance {', '.join(m['above_chance']) or 'none'}; {m['profile_failures']} recorded failures -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
