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

    The file is read and validated by the panel's importer (:func:`acousticlaim.panel.importing.
    read_generations`, the same code as ``acousticlaim import-generations``), under the system name the
    file itself gives (the one key of ``results``, e.g. ``Qwen2-Audio-7B``, as the paper's tables
    print it). The file name must agree with the file's corpus and seed. A malformed file is an error
    naming the file and every place that is wrong.
    """
    from acousticlaim.panel.importing import GenerationImportError, read_generations

    path = Path(path)
    match = _FILE_NAME.match(path.name)
    if not match:
        raise ValueError(f"{path}: not a released run file name (<system>_<corpus>_seed<k>.json)")
    try:
        results = json.loads(path.read_text()).get("results")
        system = next(iter(results)) if isinstance(results, dict) and results else None
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as err:
        raise ValueError(f"{path}: not a released run file ({err})") from None
    if not isinstance(system, str) or not system.strip():
        raise ValueError(f"{path}: no system under 'results'")
    try:
        fmt, records = read_generations(path, system)
    except GenerationImportError as err:
        raise ValueError(str(err)) from None
    if fmt != "released-json":
        raise ValueError(f"{path}: read as {fmt}, not as a released run file")
    frame = pd.DataFrame(
        [(r.system, r.corpus, strip_extension(r.clip_id), r.rung, r.seed, r.text) for r in records],
        columns=["system", "corpus", "clip_id", "rung", "seed", "text"],
    )
    corpus, seed = match["corpus"], int(match["seed"])
    if set(frame["corpus"]) != {corpus} or set(frame["seed"]) != {seed}:
        raise ValueError(f"{path}: the file holds corpus {sorted(set(frame['corpus']))} seed {sorted(set(frame['seed']))}, "
                         f"its name says {corpus!r} seed {seed}")
    return frame


def parse_generations(generations: pd.DataFrame) -> pd.DataFrame:
    """Every generation's claims, through the claims stage's own code (``acousticlaim.claims.extract``).

    One row per claim (``system, corpus, clip_id, rung, seed, quantity, value, unit, unit_text, start,
    end, …``), exactly as the ``claims`` stage writes ``data/claims/claims.parquet``. The released run
    files say nothing of truncation, so every text is parsed as complete.
    """
    from acousticlaim.claims.extract import extract_claims

    return extract_claims(generations[["system", "corpus", "clip_id", "rung", "seed", "text"]]).claims


def release_speaker(clip_id: str) -> str | None:
    """The target talker of a released clip: LibriSpeech speaker of ``s1``, or the AMI speaker field."""
    libri = re.match(r"^(\d+)-\d+-\d+_", clip_id)
    if libri:
        return libri.group(1)
    from acousticlaim.corpus.ami import parse_clip_id

    try:
        return parse_clip_id(clip_id).speaker
    except ValueError:
        return None


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
    """Write Table 2 as CSV, the cells and their points (Parquet) and the metrics with the consistency checks.

    The Markdown table, the pictures and the page are :func:`acousticlaim.report.page.write_release_report`'s.
    """
    out = Path(out)
    return write_results(rescore.results, reports=out, cells_path=out / "cells.parquet",
                         metrics_path=out / "metrics.json", table1=False)
