"""The claims stage: generations JSONL → claims / generations Parquet, metrics, recorded failures."""

import json

import pandas as pd
import pytest

from acousticlaim.claims.extract import claims_metrics, extract_claims, read_generations
from acousticlaim.claims.prompts import PROMPT_VERSION, rung_version

_RUN = {"prompt_version": PROMPT_VERSION, "n_tokens": 20, "seconds": 0.5}  # the generation record's other fields
GEN = [
    {"system": "qwen", "corpus": "librimix", "clip_id": "a_b", "rung": "P3_template", "seed": 0,
     "text": "The SNR is 12.4 dB. The recording contains 5 pauses.", "truncated": False, **_RUN},
    {"system": "qwen", "corpus": "librimix", "clip_id": "c_d", "rung": "P0_free", "seed": 0,
     "text": "The recording quality is poor.", "truncated": False, **_RUN},
    {"system": "gemini", "corpus": "librimix", "clip_id": "a_b", "rung": "P2_named", "seed": 1,
     "text": "- Jitter: 0.44%\n- Shimmer: 8.9", "truncated": True, **_RUN},
]


def test_extract_claims_tables():
    t = extract_claims(GEN)
    c = t.claims
    assert list(c.columns[:5]) == ["system", "corpus", "clip_id", "rung", "seed"]
    assert [(r.system, r.clip_id, r.quantity, r.value) for r in c.itertuples()] == [
        ("qwen", "a_b", "snr", 12.4),
        ("qwen", "a_b", "pause_count", 5.0),
        ("gemini", "a_b", "jitter", 0.44),  # the cut "8.9" of a truncated generation is not read
    ]
    g = t.generations
    assert list(g.n_claims) == [2, 0, 1]
    m = claims_metrics(t)
    assert m["generations"] == 3 and m["parsed"] == 2
    assert m["per_system"]["qwen"]["parsed_share"] == 0.5
    assert m["per_system"]["qwen"]["per_rung"]["P0_free"]["parsed"] == 0
    assert m["claims_per_quantity"]["snr"] == 1


def test_duplicate_keys_keep_the_last_record():
    again = dict(GEN[0], text="The SNR is 3 dB.")
    t = extract_claims(GEN + [again])
    assert len(t.generations) == 3
    assert t.claims.loc[t.claims.quantity == "snr", "value"].tolist() == [3.0]
    assert claims_metrics(t)["duplicates_dropped"] == 1


def test_missing_columns_and_non_text_are_clear_errors():
    with pytest.raises(ValueError, match="lack column"):
        extract_claims([{"system": "x"}])
    with pytest.raises(TypeError, match="qwen/a_b/P3_template/seed 0: text is int"):
        extract_claims([dict(GEN[0], text=5)])


def test_read_generations_records_bad_lines(tmp_path):
    folder = tmp_path / "generations"
    folder.mkdir()
    lines = [json.dumps(r) for r in GEN] + ["{not json", json.dumps({"system": "qwen", "clip_id": "e_f"}),
                                            json.dumps(dict(GEN[0], clip_id="g_h", sede=3))]
    (folder / "qwen.jsonl").write_text("\n".join(lines) + "\n")
    frame, failures = read_generations(folder)
    assert len(frame) == 3
    assert [f.clip_id for f in failures] == ["qwen.jsonl:4", "e_f", "g_h"]
    assert "not valid JSON" in failures[0].reason
    assert "qwen.jsonl:5: missing field(s) corpus, rung, seed, text" in failures[1].reason
    assert "qwen.jsonl:6: unknown field(s) sede" in failures[2].reason  # the panel's schema, not a looser copy
    with pytest.raises(FileNotFoundError, match="generations folder"):
        read_generations(tmp_path / "nope")


def test_stage_script_writes_outputs(tmp_path, monkeypatch):
    import importlib.util
    from pathlib import Path

    folder = tmp_path / "generations"
    folder.mkdir()
    (folder / "all.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GEN))
    (tmp_path / "params.yaml").write_text("claims:\n  threads: 1\n")
    spec = importlib.util.spec_from_file_location("claims_stage", Path(__file__).parents[1] / "stages" / "claims.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out, metrics = tmp_path / "claims", tmp_path / "metrics" / "claims.json"
    rc = mod.main(["--generations", str(folder), "--out", str(out), "--metrics", str(metrics),
                   "--params", str(tmp_path / "params.yaml")])
    assert rc == 0
    assert len(pd.read_parquet(out / "claims.parquet")) == 3
    assert pd.read_parquet(out / "generations.parquet").n_claims.sum() == 3
    assert len(pd.read_parquet(out / "failures.parquet")) == 0
    assert json.loads(metrics.read_text())["parsed_share"] == pytest.approx(2 / 3, abs=1e-6)


def test_the_predict_stage_records_pass_the_one_schema(tmp_path):
    """The reference system's generation records (train_seed, split, kind beside the panel's fields) are read
    by the claims stage through the same validator as the panel's."""
    folder = tmp_path / "generations"
    folder.mkdir()
    ref = dict(GEN[0], system="reference", train_seed=0, split="test", kind="mixture")
    (folder / "reference.jsonl").write_text(json.dumps(ref) + "\n" + json.dumps(dict(ref, train_seed=-1)) + "\n")
    frame, failures = read_generations(folder)
    assert len(frame) == 1 and frame.loc[0, "train_seed"] == 0
    assert len(failures) == 1 and "train_seed must be a non-negative integer" in failures[0].reason


def test_claims_in_time_are_read_beside_the_quantities_with_their_generation_key():
    p5 = {"system": "qwen", "corpus": "librimix", "clip_id": "a_b", "rung": "P5_intervals", "seed": 2,
          "text": "Both speakers talk from 2.1 to 5.4 s. A long pause at 3.2 s. No noise.", "truncated": False,
          "prompt_version": rung_version("P5_intervals"), "n_tokens": 20, "seconds": 0.5}
    t = extract_claims(GEN + [p5])
    got = [(r.clip_id, r.rung, r.seed, r.event, r.start_s, r.end_s, r.point) for r in t.intervals.itertuples()]
    assert got == [("a_b", "P5_intervals", 2, "overlap", 2.1, 5.4, False), ("a_b", "P5_intervals", 2, "pause", 3.2, 3.2, True)]
    assert claims_metrics(t)["claims_in_time_per_event"] == {"overlap": 1, "pause": 1, "noise": 0}
