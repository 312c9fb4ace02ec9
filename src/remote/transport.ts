/**
 * Calls to a remote engine: one JSON POST per call, with a timeout, retries with back-off on 429 and 5xx
 * (honouring `Retry-After`), a per-process rate limit and concurrency limit per endpoint, cancellation by
 * the caller's signal, and a call budget per search. Failures are classified for the factor codes of a
 * result: `unreachable` (no answer, a closed socket, 5xx after the retries), `rate_limited` (429 after the
 * retries), `invalid_response` (not the JSON the API documents), `rejected` (the API's own `error` answer),
 * `budget_exhausted` and `cancelled`.
 *
 * The limits are per process and per endpoint origin, shared by every dataset on that endpoint: the public
 * services publish no numeric rate limit and ask clients to retry ("can't guarantee 100% uptime"), so the
 * client is polite by default and an operator may raise the limits for a self-hosted engine.
 */
import { BodyTooLarge, readTextCapped } from '../util/http-body.js';
import { nodeJsonPost, RedirectRefused, type JsonPost, type PostAnswer } from './node-post.js';
import type { TransportOptions } from '../corpus/remote-types.js';
import { TrainprintError } from '../errors.js';
import { sleep } from '../util/timers.js';

export type { TransportOptions };

/** Why a call (or a whole search) did not get its answer. */
export type RemoteFailure =
  | 'unreachable'
  | 'rate_limited'
  | 'invalid_response'
  | 'rejected'
  | 'budget_exhausted'
  | 'cancelled';

/** A call that failed, classified. The message names the endpoint and the status, never the request body. */
export class RemoteCallError extends Error {
  override readonly name = 'RemoteCallError';
  constructor(
    readonly kind: RemoteFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The checked numbers of {@link TransportOptions}. */
export interface TransportSettings {
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseMs: number;
  readonly maxRetryDelayMs: number;
  readonly concurrency: number;
  readonly ratePerSecond: number;
}

/** Check transport options (INVALID_OPTIONS naming the field). */
export function transportSettings(o: TransportOptions = {}): TransportSettings {
  const int = (v: unknown, lo: number, hi: number, name: string, dflt: number): number => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
      throw new TrainprintError('INVALID_OPTIONS', `${name} must be an integer in ${lo}..${hi}`);
    }
    return v;
  };
  return {
    timeoutMs: int(o.timeoutMs, 1, 600_000, 'timeoutMs', 10_000),
    maxRetries: int(o.maxRetries, 0, 10, 'maxRetries', 3),
    retryBaseMs: int(o.retryBaseMs, 0, 60_000, 'retryBaseMs', 250),
    maxRetryDelayMs: int(o.maxRetryDelayMs, 0, 300_000, 'maxRetryDelayMs', 10_000),
    concurrency: int(o.concurrency, 1, 256, 'concurrency', 8),
    ratePerSecond: int(o.ratePerSecond, 1, 100_000, 'ratePerSecond', 150),
  };
}

/** The calls one search may make, and how many it made (a retry is a call). */
export class CallBudget {
  used = 0;
  constructor(readonly limit: number) {}
  get left(): number {
    return this.limit - this.used;
  }
  /** Take one call, or throw `budget_exhausted`. */
  take(): void {
    if (this.used >= this.limit)
      throw new RemoteCallError('budget_exhausted', `the call budget of ${this.limit} is spent`);
    this.used++;
  }
}

/** Health of one endpoint as this process saw it (for `/status`). */
export interface EndpointHealth {
  readonly calls: number;
  readonly failures: number;
  /** Consecutive calls that got no answer (reset by any answer). */
  readonly consecutive_unreachable: number;
  readonly last_ok_at: string | null;
  readonly last_failure_at: string | null;
  readonly last_failure: RemoteFailure | null;
  /** Median latency of the last 100 answered calls, ms. */
  readonly p50_ms: number | null;
}

