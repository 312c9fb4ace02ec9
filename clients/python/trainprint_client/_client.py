"""The HTTP API under ``/api/v1`` as methods (snake_case names of the TypeScript client's)."""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.parse
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ._transport import Query, RetryHook, Sleep, Transport, json_bytes
from .types import (
    AnalysisResult, AnalyzeRequest, Comparison, Deleted, FingerprintRequest, FingerprintResult, Json, RateLimit,
    Receipt, RegisterWorkRequest, RegisterWorkResult, ScoreRequest, ScoreResult, StatusReport, Usage, Valid, Work,
    WorkList,
)

__all__ = ["Client", "DEFAULT_BASE_URL", "utf16_slice"]

__version__ = "0.1.0"

#: where ``trainprint serve`` listens by default
DEFAULT_BASE_URL = "http://127.0.0.1:8787"
_MARKET = "/api/v1/marketplace"
_MEM = "/api/v1/memorization"


def utf16_slice(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with UTF-16 offsets (the API's spans), for text outside the BMP too."""
    units = text.encode("utf-16-le")
    return units[2 * start:2 * end].decode("utf-16-le", errors="replace")


def _seg(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _drop_none(d: Mapping[str, Any]) -> Json:
    return {k: v for k, v in d.items() if v is not None}


def _multipart(file: bytes, filename: str, fields: Mapping[str, Any]) -> Tuple[bytes, str]:
    """A ``multipart/form-data`` body (RFC 7578) and its Content-Type: ``fields`` (objects as JSON, booleans as
    ``true``/``false``; ``content`` and ``content_encoding`` left out), then the file in the field ``file``."""
    boundary = "trainprint-" + secrets.token_hex(16)

    def quoted(s: str) -> str:  # as browsers write names (the HTML form-data encoding)
        return s.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")

    parts: List[bytes] = []
    for name, value in fields.items():
        if value is None or name in ("content", "content_encoding"):
            continue
        if isinstance(value, bool):
            data = b"true" if value else b"false"
        elif isinstance(value, (dict, list)):
            data = json_bytes(value)
        else:
            # a lone surrogate goes as the bytes it is (not UTF-8): the server refuses it naming the field
            data = str(value).encode("utf-8", "surrogatepass")
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{quoted(name)}"\r\n\r\n'
        parts.append(head.encode("utf-8", "surrogatepass") + data + b"\r\n")
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{quoted(filename)}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n")
    parts.append(head.encode("utf-8") + bytes(file) + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode("ascii"))
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Client:
    """The trainprint HTTP API as methods. Results are the success bodies as dicts
    (``{"success": True, ...result}``); failures raise :class:`~trainprint_client.TrainprintApiError`
    (a subclass per error family).

    :param api_key: an API key (``tp_live_...``/``tp_test_...``) or an OAuth access token, sent as
        ``Authorization: Bearer ...``; public routes (``status``, ``openapi``) need none.
    :param base_url: where the API is, without ``/api/v1`` (a path prefix is kept).
    :param max_retries: retries after the first attempt (default 3; 0 turns retries off).
    :param timeout: seconds each socket operation of an attempt may take (default 60).
    :param max_retry_delay: longest single wait before a retry, seconds; a 429 asking for longer
        is raised at once (default 60).
    :param max_total_wait: most seconds spent waiting between attempts of one call (default 120).
    :param sleep: how to wait (tests pass a recording one).
    :param on_retry: called as ``on_retry(retry_number, wait_seconds, error)`` before each wait.
    """

    def __init__(self, api_key: Optional[str] = None, base_url: str = DEFAULT_BASE_URL, max_retries: int = 3,
                 timeout: float = 60.0, max_retry_delay: float = 60.0, sleep: Sleep = time.sleep,
                 max_total_wait: float = 120.0, on_retry: Optional[RetryHook] = None,
                 user_agent: Optional[str] = None) -> None:
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.netloc:
            raise ValueError(f"base_url must be an absolute http(s) URL, not {base_url!r}")
        if u.query or u.fragment:
            raise ValueError("base_url must not carry a query or a fragment")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError("max_retries must be an integer >= 0")
        for name, value in (("timeout", timeout), ("max_retry_delay", max_retry_delay), ("max_total_wait", max_total_wait)):
            if value < 0:
                raise ValueError(f"{name} must be >= 0")
        self._t = Transport(
            f"{u.scheme}://{u.netloc}{u.path.rstrip('/')}", api_key, max_retries=max_retries, timeout=timeout,
            max_retry_delay=max_retry_delay, max_total_wait=max_total_wait, sleep=sleep, on_retry=on_retry,
            user_agent=user_agent or f"trainprint-python/{__version__}")
        self.monitors = Monitors(self)
        self.datasets = Datasets(self)
        self.kb = KnowledgeBase(self)
        self.keys = Keys(self)
        self.oauth = OAuth(self)
        self.marketplace = Marketplace(self)
        self.memorization = Memorization(self)

    @classmethod
    def from_env(cls, **options: Any) -> "Client":
        """A client for ``TRAINPRINT_BASE_URL`` (default ``http://127.0.0.1:8787``) with ``TRAINPRINT_API_KEY``."""
        options.setdefault("api_key", os.environ.get("TRAINPRINT_API_KEY") or None)
        options.setdefault("base_url", os.environ.get("TRAINPRINT_BASE_URL") or DEFAULT_BASE_URL)
        return cls(**options)

    # ------------------------------------------------------------ settings

    @property
    def base_url(self) -> str:
        """The normalised base URL (no trailing slash)."""
        return self._t.base_url

    @property
    def api_key(self) -> Optional[str]:
        return self._t.api_key

    @property
    def max_retries(self) -> int:
        return self._t.max_retries

    @property
    def timeout(self) -> float:
        return self._t.timeout

    @property
    def max_retry_delay(self) -> float:
        return self._t.max_retry_delay

    @property
    def max_total_wait(self) -> float:
        return self._t.max_total_wait

    @property
    def rate_limit(self) -> Optional[RateLimit]:
        """``RateLimit-*`` of the last response that carried them (None before the first authenticated call)."""
        return self._t.rate_limit

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, api_key={'***' if self.api_key else None})"

    # ------------------------------------------------------------ attribution

    def analyze(self, body: AnalyzeRequest, idempotency_key: Optional[str] = None) -> AnalysisResult:
        """``POST /api/v1/attribution/analyze``: corpus evidence, confidence, sources, risk, revenue."""
        return cast(AnalysisResult, self.request("POST", "/api/v1/attribution/analyze", body=body, idempotency_key=idempotency_key))

    def analyze_file(self, file: bytes, filename: str, fields: Optional[Mapping[str, Any]] = None,
                     idempotency_key: Optional[str] = None) -> AnalysisResult:
        """``POST /api/v1/attribution/analyze`` with a file as a ``multipart/form-data`` upload: its bytes in the
        field ``file`` under ``filename`` (whose extension, ``.epub``, ``.pdf``, ``.docx``, ``.txt``, ``.md`` or
        ``.html``, tells the content type unless ``fields`` gives ``content_type``), and ``fields`` (the analyze
        request's other members: ``metadata``, ``include_text``, ``search_remote``) as form fields. The answer is
        the one the same file in base64 gets, without the third base64 adds; the file may be as large as the key's
        plan allows (Free 8 MiB, Pro 32 MiB, Scale and Enterprise 64 MiB)."""
        body, content_type = _multipart(file, filename, fields or {})
        return cast(AnalysisResult, self.request("POST", "/api/v1/attribution/analyze", body=body,
                                                 headers={"Content-Type": content_type},
                                                 idempotency_key=idempotency_key))

    def get_analysis(self, analysis_id: str) -> AnalysisResult:
        """``GET /api/v1/attribution/analyses/{analysis_id}``: a stored analysis of the account."""
        return cast(AnalysisResult, self.request("GET", f"/api/v1/attribution/analyses/{_seg(analysis_id)}"))

    def compare(self, a: str, b: str) -> Comparison:
        """``POST /api/v1/attribution/compare``: aligned passages (retried like a GET: it changes nothing)."""
        return cast(Comparison, self.request("POST", "/api/v1/attribution/compare", body={"a": a, "b": b}, idempotent=True))

    def score(self, body: ScoreRequest) -> ScoreResult:
        """``POST /api/v1/attribution/score``: how likely ``target_model`` trained on a registered work of the account."""
        return cast(ScoreResult, self.request("POST", "/api/v1/attribution/score", body=body, idempotent=True))

    def fingerprint(self, body: FingerprintRequest) -> FingerprintResult:
        """``POST /api/v1/attribution/fingerprint``: content id, work_hash and sketches."""
        return cast(FingerprintResult, self.request("POST", "/api/v1/attribution/fingerprint", body=body, idempotent=True))

    # ------------------------------------------------------------ catalogue jobs

    def create_job(self, type: str, items: Sequence[Any], options: Optional[Mapping[str, Any]] = None,
                   idempotency_key: Optional[str] = None) -> Json:
        """``POST /api/v1/jobs``: a catalogue job of many ``analyze``, ``score`` or ``scan`` items (a scan item is
        ``{"id", "text"}``; ``options`` only for a scan: ``datasets``, ``min_words``, ``paraphrase``), run in the
        server's background and kept in its store. Returns the job (``job_id``, ``state``, ``total``, ...). The items
        are charged to the plan at once (``RateLimitedError`` when they would pass the day's limit); a job holds at
        most the plan's ``jobItems`` (413)."""
        body: Dict[str, Any] = {"type": type, "items": list(items)}
        if options is not None:
            body["options"] = dict(options)
        return cast(Json, self.request("POST", "/api/v1/jobs", body=body, idempotency_key=idempotency_key))

    def list_jobs(self, after: Optional[str] = None, limit: Optional[int] = None,
                  owner: Optional[str] = None) -> Json:
        """``GET /api/v1/jobs``: one page of the account's jobs, newest first (``{"jobs": [...], "next"}``; pass
        ``next`` as ``after`` for the next page, ``None`` on the last). ``owner="operator"``: the scan queue's jobs
        (an admin key). Not charged."""
        return cast(Json, self.request("GET", "/api/v1/jobs", query={"after": after, "limit": limit, "owner": owner}))

    def get_job(self, job_id: str) -> Json:
        """``GET /api/v1/jobs/{job_id}``: the job's state, ``done``, ``total``, ``failed``, ``eta_seconds``."""
        return cast(Json, self.request("GET", f"/api/v1/jobs/{_seg(job_id)}"))

    def job_results(self, job_id: str, limit: int = 100, after: Optional[int] = None,
                    poll_seconds: float = 1.0) -> Iterator[Json]:
        """``GET /api/v1/jobs/{job_id}/results``: every result line of the job in item order
        (``{"index", "success", "result" | "error"}``), page by page; while the job runs it waits ``poll_seconds``
        between pages, and it ends once the job has finished and every line has been read."""
        while True:
            job = self.get_job(job_id)
            finished = job.get("state") in ("done", "failed", "cancelled")
            text = self.request("GET", f"/api/v1/jobs/{_seg(job_id)}/results", query={"limit": limit, "after": after},
                                headers={"Accept": "application/x-ndjson"}, response_type="text")
            lines = [line for line in str(text).split("\n") if line.strip()]
            for line in lines:
                row = cast(Json, json.loads(line))
                after = int(row["index"])
                yield row
            if len(lines) == limit:
                continue
            if finished:
                return
            time.sleep(poll_seconds)

    def audit_works(self, job_id: str, item: int = 0, after: Optional[int] = None,
                    limit: Optional[int] = None) -> Json:
        """``GET /api/v1/jobs/{job_id}/results/{item}/works``: a page of an audit item's works (``limit`` 1-1000,
        default 100, after the first ``after``), ``{"works", "next", "total", "audit_sha256"}``. An audit's result line
        holds its first 500 works and ``works_next``, the ``after`` of the rest (None when it holds them all)."""
        return cast(Json, self.request("GET", f"/api/v1/jobs/{_seg(job_id)}/results/{int(item)}/works",
                                       query={"after": after, "limit": limit}))

    def cancel_job(self, job_id: str) -> Json:
        """``DELETE /api/v1/jobs/{job_id}``: cancels a queued or running job (``deleted`` false); a finished job is
        deleted with its results (``deleted`` true). Not retried after a network error or 5xx (a 429 is): the lost
        answer may have cancelled the job, which may have finished since, and a repeat would delete it. Read
        :meth:`get_job` and call again if it still runs."""
        return cast(Json, self.request("DELETE", f"/api/v1/jobs/{_seg(job_id)}", idempotent=False))

    # ------------------------------------------------------------ works registry

    def register_work(self, body: RegisterWorkRequest, idempotency_key: Optional[str] = None) -> RegisterWorkResult:
        """``POST /api/v1/content/register``: ``content`` or ``fingerprint``, plus title, author, ..."""
        return cast(RegisterWorkResult, self.request("POST", "/api/v1/content/register", body=body, idempotency_key=idempotency_key))

    def get_work(self, work_id: str) -> Work:
        return cast(Work, self.request("GET", f"/api/v1/content/{_seg(work_id)}"))

    def list_works(self, after: Optional[str] = None, limit: Optional[int] = None) -> WorkList:
        """One page of the account's works; pass ``next`` as ``after`` for the next."""
        return cast(WorkList, self.request("GET", "/api/v1/content", query={"after": after, "limit": limit}))

    def delete_work(self, work_id: str) -> Deleted:
        return cast(Deleted, self.request("DELETE", f"/api/v1/content/{_seg(work_id)}"))

    def verify_receipt(self, receipt: Union[Receipt, Mapping[str, Any]]) -> Valid:
        return cast(Valid, self.request("POST", "/api/v1/content/verify-receipt", body={"receipt": dict(receipt)}, idempotent=True))

    # ------------------------------------------------------------ account and service

    def usage(self) -> Usage:
        """``GET /api/v1/usage``: calls used and left today (this call included)."""
        return cast(Usage, self.request("GET", "/api/v1/usage"))

    def status(self) -> StatusReport:
        """``GET /api/v1/status`` (public)."""
        return cast(StatusReport, self.request("GET", "/api/v1/status"))

    def openapi(self) -> Json:
        """``GET /api/v1/openapi.json`` (public): the OpenAPI 3.1 document (no envelope)."""
        return cast(Json, self.request("GET", "/api/v1/openapi.json"))

    # ------------------------------------------------------------ any route

    def request(self, method: str, path: str, body: Any = None, query: Optional[Query] = None,
                idempotency_key: Optional[str] = None, idempotent: Optional[bool] = None,
                form: Optional[Mapping[str, str]] = None,
                headers: Optional[Mapping[str, str]] = None, response_type: str = "json", auth: bool = True) -> Any:
        """Any route (e.g. one newer than this client): ``path`` is relative to ``base_url``
        (``/api/v1/...``); ``body`` is sent as JSON, or as ``application/octet-stream`` when it is
        ``bytes``; ``form`` as a form. ``query`` members that are None are left out. Returns the
        parsed body (``bytes`` with ``response_type="bytes"``, ``str`` with ``"text"``).
        ``idempotent=True`` lets network errors and 5xx of a POST be retried; ``idempotent=False`` stops their
        retry although the method is DELETE or PUT (None: by the method and ``idempotency_key``)."""
        return self._t.request(method, path, body=body, query=query, idempotency_key=idempotency_key, idempotent=idempotent,
                       form=form, headers=headers, response_type=response_type, auth=auth)


class _Group:
    def __init__(self, client: Client) -> None:
        self._c = client

    def _j(self, method: str, path: str, **options: Any) -> Json:
        return cast(Json, self._c.request(method, path, **options))


class Monitors(_Group):
    """``/api/v1/monitors``: watch works of the account for new evidence."""

    def create(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", "/api/v1/monitors/create", body=body, idempotency_key=idempotency_key)

    def list(self, work_id: Optional[str] = None) -> Json:
        return self._j("GET", "/api/v1/monitors", query={"work_id": work_id})

    def get(self, monitor_id: str) -> Json:
        return self._j("GET", f"/api/v1/monitors/{_seg(monitor_id)}")

    def delete(self, monitor_id: str) -> Deleted:
        return cast(Deleted, self._c.request("DELETE", f"/api/v1/monitors/{_seg(monitor_id)}"))

    def pause(self, monitor_id: str) -> Json:
        return self._j("POST", f"/api/v1/monitors/{_seg(monitor_id)}/pause", idempotent=True)

    def resume(self, monitor_id: str) -> Json:
        return self._j("POST", f"/api/v1/monitors/{_seg(monitor_id)}/resume", idempotent=True)

    def events(self, monitor_id: str, limit: Optional[int] = None) -> Json:
        return self._j("GET", f"/api/v1/monitors/{_seg(monitor_id)}/events", query={"limit": limit})


class Datasets(_Group):
    """``/api/v1/datasets``: reference datasets, shared by every account."""

    def list(self) -> Json:
        return self._j("GET", "/api/v1/datasets")

    def get(self, dataset_id: str) -> Json:
        return self._j("GET", f"/api/v1/datasets/{_seg(dataset_id)}")

    def create(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", "/api/v1/datasets", body=body, idempotency_key=idempotency_key)

    def add_documents(self, dataset_id: str, documents: Iterable[Mapping[str, Any]], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"/api/v1/datasets/{_seg(dataset_id)}/documents",
                       body={"documents": [dict(d) for d in documents]}, idempotency_key=idempotency_key)

    def export(self, dataset_id: str) -> bytes:
        """The dataset file (``import_`` loads it)."""
        return cast(bytes, self._c.request("GET", f"/api/v1/datasets/{_seg(dataset_id)}/export", response_type="bytes"))

    def import_(self, data: bytes, idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", "/api/v1/datasets/import", body=bytes(data), idempotency_key=idempotency_key)

    def delete(self, dataset_id: str) -> Deleted:
        return cast(Deleted, self._c.request("DELETE", f"/api/v1/datasets/{_seg(dataset_id)}"))


class KnowledgeBase(_Group):
    """``/api/v1/kb``: models, providers, datasets, jurisdictions and factors (read only)."""

    def models(self, provider: Optional[str] = None, modality: Optional[str] = None, disclosure: Optional[str] = None,
               dataset: Optional[str] = None) -> Json:
        return self._j("GET", "/api/v1/kb/models",
                       query={"provider": provider, "modality": modality, "disclosure": disclosure, "dataset": dataset})

    def model(self, model_id: str) -> Json:
        """``model_id`` is ``provider/model_name`` (case-insensitive)."""
        provider, sep, model = model_id.partition("/")
        if not sep or not provider or not model:
            raise ValueError(f"a model id is 'provider/model_name', not {model_id!r}")
        return self._j("GET", f"/api/v1/kb/models/{_seg(provider)}/{_seg(model)}")

    def providers(self) -> Json:
        return self._j("GET", "/api/v1/kb/providers")

    def datasets(self) -> Json:
        return self._j("GET", "/api/v1/kb/datasets")

    def dataset(self, kb_dataset_id: str) -> Json:
        return self._j("GET", f"/api/v1/kb/datasets/{_seg(kb_dataset_id)}")

    def jurisdictions(self) -> Json:
        return self._j("GET", "/api/v1/kb/jurisdictions")

    def factors(self) -> Json:
        return self._j("GET", "/api/v1/kb/factors")


class Keys(_Group):
    """``/api/v1/keys``: the account's API keys."""

    def create(self, name: Optional[str] = None, scopes: Optional[Sequence[str]] = None, mode: Optional[str] = None) -> Json:
        """The key is in the result once (``key``), never again."""
        return self._j("POST", "/api/v1/keys",
                       body=_drop_none({"name": name, "scopes": None if scopes is None else list(scopes), "mode": mode}))

    def list(self) -> Json:
        return self._j("GET", "/api/v1/keys")

    def revoke(self, key_id: str) -> Json:
        return self._j("DELETE", f"/api/v1/keys/{_seg(key_id)}")


class OAuth(_Group):
    """OAuth 2.0 client credentials: clients of the account, and tokens for them."""

    def token(self, client_id: str, client_secret: str, scope: Union[None, str, Sequence[str]] = None) -> Json:
        """``POST /api/v1/oauth/token``: use ``access_token`` as the ``api_key`` of another client.
        Errors carry the RFC 6749 code (``invalid_client``, ...) as ``code``."""
        form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
        if scope is not None:
            form["scope"] = scope if isinstance(scope, str) else " ".join(scope)
        return self._j("POST", "/api/v1/oauth/token", form=form, auth=False)

    def create_client(self, name: Optional[str] = None, scopes: Optional[Sequence[str]] = None) -> Json:
        """The secret is in the result once (``client_secret``)."""
        return self._j("POST", "/api/v1/oauth/clients",
                       body=_drop_none({"name": name, "scopes": None if scopes is None else list(scopes)}))

    def list_clients(self) -> Json:
        return self._j("GET", "/api/v1/oauth/clients")

    def revoke_client(self, client_id: str) -> Json:
        return self._j("DELETE", f"/api/v1/oauth/clients/{_seg(client_id)}")


class Marketplace(_Group):
    """``/api/v1/marketplace``: listings of the account's works, offers, signed licences, the audit trail."""

    def create_listing(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MARKET}/listings", body=body, idempotency_key=idempotency_key)

    def list_listings(self, **query: Any) -> Json:
        return self._j("GET", f"{_MARKET}/listings", query=query)

    def get_listing(self, listing_id: str) -> Json:
        return self._j("GET", f"{_MARKET}/listings/{_seg(listing_id)}")

    def update_listing(self, listing_id: str, patch: Mapping[str, Any]) -> Json:
        return self._j("PATCH", f"{_MARKET}/listings/{_seg(listing_id)}", body=patch)

    def publish_listing(self, listing_id: str) -> Json:
        return self._j("POST", f"{_MARKET}/listings/{_seg(listing_id)}/publish")

    def withdraw_listing(self, listing_id: str) -> Json:
        return self._j("POST", f"{_MARKET}/listings/{_seg(listing_id)}/withdraw")

    def make_offer(self, listing_id: str, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MARKET}/listings/{_seg(listing_id)}/offers", body=body,
                       idempotency_key=idempotency_key)

    def list_offers(self, **query: Any) -> Json:
        return self._j("GET", f"{_MARKET}/offers", query=query)

    def get_offer(self, offer_id: str) -> Json:
        return self._j("GET", f"{_MARKET}/offers/{_seg(offer_id)}")

    def accept_offer(self, offer_id: str, idempotency_key: Optional[str] = None) -> Json:
        """The signed licence."""
        return self._j("POST", f"{_MARKET}/offers/{_seg(offer_id)}/accept", idempotency_key=idempotency_key)

    def decline_offer(self, offer_id: str) -> Json:
        return self._j("POST", f"{_MARKET}/offers/{_seg(offer_id)}/decline")

    def counter_offer(self, offer_id: str, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MARKET}/offers/{_seg(offer_id)}/counter", body=body,
                       idempotency_key=idempotency_key)

    def withdraw_offer(self, offer_id: str) -> Json:
        return self._j("POST", f"{_MARKET}/offers/{_seg(offer_id)}/withdraw")

    def list_licences(self, **query: Any) -> Json:
        return self._j("GET", f"{_MARKET}/licences", query=query)

    def get_licence(self, licence_id: str) -> Json:
        return self._j("GET", f"{_MARKET}/licences/{_seg(licence_id)}")

    def verify_licence(self, licence: Mapping[str, Any]) -> Valid:
        return cast(Valid, self._c.request("POST", f"{_MARKET}/licences/verify", body={"licence": dict(licence)}, idempotent=True))

    def audit(self, entity_id: str, after: Optional[str] = None, limit: Optional[int] = None) -> Json:
        return self._j("GET", f"{_MARKET}/audit", query={"entity_id": entity_id, "after": after, "limit": limit})


class Memorization(_Group):
    """``/api/v1/memorization``: memorization of the account's works by a model the server calls."""

    def track_work(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MEM}/register-work", body=body, idempotency_key=idempotency_key)

    def create_reference_set(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MEM}/reference-sets", body=body, idempotency_key=idempotency_key)

    def list_reference_sets(self) -> Json:
        return self._j("GET", f"{_MEM}/reference-sets")

    def extract(self, body: Mapping[str, Any]) -> Json:
        return self._j("POST", f"{_MEM}/extract", body=body)

    def probe(self, body: Mapping[str, Any]) -> Json:
        return self._j("POST", f"{_MEM}/probe", body=body)

    def compare_output(self, body: Mapping[str, Any]) -> Json:
        return self._j("POST", f"{_MEM}/compare", body=body, idempotent=True)

    def assess(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Json:
        return self._j("POST", f"{_MEM}/assess", body=body, idempotency_key=idempotency_key)

    def report(self, assessment_id: str, max_spans: Optional[int] = None) -> str:
        """The assessment as a self-contained HTML page."""
        return cast(str, self._c.request("POST", f"{_MEM}/report", body=_drop_none({"assessment_id": assessment_id, "max_spans": max_spans}),
                            idempotent=True, response_type="text", headers={"Accept": "text/html"}))
