"""Any model served behind an OpenAI-compatible chat-completions API (vLLM, SGLang, hosted APIs).

Request (``POST {base_url}/chat/completions``, the key, when one is configured, in the
``Authorization: Bearer`` header and nowhere else)::

    {"model": "<served model id>",
     "messages": [{"role": "user", "content": [
         {"type": "input_audio", "input_audio": {"data": "<base64 16-bit PCM WAV>", "format": "wav"}},
         {"type": "text", "text": "<the rung's prompt>"}]}],
     "temperature": 0, "max_tokens": 160, "seed": <sampling seed>}

The audio is the raw clip as every panel system hears it (SPEC §3): 16 kHz, unnormalised, truncated to
``max_audio_s`` (10 s), written as 16-bit PCM WAV (the corpus stores 16-bit FLAC, so nothing is lost
and nothing is rescaled).

Response: ``choices[0].message.content`` (a string, or a list of text parts); ``n_tokens`` is
``usage.completion_tokens``; ``finish_reason`` is recorded as the server gives it, and ``truncated`` is
``finish_reason == "length"`` (the ``max_tokens`` cap was reached).

Plain HTTP (``urllib``), not the ``openai`` client: the request is one JSON body, and plain HTTP keeps
three guarantees in this module's hands rather than a client's defaults:

* the key is read from the environment variable named in ``api_key_env`` and from nowhere else (a
  local server without authentication takes ``api_key_env: null``); it is sent only in the request
  header, never in the URL, a log line, an error message or ``repr``, and any server text quoted in
  an error has it blanked;
* redirects are never followed, so the key cannot be forwarded to another host: a 3xx answer is an
  error naming where the server pointed;
* ``base_url`` must be ``https``, except on the loopback interface (a server on the same machine).

Requests go out ``max_in_flight`` at a time (threads; the server batches them). Rate limits (429),
server errors (5xx) and dropped connections are retried with exponential backoff and jitter
(honouring ``Retry-After``) up to ``max_retries`` times; other client errors fail at once.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Mapping, Sequence

from acousticlaim.panel.gemini import wav_bytes
from acousticlaim.panel.http_json import APIError, APIKeyMissing, RetryPolicy, is_loopback, post_json
from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, check_requests


DEFAULT_BASE_URL = "https://api.openai.com/v1"
def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash; https only, except on the loopback interface.

    A URL that carries credentials or a query (where a key might hide) is refused.
    """
    parts = urllib.parse.urlsplit(str(base_url))
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"openai_chat: base_url {base_url!r} is not an http(s) URL with a host")
    if parts.scheme == "http" and not is_loopback(host):
        raise ValueError(f"openai_chat: base_url {base_url!r} is plain http to {host}; use https "
                         "(plain http is allowed only on the loopback interface)")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("openai_chat: base_url must not carry credentials, a query or a fragment; "
                         "the key goes in the environment variable named by api_key_env")
    return str(base_url).rstrip("/")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse every redirect: the Authorization header must never travel to another place."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401 - urllib's API
        return None  # urllib then raises HTTPError with the 3xx code


