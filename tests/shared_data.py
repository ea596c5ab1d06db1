"""Where the project's shared folder is: the released data, the SRMR golden set and the panel sample.

The shared folder sits beside the checkout (``../shared``; a git worktree one level deeper finds it too)
or wherever ``ACOUSTICLAIM_SHARED`` points. A test that needs it and runs where it is absent skips,
saying so: the data are not in the repository, so CI cannot fetch them itself.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = "ACOUSTICLAIM_SHARED"


def find_shared() -> Path | None:
    """The shared folder (holding ``data/``), or ``None`` when it is not on this machine."""
    if os.environ.get(ENV):
        candidates = [Path(os.environ[ENV])]
    else:
        candidates = [parent / "shared" for parent in ROOT.parents]
    return next((p for p in candidates if (p / "data").is_dir()), None)


SHARED = find_shared()
SHARED_DATA = SHARED / "data" if SHARED else None


def shared_data_path(*parts: str) -> Path | None:
    """``<shared>/data/<parts…>`` when it exists, else ``None`` (for ``skipif`` and parametrisation)."""
    if SHARED_DATA is None:
        return None
    path = SHARED_DATA.joinpath(*parts)
    return path if path.exists() else None


def missing_reason(*parts: str) -> str:
    where = "/".join(("shared", "data") + parts)
    return f"{where} is not on this machine (put the shared folder beside the checkout or set {ENV})"


def require_shared_data(*parts: str) -> Path:
    """The path, or skip the calling test naming what is missing."""
    path = shared_data_path(*parts)
    if path is None:
        pytest.skip(missing_reason(*parts))
    return path
