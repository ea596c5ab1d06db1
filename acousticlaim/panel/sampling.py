"""The sampling design of the panel (the project's paper, §External panel).

Each of the sampling seeds (eight by default) draws its own sample of ``clips_per_seed`` clips
(120 by default) from the eligible clips of each corpus: the ``test`` split, kinds ``mixture``
(Libri2Mix-style mixtures, never their clean twins) and ``clip`` (AMI). Each draw is a uniform
sample without replacement, made by ``numpy.random.default_rng((seed, corpus_salt))`` over the
eligible clip ids in sorted order, where ``corpus_salt`` is the CRC-32 of the corpus name, so a
corpus's sample does not depend on which other corpora the manifest holds. Samples overlap across
seeds; the scorer pools them by clip.

Every (clip, rung, seed) of every sample is one generation job: with 8 seeds × 120 clips × 5 rungs
that is 4,800 generations per system and corpus. Jobs are ordered seed, corpus, clip, rung, so the
five rungs of one clip sit together and the clip's audio is read once.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from acousticlaim.claims.prompts import Rung, select_rungs
from acousticlaim.params import param, settings_from

DEFAULT_SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
DEFAULT_CLIPS_PER_SEED = 120


@dataclass(frozen=True)
class SamplingDesign:
    seeds: tuple[int, ...] = param(DEFAULT_SEEDS, ge=0)
    clips_per_seed: int = param(DEFAULT_CLIPS_PER_SEED, ge=1)
    split: str = param("test", choices=("train", "test"))
    kinds: tuple[str, ...] = param(("mixture", "clip"), choices=("mixture", "twin", "clip"))

    def __post_init__(self) -> None:
        if not self.seeds:
            raise ValueError("the sampling design needs at least one seed")
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"sampling seeds repeat: {list(self.seeds)}")
        if any((not isinstance(s, int)) or isinstance(s, bool) or s < 0 for s in self.seeds):
            raise ValueError(f"sampling seeds must be non-negative integers, got {list(self.seeds)}")
        if self.clips_per_seed < 1:
            raise ValueError(f"clips_per_seed must be at least 1, got {self.clips_per_seed}")

    @classmethod
    def from_params(cls, p: Mapping[str, Any] | None) -> "SamplingDesign":
        """The ``generations.sampling`` group, checked (:func:`acousticlaim.params.settings_from`)."""
        return settings_from(cls, p, "generations.sampling")


@dataclass(frozen=True)
class Job:
    """One generation to make: a clip of a corpus, a rung, and the seed whose sample drew the clip."""

    corpus: str
    clip_id: str
    rung: Rung
    seed: int


def eligible_clips(manifest: pd.DataFrame, design: SamplingDesign) -> dict[str, list[str]]:
    """Sorted eligible clip ids per corpus."""
    for col in ("clip_id", "corpus", "split", "kind"):
        if col not in manifest.columns:
            raise ValueError(f"the corpus manifest has no {col!r} column")
    rows = manifest[(manifest["split"] == design.split) & (manifest["kind"].isin(design.kinds))]
    return {str(c): sorted(map(str, g["clip_id"].unique())) for c, g in rows.groupby("corpus", sort=True)}


def _corpus_salt(corpus: str) -> int:
    return zlib.crc32(corpus.encode("utf-8"))


def draw_sample(clip_ids: Sequence[str], seed: int, corpus: str, clips_per_seed: int) -> list[str]:
    """The sample one seed draws from one corpus's sorted eligible ids (all of them when fewer)."""
    n = len(clip_ids)
    k = min(clips_per_seed, n)
    rng = np.random.default_rng((seed, _corpus_salt(corpus)))
    picked = rng.choice(n, size=k, replace=False)
    return [clip_ids[i] for i in sorted(picked)]


def draw_samples(manifest: pd.DataFrame, design: SamplingDesign) -> dict[tuple[str, int], list[str]]:
    """``{(corpus, seed): [clip ids]}`` for every corpus with eligible clips and every seed."""
    pools = eligible_clips(manifest, design)
    if not pools:
        raise ValueError(
            f"no eligible clips: the manifest has no {design.split!r} clips of kind {', '.join(design.kinds)}"
        )
    return {
        (corpus, seed): draw_sample(ids, seed, corpus, design.clips_per_seed)
        for corpus, ids in pools.items()
        for seed in design.seeds
    }


def generation_jobs(
    manifest: pd.DataFrame, design: SamplingDesign, rung_ids: Sequence[str] | None = None
) -> list[Job]:
    """Every (clip, rung, seed) of the design, once, in seed, corpus, clip, rung order."""
    rungs = select_rungs(list(rung_ids) if rung_ids is not None else None)
    samples = draw_samples(manifest, design)
    jobs: list[Job] = []
    for seed in design.seeds:
        for corpus in sorted({c for c, _ in samples}):
            for clip_id in samples[(corpus, seed)]:
                jobs.extend(Job(corpus, clip_id, rung, seed) for rung in rungs)
    return jobs
