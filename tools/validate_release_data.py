"""Checks on the paper's released data alone (no project code): the relations its columns were read with.

Run beside the shared folder: ``python3 tools/validate_release_data.py`` (or ``--release PATH``). Exit 0 when
every check holds, 1 naming the ones that fail. These are facts about the release, not about this code,
so they live here rather than in the test suite; the instrument tests check our timing against the same
definitions (SPEC §1: speaking rate = syllable nuclei / stem duration, pause rate = pauses per minute).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def default_release() -> Path:
    """``shared/data/release`` in the first parent folder of the checkout that has one."""
    for parent in ROOT.parents:
        if (parent / "shared" / "data" / "release").is_dir():
            return parent / "shared" / "data" / "release"
    return ROOT.parent / "shared" / "data" / "release"


def timing_checks(release: Path) -> dict[str, bool]:
    """The released LibriMix references' timing columns obey their definitions."""
    refs = pd.read_csv(release / "references" / "librimix_test.csv")
    manifest = pd.read_csv(release / "manifests" / "libri2mix_test_mixtures.csv")
    refs["mixture_ID"] = refs.filename.str.replace(".wav", "", regex=False).str.replace("_s1clean", "", regex=False)
    refs = refs.merge(manifest[["mixture_ID", "length"]], on="mixture_ID", validate="many_to_one")
    duration = refs.length / 16000
    nuclei = refs.praat_speaking_rate_syl_sec * duration
    # the timing is read on the target stem: mixtures sharing s1 (and its length) share their timing
    by_s1 = refs[~refs.filename.str.contains("s1clean")].assign(s1=lambda f: f.mixture_ID.str.split("_").str[0])
    spread = by_s1.groupby("s1").agg(n=("length", "size"), lengths=("length", "nunique"),
                                     rates=("praat_speaking_rate_syl_sec", "nunique"))
    shared = spread[(spread.n > 1) & (spread.lengths == 1)]
    return {
        "pause rate = pause count per minute of the stem": bool(
            np.allclose(refs.praat_pause_count * 60 / duration, refs.praat_pause_rate_per_min, atol=5e-4)),
        "a whole number of syllable nuclei over the whole stem": bool(np.allclose(nuclei, nuclei.round(), atol=0.01)),
        "articulation rate >= speaking rate": bool(
            (refs.praat_articulation_rate_syl_sec >= refs.praat_speaking_rate_syl_sec - 1e-3).all()),
        "mixtures sharing a target stem share its timing": bool(len(shared) > 0 and (shared.rates == 1).all()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", type=Path, default=None, help="the release folder (references/, manifests/)")
    args = ap.parse_args(argv)
    release = args.release or default_release()
    if not (release / "references").is_dir():
        print(f"{release}: no references/ folder here (give the release folder with --release)", file=sys.stderr)
        return 2
    results = timing_checks(release)
    for name, ok in results.items():
        print(f"{'ok  ' if ok else 'FAIL'}  {name}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
