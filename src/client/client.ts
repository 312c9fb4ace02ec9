/**
 * `createClient({ api_key, base_url })`: the HTTP API under `/api/v1` as typed methods, one per
 * route of the table (src/http/routes/index.ts), plus `request()` for routes added later. Results are
 * the success bodies as sent (`{ success: true, ...result }`); failures reject with
 * {@link TrainprintApiError}. Retries and timeouts: src/client/transport.ts.
 */
import type {
  AnalysisResult,
  Assessment,
  CompareOutputRequest,
  CompareOutputResult,
  Comparison,
  CounterOfferRequest,
  CreateListingRequest,
  DatasetDocument,
  EvidenceBundle,
  ExtractionResult,
  FactorInfo,
  KbDataset,
  KbModel,
  KbProvider,
  Licence,
  Listing,
  MakeOfferRequest,
  MonitorEvent,
  Offer,
  ProbeResult,
  Receipt,
  ReferenceSetInfo,
  ReferenceSetRequest,
  RegisterWorkResult,
  ReportPublicKey,
  ScoreResult,
  TrackedWork,
  UpdateListingRequest,
  VerifiedLicence,
  Work,
} from '../library.js';
import { CLIENT_ERROR_CODES, TrainprintApiError } from './errors.js';
import { Transport, type CallOptions, type FetchLike, type RateLimitInfo, type RequestOptions } from './transport.js';
import type {
  AccessToken,
  AnalysisAccepted,
  AnalysisExtractions,
  AnalysisJob,
  AnalysisReportQuery,
  AnalyzeBody,
  CancelledJob,
  CatalogueJob,
  CatalogueJobList,
  CreateJobBody,
  JobResultLine,
  ApiDataset,
  ApiMonitor,
  ApiKeyInfo,
  AssessBody,
  AuditPage,
  AuditQuery,
  AuditWorksPage,
  CreateDatasetBody,
  CreateKeyBody,
  CreateMonitorBody,
  Deleted,
  EvidenceBundleDownload,
  ExtractBody,
  FingerprintBody,
  FingerprintResult,
  JsonObject,
  JurisdictionRow,
  KbModelQuery,
  LicencePage,
  LicenceQuery,
  ListingPage,
  ListingQuery,
  OAuthClientInfo,
  OfferPage,
  OfferQuery,
  Ok,
  ProbeBody,
  RegisterWorkBody,
  Scope,
  ScoreBody,
  StatusReport,
  TrackWorkBody,
  Usage,
  WorkList,
} from './types.js';

/**
 * Options of {@link createClient}. `api_key` and `base_url` are spelt as the service spells its
 * fields; the client's own settings are camelCase.
 *
 * @example
 * createClient({ api_key: process.env.TRAINPRINT_API_KEY, base_url: 'https://api.example.org', timeoutMs: 30_000 })
 */
export interface ClientOptions {
  /** An API key (`tp_live_…`, `tp_test_…`) or an OAuth access token; sent as `Authorization: Bearer …`. Public routes (status, openapi) need none. */
  readonly api_key?: string;
  /**
   * Where the API is, without `/api/v1` (a path prefix is kept: `https://example.org/trainprint`).
   * @default the page's origin in a browser, else 'http://127.0.0.1:8787' (`trainprint serve`)
   */
  readonly base_url?: string;
  /** The `fetch` to use. @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /** Retries after the first attempt (429; network errors and 5xx of idempotent calls). @default 3 */
  readonly maxRetries?: number;
  /** Time limit of each attempt, response body included; 0 for none. @default 60000 */
  readonly timeoutMs?: number;
  /** Longest wait before a retry; a 429 whose `Retry-After` is longer is thrown at once. @default 60000 */
  readonly maxRetryDelayMs?: number;
}

/** Pages of works. */
export interface WorkListQuery {
  /** The `next` of the previous page. */
  readonly after?: string;
  /** 1–1000. @default 100 */
  readonly limit?: number;
}

/** The HTTP API as methods. See {@link createClient}. */
export interface TrainprintClient {
  /** Base URL the client calls (normalised, no trailing slash). */
  readonly baseUrl: string;
  /** `RateLimit-*` of the last response that carried them (null before the first authenticated call). */
  readonly rateLimit: RateLimitInfo | null;

