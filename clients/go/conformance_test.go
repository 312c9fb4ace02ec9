package trainprint

// The client conformance scenario (../conformance.json) against a real server: one subtest per
// step, in order (later steps use values saved by earlier ones). Environment: TRAINPRINT_BASE_URL
// and TRAINPRINT_API_KEY, plus TRAINPRINT_LIMITED_BASE_URL / TRAINPRINT_LIMITED_API_KEY for the
// rate-limit steps (see the scenario's "about"). Without TRAINPRINT_BASE_URL it is skipped.
// TRAINPRINT_CONFORMANCE overrides the scenario's path.
//
//	TRAINPRINT_BASE_URL=http://127.0.0.1:8787 TRAINPRINT_API_KEY=tp_test_... go test -run Conformance -v ./...

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

type scenario struct {
	Version int                               `json:"version"`
	Texts   map[string]interface{}            `json:"texts"`
	Clients map[string]map[string]interface{} `json:"clients"`
	Steps   []step                            `json:"steps"`
}

type step struct {
	ID        string                 `json:"id"`
	Title     string                 `json:"title"`
	Client    string                 `json:"client"`
	Op        string                 `json:"op"`
	Args      map[string]interface{} `json:"args"`
	Options   map[string]interface{} `json:"options"`
	Expect    interface{}            `json:"expect"`
	Error     interface{}            `json:"error"`
	ErrorKind string                 `json:"error_kind"`
	RateLimit interface{}            `json:"rate_limit"`
	Retries   interface{}            `json:"retries"`
	ElapsedS  interface{}            `json:"elapsed_s"`
	Span      *spanCheck             `json:"span"`
	Save      map[string]string      `json:"save"`
	raw       map[string]json.RawMessage
}

type spanCheck struct {
	Array    string      `json:"array"`
	Where    interface{} `json:"where"`
	TextArg  string      `json:"text_arg"`
	Start    string      `json:"start"`
	End      string      `json:"end"`
	Contains string      `json:"contains"`
}

func (s *step) has(field string) bool { _, ok := s.raw[field]; return ok }

var errorKinds = map[string]error{
	"invalid_input": ErrInvalidInput, "unauthorized": ErrUnauthorized, "forbidden": ErrForbidden, "not_found": ErrNotFound,
	"conflict": ErrConflict, "rate_limited": ErrRateLimited, "upstream": ErrUpstream, "server": ErrServer, "network": ErrNetwork,
}

// decode turns the step's args into the typed request; unknown fields are an error, so the
// struct must cover every field the scenario sends.
func decode(args map[string]interface{}, into interface{}) error {
	data, err := json.Marshal(args)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

type opFunc func(ctx context.Context, c *Client, args map[string]interface{}, opts []CallOption) (interface{}, error)

// ops maps step.op to the typed methods.
var ops = map[string]opFunc{
	"status": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		return c.Status(ctx, o...)
	},
	"analyze": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		var req AnalyzeRequest
		if err := decode(a, &req); err != nil {
			return nil, err
		}
		return c.Analyze(ctx, req, o...)
	},
	"get_analysis": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		return c.GetAnalysis(ctx, a["analysis_id"].(string), o...)
	},
	"compare": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		return c.Compare(ctx, a["a"].(string), a["b"].(string), o...)
	},
	"register_work": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		var req RegisterWorkRequest
		if err := decode(a, &req); err != nil {
			return nil, err
		}
		return c.RegisterWork(ctx, req, o...)
	},
	"get_work": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		return c.GetWork(ctx, a["work_id"].(string), o...)
	},
	"score": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		var req ScoreRequest
		if err := decode(a, &req); err != nil {
			return nil, err
		}
		return c.Score(ctx, req, o...)
	},
	"list_works": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		var page ListWorksOptions
		if err := decode(a, &page); err != nil {
			return nil, err
		}
		return c.ListWorks(ctx, page, o...)
	},
	"usage": func(ctx context.Context, c *Client, a map[string]interface{}, o []CallOption) (interface{}, error) {
		return c.Usage(ctx, o...)
	},
}

