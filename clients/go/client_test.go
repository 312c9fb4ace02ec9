package trainprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type answer struct {
	status int
	header map[string]string
	body   string
}

// stub answers from a script per path (the last answer repeats) and records every request.
type stub struct {
	mu      sync.Mutex
	script  map[string][]answer
	seen    []string
	queries []string
	keys    []string
	delay   time.Duration
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+r.URL.Path)
	s.queries = append(s.queries, r.URL.RawQuery)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	queue := s.script[r.URL.Path]
	a := answer{200, nil, `{"success":true}`}
	if len(queue) > 0 {
		a = queue[0]
		if len(queue) > 1 {
			s.script[r.URL.Path] = queue[1:]
		}
	}
	delay := s.delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func failure(code string) string {
	return fmt.Sprintf(`{"success":false,"error":{"code":%q,"message":"try later"}}`, code)
}

type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
	infos []RetryInfo
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func newStub(t *testing.T, opts ...Option) (*stub, *recorder, *Client) {
	t.Helper()
	s := &stub{script: map[string][]answer{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	rec := &recorder{}
	all := append([]Option{WithBaseURL(srv.URL), withSleep(rec.sleep),
		WithRetryHook(func(i RetryInfo) { rec.mu.Lock(); rec.infos = append(rec.infos, i); rec.mu.Unlock() })}, opts...)
	c, err := NewClient("tp_test_"+strings.Repeat("a", 32), all...)
	if err != nil {
		t.Fatal(err)
	}
	return s, rec, c
}

func TestRateLimitedWaitsRetryAfterForAnyMethod(t *testing.T) {
	s, rec, c := newStub(t)
	s.script["/api/v1/attribution/analyze"] = []answer{
		{429, map[string]string{"Retry-After": "2"}, failure(CodeRateLimited)},
		{200, nil, `{"success":true,"analysis_id":"an_1","matches":[]}`},
	}
	r, err := c.Analyze(context.Background(), AnalyzeRequest{Content: "x", ContentType: ContentText})
	if err != nil {
		t.Fatal(err)
	}
	if r.AnalysisID != "an_1" || len(s.seen) != 2 {
		t.Fatalf("result %+v after %v", r, s.seen)
	}
	if len(rec.waits) != 1 || rec.waits[0] != 2*time.Second {
		t.Fatalf("waits %v", rec.waits)
	}
	if len(rec.infos) != 1 || rec.infos[0].Retry != 1 || rec.infos[0].Err.Code != CodeRateLimited {
		t.Fatalf("retry hook %+v", rec.infos)
	}
}

func TestRetryAfterAsHTTPDate(t *testing.T) {
	s, rec, c := newStub(t)
	when := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	s.script["/api/v1/usage"] = []answer{
		{503, map[string]string{"Retry-After": when}, failure("SERVICE_UNAVAILABLE")},
		{200, nil, `{"success":true,"used":1}`},
	}
	u, err := c.Usage(context.Background())
	if err != nil || u.Used != 1 {
		t.Fatalf("%+v %v", u, err)
	}
	if len(rec.waits) != 1 || rec.waits[0] < time.Second || rec.waits[0] > 4*time.Second {
		t.Fatalf("waits %v", rec.waits)
	}
}

func TestLongRetryAfterIsReturnedAtOnce(t *testing.T) {
	s, rec, c := newStub(t)
	s.script["/api/v1/usage"] = []answer{{429, map[string]string{"Retry-After": "3600", "X-Request-Id": "req_1"}, failure(CodeRateLimited)}}
	_, err := c.Usage(context.Background())
	var e *APIError
	if !errors.As(err, &e) || e.Status != 429 || e.Code != CodeRateLimited || e.RequestID != "req_1" {
		t.Fatalf("%#v", err)
	}
	if e.RetryAfter == nil || *e.RetryAfter != time.Hour || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("retry after %v", e.RetryAfter)
	}
	if len(rec.waits) != 0 {
		t.Fatalf("waited %v", rec.waits)
	}
}

func TestServerErrorsRetriedOnlyWhenIdempotent(t *testing.T) {
	s, rec, c := newStub(t)
	ctx := context.Background()
	s.script["/api/v1/content"] = []answer{{502, nil, failure("BAD_GATEWAY")}, {503, nil, failure("X")}, {200, nil, `{"success":true,"works":[],"next":null}`}}
	if _, err := c.ListWorks(ctx, ListWorksOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.waits) != 2 {
		t.Fatalf("waits %v", rec.waits)
	}
	for _, w := range rec.waits {
		if w < 0 || w > backoffCap {
			t.Fatalf("backoff %v", w)
		}
	}
	s.script["/api/v1/content/register"] = []answer{{503, nil, failure("X")}, {201, nil, `{"success":true,"work_id":"wk_1","created":true}`}}
	_, err := c.RegisterWork(ctx, RegisterWorkRequest{Content: "x"})
	if !errors.Is(err, ErrServer) {
		t.Fatalf("a POST without idempotency key is not retried: %v", err)
	}
	s.script["/api/v1/content/register"] = []answer{{503, nil, failure("X")}, {201, nil, `{"success":true,"work_id":"wk_1","created":true}`}}
	w, err := c.RegisterWork(ctx, RegisterWorkRequest{Content: "x"}, WithIdempotencyKey("k1"))
	if err != nil || w.WorkID != "wk_1" || !w.Created {
		t.Fatalf("%+v %v", w, err)
	}
	if got := s.keys[len(s.keys)-2:]; got[0] != "k1" || got[1] != "k1" {
		t.Fatalf("idempotency keys %v", got)
	}
	s.script["/api/v1/attribution/compare"] = []answer{{500, nil, failure(CodeInternal)}, {200, nil, `{"success":true,"similarity":1,"spans":[]}`}}
	if r, err := c.Compare(ctx, "a", "b"); err != nil || r.Similarity != 1 {
		t.Fatalf("compare is idempotent: %+v %v", r, err)
	}
}

func TestMaxRetriesAndMaxTotalWait(t *testing.T) {
	s, rec, c := newStub(t, WithMaxRetries(2))
	s.script["/api/v1/usage"] = []answer{{503, nil, failure("X")}}
	if _, err := c.Usage(context.Background()); !errors.Is(err, ErrServer) {
		t.Fatal(err)
	}
	if len(s.seen) != 3 {
		t.Fatalf("attempts %v", s.seen)
	}
	s2, rec2, c2 := newStub(t, WithMaxRetries(10), WithMaxTotalWait(10*time.Second))
	s2.script["/api/v1/usage"] = []answer{{503, map[string]string{"Retry-After": "4"}, failure("X")}}
	if _, err := c2.Usage(context.Background()); !errors.Is(err, ErrServer) {
		t.Fatal(err)
	}
	if len(rec2.waits) != 2 || len(s2.seen) != 3 {
		t.Fatalf("waits %v attempts %d (a third wait would make 12 s > 10 s)", rec2.waits, len(s2.seen))
	}
	_ = rec
}

func TestContextDeadlineIsHonoured(t *testing.T) {
	s, rec, c := newStub(t)
	s.script["/api/v1/usage"] = []answer{{429, map[string]string{"Retry-After": "5"}, failure(CodeRateLimited)}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.Usage(ctx)
	if !errors.Is(err, ErrRateLimited) || len(rec.waits) != 0 {
		t.Fatalf("a wait past the deadline is not started: %v %v", err, rec.waits)
	}

	s.delay = 300 * time.Millisecond
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	_, err = c.Status(ctx2)
	var e *APIError
	if !errors.As(err, &e) || e.Code != CodeTimeout || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTimeout) {
		t.Fatalf("%#v", err)
	}
	ctx3, cancel3 := context.WithCancel(context.Background())
	cancel3()
	_, err = c.Status(ctx3)
	if !errors.As(err, &e) || e.Code != CodeAborted || !errors.Is(err, context.Canceled) {
		t.Fatalf("%#v", err)
	}
}

func TestPerAttemptTimeout(t *testing.T) {
	s, rec, c := newStub(t, WithTimeout(100*time.Millisecond), WithMaxRetries(1))
	s.delay = 400 * time.Millisecond
	_, err := c.Status(context.Background())
	var e *APIError
	if !errors.As(err, &e) || e.Code != CodeTimeout || e.Status != 0 || !errors.Is(err, ErrNetwork) {
		t.Fatalf("%#v", err)
	}
	if len(rec.waits) != 1 {
		t.Fatalf("a GET that timed out is retried once: %v", rec.waits)
	}
}

func TestNetworkError(t *testing.T) {
	rec := &recorder{}
	c, err := NewClient("", WithBaseURL("http://127.0.0.1:9"), WithMaxRetries(1), withSleep(rec.sleep))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Status(context.Background())
	var e *APIError
	if !errors.As(err, &e) || e.Code != CodeNetworkError || e.Status != 0 || !errors.Is(err, ErrNetwork) || errors.Is(err, ErrTimeout) {
		t.Fatalf("%#v", err)
	}
	if len(rec.waits) != 1 {
		t.Fatalf("waits %v", rec.waits)
	}
	_, err = c.RegisterWork(context.Background(), RegisterWorkRequest{Content: "x"})
	if !errors.Is(err, ErrNetwork) || len(rec.waits) != 1 {
		t.Fatalf("a POST is not retried after a network error: %v %v", err, rec.waits)
	}
}

func TestErrorFamilies(t *testing.T) {
	cases := []struct {
		code   string
		status int
		kind   error
	}{
		{CodeInvalidInput, 422, ErrInvalidInput}, {CodeMalformedJSON, 400, ErrInvalidInput}, {CodeUnauthorized, 401, ErrUnauthorized},
		{"invalid_client", 401, ErrUnauthorized}, {CodeForbidden, 403, ErrForbidden}, {CodeNotFound, 404, ErrNotFound},
		{CodeAlreadyExists, 409, ErrConflict}, {CodeRateLimited, 429, ErrRateLimited}, {CodeUpstreamTimeout, 504, ErrUpstream},
		{CodeInternal, 500, ErrServer}, {"STORE_LOCKED", 503, ErrServer}, {CodeTimeout, 0, ErrTimeout}, {CodeNetworkError, 0, ErrNetwork},
		{"SOMETHING_NEW", 418, nil}, {CodeMethodNotAllowed, 405, nil},
	}
	all := []error{ErrInvalidInput, ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict, ErrRateLimited, ErrUpstream, ErrServer, ErrTimeout}
	for _, tc := range cases {
		var err error = fmt.Errorf("wrapped: %w", &APIError{Status: tc.status, Code: tc.code})
		for _, k := range all {
			if got, want := errors.Is(err, k), k == tc.kind; got != want {
				t.Errorf("%s %d: errors.Is(%v) = %v", tc.code, tc.status, k, got)
			}
		}
	}
}

func TestEnvelopeAndOtherBodies(t *testing.T) {
	s, _, c := newStub(t, WithMaxRetries(0))
	s.script["/api/v1/content/wk_1"] = []answer{{404, map[string]string{"X-Request-Id": "req_abc"},
		`{"success":false,"error":{"code":"NOT_FOUND","message":"no work","details":{"id":"wk_1"}}}`}}
	_, err := c.GetWork(context.Background(), "wk_1")
	var e *APIError
	if !errors.As(err, &e) || e.Status != 404 || e.Code != CodeNotFound || e.Message != "no work" || e.RequestID != "req_abc" || e.Details["id"] != "wk_1" || e.RetryAfter != nil {
		t.Fatalf("%#v", err)
	}
	if err.Error() != "trainprint: NOT_FOUND (404): no work" {
		t.Fatal(err.Error())
	}
	s.script["/api/v1/usage"] = []answer{{502, nil, "<html>bad gateway</html>"}}
	_, err = c.Usage(context.Background())
	if !errors.As(err, &e) || e.Code != CodeHTTPError || !strings.Contains(e.Message, "bad gateway") || !errors.Is(err, ErrUpstream) {
		t.Fatalf("%#v", err)
	}
	s.script["/api/v1/oauth/token"] = []answer{{401, nil, `{"error":"invalid_client","error_description":"unknown client"}`}}
	err = c.Do(context.Background(), Request{Method: "POST", Path: "/api/v1/oauth/token", NoAuth: true}, nil)
	if !errors.As(err, &e) || e.Code != "invalid_client" || e.Message != "unknown client" || !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("%#v", err)
	}
}

