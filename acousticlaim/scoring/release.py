"""Re-scoring the paper's released panel with this project's parser and scorer.

The authors released (github sheng-tse/acousticlaim, MIT) their panel's generations, one JSON file per
system, corpus and sampling seed (``<system>_<corpus>_seed<k>.json``: ``results → system → rung →
generations[{stem, text}]``), their reference tables (``librimix_test.csv``: 3,000 Libri2Mix test
mixtures and their ``<mixture>_s1clean`` clean twins; ``ami_test.csv``: 3,654 AMI clips; file names carry
``.wav``) and the panel clip lists (839 Libri2Mix mixtures, 859 AMI clips: the union of the clips drawn
over the eight sampling seeds, which is the coverage denominator of every panel cell).

:func:`rescore_release` imports them, parses every text with the project's parser
(:mod:`acousticlaim.claims.parser`), pools the seeds by clip and produces Table 2's layout. Fed the
eight released seeds it reproduces the released scorer's cells; fed fewer, it scores what it is given
against the same 839/859-clip denominators.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from acousticlaim.quantities import QUANTITIES, Corpus, Tier, release_column_map

from .config import ScoringConfig
from .pipeline import ScoreResults, score, write_results
from .pooling import corpus_condition

RELEASE_CORPORA = ("librimix", "ami")
REFERENCE_FILES = {"librimix": "librimix_test.csv", "ami": "ami_test.csv"}
PANEL_LISTS = {"librimix": "panel_clips_librimix.txt", "ami": "panel_clips_ami.txt"}
# The paper's Table 2 row order.
PAPER_SYSTEM_ORDER = ("Qwen2-Audio-7B", "Qwen2.5-Omni-7B", "Granite-Speech-8B", "Audio-Flamingo-3", "Gemini-3.8-Flash")
_FILE_NAME = re.compile(r"^(?P<system>.+)_(?P<corpus>librimix|ami)_seed(?P<seed>\d+)\.json$")
_SIGNAL = {Tier.EXACT: "mixture", Tier.MEASURABLE: "mixture", Tier.STEM_ONLY: "stem",
           Tier.MASKED: "masked_mixture", Tier.EXCLUDED: "mixture"}


def strip_extension(name: str) -> str:
    """A released file name as a clip id (``.wav`` dropped)."""
    return re.sub(r"\.wav$", "", str(name).strip())


def read_release_references(path: str | Path, corpus: str) -> pd.DataFrame:
    """A released reference CSV as the project's long references table.

    Columns are mapped to registry keys with :func:`acousticlaim.quantities.release_column_map`; an
    empty field is an undefined reference (``defined`` false, reason "empty in the released table").
    """
    path = Path(path)
    if corpus not in RELEASE_CORPORA:
        raise ValueError(f"unknown release corpus {corpus!r}; expected one of {', '.join(RELEASE_CORPORA)}")
    if not path.exists():
        raise FileNotFoundError(f"{path}: released reference table not found")
    table = pd.read_csv(path)
    if "filename" not in table.columns:
        raise ValueError(f"{path}: no 'filename' column; columns are {', '.join(table.columns)}")
    columns = release_column_map(corpus)
    missing = [column for column, key in columns.items() if QUANTITIES[key].scored and column not in table.columns]
    if missing:
        raise ValueError(f"{path}: missing reference column(s) {', '.join(missing)}")
    dup = table["filename"].duplicated()
    if dup.any():
        raise ValueError(f"{path}: file name {table.loc[dup, 'filename'].iloc[0]} appears twice")
    clip_ids = table["filename"].map(strip_extension)
    conditions = [corpus_condition(corpus, c) for c in clip_ids]
    frames = []
    for column, key in columns.items():
        if column not in table.columns:
            continue
        value = pd.to_numeric(table[column], errors="coerce").astype(float)
        defined = np.isfinite(value.to_numpy())
        tiers = [QUANTITIES[key].tier(c) for c in conditions]
        frames.append(pd.DataFrame({
            "clip_id": clip_ids.to_numpy(), "quantity": key, "value": value.to_numpy(), "defined": defined,
            "reason": np.where(defined, "", f"empty in the released table ({column})"),
            "tier": [t.value if t is not None else "" for t in tiers],
            "signal": ["twin" if c == Corpus.TWIN.value else "channel" if c == Corpus.AMI.value
                       else (_SIGNAL[t] if t is not None else "mixture") for c, t in zip(conditions, tiers)],
            "half1": np.nan, "half2": np.nan,
        }))
    return pd.concat(frames, ignore_index=True)


def read_panel_clips(path: str | Path) -> list[str]:
    """A released panel clip list (one id per line); duplicates are an error."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: panel clip list not found")
    clips = [strip_extension(line) for line in path.read_text().splitlines() if line.strip()]
    if len(set(clips)) != len(clips):
        raise ValueError(f"{path}: a clip id is listed twice")
    return clips


