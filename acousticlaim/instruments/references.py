"""The reference table: every instrument reading of every clip, with its tier and the signal it was read on.

``build_references(corpus_dir, out_dir, params, executor)`` is the `references` DVC stage. It writes
``references.parquet`` in long format — one row per clip and quantity:

``clip_id, quantity, value, defined, reason, tier, signal, half1, half2``

* ``value`` is NaN exactly when ``defined`` is false, and then ``reason`` says why;
* ``tier`` is the registry's tier for that quantity on that clip's corpus condition
  (:mod:`acousticlaim.quantities`; null for the unscored quantities);
* ``signal`` is what was read: ``mixture``, ``twin``, ``stem``, ``masked_mixture`` or ``channel``;
* ``half1``/``half2`` are the readings on the first and second half of the stem for jitter, shimmer
  and HNR (split-half reliability), else NaN.

Where each reference is read is the registry's (``Quantity.signal`` per corpus condition and
``Quantity.reader``, ``SPEC.md`` §1; :mod:`acousticlaim.instruments.readers` reads them): a mixture's SNR
from its stems, its SRMR on the mixture, F0 outside the overlap windows, timing, jitter, shimmer and HNR
(with the two half-stem readings) on the target stem ``s1``; a twin and an AMI clip read everything on
their own audio (the twin's SNR from its parent's stems; AMI's SNR and pauses are excluded).

The twin's audio is the mixture's stem ``s1``; a job holds a mixture and its twin, so that stem is
decoded once and its Praat objects and timing are built once for both clips.

Beside the table: ``overlap.parquet`` (per mixture: the manifest's overlap fraction, the fraction
inside the VAD overlap windows, the windows), the references in time ``intervals.parquet`` and
``interval_lists.parquet`` (overlap windows, pauses and noise events per clip,
:mod:`acousticlaim.instruments.intervals`), ``failures.parquet`` and ``summary.json``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from acousticlaim.audio import AudioError, load_audio
from acousticlaim.corpus.ami import AMI_SPEECH
from acousticlaim.corpus.manifest import read_manifest, resolve_path
from acousticlaim.corpus.scenes import read_scene_events
from acousticlaim.executor import check_failures, map_clips, rejected_failures_path
from acousticlaim.failures import Failure, write_failures
from acousticlaim.instruments.intervals import (NO_NOISE_STEM, annotated_overlap, NO_STEMS_OVERLAP, SCENE_EVENT_FIELDS, intervals_frame,
                                                list_rows, lists_frame, noise_reference)
from acousticlaim.instruments.overlap import overlap_windows
from acousticlaim.instruments.readers import Signal, describe, read_quantities
from acousticlaim.instruments.reading import Reading
from acousticlaim.instruments.settings import ReferencesSettings
from acousticlaim.io import write_json, write_parquet
from acousticlaim.params import settings_from
from acousticlaim.quantities import ALL_KEYS, SPLIT_HALF_KEYS, Corpus, get

STAGE = "references"
REFERENCE_COLUMNS = ["clip_id", "quantity", "value", "defined", "reason", "tier", "signal", "half1", "half2"]
PATH_COLUMNS = ("audio_path", "s1_path", "s2_path", "noise_path")  # the manifest's paths a job reads
OVERLAP_COLUMNS = ["clip_id", "split", "manifest_overlap_fraction", "vad_overlap_fraction", "n_windows", "overlap_windows"]

DEFAULT_PARAMS: dict[str, Any] = asdict(ReferencesSettings())


# ------------------------------------------------------------------------------------------- rows

def _row(clip_id: str, key: str, reading: Reading, corpus: Corpus, halves: tuple[Reading, Reading] | None = None,
         signal: str | None = None) -> dict:
    """One reference row; the signal it is read on is the registry's for ``corpus`` unless given."""
    q = get(key)
    tier = q.tier(corpus)
    signal = signal or q.signal(corpus)
    return {
        "clip_id": clip_id,
        "quantity": key,
        "value": reading.value,
        "defined": reading.defined,
        "reason": reading.reason,
        "tier": tier.value if tier is not None else None,
        "signal": signal,
        "half1": halves[0].value if halves else math.nan,
        "half2": halves[1].value if halves else math.nan,
    }


