"""Request and result shapes of the main routes, as ``TypedDict`` (plain dicts at run time).

Every success body is the result with ``"success": True`` at the top level. Spans
(``query_start``, ``a_start``, ...) are UTF-16 code-unit offsets, as everywhere in the API:
cut a Python string by them with :func:`trainprint_client.utf16_slice`. Routes without a type
here return :data:`Json` (``Dict[str, Any]``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

__all__ = [
    "Json", "ContentType", "WorkType", "Declarations", "AnalyzeMetadata", "AnalyzeRequest", "Match",
    "AttributionSource", "RiskAssessment", "EstimatedRevenue", "RegisterPrefill", "NextSteps", "TierReason", "AnalysisResult",
    "AlignedSpan", "Comparison",
    "Receipt", "RegisterWorkRequest", "FingerprintRef", "Work", "RegisterWorkResult", "WorkList",
    "ScoreRequest", "ScoreResult", "FingerprintRequest", "FingerprintResult", "Deleted", "Valid", "Usage",
    "StatusReport", "RateLimit",
]

Json = Dict[str, Any]
ContentType = Literal["text", "markdown", "html", "epub", "pdf", "docx"]
WorkType = Literal["book", "article", "news", "code", "other"]


class Declarations(TypedDict, total=False):
    """Declarations of the rights holder."""
    tdm_opt_out: bool
    since: str


class AnalyzeMetadata(TypedDict, total=False):
    #: 1 to 1000 characters; kept in the result and offered as ``register_prefill``.
    title: str
    #: 1 to 1000 characters; kept in the result and offered as ``register_prefill``.
    author: str
    work_type: WorkType
    #: ISO 3166: ``US``, ``DE``, ``EU``, ``US-CA``, ...
    jurisdiction: str
    declarations: Declarations


class _AnalyzeRequired(TypedDict):
    #: 1 character to 10 MiB of UTF-8; a file (``epub``, ``pdf``, ``docx``): its bytes in base64 (at most the key's
    #: plan's file size) with ``content_encoding: "base64"``, or send the file with ``Client.analyze_file``.
    content: str
    content_type: ContentType


class AnalyzeRequest(_AnalyzeRequired, total=False):
    """``POST /api/v1/attribution/analyze``."""
    metadata: AnalyzeMetadata
    #: ``False`` keeps the content on the server: the remote corpora it was started with are not searched.
    search_remote: bool
    #: ``"base64"`` with a file; absent with text.
    content_encoding: str
    #: A file's extracted text comes back in the result's ``extraction``.
    include_text: bool
    #: ``"exclude"`` (default): text the work quotes is shown as a quotation (``matches[].role``) and left out of the
    #: confidence; ``"count"`` counts it.
    quotations: Literal["exclude", "count"]


class RemoteCorpusReport(TypedDict):
    """One remote corpus (an infini-gram index) an analysis sent the content to, and how its search ended."""
    dataset_id: str
    engine: str
    endpoint: str
    index: str
    #: searched, unreachable, rate_limited, budget_exhausted, deadline_reached, rejected, invalid_response or cancelled
    outcome: str
    message: Optional[str]
    calls: int
    cached: int
    budget: int
    ms: float
    samples: int
    sampled_every: int
    unit: str
    documents: int
    matches: int


class Match(TypedDict):
    """A reused passage (``kind`` ``exact`` / ``portrait`` / ``remote`` / ``source``) or a near-duplicate document
    (``near``).

    Remote matches also carry ``doc_ix``, ``source_text``, ``count``, ``boilerplate`` and ``metadata``.
    """
    dataset_id: str
    document_id: Optional[str]
    query_start: int
    query_end: int
    source_start: Optional[int]
    source_end: Optional[int]
    kind: str
    tokens: int
    score: float


class AttributionSource(TypedDict):
    provider: str
    model: str
    #: 0..100 (one decimal), like the top-level ``confidence``: 100 x dataset confidence x ``link_certainty``.
    confidence: float
    #: 95 % interval of ``confidence``, 0..100.
    confidence_ci_95: List[float]
    training_dataset: str
    kb_dataset: Optional[str]
    dataset_id: str
    link: str
    #: shipped (a reference pack of the package), operator, or account (the asking account's own upload)
    supplied_by: str
    declared: bool
    link_certainty: float
    link_reason: str
    disclosure: str
    citations: List[str]


class RiskAssessment(TypedDict):
    level: str
    factors: List[str]
    score: float
    jurisdiction: Optional[str]
    base_weight: float
    modifiers: List[Json]
    attribution_scale: float


class EstimatedRevenue(TypedDict):
    monthly: Optional[float]
    currency: str
    basis: Json


class RegisterPrefill(TypedDict, total=False):
    """Fields for ``register_work`` taken from the analysis request's metadata (only those given)."""
    title: str
    author: str


class NextSteps(TypedDict):
    """The service's links (every value is a path)."""
    #: ``/api/v1/content/register``
    register_content: str
    #: ``/api/v1/monitors/create``
    setup_monitoring: str