def release_generations(path: str | Path) -> pd.DataFrame:
    """The generations of one released run file as rows ``system, corpus, clip_id, rung, seed, text``.

    The file name gives the corpus and sampling seed (``<system>_<corpus>_seed<k>.json``); the system is
    the name under ``results``. A malformed file is an error naming the file and the place.
    """
    path = Path(path)
    match = _FILE_NAME.match(path.name)
    if not match:
        raise ValueError(f"{path}: not a released run file name (<system>_<corpus>_seed<k>.json)")
    try:
        dump = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from None
    results = dump.get("results") if isinstance(dump, dict) else None
    if not isinstance(results, dict) or not results:
        raise ValueError(f"{path}: no 'results' mapping of system → rung → generations")
    corpus, seed = match["corpus"], int(match["seed"])
    if dump.get("corpus") not in (None, corpus) or dump.get("seed") not in (None, seed):
        raise ValueError(f"{path}: header says corpus {dump.get('corpus')!r} seed {dump.get('seed')!r}, "
                         f"the file name says {corpus!r} seed {seed}")
    rows = []
    for system, rungs in results.items():
        if not isinstance(rungs, dict):
            raise ValueError(f"{path}: results/{system} is not a mapping of rungs")
        for rung, cell in rungs.items():
            generations = cell.get("generations") if isinstance(cell, dict) else None
            if not isinstance(generations, list):
                raise ValueError(f"{path}: results/{system}/{rung} has no generations list")
            for i, record in enumerate(generations):
                if not isinstance(record, dict) or not isinstance(record.get("stem"), str) \
                        or not isinstance(record.get("text", ""), str):
                    raise ValueError(f"{path}: results/{system}/{rung}/generations[{i}] lacks a string stem and text")
                rows.append({"system": system, "corpus": corpus, "clip_id": strip_extension(record["stem"]),
                             "rung": rung, "seed": seed, "text": record.get("text") or ""})
    return pd.DataFrame(rows, columns=["system", "corpus", "clip_id", "rung", "seed", "text"])


def parse_generations(generations: pd.DataFrame) -> pd.DataFrame:
    """Every generation's claims through the project's parser (``acousticlaim.claims.parser.parse_batch``).

    Returns one row per claim: ``system, corpus, clip_id, rung, seed, quantity, value, unit, unit_text,
    start, end, approx, is_range``. The released run files say nothing of truncation, so every text is
    parsed as complete.
    """
    try:
        from acousticlaim.claims import parser
    except ImportError as err:  # the parser is issue 4's; say so rather than guess
        raise RuntimeError(
            "re-scoring needs the project's claim parser, acousticlaim.claims.parser (issue 4), "
            f"which is not importable here: {err}"
        ) from None
    columns = ["system", "corpus", "clip_id", "rung", "seed", "quantity", "value", "unit", "unit_text",
               "start", "end", "approx", "is_range"]
    generations = generations.reset_index(drop=True)
    found = parser.parse_batch(generations["text"].tolist()).to_pandas()
    if found.empty:
        return pd.DataFrame(columns=columns)
    keys = generations.loc[found["text_index"].to_numpy(), ["system", "corpus", "clip_id", "rung", "seed"]]
    claims = pd.concat([keys.reset_index(drop=True), found.drop(columns="text_index").reset_index(drop=True)], axis=1)
    for column in ("quantity", "unit", "unit_text"):
        claims[column] = claims[column].astype(object).where(claims[column].notna(), None)
    return claims[columns]


def release_speaker(clip_id: str) -> str | None:
    """The target talker of a released clip: LibriSpeech speaker of ``s1``, or the AMI speaker field."""
    libri = re.match(r"^(\d+)-\d+-\d+_", clip_id)
    if libri:
        return libri.group(1)
    ami = re.match(r"^AMI_[A-Za-z0-9]+_sdm_([A-Za-z0-9]+)_", clip_id)
    return ami.group(1) if ami else None


@dataclass
class ReleaseRescore:
    results: ScoreResults
    generations: pd.DataFrame
    claims: pd.DataFrame
    consistency: dict