  // ------------------------------------------------------------ attribution
  /** `POST /api/v1/attribution/analyze` — corpus evidence, confidence, sources, risk, revenue. Spans are UTF-16 offsets into `content`. */
  analyze(body: AnalyzeBody, options?: CallOptions): Promise<Ok<AnalysisResult>>;
  /**
   * `POST /api/v1/attribution/analyze` with `Prefer: respond-async` — the request is checked and charged, then
   * answered 202 with a one-item `analyze` job in the server's job store (it survives a restart, and any process of
   * the server reads it); poll {@link TrainprintClient.getJob}, then read the analysis from its one result line.
   * A server that does not honour the preference answers the result at once: tell the two apart by `job_id`.
   *
   * @example
   * const started = await tp.analyzeAsync({ content: epubBytes, content_type: 'epub' })
   * if (!('job_id' in started)) return started // answered at once
   * for await (const line of tp.jobResults(started.job_id)) // waits while the job runs
   *   if (line.success) console.log((line.result as unknown as AnalysisResult).confidence)
   */
  analyzeAsync(body: AnalyzeBody, options?: CallOptions): Promise<Ok<AnalysisAccepted> | Ok<AnalysisResult>>;
  /** `GET /api/v1/attribution/analyses/{analysis_id}` — a stored analysis of the account. */
  getAnalysis(analysisId: string, options?: CallOptions): Promise<Ok<AnalysisResult>>;
  /**
   * `GET /api/v1/attribution/jobs/{job_id}` — the alias of `getJob` kept for the first background analyses: the job
   * of an `analyzeAsync`, in the same status model. Polls are not charged to the plan.
   * @example const { state, done, total } = await tp.getAnalysisJob(jobId)
   */
  getAnalysisJob(jobId: string, options?: CallOptions): Promise<Ok<AnalysisJob>>;

  // ------------------------------------------------------------ catalogue jobs
  /**
   * `POST /api/v1/jobs` — a catalogue job of many items (analyze, score or scan), run in the server's background and
   * kept in its store: answered 202 with the job. The items are charged to the plan at once (429 when they would pass
   * the day's limit); a job holds at most the plan's `jobItems` (413).
   * @example const job = await tp.createJob({ type: 'analyze', items: titles.map((t) => ({ content: t, content_type: 'text' })) })
   */
  createJob(body: CreateJobBody, options?: CallOptions): Promise<Ok<CatalogueJob>>;
  /**
   * `GET /api/v1/jobs` — the account's jobs, newest first, a page at a time (`limit`, default 20; `after`: the `next`
   * of the page before); with `owner: 'operator'`, the operator's jobs (the command line's, `trainprint scan --queue`),
   * for a key with the `admin` scope (403 otherwise). Not charged.
   * @example for (let p = await tp.listJobs(); ; p = await tp.listJobs({ after: p.next! })) { show(p.jobs); if (!p.next) break }
   * @example const { jobs } = await admin.listJobs({ owner: 'operator' }) // the scan queue's jobs
   */
  listJobs(
    query?: { readonly after?: string; readonly limit?: number; readonly owner?: 'operator' },
    options?: CallOptions,
  ): Promise<Ok<CatalogueJobList>>;
  /** `GET /api/v1/jobs/{job_id}` — the job's state and counts (not charged). */
  getJob(jobId: string, options?: CallOptions): Promise<Ok<CatalogueJob>>;
  /**
   * `GET /api/v1/jobs/{job_id}/results` — every result line of the job, in item order, page by page (`limit` per
   * page, default 100); while the job runs it waits `pollMs` (default 1000) between pages and ends when the job has
   * finished and every line has been read.
   * @example for await (const line of tp.jobResults(job.job_id)) console.log(line.index, line.success)
   */
  jobResults(
    jobId: string,
    options?: CallOptions & { readonly limit?: number; readonly after?: number; readonly pollMs?: number },
  ): AsyncGenerator<JobResultLine, void>;
  /**
   * `GET /api/v1/jobs/{job_id}/results/{item}/works` — a page of an audit item's works (`limit`, 1–1000, default 100,
   * after the first `after`). An audit's result line holds its first 500 works and `works_next`, the `after` of the
   * rest (null when it holds them all): a catalogue of 100,000 works is read page by page. Not charged.
   * @example for (let after: number | null = line.result.works_next; after !== null; ) { const p = await tp.auditWorks(id, 0, { after, limit: 1000 }); show(p.works); after = p.next }
   */
  auditWorks(
    jobId: string,
    item: number,
    query?: { readonly after?: number; readonly limit?: number },
    options?: CallOptions,
  ): Promise<Ok<AuditWorksPage>>;
  /**
   * `DELETE /api/v1/jobs/{job_id}` — cancel a queued or running job; a finished one is deleted with its results.
   * Not retried after a network error or 5xx (a 429 is): the lost answer may have cancelled the job, which may have
   * finished since, and a repeat would delete it. Read `getJob` and call again if it still runs.
   * @example if ((await tp.getJob(id)).state === 'running') await tp.cancelJob(id)
   */
  cancelJob(jobId: string, options?: CallOptions): Promise<Ok<CancelledJob>>;
  /**
   * `GET /api/v1/attribution/analyses/{analysis_id}/report` — the work report of an analysis of the account, one
   * self-contained HTML page; with `{ format: 'json' }` its signed evidence bundle instead, as `getEvidenceBundle`.
   * @example await writeFile('report.html', await tp.getAnalysisReport(r.analysis_id))
   */
  getAnalysisReport(analysisId: string, query?: { readonly format?: 'html' }, options?: CallOptions): Promise<string>;
  getAnalysisReport(
    analysisId: string,
    query: { readonly format: 'json' },
    options?: CallOptions,
  ): Promise<EvidenceBundleDownload>;
  getAnalysisReport(
    analysisId: string,
    query?: AnalysisReportQuery,
    options?: CallOptions,
  ): Promise<string | EvidenceBundleDownload>;
  /**
   * `GET /api/v1/attribution/analyses/{analysis_id}/bundle` — the analysis's signed evidence bundle: the bytes as
   * served (its canonical JSON, what `verifyEvidenceBundle` of `trainprint/evidence` checks) and the same parsed.
   * @example
   * const { bytes, bundle } = await tp.getEvidenceBundle(r.analysis_id)
   * const { valid } = await verifyEvidenceBundle(bytes, { publicKey: await tp.getReportKey() })
   */
  getEvidenceBundle(analysisId: string, options?: CallOptions): Promise<EvidenceBundleDownload>;
  /**
   * `GET /api/v1/attribution/analyses/{analysis_id}/extractions` — the account's extractions of the analysed text (its
   * extract jobs' results, the records the evidence bundle signs), without building the bundle: a light read for a
   * view; verify through `getEvidenceBundle`.
   * @example const { extractions } = await tp.getAnalysisExtractions(r.analysis_id)
   */
  getAnalysisExtractions(analysisId: string, options?: CallOptions): Promise<Ok<AnalysisExtractions>>;
  /**
   * `GET /api/v1/report-key` (public) — the engine's Ed25519 public key, which signs the evidence bundles.
   * @example const key = await tp.getReportKey() // pass as verifyEvidenceBundle's `publicKey`
   */
  getReportKey(options?: CallOptions): Promise<Ok<ReportPublicKey>>;
  /** `POST /api/v1/attribution/compare` — aligned passages of two texts (retried like a GET: it changes nothing). */
  compare(a: string, b: string, options?: CallOptions): Promise<Ok<Comparison>>;
  /** `POST /api/v1/attribution/score` — how likely `target_model` trained on a registered work of the account. */
  score(body: ScoreBody, options?: CallOptions): Promise<Ok<ScoreResult>>;
  /** `POST /api/v1/attribution/fingerprint` — content id, work_hash and sketches. */
  fingerprint(body: FingerprintBody, options?: CallOptions): Promise<Ok<FingerprintResult>>;

