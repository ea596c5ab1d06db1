"""Speed of ``parse_batch`` (one thread, the released panel texts) here against an earlier commit, measured
side by side: on a shared machine whose speed drifts by tens of percent from one minute to the next, two
figures taken at different times say little, and one taken in alternation says how much faster one parser is.

The earlier commit is checked out in a temporary git worktree and its extension built there (``maturin
build``; a few minutes). Then, ``--pairs`` times, one process per side parses the texts repeated ``--repeat``
times, ``--runs`` times, and reports its best; the two sides alternate. Reported: each side's best MB/s and
the median over pairs of the speed ratio (this checkout / base), the figure to quote.

    PYTHONPATH=$PWD python3 benchmarks/parser_speed_ab.py --base 3971ac4
    PYTHONPATH=$PWD python3 benchmarks/parser_speed_ab.py --base HEAD~3 --pairs 20 --out benchmarks/results/parser_speed_ab.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from parser_speed import released_texts

ROOT = Path(__file__).resolve().parents[1]

# one side's timing: the checkout to import from, runs, repeats of the texts, the texts file
TIMER = r"""
import sys, time
root, runs, repeat, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, root)
import acousticlaim
assert acousticlaim.__file__.startswith(root), acousticlaim.__file__
from acousticlaim.claims.parser import parse_batch
texts = open(path, encoding="utf-8").read().split("\x1e") * repeat
best = float("inf")
for _ in range(runs):
    t0 = time.perf_counter()
    parse_batch(texts, threads=1)
    best = min(best, time.perf_counter() - t0)
print(best, sum(len(t.encode()) for t in texts) / 1e6)
"""


def build_extension(tree: Path) -> None:
    """Build the extension of the checkout at ``tree`` and put it beside its package."""
    with tempfile.TemporaryDirectory() as wheels:
        subprocess.run([sys.executable, "-m", "maturin", "build", "--release", "-q", "-o", wheels], cwd=tree, check=True)
        wheel = next(Path(wheels).glob("acousticlaim-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if name.startswith("acousticlaim/_parser"):
                    (tree / "acousticlaim" / Path(name).name).write_bytes(z.read(name))


def time_side(root: Path, runs: int, repeat: int, texts_file: Path) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", TIMER, str(root), str(runs), str(repeat), str(texts_file)],
        capture_output=True, text=True, check=True, cwd=tempfile.gettempdir(),
    ).stdout.split()
    return float(out[0]), float(out[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the commit to compare with (any git revision)")
    ap.add_argument("--panel", type=Path, default=ROOT.parent / "shared" / "data" / "panel_sample")
    ap.add_argument("--pairs", type=int, default=12, help="alternations of the two sides")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per process (its best is kept)")
    ap.add_argument("--repeat", type=int, default=60, help="times the texts are repeated in one run")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    texts = released_texts(a.panel)
    if not texts:
        print(f"no released panel texts under {a.panel}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), a.base], cwd=ROOT, check=True)
        try:
            print(f"building the extension at {a.base} …", file=sys.stderr)
            build_extension(tree)
            texts_file = Path(tmp) / "texts"
            texts_file.write_text("\x1e".join(texts), encoding="utf-8")
            here, base = [], []
            for k in range(a.pairs):
                b_s, mb = time_side(tree, a.runs, a.repeat, texts_file)
                h_s, _ = time_side(ROOT, a.runs, a.repeat, texts_file)
                base.append(b_s)
                here.append(h_s)
                print(f"pair {k + 1}/{a.pairs}: base {mb / b_s:.1f} MB/s, this checkout {mb / h_s:.1f} MB/s", file=sys.stderr)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    result = {
        "base": a.base,
        "texts": len(texts),
        "megabytes_per_run": round(mb, 2),
        "pairs": a.pairs,
        "runs_per_process": a.runs,
        "load_average_1_5_15min_after": [round(x, 2) for x in os.getloadavg()],
        "base_best_MB_per_s": round(mb / min(base), 1),
        "this_checkout_best_MB_per_s": round(mb / min(here), 1),
        "median_speed_ratio": round(statistics.median(b / h for b, h in zip(base, here)), 3),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
