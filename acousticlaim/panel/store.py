"""The resumable, append-only generation store (``data/generations/<system>.jsonl``).

One record per line, keyed by ``(system, clip_id, rung, seed)``. A run appends each finished batch
with a single ``write`` on a file opened ``O_APPEND`` and ``fsync``s it, so a run killed at any
point leaves every earlier batch whole and at most one partial line at the end. Opening the store
again:

* reads every complete line and refuses (with ``file:line``) a malformed line or a repeated key
  anywhere but the end — those are not the marks of an interrupted run;
* keeps a last line without its newline when it is a complete, valid record (a file written by hand
  or by another tool often ends so): the newline is added and the record counts as done;
* drops an unterminated last line that is not a complete valid record (the batch that was being
  written when the run died), cutting the file back to its last newline and reporting the cut
  (how many bytes, from which byte offset), so that batch is generated again;
* reports the keys already done, which the run skips.

An exclusive ``flock`` keeps two runs from appending to the same file at once.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from typing import Callable, Iterable

from acousticlaim.io import atomic_path
from acousticlaim.panel.records import GenerationRecord, RecordError, RecordKey, parse_record_line

log = logging.getLogger(__name__)


class StoreError(RuntimeError):
    """The store cannot be used as it is (corrupt line, repeated key, held by another run)."""


def _complete_tail_record(tail: bytes, location: str) -> GenerationRecord | None:
    """The unterminated last line as a record, when it is one whole valid record; else None."""
    if not tail.strip():
        return None
    try:
        return parse_record_line(tail.decode("utf-8"), location)
    except (UnicodeDecodeError, RecordError):
        return None


def read_records(path: str | os.PathLike, *, repair_tail: bool = False) -> tuple[list[GenerationRecord], int]:
    """Read a generation JSONL; returns (records, bytes of a dropped unterminated tail).

    A last line without a newline that is a complete valid record is kept (with ``repair_tail`` its
    newline is written). Any other unterminated tail is dropped: with ``repair_tail`` it is cut from
    the file, without it only skipped. A malformed complete line raises :class:`RecordError` naming
    ``file:line``.
    """
    path = Path(path)
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1  # 0 when there is no newline at all
    records: list[GenerationRecord] = []
    lines = data[:cut].split(b"\n")[:-1]
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            raise RecordError(f"{path}:{lineno}", "empty line")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"{path}:{lineno}", f"not UTF-8 ({exc.reason})") from None
        records.append(parse_record_line(line, f"{path}:{lineno}"))
    last = _complete_tail_record(data[cut:], f"{path}:{len(lines) + 1}")
    if last is not None:
        records.append(last)
        if repair_tail:
            with open(path, "ab") as fh:
                fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())
        return records, 0
    tail = len(data) - cut
    if tail and repair_tail:
        with open(path, "r+b") as fh:
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())
    return records, tail


class GenerationStore:
    """Append-only JSONL of generation records for one system; use as a context manager."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._fd: int | None = None
        self.records: list[GenerationRecord] = []
        self._keys: set[RecordKey] = set()
        self.dropped_tail_bytes = 0

    # -- opening -----------------------------------------------------------------------------
    def __enter__(self) -> "GenerationStore":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "GenerationStore":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(
                f"{self.path}: another run is writing this generation file; wait for it to finish (or stop it) "
                "and try again"
            ) from None
        self._fd = fd
        try:
            self.records, self.dropped_tail_bytes = read_records(self.path, repair_tail=True)
            if self.dropped_tail_bytes:
                log.warning("%s: cut an unterminated, incomplete last line (%d bytes from byte offset %d) "
                            "left by an interrupted run; its generations will be made again",
                            self.path, self.dropped_tail_bytes, self.path.stat().st_size)
            self._check_unique(self.records)
            self._keys = {r.key for r in self.records}
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def _check_unique(self, records: Iterable[GenerationRecord]) -> None:
        seen: dict[RecordKey, int] = {}
        for lineno, rec in enumerate(records, start=1):
            if rec.key in seen:
                raise StoreError(
                    f"{self.path}:{lineno}: key {rec.key} was already written at line {seen[rec.key]}; "
                    "a generation file holds each (system, clip, rung, seed) once"
                )
            seen[rec.key] = lineno

    # -- state -------------------------------------------------------------------------------
    @property
    def done_keys(self) -> set[RecordKey]:
        return set(self._keys)

    def retain(self, keep: Callable[[GenerationRecord], bool]) -> int:
        """Rewrite the file (atomically) with only the records ``keep`` accepts; returns how many went.

        Used when the configuration changed: records made under another prompt version or another
        system configuration, or for clips no longer in the sample, are stale and are regenerated.
        """
        self._require_open()
        kept = [r for r in self.records if keep(r)]
        dropped = len(self.records) - len(kept)
        if dropped:
            with atomic_path(self.path) as tmp:
                tmp.write_text("".join(r.to_json_line() for r in kept), encoding="utf-8")
            # the old inode is gone: reopen (and relock) the new file for appending
            self.close()
            self.open()
        return dropped

    # -- appending ---------------------------------------------------------------------------
    def append(self, records: list[GenerationRecord]) -> None:
        """Append a batch in one write and fsync it; a key already in the store is an error."""
        self._require_open()
        if not records:
            return
        batch_keys: set[RecordKey] = set()
        for rec in records:
            if rec.key in self._keys or rec.key in batch_keys:
                raise StoreError(f"{self.path}: key {rec.key} is already in the store")
            batch_keys.add(rec.key)
        payload = "".join(r.to_json_line() for r in records).encode("utf-8")
        written = 0
        while written < len(payload):
            written += os.write(self._fd, payload[written:])
        os.fsync(self._fd)
        self.records.extend(records)
        self._keys |= batch_keys

    def _require_open(self) -> None:
        if self._fd is None:
            raise StoreError(f"{self.path}: the store is not open")