def undefined_rows(clip_id: str, corpus: Corpus, signal: str, reason: str) -> list[dict]:
    """A clip whose audio cannot be used: every quantity undefined with the same reason."""
    u = Reading.undefined(reason)
    return [_row(clip_id, key, u, corpus, (u, u) if key in SPLIT_HALF_KEYS else None, signal) for key in ALL_KEYS]


# ------------------------------------------------------------------------------------------ a job

class _Job:
    """The decoded signals of one job, keyed by file, and the failures met along the way."""

    def __init__(self, manifest_dir: str, params: dict):
        self.manifest_dir = Path(manifest_dir)
        self.params = params
        self.signals: dict[Path, Signal] = {}
        self.failures: list[Failure] = []

    def signal(self, row: dict, column: str) -> Signal:
        path = resolve_path(self.manifest_dir, row.get(column))
        if path is None:
            raise AudioError(row["clip_id"], f"the manifest gives no {column}")
        if path not in self.signals:
            # silence is left to the instruments, which explain what it leaves undefined
            x, sr = load_audio(path, allow_silent=True)
            self.signals[path] = Signal(x, sr)
        return self.signals[path]

    def guarded(self, clip_id: str, what: str, keys: tuple[str, ...], fn: Callable[[], dict[str, Reading]]) -> dict[str, Reading]:
        """Run an instrument; an unexpected error is a recorded failure (once per reason) and undefined readings."""
        try:
            return fn()
        except AudioError as exc:
            reason = f"{what}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a bug or a library error never stops the stage
            reason = f"{what} raised {type(exc).__name__}: {' '.join(str(exc).split())}"
        failure = Failure(clip_id, STAGE, reason)
        if failure not in self.failures:  # two readers sharing a failed step record it once
            self.failures.append(failure)
        return {k: Reading.undefined(reason) for k in keys}


# The manifest column each signal of a clip is decoded from.
_SIGNAL_COLUMNS = {"mixture": "audio_path", "twin": "audio_path", "channel": "audio_path",
                   "masked_mixture": "audio_path", "stem": "s1_path"}


class _ManifestClip:
    """One manifest row as the readers see it (:class:`acousticlaim.instruments.readers.Clip`)."""

    def __init__(self, job: _Job, row: dict, overlap_out: list[dict]):
        self.job, self.row, self.params, self.overlap_out = job, row, job.params, overlap_out
        self._windows: tuple[float, list] | None = None

    def signal(self, name: str) -> Signal:
        return self.job.signal(self.row, _SIGNAL_COLUMNS[name])

    def stems(self) -> tuple[Signal, Signal, Signal]:
        return tuple(self.job.signal(self.row, c) for c in ("s1_path", "s2_path", "noise_path"))  # type: ignore[return-value]

    def overlap_windows(self) -> tuple[float, list]:
        if self._windows is None:
            row, params = self.row, self.params
            s1, s2 = self.job.signal(row, "s1_path"), self.job.signal(row, "s2_path")
            windows = overlap_windows(s1.x, s2.x, s1.sr, min_overlap_s=float(params["min_overlap_s"]),
                                      vad=params.get("vad"))
            self.overlap_out.append({
                "clip_id": row["clip_id"], "split": row.get("split"),
                "manifest_overlap_fraction": float(row["overlap_fraction"]) if row.get("overlap_fraction") is not None else math.nan,
                "vad_overlap_fraction": windows.fraction, "n_windows": len(windows.windows),
                "overlap_windows": ";".join(f"{int(round(a * s1.sr))}-{int(round(b * s1.sr))}" for a, b in windows.windows),
            })
            self._windows = (windows.fraction, windows.windows)
        return self._windows


def _halves(sig: Callable[[], Signal], key: str) -> tuple[Reading, Reading] | None:
    """The half readings of ``key`` (None when they cannot be had: the full reading says why)."""
    try:
        return sig().voice().halves.get(key)
    except Exception:  # noqa: BLE001 - the full reading already recorded the failure
        return None


