"""Speed of the full reference set on 10-s clips, and how much of it is the instruments' own floor.

Builds ``--pairs`` 10-s synthetic mixtures (two talkers, reverberation-free, pink-ish noise) with
their stems and clean twins in a temporary folder, then runs the `references` job of each
(mixture + twin) on one core, timing:

* **Praat** — every parselmouth command (``parselmouth.praat.call``: To Pitch, To PointProcess,
  To Harmonicity, To Intensity, To TextGrid (silences), the Get … queries);
* **SRMR filterbank** — the gammatone envelopes and the modulation filterbank energies;
* **Silero VAD** — the two stems' speech segments (a model forward per 32 ms);
* **decode** — reading the FLAC files.

The floor is Praat + SRMR filterbank + Silero; our own overhead is everything else (decoding
included), reported as a share of the floor (target < 15 %). Also reported: SRMR per 10-s clip in
both modes, and the projection for the default corpus (600 mixtures + 600 twins) on two cores, from
wall time and from CPU time (the two differ when other work shares the cores; the load average is
printed).

    python3 benchmarks/bench_instruments.py [--pairs 6]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")

from acousticlaim.audio import write_audio  # noqa: E402
from acousticlaim.corpus.synthetic import draw_talker, synthesize_talker  # noqa: E402
from acousticlaim.instruments import overlap, praat, references, srmr, timing  # noqa: E402

SR = 16_000
DURATION_S = 10.0

spent: dict[str, float] = defaultdict(float)


def _timed(name, fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t0

    return wrapper


def instrument_timers() -> None:
    """Wrap the library entry points (module attributes the readers look up at call time)."""
    praat.call = _timed("praat", praat.call)
    timing.call = _timed("praat", timing.call)
    srmr._modulation_energy_mean = _timed("srmr_filterbank", srmr._modulation_energy_mean)
    overlap.speech_segments = _timed("silero_vad", overlap.speech_segments)
    references.load_audio = _timed("decode", references.load_audio)


def make_corpus(root: Path, pairs: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(pairs):
        t1, t2 = draw_talker(rng, f"a{i}"), draw_talker(rng, f"b{i}")
        s1 = synthesize_talker(t1, DURATION_S, seed=2 * i).waveform
        s2 = 0.8 * synthesize_talker(t2, DURATION_S, seed=2 * i + 1).waveform
        noise = rng.normal(0, 0.01, s1.size)
        mix_id = f"{1000 + i}-0-0000_{2000 + i}-0-0000"
        stem = root / "stems" / mix_id
        paths = {
            "s1_path": write_audio(stem / "s1.flac", s1), "s2_path": write_audio(stem / "s2.flac", s2),
            "noise_path": write_audio(stem / "noise.flac", noise),
            "audio_path": write_audio(root / "audio" / f"{mix_id}.flac", s1 + s2 + noise),
        }
        rel = {k: str(v.relative_to(root)) for k, v in paths.items()}
        common = {"corpus": "librimix", "split": "test", "mixture_id": mix_id, "overlap_fraction": 0.5,
                  "s1_path": rel["s1_path"], "s2_path": rel["s2_path"], "noise_path": rel["noise_path"]}
        rows.append({**common, "clip_id": mix_id, "kind": "mixture", "audio_path": rel["audio_path"]})
        rows.append({**common, "clip_id": f"{mix_id}_s1clean", "kind": "twin", "audio_path": rel["s1_path"]})
    return pd.DataFrame(rows)


def bench_srmr(x: np.ndarray, repeats: int = 3) -> dict[str, float]:
    out = {}
    for fast in (True, False):
        best = float("inf")
        for _ in range(repeats if fast else 1):
            t0 = time.perf_counter()
            srmr.srmr(x, SR, fast=fast)
            best = min(best, time.perf_counter() - t0)
        out["fast" if fast else "normal"] = best
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=6, help="10-s mixtures (each with its twin) to time")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        manifest = make_corpus(root, args.pairs)
        jobs = references.plan_jobs(manifest, root, {})
        references.reference_job(jobs[0])  # warm-up: Silero's JIT, gammatone weights, imports
        srmr_times = bench_srmr(synthesize_talker(draw_talker(np.random.default_rng(9), "x"), DURATION_S, 9).waveform)
        instrument_timers()
        spent.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        results = [references.reference_job(job) for job in jobs]
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert all(not r["failures"] for r in results), [r["failures"] for r in results]

    clips = 2 * args.pairs
    floor = spent["praat"] + spent["srmr_filterbank"] + spent["silero_vad"]
    overhead = total - floor
    per_pair = total / args.pairs
    report = {
        "clips": clips,
        "clip_seconds": DURATION_S,
        "single_core_seconds": round(total, 3),
        "clips_per_second_per_core": round(clips / total, 3),
        "seconds_per_mixture_plus_twin": round(per_pair, 3),
        "share_of_time": {k: round(v / total, 3) for k, v in sorted(spent.items())},
        "floor_seconds": round(floor, 3),
        "own_overhead_seconds": round(overhead, 3),
        "own_overhead_share_of_floor": round(overhead / floor, 3),
        "srmr_seconds_per_10s_clip": {k: round(v, 4) for k, v in srmr_times.items()},
        "single_core_cpu_seconds": round(cpu, 3),
        "projection_default_corpus_600_pairs_two_cores_s": round(600 * per_pair / 2, 1),
        # on a shared, loaded machine wall time counts other people's work; CPU time is what an idle core needs
        "projection_from_cpu_time_s": round(600 * (cpu / args.pairs) / 2, 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
