"""Panel members that need no weights: the estimator suite and the constant predictor.

* :class:`EstimatorSuite` runs the instruments on the signal the system hears (the clip's own
  waveform, as every panel model hears it) and states what they read, phrased for each rung
  (:mod:`acousticlaim.panel.phrasing`). It is written against a small interface, a *measure
  function* ``measure(waveform, sample_rate) -> {quantity key: value}`` in canonical units (NaN for
  an undefined reading), so any instrument set can stand behind it.
* :class:`ConstantPredictor` states each quantity's training median (:func:`training_medians`)
  whatever it hears: the floor every other system is read against.

Both answer the interval rung ``P5_intervals`` too (:func:`acousticlaim.panel.phrasing.phrase_intervals`):
the estimator with a *locate function* ``locate(waveform, sample_rate) -> {event type: [(start, end)]}``
(:func:`acousticlaim.panel.heard_intervals.locate_heard_events` by default), the constant predictor with the
training split's typical intervals (:func:`training_intervals`), the same for every clip.

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

from acousticlaim.claims.prompts import INTERVAL_RUNG_ID
from acousticlaim.panel.phrasing import phrase, phrase_intervals
from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, check_requests
from acousticlaim.quantities import EVENT_KEYS, QUANTITIES, SCORED_KEYS

MeasureFn = Callable[[np.ndarray, int], Mapping[str, float]]
Intervals = Mapping[str, "list[tuple[float, float]] | None"]
LocateFn = Callable[[np.ndarray, int], Intervals]


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

    def __init__(self, measure: MeasureFn, *, name: str = "estimator", batch_size: int = 16, cache_size: int = 256,
                 locate: LocateFn | None = None):
        self.measure = measure
        self.locate = locate
        self.name = name
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: dict[str, dict[str, float]] = {}
        self._located: dict[str, Intervals] = {}

    def describe(self) -> dict[str, Any]:
        def named(fn: Any) -> str | None:
            fn = getattr(fn, "func", fn)  # a functools.partial names its function
            return None if fn is None else f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"

        return {"kind": "estimator", "measure": named(self.measure), "locate": named(self.locate)}

    def intervals(self, req: GenerationRequest) -> Intervals:
        """The events located on the request's clip (``None`` per event type without a locate function)."""
        if self.locate is None:
            return {event: None for event in EVENT_KEYS}
        if req.clip_id not in self._located:
            if len(self._located) >= self.cache_size:
                self._located.pop(next(iter(self._located)))
            self._located[req.clip_id] = self.locate(np.asarray(req.audio, dtype=np.float64), req.sample_rate)
        return self._located[req.clip_id]

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
            if req.rung.id == INTERVAL_RUNG_ID:
                text = phrase_intervals(self.intervals(req))
            else:
                text = phrase(self.readings(req), req.rung.id)
            results.append(GenerationResult(text, None, False, time.perf_counter() - t0, "stop"))
        return results


class ConstantPredictor:
    """States each quantity's training median, and the training split's typical intervals, for every clip."""

    per_clip = True

    def __init__(self, medians: Mapping[str, float], *, name: str = "constant", batch_size: int = 64,
                 intervals: Intervals | None = None):
        self.medians = _scored_values(medians, "constant predictor medians")
        self.intervals = {event: (intervals or {}).get(event) for event in EVENT_KEYS}
        self.name = name
        self.batch_size = batch_size

    def describe(self) -> dict[str, Any]:
        digest = hashlib.sha256(json.dumps(self.medians, sort_keys=True).encode()).hexdigest()[:12]
        located = hashlib.sha256(json.dumps(self.intervals, sort_keys=True).encode()).hexdigest()[:12]
        return {"kind": "constant", "medians_sha": digest, "intervals_sha": located}

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        check_requests(requests)
        results = []
        for req in requests:
            t0 = time.perf_counter()
            text = phrase_intervals(self.intervals) if req.rung.id == INTERVAL_RUNG_ID else phrase(self.medians, req.rung.id)
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


def training_intervals(intervals: pd.DataFrame, lists: pd.DataFrame, manifest: pd.DataFrame, *,
                       split: str = "train", kind: str = "mixture") -> dict[str, list[tuple[float, float]] | None]:
    """The typical intervals per event type over the ``split`` clips of ``kind``: the lower-median count
    ``n`` of intervals per clip, and as the k-th of them (k < n) the median start and median end of the k-th
    interval over the clips that have one. ``None`` for an event type no training clip has a list of.

    ``intervals`` and ``lists`` are the references in time (:func:`acousticlaim.instruments.intervals.
    read_interval_references`).
    """
    clips = set(manifest.loc[(manifest["split"] == split) & (manifest["kind"] == kind), "clip_id"].astype(str))
    if not clips:
        raise ValueError(f"the manifest has no {split!r} clips of kind {kind!r} to take typical intervals over")
    out: dict[str, list[tuple[float, float]] | None] = {}
    for event in EVENT_KEYS:
        mine = lists[(lists["event"] == event) & lists["defined"].astype(bool) & lists["clip_id"].astype(str).isin(clips)]
        if mine.empty:
            out[event] = None
            continue
        counts = np.sort(mine["n"].to_numpy(dtype=int))
        n = int(counts[(counts.size - 1) // 2])
        rows = intervals[(intervals["event"] == event) & intervals["clip_id"].astype(str).isin(set(mine["clip_id"].astype(str)))]
        rows = rows.sort_values(["clip_id", "start_s"]).assign(k=lambda f: f.groupby("clip_id").cumcount())
        typical = rows[rows["k"] < n].groupby("k")[["start_s", "end_s"]].median()
        out[event] = [(round(float(r.start_s), 2), round(float(r.end_s), 2)) for r in typical.itertuples()]
    return out
