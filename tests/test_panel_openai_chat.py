"""The OpenAI-compatible chat-completions panel member against a stub server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import os
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from acousticlaim.claims.prompts import RUNGS, get_rung
from acousticlaim.panel.gemini import APIError, APIKeyMissing
from acousticlaim.panel.openai_chat import OpenAIChatAdapter, check_base_url
from acousticlaim.panel.protocol import GenerationRequest
from acousticlaim.panel.runner import manifest_audio_loader, run_generations
from acousticlaim.panel.sampling import SamplingDesign, generation_jobs
from acousticlaim.panel.store import read_records
from acousticlaim.panel.systems import build_system
from tests.openai_stub import StubChatServer, canned_text
from tests.panel_fixtures import kill_after_lines, write_tiny_corpus

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-7d1e0b-must-never-be-seen"
ENV = "ACOUSTICLAIM_TEST_OPENAI_KEY"
SR = 16_000


def req(seconds=1.0, seed=3, rung="P2_named", clip="clip-1"):
    t = np.arange(int(seconds * SR)) / SR
    return GenerationRequest(clip, 0.25 * np.sin(2 * np.pi * 220 * t), get_rung(rung), seed)


def adapter(base_url, **kw):
    kw.setdefault("api_key_env", ENV)
    return OpenAIChatAdapter(model="served-audio-lm", base_url=base_url, backoff_s=0.01, max_backoff_s=0.05, **kw)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(ENV, KEY)


def test_request_shape_audio_and_answer(key):
    with StubChatServer() as srv:
        [res] = adapter(srv.base_url).generate([req(seconds=12.5, seed=5)])
    assert srv.problems == []
    [sent] = srv.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {KEY}" and KEY not in sent["path"]
    facts = sent["facts"]
    # the raw clip truncated to 10 s, at 16 kHz, mono; the prompt is the rung's own text
    assert facts["sample_rate"] == SR and facts["seconds"] == 10.0 and facts["channels"] == 1
    assert facts["prompt"] == get_rung("P2_named").text and facts["seed"] == 5 and facts["model"] == "served-audio-lm"
    body = sent["body"]
    assert (body["temperature"], body["max_tokens"]) == (0, 160)
    assert [p["type"] for p in body["messages"][0]["content"]] == ["input_audio", "text"]
    assert res.text == canned_text(get_rung("P2_named").text)
    assert (res.finish_reason, res.truncated) == ("stop", False)
    assert res.n_tokens == len(res.text.split())


def test_samples_are_sent_as_they_are(key):
    import base64
    import io

    import soundfile as sf

    request = req(seconds=0.5)
    with StubChatServer() as srv:
        adapter(srv.base_url).generate([request])
    data = srv.requests[0]["body"]["messages"][0]["content"][0]["input_audio"]["data"]
    wave, sr = sf.read(io.BytesIO(base64.b64decode(data)))
    np.testing.assert_allclose(wave, request.audio, atol=1 / 32768)  # not rescaled, not normalised


def test_the_cap_is_recorded_as_truncated(key):
    with StubChatServer(finish_reason="length") as srv:
        [res] = adapter(srv.base_url).generate([req()])
    assert (res.finish_reason, res.truncated) == ("length", True)


def test_every_rung_gets_its_canned_answer_with_bounded_requests_in_flight(key):
    requests = [req(rung=r.id, seed=s, clip=f"c{s}") for r in RUNGS for s in range(4)]
    with StubChatServer(delay_s=0.05) as srv:
        results = adapter(srv.base_url, max_in_flight=3).generate(requests)
    assert srv.problems == []
    assert [r.text for r in results] == [canned_text(q.prompt) for q in requests]  # in request order
    assert 1 < srv.max_in_flight <= 3


def test_retries_rate_limits_and_server_errors_with_backoff(key, caplog):
    script = [(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}), (503, {"error": {}}, {}),
              (500, {"error": {}}, {})]
    with StubChatServer(script) as srv, caplog.at_level(logging.WARNING):
        a = adapter(srv.base_url, max_retries=5)
        [res] = a.generate([req()])
    assert res.text == canned_text(get_rung("P2_named").text)
    assert len(srv.requests) == 4 and a.n_retries == 3
    assert "HTTP 429" in caplog.text and "HTTP 503" in caplog.text and KEY not in caplog.text


def test_gives_up_and_does_not_retry_client_errors(key):
    with StubChatServer([(503, {}, {})] * 3) as srv:
        with pytest.raises(APIError, match="gave up after 2 retries") as err:
            adapter(srv.base_url, max_retries=2).generate([req()])
    assert err.value.status == 503 and len(srv.requests) == 3
    # a server that echoes the key back in its error: the message blanks it
    with StubChatServer([(401, {"error": {"message": f"bad key {KEY}"}}, {})]) as srv:
        with pytest.raises(APIError, match="HTTP 401") as err:
            adapter(srv.base_url).generate([req()])
    assert len(srv.requests) == 1 and KEY not in str(err.value) and "bad key [key]" in str(err.value)


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(key):
    with StubChatServer() as elsewhere:
        with StubChatServer(redirect_to=f"{elsewhere.base_url}/chat/completions") as srv:
            with pytest.raises(APIError, match="redirect to .* not followed") as err:
                adapter(srv.base_url).generate([req()])
        assert elsewhere.requests == []  # the redirect target never heard from us
    assert len(srv.requests) == 1 and KEY not in str(err.value)


def test_key_only_from_the_environment_and_never_shown(key, monkeypatch):
    a = adapter("http://127.0.0.1:9/v1")
    assert KEY not in repr(a) and KEY not in json.dumps(a.describe()) and KEY not in a.url
    monkeypatch.delenv(ENV)
    with pytest.raises(APIKeyMissing, match=f"{ENV} is not set"):
        adapter("http://127.0.0.1:9/v1")
    # a local server without authentication: no key, no Authorization header
    with StubChatServer() as srv:
        adapter(srv.base_url, api_key_env=None).generate([req()])
    assert "authorization" not in srv.requests[0]["headers"]


@pytest.mark.parametrize("url, ok", [
    ("https://api.example.org/v1", True), ("http://127.0.0.1:8000/v1", True), ("http://localhost:8000/v1", True),
    ("http://[::1]:8000/v1", True), ("http://10.0.0.5:8000/v1", False), ("http://api.example.org/v1", False),
    ("https://user:secret@api.example.org/v1", False), ("https://api.example.org/v1?key=abc", False),
    ("ftp://api.example.org/v1", False),
])
def test_https_only_except_on_loopback(url, ok):
    if ok:
        assert check_base_url(url + "/") == url
    else:
        with pytest.raises(ValueError, match="base_url"):
            check_base_url(url)


def test_built_from_params_and_unknown_settings_refused(key):
    system = build_system("served", {"kind": "openai_chat", "model": "m", "base_url": "http://127.0.0.1:8000/v1",
                                     "api_key_env": ENV, "max_in_flight": 4})
    assert isinstance(system, OpenAIChatAdapter) and system.batch_size == 16 and system.name == "served"
    with pytest.raises(ValueError, match="unknown setting\\(s\\) api_key for kind 'openai_chat'"):
        build_system("served", {"kind": "openai_chat", "model": "m", "api_key": KEY})


KILLABLE_RUN = textwrap.dedent('''
    import sys
    from acousticlaim.corpus.manifest import read_manifest
    from acousticlaim.panel.openai_chat import OpenAIChatAdapter
    from acousticlaim.panel.runner import manifest_audio_loader, run_generations
    from acousticlaim.panel.sampling import SamplingDesign, generation_jobs

    corpus, out, base_url = sys.argv[1:4]
    manifest = read_manifest(corpus)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0, 1), clips_per_seed=4))
    system = OpenAIChatAdapter(model="served-audio-lm", name="served", base_url=base_url, api_key_env="{env}",
                               max_in_flight=2, batch_size=2)
    run_generations(system, jobs, out, manifest_audio_loader(manifest, corpus), config_sha="cfg")
''').replace("{env}", ENV)


def test_a_run_killed_halfway_resumes_without_duplicates_or_gaps(tmp_path, key):
    corpus = tmp_path / "corpus"
    manifest = write_tiny_corpus(corpus, n_test=6, n_train=0)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0, 1), clips_per_seed=4))
    out = tmp_path / "served.jsonl"
    script = tmp_path / "run.py"
    script.write_text(KILLABLE_RUN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACOUSTICLAIM_NO_PROGRESS": "1"}
    with StubChatServer(delay_s=0.1) as srv:
        kill_after_lines([sys.executable, str(script), str(corpus), str(out), srv.base_url], out, 10, env)
        before = out.read_bytes()
        n_before = before.count(b"\n")
        assert 10 <= n_before < len(jobs) == 48  # 4 clips x 2 seeds x 6 rungs
        sent_before = len(srv.requests)

        system = adapter(srv.base_url, max_in_flight=2)
        system.name = "served"
        summary, failures = run_generations(system, jobs, out, manifest_audio_loader(manifest, corpus),
                                            config_sha="cfg")
        assert srv.problems == []
        assert len(srv.requests) - sent_before == 48 - n_before  # only what was missing is asked again
    assert failures == [] and summary.n_already_done == n_before and summary.n_generated == 48 - n_before
    assert out.read_bytes().startswith(before)
    records, tail = read_records(out)
    keys = [r.key for r in records]
    assert tail == 0 and len(keys) == len(set(keys)) == 48
    assert set(keys) == {("served", j.clip_id, j.rung.id, j.seed) for j in jobs}
    assert {r.finish_reason for r in records} == {"stop"} and all(r.truncated is False for r in records)
    assert all(r.text == canned_text(get_rung(r.rung).text) for r in records)
    assert KEY not in out.read_text()


def test_a_failed_request_is_asked_again_alone_and_its_answered_batch_mates_are_not(key, tmp_path):
    corpus = tmp_path / "corpus"
    manifest = write_tiny_corpus(corpus, n_test=2, n_train=0)
    jobs = generation_jobs(manifest, SamplingDesign(seeds=(0,), clips_per_seed=2), ["P0_free", "P1_numeric"])
    # one request of the batch of four is refused (400); the runner asks the batch again one at a time
    with StubChatServer([(400, {"error": {"message": "try again"}}, {})]) as srv:
        system = adapter(srv.base_url, max_in_flight=2, batch_size=4)
        summary, failures = run_generations(system, jobs, tmp_path / "s.jsonl",
                                            manifest_audio_loader(manifest, corpus), config_sha="c")
    assert summary.n_generated == 4 and failures == []
    assert len(srv.requests) == 5  # the four of the batch, then only the refused one again
