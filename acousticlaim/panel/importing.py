"""Import generations made elsewhere (a GPU cluster, another lab, the paper's release).

Two formats are read, told apart by their first non-blank character:

* **our JSONL** (one record per line, :mod:`acousticlaim.panel.records`): every line is validated;
  the record's ``system`` must be the name it is imported under and its ``prompt_version`` the
  project's (generations answering other prompts are not comparable);
* **the released per-run JSON** (``{"system", "model_id", "corpus", "seed", "results": {system:
  {rung: {"prompt", "generations": [{"stem", "text"}]}}}}``): every rung must be one of ours and its
  ``prompt`` our verbatim text; each generation becomes a record for clip ``stem`` at the file's
  ``seed`` and ``corpus``, with ``n_tokens``, ``truncated`` and ``seconds`` unknown (``null``).

Everything is validated before anything is written: one malformed record rejects the file, and the
error lists every problem with its location (``file:line`` for JSONL, ``file:results.<system>.
<rung>.generations[i]`` for JSON). Records then go into the system's generation store; a key that is
already there with the same text is skipped (importing twice changes nothing), with another text it
is a conflict and is refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acousticlaim.claims.prompts import RUNG_IDS, get_rung
from acousticlaim.panel.records import CORPORA, MAX_SEED, GenerationRecord, RecordError, parse_record_line
from acousticlaim.panel.store import GenerationStore
from acousticlaim.safe_names import clip_id_problem

MAX_ERRORS_SHOWN = 20


class GenerationImportError(ValueError):
    """The file cannot be imported; ``errors`` lists every problem found, each with its location."""

    def __init__(self, path: str | os.PathLike, errors: list[str]):
        self.path = str(path)
        self.errors = errors
        shown = errors[:MAX_ERRORS_SHOWN]
        more = f"\n… and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        super().__init__(f"{path}: {len(errors)} problem(s), nothing imported:\n" + "\n".join(shown) + more)


@dataclass(frozen=True)
class ImportSummary:
    path: str
    system: str
    format: str
    n_records: int
    n_written: int
    n_skipped: int
    store: str


def _read_jsonl(path: Path, system: str, errors: list[str]) -> list[GenerationRecord]:
    records: list[GenerationRecord] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            loc = f"{path}:{lineno}"
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                errors.append(f"{loc}: not UTF-8 ({exc.reason})")
                continue
            try:
                rec = parse_record_line(line, loc)
            except RecordError as exc:
                errors.append(str(exc))
                continue
            if rec.system != system:
                errors.append(f"{loc}: the record is for system {rec.system!r}, imported as {system!r}")
                continue
            if rec.prompt_version != get_rung(rec.rung).version:
                errors.append(f"{loc}: prompt_version {rec.prompt_version!r} is not this project's "
                              f"{get_rung(rec.rung).version!r} for rung {rec.rung}")
                continue
            records.append(replace(rec, source=f"import:{path.name}"))
    return records


def _read_released(path: Path, data: Any, system: str, errors: list[str]) -> list[GenerationRecord]:
    loc = f"{path}"
    if not isinstance(data, dict):
        errors.append(f"{loc}: expected a JSON object at the top level")
        return []
    seed, corpus, results = data.get("seed"), data.get("corpus"), data.get("results")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        errors.append(f"{loc}:seed: expected an integer sampling seed from 0 to {MAX_SEED}, got {str(seed)[:40]}")
    if corpus not in CORPORA:
        errors.append(f"{loc}:corpus: {corpus!r} is not one of {', '.join(CORPORA)}")
    if not isinstance(results, dict) or not results:
        errors.append(f"{loc}:results: expected an object of systems")
        return []
    if len(results) != 1:
        errors.append(f"{loc}:results: holds {len(results)} systems ({', '.join(map(str, results))}); import one file per system")
        return []
    model_id = data.get("model_id")
    source_system, rungs = next(iter(results.items()))
    rloc = f"{loc}:results.{source_system}"
    if not isinstance(rungs, dict) or not rungs:
        errors.append(f"{rloc}: expected an object of rungs")
        return []
    if errors:
        return []
    records: list[GenerationRecord] = []
    seen: dict[tuple[str, str], str] = {}
    for rung_id, block in rungs.items():
        bloc = f"{rloc}.{rung_id}"
        if rung_id not in RUNG_IDS:
            errors.append(f"{bloc}: unknown rung; the rungs are {', '.join(RUNG_IDS)}")
            continue
        if not isinstance(block, dict) or not isinstance(block.get("generations"), list):
            errors.append(f"{bloc}: expected an object with a 'generations' list")
            continue
        prompt = block.get("prompt")
        if prompt is not None and prompt != get_rung(rung_id).text:
            errors.append(f"{bloc}.prompt: differs from this project's verbatim {rung_id} prompt")
            continue
        for i, gen in enumerate(block["generations"]):
            gloc = f"{bloc}.generations[{i}]"
            if not isinstance(gen, dict):
                errors.append(f"{gloc}: expected an object with 'stem' and 'text'")
                continue
            stem, text = gen.get("stem"), gen.get("text")
            problem = clip_id_problem(stem)
            if problem:
                errors.append(f"{gloc}.stem: {problem}")
                continue
            if not isinstance(text, str):
                errors.append(f"{gloc}.text: expected a string, got {type(text).__name__}")
                continue
            if (stem, rung_id) in seen:
                errors.append(f"{gloc}: clip {stem!r} already appears at {seen[(stem, rung_id)]}")
                continue
            seen[(stem, rung_id)] = gloc
            records.append(GenerationRecord(
                system=system, corpus=corpus, clip_id=stem, rung=rung_id, seed=seed, text=text,
                prompt_version=get_rung(rung_id).version, n_tokens=None, truncated=None, seconds=None,
                model=model_id if isinstance(model_id, str) else None, source=f"import:{path.name}",
            ))
    return records


def _one_json_document(path: Path) -> Any:
    """The file as one JSON document, or ``None`` when it is JSON Lines (its first line is a whole value).

    A document that does not parse and whose first line is not a value on its own is a damaged JSON
    document (a pretty-printed run file cut short, say): that is one error, not one per line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # reported line by line as not UTF-8
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        body = text.strip()
        if "\n" not in body:
            return None  # one line: reported as JSON Lines line 1
        first_line = body.split("\n", 1)[0]
        try:
            json.loads(first_line)
            return None  # the first line stands alone: JSON Lines
        except json.JSONDecodeError:
            pass
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise GenerationImportError(path, [
                f"{path}: truncated JSON document: it ends at line {exc.lineno} before the document closes "
                f"({exc.msg}); the file was cut short, copy or download it again"
            ]) from None
        raise GenerationImportError(path, [
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix the file at that place"
        ]) from None


