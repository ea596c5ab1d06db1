"""Table 3: claims in time scored against the references in time, with ``sed_eval``.

A system's stated intervals of one event type (overlap, pause, noise; :data:`acousticlaim.quantities.EVENT_KEYS`)
on one clip are scored against the clip's reference list (:mod:`acousticlaim.instruments.intervals`) as sound
event detection is scored, with the field's maintained implementation, ``sed_eval`` (Mesaros, Heittola &
Virtanen 2016, the DCASE challenges' metrics):

* **event F1** — ``sed_eval.sound_event.EventBasedMetrics`` with an onset-only collar of 0.2 s: a stated
  interval is a hit when its onset lies within 0.2 s of a reference onset not yet matched;
* **segment F1** — ``sed_eval.sound_event.SegmentBasedMetrics`` at 1-s resolution over the clip: a 1-s
  segment is active when any interval touches it, and precision and recall count segments.

Both are micro-averaged over the clips of a cell (counts summed, one F1). Why ``sed_eval`` rather than
``pyannote.metrics``: the claims are *events* with onsets (a pause "at 3.2 s", a door "near the end"), and
``sed_eval`` scores exactly that, event-based with an onset collar and segment-based at a fixed resolution,
the two metrics asked for, where ``pyannote.metrics``'s detection error rate scores frame-level coverage of
speech-like segments (one collar around both boundaries, no event matching) and would score a point claim as
nothing at all.

**Point claims.** "A long pause at 3.2 s" names a moment, not a stretch. For the event-based score, a point
that falls inside a reference interval, widened by the collar on both sides, is taken as a claim of that
interval (its onset becomes the reference onset, so it is a hit if that reference is not matched already);
any other point keeps its time as the onset. For the segment-based score a point marks the 1-s segment it
falls in.

**Stated intervals as stated.** A reversed interval is scored with its bounds in order; bounds outside the
clip are cut to it (a claim wholly past the end becomes a zero-length claim at the end, a false positive
unless a reference begins there).

**Which clips.** Every generation a system made at a rung is a scored clip for every event type whose
reference list is defined there; a clip where the system stated nothing of that type scores an empty
estimate (its references are misses). Sampling seeds are pooled by clip as Table 2 pools them: the lowest
seed's generation. ``P5_intervals`` is always scored; another rung only where the system stated an interval
at it.

**Anchors.**

* *chance* — on each clip the system's stated intervals, their count and lengths kept, placed uniformly at
  random over the clip (each interval's start uniform on ``[0, T − length]``, a point uniform on ``[0, T]``),
  scored against the same references; the mean F1 over ``chance_draws`` draws and its Monte Carlo standard
  error (s.d. over draws / √draws).
* *estimator* — the estimator suite's own P5 answer on the same clips (the instruments on the heard mixture,
  :mod:`acousticlaim.panel.heard_intervals`): the best a system could do without the stems, by a plain rule.
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from acousticlaim.claims.prompts import INTERVAL_RUNG_ID, RUNG_IDS
from acousticlaim.quantities import EVENT_KEYS
from acousticlaim.scoring.config import COLLAR_S, SEGMENT_S, IntervalScoring

Interval = tuple[float, float]
Stated = tuple[float, float, bool]  # (start, end, point)

TABLE3_COLUMNS = ["system", "corpus", "event", "rung", "n_clips", "n_reference", "n_stated", "event_f1",
                  "segment_f1", "chance_event_f1", "chance_event_se", "chance_segment_f1", "chance_segment_se",
                  "estimator_event_f1", "estimator_segment_f1"]
PAIR_COLUMNS = ["system", "corpus", "rung", "seed", "clip_id", "event", "source", "start_s", "end_s", "point"]


@dataclass(frozen=True)
class ClipEvents:
    """One clip's reference intervals and stated intervals of one event type."""

    clip_id: str
    duration_s: float
    reference: tuple[Interval, ...]
    stated: tuple[Stated, ...] = field(default=())


