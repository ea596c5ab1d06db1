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

Where each reference is read (``SPEC.md`` §1):

=====================  ==========================  ======================  ==============
quantity               Libri2Mix-style mixture     clean twin              AMI clip
=====================  ==========================  ======================  ==============
snr                    stems: s1+s2 vs noise       the parent's stems      channel (excluded)
srmr                   mixture                     twin                    channel
speaking/pause timing  stem s1                     twin                    channel (pauses excluded)
f0_mean, f0_sd         mixture outside overlap     twin                    channel
jitter, shimmer, hnr   stem s1 (+ halves)          twin (+ halves)         channel (+ halves)
overlap_ratio          Silero VAD on s1 and s2     0 (one talker)          undefined (no stems)
articulation_rate      stem s1                     twin                    channel
duration               mixture                     twin                    channel
=====================  ==========================  ======================  ==============

The twin's audio is the mixture's stem ``s1``; a job holds a mixture and its twin, so that stem is
decoded once and its Praat objects and timing are built once for both clips.

Beside the table: ``overlap.parquet`` (per mixture: the manifest's overlap fraction, the fraction
inside the VAD overlap windows, the windows), ``failures.parquet`` and ``summary.json``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from acousticlaim.audio import AudioError, load_audio
from acousticlaim.corpus.manifest import read_manifest, resolve_path
from acousticlaim.executor import check_failures, map_clips, rejected_failures_path
from acousticlaim.failures import Failure, write_failures
from acousticlaim.instruments.overlap import DEFAULT_VAD, MIN_OVERLAP_S, overlap_windows
from acousticlaim.instruments.praat import PraatAnalysis, VoiceReadings, read_f0, read_voice
from acousticlaim.instruments.reading import Reading
from acousticlaim.instruments.snr import dynamic_range_snr, mixing_snr
from acousticlaim.instruments.srmr import srmr
from acousticlaim.instruments.timing import TimingReadings, read_timing
from acousticlaim.io import write_json, write_parquet
from acousticlaim.quantities import ALL_KEYS, SPLIT_HALF_KEYS, Corpus, get

STAGE = "references"
REFERENCE_COLUMNS = ["clip_id", "quantity", "value", "defined", "reason", "tier", "signal", "half1", "half2"]
PATH_COLUMNS = ("audio_path", "s1_path", "s2_path", "noise_path")  # the manifest's paths a job reads
OVERLAP_COLUMNS = ["clip_id", "split", "manifest_overlap_fraction", "vad_overlap_fraction", "n_windows", "overlap_windows"]

DEFAULT_PARAMS: dict[str, Any] = {
    "srmr_fast": True,
    "min_overlap_s": MIN_OVERLAP_S,
    "vad": dict(DEFAULT_VAD),
    "torch_threads": 1,
}


# ------------------------------------------------------------------------------------------- rows

def _row(clip_id: str, key: str, reading: Reading, corpus: Corpus, signal: str, halves: tuple[Reading, Reading] | None = None) -> dict:
    tier = get(key).tier(corpus)
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
    return [_row(clip_id, key, u, corpus, signal, (u, u) if key in SPLIT_HALF_KEYS else None) for key in ALL_KEYS]


# ------------------------------------------------------------------------------------------ a job

@dataclass
class _Signal:
    """One decoded waveform with its Praat objects, voice readings and timing, each built once."""

    x: np.ndarray
    sr: int

    def __post_init__(self) -> None:
        self.analysis = PraatAnalysis(self.x, self.sr)
        self._voice: VoiceReadings | None = None
        self._timing: TimingReadings | None = None

    @property
    def duration(self) -> float:
        return self.x.size / self.sr

    def voice(self) -> VoiceReadings:
        if self._voice is None:
            self._voice = read_voice(self.analysis, halves=True)
        return self._voice

    def timing(self) -> TimingReadings:
        if self._timing is None:
            self._timing = read_timing(self.x, self.sr)
        return self._timing


