"""The embedded corpus's clean twins beside the released LibriMix twins: median, quartiles, ρ.

    python3 benchmarks/corpus_vs_release.py --corpus data/corpus --references data/references \
        [--release ../shared/data/release/references/librimix_test.csv] [--split test]

Reads the corpus manifest (the talkers' generative ``syn_*`` parameters), the references stage's
table and the released reference CSV, keeps the clean twins (``_s1clean``) on both sides and prints,
for each of the ten scored quantities, our quartiles beside the released ones, whether the median
lies within 15 % and the interquartile ranges overlap by at least half of each, and Spearman's ρ of
our reading against what generated it (the talker's parameter; for SRMR the room's RT60, for SNR the
mixing draw). Then ρ of jitter, shimmer and HNR against their parameters per RT60 band of the room.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from acousticlaim.corpus.manifest import TWIN_SUFFIX, read_manifest  # noqa: E402
from acousticlaim.instruments.reference_table import read_references  # noqa: E402
from acousticlaim.quantities import SCORED_KEYS  # noqa: E402
from acousticlaim.scoring.release import read_release_references  # noqa: E402

RELEASE = Path(__file__).resolve().parents[2] / "shared" / "data" / "release" / "references" / "librimix_test.csv"
# what generated each reading of a twin (a manifest column) and the sign a faithful reading takes
GENERATOR = {
    "snr": ("snr_db", 1), "srmr": ("rt60_1", -1),
    "speaking_rate": ("syn_speaking_rate", 1), "pause_count": ("syn_pause_count_realised", 1),
    "pause_rate": ("syn_pause_rate", 1), "f0_mean": ("syn_f0_hz", 1), "f0_sd": ("syn_f0_range_st", 1),
    "jitter": ("syn_jitter_pct", 1), "shimmer": ("syn_shimmer_pct", 1), "hnr": ("syn_breathiness", -1),
}
VOICE_KEYS = ("jitter", "shimmer", "hnr")
MEDIAN_TOLERANCE = 0.15
MIN_IQR_OVERLAP = 0.5


def twin_values(references: pd.DataFrame) -> pd.DataFrame:
    """One row per twin, one column per scored quantity (undefined readings NaN)."""
    frame = references[references["clip_id"].str.endswith(TWIN_SUFFIX) & references["quantity"].isin(SCORED_KEYS)]
    values = frame["value"].where(frame["defined"].astype(bool))
    return frame.assign(value=values).pivot(index="clip_id", columns="quantity", values="value")


def quartiles(x: pd.Series) -> np.ndarray:
    return np.nanpercentile(x.to_numpy(dtype=float), [25, 50, 75])


def iqr_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """The overlap of two interquartile ranges as a share of the wider one (1 when one holds the other and
    they are as wide)."""
    overlap = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    widest = max(a[2] - a[0], b[2] - b[0])
    return overlap / widest if widest > 0 else float(a[1] == b[1])


def comparison(ours: pd.DataFrame, released: pd.DataFrame, generators: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for key in SCORED_KEYS:
        q, r = quartiles(ours[key]), quartiles(released[key])
        column, sign = GENERATOR[key]
        joined = pd.concat([ours[key], generators[column]], axis=1).dropna()
        rho = sign * spearmanr(joined.iloc[:, 0], joined.iloc[:, 1])[0] if len(joined) > 2 else float("nan")
        median_off = q[1] / r[1] - 1 if r[1] else float("nan")
        overlap = iqr_overlap(q, r)
        rows.append({
            "quantity": key, "ours_q1": q[0], "ours_median": q[1], "ours_q3": q[2],
            "released_q1": r[0], "released_median": r[1], "released_q3": r[2],
            "median_off": median_off, "iqr_overlap": overlap,
            "holds": abs(median_off) <= MEDIAN_TOLERANCE and overlap >= MIN_IQR_OVERLAP,
            "generator": column, "rho": rho,
        })
    return pd.DataFrame(rows)


def rho_by_rt60(ours: pd.DataFrame, generators: pd.DataFrame, edges=(0.0, 0.2, 0.3, 0.4, 10.0)) -> pd.DataFrame:
    frame = pd.concat([ours[list(VOICE_KEYS)], generators], axis=1)
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        band = frame[(frame["rt60_1"] >= lo) & (frame["rt60_1"] < hi)]
        row = {"rt60_band_s": f"{lo:.1f}-{hi:.1f}" if hi < 10 else f">= {lo:.1f}", "n": len(band)}
        for key in VOICE_KEYS:
            column, sign = GENERATOR[key]
            ok = band[[key, column]].dropna()
            row[f"rho_{key}"] = sign * spearmanr(ok[key], ok[column])[0] if len(ok) > 4 else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame, floats: str = "{:.3g}") -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in frame.iterrows():
        cells = [floats.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="data/corpus")
    ap.add_argument("--references", default="data/references")
    ap.add_argument("--release", default=str(RELEASE))
    ap.add_argument("--split", default="test", help="the corpus split to read (all: both)")
    args = ap.parse_args()

    manifest = read_manifest(args.corpus)
    twins = manifest[manifest["kind"] == "twin"]
    if args.split != "all":
        twins = twins[twins["split"] == args.split]
    if "syn_jitter_pct" not in twins:
        raise SystemExit(f"{args.corpus}: no synthetic generative parameters (syn_*) in the manifest")
    generators = twins.set_index("clip_id")[[c for c, _ in GENERATOR.values()]]
    ours = twin_values(read_references(args.references)).reindex(generators.index)
    released = twin_values(read_release_references(args.release, "librimix"))

    table = comparison(ours, released, generators)
    print(f"clean twins: ours {len(ours)} ({args.corpus}, split {args.split}), released {len(released)} ({args.release})\n")
    print(markdown(table.drop(columns=["generator"]).assign(
        median_off=table["median_off"].map(lambda v: f"{v:+.0%}"), iqr_overlap=table["iqr_overlap"].map(lambda v: f"{v:.2f}"),
        rho=[f"{r:+.2f} ({g})" for r, g in zip(table["rho"], table["generator"])])))
    print(f"\n{int(table['holds'].sum())}/{len(table)} quantities: median within {MEDIAN_TOLERANCE:.0%} and "
          f"interquartile ranges overlapping by at least {MIN_IQR_OVERLAP:.0%} of the wider\n")
    print("Voice readings against their generative parameter, per RT60 band of the target's room (ρ; HNR against −breathiness):\n")
    print(markdown(rho_by_rt60(ours, generators), "{:.2f}"))


if __name__ == "__main__":
    main()
