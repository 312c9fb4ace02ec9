"""Python client of the trainprint HTTP API (``/api/v1``), standard library only.

    from trainprint_client import Client, TrainprintApiError
    tp = Client(api_key="tp_test_...", base_url="http://127.0.0.1:8787")
    r = tp.analyze({"content": text, "content_type": "text"})
    for m in r["matches"]:
        print(m["dataset_id"], m.get("document_id"), m["query_start"], m["query_end"])

Methods mirror the TypeScript client (``trainprint/client``) in snake_case and return the
success bodies as dicts (``{"success": True, ...result}``). Failures raise
:class:`TrainprintApiError`. Retry rules are the TypeScript client's: 429 is retried for every
method (the server refuses it before doing anything), waiting ``Retry-After`` when it is at most
``max_retry_delay`` seconds; network errors, timeouts and 5xx are retried only for idempotent
calls (GET, DELETE, a POST with an ``idempotency_key``, or a POST that changes nothing such as
``compare``), with exponential backoff and jitter.

Spans (``query_start``, ``a_start``, ...) are UTF-16 code-unit offsets, as everywhere in the
API; :func:`utf16_slice` cuts a Python string by them.
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
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

__all__ = ["Client", "TrainprintApiError", "utf16_slice", "parse_retry_after"]
__version__ = "0.1.0"

Json = Dict[str, Any]

NETWORK_ERROR = "NETWORK_ERROR"
TIMEOUT = "TIMEOUT"
HTTP_ERROR = "HTTP_ERROR"

_BACKOFF_BASE = 0.5
_BACKOFF_CAP = 8.0


class TrainprintApiError(Exception):
    """A failed call: the API's error envelope, an OAuth error body, or no usable response.

    ``status`` is 0 without a response; ``code`` is the API's (``RATE_LIMITED``, ``NOT_FOUND``,
    ...) or ``NETWORK_ERROR`` / ``TIMEOUT`` / ``HTTP_ERROR``; ``details`` the envelope's details;
    ``request_id`` the ``X-Request-Id``; ``retry_after`` the seconds the server asked to wait.
    """

    def __init__(self, status: int, code: str, message: str, details: Optional[Json] = None,
                 request_id: Optional[str] = None, retry_after: Optional[int] = None) -> None:
        super().__init__(f"{code} ({status}): {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return int(v)
    try:
        when = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0, int(-(-(when - (time.time() if now is None else now)) // 1)))


def utf16_slice(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with UTF-16 offsets (the API's spans), for text outside the BMP too."""
    units = text.encode("utf-16-le")
    return units[2 * start:2 * end].decode("utf-16-le", errors="replace")


class _Namespace:
    def __init__(self, **methods: Callable[..., Any]) -> None:
        self.__dict__.update(methods)


