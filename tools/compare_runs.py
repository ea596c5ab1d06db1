"""Compare what two `dvc repro` runs left (two project copies): tables, metrics, reports and plot data.

    python3 tools/compare_runs.py BEFORE_DIR AFTER_DIR

Parquet tables are compared after sorting by their text columns (row order is not a result), metrics JSON
figure by figure (timings left out), reports and plot CSVs byte for byte. Exit 0 when everything is the same.
"""
import json, sys
from pathlib import Path
import numpy as np
import pandas as pd
A, B = Path(sys.argv[1]), Path(sys.argv[2])
ok = True
def report(name, same, detail=""):
    global ok
    ok &= same
    print(("same " if same else "DIFF ") + name + (f"  {detail}" if detail else ""))

def frames(rel, keys=None):
    a, b = pd.read_parquet(A / rel), pd.read_parquet(B / rel)
    cols = sorted(set(a.columns) & set(b.columns))
    extra = (set(a.columns) ^ set(b.columns))
    a, b = a[cols], b[cols]
    keys = keys or [c for c in ("clip_id", "system", "corpus", "rung", "seed", "train_seed", "quantity") if c in cols]
    a = a.sort_values(keys).reset_index(drop=True); b = b.sort_values(keys).reset_index(drop=True)
    try:
        pd.testing.assert_frame_equal(a, b, check_dtype=False, check_categorical=False, rtol=1e-9, atol=1e-12)
        report(rel, True, f"{len(a)} rows" + (f"; columns only on one side: {sorted(extra)}" if extra else ""))
    except AssertionError as e:
        report(rel, False, str(e).splitlines()[0:6])

def flat(d, p=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, f"{p}.{k}" if p else k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flat(v, f"{p}[{i}]"))
    else:
        out[p] = d
    return out

def jsons(rel, ignore=("seconds", "time", "per_second", "wall", "_s_", "elapsed", "speed")):
    a, b = flat(json.loads((A / rel).read_text())), flat(json.loads((B / rel).read_text()))
    diffs = []
    for k in sorted(set(a) | set(b)):
        if any(w in k for w in ignore):
            continue
        x, y = a.get(k, "<absent>"), b.get(k, "<absent>")
        if isinstance(x, float) and isinstance(y, float):
            if not (np.isclose(x, y, rtol=1e-9, atol=1e-12) or (np.isnan(x) and np.isnan(y))):
                diffs.append((k, x, y))
        elif x != y:
            diffs.append((k, x, y))
    report(rel, not diffs, f"{len(a)} figures" if not diffs else str(diffs[:8]))

for rel in ["data/corpus/manifest.parquet", "data/references/references.parquet", "data/references/overlap.parquet",
            "data/claims/claims.parquet", "data/claims/generations.parquet", "data/predict/predictions.parquet",
            "data/scores/cells.parquet", "data/calibrate/risk_summary.parquet"]:
    if (A / rel).exists() and (B / rel).exists():
        frames(rel)
    else:
        report(rel, False, "missing")
for p in sorted((A / "metrics").rglob("*.json")):
    rel = p.relative_to(A).as_posix()
    if (B / rel).exists():
        jsons(rel)
    else:
        report(rel, False, "missing in head")
for rel in ["reports/table1.md", "reports/table2.md", "reports/table1.csv", "reports/table2.csv",
            "plots/fig3_risk_coverage.csv", "plots/fig2_decomposition.csv", "plots/withholding.csv"]:
    same = (A / rel).exists() and (B / rel).exists() and (A / rel).read_bytes() == (B / rel).read_bytes()
    report(rel, same)
print("ALL SAME" if ok else "DIFFERENCES")
sys.exit(0 if ok else 1)
