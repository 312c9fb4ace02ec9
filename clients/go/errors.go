package trainprint

import (
	"fmt"
	"time"
)

// Error codes of the API (docs/errors.md) and the client's own.
const (
	CodeInvalidInput         = "INVALID_INPUT"
	CodeInvalidOptions       = "INVALID_OPTIONS"
	CodeParamsMismatch       = "PARAMS_MISMATCH"
	CodeSnapshotIncompatible = "SNAPSHOT_INCOMPATIBLE"
	CodeNotFound             = "NOT_FOUND"
	CodeAlreadyExists        = "ALREADY_EXISTS"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	CodeWasmUnsupported      = "WASM_UNSUPPORTED"
	CodeWasmAbort            = "WASM_ABORT"
	CodeOutOfMemory          = "OUT_OF_MEMORY"
	CodeEngineDisposed       = "ENGINE_DISPOSED"
	CodeStoreLocked          = "STORE_LOCKED"
	CodeStoreClosed          = "STORE_CLOSED"
	CodeStoreCorrupt         = "STORE_CORRUPT"
	CodeStoreUnavailable     = "STORE_UNAVAILABLE"
	CodeServiceUnavailable   = "SERVICE_UNAVAILABLE"
	CodeNotSupported         = "NOT_SUPPORTED"
	CodeConflict             = "CONFLICT"
	CodeForbidden            = "FORBIDDEN"
	CodeUnauthorized         = "UNAUTHORIZED"
	CodeRateLimited          = "RATE_LIMITED"
	CodeUpstreamError        = "UPSTREAM_ERROR"
	CodeUpstreamTimeout      = "UPSTREAM_TIMEOUT"
	CodeUpstreamUnreachable  = "UPSTREAM_UNREACHABLE"
	CodeRequestTimeout       = "REQUEST_TIMEOUT"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeMalformedJSON        = "MALFORMED_JSON"
	CodeMalformedRequest     = "MALFORMED_REQUEST"
	CodeInternal             = "INTERNAL"

	// CodeNetworkError: no response (connection refused or reset, DNS); Status 0.
	CodeNetworkError = "NETWORK_ERROR"
	// CodeTimeout: no response within the client's per-attempt timeout or the context's deadline; Status 0.
	CodeTimeout = "TIMEOUT"
	// CodeAborted: the context was canceled; Status 0.
	CodeAborted = "ABORTED"
	// CodeHTTPError: an error status whose body is not an error envelope (a proxy's page), or a
	// success body that is not JSON.
	CodeHTTPError = "HTTP_ERROR"
)

// APIError is every failure of a call: the API's error envelope
// ({"success": false, "error": {"code", "message", "details"}}), an OAuth error body, a body
// the client cannot read, a network failure, a timeout or a canceled context. Use errors.As to
// get it, errors.Is with the Err* values to test its family:
//
//	var e *trainprint.APIError
//	if errors.As(err, &e) && e.Code == trainprint.CodeInvalidInput {
//		fmt.Println(e.Details["field"])
//	}
type APIError struct {
	// Status is the HTTP status; 0 when there was no response.
	Status int
	// Code is the API's code (RATE_LIMITED, NOT_FOUND, …; an OAuth error such as
	// invalid_client) or one of the client's: NETWORK_ERROR, TIMEOUT, ABORTED, HTTP_ERROR.
	Code string
	// Message is the envelope's message.
	Message string
	// Details is the envelope's details ({location, field, reason} for 422), or nil.
	Details map[string]interface{}
	// RequestID is the X-Request-Id of the response: quote it to the operator.
	RequestID string
	// RetryAfter is the wait the server asked for (Retry-After), or nil.
	RetryAfter *time.Duration
	// Err is the cause of a failure without a response (network error, context error).
	Err error
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("trainprint: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("trainprint: %s (%d): %s", e.Code, e.Status, e.Message)
}

// Unwrap returns the cause (e.g. context.DeadlineExceeded), so errors.Is works with it.
func (e *APIError) Unwrap() error { return e.Err }

// Is reports whether the error belongs to the family of a sentinel (ErrNotFound, …).
func (e *APIError) Is(target error) bool {
	if _, ok := target.(*kindError); !ok {
		return false
	}
	k := e.kind()
	return k != nil && (k == target || (target == ErrNetwork && k == ErrTimeout))
}

// kind is the family (one of the Err* values), or nil.
func (e *APIError) kind() error {
	if k, ok := kindByCode[e.Code]; ok {
		return k
	}
	if e.Code == CodeMethodNotAllowed {
		return nil
	}
	if k, ok := kindByStatus[e.Status]; ok {
		return k
	}
	if e.Status >= 500 {
		return ErrServer
	}
	return nil
}

type kindError struct{ name string }

func (k *kindError) Error() string { return "trainprint: " + k.name }

// Families of errors, for errors.Is. An *APIError is in the family of its Code, or, for a code
// this client does not know, of its Status.
var (
	// ErrInvalidInput: the request is malformed or not valid (400, 413, 415, 422).
	ErrInvalidInput error = &kindError{"invalid input"}
	// ErrUnauthorized: no API key, a bad or revoked one, bad client credentials (401).
	ErrUnauthorized error = &kindError{"unauthorized"}
	// ErrForbidden: the key lacks the scope, or the item belongs to another account (403).
	ErrForbidden error = &kindError{"forbidden"}
	// ErrNotFound: an unknown id or route (404).
	ErrNotFound error = &kindError{"not found"}
	// ErrConflict: CONFLICT or ALREADY_EXISTS (409).
	ErrConflict error = &kindError{"conflict"}
	// ErrRateLimited: the plan's limit is reached (429); see APIError.RetryAfter.
	ErrRateLimited error = &kindError{"rate limited"}
	// ErrUpstream: a model service the server called failed or timed out (502, 504).
	ErrUpstream error = &kindError{"upstream error"}
	// ErrServer: the service failed (5xx).
	ErrServer error = &kindError{"server error"}
	// ErrNetwork: no response (NETWORK_ERROR, and TIMEOUT too).
	ErrNetwork error = &kindError{"network error"}
	// ErrTimeout: no response in time (TIMEOUT).
	ErrTimeout error = &kindError{"timeout"}
)

var kindByCode = map[string]error{
	CodeInvalidInput: ErrInvalidInput, CodeInvalidOptions: ErrInvalidInput, CodeParamsMismatch: ErrInvalidInput,
	CodeSnapshotIncompatible: ErrInvalidInput, CodePayloadTooLarge: ErrInvalidInput, CodeUnsupportedMediaType: ErrInvalidInput,
	CodeMalformedJSON: ErrInvalidInput, CodeMalformedRequest: ErrInvalidInput,
	CodeUnauthorized: ErrUnauthorized, CodeForbidden: ErrForbidden, CodeNotFound: ErrNotFound,
	CodeConflict: ErrConflict, CodeAlreadyExists: ErrConflict, CodeRateLimited: ErrRateLimited,
	CodeUpstreamError: ErrUpstream, CodeUpstreamTimeout: ErrUpstream, CodeUpstreamUnreachable: ErrUpstream,
	CodeNetworkError: ErrNetwork, CodeTimeout: ErrTimeout,
}

var kindByStatus = map[int]error{
	400: ErrInvalidInput, 401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 409: ErrConflict,
	413: ErrInvalidInput, 415: ErrInvalidInput, 422: ErrInvalidInput, 429: ErrRateLimited, 502: ErrUpstream, 504: ErrUpstream,
}