class _AnalysisResultRequired(TypedDict):
    success: bool
    analysis_id: str
    fingerprint: str
    #: 0..100: the first attribution source's (0 without sources).
    confidence: float
    confidence_ci_95: List[float]
    potential_matches: int
    estimated_revenue: EstimatedRevenue
    attribution_sources: List[AttributionSource]
    risk_assessment: RiskAssessment
    next_steps: NextSteps
    content_type: ContentType
    work_hash: str
    tokens: int
    matches: List[Match]
    coverage: Dict[str, Json]
    evidence: Json
    limitations: List[str]
    created_at: str


class AnalysisResult(_AnalysisResultRequired, total=False):
    """Result of ``analyze`` and ``get_analysis``."""
    #: Every remote corpus the content was sent to (empty when the server searches none).
    remote_corpora: List[RemoteCorpusReport]
    #: Fields for ``register_work`` from the request's metadata; only when a title or an author was given.
    register_prefill: RegisterPrefill
    #: ``metadata.title`` of the request, when given.
    title: str
    #: ``metadata.author`` of the request, when given.
    author: str


class AlignedSpan(TypedDict):
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    score: float
    #: ``verbatim``, ``edited``, ``paraphrase`` (by ``similarity``) or ``summary`` (a condenses a longer passage of b).
    kind: str
    #: Share of a's words in runs of at least 3 words that b's side holds too.
    similarity: float


class Comparison(TypedDict):
    """Result of ``compare``: aligned passages of two texts."""
    success: bool
    similarity: float
    jaccard: float
    containment_a: float
    containment_b: float
    spans: List[AlignedSpan]


class Receipt(TypedDict):
    version: int
    alg: str
    key_id: str
    work_hash: str
    owner: str
    registered_at: str
    signature: str


class FingerprintRef(TypedDict):
    fingerprint: str
    work_hash: str


class RegisterWorkRequest(TypedDict, total=False):
    """``content`` or ``fingerprint`` (when the text stays with you), plus optional metadata."""
    content: str
    content_type: ContentType
    fingerprint: FingerprintRef
    title: str
    author: str
    work_type: WorkType
    declarations: Declarations
    #: The analyze request's shape (title, author, work_type, declarations) instead of the top-level fields; a field
    #: given in both places, or a jurisdiction, is refused.
    metadata: AnalyzeMetadata


class Work(TypedDict):
    success: bool
    work_id: str
    work_hash: str
    fingerprint: str
    owner: str
    title: Optional[str]
    author: Optional[str]
    work_type: Optional[WorkType]
    content_type: Optional[ContentType]
    declarations: Declarations
    tokens: int
    has_text: bool
    registered_at: str
    receipt: Receipt
    conflicting_claims: List[str]


class RegisterWorkResult(Work):
    #: False when the account had registered this work_hash already.
    created: bool


class WorkList(TypedDict):
    success: bool
    works: List[Work]
    #: pass as ``after`` for the next page; None on the last
    next: Optional[str]


class ScoreRequest(TypedDict):
    work_hash: str
    #: ``provider/model_name``, a model of the knowledge base
    target_model: str
    #: ISO 3166
    jurisdiction: str


class TierReason(TypedDict):
    """Why a score has its tier: a stable code (``too_few_chunks``, ``portrait_evidence_only``, ...) and its sentence."""
    code: str
    message: str


class ScoreResult(TypedDict):
    success: bool
    work_hash: str
    work_id: str
    target_model: str
    provider: str
    #: 0..100
    score: float
    tier: str
    #: The deciding rule first, then what kept the tier from ``confirmed``.
    tier_reasons: List[TierReason]
    #: What evidence would raise the tier (empty for ``confirmed``).
    to_raise: List[str]
    ci_95: List[float]
    reused_share: Json
    legal_risk: Json
    factors: List[str]
    limitations: List[str]
    evidence: Json


class _FingerprintRequired(TypedDict):
    content: str


class FingerprintRequest(_FingerprintRequired, total=False):
    content_type: ContentType
    options: Json
    include_winnow: bool


class FingerprintResult(TypedDict):
    success: bool
    version: int
    params: str
    fingerprint: str
    work_hash: str
    byte_length: int
    token_count: int
    shingle_count: int
    simhash: Optional[str]
    minhash: Optional[List[int]]


class Deleted(TypedDict):
    success: bool
    id: str
    deleted: bool


class Valid(TypedDict):
    success: bool
    valid: bool


class Usage(TypedDict):
    success: bool
    account: str
    plan: str
    window: str
    limit: Optional[int]
    used: int
    remaining: Optional[int]
    reset_at: str
    reset_seconds: int


class StatusReport(TypedDict):
    success: bool
    status: Literal["operational", "degraded", "major_outage"]
    started_at: str
    uptime_seconds: float
    components: List[Json]
    checks: Json
    requests: Json
    incidents: List[Json]


class RateLimit(TypedDict):
    """The ``RateLimit-*`` headers of the last response that carried them."""
    limit: int
    remaining: int
    #: seconds until the window resets
    reset: int
    policy: Optional[str]
