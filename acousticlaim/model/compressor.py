"""The convolutional compressor: encoder frames (20 ms) → one prefix token per 160 ms.

A stack of ``n_layers`` 1-D convolutions (kernel 3, stride 2, padding 1, GELU between layers), so ``2**n_layers``
encoder frames become one token; with the default three layers and 20-ms frames that is 160 ms. A linear
strided convolution over the same ``2**n_layers`` frames (kernel = stride) is added to the stack's output as
a shortcut, so what is linear in the frames reaches the tokens without passing a rectifier.

Its input is the encoder's features with one extra **per-frame overlap channel** appended. The paper holds
that channel at zero ("we hold the per-frame overlap channel at zero, so the run hears audio alone"), and so
does :meth:`ConvCompressor.forward`: the channel exists in the weights and the input, and is always zero.

Padded frames (beyond a clip's length in a batch) are zeroed before every layer, so a clip's tokens do not
depend on which clips share its batch.
"""

from __future__ import annotations

import torch
from torch import nn


def conv_output_lengths(lengths: torch.Tensor, n_layers: int) -> torch.Tensor:
    """Valid output length after ``n_layers`` stride-2, kernel-3, padding-1 convolutions (ceil(L/2) each)."""
    out = lengths.clone()
    for _ in range(n_layers):
        out = torch.div(out - 1, 2, rounding_mode="floor") + 1
    return out


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """(B, max_len) bool mask, True on valid positions."""
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]


class ConvCompressor(nn.Module):
    def __init__(self, in_dim: int, channels: int, n_layers: int = 3):
        super().__init__()
        if n_layers < 1:
            raise ValueError("the compressor needs at least one layer")
        self.in_dim = in_dim
        self.n_layers = n_layers
        dims = [in_dim + 1] + [channels] * n_layers  # +1: the per-frame overlap channel
        self.convs = nn.ModuleList(
            nn.Conv1d(d_in, d_out, kernel_size=3, stride=2, padding=1) for d_in, d_out in zip(dims[:-1], dims[1:])
        )
        self.act = nn.GELU()
        # A linear shortcut over the same 2**n_layers frames (kernel = stride), added to the stack's output.
        self.shortcut = nn.Conv1d(in_dim + 1, channels, kernel_size=2**n_layers, stride=2**n_layers)
        self.out_dim = channels

    @property
    def frames_per_token(self) -> int:
        return 2**self.n_layers

    def forward(self, frames: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """frames (B, T, D) and lengths (B,) → tokens (B, P, C) and token lengths (B,)."""
        if frames.ndim != 3 or frames.shape[-1] != self.in_dim:
            raise ValueError(f"expected frames of shape (B, T, {self.in_dim}), got {tuple(frames.shape)}")
        overlap = torch.zeros(*frames.shape[:2], 1, dtype=frames.dtype, device=frames.device)  # held at zero
        x = torch.cat([frames, overlap], dim=-1).transpose(1, 2)  # (B, D+1, T)
        x = x * length_mask(lengths, x.shape[-1])[:, None, :].to(x.dtype)
        step = self.frames_per_token
        shortcut = self.shortcut(nn.functional.pad(x, (0, (-x.shape[-1]) % step)))
        cur = lengths
        for i, conv in enumerate(self.convs):
            x = x * length_mask(cur, x.shape[-1])[:, None, :].to(x.dtype)
            x = conv(x)
            if i < len(self.convs) - 1:  # the last layer is linear, so no information is rectified away
                x = self.act(x)
            cur = conv_output_lengths(cur, 1)
        x = (x + shortcut) * length_mask(cur, x.shape[-1])[:, None, :].to(x.dtype)
        return x.transpose(1, 2), cur