  // ------------------------------------------------------------ works registry
  /** `POST /api/v1/content/register` — `created` is false when the account had registered this work_hash already. */
  registerWork(body: RegisterWorkBody, options?: CallOptions): Promise<Ok<RegisterWorkResult>>;
  /** `GET /api/v1/content/{work_id}`. */
  getWork(workId: string, options?: CallOptions): Promise<Ok<Work>>;
  /** `GET /api/v1/content` — the account's works by id; pass `next` as `after` for the next page. */
  listWorks(query?: WorkListQuery, options?: CallOptions): Promise<Ok<WorkList>>;
  /** `DELETE /api/v1/content/{work_id}` — the work and its text. */
  deleteWork(workId: string, options?: CallOptions): Promise<Ok<Deleted>>;
  /** `POST /api/v1/content/verify-receipt` — whether this service signed the receipt, unaltered. */
  verifyReceipt(receipt: Receipt, options?: CallOptions): Promise<Ok<{ readonly valid: boolean }>>;

  readonly monitors: {
    /** `POST /api/v1/monitors/create` — watch a work of the account (by `work_id` or `work_hash`). */
    create(body: CreateMonitorBody, options?: CallOptions): Promise<Ok<ApiMonitor>>;
    /** `GET /api/v1/monitors`. */
    list(
      query?: { readonly work_id?: string },
      options?: CallOptions,
    ): Promise<Ok<{ readonly monitors: ApiMonitor[] }>>;
    /** `GET /api/v1/monitors/{monitor_id}`. */
    get(monitorId: string, options?: CallOptions): Promise<Ok<ApiMonitor>>;
    /** `DELETE /api/v1/monitors/{monitor_id}` (its events stay in the log). */
    delete(monitorId: string, options?: CallOptions): Promise<Ok<Deleted>>;
    /** `POST /api/v1/monitors/{monitor_id}/pause`. */
    pause(monitorId: string, options?: CallOptions): Promise<Ok<ApiMonitor>>;
    /** `POST /api/v1/monitors/{monitor_id}/resume`. */
    resume(monitorId: string, options?: CallOptions): Promise<Ok<ApiMonitor>>;
    /** `GET /api/v1/monitors/{monitor_id}/events` — oldest first. */
    events(
      monitorId: string,
      query?: { readonly limit?: number },
      options?: CallOptions,
    ): Promise<Ok<{ readonly events: MonitorEvent[] }>>;
  };

