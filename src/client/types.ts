/**
 * Request and response types of the HTTP API that the library has no type for (the library's
 * own — AnalysisResult, Work, Monitor, … — are imported from the library module as types only, so
 * the client carries no engine code). Every success body is the result with `success: true`
 * at the top level ({@link Ok}).
 */
import type {
  AnalyzeRequest,
  AssessRequest,
  AuditEntry,
  AuditFilter,
  AuditedWork,
  ContentType,
  CreateMonitorRequest,
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  EvidenceBundle,
  ExtractRequest,
  JobType,
  ListingFilter,
  Listing,
  Monitor,
  Offer,
  OfferStatus,
  ProbeRequest,
  RegisterWorkRequest,
  ScoreRequest,
  TrackWorkRequest,
  VerifiedLicence,
  Work,
  WorkExtractionResult,
} from '../library.js';
import type { ModelSpec, StatusReport } from '../http/index.js';

/**
 * A success body: the result's fields and `success: true`.
 * @example const w: Ok<Work> = await client.getWork(id); w.success // true
 */
export type Ok<T> = T & { readonly success: true };

/** Any JSON object (bodies of routes the client has no type for). */
export type JsonObject = { [key: string]: unknown };

/** `POST /api/v1/attribution/analyze` (the service's request). */
export type AnalyzeBody = AnalyzeRequest;

/**
 * The 202 answer of `analyzeAsync` (`POST /api/v1/attribution/analyze` with `Prefer: respond-async`): a one-item
 * `analyze` job in the server's job store. Poll it with `getJob(job_id)`; its one result line (`jobResults`) is the
 * analysis.
 * @example const started = await client.analyzeAsync({ content, content_type: 'text' }) // { job_id, status_url, … }
 */
export type AnalysisAccepted = CatalogueJob;

/**
 * A built-in job type: the library's `JobType`, derived from its registry of job types (a type added there is a type
 * here, with no second list to keep).
 * @example const t: CatalogueJobType = 'scan'
 */
export type CatalogueJobType = JobType;

/**
 * A catalogue job (`POST /api/v1/jobs`, `GET /api/v1/jobs/{job_id}`): many items of one type run in the server's
 * background, in its store. Times are ISO 8601.
 * @example const job = await client.getJob(jobId); console.log(`${job.done}/${job.total}`, job.eta_seconds)
 */
