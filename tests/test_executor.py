"""The executor's rules: jobs carry absolute paths, and a stage past its failure share fails loudly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import soundfile as sf
import yaml

from acousticlaim.executor import (
    StageFailed,
    check_failures,
    check_portable_paths,
    map_clips,
    max_failure_share,
    reason_kind,
    top_reasons,
)
from acousticlaim.failures import Failure
from tests.corpus_fixtures import tiny_corpus_params, write_librispeech_fixture

ROOT = Path(__file__).resolve().parents[1]


def _square(job: dict) -> int:
    return job["x"] ** 2


def test_a_relative_path_in_a_job_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match=r"job 1 job.out = 'data/corpus' is relative"):
        map_clips(_square, [{"x": 1, "out": "/abs/corpus"}, {"x": 2, "out": "data/corpus"}])
    with pytest.raises(ValueError, match=r"job.legs\[0\].path"):
        check_portable_paths([{"legs": [{"path": "LibriSpeech/1.flac"}]}])
    with pytest.raises(ValueError, match="job.spec.rir_dir"):
        check_portable_paths([{"spec": {"rir_dir": Path("rirs")}}])
    with pytest.raises(ValueError, match="is a URL"):
        check_portable_paths([{"audio_path": "s3://bucket/a.flac"}])
    # absolute paths, empty paths and values under other keys pass
    check_portable_paths([{"audio_path": "/data/a.flac", "s2_path": None, "s1_path": "", "noise_sources": ["gen:pink"]}])
    assert map_clips(_square, [{"x": 3, "out": "/abs"}], executor={"kind": "local", "workers": 1}) == [9]


def _failures(reasons: dict[str, str]) -> list[Failure]:
    return [Failure(clip, "corpus", reason) for clip, reason in reasons.items()]


def test_failure_share_at_the_limit_passes_and_above_it_fails_naming_the_reasons(tmp_path):
    one = _failures({"c00": "/data/LS/c00.flac: cannot be decoded as audio"})
    check_failures("corpus", n_clips=20, n_rows=38, failures=one)  # 1 of 20 = 0.05: allowed
    two = one + _failures({"c01": "/data/LS/c01.flac: cannot be decoded as audio", "c02": "c02: empty file"})
    rejected = tmp_path / "corpus.rejected-failures.parquet"
    with pytest.raises(StageFailed) as err:
        check_failures("corpus", n_clips=20, n_rows=34, failures=two, rejected_failures=rejected)
    message = str(err.value)
    assert "corpus: 3 of 20 clips failed (15.0%, over executor.max_failure_share = 0.05)" in message
    assert "2 x <file>: cannot be decoded as audio" in message and "1 x <clip>: empty file" in message
    assert str(rejected) in message and pd.read_parquet(rejected)["clip_id"].tolist() == ["c00", "c01", "c02"]
    # one clip failing twice counts once; a looser limit lets three of twenty through
    check_failures("corpus", n_clips=20, n_rows=34, failures=two + two, executor={"max_failure_share": 0.15})


def test_zero_rows_from_non_zero_input_fails_even_without_failures():
    with pytest.raises(StageFailed, match="5 clip"):
        check_failures("features", n_clips=5, n_rows=0, failures=[], executor={"max_failure_share": 1.0})
    check_failures("features", n_clips=0, n_rows=0, failures=[])  # nothing in, nothing out: fine


def test_limit_and_reason_kinds():
    assert max_failure_share(None) == 0.05 and max_failure_share({"max_failure_share": 0}) == 0.0
    with pytest.raises(ValueError, match="between 0 and 1"):
        max_failure_share({"max_failure_share": 5})
    assert reason_kind("rirs/room38_s1.wav: no such file") == "<file>: no such file"
    assert reason_kind("target stem: /a/s1.flac: silent") == "target stem: <file>: silent"
    fs = _failures({"a": "x/a.wav: silent", "b": "x/b.wav: silent", "c": "SRMR raised ValueError: bad"})
    assert top_reasons(fs) == [("<file>: silent", 2), ("SRMR raised ValueError: bad", 1)]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_corpus_whose_every_source_is_corrupt_exits_non_zero_and_keeps_the_previous_corpus(tmp_path):
    """The stage script exits non-zero naming the reason; the corpus built before is left as it was."""
    project = tmp_path / "project"
    project.mkdir()
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["executor"] = {"kind": "local", "workers": 1, "scheduler": None, "max_failure_share": 0.05}
    params["corpus"] = tiny_corpus_params(n_train=1, n_test=1)

    def corpus_stage() -> subprocess.CompletedProcess:
        (project / "params.yaml").write_text(yaml.safe_dump(params))
        return subprocess.run([sys.executable, str(ROOT / "stages" / "corpus.py"), "--out", "data/corpus"],
                              cwd=project, capture_output=True, text=True, timeout=240)

    good = corpus_stage()
    assert good.returncode == 0, good.stderr
    corpus = project / "data" / "corpus"
    before = {p.relative_to(corpus): p.read_bytes() for p in corpus.rglob("*") if p.is_file()}
    assert any(p.suffix == ".flac" for p in before) and Path("manifest.parquet") in before

    root = write_librispeech_fixture(tmp_path / "LS", {"train-clean-100": 2, "test-clean": 2}, utts_per_speaker=1)
    for flac in root.rglob("*.flac"):
        flac.write_bytes(b"\x00 not a flac file")
    params["corpus"] = tiny_corpus_params(source="librispeech", librispeech_dir=str(root), n_train=1, n_test=1)
    bad = corpus_stage()
    assert bad.returncode == 1 and "Traceback" not in bad.stderr  # a message, not a traceback
    assert "error: corpus: 2 of 2 clips failed" in bad.stderr
    assert "2 x while synthesising or reading the two talkers: <file>: cannot be decoded as audio" in bad.stderr
    after = {p.relative_to(corpus): p.read_bytes() for p in corpus.rglob("*") if p.is_file()}
    assert after == before  # the previous corpus, byte for byte; no half-built folder left inside it
    rejected = pd.read_parquet(project / "data" / "corpus.rejected-failures.parquet")
    assert len(rejected) == 2 and set(rejected["stage"]) == {"corpus"}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_references_fail_past_the_limit_and_record_a_failure_within_it(tmp_path):
    from acousticlaim.corpus.build import build_corpus
    from acousticlaim.instruments.references import build_references

    corpus = tmp_path / "corpus"
    serial = {"kind": "local", "workers": 1}
    build_corpus(tiny_corpus_params(n_train=1, n_test=1), corpus, executor=serial)
    manifest = pd.read_parquet(corpus / "manifest.parquet")
    mixture = manifest[manifest["kind"] == "mixture"].iloc[0]
    (corpus / mixture["audio_path"]).write_bytes(b"not audio")  # its twin (the stem s1) still reads
    with pytest.raises(StageFailed, match=f"1 of {len(manifest)} clips failed") as err:
        build_references(corpus, tmp_path / "refs", {}, executor=serial)
    assert "1 x <file>: cannot be decoded as audio" in str(err.value)
    assert not (tmp_path / "refs" / "references.parquet").exists()  # nothing written
    build_references(corpus, tmp_path / "refs", {}, executor={**serial, "max_failure_share": 0.25})
    failures = pd.read_parquet(tmp_path / "refs" / "failures.parquet")
    assert set(failures["clip_id"]) == {mixture["clip_id"]}
    refs = pd.read_parquet(tmp_path / "refs" / "references.parquet")
    assert refs["clip_id"].nunique() == len(manifest)