def manifest_clip_ids(path: str | os.PathLike) -> set[str]:
    """The clip ids a manifest lists: the corpus ``manifest.parquet`` (or its folder), a CSV with a
    ``clip_id``, ``mixture_ID`` or ``filename`` column (Libri2Mix metadata, a released reference
    table), or a text file with one id per line (a released panel clip list). A ``.wav`` ending is dropped."""
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        path = path / "manifest.parquet"
    if not path.is_file():
        raise GenerationImportError(path, [f"{path}: no such manifest; give one with --manifest PATH"])
    try:
        if path.suffix == ".parquet":
            ids = pd.read_parquet(path, columns=["clip_id"])["clip_id"]
        elif path.suffix == ".csv":
            table = pd.read_csv(path, dtype=str)
            column = next((c for c in ("clip_id", "mixture_ID", "filename") if c in table.columns), None)
            if column is None:
                raise GenerationImportError(path, [
                    f"{path}: no clip_id, mixture_ID or filename column (columns: {', '.join(map(str, table.columns))})"])
            ids = table[column]
        else:
            ids = pd.Series(path.read_text(encoding="utf-8").splitlines())
    except GenerationImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow/pandas errors on a damaged manifest
        raise GenerationImportError(path, [f"{path}: cannot be read as a manifest ({type(exc).__name__}: {exc})"]) from None
    return {str(i).strip().removesuffix(".wav") for i in ids.dropna() if str(i).strip()}


def _not_in_manifest(records: list[GenerationRecord], listed: set[str], manifest: str | os.PathLike) -> list[str]:
    from acousticlaim.corpus.manifest import TWIN_SUFFIX

    def known(clip_id: str) -> bool:
        bare = clip_id.removesuffix(".wav")
        return bare in listed or (bare.endswith(TWIN_SUFFIX) and bare.removesuffix(TWIN_SUFFIX) in listed)

    unknown = sorted({r.clip_id for r in records if not known(r.clip_id)})
    if not unknown:
        return []
    shown = ", ".join(unknown[:10]) + (f" … and {len(unknown) - 10} more" if len(unknown) > 10 else "")
    return [f"{len(unknown)} clip id(s) are not in the manifest {manifest}: {shown}; "
            "import against the corpus they belong to with --manifest PATH"]


def read_generations(path: str | os.PathLike, system: str) -> tuple[str, list[GenerationRecord]]:
    """Validate a file of generations; returns (format, records) or raises :class:`GenerationImportError`."""
    path = Path(path)
    if not path.is_file():
        raise GenerationImportError(path, [f"{path}: no such file"])
    if not system or not system.strip():
        raise GenerationImportError(path, [f"{path}: no system name to import under"])
    errors: list[str] = []
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip()
    if not head:
        raise GenerationImportError(path, [f"{path}: the file is empty"])
    records: list[GenerationRecord]
    fmt = "jsonl"
    whole = _one_json_document(path) if head.startswith(b"{") else None
    if isinstance(whole, dict) and "results" in whole:
        fmt = "released-json"
        records = _read_released(path, whole, system, errors)
    else:
        records = _read_jsonl(path, system, errors)
        keys: dict[tuple, str] = {}
        for rec in records:
            if rec.key in keys:
                errors.append(f"{path}: key {rec.key} appears twice in the file")
            keys[rec.key] = rec.text
    if not errors and not records:
        errors.append(f"{path}: holds no generations")
    if errors:
        raise GenerationImportError(path, errors)
    return fmt, records


def import_generations(path: str | os.PathLike, system: str, out_dir: str | os.PathLike,
                       manifest: str | os.PathLike | None = None) -> ImportSummary:
    """Validate ``path`` and add its generations to ``out_dir/<system>.jsonl``.

    With ``manifest`` (see :func:`manifest_clip_ids`) every clip id must be one it lists (a clip's
    clean twin counts as listed with its mixture); ids it does not list are refused, named.
    """
    fmt, records = read_generations(path, system)
    if manifest is not None:
        problems = _not_in_manifest(records, manifest_clip_ids(manifest), manifest)
        if problems:
            raise GenerationImportError(path, problems)
    store_path = Path(out_dir) / f"{system}.jsonl"
    with GenerationStore(store_path) as store:
        existing = {r.key: r for r in store.records}
        conflicts = [
            f"{path}: {r.key} is already in {store_path} with another text"
            for r in records if r.key in existing and existing[r.key].text != r.text
        ]
        if conflicts:
            raise GenerationImportError(path, conflicts)
        new = [r for r in records if r.key not in existing]
        store.append(new)
    return ImportSummary(str(path), system, fmt, len(records), len(new), len(records) - len(new), str(store_path))
