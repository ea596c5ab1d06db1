"""The closed-model HTTP adapter against a local server on 127.0.0.1 speaking the same shapes."""

from __future__ import annotations

import base64
import io
import json
import logging

import numpy as np
import pytest
import soundfile as sf

from acousticlaim.claims.prompts import get_rung
from acousticlaim.panel.gemini import APIError, APIKeyMissing, GeminiAdapter
from acousticlaim.panel.protocol import GenerationRequest
from tests.loopback_server import LoopbackJSONServer

KEY = "test-key-3f9c2a-never-to-be-seen"
SR = 16_000


class FakeGemini(LoopbackJSONServer):
    """A scripted generateContent server: each POST pops the next (status, body, headers)."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[dict] = []
        super().__init__(self._answer)

    def _answer(self, method, path, headers, body):
        self.requests.append({"path": path, "headers": headers, "body": body})
        return self.script.pop(0)

    @property
    def endpoint(self) -> str:
        return f"{self.url}/v1beta"


def ok(text="The SNR is 12.0 dB.", finish="STOP", n=9):
    return (200, {"candidates": [{"content": {"role": "model", "parts": [{"text": "thinking…", "thought": True},
                                                                          {"text": text}]},
                                  "finishReason": finish}],
                  "usageMetadata": {"promptTokenCount": 300, "candidatesTokenCount": n, "thoughtsTokenCount": 2}}, {})


def req(seed=3, rung="P3_template", amplitude=0.25):
    t = np.arange(SR) / SR
    return GenerationRequest("clip-1", amplitude * np.sin(2 * np.pi * 220 * t), get_rung(rung), seed)


def adapter(endpoint, **kw):
    return GeminiAdapter(model="gemini-test-flash", endpoint=endpoint, api_key_env="ACOUSTICLAIM_TEST_GEMINI_KEY",
                         backoff_s=0.01, max_backoff_s=0.05, **kw)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("ACOUSTICLAIM_TEST_GEMINI_KEY", KEY)


def test_request_and_response_shapes(key):
    with FakeGemini([ok("The SNR is 12.0 dB. The SRMR is 5.1.", n=14)]) as srv:
        [res] = adapter(srv.endpoint).generate([req(seed=3)])
    [sent] = srv.requests
    assert sent["path"] == "/v1beta/models/gemini-test-flash:generateContent"
    assert sent["headers"]["x-goog-api-key"] == KEY and KEY not in sent["path"]
    body = sent["body"]
    parts = body["contents"][0]["parts"]
    assert body["contents"][0]["role"] == "user"
    assert parts[1] == {"text": get_rung("P3_template").text}
    assert parts[0]["inline_data"]["mime_type"] == "audio/wav"
    wave, sr = sf.read(io.BytesIO(base64.b64decode(parts[0]["inline_data"]["data"])))
    assert sr == SR and len(wave) == SR
    np.testing.assert_allclose(wave, req().audio, atol=1 / 32768)  # the samples as they are, not rescaled
    assert body["generationConfig"] == {"temperature": 0, "maxOutputTokens": 160, "seed": 3,
                                        "thinkingConfig": {"thinkingLevel": "minimal"}}
    assert (res.text, res.n_tokens, res.truncated, res.finish_reason) == ("The SNR is 12.0 dB. The SRMR is 5.1.", 14,
                                                                          False, "stop")


def test_cap_reached_is_truncated(key):
    with FakeGemini([ok("The SNR is", finish="MAX_TOKENS", n=160)]) as srv:
        [res] = adapter(srv.endpoint).generate([req()])
    assert (res.n_tokens, res.truncated, res.finish_reason) == (160, True, "max_tokens")


def test_blocked_prompt_is_an_empty_answer(key):
    blocked = (200, {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 5}}, {})
    with FakeGemini([blocked]) as srv:
        [res] = adapter(srv.endpoint).generate([req()])
    assert (res.text, res.n_tokens, res.truncated, res.finish_reason) == ("", 0, False, "safety")


def test_retries_rate_limits_and_server_errors_with_backoff(key, caplog):
    script = [(429, {"error": {"code": 429}}, {"Retry-After": "0"}), (503, {"error": {"code": 503}}, {}),
              (500, {"error": {}}, {}), ok("The HNR is 9.0 dB.")]
    with FakeGemini(script) as srv, caplog.at_level(logging.WARNING):
        a = adapter(srv.endpoint, max_retries=5)
        [res] = a.generate([req()])
    assert res.text == "The HNR is 9.0 dB."
    assert len(srv.requests) == 4 and a.n_retries == 3
    assert "HTTP 429" in caplog.text and "HTTP 503" in caplog.text
    assert KEY not in caplog.text


def test_gives_up_after_max_retries(key):
    with FakeGemini([(429, {}, {})] * 3) as srv:
        with pytest.raises(APIError, match="gave up after 2 retries") as err:
            adapter(srv.endpoint, max_retries=2).generate([req()])
    assert err.value.status == 429 and len(srv.requests) == 3
    assert KEY not in str(err.value)


def test_client_errors_are_not_retried(key):
    with FakeGemini([(400, {"error": {"message": "bad audio"}}, {})]) as srv:
        with pytest.raises(APIError, match="HTTP 400") as err:
            adapter(srv.endpoint).generate([req()])
    assert len(srv.requests) == 1 and "bad audio" in str(err.value) and KEY not in str(err.value)


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ACOUSTICLAIM_TEST_GEMINI_KEY", raising=False)
    with pytest.raises(APIKeyMissing, match="ACOUSTICLAIM_TEST_GEMINI_KEY is not set"):
        adapter("http://127.0.0.1:9")
    monkeypatch.setenv("ACOUSTICLAIM_TEST_GEMINI_KEY", "  ")
    with pytest.raises(APIKeyMissing):
        adapter("http://127.0.0.1:9")


def test_key_never_shown(key):
    a = adapter("http://127.0.0.1:9")
    assert KEY not in repr(a) and KEY not in json.dumps(a.describe()) and KEY not in a.url
