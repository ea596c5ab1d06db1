"""From generations to claims: the library core of the ``claims`` DVC stage.

Input: generations, one record per (system, corpus, clip, rung, sampling seed), as written by the
``generations`` and ``predict`` stages to ``data/generations/<system>.jsonl``, each line checked by the
one generation-record validator (:func:`acousticlaim.panel.records.parse_record_line`).

Output (:class:`ClaimTables`):

* ``claims`` — one row per claim: ``system``, ``corpus``, ``clip_id``, ``rung``, ``seed``, ``quantity``
  (registry key), ``value`` (canonical unit), ``unit`` (the unit of ``value``: the registry unit, or
  "dB" for shimmer stated in dB), ``unit_text`` (as written), ``start``/``end`` (character span),
  ``byte_start``/``byte_end``, ``approx``, ``is_range``, ``bound``, ``echo`` (the value equals the
  worked example's value for its quantity, SPEC §1 rule 2);
* ``generations`` — one row per generation with its ``n_claims`` (0 for texts that state nothing, so
  they count against coverage), ``truncated`` and ``n_chars``;
* ``intervals`` — the claims in time (:mod:`acousticlaim.claims.intervals`), one row per stated interval or
  point: the generation's key, ``event``, ``start_s``, ``end_s``, ``point``, ``label``, ``span_start``/
  ``span_end``, ``reversed``; ``outside_clip`` is left to the scorer, which knows each clip's length.

A quantity appears at most once per generation (a quantity stated twice keeps its last value), so the
claims table is keyed by (system, corpus, clip_id, rung, seed, quantity[, unit for shimmer]).
Generations with the same key are read once (the last record wins, as the JSONL is append-only).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from acousticlaim.claims.intervals import EVENT_TYPES, parse_intervals_batch
from acousticlaim.claims.parser import PARSER_VERSION, QUANTITY_KEYS, UNIT_NAMES, parse_batch
from acousticlaim.failures import Failure
from acousticlaim.panel.records import RecordError, parse_record_line

STAGE = "claims"
KEY = ["system", "corpus", "clip_id", "rung", "seed"]
PARSE_INPUT = KEY + ["text"]
CLAIM_COLUMNS = KEY + [
    "quantity", "value", "unit", "unit_text", "start", "end", "byte_start", "byte_end", "approx", "is_range", "bound", "echo",
]
GENERATION_COLUMNS = KEY + ["n_claims", "truncated", "n_chars"]
INTERVAL_CLAIM_COLUMNS = KEY + ["event", "start_s", "end_s", "point", "label", "span_start", "span_end", "reversed"]


@dataclass
class ClaimTables:
    claims: pd.DataFrame
    generations: pd.DataFrame
    intervals: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=INTERVAL_CLAIM_COLUMNS))


def _clip_id_of(line: str) -> str | None:
    """The clip id of a record that failed the schema, when its line still names one."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    clip = obj.get("clip_id") if isinstance(obj, dict) else None
    return clip if isinstance(clip, str) and clip else None