class OpenAIChatAdapter:
    """A model behind ``/v1/chat/completions`` with audio input, as a panel member."""

    def __init__(
        self,
        *,
        model: str,
        name: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str | None = "OPENAI_API_KEY",
        max_new_tokens: int = 160,
        max_in_flight: int = 8,
        max_audio_s: float = 10.0,
        timeout_s: float = 120.0,
        max_retries: int = 6,
        backoff_s: float = 2.0,
        max_backoff_s: float = 60.0,
        batch_size: int | None = None,
    ):
        if not model:
            raise ValueError("openai_chat: no model id configured (the name the server serves the model under)")
        self.base_url = check_base_url(base_url)
        self._key: str | None = None
        if api_key_env is not None:
            key = os.environ.get(api_key_env, "")
            if not key.strip():
                raise APIKeyMissing(
                    f"openai_chat: the environment variable {api_key_env} is not set (or empty); the API key is "
                    "read from the environment only (set api_key_env: null for a server without a key)"
                )
            self._key = key.strip()
        if int(max_in_flight) < 1:
            raise ValueError(f"openai_chat: max_in_flight must be at least 1, got {max_in_flight}")
        if not 0 < float(max_audio_s):
            raise ValueError(f"openai_chat: max_audio_s must be positive, got {max_audio_s}")
        self.model = model
        self.name = name or model
        self.api_key_env = api_key_env
        self.max_new_tokens = int(max_new_tokens)
        self.max_in_flight = int(max_in_flight)
        self.max_audio_s = float(max_audio_s)
        self.policy = RetryPolicy(float(timeout_s), int(max_retries), float(backoff_s), float(max_backoff_s))
        # The runner hands over this many requests at a time; several per slot keeps every slot busy.
        self.batch_size = int(batch_size) if batch_size else 4 * self.max_in_flight
        self.n_retries = 0
        self._lock = threading.Lock()
        self._opener = urllib.request.build_opener(_NoRedirect())
        # Results of a batch that failed part-way: when the runner retries its requests one at a time,
        # the ones already answered are not sent again.
        self._answered: dict[tuple, GenerationResult] = {}

    def __repr__(self) -> str:  # never shows the key
        return (f"OpenAIChatAdapter(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key_env={self.api_key_env!r}, max_in_flight={self.max_in_flight})")

    def describe(self) -> dict[str, Any]:
        return {"kind": "openai_chat", "model": self.model, "base_url": self.base_url, "temperature": 0,
                "max_new_tokens": self.max_new_tokens, "max_audio_s": self.max_audio_s}

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def audio_part(self, req: GenerationRequest) -> dict[str, Any]:
        """The clip as an ``input_audio`` part: base64 16-bit WAV of at most ``max_audio_s`` seconds."""
        samples = req.audio[: int(round(self.max_audio_s * req.sample_rate))]
        data = base64.b64encode(wav_bytes(samples, req.sample_rate)).decode("ascii")
        return {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}

    def request_body(self, req: GenerationRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": [self.audio_part(req), {"type": "text", "text": req.prompt}]}],
            "temperature": 0,
            "max_tokens": self.max_new_tokens,
            "seed": int(req.seed),
        }

    def _blank_key(self, text: str) -> str:
        return text.replace(self._key, "[key]") if self._key else text

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return post_json(self._opener, self.url, body, headers, label=f"openai_chat {self.model}",
                         policy=self.policy, blank=self._blank_key, on_retry=self._count_retry)

    def _count_retry(self) -> None:
        with self._lock:
            self.n_retries += 1

    @staticmethod
    def parse_response(data: Mapping[str, Any]) -> tuple[str, int | None, bool, str]:
        """(text, n_tokens, truncated, finish_reason) from a chat-completions response."""
        choices = data.get("choices") if isinstance(data, Mapping) else None
        if not choices or not isinstance(choices[0], Mapping):
            raise APIError(f"openai_chat: the response has no choices ({str(data)[:200]})")
        first = choices[0]
        content = (first.get("message") or {}).get("content")
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text")
        text = content if isinstance(content, str) else ""
        finish = str(first.get("finish_reason") or "unknown")
        usage = data.get("usage") or {}
        n_tokens = usage.get("completion_tokens")
        return text.strip(), (int(n_tokens) if n_tokens is not None else None), finish == "length", finish

    def _one(self, req: GenerationRequest) -> GenerationResult:
        key = (req.clip_id, req.rung.id, req.seed)
        with self._lock:
            if key in self._answered:
                return self._answered.pop(key)
        t0 = time.perf_counter()
        text, n_tokens, truncated, finish = self.parse_response(self._post(self.request_body(req)))
        result = GenerationResult(text, n_tokens, truncated, time.perf_counter() - t0, finish)
        with self._lock:
            self._answered[key] = result
        return result

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """One result per request; at most ``max_in_flight`` requests are open at any time."""
        check_requests(requests)
        t0 = time.perf_counter()
        if len(requests) == 1 or self.max_in_flight == 1:
            results = [self._one(r) for r in requests]
        else:
            with ThreadPoolExecutor(max_workers=min(self.max_in_flight, len(requests)),
                                    thread_name_prefix="openai_chat") as pool:
                results = list(pool.map(self._one, requests))  # raises the first failure, after the others end
        with self._lock:
            for r in requests:
                self._answered.pop((r.clip_id, r.rung.id, r.seed), None)
        per_request = (time.perf_counter() - t0) / max(1, len(requests))  # the protocol's cost of one generation
        return [dataclasses.replace(r, seconds=per_request) for r in results]
