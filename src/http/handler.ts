/**
 * `createHandler(engine, options)`: the HTTP API as one Fetch handler, `(Request) => Promise<Response>`,
 * for any runtime with Fetch and WebCrypto — `Deno.serve(handler)`, a Workers `fetch` export,
 * or Node through `serve` from `trainprint/node`.
 *
 * Every request goes through the same steps, in this order (each can end it), each a function of its own
 * under `pipeline/` taking the request's {@link Exchange}:
 *  1. match the path and method against the route table — 404, or 405 with `Allow` (`match.ts`);
 *  2. refuse a declared `Content-Length` over the limit — 413, before anything is read (`limits.ts`);
 *  3. authenticate (`Authorization: Bearer <API key | access token>`) — 401 with
 *     `WWW-Authenticate: Bearer realm="trainprint"`; check the route's scope — 403 (`auth.ts`);
 *  4. charge the call to the account's plan — 429 with `Retry-After` (RateLimit-* headers on
 *     every authenticated response from here on; `plan.ts`);
 *  5. check the Content-Type — 415 (`multipart/form-data` too on the routes that take files); run the
 *     route's `beforeBody` check (an item the path names is missing or not the account's — 404, 403),
 *     so an upload to a wrong id is refused without reading it, or a file route's plan allowance — 413
 *     (`body.ts`, `files.ts`); a body of 1 MiB or more waits for its place among the large requests —
 *     503 with `Retry-After` when too many wait (`limits.ts`); read the body counting bytes as they
 *     stream — 413 (`read-body.ts`); parse — 400 `MALFORMED_JSON`, 400 `MALFORMED_REQUEST` for a broken
 *     multipart form (src/http/multipart.ts); refuse nesting deeper than 64 levels and lone surrogates —
 *     422; validate against the route's schema — 422 naming the field; a file over the plan's — 413
 *     (`body.ts`); a document file of any size waits for its place among the large requests too — 503
 *     (`limits.ts`); coerce and validate the query — 422 (`query.ts`);
 *  6. `Idempotency-Key` on creating POSTs: replay, or 409 for another request with the same key
 *     (`idempotency.ts`);
 *  7. run the route's handler; wrap its result as `{ success: true, ...result }` (`route.ts`).
 * Errors anywhere become the envelope `{ success: false, error: { code, message, details? } }`
 * (`failure.ts`); unexpected ones are 500 `INTERNAL` without internals, and every 5xx is recorded for
 * /status (`exchange.ts`, which adds the request id and the collected headers to every answer).
 */
import {
  AuthThrottle,
  createJobService,
  createOpenAICompatibleModel,
  defaultModelHosts,
  Idempotency,
  KeyStore,
  MemoryCounterStore,
  PLANS,
  positiveInt,
  RateLimiter,
  refusedResolution,
  TokenIssuer,
  TrainprintError,
  type CounterStore,
  type Engine,
  type HostResolver,
  type JobInfo,
  type HeldJobModels,
  type JobTypeDefinition,
  jobTypeRegistry,
  type JobStore,
  type Offload,
  type Plan,
  type TargetModel,
} from '../library.js';
import { LargeWorkGate, type LargeWorkLimits } from './large-work.js';
import { typedUnreachable, unreachableAsTyped } from './upstream.js';
import { UploadGate, type UploadLimits } from './uploads.js';
import { turnOf } from '../util/steps.js';
import { authSubjects, oauthClientSubjects, throttled } from './auth-throttle.js';
import type { ModelSpec, Principal, Route, RouteServices } from './context.js';
import { tokenEndpoint } from './oauth.js';
import { buildOpenApi } from './openapi.js';
import { ROUTES } from './routes/index.js';
import { withJobTypes } from './routes/catalogue-jobs.js';
import { StatusMonitor, statusHtml } from './status.js';
import type { JsonBodyOffload } from './json-body.js';
import { authenticateCaller, type AuthServices } from './pipeline/auth.js';
import { checkBeforeBody, checkMediaType, decodeBody } from './pipeline/body.js';
import { Exchange } from './pipeline/exchange.js';
import { answerFailure, type ServerErrorHook } from './pipeline/failure.js';
import { runOnce } from './pipeline/idempotency.js';
import { fileRouteBodyBytes, fileRouteBodyReason } from './pipeline/files.js';
import { admitUpload, holdDocumentWork, holdLargeWork, refuseDeclaredLength } from './pipeline/limits.js';
import { compileRoutes, findRoute, type Router } from './pipeline/match.js';
import { chargePlan } from './pipeline/plan.js';
import { parseQuery } from './pipeline/query.js';
import { bodyDeadlinesOf, readBody, type BodyDeadlines } from './pipeline/read-body.js';
import { routeContext, runRoute, type RouteEnvironment } from './pipeline/route.js';

