package trainprint_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	trainprint "github.com/trainprint/trainprint/clients/go"
)

// Analyze a text, print the reused passages, and tell the error families apart.
func Example() {
	c, err := trainprint.NewClient(os.Getenv("TRAINPRINT_API_KEY"), trainprint.WithBaseURL("http://127.0.0.1:8787"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	text := "Permission is hereby granted, free of charge, to any person obtaining a copy of this software"
	r, err := c.Analyze(ctx, trainprint.AnalyzeRequest{Content: text, ContentType: trainprint.ContentText})
	var apiErr *trainprint.APIError
	switch {
	case errors.Is(err, trainprint.ErrRateLimited) && errors.As(err, &apiErr) && apiErr.RetryAfter != nil:
		log.Fatalf("over the plan's limit; the window resets in %s", *apiErr.RetryAfter)
	case errors.As(err, &apiErr):
		log.Fatalf("%d %s: %s (request %s)", apiErr.Status, apiErr.Code, apiErr.Message, apiErr.RequestID)
	case err != nil:
		log.Fatal(err)
	}
	for _, m := range r.Matches {
		fmt.Println(m.DatasetID, trainprint.UTF16Slice(text, m.QueryStart, m.QueryEnd))
	}
}

// Register a work (safe to retry with an idempotency key), then score it against a model.
func ExampleClient_Score() {
	c, err := trainprint.NewFromEnv() // TRAINPRINT_BASE_URL, TRAINPRINT_API_KEY
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	w, err := c.RegisterWork(ctx, trainprint.RegisterWorkRequest{Content: "The text of my book …", Title: "My book"},
		trainprint.WithIdempotencyKey("register-my-book-v1"))
	if err != nil {
		log.Fatal(err)
	}
	s, err := c.Score(ctx, trainprint.ScoreRequest{WorkHash: w.WorkHash, TargetModel: "meta/llama-7b", Jurisdiction: "US"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Score, s.Tier, s.LegalRisk.Level)
}

// Call a route that has no typed method.
func ExampleClient_Do() {
	c, err := trainprint.NewFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	var models struct {
		Models []struct {
			ID string `json:"id"`
		} `json:"models"`
	}
	err = c.Do(context.Background(), trainprint.Request{Method: "GET", Path: "/api/v1/kb/models"}, &models)
	if errors.Is(err, trainprint.ErrNotFound) {
		log.Fatal("no such route on this server")
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(models.Models))
}

// Scan a batch of model outputs as one job, and print each passage found with its span.
func ExampleClient_JobResults() {
	c, err := trainprint.NewFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	outputs := []map[string]string{
		{"id": "out-1", "text": "Sure: Permission is hereby granted, free of charge, to any person obtaining a copy of this software"},
		{"id": "out-2", "text": "A reply that quotes nothing."},
	}
	items := make([]interface{}, len(outputs))
	for i, o := range outputs {
		items[i] = o
	}
	job, err := c.CreateJob(ctx, trainprint.CreateJobRequest{Type: "scan", Items: items,
		Options: map[string]interface{}{"min_words": 10}}, trainprint.WithIdempotencyKey("example-scan-outputs-1"))
	if err != nil {
		log.Fatal(err)
	}
	err = c.JobResults(ctx, job.JobID, trainprint.JobResultsOptions{}, func(l trainprint.JobResultLine) error {
		if !l.Success {
			fmt.Println(l.Index, l.Error.Code, l.Error.Message)
			return nil
		}
		var r struct {
			Hits []struct {
				DocumentID string `json:"document_id"`
				QueryStart int    `json:"query_start"`
				QueryEnd   int    `json:"query_end"`
				Kind       string `json:"kind"`
			} `json:"hits"`
		}
		if err := json.Unmarshal(l.Result, &r); err != nil {
			return err
		}
		for _, h := range r.Hits {
			fmt.Println(l.Index, h.DocumentID, h.Kind, trainprint.UTF16Slice(outputs[l.Index]["text"], h.QueryStart, h.QueryEnd))
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CancelJob(ctx, job.JobID); err != nil { // finished: deleted with its results
		log.Fatal(err)
	}
}
