"""Python client of the trainprint HTTP API (``/api/v1``), standard library only.

    from trainprint_client import Client, NotFoundError, TrainprintApiError

    tp = Client(api_key="tp_test_...", base_url="http://127.0.0.1:8787")
    r = tp.analyze({"content": text, "content_type": "text"})
    for m in r["matches"]:
        print(m["dataset_id"], m["document_id"], m["query_start"], m["query_end"])

Methods mirror the TypeScript client (``trainprint/client``) in snake_case and return the
success bodies as dicts (``{"success": True, ...result}``, typed as ``TypedDict`` in
:mod:`trainprint_client.types`). Failures raise :class:`TrainprintApiError`, as the subclass of
its family (:class:`InvalidInputError`, :class:`UnauthorizedError`, :class:`NotFoundError`,
:class:`RateLimitedError`, ...). Retry rules are the TypeScript client's: 429 is retried for
every method, waiting ``Retry-After`` when it is at most ``max_retry_delay`` seconds; network
errors, timeouts and 5xx only for idempotent calls, with exponential backoff and full jitter;
at most ``max_retries`` retries and ``max_total_wait`` seconds of waiting per call.

Spans (``query_start``, ``a_start``, ...) are UTF-16 code-unit offsets, as everywhere in the
API; :func:`utf16_slice` cuts a Python string by them.
"""

from ._client import DEFAULT_BASE_URL, Client, __version__, utf16_slice
from ._transport import parse_retry_after
from .errors import (
    ConflictError, ErrorCode, ForbiddenError, InvalidInputError, NetworkError, NotFoundError, RateLimitedError,
    RequestTimeoutError, ServerError, TrainprintApiError, UnauthorizedError, UpstreamError, error_class,
)

__all__ = [
    "Client", "DEFAULT_BASE_URL", "utf16_slice", "parse_retry_after", "__version__",
    "TrainprintApiError", "ErrorCode", "error_class", "InvalidInputError", "UnauthorizedError", "ForbiddenError",
    "NotFoundError", "ConflictError", "RateLimitedError", "UpstreamError", "ServerError", "NetworkError",
    "RequestTimeoutError",
]

#: kept for code written against the single-file client
NETWORK_ERROR = ErrorCode.NETWORK_ERROR
TIMEOUT = ErrorCode.TIMEOUT
HTTP_ERROR = ErrorCode.HTTP_ERROR
