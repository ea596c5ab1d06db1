"""The generation record: one JSON object per line of ``data/generations/<system>.jsonl``.

Fields (every record):

=================  =========================================================================
``system``         the panel member's name (``str``)
``corpus``         ``librimix`` (Libri2Mix-style and synthetic mixtures), ``twin`` or ``ami``
``clip_id``        the clip (``str``, a safe file-name token: :mod:`acousticlaim.safe_names`)
``rung``           ``P0_free`` … ``P4_fewshot``
``seed``           the sampling seed whose sample drew the clip (``int``, 0 … 2**32 - 1)
``text``           what the system said (``str``, may be empty)
``prompt_version`` the version of the rung asked (:attr:`acousticlaim.claims.prompts.Rung.version`; the released five: :data:`acousticlaim.claims.prompts.PROMPT_VERSION`)
``n_tokens``       tokens generated before the stop token (``int``, 0 … 2**31 - 1), ``null`` when unknown
``truncated``      the cap was reached without a stop token (``bool``), ``null`` when unknown
``seconds``        seconds per generation (``float`` ≥ 0), ``null`` when unknown
=================  =========================================================================

Optional: ``model`` (checkpoint or API model id), ``finish_reason``, ``config_sha`` (hash of the
system's configuration, so a changed configuration makes old records stale), ``source``
(``generated`` or ``import:<file>``); the reference system's records (the ``predict`` stage) add
``train_seed`` (the training seed, ``int`` ≥ 0), ``split`` and ``kind`` (the manifest's). Any other field
is rejected, so a typo cannot pass silently. This is the one schema and :func:`validate_record` the one
validator: the panel's store, the importer, the ``predict`` stage's writer and the ``claims`` stage's
reader all use it.

A record is keyed by ``(system, clip_id, rung, seed)``: each key is generated once.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from acousticlaim.claims.prompts import RUNG_IDS
from acousticlaim.quantities import Corpus
from acousticlaim.safe_names import clip_id_problem

RecordKey = tuple[str, str, str, int]

REQUIRED_FIELDS: tuple[str, ...] = (
    "system", "corpus", "clip_id", "rung", "seed", "text", "prompt_version", "n_tokens", "truncated", "seconds",
)
OPTIONAL_FIELDS: tuple[str, ...] = ("model", "finish_reason", "config_sha", "source", "train_seed", "split", "kind")
_OPTIONAL_TEXT: tuple[str, ...] = ("model", "finish_reason", "config_sha", "source", "split", "kind")
CORPORA: tuple[str, ...] = tuple(c.value for c in Corpus)
MAX_SEED = 2**32 - 1  # numpy's seed range; larger values overflow the int64 columns of the claims table
MAX_TOKENS = 2**31 - 1


class RecordError(ValueError):
    """A malformed generation record, with where it came from (``file:line`` or a JSON path)."""

    def __init__(self, location: str, reason: str):
        self.location = location
        self.reason = reason
        super().__init__(f"{location}: {reason}")


@dataclass(frozen=True)
class GenerationRecord:
    system: str
    corpus: str
    clip_id: str
    rung: str
    seed: int
    text: str
    prompt_version: str
    n_tokens: int | None
    truncated: bool | None
    seconds: float | None
    model: str | None = None
    finish_reason: str | None = None
    config_sha: str | None = None
    source: str | None = None
    train_seed: int | None = None
    split: str | None = None
    kind: str | None = None

    @property
    def key(self) -> RecordKey:
        return (self.system, self.clip_id, self.rung, self.seed)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if k in REQUIRED_FIELDS or v is not None}

    def to_json_line(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def validate_record(obj: Any, location: str) -> GenerationRecord:
    """Check one decoded JSON object and return it as a record; :class:`RecordError` names what is wrong."""
    if not isinstance(obj, Mapping):
        raise RecordError(location, f"expected a JSON object, got {type(obj).__name__}")
    missing = [f for f in REQUIRED_FIELDS if f not in obj]
    if missing:
        raise RecordError(location, f"missing field(s) {', '.join(missing)}")
    unknown = sorted(set(obj) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise RecordError(
            location,
            f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}",
        )
    for f in ("system", "clip_id", "prompt_version"):
        if not isinstance(obj[f], str) or not obj[f].strip():
            raise RecordError(location, f"{f!r} must be a non-empty string, got {obj[f]!r}")
    if obj["corpus"] not in CORPORA:
        raise RecordError(location, f"corpus {obj['corpus']!r} is not one of {', '.join(CORPORA)}")
    if obj["rung"] not in RUNG_IDS:
        raise RecordError(location, f"rung {obj['rung']!r} is not one of {', '.join(RUNG_IDS)}")
    problem = clip_id_problem(obj["clip_id"])
    if problem:
        raise RecordError(location, problem)
    if not _is_int(obj["seed"]) or not 0 <= obj["seed"] <= MAX_SEED:
        raise RecordError(location, f"seed must be an integer from 0 to {MAX_SEED}, got {_short(obj['seed'])}")
    if not isinstance(obj["text"], str):
        raise RecordError(location, f"text must be a string, got {type(obj['text']).__name__}")
    n_tokens = obj["n_tokens"]
    if n_tokens is not None and (not _is_int(n_tokens) or not 0 <= n_tokens <= MAX_TOKENS):
        raise RecordError(location, f"n_tokens must be an integer from 0 to {MAX_TOKENS} or null, got {_short(n_tokens)}")
    if obj["truncated"] is not None and not isinstance(obj["truncated"], bool):
        raise RecordError(location, f"truncated must be true, false or null, got {obj['truncated']!r}")
    seconds = obj["seconds"]
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
            raise RecordError(location, f"seconds must be a finite number >= 0 or null, got {seconds!r}")
        seconds = float(seconds)
    for f in _OPTIONAL_TEXT:
        if obj.get(f) is not None and not isinstance(obj[f], str):
            raise RecordError(location, f"{f} must be a string or null, got {obj[f]!r}")
    train_seed = obj.get("train_seed")
    if train_seed is not None and (not _is_int(train_seed) or train_seed < 0):
        raise RecordError(location, f"train_seed must be a non-negative integer or null, got {train_seed!r}")
    return GenerationRecord(
        system=obj["system"], corpus=obj["corpus"], clip_id=obj["clip_id"], rung=obj["rung"], seed=obj["seed"],
        text=obj["text"], prompt_version=obj["prompt_version"], n_tokens=n_tokens, truncated=obj["truncated"],
        seconds=seconds, model=obj.get("model"), finish_reason=obj.get("finish_reason"),
        config_sha=obj.get("config_sha"), source=obj.get("source"), train_seed=train_seed,
        split=obj.get("split"), kind=obj.get("kind"),
    )


def parse_record_line(line: str, location: str) -> GenerationRecord:
    """Decode and validate one JSONL line."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(location, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    return validate_record(obj, location)