  /** Reference datasets, shared by every account (writing needs the `datasets:write` scope). */
  readonly datasets: {
    /** `GET /api/v1/datasets`. */
    list(options?: CallOptions): Promise<Ok<{ readonly datasets: ApiDataset[] }>>;
    /** `GET /api/v1/datasets/{dataset_id}`. */
    get(datasetId: string, options?: CallOptions): Promise<Ok<ApiDataset>>;
    /** `POST /api/v1/datasets` — a new dataset, optionally with its first documents. */
    create(body: CreateDatasetBody, options?: CallOptions): Promise<Ok<ApiDataset>>;
    /** `POST /api/v1/datasets/{dataset_id}/documents`. */
    addDocuments(
      datasetId: string,
      documents: readonly DatasetDocument[],
      options?: CallOptions,
    ): Promise<Ok<ApiDataset>>;
    /** `GET /api/v1/datasets/{dataset_id}/export` — the dataset file (`import` or `engine.importDataset` loads it). */
    export(datasetId: string, options?: CallOptions): Promise<Uint8Array>;
    /** `POST /api/v1/datasets/import` — load a dataset file. */
    import(file: Uint8Array, options?: CallOptions): Promise<Ok<ApiDataset>>;
    /** `DELETE /api/v1/datasets/{dataset_id}`. */
    delete(datasetId: string, options?: CallOptions): Promise<Ok<Deleted>>;
  };

  /** The knowledge base (read only). */
  readonly kb: {
    /** `GET /api/v1/kb/models`. */
    models(query?: KbModelQuery, options?: CallOptions): Promise<Ok<{ readonly models: KbModel[] }>>;
    /** `GET /api/v1/kb/models/{provider}/{model}` — `modelId` is `provider/model_name` (case-insensitive). */
    model(modelId: string, options?: CallOptions): Promise<Ok<KbModel>>;
    /** `GET /api/v1/kb/providers`. */
    providers(options?: CallOptions): Promise<Ok<{ readonly providers: KbProvider[] }>>;
    /** `GET /api/v1/kb/datasets`. */
    datasets(options?: CallOptions): Promise<Ok<{ readonly datasets: KbDataset[] }>>;
    /** `GET /api/v1/kb/datasets/{kb_dataset_id}`. */
    dataset(kbDatasetId: string, options?: CallOptions): Promise<Ok<KbDataset>>;
    /** `GET /api/v1/kb/jurisdictions` (a heuristic, not legal advice). */
    jurisdictions(options?: CallOptions): Promise<Ok<{ readonly jurisdictions: JurisdictionRow[] }>>;
    /** `GET /api/v1/kb/factors` — every factor code with meaning and source. */
    factors(options?: CallOptions): Promise<Ok<{ readonly factors: FactorInfo[] }>>;
  };

  // ------------------------------------------------------------ account
  /** `GET /api/v1/usage` — calls used and left today (this call included). */
  usage(options?: CallOptions): Promise<Ok<Usage>>;
  readonly keys: {
    /** `POST /api/v1/keys` — the key is in the result once, never again. */
    create(body?: CreateKeyBody, options?: CallOptions): Promise<Ok<ApiKeyInfo & { readonly key: string }>>;
    /** `GET /api/v1/keys` (prefix and last four characters only). */
    list(options?: CallOptions): Promise<Ok<{ readonly keys: ApiKeyInfo[] }>>;
    /** `DELETE /api/v1/keys/{key_id}`. */
    revoke(keyId: string, options?: CallOptions): Promise<Ok<ApiKeyInfo>>;
  };
  readonly oauth: {
    /**
     * `POST /api/v1/oauth/token` — client-credentials grant; use the token as `api_key` of another client.
     * Errors carry the RFC 6749 code (`invalid_client`, …) as `code`.
     */
    token(
      credentials: {
        readonly client_id: string;
        readonly client_secret: string;
        readonly scope?: string | readonly Scope[];
      },
      options?: CallOptions,
    ): Promise<AccessToken>;
    /** `POST /api/v1/oauth/clients` — the secret is in the result once. */
    createClient(
      body?: { readonly name?: string; readonly scopes?: readonly Scope[] },
      options?: CallOptions,
    ): Promise<Ok<OAuthClientInfo & { readonly client_secret: string }>>;
    /** `GET /api/v1/oauth/clients`. */
    listClients(options?: CallOptions): Promise<Ok<{ readonly clients: OAuthClientInfo[] }>>;
    /** `DELETE /api/v1/oauth/clients/{client_id}` — and every token it holds. */
    revokeClient(clientId: string, options?: CallOptions): Promise<Ok<OAuthClientInfo>>;
  };

