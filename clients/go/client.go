package trainprint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version of this client (sent in the User-Agent).
const Version = "0.1.0"

// DefaultBaseURL is where `trainprint serve` listens by default.
const DefaultBaseURL = "http://127.0.0.1:8787"

const (
	backoffBase = 500 * time.Millisecond
	backoffCap  = 8 * time.Second
)

// RetryInfo describes a retry about to happen (see WithRetryHook).
type RetryInfo struct {
	// Retry is the number of the retry, from 1.
	Retry int
	// Wait is how long the client waits before it.
	Wait time.Duration
	// Err is the failure that is retried.
	Err *APIError
}

// Client calls one trainprint API with one credential. It is safe for concurrent use.
type Client struct {
	baseURL       string
	apiKey        string
	http          *http.Client
	maxRetries    int
	timeout       time.Duration
	maxRetryDelay time.Duration
	maxTotalWait  time.Duration
	userAgent     string
	onRetry       func(RetryInfo)
	sleep         func(ctx context.Context, d time.Duration) error

	mu        sync.Mutex
	rateLimit *RateLimit
	rng       *rand.Rand
}

// Option configures a Client.
type Option func(*Client) error

// WithAPIKey replaces the API key (tp_live_…, tp_test_…) or OAuth access token, sent as
// Authorization: Bearer …. Public routes (Status) need none. NewClient takes the key first.
func WithAPIKey(key string) Option {
	return func(c *Client) error { c.apiKey = key; return nil }
}

// WithHTTPClient sets the http.Client (a proxy, custom TLS). Its redirect policy is kept; the
// default client does not follow redirects, so the Authorization header never travels to
// another host.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("trainprint: WithHTTPClient(nil)")
		}
		c.http = hc
		return nil
	}
}

// WithMaxRetries sets the retries after the first attempt (default 3; 0 turns retries off).
func WithMaxRetries(n int) Option {
	return func(c *Client) error {
		if n < 0 {
			return errors.New("trainprint: max retries must be >= 0")
		}
		c.maxRetries = n
		return nil
	}
}

// WithTimeout sets the time limit of each attempt, response body included (default 60 s; 0 for
// none). The context's deadline limits the whole call.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return errors.New("trainprint: timeout must be >= 0")
		}
		c.timeout = d
		return nil
	}
}

// WithMaxRetryDelay sets the longest single wait before a retry (default 60 s): a 429 whose
// Retry-After is longer is returned at once.
func WithMaxRetryDelay(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return errors.New("trainprint: max retry delay must be >= 0")
		}
		c.maxRetryDelay = d
		return nil
	}
}

// WithMaxTotalWait sets the most time spent waiting between the attempts of one call (default 120 s).
func WithMaxTotalWait(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return errors.New("trainprint: max total wait must be >= 0")
		}
		c.maxTotalWait = d
		return nil
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) error { c.userAgent = ua; return nil }
}

// WithRetryHook calls fn before each wait between attempts (logging, metrics).
func WithRetryHook(fn func(RetryInfo)) Option {
	return func(c *Client) error { c.onRetry = fn; return nil }
}

// withSleep replaces the wait between attempts (tests).
func withSleep(fn func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) error { c.sleep = fn; return nil }
}

