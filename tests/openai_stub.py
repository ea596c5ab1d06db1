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
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import soundfile as sf

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


class StubChatServer:
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
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):  # noqa: N802 - the http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub._lock:
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    problem, facts = check_shape(body)
                    with stub._lock:
                        stub.requests.append({"path": self.path, "body": body, "facts": facts,
                                              "headers": {k.lower(): v for k, v in self.headers.items()}})
                        scripted = stub.script.pop(0) if stub.script else None
                    if stub.delay_s:
                        time.sleep(stub.delay_s)
                    if self.path != "/v1/chat/completions":
                        problem = problem or f"path {self.path}"
                    if problem:
                        with stub._lock:
                            stub.problems.append(problem)
                        reply = (400, {"error": {"message": problem}})
                    elif stub.redirect_to:
                        reply = (307, {}, {"Location": stub.redirect_to})
                    elif scripted is not None:
                        reply = scripted
                    else:
                        text = canned_text(facts["prompt"])
                        reply = (200, {
                            "id": "chatcmpl-stub", "object": "chat.completion", "model": body.get("model"),
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": stub.finish_reason}],
                            "usage": {"prompt_tokens": 400, "completion_tokens": len(text.split()),
                                      "total_tokens": 400 + len(text.split())},
                        })
                finally:
                    # counted out before the answer goes: once the client has it, it may send the next request
                    with stub._lock:
                        stub.in_flight -= 1
                self._send(*reply)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
