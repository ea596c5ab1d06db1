"""Bad input, table-driven: every row is a command a new user might run with an ordinary bad input.

Each row gives the command line, the exit status it must end with, a message it must print, and
the folders it must leave as they were (every file already there byte-identical; for a refused
command nothing new either). No row may print a Python traceback: tracebacks are for ``--debug``.
The library-level cases (a store's unterminated tail, path traversal in a Libri2Mix CSV, the HTTP
adapter's redirects, ``parse_batch`` inputs, the Arrow entry) follow the table.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import soundfile as sf
from typer.testing import CliRunner

from acousticlaim.claims.prompts import PROMPT_VERSION, get_rung
from acousticlaim.cli import app
from acousticlaim.panel.records import GenerationRecord
from acousticlaim.panel.store import GenerationStore, read_records
from tests.loopback_server import LoopbackJSONServer

SR = 16_000


@pytest.fixture(autouse=True)
def _outside_the_project(tmp_path, monkeypatch):
    """Commands run where no project corpus is: a checkout where `dvc repro` has built data/corpus would
    otherwise lend `import-generations` its manifest (its default) and change what these rows test."""
    monkeypatch.chdir(tmp_path)
runner = CliRunner()


# ------------------------------------------------------------------------------------------ inputs

def speechlike(seconds: float, sr: int = SR, channels: int = 1) -> np.ndarray:
    """A voiced, amplitude-modulated 140-Hz buzz: enough structure for every instrument."""
    t = np.arange(int(round(seconds * sr))) / sr
    f0 = 140 + 10 * np.sin(2 * np.pi * 0.5 * t)
    phase = 2 * np.pi * np.cumsum(f0) / sr
    x = sum(np.sin(k * phase) / k for k in range(1, 12)) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2) * 0.2
    return np.stack([x, 0.5 * x], axis=1) if channels == 2 else x


def wav(folder: Path, name: str, x: np.ndarray, sr: int = SR, subtype: str = "FLOAT") -> Path:
    path = folder / name
    sf.write(path, x, sr, subtype=subtype, format=path.suffix.lstrip(".").upper())
    return path


def text_file(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def record(clip: str = "c1", *, seed: int = 0, text: str = "The SNR is 12 dB.", system: str = "qwen") -> dict:
    return {"system": system, "corpus": "ami", "clip_id": clip, "rung": "P1_numeric", "seed": seed, "text": text,
            "prompt_version": PROMPT_VERSION, "n_tokens": 7, "truncated": False, "seconds": 0.5}


def jsonl(folder: Path, name: str, records: list) -> Path:
    path = folder / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def released(stems_texts: list[tuple[str, str]], seed=0) -> dict:
    return {"system": "Qwen2-Audio-7B", "model_id": "qwen", "corpus": "librimix", "seed": seed,
            "results": {"Qwen2-Audio-7B": {"P1_numeric": {"prompt": get_rung("P1_numeric").text,
                                                           "generations": [{"stem": s, "text": t} for s, t in stems_texts]}}}}


def a_store(tmp: Path) -> Path:
    """A generations folder whose qwen store already holds one record (it must survive every bad import)."""
    gens = tmp / "gens"
    gens.mkdir()
    jsonl(gens, "qwen.jsonl", [record("c0")])
    return gens


# ------------------------------------------------------------------------------------------- table

@dataclass
class Row:
    id: str
    setup: Callable[[Path], tuple[list[str], list[Path]]]  # tmp -> (arguments, folders that must not change)
    exit_code: int
    message: str
    writes_nothing: bool = True  # besides leaving every existing file as it was, adds no file
    check: Callable[[Path, object], None] | None = None  # further assertions on (tmp, result)


def measure(make: Callable[[Path], Path | list[Path]]):
    def setup(tmp: Path):
        made = make(tmp)
        return ["measure", *map(str, made if isinstance(made, list) else [made])], [tmp]
    return setup


def short_clip_readings(tmp, result):
    out = json.loads(result.stdout)
    assert out["readings"]["srmr"]["defined"] is False and "SRMR undefined" in out["readings"]["srmr"]["reason"]
    assert all(r["defined"] or r["reason"] for r in out["readings"].values())


def every_reading_explained(tmp, result):
    out = json.loads(result.stdout)
    for key, reading in out["readings"].items():
        assert reading["defined"] or reading["reason"], key


def three_files_two_measured(tmp, result):
    out = json.loads(result.stdout)
    assert [("error" in r) for r in out] == [False, True, False]
    assert all(r["readings"]["duration"]["value"] == pytest.approx(1.0) for r in (out[0], out[2]))
    assert result.stderr.count("error:") == 1


def import_row(make_file: Callable[[Path], Path], *extra: str):
    def setup(tmp: Path):
        gens = a_store(tmp)
        src = make_file(tmp)
        return ["import-generations", str(src), "--system", "qwen", "--out", str(gens), *extra], [gens]
    return setup


def truncated_pretty_json(tmp: Path) -> Path:
    text = json.dumps(released([(f"1-2-000{i}_3-4-000{i}", "SNR 5 dB") for i in range(40)]), indent=2)
    path = tmp / "Qwen2-Audio-7B_librimix_seed0.json"
    path.write_text(text[: len(text) // 2])
    return path


def locked(tmp: Path):
    gens = a_store(tmp)
    src = jsonl(tmp, "new.jsonl", [record("c1")])
    holder = GenerationStore(gens / "qwen.jsonl").open()  # another run holds the store
    return ["import-generations", str(src), "--system", "qwen", "--out", str(gens)], [gens], holder


def manifest_row(tmp: Path):
    gens = a_store(tmp)
    manifest = tmp / "clips.txt"
    manifest.write_text("c1\nc2\n")
    src = jsonl(tmp, "g.jsonl", [record("c1"), record("c9"), record("zz")])
    return ["import-generations", str(src), "--system", "qwen", "--out", str(gens), "--manifest", str(manifest)], [gens]


def store_without_final_newline(tmp: Path):
    gens = tmp / "gens"
    gens.mkdir()
    (gens / "qwen.jsonl").write_text(json.dumps(record("c0")) + "\n" + json.dumps(record("c1")))  # no newline at the end
    src = jsonl(tmp, "g.jsonl", [record("c2")])
    return ["import-generations", str(src), "--system", "qwen", "--out", str(gens)], []


def kept_the_last_record(tmp, result):
    records, dropped = read_records(tmp / "gens" / "qwen.jsonl")
    assert dropped == 0 and [r.clip_id for r in records] == ["c0", "c1", "c2"]


def rescore_row(make_panel: Callable[[Path], Path]):
    def setup(tmp: Path):
        panel = make_panel(tmp)
        release = tmp / "release"
        release.mkdir()
        out = tmp / "out"
        out.mkdir()
        (out / "keep.md").write_text("an earlier table\n")
        return ["rescore-release", "--panel", str(panel), "--release", str(release), "--out", str(out),
                "--params", str(tmp / "none.yaml")], [out]
    return setup


def corrupt_run_file(tmp: Path) -> Path:
    panel = tmp / "panel"
    panel.mkdir()
    (panel / "Qwen2-Audio-7B_librimix_seed0.json").write_text("{\n  \"system\": \"Qwen\",\n  \"results\": {\n")
    return panel


def bad_params(tmp: Path):
    params = tmp / "params.yaml"
    params.write_text("scores:\n  n_mn: 30\n")
    panel, release, out = tmp / "panel", tmp / "release", tmp / "out"
    for folder in (panel, release, out):
        folder.mkdir()
    return ["rescore-release", "--panel", str(panel), "--release", str(release), "--out", str(out),
            "--params", str(params)], [out]


ROWS = [
    # measure: files that cannot be audio
    Row("measure-0-byte-file", measure(lambda t: text_file(t, "empty.wav", b"")), 1, "cannot be decoded"),
    Row("measure-text-named-wav", measure(lambda t: text_file(t, "notes.wav", "hello")), 1, "cannot be decoded"),
    Row("measure-directory", measure(lambda t: (t / "d.wav").mkdir() or t / "d.wav"), 1, "d.wav"),
    Row("measure-missing-path", measure(lambda t: t / "nowhere.wav"), 1, "no such file"),
    Row("measure-nan", measure(lambda t: wav(t, "nan.wav", np.where(np.arange(SR) == 99, np.nan, speechlike(1.0)))), 1, "NaN or Inf"),
    Row("measure-inf", measure(lambda t: wav(t, "inf.wav", np.where(np.arange(SR) == 99, np.inf, speechlike(1.0)))), 1, "NaN or Inf"),
    Row("measure-extreme-samples", measure(lambda t: wav(t, "huge.wav", speechlike(1.0) * 1e160, subtype="DOUBLE")), 1, "out of range"),
    Row("measure-10-ms", measure(lambda t: wav(t, "tiny.wav", speechlike(0.01))), 1, "too short"),
    # measure: files that are audio, however odd: every reading defined or explained, exit 0
    Row("measure-25-ms", measure(lambda t: wav(t, "short.wav", speechlike(0.025))), 0, "", check=short_clip_readings),
    Row("measure-32-ms", measure(lambda t: wav(t, "short32.wav", speechlike(0.032))), 0, "", check=short_clip_readings),
    Row("measure-50-ms", measure(lambda t: wav(t, "short50.wav", speechlike(0.05))), 0, "", check=every_reading_explained),
    Row("measure-digital-silence", measure(lambda t: wav(t, "silence.wav", np.zeros(SR))), 0, "", check=every_reading_explained),
    Row("measure-clipped", measure(lambda t: wav(t, "clipped.wav", np.clip(speechlike(1.0) * 20, -1, 1), subtype="PCM_16")), 0, "", check=every_reading_explained),
    Row("measure-stereo-44k1", measure(lambda t: wav(t, "stereo.wav", speechlike(1.0, 44_100, 2), 44_100, "PCM_16")), 0, "", check=every_reading_explained),
    Row("measure-24-bit-flac", measure(lambda t: wav(t, "deep.flac", speechlike(1.0), subtype="PCM_24")), 0, "", check=every_reading_explained),
    Row("measure-8-khz", measure(lambda t: wav(t, "phone.wav", speechlike(1.0, 8000), 8000, "PCM_16")), 0, "", check=every_reading_explained),
    Row("measure-three-files-one-bad", measure(lambda t: [wav(t, "a.wav", speechlike(1.0)), text_file(t, "b.wav", "x"),
                                                           wav(t, "c.wav", speechlike(1.0))]), 1, "b.wav: cannot be decoded", check=three_files_two_measured),
    # check: the claim is compared even when the clip is too short for an instrument
    Row("check-25-ms", lambda t: (["check", str(wav(t, "s.wav", speechlike(0.025))), "SRMR is 5.", "--format", "json"], [t]), 0, "SRMR undefined"),
    Row("check-missing-file", lambda t: (["check", str(t / "gone.wav"), "SNR 5 dB"], [t]), 1, "no such file"),
    # import-generations: nothing is written, the store keeps what it had
    Row("import-missing-file", import_row(lambda t: t / "absent.jsonl"), 1, "absent.jsonl: no such file"),
    Row("import-malformed-jsonl", import_row(lambda t: jsonl(t, "g.jsonl", [record("c1"), "{oops"])), 1, "g.jsonl:2: not valid JSON"),
    Row("import-truncated-jsonl", import_row(lambda t: text_file(t, "g.jsonl", json.dumps(record("c1"))[:30])), 1, "g.jsonl:1: not valid JSON"),
    Row("import-truncated-pretty-json", import_row(truncated_pretty_json), 1, "truncated JSON document",
        check=lambda t, r: (r.stderr.count("error:") == 1) or pytest.fail(r.stderr)),
    Row("import-duplicates", import_row(lambda t: jsonl(t, "g.jsonl", [record("c1"), record("c1")])), 1, "appears twice in the file"),
    Row("import-conflicting-text", import_row(lambda t: jsonl(t, "g.jsonl", [record("c0", text="Something else.")])), 1, "with another text"),
    Row("import-seed-1e30", import_row(lambda t: jsonl(t, "g.jsonl", [record("c1", seed=10**30)])), 1, "seed must be an integer from 0 to 4294967295"),
    Row("import-released-seed-1e30", import_row(lambda t: text_file(t, "r.json", json.dumps(released([("1-2-3_4-5-6", "x")], seed=10**30)))),
        1, "seed: expected an integer sampling seed from 0 to"),
    Row("import-clip-id-dotdot", import_row(lambda t: jsonl(t, "g.jsonl", [record("../../etc/x")])), 1, "cannot name a file"),
    Row("import-clip-id-nul", import_row(lambda t: jsonl(t, "g.jsonl", [record("a\u0000b")])), 1, "cannot name a file"),
    Row("import-clip-id-newline", import_row(lambda t: jsonl(t, "g.jsonl", [record("a\nb")])), 1, "cannot name a file"),
    Row("import-clip-id-not-in-manifest", manifest_row, 1, "2 clip id(s) are not in the manifest"),
    Row("import-into-store-without-final-newline", store_without_final_newline, 0, "1 written", writes_nothing=False, check=kept_the_last_record),
    # rescore-release: a missing folder, a corrupt run file
    Row("rescore-missing-panel-folder", rescore_row(lambda t: t / "no-panel"), 1, "no-panel: no such folder"),
    Row("rescore-corrupt-run-file", rescore_row(corrupt_run_file), 1, "Qwen2-Audio-7B_librimix_seed0.json"),
    # a typo in params.yaml, a params file that is not there
    Row("rescore-unknown-params-key", bad_params, 1, "unknown parameter(s) n_mn"),
    Row("build-corpus-missing-params", lambda t: (["build-corpus", "--params", str(t / "nope.yaml"), "--out", str(t / "c")], [t]),
        1, "nope.yaml: parameter file not found"),
    # audit-parser: labels that are not there or not JSON (its own exit status for a bad labels file: 2)
    Row("audit-missing-labels", lambda t: (["audit-parser", str(t / "labels.jsonl")], [t]), 2, "labels file not found"),
    Row("audit-malformed-labels", lambda t: (["audit-parser", str(text_file(t, "labels.jsonl", "not json\n"))], [t]), 2,
        "labels.jsonl:1: not JSON"),
]


def _snapshot(folders: list[Path]) -> dict[str, str]:
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.exists() else []:
            if path.is_file():
                files[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input(row: Row, tmp_path: Path):
    made = row.setup(tmp_path)
    args, watched, holder = (*made, None) if len(made) == 2 else made
    before = _snapshot(watched)
    try:
        result = runner.invoke(app, args)
    finally:
        if holder is not None:
            holder.close()
    output = result.stdout + result.stderr
    assert result.exit_code == row.exit_code, output
    assert "Traceback" not in output and result.exception is None or isinstance(result.exception, SystemExit), output
    assert row.message in output, output
    if row.exit_code:
        lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert lines and all(ln.startswith("error: ") for ln in lines), result.stderr
    after = _snapshot(watched)
    assert {p: after.get(p) for p in before} == before, "a file that was there changed"
    if row.writes_nothing:
        assert set(after) == set(before), f"new files: {sorted(set(after) - set(before))}"
    if row.check:
        row.check(tmp_path, result)


def test_locked_store_is_one_line_and_nothing_changes(tmp_path):
    args, watched, holder = locked(tmp_path)
    before = _snapshot(watched)
    try:
        result = runner.invoke(app, args)
    finally:
        holder.close()
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("error: ") and "another run is writing" in result.stderr
    assert "wait for it to finish" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert _snapshot(watched) == before


def test_debug_shows_the_traceback(tmp_path):
    result = runner.invoke(app, ["--debug", "import-generations", str(tmp_path / "absent.jsonl"), "--system", "qwen",
                                 "--out", str(tmp_path / "gens")])
    assert result.exit_code == 1 and result.exception is not None and not isinstance(result.exception, SystemExit)


# ------------------------------------------------------------------------------- library-level cases

def test_store_keeps_a_complete_last_record_and_reports_a_cut_tail(tmp_path, caplog):
    path = tmp_path / "qwen.jsonl"
    whole = json.dumps(record("c0")) + "\n" + json.dumps(record("c1"))
    path.write_text(whole)  # the last record is complete, only its newline is missing
    with GenerationStore(path) as store:
        assert [r.clip_id for r in store.records] == ["c0", "c1"] and store.dropped_tail_bytes == 0
        store.append([GenerationRecord(**record("c2"))])
    assert [r.clip_id for r in read_records(path)[0]] == ["c0", "c1", "c2"]

    good = json.dumps(record("c0")) + "\n"
    path.write_text(good + json.dumps(record("c1"))[:-1])  # a record cut one byte short is not complete
    with caplog.at_level("WARNING", logger="acousticlaim.panel.store"):
        with GenerationStore(path) as store:
            assert [r.clip_id for r in store.records] == ["c0"]
    cut = len(json.dumps(record("c1"))) - 1
    assert f"({cut} bytes from byte offset {len(good)})" in caplog.text
    assert path.read_text() == good


def test_a_libri2mix_id_that_leaves_the_corpus_folder_is_a_recorded_failure(tmp_path):
    from acousticlaim.corpus.build import build_mixture
    from acousticlaim.safe_names import UnsafePathError, path_under

    out = tmp_path / "corpus"
    job = {"source": "libri2mix", "split": "test", "out": str(out), "mixture_id": "../../../x",
           "origin": "meta.csv row 3 (mixture_ID)"}
    result = build_mixture(job)
    assert result["rows"] == []
    [failure] = result["failures"]
    assert failure.clip_id == "../../../x" and "meta.csv row 3 (mixture_ID)" in failure.reason
    assert "cannot name a file" in failure.reason
    assert not any(tmp_path.rglob("*.flac"))
    with pytest.raises(UnsafePathError, match="outside"):
        path_under(out, "audio", "..", "..", "x.flac")
    assert path_under(out, "audio", "test", "a.flac") == out / "audio" / "test" / "a.flac"


class _Recorder(LoopbackJSONServer):
    """A 127.0.0.1 server that answers each request with the next scripted (status, headers)."""

    def __init__(self, script):
        self.script, self.seen = list(script), []
        super().__init__(self._answer)

    def _answer(self, method, path, headers, body):
        self.seen.append(headers)
        status, headers = self.script.pop(0)
        return status, {"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}, headers


def test_the_api_key_never_follows_a_redirect_to_another_origin(monkeypatch):
    from acousticlaim.panel.gemini import APIError, GeminiAdapter
    from acousticlaim.panel.protocol import GenerationRequest

    key = "secret-key-never-forwarded"
    monkeypatch.setenv("GEMINI_API_KEY", key)
    with _Recorder([(200, {})]) as elsewhere, _Recorder([(302, {"Location": elsewhere.url + "/steal"})]) as first:
        adapter = GeminiAdapter(model="m", endpoint=first.url + "/v1beta", max_retries=0)
        request = GenerationRequest("c1", speechlike(0.1), get_rung("P1_numeric"), 0)
        with pytest.raises(APIError, match="redirecting to another origin") as err:
            adapter.generate([request])
        assert key not in str(err.value)
        assert first.seen[0]["x-goog-api-key"] == key and elsewhere.seen == []
    for endpoint in ("http://generativelanguage.googleapis.com/v1beta", "ftp://127.0.0.1/x", "not a url"):
        with pytest.raises(ValueError, match="https|URL"):
            GeminiAdapter(model="m", endpoint=endpoint)
    for endpoint in ("https://example.org/v1", "http://localhost:8080", "http://[::1]:9/v1"):
        assert GeminiAdapter(model="m", endpoint=endpoint).endpoint == endpoint


def test_parse_batch_refuses_a_bare_string_and_reads_missing_texts_as_missing():
    from acousticlaim.claims.parser import parse_batch

    with pytest.raises(TypeError, match=r"not one str .* parse\(text\)"):
        parse_batch("The SNR is 12 dB.")
    texts = ["The SNR is 12 dB.", None, "Jitter 1.2 %"]
    expected = list(parse_batch(["The SNR is 12 dB.", "", "Jitter 1.2 %"]).n_claims)
    assert expected == [1, 0, 1]
    for batch in (texts, tuple(texts), iter(texts), pd.Series(texts), pd.Series(["The SNR is 12 dB.", math.nan, "Jitter 1.2 %"]),
                  pd.Series(texts, dtype="string"), pa.array(texts), pa.chunked_array([pa.array(texts[:1]), pa.array(texts[1:])])):
        assert list(parse_batch(batch).n_claims) == expected, type(batch)
    # a missing text in a plain list is read as empty whatever its kind; anything else that is not a str is refused
    assert list(parse_batch(["The SNR is 12 dB.", pd.NA, "Jitter 1.2 %", math.nan, None]).n_claims) == [1, 0, 1, 0, 0]
    for bad, kind in ((3, "int"), (b"SNR 5 dB", "bytes"), (2.5, "float")):
        with pytest.raises(TypeError, match=rf"text 1 is a {kind}, not a str"):
            parse_batch(["The SNR is 12 dB.", bad])


def test_the_arrow_entry_cannot_be_made_to_read_a_bogus_address():
    """Every call shape that once took raw addresses is refused with an exception; the process lives on."""
    import subprocess
    import sys

    probe = """
