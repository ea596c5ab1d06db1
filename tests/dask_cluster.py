"""A real Dask cluster on 127.0.0.1: `dask scheduler` and `dask worker` started as separate processes.

As on any cluster, the workers run in a working directory of their own (outside the repository), so a
job that carries a path relative to the caller's folder fails here as it would there. They import this
checkout of ``acousticlaim`` through ``PYTHONPATH`` (on a cluster the package is installed on every
node). Every process is started in a session of its own and stopped (its whole process group) when the
context ends, failed or not.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 120.0


@dataclass
class DaskProcesses:
    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)
    logs: Path | None = None

    def kill_worker(self, i: int) -> None:
        """SIGKILL worker process group ``i`` (its nanny and its worker), as a node that dies."""
        _signal_group(self.workers[i], signal.SIGKILL)
        self.workers[i].wait(timeout=30)

    def log_text(self) -> str:
        if self.logs is None:
            return ""
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.logs.glob("*.log")))


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)  # the group of a process this module started (start_new_session)
        except ProcessLookupError:
            pass


def _stop(proc: subprocess.Popen) -> None:
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait(timeout=15)


def _dask(*args: str) -> list[str]:
    return [sys.executable, "-m", "distributed.cli.dask_scheduler" if args[0] == "scheduler"
            else "distributed.cli.dask_worker", *args[1:]]


@contextmanager
def dask_processes(workdir: Path, worker_groups: int = 1, nworkers: int = 2) -> Iterator[DaskProcesses]:
    """A scheduler on a free port of 127.0.0.1 and ``worker_groups`` × ``dask worker --nworkers nworkers``
    (one thread each; group ``g``'s workers are named ``w<g>``, ``w<g>-<i>`` with several), all run from
    ``workdir``; yields once every worker has joined."""
    from distributed import Client

    workdir = Path(workdir)
    logs = workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "ACOUSTICLAIM_NO_PROGRESS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    scheduler_file = workdir / "scheduler.json"
    procs: list[subprocess.Popen] = []

    def start(cmd: list[str], name: str) -> subprocess.Popen:
        log = open(logs / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        procs.append(proc)
        return proc

    try:
        scheduler = start(_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                "--scheduler-file", str(scheduler_file)), "scheduler")
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            if scheduler.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dask scheduler did not start:\n{(logs / 'scheduler.log').read_text()}")
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        workers = [
            start(_dask("worker", address, "--name", f"w{g}", "--nworkers", str(nworkers), "--nthreads", "1",
                        "--no-dashboard",
                        "--host", "127.0.0.1", "--local-directory", str(workdir / f"worker{g}"),
                        "--memory-limit", "0"), f"worker{g}")
            for g in range(worker_groups)
        ]
        cluster = DaskProcesses(address, scheduler, workers, logs)
        with Client(address, timeout=START_TIMEOUT_S) as client:
            try:
                client.wait_for_workers(worker_groups * nworkers, timeout=START_TIMEOUT_S)
            except Exception as exc:
                raise RuntimeError(f"dask workers did not join: {exc}\n{cluster.log_text()}") from exc
        yield cluster
    finally:
        for proc in reversed(procs):
            _stop(proc)
