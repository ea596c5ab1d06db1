"""Reading ``params.yaml``: each stage reads only its own group (as in DVC's example-get-started).

Every group is a frozen dataclass that lives beside the code that uses it (``calib:`` is
:class:`acousticlaim.selective.withholding.WithholdingConfig`, and so on; :data:`GROUPS` lists them).
:func:`settings_from` is the one reader of a group: it fills the defaults (the dataclass's, the only
copy), and before any work starts rejects an unknown key, a value of the wrong type and a value out of
range, naming the key and what it allows. A field says its range with :func:`param`::

    @dataclass(frozen=True)
    class WithholdingConfig:
        coverage: float = param(0.75, gt=0, le=1)
        folds: int = param(5, ge=2)

Types are read from the annotations: ``int`` takes integers only (``2.5`` and ``true`` are errors),
``float`` takes numbers but not booleans, ``bool`` only ``true``/``false``; ``X | None`` also takes
``null``; ``tuple[X, ...]`` takes a list of X; ``Literal[...]`` one of its values; a nested dataclass a
mapping read the same way; ``dict`` any mapping (read further by the code that owns it).
"""

from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any, Literal, Mapping, TypeVar, Union

import yaml

DEFAULT_PARAMS = Path("params.yaml")
S = TypeVar("S")

# params.yaml group (or nested group) → the settings class that reads it, "module:Class".
GROUPS: dict[str, str] = {
    "executor": "acousticlaim.executor:ExecutorSettings",
    "corpus": "acousticlaim.corpus.settings:CorpusSettings",
    "references": "acousticlaim.instruments.settings:ReferencesSettings",
    "generations": "acousticlaim.panel.settings:GenerationsSettings",
    "claims": "acousticlaim.claims.settings:ClaimsSettings",
    "features": "acousticlaim.model.features:FeaturesSettings",
    "train": "acousticlaim.model.settings:TrainSettings",
    "predict": "acousticlaim.model.settings:PredictSettings",
    "calib": "acousticlaim.selective.withholding:WithholdingConfig",
    "decomposition": "acousticlaim.selective.diagnostic:DiagnosticConfig",
    "scores": "acousticlaim.scoring.config:ScoringConfig",
}


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
    """The ``group`` section of ``params.yaml`` as written (a clear error if it is missing)."""
    params = load_params(path)
    if group not in params:
        raise KeyError(f"{path}: no '{group}:' group; groups present: {', '.join(params)}")
    return params[group] or {}


class InvalidParameter(ValueError):
    """A ``params.yaml`` value of the wrong type or out of range; the message names the key."""


