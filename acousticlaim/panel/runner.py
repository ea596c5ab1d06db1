"""Run one system over the sampling design, resumably, into its generation store.

:func:`run_generations` takes the jobs of the design (:mod:`acousticlaim.panel.sampling`), skips
every key the store already holds, and generates the rest in the system's batch size, appending each
batch as it finishes. Before it starts, records made under another prompt version or another system
configuration, or for jobs no longer in the design, are dropped as stale.

A clip whose audio cannot be read, and a request the system fails on, become recorded failures
(:class:`acousticlaim.failures.Failure`); the run carries on, and the failed keys stay missing so
the next run tries them again. A batch that raises is retried one request at a time, so one bad clip
does not take its batch-mates with it.

A system that needs no weights (``per_clip = True``: the estimator suite, the constant predictor) is a
pure function of the clip, so given an ``executor`` its clips run through
:func:`acousticlaim.executor.map_clips` (a local pool or a Dask cluster): one job per clip carrying the
system, the clip's absolute audio path and every rung and seed asked of it, in chunks appended to the
store as they finish. Systems on a device (the open-weight models) and APIs stay in this process.
"""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from acousticlaim.audio import AudioError
from acousticlaim.claims.prompts import RUNG_IDS, rung_version
from acousticlaim.executor import map_clips
from acousticlaim.failures import Failure
from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, System
from acousticlaim.panel.records import GenerationRecord, RecordKey
from acousticlaim.panel.sampling import Job
from acousticlaim.panel.store import GenerationStore

log = logging.getLogger(__name__)

STAGE = "generations"
AudioLoader = Callable[[str], np.ndarray]


@dataclass(frozen=True)
class RunSummary:
    system: str
    n_jobs: int
    n_already_done: int
    n_stale_dropped: int
    n_generated: int
    n_failed: int
    seconds: float
    n_truncated: int

    @property
    def generations_per_second(self) -> float:
        return self.n_generated / self.seconds if self.seconds > 0 else float("nan")

    def as_metrics(self) -> dict:
        return {
            "n_jobs": self.n_jobs,
            "n_already_done": self.n_already_done,
            "n_stale_dropped": self.n_stale_dropped,
            "n_generated": self.n_generated,
            "n_failed": self.n_failed,
            "seconds": round(self.seconds, 3),
            "generations_per_second": round(self.generations_per_second, 3) if self.n_generated else None,
            "truncated_fraction_this_run": round(self.n_truncated / self.n_generated, 4) if self.n_generated else None,
        }


def job_key(system: str, job: Job) -> RecordKey:
    return (system, job.clip_id, job.rung.id, job.seed)


def _progress(label: str) -> Progress:
    return Progress(
        TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        disable=os.environ.get("ACOUSTICLAIM_NO_PROGRESS") == "1",
    )


class _AudioCache:
    """The last few clips' waveforms (the five rungs of a clip are consecutive jobs)."""

    def __init__(self, load: AudioLoader, size: int = 64):
        self.load, self.size = load, size
        self._items: OrderedDict[str, np.ndarray | AudioError] = OrderedDict()

    def get(self, clip_id: str) -> np.ndarray:
        if clip_id not in self._items:
            try:
                self._items[clip_id] = self.load(clip_id)
            except AudioError as exc:
                self._items[clip_id] = exc
            if len(self._items) > self.size:
                self._items.popitem(last=False)
        item = self._items[clip_id]
        if isinstance(item, AudioError):
            raise item
        return item


def _record(system: System, job: Job, res: GenerationResult, *, config_sha: str, model: str | None) -> GenerationRecord:
    return GenerationRecord(
        system=system.name, corpus=job.corpus, clip_id=job.clip_id, rung=job.rung.id, seed=job.seed, text=res.text,
        prompt_version=job.rung.version, n_tokens=res.n_tokens, truncated=res.truncated,
        seconds=round(float(res.seconds), 6), model=model, finish_reason=res.finish_reason, config_sha=config_sha,
        source="generated",
    )


