"""Peak memory of ``acousticlaim measure`` against clip length (10 s, 10 min, 60 min).

Each file is synthetic speech-like audio (a voiced 140-Hz buzz with syllable-rate amplitude
modulation and pauses), written in blocks to a scratch folder outside git (``--scratch``, default
``/tmp/acousticlaim-memory``), so the 60-minute file (110 MB of 16-bit WAV) is made here
and never committed. Every measurement runs in a fresh Python process; its peak resident set size
(``ru_maxrss`` of the child, from ``os.wait4``) is reported for:

* ``measure``: the whole ``measure_file`` (every instrument, loudness and F0 contour); a file over
  two minutes is streamed in 60-s segments (``acousticlaim/instruments/long_file.py``);
* ``load``: loading the whole file with ``load_audio`` (float64, 128 kB per second), for reference;
* ``srmr``: ``load_audio`` and SRMR (fast mode) on the whole array, the instrument whose frame
  matrices once grew at ~4.7 MB per second of audio (its blocks now add a constant to ``load``).

Usage: ``python3 benchmarks/measure_memory.py [--durations 10 600 3600] [--out benchmarks/results/measure_memory.json]``;
``--code DIR`` measures another checkout (e.g. the commit before streaming) with the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import soundfile as sf

SR = 16_000
ROOT = Path(__file__).resolve().parents[1]

CHILD = {  # the order they run in, per file
    "load": "from acousticlaim.audio import load_audio; load_audio(PATH, allow_silent=True)",
    "srmr": ("from acousticlaim.audio import load_audio; from acousticlaim.instruments.srmr import srmr; "
             "x, sr = load_audio(PATH, allow_silent=True); print(srmr(x, sr).value)"),
    "measure": ("from acousticlaim.instruments.measure import measure_file; "
                "m = measure_file(PATH); print(m.readings['srmr'].value)"),
}


def write_speechlike(path: Path, seconds: float, block_s: float = 60.0) -> Path:
    """A speech-like test file written one block at a time (memory does not grow with its length)."""
    if path.exists() and sf.info(str(path)).frames == int(seconds * SR):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    with sf.SoundFile(str(path), "w", SR, 1, subtype="PCM_16") as out:
        start = 0
        total = int(seconds * SR)
        phase = 0.0
        while start < total:
            n = min(int(block_s * SR), total - start)
            t = (start + np.arange(n)) / SR
            f0 = 140 + 15 * np.sin(2 * np.pi * 0.3 * t)
            ph = phase + 2 * np.pi * np.cumsum(f0) / SR
            phase = float(ph[-1])
            voiced = sum(np.sin(k * ph) / k for k in range(1, 10))
            syllables = np.sin(2 * np.pi * 4 * t) ** 2
            pauses = (np.sin(2 * np.pi * 0.2 * t) > -0.7).astype(float)  # a pause every 5 s
            x = 0.2 * voiced * syllables * pauses + rng.normal(0, 0.002, n)
            out.write(x)
            start += n
    return path


def peak_rss_mb(what: str, path: Path, code_dir: Path = ROOT) -> tuple[float, float, str]:
    """(peak RSS in MB, seconds, stdout) of a fresh process doing ``what`` on ``path``."""
    code = CHILD[what].replace("PATH", repr(str(path)))
    env = {**os.environ, "PYTHONPATH": str(code_dir)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
                            cwd=code_dir)  # `python -c` puts the working folder first on sys.path
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"{what} on {path} failed (status {status})")
    return usage.ru_maxrss / 1024.0, time.perf_counter() - t0, out.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--durations", type=float, nargs="+", default=[10.0, 600.0, 3600.0])
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/acousticlaim-memory"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "measure_memory.json")
    parser.add_argument("--what", nargs="+", default=list(CHILD), choices=list(CHILD))
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose acousticlaim is measured")
    args = parser.parse_args(argv)
    rows = []
    for seconds in args.durations:
        path = write_speechlike(args.scratch / f"speechlike_{int(seconds)}s.wav", seconds)
        row = {"duration_s": seconds}
        for what in args.what:
            mb, wall, out = peak_rss_mb(what, path, args.code)
            row[f"{what}_peak_mb"] = round(mb, 1)
            row[f"{what}_s"] = round(wall, 1)
            if what in ("srmr", "measure"):  # the SRMR value, whole array and streamed, side by side
                row[f"{what}_srmr_value"] = float(out.splitlines()[-1])
            print(f"{seconds:7.0f} s  {what:8s} peak {mb:8.1f} MB  {wall:7.1f} s", flush=True)
        rows.append(row)
    result = {
        "rows": rows,
        "load_average": os.getloadavg(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "code": str(args.code),
        "command": "python3 benchmarks/measure_memory.py " + " ".join(argv or sys.argv[1:]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
