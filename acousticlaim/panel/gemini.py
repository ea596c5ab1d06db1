"""A closed model behind an HTTP API, in the Gemini ``generateContent`` shapes.

Request (``POST {endpoint}/models/{model}:generateContent``, key in the ``x-goog-api-key`` header,
never in the URL)::

    {"contents": [{"role": "user", "parts": [
         {"inline_data": {"mime_type": "audio/wav", "data": "<base64 16-bit PCM WAV>"}},
         {"text": "<the rung's prompt>"}]}],
     "generationConfig": {"temperature": 0, "maxOutputTokens": 160, "seed": <sampling seed>,
                          "thinkingConfig": {"thinkingLevel": "minimal"}}}

Response: the text of the first candidate's non-thought parts; ``n_tokens`` is
``usageMetadata.candidatesTokenCount``; ``truncated`` is ``finishReason == "MAX_TOKENS"``. A
response with no candidate (a blocked prompt) is an empty text with the block reason as its finish
reason.

The model is asked at temperature 0 with its lowest thinking setting (``thinking`` in
``params.yaml``: ``{"thinkingLevel": "minimal"}`` for models that take a level,
``{"thinkingBudget": 0}`` for those that take a budget). The audio goes as the clip's own samples in
16-bit PCM WAV (the corpus stores 16-bit FLAC, so nothing is lost and nothing is rescaled).

The key is read from the environment variable named in ``api_key_env`` and from nowhere else; it
is sent only in the request header and never logged, written or put in an error message. The endpoint
must be ``https`` (plain ``http`` only to a loopback address, for a local test server), and a
redirect to another origin (scheme, host or port) is refused rather than followed, so the key header
never reaches a host it was not configured for. Rate limits
(429) and server errors (5xx) and dropped connections are retried with exponential backoff (honouring
``Retry-After``) up to ``max_retries`` times.
"""

from __future__ import annotations

import base64
import io
import os
import time
import urllib.parse
import urllib.request
from typing import Any, Mapping, Sequence

import numpy as np
import soundfile as sf

from acousticlaim.panel.http_json import (  # noqa: F401 - the errors are this adapter's too
    APIError, APIKeyMissing, RetryPolicy, is_loopback, post_json)
from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, check_requests

DEFAULT_ENDPOINT = "https://generativelanguage.googleapis.com/v1beta"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default_port = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default_port


def check_endpoint(endpoint: str) -> str:
    """``endpoint`` when it is an https URL (or http to a loopback address); else :class:`ValueError`."""
    scheme, host, _ = _origin(endpoint)
    if not host:
        raise ValueError(f"gemini: endpoint {endpoint!r} is not a URL with a host (e.g. {DEFAULT_ENDPOINT})")
    if scheme == "https" or (scheme == "http" and is_loopback(host)):
        return endpoint
    raise ValueError(
        f"gemini: endpoint {endpoint!r} must use https (plain http only to a loopback address such as 127.0.0.1), "
        "so the API key never travels unencrypted"
    )


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the origin the request was sent to; any other is an error."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urljoin(req.full_url, newurl)
        if _origin(target) != _origin(req.full_url):
            scheme, host, port = _origin(target)
            raise APIError(
                f"gemini: the endpoint answered HTTP {code} redirecting to another origin ({scheme}://{host}:{port}); "
                "not followed, so the API key stays with the configured host. Set the endpoint to the final address",
                code,
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


def wav_bytes(audio: np.ndarray, sample_rate: int) -> bytes:
    """The waveform as a 16-bit PCM WAV file in memory (samples as they are; soundfile clips at ±1)."""
    buf = io.BytesIO()
    sf.write(buf, np.asarray(audio, dtype=np.float64), sample_rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


class GeminiAdapter:
    """A ``generateContent``-style HTTP model as a panel member."""

    def __init__(
        self,
        *,
        model: str,
        name: str | None = None,
        api_key_env: str = "GEMINI_API_KEY",
        endpoint: str = DEFAULT_ENDPOINT,
        max_new_tokens: int = 160,
        thinking: Mapping[str, Any] | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 6,
        backoff_s: float = 2.0,
        max_backoff_s: float = 60.0,
        batch_size: int = 1,
    ):
        if not model:
            raise ValueError("gemini: no model id configured")
        check_endpoint(endpoint)
        key = os.environ.get(api_key_env, "")
        if not key.strip():
            raise APIKeyMissing(
                f"gemini: the environment variable {api_key_env} is not set (or empty); the API key is read "
                "from the environment only, never from params.yaml or a file"
            )
        self._key = key.strip()
        self.model = model
        self.name = name or model
        self.api_key_env = api_key_env
        self.endpoint = check_endpoint(endpoint).rstrip("/")
        self.max_new_tokens = int(max_new_tokens)
        self.thinking = dict(thinking) if thinking is not None else {"thinkingLevel": "minimal"}
        self.policy = RetryPolicy(float(timeout_s), int(max_retries), float(backoff_s), float(max_backoff_s))
        self.batch_size = int(batch_size)
        self.n_retries = 0

    def __repr__(self) -> str:  # never shows the key
        return f"GeminiAdapter(model={self.model!r}, endpoint={self.endpoint!r}, api_key_env={self.api_key_env!r})"

    def describe(self) -> dict[str, Any]:
        return {"kind": "gemini", "model": self.model, "endpoint": self.endpoint, "temperature": 0,
                "thinking": self.thinking, "max_new_tokens": self.max_new_tokens}

    @property
    def url(self) -> str:
        return f"{self.endpoint}/models/{self.model}:generateContent"

    def request_body(self, req: GenerationRequest) -> dict[str, Any]:
        audio_b64 = base64.b64encode(wav_bytes(req.audio, req.sample_rate)).decode("ascii")
        return {
            "contents": [{
                "role": "user",
                "parts": [{"inline_data": {"mime_type": "audio/wav", "data": audio_b64}}, {"text": req.prompt}],
            }],
            "generationConfig": {
                "temperature": 0,
                "maxOutputTokens": self.max_new_tokens,
                "seed": int(req.seed),
                "thinkingConfig": dict(self.thinking),
            },
        }

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        return post_json(_OPENER, self.url, body, {"Content-Type": "application/json", "x-goog-api-key": self._key},
                         label=f"gemini {self.model}", policy=self.policy, on_retry=self._count_retry)

    def _count_retry(self) -> None:
        self.n_retries += 1

    @staticmethod
    def parse_response(data: Mapping[str, Any]) -> tuple[str, int | None, bool, str]:
        """(text, n_tokens, truncated, finish_reason) from a ``generateContent`` response."""
        candidates = data.get("candidates") or []
        usage = data.get("usageMetadata") or {}
        n_tokens = usage.get("candidatesTokenCount")
        if not candidates:
            reason = (data.get("promptFeedback") or {}).get("blockReason", "NO_CANDIDATE")
            return "", 0, False, str(reason)
        first = candidates[0]
        parts = (first.get("content") or {}).get("parts") or []
        text = "".join(p.get("text", "") for p in parts if isinstance(p, Mapping) and not p.get("thought"))
        finish = str(first.get("finishReason", "STOP"))
        return text.strip(), (int(n_tokens) if n_tokens is not None else None), finish == "MAX_TOKENS", finish

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        check_requests(requests)
        results = []
        for req in requests:
            t0 = time.perf_counter()
            text, n_tokens, truncated, finish = self.parse_response(self._post(self.request_body(req)))
            results.append(GenerationResult(text, n_tokens, truncated, time.perf_counter() - t0, finish.lower()))
        return results