import pyarrow as pa
from acousticlaim import _parser
good = pa.array(["SNR 5 dB"]).__arrow_c_array__()
for arrays in ([(0, 0)], [(1 << 40, 1 << 40)], [(0, 8, 1 << 40, 100, 0, 0, 0, 5)], [("x", "y")],
               [(good[1], good[0])], [(good[0], good[0])], [(pa.array([1]).__arrow_c_array__())]):
    try:
        _parser.parse_arrow(arrays)
    except (TypeError, ValueError) as exc:
        print(type(exc).__name__)
    else:
        raise SystemExit(f"accepted {arrays!r}")
print(_parser.parse_arrow([good])["n_claims"] != b"")
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["TypeError", "TypeError", "ValueError"] + ["TypeError"] * 4 + ["True"], done.stdout


def test_an_instrument_that_raises_leaves_its_reading_undefined_and_the_others_read(tmp_path, monkeypatch):
    import acousticlaim.instruments.measure as measure
    import acousticlaim.instruments.readers as readers

    def broken_srmr(*args, **kwargs):
        raise ValueError("window shape cannot be larger than input array shape")

    monkeypatch.setattr(readers, "srmr", broken_srmr)
    m = measure.measure_file(wav(tmp_path, "a.wav", speechlike(1.0)))
    assert not m.error and m.readings["snr"].defined and m.readings["f0_mean"].defined
    assert m.readings["srmr"].reason == "SRMR failed on this clip (ValueError: window shape cannot be larger than input array shape)"

    def broken_waveform(*args, **kwargs):
        raise MemoryError("out of memory")

    monkeypatch.setattr(measure, "measure_waveform", broken_waveform)
    result = runner.invoke(app, ["measure", str(tmp_path / "a.wav"), str(tmp_path / "a.wav")])
    assert result.exit_code == 1 and result.stderr.count("measuring failed (MemoryError: out of memory)") == 2
    assert len(json.loads(result.stdout)) == 2