class Client:
    """The trainprint HTTP API as methods.

    :param api_key: an API key (``tp_live_...``/``tp_test_...``) or an OAuth access token;
        public routes (``status``, ``openapi``) need none.
    :param base_url: where the API is, without ``/api/v1`` (a path prefix is kept).
    :param max_retries: retries after the first attempt (default 3).
    :param timeout: seconds per attempt (default 60).
    :param max_retry_delay: longest wait before a retry, seconds; a 429 asking for longer is
        raised at once (default 60).
    """

    def __init__(self, api_key: Optional[str] = None, base_url: str = "http://127.0.0.1:8787",
                 max_retries: int = 3, timeout: float = 60.0, max_retry_delay: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.netloc:
            raise ValueError(f"base_url must be an absolute http(s) URL, not {base_url!r}")
        if u.query or u.fragment:
            raise ValueError("base_url must not carry a query or a fragment")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = f"{u.scheme}://{u.netloc}{u.path.rstrip('/')}"
        self.api_key = api_key
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_retry_delay = max_retry_delay
        self.rate_limit: Optional[Json] = None
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect())

        q = urllib.parse.quote
        self.monitors = _Namespace(
            create=lambda body, idempotency_key=None: self.request("POST", "/api/v1/monitors/create", body=body, idempotency_key=idempotency_key),
            list=lambda work_id=None: self.request("GET", "/api/v1/monitors", query={"work_id": work_id}),
            get=lambda monitor_id: self.request("GET", f"/api/v1/monitors/{q(monitor_id, safe='')}"),
            delete=lambda monitor_id: self.request("DELETE", f"/api/v1/monitors/{q(monitor_id, safe='')}"),
            pause=lambda monitor_id: self.request("POST", f"/api/v1/monitors/{q(monitor_id, safe='')}/pause", idempotent=True),
            resume=lambda monitor_id: self.request("POST", f"/api/v1/monitors/{q(monitor_id, safe='')}/resume", idempotent=True),
            events=lambda monitor_id, limit=None: self.request("GET", f"/api/v1/monitors/{q(monitor_id, safe='')}/events", query={"limit": limit}),
        )
        self.datasets = _Namespace(
            list=lambda: self.request("GET", "/api/v1/datasets"),
            get=lambda dataset_id: self.request("GET", f"/api/v1/datasets/{q(dataset_id, safe='')}"),
            create=lambda body, idempotency_key=None: self.request("POST", "/api/v1/datasets", body=body, idempotency_key=idempotency_key),
            add_documents=lambda dataset_id, documents, idempotency_key=None: self.request(
                "POST", f"/api/v1/datasets/{q(dataset_id, safe='')}/documents", body={"documents": list(documents)}, idempotency_key=idempotency_key),
            export=lambda dataset_id: self.request("GET", f"/api/v1/datasets/{q(dataset_id, safe='')}/export", response_type="bytes"),
            import_=lambda data, idempotency_key=None: self.request("POST", "/api/v1/datasets/import", body=bytes(data), idempotency_key=idempotency_key),
            delete=lambda dataset_id: self.request("DELETE", f"/api/v1/datasets/{q(dataset_id, safe='')}"),
        )
        self.kb = _Namespace(
            models=lambda provider=None, modality=None, disclosure=None, dataset=None: self.request(
                "GET", "/api/v1/kb/models", query={"provider": provider, "modality": modality, "disclosure": disclosure, "dataset": dataset}),
            model=self._kb_model,
            providers=lambda: self.request("GET", "/api/v1/kb/providers"),
            datasets=lambda: self.request("GET", "/api/v1/kb/datasets"),
            dataset=lambda kb_dataset_id: self.request("GET", f"/api/v1/kb/datasets/{q(kb_dataset_id, safe='')}"),
            jurisdictions=lambda: self.request("GET", "/api/v1/kb/jurisdictions"),
            factors=lambda: self.request("GET", "/api/v1/kb/factors"),
        )
        self.keys = _Namespace(
            create=lambda name=None, scopes=None, mode=None: self.request(
                "POST", "/api/v1/keys", body=_drop_none({"name": name, "scopes": None if scopes is None else list(scopes), "mode": mode})),
            list=lambda: self.request("GET", "/api/v1/keys"),
            revoke=lambda key_id: self.request("DELETE", f"/api/v1/keys/{q(key_id, safe='')}"),
        )
        self.oauth = _Namespace(
            token=self._oauth_token,
            create_client=lambda name=None, scopes=None: self.request(
                "POST", "/api/v1/oauth/clients", body=_drop_none({"name": name, "scopes": None if scopes is None else list(scopes)})),
            list_clients=lambda: self.request("GET", "/api/v1/oauth/clients"),
            revoke_client=lambda client_id: self.request("DELETE", f"/api/v1/oauth/clients/{q(client_id, safe='')}"),
        )

        mk = "/api/v1/marketplace"
        self.marketplace = _Namespace(
            create_listing=lambda body, idempotency_key=None: self.request("POST", f"{mk}/listings", body=body, idempotency_key=idempotency_key),
            list_listings=lambda **query: self.request("GET", f"{mk}/listings", query=query),
            get_listing=lambda listing_id: self.request("GET", f"{mk}/listings/{q(listing_id, safe='')}"),
            update_listing=lambda listing_id, patch: self.request("PATCH", f"{mk}/listings/{q(listing_id, safe='')}", body=patch),
            publish_listing=lambda listing_id: self.request("POST", f"{mk}/listings/{q(listing_id, safe='')}/publish"),
            withdraw_listing=lambda listing_id: self.request("POST", f"{mk}/listings/{q(listing_id, safe='')}/withdraw"),
            make_offer=lambda listing_id, body, idempotency_key=None: self.request(
                "POST", f"{mk}/listings/{q(listing_id, safe='')}/offers", body=body, idempotency_key=idempotency_key),
            list_offers=lambda **query: self.request("GET", f"{mk}/offers", query=query),
            get_offer=lambda offer_id: self.request("GET", f"{mk}/offers/{q(offer_id, safe='')}"),
            accept_offer=lambda offer_id, idempotency_key=None: self.request("POST", f"{mk}/offers/{q(offer_id, safe='')}/accept", idempotency_key=idempotency_key),
            decline_offer=lambda offer_id: self.request("POST", f"{mk}/offers/{q(offer_id, safe='')}/decline"),
            counter_offer=lambda offer_id, body, idempotency_key=None: self.request(
                "POST", f"{mk}/offers/{q(offer_id, safe='')}/counter", body=body, idempotency_key=idempotency_key),
            withdraw_offer=lambda offer_id: self.request("POST", f"{mk}/offers/{q(offer_id, safe='')}/withdraw"),
            list_licences=lambda **query: self.request("GET", f"{mk}/licences", query=query),
            get_licence=lambda licence_id: self.request("GET", f"{mk}/licences/{q(licence_id, safe='')}"),
            verify_licence=lambda licence: self.request("POST", f"{mk}/licences/verify", body={"licence": licence}, idempotent=True),
            audit=lambda entity_id, after=None, limit=None: self.request("GET", f"{mk}/audit", query={"entity_id": entity_id, "after": after, "limit": limit}),
        )
        mm = "/api/v1/memorization"
        self.memorization = _Namespace(
            track_work=lambda body, idempotency_key=None: self.request("POST", f"{mm}/register-work", body=body, idempotency_key=idempotency_key),
            create_reference_set=lambda body, idempotency_key=None: self.request("POST", f"{mm}/reference-sets", body=body, idempotency_key=idempotency_key),
            list_reference_sets=lambda: self.request("GET", f"{mm}/reference-sets"),
            extract=lambda body: self.request("POST", f"{mm}/extract", body=body),
            probe=lambda body: self.request("POST", f"{mm}/probe", body=body),
            compare_output=lambda body: self.request("POST", f"{mm}/compare", body=body, idempotent=True),
            assess=lambda body, idempotency_key=None: self.request("POST", f"{mm}/assess", body=body, idempotency_key=idempotency_key),
            report=lambda assessment_id, max_spans=None: self.request(
                "POST", f"{mm}/report", body=_drop_none({"assessment_id": assessment_id, "max_spans": max_spans}),
                idempotent=True, response_type="text", headers={"Accept": "text/html"}),
        )

    # ------------------------------------------------------------ attribution

    def analyze(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        """``POST /api/v1/attribution/analyze``: ``{"content", "content_type", "metadata"?}``."""
        return self.request("POST", "/api/v1/attribution/analyze", body=body, idempotency_key=idempotency_key)

    def get_analysis(self, analysis_id: str) -> Json:
        return self.request("GET", f"/api/v1/attribution/analyses/{_seg(analysis_id)}")

    def compare(self, a: str, b: str) -> Json:
        """Aligned passages of two texts (retried like a GET: it changes nothing)."""
        return self.request("POST", "/api/v1/attribution/compare", body={"a": a, "b": b}, idempotent=True)

    def score(self, body: Mapping[str, Any]) -> Json:
        """``{"work_hash", "target_model", "jurisdiction"}`` of a registered work of the account."""
        return self.request("POST", "/api/v1/attribution/score", body=body, idempotent=True)

    def fingerprint(self, body: Mapping[str, Any]) -> Json:
        return self.request("POST", "/api/v1/attribution/fingerprint", body=body, idempotent=True)

    # ------------------------------------------------------------ works registry

    def register_work(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        """``{"content"}`` or ``{"fingerprint": {"fingerprint", "work_hash"}}``, plus title, author, ..."""
        return self.request("POST", "/api/v1/content/register", body=body, idempotency_key=idempotency_key)

    def get_work(self, work_id: str) -> Json:
        return self.request("GET", f"/api/v1/content/{_seg(work_id)}")

    def list_works(self, after: Optional[str] = None, limit: Optional[int] = None) -> Json:
        """One page; pass ``next`` as ``after`` for the next."""
        return self.request("GET", "/api/v1/content", query={"after": after, "limit": limit})

    def delete_work(self, work_id: str) -> Json:
        return self.request("DELETE", f"/api/v1/content/{_seg(work_id)}")

    def verify_receipt(self, receipt: Mapping[str, Any]) -> Json:
        return self.request("POST", "/api/v1/content/verify-receipt", body={"receipt": receipt}, idempotent=True)

    # ------------------------------------------------------------ account and service

    def usage(self) -> Json:
        return self.request("GET", "/api/v1/usage")

    def status(self) -> Json:
        return self.request("GET", "/api/v1/status")

    def openapi(self) -> Json:
        """The OpenAPI 3.1 document (no envelope)."""
        return self.request("GET", "/api/v1/openapi.json")

    def _kb_model(self, model_id: str) -> Json:
        provider, sep, model = model_id.partition("/")
        if not sep or not provider or not model:
            raise ValueError(f"a model id is 'provider/model_name', not {model_id!r}")
        return self.request("GET", f"/api/v1/kb/models/{_seg(provider)}/{_seg(model)}")

    def _oauth_token(self, client_id: str, client_secret: str, scope: Union[None, str, Sequence[str]] = None) -> Json:
        form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
        if scope is not None:
            form["scope"] = scope if isinstance(scope, str) else " ".join(scope)
        return self.request("POST", "/api/v1/oauth/token", form=form, auth=False)

    # ------------------------------------------------------------ the generic call

    def request(self, method: str, path: str, body: Any = None, query: Optional[Mapping[str, Any]] = None,
                idempotency_key: Optional[str] = None, idempotent: bool = False, form: Optional[Mapping[str, str]] = None,
                headers: Optional[Mapping[str, str]] = None, response_type: str = "json", auth: bool = True) -> Any:
        """Any route (e.g. one newer than this client): ``path`` is relative to ``base_url``
        (``/api/v1/...``); ``body`` is sent as JSON, or as ``application/octet-stream`` when it
        is ``bytes``; ``form`` as a form. Returns the parsed body (``bytes`` with
        ``response_type="bytes"``, ``str`` with ``"text"``)."""
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/': {path}")
        m = method.upper()
        url = self.base_url + path
        params = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        if params:
            url += "?" + urllib.parse.urlencode(params)
        h = {"Accept": "application/octet-stream, application/json" if response_type == "bytes" else "application/json",
             "User-Agent": f"trainprint-python/{__version__}"}
        data: Optional[bytes] = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode("ascii")
            h["Content-Type"] = "application/x-www-form-urlencoded"
        elif isinstance(body, (bytes, bytearray, memoryview)):
            data = bytes(body)
            h["Content-Type"] = "application/octet-stream"
        elif body is not None:
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            h["Content-Type"] = "application/json"
        if auth and self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        if idempotency_key is not None:
            h["Idempotency-Key"] = idempotency_key
        h.update(headers or {})
        safe = m in ("GET", "HEAD", "DELETE", "PUT") or idempotency_key is not None or idempotent

        attempt = 0
        while True:
            can_retry = attempt < self.max_retries
            req = urllib.request.Request(url, data=data, headers=h, method=m)
            try:
                with self._opener.open(req, timeout=self.timeout) as res:
                    raw = res.read()
                    self._note_rate_limit(res.headers)
                    return _read_success(raw, res.status, res.headers, response_type)
            except urllib.error.HTTPError as e:
                raw = e.read()
                self._note_rate_limit(e.headers)
                err = _read_error(e.code, e.headers, raw)
                transient = e.code == 429 or (e.code >= 500 and safe)
                if not transient or not can_retry:
                    raise err from None
                wait = float(err.retry_after) if err.retry_after is not None else _backoff(attempt)
                if wait > self.max_retry_delay:
                    raise err from None
            except (urllib.error.URLError, http.client.HTTPException, OSError) as e:  # URLError, timeouts, resets, truncated bodies
                reason = getattr(e, "reason", e)
                is_timeout = isinstance(reason, (socket.timeout, TimeoutError)) or isinstance(e, (socket.timeout, TimeoutError))
                err = TrainprintApiError(0, TIMEOUT if is_timeout else NETWORK_ERROR,
                                         f"no response from {self.base_url} within {self.timeout} s" if is_timeout
                                         else f"cannot reach {self.base_url}: {reason}")
                if not safe or not can_retry:
                    raise err from e
                wait = _backoff(attempt)
            self._sleep(wait)
            attempt += 1

    def _note_rate_limit(self, headers: Any) -> None:
        limit, remaining, reset = (headers.get("RateLimit-Limit"), headers.get("RateLimit-Remaining"), headers.get("RateLimit-Reset"))
        if limit is not None and remaining is not None and reset is not None:
            self.rate_limit = {"limit": int(limit), "remaining": int(remaining), "reset": int(reset), "policy": headers.get("RateLimit-Policy")}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: an Authorization header must not travel to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


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
        raise TrainprintApiError(status, HTTP_ERROR, f"the response is not JSON ({headers.get('Content-Type')})",
                                 request_id=headers.get("X-Request-Id")) from None


def _read_error(status: int, headers: Any, raw: bytes) -> TrainprintApiError:
    request_id = headers.get("X-Request-Id") if headers is not None else None
    retry_after = parse_retry_after(headers.get("Retry-After")) if headers is not None else None
    text = raw.decode("utf-8", errors="replace")
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("success") is False and isinstance(body.get("error"), dict) and isinstance(body["error"].get("code"), str):
        e = body["error"]
        details = e.get("details") if isinstance(e.get("details"), dict) else None
        if request_id is None and details and isinstance(details.get("request_id"), str):
            request_id = details["request_id"]
        return TrainprintApiError(status, e["code"], str(e.get("message", e["code"])), details, request_id, retry_after)
    if isinstance(body, dict) and isinstance(body.get("error"), str):  # RFC 6749 §5.2 (token endpoint)
        return TrainprintApiError(status, body["error"], str(body.get("error_description", body["error"])), None, request_id, retry_after)
    snippet = " ".join(text.split())[:200]
    return TrainprintApiError(status, HTTP_ERROR, f"HTTP {status}" + (f": {snippet}" if snippet else ""), None, request_id, retry_after)


def _backoff(attempt: int) -> float:
    return random.random() * min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** attempt)  # full jitter


def _seg(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _query_value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _drop_none(d: Mapping[str, Any]) -> Json:
    return {k: v for k, v in d.items() if v is not None}