@dataclass(frozen=True)
class IntervalScore:
    n_clips: int
    n_reference: int
    n_stated: int
    event_tp: int
    event_fp: int
    event_fn: int
    segment_tp: int
    segment_fp: int
    segment_fn: int

    @staticmethod
    def _f1(tp: int, fp: int, fn: int) -> float:
        return 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) > 0 else math.nan

    @property
    def event_f1(self) -> float:
        """F1 over the summed counts; NaN when the cell holds neither a reference nor a stated interval."""
        return self._f1(self.event_tp, self.event_fp, self.event_fn)

    @property
    def segment_f1(self) -> float:
        return self._f1(self.segment_tp, self.segment_fp, self.segment_fn)


def _sed_eval():
    # dcase_util (sed_eval's container library) warns on import about pkg_resources; nothing for a reader
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("dcase_util").setLevel(logging.ERROR)
        import sed_eval
        from dcase_util.containers import MetaDataContainer
    return sed_eval, MetaDataContainer


def in_clip(stated: Iterable[Stated], duration_s: float) -> list[Stated]:
    """Bounds in order and cut to ``[0, duration_s]`` (module docstring)."""
    out = []
    for start, end, point in stated:
        a, b = sorted((float(start), float(end)))
        out.append((min(max(a, 0.0), duration_s), min(max(b, 0.0), duration_s), bool(point)))
    return out


def snap_points(stated: Iterable[Stated], reference: Sequence[Interval], collar_s: float) -> list[Stated]:
    """A point inside a reference interval widened by the collar becomes a claim of that interval."""
    out = []
    for start, end, point in stated:
        if point:
            hit = next(((a, b) for a, b in reference if a - collar_s <= start <= b + collar_s), None)
            if hit is not None:
                out.append((hit[0], hit[1], True))
                continue
        out.append((start, end, point))
    return out


def score_clips(clips: Sequence[ClipEvents], event: str, *, collar_s: float = COLLAR_S,
                segment_s: float = SEGMENT_S) -> IntervalScore:
    """Event-based and segment-based counts of ``clips`` (one event type), summed over the clips."""
    sed_eval, Container = _sed_eval()
    ev = sed_eval.sound_event.EventBasedMetrics(event_label_list=[event], t_collar=collar_s, percentage_of_length=0.0,
                                                evaluate_onset=True, evaluate_offset=False)
    seg = sed_eval.sound_event.SegmentBasedMetrics(event_label_list=[event], time_resolution=segment_s)
    n_ref = n_stated = 0
    for clip in clips:
        stated = in_clip(clip.stated, clip.duration_s)
        ref = Container([{"filename": clip.clip_id, "event_label": event, "onset": a, "offset": b}
                         for a, b in clip.reference])

        def estimate(items: list[Stated]):
            return Container([{"filename": clip.clip_id, "event_label": event, "onset": a, "offset": b} for a, b, _ in items])

        ev.evaluate(reference_event_list=ref, estimated_event_list=estimate(snap_points(stated, clip.reference, collar_s)))
        seg.evaluate(reference_event_list=ref, estimated_event_list=estimate(stated),
                     evaluated_length_seconds=clip.duration_s)
        n_ref += len(clip.reference)
        n_stated += len(stated)
    e, s = ev.overall, seg.overall
    return IntervalScore(len(clips), n_ref, n_stated, int(e["Ntp"]), int(e["Nfp"]), int(e["Nfn"]),
                         int(s["Ntp"]), int(s["Nfp"]), int(s["Nfn"]))


def random_placement(clips: Sequence[ClipEvents], rng: np.random.Generator) -> list[ClipEvents]:
    """Each clip's stated intervals, count and lengths kept, placed uniformly at random over the clip."""
    out = []
    for clip in clips:
        placed = []
        for start, end, point in in_clip(clip.stated, clip.duration_s):
            length = 0.0 if point else end - start
            a = float(rng.uniform(0.0, max(clip.duration_s - length, 0.0)))
            placed.append((a, a + length, point))
        out.append(ClipEvents(clip.clip_id, clip.duration_s, clip.reference, tuple(placed)))
    return out