  /**
   * The licensing marketplace (scope `marketplace`): listings of the account's works, offers,
   * signed licences, the audit trail. `Idempotency-Key` on `createListing` and `acceptOffer`
   * reaches the engine too, so a retried call never lists or sells twice.
   */
  readonly marketplace: {
    /** `POST /api/v1/marketplace/listings` — a draft unless `status: 'active'`. */
    createListing(body: CreateListingRequest, options?: CallOptions): Promise<Ok<Listing>>;
    /** `GET /api/v1/marketplace/listings` — active ones unless `status` says otherwise. */
    listListings(query?: ListingQuery, options?: CallOptions): Promise<Ok<ListingPage>>;
    /** `GET /api/v1/marketplace/listings/{listing_id}`. */
    getListing(listingId: string, options?: CallOptions): Promise<Ok<Listing>>;
    /** `PATCH /api/v1/marketplace/listings/{listing_id}`. */
    updateListing(listingId: string, patch: UpdateListingRequest, options?: CallOptions): Promise<Ok<Listing>>;
    /** `POST /api/v1/marketplace/listings/{listing_id}/publish` — draft → active. */
    publishListing(listingId: string, options?: CallOptions): Promise<Ok<Listing>>;
    /** `POST /api/v1/marketplace/listings/{listing_id}/withdraw` — its pending offers are declined. */
    withdrawListing(listingId: string, options?: CallOptions): Promise<Ok<Listing>>;
    /** `POST /api/v1/marketplace/listings/{listing_id}/offers` — an offer on another account's active listing. */
    makeOffer(listingId: string, body: MakeOfferRequest, options?: CallOptions): Promise<Ok<Offer>>;
    /** `GET /api/v1/marketplace/offers` — the account's offers, as buyer or seller. */
    listOffers(query?: OfferQuery, options?: CallOptions): Promise<Ok<OfferPage>>;
    /** `GET /api/v1/marketplace/offers/{offer_id}`. */
    getOffer(offerId: string, options?: CallOptions): Promise<Ok<Offer>>;
    /** `POST /api/v1/marketplace/offers/{offer_id}/accept` — the signed licence. */
    acceptOffer(offerId: string, options?: CallOptions): Promise<Ok<Licence>>;
    /** `POST /api/v1/marketplace/offers/{offer_id}/decline`. */
    declineOffer(offerId: string, options?: CallOptions): Promise<Ok<Offer>>;
    /** `POST /api/v1/marketplace/offers/{offer_id}/counter` — a new pending offer the other way. */
    counterOffer(offerId: string, body: CounterOfferRequest, options?: CallOptions): Promise<Ok<Offer>>;
    /** `POST /api/v1/marketplace/offers/{offer_id}/withdraw`. */
    withdrawOffer(offerId: string, options?: CallOptions): Promise<Ok<Offer>>;
    /** `GET /api/v1/marketplace/licences` — each with its signature checked (`verified`). */
    listLicences(query?: LicenceQuery, options?: CallOptions): Promise<Ok<LicencePage>>;
    /** `GET /api/v1/marketplace/licences/{licence_id}`. */
    getLicence(licenceId: string, options?: CallOptions): Promise<Ok<VerifiedLicence>>;
    /** `POST /api/v1/marketplace/licences/verify` — whether this service signed it, unaltered. */
    verifyLicence(licence: Licence, options?: CallOptions): Promise<Ok<{ readonly valid: boolean }>>;
    /** `GET /api/v1/marketplace/audit`. */
    audit(query: AuditQuery, options?: CallOptions): Promise<Ok<AuditPage>>;
  };

  /**
   * Memorization of the account's works by a model (scope `memorization`). The model is an
   * OpenAI-compatible service the server calls; its failures are 502 `UPSTREAM_ERROR` / 504
   * `UPSTREAM_TIMEOUT` (not retried: each attempt costs model calls).
   */
  readonly memorization: {
    /** `POST /api/v1/memorization/register-work` — track a work, optionally with canaries to embed. */
    trackWork(body: TrackWorkBody, options?: CallOptions): Promise<Ok<TrackedWork>>;
    /** `POST /api/v1/memorization/reference-sets` — non-member texts for probes. */
    createReferenceSet(body: ReferenceSetRequest, options?: CallOptions): Promise<Ok<ReferenceSetInfo>>;
    /** `GET /api/v1/memorization/reference-sets`. */
    listReferenceSets(options?: CallOptions): Promise<Ok<{ readonly reference_sets: ReferenceSetInfo[] }>>;
    /** `POST /api/v1/memorization/extract` — prefixes → greedy continuation → verbatim match. */
    extract(body: ExtractBody, options?: CallOptions): Promise<Ok<ExtractionResult>>;
    /** `POST /api/v1/memorization/probe` — likelihood statistics against a reference set. */
    probe(body: ProbeBody, options?: CallOptions): Promise<Ok<ProbeResult>>;
    /** `POST /api/v1/memorization/compare` — a model output against the account's works. */
    compareOutput(body: CompareOutputRequest, options?: CallOptions): Promise<Ok<CompareOutputResult>>;
    /** `POST /api/v1/memorization/assess` — the kept assessment (render it with `report`). */
    assess(body: AssessBody, options?: CallOptions): Promise<Ok<Assessment>>;
    /** `POST /api/v1/memorization/report` — the assessment as a self-contained HTML page. */
    report(
      body: { readonly assessment_id: string; readonly max_spans?: number },
      options?: CallOptions,
    ): Promise<string>;
  };

  // ------------------------------------------------------------ service
  /** `GET /api/v1/status` (public). */
  status(options?: CallOptions): Promise<Ok<StatusReport>>;
  /** `GET /api/v1/openapi.json` (public): the OpenAPI 3.1 document, as served (no envelope). */
  openapi(options?: CallOptions): Promise<JsonObject>;