def read_generations(folder: str | Path) -> tuple[pd.DataFrame, list[Failure]]:
    """Read every ``*.jsonl`` under ``folder``. A line that cannot be read is a recorded failure
    (its clip id when known, else file:line) and is skipped; the stage goes on."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: generations folder not found (the generations stage writes it)")
    records: list[dict] = []
    failures: list[Failure] = []
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"{path.name}:{lineno}"
                try:
                    records.append(parse_record_line(line, where).to_dict())
                except RecordError as e:
                    failures.append(Failure(_clip_id_of(line) or where, STAGE, str(e)))
    frame = pd.DataFrame.from_records(records, columns=None) if records else pd.DataFrame(columns=PARSE_INPUT)
    return frame, failures


def _frame(generations: pd.DataFrame | Iterable[Mapping]) -> pd.DataFrame:
    frame = generations if isinstance(generations, pd.DataFrame) else pd.DataFrame.from_records(list(generations))
    missing = [k for k in PARSE_INPUT if k not in frame.columns]
    if missing:
        raise ValueError(f"generations lack column(s) {', '.join(missing)}; need {', '.join(PARSE_INPUT)}")
    bad = ~frame["text"].map(lambda t: isinstance(t, str))
    if bad.any():
        first = frame.loc[bad].iloc[0]
        raise TypeError(
            f"generation {first['system']}/{first['clip_id']}/{first['rung']}/seed {first['seed']}: "
            f"text is {type(first['text']).__name__}, not a string"
        )
    return frame


def _truncated(frame: pd.DataFrame) -> list[bool]:
    if "truncated" not in frame.columns:
        return [False] * len(frame)
    return [bool(x) if not (isinstance(x, float) and math.isnan(x)) and x is not None else False for x in frame["truncated"]]


def extract_claims(generations: pd.DataFrame | Iterable[Mapping], *, threads: int | None = None) -> ClaimTables:
    """Parse every generation's text (in parallel, GIL released) into the claims and generations tables."""
    frame = _frame(generations).reset_index(drop=True)
    n_read = len(frame)
    frame = frame.drop_duplicates(subset=KEY, keep="last").reset_index(drop=True)
    trunc = _truncated(frame)
    cols = parse_batch(frame["text"].tolist(), truncated=trunc, threads=threads)
    idx = cols.text_index
    keys = frame[KEY].iloc[idx].reset_index(drop=True) if len(idx) else pd.DataFrame(columns=KEY)
    body = cols.to_pandas().drop(columns=["text_index"])
    claims = pd.concat([keys, body], axis=1)[CLAIM_COLUMNS]
    claims["quantity"] = claims["quantity"].astype(pd.CategoricalDtype(list(QUANTITY_KEYS)))
    claims["unit"] = claims["unit"].astype(pd.CategoricalDtype(list(UNIT_NAMES)))
    claims["unit_text"] = claims["unit_text"].astype("string")
    claims["seed"] = claims["seed"].astype("int64")
    gens = frame[KEY].copy()
    gens["seed"] = gens["seed"].astype("int64")
    gens["n_claims"] = cols.n_claims.astype("int64")
    gens["truncated"] = trunc
    gens["n_chars"] = frame["text"].str.len().astype("int64")
    gens.attrs["duplicates_dropped"] = n_read - len(frame)
    return ClaimTables(claims=claims, generations=gens[GENERATION_COLUMNS], intervals=interval_claims(frame, threads))


def interval_claims(frame: pd.DataFrame, threads: int | None = None) -> pd.DataFrame:
    """The claims in time of every generation of ``frame`` (its rows keyed by :data:`KEY`)."""
    found = parse_intervals_batch(frame["text"].tolist(), threads=threads)
    idx = found["text_index"].to_numpy()
    keys = frame[KEY].iloc[idx].reset_index(drop=True) if len(idx) else pd.DataFrame(columns=KEY)
    out = pd.concat([keys, found.drop(columns=["text_index", "outside_clip"]).reset_index(drop=True)], axis=1)
    out = out[INTERVAL_CLAIM_COLUMNS]
    out["event"] = out["event"].astype(pd.CategoricalDtype(list(EVENT_TYPES)))
    out["seed"] = out["seed"].astype("int64")
    return out


def claims_metrics(tables: ClaimTables) -> dict:
    """Generations and the share that state at least one claim, overall, per system and per rung."""
    g = tables.generations

    def summary(part: pd.DataFrame) -> dict:
        n = int(len(part))
        parsed = int((part["n_claims"] > 0).sum())
        return {
            "generations": n,
            "parsed": parsed,
            "parsed_share": round(parsed / n, 6) if n else None,
            "claims": int(part["n_claims"].sum()),
        }

    out = {"parser_version": PARSER_VERSION, **summary(g), "duplicates_dropped": int(g.attrs.get("duplicates_dropped", 0))}
    out["per_system"] = {
        str(system): {**summary(part), "per_rung": {str(r): summary(p) for r, p in part.groupby("rung", sort=True)}}
        for system, part in g.groupby("system", sort=True)
    }
    per_q = tables.claims["quantity"].value_counts().reindex(list(QUANTITY_KEYS), fill_value=0)
    out["claims_per_quantity"] = {k: int(v) for k, v in per_q.items()}
    per_event = tables.intervals["event"].astype(str).value_counts().reindex(list(EVENT_TYPES), fill_value=0)
    out["claims_in_time_per_event"] = {k: int(v) for k, v in per_event.items()}
    return out