class _Job:
    """The decoded signals of one job, keyed by file, and the failures met along the way."""

    def __init__(self, manifest_dir: str, params: dict):
        self.manifest_dir = Path(manifest_dir)
        self.params = params
        self.signals: dict[Path, _Signal] = {}
        self.failures: list[Failure] = []

    def signal(self, row: dict, column: str) -> _Signal:
        path = resolve_path(self.manifest_dir, row.get(column))
        if path is None:
            raise AudioError(row["clip_id"], f"the manifest gives no {column}")
        if path not in self.signals:
            # silence is left to the instruments, which explain what it leaves undefined
            x, sr = load_audio(path, allow_silent=True)
            self.signals[path] = _Signal(x, sr)
        return self.signals[path]

    def guarded(self, clip_id: str, what: str, keys: tuple[str, ...], fn: Callable[[], dict[str, Reading]]) -> dict[str, Reading]:
        """Run an instrument; an unexpected error is a recorded failure and undefined readings."""
        try:
            return fn()
        except AudioError as exc:
            reason = f"{what}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a bug or a library error never stops the stage
            reason = f"{what} raised {type(exc).__name__}: {' '.join(str(exc).split())}"
        self.failures.append(Failure(clip_id, STAGE, reason))
        return {k: Reading.undefined(reason) for k in keys}


def _voice_readings(sig: _Signal) -> dict[str, Reading]:
    return sig.voice().as_dict()


def _halves(sig: Callable[[], _Signal], key: str) -> tuple[Reading, Reading] | None:
    """The half readings of ``key`` (None when they cannot be had: the full reading says why)."""
    try:
        return sig().voice().halves.get(key)
    except Exception:  # noqa: BLE001 - the full reading already recorded the failure
        return None


def _stem_snr(job: _Job, row: dict) -> dict[str, Reading]:
    s1, s2, noise = (job.signal(row, c) for c in ("s1_path", "s2_path", "noise_path"))
    return {"snr": mixing_snr([s1.x, s2.x], noise.x)}


def _mixture_rows(job: _Job, row: dict, overlap_out: list[dict]) -> list[dict]:
    clip = row["clip_id"]
    corpus = Corpus.LIBRIMIX
    try:
        mix = job.signal(row, "audio_path")
    except AudioError as exc:
        job.failures.append(Failure(clip, STAGE, str(exc)))
        return undefined_rows(clip, corpus, "mixture", f"mixture audio unusable: {exc.reason}")
    params = job.params
    rows: list[dict] = []

    r = job.guarded(clip, "mixing SNR", ("snr",), lambda: _stem_snr(job, row))
    rows.append(_row(clip, "snr", r["snr"], corpus, "stem"))
    r = job.guarded(clip, "SRMR", ("srmr",), lambda: {"srmr": srmr(mix.x, mix.sr, fast=bool(params["srmr_fast"]))})
    rows.append(_row(clip, "srmr", r["srmr"], corpus, "mixture"))

    def masked_f0() -> dict[str, Reading]:
        s1, s2 = job.signal(row, "s1_path"), job.signal(row, "s2_path")
        windows = overlap_windows(s1.x, s2.x, s1.sr, min_overlap_s=float(params["min_overlap_s"]), vad=params.get("vad"))
        overlap_out.append({
            "clip_id": clip, "split": row.get("split"),
            "manifest_overlap_fraction": float(row["overlap_fraction"]) if row.get("overlap_fraction") is not None else math.nan,
            "vad_overlap_fraction": windows.fraction, "n_windows": len(windows.windows),
            "overlap_windows": ";".join(f"{int(round(a * s1.sr))}-{int(round(b * s1.sr))}" for a, b in windows.windows),
        })
        f0_mean, f0_sd = read_f0(mix.analysis, windows.windows)
        return {"f0_mean": f0_mean, "f0_sd": f0_sd, "overlap_ratio": Reading(windows.fraction)}

    r = job.guarded(clip, "overlap windows and masked F0", ("f0_mean", "f0_sd", "overlap_ratio"), masked_f0)
    rows += [_row(clip, k, r[k], corpus, "masked_mixture") for k in ("f0_mean", "f0_sd")]
    overlap_reading = r["overlap_ratio"]

    timing = job.guarded(clip, "timing on stem s1", ("speaking_rate", "articulation_rate", "pause_count", "pause_rate"),
                         lambda: job.signal(row, "s1_path").timing().as_dict())
    rows += [_row(clip, k, timing[k], corpus, "stem") for k in ("speaking_rate", "pause_count", "pause_rate")]
    voice = job.guarded(clip, "Praat on stem s1", ("f0_mean", "f0_sd", "jitter", "shimmer", "hnr"),
                        lambda: _voice_readings(job.signal(row, "s1_path")))
    for k in SPLIT_HALF_KEYS:
        halves = _halves(lambda: job.signal(row, "s1_path"), k) if voice[k].defined else None
        rows.append(_row(clip, k, voice[k], corpus, "stem", halves))
    rows.append(_row(clip, "overlap_ratio", overlap_reading, corpus, "stem"))
    rows.append(_row(clip, "articulation_rate", timing["articulation_rate"], corpus, "stem"))
    rows.append(_row(clip, "duration", Reading(mix.duration), corpus, "mixture"))
    return rows


