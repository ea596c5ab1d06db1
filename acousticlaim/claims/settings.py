"""The ``claims:`` group of ``params.yaml``, read and checked by :func:`acousticlaim.params.settings_from`."""

from __future__ import annotations

from dataclasses import dataclass

from acousticlaim.params import param


@dataclass(frozen=True)
class ClaimsSettings:
    threads: int = param(0, ge=0)  # parser threads for the batch (0: all cores)