def rescore_release(panel_files: Sequence[str | Path], references_dir: str | Path, manifests_dir: str | Path,
                    config: ScoringConfig | None = None, *, claims: pd.DataFrame | None = None) -> ReleaseRescore:
    """Import released run files and reference tables, parse, pool by clip and score (Table 2 layout).

    ``claims`` may be given to skip parsing (tests, or claims parsed elsewhere).
    """
    config = config or ScoringConfig(system_order=PAPER_SYSTEM_ORDER)
    if not panel_files:
        raise ValueError("no released run files given")
    generations = pd.concat([release_generations(p) for p in panel_files], ignore_index=True)
    key = ["system", "corpus", "clip_id", "rung", "seed"]
    dup = generations.duplicated(key)
    if dup.any():
        row = generations.loc[dup].iloc[0]
        raise ValueError(f"generation {tuple(row[k] for k in key)} appears twice across the run files")
    corpora = sorted(set(generations["corpus"]))
    references = pd.concat([read_release_references(Path(references_dir) / REFERENCE_FILES[c], c) for c in corpora],
                           ignore_index=True)
    panel_clips: dict[str, set[str]] = {}
    consistency: dict = {"files": [Path(p).name for p in panel_files]}
    for corpus in corpora:
        listed = read_panel_clips(Path(manifests_dir) / PANEL_LISTS[corpus])
        panel_clips[corpus] = set(listed)
        drawn = generations[generations["corpus"] == corpus]
        outside = sorted(set(drawn["clip_id"]) - panel_clips[corpus])
        if outside:
            raise ValueError(f"{len(outside)} generated clip(s) on {corpus} are not in {PANEL_LISTS[corpus]}, e.g. {outside[0]}")
        no_ref = sorted(panel_clips[corpus] - set(references["clip_id"]))
        if no_ref:
            raise ValueError(f"{len(no_ref)} panel clip(s) on {corpus} have no row in {REFERENCE_FILES[corpus]}, e.g. {no_ref[0]}")
        per_seed = drawn.groupby("seed")["clip_id"].nunique()
        consistency[corpus] = {
            "panel_clips": len(panel_clips[corpus]),
            "sampling_seeds": sorted(int(s) for s in per_seed.index),
            "clips_per_seed": {int(s): int(n) for s, n in per_seed.items()},
            "distinct_clips_drawn": int(drawn["clip_id"].nunique()),
            "generations": int(len(drawn)),
        }
    if claims is None:
        claims = parse_generations(generations)
    parsed = claims.groupby(["system", "corpus", "clip_id", "rung", "seed"]).size()
    consistency["generations_with_a_claim"] = int(len(parsed))
    consistency["generations_parsing_to_nothing"] = int(len(generations) - len(parsed))
    speakers = {clip: release_speaker(clip) for clip in set(generations["clip_id"])}
    speakers = {c: s for c, s in speakers.items() if s is not None}
    results = score(claims, references, config, generations=generations, panel_clips=panel_clips,
                    speakers=speakers, title="Table 2 (the released panel, re-scored)")
    drawn = generations.groupby(["system", "corpus", "rung"])["clip_id"].nunique().rename("drawn").reset_index()
    checked = results.cells.merge(drawn, on=["system", "corpus", "rung"], how="left")
    too_many = checked[checked["n"] > checked["drawn"].fillna(0)]
    if len(too_many):
        row = too_many.iloc[0]
        raise RuntimeError(f"internal inconsistency: cell {row['system']}/{row['rung']}/{row['quantity']} counts "
                           f"{row['n']} clips but the system generated on {row['drawn']} distinct clips there")
    consistency["every_n_within_the_clips_drawn"] = True
    consistency["largest_n"] = int(results.cells["n"].max()) if len(results.cells) else 0
    results.metrics.pop("table1", None)  # the release carries no reference-system predictions
    results.metrics["consistency"] = consistency
    return ReleaseRescore(results, generations, claims, consistency)


def panel_files_in(folder: str | Path, corpora: Iterable[str] = RELEASE_CORPORA) -> list[Path]:
    """The released run files in ``folder`` for the given corpora, sorted by name."""
    folder = Path(folder)
    files = sorted(p for c in corpora for p in folder.glob(f"*_{c}_seed*.json"))
    if not files:
        raise FileNotFoundError(f"{folder}: no released run files (*_<corpus>_seed<k>.json)")
    return files


def write_release(rescore: ReleaseRescore, out: str | Path) -> list[Path]:
    """Write Table 2 (markdown, CSV), the cell Parquet and the metrics (with the consistency checks)."""
    out = Path(out)
    return write_results(rescore.results, reports=out, cells_path=out / "cells.parquet",
                         metrics_path=out / "metrics.json", table1=False)