def _single_signal_rows(job: _Job, row: dict, corpus: Corpus, signal: str) -> list[dict]:
    """A twin or an AMI clip: every reference on the clip's own audio."""
    clip = row["clip_id"]
    try:
        sig = job.signal(row, "audio_path")
    except AudioError as exc:
        job.failures.append(Failure(clip, STAGE, str(exc)))
        return undefined_rows(clip, corpus, signal, f"audio unusable: {exc.reason}")
    rows: list[dict] = []
    if corpus is Corpus.TWIN:  # the mixing SNR of the parent mixture: a mixing parameter, read from its stems
        r = job.guarded(clip, "mixing SNR", ("snr",), lambda: _stem_snr(job, row))
        rows.append(_row(clip, "snr", r["snr"], corpus, "stem"))
    else:
        r = job.guarded(clip, "dynamic-range SNR", ("snr",), lambda: {"snr": dynamic_range_snr(sig.x, sig.sr)})
        rows.append(_row(clip, "snr", r["snr"], corpus, signal))
    r = job.guarded(clip, "SRMR", ("srmr",), lambda: {"srmr": srmr(sig.x, sig.sr, fast=bool(job.params["srmr_fast"]))})
    rows.append(_row(clip, "srmr", r["srmr"], corpus, signal))
    timing = job.guarded(clip, "timing", ("speaking_rate", "articulation_rate", "pause_count", "pause_rate"), lambda: sig.timing().as_dict())
    rows += [_row(clip, k, timing[k], corpus, signal) for k in ("speaking_rate", "pause_count", "pause_rate")]
    voice = job.guarded(clip, "Praat", ("f0_mean", "f0_sd", "jitter", "shimmer", "hnr"), lambda: _voice_readings(sig))
    rows += [_row(clip, k, voice[k], corpus, signal) for k in ("f0_mean", "f0_sd")]
    for k in SPLIT_HALF_KEYS:
        rows.append(_row(clip, k, voice[k], corpus, signal, _halves(lambda: sig, k) if voice[k].defined else None))
    if corpus is Corpus.TWIN:
        rows.append(_row(clip, "overlap_ratio", Reading(0.0), corpus, signal))
    else:
        rows.append(_row(clip, "overlap_ratio", Reading.undefined("no separated stems for this clip: overlap windows cannot be read"), corpus, signal))
    rows.append(_row(clip, "articulation_rate", timing["articulation_rate"], corpus, signal))
    rows.append(_row(clip, "duration", Reading(sig.duration), corpus, signal))
    return rows


def _clip_condition(row: dict) -> tuple[str, Corpus, str]:
    """(kind of reading, registry corpus condition, signal name) of a manifest row."""
    kind, corpus = row.get("kind"), row.get("corpus")
    if corpus == "ami" or kind == "clip":
        return "single", Corpus.AMI, "channel"
    if kind == "twin":
        return "single", Corpus.TWIN, "twin"
    if kind == "mixture":
        return "mixture", Corpus.LIBRIMIX, "mixture"
    raise ValueError(f"clip {row.get('clip_id')!r}: unknown kind {kind!r} for corpus {corpus!r}")


