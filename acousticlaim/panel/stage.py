"""The ``generations`` stage: one configured system over the sampling design, resumably.

Reads the ``generations:`` group of ``params.yaml``::

    generations:
      systems: [estimator, constant]   # the systems `dvc repro` runs (a foreach in dvc.yaml)
      sampling: {seeds: [0..7], clips_per_seed: 120, split: test, kinds: [mixture, clip]}
      rungs: [P0_free, P1_numeric, P2_named, P3_template, P4_fewshot, P5_intervals]
      max_duration_s: 10.0
      panel: {<name>: {kind: …, …}}    # every system that can be run, configured

and writes ``<out>/<system>.jsonl`` (the resumable store), ``<out>/<system>.failures.parquet``
(clips or requests that failed) and ``<metrics>/<system>.json`` (counts, truncation, speed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping


from acousticlaim.corpus.manifest import read_manifest
from acousticlaim.executor import check_failures
from acousticlaim.failures import write_failures
from acousticlaim.io import write_json
from acousticlaim.claims.prompts import INTERVAL_RUNG_ID
from acousticlaim.instruments.intervals import read_interval_references
from acousticlaim.panel.local_systems import LocateFn, MeasureFn
from acousticlaim.panel.runner import RunSummary, manifest_audio_loader, run_generations
from acousticlaim.panel.sampling import generation_jobs
from acousticlaim.panel.settings import GenerationsSettings
from acousticlaim.panel.systems import build_system, check_system_name, config_sha, model_id
from acousticlaim.instruments.reference_table import read_references
from acousticlaim.params import settings_from



def system_config(panel: Mapping[str, Any], system: str) -> dict[str, Any]:
    """``system``'s entry under ``generations.panel``."""
    if system not in panel:
        raise KeyError(f"generations.panel has no entry {system!r}; configured: {', '.join(panel) or 'none'}")
    return dict(panel[system])


def run_stage(
    system: str,
    params: Mapping[str, Any],
    corpus_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    references: str | os.PathLike | None = None,
    metrics_dir: str | os.PathLike | None = None,
    measure: MeasureFn | None = None,
    default_measure: Callable[[Mapping[str, Any]], MeasureFn] | None = None,
    default_locate: Callable[[Mapping[str, Any]], LocateFn] | None = None,
    executor: Mapping[str, Any] | None = None,
) -> RunSummary:
    """Generate ``system``'s answers for the whole design into ``out_dir``; returns the run summary.

    ``executor`` (the ``executor:`` group) runs a weight-free system's clips on a local pool or a Dask
    cluster. When more than ``executor.max_failure_share`` of the clips asked for failed, or nothing was
    generated, it raises :class:`~acousticlaim.executor.StageFailed` before writing the failures table
    and metrics; the store keeps the records made (it is resumable, so they are not lost).
    """
    settings = settings_from(GenerationsSettings, params, "generations")
    check_system_name(system)
    cfg = system_config(settings.panel, system)
    manifest = read_manifest(corpus_dir)
    manifest_dir = Path(corpus_dir) if Path(corpus_dir).is_dir() else Path(corpus_dir).parent
    jobs = generation_jobs(manifest, settings.sampling, settings.rungs)
    constant = cfg.get("kind") == "constant"
    refs = read_references(references) if constant else None
    asks_intervals = INTERVAL_RUNG_ID in {j.rung.id for j in jobs}
    in_time = read_interval_references(references) if constant and asks_intervals else None
    sysobj = build_system(system, cfg, measure=measure, references=refs, manifest=manifest,
                          default_measure=default_measure, default_locate=default_locate,
                          interval_references=in_time)
    loader = manifest_audio_loader(manifest, manifest_dir, settings.max_duration_s)
    out = Path(out_dir)
    summary, failures = run_generations(
        sysobj, jobs, out / f"{system}.jsonl", loader, config_sha=config_sha(cfg), model=model_id(cfg),
        executor=dict(executor) if executor is not None else None,
    )
    failures_path = out / f"{system}.failures.parquet"
    check_failures(f"generations {system}", n_clips=len({j.clip_id for j in jobs}),
                   n_rows=summary.n_generated + summary.n_already_done, failures=failures,
                   executor=dict(executor or {}), rejected_failures=failures_path.with_name(f"{system}.rejected-failures.parquet"))
    write_failures(failures_path, failures)
    if metrics_dir is not None:
        write_json(Path(metrics_dir) / f"{system}.json", summary.as_metrics())
    return summary
