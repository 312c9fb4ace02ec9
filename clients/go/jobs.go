package trainprint

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Job is a catalogue job (POST /api/v1/jobs): many analyze, score or scan items run in the
// server's background and kept in its store. Times are RFC 3339; Done never decreases.
type Job struct {
	JobID      string    `json:"job_id"`
	Type       string    `json:"type"`
	State      string    `json:"state"` // queued, running, done, failed, cancelled
	Total      int       `json:"total"`
	Done       int       `json:"done"`
	Failed     int       `json:"failed"`
	Created    string    `json:"created"`
	Started    *string   `json:"started"`
	Finished   *string   `json:"finished"`
	EtaSeconds *float64  `json:"eta_seconds"`
	StatusURL  string    `json:"status_url"`
	ResultsURL string    `json:"results_url"`
	Error      *JobError `json:"error,omitempty"`
	// Deleted is set by CancelJob: true when a finished job was deleted, false when it was cancelled.
	Deleted *bool `json:"deleted,omitempty"`
}

// JobError is the typed error of a failed item (or of a failed job).
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// CreateJobRequest is the body of POST /api/v1/jobs: the type (analyze, score, scan) and its items,
// each what the type's own route takes (a scan item is {"id", "text"}); Options only for a scan
// (datasets, min_words, paraphrase).
type CreateJobRequest struct {
	Type    string                 `json:"type"`
	Items   []interface{}          `json:"items"`
	Options map[string]interface{} `json:"options,omitempty"`
}

// JobResultLine is one line of a job's results: the item's index and its result (the item's
// answer without the envelope, as raw JSON) or its error.
type JobResultLine struct {
	Index   int             `json:"index"`
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *JobError       `json:"error,omitempty"`
}

// JobResultsOptions pages JobResults: Limit lines per page (default 100), After the index to
// start after (nil: from the first), Poll the wait between pages while the job runs (default 1 s).
type JobResultsOptions struct {
	Limit int
	After *int
	Poll  time.Duration
}

// CreateJob calls POST /api/v1/jobs. The items are charged to the plan at once (a *RateLimitedError
// family error when they would pass the day's limit); a job holds at most the plan's jobItems (413).
func (c *Client) CreateJob(ctx context.Context, req CreateJobRequest, opts ...CallOption) (*Job, error) {
	var out Job
	if err := c.call(ctx, Request{Method: "POST", Path: "/api/v1/jobs", Body: req}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobList is a page of the account's jobs (GET /api/v1/jobs), newest first; Next is the After of
// the next page, nil on the last.
type JobList struct {
	Jobs []Job   `json:"jobs"`
	Next *string `json:"next"`
}

// ListJobsOptions pages ListJobs: After the Next of the page before ("" for the first), Limit jobs
// per page (0: the server's default), Owner "operator" for the scan queue's jobs (an admin key).
type ListJobsOptions struct {
	After string
	Limit int
	Owner string
}

// ListJobs calls GET /api/v1/jobs: one page of the account's jobs, newest first (not charged).
//
//	for page, err := c.ListJobs(ctx, ListJobsOptions{}); err == nil; page, err = c.ListJobs(ctx, ListJobsOptions{After: *page.Next}) {
//		show(page.Jobs)
//		if page.Next == nil { break }
//	}
func (c *Client) ListJobs(ctx context.Context, o ListJobsOptions, opts ...CallOption) (*JobList, error) {
	q := url.Values{}
	if o.After != "" {
		q.Set("after", o.After)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Owner != "" {
		q.Set("owner", o.Owner)
	}
	path := "/api/v1/jobs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out JobList
	if err := c.call(ctx, Request{Method: "GET", Path: path}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetJob calls GET /api/v1/jobs/{job_id}: the job's state and counts.
func (c *Client) GetJob(ctx context.Context, jobID string, opts ...CallOption) (*Job, error) {
	var out Job
	if err := c.call(ctx, Request{Method: "GET", Path: "/api/v1/jobs/" + url.PathEscape(jobID)}, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelJob calls DELETE /api/v1/jobs/{job_id}: a queued or running job is cancelled (its results
// so far stay readable); a finished one is deleted with its results (Deleted true). It is not
// retried after a network error or 5xx (a 429 is): read GetJob and call again if the job still runs.
func (c *Client) CancelJob(ctx context.Context, jobID string, opts ...CallOption) (*Job, error) {
	var out Job
	// NotIdempotent: a cancel whose answer was lost may have cancelled the job, which may have finished since; a
	// retry would delete it with its results.
	req := Request{Method: "DELETE", Path: "/api/v1/jobs/" + url.PathEscape(jobID), NotIdempotent: true}
	if err := c.call(ctx, req, opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobResults calls GET /api/v1/jobs/{job_id}/results page by page and hands every line to fn, in
// item order; while the job runs it waits between pages, and it returns once the job has finished
// and every line has been read (or with fn's error, or the context's).
func (c *Client) JobResults(ctx context.Context, jobID string, o JobResultsOptions, fn func(JobResultLine) error, opts ...CallOption) error {
	limit := o.Limit
	if limit <= 0 {
		limit = 100
	}
	poll := o.Poll
	if poll <= 0 {
		poll = time.Second
	}
	after := o.After
	for {
		// the state before the page: a short page read after the job finished is the end
		job, err := c.GetJob(ctx, jobID, opts...)
		if err != nil {
			return err
		}
		finished := job.State == "done" || job.State == "failed" || job.State == "cancelled"
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if after != nil {
			q.Set("after", strconv.Itoa(*after))
		}
		var raw []byte
		r := Request{Method: "GET", Path: "/api/v1/jobs/" + url.PathEscape(jobID) + "/results", Query: q}
		if err := c.call(ctx, r, opts, &raw); err != nil {
			return err
		}
		n := 0
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var l JobResultLine
			if err := json.Unmarshal(line, &l); err != nil {
				return err
			}
			n++
			i := l.Index
			after = &i
			if err := fn(l); err != nil {
				return err
			}
		}
		if n == limit {
			continue
		}
		if finished {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