// NewClient returns a client that authenticates with apiKey (an API key tp_live_…/tp_test_… or an
// OAuth access token; "" for the public routes only), as the service's other clients take it when
// they are created. The API is at DefaultBaseURL unless WithBaseURL says otherwise.
//
//	c, err := trainprint.NewClient(os.Getenv("TRAINPRINT_API_KEY"), trainprint.WithBaseURL("https://trainprint.example.org"))
func NewClient(apiKey string, opts ...Option) (*Client, error) {
	c := &Client{
		http:          &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		apiKey:        apiKey,
		maxRetries:    3,
		timeout:       60 * time.Second,
		maxRetryDelay: 60 * time.Second,
		maxTotalWait:  120 * time.Second,
		userAgent:     "trainprint-go/" + Version,
		sleep:         sleepContext,
		rng:           rand.New(rand.NewSource(time.Now().UnixNano())),
	}
	if err := WithBaseURL(DefaultBaseURL)(c); err != nil {
		return nil, err
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// WithBaseURL sets the API's base URL (without /api/v1; a path prefix is kept:
// https://example.org/trainprint). Default: DefaultBaseURL.
func WithBaseURL(baseURL string) Option {
	return func(c *Client) error {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("trainprint: base URL must be an absolute http(s) URL, not %q", baseURL)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return errors.New("trainprint: base URL must not carry a query or a fragment")
		}
		c.baseURL = u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/")
		return nil
	}
}

// New returns a client of the API at baseURL; the key comes through WithAPIKey.
//
// Deprecated: use NewClient(apiKey, WithBaseURL(baseURL), ...), which takes the key first like the
// service's other clients.
func New(baseURL string, opts ...Option) (*Client, error) {
	return NewClient("", append([]Option{WithBaseURL(baseURL)}, opts...)...)
}

// NewFromEnv returns a client of TRAINPRINT_BASE_URL (default DefaultBaseURL) with the key
// TRAINPRINT_API_KEY; opts apply after them.
func NewFromEnv(opts ...Option) (*Client, error) {
	base := os.Getenv("TRAINPRINT_BASE_URL")
	if base == "" {
		base = DefaultBaseURL
	}
	return NewClient(os.Getenv("TRAINPRINT_API_KEY"), append([]Option{WithBaseURL(base)}, opts...)...)
}

// BaseURL is the normalised base URL (no trailing slash).
func (c *Client) BaseURL() string { return c.baseURL }

// RateLimit returns the RateLimit-* values of the last response that carried them (nil before
// the first authenticated call).
func (c *Client) RateLimit() *RateLimit {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rateLimit == nil {
		return nil
	}
	rl := *c.rateLimit
	return &rl
}

// CallOption adjusts one call.
type CallOption func(*Request)

// WithIdempotencyKey sends Idempotency-Key (creating POSTs honour it for 24 h: a repeat
// returns the first result) and makes the POST safe to retry.
func WithIdempotencyKey(key string) CallOption {
	return func(r *Request) { r.IdempotencyKey = key }
}

// Request is one call of Do.
type Request struct {
	// Method: GET, POST, …
	Method string
	// Path is relative to the base URL and starts with /: /api/v1/….
	Path  string
	Query url.Values
	// Body is JSON-encoded, unless it is []byte (sent as application/octet-stream) or
	// url.Values (a form); nil for none.
	Body interface{}
	// IdempotencyKey is sent as Idempotency-Key and makes the call retryable.
	IdempotencyKey string
	// Idempotent lets network errors and 5xx of a POST be retried (the call changes nothing).
	Idempotent bool
	// NotIdempotent stops the retry of network errors and 5xx although the method is DELETE, PUT, … (a repeat
	// would do something else: a job's DELETE cancels it while it runs and deletes it once finished). A 429 is
	// still retried (the server ran nothing).
	NotIdempotent bool
	// NoAuth leaves the Authorization header out.
	NoAuth bool
	// Header: extra request headers.
	Header http.Header
}

// Do calls any route, e.g. one newer than this client, with the client's retries. The success
// body is decoded as JSON into out (a pointer), or copied when out is a *[]byte; out may be nil.
//
//	var page map[string]interface{}
//	err := c.Do(ctx, trainprint.Request{Method: "GET", Path: "/api/v1/kb/models", Query: url.Values{"provider": {"meta"}}}, &page)
func (c *Client) Do(ctx context.Context, r Request, out interface{}) error {
	if !strings.HasPrefix(r.Path, "/") {
		return fmt.Errorf("trainprint: path must start with '/': %q", r.Path)
	}
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodGet
	}
	target := c.baseURL + r.Path
	if len(r.Query) > 0 {
		target += "?" + r.Query.Encode()
	}
	var payload []byte
	contentType := ""
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		payload, contentType = b, "application/octet-stream"
	case url.Values:
		payload, contentType = []byte(b.Encode()), "application/x-www-form-urlencoded"
	default:
		if field := invalidText(reflect.ValueOf(b), ""); field != "" {
			return invalidTextError(field)
		}
		var err error
		if payload, err = json.Marshal(b); err != nil {
			return fmt.Errorf("trainprint: encoding the request body: %w", err)
		}
		contentType = "application/json"
	}
	header := http.Header{}
	header.Set("Accept", "application/json")
	if _, raw := out.(*[]byte); raw {
		header.Set("Accept", "application/octet-stream, application/json")
	}
	header.Set("User-Agent", c.userAgent)
	if contentType != "" {
		header.Set("Content-Type", contentType)
	}
	if c.apiKey != "" && !r.NoAuth {
		header.Set("Authorization", "Bearer "+c.apiKey)
	}
	if r.IdempotencyKey != "" {
		header.Set("Idempotency-Key", r.IdempotencyKey)
	}
	for k, vs := range r.Header {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	idempotent := !r.NotIdempotent && (r.Idempotent || r.IdempotencyKey != "" || method == http.MethodGet ||
		method == http.MethodHead || method == http.MethodDelete || method == http.MethodPut || method == http.MethodOptions)

	var waited time.Duration
	for attempt := 0; ; attempt++ {
		canRetry := attempt < c.maxRetries
		status, body, respHeader, err := c.once(ctx, method, target, header, payload)
		var apiErr *APIError
		var wait time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return contextError(ctx, err)
			}
			apiErr = err
			if !idempotent || !canRetry {
				return apiErr
			}
			wait = c.backoff(attempt)
		} else {
			c.noteRateLimit(respHeader)
			if status >= 200 && status < 300 {
				return decodeSuccess(status, respHeader, body, out)
			}
			apiErr = decodeError(status, respHeader, body)
			transient := status == http.StatusTooManyRequests || (status >= 500 && idempotent)
			if !transient || !canRetry {
				return apiErr
			}
			if apiErr.RetryAfter != nil {
				wait = *apiErr.RetryAfter
			} else {
				wait = c.backoff(attempt)
			}
			if wait > c.maxRetryDelay {
				return apiErr
			}
		}
		if waited+wait > c.maxTotalWait {
			return apiErr
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return apiErr // the retry could not start before the deadline
		}
		if c.onRetry != nil {
			c.onRetry(RetryInfo{Retry: attempt + 1, Wait: wait, Err: apiErr})
		}
		if err := c.sleep(ctx, wait); err != nil {
			return contextError(ctx, apiErr)
		}
		waited += wait
	}
}

