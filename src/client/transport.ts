/**
 * One call of the client over `fetch`: URL and body encoding, the success envelope, error
 * mapping, per-attempt timeouts, and retries.
 *
 * Retry rules (why: a retried call must not do its work twice):
 * - 429 is retried for every method: the server refuses it before reading the body or running
 *   anything (src/http/handler.ts, step 4), so nothing happened. It waits `Retry-After` when that
 *   is at most `maxRetryDelayMs`; a longer wait (a daily limit hours from its reset) is not a
 *   transient condition, so the error is thrown at once with `retry_after` set.
 * - Network errors, timeouts and 5xx are retried only for idempotent calls: GET, HEAD, DELETE,
 *   a POST sent with an `Idempotency-Key` (the server replays the first result), or a POST the
 *   typed method marks as idempotent (pure computations like compare and score) — except a call marked not
 *   idempotent (`cancelJob`: a job's DELETE whose answer was lost may have cancelled the job, which has finished
 *   since, and a repeat would delete it with its results).
 * - Between attempts: `Retry-After` when given, else exponential backoff with full jitter
 *   (0.5 s, 1 s, 2 s, … capped at 8 s). At most `maxRetries` retries.
 *
 * Only `fetch`, `AbortController`, `setTimeout`, `TextEncoder` and `URL`: the same code runs in
 * Node ≥ 20, Deno, Bun, Workers and browsers.
 */
import { sleep } from '../util/timers.js';
import { CLIENT_ERROR_CODES, TrainprintApiError } from './errors.js';

/** A `fetch`-compatible function (`globalThis.fetch`, undici's, a test double). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Query values: `undefined` members are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Options of one call (typed methods take the ones that apply as their last argument).
 * @example await client.registerWork({ content }, { idempotencyKey: crypto.randomUUID() })
 */
export interface CallOptions {
  /** Sent as `Idempotency-Key` (creating POSTs honour it for 24 h); also makes the POST retryable. */
  readonly idempotencyKey?: string;
  /** Cancels the call (and its retries); rejects with code `ABORTED`. */
  readonly signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
}

/**
 * Options of {@link Transport.request} and the client's generic `request`.
 * @example await client.request('GET', '/api/v1/kb/models', { query: { provider: 'meta' } })
 */
export interface RequestOptions extends CallOptions {
  /** JSON-encoded unless it is a `Uint8Array` / `ArrayBuffer` (sent as `application/octet-stream`) or `URLSearchParams` (a form). */
  readonly body?: unknown;
  readonly query?: Query;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Whether a network error or 5xx may be retried. `true`: although the method is POST (the call is known to be safe
   * to repeat); `false`: not although it is DELETE or PUT (a repeat would do something else, as a job's `DELETE`,
   * which cancels a running job but deletes a finished one). @default by the method (GET, HEAD, DELETE, PUT) and
   * `idempotencyKey`
   */
  readonly idempotent?: boolean;
  /** How to read a success body. @default 'json' */
  readonly responseType?: 'json' | 'bytes' | 'text';
  /** Send the client's key (`Authorization: Bearer …`). @default true */
  readonly auth?: boolean;
}

/**
 * The `RateLimit-*` headers of the last authenticated response.
 * @example client.rateLimit?.remaining // calls left today
 */