  /**
   * Any route, e.g. one newer than this client. `path` is relative to the base URL
   * (`/api/v1/…`); the body is JSON unless bytes or a form; the result is the parsed body.
   * Retried as described in docs/http.md (429 always; network/5xx when idempotent).
   *
   * @example
   * const page = await client.request<Ok<{ listings: unknown[] }>>('GET', '/api/v1/marketplace/listings', { query: { limit: 10 } })
   */
  request<T = Ok<JsonObject>>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

/** The serve default (`trainprint serve`, `serve(handler)`). */
const LOCAL = 'http://127.0.0.1:8787';
const MARKET = '/api/v1/marketplace';
const MEM = '/api/v1/memorization';

/**
 * A client of the trainprint HTTP API. Runs wherever `fetch` does (Node ≥ 20, Deno, Bun,
 * Workers, browsers); no `node:` imports, no engine code.
 *
 * @throws TypeError when `base_url` is not an http(s) URL or a number option is out of range
 * @example
 * import { createClient } from 'trainprint/client'
 * const tp = createClient({ api_key: process.env.TRAINPRINT_API_KEY, base_url: 'http://127.0.0.1:8787' })
 * const r = await tp.analyze({ content: text, content_type: 'text' })
 * for (const m of r.matches) console.log(m.dataset_id, text.slice(m.query_start, m.query_end))
 */
export function createClient(options: ClientOptions = {}): TrainprintClient {
  const base = normaliseBaseUrl(options.base_url ?? pageOrigin() ?? LOCAL);
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init)); // unbound fetch throws in browsers
  const t = new Transport({
    baseUrl: base,
    apiKey: options.api_key,
    fetch: fetchFn,
    maxRetries: count(options.maxRetries, 3, 'maxRetries'),
    timeoutMs: count(options.timeoutMs, 60_000, 'timeoutMs'),
    maxRetryDelayMs: count(options.maxRetryDelayMs, 60_000, 'maxRetryDelayMs'),
  });
  const c = callsOf(t);
  const { get, post, del } = c;
  const analyses = (id: string) => `/api/v1/attribution/analyses/${p(id)}`;
  /** A bundle route's body: the bytes as served (what verifies) and the same parsed. */
  const bundle = async (path: string, query: RequestOptions['query'], o?: CallOptions) => {
    const bytes = await t.request<Uint8Array>('GET', path, {
      ...o,
      query,
      responseType: 'bytes',
      headers: { accept: 'application/json' },
    });
    return { bytes, bundle: parseBundle(bytes) };
  };
  // the overloads are the interface's (TrainprintClient['getAnalysisReport']), which the returned object declares
  function getAnalysisReport(id: string, query: AnalysisReportQuery = {}, o?: CallOptions) {
    if (query.format === 'json') return bundle(`${analyses(id)}/report`, { format: 'json' }, o);
    return t.request<string>('GET', `${analyses(id)}/report`, {
      ...o,
      query: { format: query.format },
      responseType: 'text',
      headers: { accept: 'text/html' },
    });
  }

  /**
   * The job's lines from `after` on. The state is read before each page: a page shorter than `limit` read after the
   * job had finished is the end; while it runs, a page stops before an item still without its result, so reading on
   * from the last index never skips one.
   */
  async function* jobResults(
    id: string,
    o: CallOptions & { readonly limit?: number; readonly after?: number; readonly pollMs?: number },
  ): AsyncGenerator<JobResultLine, void> {
    const { limit = 100, pollMs = 1000, after: from, ...call } = o;
    let after = from;
    for (;;) {
      const job = await get<Ok<CatalogueJob>>(`/api/v1/jobs/${p(id)}`, undefined, call);
      const finished = job.state === 'done' || job.state === 'failed' || job.state === 'cancelled';
      const text = await t.request<string>('GET', `/api/v1/jobs/${p(id)}/results`, {
        ...call,
        query: { limit, ...(after === undefined ? {} : { after }) },
        responseType: 'text',
        headers: { accept: 'application/x-ndjson' },
      });
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      for (const l of lines) {
        const line = JSON.parse(l) as JobResultLine;
        after = line.index;
        yield line;
      }
      if (lines.length === limit) continue;
      if (finished) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  return {
    get baseUrl() {
      return t.baseUrl;
    },
    get rateLimit() {
      return t.rateLimit;
    },

    analyze: (body, o) => post('/api/v1/attribution/analyze', body, o),
    analyzeAsync: (body, o) =>
      t.request('POST', '/api/v1/attribution/analyze', { ...o, body, headers: { prefer: 'respond-async' } }),
    getAnalysis: (id, o) => get(analyses(id), undefined, o),
    getAnalysisJob: (id, o) => get(`/api/v1/attribution/jobs/${p(id)}`, undefined, o),
    createJob: (body, o) => post('/api/v1/jobs', body, o),
    listJobs: (query, o) => get('/api/v1/jobs', { ...query }, o),
    getJob: (id, o) => get(`/api/v1/jobs/${p(id)}`, undefined, o),
    jobResults: (id, o = {}) => jobResults(id, o),
    auditWorks: (id, item, query, o) => get(`/api/v1/jobs/${p(id)}/results/${item}/works`, { ...query }, o),
    cancelJob: (id, o) => t.request('DELETE', `/api/v1/jobs/${p(id)}`, { ...o, idempotent: false }),
    getAnalysisReport: getAnalysisReport as TrainprintClient['getAnalysisReport'],
    getEvidenceBundle: (id, o) => bundle(`${analyses(id)}/bundle`, undefined, o),
    getAnalysisExtractions: (id, o) => get(`${analyses(id)}/extractions`, undefined, o),
    getReportKey: (o) => get('/api/v1/report-key', undefined, o),
    compare: (a, b, o) => post('/api/v1/attribution/compare', { a, b }, o, true),
    score: (body, o) => post('/api/v1/attribution/score', body, o, true),
    fingerprint: (body, o) => post('/api/v1/attribution/fingerprint', body, o, true),

    registerWork: (body, o) => post('/api/v1/content/register', body, o),
    getWork: (id, o) => get(`/api/v1/content/${p(id)}`, undefined, o),
    listWorks: (query, o) => get('/api/v1/content', { ...query }, o),
    deleteWork: (id, o) => del(`/api/v1/content/${p(id)}`, o),
    verifyReceipt: (receipt, o) => post('/api/v1/content/verify-receipt', { receipt }, o, true),

    monitors: monitorsApi(c),
    datasets: datasetsApi(c),
    kb: kbApi(c),
    usage: (o) => get('/api/v1/usage', undefined, o),
    keys: {
      create: (body, o) => post('/api/v1/keys', body ?? {}, o),
      list: (o) => get('/api/v1/keys', undefined, o),
      revoke: (id, o) => del(`/api/v1/keys/${p(id)}`, o),
    },

    oauth: oauthApi(c),
    marketplace: marketplaceApi(c),
    memorization: memorizationApi(c),

    status: (o) => get('/api/v1/status', undefined, o),
    openapi: (o) => get('/api/v1/openapi.json', undefined, o),
    request: (method, path, o) => t.request(method, path, o),
  };
}

/**
 * The calls every method is made of, over one transport: GET with a query, POST with a body (retried like a GET when
 * `idempotent`), DELETE.
 */
function callsOf(t: Transport) {
  return {
    t,
    get: <T>(path: string, query?: RequestOptions['query'], o?: CallOptions) =>
      t.request<T>('GET', path, { ...o, query }),
    post: <T>(path: string, body: unknown, o?: CallOptions, idempotent = false) =>
      t.request<T>('POST', path, { ...o, body, ...(idempotent ? { idempotent } : {}) }),
    del: <T>(path: string, o?: CallOptions) => t.request<T>('DELETE', path, o),
  };
}
type Calls = ReturnType<typeof callsOf>;
/** A path segment as the URL carries it. */
const p = encodeURIComponent;
/** `client.monitors`: watch works of the account, read their events. */
function monitorsApi({ get, post, del }: Calls): TrainprintClient['monitors'] {
  return {
    create: (body, o) => post('/api/v1/monitors/create', body, o),
    list: (query, o) => get('/api/v1/monitors', { ...query }, o),
    get: (id, o) => get(`/api/v1/monitors/${p(id)}`, undefined, o),
    delete: (id, o) => del(`/api/v1/monitors/${p(id)}`, o),
    pause: (id, o) => post(`/api/v1/monitors/${p(id)}/pause`, undefined, o, true),
    resume: (id, o) => post(`/api/v1/monitors/${p(id)}/resume`, undefined, o, true),
    events: (id, query, o) => get(`/api/v1/monitors/${p(id)}/events`, { ...query }, o),
  };
}

/** `client.datasets`: the account's reference datasets. */
function datasetsApi({ t, get, post, del }: Calls): TrainprintClient['datasets'] {
  return {
    list: (o) => get('/api/v1/datasets', undefined, o),
    get: (id, o) => get(`/api/v1/datasets/${p(id)}`, undefined, o),
    create: (body, o) => post('/api/v1/datasets', body, o),
    addDocuments: (id, documents, o) => post(`/api/v1/datasets/${p(id)}/documents`, { documents }, o),
    export: (id, o) =>
      t.request<Uint8Array>('GET', `/api/v1/datasets/${p(id)}/export`, { ...o, responseType: 'bytes' }),
    import: (file, o) => post('/api/v1/datasets/import', file, o),
    delete: (id, o) => del(`/api/v1/datasets/${p(id)}`, o),
  };
}

/** `client.kb`: the knowledge base (models, providers, datasets, jurisdictions, factor codes). */
function kbApi({ get }: Calls): TrainprintClient['kb'] {
  return {
    models: (query, o) => get('/api/v1/kb/models', { ...query }, o),
    model: (modelId, o) => {
      const slash = modelId.indexOf('/');
      if (slash <= 0 || slash === modelId.length - 1)
        return Promise.reject(new TypeError(`a model id is 'provider/model_name', not ${JSON.stringify(modelId)}`));
      return get(`/api/v1/kb/models/${p(modelId.slice(0, slash))}/${p(modelId.slice(slash + 1))}`, undefined, o);
    },
    providers: (o) => get('/api/v1/kb/providers', undefined, o),
    datasets: (o) => get('/api/v1/kb/datasets', undefined, o),
    dataset: (id, o) => get(`/api/v1/kb/datasets/${p(id)}`, undefined, o),
    jurisdictions: (o) => get('/api/v1/kb/jurisdictions', undefined, o),
    factors: (o) => get('/api/v1/kb/factors', undefined, o),
  };
}

/** `client.oauth`: OAuth clients and the client-credentials grant. */
function oauthApi({ t, get, post, del }: Calls): TrainprintClient['oauth'] {
  return {
    token: (c, o) => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: c.client_id,
        client_secret: c.client_secret,
      });
      if (c.scope !== undefined) form.set('scope', typeof c.scope === 'string' ? c.scope : c.scope.join(' '));
      // the client's own credentials, not the client's api_key: the token endpoint is public
      return t.request<AccessToken>('POST', '/api/v1/oauth/token', { ...o, body: form, auth: false });
    },
    createClient: (body, o) => post('/api/v1/oauth/clients', body ?? {}, o),
    listClients: (o) => get('/api/v1/oauth/clients', undefined, o),
    revokeClient: (id, o) => del(`/api/v1/oauth/clients/${p(id)}`, o),
  };
}

