"""Noise: recordings from a directory, or generated noise (RSA-Bench scenes are :mod:`.scenes`).

Generated noise comes in five colours, each a pure function of a seed: ``white``; ``pink`` (1/f);
``brown`` (1/f²); ``hum`` (mains harmonics over a pink floor); ``babble`` (pink noise under a slow
random amplitude modulation at syllable rates, a crowd-like texture).

A recording is read with the project's loader and looped to length, ``w[n mod M]``, from a random
offset.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.signal import lfilter

from acousticlaim.audio import TARGET_SR, load_audio

NOISE_KINDS = ("white", "pink", "brown", "hum", "babble")
NOISE_SUFFIXES = (".wav", ".flac")


def _pink(n: int, rng: np.random.Generator) -> np.ndarray:
    # Paul Kellet's economy pink filter approximated by a 3-pole IIR
    b = [0.049922035, -0.095993537, 0.050612699, -0.004408786]
    a = [1, -2.494956002, 2.017265875, -0.522189400]
    return lfilter(b, a, rng.standard_normal(n + 2000))[2000:]


def generate_noise(kind: str, n: int, seed: int, sr: int = TARGET_SR) -> np.ndarray:
    """``n`` samples of generated noise of ``kind``, unit RMS."""
    rng = np.random.default_rng(seed)
    if kind == "white":
        x = rng.standard_normal(n)
    elif kind == "pink":
        x = _pink(n, rng)
    elif kind == "brown":
        x = lfilter([1.0], [1.0, -0.995], rng.standard_normal(n))
        x -= x.mean()
    elif kind == "hum":
        t = np.arange(n) / sr
        mains = rng.choice([50.0, 60.0])
        x = sum(rng.uniform(0.3, 1.0) / k * np.sin(2 * np.pi * mains * k * t + rng.uniform(0, 2 * np.pi))
                for k in range(1, 8))
        x = x / np.std(x) + 0.3 * _pink(n, rng) / np.std(_pink(n, rng))
    elif kind == "babble":
        env_knots = rng.uniform(0.2, 1.0, size=max(2, int(n / sr * 5) + 2))
        env = np.interp(np.arange(n), np.linspace(0, n, env_knots.size), env_knots)
        x = _pink(n, rng) * env
    else:
        raise ValueError(f"unknown noise kind {kind!r}; known: {', '.join(NOISE_KINDS)}")
    return x / (np.std(x) + 1e-12)


def noise_files(noise_dir: str | Path) -> list[str]:
    noise_dir = Path(noise_dir)
    if not noise_dir.is_dir():
        raise FileNotFoundError(f"corpus.noise_dir {noise_dir}: not a directory")
    files = sorted(str(p) for p in noise_dir.rglob("*") if p.suffix.lower() in NOISE_SUFFIXES)
    if not files:
        raise FileNotFoundError(f"corpus.noise_dir {noise_dir}: no .wav/.flac noise recordings")
    return files


@lru_cache(maxsize=64)
def _load_noise(path: str) -> np.ndarray:
    return load_audio(path)[0]


def loop_to_length(w: np.ndarray, n: int, offset: int = 0) -> np.ndarray:
    """``w̃[i] = w[(i + offset) mod M]`` for i < n (RSA-Bench Step 2)."""
    return w[(np.arange(n) + offset) % w.size]


def noise_source(spec: str, n: int, seed: int) -> np.ndarray:
    """Unit-RMS noise for a source spec: ``gen:<kind>`` or a file path (looped from a random offset)."""
    if spec.startswith("gen:"):
        return generate_noise(spec[4:], n, seed)
    w = _load_noise(spec)
    rng = np.random.default_rng(seed)
    x = loop_to_length(w, n, int(rng.integers(w.size)))
    return x / (np.std(x) + 1e-12)


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x))))
