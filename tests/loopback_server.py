"""One JSON-over-HTTP server on 127.0.0.1 for the API adapters' tests (nothing leaves the machine).

``answer(method, path, headers, body)`` returns ``(status, payload, headers)``; headers arrive lower-cased
and ``body`` is the decoded JSON of a POST (``None`` for an empty one). Use as ``with LoopbackJSONServer(f)
as srv:``; ``srv.url`` is ``http://127.0.0.1:<port>``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Answer = Callable[[str, str, dict, Any], tuple[int, Any, dict]]


class LoopbackJSONServer:
    def __init__(self, answer: Answer):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw else None
                status, payload, headers = answer(self.command, self.path,
                                                  {k.lower(): v for k, v in self.headers.items()}, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET = _handle

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
