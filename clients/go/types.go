package trainprint

import "encoding/json"

// ContentType says how to read content: markup is reduced to its readable text, and spans
// still point into the content as sent; a file (EPUB, PDF, DOCX) is reduced to its text, and
// spans point into that (the result's extraction).
type ContentType string

// Content types.
const (
	ContentText     ContentType = "text"
	ContentMarkdown ContentType = "markdown"
	ContentHTML     ContentType = "html"
	ContentEPUB     ContentType = "epub"
	ContentPDF      ContentType = "pdf"
	ContentDOCX     ContentType = "docx"
)

// Declarations of the rights holder.
type Declarations struct {
	// TDMOptOut: the holder reserved text and data mining / AI training.
	TDMOptOut *bool `json:"tdm_opt_out,omitempty"`
	// Since when (YYYY-MM-DD or a full timestamp).
	Since string `json:"since,omitempty"`
}

// AnalyzeMetadata is the optional metadata of an analysis.
type AnalyzeMetadata struct {
	// Title and Author: 1 to 1000 characters each; kept in the result and offered as
	// RegisterPrefill.
	Title  string `json:"title,omitempty"`
	Author string `json:"author,omitempty"`
	// WorkType: book, article, news, code or other.
	WorkType string `json:"work_type,omitempty"`
	// Jurisdiction: an ISO 3166 code (US, DE, EU, US-CA, …).
	Jurisdiction string        `json:"jurisdiction,omitempty"`
	Declarations *Declarations `json:"declarations,omitempty"`
}

// AnalyzeRequest is the body of POST /api/v1/attribution/analyze.
type AnalyzeRequest struct {
	// Content: 1 character to 10 MiB of UTF-8; a file (ContentEPUB, ContentPDF, ContentDOCX): its
	// bytes in base64 (at most the key's plan's file size) with ContentEncoding "base64", or send
	// the file with AnalyzeFile.
	Content     string           `json:"content"`
	ContentType ContentType      `json:"content_type"`
	Metadata    *AnalyzeMetadata `json:"metadata,omitempty"`
	// ContentEncoding: "base64" with a file, empty with text.
	ContentEncoding string `json:"content_encoding,omitempty"`
	// IncludeText: a file's extracted text comes back in the result's extraction.
	IncludeText bool `json:"include_text,omitempty"`
	// SearchRemote: false keeps the content on the server (the remote corpora it was started with are not
	// searched); nil or true lets it send the content to them.
	SearchRemote *bool `json:"search_remote,omitempty"`
	// Quotations: "exclude" (the default when empty) shows text the work quotes as a quotation
	// (Match role "quotation") and leaves it out of the confidence; "count" counts it.
	Quotations string `json:"quotations,omitempty"`
}

// RemoteCorpusReport says what one remote corpus (an infini-gram index) did in an analysis: where the
// content was sent and how the search ended (Outcome "searched", "unreachable", "rate_limited",
// "budget_exhausted", "deadline_reached", "rejected", "invalid_response" or "cancelled").
type RemoteCorpusReport struct {
	DatasetID    string  `json:"dataset_id"`
	Engine       string  `json:"engine"`
	Endpoint     string  `json:"endpoint"`
	Index        string  `json:"index"`
	Outcome      string  `json:"outcome"`
	Message      *string `json:"message"`
	Calls        int     `json:"calls"`
	Cached       int     `json:"cached"`
	Budget       int     `json:"budget"`
	Ms           float64 `json:"ms"`
	Samples      int     `json:"samples"`
	SampledEvery int     `json:"sampled_every"`
	Unit         string  `json:"unit"`
	Documents    int     `json:"documents"`
	Matches      int     `json:"matches"`
}