export interface RateLimitInfo {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly reset: number;
  /** `RateLimit-Policy`, e.g. `100;w=86400`. */
  readonly policy: string | null;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly fetch: FetchLike;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly maxRetryDelayMs: number;
  /** Sleeps between attempts (tests pass a recording one). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

export class Transport {
  /** The `RateLimit-*` headers of the last response that had them. */
  rateLimit: RateLimitInfo | null = null;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly o: TransportOptions) {
    this.sleep = o.sleep ?? sleep;
  }

  get baseUrl(): string {
    return this.o.baseUrl;
  }

  /** One call with its retries; resolves with the success body (envelope included), bytes or text. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const m = method.toUpperCase();
    const url = this.url(path, options.query);
    const { body, contentType } = encodeBody(options.body);
    const headers: Record<string, string> = {
      accept: options.responseType === 'bytes' ? 'application/octet-stream, application/json' : 'application/json',
      ...options.headers,
    };
    if (contentType) headers['content-type'] = contentType;
    if (this.o.apiKey && options.auth !== false) headers.authorization = `Bearer ${this.o.apiKey}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const idempotent =
      options.idempotent ??
      (m === 'GET' || m === 'HEAD' || m === 'DELETE' || m === 'PUT' || options.idempotencyKey !== undefined);
    const timeoutMs = options.timeoutMs ?? this.o.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < this.o.maxRetries;
      let res: Response;
      try {
        res = await this.fetchOnce(url, { method: m, headers, body }, timeoutMs, options.signal);
      } catch (e) {
        const err = e as TrainprintApiError;
        if (err.code === CLIENT_ERROR_CODES.ABORTED || !idempotent || !canRetry) throw err;
        await this.sleep(backoff(attempt), options.signal).catch(() => {
          throw aborted(options.signal);
        });
        continue;
      }
      this.noteRateLimit(res.headers);
      if (res.ok) return readSuccess<T>(res, options.responseType ?? 'json');
      const err = await readError(res);
      const transient = res.status === 429 || (res.status >= 500 && idempotent);
      if (!transient || !canRetry) throw err;
      const wait = err.retry_after !== null ? err.retry_after * 1000 : backoff(attempt);
      if (wait > this.o.maxRetryDelayMs) throw err;
      await this.sleep(wait, options.signal).catch(() => {
        throw aborted(options.signal);
      });
    }
  }

  /** Absolute URL of `path` (relative to the base URL, which may carry a path prefix). */
  url(path: string, query?: Query): string {
    if (!path.startsWith('/')) throw new TypeError(`path must start with '/': ${path}`);
    const u = new URL(this.o.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** One fetch with its own timeout, linked to the caller's signal. Rejects with a TrainprintApiError. */
  private async fetchOnce(url: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal): Promise<Response> {
    if (signal?.aborted) throw aborted(signal);
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs)
        : undefined;
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.o.fetch(url, { ...init, signal: controller.signal });
      // the body is read under the same timeout: a server that stalls mid-body is a timeout too
      const buffered = new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
      return buffered;
    } catch (e) {
      if (signal?.aborted) throw aborted(signal);
      if (timedOut)
        throw new TrainprintApiError({
          status: 0,
          code: CLIENT_ERROR_CODES.TIMEOUT,
          message: `no response from ${new URL(url).origin} within ${timeoutMs} ms`,
          cause: e,
        });
      if (e instanceof TrainprintApiError) throw e;
      throw new TrainprintApiError({
        status: 0,
        code: CLIENT_ERROR_CODES.NETWORK,
        message: `cannot reach ${new URL(url).origin}: ${e instanceof Error ? e.message : String(e)}`,
        cause: e,
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private noteRateLimit(h: Headers): void {
    const limit = h.get('ratelimit-limit');
    const remaining = h.get('ratelimit-remaining');
    const reset = h.get('ratelimit-reset');
    if (limit === null || remaining === null || reset === null) return;
    this.rateLimit = {
      limit: Number(limit),
      remaining: Number(remaining),
      reset: Number(reset),
      policy: h.get('ratelimit-policy'),
    };
  }
}

function encodeBody(body: unknown): { body: BodyInit | undefined; contentType: string | null } {
  if (body === undefined) return { body: undefined, contentType: null };
  // a request whose content is a file's bytes (analyze, register, score) goes as a multipart upload: fetch writes
  // the Content-Type with its boundary, and the server answers as for the same file in base64
  if (typeof body === 'object' && body !== null && (body as { content?: unknown }).content instanceof Uint8Array)
    return { body: uploadForm(body as Record<string, unknown>), contentType: null };
  if (body instanceof Uint8Array)
    return { body: body as Uint8Array<ArrayBuffer>, contentType: 'application/octet-stream' };
  if (body instanceof ArrayBuffer) return { body: new Uint8Array(body), contentType: 'application/octet-stream' };
  if (body instanceof URLSearchParams)
    return { body: body.toString(), contentType: 'application/x-www-form-urlencoded' };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

/** The media types of the file formats, for the file part of an upload. */
const FILE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  epub: 'application/epub+zip',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** A request with a file's bytes as `content`, as the form the server takes: the file in `file`, the rest as fields. */
function uploadForm(request: Record<string, unknown>): FormData {
  const { content, ...fields } = request;
  const type = typeof fields.content_type === 'string' ? fields.content_type : '';
  const form = new FormData();
  const file = new Blob([content as Uint8Array<ArrayBuffer>], { type: FILE_MEDIA_TYPES[type] ?? '' });
  form.append('file', file, Object.hasOwn(FILE_MEDIA_TYPES, type) ? `document.${type}` : 'document');
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    form.append(name, typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  }
  return form;
}

async function readSuccess<T>(res: Response, type: 'json' | 'bytes' | 'text'): Promise<T> {
  if (type === 'bytes') return new Uint8Array(await res.arrayBuffer()) as T;
  const text = await res.text();
  if (type === 'text') return text as T;
  if (text === '') return { success: true } as T;
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new TrainprintApiError({
      status: res.status,
      code: CLIENT_ERROR_CODES.HTTP,
      message: `the response is not JSON (${res.headers.get('content-type') ?? 'no content type'})`,
      request_id: res.headers.get('x-request-id'),
      cause: e,
    });
  }
}

/** An error response → TrainprintApiError: the API envelope, an OAuth error body, or anything else. */
async function readError(res: Response): Promise<TrainprintApiError> {
  const requestId = res.headers.get('x-request-id');
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  const text = await res.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: handled below
  }
  const base = { status: res.status, request_id: requestId, retry_after: retryAfter };
  if (isObject(body) && body.success === false && isObject(body.error) && typeof body.error.code === 'string') {
    const e = body.error;
    const details = isObject(e.details) ? e.details : undefined;
    return new TrainprintApiError({
      ...base,
      code: e.code as string,
      message: typeof e.message === 'string' ? e.message : (e.code as string),
      details,
      request_id: requestId ?? (typeof details?.request_id === 'string' ? details.request_id : null),
    });
  }
  if (isObject(body) && typeof body.error === 'string') {
    // RFC 6749 §5.2 (the token endpoint)
    return new TrainprintApiError({
      ...base,
      code: body.error,
      message: typeof body.error_description === 'string' ? body.error_description : body.error,
    });
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new TrainprintApiError({
    ...base,
    code: CLIENT_ERROR_CODES.HTTP,
    message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`,
  });
}

/**
 * `Retry-After` in seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable.
 * @example parseRetryAfter('120') // 120
 * @example parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('2026-10-21T07:27:00Z')) // 60
 */
export function parseRetryAfter(v: string | null, now = Date.now()): number | null {
  if (v === null) return null;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s);
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : Math.max(0, Math.ceil((t - now) / 1000));
}

function backoff(attempt: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt); // full jitter
}

function aborted(signal: AbortSignal | undefined): TrainprintApiError {
  const reason = signal?.reason;
  return new TrainprintApiError({
    status: 0,
    code: CLIENT_ERROR_CODES.ABORTED,
    message: `the call was aborted${reason instanceof Error ? `: ${reason.message}` : ''}`,
    cause: reason,
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
