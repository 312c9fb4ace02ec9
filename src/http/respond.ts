/**
 * Response bodies of the HTTP adapter. One error envelope, `{ success: false, error: { code,
 * message, details? } }`, with the status from the error-code table (`HTTP_STATUS`, src/errors.ts);
 * success bodies are `{ success: true, ...result }`.
 *
 * Nothing internal leaves through an error: a 5xx carries the code's generic sentence only (no
 * detail, no stack), and anything that is not a `TrainprintError` becomes 500 `INTERNAL` with the
 * request id, so the operator can find it (the status page records it; `onError` sees the error).
 * The one exception is about the client's own model service: 502 `UPSTREAM_ERROR`, 502
 * `UPSTREAM_UNREACHABLE` and 504 `UPSTREAM_TIMEOUT` add `details.upstream`, how that service answered (its URL
 * without credentials or query, its status, the content type and length of its body; never the body,
 * which could be an internal page, nor the API key, nor a socket's error text).
 */
import { HTTP_STATUS, MESSAGES, PUBLIC_ENDPOINTS, TrainprintError, type ErrorCode } from '../library.js';

/**
 * Code of an unexpected failure (not a `TrainprintError`): HTTP 500, generic message.
 * @example
 * INTERNAL_ERROR_CODE // 'INTERNAL'
 */
export const INTERNAL_ERROR_CODE = 'INTERNAL';

/**
 * A code in an error body: a table code, or {@link INTERNAL_ERROR_CODE}.
 * @example const c: EnvelopeCode = 'RATE_LIMITED'
 */
export type EnvelopeCode = ErrorCode | typeof INTERNAL_ERROR_CODE;

/** Headers every JSON answer carries. */
const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * A JSON response.
 * @example
 * jsonResponse(200, { success: true, valid: true })
 */
export function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/**
 * A report as one self-contained HTML page: never stored or sniffed, and it loads nothing (inline styles, `data:` images).
 * @example return htmlReport(await renderWorkReport(record))
 */
export function htmlReport(html: string): Response {
  const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
  const headers = { ...JSON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp };
  return new Response(html, { headers });
}

/**
 * The error of a failed request, ready to send, with what the status log needs.
 * @example jsonResponse(out.status, out.body)
 */
export interface ErrorOutcome {
  readonly status: number;
  readonly code: EnvelopeCode;
  readonly body: { success: false; error: { code: EnvelopeCode; message: string; details?: Record<string, unknown> } };
}

/**
 * The envelope of any thrown value. `TrainprintError`s keep their code, status and (below 500)
 * their message and details; everything else is 500 `INTERNAL`.
 *
 * @example
 * errorOutcome(new TrainprintError('NOT_FOUND', 'no work "wk_…"'), 'req_1').status // 404
 */
export function errorOutcome(err: unknown, requestId: string, details?: Record<string, unknown>): ErrorOutcome {
  if (err instanceof TrainprintError && Object.hasOwn(HTTP_STATUS, err.code)) {
    const status = HTTP_STATUS[err.code];
    if (status >= 500) {
      const upstream =
        (err.code === 'UPSTREAM_ERROR' || err.code === 'UPSTREAM_TIMEOUT' || err.code === 'UPSTREAM_UNREACHABLE') &&
        err.detail
          ? { upstream: err.detail }
          : {};
      return {
        status,
        code: err.code,
        body: {
          success: false,
          error: { code: err.code, message: MESSAGES[err.code], details: { request_id: requestId, ...upstream } },
        },
      };
    }
    const d = details ?? validationDetails(err);
    return {
      status,
      code: err.code,
      body: { success: false, error: { code: err.code, message: err.message, ...(d ? { details: d } : {}) } },
    };
  }
  return {
    status: 500,
    code: INTERNAL_ERROR_CODE,
    body: {
      success: false,
      error: { code: INTERNAL_ERROR_CODE, message: 'An unexpected error occurred', details: { request_id: requestId } },
    },
  };
}

/**
 * `{ location, field, reason }` of a schema failure or a rule's (src/http/validate.ts, `invalidField` put it in
 * `cause`); a body or query refused whole names no field.
 */
function validationDetails(err: TrainprintError): Record<string, unknown> | undefined {
  const c = err.cause as { location?: unknown; field?: unknown; reason?: unknown } | undefined;
  if (!c || typeof c !== 'object' || typeof c.reason !== 'string') return undefined;
  if (c.field === undefined) return { location: c.location, reason: c.reason };
  return typeof c.field === 'string' ? { location: c.location, field: c.field, reason: c.reason } : undefined;
}

/** What a client is shown instead of a self-hosted engine's URL (which may name an internal host). */
export const SELF_HOSTED = 'self-hosted';

/**
 * A success body as API clients see it: every remote corpus report (`remote_corpora`, at the top of an analysis or a
 * score, or in an assessment's `corpus`) and every dataset's stats (`remote.endpoint`) name only the public
 * infini-gram services; a self-hosted engine's URL, which may name an internal host, is shown as "self-hosted", in
 * `endpoint` and in `message` alike — as the status page shows it. The stored result keeps the URL for the operator.
 * @example forClients({ remote_corpora: [{ endpoint: 'http://10.0.0.5:8000', … }] }).remote_corpora[0].endpoint // 'self-hosted'
 */
export function forClients<T extends Record<string, unknown>>(body: T): T {
  const publicUrls = new Set<string>(Object.values(PUBLIC_ENDPOINTS));
  const mask = (reports: unknown): unknown =>
    Array.isArray(reports)
      ? reports.map((r) => {
          if (r === null || typeof r !== 'object') return r;
          const { endpoint, message } = r as { endpoint?: unknown; message?: unknown };
          if (typeof endpoint !== 'string' || publicUrls.has(endpoint)) return r;
          return {
            ...r,
            endpoint: SELF_HOSTED,
            ...(typeof message === 'string' ? { message: message.split(endpoint).join(SELF_HOSTED) } : {}),
          };
        })
      : reports;
  // a dataset's stats (GET /datasets, one dataset): `remote.endpoint`
  const maskStats = (d: unknown): unknown => {
    const remote = (d as { remote?: { endpoint?: unknown } } | null)?.remote;
    if (!remote || typeof remote.endpoint !== 'string' || publicUrls.has(remote.endpoint)) return d;
    return { ...(d as object), remote: { ...remote, endpoint: SELF_HOSTED } };
  };
  let out = maskStats(body) as Record<string, unknown>;
  if (Array.isArray(body.datasets)) out = { ...out, datasets: body.datasets.map(maskStats) };
  if (Array.isArray(body.remote_corpora)) out = { ...out, remote_corpora: mask(body.remote_corpora) };
  const corpus = body.corpus as Record<string, unknown> | null | undefined;
  if (corpus && typeof corpus === 'object' && Array.isArray(corpus.remote_corpora))
    out = { ...out, corpus: { ...corpus, remote_corpora: mask(corpus.remote_corpora) } };
  return out as T;
}