@dataclass(frozen=True)
class ChanceAnchor:
    event_f1: float
    event_se: float
    segment_f1: float
    segment_se: float
    draws: int


def chance_anchor(clips: Sequence[ClipEvents], event: str, *, draws: int = 100, seed: int = 0,
                  collar_s: float = COLLAR_S, segment_s: float = SEGMENT_S) -> ChanceAnchor:
    """Mean F1 of ``draws`` random placements of the stated intervals, with Monte Carlo standard errors."""
    rng = np.random.default_rng(seed)
    scores = [score_clips(random_placement(clips, rng), event, collar_s=collar_s, segment_s=segment_s)
              for _ in range(draws)]

    def mean_se(values: list[float]) -> tuple[float, float]:
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if v.size == 0:
            return math.nan, math.nan
        return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan

    e, e_se = mean_se([s.event_f1 for s in scores])
    g, g_se = mean_se([s.segment_f1 for s in scores])
    return ChanceAnchor(e, e_se, g, g_se, draws)


# ------------------------------------------------------------------------------------------- the table

CLAIM_KEY = ["system", "corpus", "clip_id", "rung", "seed"]
STATED_COLUMNS = CLAIM_KEY + ["event", "start_s", "end_s", "point"]  # what the scorer reads of the claims in time


def first_generations(generations: pd.DataFrame) -> pd.DataFrame:
    """One generation per (system, corpus, rung, clip): the lowest sampling seed's (Table 2's pooling)."""
    return (generations.sort_values("seed", kind="stable")
            .drop_duplicates(["system", "corpus", "rung", "clip_id"], keep="first")[CLAIM_KEY].reset_index(drop=True))


def scored_rungs(interval_claims: pd.DataFrame, system: str) -> list[str]:
    """P5_intervals, and every other rung at which ``system`` stated an interval, in rung order."""
    stated = set(interval_claims.loc[interval_claims["system"] == system, "rung"].astype(str))
    return [r for r in RUNG_IDS if r == INTERVAL_RUNG_ID or r in stated]


def _reference_lookup(ref_intervals: pd.DataFrame, ref_lists: pd.DataFrame):
    defined = ref_lists[ref_lists["defined"].astype(bool)]
    durations = {(str(c), str(e)): float(d) for c, e, d in defined[["clip_id", "event", "duration_s"]].itertuples(index=False)}
    by_key: dict[tuple[str, str], list[Interval]] = {}
    for c, e, a, b in ref_intervals[["clip_id", "event", "start_s", "end_s"]].itertuples(index=False):
        by_key.setdefault((str(c), str(e)), []).append((float(a), float(b)))
    return durations, {k: tuple(sorted(v)) for k, v in by_key.items()}


def cell_clips(generations: pd.DataFrame, interval_claims: pd.DataFrame, ref_intervals: pd.DataFrame,
               ref_lists: pd.DataFrame) -> dict[tuple[str, str, str, str], list[tuple[ClipEvents, int]]]:
    """``{(system, corpus, rung, event): [(clip events, seed), ...]}`` for every scored cell."""
    durations, refs = _reference_lookup(ref_intervals, ref_lists)
    stated: dict[tuple, list[Stated]] = {}
    for row in interval_claims[CLAIM_KEY + ["event", "start_s", "end_s", "point"]].itertuples(index=False):
        key = (str(row.system), str(row.corpus), str(row.clip_id), str(row.rung), int(row.seed), str(row.event))
        stated.setdefault(key, []).append((float(row.start_s), float(row.end_s), bool(row.point)))
    cells: dict[tuple[str, str, str, str], list[tuple[ClipEvents, int]]] = {}
    first = first_generations(generations)
    rungs = {s: set(scored_rungs(interval_claims, s)) for s in first["system"].astype(str).unique()}
    for g in first.itertuples(index=False):
        system, corpus, clip, rung, seed = str(g.system), str(g.corpus), str(g.clip_id), str(g.rung), int(g.seed)
        if rung not in rungs[system]:
            continue
        for event in EVENT_KEYS:
            if (clip, event) not in durations:
                continue  # no reference list of this type on this clip
            events = ClipEvents(clip, durations[clip, event], refs.get((clip, event), ()),
                                tuple(stated.get((system, corpus, clip, rung, seed, event), ())))
            cells.setdefault((system, corpus, rung, event), []).append((events, seed))
    return cells


