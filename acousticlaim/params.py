"""Reading ``params.yaml``: each stage reads only its own group (as in DVC's example-get-started)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DEFAULT_PARAMS = Path("params.yaml")


def load_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: parameter file not found (run from the project root)")
    with path.open() as fh:
        params = yaml.safe_load(fh) or {}
    if not isinstance(params, dict):
        raise ValueError(f"{path}: expected a mapping of stage groups at the top level")
    return params


def stage_params(group: str, path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    """The ``group`` section of ``params.yaml`` (a clear error if it is missing)."""
    params = load_params(path)
    if group not in params:
        raise KeyError(f"{path}: no '{group}:' group; groups present: {', '.join(params)}")
    return params[group] or {}