def _generate_isolating_failures(
    system: System, requests: list[GenerationRequest], failures: list[Failure]
) -> list[GenerationResult | None]:
    try:
        results = system.generate(requests)
        if len(results) != len(requests):
            raise RuntimeError(f"{system.name} returned {len(results)} results for {len(requests)} requests")
        return list(results)
    except Exception as exc:  # a system error on one request must not end the run
        if len(requests) == 1:
            req = requests[0]
            failures.append(Failure(req.clip_id, STAGE, f"{system.name} {req.rung.id} seed {req.seed}: "
                                                        f"{type(exc).__name__}: {exc}"))
            log.warning("%s failed on %s %s seed %d: %s", system.name, req.clip_id, req.rung.id, req.seed, exc)
            return [None]
        out: list[GenerationResult | None] = []
        for req in requests:
            out.extend(_generate_isolating_failures(system, [req], failures))
        return out


def generate_clip(job: dict) -> dict:
    """Every request of one clip through a weight-free system: a pure function of the job, for ``map_clips``.

    ``job`` = ``{"system", "clip_id", "corpus", "audio_path" (absolute), "max_duration_s",
    "asks": [(rung, seed), …]}``; returns ``{"results": [GenerationResult | None per ask], "failures"}``.
    """
    from acousticlaim.audio import load_audio

    system, clip_id, asks = job["system"], job["clip_id"], job["asks"]
    failures: list[Failure] = []
    try:
        wave, _sr = load_audio(job["audio_path"], max_duration_s=job["max_duration_s"])
    except AudioError as exc:
        failures = [Failure(clip_id, STAGE, f"{rung.id} seed {seed}: {exc.reason}") for rung, seed in asks]
        return {"results": [None] * len(asks), "failures": failures}
    requests = [GenerationRequest(clip_id, wave, rung, seed, corpus=job["corpus"]) for rung, seed in asks]
    return {"results": _generate_isolating_failures(system, requests, failures), "failures": failures}


def _generate_per_clip(system: System, todo: Sequence[Job], store: GenerationStore, audio: "ManifestAudio",
                       executor: dict, *, config_sha: str, model: str | None, chunk_clips: int) -> tuple[int, int, list[Failure]]:
    """``todo`` as one job per clip through ``executor``, appended to ``store`` chunk by chunk in ``todo`` order."""
    by_clip: dict[str, list[int]] = {}
    for i, job in enumerate(todo):
        by_clip.setdefault(job.clip_id, []).append(i)
    clips = list(by_clip)
    failures: list[Failure] = []
    n_generated = n_truncated = 0
    for start in range(0, len(clips), chunk_clips):
        chunk = clips[start : start + chunk_clips]
        clip_jobs = []
        for clip_id in chunk:
            first = todo[by_clip[clip_id][0]]
            try:
                path = audio.path_of(clip_id)
            except AudioError as exc:
                failures += [Failure(clip_id, STAGE, f"{todo[i].rung.id} seed {todo[i].seed}: {exc.reason}")
                             for i in by_clip[clip_id]]
                continue
            clip_jobs.append({"system": system, "clip_id": clip_id, "corpus": first.corpus, "audio_path": path,
                              "max_duration_s": audio.max_duration_s,
                              "asks": [(todo[i].rung, todo[i].seed) for i in by_clip[clip_id]]})
        outcomes = map_clips(generate_clip, clip_jobs, executor=executor,
                             label=f"generations {system.name} ({start + len(chunk)}/{len(clips)} clips)")
        made: dict[int, GenerationResult] = {}
        for clip_job, outcome in zip(clip_jobs, outcomes):
            failures += outcome["failures"]
            for i, res in zip(by_clip[clip_job["clip_id"]], outcome["results"]):
                if res is not None:
                    made[i] = res
        records = [_record(system, todo[i], made[i], config_sha=config_sha, model=model) for i in sorted(made)]
        store.append(records)
        n_generated += len(records)
        n_truncated += sum(1 for r in records if r.truncated)
    return n_generated, n_truncated, failures