export { CLIENT_CLOSED_REQUEST } from './pipeline/failure.js';

/**
 * A Fetch handler.
 * @example const res = await handler(new Request('http://localhost/api/v1/status'))
 */
export type Handler = (request: Request) => Promise<Response>;

/**
 * Options of {@link createHandler}.
 * @example
 * createHandler(engine, { baseUrl: 'https://api.example.org', plans: { enterprise: { daily: 5_000_000 } }, tokenSecret: process.env.TOKEN_SECRET })
 */
export interface HandlerOptions {
  /**
   * API keys and OAuth clients. A key store given here also accepts this handler's `plans` for new keys.
   * @default new KeyStore(engine.store, { plans })
   */
  readonly keys?: KeyStore;
  /**
   * Plans by name, merged over the built-ins (free 100/day, pro 10,000, scale 1,000,000, enterprise unlimited; files
   * of up to 8, 32, 64 and 64 MiB).
   */
  readonly plans?: Readonly<Record<string, Plan>>;
  /** Where calls are counted. @default new MemoryCounterStore() (exact; per process) */
  readonly counters?: CounterStore;
  /**
   * Public URL of the API (`https://api.example.org` or with a path, `https://example.org/trainprint`):
   * the OpenAPI `servers` entry; its path is stripped from request paths before matching.
   */
  readonly baseUrl?: string;
  /**
   * Largest request body in bytes, checked before parsing. @default 11 MiB (analyze takes 10 MiB of content); on the
   * routes that take files (analyze, register, score) what the largest file of the plans needs in base64 (86.3 MiB
   * for 64 MiB), each call held to its own plan's (`fileBytes`, docs/http.md). Given, it bounds those routes too.
   */
  readonly maxBodyBytes?: number;
  /** Largest body of the dataset upload routes (documents, import). @default 256 MiB */
  readonly maxDatasetBodyBytes?: number;
  /** Clock in ms since the epoch (rate-limit windows, token expiry, idempotency, uptime). @default Date.now */
  readonly now?: () => number;
  /**
   * The client's network address of a request, for the back-off after failed authentication (per address, beside
   * per key and per OAuth client). `trainprint serve` passes the socket's address (the `x-trainprint-client-address`
   * header, which its Node bridge sets and never takes from the client); behind a proxy, read what the proxy sets.
   * @default none: the back-off is per key and per OAuth client only
   */
  readonly clientAddress?: (request: Request) => string | null;
  /** Key signing the OAuth access tokens (≥ 32 bytes; the same on every instance). @default a random key kept in the store */
  readonly tokenSecret?: string | Uint8Array;
  /** Lifetime of access tokens in seconds, 1–3600. @default 3600 */
  readonly tokenTtlSeconds?: number;
  /**
   * Which model services the memorization routes may call (`model.base_url` of a request): return
   * true to allow. Replaces the default policy, e.g. an allow-list:
   * `(url) => url.origin === 'https://models.example.org'`. A refused URL is 422 naming `model.base_url`.
   * @default refuse loopback, private, link-local and other internal addresses and names (src/net/egress.ts)
   */
  readonly modelHosts?: (url: URL) => boolean;
  /**
   * With the default policy: also allow internal hosts (a model server on this machine or network).
   * Only for deployments where every API client may reach that network. @default false
   */
  readonly allowPrivateModelHosts?: boolean;
  /**
   * Which monitor webhook URLs are allowed: the server POSTs events to them, so by default the same
   * internal-host refusal as for model URLs applies (SSRF). @default refuse loopback/private/internal hosts
   */
  readonly webhookHosts?: (url: URL) => boolean;
  /** Allow webhooks to loopback/private hosts (a receiver on this machine or network). @default false */
  readonly allowPrivateWebhookHosts?: boolean;
  /**
   * Resolves the host names of model and webhook URLs under the default policies (not with
   * `modelHosts`/`webhookHosts`, nor when private hosts are allowed): a name with any internal
   * address is refused (422 naming the field), and model requests go to the checked addresses
   * through the resolver's `fetch` (unless `modelFetch` is given). Node: `resolveHost` from
   * `trainprint/node` (`trainprint serve` uses it). Other runtimes have no default: only the URL
   * text is checked (src/net/egress.ts).
   * @default none
   */
  readonly resolveHost?: HostResolver;
  /** Timeout of one request to a model service, in ms (then 504 `UPSTREAM_TIMEOUT`). @default 60_000 */
  readonly modelTimeoutMs?: number;
  /**
   * `fetch` used for model services (an egress proxy, a Workers service binding). It replaces the
   * pinned fetch of `resolveHost` (the addresses are still checked). @default globalThis.fetch
   */
  readonly modelFetch?: typeof fetch;
  /**
   * How many requests with a body of 1 MiB or more (or a document file) run at once once their bodies are read,
   * how many wait for a place (in order), and for how long; one more, or one that waited that long, is answered 503
   * `SERVICE_UNAVAILABLE` with `Retry-After`. Each holds tens to hundreds of MB while it runs, so this bounds the
   * server's peak memory (src/http/large-work.ts).
   * @default { running: 4, waiting: 16, waitMs: 30000 }
   */
  readonly largeRequests?: LargeWorkLimits;
  /**
   * How slowly a request body may arrive: a stretch of `idleMs` without a byte, or an average under
   * `minBytesPerSecond` once its first `graceMs` are over, is answered 408 `REQUEST_TIMEOUT` (src/http/pipeline/read-body.ts).
   * @default { idleMs: 10000, minBytesPerSecond: 4096, graceMs: 10000 }
   */
  readonly bodyDeadlines?: BodyDeadlines;
  /**
   * How many uploads of one account (bodies of 1 MiB or more, or of unknown length, and multipart files) wait for
   * one of its plan's places (`uploads`: Free 2 at once), and for how long; one more, or one that waited that long, is
   * answered 429 `RATE_LIMITED` with `Retry-After`, its body unread (src/http/uploads.ts).
   * @default { waiting: 32, waitMs: 30000 }
   */
  readonly uploads?: UploadLimits;
  /** More routes (e.g. later groups), added to the table: same matching, auth, limits, validation and OpenAPI. */
  readonly routes?: readonly Route[];
  /**
   * Where the pure CPU work of analyze, score and compare runs (fingerprints of the content, content-word
   * pairs, a whole compare) and, when it can ({@link JsonBodyOffload}), where JSON bodies of 1 MiB and more
   * are parsed and checked: `trainprint serve` passes its worker pool (`createWorkerPool()` from
   * `trainprint/node`, which does both); without one it all runs in this thread. Results and errors are the
   * same either way. With `forOwner` (the worker pool has it), each request's work goes through its account's
   * own: the pool's waiting tasks then take turns by account, not by arrival. @default in this thread
   */
  readonly offload?: Offload &
    Partial<JsonBodyOffload> & { forOwner?(owner: string): Offload & Partial<JsonBodyOffload> };
  /**
   * The longest stretch of an analysis's search between two turns of the event loop (ms), so that other
   * requests are answered while a large text is analysed; `Infinity` searches in one go. @default 3
   */
  readonly sliceMs?: number;
  /**
   * Refuse every change to the reference datasets (create, import, add documents, drop) with 409 `CONFLICT`
   * and this sentence, e.g. where several processes serve the same API with datasets each loaded from files:
   * a dataset changed through one of them would be missing or different in the others. Listing, reading,
   * exporting and searching are unaffected. @default changes allowed
   * @example createHandler(engine, { datasetsReadOnly: 'datasets are loaded from files in each process' })
   */
  readonly datasetsReadOnly?: string;
  /**
   * Called with every error answered 500 (`INTERNAL`, and the engine's own 500 codes), its request id and where it
   * failed (method, route template, operation id), for the operator's logs. The client never sees the error, only
   * the request id. Credentials are never passed here.
   * @default one JSON line on stderr per 500 (`logServerError`: time, request id, method, route, the error's class,
   * code, message and stack)
   */
  readonly onError?: ServerErrorHook;
  /**
   * Where the catalogue jobs (`POST /api/v1/jobs`) are kept. The handler submits, reads, cancels and deletes them;
   * it runs none: the host runs the one runner beside it (`startJobRunner(engine)`, as `trainprint serve` does), or
   * another process on the same store does. @default createJobService({ store: engine.store })
   */
  readonly jobs?: JobStore;
  /** Called after a job was submitted through this handler: a host's runner looks for work at once (`runner.wake()`). */
  readonly onJobSubmitted?: (job: JobInfo) => void;
  /**
   * The models of the `extract` jobs this handler accepts, held in this process's memory (a model service's key is
   * never stored with a job): give the same object to the runner beside it (`startJobRunner(engine, { jobModels })`).
   * Without it `extract` jobs answer NOT_SUPPORTED.
   */
  readonly jobModels?: HeldJobModels;
  /**
   * The host's own job types (`defineJobType`), taken beside the built-in ones: give its runner the same
   * (`startJobRunner(engine, { jobTypes })`). Their item schemas check the items and are in the OpenAPI document.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each type's item is its own
  readonly jobTypes?: readonly JobTypeDefinition<any>[];
}

/**
 * Default body limit: 10 MiB of content plus JSON overhead.
 * @example createHandler(engine, { maxBodyBytes: DEFAULT_MAX_BODY_BYTES * 2 })
 */
export const DEFAULT_MAX_BODY_BYTES = 11 * 1024 * 1024;
/**
 * Default body limit of the dataset upload routes (documents, import).
 * @example createHandler(engine, { maxDatasetBodyBytes: 4 * DEFAULT_MAX_DATASET_BODY_BYTES })
 */
export const DEFAULT_MAX_DATASET_BODY_BYTES = 256 * 1024 * 1024;

/**
 * The HTTP API of `engine` as a Fetch handler.
 *
 * @throws INVALID_OPTIONS (plans, limits, token settings, duplicate routes)
 * @example
 * import { createEngine } from 'trainprint'
 * import { createHandler, KeyStore } from 'trainprint/http'
 * const engine = await createEngine()
 * const keys = new KeyStore(engine.store)
 * const { key } = await keys.createKey({ account: 'acme', plan: 'pro' })
 * const handler = createHandler(engine, { keys })
 * Deno.serve(handler) // or: await serve(handler, { port: 8787 }) from 'trainprint/node'
 */
export function createHandler(engine: Engine, options: HandlerOptions = {}): Handler {
  const now = options.now ?? Date.now;
  const plans = { ...PLANS, ...options.plans };
  // the limiter checks the plans, before a key store is told of them
  const limiter = new RateLimiter({ plans, counters: options.counters ?? new MemoryCounterStore(now), now });
  const keys = options.keys ?? new KeyStore(engine.store, { clock: now, plans });
  if (options.keys) options.keys.allowPlans(plans); // keys made for this handler may be on its plans
  const tokens = new TokenIssuer(engine.store, options.tokenSecret, options.tokenTtlSeconds);
  const idempotency = new Idempotency(engine.store, now);
  const status = new StatusMonitor(engine, now, plans);
  const throttle = new AuthThrottle(now);
  if (options.clientAddress !== undefined && typeof options.clientAddress !== 'function') {
    throw new TrainprintError('INVALID_OPTIONS', 'clientAddress must be a function of the request');
  }
  const addressOf = (request: Request): string | null => {
    try {
      return options.clientAddress?.(request) ?? null;
    } catch {
      return null;
    }
  };
  const maxBody = positiveInt('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
  const maxDatasetBody = positiveInt(
    'maxDatasetBodyBytes',
    options.maxDatasetBodyBytes,
    DEFAULT_MAX_DATASET_BODY_BYTES,
  );
  const basePath = options.baseUrl === undefined ? '' : new URL(options.baseUrl).pathname.replace(/\/+$/, '');
  const jobTypes = jobTypeRegistry(options.jobTypes);
  const routes = [...withJobTypes(ROUTES, jobTypes), ...(options.routes ?? [])];
  // the routes that take files read what the largest file of the plans needs, unless the operator set a limit
  const maxFileBody = options.maxBodyBytes === undefined ? Math.max(maxBody, fileRouteBodyBytes(plans)) : maxBody;
  const fileReason = options.maxBodyBytes === undefined ? fileRouteBodyReason(plans) : undefined;
  const router: Router = { table: compileRoutes(routes, maxBody, maxDatasetBody, maxFileBody, fileReason), basePath };
  let openapi: Record<string, unknown> | null = null;
  // names are resolved under the default policies only: an operator's own policy decides alone
  const modelPolicyIsDefault = options.modelHosts === undefined && options.allowPrivateModelHosts !== true;
  const modelHosts: HostPolicy = {
    allow: options.modelHosts ?? defaultModelHosts(options.allowPrivateModelHosts === true),
    resolve: modelPolicyIsDefault ? options.resolveHost : undefined,
  };
  const webhookPolicyIsDefault = options.webhookHosts === undefined && options.allowPrivateWebhookHosts !== true;
  const webhookHosts: HostPolicy = {
    allow: options.webhookHosts ?? defaultModelHosts(options.allowPrivateWebhookHosts === true),
    resolve: webhookPolicyIsDefault ? options.resolveHost : undefined,
  };
  // at most one hour
  const modelTimeoutMs = positiveInt('modelTimeoutMs', options.modelTimeoutMs, 60_000, 3_600_000);

  if (options.datasetsReadOnly !== undefined && typeof options.datasetsReadOnly !== 'string') {
    throw new TrainprintError('INVALID_OPTIONS', 'datasetsReadOnly must be a string (why datasets cannot change)');
  }
  if (options.sliceMs !== undefined && (typeof options.sliceMs !== 'number' || !(options.sliceMs >= 0))) {
    throw new TrainprintError('INVALID_OPTIONS', 'sliceMs must be a number ≥ 0');
  }
  const bodies = typeof options.offload?.parseJson === 'function' ? (options.offload as JsonBodyOffload) : null;
  const largeWork = new LargeWorkGate(options.largeRequests);
  const deadlines = bodyDeadlinesOf(options.bodyDeadlines);
  const uploads = new UploadGate(options.uploads);
  const services: RouteServices = {
    work: { sliceMs: options.sliceMs, offload: options.offload },
    datasetsReadOnly: options.datasetsReadOnly ?? null,
    openapi: () => (openapi ??= buildOpenApi(routes, { baseUrl: options.baseUrl })),
    status: async () => ({ ...(await status.report()) }),
    statusHtml: async () => statusHtml(await status.report()),
    usage: (p: Principal) => limiter.peek(p),
    issueToken: async (form, authorization, request) => {
      // wrong client secrets wait as wrong keys do: per address and per client id
      const subjects = [...authSubjects(addressOf(request), null), ...oauthClientSubjects(form, authorization)];
      const wait = throttle.wait(subjects);
      if (wait > 0) return throttled(wait);
      const res = await tokenEndpoint(form, authorization, keys, tokens, now());
      if (res.status === 401) throttle.failed(subjects);
      return res;
    },
    targetModel: (spec, field = 'model') => targetModel(spec, field, modelHosts, modelTimeoutMs, options.modelFetch),
    checkWebhookUrl: async (url) => {
      let allowed = false;
      try {
        allowed = webhookHosts.allow(url) === true;
      } catch {
        allowed = false;
      } // a throwing policy refuses
      if (!allowed) {
        return (
          'this server does not send events to loopback, private or internal hosts ' +
          '(createHandler option allowPrivateWebhookHosts)'
        );
      }
      if (!webhookHosts.resolve) return null;
      const r = await refusedResolution(url, webhookHosts.resolve);
      return 'reason' in r ? r.reason : null;
    },
    plans: () => Object.keys(plans),
    plan: (name) => (Object.hasOwn(plans, name) ? plans[name] : undefined),
    jobs: options.jobs ?? createJobService({ store: engine.store, clock: now }),
    jobSubmitted: (job) => options.onJobSubmitted?.(job),
    jobModels: options.jobModels ?? null,
    jobTypes,
    reserve: (p, n) => limiter.take(p, n),
  };
  // an item sent without a key holds no secret: after a restart its runner builds its model again, under this policy
  if (options.jobModels && !options.jobModels.build)
    options.jobModels.build = (spec) => services.targetModel(spec as unknown as ModelSpec, 'model');
  // an extract or audit item charged its whole budget owes, when it ends, only the calls it made
  if (options.jobModels && !options.jobModels.giveBack)
    options.jobModels.giveBack = (account, units, chargedAt) => limiter.giveBack(account, units, chargedAt);
  const auth: AuthServices = { keys, tokens, throttle, limiter, now, addressOf };
  const env: RouteEnvironment = { engine, keys, services, now };

  // the steps, in order (docs/http.md); a step ends the request by returning its finished answer or by throwing,
  // and answerFailure turns what was thrown into the error envelope with the headers the steps collected
  const handler = async function handler(request: Request): Promise<Response> {
    const x = new Exchange(request, status);
    try {
      const found = findRoute(x, router); // 404, or the finished 405 with Allow
      if (found instanceof Response) return found;
      const { route } = found;
      refuseDeclaredLength(x, found); // 413 before anything is read
      const principal = await authenticateCaller(x, route, auth); // 429 after failed attempts, 401, 403
      await chargePlan(x, route, principal, limiter); // 429; RateLimit-* on every answer from here on
      await checkMediaType(request, route.body, route.files, route.ndjson); // 415
      const limit = await checkBeforeBody(x, found, env, principal); // what the path names: 404, 403; 413
      // an upload waits, unread, for one of its account's places (the plan's `uploads`): 429 past the line's bounds
      await admitUpload(x, uploads, route, principal, services.plan);
      // an account's bodies are read, and its forms parsed, in its own turns of the event loop (ownerTurn); a body
      // that stops or crawls is 408 (bodyDeadlines), one over the limit 413 as the bytes stream
      const turn = principal ? turnOf(principal.account) : undefined;
      const raw = await readBody(request, route.body, limit.bytes, limit.reason, {
        turn,
        deadlines,
        watch: limit.watch,
      });
      // a large body takes its place once it is read, not while it arrives: a slow one holds only its account's
      // upload place, never the service's; the wait for a place is bounded (503 with Retry-After)
      await holdLargeWork(x, largeWork, raw.length);
      // the offloaded work of an account waits in its own line of the pool, which takes turns with the others'
      const mine = principal && options.offload?.forOwner ? options.offload.forOwner(principal.account) : null;
      const parser = mine && bodies ? (mine as JsonBodyOffload) : bodies;
      const body = await decodeBody(x, found, raw, principal, parser, turn); // 400, 422; 413 for a file over the plan's
      if (route.files) await holdDocumentWork(x, largeWork, body); // a document file of any size takes a place: 503
      const at = mine ? { ...env, services: { ...services, work: { ...services.work, offload: mine } } } : env;
      const ctx = routeContext(at, request, found, principal, parseQuery(found), body); // 422 for the query
      const covered = x.idempotencyBytes ?? raw; // a multipart form: its fields and file, not its boundary
      return await runOnce(x, found, principal, covered, idempotency, () => runRoute(route, ctx)); // replay, 409
    } catch (err) {
      return await answerFailure(x, err, options);
    } finally {
      x.release();
    }
  };
  return handler;
}

/**
 * The OpenAI-compatible model of a request's `model` member, once its URL is acceptable: http(s),
 * no credentials (they belong in `api_key`), no query or fragment (paths are appended to it), and
 * a host the policy allows. The API key lives in the model's closure only: never stored, never in
 * a result or an error.
 */
async function targetModel(
  spec: ModelSpec,
  field: string,
  policy: HostPolicy,
  timeoutMs: number,
  fetchFn: typeof fetch | undefined,
): Promise<TargetModel> {
  const refuse = (reason: string): never => {
    throw new TrainprintError('INVALID_INPUT', `${field}.base_url: ${reason}`, {
      cause: { location: 'body', field: `${field}.base_url`, reason },
    });
  };
  let url: URL;
  try {
    url = new URL(spec.base_url);
  } catch {
    return refuse('must be an absolute http(s) URL such as "https://models.example.org/v1"');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('must be an http or https URL');
  if (url.username !== '' || url.password !== '') refuse('must not carry credentials (send the key as model.api_key)');
  if (url.search !== '' || url.hash !== '' || spec.base_url.includes('?') || spec.base_url.includes('#'))
    refuse('must not have a query or fragment');
  let allowed = false;
  try {
    allowed = policy.allow(url) === true;
  } catch {
    allowed = false; // a throwing policy refuses
  }
  if (!allowed)
    refuse(
      'this server does not call that host (loopback, private, link-local and internal addresses are refused unless the operator allows them)',
    );
  let pinned: typeof fetch | undefined;
  if (policy.resolve) {
    const r = await refusedResolution(url, policy.resolve);
    if ('reason' in r) refuse(r.reason);
    else pinned = r.fetch;
  }
  // a connection that fails reaches the client as UPSTREAM_UNREACHABLE, never as the socket's error text
  const reaching = unreachableAsTyped(fetchFn ?? pinned ?? ((input, init) => globalThis.fetch(input, init)));
  return typedUnreachable(
    createOpenAICompatibleModel({
      baseUrl: url.href,
      model: spec.model,
      timeoutMs: callTimeout(spec, field, timeoutMs),
      ...(spec.api_key === undefined ? {} : { apiKey: spec.api_key }),
      ...(spec.api === undefined ? {} : { api: spec.api }),
      ...(spec.top_logprobs === undefined ? {} : { topLogprobs: spec.top_logprobs }),
      ...endpointOptions(spec),
      fetch: reaching,
    }),
  );
}

/**
 * A call's time limit: the spec's `timeout_ms` where it gives one, never past the server's model timeout (the
 * operator's ceiling, which a job's time slices leave room for): 422 naming `<field>.timeout_ms` above it.
 */
function callTimeout(spec: ModelSpec, field: string, ceilingMs: number): number {
  if (spec.timeout_ms === undefined) return ceilingMs;
  if (spec.timeout_ms > ceilingMs) {
    const f = `${field}.timeout_ms`;
    const reason = `is at most this server's model timeout, ${ceilingMs} ms`;
    throw new TrainprintError('INVALID_INPUT', `${f}: ${reason}`, { cause: { location: 'body', field: f, reason } });
  }
  return spec.timeout_ms;
}

/** The production endpoint's options of a job item's model (temperature … tokens a minute), as the adapter names them. */
function endpointOptions(spec: ModelSpec) {
  return {
    ...(spec.temperature === undefined ? {} : { temperature: spec.temperature }),
    ...(spec.max_tokens_param === undefined ? {} : { maxTokensParam: spec.max_tokens_param }),
    ...(spec.seed === undefined ? {} : { seed: spec.seed }),
    ...(spec.requests_per_minute === undefined ? {} : { requestsPerMinute: spec.requests_per_minute }),
    ...(spec.tokens_per_minute === undefined ? {} : { tokensPerMinute: spec.tokens_per_minute }),
  };
}

/** Which hosts the server calls: the URL policy, and the resolver that checks and pins names under the default one. */
interface HostPolicy {
  readonly allow: (url: URL) => boolean;
  readonly resolve: HostResolver | undefined;
}
