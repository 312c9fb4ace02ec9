"""Typed errors of the client: one base class, :class:`TrainprintApiError`, and a subclass per
family of API error codes, so callers can catch what they handle::

    try:
        tp.get_work(work_id)
    except NotFoundError:
        ...
    except RateLimitedError as e:
        print("retry in", e.retry_after, "s")
    except TrainprintApiError as e:
        print(e.status, e.code, e.message, e.details, e.request_id)

``code`` is always the API's code (or one of the client's own: ``NETWORK_ERROR``, ``TIMEOUT``,
``HTTP_ERROR``); the class is chosen from it, or from the HTTP status for codes this client does
not know yet (an OAuth token error such as ``invalid_client`` with 401 is an
:class:`UnauthorizedError` whose ``code`` is ``invalid_client``).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "ErrorCode", "TrainprintApiError", "InvalidInputError", "UnauthorizedError", "ForbiddenError",
    "NotFoundError", "ConflictError", "RateLimitedError", "UpstreamError", "ServerError",
    "NetworkError", "RequestTimeoutError", "error_class", "make_error",
]


class ErrorCode:
    """The API's error codes (docs/errors.md) and the client's own (status 0 or a non-API body)."""

    INVALID_INPUT = "INVALID_INPUT"
    INVALID_OPTIONS = "INVALID_OPTIONS"
    PARAMS_MISMATCH = "PARAMS_MISMATCH"
    SNAPSHOT_INCOMPATIBLE = "SNAPSHOT_INCOMPATIBLE"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    WASM_UNSUPPORTED = "WASM_UNSUPPORTED"
    WASM_ABORT = "WASM_ABORT"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    ENGINE_DISPOSED = "ENGINE_DISPOSED"
    STORE_LOCKED = "STORE_LOCKED"
    STORE_CLOSED = "STORE_CLOSED"
    STORE_CORRUPT = "STORE_CORRUPT"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    CONFLICT = "CONFLICT"
    FORBIDDEN = "FORBIDDEN"
    UNAUTHORIZED = "UNAUTHORIZED"
    RATE_LIMITED = "RATE_LIMITED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    UPSTREAM_TIMEOUT = "UPSTREAM_TIMEOUT"
    UPSTREAM_UNREACHABLE = "UPSTREAM_UNREACHABLE"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    MALFORMED_JSON = "MALFORMED_JSON"
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    INTERNAL = "INTERNAL"
    NOT_SUPPORTED = "NOT_SUPPORTED"
    # the client's own
    NETWORK_ERROR = "NETWORK_ERROR"
    TIMEOUT = "TIMEOUT"
    HTTP_ERROR = "HTTP_ERROR"


class TrainprintApiError(Exception):
    """A failed call: the API's error envelope, an OAuth error body, or no usable response.

    :ivar status: HTTP status; 0 when there was no response (network error, timeout).
    :ivar code: the API's code (``RATE_LIMITED``, ``NOT_FOUND``, ...) or ``NETWORK_ERROR`` /
        ``TIMEOUT`` / ``HTTP_ERROR`` (an error status whose body is not an error envelope).
    :ivar message: the envelope's message.
    :ivar details: the envelope's ``details`` (``{"location", "field", "reason"}`` for 422), or None.
    :ivar request_id: the ``X-Request-Id`` of the response: quote it to the operator.
    :ivar retry_after: seconds the server asked to wait (``Retry-After``), or None.
    """

    def __init__(self, status: int, code: str, message: str, details: Optional[Dict[str, Any]] = None,
                 request_id: Optional[str] = None, retry_after: Optional[int] = None) -> None:
        super().__init__(f"{code} ({status}): {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after

    def __reduce__(self) -> Any:  # picklable (multiprocessing, logging handlers)
        return (type(self), (self.status, self.code, self.message, self.details, self.request_id, self.retry_after))


class InvalidInputError(TrainprintApiError):
    """The request is malformed or not valid (400, 413, 415, 422): ``details`` names the field."""


class UnauthorizedError(TrainprintApiError):
    """401: no API key, a bad or revoked one, or (token endpoint) bad client credentials."""


class ForbiddenError(TrainprintApiError):
    """403: the key lacks the scope, or the item belongs to another account."""


class NotFoundError(TrainprintApiError):
    """404: an unknown id (work, analysis, dataset, ...) or route."""


class ConflictError(TrainprintApiError):
    """409: ``CONFLICT`` (a state transition, an idempotency-key reuse) or ``ALREADY_EXISTS``."""


class RateLimitedError(TrainprintApiError):
    """429: the plan's limit is reached; ``retry_after`` says when the window resets."""


class UpstreamError(TrainprintApiError):
    """502/504: a model service the server called failed or did not answer in time."""


class ServerError(TrainprintApiError):
    """5xx: the service failed (``INTERNAL``, a store error, ...); ``request_id`` identifies it."""


class NetworkError(TrainprintApiError):
    """No response: connection refused or reset, DNS failure (``NETWORK_ERROR``, status 0)."""


class RequestTimeoutError(NetworkError):
    """No response within the client's ``timeout`` (``TIMEOUT``, status 0)."""


_BY_CODE: Mapping[str, Type[TrainprintApiError]] = {
    ErrorCode.INVALID_INPUT: InvalidInputError,
    ErrorCode.INVALID_OPTIONS: InvalidInputError,
    ErrorCode.PARAMS_MISMATCH: InvalidInputError,
    ErrorCode.SNAPSHOT_INCOMPATIBLE: InvalidInputError,
    ErrorCode.PAYLOAD_TOO_LARGE: InvalidInputError,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: InvalidInputError,
    ErrorCode.MALFORMED_JSON: InvalidInputError,
    ErrorCode.MALFORMED_REQUEST: InvalidInputError,
    ErrorCode.UNAUTHORIZED: UnauthorizedError,
    ErrorCode.FORBIDDEN: ForbiddenError,
    ErrorCode.NOT_FOUND: NotFoundError,
    ErrorCode.CONFLICT: ConflictError,
    ErrorCode.ALREADY_EXISTS: ConflictError,
    ErrorCode.RATE_LIMITED: RateLimitedError,
    ErrorCode.UPSTREAM_ERROR: UpstreamError,
    ErrorCode.UPSTREAM_TIMEOUT: UpstreamError,
    ErrorCode.UPSTREAM_UNREACHABLE: UpstreamError,
    ErrorCode.NETWORK_ERROR: NetworkError,
    ErrorCode.TIMEOUT: RequestTimeoutError,
}

_BY_STATUS: Mapping[int, Type[TrainprintApiError]] = {
    400: InvalidInputError, 401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError,
    409: ConflictError, 413: InvalidInputError, 415: InvalidInputError, 422: InvalidInputError,
    429: RateLimitedError, 502: UpstreamError, 504: UpstreamError,
}


def error_class(code: str, status: int) -> Type[TrainprintApiError]:
    """The class of an error: by its code, else by its HTTP status (codes newer than this client)."""
    cls = _BY_CODE.get(code)
    if cls is not None:
        return cls
    if code == ErrorCode.METHOD_NOT_ALLOWED:
        return TrainprintApiError
    cls = _BY_STATUS.get(status)
    if cls is not None:
        return cls
    return ServerError if status >= 500 else TrainprintApiError


def make_error(status: int, code: str, message: str, details: Optional[Dict[str, Any]] = None,
               request_id: Optional[str] = None, retry_after: Optional[int] = None) -> TrainprintApiError:
    """An instance of the right subclass (see :func:`error_class`)."""
    return error_class(code, status)(status, code, message, details, request_id, retry_after)
