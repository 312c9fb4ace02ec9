package trainprint

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestJobResultsPagesAndWaitsWhileTheJobRuns(t *testing.T) {
	s, _, c := newStub(t)
	id := "job_" + "0123456789abcdef0123456789abcdef"
	status := "/api/v1/jobs/" + id
	results := status + "/results"
	s.script[status] = []answer{
		{200, nil, `{"success":true,"job_id":"` + id + `","state":"running","total":3,"done":1,"failed":0}`},
		{200, nil, `{"success":true,"job_id":"` + id + `","state":"running","total":3,"done":1,"failed":0}`},
		{200, nil, `{"success":true,"job_id":"` + id + `","state":"done","total":3,"done":3,"failed":1}`},
	}
	nd := map[string]string{"Content-Type": "application/x-ndjson"}
	s.script[results] = []answer{
		{200, nd, `{"index":0,"success":true,"result":{"id":"a","hits":[]}}` + "\n"},
		{200, nd, ``},
		{200, nd, `{"index":1,"success":true,"result":{"id":"b","hits":[]}}` + "\n" + `{"index":2,"success":false,"error":{"code":"INVALID_INPUT","message":"no"}}` + "\n"},
		{200, nd, ``}, // a full page: the next one (empty, the job done) ends it
	}
	var got []JobResultLine
	err := c.JobResults(context.Background(), id, JobResultsOptions{Limit: 2, Poll: time.Millisecond}, func(l JobResultLine) error {
		got = append(got, l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Index != 0 || got[2].Index != 2 || got[2].Error == nil || got[2].Error.Code != "INVALID_INPUT" {
		t.Fatalf("lines: %+v", got)
	}
	if string(got[1].Result) != `{"id":"b","hits":[]}` {
		t.Fatalf("result: %s", got[1].Result)
	}
}

func TestCreateGetCancelJob(t *testing.T) {
	s, _, c := newStub(t)
	id := "job_" + "0123456789abcdef0123456789abcdef"
	s.script["/api/v1/jobs"] = []answer{{202, nil, `{"success":true,"job_id":"` + id + `","type":"scan","state":"queued","total":1,"done":0,"failed":0,"started":null,"eta_seconds":null}`}}
	s.script["/api/v1/jobs/"+id] = []answer{{200, nil, `{"success":true,"job_id":"` + id + `","state":"cancelled","deleted":false}`}}
	job, err := c.CreateJob(context.Background(), CreateJobRequest{Type: "scan", Items: []interface{}{map[string]string{"id": "a", "text": "x"}}})
	if err != nil || job.JobID != id || job.State != "queued" || job.Started != nil {
		t.Fatalf("create: %+v %v", job, err)
	}
	cancelled, err := c.CancelJob(context.Background(), id)
	if err != nil || cancelled.State != "cancelled" || cancelled.Deleted == nil || *cancelled.Deleted {
		t.Fatalf("cancel: %+v %v", cancelled, err)
	}
	if s.seen[0] != "POST /api/v1/jobs" || s.seen[1] != "DELETE /api/v1/jobs/"+id {
		t.Fatalf("seen: %v", s.seen)
	}
}

// A job's DELETE cancels it while it runs and deletes it once finished: a cancel whose answer was lost is not
// repeated (it would delete the job that finished meanwhile), while a 429 still is and other DELETEs keep their retries.
func TestCancelJobIsNotRetried(t *testing.T) {
	s, rec, c := newStub(t)
	ctx := context.Background()
	id := "job_" + "0123456789abcdef0123456789abcdef"
	s.script["/api/v1/jobs/"+id] = []answer{{502, nil, failure("BAD_GATEWAY")}, {200, nil, `{"success":true,"job_id":"` + id + `","deleted":true}`}}
	var e *APIError
	if _, err := c.CancelJob(ctx, id); !errors.As(err, &e) || e.Status != 502 {
		t.Fatalf("a 502 of a cancel is returned: %v", err)
	}
	if len(s.seen) != 1 || len(rec.waits) != 0 {
		t.Fatalf("one DELETE, no wait: %v %v", s.seen, rec.waits)
	}
	s.script["/api/v1/jobs/"+id] = []answer{
		{429, map[string]string{"Retry-After": "1"}, failure(CodeRateLimited)},
		{200, nil, `{"success":true,"job_id":"` + id + `","state":"cancelled","deleted":false}`},
	}
	if j, err := c.CancelJob(ctx, id); err != nil || j.State != "cancelled" {
		t.Fatalf("a 429 of a cancel is retried: %+v %v", j, err)
	}
	s.script["/api/v1/content/wk_1"] = []answer{{503, nil, failure("X")}, {200, nil, `{"success":true,"deleted":true}`}}
	if _, err := c.DeleteWork(ctx, "wk_1"); err != nil {
		t.Fatalf("other DELETEs keep their retries: %v", err)
	}
	if len(s.seen) != 5 {
		t.Fatalf("seen %v", s.seen)
	}

	down, err := NewClient("", WithBaseURL("http://127.0.0.1:9"), withSleep(rec.sleep))
	if err != nil {
		t.Fatal(err)
	}
	waits := len(rec.waits)
	if _, err := down.CancelJob(ctx, id); !errors.Is(err, ErrNetwork) || len(rec.waits) != waits {
		t.Fatalf("a cancel is not retried after a network error: %v %v", err, rec.waits)
	}
}