/** Consecutive unanswered calls after which an endpoint is taken as down for {@link DOWN_FOR_MS}. */
export const DOWN_AFTER = 3;
/**
 * While an endpoint is down, searches fail at once instead of waiting out timeouts (one call at most every
 * this long tries it again): a server that is down answers analyze within seconds, not after every timeout.
 */
export const DOWN_FOR_MS = 30_000;

/** The per-process state of one endpoint origin: limits and health. */
class Endpoint {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private tokens: number;
  private refilled = Date.now();
  calls = 0;
  failures = 0;
  consecutiveUnreachable = 0;
  downSince = 0;
  lastOk: number | null = null;
  lastFailure: number | null = null;
  lastFailureKind: RemoteFailure | null = null;
  private readonly latencies: number[] = [];

  constructor(public settings: TransportSettings) {
    this.tokens = settings.ratePerSecond;
  }

  /** Wait for a concurrency slot and a rate token; resolves to the release function. */
  async acquire(signal: AbortSignal | undefined, sleep: NonNullable<TransportOptions['sleep']>): Promise<() => void> {
    while (this.inFlight >= this.settings.concurrency) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(cancelled());
        };
        if (signal?.aborted) return stop();
        signal?.addEventListener('abort', stop, { once: true });
        this.waiting.push(wake);
      });
    }
    this.inFlight++;
    try {
      for (;;) {
        const now = Date.now();
        const rate = this.settings.ratePerSecond;
        this.tokens = Math.min(rate, this.tokens + ((now - this.refilled) / 1000) * rate);
        this.refilled = now;
        if (this.tokens >= 1) {
          this.tokens--;
          break;
        }
        await sleep(Math.ceil(((1 - this.tokens) / rate) * 1000), signal);
      }
    } catch (e) {
      this.release();
      throw e;
    }
    return () => this.release();
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  answered(ms: number): void {
    this.calls++;
    this.consecutiveUnreachable = 0;
    this.downSince = 0;
    this.lastOk = Date.now();
    this.latencies.push(ms);
    if (this.latencies.length > 100) this.latencies.shift();
  }

  failed(kind: RemoteFailure): void {
    this.calls++;
    this.failures++;
    this.lastFailure = Date.now();
    this.lastFailureKind = kind;
    if (kind === 'unreachable' && ++this.consecutiveUnreachable >= DOWN_AFTER && this.downSince === 0)
      this.downSince = Date.now();
  }

  /** True while the endpoint counts as down; one caller at a time may try it again after DOWN_FOR_MS. */
  isDown(): boolean {
    if (this.downSince === 0) return false;
    if (Date.now() - this.downSince >= DOWN_FOR_MS) {
      this.downSince = Date.now(); // this caller probes; the others keep failing fast
      return false;
    }
    return true;
  }

  health(): EndpointHealth {
    const sorted = this.latencies.slice().sort((a, b) => a - b);
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return {
      calls: this.calls,
      failures: this.failures,
      consecutive_unreachable: this.consecutiveUnreachable,
      last_ok_at: iso(this.lastOk),
      last_failure_at: iso(this.lastFailure),
      last_failure: this.lastFailureKind,
      p50_ms: sorted.length ? Math.round(sorted[Math.floor((sorted.length - 1) / 2)] * 10) / 10 : null,
    };
  }
}

const endpoints = new Map<string, Endpoint>();

/** The per-process state of an endpoint origin (limits: the latest settings given for it). */
function endpointOf(origin: string, settings: TransportSettings): Endpoint {
  let e = endpoints.get(origin);
  if (!e) endpoints.set(origin, (e = new Endpoint(settings)));
  else e.settings = settings;
  return e;
}

/** This process's view of an endpoint's health, or null before any call to it. */
export function endpointHealth(endpoint: string): EndpointHealth | null {
  return endpoints.get(originOf(endpoint))?.health() ?? null;
}

/** Forget every endpoint's health and limits (tests). */
export function resetEndpoints(): void {
  endpoints.clear();
}

