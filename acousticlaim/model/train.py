"""Training the reference system on a plain table of clips (see :mod:`acousticlaim.model.batching`).

One call trains one seed:

1. fix each quantity's centre and dispersion from the training labels (:class:`Dispersion`), before any
   step;
2. build the tokenizer and the base decoder — tiny: a BPE tokenizer trained offline on the instruction
   and descriptions, a random ``Qwen3ForCausalLM`` trained from scratch on the descriptions as text
   alone; full: the checkpoint and its tokenizer with the value slots added;
3. freeze the base decoder under the LoRA, and train compressor, adapter, confidence head and LoRA jointly:
   ``loss = head_loss + lm_weight · lm_loss`` with AdamW and a cosine schedule, in shuffled mini-batches.
   The head loss covers every clip of a batch; the LM loss, which costs most of a CPU step, may cover only
   the first ``lm_clips_per_step`` clips of each (shuffled) batch.

Every step's losses are logged (``history``), and every epoch's wall time (``epoch_seconds``).
Everything random is drawn from ``seed``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
import torch

from acousticlaim.model.batching import check_table, feature_dim, label_matrix, pad_frames
from acousticlaim.model.decoder import (
    DecoderSpec,
    build_tiny_decoder,
    build_tokenizer,
    load_checkpoint_tokenizer,
    load_decoder,
    pretrain_text_only,
    wrap_lora,
)
from acousticlaim.model.descriptions import N_PHRASINGS, describe, tokenizer_corpus
from acousticlaim.model.head import Dispersion
from acousticlaim.model.system import ReferenceSystem, SystemSpec
from acousticlaim.params import param, settings_from
from acousticlaim.quantities import SCORED_KEYS


@dataclass(frozen=True)
class TrainSpec:
    """The optimisation settings of the ``train`` group."""

    epochs: int = param(30, ge=1)
    batch_size: int = param(16, ge=1)
    lr: float = param(2e-3, gt=0)
    weight_decay: float = param(0.01, ge=0)
    lm_weight: float = param(1.0, ge=0)
    lm_clips_per_step: int | None = param(None, ge=1)  # the LM loss on this many clips of each batch (None = all)
    beta: float = param(0.5, ge=0, le=1)  # β-NLL re-weighting of the error term (see acousticlaim.model.head)
    grad_clip: float = param(1.0, gt=0)
    warmup_steps: int = param(20, ge=0)
    device: str = "cpu"

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "TrainSpec":
        return settings_from(cls, params, "train.optim")


@dataclass
class TrainResult:
    system: ReferenceSystem
    history: pd.DataFrame  # one row per step: epoch, step, loss, head, lm, and head loss per quantity
    epoch_seconds: list[float]
    pretrain_losses: list[float] = field(default_factory=list)
    seed: int = 0


StepCallback = Callable[[int, int, dict[str, float]], None]


def _seeded(seed: int) -> torch.Generator:
    torch.manual_seed(seed)
    np.random.seed(seed % (2**32))
    return torch.Generator().manual_seed(seed)


def build_system(
    spec: SystemSpec, dispersion: Dispersion, seed: int, overlaps: np.ndarray | None,
    on_pretrain_step: Callable[[int, float], None] | None = None,
) -> tuple[ReferenceSystem, list[float]]:
    """The untrained system: tokenizer, base decoder (pretrained text-only if tiny), LoRA, new modules."""
    dec: DecoderSpec = spec.decoder
    pretrain_losses: list[float] = []
    if dec.is_tiny:
        tokenizer = (
            load_checkpoint_tokenizer(dec.tokenizer) if dec.tokenizer
            else build_tokenizer(tokenizer_corpus(spec.instruction), dec.vocab_size)
        )
        base = build_tiny_decoder(dec, tokenizer, seed)
        if overlaps is not None and dec.pretrain_steps > 0:
            rng = np.random.default_rng(seed)
            targets = [describe(float(o), int(rng.integers(N_PHRASINGS))) for o in overlaps]
            pretrain_losses = pretrain_text_only(
                base, tokenizer, [spec.instruction] * len(targets), targets, dec, seed, on_pretrain_step
            )
        new_token_ids: list[int] = []
    else:
        tokenizer = load_checkpoint_tokenizer(dec.tokenizer or dec.checkpoint)
        base, new_token_ids = load_decoder(dec, tokenizer)
    decoder = wrap_lora(base, dec, new_token_ids)
    torch.manual_seed(seed)
    system = ReferenceSystem(spec, decoder, tokenizer, dispersion, new_token_ids)
    return system, pretrain_losses


def train_reference_system(
    table: pd.DataFrame,
    system_spec: SystemSpec,
    train_spec: TrainSpec,
    seed: int,
    on_step: StepCallback | None = None,
    on_pretrain_step: Callable[[int, float], None] | None = None,
) -> TrainResult:
    """Train one seed of the reference system on ``table`` (clip_id, features, overlap, ten label columns)."""
    check_table(table, labelled=True)
    if feature_dim(table) != system_spec.encoder_dim:
        raise ValueError(f"features are {feature_dim(table)}-dimensional but the spec says {system_spec.encoder_dim}")
    gen = _seeded(seed)
    labels = label_matrix(table)
    dispersion = Dispersion.from_labels(labels)  # fixed from the training split before training
    targets_norm = dispersion.normalise(labels)
    overlaps = table["overlap"].to_numpy(dtype=np.float64)
    system, pretrain_losses = build_system(system_spec, dispersion, seed, overlaps, on_pretrain_step)
    system.to(train_spec.device)
    tokenizer = system.tokenizer
    description_ids = {
        (bool(o > 0.5), ph): tokenizer(describe(float(o), ph), add_special_tokens=False)["input_ids"]
        for o in (0.0, 1.0) for ph in range(N_PHRASINGS)
    }
    features = list(table["features"])
    n = len(table)
    steps_per_epoch = math.ceil(n / train_spec.batch_size)
    total = max(1, steps_per_epoch * train_spec.epochs)
    params = [p for p in system.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=train_spec.lr, weight_decay=train_spec.weight_decay)

    def lr_factor(step: int) -> float:
        if step < train_spec.warmup_steps:
            return (step + 1) / train_spec.warmup_steps
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - train_spec.warmup_steps) / max(1, total - train_spec.warmup_steps))))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    rows: list[dict[str, float]] = []
    epoch_seconds: list[float] = []
    rng = np.random.default_rng(seed)
    step = 0
    system.train()
    for epoch in range(train_spec.epochs):
        t0 = time.perf_counter()
        order = torch.randperm(n, generator=gen).tolist()
        for start in range(0, n, train_spec.batch_size):
            idx = order[start : start + train_spec.batch_size]
            frames, lengths = pad_frames([features[i] for i in idx], train_spec.device)
            target = torch.as_tensor(targets_norm[idx], dtype=torch.float32, device=train_spec.device)
            descs = [description_ids[(bool(overlaps[i] > 0.5), int(rng.integers(N_PHRASINGS)))] for i in idx]
            out = system.losses(frames, lengths, target, descs, beta=train_spec.beta, lm_rows=train_spec.lm_clips_per_step)
            loss = out["head"] + train_spec.lm_weight * out["lm"]
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, train_spec.grad_clip)
            opt.step()
            sched.step()
            row = {"epoch": epoch, "step": step, "loss": loss.item(), "head_loss": out["head"].item(), "lm_loss": out["lm"].item()}
            row.update({f"head_{k}": float(v) for k, v in zip(SCORED_KEYS, out["per_quantity"].tolist())})
            rows.append(row)
            if on_step:
                on_step(epoch, step, row)
            step += 1
        epoch_seconds.append(time.perf_counter() - t0)
    system.eval()
    return TrainResult(system, pd.DataFrame(rows), epoch_seconds, pretrain_losses, seed)