class UnknownParameters(KeyError, ValueError):
    """A ``params.yaml`` section names keys its settings class does not have (a typo, usually)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def param(default: Any = MISSING, *, default_factory: Any = MISSING, ge: float | None = None,
          gt: float | None = None, le: float | None = None, lt: float | None = None,
          choices: tuple | None = None) -> Any:
    """A settings field with its allowed range (bounds apply to a number or to each item of a list)."""
    meta = {k: v for k, v in dict(ge=ge, gt=gt, le=le, lt=lt, choices=choices).items() if v is not None}
    if isinstance(default, (list, dict, set)):
        raise TypeError("a mutable default needs default_factory")
    return dataclasses.field(default=default, default_factory=default_factory, metadata=meta)


def reject_unknown_keys(section: str, params: Mapping[str, Any], settings_class: type) -> None:
    """Raise :class:`UnknownParameters` naming the keys of ``params`` that ``settings_class`` (a
    dataclass) has no field for, and the ones it has."""
    known = {f.name for f in fields(settings_class)}
    unknown = set(params) - known
    if unknown:
        raise UnknownParameters(
            f"{section}: unknown parameter(s) {', '.join(sorted(unknown))} (unknown keys for this section; "
            f"known: {', '.join(sorted(known))})"
        )


def settings_from(cls: type[S], values: Mapping[str, Any] | None, section: str) -> S:
    """``cls`` built from the ``section`` mapping of ``params.yaml``, every value checked (module doc)."""
    if values is None:
        values = {}
    if isinstance(values, cls):
        return values
    if not isinstance(values, Mapping):
        raise InvalidParameter(f"{section}: expected a mapping of keys, got {values!r}")
    reject_unknown_keys(section, values, cls)
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in fields(cls):
        if f.name in values and f.init:
            kwargs[f.name] = _read(values[f.name], hints[f.name], f"{section}.{f.name}", f.metadata)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, (InvalidParameter, UnknownParameters)):
            raise
        raise InvalidParameter(f"{section}: {exc}") from exc


def load_group(group: str, path: str | Path = DEFAULT_PARAMS, cls: type | None = None) -> Any:
    """The ``group`` of ``params.yaml`` read by its settings class (:data:`GROUPS`), checked."""
    return settings_from(cls or settings_class(group), stage_params(group, path), group)


def settings_class(group: str) -> type:
    if group not in GROUPS:
        raise KeyError(f"no settings class for the params.yaml group {group!r}; groups: {', '.join(GROUPS)}")
    module, name = GROUPS[group].split(":")
    return getattr(importlib.import_module(module), name)


def check_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    """Every group of ``params.yaml`` read and checked: group name → settings (the first error raised)."""
    params = load_params(path)
    unknown = sorted(set(params) - set(GROUPS))
    if unknown:
        raise UnknownParameters(f"{path}: unknown group(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}")
    return {group: settings_from(settings_class(group), params.get(group), group) for group in GROUPS}


# --- reading one value ------------------------------------------------------------------------------

def _read(value: Any, tp: Any, key: str, meta: Mapping[str, Any]) -> Any:
    try:
        out = _coerce(value, tp, key, meta)
    except _Mismatch:
        raise InvalidParameter(f"{key}: {value!r} is not allowed; expected {_describe(tp, meta)}") from None
    return out


class _Mismatch(Exception):
    pass


def _coerce(value: Any, tp: Any, key: str, meta: Mapping[str, Any]) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(value, arg, key, meta)
            except _Mismatch:
                continue
        raise _Mismatch
    if origin is Literal:
        if value in args and not isinstance(value, bool):
            return value
        raise _Mismatch
    if dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        if not isinstance(value, Mapping):
            raise _Mismatch
        return settings_from(tp, value, key)
    if tp in (dict, Mapping) or origin in (dict, Mapping, typing.Mapping):
        if not isinstance(value, Mapping):
            raise _Mismatch
        return dict(value)
    if origin in (tuple, list) or tp in (tuple, list):
        if not isinstance(value, (list, tuple)):
            raise _Mismatch
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise _Mismatch
            items = [_coerce(v, a, key, meta) for v, a in zip(value, args)]
        else:
            item_type = args[0] if args else Any
            items = [_coerce(v, item_type, key, meta) for v in value]
        return tuple(items)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _Mismatch
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            _check_range(value, meta)
            return value
        raise _Mismatch
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            _check_range(float(value), meta)
            return float(value)
        raise _Mismatch
    if tp is str:
        if isinstance(value, str):
            _check_range(value, meta)
            return value
        raise _Mismatch
    raise TypeError(f"{key}: the settings type {tp!r} has no reader")


def _check_range(value: Any, meta: Mapping[str, Any]) -> None:
    if "choices" in meta and value not in meta["choices"]:
        raise _Mismatch
    if isinstance(value, str):
        return
    if value != value:  # NaN
        raise _Mismatch
    if ("ge" in meta and not value >= meta["ge"]) or ("gt" in meta and not value > meta["gt"]):
        raise _Mismatch
    if ("le" in meta and not value <= meta["le"]) or ("lt" in meta and not value < meta["lt"]):
        raise _Mismatch


def _bounds(meta: Mapping[str, Any]) -> str:
    parts = [f"{op} {meta[k]:g}" for k, op in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")) if k in meta]
    return " and ".join(parts)


def _describe(tp: Any, meta: Mapping[str, Any]) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if "choices" in meta and tp in (str, int, float):
        return "one of: " + ", ".join(map(str, meta["choices"]))
    if origin in (Union, types.UnionType):
        inner = [_describe(a, meta) for a in args if a is not type(None)]
        return ("null or " if type(None) in args else "") + " or ".join(inner)
    if origin is Literal:
        return "one of: " + ", ".join(map(str, args))
    if dataclasses.is_dataclass(tp):
        return "a mapping with keys " + ", ".join(f.name for f in fields(tp))
    if tp in (dict, Mapping) or origin in (dict, Mapping, typing.Mapping):
        return "a mapping"
    if origin in (tuple, list) or tp in (tuple, list):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return f"a list of {len(args)}: " + ", ".join(_describe(a, meta) for a in args)
        return "a list of " + (_describe(args[0], meta) if args else "values")
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    bounds = _bounds(meta)
    return names.get(tp, str(tp)) + (f" {bounds}" if bounds else "")