/** `client.marketplace`: listings, offers, licences and the audit log. */
function marketplaceApi({ t, get, post }: Calls): TrainprintClient['marketplace'] {
  return {
    createListing: (body, o) => post(`${MARKET}/listings`, body, o),
    listListings: (query, o) => get(`${MARKET}/listings`, { ...query }, o),
    getListing: (id, o) => get(`${MARKET}/listings/${p(id)}`, undefined, o),
    updateListing: (id, patch, o) => t.request('PATCH', `${MARKET}/listings/${p(id)}`, { ...o, body: patch }),
    publishListing: (id, o) => post(`${MARKET}/listings/${p(id)}/publish`, undefined, o),
    withdrawListing: (id, o) => post(`${MARKET}/listings/${p(id)}/withdraw`, undefined, o),
    makeOffer: (id, body, o) => post(`${MARKET}/listings/${p(id)}/offers`, body, o),
    listOffers: (query, o) => get(`${MARKET}/offers`, { ...query }, o),
    getOffer: (id, o) => get(`${MARKET}/offers/${p(id)}`, undefined, o),
    acceptOffer: (id, o) => post(`${MARKET}/offers/${p(id)}/accept`, undefined, o),
    declineOffer: (id, o) => post(`${MARKET}/offers/${p(id)}/decline`, undefined, o),
    counterOffer: (id, body, o) => post(`${MARKET}/offers/${p(id)}/counter`, body, o),
    withdrawOffer: (id, o) => post(`${MARKET}/offers/${p(id)}/withdraw`, undefined, o),
    listLicences: (query, o) => get(`${MARKET}/licences`, { ...query }, o),
    getLicence: (id, o) => get(`${MARKET}/licences/${p(id)}`, undefined, o),
    verifyLicence: (licence, o) => post(`${MARKET}/licences/verify`, { licence }, o, true),
    audit: (query, o) => get(`${MARKET}/audit`, { ...query }, o),
  };
}

