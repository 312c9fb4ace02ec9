"""One call over ``urllib.request``: URL and body encoding, error mapping, and retries.

Retry rules (the TypeScript client's; a retried call must not do its work twice):

- 429 is retried for every method: the server refuses it before reading the body or running
  anything. It waits ``Retry-After`` (seconds or an HTTP date) when that is at most
  ``max_retry_delay``; a longer wait (a daily limit hours from its reset) is not transient, so the
  :class:`~trainprint_client.RateLimitedError` is raised at once with ``retry_after`` set.
- Network errors, timeouts and 5xx are retried only for idempotent calls: GET, HEAD, DELETE, PUT,
  a POST sent with an ``idempotency_key`` (the server replays the first result), or a POST the
  typed method marks as idempotent (pure computations such as ``compare`` and ``score``) — but not
  a call marked ``idempotent=False`` whatever its method (``cancel_job``: a job's DELETE whose
  answer was lost may have cancelled the job, which has finished since, and a repeat would delete
  it with its results).
- Between attempts: ``Retry-After`` when given, else exponential backoff with full jitter
  (random in [0, min(8, 0.5 * 2**n)] seconds). At most ``max_retries`` retries, and at most
  ``max_total_wait`` seconds of waiting in all: a wait that would pass it raises the error instead.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Mapping, Optional, Union

from .errors import ErrorCode, TrainprintApiError, make_error
from .types import RateLimit

__all__ = ["Transport", "parse_retry_after", "backoff", "json_bytes", "RetryHook", "Sleep"]

BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "DELETE", "PUT", "OPTIONS"})

#: ``on_retry(retry_number, wait_seconds, error)``: called before each wait (retry_number is 1-based).
RetryHook = Callable[[int, float, TrainprintApiError], None]
Sleep = Callable[[float], None]
Query = Mapping[str, Union[str, int, float, bool, None]]


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return int(v)
    try:
        when = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0, int(-(-(when - (time.time() if now is None else now)) // 1)))


def backoff(attempt: int, rng: Callable[[], float] = random.random) -> float:
    """Full-jitter exponential backoff before retry ``attempt + 1``, in seconds."""
    return rng() * min(BACKOFF_CAP, BACKOFF_BASE * 2.0 ** attempt)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: an Authorization header must not travel to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class _AnswerBeforeBody:
    """A connection that reads the server's answer when the server stops taking the body: a server refuses an upload
    over its limit from the headers (413) and closes without reading the rest, so writing the body fails (EPIPE,
    ECONNRESET) with the answer already sent. The answer is read then; only without one is the write's error raised."""

    _send_error: Optional[OSError] = None

    def request(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().request(*args, **kwargs)  # type: ignore[misc]
        except (BrokenPipeError, ConnectionResetError) as e:
            self._send_error = e

    def getresponse(self) -> http.client.HTTPResponse:
        try:
            return super().getresponse()  # type: ignore[misc]
        except (OSError, http.client.HTTPException):
            if self._send_error is not None:
                raise self._send_error from None
            raise


class _HTTPConnection(_AnswerBeforeBody, http.client.HTTPConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return super().do_open(_HTTPConnection, req, **kwargs)


_HANDLER_CLASSES: list = [_NoRedirect, _HTTPHandler]
if hasattr(http.client, "HTTPSConnection"):  # Python built with ssl

    class _HTTPSConnection(_AnswerBeforeBody, http.client.HTTPSConnection):
        pass

    class _HTTPSHandler(urllib.request.HTTPSHandler):
        def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            return super().do_open(_HTTPSConnection, req, **kwargs)

    _HANDLER_CLASSES.append(_HTTPSHandler)


class Transport:
    """Sends requests to one base URL with one credential; see the module docstring for retries."""

    def __init__(self, base_url: str, api_key: Optional[str], *, max_retries: int, timeout: float,
                 max_retry_delay: float, max_total_wait: float, sleep: Sleep, on_retry: Optional[RetryHook],
                 user_agent: str) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_retry_delay = max_retry_delay
        self.max_total_wait = max_total_wait
        self.sleep = sleep
        self.on_retry = on_retry
        self.user_agent = user_agent
        self.rate_limit: Optional[RateLimit] = None
        self._opener = urllib.request.build_opener(*(h() for h in _HANDLER_CLASSES))

    def request(self, method: str, path: str, *, body: Any = None, query: Optional[Query] = None,
                idempotency_key: Optional[str] = None, idempotent: Optional[bool] = None,
                form: Optional[Mapping[str, str]] = None, headers: Optional[Mapping[str, str]] = None,
                response_type: str = "json", auth: bool = True) -> Any:
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/': {path}")
        if response_type not in ("json", "bytes", "text"):
            raise ValueError(f"response_type must be 'json', 'bytes' or 'text', not {response_type!r}")
        m = method.upper()
        url = self.base_url + path
        params = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        if params:
            url += "?" + urllib.parse.urlencode(params)
        h: Dict[str, str] = {
            "Accept": "application/octet-stream, application/json" if response_type == "bytes" else "application/json",
            "User-Agent": self.user_agent,
        }
        data: Optional[bytes] = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode("ascii")
            h["Content-Type"] = "application/x-www-form-urlencoded"
        elif isinstance(body, (bytes, bytearray, memoryview)):
            data = bytes(body)
            h["Content-Type"] = "application/octet-stream"
        elif body is not None:
            data = json_bytes(body)
            h["Content-Type"] = "application/json"
        if auth and self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        if idempotency_key is not None:
            h["Idempotency-Key"] = idempotency_key
        h.update(headers or {})
        safe = idempotent if idempotent is not None else m in IDEMPOTENT_METHODS or idempotency_key is not None

        attempt = 0
        waited = 0.0
        while True:
            can_retry = attempt < self.max_retries
            req = urllib.request.Request(url, data=data, headers=h, method=m)
            try:
                with self._opener.open(req, timeout=self.timeout) as res:
                    raw = res.read()
                    self._note_rate_limit(res.headers)
                    return _read_success(raw, res.status, res.headers, response_type)
            except urllib.error.HTTPError as e:
                raw = _read_quietly(e)
                self._note_rate_limit(e.headers)
                err = _read_error(e.code, e.headers, raw)
                transient = e.code == 429 or (e.code >= 500 and safe)
                if not transient or not can_retry:
                    raise err from None
                wait = float(err.retry_after) if err.retry_after is not None else backoff(attempt)
                if wait > self.max_retry_delay:
                    raise err from None
                cause: Optional[BaseException] = None
            except (urllib.error.URLError, http.client.HTTPException, OSError) as e:  # refused, reset, DNS, timeouts, truncated bodies
                reason = getattr(e, "reason", e)
                is_timeout = isinstance(reason, (socket.timeout, TimeoutError)) or isinstance(e, (socket.timeout, TimeoutError))
                err = make_error(0, ErrorCode.TIMEOUT if is_timeout else ErrorCode.NETWORK_ERROR,
                                 f"no response from {self.base_url} within {self.timeout} s" if is_timeout
                                 else f"cannot reach {self.base_url}: {reason}")
                if not safe or not can_retry:
                    raise err from e
                wait = backoff(attempt)
                cause = e
            if waited + wait > self.max_total_wait:
                raise err from cause
            attempt += 1
            if self.on_retry is not None:
                self.on_retry(attempt, wait, err)
            self.sleep(wait)
            waited += wait

    def _note_rate_limit(self, headers: Any) -> None:
        if headers is None:
            return
        limit, remaining, reset = headers.get("RateLimit-Limit"), headers.get("RateLimit-Remaining"), headers.get("RateLimit-Reset")
        if limit is None or remaining is None or reset is None:
            return
        try:
            self.rate_limit = {"limit": int(limit), "remaining": int(remaining), "reset": int(reset),
                               "policy": headers.get("RateLimit-Policy")}
        except ValueError:
            pass


def _read_quietly(e: urllib.error.HTTPError) -> bytes:
    try:
        return e.read()
    except (OSError, http.client.HTTPException):
        return b""


def _read_success(raw: bytes, status: int, headers: Any, response_type: str) -> Any:
    if response_type == "bytes":
        return raw
    text = raw.decode("utf-8")
    if response_type == "text":
        return text
    if text == "":
        return {"success": True}
    try:
        return json.loads(text)
    except ValueError:
        raise make_error(status, ErrorCode.HTTP_ERROR, f"the response is not JSON ({headers.get('Content-Type')})",
                         request_id=headers.get("X-Request-Id")) from None


def _read_error(status: int, headers: Any, raw: bytes) -> TrainprintApiError:
    """An error response: the API envelope, an OAuth (RFC 6749) error body, or anything else."""
    request_id = headers.get("X-Request-Id") if headers is not None else None
    retry_after = parse_retry_after(headers.get("Retry-After")) if headers is not None else None
    text = raw.decode("utf-8", errors="replace")
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("success") is False and isinstance(body.get("error"), dict) \
            and isinstance(body["error"].get("code"), str):
        e = body["error"]
        details = e["details"] if isinstance(e.get("details"), dict) else None
        if request_id is None and details and isinstance(details.get("request_id"), str):
            request_id = details["request_id"]
        message = e["message"] if isinstance(e.get("message"), str) else e["code"]
        return make_error(status, e["code"], message, details, request_id, retry_after)
    if isinstance(body, dict) and isinstance(body.get("error"), str):  # RFC 6749 5.2 (the token endpoint)
        description = body.get("error_description")
        return make_error(status, body["error"], description if isinstance(description, str) else body["error"],
                          None, request_id, retry_after)
    snippet = " ".join(text.split())[:200]
    return make_error(status, ErrorCode.HTTP_ERROR, f"HTTP {status}" + (f": {snippet}" if snippet else ""),
                      None, request_id, retry_after)


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8. A string holding a lone surrogate (not Unicode text, which UTF-8 cannot
    carry) is written escaped (``\\ud800``), as JSON allows: the server then refuses it, naming the field, as it refuses
    the same value from any client, rather than this client failing with a ``UnicodeEncodeError``."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _query_value(v: Union[str, int, float, bool]) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)
