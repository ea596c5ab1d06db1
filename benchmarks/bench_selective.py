"""Wall time of the withholding computation (the `calibrate` stage) and of the frame profiles (the
`decomposition` stage) at the paper's scale.

    python3 benchmarks/bench_selective.py [--mixtures 3000] [--features 1536] [--seeds 1] [--bootstrap 1000]
                                          [--profile-clips 20]

The calibrate part runs on constructed prediction tables (tests/selective_fixtures.py): N test mixtures and
their twins, ten quantities, the given training seeds, a feature matrix of the given width (1536 = WavLM-base
mean + s.d. pooled); the default calib: parameters otherwise. The decomposition part times the frame
profiles of 10-s constructed clips on one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")

import numpy as np  # noqa: E402

from acousticlaim.audio import write_audio  # noqa: E402
from acousticlaim.selective.frame_profiles import ProfileJob, clip_profiles  # noqa: E402
from acousticlaim.selective.slots import build_slots  # noqa: E402
from acousticlaim.selective.withholding import WithholdingConfig, run_withholding  # noqa: E402
from tests.selective_fixtures import constructed_tables, voiced_burst_audio  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mixtures", type=int, default=3000)
    ap.add_argument("--features", type=int, default=1536)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--profile-clips", type=int, default=20)
    args = ap.parse_args()

    predictions, references, manifest, features = constructed_tables(
        args.mixtures, train_seeds=tuple(range(args.seeds)), n_features=args.features, twin_scale=0.5)
    slots = build_slots(predictions, references, manifest)
    cfg = WithholdingConfig(bootstrap=args.bootstrap)
    t0, c0 = time.perf_counter(), time.process_time()
    result = run_withholding(slots, features, cfg)
    t_cal, c_cal = time.perf_counter() - t0, time.process_time() - c0
    print(f"calibrate: {args.mixtures} mixtures + twins, 10 quantities, {args.seeds} seed(s), {args.features} features,"
          f" bootstrap {args.bootstrap}: {t_cal:.1f} s wall, {c_cal:.1f} s CPU ({len(result.selection):,} selection rows)")

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for i in range(args.profile_clips):
            paths, sources = {}, {}
            for name, x in (("s1", voiced_burst_audio([(0.5, 3.0), (4.0, 7.5), (8.0, 9.5)], 10.0, rng)),
                            ("s2", voiced_burst_audio([(1.0, 6.0)], 10.0, rng)), ("noise", 0.003 * rng.normal(size=160_000))):
                sources[name] = x
                paths[name] = str(write_audio(Path(tmp) / f"c{i}_{name}.flac", x))
            paths["mix"] = str(write_audio(Path(tmp) / f"c{i}_mix.flac", sum(sources.values())))
            jobs.append(ProfileJob(f"c{i}", paths["mix"], paths["s1"], paths["s2"], paths["noise"], 63, 0.16))
        t0, c0 = time.perf_counter(), time.process_time()
        for job in jobs:
            clip_profiles(job)
        t_prof = (time.perf_counter() - t0) / len(jobs)
        c_prof = (time.process_time() - c0) / len(jobs)
    print(f"decomposition: frame profiles {1000 * t_prof:.0f} ms wall, {1000 * c_prof:.0f} ms CPU per 10-s clip, one process")


if __name__ == "__main__":
    main()