function originOf(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return endpoint;
  }
}

const cancelled = () => new RemoteCallError('cancelled', 'the request was cancelled');

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> => sleep(ms, signal, cancelled);

/** Largest response body read (a document window of 10,000 tokens is well under 1 MB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What one call returns: the parsed JSON object and the milliseconds it took (retries included). */
export interface CallAnswer {
  readonly body: Record<string, unknown>;
  readonly ms: number;
}

/**
 * A poster of JSON bodies to one endpoint, with the behaviour of the module comment.
 * @example
 * const post = createTransport('https://api.infini-gram.io/', {})
 * const { body } = await post({ index: 'v4_piletrain_llama', query_type: 'count', query: 'Call me Ishmael' }, { budget, signal })
 */
export function createTransport(endpoint: string, options: TransportOptions = {}) {
  const settings = transportSettings(options);
  // a caller's fetch is used as given; else Node's own HTTP client where there is one (./node-post.ts), else fetch
  const doPost = (options.fetch ? undefined : nodeJsonPost()) ?? fetchPost(options.fetch ?? globalThis.fetch);
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const shown = originOf(endpoint);

  return async function post(
    body: Record<string, unknown>,
    run: { readonly budget: CallBudget; readonly signal?: AbortSignal },
  ): Promise<CallAnswer> {
    const payload = JSON.stringify(body);
    const t0 = Date.now();
    const state = endpointOf(shown, settings); // looked up per call: the process's view of the endpoint
    for (let attempt = 0; ; attempt++) {
      if (run.signal?.aborted) throw cancelled();
      if (state.isDown()) {
        throw new RemoteCallError(
          'unreachable',
          `${shown} did not answer its last ${DOWN_AFTER} calls; not tried again before ${DOWN_FOR_MS / 1000} s have passed`,
        );
      }
      run.budget.take();
      const release = await state.acquire(run.signal, sleep);
      let answer: Awaited<ReturnType<typeof attemptOnce>>;
      try {
        answer = await attemptOnce(doPost, endpoint, payload, settings.timeoutMs, run.signal, shown);
      } finally {
        release(); // also when cancelled
      }
      if (answer.ok) {
        state.answered(Date.now() - t0);
        return { body: answer.body, ms: Date.now() - t0 };
      }
      const failure = answer.error;
      const retryAfterMs = answer.retryAfterMs;
      state.failed(failure.kind);
      const retriable = failure.kind === 'unreachable' || failure.kind === 'rate_limited';
      if (!retriable || attempt >= settings.maxRetries || state.isDown()) throw failure;
      if (retryAfterMs !== undefined && retryAfterMs > settings.maxRetryDelayMs) throw failure;
      const backoff = Math.floor(random() * settings.retryBaseMs * 2 ** attempt);
      await sleep(Math.min(settings.maxRetryDelayMs, Math.max(retryAfterMs ?? 0, backoff)), run.signal);
      if (run.budget.left <= 0)
        throw new RemoteCallError(
          'budget_exhausted',
          `the call budget of ${run.budget.limit} is spent (${failure.message})`,
        );
    }
  };
}

/** A failed attempt: its classified error, and the wait its answer asked for before the next (`Retry-After`). */
type FailedAttempt = { ok: false; error: RemoteCallError; retryAfterMs?: number };

function failed(kind: RemoteFailure, message: string, status?: number, retryAfterMs?: number): FailedAttempt {
  const error = new RemoteCallError(kind, message, status);
  return retryAfterMs === undefined ? { ok: false, error } : { ok: false, error, retryAfterMs };
}

/** One POST: the parsed body of a 200, or the classified failure (cancellation throws). */
async function attemptOnce(
  doPost: JsonPost,
  url: string,
  payload: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  shown: string,
): Promise<{ ok: true; body: Record<string, unknown> } | FailedAttempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let res: PostAnswer;
    try {
      res = await doPost(url, payload, controller.signal, MAX_BODY_BYTES);
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      // the endpoint answered, at another address: said as such, and not retried (it is not down)
      if (e instanceof RedirectRefused)
        return failed(
          'rejected',
          `${shown} answered with a redirect (status ${e.status}${e.location ? ` to ${originOf(e.location)}` : ''}), which is not followed: give the endpoint's final address`,
          e.status,
        );
      const why = timedOut ? `no answer within ${timeoutMs} ms` : `no connection (${causeOf(e)})`;
      return failed('unreachable', `${shown}: ${why}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      // the engine answered, with more than any answer of its API holds: an invalid answer, not an unreachable engine
      if (e instanceof BodyTooLarge)
        return failed('invalid_response', `${shown}: status ${res.status} with ${e.message}`, res.status);
      const why = timedOut
        ? `the body did not arrive within ${timeoutMs} ms`
        : `the connection closed mid-body (${causeOf(e)})`;
      return failed('unreachable', `${shown}: status ${res.status}, ${why}`, res.status);
    }
    if (res.status === 429) {
      return failed('rate_limited', `${shown}: status 429 (rate limited)`, 429, retryAfter(res.header('retry-after')));
    }
    if (res.status >= 500 || res.status === 408) {
      const retryMs = retryAfter(res.header('retry-after'));
      // the engines answer internal errors as 500 with a JSON `error`; a proxy's 502/503 page is an outage
      const apiError = res.status === 500 ? errorOf(text) : null;
      if (apiError !== null) return failed('rejected', `${shown}: status 500: ${clip(apiError)}`, 500);
      return failed('unreachable', `${shown}: status ${res.status} (${bodyShape(res, text)})`, res.status, retryMs);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return failed(
        'invalid_response',
        `${shown}: status ${res.status} with a body that is not JSON (${bodyShape(res, text)})`,
        res.status,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return failed(
        'invalid_response',
        `${shown}: status ${res.status} with a JSON body that is not an object`,
        res.status,
      );
    }
    const body = parsed as Record<string, unknown>;
    // the engines answer bad requests as 400 `[Flask] …` and validation errors as 200 `{ error }`
    if (typeof body.error === 'string') return failed('rejected', `${shown}: ${clip(body.error)}`, res.status);
    if (res.status < 200 || res.status > 299) return failed('rejected', `${shown}: status ${res.status}`, res.status);
    return { ok: true, body };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A poster through `fetch`: the body read as text, refusing more than the cap (a broken proxy could stream without
 * end); a redirect is refused, never followed.
 */
function fetchPost(doFetch: typeof fetch): JsonPost {
  if (typeof doFetch !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'no fetch available: pass options.fetch');
  return async (url, payload, signal, maxBytes) => {
    const res = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: payload,
      signal,
      redirect: 'manual',
    });
    // a browser shows a redirect as an opaque answer of status 0, Node as the 3xx itself: refused either way
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400))
      throw new RedirectRefused(res.status, res.headers.get('location'));
    return { status: res.status, header: (name) => res.headers.get(name), text: () => readTextCapped(res, maxBytes) };
  };
}

/** `Retry-After` as milliseconds (seconds or an HTTP date), or undefined. */
export function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const s = header.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function errorOf(text: string): string | null {
  try {
    const v = JSON.parse(text) as { error?: unknown };
    return typeof v?.error === 'string' ? v.error : null;
  } catch {
    return null;
  }
}

/** What a body looked like, for a message: its content type and length, never its text. */
function bodyShape(res: PostAnswer, text: string): string {
  return `${res.header('content-type') ?? 'no content type'}, ${text.length} characters`;
}

const clip = (s: string): string => (s.length > 300 ? `${s.slice(0, 300)}…` : s);

function causeOf(e: unknown): string {
  const c = (e as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (c && typeof c.code === 'string') return c.code;
  return e instanceof Error ? e.message.slice(0, 120) : 'network error';
}