// once is one attempt: the status, body and headers of a response, or an *APIError without one.
func (c *Client) once(ctx context.Context, method, target string, header http.Header, payload []byte) (int, []byte, http.Header, *APIError) {
	actx := ctx
	if c.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, method, target, body)
	if err != nil {
		return 0, nil, nil, &APIError{Code: CodeNetworkError, Message: err.Error(), Err: err}
	}
	req.Header = header.Clone()
	res, err := c.http.Do(req)
	if err == nil {
		defer res.Body.Close()
		var data []byte
		// the body is read under the same timeout: a server that stalls mid-body is a timeout too
		if data, err = io.ReadAll(res.Body); err == nil {
			return res.StatusCode, data, res.Header, nil
		}
	}
	origin := c.baseURL
	if u, perr := url.Parse(c.baseURL); perr == nil {
		origin = u.Scheme + "://" + u.Host
	}
	if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return 0, nil, nil, &APIError{Code: CodeTimeout, Message: fmt.Sprintf("no response from %s within %s", origin, c.timeout), Err: err}
	}
	return 0, nil, nil, &APIError{Code: CodeNetworkError, Message: fmt.Sprintf("cannot reach %s: %v", origin, err), Err: err}
}

// contextError is the error of a call whose context ended (last: the failure before it).
func contextError(ctx context.Context, last error) *APIError {
	cerr := ctx.Err()
	code := CodeAborted
	if errors.Is(cerr, context.DeadlineExceeded) {
		code = CodeTimeout
	}
	msg := "the call's context ended: " + cerr.Error()
	if last != nil {
		msg += " (after: " + last.Error() + ")"
	}
	return &APIError{Code: code, Message: msg, Err: cerr}
}

