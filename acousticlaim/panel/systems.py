"""Build a panel member from its ``params.yaml`` entry (``generations.panel.<name>``).

Each entry has a ``kind`` and that kind's settings::

    estimator:       {kind: estimator, srmr_fast: true, noise_min_level_db: -30.0}
    constant:        {kind: constant}
    qwen2-audio-7b:  {kind: qwen2_audio, checkpoint: Qwen/Qwen2-Audio-7B-Instruct, batch_size: 16,
                      max_new_tokens: 160, device: auto, dtype: auto}
    gemini-flash:    {kind: gemini, model: <api model id>, api_key_env: GEMINI_API_KEY,
                      endpoint: https://…/v1beta, thinking: {thinkingLevel: minimal}}
    served-model:    {kind: openai_chat, model: <served model id>, base_url: http://127.0.0.1:8000/v1,
                      api_key_env: null, max_in_flight: 8}

``checkpoint`` is a local folder or a hub id. Unknown settings are refused, so a typo cannot pass
silently. :func:`config_sha` hashes an entry; it is recorded with every generation, and a changed
entry makes the system's earlier generations stale.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable, Mapping

import pandas as pd

from acousticlaim.panel.gemini import GeminiAdapter
from acousticlaim.panel.local_systems import (ConstantPredictor, EstimatorSuite, LocateFn, MeasureFn, training_intervals,
                                              training_medians)
from acousticlaim.panel.open_weight import ADAPTERS
from acousticlaim.panel.openai_chat import OpenAIChatAdapter
from acousticlaim.panel.protocol import System

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")

OPEN_WEIGHT_SETTINGS = {"kind", "checkpoint", "batch_size", "max_new_tokens", "device", "dtype"}
SETTINGS: dict[str, set[str]] = {
    "estimator": {"kind", "batch_size", "srmr_fast", "noise_min_level_db"},
    "constant": {"kind", "batch_size"},
    "gemini": {"kind", "model", "api_key_env", "endpoint", "max_new_tokens", "thinking", "timeout_s", "max_retries",
               "backoff_s", "max_backoff_s"},
    "openai_chat": {"kind", "model", "base_url", "api_key_env", "max_new_tokens", "max_in_flight", "max_audio_s",
                    "timeout_s", "max_retries", "backoff_s", "max_backoff_s", "batch_size"},
    **{kind: OPEN_WEIGHT_SETTINGS for kind in ADAPTERS},
}
KINDS: tuple[str, ...] = tuple(SETTINGS)


def check_system_name(name: str) -> str:
    """System names become file names and DVC stage names: letters, digits, ``_`` and ``-``."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValueError(f"system name {name!r} must be letters, digits, '_' or '-' (it names files and stages)")
    return name


def check_system_config(name: str, cfg: Mapping[str, Any]) -> None:
    if not isinstance(cfg, Mapping) or "kind" not in cfg:
        raise ValueError(f"generations.panel.{name}: needs a 'kind' ({', '.join(KINDS)})")
    kind = cfg["kind"]
    if kind not in SETTINGS:
        raise ValueError(f"generations.panel.{name}: unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    unknown = sorted(set(cfg) - SETTINGS[kind])
    if unknown:
        raise ValueError(f"generations.panel.{name}: unknown setting(s) {', '.join(unknown)} for kind {kind!r}; "
                         f"allowed: {', '.join(sorted(SETTINGS[kind]))}")


def config_sha(cfg: Mapping[str, Any]) -> str:
    """A short hash of a system's configuration entry."""
    return hashlib.sha256(json.dumps(dict(cfg), sort_keys=True, default=str).encode("utf-8")).hexdigest()[:12]


def model_id(cfg: Mapping[str, Any]) -> str | None:
    """The checkpoint or API model a configuration names (recorded with each generation)."""
    return cfg.get("checkpoint") or cfg.get("model") or None


def build_system(
    name: str,
    cfg: Mapping[str, Any],
    *,
    measure: MeasureFn | None = None,
    references: pd.DataFrame | None = None,
    manifest: pd.DataFrame | None = None,
    default_measure: Callable[[Mapping[str, Any]], MeasureFn] | None = None,
    locate: LocateFn | None = None,
    default_locate: Callable[[Mapping[str, Any]], LocateFn] | None = None,
    interval_references: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> System:
    """The panel member ``name`` configured by ``cfg``.

    The estimator suite uses ``measure`` (or ``default_measure(cfg)``) and ``locate`` (or
    ``default_locate(cfg)``) for the interval rung;
    the constant predictor takes its medians over the training split of ``references`` with ``manifest``, and
    its typical intervals over the same clips of ``interval_references`` (intervals, lists) when given.
    """
    check_system_name(name)
    check_system_config(name, cfg)
    kind = cfg["kind"]
    if kind == "estimator":
        fn = measure or (default_measure(cfg) if default_measure else None)
        if fn is None:
            raise ValueError(f"{name}: the estimator suite needs a measure function")
        return EstimatorSuite(fn, name=name, batch_size=int(cfg.get("batch_size", 16)),
                              locate=locate or (default_locate(cfg) if default_locate else None))
    if kind == "constant":
        if references is None or manifest is None:
            raise ValueError(f"{name}: the constant predictor needs the references table and the corpus manifest")
        typical = training_intervals(*interval_references, manifest) if interval_references is not None else None
        return ConstantPredictor(training_medians(references, manifest), name=name,
                                 batch_size=int(cfg.get("batch_size", 64)), intervals=typical)
    if kind == "gemini":
        return GeminiAdapter(name=name, **{k: v for k, v in cfg.items() if k != "kind"})
    if kind == "openai_chat":
        return OpenAIChatAdapter(name=name, **{k: v for k, v in cfg.items() if k != "kind"})
    adapter = ADAPTERS[kind]
    return adapter.from_checkpoint(
        cfg.get("checkpoint", ""),
        name=name,
        device=cfg.get("device", "auto"),
        dtype=cfg.get("dtype", "auto"),
        max_new_tokens=int(cfg.get("max_new_tokens", 160)),
        batch_size=int(cfg.get("batch_size", 8)),
    )
