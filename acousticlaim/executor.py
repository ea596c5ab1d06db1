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
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal, Sequence, TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from acousticlaim.params import param, settings_from

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class ExecutorSettings:
    """The ``executor:`` group of ``params.yaml``."""

    kind: Literal["local", "dask"] = "local"
    workers: int | None = param(None, ge=1)  # local pool processes; null: one per core of the machine
    scheduler: str | None = None  # the dask scheduler address (tcp://host:8786) when kind is dask

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