func (c *Client) backoff(attempt int) time.Duration {
	ceiling := float64(backoffBase) * math.Pow(2, float64(attempt))
	if ceiling > float64(backoffCap) {
		ceiling = float64(backoffCap)
	}
	c.mu.Lock()
	f := c.rng.Float64()
	c.mu.Unlock()
	return time.Duration(f * ceiling) // full jitter
}

func (c *Client) noteRateLimit(h http.Header) {
	limit, err1 := strconv.Atoi(h.Get("RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("RateLimit-Remaining"))
	reset, err3 := strconv.Atoi(h.Get("RateLimit-Reset"))
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	c.mu.Lock()
	c.rateLimit = &RateLimit{Limit: limit, Remaining: remaining, Reset: reset, Policy: h.Get("RateLimit-Policy")}
	c.mu.Unlock()
}

func decodeSuccess(status int, h http.Header, body []byte, out interface{}) error {
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*o = append([]byte(nil), body...)
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte(`{"success":true}`)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &APIError{Status: status, Code: CodeHTTPError, RequestID: h.Get("X-Request-Id"),
			Message: fmt.Sprintf("the response is not the expected JSON (%s): %v", h.Get("Content-Type"), err), Err: err}
	}
	return nil
}

// decodeError reads an error response: the API envelope, an OAuth (RFC 6749) error, or anything else.
func decodeError(status int, h http.Header, body []byte) *APIError {
	e := &APIError{Status: status, RequestID: h.Get("X-Request-Id")}
	if secs, ok := ParseRetryAfter(h.Get("Retry-After"), time.Now()); ok {
		d := time.Duration(secs) * time.Second
		e.RetryAfter = &d
	}
	var envelope struct {
		Success *bool           `json:"success"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && len(envelope.Error) > 0 {
		var api struct {
			Code    *string                `json:"code"`
			Message *string                `json:"message"`
			Details map[string]interface{} `json:"details"`
		}
		if envelope.Success != nil && !*envelope.Success && json.Unmarshal(envelope.Error, &api) == nil && api.Code != nil {
			e.Code, e.Message, e.Details = *api.Code, *api.Code, api.Details
			if api.Message != nil {
				e.Message = *api.Message
			}
			if rid, ok := api.Details["request_id"].(string); ok && e.RequestID == "" {
				e.RequestID = rid
			}
			return e
		}
		var oauth string
		if json.Unmarshal(envelope.Error, &oauth) == nil { // RFC 6749 5.2 (the token endpoint)
			var desc struct {
				Description string `json:"error_description"`
			}
			_ = json.Unmarshal(body, &desc)
			e.Code, e.Message = oauth, oauth
			if desc.Description != "" {
				e.Message = desc.Description
			}
			return e
		}
	}
	snippet := strings.Join(strings.Fields(string(body)), " ")
	if len(snippet) > 200 {
		snippet = snippet[:200]
	}
	e.Code, e.Message = CodeHTTPError, fmt.Sprintf("HTTP %d", status)
	if snippet != "" {
		e.Message += ": " + snippet
	}
	return e
}

// ParseRetryAfter reads a Retry-After value: delta-seconds or an HTTP date (RFC 9110 10.2.3),
// as whole seconds from now (0 for a date in the past). ok is false when v is empty or unreadable.
func ParseRetryAfter(v string, now time.Time) (seconds int, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, false
		}
		return n, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d <= 0 {
		return 0, true
	}
	return int(math.Ceil(d.Seconds())), true
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
