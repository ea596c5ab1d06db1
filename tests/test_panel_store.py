"""Generation records, the append-only store, and resuming a run that was killed halfway."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from acousticlaim.claims.prompts import PROMPT_VERSION
from acousticlaim.panel.local_systems import ConstantPredictor
from acousticlaim.panel.records import GenerationRecord, RecordError, parse_record_line, validate_record
from acousticlaim.panel.runner import manifest_audio_loader, run_generations
from acousticlaim.panel.sampling import SamplingDesign, generation_jobs
from acousticlaim.panel.store import GenerationStore, StoreError, read_records
from tests.panel_fixtures import kill_after_lines, write_tiny_corpus

ROOT = Path(__file__).resolve().parents[1]
MEDIANS = {"snr": 10.0, "srmr": 5.0, "speaking_rate": 4.0, "pause_count": 2.0, "pause_rate": 12.0, "f0_mean": 150.0,
           "f0_sd": 20.0, "jitter": 1.0, "shimmer": 5.0, "hnr": 12.0}


def rec(clip="c1", rung="P0_free", seed=0, text="hi", **kw) -> GenerationRecord:
    fields = dict(system="s", corpus="librimix", clip_id=clip, rung=rung, seed=seed, text=text,
                  prompt_version=PROMPT_VERSION, n_tokens=3, truncated=False, seconds=0.5)
    fields.update(kw)
    return GenerationRecord(**fields)


def test_record_round_trip_and_nullable_metadata():
    r = rec(n_tokens=None, truncated=None, seconds=None, model="m")
    assert parse_record_line(r.to_json_line(), "x:1") == r
    assert json.loads(r.to_json_line())["n_tokens"] is None


@pytest.mark.parametrize("change, message", [
    ({"rung": "P9_other"}, "rung 'P9_other' is not one of"),
    ({"seed": -1}, "seed must be an integer from 0 to 4294967295"),
    ({"seed": True}, "seed must be an integer from 0 to 4294967295"),
    ({"corpus": "timit"}, "corpus 'timit' is not one of"),
    ({"text": None}, "text must be a string"),
    ({"n_tokens": 2.5}, "n_tokens must be an integer from 0 to 2147483647 or null"),
    ({"truncated": "no"}, "truncated must be true, false or null"),
    ({"seconds": -1}, "seconds must be a finite number"),
    ({"clip_id": ""}, "'clip_id' must be a non-empty string"),
    ({"colour": "red"}, "unknown field(s) colour"),
])
def test_malformed_records_are_named(change, message):
    obj = {**rec().to_dict(), **change}
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        validate_record(obj, "gen.jsonl:7")
    assert str(err.value).startswith("gen.jsonl:7: ")


def test_missing_field_and_bad_json():
    obj = rec().to_dict()
    del obj["prompt_version"]
    with pytest.raises(RecordError, match="missing field\\(s\\) prompt_version"):
        validate_record(obj, "f:2")
    with pytest.raises(RecordError, match="f:3: not valid JSON"):
        parse_record_line('{"system": "s",', "f:3")


def test_store_appends_resumes_and_refuses_duplicates(tmp_path):
    path = tmp_path / "s.jsonl"
    with GenerationStore(path) as store:
        store.append([rec("a"), rec("b")])
        with pytest.raises(StoreError, match="already in the store"):
            store.append([rec("a")])
    with GenerationStore(path) as store:
        assert store.done_keys == {("s", "a", "P0_free", 0), ("s", "b", "P0_free", 0)}
        store.append([rec("c")])
    assert [r.clip_id for r in read_records(path)[0]] == ["a", "b", "c"]


def test_store_cuts_an_unterminated_tail_but_refuses_a_corrupt_middle(tmp_path):
    path = tmp_path / "s.jsonl"
    good = rec("a").to_json_line() + rec("b").to_json_line()
    path.write_text(good + rec("c").to_json_line()[:25])  # the run died while writing c
    with GenerationStore(path) as store:
        assert store.dropped_tail_bytes == 25
        assert [r.clip_id for r in store.records] == ["a", "b"]
    assert path.read_text() == good

    path.write_text(rec("a").to_json_line() + "{broken\n" + rec("b").to_json_line())
    with pytest.raises(RecordError, match=f"{path}:2: not valid JSON"):
        GenerationStore(path).open()

    path.write_text(rec("a").to_json_line() + rec("a", text="again").to_json_line())
    with pytest.raises(StoreError, match=":2: key .* already written at line 1"):
        GenerationStore(path).open()


def test_store_is_held_by_one_run_at_a_time(tmp_path):
    with GenerationStore(tmp_path / "s.jsonl"):
        with pytest.raises(StoreError, match="another run is writing"):
            GenerationStore(tmp_path / "s.jsonl").open()


def test_retain_drops_stale_records(tmp_path):
    path = tmp_path / "s.jsonl"
    with GenerationStore(path) as store:
        store.append([rec("a"), rec("b", prompt_version="older"), rec("c")])
        assert store.retain(lambda r: r.prompt_version == PROMPT_VERSION) == 1
        store.append([rec("b")])
    assert sorted(r.clip_id for r in read_records(path)[0]) == ["a", "b", "c"]


SLOW_RUN = textwrap.dedent('''
    import sys, time
    from acousticlaim.corpus.manifest import read_manifest
    from acousticlaim.panel.local_systems import ConstantPredictor
    from acousticlaim.panel.runner import manifest_audio_loader, run_generations
    from acousticlaim.panel.sampling import SamplingDesign, generation_jobs

    corpus, out, medians = sys.argv[1], sys.argv[2], eval(sys.argv[3])

    class SlowConstant(ConstantPredictor):
        def generate(self, requests):
            time.sleep(0.08)
            return super().generate(requests)

    manifest = read_manifest(corpus)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0, 1), clips_per_seed=4))
    system = SlowConstant(medians, name="constant", batch_size=1)
    run_generations(system, jobs, out, manifest_audio_loader(manifest, corpus), config_sha="cfg")
''')


def test_a_run_killed_halfway_resumes_without_duplicates_or_gaps(tmp_path):
    corpus = tmp_path / "corpus"
    manifest = write_tiny_corpus(corpus, n_test=6, n_train=0)
    out = tmp_path / "constant.jsonl"
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACOUSTICLAIM_NO_PROGRESS": "1"}
    kill_after_lines([sys.executable, str(script), str(corpus), str(out), repr(MEDIANS)], out, 12, env)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0, 1), clips_per_seed=4))
    assert len(jobs) == 48  # 4 clips x 2 seeds x 6 rungs
    before = out.read_bytes()
    n_before = before.count(b"\n")
    assert 12 <= n_before < 48
    # as if the kill had landed in the middle of a write: half a record at the end
    out.write_bytes(before + rec("half").to_json_line().encode()[:30])

    summary, failures = run_generations(ConstantPredictor(MEDIANS, name="constant"), jobs, out,
                                        manifest_audio_loader(manifest, corpus), config_sha="cfg")
    assert failures == []
    assert summary.n_already_done == n_before and summary.n_generated == 48 - n_before
    after = out.read_bytes()
    assert after.startswith(before)  # what the killed run wrote is kept as it was
    records, tail = read_records(out)
    keys = [r.key for r in records]
    assert tail == 0 and len(keys) == len(set(keys)) == 48  # no duplicates
    assert set(keys) == {("constant", j.clip_id, j.rung.id, j.seed) for j in jobs}  # no gaps

    again, _ = run_generations(ConstantPredictor(MEDIANS, name="constant"), jobs, out,
                               manifest_audio_loader(manifest, corpus), config_sha="cfg")
    assert (again.n_generated, again.n_already_done) == (0, 48) and out.read_bytes() == after


def test_unreadable_clips_and_failing_requests_are_recorded_not_fatal(tmp_path):
    corpus = tmp_path / "corpus"
    manifest = write_tiny_corpus(corpus, n_test=3, n_train=0)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0,), clips_per_seed=3), ["P0_free", "P3_template"])
    broken = manifest.loc[manifest["kind"] == "mixture", "clip_id"].iloc[0]
    (corpus / f"audio/{broken}.flac").write_bytes(b"not audio")

    class PicksyConstant(ConstantPredictor):
        def generate(self, requests):
            if any(r.rung.id == "P3_template" and r.seed == 0 and r.clip_id.startswith("test01") for r in requests):
                raise RuntimeError("the server dropped the connection")
            return super().generate(requests)

    out = tmp_path / "c.jsonl"
    summary, failures = run_generations(PicksyConstant(MEDIANS, name="c", batch_size=4), jobs, out,
                                        manifest_audio_loader(manifest, corpus), config_sha="x")
    reasons = sorted(f.reason for f in failures)
    assert len(failures) == 3 and summary.n_generated == 3
    assert sum("cannot be decoded" in r for r in reasons) == 2
    assert any("P3_template seed 0: RuntimeError: the server dropped the connection" in r for r in reasons)
    assert {f.stage for f in failures} == {"generations"}
