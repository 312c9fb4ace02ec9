// Package trainprint is a client of the trainprint HTTP API (/api/v1): training-data
// attribution (analyze, compare, score, fingerprint) and the works registry, with typed
// requests and results, typed errors and retries. Standard library only.
//
//	c, err := trainprint.NewClient(os.Getenv("TRAINPRINT_API_KEY"), trainprint.WithBaseURL("http://127.0.0.1:8787"))
//	if err != nil { ... }
//	r, err := c.Analyze(ctx, trainprint.AnalyzeRequest{Content: text, ContentType: trainprint.ContentText})
//	var apiErr *trainprint.APIError
//	if errors.As(err, &apiErr) {
//		fmt.Println(apiErr.Status, apiErr.Code, apiErr.Message, apiErr.RequestID)
//	}
//	if errors.Is(err, trainprint.ErrRateLimited) { ... }
//
// Every method takes a context: its cancellation and deadline stop the call and its retries.
// Routes without a typed method are reachable with [Client.Do].
//
// Retries follow the other trainprint clients: a 429 is retried for every method (the server
// refuses it before doing anything), waiting Retry-After (seconds or an HTTP date) when that is
// at most the client's MaxRetryDelay — a longer one is returned at once as an *APIError with
// RetryAfter set. Network errors, per-attempt timeouts and 5xx are retried only for idempotent
// calls: GET, HEAD, DELETE, PUT, a POST sent with an idempotency key (the server replays the
// first result), or a POST that changes nothing (Compare, Score, Fingerprint, VerifyReceipt).
// Without Retry-After the wait is exponential backoff with full jitter (random up to
// min(8 s, 0.5 s × 2^n)). At most MaxRetries retries and MaxTotalWait of waiting per call, and
// never a wait that would end after the context's deadline.
//
// Spans in results (Match.QueryStart, AlignedSpan.AStart, …) are UTF-16 code-unit offsets, as
// everywhere in the API; [UTF16Slice] cuts a Go string by them.
package trainprint
