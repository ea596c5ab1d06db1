"""Constructed clip tables and tiny system specs for the reference-system tests (no corpus needed).

Each clip's frames carry a 10-dimensional latent (one per scored quantity) and an overlap indicator,
projected onto the feature dimensions by a fixed random matrix, plus frame noise; each label is an
affine function of its latent. So a model that learns anything should beat the constant predictor,
and the decline rule is recoverable from the frames.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.model.decoder import DecoderSpec
from acousticlaim.model.system import SystemSpec
from acousticlaim.model.train import TrainSpec
from acousticlaim.quantities import SCORED_KEYS

FEATURE_DIM = 12
LABEL_CENTRE = np.array([15.0, 6.0, 3.5, 2.0, 15.0, 160.0, 20.0, 1.0, 5.0, 12.0])
LABEL_SCALE = np.array([8.0, 2.0, 0.8, 1.0, 6.0, 40.0, 6.0, 0.4, 1.5, 4.0])


def constructed_table(n: int, seed: int, *, frames: tuple[int, int] = (40, 56), undefined_share: float = 0.05) -> pd.DataFrame:
    mixing = np.random.default_rng(1234).normal(size=(len(SCORED_KEYS) + 1, FEATURE_DIM))  # fixed across tables
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n, len(SCORED_KEYS)))
    overlap = np.where(rng.random(n) < 0.5, rng.uniform(0.55, 0.95, n), 0.0)
    rows = []
    for i in range(n):
        t = int(rng.integers(*frames))
        code = np.concatenate([latent[i], [3.0 * (2.0 * (overlap[i] > 0.5) - 1.0)]]) @ mixing
        feats = code[None, :] + 0.5 * rng.normal(size=(t, FEATURE_DIM))
        row = {"clip_id": f"clip{seed}_{i:04d}", "features": feats.astype(np.float32), "overlap": float(overlap[i]),
               "group": f"spk{i % 7}", "split": "test", "kind": "mixture" if overlap[i] > 0 else "twin"}
        for j, key in enumerate(SCORED_KEYS):
            value = LABEL_CENTRE[j] + LABEL_SCALE[j] * latent[i, j]
            row[key] = np.nan if rng.random() < undefined_share else value
        rows.append(row)
    return pd.DataFrame(rows)


def tiny_system_spec(encoder_dim: int = FEATURE_DIM, pretrain_steps: int = 80) -> SystemSpec:
    return SystemSpec(
        encoder_dim=encoder_dim, compressor_channels=32, adapter_heads=2,
        decoder=DecoderSpec(
            tiny={"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
                  "head_dim": 16},
            pretrain_steps=pretrain_steps, pretrain_lr=1e-2,
        ),
    )


def tiny_train_spec(epochs: int = 10) -> TrainSpec:
    return TrainSpec(epochs=epochs, batch_size=16, lr=3e-3, lm_weight=0.5, warmup_steps=10)
