"""Reading ``params.yaml``: each stage reads only its own group (as in DVC's example-get-started)."""

from __future__ import annotations

from dataclasses import fields
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


class UnknownParameters(KeyError, ValueError):
    """A ``params.yaml`` section names keys its settings class does not have (a typo, usually)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def reject_unknown_keys(section: str, params: dict[str, Any], settings_class: type) -> None:
    """Raise :class:`UnknownParameters` naming the keys of ``params`` that ``settings_class`` (a
    dataclass) has no field for, and the ones it has."""
    known = {f.name for f in fields(settings_class)}
    unknown = set(params) - known
    if unknown:
        raise UnknownParameters(
            f"{section}: unknown parameter(s) {', '.join(sorted(unknown))} (unknown keys for this section; "
            f"known: {', '.join(sorted(known))})"
        )
