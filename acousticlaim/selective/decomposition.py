"""The decomposition diagnostic (Fig. 2): does a stated value's per-token decomposition sit where the
instrument reads?

The confidence head is linear over the pooled prefix tokens, so every stated value is an exact sum of
per-prefix-token terms (one token per 160 ms). For each quantity the instrument reads particular frames of
the signal — the voiced frames for F0, jitter, shimmer and HNR, the pause intervals for the two pause
quantities, the sounding intervals for speaking rate, the speech level for SNR — summarised on the same
token grid as a **frame profile** (:mod:`acousticlaim.selective.frame_profiles`).

Definitions followed here:

* **agreement** of a decomposition with a profile = Pearson's correlation between the magnitude of each
  token's term, ``|term_t|``, and the profile, over the tokens both cover (the first ``min`` of the two
  lengths); undefined (NaN) with fewer than three tokens or a constant side;
* **identification**: clip *i*'s decomposition is set against its own profile and the profiles of
  ``n_candidates − 1`` other clips drawn at random; it *picks* the candidate it agrees with most (an undefined
  agreement never wins; ties are split evenly, so a clip tied with *m* candidates scores ``1/m``). The
  identification rate is the mean over clips; the **identification score** is that rate as a multiple of
  chance, ``rate × n_candidates`` (1.0 = chance);
* **frame-index ramp control**: the ramp ``0, 1, 2, …`` (a decomposition that knows only where a token
  sits) is scored against each clip's own profile. The ramp's agreement is ``|mean over clips of
  corr(ramp, profile)|`` (a trend in time that the profiles share, rising or falling; a clip-by-clip
  absolute value would credit noise), the best agreement the mean over clips of the decomposition's
  own-clip agreement. A quantity whose ramp agreement reaches ``ramp_limit`` (0.7) of the best agreement
  is dropped: where the frames sit in time would explain the match. The ratio is only formed when the
  best agreement is positive beyond two standard errors over clips; otherwise there is no agreement for the
  ramp to explain, the quantity is kept and its identification sits at chance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def agreement(terms: np.ndarray, profile: np.ndarray) -> float:
    """Pearson correlation of ``|terms|`` with ``profile`` on their common leading tokens (NaN if undefined)."""
    n = min(len(terms), len(profile))
    if n < 3:
        return float("nan")
    a = np.abs(np.asarray(terms[:n], dtype=float))
    b = np.asarray(profile[:n], dtype=float)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return float("nan")
    a = a - a.mean()
    b = b - b.mean()
    denom = np.sqrt((a * a).sum() * (b * b).sum())
    if denom <= 1e-12 * max(1.0, float(np.abs(a).max() * np.abs(b).max())):
        return float("nan")
    return float((a * b).sum() / denom)


def ramp_agreement(profile: np.ndarray) -> float:
    """Correlation of the frame-index ramp with ``profile`` (the ramp is non-negative, so ``|ramp|`` = ramp)."""
    return agreement(np.arange(len(profile), dtype=float), profile)


@dataclass(frozen=True)
class Identification:
    """The identification diagnostic of one quantity."""

    n_clips: int
    n_candidates: int
    rate: float  # mean share of clips that pick their own profile
    score: float  # rate as a multiple of chance (rate × n_candidates)
    score_se: float  # binomial standard error of the score under chance
    own_agreement: float  # mean own-clip agreement (the "best agreement")
    own_agreement_se: float  # its standard error over clips
    ramp_agreement: float  # |mean ramp agreement| with the clips' own profiles
    ramp_ratio: float  # ramp_agreement / own_agreement (NaN unless own_agreement > 2 se: nothing to discount)


def identification(
    terms: list[np.ndarray],
    profiles: list[np.ndarray],
    *,
    n_candidates: int = 20,
    rng: np.random.Generator,
) -> Identification:
    """Identification score of a quantity; ``terms[i]`` and ``profiles[i]`` belong to the same clip."""
    n = len(terms)
    if n != len(profiles):
        raise ValueError(f"{n} decompositions but {len(profiles)} profiles")
    if n < n_candidates:
        raise ValueError(f"need at least {n_candidates} clips for {n_candidates} candidates, got {n}")
    hits = np.empty(n)
    own = np.empty(n)
    ramps = np.empty(n)
    for i in range(n):
        others = rng.choice(n - 1, size=n_candidates - 1, replace=False)
        others = others + (others >= i)  # skip clip i itself
        candidates = np.concatenate([[i], others])
        agree = np.array([agreement(terms[i], profiles[j]) for j in candidates])
        own[i] = agree[0]
        ramps[i] = ramp_agreement(profiles[i])
        valid = np.where(np.isfinite(agree), agree, -np.inf)
        best = valid.max()
        tied = np.flatnonzero(valid == best)
        hits[i] = (1.0 / tied.size) if 0 in tied else 0.0
    rate = float(hits.mean())
    chance = 1.0 / n_candidates
    own_ok = own[np.isfinite(own)]
    own_mean = float(own_ok.mean()) if own_ok.size else float("nan")
    own_se = float(own_ok.std(ddof=1) / np.sqrt(own_ok.size)) if own_ok.size > 1 else float("nan")
    ramp_ok = ramps[np.isfinite(ramps)]
    ramp_mean = float(abs(ramp_ok.mean())) if ramp_ok.size else float("nan")
    ratio = ramp_mean / own_mean if (np.isfinite(own_se) and own_mean > 2 * own_se) else float("nan")
    return Identification(
        n_clips=n, n_candidates=n_candidates, rate=rate, score=rate / chance,
        score_se=float(np.sqrt(chance * (1 - chance) / n)) / chance,
        own_agreement=own_mean, own_agreement_se=own_se, ramp_agreement=ramp_mean, ramp_ratio=float(ratio),
    )


def ramp_dropped(result: Identification, ramp_limit: float = 0.7) -> bool:
    """Whether the frame-index ramp control drops the quantity (ramp reaches ``ramp_limit`` of the best agreement).

    A quantity whose decomposition does not agree with its own profile beyond two standard errors has no
    agreement for the ramp to explain and is kept (its identification sits at chance and is reported so).
    """
    return bool(np.isfinite(result.ramp_ratio) and result.ramp_ratio >= ramp_limit)


def even_split_multiples(terms: np.ndarray) -> np.ndarray:
    """Each token's ``|term|`` as a multiple of an even split of the total magnitude (1.0 = even)."""
    mag = np.abs(np.asarray(terms, dtype=float))
    total = mag.sum()
    return mag * mag.size / total if total > 0 else np.full(mag.size, np.nan)