func TestRateLimitHeadersAreKept(t *testing.T) {
	s, _, c := newStub(t)
	if c.RateLimit() != nil {
		t.Fatal("no rate limit before a call")
	}
	s.script["/api/v1/usage"] = []answer{{200, map[string]string{"RateLimit-Limit": "100", "RateLimit-Remaining": "7",
		"RateLimit-Reset": "60", "RateLimit-Policy": "100;w=86400"}, `{"success":true}`}}
	if _, err := c.Usage(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rl := c.RateLimit(); rl == nil || *rl != (RateLimit{Limit: 100, Remaining: 7, Reset: 60, Policy: "100;w=86400"}) {
		t.Fatalf("%+v", rl)
	}
}

func TestDoAndRequestEncoding(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		_, _ = io.WriteString(w, `{"success":true,"x":1}`)
	}))
	defer srv.Close()
	c, err := NewClient("tp_test_k", WithBaseURL(srv.URL+"/prefix/"))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]interface{}
	if err := c.Do(context.Background(), Request{Method: "post", Path: "/api/v1/x", Query: map[string][]string{"a": {"1 2"}}, Body: map[string]int{"n": 1}}, &out); err != nil {
		t.Fatal(err)
	}
	if got.URL.Path != "/prefix/api/v1/x" || got.URL.RawQuery != "a=1+2" || got.Method != "POST" || body != `{"n":1}` ||
		got.Header.Get("Authorization") != "Bearer tp_test_k" || got.Header.Get("Content-Type") != "application/json" || out["x"] != float64(1) {
		t.Fatalf("%s %s %q %v %v", got.Method, got.URL, body, got.Header, out)
	}
	if _, err := c.GetWork(context.Background(), "a/b"); err != nil || got.URL.EscapedPath() != "/prefix/api/v1/content/a%2Fb" {
		t.Fatalf("path escaping: %s %v", got.URL.EscapedPath(), err)
	}
	var raw []byte
	if err := c.Do(context.Background(), Request{Path: "/api/v1/raw"}, &raw); err != nil || string(raw) != `{"success":true,"x":1}` {
		t.Fatalf("%q %v", raw, err)
	}
}