def run_generations(
    system: System,
    jobs: Sequence[Job],
    store_path: str | os.PathLike,
    load_audio_for: AudioLoader,
    *,
    config_sha: str,
    model: str | None = None,
    executor: dict | None = None,
    chunk_clips: int = 256,
) -> tuple[RunSummary, list[Failure]]:
    """Generate every job not yet in ``store_path``; returns the run's summary and its failures.

    With an ``executor``, a weight-free system (``per_clip``) whose clips ``load_audio_for`` (a
    :class:`ManifestAudio`) can name by path runs one job per clip through it, ``chunk_clips`` clips
    between appends to the store.
    """
    keys = [job_key(system.name, j) for j in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("the job list repeats a (system, clip, rung, seed) key")
    wanted = set(keys)
    failures: list[Failure] = []
    audio = _AudioCache(load_audio_for)
    n_generated = n_truncated = 0
    with GenerationStore(store_path) as store:
        stale = store.retain(
            lambda r: r.key in wanted and r.rung in RUNG_IDS and r.prompt_version == rung_version(r.rung)
            and r.config_sha == config_sha
        )
        if stale:
            log.warning("%s: dropped %d stale record(s) (other prompts, configuration or sample)", store_path, stale)
        done = store.done_keys
        todo = [j for j, k in zip(jobs, keys) if k not in done]
        n_already = len(jobs) - len(todo)
        t0 = time.perf_counter()
        batch_size = max(1, int(system.batch_size))
        if executor is not None and getattr(system, "per_clip", False) and isinstance(load_audio_for, ManifestAudio):
            n_generated, n_truncated, failures = _generate_per_clip(
                system, todo, store, load_audio_for, executor, config_sha=config_sha, model=model,
                chunk_clips=max(1, int(chunk_clips)))
            todo = []
        with _progress(f"generations {system.name}") as progress:
            task = progress.add_task(system.name, total=len(jobs), completed=n_already)
            for start in range(0, len(todo), batch_size):
                batch = todo[start : start + batch_size]
                requests: list[GenerationRequest] = []
                batch_jobs: list[Job] = []
                for job in batch:
                    try:
                        wave = audio.get(job.clip_id)
                    except AudioError as exc:
                        failures.append(Failure(job.clip_id, STAGE, f"{job.rung.id} seed {job.seed}: {exc.reason}"))
                        continue
                    requests.append(GenerationRequest(job.clip_id, wave, job.rung, job.seed, corpus=job.corpus))
                    batch_jobs.append(job)
                results = _generate_isolating_failures(system, requests, failures) if requests else []
                records = [
                    _record(system, job, res, config_sha=config_sha, model=model)
                    for job, res in zip(batch_jobs, results) if res is not None
                ]
                store.append(records)
                n_generated += len(records)
                n_truncated += sum(1 for r in records if r.truncated)
                progress.advance(task, len(batch))
        seconds = time.perf_counter() - t0
    summary = RunSummary(system.name, len(jobs), n_already, stale, n_generated, len(failures), seconds, n_truncated)
    return summary, failures


@dataclass(frozen=True)
class ManifestAudio:
    """A clip's waveform from the corpus manifest, by clip id (picklable: it can travel to a worker).

    ``paths`` maps clip ids to absolute audio paths; a clip that is not there, or has no path, is an
    :class:`~acousticlaim.audio.AudioError`.
    """

    paths: dict
    max_duration_s: float = 10.0

    def path_of(self, clip_id: str) -> str:
        if clip_id not in self.paths:
            raise AudioError(clip_id, "not in the corpus manifest")
        if self.paths[clip_id] is None:
            raise AudioError(clip_id, "the manifest gives no audio_path")
        return self.paths[clip_id]

    def __call__(self, clip_id: str) -> np.ndarray:
        from acousticlaim.audio import load_audio

        wave, _sr = load_audio(self.path_of(clip_id), max_duration_s=self.max_duration_s)
        return wave


def manifest_audio_loader(manifest, manifest_dir: str | os.PathLike, max_duration_s: float = 10.0) -> ManifestAudio:
    """Load a clip's waveform from the corpus manifest (``audio_path`` relative to the manifest's folder)."""
    from acousticlaim.corpus.manifest import resolve_path

    base = Path(manifest_dir).absolute()
    paths = {}
    for clip_id, rel in zip(manifest["clip_id"].astype(str), manifest["audio_path"]):
        path = resolve_path(base, rel)
        paths[clip_id] = str(path) if path is not None else None
    return ManifestAudio(paths, float(max_duration_s))
