"""Differential check of the claim parser against an earlier commit: same texts, same claims?

For work on the parser that must not change what it reads (speed work, refactors), this builds the
``parse_records`` example of ``parser_rs`` at ``--base`` (in a temporary git worktree) and in this
checkout, runs both over the same texts and compares their output line by line (record index,
quantity, value, unit, span as written, flags). The texts:

* the labelled development and held-out sets (``tests/data/*_labels.jsonl``),
* the released panel generations in ``../shared/data/panel_sample`` (when present),
* ``--synthetic`` generations made as ``benchmarks/parser_speed.py`` makes them,
* ``--random`` strings drawn from the characters the parser treats specially, and ``--random``
  dev-set texts with a few characters inserted, deleted or changed (seeded: the same every run).

    python3 tools/parser_differential.py --base 5ce3343
    python3 tools/parser_differential.py --base HEAD~3 --synthetic 100000

Texts are compared claim by claim (as sets per text): it prints how many texts read differently, by
source, the claims only one side reads, by quantity, and the first differing texts with both sides.
Exit status 0 when every text reads the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD_SEPARATOR = "\x1e"
TRUNCATED_MARK = "\x1f"  # parse_records reads a text that starts with it as cut at the token cap

SPECIAL = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_*#|/%()[]{}<>'\"\\\n\t~+=$")
    + list("–—−±≈∼≤≥…“”’×•→₀₁µμéÉßÖ\u00a0\u2028ł漠")
    + ["SNR", "F0", "dB", "Hz", "pauses", "jitter", " is ", "10", "3.5", "1,411", "00:01", " per minute",
       "F_0", "F_{0}", "e.g.", "TheSNR", "F0Mean", "[value]", "___", "no pauses", "twenty-five", "%", "kHz"]
)


def labelled_texts() -> list[str]:
    out = []
    for name in ("dev_labels.jsonl", "heldout_labels.jsonl"):
        with (ROOT / "tests/data" / name).open(encoding="utf-8") as fh:
            out += [json.loads(line)["text"] for line in fh if line.strip()]
    return out


def panel_texts() -> list[str]:
    from acousticlaim.panel.importing import read_generations

    folder = ROOT.parent / "shared/data/panel_sample"
    out = []
    for path in sorted(folder.glob("*_seed*.json")):
        _, records = read_generations(path, path.stem.split("_")[0])
        out += [r.text for r in records]
    return out


def synthetic_texts(n: int) -> list[str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import parser_speed

    if n <= 0:
        return []
    templates = parser_speed.templates(ROOT / "tests/data/dev_labels.jsonl")
    return parser_speed.synthesise(templates, n).to_pylist()


def random_texts(n: int, base: list[str], seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = ["".join(rng.choice(SPECIAL) for _ in range(rng.randint(0, 80))) for _ in range(n)]
    for _ in range(n):
        t = list(rng.choice(base))
        for _ in range(rng.randint(1, 6)):
            if not t:
                break
            k, op = rng.randrange(len(t)), rng.random()
            if op < 0.3:
                del t[k]
            elif op < 0.6:
                t.insert(k, rng.choice(SPECIAL))
            else:
                t[k] = t[k].upper() if rng.random() < 0.5 else rng.choice(SPECIAL)
        out.append("".join(t))
    return out


def build_parse_records(crate: Path, target: Path) -> Path:
    """Build the parse_records example of the crate at ``crate`` into ``target``; its path."""
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--no-default-features", "--example", "parse_records",
         "--manifest-path", str(crate / "Cargo.toml")],
        check=True, env={**os.environ, "CARGO_TARGET_DIR": str(target)},
    )
    return target / "release/examples/parse_records"


def run(binary: Path, corpus: bytes) -> list[str]:
    done = subprocess.run([str(binary)], input=corpus, capture_output=True, check=True)
    return done.stdout.decode("utf-8").splitlines()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the commit to compare with (any git revision)")
    ap.add_argument("--synthetic", type=int, default=20_000, help="synthetic benchmark generations to add")
    ap.add_argument("--random", type=int, default=20_000, help="random strings, and as many mutated dev texts")
    ap.add_argument("--show", type=int, default=10, help="differences to print")
    a = ap.parse_args(argv)

    base_texts = labelled_texts()
    texts_panel = panel_texts()
    texts = base_texts + texts_panel + synthetic_texts(a.synthetic) + random_texts(a.random, base_texts)
    # the separators are the records' framing: they may not stand inside a text
    texts = [t.replace(RECORD_SEPARATOR, " ").replace(TRUNCATED_MARK, " ") for t in texts]
    corpus = RECORD_SEPARATOR.join(texts).encode("utf-8", "replace")
    print(f"{len(texts):,} texts, {len(corpus) / 1e6:.1f} MB", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="parser-diff-") as tmp:
        tmp = Path(tmp)
        worktree = tmp / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(worktree), a.base], check=True)
        try:
            old = run(build_parse_records(worktree / "parser_rs", tmp / "target-base"), corpus)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
        new = run(build_parse_records(ROOT / "parser_rs", tmp / "target-here"), corpus)

    def by_record(lines: list[str]) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {}
        for line in lines:
            k, _, rest = line.partition("\t")
            out.setdefault(int(k), set()).add(rest)
        return out

    old_r, new_r = by_record(old), by_record(new)
    sources = [("labelled", len(base_texts)), ("panel", len(texts_panel)), ("synthetic", a.synthetic), ("random", 2 * a.random)]
    bounds, at = [], 0
    for name, n in sources:
        bounds.append((name, at, at + n))
        at += n
    source_of = lambda k: next((name for name, lo, hi in bounds if lo <= k < hi), "?")
    diffs = []
    only_base: Counter = Counter()
    only_here: Counter = Counter()
    per_source: Counter = Counter()
    for k in sorted(set(old_r) | set(new_r)):
        o, n = old_r.get(k, set()), new_r.get(k, set())
        if o != n:
            diffs.append((k, sorted(o - n), sorted(n - o)))
            per_source[source_of(k)] += 1
            only_base.update(x.split("\t")[0] for x in o - n)
            only_here.update(x.split("\t")[0] for x in n - o)
    print(f"base {a.base}: {len(old):,} claims; this checkout: {len(new):,} claims; {len(diffs)} texts read differently")
    if diffs:
        print("texts that differ, by source: " + ", ".join(f"{k} {v}" for k, v in per_source.most_common()))
        print("claims only at base, by quantity: " + ", ".join(f"{k} {v}" for k, v in only_base.most_common()))
        print("claims only here, by quantity: " + ", ".join(f"{k} {v}" for k, v in only_here.most_common()))
    for k, gone, came in diffs[: a.show]:
        print(f"text {k} ({source_of(k)}): {texts[k][:200]!r}")
        for x in gone:
            print(f"  base only: {x}")
        for x in came:
            print(f"  here only: {x}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
