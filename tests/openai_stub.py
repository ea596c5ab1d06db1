"""A stand-in OpenAI-compatible chat-completions server on 127.0.0.1 that checks what it is sent.

Every POST to ``/v1/chat/completions`` is checked for the panel's request shape: one user message whose
content holds an ``input_audio`` part (base64 WAV that decodes, 16 kHz, mono, at most 10 s) and the
rung's text; temperature 0; ``max_tokens`` 160. A request that breaks the shape is answered 400 with the
reason and the reason is kept in ``problems``. Otherwise the next scripted answer is given (a status and
headers, for rate limits and server errors), or the canned answer for the prompt.
"""

from __future__ import annotations

import base64
import io
import threading
import time

import soundfile as sf

from tests.loopback_server import LoopbackJSONServer

from acousticlaim.claims.prompts import RUNGS

CANNED = {rung.text: f"Canned answer to {rung.id}: the SNR is {10 + i}.5 dB and the mean pitch is 1{i}0 Hz."
          for i, rung in enumerate(RUNGS)}


def canned_text(prompt: str) -> str:
    return CANNED.get(prompt, "The SNR is 12.5 dB.")


def check_shape(body: dict) -> tuple[str | None, dict]:
    """(the problem with the request or None, facts about its audio)."""
    facts: dict = {}
    if body.get("temperature") != 0:
        return f"temperature {body.get('temperature')!r}, not 0", facts
    if body.get("max_tokens") != 160:
        return f"max_tokens {body.get('max_tokens')!r}, not 160", facts
    messages = body.get("messages")
    if not isinstance(messages, list) or len(messages) != 1 or messages[0].get("role") != "user":
        return "expected one user message", facts
    content = messages[0].get("content")
    if not isinstance(content, list):
        return "content is not a list of parts", facts
    audio = [p for p in content if p.get("type") == "input_audio"]
    texts = [p for p in content if p.get("type") == "text"]
    if len(audio) != 1:
        return f"{len(audio)} input_audio parts, expected 1", facts
    if len(texts) != 1 or not texts[0].get("text"):
        return "no text part", facts
    part = audio[0].get("input_audio") or {}
    if part.get("format") != "wav":
        return f"audio format {part.get('format')!r}, not wav", facts
    try:
        wave, sr = sf.read(io.BytesIO(base64.b64decode(part.get("data", ""), validate=True)))
    except Exception as exc:  # noqa: BLE001 - any decoding failure is the finding
        return f"audio does not decode: {exc}", facts
    facts = {"sample_rate": sr, "seconds": len(wave) / sr, "channels": 1 if wave.ndim == 1 else wave.shape[1],
             "prompt": texts[0]["text"], "seed": body.get("seed"), "model": body.get("model")}
    if sr != 16_000:
        return f"audio at {sr} Hz, not 16 kHz", facts
    if wave.ndim != 1:
        return "audio is not mono", facts
    if len(wave) > 10 * sr:
        return f"audio lasts {len(wave) / sr:.2f} s, more than 10 s", facts
    return None, facts


class StubChatServer(LoopbackJSONServer):
    """Run with ``with StubChatServer(script) as srv:``; ``srv.base_url`` is its ``/v1``."""

    def __init__(self, script=(), *, delay_s: float = 0.0, finish_reason: str = "stop", redirect_to: str | None = None):
        self.script = list(script)  # (status, body, headers) answered before the canned answers
        self.delay_s = delay_s
        self.finish_reason = finish_reason
        self.redirect_to = redirect_to
        self.requests: list[dict] = []
        self.problems: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        super().__init__(self._answer)

    def _answer(self, method: str, path: str, headers: dict, body) -> tuple:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            problem, facts = check_shape(body)
            with self._lock:
                self.requests.append({"path": path, "body": body, "facts": facts, "headers": headers})
                scripted = self.script.pop(0) if self.script else None
            if self.delay_s:
                time.sleep(self.delay_s)
            if path != "/v1/chat/completions":
                problem = problem or f"path {path}"
            if problem:
                with self._lock:
                    self.problems.append(problem)
                return 400, {"error": {"message": problem}}, {}
            if self.redirect_to:
                return 307, {}, {"Location": self.redirect_to}
            if scripted is not None:
                return scripted
            text = canned_text(facts["prompt"])
            return 200, {
                "id": "chatcmpl-stub", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": self.finish_reason}],
                "usage": {"prompt_tokens": 400, "completion_tokens": len(text.split()),
                          "total_tokens": 400 + len(text.split())},
            }, {}
        finally:
            # counted out before the answer goes: once the client has it, it may send the next request
            with self._lock:
                self.in_flight -= 1

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"
