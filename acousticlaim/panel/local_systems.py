"""Panel members that need no weights: the estimator suite and the constant predictor.

* :class:`EstimatorSuite` runs the instruments on the signal the system hears (the clip's own
  waveform, as every panel model hears it) and states what they read, phrased for each rung
  (:mod:`acousticlaim.panel.phrasing`). It is written against a small interface, a *measure
  function* ``measure(waveform, sample_rate) -> {quantity key: value}`` in canonical units (NaN for
  an undefined reading), so any instrument set can stand behind it.
* :class:`ConstantPredictor` states each quantity's training median (:func:`training_medians`)
  whatever it hears: the floor every other system is read against.

Neither system has tokens: ``n_tokens`` is ``None`` and nothing is ever truncated.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from acousticlaim.panel.phrasing import phrase
from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, check_requests
from acousticlaim.quantities import QUANTITIES, SCORED_KEYS

MeasureFn = Callable[[np.ndarray, int], Mapping[str, float]]


def _scored_values(raw: Mapping[str, Any], source: str) -> dict[str, float]:
    unknown = set(raw) - set(QUANTITIES)
    if unknown:
        raise ValueError(f"{source}: unknown quantity key(s) {sorted(unknown)}")
    out: dict[str, float] = {}
    for key in SCORED_KEYS:
        v = raw.get(key)
        out[key] = float(v) if v is not None else math.nan
    return out


class EstimatorSuite:
    """The instruments, run on the waveform the system hears, stating their readings in prose."""

    per_clip = True  # a pure function of the clip: its clips may run on a pool or a Dask cluster

    def __init__(self, measure: MeasureFn, *, name: str = "estimator", batch_size: int = 16, cache_size: int = 256):
        self.measure = measure
        self.name = name
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: dict[str, dict[str, float]] = {}

    def describe(self) -> dict[str, Any]:
        fn = self.measure
        return {"kind": "estimator", "measure": f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"}

    def readings(self, req: GenerationRequest) -> dict[str, float]:
        """The instrument readings of the request's clip (measured once per clip id, then cached)."""
        if req.clip_id not in self._cache:
            if len(self._cache) >= self.cache_size:
                self._cache.pop(next(iter(self._cache)))
            raw = self.measure(np.asarray(req.audio, dtype=np.float64), req.sample_rate)
            self._cache[req.clip_id] = _scored_values(raw, f"measure({req.clip_id})")
        return self._cache[req.clip_id]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        check_requests(requests)
        results = []
        for req in requests:
            t0 = time.perf_counter()
            text = phrase(self.readings(req), req.rung.id)
            results.append(GenerationResult(text, None, False, time.perf_counter() - t0, "stop"))
        return results


class ConstantPredictor:
    """States each quantity's training median for every clip and every rung."""

    per_clip = True

    def __init__(self, medians: Mapping[str, float], *, name: str = "constant", batch_size: int = 64):
        self.medians = _scored_values(medians, "constant predictor medians")
        self.name = name
        self.batch_size = batch_size

    def describe(self) -> dict[str, Any]:
        digest = hashlib.sha256(json.dumps(self.medians, sort_keys=True).encode()).hexdigest()[:12]
        return {"kind": "constant", "medians_sha": digest}

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        check_requests(requests)
        results = []
        for req in requests:
            t0 = time.perf_counter()
            text = phrase(self.medians, req.rung.id)
            results.append(GenerationResult(text, None, False, time.perf_counter() - t0, "stop"))
        return results


def training_medians(
    references: pd.DataFrame, manifest: pd.DataFrame, *, split: str = "train", kind: str = "mixture"
) -> dict[str, float]:
    """Median defined reference per scored quantity over the ``split`` clips of ``kind``.

    ``references`` is the long table of ``data/references/references.parquet`` (``clip_id``,
    ``quantity``, ``value``, ``defined``); ``manifest`` says which clips are in the split. For the
    integer quantity (pause count) the lower median is stated, an integer that minimises the same
    absolute error. A quantity with no defined training value gets NaN (the predictor then states
    nothing for it).
    """
    for col in ("clip_id", "quantity", "value", "defined"):
        if col not in references.columns:
            raise ValueError(f"the references table has no {col!r} column")
    for col in ("clip_id", "split", "kind"):
        if col not in manifest.columns:
            raise ValueError(f"the corpus manifest has no {col!r} column")
    clips = set(manifest.loc[(manifest["split"] == split) & (manifest["kind"] == kind), "clip_id"].astype(str))
    if not clips:
        raise ValueError(f"the manifest has no {split!r} clips of kind {kind!r} to take medians over")
    rows = references[references["clip_id"].astype(str).isin(clips) & references["defined"].astype(bool)]
    medians: dict[str, float] = {}
    for key in SCORED_KEYS:
        v = np.sort(rows.loc[rows["quantity"] == key, "value"].to_numpy(dtype=float))
        v = v[np.isfinite(v)]
        if v.size == 0:
            medians[key] = math.nan
        elif QUANTITIES[key].integer:
            medians[key] = float(v[(v.size - 1) // 2])
        else:
            medians[key] = float(np.median(v))
    return medians
