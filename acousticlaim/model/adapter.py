"""The adapter: compressor tokens → the decoder's hidden size, through one context block.

A linear projection maps each compressed token to the decoder's hidden size, a residual MLP refines it,
then one pre-norm Transformer block (self-attention over the clip's prefix tokens, padding masked) with a
final LayerNorm. Its outputs are the prefix tokens z_t that the decoder reads and the confidence head pools. Because of the context
block a prefix token is not a function of its own 160 ms alone (paper §4: "the prefix tokens pass a
context block first, so the sum is not resolved to frames").
"""

from __future__ import annotations

import torch
from torch import nn


class Adapter(nn.Module):
    def __init__(self, in_dim: int, hidden_size: int, n_heads: int = 4, ff_mult: int = 2):
        super().__init__()
        if hidden_size % n_heads:
            raise ValueError(f"hidden size {hidden_size} is not divisible by {n_heads} heads")
        self.project = nn.Linear(in_dim, hidden_size)
        self.mlp = nn.Sequential(
            nn.LayerNorm(hidden_size), nn.Linear(hidden_size, ff_mult * hidden_size), nn.GELU(),
            nn.Linear(ff_mult * hidden_size, hidden_size),
        )
        self.context = nn.TransformerEncoderLayer(
            d_model=hidden_size, nhead=n_heads, dim_feedforward=ff_mult * hidden_size,
            dropout=0.0, activation="gelu", batch_first=True, norm_first=True,
        )
        self.norm = nn.LayerNorm(hidden_size)
        self.hidden_size = hidden_size

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """tokens (B, P, C), mask (B, P) True on valid tokens → prefix tokens z (B, P, H), zero on padding."""
        x = self.project(tokens)
        x = x + self.mlp(x)
        x = self.context(x, src_key_padding_mask=~mask)
        x = self.norm(x)
        return x * mask[..., None].to(x.dtype)