def _interval_lists(job: _Job, clip: _ManifestClip, corpus: Corpus) -> tuple[list[dict], list[dict]]:
    """The clip's references in time (overlap windows, pauses, noise events). Each list is read by the
    instrument its quantity's reference is read by, on the same signal; an instrument that fails leaves its
    list undefined with the recorded failure's reason."""
    row, clip_id = clip.row, clip.row["clip_id"]
    duration = clip.signal(get("duration").signal(corpus)).duration
    lists: dict[str, tuple[list | None, str, str]] = {}

    def read(what: str, fn: Callable[[], tuple[list | None, str]]) -> tuple[list | None, str]:
        got = job.guarded(clip_id, what, ("list",), lambda: {"list": fn()})["list"]
        return (None, got.reason or what) if isinstance(got, Reading) else got

    overlap_signal = get("overlap_ratio").signal(corpus)
    if overlap_signal == "stem":
        lists["overlap"] = (*read(describe("overlap", "stem"), lambda: (list(clip.overlap_windows()[1]), "")), "stem")
    elif corpus is Corpus.AMI and row.get("annotated_speech") is not None:
        windows = annotated_overlap(row["annotated_speech"], float(job.params["min_overlap_s"]))
        lists["overlap"] = (windows, "", "annotations")
    else:
        lists["overlap"] = ([] if corpus is Corpus.TWIN else None, NO_STEMS_OVERLAP, overlap_signal)

    pause_signal = get("pause_count").signal(corpus)

    def pauses() -> tuple[list | None, str]:
        timing = clip.signal(pause_signal).timing()
        if not timing.pause_count.defined:
            return None, timing.pause_count.reason or "pauses undefined"
        return list(timing.pause_intervals), ""

    lists["pause"] = (*read(describe("timing", pause_signal), pauses), pause_signal)
    min_level = float(job.params["intervals"]["noise_min_level_db"])
    noise = noise_reference(row, duration, min_level)
    lists["noise"] = (noise, NO_NOISE_STEM, "scene_events" if row.get("scene_mode") else "noise")
    return list_rows(clip_id, duration, lists)


def _clip_rows(job: _Job, row: dict, corpus: Corpus, own_signal: str, overlap_out: list[dict],
               intervals_out: tuple[list[dict], list[dict]] | None = None) -> list[dict]:
    """Every quantity of one clip, each read by its registry reader on its registry signal for ``corpus``."""
    clip_id = row["clip_id"]
    try:
        job.signal(row, "audio_path")
    except AudioError as exc:
        job.failures.append(Failure(clip_id, STAGE, str(exc)))
        what = "mixture audio" if corpus is Corpus.LIBRIMIX else "audio"
        return undefined_rows(clip_id, corpus, own_signal, f"{what} unusable: {exc.reason}")
    clip = _ManifestClip(job, row, overlap_out)
    readings = read_quantities(clip, corpus, ALL_KEYS, lambda what, keys, fn: job.guarded(clip_id, what, keys, fn))
    rows = []
    for key in ALL_KEYS:
        q = get(key)
        halves = None
        if q.split_half and readings[key].defined:
            halves = _halves(lambda: clip.signal(q.signal(corpus)), key)
        rows.append(_row(clip_id, key, readings[key], corpus, halves))
    if intervals_out is not None:
        intervals, lists = _interval_lists(job, clip, corpus)
        intervals_out[0].extend(intervals)
        intervals_out[1].extend(lists)
    return rows


def _clip_condition(row: dict) -> tuple[Corpus, str]:
    """(registry corpus condition, the clip's own signal) of a manifest row."""
    kind, corpus = row.get("kind"), row.get("corpus")
    if corpus == "ami" or kind == "clip":
        return Corpus.AMI, "channel"
    if kind == "twin":
        return Corpus.TWIN, "twin"
    if kind == "mixture":
        return Corpus.LIBRIMIX, "mixture"
    raise ValueError(f"clip {row.get('clip_id')!r}: unknown kind {kind!r} for corpus {corpus!r}")


