"""Per-clip work through one interface, on a local process pool or a Dask cluster.

Per-clip work is a pure function of (clip, params), so the same call runs here on two cores or on
a Dask distributed cluster when the corpus outgrows one machine::

    results = map_clips(measure_clip, jobs, executor={"kind": "local", "workers": 2}, label="references")

``executor`` is the ``executor:`` group of ``params.yaml``:

* ``kind: local`` (default) — a ``ProcessPoolExecutor`` with ``workers`` processes (``null``: one per core
  of the machine; 1 runs inline);
* ``kind: dask`` — a ``distributed.Client`` on ``scheduler`` (an address such as ``tcp://host:8786``).

Results come back in the order of ``jobs`` whatever the back-end, and a rich progress bar shows
the work as it completes. The function itself must not raise for a bad clip: it returns a failure
record instead (see :mod:`acousticlaim.failures`); an exception that escapes is re-raised here with
the index of the job that raised it.

**Paths.** A job runs wherever the scheduler puts it, in whatever working directory that worker has,
so every path a job carries is absolute (:func:`check_portable_paths` refuses a job that holds a
relative one, whatever the back-end, so a local run catches what a cluster would get wrong). A Dask
cluster therefore needs one filesystem that every worker mounts at the same path as the client (NFS,
Lustre, a shared home); object-store URLs (``s3://…``) are not read by the per-clip functions.

**A worker lost mid-stage.** Dask moves the jobs of a worker that dies to the others (the scheduler's
``distributed.scheduler.allowed-failures``, 3 by default, bounds how often one job may take a worker
down). Results are keyed by job, so a job run twice still fills its one slot: nothing is lost or
duplicated. Per-clip functions write their files atomically, so a rerun job overwrites what a killed
one left.

**A stage that fails loudly.** :func:`check_failures` ends a stage with :class:`StageFailed` when
more than ``executor.max_failure_share`` of its clips failed (0.05 by default), or when non-zero input
gave zero rows, naming the commonest failure reasons with their counts. Stages call it before they
write, so their previous outputs stay as they were.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Callable, Iterable, Literal, Sequence, TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from acousticlaim.params import param, settings_from

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_MAX_FAILURE_SHARE = 0.05
# keys of a job whose string values are file-system paths (``audio_path``, ``manifest_dir``, ``out`` …)
_PATH_KEY = re.compile(r"(^|_)(path|dir|out|root)$")


@dataclass(frozen=True)
class ExecutorSettings:
    """The ``executor:`` group of ``params.yaml``."""

    kind: Literal["local", "dask"] = "local"
    workers: int | None = param(None, ge=1)  # local pool processes; null: one per core of the machine
    scheduler: str | None = None  # the dask scheduler address (tcp://host:8786) when kind is dask
    # a per-clip stage fails (non-zero exit, outputs untouched) past this share of failed clips
    max_failure_share: float = param(DEFAULT_MAX_FAILURE_SHARE, ge=0, le=1)

    def __post_init__(self) -> None:
        if self.kind == "dask" and not self.scheduler:
            raise ValueError("executor.kind is 'dask' but executor.scheduler (the scheduler address) is not set")


def _progress(label: str) -> Progress:
    return Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
        disable=os.environ.get("ACOUSTICLAIM_NO_PROGRESS") == "1",
    )


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def local_workers(executor: dict[str, Any] | None) -> int:
    """The processes a local pool runs: ``executor.workers``, or one per core when it is ``null``."""
    workers = (executor or {}).get("workers")
    return default_workers() if workers is None else int(workers)


def map_clips(
    fn: Callable[[T], R],
    jobs: Sequence[T] | Iterable[T],
    *,
    executor: dict[str, Any] | None = None,
    label: str = "clips",
) -> list[R]:
    """Apply ``fn`` to every job and return the results in job order."""
    jobs = list(jobs)
    check_portable_paths(jobs, label)
    cfg = dict(executor or {})
    scheduler = cfg.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):  # a live distributed.Client in place of an address
        cfg["scheduler"] = "client"
    settings = settings_from(ExecutorSettings, cfg, "executor")
    if settings.kind == "local":
        return _map_local(fn, jobs, local_workers(dataclasses.asdict(settings)), label)
    return _map_dask(fn, jobs, scheduler, label)


def _map_local(fn: Callable[[T], R], jobs: list[T], workers: int, label: str) -> list[R]:
    results: list[Any] = [None] * len(jobs)
    with _progress(label) as progress:
        task = progress.add_task(label, total=len(jobs))
        if workers <= 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                results[i] = fn(job)
                progress.advance(task)
            return results
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(fn, job): i for i, job in enumerate(jobs)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as exc:
                    raise RuntimeError(f"{label}: job {i} raised {type(exc).__name__}: {exc}") from exc
                progress.advance(task)
    return results


def _map_dask(fn: Callable[[T], R], jobs: list[T], scheduler: Any, label: str) -> list[R]:
    from distributed import Client, as_completed as dask_as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        # pure=False: every job gets its own key, even two equal jobs; a job lost with its worker is rerun
        futures = client.map(fn, jobs, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(jobs)
        with _progress(label) as progress:
            task = progress.add_task(label, total=len(jobs))
            for fut in dask_as_completed(futures):
                i = index[fut.key]
                try:
                    results[i] = fut.result()
                except Exception as exc:
                    raise RuntimeError(f"{label}: job {i} raised {type(exc).__name__}: {exc}") from exc
                progress.advance(task)
        return results
    finally:
        if not isinstance(scheduler, Client):
            client.close()


# ------------------------------------------------------------------------------------------ paths

def _path_problem(value: Any) -> str | None:
    text = str(value)
    if not text:
        return None
    if "://" in text:
        return "is a URL; per-clip jobs read a filesystem every worker mounts at the same path"
    if not Path(text).is_absolute():
        return "is relative to the caller's working directory, which a worker does not share"
    return None


def _walk_paths(obj: Any, where: str) -> Iterable[tuple[str, Any]]:
    """(location, value) of every path a job carries: ``Path`` objects anywhere, and strings under a
    path-like key (``*_path``, ``*_dir``, ``out``, ``root``)."""
    if isinstance(obj, PurePath):
        yield where, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            loc = f"{where}.{key}"
            if isinstance(value, str) and isinstance(key, str) and _PATH_KEY.search(key):
                yield loc, value
            else:
                yield from _walk_paths(value, loc)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        yield from _walk_paths({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}, where)
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from _walk_paths(value, f"{where}[{i}]")


def check_portable_paths(jobs: Sequence[Any], label: str = "clips") -> None:
    """Raise ``ValueError`` if a job carries a path that would not mean the same file on every worker."""
    for i, job in enumerate(jobs):
        for loc, value in _walk_paths(job, "job"):
            problem = _path_problem(value)
            if problem:
                raise ValueError(f"{label}: job {i} {loc} = {str(value)!r} {problem}; make it absolute "
                                 "(a cluster needs a shared filesystem mounted at the same path everywhere)")


# --------------------------------------------------------------------------------- loud failure

class StageFailed(RuntimeError):
    """A stage whose failures are past what ``executor.max_failure_share`` allows: it writes nothing."""


def fails_loudly(main: Callable[..., int]) -> Callable[..., int]:
    """A stage script's ``main`` whose :class:`StageFailed` is its message on stderr and exit status 1
    (what failed and how often, and where every failure is), not a traceback."""

    @functools.wraps(main)
    def run(argv: list[str] | None = None) -> int:
        try:
            return main(argv)
        except StageFailed as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1

    return run


def max_failure_share(executor: dict[str, Any] | None) -> float:
    """``executor.max_failure_share`` (0.05 when unset), checked to lie in [0, 1]."""
    if isinstance(executor, ExecutorSettings):
        return executor.max_failure_share
    value = (executor or {}).get("max_failure_share")
    share = DEFAULT_MAX_FAILURE_SHARE if value is None else float(value)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"executor.max_failure_share = {value!r}: use a share between 0 and 1")
    return share


def reason_kind(reason: str, clip_id: str | None = None) -> str:
    """A failure reason with its file names replaced by ``<file>`` (and its clip id by ``<clip>``), so the
    same fault on many clips counts once."""
    reason = str(reason)
    if clip_id:
        reason = reason.replace(str(clip_id), "<clip>")
    return re.sub(r"(?<![^\s(\[\'\"])[^\s:\'\"]*/[^\s:\'\"]*", "<file>", " ".join(reason.split()))


def top_reasons(failures: Sequence[Any], n: int = 5) -> list[tuple[str, int]]:
    """The ``n`` commonest reason kinds (:func:`reason_kind`) with how many failures gave each."""
    return Counter(reason_kind(f.reason, f.clip_id) for f in failures).most_common(n)


def check_failures(
    stage: str,
    *,
    n_clips: int,
    n_rows: int,
    failures: Sequence[Any],
    executor: dict[str, Any] | None = None,
    rejected_failures: str | os.PathLike | None = None,
) -> None:
    """End the stage with :class:`StageFailed` when it cannot be trusted; do nothing otherwise.

    ``n_clips`` is how many clips went in, ``n_rows`` how many rows came out, ``failures`` the
    recorded :class:`~acousticlaim.failures.Failure` rows (a clip counts once however many failed).
    It fails when more than ``executor.max_failure_share`` of the clips failed, or when clips went in
    and no row came out. Call it before writing any output, so the previous outputs stay. The
    failures of the rejected run are written to ``rejected_failures`` (outside the stage's outputs) so
    they can be read whole.
    """
    limit = max_failure_share(executor)
    failed = len({str(f.clip_id) for f in failures})
    share = failed / n_clips if n_clips else 0.0
    problems = []
    if share > limit:
        problems.append(f"{failed} of {n_clips} clips failed ({share:.1%}, over executor.max_failure_share = {limit:g})")
    if n_clips and n_rows == 0:
        problems.append(f"no row came out of {n_clips} clip(s)")
    if not problems:
        return
    lines = [f"{stage}: {' and '.join(problems)}; the stage's previous outputs are left as they were."]
    if failures:
        lines.append("Commonest failure reasons:")
        lines += [f"  {count:>6} x {kind}" for kind, count in top_reasons(failures)]
        if rejected_failures is not None:
            from acousticlaim.failures import write_failures

            write_failures(rejected_failures, list(failures))
            lines.append(f"Every failure of this run: {rejected_failures}")
    raise StageFailed("\n".join(lines))


def rejected_failures_path(out_dir: str | os.PathLike) -> Path:
    """Where a rejected run of the stage writing ``out_dir`` leaves its failures: beside it, not in it."""
    out_dir = Path(out_dir)
    return out_dir.parent / f"{out_dir.name}.rejected-failures.parquet"