def interval_table(generations: pd.DataFrame, interval_claims: pd.DataFrame, ref_intervals: pd.DataFrame,
                   ref_lists: pd.DataFrame, settings: IntervalScoring | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(Table 3, the intervals every scored clip was scored on: :data:`PAIR_COLUMNS`)."""
    settings = settings or IntervalScoring()
    cells = cell_clips(generations, interval_claims, ref_intervals, ref_lists)
    rows, pairs = [], []
    for (system, corpus, rung, event), items in sorted(cells.items()):
        clips = [c for c, _ in items]
        score = score_clips(clips, event, collar_s=settings.collar_s, segment_s=settings.segment_s)
        chance = chance_anchor(clips, event, draws=settings.chance_draws, seed=settings.seed,
                               collar_s=settings.collar_s, segment_s=settings.segment_s)
        anchor = cells.get((settings.estimator_system, corpus, INTERVAL_RUNG_ID, event), [])
        mine = {c.clip_id for c in clips}
        same = [c for c, _ in anchor if c.clip_id in mine]
        est = score_clips(same, event, collar_s=settings.collar_s, segment_s=settings.segment_s) if same else None
        rows.append({"system": system, "corpus": corpus, "event": event, "rung": rung, "n_clips": score.n_clips,
                     "n_reference": score.n_reference, "n_stated": score.n_stated, "event_f1": score.event_f1,
                     "segment_f1": score.segment_f1, "chance_event_f1": chance.event_f1,
                     "chance_event_se": chance.event_se, "chance_segment_f1": chance.segment_f1,
                     "chance_segment_se": chance.segment_se,
                     "estimator_event_f1": est.event_f1 if est else math.nan,
                     "estimator_segment_f1": est.segment_f1 if est else math.nan})
        for clip, seed in items:
            base = {"system": system, "corpus": corpus, "rung": rung, "seed": seed, "clip_id": clip.clip_id, "event": event}
            pairs += [{**base, "source": "reference", "start_s": a, "end_s": b, "point": False} for a, b in clip.reference]
            pairs += [{**base, "source": "stated", "start_s": a, "end_s": b, "point": p} for a, b, p in clip.stated]
    return pd.DataFrame(rows, columns=TABLE3_COLUMNS), pd.DataFrame(pairs, columns=PAIR_COLUMNS)


def table3_metrics(table3: pd.DataFrame) -> dict:
    """Headline numbers per system: mean event and segment F1 at P5_intervals over event types and corpora."""
    out: dict = {}
    p5 = table3[table3["rung"] == INTERVAL_RUNG_ID]
    for system, part in p5.groupby("system"):
        out[str(system)] = {
            "event_f1": _mean(part["event_f1"]), "segment_f1": _mean(part["segment_f1"]),
            "chance_event_f1": _mean(part["chance_event_f1"]), "chance_segment_f1": _mean(part["chance_segment_f1"]),
            "cells": int(len(part)),
        }
    return out


def _mean(values: pd.Series) -> float | None:
    v = pd.to_numeric(values, errors="coerce")
    return float(v.mean()) if v.notna().any() else None
