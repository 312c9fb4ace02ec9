/**
 * The shapes shared by the HTTP adapter's modules: a {@link Route} of the table (src/http/routes/index.ts),
 * the {@link RouteContext} its handler receives, the authenticated {@link Principal}, and the
 * {@link Reply} a handler returns when the status or headers are not the defaults.
 *
 * Kept apart from the table so that modules other than the table (the OpenAPI builder, the
 * handler, later route groups) can import the types without importing every route.
 */
import type { Engine, ErrorCode, SliceOptions, TargetModel } from '../library.js';
import type {
  HeldJobModels,
  JobInfo,
  JobStore,
  JobTypeRegistry,
  KeyStore,
  Plan,
  Principal,
  RateState,
  Scope,
} from '../library.js';
export { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from '../library.js';
export type { Principal, Scope } from '../library.js';

/**
 * A JSON Schema (2020-12, the dialect of OpenAPI 3.1). Plain data: no functions, no `$ref` across files.
 * @example
 * const s: JsonSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * HTTP methods the table uses.
 * @example const m: Method = 'POST'
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Services of the handler that routes may use (the table stays free of handler internals).
 * @example
 * handler: async (ctx) => ({ limit: (await ctx.services.usage(ctx.principal!)).limit })
 */
export interface RouteServices {
  /**
   * Why the handler's webhook-host policy refuses POSTing monitor events to `url` (its host is
   * internal, or resolves to an internal address), or null when it allows it.
   */
  checkWebhookUrl(url: URL): Promise<string | null>;
  /** The names of the plans this handler charges calls to. */
  plans(): readonly string[];
  /** A plan of this handler by name (undefined for one it does not know). */
  plan(name: string): Plan | undefined;
  /** The OpenAPI document of this handler's table. */
  openapi(): Record<string, unknown>;
  /** A health check now, then the status report (src/http/status.ts). */
  status(): Promise<Record<string, unknown>>;
  /** The status report as a small HTML page. */
  statusHtml(): Promise<string>;
  /** Usage of the principal's account in the current window, without charging a call. */
  usage(principal: Principal): Promise<RateState>;
  /** Issue an OAuth access token (RFC 6749 §4.4); the route turns the result into the RFC response. */
  issueToken(form: URLSearchParams, authorization: string | null, request: Request): Promise<Response>;
  /**
   * The target model a memorization request names, after the handler's model-host policy
   * (src/net/egress.ts): with a resolver, its name is resolved and checked now and its
   * requests go to the checked addresses.
   * @throws INVALID_INPUT naming `<field>.base_url` (malformed, or a host the policy refuses)
   */
  targetModel(spec: ModelSpec, field?: string): Promise<TargetModel>;
  /**
   * How long CPU work (analyze, compare) shares the thread: the handler's `sliceMs` and `offload`,
   * passed on to `engine.analyze`; compare runs on `offload` when there is one.
   */
  readonly work: SliceOptions;
  /** Why the reference datasets may not be changed through this handler (`datasetsReadOnly`), or null. */
  readonly datasetsReadOnly: string | null;
  /** Where the catalogue jobs are kept (src/services/jobs/); the host's runner runs them, never this handler. */
  readonly jobs: JobStore;
  /** Tells the host that a job was just submitted (`onJobSubmitted`: its runner looks for work at once). */
  jobSubmitted(job: JobInfo): void;
  /** The models of the `extract` jobs accepted here, held for the host's runner (`jobModels`), or null: none taken. */
  readonly jobModels: HeldJobModels | null;
  /** The job types this handler takes: the built-in ones and the host's own (`jobTypes`). */
  readonly jobTypes: JobTypeRegistry;
  /**
   * Charges `n` calls at once to the principal's plan (a catalogue job's items), all or none: `allowed` false when
   * they would pass the day's limit (nothing charged then).
   */
  reserve(principal: Principal, n: number): Promise<RateState>;
}

/**
 * The `model` member of a memorization request: an OpenAI-compatible service.
 * @example
 * const m: ModelSpec = { base_url: 'https://models.example.org/v1', model: 'llama-3.1-8b', api_key: 'sk-…', top_logprobs: 5 }
 */
export interface ModelSpec {
  /** Base URL with the version path (`…/v1`): http or https, no credentials, query or fragment. */
  readonly base_url: string;
  /** Sent to the model service as `Authorization: Bearer …`; never stored or echoed. */
  readonly api_key?: string;
  /** The `model` field of the service's requests. */
  readonly model: string;
  /** `completions` (log-probabilities with `echo`) or `chat` (generations only). @default 'completions' */
  readonly api?: 'completions' | 'chat';
  /** Alternatives per position asked for with `logprobs` (completions). @default 5 */
  readonly top_logprobs?: number;
  /** A job item's model only: `temperature` of every generation, 0..2. @default 0 */
  readonly temperature?: number;
  /** A job item's model only: the name of the output-token limit. @default 'max_tokens' */
  readonly max_tokens_param?: 'max_tokens' | 'max_completion_tokens';
  /** A job item's model only: `seed` of every generation, for endpoints that take one. */
  readonly seed?: number;
  /** A job item's model only: time limit of one call in ms, at most the handler's `modelTimeoutMs` (its default). */
  readonly timeout_ms?: number;
  /** A job item's model only: most requests a minute (a token bucket). */
  readonly requests_per_minute?: number;
  /** A job item's model only: most tokens a minute (prompt estimate and output limit of each request). */
  readonly tokens_per_minute?: number;
}

/**
 * What a route's `beforeBody` may allow of a body, below the route's limit: a request declaring more is refused
 * (413 with `reason`) before anything is read, and reading stops there.
 */
export interface BodyAllowance {
  readonly maxBodyBytes: number;
  readonly reason: string;
  /** Gives back what the check reserved for this request; the handler calls it once the request has ended. */
  readonly release?: () => void;
  /** Sees each chunk of the body as it is read, and refuses it by throwing (a job's items counted: body-items.ts). */
  readonly watch?: (chunk: Uint8Array) => void;
}

/**
 * What a handler receives. Everything was validated against the route's schemas before.
 * @example
 * handler: async (ctx) => ctx.engine.getWork(ctx.params.work_id)
 */
export interface RouteContext {
  readonly engine: Engine;
  readonly request: Request;
  /** Path parameters, decoded, each matching its pattern (src/http/routes/index.ts `PATH_PARAMS`). */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters, coerced to the types of `querySchema` and validated. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The request body: parsed and validated JSON, `URLSearchParams` (form) or `Uint8Array` (binary). */
  readonly body: unknown;
  /** The caller; `null` on public routes (`scope: null`). */
  readonly principal: Principal | null;
  readonly keys: KeyStore;
  readonly services: RouteServices;
  /** The handler's clock (ms since the epoch). */
  now(): number;
}

/**
 * A handler's result with a status or headers other than the defaults (200, JSON). The body is
 * still wrapped in the success envelope (`{ success: true, ...body }`).
 *
 * @example
 * return new Reply(work, work.created ? 201 : 200)
 */
export class Reply {
  constructor(
    readonly body: Record<string, unknown>,
    readonly status = 200,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/**
 * One row of the route table.
 * @example
 * const ping: Route = {
 *   method: 'GET', path: '/api/v1/ping', operationId: 'ping', tag: 'service', scope: 'kb', summary: 'Liveness',
 *   responseSchema: { type: 'object', required: ['success', 'pong'], properties: { success: { const: true }, pong: { const: true } } },
 *   handler: async () => ({ pong: true }),
 * }
 * createHandler(engine, { routes: [ping] })
 */
export interface Route {
  readonly method: Method;
  /** Template relative to the base URL, e.g. `/api/v1/content/{work_id}`; parameters are whole segments. */
  readonly path: string;
  /** Unique; also the OpenAPI `operationId`. */
  readonly operationId: string;
  /** OpenAPI tag (the group in the docs). */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Scope required; `null` for public routes (no authentication, no rate limit). */
  readonly scope: Scope | null;
  /**
   * How the body is read: `json` (validated against `requestSchema`; 415 unless
   * `application/json`), `form` (`application/x-www-form-urlencoded`, handed over as
   * `URLSearchParams` for the handler to check: the OAuth token endpoint answers RFC 6749 errors),
   * `binary` (`application/octet-stream`, a `Uint8Array`). Absent: the route reads no body.
   */
  readonly body?: 'json' | 'form' | 'binary';
  /**
   * The route takes a file (`content` with `content_type` `epub`, `pdf`, `docx`): besides its JSON body (the file in
   * base64), a `multipart/form-data` body with the file in the field `file` and the other fields as form fields
   * (src/http/multipart.ts); the body limit and the largest file are the caller's plan's (`fileBytes`).
   */
  readonly files?: true;
  /** Schema of the body (`json`: validated; `form`: documented). */
  readonly requestSchema?: JsonSchema;
  /** Object schema of the query parameters (validated after coercion to the property types). */
  readonly querySchema?: JsonSchema;
  /** Schema of the success body (for `json` responses: including `success: true`). */
  readonly responseSchema: JsonSchema;
  /** Media type of the success response (`ndjson`: JSON lines, `application/x-ndjson`). @default 'json' */
  readonly responseType?: 'json' | 'html' | 'binary' | 'ndjson';
  /**
   * A `json` route that also takes `application/x-ndjson`: one JSON value per line (blank lines skipped), handed to
   * the handler as `{ items: [...] }` and validated against `requestSchema` as such (400 naming the line that is
   * not JSON).
   */
  readonly ndjson?: true;
  /**
   * Another media type the route answers on request (e.g. a report's `?format=json`), with its schema: documented
   * beside {@link responseType} in the success responses.
   */
  readonly alsoAnswers?: { readonly type: 'json' | 'html' | 'binary' | 'ndjson'; readonly schema: JsonSchema };
  /** Success statuses the handler may answer. @default [200] */
  readonly status?: readonly number[];
  /** Error statuses specific to this route (documented in OpenAPI), e.g. 404 for a missing item. */
  readonly errors?: readonly number[];
  /**
   * The errors this operation gives beyond the ones every route of its kind gives (authentication,
   * body, limits): each code's status is documented, with the case in the response's description.
   */
  readonly errorCases?: readonly ErrorCase[];
  /** Worked examples: request and response, in OpenAPI (`example`/`examples`, `x-codeSamples`) and the docs. */
  readonly examples?: readonly RouteExample[];
  /** The POST creates something: an `Idempotency-Key` header is honoured (24 h, per account). */
  readonly creates?: boolean;
  /**
   * false: the call is not charged to the plan's limit (reading one's own usage must work when the limit is
   * reached); it still needs the key and its scope. @default true
   */
  readonly metered?: boolean;
  /** Body limit of this route in bytes. @default the handler's `maxBodyBytes` */
  readonly maxBodyBytes?: number;
  /**
   * A check that needs only the path and the caller (the item the path names exists and is the
   * account's), run after authentication and before the body is read: a large upload to a wrong
   * id is refused without reading it. `ctx.body` is undefined and `ctx.query` empty here.
   */
  readonly beforeBody?: (ctx: RouteContext) => Promise<undefined | BodyAllowance>;
  /**
   * The operation id this route is another path of (same schemas, handler and documentation):
   * OpenAPI marks it with `x-alias-of`.
   */
  readonly aliasOf?: string;
  /** Returns the body object (wrapped as `{ success: true, ...body }`), a {@link Reply}, or a finished `Response`. */
  readonly handler: (ctx: RouteContext) => Promise<unknown>;
}

/** A row of one group's table: its `tag` is the group's, its `scope` the group's unless it names another. */
export type GroupRow = Omit<Route, 'tag' | 'scope'> & { readonly scope?: Scope | null };

/**
 * The rows of one group (a module of src/http/routes/), each given the group's tag and, unless it names its own, scope.
 * @example inGroup('kb', 'kb', [{ method: 'GET', path: '/api/v1/kb/factors', operationId: 'listFactors', … }])
 */
export function inGroup(tag: string, scope: Scope | null, rows: readonly GroupRow[]): Route[] {
  return rows.map((row) => ({ tag, scope, ...row }));
}

/**
 * The media type of each kind of body a route reads (`body`) or answers (`responseType`): the Content-Type the
 * handler requires and the document names.
 * @example MEDIA_TYPES[route.responseType ?? 'json'] // 'application/json'
 */
export const MEDIA_TYPES: Readonly<Record<NonNullable<Route['body'] | Route['responseType']>, string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  binary: 'application/octet-stream',
  html: 'text/html',
  ndjson: 'application/x-ndjson',
};

/**
 * An error an operation gives, and when.
 * @example const e: ErrorCase = { code: 'NOT_FOUND', when: 'the account has no work with this id' }
 */
export interface ErrorCase {
  /** A code of the error table; its HTTP status is the table's. */
  readonly code: ErrorCode;
  /** The case, as a clause: "the account has no work with this id". */
  readonly when: string;
}

/**
 * One worked example of an operation. The same object is the OpenAPI example, the curl sample of
 * the docs, and a request that the contract test sends to a fresh server (after the first
 * examples of the operations in `after`, which create what this one names) expecting `status`
 * and a body valid against the documented schema. Generated ids, timestamps and signatures in
 * `params`, `query` and `body` are the values of the documented responses of those earlier
 * examples; a client substitutes what its own server answered.
 *
 * @example
 * const ex: RouteExample = {
 *   name: 'registered', summary: 'A work registered by the account', after: ['registerWork'],
 *   params: { work_id: 'wk_4c1d0e6a9b8f7e2d3c4b5a6978e1f2a3' }, status: 200, response: { success: true, work_id: '…' },
 * }
 */
export interface RouteExample {
  /** Key of the example in the OpenAPI `examples` maps (camelCase, unique per operation). */
  readonly name: string;
  /** What it shows, in one line. */
  readonly summary: string;
  /** Operations (by id) whose first example runs before this one, in this order: they create what it names. */
  readonly after?: readonly string[];
  /**
   * Who calls. Default: the account `acme`, with the key in `TRAINPRINT_KEY`; `buyer`: another
   * account, `globex` (`BUYER_KEY`), the other party of a marketplace deal or a stranger to acme's items.
   */
  readonly caller?: 'buyer';
  /** Path parameters. */
  readonly params?: Readonly<Record<string, string>>;
  /** Query parameters. */
  readonly query?: Readonly<Record<string, string | number | boolean>>;
  /** Request headers besides authentication and Content-Type (e.g. `Idempotency-Key`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body: JSON for `json` routes, the form fields for `form` routes. */
  readonly body?: unknown;
  /** `binary` routes: the file sent as the body, or the file a binary response is saved to. */
  readonly file?: string;
  /** Status of the response. */
  readonly status: number;
  /**
   * The response body: JSON (success or error envelope), or the start of the page for `html`
   * responses. Absent for `binary` responses. Arrays may be shortened to keep it small; the
   * values are those of a real run.
   */
  readonly response?: unknown;
}

/**
 * The documentation of one operation.
 * @example
 * const d: RouteDocs = { description: 'Drop a reference dataset.', errorCases: [], examples: [ex] }
 */
export interface RouteDocs {
  /** What it does, what it stores, who sees the result; Markdown. The scope is added from the row. */
  readonly description: string;
  /** Errors specific to the operation (the generic ones come from the row's features). */
  readonly errorCases?: readonly ErrorCase[];
  /** At least one; the first is the one other examples run as their setup (`after`). */
  readonly examples: readonly RouteExample[];
}