// Match is a reused passage (Kind "exact" or "portrait") or a near-duplicate document ("near").
// Offsets are UTF-16 code units (see UTF16Slice).
type Match struct {
	DatasetID string `json:"dataset_id"`
	// DocumentID is nil for portrait datasets.
	DocumentID  *string `json:"document_id"`
	QueryStart  int     `json:"query_start"`
	QueryEnd    int     `json:"query_end"`
	SourceStart *int    `json:"source_start"`
	SourceEnd   *int    `json:"source_end"`
	Kind        string  `json:"kind"`
	Tokens      int     `json:"tokens"`
	Score       float64 `json:"score"`
	// Remote matches (Kind "remote") only: the engine's document number, the document window it returned
	// (SourceStart/SourceEnd point into it), how often the span occurs in the corpus, whether that makes it
	// boilerplate, and the document's metadata as the index holds it.
	DocIx       *int64          `json:"doc_ix,omitempty"`
	SourceText  *string         `json:"source_text,omitempty"`
	Count       *float64        `json:"count,omitempty"`
	Boilerplate *bool           `json:"boilerplate,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}

// AttributionSource is a model the evidence links the content to.
type AttributionSource struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Confidence: 0..100 (one decimal), like AnalysisResult.Confidence: 100 × dataset confidence ×
	// LinkCertainty.
	Confidence float64 `json:"confidence"`
	// ConfidenceCI95: the 95 % interval of Confidence, 0..100.
	ConfidenceCI95  [2]float64 `json:"confidence_ci_95"`
	TrainingDataset string     `json:"training_dataset"`
	KBDataset       *string    `json:"kb_dataset"`
	DatasetID       string     `json:"dataset_id"`
	Link            string     `json:"link"`
	// SuppliedBy: who supplied the dataset — "shipped" (a reference pack of the package), "operator" or
	// "account" (the asking account's own upload, which no other account's results see).
	SuppliedBy    string   `json:"supplied_by"`
	Declared      bool     `json:"declared"`
	LinkCertainty float64  `json:"link_certainty"`
	LinkReason    string   `json:"link_reason"`
	Disclosure    string   `json:"disclosure"`
	Citations     []string `json:"citations"`
}

// RiskModifier is one part of a risk weight.
type RiskModifier struct {
	Code  string  `json:"code"`
	Delta float64 `json:"delta"`
}

// RiskAssessment of an analysis.
type RiskAssessment struct {
	// Level: none, low, medium, high or critical.
	Level            string         `json:"level"`
	Factors          []string       `json:"factors"`
	Score            float64        `json:"score"`
	Jurisdiction     *string        `json:"jurisdiction"`
	BaseWeight       float64        `json:"base_weight"`
	Modifiers        []RiskModifier `json:"modifiers"`
	AttributionScale float64        `json:"attribution_scale"`
}

// EstimatedRevenue of an analysis; Basis describes the method (kept as JSON).
type EstimatedRevenue struct {
	Monthly  *float64        `json:"monthly"`
	Currency string          `json:"currency"`
	Basis    json.RawMessage `json:"basis"`
}

// DatasetCoverage is the share of the content found in one dataset.
type DatasetCoverage struct {
	Share      float64         `json:"share"`
	LongestRun int             `json:"longest_run"`
	Membership json.RawMessage `json:"membership,omitempty"`
}

// RegisterPrefill holds the fields of a registration request taken from the analysis request's
// metadata (only those given).
type RegisterPrefill struct {
	Title  string `json:"title,omitempty"`
	Author string `json:"author,omitempty"`
}

// NextSteps of an analysis: the service's links (every value is a path).
type NextSteps struct {
	// RegisterContent: "/api/v1/content/register".
	RegisterContent string `json:"register_content"`
	// SetupMonitoring: "/api/v1/monitors/create".
	SetupMonitoring string `json:"setup_monitoring"`
}

// AnalysisResult is the result of Analyze and GetAnalysis.
type AnalysisResult struct {
	Success    bool   `json:"success"`
	AnalysisID string `json:"analysis_id"`
	// Fingerprint is the content's fingerprint id (tp1:…).
	Fingerprint string `json:"fingerprint"`
	// Confidence: 0..100, the first attribution source's (0 without sources).
	Confidence         float64             `json:"confidence"`
	ConfidenceCI95     [2]float64          `json:"confidence_ci_95"`
	PotentialMatches   int                 `json:"potential_matches"`
	EstimatedRevenue   EstimatedRevenue    `json:"estimated_revenue"`
	AttributionSources []AttributionSource `json:"attribution_sources"`
	RiskAssessment     RiskAssessment      `json:"risk_assessment"`
	NextSteps          NextSteps           `json:"next_steps"`
	// RegisterPrefill is nil unless the request's metadata had a title or an author.
	RegisterPrefill *RegisterPrefill `json:"register_prefill,omitempty"`
	ContentType     ContentType      `json:"content_type"`
	// Title and Author: the request's metadata.title and metadata.author, empty when not given.
	Title    string  `json:"title,omitempty"`
	Author   string  `json:"author,omitempty"`
	WorkHash string  `json:"work_hash"`
	Tokens   int     `json:"tokens"`
	Matches  []Match `json:"matches"`
	// Coverage by dataset id.
	Coverage map[string]DatasetCoverage `json:"coverage"`
	// Evidence: how the confidence was computed (kept as JSON).
	Evidence    json.RawMessage `json:"evidence"`
	Limitations []string        `json:"limitations"`
	// RemoteCorpora: every remote corpus the content was sent to, and how its search went.
	RemoteCorpora []RemoteCorpusReport `json:"remote_corpora"`
	CreatedAt     string               `json:"created_at"`
}

// AlignedSpan is one aligned passage: a[AStart:AEnd] was reused as b[BStart:BEnd] (UTF-16 offsets).
type AlignedSpan struct {
	AStart int     `json:"a_start"`
	AEnd   int     `json:"a_end"`
	BStart int     `json:"b_start"`
	BEnd   int     `json:"b_end"`
	Score  float64 `json:"score"`
	// Kind is "verbatim", "edited", "paraphrase" (by Similarity) or "summary" (a condenses a longer passage of b).
	Kind string `json:"kind"`
	// Similarity is the share of a's words in runs of at least 3 words that b's side holds too.
	Similarity float64 `json:"similarity"`
}

// Comparison is the result of Compare.
type Comparison struct {
	Success      bool          `json:"success"`
	Similarity   float64       `json:"similarity"`
	Jaccard      float64       `json:"jaccard"`
	ContainmentA float64       `json:"containment_a"`
	ContainmentB float64       `json:"containment_b"`
	Spans        []AlignedSpan `json:"spans"`
}

// FingerprintRef registers a work by its fingerprint when the text stays with you.
type FingerprintRef struct {
	Fingerprint string `json:"fingerprint"`
	WorkHash    string `json:"work_hash"`
}

// RegisterWorkRequest is the body of POST /api/v1/content/register: Content or Fingerprint.
type RegisterWorkRequest struct {
	Content      string          `json:"content,omitempty"`
	ContentType  ContentType     `json:"content_type,omitempty"`
	Fingerprint  *FingerprintRef `json:"fingerprint,omitempty"`
	Title        string          `json:"title,omitempty"`
	Author       string          `json:"author,omitempty"`
	WorkType     string          `json:"work_type,omitempty"`
	Declarations *Declarations   `json:"declarations,omitempty"`
	// Metadata: the analyze request's shape (Title, Author, WorkType, Declarations) instead of the
	// fields above; a field given in both places, or a Jurisdiction, is refused.
	Metadata *AnalyzeMetadata `json:"metadata,omitempty"`
}

// Receipt is the service's signed registration receipt (verify it with VerifyReceipt).
type Receipt struct {
	Version      int    `json:"version"`
	Alg          string `json:"alg"`
	KeyID        string `json:"key_id"`
	WorkHash     string `json:"work_hash"`
	Owner        string `json:"owner"`
	RegisteredAt string `json:"registered_at"`
	Signature    string `json:"signature"`
}

// Work is a registered work.
type Work struct {
	Success      bool         `json:"success"`
	WorkID       string       `json:"work_id"`
	WorkHash     string       `json:"work_hash"`
	Fingerprint  string       `json:"fingerprint"`
	Owner        string       `json:"owner"`
	Title        *string      `json:"title"`
	Author       *string      `json:"author"`
	WorkType     *string      `json:"work_type"`
	ContentType  *ContentType `json:"content_type"`
	Declarations Declarations `json:"declarations"`
	Tokens       int          `json:"tokens"`
	// HasText: the text is kept (registered from content); Score needs it.
	HasText           bool     `json:"has_text"`
	RegisteredAt      string   `json:"registered_at"`
	Receipt           Receipt  `json:"receipt"`
	ConflictingClaims []string `json:"conflicting_claims"`
}

// RegisterWorkResult is a Work; Created is false when the account had registered this work_hash already.
type RegisterWorkResult struct {
	Work
	Created bool `json:"created"`
}

// WorkList is one page of ListWorks.
type WorkList struct {
	Success bool   `json:"success"`
	Works   []Work `json:"works"`
	// Next: pass as ListWorksOptions.After for the next page; nil on the last.
	Next *string `json:"next"`
}

// ListWorksOptions pages ListWorks.
type ListWorksOptions struct {
	After string `json:"after,omitempty"`
	// Limit: 1–1000 (0: the server's default, 100).
	Limit int `json:"limit,omitempty"`
}

// ScoreRequest is the body of POST /api/v1/attribution/score.
type ScoreRequest struct {
	WorkHash string `json:"work_hash"`
	// TargetModel: provider/model_name, a model of the knowledge base.
	TargetModel string `json:"target_model"`
	// Jurisdiction: ISO 3166 (US, US-CA, DE, GB, EU, …).
	Jurisdiction string `json:"jurisdiction"`
}

// ReusedShare is the share of a work's chunks with a match in the model's datasets.
type ReusedShare struct {
	Estimate      float64    `json:"estimate"`
	CI95          [2]float64 `json:"ci_95"`
	FlaggedChunks int        `json:"flagged_chunks"`
	NChunks       int        `json:"n_chunks"`
}

// LegalRisk of a score.
type LegalRisk struct {
	Jurisdiction     string         `json:"jurisdiction"`
	Level            string         `json:"level"`
	Weight           float64        `json:"weight"`
	BaseWeight       float64        `json:"base_weight"`
	Modifiers        []RiskModifier `json:"modifiers"`
	AttributionScale float64        `json:"attribution_scale"`
	Factors          []string       `json:"factors"`
}

// TierReason says why a score has its tier: a stable code and its sentence.
type TierReason struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ScoreResult is the result of Score.
type ScoreResult struct {
	Success     bool   `json:"success"`
	WorkHash    string `json:"work_hash"`
	WorkID      string `json:"work_id"`
	TargetModel string `json:"target_model"`
	Provider    string `json:"provider"`
	// Score: 0..100, P(the model trained on at least part of the work) × 100.
	Score float64 `json:"score"`
	// Tier: confirmed, strong, moderate, weak or inconclusive.
	Tier string `json:"tier"`
	// TierReasons: the deciding rule first, then what kept the tier from confirmed.
	TierReasons []TierReason `json:"tier_reasons"`
	// ToRaise: what evidence would raise the tier (empty for confirmed).
	ToRaise     []string    `json:"to_raise"`
	CI95        [2]float64  `json:"ci_95"`
	ReusedShare ReusedShare `json:"reused_share"`
	LegalRisk   LegalRisk   `json:"legal_risk"`
	Factors     []string    `json:"factors"`
	Limitations []string    `json:"limitations"`
	// Evidence: chunks and datasets behind the score (kept as JSON).
	Evidence json.RawMessage `json:"evidence"`
}

// FingerprintRequest is the body of POST /api/v1/attribution/fingerprint.
type FingerprintRequest struct {
	Content     string      `json:"content"`
	ContentType ContentType `json:"content_type,omitempty"`
	// Options: normalize, shingle, seed, winnow, minhash, simhash (see docs/http.md).
	Options       map[string]interface{} `json:"options,omitempty"`
	IncludeWinnow bool                   `json:"include_winnow,omitempty"`
}

// FingerprintResult is the result of Fingerprint.
type FingerprintResult struct {
	Success      bool            `json:"success"`
	Version      int             `json:"version"`
	Params       string          `json:"params"`
	Fingerprint  string          `json:"fingerprint"`
	WorkHash     string          `json:"work_hash"`
	ByteLength   int             `json:"byte_length"`
	TokenCount   int             `json:"token_count"`
	ShingleCount int             `json:"shingle_count"`
	Simhash      *string         `json:"simhash"`
	Minhash      []int64         `json:"minhash"`
	Winnow       json.RawMessage `json:"winnow,omitempty"`
}

// Deleted is the result of a DELETE.
type Deleted struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// Valid is the result of a verification.
type Valid struct {
	Success bool `json:"success"`
	Valid   bool `json:"valid"`
}

// Usage is the result of Usage: calls used and left in the current window (this call included).
type Usage struct {
	Success bool   `json:"success"`
	Account string `json:"account"`
	Plan    string `json:"plan"`
	Window  string `json:"window"`
	// Limit and Remaining are nil when the plan has no limit.
	Limit        *int   `json:"limit"`
	Used         int    `json:"used"`
	Remaining    *int   `json:"remaining"`
	ResetAt      string `json:"reset_at"`
	ResetSeconds int    `json:"reset_seconds"`
}

// StatusComponent is one component of the service's status.
type StatusComponent struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// StatusCheck is the last self-check of the service.
type StatusCheck struct {
	At    string  `json:"at"`
	OK    bool    `json:"ok"`
	MS    float64 `json:"ms"`
	Error *string `json:"error"`
}

// StatusReport is the result of Status.
type StatusReport struct {
	Success bool `json:"success"`
	// Status: operational, degraded or major_outage.
	Status        string            `json:"status"`
	StartedAt     string            `json:"started_at"`
	UptimeSeconds float64           `json:"uptime_seconds"`
	Components    []StatusComponent `json:"components"`
	Checks        struct {
		Total  int          `json:"total"`
		Failed int          `json:"failed"`
		Last   *StatusCheck `json:"last"`
	} `json:"checks"`
	Requests struct {
		Total        int `json:"total"`
		ServerErrors int `json:"server_errors"`
	} `json:"requests"`
	Incidents []json.RawMessage `json:"incidents"`
}

// RateLimit holds the RateLimit-* headers of a response.
type RateLimit struct {
	Limit     int `json:"limit"`
	Remaining int `json:"remaining"`
	// Reset: seconds until the window resets.
	Reset int `json:"reset"`
	// Policy: e.g. "100;w=86400".
	Policy string `json:"policy"`
}
