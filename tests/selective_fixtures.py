"""Constructed prediction tables with known selective behaviour, for the withholding tests.

Each test mixture ``m0007_x`` has a clean twin ``m0007_x_s1clean``. For every slot the reference system's
error has a known scale ``sigma``: its log-variance ``s`` is ``log sigma**2`` (an informative head) or drawn
independently of ``sigma`` (a head that is pure noise). The matched ridge's error scale is a known linear
function of the clip's features, so a residual ridge can learn it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.quantities import SCORED_KEYS


def constructed_tables(
    n_mixtures: int = 300,
    *,
    informative: bool = True,
    seed: int = 0,
    train_seeds: tuple[int, ...] = (0,),
    twin_scale: float = 1.0,
    n_features: int = 6,
    quantities: tuple[str, ...] = SCORED_KEYS,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(predictions, references, manifest, features)`` in the interface schemas of HELPERS.md.

    ``twin_scale`` multiplies the error scale on twins (below 1: twins are easier, so the head is surer there).
    """
    rng = np.random.default_rng(seed)
    mixtures = [f"m{i:04d}_x" for i in range(n_mixtures)]
    clips = mixtures + [m + "_s1clean" for m in mixtures]
    kinds = ["mixture"] * n_mixtures + ["twin"] * n_mixtures
    speakers = [f"spk{i % 40:02d}" for i in range(n_mixtures)] * 2
    feats = rng.normal(size=(len(clips), n_features))
    features = pd.DataFrame(feats, columns=[f"f{j}" for j in range(n_features)])
    features.insert(0, "clip_id", clips)
    manifest = pd.DataFrame({
        "clip_id": clips, "kind": kinds, "split": "test",
        "mixture_id": [None] * n_mixtures + mixtures, "speaker_1": speakers,
    })

    ref_rows, pred_rows = [], []
    scale_of_kind = np.array([1.0] * n_mixtures + [twin_scale] * n_mixtures)
    for q in quantities:
        reference = rng.normal(10.0, 3.0, len(clips))
        ref_rows.append(pd.DataFrame({
            "clip_id": clips, "quantity": q, "value": reference, "defined": True, "reason": "",
            "tier": "exact", "signal": "mixture", "half1": np.nan, "half2": np.nan,
        }))
        ridge_sigma = np.exp(0.8 * feats[:, 0] - 0.5 * feats[:, 1]) * scale_of_kind
        ridge_value = reference + ridge_sigma * rng.normal(size=len(clips))
        for ts in train_seeds:
            sigma = np.exp(rng.normal(0.0, 0.8, len(clips))) * scale_of_kind
            value = reference + sigma * rng.normal(size=len(clips))
            s = np.log(sigma**2) if informative else rng.normal(0.0, 1.6, len(clips))
            pred_rows.append(pd.DataFrame({
                "system": "reference", "train_seed": ts, "clip_id": clips, "split": "test", "kind": kinds,
                "quantity": q, "value": value, "logvar": s,
            }))
            pred_rows.append(pd.DataFrame({
                "system": "ridge", "train_seed": ts, "clip_id": clips, "split": "test", "kind": kinds,
                "quantity": q, "value": ridge_value, "logvar": np.nan,
            }))
    return pd.concat(pred_rows, ignore_index=True), pd.concat(ref_rows, ignore_index=True), manifest, features


SR = 16_000
TOKEN_S = 0.16


def voiced_burst_audio(onsets: list[tuple[float, float]], duration_s: float, rng: np.random.Generator) -> np.ndarray:
    """A 150-Hz harmonic voice on the given (start, end) intervals, near-silence elsewhere."""
    t = np.arange(int(duration_s * SR)) / SR
    voice = sum(np.sin(2 * np.pi * (140 + 20 * rng.random()) * h * t) / h for h in range(1, 6))
    on = np.zeros(t.size, dtype=bool)
    for a, b in onsets:
        on |= (t >= a) & (t < b)
    return 0.1 * voice * on + 1e-5 * rng.normal(size=t.size)


def constructed_corpus(
    root, n_mixtures: int = 24, *, duration_s: float = 3.2, seed: int = 0,
    informative: tuple[str, ...] = ("f0_mean", "jitter", "hnr"), train_seeds: tuple[int, ...] = (0,),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Test mixtures with stems on disk and a decomposition whose ``informative`` quantities follow the
    voiced frames of the target stem; every other quantity's terms are noise. Returns (manifest, decomposition)."""
    from pathlib import Path

    from acousticlaim.audio import write_audio

    root = Path(root)
    rng = np.random.default_rng(seed)
    n_tokens = int(round(duration_s / TOKEN_S))
    rows, dec = [], []
    for i in range(n_mixtures):
        mix = f"m{i:03d}_x"
        bursts, start = [], 0.1 + 0.3 * rng.random()
        while start < duration_s - 0.4:
            length = 0.3 + 0.6 * rng.random()
            bursts.append((start, min(start + length, duration_s - 0.1)))
            start += length + 0.35 + 0.5 * rng.random()
        s1 = voiced_burst_audio(bursts, duration_s, rng)
        s2 = voiced_burst_audio([(0.5, 1.0)], duration_s, rng) * 0.5
        noise = 0.003 * rng.normal(size=s1.size)
        for name, x in (("s1", s1), ("s2", s2), ("noise", noise)):
            write_audio(root / "stems" / f"{mix}_{name}.flac", x)
        write_audio(root / "audio" / f"{mix}.flac", s1 + s2 + noise)
        rows.append({"clip_id": mix, "split": "test", "kind": "mixture", "mixture_id": None,
                     "audio_path": f"audio/{mix}.flac", "s1_path": f"stems/{mix}_s1.flac",
                     "s2_path": f"stems/{mix}_s2.flac", "noise_path": f"stems/{mix}_noise.flac",
                     "speaker_1": f"spk{i % 5}", "duration_s": duration_s})
        centre = (np.arange(n_tokens) + 0.5) * TOKEN_S
        voiced = np.zeros(n_tokens)
        for a, b in bursts:
            voiced[(centre >= a) & (centre < b)] = 1.0
        for ts in train_seeds:
            for q in SCORED_KEYS:
                if q in informative:
                    terms = 0.5 + voiced + rng.normal(0, 0.15, n_tokens)
                else:
                    terms = 0.5 + rng.random(n_tokens)
                dec.append(pd.DataFrame({"train_seed": ts, "clip_id": mix, "quantity": q,
                                         "token": np.arange(n_tokens, dtype=np.int32), "term": terms}))
    manifest = pd.DataFrame(rows)
    manifest.to_parquet(root / "manifest.parquet")
    decomposition = pd.concat(dec, ignore_index=True)
    return manifest, decomposition
