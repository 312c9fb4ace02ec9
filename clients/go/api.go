package trainprint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
)

func (c *Client) call(ctx context.Context, r Request, opts []CallOption, out interface{}) error {
	for _, o := range opts {
		o(&r)
	}
	return c.Do(ctx, r, out)
}

// Status calls GET /api/v1/status (public: no key needed).
func (c *Client) Status(ctx context.Context, opts ...CallOption) (*StatusReport, error) {
	var out StatusReport
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/status"}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Analyze calls POST /api/v1/attribution/analyze: corpus evidence, confidence, attribution
// sources, risk and revenue. Not retried on network errors or 5xx unless given WithIdempotencyKey.
func (c *Client) Analyze(ctx context.Context, req AnalyzeRequest, opts ...CallOption) (*AnalysisResult, error) {
	var out AnalysisResult
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/attribution/analyze", Body: req}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAnalysis calls GET /api/v1/attribution/analyses/{analysisID}: a stored analysis of the account.
func (c *Client) GetAnalysis(ctx context.Context, analysisID string, opts ...CallOption) (*AnalysisResult, error) {
	var out AnalysisResult
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/attribution/analyses/" + url.PathEscape(analysisID)}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Compare calls POST /api/v1/attribution/compare: aligned passages of two texts (retried like a
// GET: it changes nothing).
func (c *Client) Compare(ctx context.Context, a, b string, opts ...CallOption) (*Comparison, error) {
	var out Comparison
	body := map[string]string{"a": a, "b": b}
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/attribution/compare", Body: body, Idempotent: true}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Score calls POST /api/v1/attribution/score: how likely TargetModel trained on a registered
// work of the account (idempotent: it changes nothing).
func (c *Client) Score(ctx context.Context, req ScoreRequest, opts ...CallOption) (*ScoreResult, error) {
	var out ScoreResult
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/attribution/score", Body: req, Idempotent: true}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Fingerprint calls POST /api/v1/attribution/fingerprint: content id, work_hash and sketches.
func (c *Client) Fingerprint(ctx context.Context, req FingerprintRequest, opts ...CallOption) (*FingerprintResult, error) {
	var out FingerprintResult
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/attribution/fingerprint", Body: req, Idempotent: true}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RegisterWork calls POST /api/v1/content/register. Created is false when the account had
// registered this work_hash already. Pass WithIdempotencyKey to make it safe to retry.
func (c *Client) RegisterWork(ctx context.Context, req RegisterWorkRequest, opts ...CallOption) (*RegisterWorkResult, error) {
	var out RegisterWorkResult
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/content/register", Body: req}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetWork calls GET /api/v1/content/{workID}.
func (c *Client) GetWork(ctx context.Context, workID string, opts ...CallOption) (*Work, error) {
	var out Work
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/content/" + url.PathEscape(workID)}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListWorks calls GET /api/v1/content: one page of the account's works; pass Next as After for the next.
func (c *Client) ListWorks(ctx context.Context, page ListWorksOptions, opts ...CallOption) (*WorkList, error) {
	q := url.Values{}
	if page.After != "" {
		q.Set("after", page.After)
	}
	if page.Limit != 0 {
		q.Set("limit", strconv.Itoa(page.Limit))
	}
	var out WorkList
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/content", Query: q}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteWork calls DELETE /api/v1/content/{workID}: the work and its text.
func (c *Client) DeleteWork(ctx context.Context, workID string, opts ...CallOption) (*Deleted, error) {
	var out Deleted
	if err := c.call(ctx, Request{Method: "DELETE", Path: "/api/v1/content/" + url.PathEscape(workID)}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VerifyReceipt calls POST /api/v1/content/verify-receipt: whether this service signed the receipt, unaltered.
func (c *Client) VerifyReceipt(ctx context.Context, receipt Receipt, opts ...CallOption) (*Valid, error) {
	var out Valid
	body := map[string]Receipt{"receipt": receipt}
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/content/verify-receipt", Body: body, Idempotent: true}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Usage calls GET /api/v1/usage: calls used and left today (this call included).
func (c *Client) Usage(ctx context.Context, opts ...CallOption) (*Usage, error) {
	var out Usage
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/usage"}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AnalyzeFile calls POST /api/v1/attribution/analyze with a file as a multipart/form-data upload: its
// bytes in the field "file" under filename, whose extension (.epub, .pdf, .docx, .txt, .md, .html)
// tells the content type when req.ContentType is empty, and req's other fields as form fields
// (req.Content and req.ContentEncoding are not sent). The answer is the one the same file in base64
// gets, without the third base64 adds; the file may be as large as the key's plan allows (Free 8
// MiB, Pro 32 MiB, Scale and Enterprise 64 MiB). Not retried on network errors or 5xx unless given
// WithIdempotencyKey.
func (c *Client) AnalyzeFile(ctx context.Context, file []byte, filename string, req AnalyzeRequest, opts ...CallOption) (*AnalysisResult, error) {
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	part, err := form.CreateFormFile("file", filename)
	if err == nil {
		_, err = part.Write(file)
	}
	fields := map[string]string{"content_type": string(req.ContentType)}
	if req.IncludeText {
		fields["include_text"] = "true"
	}
	if req.SearchRemote != nil {
		fields["search_remote"] = strconv.FormatBool(*req.SearchRemote)
	}
	if req.Quotations != "" {
		fields["quotations"] = req.Quotations
	}
	if req.Metadata != nil {
		metadata, merr := json.Marshal(req.Metadata)
		if merr != nil {
			return nil, fmt.Errorf("trainprint: encoding the metadata: %w", merr)
		}
		fields["metadata"] = string(metadata)
	}
	for _, name := range []string{"content_type", "include_text", "search_remote", "quotations", "metadata"} {
		if v := fields[name]; v != "" && err == nil {
			err = form.WriteField(name, v)
		}
	}
	if err == nil {
		err = form.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("trainprint: writing the upload: %w", err)
	}
	var out AnalysisResult
	r := Request{
		Method: "POST",
		Path:   "/api/v1/attribution/analyze",
		Body:   body.Bytes(),
		Header: http.Header{"Content-Type": {form.FormDataContentType()}},
	}
	if err := c.call(ctx, r, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
