"""Mixtures per second for the corpus builder: synthetic talkers and the Libri2Mix (LibriSpeech) path.

    python3 benchmarks/bench_corpus.py [--mixtures 40] [--workers 2]

Builds a fresh corpus of N test mixtures (each with its twin and stems) into a temporary folder with
the default parameters, timing the mixing jobs alone (the room bank of the default 40 simulated rooms
is built once beforehand, timed separately, and shared by both paths). The LibriSpeech path reads a LibriSpeech-layout folder of synthetic utterances
written once before timing, so it measures decode + reverberation + mixing + writing.
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

import yaml  # noqa: E402

from acousticlaim.corpus import build  # noqa: E402
from tests.corpus_fixtures import write_librispeech_fixture  # noqa: E402


def timed_build(cfg: dict, rooms: dict, out: Path, workers: int) -> tuple[float, int]:
    planner = build.plan_synthetic if cfg["source"] == "synthetic" else build.plan_librispeech
    jobs = planner(cfg, rooms, [], out)
    t0 = time.perf_counter()
    results = build.map_clips(build.run_job, jobs, executor={"kind": "local", "workers": workers}, label="bench")
    t_mix = time.perf_counter() - t0
    assert not any(r["failures"] for r in results)
    return t_mix, len(jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mixtures", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    base = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())["corpus"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        syn = {**base, "n_train": 0, "n_test": args.mixtures}
        t0 = time.perf_counter()
        bank = build.room_bank(syn, tmp / "rooms", {"kind": "local", "workers": args.workers})
        t_rooms = time.perf_counter() - t0
        rooms: dict = {}
        for r in bank:
            rooms.setdefault(r["room_id"], []).append(r)
        t_mix, n = timed_build(syn, rooms, tmp / "syn", args.workers)
        print(f"room bank ({base['n_rooms']} simulated rooms): {t_rooms:.1f} s")
        print(f"synthetic:   {n} mixtures in {t_mix:.1f} s = {n / t_mix:.2f} mixtures/s on {args.workers} workers")
        root = write_librispeech_fixture(tmp / "LS", {"test-clean": 10}, utts_per_speaker=max(2, args.mixtures // 5),
                                        duration_s=(10.0, 15.0))  # LibriSpeech-like utterance lengths
        ls_cfg = {**base, "source": "librispeech", "librispeech_dir": str(root), "n_train": 0, "n_test": args.mixtures}
        t_mix, n = timed_build(ls_cfg, rooms, tmp / "ls", args.workers)
        print(f"librispeech: {n} mixtures in {t_mix:.1f} s = {n / t_mix:.2f} mixtures/s on {args.workers} workers")


if __name__ == "__main__":
    main()
