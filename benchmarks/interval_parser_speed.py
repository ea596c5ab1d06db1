"""Speed of the interval-claim reader (``acousticlaim.claims.intervals.parse_intervals_batch``) beside the
quantity parser (``parse_batch``) on the same texts: MB/s and texts/s, one thread and all cores.

The texts are the released panel generations (``../shared/data/panel_sample``, 3,000 real texts of the five
systems at the five rungs) repeated ``--times`` times. Each timing is repeated ``--repeats`` times; the best run
is reported beside the median (other tenants of a shared machine only ever slow a run down), with the load
average at the start.

    PYTHONPATH=$PWD python3 benchmarks/interval_parser_speed.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acousticlaim.claims.intervals import parse_intervals_batch  # noqa: E402
from acousticlaim.claims.parser import parse_batch  # noqa: E402


def panel_texts(shared: Path) -> list[str]:
    texts = []
    for f in sorted((shared / "data" / "panel_sample").glob("*_seed0.json")):
        for rungs in json.loads(f.read_text())["results"].values():
            for rung in rungs.values():
                texts += [g["text"] for g in rung["generations"]]
    if not texts:
        raise SystemExit(f"no panel generations under {shared / 'data' / 'panel_sample'}")
    return texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get("ACOUSTICLAIM_SHARED", ROOT.parent / "shared")))
    ap.add_argument("--times", type=int, default=20, help="repetitions of the 3,000 panel texts")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    texts = panel_texts(args.shared) * args.times
    mb = sum(len(t.encode()) for t in texts) / 1e6
    out = {"texts": len(texts), "megabytes": round(mb, 2), "load_average": os.getloadavg()[0], "runs": []}
    readers = {"intervals": lambda th: parse_intervals_batch(texts, threads=th),
               "quantities": lambda th: parse_batch(texts, threads=th)}
    for name, read in readers.items():
        for threads in (1, None):
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                read(threads)
                times.append(time.perf_counter() - t)
            best, median = min(times), statistics.median(times)
            out["runs"].append({"reader": name, "threads": threads or os.cpu_count(), "best_s": round(best, 4),
                                "median_s": round(median, 4), "mb_per_s": round(mb / best, 1),
                                "texts_per_s": round(len(texts) / best)})
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
