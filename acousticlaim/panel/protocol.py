"""The one protocol every system of the panel speaks.

A system takes a batch of (clip audio, prompt, sampling seed) and returns, for each, the text it
produced and how it produced it:

* ``n_tokens`` — tokens generated before the first stop token (the end-of-turn token is not
  counted); ``None`` where a system cannot say (text imported from elsewhere);
* ``truncated`` — the generation reached the new-token cap without emitting a stop token;
* ``seconds`` — wall-clock seconds of the call that produced the batch, divided by the batch size
  (the cost of one generation when generated in batches of that size);
* ``finish_reason`` — ``"stop"`` (a stop token), ``"length"`` (the cap), or what an API reports.

The audio is the raw waveform as the corpus holds it (16 kHz, mono, truncated to 10 s, never
normalised); a system must not rescale it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from acousticlaim.audio import TARGET_SR
from acousticlaim.claims.prompts import Rung


@dataclass(frozen=True)
class GenerationRequest:
    """One thing to generate: a clip's waveform, the rung asked, and the sampling seed."""

    clip_id: str
    audio: np.ndarray
    rung: Rung
    seed: int
    sample_rate: int = TARGET_SR
    corpus: str = "librimix"

    @property
    def prompt(self) -> str:
        return self.rung.text


@dataclass(frozen=True)
class GenerationResult:
    """What a system produced for one request (see the module docstring for the fields)."""

    text: str
    n_tokens: int | None
    truncated: bool | None
    seconds: float
    finish_reason: str = "stop"


@runtime_checkable
class System(Protocol):
    """A panel member: a name, a preferred batch size, and batch generation."""

    name: str
    batch_size: int

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """One result per request, in order."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the system is (kind, model or checkpoint, decoding settings), recorded with its generations."""
        ...


def check_requests(requests: Sequence[GenerationRequest], expected_sr: int = TARGET_SR) -> None:
    """Every request carries a 1-D finite waveform at ``expected_sr``; a clear error otherwise."""
    for req in requests:
        if req.sample_rate != expected_sr:
            raise ValueError(f"{req.clip_id}: audio at {req.sample_rate} Hz, the panel hears {expected_sr} Hz")
        if req.audio.ndim != 1 or req.audio.size == 0:
            raise ValueError(f"{req.clip_id}: expected a non-empty mono waveform, got shape {req.audio.shape}")