func loadScenario(t *testing.T) *scenario {
	t.Helper()
	path := os.Getenv("TRAINPRINT_CONFORMANCE")
	if path == "" {
		path = filepath.Join("..", "conformance.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenario
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Steps []map[string]json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for i := range sc.Steps {
		sc.Steps[i].raw = raw.Steps[i]
	}
	return &sc
}

// generic is v as JSON values (map[string]interface{}, []interface{}, float64, …).
func generic(v interface{}) (interface{}, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out interface{}
	err = json.Unmarshal(data, &out)
	return out, err
}

func TestConformance(t *testing.T) {
	sc := loadScenario(t)
	if os.Getenv("TRAINPRINT_BASE_URL") == "" {
		t.Skip("set TRAINPRINT_BASE_URL and TRAINPRINT_API_KEY to run the conformance scenario")
	}
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	env := map[string]interface{}{"run_id": hex.EncodeToString(id)}
	for k, v := range sc.Texts {
		env[k] = v
	}
	t.Logf("conformance: %d steps", len(sc.Steps))
	for i := range sc.Steps {
		st := &sc.Steps[i]
		ok := t.Run(st.ID, func(t *testing.T) {
			for _, f := range runStep(t, sc, st, env) {
				t.Errorf("%s (%s): %s", st.ID, st.Title, f)
			}
		})
		if !ok && st.Save != nil {
			t.Fatalf("step %s failed; later steps need its values", st.ID)
		}
	}
}

func runStep(t *testing.T, sc *scenario, st *step, env map[string]interface{}) []string {
	op, known := ops[st.Op]
	if !known {
		return []string{"unknown op " + st.Op}
	}
	spec := sc.Clients[st.Client]
	if spec == nil {
		return []string{"unknown client " + st.Client}
	}
	var opts []Option
	var retries []interface{}
	opts = append(opts, WithRetryHook(func(r RetryInfo) {
		retries = append(retries, map[string]interface{}{"retry": r.Retry, "wait_s": r.Wait.Seconds(), "status": r.Err.Status, "code": r.Err.Code})
	}))
	for _, name := range []string{"base_url_env", "api_key_env"} {
		if v, ok := spec[name].(string); ok && os.Getenv(v) == "" {
			t.Skipf("set %s to run this step", v)
		}
	}
	if v, ok := spec["api_key_env"].(string); ok {
		opts = append(opts, WithAPIKey(os.Getenv(v)))
	} else if v, ok := spec["api_key"].(string); ok {
		opts = append(opts, WithAPIKey(v))
	}
	if v, ok := spec["max_retry_delay_s"].(float64); ok {
		opts = append(opts, WithMaxRetryDelay(time.Duration(v*float64(time.Second))))
	}
	client, err := NewClient("", append([]Option{WithBaseURL(os.Getenv(spec["base_url_env"].(string)))}, opts...)...)
	if err != nil {
		return []string{err.Error()}
	}
	args := substitute(st.Args, env).(map[string]interface{})
	var callOpts []CallOption
	if st.Options != nil {
		o := substitute(st.Options, env).(map[string]interface{})
		if k, ok := o["idempotency_key"].(string); ok {
			callOpts = append(callOpts, WithIdempotencyKey(k))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	result, callErr := op(ctx, client, args, callOpts)
	elapsed := time.Since(t0).Seconds()

	var failures []string
	if st.has("error") {
		if callErr == nil {
			return []string{fmt.Sprintf("want an error, the call succeeded: %+v", result)}
		}
		var e *APIError
		if !errors.As(callErr, &e) {
			return []string{fmt.Sprintf("want an *APIError, got %T: %v", callErr, callErr)}
		}
		var retryAfter interface{}
		if e.RetryAfter != nil {
			retryAfter = e.RetryAfter.Seconds()
		}
		var details interface{}
		if e.Details != nil {
			details = e.Details
		}
		var requestID interface{}
		if e.RequestID != "" {
			requestID = e.RequestID
		}
		got, _ := generic(map[string]interface{}{"status": e.Status, "code": e.Code, "message": e.Message, "details": details,
			"request_id": requestID, "retry_after": retryAfter})
		failures = append(failures, match(substitute(st.Error, env), got, "error")...)
		if st.ErrorKind != "" {
			kind := errorKinds[st.ErrorKind]
			if kind == nil {
				failures = append(failures, "unknown error_kind "+st.ErrorKind)
			} else if !errors.Is(callErr, kind) {
				failures = append(failures, fmt.Sprintf("want errors.Is(err, %v), got %v", kind, callErr))
			}
		}
	} else {
		if callErr != nil {
			return []string{fmt.Sprintf("want success, got %v", callErr)}
		}
		got, err := generic(result)
		if err != nil {
			return []string{err.Error()}
		}
		failures = append(failures, match(substitute(st.Expect, env), got, "result")...)
		if st.Span != nil {
			failures = append(failures, checkSpan(st.Span, got, args)...)
		}
		for name, path := range st.Save {
			v, ok := dig(got, path)
			if !ok {
				failures = append(failures, "cannot save "+path)
			}
			env[name] = v
		}
	}
	if st.has("rate_limit") {
		got, _ := generic(client.RateLimit())
		failures = append(failures, match(st.RateLimit, got, "rate_limit")...)
	}
	if st.has("retries") {
		got, _ := generic(retries)
		if got == nil {
			got = []interface{}{}
		}
		failures = append(failures, match(st.Retries, got, "retries")...)
	}
	if st.has("elapsed_s") {
		failures = append(failures, match(st.ElapsedS, elapsed, "elapsed_s")...)
	}
	return failures
}

func checkSpan(sp *spanCheck, result interface{}, args map[string]interface{}) []string {
	obj, _ := result.(map[string]interface{})
	list, _ := obj[sp.Array].([]interface{})
	for _, el := range list {
		if len(match(sp.Where, el, "")) > 0 {
			continue
		}
		m := el.(map[string]interface{})
		start, _ := m[sp.Start].(float64)
		end, _ := m[sp.End].(float64)
		text, _ := args[sp.TextArg].(string)
		if got := UTF16Slice(text, int(start), int(end)); !strings.Contains(got, sp.Contains) {
			return []string{fmt.Sprintf("span: %q does not contain %q", got, sp.Contains)}
		}
		return nil
	}
	return []string{fmt.Sprintf("span: no element of %s matches %v", sp.Array, sp.Where)}
}

var ref = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// substitute replaces ${name} references (a whole-string reference keeps the value's type).
func substitute(v interface{}, env map[string]interface{}) interface{} {
	switch x := v.(type) {
	case string:
		if m := ref.FindStringSubmatch(x); m != nil && m[0] == x {
			return env[m[1]]
		}
		return ref.ReplaceAllStringFunc(x, func(s string) string {
			name := ref.FindStringSubmatch(s)[1]
			if str, ok := env[name].(string); ok {
				return str
			}
			return fmt.Sprint(env[name])
		})
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = substitute(e, env)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = substitute(e, env)
		}
		return out
	}
	return v
}

func dig(v interface{}, path string) (interface{}, bool) {
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = m[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

func kindOf(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []interface{}:
		return "array"
	case map[string]interface{}:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func short(v interface{}) string {
	s := fmt.Sprintf("%v", v)
	if data, err := json.Marshal(v); err == nil {
		s = string(data)
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// match returns the mismatches of actual against a scenario pattern (none: it matches).
func match(pattern, actual interface{}, path string) []string {
	switch p := pattern.(type) {
	case map[string]interface{}:
		for k := range p {
			if strings.HasPrefix(k, "$") {
				return operators(p, actual, path)
			}
		}
		obj, ok := actual.(map[string]interface{})
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %s", path, short(actual))}
		}
		var out []string
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, present := obj[k]
			if !present {
				out = append(out, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			out = append(out, match(p[k], v, path+"."+k)...)
		}
		return out
	case []interface{}:
		list, ok := actual.([]interface{})
		if !ok || len(list) != len(p) {
			return []string{fmt.Sprintf("%s: want a list of %d, got %s", path, len(p), short(actual))}
		}
		var out []string
		for i := range p {
			out = append(out, match(p[i], list[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if !equal(pattern, actual) {
		return []string{fmt.Sprintf("%s: want %s, got %s", path, short(pattern), short(actual))}
	}
	return nil
}

func equal(a, b interface{}) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case nil:
		return b == nil
	case bool, string:
		return a == b
	}
	return false
}

func operators(ops map[string]interface{}, actual interface{}, path string) []string {
	var out []string
	kind := kindOf(actual)
	num, isNum := actual.(float64)
	names := make([]string, 0, len(ops))
	for k := range ops {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, op := range names {
		arg := ops[op]
		argNum, _ := arg.(float64)
		ok := true
		switch op {
		case "$type":
			wanted := []interface{}{arg}
			if l, isList := arg.([]interface{}); isList {
				wanted = l
			}
			ok = false
			for _, w := range wanted {
				if w == kind || (w == "number" && kind == "integer") {
					ok = true
				}
			}
		case "$in":
			ok = false
			for _, v := range arg.([]interface{}) {
				if equal(v, actual) {
					ok = true
				}
			}
		case "$prefix":
			s, isStr := actual.(string)
			ok = isStr && strings.HasPrefix(s, arg.(string))
		case "$contains":
			s, isStr := actual.(string)
			ok = isStr && strings.Contains(s, arg.(string))
		case "$gt":
			ok = isNum && num > argNum
		case "$gte":
			ok = isNum && num >= argNum
		case "$lt":
			ok = isNum && num < argNum
		case "$lte":
			ok = isNum && num <= argNum
		case "$len":
			switch x := actual.(type) {
			case []interface{}:
				ok = float64(len(x)) == argNum
			case string:
				ok = float64(len([]rune(x))) == argNum
			default:
				ok = false
			}
		case "$min_items":
			l, isList := actual.([]interface{})
			ok = isList && float64(len(l)) >= argNum
		case "$some":
			l, isList := actual.([]interface{})
			ok = false
			for _, el := range l {
				if isList && len(match(arg, el, "")) == 0 {
					ok = true
					break
				}
			}
		default:
			out = append(out, fmt.Sprintf("%s: unknown operator %s", path, op))
			continue
		}
		if !ok {
			out = append(out, fmt.Sprintf("%s: want %s %s, got %s", path, op, short(arg), short(actual)))
		}
	}
	return out
}

func TestPatterns(t *testing.T) {
	j := func(s string) interface{} {
		var v interface{}
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		pattern, actual string
		ok              bool
	}{
		{`{"a":1,"b":{"$prefix":"x"}}`, `{"a":1.0,"b":"xy","c":3}`, true},
		{`{"a":true}`, `{"a":1}`, false},
		{`{"a":1}`, `{}`, false},
		{`{"$some":{"id":2},"$min_items":2}`, `[{"id":1},{"id":2}]`, true},
		{`{"$some":{"id":3}}`, `[{"id":1}]`, false},
		{`{"$type":["string","null"]}`, `null`, true},
		{`{"$type":"number","$gte":0,"$lt":1}`, `0`, true},
		{`{"$type":"integer"}`, `0.5`, false},
		{`[]`, `[]`, true},
		{`[]`, `[1]`, false},
		{`{"$nope":1}`, `1`, false},
	} {
		if got := len(match(j(tc.pattern), j(tc.actual), "$")) == 0; got != tc.ok {
			t.Errorf("match(%s, %s) = %v", tc.pattern, tc.actual, got)
		}
	}
	got := substitute(j(`{"a":"${n}","b":"x${n}y","c":["${s}"]}`), map[string]interface{}{"n": 3.0, "s": "t"})
	if short(got) != `{"a":3,"b":"x3y","c":["t"]}` {
		t.Error(short(got))
	}
}

func TestScenarioIsKnown(t *testing.T) {
	sc := loadScenario(t)
	seen := map[string]bool{}
	for _, st := range sc.Steps {
		if ops[st.Op] == nil {
			t.Errorf("%s: unknown op %s", st.ID, st.Op)
		}
		if sc.Clients[st.Client] == nil {
			t.Errorf("%s: unknown client %s", st.ID, st.Client)
		}
		if st.ErrorKind != "" && errorKinds[st.ErrorKind] == nil {
			t.Errorf("%s: unknown error kind %s", st.ID, st.ErrorKind)
		}
		if seen[st.ID] {
			t.Errorf("duplicate step id %s", st.ID)
		}
		seen[st.ID] = true
	}
}