def reference_job(job: dict) -> dict:
    """All reference rows of one job (a mixture with its twin, or one clip): a pure function of the job.

    ``job`` = ``{"clips": [manifest rows], "manifest_dir": str, "params": references params}``.
    Returns ``{"rows", "overlap", "failures", "seconds"}``; nothing raises for a bad clip.
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
    for clip in job["clips"]:
        corpus, signal = Corpus.LIBRIMIX, "mixture"
        try:
            reading, corpus, signal = _clip_condition(clip)
            if reading == "mixture":
                rows += _mixture_rows(state, clip, overlap)
            else:
                rows += _single_signal_rows(state, clip, corpus, signal)
        except Exception as exc:  # noqa: BLE001 - recorded, never a crash of the stage
            reason = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            state.failures.append(Failure(str(clip.get("clip_id")), STAGE, reason))
            rows += undefined_rows(str(clip.get("clip_id")), corpus, signal, reason)
    return {"rows": rows, "overlap": overlap, "failures": state.failures, "seconds": time.perf_counter() - started}


# ----------------------------------------------------------------------------------------- stage

def _clean(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def plan_jobs(manifest: pd.DataFrame, manifest_dir: str | Path, params: dict | None = None) -> list[dict]:
    """One job per mixture (with its twins) and one per other clip, in manifest order.

    The manifest's audio paths are made absolute here (a job runs in whatever working directory its
    worker has)."""
    base = Path(manifest_dir).absolute()
    records = [{k: _clean(v) for k, v in rec.items()} for rec in manifest.to_dict(orient="records")]
    for r in records:
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


def compute_references(manifest: pd.DataFrame, manifest_dir: str | Path, params: dict | None = None,
                       executor: dict | None = None) -> ReferencesResult:
    """Read every reference of every clip in ``manifest`` (no files written)."""
    started = time.perf_counter()
    jobs = plan_jobs(manifest, manifest_dir, params)
    results = map_clips(reference_job, jobs, executor=executor, label="references")
    rows = [row for r in results for row in r["rows"]]
    failures = [f for r in results for f in r["failures"]]
    references = references_frame(rows)
    overlap = pd.DataFrame([o for r in results for o in r["overlap"]], columns=OVERLAP_COLUMNS)
    defined_share = references.groupby("quantity")["defined"].mean()
    summary = {
        "clips": int(references["clip_id"].nunique()),
        "rows": int(references.shape[0]),
        "jobs": len(jobs),
        "failures": len(failures),
        "defined_share": {k: float(defined_share.get(k, float("nan"))) for k in ALL_KEYS},
        "overlap_agreement": overlap_agreement(overlap),
        "job_seconds_total": float(sum(r["seconds"] for r in results)),
        "wall_seconds": time.perf_counter() - started,
    }
    return ReferencesResult(references, overlap, failures, summary)


def build_references(corpus_dir: str | Path, out_dir: str | Path, params: dict | None = None,
                     executor: dict | None = None) -> ReferencesResult:
    """The `references` stage: read ``corpus_dir``'s manifest, write the tables under ``out_dir``.

    Raises :class:`~acousticlaim.executor.StageFailed`, writing nothing, when more than
    ``executor.max_failure_share`` of the clips failed or no reading at all was defined.
    """
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    manifest = read_manifest(corpus_dir)
    result = compute_references(manifest, corpus_dir, params, executor)
    # a clip with no defined reading still has its rows (undefined, with the reason): count what was read
    check_failures(STAGE, n_clips=len(manifest), n_rows=int(result.references["defined"].sum()),
                   failures=result.failures, executor=executor, rejected_failures=rejected_failures_path(out_dir))
    write_parquet(out_dir / "references.parquet", result.references)
    write_parquet(out_dir / "overlap.parquet", result.overlap)
    write_failures(out_dir / "failures.parquet", result.failures)
    write_json(out_dir / "summary.json", result.summary)
    return result