def reference_job(job: dict) -> dict:
    """All reference rows of one job (a mixture with its twin, or one clip): a pure function of the job.

    ``job`` = ``{"clips": [manifest rows], "manifest_dir": str, "params": references params}``.
    Returns ``{"rows", "overlap", "intervals", "interval_lists", "failures", "seconds"}``; nothing raises for
    a bad clip.
    """
    started = time.perf_counter()
    params = {**DEFAULT_PARAMS, **(job.get("params") or {})}
    threads = params.get("torch_threads")
    if threads:
        import torch

        if torch.get_num_threads() != int(threads):
            torch.set_num_threads(int(threads))
    state = _Job(job["manifest_dir"], params)
    rows: list[dict] = []
    overlap: list[dict] = []
    intervals: tuple[list[dict], list[dict]] = ([], [])
    for clip in job["clips"]:
        corpus, signal = Corpus.LIBRIMIX, "mixture"
        try:
            corpus, signal = _clip_condition(clip)
            rows += _clip_rows(state, clip, corpus, signal, overlap, intervals)
        except Exception as exc:  # noqa: BLE001 - recorded, never a crash of the stage
            reason = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            state.failures.append(Failure(str(clip.get("clip_id")), STAGE, reason))
            rows += undefined_rows(str(clip.get("clip_id")), corpus, signal, reason)
    return {"rows": rows, "overlap": overlap, "intervals": intervals[0], "interval_lists": intervals[1],
            "failures": state.failures, "seconds": time.perf_counter() - started}


# ----------------------------------------------------------------------------------------- stage

def _clean(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def plan_jobs(manifest: pd.DataFrame, manifest_dir: str | Path, params: dict | None = None,
              scene_events: pd.DataFrame | None = None, ami_speech: pd.DataFrame | None = None) -> list[dict]:
    """One job per mixture (with its twins) and one per other clip, in manifest order.

    The manifest's audio paths are made absolute here (a job runs in whatever working directory its
    worker has); a scenes corpus's clips carry their sources in time (``scene_events``), an AMI corpus's
    clips every participant's annotated speech (``ami_speech``, when the corpus had the annotations)."""
    base = Path(manifest_dir).absolute()
    records = [{k: _clean(v) for k, v in rec.items()} for rec in manifest.to_dict(orient="records")]
    by_clip: dict[str, list[dict]] = {}
    if scene_events is not None and len(scene_events):
        for rec in scene_events[["clip_id", *SCENE_EVENT_FIELDS]].to_dict(orient="records"):
            by_clip.setdefault(str(rec.pop("clip_id")), []).append({k: _clean(v) for k, v in rec.items()})
    speech: dict[str, list[dict]] = {}
    if ami_speech is not None:
        for rec in ami_speech.to_dict(orient="records"):
            speech.setdefault(str(rec["clip_id"]), []).append(
                {"speaker": str(rec["speaker"]), "start_s": float(rec["start_s"]), "end_s": float(rec["end_s"])})
    for r in records:
        if r.get("scene_mode"):
            r["scene_events"] = by_clip.get(str(r["clip_id"]), [])
        if ami_speech is not None and r.get("source") == "ami":
            r["annotated_speech"] = speech.get(str(r["clip_id"]), [])
        for column in PATH_COLUMNS:
            path = resolve_path(base, r.get(column))
            if path is not None:
                r[column] = str(path)
    twins: dict[str, list[dict]] = {}
    mixture_ids = {r["clip_id"] for r in records if r.get("kind") == "mixture"}
    for r in records:
        if r.get("kind") == "twin" and r.get("mixture_id") in mixture_ids:
            twins.setdefault(r["mixture_id"], []).append(r)
    jobs = []
    for r in records:
        if r.get("kind") == "twin" and r.get("mixture_id") in mixture_ids:
            continue  # travels with its mixture
        clips = [r] + (twins.get(r["clip_id"], []) if r.get("kind") == "mixture" else [])
        jobs.append({"clips": clips, "manifest_dir": str(base), "params": dict(params or {})})
    return jobs


def references_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=REFERENCE_COLUMNS)
    frame["value"] = frame["value"].astype("float64")
    frame["defined"] = frame["defined"].astype(bool)
    frame["half1"] = frame["half1"].astype("float64")
    frame["half2"] = frame["half2"].astype("float64")
    return frame