func TestTextThatIsNotUTF8IsRefusedNotSentChanged(t *testing.T) {
	sent := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent++
		_, _ = io.WriteString(w, `{"success":true}`)
	}))
	defer srv.Close()
	c, err := NewClient("tp_test_k", WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for field, req := range map[string]AnalyzeRequest{
		"content":        {Content: "A lone surrogate \xed\xa0\x80 here.", ContentType: "text"},
		"metadata.title": {Content: "Fine.", ContentType: "text", Metadata: &AnalyzeMetadata{Title: "Caf\xe9"}},
	} {
		_, err := c.Analyze(ctx, req)
		var e *APIError
		if !errors.Is(err, ErrInvalidInput) || !errors.As(err, &e) || e.Details["field"] != field || e.Status != 0 {
			t.Fatalf("%s: %v", field, err)
		}
	}
	var out map[string]interface{}
	body := map[string]interface{}{"items": []interface{}{map[string]string{"text": "ok"}, map[string]string{"text": "\xff"}}}
	if err := c.Do(ctx, Request{Method: "POST", Path: "/api/v1/jobs", Body: body}, &out); !errors.Is(err, ErrInvalidInput) ||
		!strings.Contains(err.Error(), "items[1].text") {
		t.Fatalf("%v", err)
	}
	if sent != 0 {
		t.Fatalf("%d requests sent", sent)
	}
	// valid text of every script goes as it is
	if _, err := c.Analyze(ctx, AnalyzeRequest{Content: "版权所有 👨‍👩‍👧 é", ContentType: "text"}); err != nil || sent != 1 {
		t.Fatalf("%v %d", err, sent)
	}
}

