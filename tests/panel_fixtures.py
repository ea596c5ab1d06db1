"""A few-clip corpus manifest, references table and measure function that the panel tests write themselves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from acousticlaim.audio import write_audio
from acousticlaim.corpus.manifest import MANIFEST_NAME, twin_id
from acousticlaim.quantities import SCORED_KEYS

SR = 16_000


def write_tiny_corpus(root: Path, n_test: int = 6, n_train: int = 4, n_ami: int = 0, seconds: float = 1.0) -> pd.DataFrame:
    """Mixtures (with their twins) in train and test, optionally AMI clips; 1-s FLACs; returns the manifest."""
    rng = np.random.default_rng(0)
    t = np.arange(int(seconds * SR)) / SR
    rows = []

    def clip(clip_id, corpus, split, kind, mixture_id=None):
        f0 = 100 + 10 * len(rows)
        wave = 0.2 * np.sin(2 * np.pi * f0 * t) + 0.01 * rng.standard_normal(t.size)
        rel = f"audio/{clip_id}.flac"
        write_audio(root / rel, wave)
        rows.append({"clip_id": clip_id, "corpus": corpus, "source": "synthetic", "split": split, "kind": kind,
                     "mixture_id": mixture_id, "audio_path": rel, "duration_s": seconds})

    for split, n in (("train", n_train), ("test", n_test)):
        for i in range(n):
            mix = f"{split}{i:02d}-1-0001_{split}{i:02d}-2-0002"
            clip(mix, "librimix", split, "mixture")
            clip(twin_id(mix), "librimix", split, "twin", mix)
    for i in range(n_ami):
        clip(f"AMI_ES20{i:02d}a_sdm_000000_001000", "ami", "test", "clip")
    manifest = pd.DataFrame(rows)
    manifest.to_parquet(root / MANIFEST_NAME, index=False)
    return manifest


def write_references(path: Path, manifest: pd.DataFrame, value_of) -> pd.DataFrame:
    """A long references table: value_of(clip_index, quantity) for every clip and scored quantity."""
    rows = []
    for i, clip_id in enumerate(manifest["clip_id"]):
        for q in SCORED_KEYS:
            v = value_of(i, q)
            rows.append({"clip_id": clip_id, "quantity": q, "value": v, "defined": bool(np.isfinite(v)),
                         "reason": "" if np.isfinite(v) else "undefined", "tier": "exact", "signal": "mixture",
                         "half1": np.nan, "half2": np.nan})
    frame = pd.DataFrame(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path, index=False)
    return frame


def rms_measure(waveform: np.ndarray, sr: int) -> dict[str, float]:
    """A stand-in measure function with known answers: SNR = 20·log10(RMS·100), F0 mean = dominant frequency."""
    spectrum = np.abs(np.fft.rfft(waveform))
    f0 = float(np.fft.rfftfreq(waveform.size, 1 / sr)[np.argmax(spectrum)])
    rms = float(np.sqrt(np.mean(waveform ** 2)))
    return {"snr": 20 * np.log10(rms * 100), "f0_mean": f0, "srmr": float("nan"), "pause_count": 2.0}


def kill_after_lines(cmd: list[str], store: Path, lines: int, env: dict, timeout_s: float = 60.0) -> None:
    """Run ``cmd`` and SIGKILL it once ``store`` holds ``lines`` lines (a generation run killed halfway)."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(cmd, env=env)
    try:
        deadline = time.time() + timeout_s
        while time.time() < deadline and proc.poll() is None:
            if store.exists() and store.read_bytes().count(b"\n") >= lines:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
