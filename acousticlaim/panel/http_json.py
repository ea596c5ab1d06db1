"""JSON over HTTPS for the API panel members: one POST with retries, the errors they raise, the loopback rule.

Both HTTP adapters (:mod:`acousticlaim.panel.gemini`, :mod:`acousticlaim.panel.openai_chat`) send their
requests through :func:`post_json`: 429 and 5xx answers and dropped connections are retried with exponential
backoff and jitter (``Retry-After`` honoured, capped), any other HTTP error is an :class:`APIError` at once,
and a redirect the adapter's opener did not follow is an :class:`APIError` naming where it pointed, so the
key never travels anywhere but the configured host. Nothing here sees the key except through the headers;
``blank`` removes it from any text an error repeats.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Mapping

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


class APIKeyMissing(RuntimeError):
    """The environment variable that should hold the API key is unset or empty."""


class APIError(RuntimeError):
    """The API refused a request, or kept failing after every retry."""

    def __init__(self, message: str, status: int | None = None):
        self.status = status
        super().__init__(message)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and the loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RetryPolicy:
    """How long one request may take and how often, and how slowly, a failed one is sent again."""

    timeout_s: float = 120.0
    max_retries: int = 6
    backoff_s: float = 2.0
    max_backoff_s: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        delay = min(self.max_backoff_s, self.backoff_s * (2 ** attempt)) * (1 + 0.25 * random.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_backoff_s))
        return delay


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    header = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None


def post_json(opener: urllib.request.OpenerDirector, url: str, body: Mapping[str, Any], headers: Mapping[str, str],
              *, label: str, policy: RetryPolicy, blank: Callable[[str], str] = lambda text: text,
              on_retry: Callable[[], None] | None = None) -> dict[str, Any]:
    """POST ``body`` as JSON to ``url`` through ``opener`` and return the decoded JSON answer (module doc).

    ``label`` names the system in every error and log line; ``on_retry`` is called before each retry."""
    payload = json.dumps(body).encode("utf-8")
    for attempt in range(policy.max_retries + 1):
        request = urllib.request.Request(url, data=payload, method="POST", headers=dict(headers))
        retry_after: float | None = None
        try:
            with opener.open(request, timeout=policy.timeout_s) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                where = urllib.parse.urlsplit(exc.headers.get("Location", "") if exc.headers else "")
                target = f"{where.scheme}://{where.netloc}{where.path}" if where.netloc else where.path or "?"
                raise APIError(f"{label}: HTTP {exc.code} redirect to {target} not followed "
                               "(the key is never sent anywhere but the configured host)", exc.code) from None
            detail = blank(exc.read()[:300].decode("utf-8", "replace"))
            if exc.code not in RETRY_STATUSES:
                raise APIError(f"{label}: HTTP {exc.code} {exc.reason}: {detail}", exc.code) from None
            status, why, retry_after = exc.code, f"HTTP {exc.code}", _retry_after(exc)
        except APIError:
            raise
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            status, why = None, blank(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise APIError(f"{label}: the response is not JSON ({exc})") from None
        if attempt == policy.max_retries:
            raise APIError(f"{label}: gave up after {policy.max_retries} retries (last: {why})", status)
        delay = policy.delay(attempt, retry_after)
        if on_retry is not None:
            on_retry()
        log.warning("%s: %s, retry %d/%d in %.2f s", label, why, attempt + 1, policy.max_retries, delay)
        time.sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover
