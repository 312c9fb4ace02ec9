/**
 * `createHandler(engine, options)`: the HTTP API as one Fetch handler, `(Request) => Promise<Response>`,
 * for any runtime with Fetch and WebCrypto — `Deno.serve(handler)`, a Workers `fetch` export,
 * or Node through `serve` from `trainprint/node`.
 *
 * Every request goes through the same steps, in this order (each can end it):
 *  1. match the path and method against the route table — 404, or 405 with `Allow`;
 *  2. refuse a declared `Content-Length` over the limit — 413, before anything is read;
 *  3. authenticate (`Authorization: Bearer <API key | access token>`) — 401 with
 *     `WWW-Authenticate: Bearer realm="trainprint"`; check the route's scope — 403;
 *  4. charge the call to the account's plan — 429 with `Retry-After` (RateLimit-* headers on
 *     every authenticated response from here on);
 *  5. check the Content-Type — 415; run the route's `beforeBody` check (an item the path names
 *     is missing or not the account's — 404, 403), so an upload to a wrong id is refused without
 *     reading it; read the body counting bytes as they stream — 413;
 *     parse — 400 `MALFORMED_JSON`; refuse nesting deeper than 64 levels and lone surrogates —
 *     422; validate against the route's schema — 422 naming the field; coerce and validate the
 *     query — 422;
 *  6. `Idempotency-Key` on creating POSTs: replay, or 409 for another request with the same key;
 *  7. run the route's handler; wrap its result as `{ success: true, ...result }`.
 * Errors anywhere become the envelope `{ success: false, error: { code, message, details? } }`;
 * unexpected ones are 500 `INTERNAL` without internals, and every 5xx is recorded for /status.
 */
