"""The confidence head, its loss, and the per-prefix-token decomposition of every stated value.

**Head.** One linear layer over the mean of the clip's P prefix tokens z_1..z_P (paper §2.2)::

    [v'_q, s_q] = W · (1/P) Σ_t z_t + b        for each of the ten scored quantities q

v'_q is the value in units of the quantity's dispersion; the canonical value is
``v_q = c_q + d_q · v'_q`` with c_q the training-split median and d_q the training-split dispersion
(:class:`Dispersion`, fixed before training). s_q is the log-variance in those dispersion units
(the variance in canonical units is ``exp(s_q) · d_q²``).

**Decomposition.** Because the head is linear in the mean, each value is an exact sum over prefix tokens::

    v_q = Σ_t term_{q,t},   term_{q,t} = c_q / P + d_q · (W_q · z_t + b_q) / P

:func:`decompose` computes the terms in float64 and readout B's value is their sum, so "the sum of the
per-token terms equals the stated value" holds to float precision by construction, and the float32 forward
pass agrees with it to float32 precision.

**Loss.** Heteroscedastic Gaussian negative log-likelihood (Kendall & Gal 2017) in dispersion units, with
the value gradient detached in the variance term, and the error term re-weighted as in β-NLL
(Seitzer et al. 2022)::

    e = (y - c)/d - v'
    variance term:  ½ (exp(-s) · sg(e)² + s)            trains s only
    error term:     ½ sg(exp(-s))^(1-β) · e²             trains v only

β = 0 weights the error by the precision exactly as the plain NLL does; β = 1 makes it a plain squared
error; the default 0.5 sits between (Seitzer et al.'s recommendation). Slots whose reference is undefined
(NaN) are masked out; each quantity's loss is its mean over defined clips, and the head loss is the
mean over quantities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import nn

from acousticlaim.quantities import SCORED_KEYS

LOGVAR_CLAMP = 12.0
MAD_TO_SD = 1.4826


@dataclass(frozen=True)
class Dispersion:
    """Per-quantity centre (median) and dispersion of the training labels, fixed before training."""

    keys: tuple[str, ...]
    center: np.ndarray  # (Q,) float64
    scale: np.ndarray  # (Q,) float64, > 0

    @classmethod
    def from_labels(cls, labels: np.ndarray, keys: Sequence[str] = SCORED_KEYS) -> "Dispersion":
        """Median and 1.4826·MAD of each column (NaN ignored); the s.d. where MAD is 0; 1.0 if both are 0.

        A column with no defined label is an error (the head could not be trained on it).
        """
        labels = np.asarray(labels, dtype=np.float64)
        if labels.ndim != 2 or labels.shape[1] != len(keys):
            raise ValueError(f"labels must be (N, {len(keys)}), got {labels.shape}")
        center, scale = np.empty(len(keys)), np.empty(len(keys))
        for j, key in enumerate(keys):
            col = labels[:, j][np.isfinite(labels[:, j])]
            if col.size == 0:
                raise ValueError(f"no defined training label for {key}: cannot fix its dispersion")
            center[j] = np.median(col)
            mad = MAD_TO_SD * np.median(np.abs(col - center[j]))
            sd = float(np.std(col))
            scale[j] = mad if mad > 0 else (sd if sd > 0 else 1.0)
        return cls(tuple(keys), center, scale)

    def normalise(self, labels: np.ndarray) -> np.ndarray:
        return (np.asarray(labels, dtype=np.float64) - self.center) / self.scale

    def to_canonical(self, v_norm: np.ndarray) -> np.ndarray:
        return self.center + self.scale * np.asarray(v_norm, dtype=np.float64)

    def to_dict(self) -> dict:
        return {"keys": list(self.keys), "center": self.center.tolist(), "scale": self.scale.tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> "Dispersion":
        return cls(tuple(d["keys"]), np.asarray(d["center"], dtype=np.float64), np.asarray(d["scale"], dtype=np.float64))


def masked_mean(z: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of z (B, P, H) over the valid tokens of each clip (mask (B, P) True on valid)."""
    m = mask.to(z.dtype)[..., None]
    count = m.sum(dim=1).clamp_min(1.0)
    return (z * m).sum(dim=1) / count


class ConfidenceHead(nn.Module):
    """One linear layer over the pooled prefix tokens → (v', s) for each quantity."""

    def __init__(self, hidden_size: int, n_quantities: int = len(SCORED_KEYS)):
        super().__init__()
        self.n_quantities = n_quantities
        self.linear = nn.Linear(hidden_size, 2 * n_quantities)
        nn.init.zeros_(self.linear.bias)
        nn.init.normal_(self.linear.weight, std=0.01)

    def forward(self, z: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.linear(masked_mean(z, mask))
        return out[:, : self.n_quantities], out[:, self.n_quantities :]

    @torch.no_grad()
    def decompose(self, z: torch.Tensor, mask: torch.Tensor, dispersion: Dispersion) -> list[np.ndarray]:
        """Per-token terms in canonical units, one (P_i, Q) float64 array per clip; rows sum to v_q."""
        w = self.linear.weight[: self.n_quantities].double()
        b = self.linear.bias[: self.n_quantities].double()
        center = torch.as_tensor(dispersion.center, dtype=torch.float64)
        scale = torch.as_tensor(dispersion.scale, dtype=torch.float64)
        terms = []
        for zi, mi in zip(z, mask):
            tokens = zi[mi].double()  # (P, H)
            p = tokens.shape[0]
            if p == 0:
                raise ValueError("a clip with no prefix tokens cannot be decomposed")
            per_token = (tokens @ w.T + b) / p  # (P, Q), normalised units
            terms.append((center / p + scale * per_token).numpy())
        return terms


def heteroscedastic_loss(
    v_norm: torch.Tensor, logvar: torch.Tensor, target_norm: torch.Tensor, beta: float = 0.5
) -> tuple[torch.Tensor, torch.Tensor]:
    """The head loss (scalar) and the per-quantity losses (Q,), NaN targets masked.

    ``v_norm``, ``logvar``, ``target_norm`` are (B, Q); targets are in dispersion units (NaN = undefined).
    A quantity with no defined target in the batch contributes zero and is left out of the mean.
    """
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"beta must be in [0, 1], got {beta}")
    defined = torch.isfinite(target_norm)
    target = torch.where(defined, target_norm, torch.zeros_like(target_norm))
    s = logvar.clamp(-LOGVAR_CLAMP, LOGVAR_CLAMP)
    err = target - v_norm
    variance_term = 0.5 * (torch.exp(-s) * err.detach() ** 2 + s)
    error_term = 0.5 * torch.exp(-s.detach()) ** (1.0 - beta) * err**2
    per_slot = (variance_term + error_term) * defined.to(v_norm.dtype)
    count = defined.sum(dim=0)
    per_quantity = per_slot.sum(dim=0) / count.clamp_min(1).to(v_norm.dtype)
    has = count > 0
    loss = per_quantity[has].mean() if bool(has.any()) else per_quantity.sum() * 0.0
    return loss, per_quantity.detach()
