package trainprint_test

import (
	"context"
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