import {
  AuthThrottle,
  authenticate,
  createOpenAICompatibleModel,
  defaultModelHosts,
  Idempotency,
  KeyStore,
  MemoryCounterStore,
  PLANS,
  RateLimiter,
  refusedResolution,
  requestHash,
  TokenIssuer,
  TrainprintError,
  type CounterStore,
  type Engine,
  type HostResolver,
  type Offload,
  type Plan,
  type RateState,
  type TargetModel,
} from '../index.js';
import { LARGE_WORK_BYTES, LARGE_WORK_RETRY_SECONDS, LargeWorkGate, type LargeWorkLimits } from './large-work.js';
import { authSubjects, oauthClientSubjects, throttled } from './auth-throttle.js';
import {
  Reply,
  type Method,
  type ModelSpec,
  type Principal,
  type Route,
  type RouteContext,
  type RouteServices,
} from './context.js';
import { tokenEndpoint } from './oauth.js';
import { rateLimitHeaders } from './rate-limit.js';
import { buildOpenApi } from './openapi.js';
import { errorOutcome, forClients, jsonResponse } from './respond.js';
import { PATH_PARAMS, ROUTES } from './routes/index.js';
import { StatusMonitor, statusHtml } from './status.js';
import { parseJsonBody, type JsonBodyOffload } from './json-body.js';
import { coerceQuery, compileValidator } from './validate.js';
import { nextMacrotask } from '../util/steps.js';

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
  /** Plans by name, merged over the built-ins (free 100/day, pro 10,000, scale 1,000,000, enterprise unlimited). */
  readonly plans?: Readonly<Record<string, Plan>>;
  /** Where calls are counted. @default new MemoryCounterStore() (exact; per process) */
  readonly counters?: CounterStore;
  /**
   * Public URL of the API (`https://api.example.org` or with a path, `https://example.org/trainprint`):
   * the OpenAPI `servers` entry; its path is stripped from request paths before matching.
   */
  readonly baseUrl?: string;
  /** Largest request body in bytes, checked before parsing. @default 11 MiB (analyze takes 10 MiB of content) */
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
   * How many requests with a body of 1 MiB or more run at once, and how many wait for a place (in order); one more
   * is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After`, before its body is read. Each holds tens to hundreds
   * of MB while it runs, so this bounds the server's peak memory (src/http/large-work.ts).
   * @default { running: 4, waiting: 16 }
   */
  readonly largeRequests?: LargeWorkLimits;
  /** More routes (e.g. later groups), added to the table: same matching, auth, limits, validation and OpenAPI. */
  readonly routes?: readonly Route[];
  /**
   * Where the pure CPU work of analyze, score and compare runs (fingerprints of the content, content-word
   * pairs, a whole compare) and, when it can ({@link JsonBodyOffload}), where JSON bodies of 1 MiB and more
   * are parsed and checked: `trainprint serve` passes its worker pool (`createWorkerPool()` from
   * `trainprint/node`, which does both); without one it all runs in this thread. Results and errors are the
   * same either way. @default in this thread
   */
  readonly offload?: Offload & Partial<JsonBodyOffload>;
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
   * Called with every unexpected error (those answered 500 `INTERNAL`) and its request id, for the
   * operator's logs. The client never sees the error. Credentials are never passed here.
   */
  readonly onError?: (error: unknown, requestId: string) => void;
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

interface CompiledRoute {
  readonly route: Route;
  readonly segments: ReadonlyArray<{ literal: string } | { param: string; re: RegExp }>;
  readonly params: number;
  readonly checkBody?: (v: unknown) => unknown;
  readonly checkQuery?: (v: unknown) => unknown;
  readonly maxBodyBytes: number;
}

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
  const maxBody = positiveInt(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes');
  const maxDatasetBody = positiveInt(
    options.maxDatasetBodyBytes,
    DEFAULT_MAX_DATASET_BODY_BYTES,
    'maxDatasetBodyBytes',
  );
  const basePath = options.baseUrl === undefined ? '' : new URL(options.baseUrl).pathname.replace(/\/+$/, '');
  const routes = [...ROUTES, ...(options.routes ?? [])];
  const table = compile(routes, maxBody, maxDatasetBody);
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
  const modelTimeoutMs = positiveInt(options.modelTimeoutMs, 60_000, 'modelTimeoutMs');
  if (modelTimeoutMs > 3_600_000)
    throw new TrainprintError('INVALID_OPTIONS', 'modelTimeoutMs must be at most 3,600,000 (one hour)');

  if (options.datasetsReadOnly !== undefined && typeof options.datasetsReadOnly !== 'string') {
    throw new TrainprintError('INVALID_OPTIONS', 'datasetsReadOnly must be a string (why datasets cannot change)');
  }
  if (options.sliceMs !== undefined && (typeof options.sliceMs !== 'number' || !(options.sliceMs >= 0))) {
    throw new TrainprintError('INVALID_OPTIONS', 'sliceMs must be a number ≥ 0');
  }
  const bodies = typeof options.offload?.parseJson === 'function' ? (options.offload as JsonBodyOffload) : null;
  const largeWork = new LargeWorkGate(options.largeRequests);
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
  };

  return async function handler(request: Request): Promise<Response> {
    const requestId = requestIdOf(request);
    status.recordRequest();
    let operation = 'unmatched';
    let extra: Record<string, string> = {};
    // what a route's beforeBody reserved (an account's dataset allowance): given back however the request ends
    let releaseAllowance: (() => void) | undefined;
    // a place among the large requests running at once, held until the answer is made
    let releaseLarge: (() => void) | undefined;
    const enterLarge = async () => {
      try {
        releaseLarge = await largeWork.enter();
      } catch (e) {
        extra['retry-after'] = String(LARGE_WORK_RETRY_SECONDS);
        throw e;
      }
    };
    try {
      const url = new URL(request.url);
      let path = url.pathname;
      if (basePath) {
        if (path !== basePath && !path.startsWith(`${basePath}/`))
          throw new TrainprintError('NOT_FOUND', 'no such path');
        path = path.slice(basePath.length) || '/';
      }
      // HEAD is answered wherever GET is, without the body (RFC 9110 §9.3.2)
      const match = matchRoute(table, path, request.method === 'HEAD' ? 'GET' : request.method);
      if ('allow' in match) {
        extra = { allow: match.allow.join(', ') };
        return finish(
          errorOutcome(
            new TrainprintError(
              'METHOD_NOT_ALLOWED',
              `${request.method} is not allowed on ${path}; allowed: ${match.allow.join(', ')}`,
            ),
            requestId,
            { allow: match.allow },
          ),
          extra,
        );
      }
      if (!match.route) throw new TrainprintError('NOT_FOUND', `no route ${path}`);
      const { route: c, params } = match;
      const route = c.route;
      operation = route.operationId;

      const declared = declaredLength(request);
      if (route.body && declared !== null && declared > c.maxBodyBytes) throw tooLarge(c.maxBodyBytes);

      let principal: Principal | null = null;
      if (route.scope !== null) {
        // a subject that failed too often waits, before any key is looked up
        const subjects = authSubjects(addressOf(request), request.headers.get('authorization'));
        const wait = throttle.wait(subjects);
        if (wait > 0) {
          extra = { 'retry-after': String(wait) };
          throw new TrainprintError(
            'RATE_LIMITED',
            `too many failed authentications from this address or with this key: retry in ${wait} s`,
          );
        }
        const who = await authenticate(request.headers.get('authorization'), keys, tokens, now());
        if ('failure' in who) {
          if (who.failure === 'invalid') throttle.failed(subjects);
          extra = {
            'www-authenticate':
              who.failure === 'missing'
                ? 'Bearer realm="trainprint"'
                : `Bearer realm="trainprint", error="invalid_token", error_description="${who.detail}"`,
          };
          throw new TrainprintError('UNAUTHORIZED', who.detail);
        }
        principal = who;
        if (!principal.scopes.includes(route.scope)) {
          extra = {
            ...rateLimitHeaders(await limiter.peek(principal)),
            'www-authenticate': `Bearer realm="trainprint", error="insufficient_scope", scope="${route.scope}"`,
          };
          throw new TrainprintError('FORBIDDEN', `this operation needs scope "${route.scope}"`);
        }
        const rate: RateState = route.metered === false ? await limiter.peek(principal) : await limiter.take(principal);
        extra = rateLimitHeaders(rate);
        if (!rate.allowed && route.metered !== false) {
          extra['retry-after'] = String(rate.resetSeconds);
          throw new TrainprintError(
            'RATE_LIMITED',
            `${rate.limit} calls per UTC day on plan "${rate.plan}"; the window resets in ${rate.resetSeconds} s`,
          );
        }
      }

      if (route.body) await checkMediaType(request, route.body);
      let bodyLimit = c.maxBodyBytes;
      if (route.beforeBody) {
        // the path alone can refuse the request (a missing or foreign item): answer before reading the body; it may
        // also allow less of a body than the route does (what the account's plan has left)
        const allowance = await route.beforeBody({
          engine,
          request,
          params,
          query: {},
          body: undefined,
          principal,
          keys,
          services,
          now,
        });
        releaseAllowance = allowance?.release;
        if (allowance && allowance.maxBodyBytes < bodyLimit) {
          bodyLimit = allowance.maxBodyBytes;
          if (route.body && declared !== null && declared > bodyLimit) throw tooLarge(bodyLimit, allowance.reason);
        }
      }
      // a large body waits for its place before it is read (its size declared), or right after (chunked)
      if (route.body && declared !== null && declared >= LARGE_WORK_BYTES) await enterLarge();
      const raw = route.body ? await readBody(request, bodyLimit) : new Uint8Array(0);
      if (!releaseLarge && raw.length >= LARGE_WORK_BYTES) await enterLarge();
      let body: unknown;
      if (raw.length >= LARGE_BODY_BYTES && route.body === 'json' && bodies) {
        // decoding, parsing and checking 10 MB take tens of ms: done on the offload's thread, which may take the
        // bytes (a copy goes where an Idempotency-Key needs them afterwards, for the request's hash)
        const keep = route.creates === true && principal !== null && request.headers.get('idempotency-key') !== null;
        body = await bodies.parseJson(keep ? raw.slice() : raw, route.requestSchema);
      } else {
        // … or here, with a turn of the loop for the other requests before and after
        if (raw.length >= LARGE_BODY_BYTES) await nextMacrotask();
        body = route.body ? parseBody(route.body, raw, c) : undefined;
        if (raw.length >= LARGE_BODY_BYTES) await nextMacrotask();
      }
      const query = coerceQuery(url.searchParams, route.querySchema);
      if (c.checkQuery) c.checkQuery(query);
      else if (Object.keys(query).length > 0)
        throw new TrainprintError('INVALID_INPUT', `${Object.keys(query)[0]}: is not a known query parameter`, {
          cause: { location: 'query', field: Object.keys(query)[0], reason: 'is not a known query parameter' },
        });

      const ctx: RouteContext = { engine, request, params, query, body, principal, keys, services, now };
      const idemKey = route.creates && principal ? request.headers.get('idempotency-key') : null;
      if (idemKey === null) return finish(await respond(route, ctx), extra);
      const slot = await idempotency.begin(
        principal!.account,
        idemKey,
        await requestHash(request.method, path, url.search, raw),
      );
      try {
        if (slot.replay) {
          return finish(
            new Response(slot.replay.body, {
              status: slot.replay.status,
              headers: {
                'content-type': slot.replay.content_type,
                'cache-control': 'no-store',
                'idempotency-replayed': 'true',
              },
            }),
            extra,
          );
        }
        const res = await respond(route, ctx);
        if (res.status >= 200 && res.status < 300) {
          const text = await res.text();
          await slot.finish({
            status: res.status,
            body: text,
            content_type: res.headers.get('content-type') ?? 'application/json; charset=utf-8',
          });
          return finish(new Response(text, { status: res.status, headers: res.headers }), extra);
        }
        return finish(res, extra);
      } finally {
        await slot.release();
      }
    } catch (err) {
      // a body nobody read is dropped, not left waiting (the Node bridge then closes the connection)
      if (!request.bodyUsed) await request.body?.cancel().catch(() => undefined);
      // the client went away (mid-body, or while the answer was prepared): nobody reads an answer, and it is no
      // fault of the service — 499 in the logs (nginx's "client closed request"), never a 5xx on the status page
      if (request.signal?.aborted) return finish(new Response(null, { status: CLIENT_CLOSED_REQUEST }), extra);
      const out = errorOutcome(shutdownAware(err), requestId);
      if (out.code === 'INTERNAL') options.onError?.(err, requestId);
      return finish(out, extra);
    } finally {
      releaseAllowance?.();
      releaseLarge?.();
    }

    /** Add the request id and the collected headers; record 5xx. */
    function finish(r: Response | ReturnType<typeof errorOutcome>, headers: Record<string, string>): Response {
      const res = r instanceof Response ? r : jsonResponse(r.status, r.body);
      if (res.status >= 500) status.recordServerError(res.status, r instanceof Response ? 'HTTP' : r.code, operation);
      const h = new Headers(res.headers);
      for (const [k, v] of Object.entries(headers)) h.set(k, v);
      h.set('x-request-id', requestId);
      if (request.method === 'HEAD') {
        void res.body?.cancel().catch(() => undefined);
        return new Response(null, { status: res.status, statusText: res.statusText, headers: h });
      }
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers: h });
    }
  };
}

/** Run the route's handler and turn its result into a response. */
async function respond(route: Route, ctx: RouteContext): Promise<Response> {
  const result = await route.handler(ctx);
  if (result instanceof Response) return result;
  if (result instanceof Reply)
    return jsonResponse(result.status, { success: true, ...forClients(result.body) }, result.headers);
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new Error(`route ${route.operationId} returned a non-object`); // a bug in the route: 500 INTERNAL
  }
  // a self-hosted remote engine's URL is the operator's, not the client's (src/http/respond.ts)
  return jsonResponse(route.status?.[0] ?? 200, { success: true, ...forClients(result as Record<string, unknown>) });
}

function compile(routes: readonly Route[], maxBody: number, maxDatasetBody: number): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key) || seen.has(route.operationId))
      throw new TrainprintError('INVALID_OPTIONS', `duplicate route ${key} (${route.operationId})`);
    seen.add(key);
    seen.add(route.operationId);
    const segments = route.path
      .split('/')
      .slice(1)
      .map((s) => {
        const m = /^\{([^}]+)\}$/.exec(s);
        if (!m) return { literal: s };
        const p = PATH_PARAMS[m[1]];
        return { param: m[1], re: new RegExp(p ? p.pattern : '^[^/]+$') };
      });
    const dataset = route.path.startsWith('/api/v1/datasets') && route.body !== undefined;
    return {
      route,
      segments,
      params: segments.filter((s) => 'param' in s).length,
      checkBody:
        route.body === 'json' && route.requestSchema ? compileValidator(route.requestSchema, 'body') : undefined,
      checkQuery: route.querySchema ? compileValidator(route.querySchema, 'query') : undefined,
      maxBodyBytes: route.maxBodyBytes ?? (dataset ? maxDatasetBody : maxBody),
    };
  });
}

/** The route for `path` and `method`: the most literal of the matching ones, or the methods the path allows. */
function matchRoute(
  table: readonly CompiledRoute[],
  path: string,
  method: string,
): { route: CompiledRoute; params: Record<string, string> } | { allow: Method[] } | { route: null } {
  const parts = path.split('/').slice(1);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { route: null };
  }
  const hits: Array<{ route: CompiledRoute; params: Record<string, string> }> = [];
  for (const c of table) {
    if (c.segments.length !== decoded.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < decoded.length && ok; i++) {
      const s = c.segments[i];
      if ('literal' in s) ok = s.literal === parts[i];
      else if (s.re.test(decoded[i])) params[s.param] = decoded[i];
      else ok = false;
    }
    if (ok) hits.push({ route: c, params });
  }
  if (hits.length === 0) return { route: null };
  const same = hits.filter((h) => h.route.route.method === method);
  if (same.length === 0) {
    const allowed = new Set<Method>(hits.map((h) => h.route.route.method));
    if (allowed.has('GET')) allowed.add('HEAD' as Method);
    return { allow: [...allowed].sort() };
  }
  return same.sort((a, b) => a.route.params - b.route.params)[0];
}

/** 415 unless the Content-Type is the route's (and UTF-8 for text bodies). */
async function checkMediaType(request: Request, kind: 'json' | 'form' | 'binary'): Promise<void> {
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  const [media, ...paramsList] = type.split(';').map((s) => s.trim());
  const expected =
    kind === 'json'
      ? 'application/json'
      : kind === 'form'
        ? 'application/x-www-form-urlencoded'
        : 'application/octet-stream';
  const charset = paramsList
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (media !== expected || (kind !== 'binary' && charset !== undefined && charset !== 'utf-8')) {
    await request.body?.cancel().catch(() => undefined);
    throw new TrainprintError(
      'UNSUPPORTED_MEDIA_TYPE',
      `send Content-Type: ${expected}${kind === 'binary' ? '' : ' (UTF-8)'}`,
    );
  }
}

/** The status of a request whose client closed the connection first (nginx's convention; no client sees it). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Read the body, counting bytes as they arrive (a missing or false Content-Length cannot get past the limit). */
async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  // with a declared length the bytes go straight into one buffer: no list of chunks copied again
  // at the end, which halves the memory a large upload takes while it is read
  const declared = declaredLength(request);
  const into = declared !== null && declared > 0 && declared <= limit ? new Uint8Array(declared) : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let filled = 0; // bytes in `into`; once a chunk does not fit, the rest goes to `chunks`
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    if (into !== null && chunks.length === 0 && filled + value.byteLength <= into.length) {
      into.set(value, filled);
      filled += value.byteLength;
    } else chunks.push(value);
    total += value.byteLength;
  }
  if (into !== null) {
    // a body shorter or longer than its Content-Length: keep what came, in order
    if (chunks.length === 0) return filled === into.length ? into : into.subarray(0, filled);
    const out = new Uint8Array(total);
    out.set(into.subarray(0, filled));
    let at = filled;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Bodies from this size on are parsed in a turn of the event loop of their own (3–5 ms of work per MB). */
const LARGE_BODY_BYTES = 1 << 20;

function parseBody(kind: 'json' | 'form' | 'binary', raw: Uint8Array, c: CompiledRoute): unknown {
  if (kind === 'binary') {
    if (raw.length === 0)
      throw new TrainprintError('INVALID_INPUT', 'the body: must not be empty', {
        cause: { location: 'body', field: '', reason: 'must not be empty' },
      });
    return raw;
  }
  if (kind === 'json') return parseJsonBody(raw, c.checkBody);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    throw new TrainprintError('MALFORMED_JSON', 'the body is not valid UTF-8');
  }
  return new URLSearchParams(text);
}

/**
 * A request that meets an engine disposed under it was cut by the server's shutdown: 503
 * SERVICE_UNAVAILABLE (send it again), as when the worker pool closes before its work is done — not a 500.
 */
function shutdownAware(err: unknown): unknown {
  return err instanceof TrainprintError && err.code === 'ENGINE_DISPOSED'
    ? new TrainprintError('SERVICE_UNAVAILABLE', 'the engine was disposed while the request ran', { cause: err })
    : err;
}

function declaredLength(request: Request): number | null {
  const v = request.headers.get('content-length');
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v.trim()) : null;
}

function tooLarge(limit: number, reason?: string): TrainprintError {
  return new TrainprintError(
    'PAYLOAD_TOO_LARGE',
    `the body is larger than ${limit} bytes${reason ? ` (${reason})` : ''}`,
  );
}

/** The client's X-Request-Id when it is a sane token, else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  if (given !== null && /^[A-Za-z0-9._:-]{1,128}$/.test(given)) return given;
  return `req_${Array.from(globalThis.crypto.getRandomValues(new Uint8Array(12)), (x) => x.toString(16).padStart(2, '0')).join('')}`;
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
  fetchFn ??= pinned;
  return createOpenAICompatibleModel({
    baseUrl: url.href,
    model: spec.model,
    timeoutMs,
    ...(spec.api_key === undefined ? {} : { apiKey: spec.api_key }),
    ...(spec.api === undefined ? {} : { api: spec.api }),
    ...(spec.top_logprobs === undefined ? {} : { topLogprobs: spec.top_logprobs }),
    ...(fetchFn === undefined ? {} : { fetch: fetchFn }),
  });
}

/** Which hosts the server calls: the URL policy, and the resolver that checks and pins names under the default one. */
interface HostPolicy {
  readonly allow: (url: URL) => boolean;
  readonly resolve: HostResolver | undefined;
}

function positiveInt(v: number | undefined, d: number, name: string): number {
  if (v === undefined) return d;
  if (!Number.isInteger(v) || v < 1) throw new TrainprintError('INVALID_OPTIONS', `${name} must be a positive integer`);
  return v;
}