export interface CatalogueJob {
  /** `job_` + 32 hex digits. */
  readonly job_id: string;
  readonly type: CatalogueJobType;
  readonly state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly total: number;
  /** Items with a result, failed ones included: never decreases. */
  readonly done: number;
  readonly failed: number;
  readonly created: string;
  readonly started: string | null;
  readonly finished: string | null;
  /** Seconds the rest takes at the rate so far; null before the first result and once finished. */
  readonly eta_seconds: number | null;
  readonly status_url: string;
  readonly results_url: string;
  /** `failed` only. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * `GET /api/v1/jobs`: a page of the account's jobs, newest first; `next` the cursor of the next page.
 * @example const { jobs, next } = await client.listJobs({ limit: 20 })
 */
export interface CatalogueJobList {
  readonly jobs: readonly CatalogueJob[];
  readonly next: string | null;
}

/**
 * The body of `POST /api/v1/jobs`: the type and its items (each what the type's own route takes; a scan item is
 * `{ id, text }`), and for a scan its options.
 * @example await client.createJob({ type: 'scan', items: [{ id: 'out-1', text }], options: { min_words: 50 } })
 */
export interface CreateJobBody {
  readonly type: CatalogueJobType;
  readonly items: readonly unknown[];
  readonly options?: {
    readonly datasets?: readonly string[];
    readonly min_words?: number;
    readonly paraphrase?: boolean;
  };
}

/**
 * One line of a job's results: the item's index and its result (what the item's request answers, without the
 * envelope) or its error.
 * @example for await (const line of client.jobResults(jobId)) if (!line.success) console.warn(line.index, line.error.code)
 */
export type JobResultLine =
  | { readonly index: number; readonly success: true; readonly result: JsonObject }
  | {
      readonly index: number;
      readonly success: false;
      readonly error: { readonly code: string; readonly message: string };
    };

/**
 * `GET /api/v1/jobs/{job_id}/results/{item}/works`: a page of an audit item's works, in the catalogue's order.
 * @example const page = await client.auditWorks(jobId, 0, { after: 500, limit: 1000 }) // page.next: the next after
 */
export interface AuditWorksPage {
  readonly job_id: string;
  readonly item: number;
  readonly audit_sha256: string;
  /** Works in the catalogue. */
  readonly total: number;
  readonly works: AuditedWork[];
  /** The `after` of the next page; null on the last. */
  readonly next: number | null;
}

/** `DELETE /api/v1/jobs/{job_id}`: the cancelled job, or `{ job_id, deleted: true }` for a finished one deleted. */
export type CancelledJob =
  | (CatalogueJob & { readonly deleted: false })
  | { readonly job_id: string; readonly deleted: true };

/**
 * `GET /api/v1/attribution/jobs/{job_id}`, the alias of `GET /api/v1/jobs/{job_id}`: the job of a background
 * analysis, as `getJob` reads it.
 * @example
 * const job = await client.getAnalysisJob(jobId)
 * if (job.state === 'done') for await (const line of client.jobResults(jobId)) if (line.success) return line.result
 */
export type AnalysisJob = CatalogueJob;

/**
 * `GET /api/v1/attribution/analyses/{analysis_id}/report` query.
 * @example await client.getAnalysisReport(id, { format: 'json' }) // the evidence bundle, as getEvidenceBundle
 */
export interface AnalysisReportQuery {
  /** `html`: the work report page; `json`: the signed evidence bundle instead. @default 'html' */
  readonly format?: 'html' | 'json';
}

/**
 * A signed evidence bundle as served: its bytes — its canonical JSON (RFC 8785), no success envelope — and the same
 * parsed. Verify the bytes: `verifyEvidenceBundle` then also checks that they are the bundle's canonical form, so a
 * copy changed after it was served fails even where the change parses alike.
 * @example
 * import { verifyEvidenceBundle } from 'trainprint/evidence'
 * const { bytes, bundle } = await client.getEvidenceBundle(id)
 * const { valid } = await verifyEvidenceBundle(bytes, { publicKey: await client.getReportKey() })
 */
export interface EvidenceBundleDownload {
  /** The body exactly as served (UTF-8 JSON). */
  readonly bytes: Uint8Array;
  /** The same bundle, parsed. */
  readonly bundle: EvidenceBundle;
}

/**
 * `GET /api/v1/attribution/analyses/{analysis_id}/extractions`: the account's extractions of the analysed text, the
 * records its evidence bundle signs as `model_extractions`, unsigned.
 * @example const { extractions } = await client.getAnalysisExtractions(id); extractions[0]?.nv_recall
 */
export interface AnalysisExtractions {
  readonly analysis_id: string;
  /** SHA-256 (hex) of the UTF-8 of the analysed text; null when the analysis was kept without it. */
  readonly text_sha256: string | null;
  /** The account's extract jobs' results over that text, oldest first. */
  readonly extractions: readonly WorkExtractionResult[];
}

/** `POST /api/v1/content/register`: the account of the key is the owner. */
export type RegisterWorkBody = Omit<RegisterWorkRequest, 'owner'>;

/** `POST /api/v1/monitors/create`. */
export type CreateMonitorBody = CreateMonitorRequest;

/** `POST /api/v1/attribution/score` (and `GET` with the same query). */
export type ScoreBody = ScoreRequest;

/**
 * `POST /api/v1/attribution/fingerprint`.
 * @example await client.fingerprint({ content: text, include_winnow: true })
 */
export interface FingerprintBody {
  readonly content: string;
  /** @default 'text' */
  readonly content_type?: ContentType;
  readonly options?: {
    readonly normalize?: 'nfkc-casefold' | 'none';
    readonly shingle?: { readonly unit?: 'word' | 'char'; readonly size: number };
    readonly seed?: number;
    readonly winnow?: false | { readonly window: number };
    readonly minhash?: false | { readonly mode?: 'oph' | 'classic'; readonly permutations?: number };
    readonly simhash?: boolean;
  };
  /** Also return the winnowed fingerprints with their spans in `content`. @default false */
  readonly include_winnow?: boolean;
}

/** Result of `fingerprint`: `fingerprint` and `work_hash` are what `registerWork({ fingerprint })` takes. */
export interface FingerprintResult {
  readonly version: 1;
  readonly params: string;
  /** `tp1:` + 32 hex: id of the normalised text. */
  readonly fingerprint: string;
  /** `sha256:` + 64 hex of the content's UTF-8 bytes. */
  readonly work_hash: string;
  readonly byte_length: number;
  readonly token_count: number;
  readonly shingle_count: number;
  /** 16 hex digits, or null when simhash was off. */
  readonly simhash: string | null;
  readonly minhash: number[] | null;
  /** With `include_winnow`: 16-hex hashes and their UTF-16 spans in `content`. */
  readonly winnow?: { readonly hashes: string[]; readonly starts: number[]; readonly ends: number[] };
}

/** `GET /api/v1/content` page. */
export interface WorkList {
  readonly works: Work[];
  /** Pass as `after` for the next page; null on the last. */
  readonly next: string | null;
}

/** `DELETE` results. */
export interface Deleted {
  readonly id: string;
  readonly deleted: true;
}

/**
 * A dataset as the API shows it: the library's stats plus `supplied_by` (`shipped`: a reference pack or the starter,
 * whose `kb_dataset` is documented with it; `operator` or `account`: whose `kb_dataset` is that loader's declaration)
 * and `durable`, whether it outlasts a restart of the server (false for a dataset created or imported through the
 * API: it lives in the server's memory).
 *
 * @example
 * const { durable } = await client.datasets.create({ id: 'my-essays', name: 'My essays' });
 * if (!durable) console.warn('kept until the server restarts: export it to keep a copy');
 */
export type ApiDataset = DatasetStats & {
  readonly supplied_by: 'shipped' | 'operator' | 'account';
  readonly durable: boolean;
};

/**
 * A monitor as the API shows it: the library's monitor plus `missing_datasets`, the datasets it is limited
 * to that this server does not hold now (a dataset created through the API and lost on a restart).
 *
 * @example
 * const m = await client.monitors.get(id);
 * if (m.missing_datasets.length) console.warn(`not searched: ${m.missing_datasets.join(', ')}`);
 */
export type ApiMonitor = Monitor & { readonly missing_datasets: readonly string[] };

/** `POST /api/v1/datasets`: a descriptor and, optionally, the first documents. */
export interface CreateDatasetBody extends DatasetDescriptor {
  readonly documents?: readonly DatasetDocument[];
}

/** `GET /api/v1/kb/models` filters. */
export interface KbModelQuery {
  readonly provider?: string;
  readonly modality?: 'text' | 'image';
  readonly disclosure?: 'full' | 'partial' | 'undisclosed';
  /** Models with a documented link to this dataset (id or name). */
  readonly dataset?: string;
}

/** A row of `GET /api/v1/kb/jurisdictions`. */
export interface JurisdictionRow {
  readonly code: string;
  readonly name: string;
  readonly base: number;
  readonly factors: readonly string[];
  readonly reasons: string;
}

/** `GET /api/v1/usage`. */
export interface Usage {
  readonly account: string;
  readonly plan: string;
  readonly window: 'day';
  /** Calls per window; null: no limit. */
  readonly limit: number | null;
  readonly used: number;
  readonly remaining: number | null;
  readonly reset_at: string;
  readonly reset_seconds: number;
}

/** Scopes of keys and tokens (src/http/context.ts `SCOPES`). */
export type Scope =
  | 'analyze'
  | 'registry:read'
  | 'registry:write'
  | 'monitors'
  | 'datasets:read'
  | 'datasets:write'
  | 'kb'
  | 'usage'
  | 'keys'
  | 'marketplace'
  | 'memorization';

/** An API key as listings show it (never the key). */
export interface ApiKeyInfo {
  readonly key_id: string;
  readonly name: string | null;
  readonly prefix: 'tp_live_' | 'tp_test_';
  readonly last4: string;
  readonly account: string;
  readonly plan: string;
  readonly scopes: Scope[];
  readonly mode: 'live' | 'test';
  readonly created_at: string;
  readonly revoked: boolean;
  readonly revoked_at: string | null;
}

/** `POST /api/v1/keys`: scopes default to the caller's; plan and account are the caller's. */
export interface CreateKeyBody {
  readonly name?: string;
  readonly scopes?: readonly Scope[];
  readonly mode?: 'live' | 'test';
}

/** An OAuth client as listings show it (never the secret). */
export interface OAuthClientInfo {
  readonly client_id: string;
  readonly name: string | null;
  readonly account: string;
  readonly plan: string;
  readonly scopes: Scope[];
  readonly created_at: string;
  readonly revoked: boolean;
  readonly revoked_at: string | null;
}

/** `POST /api/v1/oauth/token` response (RFC 6749 §5.1; no success envelope). */
export interface AccessToken {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

/** `GET /api/v1/status`: the server's own type. */
export type { StatusReport };

// ------------------------------------------------------------------ marketplace

/** `GET /api/v1/marketplace/listings` filters (drafts only the account's own). */
export type ListingQuery = ListingFilter;

/** `GET /api/v1/marketplace/offers`: the account's offers; `role` narrows to one side. */
export interface OfferQuery {
  readonly role?: 'buyer' | 'seller';
  readonly listing_id?: string;
  readonly status?: OfferStatus;
  readonly after?: string;
  readonly limit?: number;
}

/** `GET /api/v1/marketplace/licences`: the account's licences; `role` narrows to one side. */
export interface LicenceQuery {
  readonly role?: 'licensor' | 'licensee';
  readonly listing_id?: string;
  readonly work_id?: string;
  readonly after?: string;
  readonly limit?: number;
}

/** `GET /api/v1/marketplace/audit`: entries about a listing or work the account owns, or an offer or licence it is party to. */
export type AuditQuery = AuditFilter & { readonly entity_id: string };

/** Pages of the marketplace lists. */
export interface ListingPage {
  readonly listings: Listing[];
  readonly next: string | null;
}
export interface OfferPage {
  readonly offers: Offer[];
  readonly next: string | null;
}
export interface LicencePage {
  readonly licences: VerifiedLicence[];
  readonly next: string | null;
}
export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly next: string | null;
}

// ------------------------------------------------------------------ memorization

/**
 * The target model of a memorization request: an OpenAI-compatible service the SERVER calls (its operator decides
 * which hosts it may reach); the server's own type. `api_key` is sent to that service only.
 * @example const m: ModelSpec = { base_url: 'https://models.example.org/v1', model: 'llama-3.1-8b', api_key: 'sk-…' }
 */
export type { ModelSpec };

/** An engine request with its `model` given as a {@link ModelSpec} (distributes over unions). */
export type WithModelSpec<T> = T extends unknown ? Omit<T, 'model'> & { readonly model: ModelSpec } : never;

/** `POST /api/v1/memorization/register-work`: `work_id`, or `work` (registered for the account). */
export type TrackWorkBody = Omit<TrackWorkRequest, 'work'> & { readonly work?: Omit<RegisterWorkRequest, 'owner'> };
export type ExtractBody = WithModelSpec<ExtractRequest>;
/** Probe settings over HTTP: the reference model is a {@link ModelSpec} too (distributes over unions). */
export type WithReferenceModelSpec<T> = T extends unknown
  ? Omit<T, 'reference_model'> & { readonly reference_model?: ModelSpec }
  : never;
export type ProbeBody = WithReferenceModelSpec<WithModelSpec<ProbeRequest>>;
export type AssessBody = Omit<WithModelSpec<AssessRequest>, 'probe'> & {
  readonly probe?: WithReferenceModelSpec<Exclude<AssessRequest['probe'], false | undefined>> | false;
};

/** The library's types the client's methods use, re-exported for callers. */
export type {
  AssessRequest,
  Assessment,
  AuditEntry,
  CompareOutputRequest,
  CompareOutputResult,
  CounterOfferRequest,
  CreateListingRequest,
  ExtractionResult,
  Licence,
  Listing,
  MakeOfferRequest,
  Offer,
  ProbeResult,
  ReferenceSetInfo,
  ReferenceSetRequest,
  TrackedWork,
  UpdateListingRequest,
  VerifiedLicence,
} from '../library.js';
/** The library's types the client's methods use, re-exported for callers. */
export type {
  AnalysisResult,
  AnalyzeRequest,
  Comparison,
  CreateMonitorRequest,
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  EvidenceBundle,
  FactorInfo,
  KbDataset,
  KbModel,
  KbProvider,
  Monitor,
  MonitorEvent,
  Receipt,
  RegisterWorkResult,
  ReportPublicKey,
  ScoreRequest,
  ScoreResult,
  Work,
  WorkExtractionResult,
} from '../library.js';