/** `client.memorization`: what a model reproduces of the account's works. */
function memorizationApi({ t, get, post }: Calls): TrainprintClient['memorization'] {
  return {
    trackWork: (body, o) => post(`${MEM}/register-work`, body, o),
    createReferenceSet: (body, o) => post(`${MEM}/reference-sets`, body, o),
    listReferenceSets: (o) => get(`${MEM}/reference-sets`, undefined, o),
    extract: (body, o) => post(`${MEM}/extract`, body, o),
    probe: (body, o) => post(`${MEM}/probe`, body, o),
    compareOutput: (body, o) => post(`${MEM}/compare`, body, o, true),
    assess: (body, o) => post(`${MEM}/assess`, body, o),
    report: (body, o) =>
      t.request<string>('POST', `${MEM}/report`, {
        ...o,
        body,
        idempotent: true,
        responseType: 'text',
        headers: { accept: 'text/html' },
      }),
  };
}

/** An evidence bundle's bytes, parsed; bytes that are not UTF-8 JSON reject as a body the client cannot read. */
function parseBundle(bytes: Uint8Array): EvidenceBundle {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as EvidenceBundle;
  } catch (e) {
    throw new TrainprintApiError({
      status: 200,
      code: CLIENT_ERROR_CODES.HTTP,
      message: `the evidence bundle is not UTF-8 JSON: ${e instanceof Error ? e.message : String(e)}`,
      cause: e,
    });
  }
}

function normaliseBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TypeError(`base_url must be an absolute http(s) URL, not ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`base_url must be http or https, not ${u.protocol}`);
  if (u.search || u.hash) throw new TypeError('base_url must not carry a query or a fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function pageOrigin(): string | null {
  const loc = (globalThis as { location?: { origin?: unknown; protocol?: unknown } }).location;
  return loc && typeof loc.origin === 'string' && (loc.protocol === 'http:' || loc.protocol === 'https:')
    ? loc.origin
    : null;
}

function count(v: number | undefined, d: number, name: string): number {
  if (v === undefined) return d;
  if (!Number.isInteger(v) || v < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return v;
}