def overlap_agreement(overlap: pd.DataFrame) -> dict[str, Any]:
    """How the manifest's overlap fraction agrees with the fraction inside the VAD overlap windows."""
    both = overlap.dropna(subset=["manifest_overlap_fraction", "vad_overlap_fraction"])
    if both.empty:
        return {"n": 0}
    a, b = both["manifest_overlap_fraction"].to_numpy(), both["vad_overlap_fraction"].to_numpy()
    out: dict[str, Any] = {
        "n": int(both.shape[0]),
        "manifest_mean": float(a.mean()),
        "vad_mean": float(b.mean()),
        "mean_abs_diff": float(np.mean(np.abs(a - b))),
        "max_abs_diff": float(np.max(np.abs(a - b))),
        "share_within_0.1": float(np.mean(np.abs(a - b) <= 0.1)),
    }
    if both.shape[0] >= 3 and np.ptp(a) > 0 and np.ptp(b) > 0:
        from scipy.stats import pearsonr, spearmanr

        out["pearson_r"] = float(pearsonr(a, b)[0])
        out["spearman_rho"] = float(spearmanr(a, b)[0])
    return out


@dataclass
class ReferencesResult:
    references: pd.DataFrame
    overlap: pd.DataFrame
    failures: list[Failure]
    summary: dict[str, Any]
    intervals: pd.DataFrame = field(default_factory=lambda: intervals_frame([]))
    interval_lists: pd.DataFrame = field(default_factory=lambda: lists_frame([]))


def compute_references(manifest: pd.DataFrame, manifest_dir: str | Path, params: dict | None = None,
                       executor: dict | None = None, scene_events: pd.DataFrame | None = None,
                       ami_speech: pd.DataFrame | None = None) -> ReferencesResult:
    """Read every reference of every clip in ``manifest`` (no files written)."""
    started = time.perf_counter()
    jobs = plan_jobs(manifest, manifest_dir, params, scene_events, ami_speech)
    results = map_clips(reference_job, jobs, executor=executor, label="references")
    rows = [row for r in results for row in r["rows"]]
    failures = [f for r in results for f in r["failures"]]
    references = references_frame(rows)
    overlap = pd.DataFrame([o for r in results for o in r["overlap"]], columns=OVERLAP_COLUMNS)
    intervals = intervals_frame([i for r in results for i in r.get("intervals", [])])
    interval_lists = lists_frame([i for r in results for i in r.get("interval_lists", [])])
    defined_share = references.groupby("quantity")["defined"].mean()
    summary = {
        "clips": int(references["clip_id"].nunique()),
        "rows": int(references.shape[0]),
        "jobs": len(jobs),
        "failures": len(failures),
        "defined_share": {k: float(defined_share.get(k, float("nan"))) for k in ALL_KEYS},
        "overlap_agreement": overlap_agreement(overlap),
        "interval_lists_defined": {str(e): int(n) for e, n in interval_lists.groupby("event")["defined"].sum().items()},
        "intervals": {str(e): int(n) for e, n in intervals.groupby("event").size().items()},
        "job_seconds_total": float(sum(r["seconds"] for r in results)),
        "wall_seconds": time.perf_counter() - started,
    }
    return ReferencesResult(references, overlap, failures, summary, intervals, interval_lists)


def build_references(corpus_dir: str | Path, out_dir: str | Path, params: dict | None = None,
                     executor: dict | None = None) -> ReferencesResult:
    """The `references` stage: read ``corpus_dir``'s manifest, write the tables under ``out_dir``.

    Raises :class:`~acousticlaim.executor.StageFailed`, writing nothing, when more than
    ``executor.max_failure_share`` of the clips failed or no reading at all was defined.
    """
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    params = asdict(settings_from(ReferencesSettings, params, "references"))
    manifest = read_manifest(corpus_dir)
    scene_events = read_scene_events(corpus_dir) if (corpus_dir / "scene_events.parquet").exists() else None
    ami_speech = pd.read_parquet(corpus_dir / AMI_SPEECH) if (corpus_dir / AMI_SPEECH).exists() else None
    result = compute_references(manifest, corpus_dir, params, executor, scene_events, ami_speech)
    # a clip with no defined reading still has its rows (undefined, with the reason): count what was read
    check_failures(STAGE, n_clips=len(manifest), n_rows=int(result.references["defined"].sum()),
                   failures=result.failures, executor=executor, rejected_failures=rejected_failures_path(out_dir))
    write_parquet(out_dir / "references.parquet", result.references)
    write_parquet(out_dir / "overlap.parquet", result.overlap)
    write_parquet(out_dir / "intervals.parquet", result.intervals)
    write_parquet(out_dir / "interval_lists.parquet", result.interval_lists)
    write_failures(out_dir / "failures.parquet", result.failures)
    write_json(out_dir / "summary.json", result.summary)
    return result