func TestNewClientValidates(t *testing.T) {
	for _, bad := range []string{"ftp://x", "http://", "127.0.0.1:8787", "http://x/?q=1"} {
		if _, err := NewClient("tp_test_k", WithBaseURL(bad)); err == nil {
			t.Errorf("WithBaseURL(%q) accepted", bad)
		}
	}
	if _, err := NewClient("tp_test_k", WithMaxRetries(-1)); err == nil {
		t.Error("negative retries accepted")
	}
	// the key comes first; the base URL defaults to the local server
	c, err := NewClient("tp_test_k")
	if err != nil || c.apiKey != "tp_test_k" || c.BaseURL() != DefaultBaseURL {
		t.Fatalf("%+v %v", c, err)
	}
	c, _ = NewClient("tp_test_k", WithBaseURL("https://example.org/tp/"))
	if c.BaseURL() != "https://example.org/tp" {
		t.Error(c.BaseURL())
	}
	// the older constructor still works
	if c, err := New("https://example.org/tp/", WithAPIKey("tp_test_k")); err != nil || c.BaseURL() != "https://example.org/tp" || c.apiKey != "tp_test_k" {
		t.Fatalf("%+v %v", c, err)
	}
	t.Setenv("TRAINPRINT_BASE_URL", "http://127.0.0.1:1234/x")
	t.Setenv("TRAINPRINT_API_KEY", "tp_test_k")
	c, err = NewFromEnv(WithMaxRetries(1))
	if err != nil || c.BaseURL() != "http://127.0.0.1:1234/x" || c.apiKey != "tp_test_k" || c.maxRetries != 1 {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestHelpers(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		secs int
		ok   bool
	}{{"7", 7, true}, {" 0 ", 0, true}, {"Tue, 01 Jan 2030 00:00:30 GMT", 30, true}, {"Mon, 31 Dec 2029 23:00:00 GMT", 0, true}, {"soon", 0, false}, {"", 0, false}, {"-1", 0, false}} {
		if s, ok := ParseRetryAfter(tc.in, now); s != tc.secs || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %d, %v", tc.in, s, ok)
		}
	}
	if got := UTF16Slice("a\U0001F680bc", 3, 5); got != "bc" {
		t.Error(got)
	}
	if got := UTF16Slice("abc", -1, 99); got != "abc" {
		t.Error(got)
	}
	if got := UTF16Slice("abc", 2, 1); got != "" {
		t.Error(got)
	}
}

func TestResultsDecode(t *testing.T) {
	var r AnalysisResult
	in := `{"success":true,"analysis_id":"an_1","confidence_ci_95":[0.1,0.2],"matches":[{"dataset_id":"d","document_id":null,"query_start":1,"query_end":5,"source_start":null,"source_end":null,"kind":"portrait","tokens":3,"score":0.9}],"coverage":{"d":{"share":0.5,"longest_run":3}},"evidence":{"method":"m"}}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.ConfidenceCI95[1] != 0.2 || r.Matches[0].DocumentID != nil || r.Coverage["d"].Share != 0.5 || string(r.Evidence) != `{"method":"m"}` {
		t.Fatalf("%+v", r)
	}
	var w RegisterWorkResult
	if err := json.Unmarshal([]byte(`{"work_id":"wk_1","title":"t","created":true,"receipt":{"alg":"HMAC-SHA256"}}`), &w); err != nil {
		t.Fatal(err)
	}
	if w.WorkID != "wk_1" || *w.Title != "t" || !w.Created || w.Receipt.Alg != "HMAC-SHA256" {
		t.Fatalf("%+v", w)
	}
}
