"""`acousticlaim import-generations`: our JSONL and the paper's released per-run JSON, validated first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acousticlaim.cli import app
from acousticlaim.claims.prompts import PROMPT_VERSION, get_rung
from acousticlaim.panel.importing import GenerationImportError, import_generations, read_generations
from acousticlaim.panel.store import read_records
from tests.shared_data import missing_reason, shared_data_path

SAMPLES = shared_data_path("panel_sample")


def released(results_rungs: dict, seed=0, corpus="librimix") -> dict:
    return {"system": "Audio-Flamingo-3", "model_id": "nvidia/audio-flamingo-3-hf", "corpus": corpus, "seed": seed,
            "n_clips": 3, "max_new_tokens": 160, "results": {"Audio-Flamingo-3": results_rungs}}


def rung_block(rung: str, gens: list) -> dict:
    return {"prompt": get_rung(rung).text, "n_clips": len(gens), "n_scored": len(gens), "n_errors": 0,
            "error_frac": 0.0, "errors_sample": [], "generations": gens}


GOOD = {
    "P0_free": rung_block("P0_free", [{"stem": "a_b", "text": "Noisy."}, {"stem": "c_d", "text": "Clean, 20 dB SNR."}]),
    "P3_template": rung_block("P3_template", [{"stem": "a_b", "text": "The SNR is 5 dB."}]),
}


def write(tmp_path, name, obj) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return path


def test_released_json_becomes_records_and_reimport_changes_nothing(tmp_path):
    src = write(tmp_path, "af3_librimix_seed2.json", released(GOOD, seed=2))
    summary = import_generations(src, "audio-flamingo-3", tmp_path / "gens")
    assert (summary.format, summary.n_records, summary.n_written) == ("released-json", 3, 3)
    records, _ = read_records(tmp_path / "gens/audio-flamingo-3.jsonl")
    first = records[0]
    assert (first.system, first.corpus, first.clip_id, first.rung, first.seed, first.text) == (
        "audio-flamingo-3", "librimix", "a_b", "P0_free", 2, "Noisy.")
    assert (first.n_tokens, first.truncated, first.seconds) == (None, None, None)
    assert first.prompt_version == PROMPT_VERSION and first.model == "nvidia/audio-flamingo-3-hf"
    again = import_generations(src, "audio-flamingo-3", tmp_path / "gens")
    assert (again.n_written, again.n_skipped) == (0, 3)

    changed = json.loads(src.read_text())
    changed["results"]["Audio-Flamingo-3"]["P0_free"]["generations"][0]["text"] = "Something else."
    with pytest.raises(GenerationImportError, match="already in .* with another text"):
        import_generations(write(tmp_path, "changed.json", changed), "audio-flamingo-3", tmp_path / "gens")


def test_malformed_released_records_are_all_named_and_nothing_is_written(tmp_path):
    bad = {
        "P0_free": rung_block("P0_free", [{"stem": "a_b", "text": "ok"}, {"stem": "", "text": "x"},
                                          {"stem": "c_d", "text": 7}, {"stem": "a_b", "text": "dup"}]),
        "P9_extra": rung_block("P0_free", []),
        "P2_named": dict(rung_block("P2_named", [{"stem": "e_f", "text": "x"}]), prompt="Tell me the SNR."),
    }
    src = write(tmp_path, "bad.json", released(bad))
    with pytest.raises(GenerationImportError) as err:
        import_generations(src, "af3", tmp_path / "gens")
    msg = str(err.value)
    assert f"{src}:results.Audio-Flamingo-3.P0_free.generations[1].stem: clip id '' cannot name a file" in msg
    assert f"{src}:results.Audio-Flamingo-3.P0_free.generations[2].text: expected a string, got int" in msg
    assert "generations[3]: clip 'a_b' already appears at" in msg
    assert f"{src}:results.Audio-Flamingo-3.P9_extra: unknown rung" in msg
    assert "P2_named.prompt: differs from this project's verbatim P2_named prompt" in msg
    assert len(err.value.errors) == 5
    assert not (tmp_path / "gens/af3.jsonl").exists()

    with pytest.raises(GenerationImportError, match="seed: expected an integer sampling seed from 0 to 4294967295"):
        read_generations(write(tmp_path, "noseed.json", released(GOOD, seed=None)), "af3")
    with pytest.raises(GenerationImportError, match="corpus: 'timit' is not one of"):
        read_generations(write(tmp_path, "corpus.json", released(GOOD, corpus="timit")), "af3")


def line(**kw) -> str:
    obj = {"system": "qwen", "corpus": "ami", "clip_id": "AMI_x", "rung": "P1_numeric", "seed": 4, "text": "t",
           "prompt_version": PROMPT_VERSION, "n_tokens": 12, "truncated": False, "seconds": 0.4}
    obj.update(kw)
    return json.dumps(obj)


def test_our_jsonl_is_validated_line_by_line(tmp_path):
    good = "\n".join([line(), line(rung="P2_named", truncated=True, n_tokens=160), ""]) + "\n"
    summary = import_generations(write(tmp_path, "g.jsonl", good), "qwen", tmp_path / "gens")
    assert (summary.format, summary.n_written) == ("jsonl", 2)
    recs, _ = read_records(tmp_path / "gens/qwen.jsonl")
    assert recs[1].truncated is True and recs[1].source == "import:g.jsonl"

    bad = "\n".join([line(clip_id="k1"), line(clip_id="k2", seed="4"), "{oops", line(clip_id="k3", system="other"),
                     line(clip_id="k4", prompt_version="v0"), line(clip_id="k1")]) + "\n"
    src = write(tmp_path, "bad.jsonl", bad)
    with pytest.raises(GenerationImportError) as err:
        import_generations(src, "qwen", tmp_path / "gens2")
    msg = str(err.value)
    assert f"{src}:2: seed must be an integer from 0 to 4294967295" in msg
    assert f"{src}:3: not valid JSON" in msg
    assert f"{src}:4: the record is for system 'other', imported as 'qwen'" in msg
    assert f"{src}:5: prompt_version 'v0' is not this project's" in msg
    assert "appears twice in the file" in msg
    assert not (tmp_path / "gens2/qwen.jsonl").exists()


def test_cli_reports_and_exits_nonzero_on_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no project corpus here to lend its manifest (--manifest's default)
    runner = CliRunner()
    ok = runner.invoke(app, ["import-generations", str(write(tmp_path, "a.json", released(GOOD))),
                             "--system", "af3", "--out", str(tmp_path / "gens")])
    assert ok.exit_code == 0, ok.output
    assert "3 generations, 3 written, 0 already present" in ok.output
    bad = runner.invoke(app, ["import-generations", str(write(tmp_path, "b.jsonl", "{oops\n")), "--system", "af3",
                              "--out", str(tmp_path / "gens")])
    assert bad.exit_code == 1 and "b.jsonl:1: not valid JSON" in bad.output
    name = runner.invoke(app, ["import-generations", str(tmp_path / "a.json"), "--system", "a/b",
                               "--out", str(tmp_path / "gens")])
    assert name.exit_code == 1 and "must be letters, digits" in name.output


@pytest.mark.skipif(SAMPLES is None, reason=missing_reason("panel_sample"))
def test_the_released_panel_sample_imports_whole(tmp_path):
    files = sorted(SAMPLES.glob("*_librimix_seed0.json"))
    assert len(files) == 5
    for path in files:
        system = path.name.split("_librimix")[0].replace(".", "")
        summary = import_generations(path, system, tmp_path)
        assert (summary.n_records, summary.n_written) == (600, 600)
        records, _ = read_records(tmp_path / f"{system}.jsonl")
        assert {r.rung for r in records} == {"P0_free", "P1_numeric", "P2_named", "P3_template", "P4_fewshot"}
        assert len({r.clip_id for r in records}) == 120 and {r.seed for r in records} == {0}
