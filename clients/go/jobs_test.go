package trainprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// TestJobsAgainstAServer runs a scan job on a real server (TRAINPRINT_BASE_URL, TRAINPRINT_API_KEY with
// scope analyze, the starter dataset loaded): the passage of the MIT licence is found with UTF-16 spans
// (the emoji before it counts two units), every line comes in item order, and a finished job is deleted.
func TestJobsAgainstAServer(t *testing.T) {
	if os.Getenv("TRAINPRINT_BASE_URL") == "" {
		t.Skip("set TRAINPRINT_BASE_URL and TRAINPRINT_API_KEY to run the jobs against a server")
	}
	c, err := NewFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	grant := "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and " +
		"associated documentation files (the \"Software\"), to deal in the Software without restriction"
	texts := []string{"plain words", "Quoted \U0001F680 " + grant, "more plain words"}
	items := make([]interface{}, len(texts))
	for i, text := range texts {
		items[i] = map[string]string{"id": "o" + strconv.Itoa(i), "text": text}
	}
	job, err := c.CreateJob(ctx, CreateJobRequest{Type: "scan", Items: items, Options: map[string]interface{}{"min_words": 10}})
	if err != nil || job.Total != 3 || job.JobID == "" {
		t.Fatalf("create: %+v %v", job, err)
	}
	var indexes []int
	var passage string
	err = c.JobResults(ctx, job.JobID, JobResultsOptions{Limit: 2, Poll: 50 * time.Millisecond}, func(l JobResultLine) error {
		indexes = append(indexes, l.Index)
		if !l.Success {
			return fmt.Errorf("item %d: %+v", l.Index, l.Error)
		}
		var r struct {
			ID   string `json:"id"`
			Hits []struct {
				ID         string `json:"id"`
				DocumentID string `json:"document_id"`
				QueryStart int    `json:"query_start"`
				QueryEnd   int    `json:"query_end"`
			} `json:"hits"`
		}
		if err := json.Unmarshal(l.Result, &r); err != nil {
			return err
		}
		for _, h := range r.Hits {
			if h.DocumentID == "MIT" && h.ID == "o1" && r.ID == "o1" {
				passage = UTF16Slice(texts[l.Index], h.QueryStart, h.QueryEnd)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(indexes) != "[0 1 2]" {
		t.Fatalf("indexes: %v", indexes)
	}
	if !strings.HasPrefix(passage, "Permission is hereby granted") {
		t.Fatalf("the MIT passage: %q", passage)
	}
	done, err := c.GetJob(ctx, job.JobID)
	if err != nil || done.State != "done" || done.Done != 3 || done.Failed != 0 || done.Finished == nil {
		t.Fatalf("status: %+v %v", done, err)
	}
	deleted, err := c.CancelJob(ctx, job.JobID)
	if err != nil || deleted.Deleted == nil || !*deleted.Deleted {
		t.Fatalf("delete: %+v %v", deleted, err)
	}
	if _, err := c.GetJob(ctx, job.JobID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestListJobsPagesWithNext(t *testing.T) {
	s, _, c := newStub(t)
	a, b := "job_"+strings.Repeat("a", 32), "job_"+strings.Repeat("b", 32)
	s.script["/api/v1/jobs"] = []answer{
		{200, nil, `{"success":true,"jobs":[{"job_id":"` + a + `","type":"audit","state":"failed","total":1,"done":1,"failed":1}],"next":"` + a + `"}`},
		{200, nil, `{"success":true,"jobs":[{"job_id":"` + b + `","type":"scan","state":"done","total":2,"done":2,"failed":0}],"next":null}`},
	}
	var ids []string
	page, err := c.ListJobs(context.Background(), ListJobsOptions{Limit: 1})
	for ; err == nil; page, err = c.ListJobs(context.Background(), ListJobsOptions{After: *page.Next, Limit: 1}) {
		for _, j := range page.Jobs {
			ids = append(ids, j.JobID+" "+j.State)
		}
		if page.Next == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != a+" failed,"+b+" done" {
		t.Fatalf("jobs: %v", ids)
	}
	if strings.Join(s.queries, "&") != "limit=1&after="+a+"&limit=1" {
		t.Fatalf("queries: %q", s.queries)
	}
}
